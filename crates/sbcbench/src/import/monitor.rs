//! `System health while running …` tables and throttling statistics.

use super::util::{clock_seconds, number};
use crate::log::{MonitorSample, MonitorTable, ThrottlingTable};

/// Clock column labels from the header tokens between `Time` and `load`.
fn clock_labels(tokens: &[&str]) -> Vec<String> {
    match tokens {
        ["fake/real"] => vec!["cpufreq".into()],
        ["big.LITTLE"] => vec!["big".into(), "little".into()],
        [one] if one.contains('/') => one.split('/').map(|s| s.to_string()).collect(),
        [] => Vec::new(),
        _ => vec!["CPU".into()],
    }
}

fn strip_unit<'a>(s: &'a str, units: &[&str]) -> &'a str {
    for u in units {
        if let Some(v) = s.strip_suffix(u) {
            return v;
        }
    }
    s
}

/// One sample line, interpreted with the table's header tokens.
pub fn sample(line: &str, columns: &[String], rpi: bool) -> Option<MonitorSample> {
    let toks: Vec<&str> = line.split_whitespace().collect();
    let time = toks.first()?.strip_suffix(':')?;
    let seconds = clock_seconds(time);
    seconds?;
    let first_pct = toks.iter().position(|t| t.ends_with('%'))?;
    if first_pct < 2 || toks.len() < first_pct + 6 {
        return None;
    }
    let pct = |i: usize| number(toks[first_pct + i].trim_end_matches('%'));
    let mut s = MonitorSample {
        time: time.to_string(),
        seconds,
        load: number(toks[first_pct - 1]),
        cpu_pct: pct(0),
        sys_pct: pct(1),
        usr_pct: pct(2),
        nice_pct: pct(3),
        io_pct: pct(4),
        irq_pct: pct(5),
        ..Default::default()
    };
    let clock = toks[1..first_pct - 1].join(" ");
    let clock = clock
        .trim()
        .trim_end_matches("MHz")
        .trim_end_matches("Mhz")
        .trim();
    let mut clocks: Vec<Option<u32>> = clock
        .split('/')
        .map(|p| number(p.trim()).map(|v| v.round() as u32))
        .collect();
    if rpi {
        s.real_mhz = clocks.get(1).copied().flatten();
        clocks.truncate(1);
    }
    s.clocks_mhz = clocks;
    // After the six percentages: the temperature, then the extra columns of the header.
    let rest = &toks[first_pct + 6..];
    if let Some(t) = rest.first() {
        s.temp_c = number(strip_unit(t, &["°C", "C"]));
    }
    let temp_col = columns
        .iter()
        .position(|c| c == "Temp")
        .or_else(|| columns.iter().position(|c| c == "%irq").map(|i| i + 1));
    if let Some(tc) = temp_col {
        for (name, value) in columns.iter().skip(tc + 1).zip(rest.iter().skip(1)) {
            let v = number(strip_unit(value, &["mW", "W", "V"]));
            match name.as_str() {
                "VCore" => s.vcore_v = v,
                "PMIC" => s.pmic_w = v,
                "DC(V)" => s.dc_v = v,
                "mW" => s.power_mw = v,
                _ => {}
            }
        }
    }
    Some(s)
}

pub fn tables(lines: &[&str]) -> Vec<MonitorTable> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_end();
        let running = if let Some(r) = line.strip_prefix("System health while running ") {
            r.trim_end_matches(':').trim().to_string()
        } else if line.ends_with("System health now:") {
            "now".to_string()
        } else {
            i += 1;
            continue;
        };
        let mut table = MonitorTable {
            running,
            ..Default::default()
        };
        let mut j = i + 1;
        while j < lines.len() && lines[j].trim().is_empty() {
            j += 1;
        }
        if j < lines.len() && lines[j].starts_with("Time") {
            let header: Vec<&str> = lines[j].split_whitespace().collect();
            let load = header
                .iter()
                .position(|t| *t == "load")
                .unwrap_or(header.len());
            let rpi = header.get(1) == Some(&"fake/real");
            table.clock_labels = clock_labels(&header[1.min(load)..load]);
            table.columns = header.iter().map(|s| s.to_string()).collect();
            j += 1;
            while j < lines.len() {
                if lines[j].starts_with("Time ") {
                    // two monitors writing into one table repeat the header (v0.6, 1 CPU)
                    j += 1;
                    continue;
                }
                match sample(lines[j], &table.columns, rpi) {
                    Some(s) => table.samples.push(s),
                    None => break,
                }
                j += 1;
            }
        }
        out.push(table);
        i = j.max(i + 1);
    }
    out
}

/// `Throttling statistics (time spent on each cpufreq OPP) for CPUs 4-7 (Cortex-A76):` and the
/// v0.4 `Throttling occured. Cpufreq statistics (time in milliseconds):`.
pub fn throttling(lines: &[&str]) -> Vec<ThrottlingTable> {
    truebench_model::throttling::parse(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(h: &str) -> Vec<String> {
        h.split_whitespace().map(|s| s.to_string()).collect()
    }

    #[test]
    fn sample_variants() {
        let c = cols("Time       big.LITTLE   load %cpu %sys %usr %nice %io %irq   Temp");
        let s = sample(
            "23:46:41: 2600/2200MHz  2.39  13%   3%   9%   0%   0%   0%  37.0°C  ",
            &c,
            false,
        )
        .unwrap();
        assert_eq!(s.clocks_mhz, vec![Some(2600), Some(2200)]);
        assert_eq!(
            (s.load, s.cpu_pct, s.sys_pct, s.usr_pct),
            (Some(2.39), Some(13.0), Some(3.0), Some(9.0))
        );
        assert_eq!(s.temp_c, Some(37.0));
        assert_eq!(s.seconds, Some(23 * 3600 + 46 * 60 + 41));

        let c = cols("Time        fake/real   load %cpu %sys %usr %nice %io %irq   Temp    VCore    PMIC   DC(V)      mW");
        let s = sample("11:53:56: 3000/3000MHz  5.51 100%   0%  99%   0%   0%   0%  35.3°C  0.9592V   7.2W   5.15V    9330", &c, true).unwrap();
        assert_eq!(
            (s.clocks_mhz.clone(), s.real_mhz),
            (vec![Some(3000)], Some(3000))
        );
        assert_eq!(
            (s.vcore_v, s.pmic_w, s.dc_v, s.power_mw),
            (Some(0.9592), Some(7.2), Some(5.15), Some(9330.0))
        );
        let s = sample(
            "12:35:00:  600/ 900MHz  0.09  29%   1%  23%   1%   1%   0%  58.4°C  1.3125V",
            &c,
            true,
        )
        .unwrap();
        assert_eq!(
            (s.clocks_mhz.clone(), s.real_mhz, s.vcore_v),
            (vec![Some(600)], Some(900), Some(1.3125))
        );

        let c = cols("Time      CPU n/a    load %cpu %sys %usr %nice %io %irq   Temp");
        let s = sample(
            "11:33:33:   ---      1.05 100%   0%  99%   0%   0%   0%   n/a°C",
            &c,
            false,
        )
        .unwrap();
        assert_eq!(
            (s.clocks_mhz.clone(), s.temp_c, s.load),
            (vec![None], None, Some(1.05))
        );
        let s = sample(
            "15:59:10:     MHz  4.12 100%   0%  99%   0%   0%   0%  103.1°C",
            &c,
            false,
        )
        .unwrap();
        assert_eq!((s.clocks_mhz.clone(), s.temp_c), (vec![None], Some(103.1)));
        let s = sample(
            "01:02:03: 1200MHz  1.00  26%   0%  25%   0%   0%   0%  52,5°C",
            &c,
            false,
        )
        .unwrap();
        assert_eq!(s.temp_c, Some(52.5));
        assert!(sample("Checking cpufreq OPP:", &c, false).is_none());
        assert!(sample("1800 MHz:  970.03 sec", &c, false).is_none());
    }

    #[test]
    fn tables_and_throttling() {
        let lines = [
            "System health while running tinymembench:",
            "",
            "Time        CPU    load %cpu %sys %usr %nice %io %irq   Temp",
            "12:35:00:  900MHz  0.09  29%   1%  23%   1%   1%   0%  58.4°C",
            "12:36:00:  900MHz  0.85  26%   1%  25%   0%   0%   0%  62.1°C",
            "",
            "System health while running 7-zip single core benchmark:",
            "",
            "",
            "Throttling statistics (time spent on each cpufreq OPP) for CPUs 4-7 (Cortex-A76):",
            "",
            "2400 MHz:  300.50 sec",
            " 408 MHz:       0 sec",
            "",
            "Throttling occured. Cpufreq statistics (time in milliseconds):",
            "",
            "1800 MHz:\t86780",
        ];
        let t = tables(&lines);
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].running, "tinymembench");
        assert_eq!(t[0].samples.len(), 2);
        assert_eq!(t[0].clock_labels, vec!["CPU"]);
        assert!(t[1].samples.is_empty());
        let th = throttling(&lines);
        assert_eq!(th.len(), 2);
        assert_eq!(th[0].cpus.as_deref(), Some("4-7"));
        assert_eq!(th[0].core_type.as_deref(), Some("Cortex-A76"));
        assert_eq!(th[0].time_in_state, vec![(2400, 300.5), (408, 0.0)]);
        assert_eq!(th[1].time_in_state, vec![(1800, 86.78)]);
    }
}
