//! Clock checks (`Checking cpufreq OPP`, `No cpufreq support`, parallel measurements) and the
//! CPU topology table.

use super::util::{cpu_number, int, is_separator, number, samples, split_label, truncated_mean};
use crate::log::{
    NoCpufreqMeasurement, OppBlock, OppPoint, ParallelClock, ParallelClocks, Round, TopologyCpu,
};

/// Lines that start the second round of clock checks, after the benchmarks.
pub fn starts_after_round(line: &str) -> bool {
    line.starts_with("Testing clockspeeds again")
        || line.starts_with("Testing maximum cpufreq again")
}

/// `Cpufreq OPP: 1800    Measured: 1793 (1793.551/1793.033/1793.531)     (-0.4%)`
pub fn opp_point(line: &str) -> Option<OppPoint> {
    let rest = line.trim().strip_prefix("Cpufreq OPP:")?;
    let (before, measured) = match rest.find("Measured:") {
        Some(i) => (&rest[..i], Some(&rest[i + 9..])),
        None => (rest, None),
    };
    let mut toks = before.split_whitespace();
    let opp_mhz = toks.next().and_then(number).map(|v| v as u32)?;
    let mut p = OppPoint {
        opp_mhz,
        ..Default::default()
    };
    if let Some(i) = before.find("ThreadX:") {
        p.threadx_mhz = before[i + 8..]
            .split_whitespace()
            .next()
            .and_then(number)
            .map(|v| v as u32);
    }
    let Some(m) = measured else {
        return Some(p);
    };
    let toks: Vec<&str> = m.split_whitespace().collect();
    let mut i = 0;
    if let Some(first) = toks.first() {
        if first.contains('/') {
            // v0.4 … v0.7: only the samples were printed
            p.samples = samples(first);
        } else {
            p.measured_mhz = number(first).map(|v| v as u32);
            p.measured_printed = p.measured_mhz.is_some();
        }
        i = 1;
    }
    while i < toks.len() {
        let t = toks[i];
        if t == "@" {
            if let Some(v) = toks.get(i + 1) {
                p.volts = v
                    .split('/')
                    .filter_map(|x| number(x.trim_end_matches('V')))
                    .collect();
                i += 1;
            }
        } else if t.starts_with('(') && t.contains('/') {
            p.samples = samples(t.trim_start_matches('(').trim_end_matches(')'));
        } else if t.starts_with('(') && t.ends_with("%)") {
            p.deviation_pct = number(&t[1..t.len() - 2]);
        }
        i += 1;
    }
    if p.measured_mhz.is_none() {
        p.measured_mhz = truncated_mean(&p.samples);
    }
    Some(p)
}

/// `No cpufreq support available. Measured on cpu1: 1678 MHz (1678.127/1676.767/1677.690)`,
/// `No cpufreq support available. Measured on cpu1: 1678.127/1676.767/1677.690`,
/// `No cpufreq support.  Measured: 1678 (1678.127/…)`.
pub fn no_cpufreq(line: &str, round: Round) -> Option<NoCpufreqMeasurement> {
    let rest = line.trim().strip_prefix("No cpufreq support")?;
    let wording = if rest.starts_with(" available") {
        "available"
    } else {
        "short"
    };
    let mi = rest.find("Measured")?;
    let after = &rest[mi + 8..];
    let colon = after.find(':')?;
    let cpu = after[..colon]
        .trim()
        .strip_prefix("on ")
        .and_then(cpu_number);
    let toks: Vec<&str> = after[colon + 1..].split_whitespace().collect();
    let mut m = NoCpufreqMeasurement {
        round,
        cpu,
        wording: wording.to_string(),
        ..Default::default()
    };
    for t in &toks {
        if t.contains('/') {
            m.samples = samples(t.trim_start_matches('(').trim_end_matches(')'));
        } else if m.measured_mhz.is_none() {
            m.measured_mhz = number(t).map(|v| v as u32);
        }
    }
    if m.measured_mhz.is_none() {
        m.measured_mhz = truncated_mean(&m.samples);
    }
    Some(m)
}

/// The heading's `for cpu0-cpu3 (Cortex-A55)` / `(Cortex-A53)` / nothing.
fn heading(rest: &str) -> (Option<String>, Option<String>) {
    let rest = rest.trim().trim_end_matches(':').trim();
    let rest = rest.strip_prefix("for ").unwrap_or(rest);
    if rest.is_empty() {
        return (None, None);
    }
    if rest.starts_with('(') && rest.ends_with(')') {
        return (None, Some(rest[1..rest.len() - 1].to_string()));
    }
    let (cpus, label) = split_label(rest);
    ((!cpus.is_empty()).then_some(cpus), label)
}

pub struct Clocks {
    pub blocks: Vec<OppBlock>,
    pub no_cpufreq: Vec<NoCpufreqMeasurement>,
    pub parallel: Vec<ParallelClocks>,
}

pub fn clocks(lines: &[&str]) -> Clocks {
    let mut out = Clocks {
        blocks: Vec::new(),
        no_cpufreq: Vec::new(),
        parallel: Vec::new(),
    };
    let mut round = Round::Before;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if starts_after_round(line) {
            round = Round::After;
        }
        if let Some(rest) = line.strip_prefix("Checking cpufreq OPP") {
            let (cpus, core_type) = heading(rest);
            let mut block = OppBlock {
                round,
                cpus,
                core_type,
                points: Vec::new(),
            };
            let mut j = i + 1;
            while j < lines.len() && lines[j].trim().is_empty() {
                j += 1;
            }
            while j < lines.len() {
                let l = lines[j];
                if let Some(p) = opp_point(l) {
                    block.points.push(p);
                } else if let Some(m) = no_cpufreq(l, round) {
                    out.no_cpufreq.push(m);
                } else {
                    break;
                }
                j += 1;
            }
            out.blocks.push(block);
            i = j;
            continue;
        }
        if let Some(m) = no_cpufreq(line, round) {
            out.no_cpufreq.push(m);
        } else if let Some(rest) =
            line.strip_prefix("Measuring highest clockspeeds for all cores in parallel")
        {
            let condition = rest
                .trim()
                .trim_end_matches(':')
                .trim_start_matches('(')
                .trim_end_matches(')')
                .to_string();
            let mut pc = ParallelClocks {
                condition,
                cpus: Vec::new(),
            };
            let mut j = i + 1;
            while j < lines.len() && lines[j].trim().is_empty() {
                j += 1;
            }
            while j < lines.len() {
                let Some(c) = parallel_clock(lines[j]) else {
                    break;
                };
                pc.cpus.push(c);
                j += 1;
            }
            out.parallel.push(pc);
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

/// `cpu0: 2991/2999 MHz (2991.997/2991.789/2991.720)`
fn parallel_clock(line: &str) -> Option<ParallelClock> {
    let (cpu, rest) = line.trim().split_once(':')?;
    let cpu = cpu_number(cpu)?;
    let toks: Vec<&str> = rest.split_whitespace().collect();
    let mut c = ParallelClock {
        cpu,
        ..Default::default()
    };
    if let Some(first) = toks.first() {
        let mut parts = first.split('/');
        c.measured_mhz = parts.next().and_then(number).map(|v| v as u32);
        c.max_mhz = parts.next().and_then(number).map(|v| v as u32);
    }
    if let Some(s) = toks.iter().find(|t| t.starts_with('(')) {
        c.samples = samples(s.trim_start_matches('(').trim_end_matches(')'));
    }
    Some(c)
}

/// One row of the topology table: `  4        1        4      408    1800   Cortex-A72 / r0p2`.
fn topology_row(line: &str) -> Option<TopologyCpu> {
    let toks: Vec<&str> = line.split_whitespace().collect();
    if toks.len() < 5 {
        return None;
    }
    let cpu: u32 = toks[0].parse().ok()?;
    let opt_u32 = |t: &str| int(t).map(|v| v as u32);
    let cluster: Option<i64> = toks[1].parse().ok();
    if cluster.is_none() && toks[1] != "-" {
        return None;
    }
    let mut row = TopologyCpu {
        cpu,
        cluster,
        policy: opt_u32(toks[2]),
        min_mhz: opt_u32(toks[3]),
        max_mhz: opt_u32(toks[4]),
        ..Default::default()
    };
    let rest = toks[5..].join(" ");
    if !rest.is_empty() && rest != "-" {
        match rest.rsplit_once(" / ") {
            Some((core, step)) => {
                row.core_type = Some(core.to_string());
                row.stepping = Some(step.to_string());
            }
            None => row.core_type = Some(rest),
        }
    }
    Some(row)
}

/// The first `CPU sysfs topology (clusters, cpufreq members, clockspeeds)` table.
pub fn topology(lines: &[&str]) -> Vec<TopologyCpu> {
    let Some(start) = lines
        .iter()
        .position(|l| l.starts_with("CPU sysfs topology") || l.starts_with("CPU topology"))
    else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    for line in lines.iter().skip(start + 1) {
        let t = line.trim();
        if t.starts_with("cpufreq") || t.starts_with("CPU ") {
            continue; // the two header lines
        }
        match topology_row(line) {
            Some(r) => rows.push(r),
            None => break,
        }
        if is_separator(line) {
            break;
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opp_point_formats() {
        let p =
            opp_point("Cpufreq OPP: 2600    Measured: 2598 (2598.747/2598.642/2598.642)").unwrap();
        assert_eq!(
            (p.opp_mhz, p.measured_mhz, p.measured_printed),
            (2600, Some(2598), true)
        );
        assert_eq!(p.samples, vec![2598.747, 2598.642, 2598.642]);

        let p = opp_point(
            "Cpufreq OPP:  800    Measured:  796    (796.912/796.882/796.833)     (-0.5%)",
        )
        .unwrap();
        assert_eq!(p.measured_mhz, Some(796));
        assert_eq!(p.deviation_pct, Some(-0.5));

        // v0.6: samples only; sbc-bench's RoundedSpeed computed from them
        let p = opp_point("Cpufreq OPP: 1416    Measured: 1407.273/1407.396/1407.366").unwrap();
        assert_eq!((p.measured_mhz, p.measured_printed), (Some(1407), false));

        // Raspberry Pi
        let p = opp_point(
            "Cpufreq OPP: 2400  ThreadX: 2400  Measured: 2398 @ 0.8684V/0.8690V    (+1.2%)",
        )
        .unwrap();
        assert_eq!(p.threadx_mhz, Some(2400));
        assert_eq!(p.volts, vec![0.8684, 0.869]);
        assert_eq!(p.deviation_pct, Some(1.2));
        let p =
            opp_point("Cpufreq OPP:  600    ThreadX:  600    Measured: 631.031/593.783/593.950")
                .unwrap();
        assert_eq!((p.threadx_mhz, p.measured_mhz), (Some(600), Some(606)));
        assert!(opp_point("Cpufreq OPP: garbage").is_none());
    }

    #[test]
    fn no_cpufreq_formats() {
        let m = no_cpufreq(
            "No cpufreq support available. Measured on cpu1: 1678.127/1676.767/1677.690",
            Round::Before,
        )
        .unwrap();
        assert_eq!((m.cpu, m.measured_mhz), (Some(1), Some(1677)));
        let m = no_cpufreq(
            "No cpufreq support available. Measured on cpu1: 1678 MHz (1678.127/1676.767/1677.690)",
            Round::After,
        )
        .unwrap();
        assert_eq!((m.measured_mhz, m.round), (Some(1678), Round::After));
        let m = no_cpufreq(
            "No cpufreq support.  Measured: 1234 (1234.5/1234.6/1234.4)",
            Round::Before,
        )
        .unwrap();
        assert_eq!(
            (m.cpu, m.measured_mhz, m.wording.as_str()),
            (None, Some(1234), "short")
        );
        let m = no_cpufreq(
            "No cpufreq support available. Measured on cpu3: 997 MHz ()",
            Round::Before,
        )
        .unwrap();
        assert_eq!((m.measured_mhz, m.samples.len()), (Some(997), 0));
    }

    #[test]
    fn blocks_and_rounds() {
        let lines = [
            "Checking cpufreq OPP for cpu0-cpu3 (Cortex-A55):",
            "",
            "Cpufreq OPP: 1800    Measured: 1795 (1795.151/1795.111/1794.990)",
            "Cpufreq OPP:  408    Measured:  405 (405.1/405.2/405.3)",
            "",
            "Checking cpufreq OPP (Cortex-A53):",
            "",
            "Cpufreq OPP: 1200    Measured: 1190 (1190.0/1190.0/1190.0)",
            "",
            "Testing maximum cpufreq again, still under full load. System health now:",
            "",
            "Checking cpufreq OPP for cpu0-cpu3 (Cortex-A55):",
            "",
            "Cpufreq OPP: 1800    Measured: 1700 (1700.0/1700.0/1700.0)",
        ];
        let c = clocks(&lines);
        assert_eq!(c.blocks.len(), 3);
        assert_eq!(c.blocks[0].cpus.as_deref(), Some("cpu0-cpu3"));
        assert_eq!(c.blocks[0].core_type.as_deref(), Some("Cortex-A55"));
        assert_eq!(c.blocks[0].points.len(), 2);
        assert_eq!(c.blocks[1].cpus, None);
        assert_eq!(c.blocks[1].core_type.as_deref(), Some("Cortex-A53"));
        assert_eq!(c.blocks[2].round, Round::After);
    }

    #[test]
    fn topology_table() {
        let lines = [
            "CPU sysfs topology (clusters, cpufreq members, clockspeeds)",
            "                 cpufreq   min    max",
            " CPU    cluster  policy   speed  speed   core type",
            "  0        0        0      800    2600   Cortex-A720 / r0p1",
            "  1       -1        0      -       -     sifive,u74-mc",
            "  2        0        -      -       -     -",
            "",
            "Architecture: aarch64",
        ];
        let t = topology(&lines);
        assert_eq!(t.len(), 3);
        assert_eq!(t[0].core_type.as_deref(), Some("Cortex-A720"));
        assert_eq!(t[0].stepping.as_deref(), Some("r0p1"));
        assert_eq!((t[0].min_mhz, t[0].max_mhz), (Some(800), Some(2600)));
        assert_eq!((t[1].cluster, t[1].max_mhz), (Some(-1), None));
        assert_eq!(t[1].core_type.as_deref(), Some("sifive,u74-mc"));
        assert_eq!((t[2].policy, t[2].core_type.clone()), (None, None));
    }
}
