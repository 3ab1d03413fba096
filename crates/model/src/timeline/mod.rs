//! The timeline: samples taken by the sampler, with phase marks.
//!
//! This module is the contract between the sampler (which fills it) and the detectors and
//! renderers (which read it). Indexes into per-cluster and per-sensor vectors follow the
//! `TimelineHeader`, fixed when the sampler starts.

mod energy;
mod energy_report;
pub mod extra;
mod line;
pub mod series;

pub use line::json_line;
pub use series::PowerSeries;

pub use energy_report::{best_power_source, per_watt_unit, EnergyReport, PerWatt, PhaseEnergyRow};

pub use extra::{
    CpuSoftirq, DiskDelta, ExtraHeader, ExtraSample, IdleDelta, IdleGroupHeader, MemorySample,
    NetDelta, PhaseEnergy, PowerKind, PowerSource, PressureSample, SoftirqSample, SourceEnergy,
};
use serde::{Deserialize, Serialize};

/// %-split of CPU time over the interval before the sample, from `/proc/stat` deltas, over all
/// online CPUs (100 = every CPU busy). `cpu` is everything but idle and iowait.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CpuPct {
    /// Busy: everything but idle and iowait, %.
    pub cpu: f64,
    /// Kernel (system) time, %.
    pub sys: f64,
    /// User time, %.
    pub usr: f64,
    /// User time at a positive nice value, %.
    pub nice: f64,
    /// Time idle waiting for I/O (iowait), %.
    pub io: f64,
    /// irq + softirq, %.
    pub irq: f64,
    /// Time taken by the hypervisor for other guests (steal), %.
    pub steal: f64,
}

/// Raspberry Pi firmware readings (`vcgencmd`), taken at a slower cadence.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RpiSample {
    /// `measure_clock arm`, MHz: the real clock the firmware runs.
    pub arm_mhz: Option<f64>,
    /// `measure_volts core`, V.
    pub core_volts: Option<f64>,
    /// `get_throttled` bits.
    pub throttled: Option<u32>,
    /// Pi 5 `pmic_read_adc`: total input power estimate, W.
    pub pmic_watts: Option<f64>,
    /// Pi 5 `pmic_read_adc` `EXT5V_V`: the supply voltage, V (sbc-bench's `DC(V)`).
    #[serde(default)]
    pub input_volts: Option<f64>,
}

/// One sample. `None` = not available on this machine (or the read timed out).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Sample {
    /// Seconds since the timeline started (monotonic clock).
    pub t: f64,
    /// Wall-clock time, Unix milliseconds (for `HH:MM:SS` display).
    pub unix_ms: i64,
    /// Current clock per cluster as the kernel reports it (`cpuinfo_cur_freq`, else
    /// `scaling_cur_freq`), MHz. Index = cluster id.
    pub cluster_mhz: Vec<Option<u32>>,
    /// Measured (effective) clock per cluster from cycle counters, MHz, where available.
    pub measured_mhz: Vec<Option<f64>>,
    /// The 1-minute load average (`/proc/loadavg`).
    pub load1: Option<f64>,
    /// How CPU time was spent over the interval before the sample; None for the first
    /// sample (no interval yet) or when `/proc/stat` was unreadable.
    pub cpu: Option<CpuPct>,
    /// The chosen SoC temperature, °C.
    pub soc_temp_c: Option<f64>,
    /// Every temperature sensor, °C. Index = `TimelineHeader::temp_sensors`.
    pub temps_c: Vec<Option<f64>>,
    /// hwmon voltages (V), currents (A) and power (W). Index = `TimelineHeader::electrical`.
    pub electrical: Vec<Option<f64>>,
    /// RAPL package power over the interval, W (energy_uj delta, wrap-around handled).
    pub rapl_watts: Option<f64>,
    /// Swap in use, kB (`/proc/meminfo` SwapTotal − SwapFree).
    pub swap_used_kb: Option<u64>,
    /// CPUs online (`sys/devices/system/cpu/online`).
    pub cpus_online: Option<u32>,
    /// The latest Raspberry Pi firmware readings; None on other machines (or before the
    /// first).
    pub rpi: Option<RpiSample>,
}

/// What the per-sample vectors mean; fixed for the life of a timeline.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TimelineHeader {
    /// Cluster labels in cluster-id order, e.g. `cpu0-cpu3 (Cortex-A55)`.
    pub clusters: Vec<String>,
    /// Temperature sensor names (zone type or `chip label`), matching `Sample::temps_c`.
    pub temp_sensors: Vec<String>,
    /// `(name, unit)` of each electrical reading, matching `Sample::electrical`.
    pub electrical: Vec<(String, String)>,
    /// Name of the chosen SoC temperature sensor.
    pub soc_sensor: Option<String>,
    /// Interval the sampler was asked for, seconds.
    pub interval_s: f64,
    /// Where measured clocks come from (`perf_event cycles`, `APERF/MPERF`…) or why none.
    pub measured_clock_source: String,
}

/// A named phase: `[start, end)` in timeline seconds, with the parallelism it is expected
/// to use (1 for a single-threaded benchmark, N for all cores; None = unknown). `Default` so
/// builders can write `..Default::default()` and keep compiling when a field is added.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Phase {
    /// The phase's name (as the envelope's `PhaseResult::name`).
    pub name: String,
    /// Start, timeline seconds.
    pub start: f64,
    /// End, timeline seconds; None while it is open.
    pub end: Option<f64>,
    /// Threads it keeps busy; None: unknown (activity not judged against it).
    pub threads: Option<u32>,
    /// The phase's own work runs in the kernel (TCP, storage): its `%sys` is the
    /// measurement, not a disturbance.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub kernel_work: bool,
}

/// Every sample of a measurement with its phase marks, and the readings beside them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Timeline {
    /// What the per-sample vectors mean.
    pub header: TimelineHeader,
    /// The samples in time order.
    pub samples: Vec<Sample>,
    /// The phases in the order they began.
    pub phases: Vec<Phase>,
    /// What `extra` holds (power sources, disks, interfaces…).
    #[serde(default, skip_serializing_if = "ExtraHeader::is_empty")]
    pub extra_header: ExtraHeader,
    /// Empty, or one entry per sample (`extra[i]` was read with `samples[i]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra: Vec<ExtraSample>,
    /// Every reading of each power source with its own time (index = `extra_header.power`):
    /// what a phase's energy is integrated from (see `series`). Empty in documents written
    /// before it, whose energy comes from the samples' readings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub power_readings: Vec<PowerSeries>,
    /// Energy per power source of each ended phase (see `fill_energy`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub energy: Vec<PhaseEnergy>,
}

impl Timeline {
    /// An empty timeline with `header`.
    pub fn new(header: TimelineHeader) -> Self {
        Timeline {
            header,
            ..Default::default()
        }
    }

    /// Start a phase at time `t`, ending the open one.
    pub fn begin_phase(&mut self, name: &str, t: f64, threads: Option<u32>) {
        self.end_phase(t);
        self.phases.push(Phase {
            name: name.to_string(),
            start: t,
            end: None,
            threads,
            kernel_work: false,
        });
    }

    /// Mark the open phase as doing its work in the kernel (see [`Phase::kernel_work`]).
    pub fn set_kernel_work(&mut self) {
        if let Some(p) = self.phases.last_mut().filter(|p| p.end.is_none()) {
            p.kernel_work = true;
        }
    }

    /// End the open phase (if any) at time `t`.
    pub fn end_phase(&mut self, t: f64) {
        if let Some(p) = self.phases.last_mut() {
            if p.end.is_none() {
                p.end = Some(t);
            }
        }
    }

    /// Samples taken during a phase (those whose interval ended inside it).
    pub fn samples_in(&self, phase: &Phase) -> &[Sample] {
        let end = phase.end.unwrap_or(f64::INFINITY);
        let lo = self.samples.partition_point(|s| s.t < phase.start);
        // Samples out of order (an imported log whose clock went back, found by fuzzing) or a
        // phase ending before it starts: nothing, never a slice that runs backwards.
        let hi = self.samples.partition_point(|s| s.t < end).max(lo);
        &self.samples[lo..hi]
    }

    /// The extra readings of the samples `samples_in(phase)` returns (empty when the
    /// timeline has none).
    pub fn extra_in(&self, phase: &Phase) -> &[ExtraSample] {
        if self.extra.len() != self.samples.len() {
            return &[];
        }
        let end = phase.end.unwrap_or(f64::INFINITY);
        let lo = self.samples.partition_point(|s| s.t < phase.start);
        let hi = self.samples.partition_point(|s| s.t < end).max(lo);
        &self.extra[lo..hi]
    }

    /// The first phase that is `phase`.
    pub fn phase(&self, phase: impl crate::PhaseId) -> Option<&Phase> {
        self.phases.iter().find(|p| phase.is(&p.name))
    }
}

#[cfg(test)]
mod tests {
    /// Found by fuzzing sbc-bench logs: samples whose clock goes back (a log's monitoring
    /// lines out of order) give a phase no samples instead of a slice that runs backwards.
    #[test]
    fn samples_out_of_order_give_no_samples_not_a_panic() {
        let mut tl = super::Timeline::default();
        for t in [5.0, 9.0, 1.0, 2.0] {
            tl.samples.push(super::Sample {
                t,
                ..Default::default()
            });
        }
        tl.begin_phase("p", 3.0, None);
        tl.end_phase(4.0);
        let p = tl.phases[0].clone();
        assert!(tl.samples_in(&p).len() <= 4);
        let _ = tl.extra_in(&p);
        let backwards = super::Phase {
            start: 8.0,
            end: Some(1.0),
            ..p
        };
        assert!(tl.samples_in(&backwards).is_empty());
    }

    use super::*;

    #[test]
    fn phases_slice_samples() {
        let mut tl = Timeline::new(TimelineHeader::default());
        for i in 0..10 {
            tl.samples.push(Sample {
                t: i as f64,
                ..Default::default()
            });
        }
        tl.begin_phase("a", 0.0, Some(1));
        tl.begin_phase("b", 4.0, Some(2));
        tl.end_phase(7.0);
        let a = tl.phase("a").unwrap().clone();
        let b = tl.phase("b").unwrap().clone();
        assert_eq!(tl.samples_in(&a).len(), 4);
        assert_eq!(tl.samples_in(&b).len(), 3);
        assert_eq!(b.end, Some(7.0));
    }

    #[test]
    fn documents_without_extra_still_load_and_new_ones_round_trip() {
        let old = r#"{"header":{"clusters":["cpu0-cpu3"],"temp_sensors":[],"electrical":[],
            "soc_sensor":null,"interval_s":1.0,"measured_clock_source":"none"},
            "samples":[{"t":1.0,"unix_ms":0,"cluster_mhz":[1800],"measured_mhz":[],
            "load1":0.5,"cpu":null,"soc_temp_c":null,"temps_c":[],"electrical":[],
            "rapl_watts":null,"swap_used_kb":null,"cpus_online":4,"rpi":null}],
            "phases":[{"name":"a","start":0.0,"end":2.0,"threads":1}]}"#;
        let tl: Timeline = serde_json::from_str(old).unwrap();
        assert!(tl.extra.is_empty() && tl.energy.is_empty() && tl.extra_header.is_empty());
        assert!(tl.extra_in(&tl.phases[0]).is_empty());
        // Without extra readings the document has exactly the old keys.
        let v = serde_json::to_value(&tl).unwrap();
        assert_eq!(v.as_object().unwrap().len(), 3);

        let mut tl = tl;
        tl.extra_header.disks = vec!["sda".into()];
        tl.extra.push(ExtraSample {
            dt_s: 1.0,
            disks: vec![Some(DiskDelta {
                reads: 3,
                ..Default::default()
            })],
            ..Default::default()
        });
        let back: Timeline = serde_json::from_str(&serde_json::to_string(&tl).unwrap()).unwrap();
        assert_eq!(back, tl);
        assert_eq!(back.extra_in(&back.phases[0])[0].disks[0].unwrap().reads, 3);
    }
}
