//! Power per source: RAPL energy counters (powercap), hwmon `power*` readings, hwmon
//! `energy*` counters, and hwmon voltage × current of the same channel where a chip measures
//! both but reports no power. Units follow the kernel's hwmon sysfs ABI: µW, µJ, mV, mA.
//!
//! Counters become the mean power over each interval; readings are taken as they are. The
//! sum of the RAPL package zones is also `Sample::rapl_watts`. Every read (a sample's, or
//! one at a phase boundary) also gives each source's point for the timeline's power series:
//! watts, or joules counted since the first read (see `timeline::series`).

use crate::reader::bytes::energy_delta_uj;
use crate::reader::ints::{IntFiles, IntId};
use crate::warm::warm_slice;
use truebench_host::inventory::{HwmonChip, HwmonSensor, Missing};
use truebench_host::{Host, Inventory};
use truebench_model::timeline::{PowerKind, PowerSource, Sample};

enum Read {
    /// An energy counter, µJ, wrapping at `max` when known.
    Counter {
        file: IntId,
        max: Option<u64>,
        last: Option<u64>,
    },
    /// A power reading, µW.
    Micro(IntId),
    /// mV × mA.
    VoltsAmps(IntId, IntId),
}

struct Source {
    read: Read,
    /// Counted in `Sample::rapl_watts` (a RAPL package zone).
    package: bool,
    /// Joules counted since the first read (counters).
    joules: f64,
    /// The latest read's point for the series: watts, or `joules`; None when it failed.
    point: Option<f64>,
    /// A counter's `joules` at the previous sample, None when a read since then failed.
    at_sample: Option<f64>,
}

impl Source {
    fn new(read: Read, package: bool) -> Source {
        Source {
            read,
            package,
            joules: 0.0,
            point: None,
            at_sample: None,
        }
    }
}

pub(crate) struct Power {
    sources: Vec<Source>,
    pub(crate) header: Vec<PowerSource>,
    pub(crate) missing: Vec<Missing>,
}

/// `curr2` → 2.
fn channel(input: &str, kind: &str) -> Option<u32> {
    input.strip_prefix(kind)?.parse().ok()
}

/// The voltage channel that goes with current channel `curr`: the one with the same label;
/// unlabelled, the same index — when that voltage channel carries a label (rails named on
/// their voltage channel, as the INA3221 on Jetson boards does) or when the chip labels no
/// voltage channel at all (INA219-style). An unlabelled channel on a chip that labels its
/// rails is something else (the INA3221's shunt voltages in4-in6 beside its sum current
/// curr4), so it is not paired.
pub(crate) fn paired_voltage<'a>(
    chip: &'a HwmonChip,
    curr: &HwmonSensor,
) -> Option<&'a HwmonSensor> {
    let ins = || chip.sensors.iter().filter(|s| s.kind == "in");
    if let Some(l) = &curr.label {
        if let Some(v) = ins().find(|s| s.label.as_ref() == Some(l)) {
            return Some(v);
        }
    }
    let n = channel(&curr.input, "curr")?;
    let v = ins().find(|s| channel(&s.input, "in") == Some(n))?;
    let any_labelled = ins().any(|s| s.label.is_some());
    (v.label.is_some() || !any_labelled).then_some(v)
}

impl Power {
    /// Prefetch the heap the next tick reads (see `warm::warm_slice`).
    #[inline]
    pub(crate) fn warm(&self) {
        warm_slice(&self.sources);
    }

    pub(crate) fn new(host: &Host, inv: &Inventory, ints: &mut IntFiles) -> Power {
        let mut p = Power {
            sources: Vec::new(),
            header: Vec::new(),
            missing: Vec::new(),
        };
        let zones = host.powercap_zones();
        for z in &zones {
            if let Some(reason) = &z.unreadable {
                p.missing.push(Missing {
                    what: format!("power: {}", z.label()),
                    reason: reason.clone(),
                });
                continue;
            }
            let file = z.energy_file();
            let id = ints.add(host, &file, false);
            p.sources.push(Source::new(
                Read::Counter {
                    file: id,
                    max: z.max_energy_range_uj,
                    last: None,
                },
                // psys covers the whole platform, packages included: not added to them;
                // `intel-rapl-mmio` repeats the package counter through MMIO.
                z.parent.is_none() && !z.is_platform() && z.id.starts_with("intel-rapl:"),
            ));
            p.header.push(PowerSource {
                name: z.label(),
                kind: PowerKind::Rapl,
                files: vec![file],
                part_of: z
                    .parent
                    .as_ref()
                    .and_then(|par| zones.iter().find(|x| &x.id == par))
                    .map(|x| x.label()),
            });
        }
        for chip in &inv.thermal.hwmon {
            p.add_hwmon(host, chip, ints);
        }
        if p.header.is_empty() && p.missing.is_empty() {
            p.missing.push(Missing {
                what: "power".into(),
                reason: "no powercap energy counter (RAPL) and no hwmon power, energy or \
                         current and voltage channel"
                    .into(),
            });
        }
        p
    }

    fn add_hwmon(&mut self, host: &Host, chip: &HwmonChip, ints: &mut IntFiles) {
        let chip_name = chip.name.clone().unwrap_or_else(|| chip.dir.clone());
        let name =
            |s: &HwmonSensor| format!("{chip_name} {}", s.label.as_deref().unwrap_or(&s.input));
        // hwmon chips answer over I2C/PMBus: slow files, shared with the thermal collector.
        for s in &chip.sensors {
            let (read, kind, files, label) = match s.kind.as_str() {
                "power" => (
                    Read::Micro(ints.add(host, &s.path, true)),
                    PowerKind::HwmonPower,
                    vec![s.path.clone()],
                    name(s),
                ),
                "energy" => (
                    Read::Counter {
                        file: ints.add(host, &s.path, true),
                        max: None,
                        last: None,
                    },
                    PowerKind::HwmonEnergy,
                    vec![s.path.clone()],
                    name(s),
                ),
                "curr" => {
                    // The chip's own power reading of this channel is better than V × A.
                    let n = channel(&s.input, "curr");
                    let has_power = chip
                        .sensors
                        .iter()
                        .any(|x| x.kind == "power" && channel(&x.input, "power") == n);
                    let Some(v) = paired_voltage(chip, s).filter(|_| !has_power) else {
                        continue;
                    };
                    let label = match v.label.as_ref().or(s.label.as_ref()) {
                        Some(l) => format!("{chip_name} {l}"),
                        None => format!("{chip_name} {}×{}", v.input, s.input),
                    };
                    (
                        Read::VoltsAmps(
                            ints.add(host, &v.path, true),
                            ints.add(host, &s.path, true),
                        ),
                        PowerKind::HwmonVoltsAmps,
                        vec![v.path.clone(), s.path.clone()],
                        label,
                    )
                }
                _ => continue,
            };
            self.sources.push(Source::new(read, false));
            self.header.push(PowerSource {
                name: label,
                kind,
                files,
                part_of: None,
            });
        }
    }

    fn energy(ints: &IntFiles, id: IntId) -> Option<u64> {
        ints.get(id).and_then(|v| u64::try_from(v).ok())
    }

    /// Take the counters' baselines (the integer files were just read): the first points.
    pub(crate) fn baseline(&mut self, ints: &IntFiles) {
        self.read(ints);
        for s in &mut self.sources {
            s.at_sample = s.point;
        }
    }

    /// Read every source (the integer files were just read): counters advance, and
    /// `points()` gives each source's reading for the series.
    #[link_section = "truebench_tick"]
    pub(crate) fn read(&mut self, ints: &IntFiles) {
        for src in &mut self.sources {
            let Source {
                read,
                joules,
                point,
                at_sample,
                ..
            } = src;
            *point = match read {
                Read::Counter { file, max, last } => {
                    let now = Self::energy(ints, *file);
                    let p = match (*last, now) {
                        (Some(l), Some(n)) => energy_delta_uj(l, n, *max).map(|uj| {
                            *joules += uj as f64 / 1e6;
                            *joules
                        }),
                        // The first read, or the first after a failed one: a new run of
                        // readings starts here.
                        (None, Some(_)) => Some(*joules),
                        _ => None,
                    };
                    // A failed read restarts the counter: the time since the last good read
                    // is unknown, never credited with two intervals' energy.
                    *last = now;
                    p
                }
                Read::Micro(id) => ints.get(*id).map(|uw| uw as f64 / 1e6),
                Read::VoltsAmps(v, a) => ints
                    .get(*v)
                    .zip(ints.get(*a))
                    .map(|(mv, ma)| mv as f64 * ma as f64 / 1e6),
            };
            if point.is_none() {
                *at_sample = None;
            }
        }
    }

    /// Each source's point from the latest `read`, in header order.
    pub(crate) fn points(&self) -> impl Iterator<Item = Option<f64>> + '_ {
        self.sources.iter().map(|s| s.point)
    }

    /// Read, then fill `rapl_watts` and `out` (one entry per source); `dt`: seconds since
    /// the previous sample.
    #[link_section = "truebench_tick"]
    pub(crate) fn sample(
        &mut self,
        ints: &IntFiles,
        dt: f64,
        s: &mut Sample,
        out: &mut Vec<Option<f64>>,
    ) {
        self.read(ints);
        out.clear();
        let mut package_w = 0.0;
        let mut packages = 0;
        let mut package_ok = true;
        for src in &mut self.sources {
            let w = match &src.read {
                Read::Counter { .. } => {
                    let w = match (src.at_sample, src.point) {
                        (Some(l), Some(n)) if dt > 0.0 => Some((n - l) / dt),
                        _ => None,
                    };
                    src.at_sample = src.point;
                    w
                }
                _ => src.point,
            };
            if src.package {
                packages += 1;
                match w {
                    Some(w) => package_w += w,
                    None => package_ok = false,
                }
            }
            out.push(w);
        }
        s.rapl_watts = (packages > 0 && package_ok).then_some(package_w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sensor(kind: &str, input: &str, label: Option<&str>) -> HwmonSensor {
        HwmonSensor {
            kind: kind.into(),
            input: input.into(),
            label: label.map(str::to_string),
            value: None,
            path: format!("sys/class/hwmon/hwmon0/{input}_input"),
        }
    }

    fn chip(sensors: Vec<HwmonSensor>) -> HwmonChip {
        HwmonChip {
            dir: "hwmon0".into(),
            path: "sys/class/hwmon/hwmon0".into(),
            name: Some("ina3221".into()),
            device: None,
            sensors,
            alarms: vec![],
        }
    }

    #[test]
    fn voltage_channels_pair_by_label_then_by_labelled_index() {
        // Jetson-style INA3221: rails labelled on in1-in3, shunt voltages in4-in6 unlabelled,
        // curr4 the sum of the three currents.
        let c = chip(vec![
            sensor("in", "in1", Some("VDD_IN")),
            sensor("in", "in2", Some("VDD_CPU_GPU_CV")),
            sensor("in", "in4", None),
            sensor("curr", "curr1", None),
            sensor("curr", "curr2", Some("VDD_CPU_GPU_CV")),
            sensor("curr", "curr4", None),
        ]);
        assert_eq!(paired_voltage(&c, &c.sensors[3]).unwrap().input, "in1");
        assert_eq!(paired_voltage(&c, &c.sensors[4]).unwrap().input, "in2");
        assert!(paired_voltage(&c, &c.sensors[5]).is_none());
        // INA219-style: nothing labelled, same index.
        let c = chip(vec![
            sensor("in", "in0", None),
            sensor("in", "in1", None),
            sensor("curr", "curr1", None),
        ]);
        assert_eq!(paired_voltage(&c, &c.sensors[2]).unwrap().input, "in1");
        let c = chip(vec![sensor("curr", "curr1", None)]);
        assert!(paired_voltage(&c, &c.sensors[0]).is_none());
    }
}
