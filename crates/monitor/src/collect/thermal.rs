//! Temperatures (every thermal zone and hwmon temperature) and hwmon voltages, currents and
//! power, with the chosen SoC sensor.

use crate::reader::ints::{IntFiles, IntId};
use crate::warm::warm_slice;
use truebench_host::inventory::HwmonChip;
use truebench_host::{Host, Inventory};
use truebench_model::timeline::{Sample, TimelineHeader};

/// The file behind one temperature or electrical reading.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Origin {
    /// `thermal_zone<zone>` with its `type`.
    Zone {
        zone: String,
        kind: String,
    },
    Hwmon {
        /// node_exporter-style chip id (the device behind the chip, sanitised).
        chip: String,
        chip_name: String,
        /// `temp1`, `in0`…
        sensor: String,
        label: Option<String>,
    },
    Other(String),
}

/// node_exporter names a hwmon chip after the device it hangs off (`platform_coretemp_0`,
/// `0000:00:18_3`); without one, after the hwmon directory.
pub(crate) fn chip_id(chip: &HwmonChip) -> String {
    let raw = chip.device.as_deref().unwrap_or(&chip.dir);
    raw.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == ':' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// hwmon kinds the sampler records, with scale to the sample's unit and the unit's name.
const ELECTRICAL: &[(&str, f64, &str)] =
    &[("in", 1e3, "V"), ("curr", 1e3, "A"), ("power", 1e6, "W")];

pub(crate) struct Thermal {
    /// `(index into temps_c, file)`.
    temps: Vec<(usize, IntId)>,
    /// `(index into electrical, file, divisor to the unit)`.
    electrical: Vec<(usize, IntId, f64)>,
    soc_temp: Option<usize>,
    pub(crate) n_temps: usize,
    pub(crate) n_electrical: usize,
    /// Where each `Sample::temps_c` / `Sample::electrical` entry comes from (exporter labels).
    pub(crate) temp_origin: Vec<Origin>,
    /// `(hwmon kind, origin)` of each electrical reading.
    pub(crate) electrical_origin: Vec<(String, Origin)>,
}

impl Thermal {
    /// Prefetch the heap the next tick reads (see `warm::warm_slice`).
    #[inline]
    pub(crate) fn warm(&self) {
        warm_slice(&self.temps);
        warm_slice(&self.electrical);
    }

    pub(crate) fn new(
        host: &Host,
        inv: &Inventory,
        ints: &mut IntFiles,
        header: &mut TimelineHeader,
    ) -> Thermal {
        let mut t = Thermal {
            temps: Vec::new(),
            electrical: Vec::new(),
            soc_temp: None,
            n_temps: 0,
            n_electrical: 0,
            temp_origin: Vec::new(),
            electrical_origin: Vec::new(),
        };
        // Temperatures: every thermal zone, then every hwmon temp input.
        let chosen = inv.thermal.chosen.as_ref().map(|c| c.path.as_str());
        for z in &inv.thermal.zones {
            let rel = format!("{}/temp", z.path);
            let idx = header.temp_sensors.len();
            t.temp_origin.push(Origin::Zone {
                zone: z
                    .name
                    .strip_prefix("thermal_zone")
                    .unwrap_or(&z.name)
                    .to_string(),
                kind: z.kind.clone().unwrap_or_default(),
            });
            header
                .temp_sensors
                .push(z.kind.clone().unwrap_or_else(|| z.name.clone()));
            if chosen == Some(rel.as_str()) {
                t.soc_temp = Some(idx);
            }
            // ACPI zones evaluate AML (often through the embedded controller) on every read.
            let slow = z.kind.as_deref() == Some("acpitz");
            t.temps.push((idx, ints.add(host, &rel, slow)));
        }
        for chip in &inv.thermal.hwmon {
            let chip_name = chip.name.clone().unwrap_or_else(|| chip.dir.clone());
            for s in &chip.sensors {
                let name = format!("{chip_name} {}", s.label.as_deref().unwrap_or(&s.input));
                let origin = Origin::Hwmon {
                    chip: chip_id(chip),
                    chip_name: chip_name.clone(),
                    sensor: s.input.clone(),
                    label: s.label.clone(),
                };
                // hwmon chips answer over I2C/PMBus or NVMe admin commands: slow.
                if s.kind == "temp" {
                    let idx = header.temp_sensors.len();
                    header.temp_sensors.push(name);
                    t.temp_origin.push(origin);
                    if chosen == Some(s.path.as_str()) {
                        t.soc_temp = Some(idx);
                    }
                    t.temps.push((idx, ints.add(host, &s.path, true)));
                } else if let Some((_, div, unit)) = ELECTRICAL.iter().find(|e| e.0 == s.kind) {
                    let idx = header.electrical.len();
                    header.electrical.push((name, unit.to_string()));
                    t.electrical_origin.push((s.kind.clone(), origin));
                    t.electrical
                        .push((idx, ints.add(host, &s.path, true), *div));
                }
            }
        }
        header.soc_sensor = t.soc_temp.map(|i| header.temp_sensors[i].clone());
        // A chosen sensor outside the lists above (should not happen) still gets read.
        if let (None, Some(c)) = (t.soc_temp, &inv.thermal.chosen) {
            let idx = header.temp_sensors.len();
            header.temp_sensors.push(c.name.clone());
            t.temp_origin.push(Origin::Other(c.path.clone()));
            t.soc_temp = Some(idx);
            header.soc_sensor = Some(c.name.clone());
            t.temps.push((idx, ints.add(host, &c.path, false)));
        }
        t.n_temps = header.temp_sensors.len();
        t.n_electrical = header.electrical.len();
        t
    }

    #[link_section = "truebench_tick"]
    pub(crate) fn sample(&self, ints: &IntFiles, s: &mut Sample) {
        // Unconnected inputs read -273 or 255 °C; a sample records what the file says (the
        // inventory's choice of SoC sensor already skipped implausible ones).
        for &(i, id) in &self.temps {
            s.temps_c[i] = ints.get(id).map(|v| v as f64 / 1e3);
        }
        for &(i, id, div) in &self.electrical {
            s.electrical[i] = ints.get(id).map(|v| v as f64 / div);
        }
        s.soc_temp_c = self.soc_temp.and_then(|i| s.temps_c[i]);
    }
}
