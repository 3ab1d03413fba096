//! What the `net` and `io` renderers share: the busiest core, the CPU-bound verdict, the clock
//! reached, and the chart of throughput against the sweep's settings.

use truebench_model::sweep::{CoreLoad, CpuBound};
use truebench_model::PhaseStatus;

use crate::report::svg::{bars, cluster_colour, Bar};

/// `cpu1 97 % (softirq 60, process 37)`, or `-` without per-core readings.
/// ` (spread 3.1 % over 3 runs), CPU-bound in 2 of 3` after a test's median.
pub fn runs_note(spread_pct: Option<f64>, runs: u32, cpu_bound_runs: u32) -> String {
    let mut o = spread_pct
        .map(|s| format!(" (spread {s:.1} % over {runs} runs)"))
        .unwrap_or_default();
    if cpu_bound_runs > 0 {
        o.push_str(&format!(", CPU-bound in {cpu_bound_runs} of {runs}"));
    }
    o
}

pub fn busiest(cores: &[CoreLoad]) -> String {
    cores
        .iter()
        .max_by(|a, b| a.busy_pct.total_cmp(&b.busy_pct))
        .map_or("-".into(), |c| {
            format!(
                "cpu{} {:.0} % (softirq {:.0}, process {:.0})",
                c.cpu, c.busy_pct, c.softirq_pct, c.process_pct
            )
        })
}

/// The row's verdict: CPU-bound (which core, by what), not CPU-bound, or its status.
pub fn verdict(cpu_bound: &Option<CpuBound>, status: PhaseStatus) -> String {
    match cpu_bound {
        Some(v) => format!(
            "CPU-bound: cpu{} {:.0} % busy, by {}",
            v.cpu, v.busy_pct, v.by
        ),
        None if status == PhaseStatus::Ok => "not CPU-bound".into(),
        None => status.to_string(),
    }
}

/// The marks of a row, with what made it invalid first: `INVALID (throttling); swapping`.
pub fn marks(marks: &[String], invalid: Option<&str>) -> String {
    let list = marks.join(", ");
    match invalid {
        Some(why) if list.is_empty() => format!("INVALID ({why})"),
        Some(why) => format!("INVALID ({why}); {list}"),
        None => list,
    }
}

/// `policy0 1800, policy4 2400` (MHz), or `-`.
pub fn reached(mhz: &[(String, f64)]) -> String {
    if mhz.is_empty() {
        return "-".into();
    }
    mhz.iter()
        .map(|(p, m)| format!("{p} {m:.0}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One test's median under one setting, with the clock it reached.
pub struct SettingFigure<'a> {
    pub test: &'a str,
    pub setting: &'a str,
    pub value: Option<f64>,
    pub reached_mhz: &'a [(String, f64)],
}

/// One bar chart per test of its median against the settings (only where there are two or
/// more settings to compare).
pub fn setting_bars(figures: &[SettingFigure<'_>], unit: &str, digits: usize) -> String {
    let mut names: Vec<&str> = Vec::new();
    for f in figures {
        if !names.contains(&f.test) {
            names.push(f.test);
        }
    }
    let mut o = String::new();
    for (k, name) in names.iter().enumerate() {
        let rows: Vec<Bar> = figures
            .iter()
            .filter(|f| f.test == *name)
            .filter_map(|f| {
                let v = f.value?;
                let clock = if f.reached_mhz.is_empty() {
                    String::new()
                } else {
                    format!(" · {} MHz", reached(f.reached_mhz))
                };
                Some(Bar {
                    label: f.setting.into(),
                    value: v,
                    colour: cluster_colour(k).into(),
                    text: format!("{v:.digits$} {unit}{clock}"),
                })
            })
            .collect();
        if rows.len() > 1 {
            o.push_str(&bars(&format!("{name}: {unit} per setting"), &rows));
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_chart_per_test_with_two_settings_or_more() {
        let clock = vec![("policy0".to_string(), 1800.0)];
        let f = |test, setting, value| SettingFigure {
            test,
            setting,
            value,
            reached_mhz: &clock,
        };
        let html = setting_bars(
            &[
                f("upload", "as is", Some(900.0)),
                f("upload", "max", Some(950.0)),
                f("download", "as is", Some(800.0)),
            ],
            "Mbit/s",
            0,
        );
        assert!(html.contains("upload: Mbit/s per setting"));
        assert!(html.contains("950 Mbit/s · policy0 1800 MHz"));
        assert!(
            !html.contains("download: Mbit/s per setting"),
            "one setting: no chart"
        );
        assert_eq!(reached(&[]), "-");
        assert_eq!(verdict(&None, PhaseStatus::Failed), "failed");
        assert_eq!(busiest(&[]), "-");
    }
}
