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

use super::clocks::{judge_cold, ClockCheck};

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

    #[test]
    fn far_above_boost_is_clock_above() {
        let f = judge_turbo("cpu0-7", &check(5200.0), 1200.0, 4700.0, FROM).unwrap();
        assert_eq!(f.kind, FindingKind::ClockAbove);
    }
}
