//! Under-voltage seen in the kernel log (Raspberry Pi kernels log the firmware's
//! under-voltage flag: `hwmon hwmon1: Undervoltage detected!`, older `Under-voltage
//! detected! (0x00050005)`, each followed by `Voltage normalised` when it ends).
//! The firmware bits themselves are decoded in `rpi`.

use super::capped;
use super::kernel_log::matching;
use crate::finding::{Finding, FindingKind, Severity};

pub fn undervoltage_log(lines: &[String]) -> Vec<Finding> {
    let events = matching(lines, &["undervoltage detected", "under-voltage detected"]);
    if events.is_empty() {
        return Vec::new();
    }
    let relevant: Vec<String> = matching(
        lines,
        &[
            "undervoltage detected",
            "under-voltage detected",
            "voltage normalised",
            "voltage normalized",
        ],
    )
    .into_iter()
    .cloned()
    .collect();
    vec![Finding::new(
        FindingKind::Undervoltage,
        Severity::Critical,
        format!(
            "The kernel logged {} under-voltage event(s): the firmware lowers clocks when the supply sags, results are invalid; use a proper power supply and cable and run again.",
            events.len()
        ),
    )
    .with_evidence(capped(relevant, 24))]
}
