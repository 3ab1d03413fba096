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
use crate::collect::disks::Disks;
use crate::collect::idle::Idle;
use crate::collect::memory::Memory;
use crate::collect::net::Net;
use crate::collect::power::Power;
use crate::collect::pressure::Pressure;
use crate::collect::softirq::Softirq;
pub(crate) use crate::collect::thermal::Origin;
use crate::collect::thermal::Thermal;
use crate::warm::warm_slice;
use ints::IntFiles;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use truebench_host::parse::bytes::f64_at_run_time;
use truebench_host::parse::meminfo::Meminfo;
use truebench_host::{Host, Inventory};
use truebench_model::timeline::{
    ExtraHeader, ExtraSample, PowerKind, PowerSeries, PowerSource, RpiSample, Sample,
    SoftirqSample, TimelineHeader,
};

/// The optional sources a reader collects. CPU times, load, online CPUs, clocks,
/// temperatures, hwmon readings, memory and power are always read; these cost a file read
/// each per sample, so the commands that need them ask for them. Idle states are read by
/// default (two reads per CPU and state where cpuidle exists, nothing elsewhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sources {
    /// PSI stall shares (`/proc/pressure/*`).
    pub pressure: bool,
    /// Per-disk I/O (`/proc/diskstats`).
    pub disks: bool,
    /// Per-interface bytes and packets (`/proc/net/dev`).
    pub net: bool,
    /// Per-CPU softirq time and NET_RX/NET_TX/BLOCK counts (`/proc/softirqs`, per-CPU
    /// lines of /proc/stat).
    pub softirq: bool,
    /// Entries and time of each cpuidle state per group of CPUs (`cpuN/cpuidle/stateK/usage`
    /// and `time`).
    pub idle: bool,
}

impl Default for Sources {
    fn default() -> Sources {
        Sources {
            pressure: false,
            disks: false,
            net: false,
            softirq: false,
            idle: true,
        }
    }
}

impl Sources {
    pub const ALL: Sources = Sources {
        pressure: true,
        disks: true,
        net: true,
        softirq: true,
        idle: true,
    };
}

/// A power source read elsewhere — an external meter on its own thread
/// (`truebench_suites::meter`, which runs the user's command: the sampler never forks). Each
/// sample takes its latest reading; nothing here waits for it.
pub trait ExternalPower: Send + Sync + std::fmt::Debug {
    /// The source's name in results (`power-cmd: …`).
    fn name(&self) -> String;
    /// The latest fresh reading, W.
    fn latest(&self) -> Option<f64>;
    /// How often it is read (its readings' nominal spacing).
    fn interval(&self) -> Duration;
    /// Move the readings taken since the last call, with the instant each was taken, into
    /// `out` (oldest first).
    fn drain(&self, out: &mut Vec<(Instant, f64)>);
}

/// Stateful sample reader: build once, call `sample()` at every tick.
pub struct SampleReader {
    t0: Instant,
    last_t: Instant,
    /// When the integer files were last read (a sample or `read_power`).
    last_read: Instant,
    header: TimelineHeader,
    extra_header: ExtraHeader,
    /// The extra readings of the latest sample.
    extra: ExtraSample,
    buf: Vec<u8>,
    ints: IntFiles,
    cpu: Cpu,
    clocks: Clocks,
    pub(crate) thermal: Thermal,
    memory: Memory,
    power: Power,
    pressure: Option<Pressure>,
    disks: Option<Disks>,
    net: Option<Net>,
    softirq: Option<Softirq>,
    idle: Option<Idle>,
    rpi: Option<Arc<Mutex<Option<RpiSample>>>>,
    n_clusters: usize,
    meter: Option<Arc<dyn ExternalPower>>,
    /// The meter's readings, reused between drains.
    meter_buf: Vec<(Instant, f64)>,
}

impl SampleReader {
    /// Open every file once and take the counters' baselines, so the first `sample()` is a
    /// real delta. Optional sources off.
    pub fn new(host: &Host, inv: &Inventory, interval: Duration) -> SampleReader {
        Self::with_sources(host, inv, interval, Sources::default())
    }

    pub fn with_sources(
        host: &Host,
        inv: &Inventory,
        interval: Duration,
        sources: Sources,
    ) -> SampleReader {
        let t0 = Instant::now();
        let mut header = TimelineHeader {
            interval_s: interval.as_secs_f64(),
            ..Default::default()
        };
        let mut xh = ExtraHeader::default();
        let deadline = (interval / 2).clamp(Duration::from_millis(20), Duration::from_millis(250));
        let mut ints = IntFiles::new(deadline);
        let clocks = Clocks::new(host, inv, &mut ints, &mut header);
        let thermal = Thermal::new(host, inv, &mut ints, &mut header);
        let power = Power::new(host, inv, &mut ints);
        xh.power = power.header.clone();
        xh.missing.extend(power.missing.iter().cloned());
        ints.start();
        let max_cpu = inv
            .cpus
            .iter()
            .map(|c| c.id as usize + 1)
            .max()
            .unwrap_or(0);
        let cpu = Cpu::new(host, max_cpu, clocks.needs_busy() || sources.softirq);
        let pressure = sources
            .pressure
            .then(|| Pressure::new(host, &mut xh.missing));
        let disks = sources
            .disks
            .then(|| Disks::new(host, &mut xh.disks, &mut xh.missing));
        let net = sources
            .net
            .then(|| Net::new(host, &mut xh.net, &mut xh.missing));
        let softirq = sources
            .softirq
            .then(|| Softirq::new(host, &mut xh.softirq_cpus, &mut xh.missing));
        let idle = if sources.idle {
            Idle::new(host, inv, &mut xh.idle)
        } else {
            None
        };
        let buf_len = [
            cpu.buf_len(),
            disks.as_ref().map_or(0, Disks::buf_len),
            net.as_ref().map_or(0, Net::buf_len),
            softirq.as_ref().map_or(0, Softirq::buf_len),
        ]
        .into_iter()
        .max()
        .unwrap_or(0);
        let mut r = SampleReader {
            t0,
            last_t: t0,
            last_read: t0,
            n_clusters: inv.clusters.len(),
            header,
            extra_header: xh,
            extra: ExtraSample::default(),
            buf: vec![0; buf_len],
            ints,
            cpu,
            clocks,
            thermal,
            memory: Memory::new(host),
            power,
            pressure,
            disks,
            net,
            softirq,
            idle,
            rpi: None,
            meter: None,
            meter_buf: Vec::new(),
        };
        // Baselines.
        r.cpu.baseline(&mut r.buf);
        r.ints.read(&mut r.buf);
        r.last_read = Instant::now();
        r.power.baseline(&r.ints);
        r.clocks.baseline();
        if let Some(p) = r.pressure.as_mut() {
            p.baseline(&mut r.buf);
        }
        if let Some(d) = r.disks.as_mut() {
            d.baseline(&mut r.buf);
        }
        if let Some(n) = r.net.as_mut() {
            n.baseline(&mut r.buf);
        }
        if let Some(s) = r.softirq.as_mut() {
            s.baseline(&mut r.buf);
        }
        if let Some(i) = r.idle.as_mut() {
            i.baseline(&mut r.buf);
        }
        r.last_t = Instant::now();
        r
    }

    /// Add an external power meter as the last power source: each sample takes its latest
    /// fresh reading.
    pub fn set_meter(&mut self, meter: Arc<dyn ExternalPower>) {
        self.extra_header.power.push(PowerSource {
            name: meter.name(),
            kind: PowerKind::External,
            files: Vec::new(),
            part_of: None,
        });
        self.meter = Some(meter);
    }

    /// One empty series per power source, read as often as each is (see
    /// `timeline::series`).
    pub fn power_series(&self) -> Vec<PowerSeries> {
        let mut out: Vec<PowerSeries> = self
            .power
            .points()
            .map(|_| PowerSeries::new(self.header.interval_s))
            .collect();
        if let Some(m) = &self.meter {
            out.push(PowerSeries::new(m.interval().as_secs_f64()));
        }
        out
    }

    /// Seconds on the timeline's clock of the latest read (a sample, the baselines, or
    /// `read_power`).
    pub fn last_read_t(&self) -> f64 {
        self.last_read.duration_since(self.t0).as_secs_f64()
    }

    /// Read the power sources now (a phase boundary): their points go to the series at the
    /// next `record_power`. Samples' intervals are unchanged.
    pub fn read_power(&mut self) {
        self.ints.read(&mut self.buf);
        self.last_read = Instant::now();
        self.power.read(&self.ints);
    }

    /// Append the latest read's points (at `last_read_t()`) and the meter's readings since
    /// the last call (at their own times) to `series` (from `power_series()`); with another
    /// number of series the readings are dropped (a monitor that keeps no samples).
    #[inline]
    pub fn record_power(&mut self, series: &mut [PowerSeries]) {
        // Nothing to record and no meter to drain: `truebench monitor`'s every tick, which
        // then touches none of the code (and constants) below.
        if series.is_empty() && self.meter.is_none() {
            return;
        }
        self.record_power_into(series);
    }

    #[inline(never)]
    #[link_section = "truebench_tick"]
    fn record_power_into(&mut self, series: &mut [PowerSeries]) {
        let t = self.last_read_t();
        let keep = series.len() == self.extra_header.power.len();
        if keep {
            for (s, p) in series.iter_mut().zip(self.power.points()) {
                s.push(t, p);
            }
        }
        if let Some(m) = &self.meter {
            self.meter_buf.clear();
            m.drain(&mut self.meter_buf);
            if let (true, Some(s)) = (keep, series.last_mut()) {
                for (at, w) in &self.meter_buf {
                    let t = match at.checked_duration_since(self.t0) {
                        Some(d) => d.as_secs_f64(),
                        None => -self.t0.duration_since(*at).as_secs_f64(),
                    };
                    s.push(t, Some(*w));
                }
            }
        }
    }

    /// Share the latest Raspberry Pi firmware reading (from `rpi::RpiPoller`) into samples.
    pub fn set_rpi(&mut self, latest: Arc<Mutex<Option<RpiSample>>>) {
        self.rpi = Some(latest);
    }

    pub fn header(&self) -> &TimelineHeader {
        &self.header
    }

    /// What `extra()` holds: power sources, disks, interfaces, and sources that could not be
    /// read with the reason.
    pub fn extra_header(&self) -> &ExtraHeader {
        &self.extra_header
    }

    /// The extra readings (power per source, memory detail, pressure, disks, network,
    /// softirqs) taken with the latest sample.
    pub fn extra(&self) -> &ExtraSample {
        &self.extra
    }

    /// Prefetch, at once, the heap this tick's sample reads and writes (see
    /// `warm::warm_slice`): the collectors' vectors, the read buffer's start, and the vectors of
    /// the extra readings and of `s` that it fills.
    #[link_section = "truebench_tick"]
    pub(crate) fn warm(&self, s: &Sample) {
        warm_slice(&self.buf);
        self.ints.warm();
        self.cpu.warm();
        self.clocks.warm();
        self.thermal.warm();
        self.power.warm();
        self.disks.iter().for_each(Disks::warm);
        self.net.iter().for_each(Net::warm);
        self.softirq.iter().for_each(Softirq::warm);
        self.idle.iter().for_each(Idle::warm);
        warm_slice(&s.cluster_mhz);
        warm_slice(&s.measured_mhz);
        warm_slice(&s.temps_c);
        warm_slice(&s.electrical);
        let x = &self.extra;
        warm_slice(&x.power_w);
        warm_slice(&x.disks);
        warm_slice(&x.net);
        if let Some(q) = &x.softirq {
            warm_slice(&q.cpus);
        }
        warm_slice(&x.idle);
        for d in &x.idle {
            warm_slice(&d.entries);
            warm_slice(&d.time_us);
        }
    }

    /// Exchange the latest extra readings for `x`: a sampler that keeps them takes them
    /// without a copy, and the next sample fills `x`'s vectors (every field is written anew).
    pub(crate) fn swap_extra(&mut self, x: &mut ExtraSample) {
        std::mem::swap(&mut self.extra, x);
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
    pub fn meminfo(&self) -> &Meminfo {
        &self.memory.last
    }

    /// A new sample (allocates the sample's vectors).
    pub fn sample(&mut self) -> Sample {
        let mut s = Sample::default();
        self.sample_into(&mut s);
        s
    }

    /// Fill `s` (and `extra()`) in place, reusing their vectors: no allocation once they have
    /// their length.
    pub fn sample_into(&mut self, s: &mut Sample) {
        self.sample_at(Instant::now(), s)
    }

    /// `sample_into` for a sample taken at `now_t` (the sampler has just read the clock).
    #[link_section = "truebench_tick"]
    pub fn sample_at(&mut self, now_t: Instant, s: &mut Sample) {
        let dt = seconds(now_t.duration_since(self.last_t));
        self.last_t = now_t;
        s.t = seconds(now_t.duration_since(self.t0));
        s.unix_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        reset(&mut s.cluster_mhz, self.n_clusters);
        reset(&mut s.measured_mhz, self.n_clusters);
        reset(&mut s.temps_c, self.thermal.n_temps);
        reset(&mut s.electrical, self.thermal.n_electrical);
        let x = &mut self.extra;
        x.dt_s = dt;

        self.ints.read(&mut self.buf);
        self.last_read = now_t;
        self.cpu.sample(&mut self.buf, s);
        self.clocks.sample(&self.ints, self.cpu.busy(), s);
        self.thermal.sample(&self.ints, s);
        self.memory.sample(&mut self.buf, s);
        x.memory = self.memory.detail();
        self.power.sample(&self.ints, dt, s, &mut x.power_w);
        if let Some(m) = &self.meter {
            x.power_w.push(m.latest());
        }
        if self.pressure.is_some()
            || self.disks.is_some()
            || self.net.is_some()
            || self.softirq.is_some()
            || self.idle.is_some()
        {
            self.sample_sources(dt);
        } else {
            x.pressure = None;
            x.softirq = None;
        }
        s.rpi = self
            .rpi
            .as_ref()
            .and_then(|m| *m.lock().unwrap_or_else(|e| e.into_inner()));
    }
}

impl SampleReader {
    /// The optional sources (`Sources`), apart from `sample_at` (not inlined): in the tick
    /// section, as the idle states are read on every tick where cpuidle exists.
    #[inline(never)]
    #[link_section = "truebench_tick"]
    fn sample_sources(&mut self, dt: f64) {
        let x = &mut self.extra;
        x.pressure = self
            .pressure
            .as_mut()
            .and_then(|p| p.sample(&mut self.buf, dt));
        if let Some(d) = self.disks.as_mut() {
            d.sample(&mut self.buf, &mut x.disks);
        }
        if let Some(n) = self.net.as_mut() {
            n.sample(&mut self.buf, &mut x.net);
        }
        match self.softirq.as_mut() {
            Some(q) => {
                let out = x.softirq.get_or_insert_with(SoftirqSample::default);
                q.sample(&mut self.buf, self.cpu.agg(), &self.cpu, out);
            }
            None => x.softirq = None,
        }
        if let Some(i) = self.idle.as_mut() {
            i.sample(&mut self.buf, &mut x.idle);
        }
    }
}

/// `d` in seconds as the double nearest its count of nanoseconds / 10^9 (`as_secs_f64` adds
/// two rounded parts and can be one unit off it): such a value prints as its nine-digit
/// decimal without a float formatter (`timeline::line`).
fn seconds(d: Duration) -> f64 {
    // Below 2^63 ns (292 years); signed, as the conversion of a signed integer is one
    // instruction.
    d.as_nanos().min(i64::MAX as u128) as i64 as f64 / f64_at_run_time(1_000_000_000)
}

fn reset<T: Default + Clone>(v: &mut Vec<T>, n: usize) {
    v.clear();
    v.resize(n, T::default());
}
