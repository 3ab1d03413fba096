//! sbc-bench's known errors, version by version: where its verdict and truebench's differ
//! for a reason found in sbc-bench's own code (`ValidateResults`, `CheckTimeInState`,
//! `CheckClockspeedsAndSensors` in sbc-bench.sh), named, with the evidence of this log and
//! which side that evidence supports.
//!
//! Each rule recognises its pattern from what the log shows (version, bullets, tables), never
//! from a file name, and says nothing when the pattern does not fit: the generic explanation
//! in `verdict` remains for those. Not every disagreement is sbc-bench's error: each rule is
//! labelled as one (`Label::SbcBenchError`), as a rule of truebench's that judges the same
//! evidence differently (`Label::TruebenchRule`), or as a difference of thresholds only,
//! which no evidence can settle (`Label::Threshold`: "undecided (threshold)", both named).

use serde::{Deserialize, Serialize};
use truebench_model::finding::Basis;
use truebench_model::finding::{Finding, FindingKind, Severity};
use truebench_model::RunView;

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

/// What kind of reason a disagreement has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Label {
    /// sbc-bench's code does something wrong (a bug, a check that cannot see the evidence).
    SbcBenchError,
    /// truebench judges the same evidence by another rule (per phase, not over the run).
    TruebenchRule,
    /// Both read the same evidence; only their thresholds differ.
    Threshold,
}

impl Label {
    pub fn as_str(self) -> &'static str {
        match self {
            Label::SbcBenchError => "known sbc-bench error",
            Label::TruebenchRule => "truebench's rule",
            Label::Threshold => "undecided (threshold)",
        }
    }
}

/// A named reason behind one disagreement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KnownError {
    /// Stable name, e.g. `throttling-without-cpufreq-statistics`.
    pub id: String,
    pub label: Label,
    /// The sbc-bench versions that have it, e.g. `0.9.35–0.9.45`.
    pub versions: String,
    /// What sbc-bench does, and this log's evidence.
    pub explanation: String,
    pub supports: Side,
}

fn known(id: &str, versions: &str, explanation: String, supports: Side) -> Option<KnownError> {
    labelled(Label::SbcBenchError, id, versions, explanation, supports)
}

fn labelled(
    label: Label,
    id: &str,
    versions: &str,
    explanation: String,
    supports: Side,
) -> Option<KnownError> {
    Some(KnownError {
        id: id.into(),
        label,
        versions: versions.into(),
        explanation,
        supports,
    })
}

/// sbc-bench's tolerated excess (percentage points) for `cores`: (peak, average); the peak is
/// None where it judges only the average (the core counts its `case` does not list).
fn sbc_tolerances(cores: u32) -> (Option<f64>, f64) {
    match cores {
        2 => (Some(8.0), 2.0),
        4 => (Some(5.0), 1.0),
        5 | 6 => (Some(3.0), 1.0),
        8 => (Some(2.0), 0.0),
        _ => (None, 0.0),
    }
}

/// sbc-bench's background check recomputed from the timeline of a log: over the
/// single-threaded phases (the first sample of each skipped, as sbc-bench skips each
/// table's first line), the readings at or above its integer ideal `100 / cores`: the
/// integer mean and the peak, minus the ideal. None without such readings.
fn sbc_background_from_timeline(r: RunView<'_>, cores: u32) -> Option<(i64, i64)> {
    let ideal = (100 / cores.max(1)) as i64;
    let tl = &r.envelope.timeline;
    let vals: Vec<i64> = tl
        .phases
        .iter()
        .filter(|p| p.threads == Some(1))
        .flat_map(|p| tl.samples_in(p).iter().skip(1))
        .filter_map(|s| s.cpu.map(|c| c.cpu as i64))
        .filter(|&v| v >= ideal)
        .collect();
    if vals.is_empty() {
        return None;
    }
    let mean = vals.iter().sum::<i64>() / vals.len() as i64;
    Some((mean - ideal, vals.iter().max()? - ideal))
}

/// sbc-bench's %sys check recomputed from the timeline: every benchmark phase's readings
/// (first of each skipped): integer mean and peak.
fn sbc_sys_from_timeline(r: RunView<'_>) -> Option<(i64, i64)> {
    let tl = &r.envelope.timeline;
    let vals: Vec<i64> = tl
        .phases
        .iter()
        .filter(|p| p.threads.is_some())
        .flat_map(|p| tl.samples_in(p).iter().skip(1))
        .filter_map(|s| s.cpu.map(|c| c.sys as i64))
        .collect();
    if vals.is_empty() {
        return None;
    }
    Some((
        vals.iter().sum::<i64>() / vals.len() as i64,
        *vals.iter().max()?,
    ))
}

/// `-1.2% before, -0.5% after` of sbc-bench's clock bullet.
fn before_after(text: &str) -> Option<(f64, f64)> {
    let (_, rest) = text.split_once(": ")?;
    let mut it = rest.split(", ");
    let num = |s: &str| s.split('%').next()?.trim().parse::<f64>().ok();
    Some((num(it.next()?)?, num(it.next()?)?))
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
                && log.at_least("0.9.41")
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
                    "0.9.41–0.9.45",
                    format!("sbc-bench from within v0.9.41 up to v0.9.45 printed `Throttling occured` whenever cpufreq statistics (time_in_state) were absent — the `else` branch of ValidateResults, fixed in v0.9.46 — so on this v{version} log without a throttling table it says nothing about throttling.{power}"),
                    if samples { Side::Truebench } else { Side::Undecided },
                );
            }
            if text.starts_with("Throttling occured")
                && log.throttling.is_empty()
                && log.at_least("0.9.33")
                && !log.at_least("0.9.41")
            {
                return labelled(
                    Label::TruebenchRule,
                    "throttling-measured-clock-drop",
                    "0.9.33–0.9.40",
                    format!("sbc-bench v{version} prints `Throttling occured` without a statistics table when its clock measured after the benchmarks fell more than 3 % below the one measured before: a real drop, seen in a measurement this log does not keep in a form truebench's clock checks read."),
                    Side::SbcBench,
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
            if f.rests_on(Basis::HotClock) {
                return known(
                    "throttling-by-cpufreq-statistics-only",
                    "all",
                    format!("sbc-bench judges throttling by cpufreq statistics only, which cannot see a clock lowered by firmware; its own measurement after the benchmarks shows it: {}", f.evidence.join("; ")),
                    Side::Truebench,
                );
            }
            if f.rests_on(Basis::FirmwareClock) && !log.at_least("0.4.1") {
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
            let (avg, peak) = avg_max(sbc_text(sbc))?;
            let (peak_tol, avg_tol) = sbc_tolerances(cores);
            // Which of sbc-bench's two conditions fired (integer arithmetic on floored
            // readings, as it computes them: that is its rule, not an error).
            let fired: Vec<String> = [
                (peak_tol.is_some_and(|t| peak > t)).then(|| {
                    format!(
                        "peak excess {peak:.0} > {:.0} points",
                        peak_tol.unwrap_or(0.0)
                    )
                }),
                (avg > avg_tol).then(|| format!("average excess {avg:.0} > {avg_tol:.0} points")),
            ]
            .into_iter()
            .flatten()
            .collect();
            if fired.is_empty() {
                return None;
            }
            let n = cores as f64;
            let ours = match tb {
                Some(f) if f.undecidable => format!("could not decide it: {}", f.message),
                Some(f) => format!(
                    "found it within its tolerance ({})",
                    f.evidence.first().cloned().unwrap_or_default()
                ),
                None => "found every phase within its tolerance".into(),
            };
            labelled(
                Label::Threshold,
                "background-threshold",
                "0.9.35 and later",
                format!("sbc-bench flagged its {} for {cores} cores (over readings at or above 100/{cores} = {} %); truebench tolerates {:.2} points at peak and {:.2} on average (20 % and 5 % of one core) and {ours}. Both read the same floored readings; only the thresholds differ.", fired.join(" and "), 100 / cores, 20.0 / n, 5.0 / n),
                Side::Undecided,
            )
        }
        (
            FindingKind::BackgroundActivity | FindingKind::SystemActivity,
            Agreement::OnlyTruebench,
        ) => {
            let f = tb?;
            // Only where sbc-bench's own whole-run computation stays within its limits
            // while truebench's phase exceeds its own.
            let run = if kind == FindingKind::SystemActivity {
                let (mean, peak) = sbc_sys_from_timeline(r)?;
                (mean == 0 && peak <= 15).then(|| {
                    format!("its integer mean over the run is {mean} % sys, its peak {peak} %")
                })
            } else {
                let cores = log.system.cpus?;
                let (avg, peak) = sbc_background_from_timeline(r, cores)?;
                let (peak_tol, avg_tol) = sbc_tolerances(cores);
                (avg as f64 <= avg_tol && peak_tol.is_none_or(|t| peak as f64 <= t)).then(|| {
                    format!("its excess over the run is {avg} points on average, {peak} at peak")
                })
            }?;
            let what = if kind == FindingKind::SystemActivity {
                "%sys over every table from tinymembench to the end"
            } else {
                "%cpu over all single-threaded tables"
            };
            labelled(
                Label::TruebenchRule,
                "activity-averaged-over-the-run",
                "0.9.35 and later",
                format!("sbc-bench takes one integer mean of {what} ({run}), so a burst in one phase vanishes in the average of the quiet ones; truebench judges each phase (time-weighted, its highest sample left out, floored readings as intervals): {}", f.evidence.first().cloned().unwrap_or_default()),
                if f.severity >= Severity::Warning { Side::Truebench } else { Side::Undecided },
            )
        }
        (FindingKind::ClockDeviation, Agreement::OnlySbcBench) => {
            let (before, after) = before_after(sbc_text(sbc))?;
            // sbc-bench flags any negative deviation in both checks; within truebench's
            // floor both sides read the same numbers with different thresholds.
            (before.min(after) >= -truebench_monitor_core::detect::clocks::MIN_TOLERANCE_PCT)
                .then_some(())?;
            labelled(
                Label::Threshold,
                "clock-deviation-threshold",
                "all",
                format!("sbc-bench prints the mismatch whenever both of its checks measured any clock below the OPP (here {before:+.1} % before, {after:+.1} % after); truebench's tolerance is {:.1} % or three times the measurement's own spread, and these shortfalls are within it.", truebench_monitor_core::detect::clocks::MIN_TOLERANCE_PCT),
                Side::Undecided,
            )
        }
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
