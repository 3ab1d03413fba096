//! A short human summary of an imported log: what it is, its scores, and what was missing.

use super::row::results_row;
use crate::log::{Round, SbcBenchLog, SevenZipKind};
use std::fmt::Write;

fn fmt_opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_else(|| "-".into())
}

/// Several lines, each starting with two spaces, after a `name:` heading line.
pub fn summary(name: &str, log: &SbcBenchLog) -> String {
    let mut s = String::new();
    let h = &log.header;
    let row = results_row(log);
    let version = h
        .version
        .as_deref()
        .map(|v| format!("sbc-bench v{v}"))
        .unwrap_or_else(|| "sbc-bench (version not recorded)".into());
    let _ = writeln!(
        s,
        "{name}: {version}{}{}",
        h.date
            .as_deref()
            .map(|d| format!(", {d}"))
            .unwrap_or_default(),
        h.mode
            .as_deref()
            .map(|m| format!(", {m} mode"))
            .unwrap_or_default()
    );
    let sys = &log.system;
    let _ = writeln!(s, "  device: {}", row.device);
    let _ = writeln!(
        s,
        "  system: {} · kernel {} ({}) · userland {}{}",
        sys.os_pretty
            .as_deref()
            .or(sys.description.as_deref())
            .unwrap_or("-"),
        sys.kernel.as_deref().unwrap_or("-"),
        sys.kernel_arch.as_deref().unwrap_or("-"),
        sys.userland.as_deref().unwrap_or("-"),
        sys.soc_guess
            .as_deref()
            .filter(|g| !g.is_empty())
            .map(|g| format!(" · SoC guess: {g}"))
            .unwrap_or_default()
    );
    for b in log.opp_blocks.iter().filter(|b| b.round == Round::Before) {
        if let Some(top) = b.points.iter().max_by_key(|p| p.opp_mhz) {
            let label = match (&b.cpus, &b.core_type) {
                (Some(c), Some(t)) => format!("{c} ({t})"),
                (Some(c), None) => c.clone(),
                (None, Some(t)) => t.clone(),
                (None, None) => "cpufreq".into(),
            };
            let _ = writeln!(
                s,
                "  clock {label}: {} MHz advertised, {} MHz measured",
                top.opp_mhz,
                fmt_opt(top.measured_mhz)
            );
        }
    }
    for (cpus, l) in crate::convert::opp_limits::of_log(log) {
        let _ = writeln!(s, "  OPP limit {cpus}: {} ({})", l.reason, l.source);
    }
    if let Some(m) = log.no_cpufreq.first() {
        let _ = writeln!(
            s,
            "  clock: no cpufreq, {} MHz measured",
            fmt_opt(m.measured_mhz)
        );
    }
    if let Some(z) = &log.sevenzip {
        let n = |k| {
            z.runs
                .iter()
                .filter(|r| r.kind == k && r.tot.is_some())
                .count()
        };
        let _ = writeln!(
            s,
            "  7-zip {}: {} MIPS multi-threaded ({} runs), {} single-threaded (best of {})",
            z.version.as_deref().unwrap_or("?"),
            fmt_opt(row.sevenzip_multi),
            n(SevenZipKind::Multi),
            fmt_opt(row.sevenzip_single),
            n(SevenZipKind::Single)
        );
    }
    if let Some(o) = &log.openssl {
        let _ = writeln!(
            s,
            "  OpenSSL {}: aes-256-cbc {} kB/s",
            o.version.as_deref().unwrap_or("?"),
            fmt_opt(row.aes)
        );
    }
    if !log.tinymembench.is_empty() {
        let lat = if log.ramlat.is_empty() {
            String::new()
        } else {
            format!(", ramlat on {} CPU(s)", log.ramlat.len())
        };
        let _ = writeln!(
            s,
            "  memory: memcpy {} MB/s, memset {} MB/s ({} tinymembench run(s){lat})",
            fmt_opt(row.memcpy),
            fmt_opt(row.memset),
            log.tinymembench.len()
        );
    }
    if let Some(c) = &log.cpuminer {
        let _ = writeln!(
            s,
            "  cpuminer: {} kH/s ({} readings)",
            row.khs.as_deref().unwrap_or("-"),
            c.totals_khs.len()
        );
    }
    if let Some(st) = &log.stockfish {
        let _ = writeln!(
            s,
            "  stockfish: {} nodes/s ({} runs)",
            st.total_scores
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            st.runs.len()
        );
    }
    let samples: usize = log.monitoring.iter().map(|t| t.samples.len()).sum();
    let max_temp = log
        .monitoring
        .iter()
        .flat_map(|t| &t.samples)
        .filter_map(|x| x.temp_c)
        .fold(None, |m: Option<f64>, t| Some(m.map_or(t, |m| m.max(t))));
    let _ = writeln!(
        s,
        "  monitoring: {} tables, {samples} samples{}; throttling tables: {}; kernel log lines: {}",
        log.monitoring.len(),
        max_temp
            .map(|t| format!(", up to {t:.1} °C"))
            .unwrap_or_default(),
        log.throttling.len(),
        log.dmesg.as_ref().map_or(0, |d| d.len())
    );
    let (before, after) = log.swap_before_after();
    if let (Some(b), Some(a)) = (before, after) {
        if a > b {
            let mib = |v: u64| v as f64 / (1024.0 * 1024.0);
            let _ = writeln!(
                s,
                "  swap in use grew from {:.1} to {:.1} MiB during the run",
                mib(b),
                mib(a)
            );
        }
    }
    for v in &log.validation {
        let _ = writeln!(s, "  validation: {v}");
    }
    for w in &log.warnings {
        let _ = writeln!(s, "  warning: {w}");
    }
    for m in &log.missing {
        let _ = writeln!(s, "  missing {}: {}", m.what, m.reason);
    }
    let _ = writeln!(s, "  row: {row}");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_names_what_is_missing() {
        let log = crate::parse("sbc-bench v0.9.72 Board X (Mon, 10 Nov 2025 23:46:00 +0800)\n");
        let s = summary("x.txt", &log);
        assert!(s.starts_with("x.txt: sbc-bench v0.9.72, Mon, 10 Nov 2025"));
        assert!(s.contains("  device: Board X"));
        assert!(s.contains("missing 7-zip:"));
        assert!(s.contains("  row: | Board X |"));
    }
}
