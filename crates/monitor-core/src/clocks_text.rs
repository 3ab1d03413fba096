//! sbc-bench's "Checking cpufreq OPP" text of a clock check, byte for byte: what the clocks
//! suite writes into its phase's output and what the `clocks` kind's summary prints.

use truebench_model::finding::Finding;

use truebench_model::clocks::{AllCores, ClockPoint, ClusterClocks, CoreClock, WalkMode};

/// Deviations within ±this are not shown (sbc-bench's rule: measurement noise).
pub const SHOWN_DEVIATION_PCT: f64 = 1.0;

struct Parts<'a> {
    notes: &'a [String],
    clusters: &'a [ClusterClocks],
    all_cores: Option<&'a AllCores>,
    findings: &'a [Finding],
}

/// sbc-bench's measured-clock column: `1793 (1796.339/1793.356/1789.489)` with the samples
/// right-aligned in 27 characters, so the closing parentheses line up.
fn measured_column(p: &ClockPoint) -> String {
    match p.measured_mhz {
        Some(m) => {
            let samples = p
                .samples_mhz
                .iter()
                .map(|s| format!("{s:.3}"))
                .collect::<Vec<_>>()
                .join("/");
            format!("{:>4} {:>27})", format!("{m:.0}"), format!("({samples}"))
        }
        None => format!(
            "failed ({})",
            p.error.as_deref().unwrap_or("no measurement")
        ),
    }
}

/// `     (-7.5%)` as sbc-bench prints it (`printf "%10s" "(-7.5"` then `%)`), or nothing within
/// ±1 %.
pub fn deviation_column(pct: Option<f64>) -> String {
    match pct {
        Some(d) if d.abs() > SHOWN_DEVIATION_PCT => {
            format!("{:>10}%)", format!("({d:+.1}"))
        }
        _ => String::new(),
    }
}

/// One OPP line: `Cpufreq OPP: 2400    Measured: 2221 (2221.092/2221.044/2220.997)     (-7.5%)`.
pub fn opp_line(p: &ClockPoint, show_deviation: bool) -> String {
    let opp = p
        .opp_mhz
        .map(|o| o.to_string())
        .unwrap_or_else(|| "?".into());
    let dev = if show_deviation {
        deviation_column(p.deviation_pct)
    } else {
        String::new()
    };
    match p.firmware_mhz {
        Some(fw) => format!(
            "Cpufreq OPP: {opp:>4}  ThreadX: {:>4}  Measured: {}{dev}",
            format!("{fw:.0}"),
            measured_column(p)
        ),
        None => format!(
            "Cpufreq OPP: {opp:>4}    Measured: {}{dev}",
            measured_column(p)
        ),
    }
}

/// The text sbc-bench users know, plus notes and findings.
pub fn text(
    notes: &[String],
    clusters: &[ClusterClocks],
    all_cores: Option<&AllCores>,
    findings: &[Finding],
) -> String {
    let r = Parts {
        notes,
        clusters,
        all_cores,
        findings,
    };
    let mut s = String::new();
    for n in r.notes {
        s.push_str(&format!("Note: {n}\n\n"));
    }
    for c in r.clusters {
        let ty = c
            .core_type
            .as_ref()
            .map(|t| format!(" ({t})"))
            .unwrap_or_default();
        s.push_str(&format!(
            "Checking cpufreq OPP for {}{ty}:\n\n",
            c.cpu_range
        ));
        let show_dev = c.enforced != Some(false);
        for (i, p) in c.points.iter().enumerate() {
            match c.mode {
                WalkMode::OppWalk | WalkMode::MaxOpp => {
                    // When OPPs are not enforced only the highest deviation is meaningful.
                    s.push_str(&opp_line(p, show_dev || i == 0));
                }
                WalkMode::NoCpufreq => s.push_str(&format!(
                    "No cpufreq support. Measured: {}",
                    measured_column(p).trim_start()
                )),
                WalkMode::CurrentClock => {
                    let rep = p
                        .reported_mhz
                        .map(|m| format!("{m:>4}"))
                        .unwrap_or_else(|| "   ?".into());
                    s.push_str(&format!(
                        "Cpufreq now: {rep}    Measured: {}",
                        measured_column(p)
                    ));
                }
                WalkMode::Offline => {}
            }
            s.push('\n');
        }
        for n in &c.notes {
            s.push_str(&format!("\n{n}\n"));
        }
        s.push('\n');
    }
    if let Some(a) = r.all_cores {
        render_all(&mut s, "idle", &a.idle);
        render_all(&mut s, "full load", &a.load);
    }
    if !r.findings.is_empty() {
        s.push_str("Findings:\n");
        s.push_str(&crate::detect::render_findings(r.findings));
    }
    s
}

fn render_all(s: &mut String, what: &str, cores: &[CoreClock]) {
    s.push_str(&format!(
        "Measuring highest clockspeeds for all cores in parallel ({what}):\n\n"
    ));
    for c in cores {
        let samples = c
            .samples_mhz
            .iter()
            .map(|m| format!("{m:.3}"))
            .collect::<Vec<_>>()
            .join("/");
        match (c.measured_mhz, c.reported_mhz) {
            (Some(m), Some(r)) => {
                s.push_str(&format!("cpu{}: {m:.0}/{r} MHz ({samples})\n", c.cpu))
            }
            (Some(m), None) => s.push_str(&format!("cpu{}: {m:.0} MHz ({samples})\n", c.cpu)),
            (None, _) => s.push_str(&format!(
                "cpu{}: failed ({})\n",
                c.cpu,
                c.error.as_deref().unwrap_or("no measurement")
            )),
        }
    }
    s.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(opp: u32, measured: f64) -> ClockPoint {
        ClockPoint::at_opp(opp, vec![measured + 0.5, measured, measured - 0.5], 1.0)
    }

    #[test]
    fn lines_align_like_sbc_bench_logs() {
        // Real lines from sbc-bench results (ThomasKaiser/sbc-bench results/*.txt).
        let mut p = point(1907, 1876.0);
        p.samples_mhz = vec![1880.629, 1875.995, 1874.187];
        assert_eq!(
            opp_line(&p, true),
            "Cpufreq OPP: 1907    Measured: 1876 (1880.629/1875.995/1874.187)     (-1.6%)"
        );
        let mut p = point(960, 945.0);
        p.samples_mhz = vec![947.701, 944.895, 943.094];
        assert_eq!(
            opp_line(&p, true),
            "Cpufreq OPP:  960    Measured:  945    (947.701/944.895/943.094)     (-1.6%)"
        );
        let mut p = point(115, 101.0);
        p.samples_mhz = vec![103.305, 102.107, 98.843];
        p.deviation_pct = Some(-12.2);
        assert_eq!(
            opp_line(&p, true),
            "Cpufreq OPP:  115    Measured:  101     (103.305/102.107/98.843)    (-12.2%)"
        );
        let mut p = point(1800, 1858.0);
        p.samples_mhz = vec![1858.269, 1857.991, 1857.921];
        p.deviation_pct = Some(3.2);
        assert_eq!(
            opp_line(&p, true),
            "Cpufreq OPP: 1800    Measured: 1858 (1858.269/1857.991/1857.921)     (+3.2%)"
        );
        // Within ±1 %: no deviation column.
        let mut p = point(2016, 2035.0);
        p.samples_mhz = vec![2036.113, 2035.935, 2035.909];
        assert_eq!(
            opp_line(&p, true),
            "Cpufreq OPP: 2016    Measured: 2035 (2036.113/2035.935/2035.909)"
        );
    }
}
