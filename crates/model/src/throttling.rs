//! The throttling statistics a result shows: per cpufreq policy, the time spent at each OPP
//! while the measurement ran (from `time_in_state`) — typed data; the sbc-bench text layout
//! is the renderer's. The parser reads that layout (sbc-bench logs of every version, and the
//! text version-2 documents stored) into the same type.

use serde::{Deserialize, Serialize};

/// `Throttling statistics (time spent on each cpufreq OPP)[ for CPUs 4-7[ (Cortex-A76)]]:`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ThrottlingTable {
    /// `4-7`; None on a machine with one cluster.
    pub cpus: Option<String>,
    /// `Cortex-A76`.
    pub core_type: Option<String>,
    /// `(MHz, seconds)`, highest OPP first.
    pub time_in_state: Vec<(u32, f64)>,
}

impl ThrottlingTable {
    /// Seconds spent below the highest OPP of the table.
    pub fn below_top_s(&self) -> f64 {
        let top = self.time_in_state.iter().map(|r| r.0).max().unwrap_or(0);
        self.time_in_state
            .iter()
            .filter(|r| r.0 < top)
            .map(|r| r.1)
            .sum()
    }
}

/// A number as sbc-bench prints it: `1793.531`, `+36.0`, `52,5` (comma locale).
fn number(s: &str) -> Option<f64> {
    let s = s.trim().trim_start_matches('+');
    let v: f64 = if s.contains(',') && !s.contains('.') {
        s.replacen(',', ".", 1).parse().ok()?
    } else {
        s.parse().ok()?
    };
    v.is_finite().then_some(v)
}

/// Every table in `lines`: the current layout, and v0.4's `Throttling occured. Cpufreq
/// statistics (time in milliseconds):` (milliseconds converted to seconds). A malformed row
/// ends its table.
pub fn parse(lines: &[&str]) -> Vec<ThrottlingTable> {
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let (millis, rest) = if let Some(r) =
            line.strip_prefix("Throttling statistics (time spent on each cpufreq OPP)")
        {
            (false, r)
        } else if line.starts_with("Throttling occured. Cpufreq statistics") {
            (true, "")
        } else {
            continue;
        };
        let rest = rest.trim().trim_end_matches(':').trim();
        let (cpus, core_type) = match rest.strip_prefix("for CPUs ") {
            Some(r) => {
                let r = r.trim();
                match r.find(" (") {
                    Some(i) if r.ends_with(')') => (
                        Some(r[..i].trim().to_string()),
                        Some(r[i + 2..r.len() - 1].trim().to_string()),
                    ),
                    _ => (Some(r.to_string()), None),
                }
            }
            None => (None, None),
        };
        let mut t = ThrottlingTable {
            cpus,
            core_type,
            time_in_state: Vec::new(),
        };
        for l in lines.iter().skip(i + 1) {
            let l = l.trim();
            if l.is_empty() {
                if t.time_in_state.is_empty() {
                    continue;
                }
                break;
            }
            let Some((mhz, v)) = l.split_once(':') else {
                break;
            };
            let Some(mhz) = mhz
                .trim()
                .strip_suffix("MHz")
                .and_then(|m| number(m.trim()))
                .filter(|m| *m >= 0.0 && *m < u32::MAX as f64)
            else {
                break;
            };
            let Some(v) = number(v.trim().trim_end_matches("sec").trim()) else {
                break;
            };
            let secs = if millis { v / 1000.0 } else { v };
            t.time_in_state.push((mhz as u32, secs));
        }
        out.push(t);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_layouts_and_labels() {
        let text = "Throttling statistics (time spent on each cpufreq OPP) for CPUs 4-7 (Cortex-A76):\n\n\
                    2400 MHz:  120.50 sec\n2208 MHz:   30.00 sec\n1800 MHz:       0 sec\n\n\
                    Throttling statistics (time spent on each cpufreq OPP):\n\n1512 MHz: 12,50 sec\n";
        let lines: Vec<&str> = text.lines().collect();
        let t = parse(&lines);
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].cpus.as_deref(), Some("4-7"));
        assert_eq!(t[0].core_type.as_deref(), Some("Cortex-A76"));
        assert_eq!(
            t[0].time_in_state,
            [(2400, 120.5), (2208, 30.0), (1800, 0.0)]
        );
        assert_eq!(t[0].below_top_s(), 30.0);
        assert_eq!(t[1].cpus, None);
        assert_eq!(t[1].time_in_state, [(1512, 12.5)]);
        let old = [
            "Throttling occured. Cpufreq statistics (time in milliseconds):",
            "1200 MHz: 2500",
        ];
        assert_eq!(parse(&old)[0].time_in_state, [(1200, 2.5)]);
        // Garbage ends a table; it does not panic.
        let bad = [
            "Throttling statistics (time spent on each cpufreq OPP):",
            "x MHz: 1 sec",
            "1e999 MHz: 3",
        ];
        assert!(parse(&bad)[0].time_in_state.is_empty());
    }
}
