//! sbc-bench's known errors, version by version: where its verdict and truebench's differ
//! for a reason found in sbc-bench's own code (`ValidateResults`, `CheckTimeInState`,
//! `CheckClockspeedsAndSensors` in sbc-bench.sh), named, with the evidence of this log and
//! which side that evidence supports.
//!
//! Each rule recognises its pattern from what the log shows (version, bullets, tables), never
//! from a file name, and says nothing when the pattern does not fit: the generic explanation
//! in `verdict` remains for those.

use serde::{Deserialize, Serialize};
use truebench_model::RunView;
use truebench_monitor::{Finding, FindingKind, Severity};

use crate::log::SbcBenchLog;
use crate::verdict::{Agreement, SbcVerdict};

/// Which verdict the log's evidence supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Truebench,
    SbcBench,
    /// The log lacks the evidence to decide.
    Undecided,
}

/// A named sbc-bench error behind one disagreement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KnownError {
    /// Stable name, e.g. `throttling-without-cpufreq-statistics`.
    pub id: String,
    /// The sbc-bench versions that have it, e.g. `0.9.35–0.9.45`.
    pub versions: String,
    /// What sbc-bench does, and this log's evidence.
    pub explanation: String,
    pub supports: Side,
}

fn known(id: &str, versions: &str, explanation: String, supports: Side) -> Option<KnownError> {
    Some(KnownError {
        id: id.into(),
        versions: versions.into(),
        explanation,
        supports,
    })
}

/// sbc-bench's tolerated peak excess (percentage points) for `cores`, None where it judges
/// only the mean (more than 8 cores, and the core counts its `case` does not list).
fn sbc_peak_tolerance(cores: u32) -> Option<f64> {
    match cores {
        2 => Some(8.0),
        4 => Some(5.0),
        5 | 6 => Some(3.0),
        8 => Some(2.0),
        _ => None,
    }
}

/// `Too much other background activity: 0% avg, 3% max` → (0, 3).
fn avg_max(text: &str) -> Option<(f64, f64)> {
    let (_, rest) = text.split_once(": ")?;
    let mut it = rest.split(", ");
    let avg = it.next()?.split('%').next()?.trim().parse().ok()?;
    let max = it.next()?.split('%').next()?.trim().parse().ok()?;
    Some((avg, max))
}

fn sbc_text(v: &SbcVerdict) -> &str {
    match v {
        SbcVerdict::Flagged { text, .. } | SbcVerdict::Clear { text, .. } => text,
        SbcVerdict::Silent => "",
    }
}

/// The known sbc-bench error behind a disagreement, if one fits this log.
pub fn explain(
    kind: FindingKind,
    agreement: Agreement,
    sbc: &SbcVerdict,
    log: &SbcBenchLog,
    r: RunView<'_>,
    tb: Option<&Finding>,
) -> Option<KnownError> {
    let findings = &r.envelope.findings;
    let version = log.header.version.as_deref().unwrap_or("unknown");
    match (kind, agreement) {
        (FindingKind::Throttling, Agreement::OnlySbcBench) => {
            let text = sbc_text(sbc);
            if text.contains("might have occured") {
                return known(
                    "throttling-hedge",
                    "all",
                    format!("sbc-bench wrote only that throttling *might* have occured: its cpufreq statistics count time below cpuinfo_max_freq, which CPUs taken offline and back online by its cluster, Geekbench and PTS modes spend at low OPPs. truebench discounts idle and offline time and found no clock lowered under load (v{version})."),
                    Side::Truebench,
                );
            }
            if text.starts_with("Throttling occured")
                && log.throttling.is_empty()
                && log.at_least("0.9.35")
                && !log.at_least("0.9.46")
            {
                let power = findings
                    .iter()
                    .find(|f| f.kind == FindingKind::PowerLimit)
                    .map(|f| format!(" truebench's reading of the monitoring: {}", f.message))
                    .unwrap_or_default();
                let samples = !r.envelope.timeline.samples.is_empty();
                return known(
                    "throttling-without-cpufreq-statistics",
                    "0.9.35–0.9.45",
                    format!("sbc-bench up to v0.9.45 printed `Throttling occured` whenever cpufreq statistics (time_in_state) were absent — the `else` branch of ValidateResults, fixed in v0.9.46 — so on this v{version} log without a throttling table it says nothing about throttling.{power}"),
                    if samples { Side::Truebench } else { Side::Undecided },
                );
            }
            let one_opp = !log.throttling.is_empty()
                && log
                    .throttling
                    .iter()
                    .all(|t| t.time_in_state.iter().filter(|x| x.1 > 0.0).count() <= 1);
            if one_opp {
                let opps: Vec<String> = log
                    .throttling
                    .iter()
                    .filter_map(|t| t.time_in_state.iter().find(|x| x.1 > 0.0))
                    .map(|(mhz, s)| format!("{s:.0} s at {mhz} MHz"))
                    .collect();
                return known(
                    "throttling-table-below-cpuinfo-max",
                    "all",
                    format!("sbc-bench prints its throttling table when any time was spent below cpuinfo_max_freq (CheckTimeInState), also when the top OPP was never allowed or cannot be set; this table shows all time at one OPP ({}): no clock fell during the run. Whether that OPP was a cap the log cannot tell (it lacks cpuinfo_max_freq).", opps.join(", ")),
                    Side::Undecided,
                );
            }
            None
        }
        (FindingKind::Throttling, Agreement::OnlyTruebench) => {
            let f = tb?;
            if f.evidence.iter().any(|e| e.starts_with("hot, after")) {
                return known(
                    "throttling-by-cpufreq-statistics-only",
                    "all",
                    format!("sbc-bench judges throttling by cpufreq statistics only, which cannot see a clock lowered by firmware; its own measurement after the benchmarks shows it: {}", f.evidence.join("; ")),
                    Side::Truebench,
                );
            }
            if f.evidence.iter().any(|e| e.contains("(firmware ")) && !log.at_least("0.4.1") {
                return known(
                    "pi-firmware-clock-not-judged",
                    "0.4 (before its `1400/1200MHz` check)",
                    format!("The monitoring shows the Pi firmware's real clock falling while the kernel's stayed; sbc-bench v{version} printed both clocks but judged throttling only by the firmware's get_throttled bits (later versions also warn about this 'silent throttling'). Evidence: {}", f.evidence.last().cloned().unwrap_or_default()),
                    Side::Truebench,
                );
            }
            None
        }
        (FindingKind::BackgroundActivity, Agreement::OnlySbcBench) => {
            let cores = log.system.cpus.or_else(|| {
                r.envelope
                    .timeline
                    .samples
                    .iter()
                    .find_map(|s| s.cpus_online)
            })?;
            let exact = 100.0 / cores as f64;
            let truncated = (100 / cores) as f64;
            let (_, peak) = avg_max(sbc_text(sbc))?;
            if exact == truncated {
                return None;
            }
            let real = peak - (exact - truncated);
            let tol = sbc_peak_tolerance(cores)?;
            known(
                "background-ideal-truncated",
                "0.9.35 and later",
                format!("sbc-bench expects a single-threaded benchmark at 100/{cores} = {truncated:.0} % (integer division) instead of {exact:.2} %, so every excess it computes is {:.2} points too high: its {peak:.0}-point peak is {real:.2} points over the real share, within its own {tol:.0}-point tolerance plus the half point its whole-percent readings round by.", exact - truncated),
                if real <= tol + 0.5 { Side::Truebench } else { Side::Undecided },
            )
        }
        (FindingKind::BackgroundActivity | FindingKind::SystemActivity, Agreement::OnlyTruebench) => {
            let f = tb?;
            let what = if kind == FindingKind::SystemActivity {
                "%sys over every table from tinymembench to the end"
            } else {
                "%cpu over all single-threaded tables"
            };
            known(
                "activity-averaged-over-the-run",
                "0.9.35 and later",
                format!("sbc-bench takes one integer mean of {what}, so a burst lasting minutes in one phase vanishes in the average of the quiet ones; truebench judges each phase (time-weighted, its highest sample left out, whole-percent rounding allowed for): {}", f.evidence.first().cloned().unwrap_or_default()),
                if f.severity >= Severity::Warning { Side::Truebench } else { Side::Undecided },
            )
        }
        (FindingKind::ClockDeviation, Agreement::OnlySbcBench) => known(
            "clock-deviation-without-tolerance",
            "all",
            format!("sbc-bench flags any measured clock more than 1 % below the OPP (of its integer-truncated mean reading) in both checks; truebench's tolerance is 1.5 % or three times the measurement's own spread, and this log's shortfall is within it ({}).", sbc_text(sbc)),
            Side::Truebench,
        ),
        (FindingKind::ClockDeviation, Agreement::OnlyTruebench) => {
            let f = tb?;
            let opp = |when: &str| {
                f.evidence
                    .iter()
                    .find(|e| e.starts_with(when))
                    .and_then(|e| e.split("Cpufreq OPP: ").nth(1))
                    .and_then(|e| e.split_whitespace().next())
                    .map(str::to_string)
            };
            // Only when the check after the benchmarks did not measure the same OPP.
            if opp("hot").is_some() && opp("hot") == opp("cold") {
                return None;
            }
            known(
                "clock-deviation-needs-both-checks",
                "all",
                format!("sbc-bench reports a mismatch only when the check after the benchmarks shows one as well; there the top OPP was no longer in use (hot, a lower OPP set), so the shortfall measured before went unreported. Evidence: {}", f.evidence.join("; ")),
                Side::Truebench,
            )
        }
        _ => None,
    }
}
