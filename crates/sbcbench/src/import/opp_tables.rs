//! The device-tree section sbc-bench prints from v0.9.x on (`ParseOPPTables`): the I2C
//! regulators' voltages (`   vdd_cpu_b: 1300 mV (1500 mV max)`), then every OPP table with
//! `opp-microvolt` (`   cluster1-opp-table:` and rows `      2400 MHz   1000.0 mV (00fd 0080)`,
//! the parenthesis holding `opp-supported-hw` as 16-bit groups with zero groups dropped; speed
//! bins as several `mV` columns; `-` without a voltage); and the `Status of performance
//! related policies` lines `cpufreq-policy4: performance / 2304 MHz (governors / OPPs)`.

use crate::log::{DtOppSection, LogOppRow, LogOppTable, LogRegulator, PolicyLine};

/// `   vdd_cpu_b: 1300 mV (1500 mV max)` or `   vdd_cpu_b: 1300 mV`.
fn regulator(line: &str) -> Option<LogRegulator> {
    if !line.starts_with("   ") || line.starts_with("    ") {
        return None;
    }
    let (name, rest) = line.trim().split_once(": ")?;
    if name.contains(' ') || name.is_empty() {
        return None;
    }
    let (now, rest) = rest.split_once(" mV")?;
    let mv: u32 = now.trim().parse().ok()?;
    let rest = rest.trim();
    let max_mv = if rest.is_empty() {
        None
    } else {
        let inner = rest.strip_prefix('(')?.strip_suffix(" mV max)")?;
        Some(inner.trim().parse::<u32>().ok()?)
    };
    Some(LogRegulator {
        name: name.to_string(),
        mv,
        max_mv,
    })
}

/// `      2400 MHz   1000.0 mV (00fd 0080)`, `  480 MHz  900.0 mV  920.0 mV …`, `  408 MHz  -`.
fn row(line: &str) -> Option<LogOppRow> {
    let t = line.trim();
    let (mhz, rest) = t.split_once(" MHz")?;
    let mhz: u32 = mhz.trim().parse().ok()?;
    let (volts_part, hw_part) = match rest.split_once('(') {
        Some((v, h)) => (v, Some(h.strip_suffix(')')?)),
        None => (rest, None),
    };
    let mut mv: Vec<f64> = Vec::new();
    let mut words = volts_part.split_whitespace().peekable();
    while let Some(w) = words.next() {
        if w == "-" {
            continue;
        }
        let v: f64 = w.parse().ok()?;
        if words.next() != Some("mV") {
            return None;
        }
        mv.push(v);
    }
    let supported_hw = match hw_part {
        Some(h) => h
            .split_whitespace()
            .map(|g| u32::from_str_radix(g, 16).ok())
            .collect::<Option<Vec<u32>>>()?,
        None => Vec::new(),
    };
    Some(LogOppRow {
        mhz,
        mv,
        supported_hw,
    })
}

/// The regulators and OPP tables of a log; None when it printed none.
pub fn dt_opp(lines: &[&str]) -> Option<DtOppSection> {
    let mut s = DtOppSection::default();
    let mut cur: Option<LogOppTable> = None;
    for line in lines {
        let t = line.trim();
        // A table heading: three spaces, a name with "opp", a colon.
        let heading = line.starts_with("   ")
            && !line.starts_with("    ")
            && t.ends_with(':')
            && t.contains("opp")
            && !t.contains(' ');
        if heading {
            s.tables.extend(cur.take());
            cur = Some(LogOppTable {
                name: t.trim_end_matches(':').to_string(),
                rows: Vec::new(),
            });
            continue;
        }
        if let Some(tb) = cur.as_mut() {
            if let Some(r) = row(line) {
                tb.rows.push(r);
                continue;
            }
            if !t.is_empty() {
                s.tables.extend(cur.take());
            }
        }
        // sbc-bench prints only these regulators (ParseOPPTables' name filter).
        if let Some(r) = regulator(line).filter(|r| {
            ["cpu", "gpu", "center", "npu", "ddr", "dmc"]
                .iter()
                .any(|k| r.name.contains(k))
        }) {
            s.regulators.push(r);
        }
    }
    s.tables.extend(cur.take());
    s.tables.retain(|t| !t.rows.is_empty());
    (!s.tables.is_empty() || !s.regulators.is_empty()).then_some(s)
}

/// `    cpufreq-policy4: performance / 2304 MHz (interactive ondemand / 408 600 … 2304)`.
pub fn policies(lines: &[&str]) -> Vec<PolicyLine> {
    let mut out: Vec<PolicyLine> = Vec::new();
    for line in lines {
        let t = line.trim();
        let Some(rest) = t.strip_prefix("cpufreq-policy") else {
            continue;
        };
        let Some((n, rest)) = rest.split_once(": ") else {
            continue;
        };
        let Ok(policy) = n.parse::<u32>() else {
            continue;
        };
        let offered: Vec<u32> = rest
            .split_once('(')
            .and_then(|(_, p)| p.strip_suffix(')'))
            .and_then(|p| p.rsplit_once(" / "))
            .map(|(_, list)| {
                list.split_whitespace()
                    .filter_map(|f| f.parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        if offered.is_empty() || out.iter().any(|p| p.policy == policy) {
            continue;
        }
        out.push(PolicyLine {
            policy,
            offered_mhz: offered,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_regulators() {
        let r = row("      2400 MHz   1000.0 mV (00fd 0080)").unwrap();
        assert_eq!(
            (r.mhz, r.mv.clone(), r.supported_hw),
            (2400, vec![1000.0], vec![0xfd, 0x80])
        );
        let r = row("       480 MHz    900.0 mV   920.0 mV   920.0 mV").unwrap();
        assert_eq!(r.mv, [900.0, 920.0, 920.0]);
        let r = row("       408 MHz       -").unwrap();
        assert!(r.mv.is_empty());
        assert!(row("      2400 MHz   1000.0 mV (zz)").is_none());
        let g = regulator("   vdd_cpu_b: 1300 mV (1500 mV max)").unwrap();
        assert_eq!((g.mv, g.max_mv), (1300, Some(1500)));
        assert_eq!(regulator("   vdd_cpu: 850 mV").unwrap().max_mv, None);
        assert!(regulator("   vdd_cpu: 850 mV (x mV max)").is_none());
    }

    #[test]
    fn policy_lines() {
        let p = policies(&["    cpufreq-policy4: performance / 2304 MHz (interactive ondemand performance schedutil / 408 600 816 2304)", "    cpufreq-policy0: performance / 1800 MHz"]);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].offered_mhz, [408, 600, 816, 2304]);
    }
}
