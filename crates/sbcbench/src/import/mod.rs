//! Import of sbc-bench result logs: pure functions from text to `SbcBenchLog`.
//!
//! Every section parser looks for its own markers anywhere in the log, because the order of
//! sections changed between sbc-bench versions. A section that is absent or unreadable ends
//! up in `SbcBenchLog::missing` with the reason; nothing here panics on malformed input.

mod clocks;
mod header;
mod membench;
mod monitor;
mod opp_tables;
mod row;
mod state;
mod summary;
mod tools;
pub mod util;

pub use row::results_row;
pub use summary::summary;

use crate::log::{Missing, SbcBenchLog};

/// Terminal colour sequences (`ESC [ … letter`), which some hand-copied logs contain.
fn strip_escapes(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains('\u{1b}') {
        return line.into();
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out.into()
}

fn missing(what: &str, reason: &str) -> Missing {
    Missing {
        what: what.to_string(),
        reason: reason.to_string(),
    }
}

/// Whether a parsed text is an sbc-bench log at all: it names its sbc-bench version or holds
/// one of the benchmark sections every version prints. Random text parses to an empty log.
pub fn is_sbc_bench_log(log: &SbcBenchLog) -> bool {
    log.header.version.is_some() || log.sevenzip.is_some() || log.openssl.is_some()
}

/// Parse one sbc-bench result log (any version from v0.4 to v0.9.72).
pub fn parse(text: &str) -> SbcBenchLog {
    let owned: Vec<String> = text
        .lines()
        .map(|l| strip_escapes(l.trim_end_matches('\r')).into_owned())
        .collect();
    let lines: Vec<&str> = owned.iter().map(|s| s.as_str()).collect();
    let lines = &lines[..];

    let mut log = SbcBenchLog::default();
    match header::header(lines) {
        Some(h) => log.header = h,
        None => log.missing.push(missing(
            "header",
            "first line is not `sbc-bench vX …` (the earliest logs start with the distro block)",
        )),
    }
    log.system = header::system(lines);
    if log.system.kernel.is_none() {
        log.missing.push(missing(
            "kernel",
            "no iostat `Linux <release> (<host>)` line and no `Kernel:` line",
        ));
    }
    log.topology = clocks::topology(lines);
    let c = clocks::clocks(lines);
    log.opp_blocks = c.blocks;
    log.no_cpufreq = c.no_cpufreq;
    log.parallel_clocks = c.parallel;
    if log.no_cpufreq.is_empty() {
        if log.opp_blocks.is_empty() {
            log.missing.push(missing(
                "clocks",
                "no `Checking cpufreq OPP` block and no `No cpufreq support` measurement",
            ));
        } else if log.opp_blocks.iter().all(|b| b.points.is_empty()) {
            log.missing.push(missing(
                "clocks",
                "`Checking cpufreq OPP` heading(s) without any `Cpufreq OPP:` line",
            ));
        }
    }
    log.tinymembench = membench::tinymembench(lines);
    if log.tinymembench.is_empty() {
        log.missing
            .push(missing("tinymembench", "no `tinymembench v…` output"));
    } else if log.tinymembench.iter().all(|r| r.results.is_empty()) {
        log.missing.push(missing(
            "tinymembench",
            "tinymembench started but printed no `name : value MB/s` line",
        ));
    }
    log.ramlat = membench::ramlat(lines);
    log.openssl = tools::openssl(lines);
    match &log.openssl {
        None => log.missing.push(missing(
            "openssl",
            "no `type … bytes` header and no `aes-…` rows",
        )),
        Some(o) if o.rows.is_empty() => log.missing.push(missing(
            "openssl",
            "`openssl speed` header present but no `aes-…` result rows",
        )),
        _ => {}
    }
    log.sevenzip = tools::sevenzip(lines);
    match &log.sevenzip {
        None => log
            .missing
            .push(missing("7-zip", "no `7-Zip` benchmark output")),
        Some(z) if z.runs.iter().all(|r| r.tot.is_none()) => log.missing.push(missing(
            "7-zip",
            "7-zip started but no run reached its `Tot:` line",
        )),
        _ => {}
    }
    log.cpuminer = tools::cpuminer(lines);
    log.stockfish = tools::stockfish(lines);
    log.monitoring = monitor::tables(lines);
    if log.monitoring.is_empty() {
        log.missing.push(missing(
            "monitoring",
            "no `System health while running …` table",
        ));
    }
    log.throttling = monitor::throttling(lines);
    log.dmesg = state::dmesg(lines);
    log.memory = state::free(lines);
    if log.memory.is_empty() {
        log.missing
            .push(missing("memory", "no `free` output (`Mem:`/`Swap:` lines)"));
    }
    log.swap_devices = state::swapon(lines);
    log.thermal_source = state::thermal_source(lines);
    log.sensors = state::sensors(lines);
    match state::validation(lines) {
        Some(v) => log.validation = v,
        None => log.missing.push(missing(
            "validation",
            "no `Results validation:` section (sbc-bench wrote it into the log from v0.9.35 on)",
        )),
    }
    log.warnings = state::warnings(lines);
    log.dt_opp = opp_tables::dt_opp(lines);
    log.policies = opp_tables::policies(lines);
    let vk = log.version_key();
    log.embedded_row = state::embedded_row(lines, log.header.version.as_ref().map(|_| &vk[..]));
    log
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_missing_not_a_panic() {
        for text in [
            "",
            "\n\n\n",
            "sbc-bench v",
            "| a | b |",
            "Checking cpufreq OPP",
            "\u{1b}[1m",
        ] {
            let log = parse(text);
            assert!(log.is_missing("clocks"), "{text:?}");
            assert!(log.is_missing("7-zip"));
        }
        let log = parse("sbc-bench v0.9.72 Foo (Mon, 1 Jan 2024 00:00:00 +0000)\nSystem health while running tinymembench:\n\nTime CPU load\n12:00:00: x");
        assert_eq!(log.header.version.as_deref(), Some("0.9.72"));
        assert_eq!(log.monitoring.len(), 1);
        assert!(log.monitoring[0].samples.is_empty());
    }

    #[test]
    fn escapes_and_crlf() {
        assert_eq!(strip_escapes("\u{1b}[1;31mred\u{1b}[0m text"), "red text");
        let log = parse("sbc-bench v0.9.1 Board (Mon, 1 Jan 2024 00:00:00 +0000)\r\n\r\nSoC guess: Rockchip RK3399\r\n");
        assert_eq!(log.system.soc_guess.as_deref(), Some("Rockchip RK3399"));
        assert_eq!(log.header.device.as_deref(), Some("Board"));
    }
}
