//! The clock of a CPU without a frequency table (intel_pstate, amd-pstate, ACPI CPPC), judged
//! against its base and boost clocks instead of a table that does not exist.
//!
//! Such a driver's highest limit (`cpuinfo_max_freq`) is the boost clock: the most one core
//! reaches when the power and thermal budget allow (Linux `intel_pstate.rst`: turbo P-states
//! "are not sustainable"; ACPI CPPC's highest performance "may not be sustainable for long
//! durations"). Only the base clock (CPPC's nominal performance, intel_pstate's
//! `base_frequency`) is what the CPU is expected to hold. So a measured clock between base and
//! boost is turbo at work — information, never a fake clock; below the base clock it is a
//! shortfall judged as [`judge_cold`] judges an OPP; at or above the boost clock, nothing (or
//! [`FindingKind::ClockAbove`]).

use truebench_model::finding::{Finding, FindingKind, Severity};

use super::clocks::{judge_cold, judge_hot, ClockCheck};

/// `top` is the cold measurement at the cluster's highest limit (the boost clock).
pub fn judge_turbo(
    label: &str,
    top: &ClockCheck,
    base_mhz: f64,
    boost_mhz: f64,
    from: &str,
) -> Option<Finding> {
    let m = top.measured_mhz;
    let source =
        format!("no frequency table: base {base_mhz:.0} MHz, boost {boost_mhz:.0} MHz ({from})");
    let at_boost = ClockCheck {
        opp_mhz: boost_mhz,
        ..top.clone()
    };
    let at_base = ClockCheck {
        opp_mhz: base_mhz,
        ..top.clone()
    };
    let tol = |c: &ClockCheck| c.deviation_pct() >= -c.tolerance_pct();
    if tol(&at_boost) {
        // Boost reached; far above it is firmware's doing, as for an OPP.
        return judge_cold(label, &at_boost, None).map(|f| f.with_evidence([source]));
    }
    if tol(&at_base) {
        let dev = at_boost.deviation_pct();
        return Some(
            Finding::new(
                FindingKind::ClockDeviation,
                Severity::Info,
                format!(
                    "{label}: the CPU ran at {m:.0} MHz at its highest limit: above its \
                     {base_mhz:.0} MHz base clock, {:.1} % below the {boost_mhz:.0} MHz boost \
                     clock. Boost is opportunistic (power and heat budget, how many cores are \
                     busy), so this is not a fake clock; compare machines by measured clocks.",
                    -dev
                ),
            )
            .with_evidence([at_boost.evidence("cold, before the benchmarks"), source]),
        );
    }
    // Below the base clock: the shortfall is judged against it.
    judge_cold(label, &at_base, None).map(|f| f.with_evidence([source]))
}

/// The hot measurement at the boost limit (after the benchmarks, with load on the cluster's
/// other CPUs) against the cold one. Boost shares one power budget among the busy cores (Linux
/// `intel_pstate.rst`: "the maximum turbo P-state that can be set for 3 cores at the same time
/// usually is lower than the analogous maximum P-state for 2 cores"), so a hot clock below the
/// cold one but not below the base clock is that budget — information, kind
/// [`FindingKind::PowerLimit`], never throttling. Below the base clock it is judged as
/// [`judge_hot`] judges an OPP, against the base clock.
pub fn judge_turbo_hot(
    label: &str,
    cold: Option<&ClockCheck>,
    hot: &ClockCheck,
    base_mhz: f64,
    boost_mhz: f64,
) -> Option<Finding> {
    let at_base = |c: &ClockCheck| ClockCheck {
        opp_mhz: base_mhz,
        ..c.clone()
    };
    let hot_base = at_base(hot);
    if hot_base.deviation_pct() < -hot_base.tolerance_pct() {
        let cold_base = cold.map(at_base);
        return judge_hot(label, cold_base.as_ref(), &hot_base);
    }
    let cold = cold?;
    let tol = hot.tolerance_pct() + cold.tolerance_pct();
    let lower = (hot.measured_mhz - cold.measured_mhz) / cold.measured_mhz * 100.0;
    if lower >= -tol {
        return None;
    }
    Some(
        Finding::new(
            FindingKind::PowerLimit,
            Severity::Info,
            format!(
                "{label}: measured {:.0} MHz hot with the other CPUs busy, {:.0} MHz cold: \
                 still above the {base_mhz:.0} MHz base clock (boost {boost_mhz:.0} MHz). Boost \
                 shares one power budget among the busy cores, so this is the turbo budget, \
                 not throttling.",
                hot.measured_mhz, cold.measured_mhz
            ),
        )
        .with_evidence([
            cold.evidence("cold, before the benchmarks"),
            hot.evidence("hot, after the benchmarks"),
        ]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(mhz: f64) -> ClockCheck {
        ClockCheck::new(4700.0, mhz, &[mhz + 1.0, mhz, mhz - 1.0]).unwrap()
    }

    const FROM: &str = "intel_pstate base_frequency";

    /// The i7-1165G7's clocks (base 1200 MHz as its intel_pstate reports, boost 4700 MHz).
    #[test]
    fn between_base_and_boost_is_information() {
        assert_eq!(
            judge_turbo("cpu0-7", &check(4690.0), 1200.0, 4700.0, FROM),
            None
        );
        let f = judge_turbo("cpu0-7", &check(3900.0), 1200.0, 4700.0, FROM).unwrap();
        assert_eq!(
            (f.kind, f.severity),
            (FindingKind::ClockDeviation, Severity::Info)
        );
        assert!(
            f.message
                .contains("above its 1200 MHz base clock, 17.0 % below the 4700 MHz boost"),
            "{}",
            f.message
        );
        assert!(
            f.evidence[1].contains("base 1200 MHz, boost 4700 MHz"),
            "{:?}",
            f.evidence
        );
        // The same measurement against the table's top "OPP" would call the clock fake.
        let old = judge_cold("cpu0-7", &check(3900.0), None).unwrap();
        assert_eq!(old.severity, Severity::Warning);
    }

    #[test]
    fn below_base_is_a_shortfall_against_the_base_clock() {
        let f = judge_turbo("cpu0-7", &check(1000.0), 1200.0, 4700.0, FROM).unwrap();
        assert_eq!(
            (f.kind, f.severity),
            (FindingKind::ClockDeviation, Severity::Warning)
        );
        assert!(
            f.message.contains("not the advertised 1200 MHz"),
            "{}",
            f.message
        );
        let f = judge_turbo("cpu0-7", &check(1150.0), 1200.0, 4700.0, FROM).unwrap();
        assert_eq!(f.severity, Severity::Info);
    }

    /// All-core turbo below single-core boost is the budget, not throttling; below base it is.
    #[test]
    fn hot_with_busy_cores_is_judged_against_the_base_clock() {
        let cold = check(4690.0);
        let f = judge_turbo_hot("cpu0-7", Some(&cold), &check(4100.0), 1200.0, 4700.0).unwrap();
        assert_eq!(
            (f.kind, f.severity),
            (FindingKind::PowerLimit, Severity::Info)
        );
        // The same pair judged as an OPP: critical throttling.
        let old = judge_hot("cpu0-7", Some(&cold), &check(4100.0)).unwrap();
        assert_eq!(old.severity, Severity::Critical);
        assert_eq!(
            judge_turbo_hot("cpu0-7", Some(&cold), &check(4680.0), 1200.0, 4700.0),
            None
        );
        let f = judge_turbo_hot("cpu0-7", Some(&cold), &check(900.0), 1200.0, 4700.0).unwrap();
        assert_eq!(
            (f.kind, f.severity),
            (FindingKind::Throttling, Severity::Critical)
        );
        assert!(f.message.contains("at the 1200 MHz OPP"), "{}", f.message);
    }

    #[test]
    fn far_above_boost_is_clock_above() {
        let f = judge_turbo("cpu0-7", &check(5200.0), 1200.0, 4700.0, FROM).unwrap();
        assert_eq!(f.kind, FindingKind::ClockAbove);
    }
}
