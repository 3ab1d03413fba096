//! `SampleReader`: one `Sample` per call, from files opened once and re-read in place.
//!
//! Cost is the point: sbc-bench forks ~15 processes per monitoring line; here a sample is a
//! handful of `pread(2)` calls into buffers allocated at construction, parsed without
//! allocating (`sample_into` allocates nothing in steady state; see tests/alloc.rs). Each
//! data source has its collector (`crate::collect`); this module owns the shared parts: the
//! scratch buffer, the integer files and the clock of the timeline.
//!
//! ## Slow files
//! Most files the sampler reads are served from kernel memory (procfs counters, cached
//! `scaling_cur_freq`, thermal zones fed by the SoC's sensor registers) and return in
//! microseconds. Some ask hardware or firmware each time: `cpuinfo_cur_freq` (a CPPC mailbox
//! or SCMI message on servers and new ARM SoCs — known to take seconds or hang), hwmon chips
//! (I2C/PMBus transfers, NVMe admin commands) and ACPI thermal zones (AML evaluation through
//! the embedded controller). A read cannot be cancelled, so those files are read by a helper
//! thread: the sampler posts a request and waits at most a deadline (half the interval,
//! capped at 250 ms). A file whose read outlives the deadline yields `None` for that sample and
//! is disabled for the rest of the run (listed by `disabled()`), so one hanging file costs one
//! late sample, not a stalled timeline. Fast files are read inline, which keeps the common
//! case free of thread hand-offs (two futex wakes per sample only when slow files exist).

pub(crate) mod bytes;
pub(crate) mod ints;
pub(crate) mod slow;

pub use bytes::{cpu_pct, energy_delta_uj};
pub(crate) use bytes::{parse_i64, pread_all};
pub(crate) use slow::SlowReader;

use crate::collect::clocks::Clocks;
use crate::collect::cpu::Cpu;
use crate::collect::memory::Memory;
use crate::collect::power::Power;
pub(crate) use crate::collect::thermal::Origin;
use crate::collect::thermal::Thermal;
use crate::timeline::{RpiSample, Sample, TimelineHeader};
use ints::IntFiles;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use truebench_host::{Host, Inventory};

/// Stateful sample reader: build once, call `sample()` at every tick.
pub struct SampleReader {
    t0: Instant,
    last_t: Instant,
    header: TimelineHeader,
    buf: Vec<u8>,
    ints: IntFiles,
    cpu: Cpu,
    clocks: Clocks,
    pub(crate) thermal: Thermal,
    memory: Memory,
    power: Power,
    rpi: Option<Arc<Mutex<Option<RpiSample>>>>,
    n_clusters: usize,
}

impl SampleReader {
    /// Open every file once and take the /proc/stat and RAPL baselines, so the first
    /// `sample()` is a real delta.
    pub fn new(host: &Host, inv: &Inventory, interval: Duration) -> SampleReader {
        let t0 = Instant::now();
        let mut header = TimelineHeader {
            interval_s: interval.as_secs_f64(),
            ..Default::default()
        };
        let deadline = (interval / 2).clamp(Duration::from_millis(20), Duration::from_millis(250));
        let mut ints = IntFiles::new(deadline);
        let clocks = Clocks::new(host, inv, &mut ints, &mut header);
        let thermal = Thermal::new(host, inv, &mut ints, &mut header);
        let power = Power::new(host, &mut ints);
        ints.start();
        let max_cpu = inv
            .cpus
            .iter()
            .map(|c| c.id as usize + 1)
            .max()
            .unwrap_or(0);
        let cpu = Cpu::new(host, max_cpu, clocks.needs_busy());
        let mut r = SampleReader {
            t0,
            last_t: t0,
            n_clusters: inv.clusters.len(),
            header,
            buf: vec![0; cpu.buf_len()],
            ints,
            cpu,
            clocks,
            thermal,
            memory: Memory::new(host),
            power,
            rpi: None,
        };
        // Baselines.
        r.cpu.baseline(&mut r.buf);
        r.ints.read(&mut r.buf);
        r.power.baseline(&r.ints);
        r.clocks.baseline();
        r.last_t = Instant::now();
        r
    }

    /// Share the latest Raspberry Pi firmware reading (from `rpi::RpiPoller`) into samples.
    pub fn set_rpi(&mut self, latest: Arc<Mutex<Option<RpiSample>>>) {
        self.rpi = Some(latest);
    }

    pub fn header(&self) -> &TimelineHeader {
        &self.header
    }

    /// The instant `Sample::t` counts from.
    pub fn t0(&self) -> Instant {
        self.t0
    }

    /// Files disabled after a read timed out, for the report.
    pub fn disabled(&self) -> &[String] {
        self.ints.disabled()
    }

    /// The latest /proc/meminfo reading.
    pub fn meminfo(&self) -> &truebench_host::parse::meminfo::Meminfo {
        &self.memory.last
    }

    /// A new sample (allocates the sample's vectors).
    pub fn sample(&mut self) -> Sample {
        let mut s = Sample::default();
        self.sample_into(&mut s);
        s
    }

    /// Fill `s` in place, reusing its vectors: no allocation once they have their length.
    pub fn sample_into(&mut self, s: &mut Sample) {
        let now_t = Instant::now();
        let dt = now_t.duration_since(self.last_t).as_secs_f64();
        self.last_t = now_t;
        s.t = now_t.duration_since(self.t0).as_secs_f64();
        s.unix_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        reset(&mut s.cluster_mhz, self.n_clusters);
        reset(&mut s.measured_mhz, self.n_clusters);
        reset(&mut s.temps_c, self.thermal.n_temps);
        reset(&mut s.electrical, self.thermal.n_electrical);

        self.ints.read(&mut self.buf);
        self.cpu.sample(&mut self.buf, s);
        self.clocks.sample(&self.ints, self.cpu.busy(), s);
        self.thermal.sample(&self.ints, s);
        self.memory.sample(&mut self.buf, s);
        self.power.sample(&self.ints, dt, s);
        s.rpi = self
            .rpi
            .as_ref()
            .and_then(|m| *m.lock().unwrap_or_else(|e| e.into_inner()));
    }
}

fn reset<T: Default + Clone>(v: &mut Vec<T>, n: usize) {
    v.clear();
    v.resize(n, T::default());
}
