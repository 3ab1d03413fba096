//! Findings: what a detector concluded, how bad it is, and the evidence that proves it.

use serde::{Deserialize, Serialize};

use crate::evidence::PhaseId;

/// What a finding is about; stable names used in JSON (`"kind": "throttling"`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// Time below the top clock (cpufreq statistics, Raspberry Pi throttled bits).
    Throttling,
    /// The Raspberry Pi firmware capped the ARM clock.
    FrequencyCapping,
    /// The supply sagged (kernel log, Raspberry Pi alarm): the firmware lowers clocks.
    Undervoltage,
    /// CPUs switched off by the kernel or firmware (`CPUn: shutdown`, `psci: CPUn killed`).
    KilledCores,
    /// Swap in use grew, or pages were swapped out, while measuring.
    Swapping,
    /// zswap enabled on top of zram swap: swapped pages are compressed twice.
    ZswapOnZram,
    /// The kernel's oom-killer killed a process.
    OomKill,
    /// Other processes used CPU time the measurement needed.
    BackgroundActivity,
    /// The kernel was busy (%sys) where the measurement spends almost none.
    SystemActivity,
    /// The measured clock is below the advertised one beyond the tolerance.
    ClockDeviation,
    /// The measured clock is above the advertised one (firmware sets the clock).
    ClockAbove,
    /// The same MHz are missing at every OPP: cycles taken from the measuring core
    /// (interrupts, a hypervisor), not a wrong clock.
    LostCycles,
    /// The clock fell under the same load without heat to explain it: a power limit or a
    /// turbo budget (or a reported clock that jitters), not thermal throttling.
    PowerLimit,
    /// A thermal trip point was crossed or a critical temperature reported (kernel log).
    ThermalTrip,
    /// The idle gate found the machine busy before the measurement.
    NotIdle,
    /// A performance limit of the CPU's frequency driver was set while measuring: intel_pstate's
    /// `max_perf_pct` below 100 or `no_turbo`, an energy preference that favours saving power.
    PerfLimit,
    /// Something could not be checked (no permission for the kernel log, no cpufreq stats…).
    NotChecked,
    /// An OPP the kernel offers in its tables but the clock never reaches, and the limit that
    /// holds it: the CPU regulator, the chip's `opp-supported-hw` bin, a lowered
    /// `scaling_max_freq` (a cooling device, MaxKHz).
    OppLimit,
    /// A headline figure worse than the same machine's previous result beyond the noise
    /// band (found from the history, not while measuring).
    Regression,
    /// A headline figure better than the same machine's previous result beyond the band.
    Improvement,
}

impl FindingKind {
    /// The JSON name (`throttling`, `zswap_on_zram`, …).
    pub fn as_str(&self) -> &'static str {
        match self {
            FindingKind::Throttling => "throttling",
            FindingKind::FrequencyCapping => "frequency_capping",
            FindingKind::Undervoltage => "undervoltage",
            FindingKind::KilledCores => "killed_cores",
            FindingKind::Swapping => "swapping",
            FindingKind::ZswapOnZram => "zswap_on_zram",
            FindingKind::OomKill => "oom_kill",
            FindingKind::BackgroundActivity => "background_activity",
            FindingKind::SystemActivity => "system_activity",
            FindingKind::ClockDeviation => "clock_deviation",
            FindingKind::ClockAbove => "clock_above",
            FindingKind::LostCycles => "lost_cycles",
            FindingKind::PowerLimit => "power_limit",
            FindingKind::ThermalTrip => "thermal_trip",
            FindingKind::NotIdle => "not_idle",
            FindingKind::PerfLimit => "perf_limit",
            FindingKind::NotChecked => "not_checked",
            FindingKind::OppLimit => "opp_limit",
            FindingKind::Regression => "regression",
            FindingKind::Improvement => "improvement",
        }
    }
}

/// `critical` makes a result invalid; `warning` needs a look; `info` is context.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Context for the reader.
    Info,
    /// Needs a look; the result stays valid.
    Warning,
    /// Makes the result invalid.
    Critical,
}

/// What a finding's verdict rests on, where a reader that weighs verdicts needs to know (the
/// sbc-bench comparison explains a disagreement by it): the typed form of what its message
/// and evidence say in words.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// The clock measured after the benchmarks, hot.
    HotClock,
    /// Monitoring samples with the Raspberry Pi firmware's clock (`measure_clock arm`): the
    /// real clock, which the kernel's does not show.
    FirmwareClock,
    /// No cpufreq, or no cpufreq statistics: what a `not_checked` finding could not check
    /// with.
    NoCpufreq,
}

/// What a detector concluded, how bad it is, and the evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Finding {
    /// What it is about.
    pub kind: FindingKind,
    /// How bad it is.
    pub severity: Severity,
    /// One sentence: what happened and what to do about it.
    pub message: String,
    /// The lines that prove it: samples, table rows, kernel-log lines, file values.
    pub evidence: Vec<String>,
    /// The phases it happened in (their names), when its evidence says: a row or cell
    /// measured in one of them is marked with it (`detect::attribute`). Empty: not tied to
    /// a phase (a setting, something seen only over the whole measurement).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<String>,
    /// The readings cannot decide it: floored whole-percent values (sbc-bench's monitor)
    /// give an interval `[r, r+1)` that holds the tolerance. Always an info finding.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub undecidable: bool,
    /// What its verdict rests on, where that matters (see [`Basis`]); empty for most
    /// findings and for every finding of documents before schema version 5.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub basis: Vec<Basis>,
    /// A `not_checked` finding: the conditions it left wholly unchecked (no cpufreq: no
    /// throttling verdict at all), so that farm formats report them as skipped, never as
    /// passed. Empty where it only narrows a check, and in documents before this field.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unchecked: Vec<FindingKind>,
}

impl Finding {
    /// A finding with no evidence, not tied to a phase.
    pub fn new(kind: FindingKind, severity: Severity, message: impl Into<String>) -> Self {
        Finding {
            kind,
            severity,
            message: message.into(),
            evidence: Vec::new(),
            phases: Vec::new(),
            undecidable: false,
            basis: Vec::new(),
            unchecked: Vec::new(),
        }
    }

    /// A `not_checked` finding that left `kinds` wholly unchecked (see `unchecked`).
    pub fn leaving(mut self, kinds: impl IntoIterator<Item = FindingKind>) -> Self {
        self.unchecked.extend(kinds);
        self
    }

    /// Mark it undecidable by its readings (see `undecidable`).
    pub fn undecidable(mut self) -> Self {
        self.undecidable = true;
        self
    }

    /// Resting on `b` (once).
    pub fn on(mut self, b: Basis) -> Self {
        if !self.basis.contains(&b) {
            self.basis.push(b);
        }
        self
    }

    /// Whether it rests on `b`.
    pub fn rests_on(&self, b: Basis) -> bool {
        self.basis.contains(&b)
    }

    /// Tie the finding to phase `phase` (once).
    pub fn in_phase(mut self, phase: impl std::fmt::Display) -> Self {
        self.add_phase(phase);
        self
    }

    /// Tie it to phase `phase` (once): by the phase's name, the envelope's.
    pub fn add_phase(&mut self, phase: impl std::fmt::Display) {
        let name = phase.to_string();
        if !self.phases.contains(&name) {
            self.phases.push(name);
        }
    }

    /// True when it happened in phase `phase`.
    pub fn during(&self, phase: impl PhaseId) -> bool {
        self.phases.iter().any(|p| phase.is(p))
    }

    /// Add evidence lines.
    pub fn with_evidence(mut self, lines: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.evidence.extend(lines.into_iter().map(Into::into));
        self
    }
}

/// True when no finding invalidates the result.
pub fn is_valid(findings: &[Finding]) -> bool {
    !findings.iter().any(|f| f.severity == Severity::Critical)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_names_are_stable() {
        let f = Finding::new(FindingKind::ZswapOnZram, Severity::Warning, "x").with_evidence(["a"]);
        let j = serde_json::to_string(&f).unwrap();
        assert!(j.contains("\"kind\":\"zswap_on_zram\""), "{j}");
        assert!(j.contains("\"severity\":\"warning\""), "{j}");
        assert_eq!(FindingKind::ZswapOnZram.as_str(), "zswap_on_zram");
        assert!(is_valid(&[f]));
        assert!(!is_valid(&[Finding::new(
            FindingKind::Swapping,
            Severity::Critical,
            "y"
        )]));
    }
}
