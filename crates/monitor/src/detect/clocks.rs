//! Measured vs. advertised clock (for the clocks command).
//!
//! Severities: a measured clock more than 1 % below the OPP is reported as information (the
//! advertised clock is not what runs; scores are still real), more than 9 % below as a warning
//! (sbc-bench prints two-digit deviations in red: "fake" clocks). More than 1 % *above* means
//! firmware, not cpufreq, sets the clock (Raspberry Pi): information. Never critical: the
//! benchmark numbers stay true, only the label is wrong. 1 % is well above the noise of a
//! cycle-counting measurement (sbc-bench's three readings agree within ~0.3 %).

use crate::finding::{Finding, FindingKind, Severity};

pub fn clock_deviation(opp_mhz: f64, measured_mhz: f64) -> Option<Finding> {
    if !(opp_mhz.is_finite() && measured_mhz.is_finite()) || opp_mhz <= 0.0 || measured_mhz <= 0.0 {
        return None;
    }
    let dev = (measured_mhz - opp_mhz) / opp_mhz * 100.0;
    let ev = format!("Cpufreq OPP: {opp_mhz:.0} Measured: {measured_mhz:.0} ({dev:+.1}%)");
    let (sev, msg) = if dev < -9.0 {
        (
            Severity::Warning,
            format!("The CPU runs at {measured_mhz:.0} MHz, not the advertised {opp_mhz:.0} MHz ({dev:.1} %): the clock is fake; compare boards by measured clocks."),
        )
    } else if dev < -1.0 {
        (
            Severity::Info,
            format!("The CPU runs at {measured_mhz:.0} MHz, {:.1} % below the advertised {opp_mhz:.0} MHz; compare boards by measured clocks.", -dev),
        )
    } else if dev > 1.0 {
        (
            Severity::Info,
            format!("The CPU runs at {measured_mhz:.0} MHz, above the {opp_mhz:.0} MHz cpufreq claims ({dev:+.1} %): firmware, not the kernel, sets the clock."),
        )
    } else {
        return None;
    };
    Some(Finding::new(FindingKind::ClockDeviation, sev, msg).with_evidence([ev]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readme_examples() {
        // Tinkerboard: OPP 1992, measured 1793 → -10.0 % → warning.
        let f = clock_deviation(1992.0, 1793.0).unwrap();
        assert_eq!(f.severity, Severity::Warning);
        assert_eq!(f.evidence[0], "Cpufreq OPP: 1992 Measured: 1793 (-10.0%)");
        // Orange Pi 5: 2400 vs 2221 → -7.5 % → info.
        let f = clock_deviation(2400.0, 2221.0).unwrap();
        assert_eq!(f.severity, Severity::Info);
        assert!(f.evidence[0].ends_with("(-7.5%)"));
        // 1800 vs 1793: within 1 %.
        assert!(clock_deviation(1800.0, 1793.0).is_none());
        // RPi 5 OPP 1400, firmware runs 1498 (+7.0 %).
        let f = clock_deviation(1400.0, 1498.0).unwrap();
        assert_eq!(f.severity, Severity::Info);
        assert!(f.message.contains("firmware"));
        assert!(clock_deviation(0.0, 100.0).is_none());
        assert!(clock_deviation(f64::NAN, 100.0).is_none());
    }
}
