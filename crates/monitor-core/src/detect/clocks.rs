//! Measured vs. advertised clock.
//!
//! The advertised clock is judged by the **cold** measurement (idle, before the benchmarks:
//! sbc-bench's rule, which needs a shortfall before *and* after). A shortfall seen only in
//! the hot measurement after the benchmarks, taken while the cluster was hot, is the clock
//! being lowered by heat — throttling, with both figures in the evidence — not a fake label.
//!
//! Tolerance: a deviation counts only beyond what the measurement itself can resolve — three
//! times the spread of its own samples, and never less than [`MIN_TOLERANCE_PCT`]. Below
//! that lie PLL granularity (an OPP of 1368 MHz that the PLL makes 1350), the OPP table's
//! rounding, and sbc-bench's integer truncation of the mean reading; sbc-bench prints any
//! measured clock below the OPP in both of its checks, which flags noise as a mismatch.
//!
//! Severities: below the label by more than the tolerance is information (the scores are
//! still real; compare boards by measured clocks), by more than 9 % a warning (sbc-bench
//! prints two-digit deviations in red: a fake clock). *Above* the label is its own finding
//! ([`FindingKind::ClockAbove`]): firmware, not cpufreq, sets the clock (Raspberry Pi).
//! Never critical: the benchmark numbers stay true, only the label is wrong.

use truebench_model::finding::{Basis, Finding, FindingKind, Severity};

/// The smallest deviation reported, %: well above a cycle-counting measurement's noise
/// (sbc-bench's three readings agree within ~0.3 %) and the PLL/OPP rounding of real boards.
pub const MIN_TOLERANCE_PCT: f64 = 1.5;
/// Multiple of the measurement's own relative spread that is still noise.
pub const SPREAD_FACTOR: f64 = 3.0;
/// Shortfall beyond which a label is called fake (a warning), %.
pub const FAKE_PCT: f64 = 9.0;

/// One measurement of a cluster's clock at its highest OPP.
#[derive(Debug, Clone, PartialEq)]
pub struct ClockCheck {
    pub opp_mhz: f64,
    pub measured_mhz: f64,
    /// The individual readings the measurement is made of (may be empty).
    pub samples_mhz: Vec<f64>,
}

impl ClockCheck {
    pub fn new(opp_mhz: f64, measured_mhz: f64, samples_mhz: &[f64]) -> Option<ClockCheck> {
        let ok = |v: f64| v.is_finite() && v > 0.0;
        (ok(opp_mhz) && ok(measured_mhz)).then(|| ClockCheck {
            opp_mhz,
            measured_mhz,
            samples_mhz: samples_mhz.iter().copied().filter(|v| ok(*v)).collect(),
        })
    }

    /// (measured − OPP) / OPP, %.
    pub fn deviation_pct(&self) -> f64 {
        (self.measured_mhz - self.opp_mhz) / self.opp_mhz * 100.0
    }

    /// The largest deviation this measurement cannot tell from noise, %.
    pub fn tolerance_pct(&self) -> f64 {
        let s = &self.samples_mhz;
        let spread = if s.len() >= 2 {
            let (lo, hi) = s
                .iter()
                .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
            (hi - lo) / self.measured_mhz * 100.0
        } else {
            0.0
        };
        (SPREAD_FACTOR * spread).max(MIN_TOLERANCE_PCT)
    }

    fn short(&self) -> bool {
        self.deviation_pct() < -self.tolerance_pct()
    }

    fn above(&self) -> bool {
        self.deviation_pct() > self.tolerance_pct()
    }

    /// `Cpufreq OPP: 1800 Measured: 1435 (-20.3%)`, sbc-bench's words.
    pub fn evidence(&self, when: &str) -> String {
        format!(
            "{when}: Cpufreq OPP: {:.0} Measured: {:.0} ({:+.1}%), tolerance ±{:.1} %",
            self.opp_mhz,
            self.measured_mhz,
            self.deviation_pct(),
            self.tolerance_pct()
        )
    }
}

const COLD: &str = "cold, before the benchmarks";
const HOT: &str = "hot, after the benchmarks";

/// The advertised clock judged by the cold measurement: below it beyond the tolerance is a
/// [`FindingKind::ClockDeviation`], above it a [`FindingKind::ClockAbove`]. `label` names
/// the cluster ("cpu4-7 (Cortex-A76)"); `hot`, when already measured, joins the evidence.
///
/// A cold shortfall that the hot measurement at the same OPP does not repeat cannot be a
/// fake label (a label does not get truer with heat): the cold measurement was disturbed,
/// which is said as such.
pub fn judge_cold(label: &str, cold: &ClockCheck, hot: Option<&ClockCheck>) -> Option<Finding> {
    let (o, m, dev) = (cold.opp_mhz, cold.measured_mhz, cold.deviation_pct());
    if let Some(h) = hot.filter(|h| cold.short() && h.opp_mhz == o && !h.short()) {
        return Some(
            Finding::new(
                FindingKind::NotChecked,
                Severity::Info,
                format!("{label}: the measurement before the benchmarks read {m:.0} MHz at the {o:.0} MHz OPP, the one after them {:.0} MHz: the first was disturbed, so the advertised clock was judged by the second.", h.measured_mhz),
            )
            .with_evidence([cold.evidence(COLD), h.evidence(HOT)])
            .on(Basis::HotClock),
        );
    }
    let (kind, sev, msg) = if cold.short() {
        if dev < -FAKE_PCT {
            (
                FindingKind::ClockDeviation,
                Severity::Warning,
                format!("{label}: the CPU runs at {m:.0} MHz, not the advertised {o:.0} MHz ({dev:.1} %): the clock is fake; compare boards by measured clocks."),
            )
        } else {
            (
                FindingKind::ClockDeviation,
                Severity::Info,
                format!("{label}: the CPU runs at {m:.0} MHz, {:.1} % below the advertised {o:.0} MHz; compare boards by measured clocks.", -dev),
            )
        }
    } else if cold.above() {
        (
            FindingKind::ClockAbove,
            Severity::Info,
            format!("{label}: the CPU runs at {m:.0} MHz, above the {o:.0} MHz cpufreq claims ({dev:+.1} %): firmware, not the kernel, sets the clock."),
        )
    } else {
        return None;
    };
    let mut ev = vec![cold.evidence(COLD)];
    ev.extend(hot.map(|h| h.evidence(HOT)));
    Some(Finding::new(kind, sev, msg).with_evidence(ev))
}

/// The hot measurement against the cold one: a shortfall only when hot (or a hot clock
/// clearly below the cold one) is throttling, not a fake label. Without a cold measurement
/// the two cannot be told apart: information only.
pub fn judge_hot(label: &str, cold: Option<&ClockCheck>, hot: &ClockCheck) -> Option<Finding> {
    if !hot.short() {
        return None;
    }
    let (o, m, dev) = (hot.opp_mhz, hot.measured_mhz, hot.deviation_pct());
    let Some(cold) = cold else {
        return Some(
            Finding::new(
                FindingKind::Throttling,
                Severity::Info,
                format!("{label}: measured hot at {m:.0} MHz, {:.1} % below the advertised {o:.0} MHz; without a cold measurement a fake clock and throttling cannot be told apart.", -dev),
            )
            .with_evidence([hot.evidence(HOT)])
            .on(Basis::HotClock),
        );
    };
    // Lowered while hot only when the hot clock is below the cold one by more than the noise
    // of the two measurements together; otherwise the label (judged cold) explains it.
    let tol = hot.tolerance_pct() + cold.tolerance_pct();
    let lower_than_cold = (hot.measured_mhz - cold.measured_mhz) / cold.measured_mhz * 100.0;
    if lower_than_cold >= -tol {
        return None;
    }
    let sev = if dev < -FAKE_PCT {
        Severity::Critical
    } else {
        Severity::Warning
    };
    Some(
        Finding::new(
            FindingKind::Throttling,
            sev,
            format!(
                "{label}: measured {m:.0} MHz at the {o:.0} MHz OPP when hot after the benchmarks, {:.0} MHz when cold: the clock was lowered while hot (throttling by firmware or heat that cpufreq did not report), not a fake label; improve cooling and run again.",
                cold.measured_mhz
            ),
        )
        .with_evidence([cold.evidence(COLD), hot.evidence(HOT)])
        .on(Basis::HotClock),
    )
}

/// A single measurement judged alone (the `clocks` command's OPP walk is cold).
pub fn clock_deviation(opp_mhz: f64, measured_mhz: f64) -> Option<Finding> {
    judge_cold("CPU", &ClockCheck::new(opp_mhz, measured_mhz, &[])?, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(opp: f64, m: f64) -> ClockCheck {
        ClockCheck::new(opp, m, &[m + 0.5, m, m - 0.5]).unwrap()
    }

    #[test]
    fn readme_examples() {
        // Tinkerboard: OPP 1992, measured 1793 → -10.0 % → warning.
        let f = clock_deviation(1992.0, 1793.0).unwrap();
        assert_eq!(f.kind, FindingKind::ClockDeviation);
        assert_eq!(f.severity, Severity::Warning);
        assert!(f.evidence[0].contains("Cpufreq OPP: 1992 Measured: 1793 (-10.0%)"));
        // Orange Pi 5: 2400 vs 2221 → -7.5 % → info.
        let f = clock_deviation(2400.0, 2221.0).unwrap();
        assert_eq!(f.severity, Severity::Info);
        assert!(f.evidence[0].contains("(-7.5%)"));
        // 1800 vs 1793: within the tolerance.
        assert!(clock_deviation(1800.0, 1793.0).is_none());
        // RPi 5 OPP 1400, firmware runs 1498 (+7.0 %): its own kind.
        let f = clock_deviation(1400.0, 1498.0).unwrap();
        assert_eq!(f.kind, FindingKind::ClockAbove);
        assert!(f.message.contains("firmware"));
        assert!(clock_deviation(0.0, 100.0).is_none());
        assert!(clock_deviation(f64::NAN, 100.0).is_none());
    }

    #[test]
    fn one_to_one_and_a_half_percent_is_noise_in_either_direction() {
        // OPP 1368 that the PLL makes 1350 (-1.3 %), and +1.2 %.
        assert!(judge_cold("cpu0-3", &c(1368.0, 1350.0), None).is_none());
        assert!(judge_cold("cpu0-3", &c(1000.0, 1012.0), None).is_none());
        assert!(judge_cold("cpu0-3", &c(1000.0, 985.0), None).is_none());
        // Just beyond: reported, each in its own kind.
        assert_eq!(
            judge_cold("cpu0-3", &c(1000.0, 983.0), None).unwrap().kind,
            FindingKind::ClockDeviation
        );
        assert_eq!(
            judge_cold("cpu0-3", &c(1000.0, 1017.0), None).unwrap().kind,
            FindingKind::ClockAbove
        );
    }

    #[test]
    fn tolerance_grows_with_the_measurements_own_spread() {
        // Readings 960…1000 (4 % spread): a 3 % shortfall is within the noise.
        let noisy = ClockCheck::new(1000.0, 970.0, &[1000.0, 960.0, 950.0]).unwrap();
        assert!(noisy.tolerance_pct() > 10.0, "{}", noisy.tolerance_pct());
        assert!(judge_cold("cpu0", &noisy, None).is_none());
        // The same shortfall measured tightly is reported.
        assert!(judge_cold("cpu0", &c(1000.0, 970.0), None).is_some());
    }

    #[test]
    fn hot_only_shortfall_is_throttling_with_both_figures() {
        let cold = c(1800.0, 1795.0);
        let hot = c(1800.0, 1435.0);
        assert!(judge_cold("cpu0-3", &cold, Some(&hot)).is_none());
        let f = judge_hot("cpu0-3", Some(&cold), &hot).unwrap();
        assert_eq!(f.kind, FindingKind::Throttling);
        assert_eq!(f.severity, Severity::Critical);
        assert!(f.evidence[0].starts_with("cold") && f.evidence[0].contains("Measured: 1795"));
        assert!(f.evidence[1].starts_with("hot") && f.evidence[1].contains("(-20.3%)"));
        // A small hot shortfall is a warning; within the tolerance nothing.
        let f = judge_hot("cpu0-3", Some(&cold), &c(1800.0, 1740.0)).unwrap();
        assert_eq!(f.severity, Severity::Warning);
        assert!(judge_hot("cpu0-3", Some(&cold), &c(1800.0, 1780.0)).is_none());
    }

    #[test]
    fn fake_label_seen_cold_and_hot_is_one_clock_deviation() {
        let cold = c(1992.0, 1793.0);
        let hot = c(1992.0, 1790.0);
        let f = judge_cold("cpu0-3", &cold, Some(&hot)).unwrap();
        assert_eq!(f.kind, FindingKind::ClockDeviation);
        assert_eq!(f.evidence.len(), 2);
        assert!(judge_hot("cpu0-3", Some(&cold), &hot).is_none());
        // Fake *and* lower still when hot: both.
        let f = judge_hot("cpu0-3", Some(&cold), &c(1992.0, 1500.0)).unwrap();
        assert_eq!(f.kind, FindingKind::Throttling);
    }

    #[test]
    fn cold_shortfall_the_hot_check_does_not_repeat_is_a_disturbed_measurement() {
        let cold = ClockCheck::new(2707.0, 823.0, &[872.7, 800.3, 796.2]).unwrap();
        let hot = c(2707.0, 2698.0);
        let f = judge_cold("cpu7", &cold, Some(&hot)).unwrap();
        assert_eq!(f.kind, FindingKind::NotChecked);
        assert!(f.message.contains("disturbed"), "{}", f.message);
        // A hot check at another (lower) OPP says nothing about the top one.
        let f = judge_cold("cpu7", &cold, Some(&c(2400.0, 2391.0))).unwrap();
        assert_eq!(f.kind, FindingKind::ClockDeviation);
    }

    #[test]
    fn hot_shortfall_without_a_cold_measurement_is_only_information() {
        let f = judge_hot("cpu0", None, &c(2208.0, 2000.0)).unwrap();
        assert_eq!(f.kind, FindingKind::Throttling);
        assert_eq!(f.severity, Severity::Info);
    }
}
