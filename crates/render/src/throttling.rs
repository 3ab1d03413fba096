//! The throttling statistics as text: sbc-bench's layout, from the document's typed tables.

use std::fmt::Write;

use truebench_model::throttling::ThrottlingTable;

/// A header per table (` for CPUs 4-7 (Cortex-A76)` on a machine with several clusters), a
/// blank line, `%4s MHz: %7s sec` rows (zero printed as `0`), a blank line.
pub fn text(tables: &[ThrottlingTable]) -> String {
    let mut o = String::new();
    for t in tables {
        let label = match (&t.cpus, &t.core_type) {
            (Some(c), Some(k)) => format!(" for CPUs {c} ({k})"),
            (Some(c), None) => format!(" for CPUs {c}"),
            _ => String::new(),
        };
        let _ = writeln!(
            o,
            "Throttling statistics (time spent on each cpufreq OPP){label}:\n"
        );
        for (mhz, s) in &t.time_in_state {
            let d = if *s == 0.0 {
                "0".to_string()
            } else {
                format!("{s:.2}")
            };
            let _ = writeln!(o, "{mhz:>4} MHz: {d:>7} sec");
        }
        o.push('\n');
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text reads back into the same tables (the parser of sbc-bench's logs and of
    /// version-2 documents).
    #[test]
    fn text_round_trips_through_the_parser() {
        let tables = vec![
            ThrottlingTable {
                cpus: Some("4-7".into()),
                core_type: Some("Cortex-A76".into()),
                time_in_state: vec![(2400, 120.5), (2208, 30.0), (1800, 0.0)],
            },
            ThrottlingTable {
                cpus: None,
                core_type: None,
                time_in_state: vec![(1512, 12.25)],
            },
        ];
        let t = text(&tables);
        assert!(t.starts_with(
            "Throttling statistics (time spent on each cpufreq OPP) for CPUs 4-7 (Cortex-A76):\n\n2400 MHz:  120.50 sec\n"
        ), "{t}");
        assert!(t.contains("1800 MHz:       0 sec\n"), "{t}");
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(truebench_model::throttling::parse(&lines), tables);
    }
}
