//! The Results.md row, computed from a parsed log the way the sbc-bench version that wrote the
//! log computes it (`SummarizeResults` and the score variables in `sbc-bench.sh`).
//!
//! sbc-bench's rules changed over time; each rule below names the versions it applies to.
//! Logs older than v0.8.4 (the first version that printed the row) had their Results.md rows
//! written by hand; for them the rules are the ones those hand-made rows follow in most cases
//! (best cluster for AES and memory bandwidth, as sbc-bench itself did from v0.9.4 on).

use super::util::{printf_round, round10};
use crate::log::{OppPoint, Round, SbcBenchLog, SevenZipKind};
use crate::row::ResultsRow;

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

/// Debian's release codenames; any other lsb codename belongs to Ubuntu or a derivative, whose
/// os-release sets `UBUNTU_CODENAME`.
const DEBIAN_CODENAMES: [&str; 20] = [
    "buzz", "rex", "bo", "hamm", "slink", "potato", "woody", "sarge", "etch", "lenny", "squeeze",
    "wheezy", "jessie", "stretch", "buster", "bullseye", "bookworm", "trixie", "forky", "sid",
];

fn is_ubuntu_codename(c: &str) -> bool {
    let c = c.to_lowercase();
    !c.is_empty() && c != "n/a" && !DEBIAN_CODENAMES.contains(&c.as_str())
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
    let mut os = os.unwrap_or_else(|| {
        notes.push("distro: no lsb_release block in the log".into());
        "n/a".into()
    });
    // v0.9.63+ appends ` (${UBUNTU_CODENAME})` on Ubuntu and its derivatives.
    if log.at_least("0.9.63") {
        if let Some(c) = s.codename.as_deref().filter(|c| is_ubuntu_codename(c)) {
            os = format!("{os} ({c})");
        }
    }
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

/// kHz as sbc-bench's `sed 's/000$//'` prints it: MHz when divisible by 1000, else kHz.
fn khz_digits(khz: u64) -> String {
    if khz % 1000 == 0 {
        (khz / 1000).to_string()
    } else {
        khz.to_string()
    }
}

/// CPUs covered by an OPP block heading (`cpu0-cpu3`, `cpu7`; `None`: all CPUs).
fn block_cpus(cpus: Option<&str>) -> Option<(u32, u32)> {
    let c = cpus?;
    let (a, b) = c.split_once('-').unwrap_or((c, c));
    Some((
        a.trim().strip_prefix("cpu")?.parse().ok()?,
        b.trim().strip_prefix("cpu")?.parse().ok()?,
    ))
}

/// `cpuinfo_max_freq` (kHz) of `/sys/devices/system/cpu/cpufreq/policy?` — one-digit policies
/// only, like the shell glob sbc-bench uses.
///
/// The log has no sysfs dump, so: the policies come from the topology table, each one's value
/// from the highest OPP of the clock-check block covering its first CPU (the topology's own
/// `max speed` column is the *scaling* maximum when the run ended, lowered by thermal capping
/// on some boards). lscpu's `CPU max MHz` supplies the kHz digits the OPP lines truncate and,
/// on one-cluster machines, caps OPP lists that go beyond `cpuinfo_max_freq`.
fn policy_maxima_khz(log: &SbcBenchLog) -> Vec<u64> {
    let blocks: Vec<(Option<(u32, u32)>, u32)> = log
        .opp_blocks
        .iter()
        .filter(|b| b.round == Round::Before)
        .filter_map(|b| {
            let max = b.points.iter().map(|p| p.opp_mhz).max()?;
            Some((block_cpus(b.cpus.as_deref()), max))
        })
        .collect();
    let block_for = |cpu: u32| {
        blocks
            .iter()
            .find(|(range, _)| range.is_none_or(|(a, b)| (a..=b).contains(&cpu)))
            .map(|(_, m)| *m)
    };
    let mut seen = Vec::new();
    let mut mhz = Vec::new();
    for c in &log.topology {
        if let Some(p) = c.policy {
            if p < 10 && !seen.contains(&p) {
                seen.push(p);
                if let Some(m) = block_for(c.cpu).or(c.max_mhz) {
                    mhz.push(m);
                }
            }
        }
    }
    if mhz.is_empty() {
        mhz = blocks.iter().map(|(_, m)| *m).collect();
    }
    let lscpu_khz = log
        .system
        .lscpu_max_mhz
        .iter()
        .map(|m| (m * 1000.0).round() as u64)
        .max();
    // Old lscpu versions report cpu0's maximum only, so the cap applies to one-cluster
    // machines alone.
    let one_cluster = blocks.len() == 1;
    mhz.iter()
        .map(|&m| {
            let khz = m as u64 * 1000;
            match lscpu_khz {
                Some(l) if l < khz && one_cluster => l,
                Some(l) if l / 1000 == m as u64 => l,
                _ => khz,
            }
        })
        .collect()
}

/// The rules for the clock column changed inside v0.9.9 (developed July 2022 … January 2023):
/// the measured-clock check and the ` (throttled)` flag arrived on 2023-01-10/11. A v0.9.9
/// log dated before that was written by an earlier snapshot.
fn measured_clock_rules(log: &SbcBenchLog) -> bool {
    if log.at_least("0.9.10") {
        return true;
    }
    if !log.at_least("0.9.9") {
        return false;
    }
    log.date_ymd().is_none_or(|d| d >= (2023, 1, 10))
}

/// The clockspeed column and whether sbc-bench would add ` (throttled)`.
fn clock(log: &SbcBenchLog, notes: &mut Vec<String>) -> (String, bool) {
    let new_rules = measured_clock_rules(log);
    let table_flag = new_rules && !log.throttling.is_empty();
    let has_cpufreq = log.opp_blocks.iter().any(|b| !b.points.is_empty());
    if !has_cpufreq {
        // sbc-bench greps for the wording it printed itself.
        let first = log.no_cpufreq.iter().find(|m| m.measured_mhz.is_some());
        let Some(first) = first else {
            notes.push("clock: no cpufreq and no measurement".into());
            return ("no cpufreq support".into(), table_flag);
        };
        if !log.at_least("0.9.7") {
            notes.push("clock: before v0.9.7 sbc-bench printed `no cpufreq support`".into());
            return ("no cpufreq support".into(), table_flag);
        }
        let start = first.measured_mhz.unwrap_or(0);
        let last = log
            .no_cpufreq
            .iter()
            .rev()
            .find(|m| m.wording == first.wording && m.measured_mhz.is_some())
            .and_then(|m| m.measured_mhz)
            .unwrap_or(start);
        let throttled = table_flag || (new_rules && last > 0 && 100 * start / last > 103);
        // `printf "%0.0f", $1/10+0.5`: rounds up to the next ten
        let mhz = printf_round(start as f64 / 10.0 + 0.5) as u64 * 10;
        notes.push(format!(
            "clock: no cpufreq, first measurement {start} MHz rounded up"
        ));
        return (format!("~{mhz} MHz"), throttled);
    }
    let maxima = policy_maxima_khz(log);
    if !log.at_least("0.9.7") {
        // v0.8.8 … v0.9.6: `sort -n -r policy?/cpuinfo_max_freq | head -n 2`, `000/` → `/`
        // (also used for older logs, whose Results.md rows were written by hand).
        let mut m = maxima;
        m.sort_unstable_by(|a, b| b.cmp(a));
        m.truncate(2);
        let s: Vec<String> = m.iter().map(|v| khz_digits(*v)).collect();
        notes.push("clock: v0.8.8…v0.9.6 rule (two highest cpuinfo_max_freq)".into());
        return (format!("{} MHz", s.join("/")), false);
    }
    let (Some(highest), Some(lowest)) =
        (maxima.iter().copied().max(), maxima.iter().copied().min())
    else {
        notes.push("clock: no cpuinfo_max_freq in the log".into());
        return ("no cpufreq support".into(), table_flag);
    };
    if !new_rules {
        // v0.9.7 … v0.9.9 (2022): `sed -e 's/000$//'`, which leaves kHz that are not a
        // multiple of 1000 as they are (`1907200 MHz`).
        notes.push("clock: v0.9.7…v0.9.9 (2022) rule (highest/lowest cpuinfo_max_freq)".into());
        let (h, l) = (khz_digits(highest), khz_digits(lowest));
        let plain = if h == l {
            format!("{h} MHz")
        } else {
            format!("{h}/{l} MHz")
        };
        return (plain, false);
    }
    let (highest, lowest) = (highest / 1000, lowest / 1000);
    let plain = if highest == lowest {
        format!("{highest} MHz")
    } else {
        format!("{highest}/{lowest} MHz")
    };
    // The first measured clock of the N-th OPP block (N = number of clusters) before the
    // benchmarks, and of the 2N-th block (after them).
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
    let mut throttled = table_flag;
    if let (Some(s), Some(f)) = (start, finished) {
        if f > 0 && 100 * s / f > 103 {
            notes.push(format!(
                "clock: {s} MHz before, {f} MHz after the benchmarks"
            ));
            throttled = true;
        }
    }
    match start {
        Some(s) => {
            let diff = 100_000u64 * s as u64 / (highest * 1000);
            if !(98..=102).contains(&diff) {
                notes.push(format!(
                    "clock: measured {s} MHz differs >2% from cpuinfo_max_freq {highest} MHz"
                ));
                (
                    round10(s as f64).map_or_else(|| "?".to_string(), |v| format!("~{v}")),
                    throttled,
                )
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
    // Before v0.8.4 there was no code; the hand-made rows took the best cluster, as v0.9.4+.
    let v = if log.at_least("0.9.4") || !log.at_least("0.8.4") || vals.len() == 1 {
        vals.iter().copied().fold(f64::MIN, f64::max)
    } else {
        // v0.8.5 … v0.9.3: `tail -n1`, i.e. the cluster benchmarked last.
        notes.push(format!(
            "{what}: before v0.9.4 sbc-bench took the last cluster's value"
        ));
        *vals.last().unwrap_or(&0.0)
    };
    round10(v)
}

fn aes_score(log: &SbcBenchLog, notes: &mut Vec<String>) -> Option<u64> {
    let o = log.openssl.as_ref()?;
    // The 16384 bytes column; OpenSSL 1.0.x has none (its largest is 8192): sbc-bench's awk
    // then printed 0, which no Results.md row keeps — the largest block size is the score.
    let col = match o.block_sizes.iter().position(|b| *b == 16384) {
        Some(i) => i,
        None => {
            let (i, largest) = o.block_sizes.iter().enumerate().max_by_key(|(_, b)| **b)?;
            notes.push(format!(
                "AES: OpenSSL without a 16384 bytes column; its largest, {largest} bytes, used{}",
                if log.at_least("0.8.4") {
                    " (sbc-bench printed 0)"
                } else {
                    ""
                }
            ));
            i
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
    // Benchmarks run per cluster: the fastest cluster's, as Results.md has it for every
    // version (sbc-bench 0.8.4–0.9.3 averaged the clusters' lines in its own row).
    let per_cluster = if log.at_least("0.8.4") {
        o.mode.as_deref() == Some("per_cluster")
    } else {
        // No code before v0.8.4: the hand-made rows took the best cluster of big.LITTLE
        // machines (the rule v0.9.4 adopted) and the mean of the two runs otherwise.
        log.opp_blocks
            .iter()
            .filter(|b| b.round == Round::Before)
            .count()
            > 1
    };
    let v = if per_cluster {
        *vals.iter().max().unwrap_or(&0)
    } else {
        // Two runs on one cluster averaged.
        if vals.len() != 2 {
            notes.push(format!(
                "AES: sum of {} aes-256-cbc rows divided by 2",
                vals.len()
            ));
        }
        // A sum that does not fit (an edited log's 10^20 k: found by fuzzing) is no score.
        vals.iter().try_fold(0u64, |a, &v| a.checked_add(v))? / 2
    };
    round10(v as f64)
}

/// CPU count: the iostat line, else the topology table.
fn cpu_count(log: &SbcBenchLog) -> Option<u32> {
    log.system
        .cpus
        .or_else(|| (!log.topology.is_empty()).then_some(log.topology.len() as u32))
}

fn sevenzip_scores(log: &SbcBenchLog, notes: &mut Vec<String>) -> (Option<u64>, Option<u64>) {
    let Some(z) = log.sevenzip.as_ref() else {
        return (None, None);
    };
    let ratings = |k: SevenZipKind| -> Vec<u64> {
        z.runs
            .iter()
            .filter(|r| r.kind == k)
            .filter_map(|r| r.rating())
            .collect()
    };
    let singles = ratings(SevenZipKind::Single);
    let multis = ratings(SevenZipKind::Multi);
    let single = singles.iter().copied().max();
    let one_core = cpu_count(log) == Some(1);
    let combined = if log.at_least("0.8.4") && !log.at_least("0.9.2") {
        // v0.8.4 … v0.9.1: the sum of the last 7-zip block's ratings divided by 3, also on
        // single-core machines where that block is the one single-threaded run.
        if multis.is_empty() {
            notes.push("7-zip multi: v0.8.4…v0.9.1 divided the single-threaded rating by 3".into());
        }
        let last = if multis.is_empty() { &singles } else { &multis };
        Some(last.iter().sum::<u64>() / 3)
    } else if multis.is_empty() && (one_core || (!log.at_least("0.8.4") && singles.len() == 1)) {
        notes.push("7-zip multi: one CPU core, the single-threaded rating is used".into());
        singles.first().copied()
    } else if multis.is_empty() {
        if log.at_least("0.8.4") {
            // no finished multi-threaded run (7-zip killed): sbc-bench's empty average
            // becomes 0 in its rounding
            notes.push("7-zip multi: no multi-threaded run finished; sbc-bench printed 0".into());
            Some(0)
        } else {
            None
        }
    } else if log.at_least("0.9.7") || !log.at_least("0.8.4") {
        // v0.9.7+: the mean of the runs that finished (`FinishedRuns`)
        Some(multis.iter().sum::<u64>() / multis.len() as u64)
    } else {
        // v0.9.2 … v0.9.6: divided by RunHowManyTimes (3) even if a run was killed
        Some(multis.iter().sum::<u64>() / 3)
    };
    (combined.and_then(|c| round10(c as f64)), single)
}

/// The Results.md row for this log.
pub fn results_row(log: &SbcBenchLog) -> ResultsRow {
    let mut notes = Vec::new();
    let device = log
        .header
        .device_as_printed
        .clone()
        .or_else(|| log.header.device.clone())
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
