//! Raspberry Pi firmware `get_throttled` bits.
//!
//! Official table (Raspberry Pi documentation, `vcgencmd get_throttled`):
//!
//! | bit | meaning |
//! | --- | --- |
//! | 0 | under-voltage detected (now) |
//! | 1 | arm frequency capped (now) |
//! | 2 | currently throttled |
//! | 3 | soft temperature limit active (now) |
//! | 16 | under-voltage has occurred |
//! | 17 | arm frequency capping has occurred |
//! | 18 | throttling has occurred |
//! | 19 | soft temperature limit has occurred |
//!
//! sbc-bench up to 0.9.70 printed a legend under the binary value that swapped two of them:
//! it labelled bit 1 "currently throttled" and bit 2 "arm frequency capped" (officially the
//! other way round), and likewise bit 17 "throttling has occurred" and bit 18 "arm frequency
//! capped has occurred". Its legend was also aligned for a 19-digit value, so with bit 19 set
//! (20 digits, e.g. `11100000000000000000` = 0xE0000) every label sits one column off.
//! sbc-bench 0.9.71 (2025-02) switched to the official legend. This module decodes by bit
//! number only.

use crate::evidence::Snapshot;
use truebench_model::finding::{Finding, FindingKind, Severity};
use truebench_model::timeline::Timeline;

/// What one bit means, and which finding kind it raises.
pub struct Bit {
    pub bit: u32,
    pub text: &'static str,
    pub kind: FindingKind,
}

/// The official bit table.
pub const BITS: [Bit; 8] = [
    Bit {
        bit: 0,
        text: "under-voltage detected",
        kind: FindingKind::Undervoltage,
    },
    Bit {
        bit: 1,
        text: "arm frequency capped",
        kind: FindingKind::FrequencyCapping,
    },
    Bit {
        bit: 2,
        text: "currently throttled",
        kind: FindingKind::Throttling,
    },
    Bit {
        bit: 3,
        text: "soft temperature limit active",
        kind: FindingKind::Throttling,
    },
    Bit {
        bit: 16,
        text: "under-voltage has occurred",
        kind: FindingKind::Undervoltage,
    },
    Bit {
        bit: 17,
        text: "arm frequency capping has occurred",
        kind: FindingKind::FrequencyCapping,
    },
    Bit {
        bit: 18,
        text: "throttling has occurred",
        kind: FindingKind::Throttling,
    },
    Bit {
        bit: 19,
        text: "soft temperature limit has occurred",
        kind: FindingKind::Throttling,
    },
];

/// Meanings of the set bits, lowest bit first. Unknown set bits are named by number.
pub fn decode(v: u32) -> Vec<String> {
    (0..32)
        .filter(|b| v & (1 << b) != 0)
        .map(|b| match BITS.iter().find(|x| x.bit == b) {
            Some(x) => x.text.to_string(),
            None => format!("bit {b} (undocumented)"),
        })
        .collect()
}

/// The binary string sbc-bench prints (`0100000000000000000`, bit 0 last) → value. Both
/// its perl `%19b` (before 0.9.71) and its `bc` conversion (since) print the plain binary
/// value, so it reads right to left whatever its length.
pub fn parse_binary(s: &str) -> Option<u32> {
    let s = s.trim();
    if s.is_empty() || s.len() > 32 || !s.bytes().all(|b| b == b'0' || b == b'1') {
        return None;
    }
    u32::from_str_radix(s, 2).ok()
}

fn advice(kind: FindingKind) -> &'static str {
    match kind {
        FindingKind::Undervoltage => "use the official power supply or a shorter, thicker cable and run again",
        FindingKind::FrequencyCapping => "the firmware lowered the ARM clock (usually because of under-voltage); fix the power supply and run again",
        _ => "improve cooling (heatsink, fan) and run again",
    }
}

/// Findings from the firmware bits in the snapshots and the timeline's vcgencmd samples.
///
/// "has occurred" bits are sticky since boot: a bit already set before the run did not
/// happen during it. A "now" bit in any sample, or a sticky bit that appeared between the
/// snapshots, did happen during the run (critical). A sticky bit set already before the run
/// is reported as a warning (the board has a problem, this run may or may not be affected).
pub fn detect(before: &Snapshot, after: &Snapshot, tl: &Timeline) -> Vec<Finding> {
    let samples: Vec<(f64, u32)> = tl
        .samples
        .iter()
        .filter_map(|s| Some((s.t, s.rpi?.throttled?)))
        .collect();
    let b = before.rpi_throttled;
    let a = after.rpi_throttled;
    if a.is_none() && b.is_none() && samples.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for kind in [
        FindingKind::Undervoltage,
        FindingKind::FrequencyCapping,
        FindingKind::Throttling,
    ] {
        let bits: Vec<&Bit> = BITS.iter().filter(|x| x.kind == kind).collect();
        let mut during = Vec::new();
        let mut earlier = Vec::new();
        for x in &bits {
            let m = 1u32 << x.bit;
            let in_after = a.is_some_and(|v| v & m != 0);
            let in_before = b.is_some_and(|v| v & m != 0);
            if x.bit < 16 {
                let seen: Vec<f64> = samples
                    .iter()
                    .filter(|(_, v)| v & m != 0)
                    .map(|(t, _)| *t)
                    .collect();
                if let Some(first) = seen.first() {
                    during.push(format!(
                        "{} in {} sample(s), first at t={first:.1}s",
                        x.text,
                        seen.len()
                    ));
                } else if in_after {
                    during.push(format!("{} at the end of the run", x.text));
                } else if in_before {
                    during.push(format!("{} at the start of the run", x.text));
                }
            } else {
                // A sticky bit that turns on between two readings happened in between.
                let mut readings: Vec<(Option<f64>, u32)> = Vec::new();
                readings.extend(b.map(|v| (None, v)));
                readings.extend(samples.iter().map(|&(t, v)| (Some(t), v)));
                readings.extend(a.map(|v| (None, v)));
                let rose = readings
                    .windows(2)
                    .find(|w| w[0].1 & m == 0 && w[1].1 & m != 0);
                if let Some(w) = rose {
                    during.push(match w[1].0 {
                        Some(t) => format!("{} (first seen at t={t:.1}s)", x.text),
                        None => format!("{} (set after the run, not before)", x.text),
                    });
                } else if in_before {
                    earlier.push(format!("{} (already set before the run)", x.text));
                } else if in_after || samples.iter().any(|(_, v)| v & m != 0) {
                    earlier.push(format!(
                        "{} (since boot; not known whether before this run)",
                        x.text
                    ));
                }
            }
        }
        if during.is_empty() && earlier.is_empty() {
            continue;
        }
        let what = match kind {
            FindingKind::Undervoltage => "Under-voltage",
            FindingKind::FrequencyCapping => "ARM frequency capping",
            _ => "Throttling",
        };
        let (sev, msg) = if !during.is_empty() {
            (
                Severity::Critical,
                format!(
                    "{what} reported by the Raspberry Pi firmware during the run: results are invalid; {}.",
                    advice(kind)
                ),
            )
        } else {
            (
                Severity::Warning,
                format!(
                    "{what} reported by the Raspberry Pi firmware since boot but before this run; {}.",
                    advice(kind)
                ),
            )
        };
        let mut ev = during;
        ev.extend(earlier);
        let src = after
            .rpi_throttled_source
            .as_deref()
            .or(before.rpi_throttled_source.as_deref())
            .unwrap_or("vcgencmd get_throttled");
        let meaning = |v: u32| match decode(v) {
            d if d.is_empty() => "nothing set".to_string(),
            d => d.join(", "),
        };
        if let Some(v) = b {
            ev.push(format!("{src} before: 0x{v:x} ({})", meaning(v)));
        }
        if let Some(v) = a {
            ev.push(format!("{src} after: 0x{v:x} ({})", meaning(v)));
        }
        out.push(Finding::new(kind, sev, msg).with_evidence(ev));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use truebench_model::timeline::{RpiSample, Sample, TimelineHeader};

    #[test]
    fn decode_known_values() {
        // 0x50005: under-voltage now + throttled now, both have occurred.
        assert_eq!(
            decode(0x50005),
            [
                "under-voltage detected",
                "currently throttled",
                "under-voltage has occurred",
                "throttling has occurred"
            ]
        );
        // 0x80008: soft temperature limit active and has occurred.
        assert_eq!(
            decode(0x80008),
            [
                "soft temperature limit active",
                "soft temperature limit has occurred"
            ]
        );
        assert!(decode(0).is_empty());
        assert_eq!(decode(1 << 5), ["bit 5 (undocumented)"]);
    }

    #[test]
    fn sbc_bench_binary_strings() {
        // README: "only thermal throttling" — officially bit 17, arm frequency capping.
        assert_eq!(parse_binary("0100000000000000000"), Some(0x20000));
        assert_eq!(decode(0x20000), ["arm frequency capping has occurred"]);
        // README: "under-voltage and frequency capping" — officially bits 16 and 18.
        assert_eq!(parse_binary("1010000000000000000"), Some(0x50000));
        assert_eq!(
            decode(0x50000),
            ["under-voltage has occurred", "throttling has occurred"]
        );
        // Corpus 3Llk.txt (20 digits): bits 17, 18, 19.
        assert_eq!(parse_binary("11100000000000000000"), Some(0xE0000));
        assert_eq!(parse_binary("1010000000000000101"), Some(0x50005));
        assert_eq!(parse_binary("10x1"), None);
        assert_eq!(parse_binary(""), None);
    }

    fn snap(v: Option<u32>) -> Snapshot {
        Snapshot {
            rpi_throttled: v,
            ..Default::default()
        }
    }

    #[test]
    fn bits_new_during_run_are_critical() {
        let tl = Timeline::new(TimelineHeader::default());
        let f = detect(&snap(Some(0)), &snap(Some(0x50000)), &tl);
        let kinds: Vec<_> = f.iter().map(|f| (f.kind, f.severity)).collect();
        assert_eq!(
            kinds,
            [
                (FindingKind::Undervoltage, Severity::Critical),
                (FindingKind::Throttling, Severity::Critical)
            ]
        );
        assert!(f[0].evidence.iter().any(|e| e.contains("after: 0x50000")));
    }

    #[test]
    fn sticky_bits_from_before_are_warnings_and_zero_is_clean() {
        let tl = Timeline::new(TimelineHeader::default());
        let f = detect(&snap(Some(0x10000)), &snap(Some(0x10000)), &tl);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, Severity::Warning);
        assert_eq!(f[0].kind, FindingKind::Undervoltage);
        assert!(detect(&snap(Some(0)), &snap(Some(0)), &tl).is_empty());
        assert!(detect(&snap(None), &snap(None), &tl).is_empty());
    }

    #[test]
    fn now_bits_in_samples_count_even_when_snapshots_miss_them() {
        let mut tl = Timeline::new(TimelineHeader::default());
        for (t, v) in [(1.0, 0u32), (2.0, 0x20002), (3.0, 0x20000)] {
            tl.samples.push(Sample {
                t,
                rpi: Some(RpiSample {
                    throttled: Some(v),
                    ..Default::default()
                }),
                ..Default::default()
            });
        }
        let f = detect(&snap(None), &snap(None), &tl);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].kind, FindingKind::FrequencyCapping);
        assert_eq!(f[0].severity, Severity::Critical);
        assert!(f[0].evidence[0].contains("t=2.0s"), "{:?}", f[0].evidence);
    }
}
