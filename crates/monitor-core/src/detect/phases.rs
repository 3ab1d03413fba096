//! Which phases a finding belongs to, from each phase's own evidence.
//!
//! The detectors judge a whole measurement (its first and last snapshot, every sample, the
//! whole kernel log). To tie what they found to the phases it happened in, the detectors
//! that look at a change — throttling, firmware throttling and under-voltage, killed cores,
//! swapping, oom kills, thermal trips, driver limits — run again on each phase alone: its two boundary
//! snapshots, its samples and the kernel-log lines read while it ran. A kind a phase shows
//! on its own adds that phase to the whole measurement's findings of the kind (or, when the
//! whole has none — swap that grew and shrank back — the phase's own finding is kept).
//! Background and kernel activity are judged per phase already and carry their phase.

use truebench_host::Inventory;

use crate::evidence::Snapshot;
use truebench_model::finding::{Finding, FindingKind, Severity};
use truebench_model::timeline::Timeline;
use truebench_model::PhaseId;

use super::{cores, memory, perf_limits, power, rpi, thermal, throttling};

/// One phase's own evidence.
pub struct PhaseEvidence<'a> {
    pub name: &'a str,
    /// Timeline seconds.
    pub start: f64,
    pub end: f64,
    /// The snapshots taken at its start and at its end.
    pub before: &'a Snapshot,
    pub after: &'a Snapshot,
    /// Kernel-log lines read while it ran.
    pub log: &'a [String],
}

/// What the change detectors find in one phase alone (not-checked notes left out).
pub fn phase_findings(inv: &Inventory, tl: &Timeline, p: &PhaseEvidence<'_>) -> Vec<Finding> {
    let part = slice(tl, p.start, p.end);
    let mut f = Vec::new();
    f.extend(throttling::detect(inv, p.before, p.after, &part));
    f.extend(rpi::detect(p.before, p.after, &part));
    f.extend(power::undervoltage_log(p.log));
    f.extend(power::undervoltage_alarm(p.before, p.after));
    f.extend(cores::killed_cores(p.before, p.after, p.log));
    f.extend(memory::swapping(inv, p.before, p.after, &part));
    f.extend(memory::oom_kill(p.log));
    f.extend(thermal::thermal_trip(p.log));
    f.extend(perf_limits::detect(inv, p.before, p.after));
    f.retain(|x| x.kind != FindingKind::NotChecked && x.severity > Severity::Info);
    for x in &mut f {
        x.add_phase(p.name);
    }
    f
}

/// Add to each finding the phases whose own evidence shows its kind.
pub fn attribute(
    inv: &Inventory,
    tl: &Timeline,
    phases: &[PhaseEvidence<'_>],
    findings: &mut Vec<Finding>,
) {
    for p in phases {
        for own in phase_findings(inv, tl, p) {
            let mut placed = false;
            for f in findings.iter_mut().filter(|f| f.kind == own.kind) {
                f.add_phase(p.name);
                placed = true;
            }
            if !placed {
                findings.push(own);
            }
        }
    }
    super::sort(findings);
}

/// The timeline with only the samples whose interval ended within `(start, end]`.
fn slice(tl: &Timeline, start: f64, end: f64) -> Timeline {
    let lo = tl.samples.partition_point(|s| s.t <= start);
    let hi = tl.samples.partition_point(|s| s.t <= end).max(lo);
    Timeline {
        header: tl.header.clone(),
        samples: tl.samples[lo..hi].to_vec(),
        phases: tl
            .phases
            .iter()
            .filter(|p| p.start >= start && p.end.is_none_or(|e| e <= end))
            .cloned()
            .collect(),
        ..Default::default()
    }
}

/// The kinds of the findings in phase `phase`, sorted (not-checked notes left out): what a
/// row or cell measured in it is marked with.
pub fn marks(findings: &[Finding], phase: impl PhaseId) -> Vec<String> {
    let mut m: Vec<String> = findings
        .iter()
        .filter(|f| f.kind != FindingKind::NotChecked && f.during(&phase))
        .map(|f| f.kind.as_str().to_string())
        .collect();
    m.sort();
    m.dedup();
    m
}

/// Why a row or cell measured in phase `phase` is not valid: the kinds of the critical
/// findings in it (`throttling, swapping`), and of the warnings of a kind in `strict` (the
/// governor study holds any throttling against a row); None when there are none.
pub fn invalid_by(
    findings: &[Finding],
    phase: impl PhaseId,
    strict: &[FindingKind],
) -> Option<String> {
    let mut k: Vec<&str> = findings
        .iter()
        .filter(|f| f.during(&phase))
        .filter(|f| {
            f.severity == Severity::Critical
                || (f.severity == Severity::Warning && strict.contains(&f.kind))
        })
        .map(|f| f.kind.as_str())
        .collect();
    k.sort();
    k.dedup();
    (!k.is_empty()).then(|| k.join(", "))
}
