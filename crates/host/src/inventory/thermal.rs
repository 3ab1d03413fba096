//! Thermal zones, hwmon chips, and the choice of "the SoC temperature".

use super::{note, Missing};
use crate::knowledge::{self, glob_match};
use crate::Host;
use serde::{Deserialize, Serialize};

/// Readings outside this range are sensor garbage (unconnected inputs read -273 or 255 °C).
const PLAUSIBLE_C: std::ops::RangeInclusive<f64> = -40.0..=150.0;

/// A thermal zone's trip point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TripPoint {
    /// `trip_point_N_type` (`passive`, `active`, `hot`, `critical`); None when unreadable.
    pub kind: Option<String>,
    /// `trip_point_N_temp`, °C; None when unreadable.
    pub temp_c: Option<f64>,
    /// `trip_point_N_hyst`, °C; None when unreadable.
    pub hyst_c: Option<f64>,
}

/// One `sys/class/thermal/thermal_zone*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ThermalZone {
    /// `thermal_zone0`
    pub name: String,
    /// Path of the zone directory, relative to the root.
    pub path: String,
    /// The zone's `type` (`cpu-thermal`, `x86_pkg_temp`); None when unreadable.
    pub kind: Option<String>,
    /// Temperature when probed, °C; None when unreadable or implausible.
    pub temp_c: Option<f64>,
    /// The zone's governor (`step_wise`); None when unreadable.
    pub policy: Option<String>,
    /// `enabled` or `disabled`; None when unreadable.
    pub mode: Option<String>,
    /// Its trip points, in file order.
    pub trips: Vec<TripPoint>,
}

/// One input of an hwmon chip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HwmonSensor {
    /// temp, in, curr, power, fan, energy, humidity
    pub kind: String,
    /// File stem, e.g. `temp1`.
    pub input: String,
    /// Its `_label` file (`Tctl`, `VDD_IN`); None without one.
    pub label: Option<String>,
    /// In °C, V, A, W, RPM, J or %RH.
    pub value: Option<f64>,
    /// Path of the value file, relative to the root.
    pub path: String,
}

/// One `sys/class/hwmon/hwmon*` chip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HwmonChip {
    /// `hwmon0`
    pub dir: String,
    /// Path of the chip's directory, relative to the root.
    pub path: String,
    /// The chip's `name` (`k10temp`, `ina3221`); None when unreadable.
    pub name: Option<String>,
    /// The device behind the chip (`nvme0`, `0000:00:18.3`, `cpu_thermal`), when linked.
    pub device: Option<String>,
    /// Its readable inputs.
    pub sensors: Vec<HwmonSensor>,
    /// Alarm flags (`in0_lcrit_alarm` = 1 on a Raspberry Pi with under-voltage).
    pub alarms: Vec<(String, u64)>,
}

/// The sensor taken as "the SoC temperature".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ChosenSensor {
    /// "zone" or "hwmon"
    pub kind: String,
    /// Zone type or `chip:label`.
    pub name: String,
    /// The file holding millidegrees, relative to the root.
    pub path: String,
    /// Its temperature when probed, °C.
    pub temp_c: f64,
    /// Why this sensor won (the matching rule and the sensor's type).
    pub reason: String,
}

/// Temperature and other sensors.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Thermal {
    /// The SoC temperature sensor; None without a plausible reading.
    pub chosen: Option<ChosenSensor>,
    /// Every thermal zone.
    pub zones: Vec<ThermalZone>,
    /// Every hwmon chip.
    pub hwmon: Vec<HwmonChip>,
}

fn milli(v: Option<i64>) -> Option<f64> {
    v.map(|m| m as f64 / 1000.0)
}

fn zones(host: &Host) -> Vec<ThermalZone> {
    let base = "sys/class/thermal";
    host.list(base)
        .into_iter()
        .filter(|n| n.starts_with("thermal_zone"))
        .map(|name| {
            let d = format!("{base}/{name}");
            let mut trips = Vec::new();
            for i in 0..64 {
                let kind = host.read_trimmed(format!("{d}/trip_point_{i}_type"));
                let temp = milli(host.read_i64(format!("{d}/trip_point_{i}_temp")));
                if kind.is_none() && temp.is_none() {
                    break;
                }
                trips.push(TripPoint {
                    kind,
                    temp_c: temp,
                    hyst_c: milli(host.read_i64(format!("{d}/trip_point_{i}_hyst"))),
                });
            }
            ThermalZone {
                kind: host.read_trimmed(format!("{d}/type")),
                temp_c: milli(host.read_i64(format!("{d}/temp"))),
                policy: host.read_trimmed(format!("{d}/policy")),
                mode: host.read_trimmed(format!("{d}/mode")),
                trips,
                path: d,
                name,
            }
        })
        .collect()
}

/// hwmon sensor file prefixes with their scale to SI units.
const HWMON_KINDS: &[(&str, f64)] = &[
    ("temp", 1e-3),
    ("in", 1e-3),
    ("curr", 1e-3),
    ("power", 1e-6),
    ("energy", 1e-6),
    ("fan", 1.0),
    ("humidity", 1e-3),
];

fn hwmon(host: &Host) -> Vec<HwmonChip> {
    let base = "sys/class/hwmon";
    host.list(base)
        .into_iter()
        .filter(|n| n.starts_with("hwmon"))
        .map(|dir| {
            let d = format!("{base}/{dir}");
            // Old kernels keep the attributes in hwmonN/device/.
            let attr_dir =
                if host.exists(format!("{d}/name")) || !host.exists(format!("{d}/device/name")) {
                    d.clone()
                } else {
                    format!("{d}/device")
                };
            let files = host.list(&attr_dir);
            let mut sensors = Vec::new();
            let mut alarms = Vec::new();
            for f in &files {
                if let Some(stem) = f.strip_suffix("_input").or_else(|| {
                    f.strip_suffix("_average").filter(|s| {
                        s.starts_with("power") && !files.contains(&format!("{s}_input"))
                    })
                }) {
                    let Some((kind, scale)) = HWMON_KINDS.iter().find(|(k, _)| {
                        stem.strip_prefix(k)
                            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                    }) else {
                        continue;
                    };
                    let path = format!("{attr_dir}/{f}");
                    sensors.push(HwmonSensor {
                        kind: kind.to_string(),
                        input: stem.to_string(),
                        label: host.read_trimmed(format!("{attr_dir}/{stem}_label")),
                        value: host.read_i64(&path).map(|v| v as f64 * scale),
                        path,
                    });
                } else if f.ends_with("_alarm") {
                    if let Some(v) = host.read_u64(format!("{attr_dir}/{f}")) {
                        alarms.push((f.clone(), v));
                    }
                }
            }
            let device = host
                .read_link(format!("{d}/device"))
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
            HwmonChip {
                name: host.read_trimmed(format!("{attr_dir}/name")),
                path: d,
                dir,
                device,
                sensors,
                alarms,
            }
        })
        .collect()
}

/// Score every readable sensor with `thermal_sources.tsv` and pick the best.
pub fn choose(zones: &[ThermalZone], chips: &[HwmonChip]) -> Option<ChosenSensor> {
    let rules = knowledge::thermal_rules();
    let score = |kind: &str, name: &str| -> (u32, String) {
        rules
            .iter()
            .filter(|r| r.kind == kind && glob_match(&r.pattern, name))
            .map(|r| (r.score, r.why.clone()))
            .max_by_key(|(s, _)| *s)
            .unwrap_or((1, "no preferred sensor found; first readable one".into()))
    };
    let mut best: Option<(u32, ChosenSensor)> = None;
    let mut consider = |s: u32, c: ChosenSensor| {
        if best.as_ref().is_none_or(|(b, _)| s > *b) {
            best = Some((s, c));
        }
    };
    for z in zones {
        let (Some(t), Some(kind)) = (z.temp_c, &z.kind) else {
            continue;
        };
        if !PLAUSIBLE_C.contains(&t) {
            continue;
        }
        let (s, why) = score("zone", kind);
        consider(
            s,
            ChosenSensor {
                kind: "zone".into(),
                name: kind.clone(),
                path: format!("{}/temp", z.path),
                temp_c: t,
                reason: format!("{why} (thermal zone type \"{kind}\")"),
            },
        );
    }
    for c in chips {
        let chip = c.name.clone().unwrap_or_default();
        for s in c.sensors.iter().filter(|s| s.kind == "temp") {
            let Some(t) = s.value.filter(|t| PLAUSIBLE_C.contains(t)) else {
                continue;
            };
            let label = s.label.clone().unwrap_or_default();
            let name = format!("{chip}:{label}");
            let (sc, why) = score("hwmon", &name);
            consider(
                sc,
                ChosenSensor {
                    kind: "hwmon".into(),
                    name: if label.is_empty() {
                        format!("{chip} {}", s.input)
                    } else {
                        format!("{chip} {label}")
                    },
                    path: s.path.clone(),
                    temp_c: t,
                    reason: format!("{why} (hwmon chip \"{chip}\")"),
                },
            );
        }
    }
    best.map(|(_, c)| c)
}

pub(super) fn probe(host: &Host, missing: &mut Vec<Missing>) -> Thermal {
    let zones = zones(host);
    let hwmon = hwmon(host);
    let chosen = choose(&zones, &hwmon);
    if chosen.is_none() {
        note(
            missing,
            "thermal",
            if zones.is_empty() && hwmon.is_empty() {
                "no thermal zones in sys/class/thermal and no hwmon chips in sys/class/hwmon"
                    .to_string()
            } else {
                "no thermal zone or hwmon temperature gave a plausible reading".to_string()
            },
        );
    }
    Thermal {
        chosen,
        zones,
        hwmon,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone(i: usize, kind: &str, t: f64) -> ThermalZone {
        ThermalZone {
            name: format!("thermal_zone{i}"),
            path: format!("sys/class/thermal/thermal_zone{i}"),
            kind: Some(kind.into()),
            temp_c: Some(t),
            policy: None,
            mode: None,
            trips: vec![],
        }
    }

    #[test]
    fn soc_zone_beats_acpitz_and_garbage_is_skipped() {
        let z = [
            zone(0, "acpitz", 30.0),
            zone(1, "soc-thermal", 45.0),
            zone(2, "cpu-thermal", 255.0),
        ];
        let c = choose(&z, &[]).unwrap();
        assert_eq!(c.name, "soc-thermal");
        assert_eq!(c.path, "sys/class/thermal/thermal_zone1/temp");
    }

    #[test]
    fn first_of_equal_scores_wins_and_last_resort_is_explained() {
        let z = [zone(0, "cpu0-thermal", 40.0), zone(1, "cpu1-thermal", 41.0)];
        assert_eq!(choose(&z, &[]).unwrap().name, "cpu0-thermal");
        let z = [zone(0, "battery", 30.0)];
        assert!(choose(&z, &[]).unwrap().reason.contains("first readable"));
    }

    #[test]
    fn k10temp_tctl() {
        let chip = HwmonChip {
            dir: "hwmon2".into(),
            path: "sys/class/hwmon/hwmon2".into(),
            name: Some("k10temp".into()),
            device: None,
            sensors: vec![HwmonSensor {
                kind: "temp".into(),
                input: "temp1".into(),
                label: Some("Tctl".into()),
                value: Some(51.5),
                path: "sys/class/hwmon/hwmon2/temp1_input".into(),
            }],
            alarms: vec![],
        };
        let c = choose(&[zone(0, "acpitz", 30.0)], &[chip]).unwrap();
        assert_eq!(c.name, "k10temp Tctl");
        assert_eq!(c.kind, "hwmon");
    }
}
