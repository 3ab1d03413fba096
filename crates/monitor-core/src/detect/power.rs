//! Under-voltage seen in the kernel log (Raspberry Pi kernels log the firmware's
//! under-voltage flag: `hwmon hwmon1: Undervoltage detected!`, older `Under-voltage
//! detected! (0x00050005)`, each followed by `Voltage normalised` when it ends).
//! The firmware bits themselves are decoded in `rpi`.

use super::capped;
use super::kernel_log::matching;
use crate::evidence::Snapshot;
use truebench_model::finding::{Finding, FindingKind, Severity};

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

/// The `rpi_volt` hwmon alarm (`in0_lcrit_alarm`): the kernel polls the firmware every ~2 s
/// and sets it while under-voltage is present, so 1 in a snapshot means the supply sagged
/// right at the start or the end of the run.
pub fn undervoltage_alarm(before: &Snapshot, after: &Snapshot) -> Vec<Finding> {
    let mut ev = Vec::new();
    if before.rpi_undervoltage_alarm == Some(true) {
        ev.push("rpi_volt in0_lcrit_alarm: 1 before the run".to_string());
    }
    if after.rpi_undervoltage_alarm == Some(true) {
        ev.push("rpi_volt in0_lcrit_alarm: 1 after the run".to_string());
    }
    if ev.is_empty() {
        return Vec::new();
    }
    vec![Finding::new(
        FindingKind::Undervoltage,
        Severity::Critical,
        "The Raspberry Pi's under-voltage alarm was on: the firmware caps clocks while the supply sags, results are invalid; use a proper power supply and cable and run again.",
    )
    .with_evidence(ev)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alarm_in_either_snapshot() {
        let off = Snapshot {
            rpi_undervoltage_alarm: Some(false),
            ..Default::default()
        };
        let on = Snapshot {
            rpi_undervoltage_alarm: Some(true),
            ..Default::default()
        };
        assert!(undervoltage_alarm(&off, &off).is_empty());
        assert!(undervoltage_alarm(&Snapshot::default(), &Snapshot::default()).is_empty());
        let f = undervoltage_alarm(&off, &on);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence, ["rpi_volt in0_lcrit_alarm: 1 after the run"]);
    }

    #[test]
    fn log_lines() {
        let l: Vec<String> = [
            "[    5.1] hwmon hwmon1: Under-voltage detected! (0x00050005)",
            "[    9.2] hwmon hwmon1: Voltage normalised (0x00000000)",
        ]
        .map(String::from)
        .to_vec();
        let f = undervoltage_log(&l);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence.len(), 2);
        assert!(undervoltage_log(&l[1..]).is_empty());
    }
}
