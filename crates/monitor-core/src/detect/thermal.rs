//! Thermal trips in the kernel log: trip points crossed, critical temperatures, and x86
//! `Core/Package temperature above threshold, cpu clock throttled` (PROCHOT) messages.

use super::capped;
use super::kernel_log::{contains_ci, matching};
use truebench_model::finding::{Finding, FindingKind, Severity};

/// Messages meaning the clock was cut or the machine is about to shut down.
const SEVERE: [&str; 4] = [
    "critical temperature reached",
    "temperature above threshold",
    "temperature is above threshold",
    "reached critical temperature",
];

pub fn thermal_trip(lines: &[String]) -> Vec<Finding> {
    let severe = matching(lines, &SEVERE);
    // `thermal thermal_zone0: temp:90000 increase, hyst:5000, trip_temp:90000, hot:1`
    let trips: Vec<&String> = lines
        .iter()
        .filter(|l| contains_ci(l, "thermal_zone") && contains_ci(l, "trip"))
        .filter(|l| !contains_ci(l, "decrease"))
        .collect();
    if severe.is_empty() && trips.is_empty() {
        return Vec::new();
    }
    let mut ev: Vec<String> = lines
        .iter()
        .filter(|l| {
            SEVERE.iter().any(|p| contains_ci(l, p))
                || (contains_ci(l, "thermal_zone") && contains_ci(l, "trip"))
                || contains_ci(l, "temperature/speed normal")
        })
        .cloned()
        .collect();
    ev = capped(ev, 24);
    let (sev, msg) = if severe.is_empty() {
        (
            Severity::Warning,
            format!(
                "A thermal trip point was crossed {} time(s) during the run: the kernel then throttles or switches cores off; improve cooling and run again.",
                trips.len()
            ),
        )
    } else {
        (
            Severity::Critical,
            format!(
                "The kernel reported {} critical-temperature or clock-throttled event(s): results are invalid; improve cooling and run again.",
                severe.len()
            ),
        )
    };
    vec![Finding::new(FindingKind::ThermalTrip, sev, msg).with_evidence(ev)]
}
