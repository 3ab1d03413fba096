//! The Results.md row, computed from a parsed log the way the sbc-bench version that wrote the
//! log computes it (`SummarizeResults` and the score variables in `sbc-bench.sh`).
//!
//! sbc-bench's rules changed over time; each rule below names the versions it applies to.
//! Logs older than v0.8.4 (the first version that printed the row) get the v0.8.4 rules,
//! which is how their hand-made Results.md rows were computed in most cases.

use super::util::{printf_round, round10};
use crate::row::ResultsRow;
use crate::sbcbench::{OppPoint, Round, SbcBenchLog, SevenZipKind};

/// `awk -F"." '{print $1"."$2}'` of `uname -r`.
fn short_kernel(release: &str) -> String {
    let mut parts = release.split('.');
    let a = parts.next().unwrap_or("");
    match parts.next() {
        Some(b) => format!("{a}.{b}"),
        None => format!("{a}."),
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// `${OperatingSystem} ${ARCH}` or `${OperatingSystem} ${KernelArch}/${ARCH}`.
fn distro(log: &SbcBenchLog, notes: &mut Vec<String>) -> String {
    let s = &log.system;
    // Up to v0.9.5 OperatingSystem was the capitalised codename (`Buster`); from v0.9.6 on the
    // pretty name (`Debian GNU/Linux 11 (bullseye)`).
    let os = if log.at_least("0.9.6") {
        s.os_pretty.clone().or_else(|| s.description.clone())
    } else {
        s.codename
            .as_deref()
            .filter(|c| !c.is_empty() && *c != "n/a")
            .map(capitalize)
            .or_else(|| s.description.clone())
    };
    let os = os.unwrap_or_else(|| {
        notes.push("distro: no lsb_release block in the log".into());
        "n/a".into()
    });
    let arch = s.userland.clone().unwrap_or_default();
    let karch = s.kernel_arch.as_deref().map(|a| match a {
        "armv7l" => "armhf".to_string(),
        "aarch64" => "arm64".to_string(),
        other => other.to_string(),
    });
    match karch {
        Some(k) if !k.is_empty() && k != arch && !arch.is_empty() => format!("{os} {k}/{arch}"),
        Some(k) if arch.is_empty() => format!("{os} {k}"),
        _ => format!("{os} {arch}").trim().to_string(),
    }
}

/// The field sbc-bench's `awk '/Measured/ {print $5}'` takes from an OPP line: the measured
/// MHz, but the ThreadX value on Raspberry Pis (`Cpufreq OPP: 1500  ThreadX: 1500  Measured:`),
/// and nothing usable when only samples were printed (bash arithmetic then fails and the
/// default applies).
fn field5(p: &OppPoint) -> Option<u32> {
    if p.threadx_mhz.is_some() {
        p.threadx_mhz
    } else if p.measured_printed {
        p.measured_mhz
    } else {
        None
    }
}

/// `cpuinfo_max_freq` of `/sys/devices/system/cpu/cpufreq/policy?` (one-digit policies only, as
/// the glob), MHz, from the topology table; without one, the highest OPP of each cluster.
fn policy_maxima(log: &SbcBenchLog) -> Vec<u32> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for c in &log.topology {
        if let (Some(p), Some(m)) = (c.policy, c.max_mhz) {
            if p < 10 && !seen.contains(&p) {
                seen.push(p);
                out.push(m);
            }
        }
    }
    if out.is_empty() {
        out = log
            .opp_blocks
            .iter()
            .filter(|b| b.round == Round::Before)
            .filter_map(|b| b.points.iter().map(|p| p.opp_mhz).max())
            .collect();
    }
    out
}

/// The clockspeed column and whether sbc-bench would add ` (throttled)`.
fn clock(log: &SbcBenchLog, notes: &mut Vec<String>) -> (String, bool) {
    let has_throttling_table = !log.throttling.is_empty();
    let has_cpufreq = log.opp_blocks.iter().any(|b| !b.points.is_empty());
    if !has_cpufreq {
        // The wording sbc-bench greps for is the one it printed itself.
        let first = log.no_cpufreq.iter().find(|m| m.measured_mhz.is_some());
        let Some(first) = first else {
            notes.push("clock: no cpufreq and no measurement".into());
            return ("no cpufreq support".into(), has_throttling_table);
        };
        if !log.at_least("0.9.7") {
            notes.push("clock: before v0.9.7 sbc-bench printed `no cpufreq support`".into());
            return ("no cpufreq support".into(), has_throttling_table);
        }
        let start = first.measured_mhz.unwrap_or(0);
        let last = log
            .no_cpufreq
            .iter()
            .rev()
            .find(|m| m.wording == first.wording && m.measured_mhz.is_some())
            .and_then(|m| m.measured_mhz)
            .unwrap_or(start);
        let throttled = has_throttling_table || (last > 0 && 100 * start / last > 103);
        let mhz = printf_round(start as f64 / 10.0 + 0.5) as u64 * 10;
        notes.push(format!(
            "clock: no cpufreq, first measurement {start} MHz rounded up"
        ));
        return (format!("~{mhz} MHz"), throttled);
    }
    let maxima = policy_maxima(log);
    let highest = maxima.iter().copied().max();
    let lowest = maxima.iter().copied().min();
    if !log.at_least("0.9.7") {
        // v0.8.8 … v0.9.6: the two highest policy maxima, sorted descending.
        let mut m = maxima.clone();
        m.sort_unstable_by(|a, b| b.cmp(a));
        m.truncate(2);
        let s: Vec<String> = m.iter().map(|v| v.to_string()).collect();
        notes.push("clock: v0.8.8…v0.9.6 rule (two highest cpuinfo_max_freq)".into());
        return (format!("{} MHz", s.join("/")), has_throttling_table);
    }
    let (Some(highest), Some(lowest)) = (highest, lowest) else {
        notes.push("clock: no cpuinfo_max_freq in the log".into());
        return ("no cpufreq support".into(), has_throttling_table);
    };
    let plain = if highest == lowest {
        format!("{highest} MHz")
    } else {
        format!("{highest}/{lowest} MHz")
    };
    if !log.at_least("0.9.9") {
        notes.push("clock: v0.9.7/v0.9.8 rule (highest/lowest cpuinfo_max_freq)".into());
        return (plain, has_throttling_table);
    }
    // v0.9.9+: the first measured clock of the N-th OPP block (N = number of clusters) before,
    // and of the 2N-th after the benchmarks.
    let n = log
        .opp_blocks
        .iter()
        .filter(|b| b.round == Round::Before)
        .count();
    let firsts: Vec<Option<u32>> = log
        .opp_blocks
        .iter()
        .filter_map(|b| b.points.first().map(field5))
        .collect();
    let start = n
        .checked_sub(1)
        .and_then(|i| firsts.get(i).copied().flatten());
    let finished = (2 * n)
        .checked_sub(1)
        .and_then(|i| firsts.get(i).copied().flatten());
    let mut throttled = has_throttling_table;
    if let (Some(s), Some(f)) = (start, finished) {
        if f > 0 && 100 * s / f > 103 {
            throttled = true;
        }
    }
    match start {
        Some(s) => {
            let diff = 100_000u64 * s as u64 / (highest as u64 * 1000);
            if !(98..=102).contains(&diff) {
                notes.push(format!(
                    "clock: measured {s} MHz differs >2% from cpuinfo_max_freq {highest} MHz"
                ));
                (format!("~{}", round10(s as f64)), throttled)
            } else {
                (plain, throttled)
            }
        }
        None => (plain, throttled),
    }
}

/// One tinymembench figure per run: `libc memcpy copy` (v0.4.9-nuumio) or `standard memcpy`.
fn mem_values(log: &SbcBenchLog, names: [&str; 2]) -> Vec<f64> {
    log.tinymembench
        .iter()
        .flat_map(|r| r.results.iter())
        .filter(|r| names.contains(&r.name.as_str()))
        .map(|r| r.mb_per_s)
        .collect()
}

fn mem_score(
    log: &SbcBenchLog,
    names: [&str; 2],
    what: &str,
    notes: &mut Vec<String>,
) -> Option<u64> {
    let vals = mem_values(log, names);
    if vals.is_empty() {
        notes.push(format!("{what}: no `{}` line", names[0]));
        return None;
    }
    let v = if log.at_least("0.9.4") || vals.len() == 1 {
        vals.iter().copied().fold(f64::MIN, f64::max)
    } else {
        // v0.8.5 … v0.9.3: `tail -n1`, i.e. the cluster benchmarked last.
        notes.push(format!(
            "{what}: before v0.9.4 sbc-bench took the last cluster's value"
        ));
        *vals.last().unwrap_or(&0.0)
    };
    Some(round10(v))
}

fn aes_score(log: &SbcBenchLog, notes: &mut Vec<String>) -> Option<u64> {
    let o = log.openssl.as_ref()?;
    let col = match o.block_sizes.iter().position(|b| *b == 16384) {
        Some(i) => i,
        None => {
            notes.push(
                "AES: OpenSSL 1.0.x has no 16384 bytes column; the 8192 bytes column is used"
                    .into(),
            );
            o.block_sizes.iter().position(|b| *b == 8192)?
        }
    };
    let vals: Vec<u64> = o
        .rows
        .iter()
        .filter(|r| r.algorithm.eq_ignore_ascii_case("aes-256-cbc"))
        .filter(|r| r.label.as_deref() != Some("fully parallel"))
        .filter_map(|r| r.kbytes_per_s.get(col))
        .map(|v| v.trunc() as u64)
        .collect();
    if vals.is_empty() {
        notes.push("AES: no aes-256-cbc row".into());
        return None;
    }
    let per_cluster = o.mode.as_deref() == Some("per_cluster");
    let v = if log.at_least("0.9.4") && per_cluster {
        *vals.iter().max().unwrap_or(&0)
    } else {
        // Two runs on one cluster averaged; before v0.9.4 also the clusters of big.LITTLE
        // machines (sum of all aes-256-cbc rows divided by two).
        if vals.len() != 2 {
            notes.push(format!(
                "AES: sum of {} aes-256-cbc rows divided by 2",
                vals.len()
            ));
        }
        vals.iter().sum::<u64>() / 2
    };
    Some(round10(v as f64))
}

fn sevenzip_scores(log: &SbcBenchLog, notes: &mut Vec<String>) -> (Option<u64>, Option<u64>) {
    let Some(z) = log.sevenzip.as_ref() else {
        return (None, None);
    };
    let singles: Vec<u64> = z
        .runs
        .iter()
        .filter(|r| r.kind == SevenZipKind::Single)
        .filter_map(|r| r.rating())
        .collect();
    let multis: Vec<u64> = z
        .runs
        .iter()
        .filter(|r| r.kind == SevenZipKind::Multi)
        .filter_map(|r| r.rating())
        .collect();
    let single = singles.iter().copied().max();
    let combined = if !multis.is_empty() {
        Some(multis.iter().sum::<u64>() / multis.len() as u64)
    } else if singles.len() == 1 {
        notes.push("7-zip multi: one CPU core, the single-threaded rating is used".into());
        single
    } else {
        None
    };
    (combined.map(|c| round10(c as f64)), single)
}

/// The Results.md row for this log.
pub fn results_row(log: &SbcBenchLog) -> ResultsRow {
    let mut notes = Vec::new();
    let device = log
        .header
        .device
        .clone()
        .or_else(|| log.system.hostname.clone())
        .unwrap_or_else(|| "-".into());
    let (clock, throttled) = clock(log, &mut notes);
    let kernel = log
        .system
        .kernel
        .as_deref()
        .map(short_kernel)
        .unwrap_or_else(|| "-".into());
    let distro = distro(log, &mut notes);
    let (sevenzip_multi, sevenzip_single) = sevenzip_scores(log, &mut notes);
    let aes = aes_score(log, &mut notes);
    let memcpy = mem_score(
        log,
        ["libc memcpy copy", "standard memcpy"],
        "memcpy",
        &mut notes,
    );
    let memset = mem_score(
        log,
        ["libc memset fill", "standard memset"],
        "memset",
        &mut notes,
    );
    let khs = log
        .cpuminer
        .as_ref()
        .and_then(|c| c.total_scores.get(1).cloned());
    ResultsRow {
        device,
        clock,
        throttled,
        kernel,
        distro,
        sevenzip_multi,
        sevenzip_single,
        aes,
        memcpy,
        memset,
        khs,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_kernel_like_awk() {
        assert_eq!(short_kernel("4.14.34-v7+"), "4.14");
        assert_eq!(short_kernel("6.6.10-cix-build-generic"), "6.6");
        assert_eq!(short_kernel("6"), "6.");
    }
}
