//! Sampling at a fixed interval: `SampleLoop` samples on the calling thread (the monitor's
//! command line: one thread, one wake-up per sample), `Sampler` runs the same loop on a
//! background thread and appends to a shared `Timeline` while a benchmark runs. Neither ever
//! forks (the Raspberry Pi poller, which must run `vcgencmd`, is a thread of its own).

use crate::keep::Kept;
use crate::profile::{self, Part};
use crate::reader::{SampleReader, Sources};
use crate::rpi::RpiPoller;
use rustix::io::Errno;
use rustix::thread::{clock_nanosleep_absolute, ClockId};
use rustix::time::Timespec;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use truebench_host::{Host, Inventory};
use truebench_model::timeline::{ExtraSample, Sample, Timeline, TimelineHeader};

/// Called with each new sample and its extra readings (print it, send it on a channel…);
/// `Break` ends sampling. Keep it short: the next sample waits for it.
pub type OnSample = Box<dyn FnMut(&Sample, &ExtraSample) -> ControlFlow<()> + Send>;

/// What [`SampleLoop::run`] calls with each sample (a closure, or an [`OnSample`]).
pub trait OnSampleFn {
    fn on_sample(&mut self, s: &Sample, x: &ExtraSample) -> ControlFlow<()>;
}

impl<F: FnMut(&Sample, &ExtraSample) -> ControlFlow<()>> OnSampleFn for F {
    // The loop calls this through a vtable (one loop for every callback). It is in the tick
    // section (see `warm`), and so is a closure's body where the compiler inlines it here; a
    // boxed `OnSample` calls on through its own vtable, to code outside the section.
    #[link_section = "truebench_tick"]
    fn on_sample(&mut self, s: &Sample, x: &ExtraSample) -> ControlFlow<()> {
        self(s, x)
    }
}

/// The callback as the loop takes it: one copy of the loop's code for every kind of callback,
/// not one per closure type — each copy in the tick section would be warmed every tick.
type Callback<'a> = Option<&'a mut dyn OnSampleFn>;

/// How often a loop with a `stop` flag looks at it while waiting for a long interval: the
/// flag (set by a signal thread) cannot wake it.
const STOP_POLL: Duration = Duration::from_millis(250);

/// A `Sampler` sampling this often or more sleeps to each tick with one timed sleep, as the
/// monitor does, not on the condition variable `stop` notifies: that wait cost the kernel
/// 1–2 µs more a tick (bench/tick_trace.sh). A stop is then seen when the sleep ends, at the
/// next tick's due time: it waits up to this long more (besides a tick under way and the
/// closing sample, as with a longer interval).
const SLEEP_THROUGH: Duration = Duration::from_millis(100);

#[derive(Debug, Clone)]
pub struct SamplerConfig {
    /// Time between samples (sub-second allowed; at least 1 ms).
    pub interval: Duration,
    /// How often to ask the Raspberry Pi firmware (each call forks `vcgencmd`).
    pub rpi_interval: Duration,
    /// Lower the sampler thread's priority (nice 19, as sbc-bench renices its monitor) so it
    /// does not compete with the benchmark it watches.
    pub nice: bool,
    /// Optional sources to read besides the standard set.
    pub sources: Sources,
    /// Keep every sample in the timeline. Off for a monitor that only prints: memory stays
    /// flat however long it runs, and a sample costs no allocation.
    pub keep_samples: bool,
    /// Stop when this becomes true (looked at every sample, and every 250 ms while waiting
    /// for a longer interval).
    pub stop: Option<Arc<AtomicBool>>,
    /// An external power meter, read as one more power source.
    pub meter: Option<Arc<dyn crate::reader::ExternalPower>>,
}

impl Default for SamplerConfig {
    fn default() -> Self {
        SamplerConfig {
            interval: Duration::from_secs(5),
            rpi_interval: Duration::from_secs(5),
            nice: true,
            sources: Sources::default(),
            keep_samples: true,
            stop: None,
            meter: None,
        }
    }
}

/// Lock order: `reader`, then `timeline`.
struct Shared {
    /// Shared so a phase boundary can read the power sources on the caller's thread.
    reader: Mutex<SampleReader>,
    timeline: Mutex<Kept>,
    /// Set by `Sampler::stop`: read without a lock by a loop that sleeps through the interval.
    stopping: AtomicBool,
    /// Held while setting `stopping` and by a loop waiting on `wake`, so no notification falls
    /// between its look at the flag and its wait.
    wake_lock: Mutex<()>,
    wake: Condvar,
    disabled: Mutex<Vec<String>>,
}

/// Samples at every interval on the thread that calls `run`.
pub struct SampleLoop {
    header: TimelineHeader,
    t0: Instant,
    cfg: SamplerConfig,
    interval: Duration,
    shared: Arc<Shared>,
    rpi_pmic: Option<bool>,
    _rpi: Option<RpiPoller>,
}

impl SampleLoop {
    /// Open the files and take the baselines (the first sample is one interval later).
    pub fn new(host: &Host, inv: &Inventory, cfg: SamplerConfig) -> SampleLoop {
        let interval = cfg.interval.max(Duration::from_millis(1));
        let mut reader = SampleReader::with_sources(host, inv, interval, cfg.sources);
        let rpi = RpiPoller::start(host, cfg.rpi_interval);
        if let Some(p) = &rpi {
            reader.set_rpi(Arc::clone(&p.latest));
        }
        if let Some(m) = &cfg.meter {
            reader.set_meter(Arc::clone(m));
        }
        let mut timeline = Timeline::new(reader.header().clone());
        timeline.extra_header = reader.extra_header().clone();
        if cfg.keep_samples {
            // The baselines are the series' first points.
            timeline.power_readings = reader.power_series();
            reader.record_power(&mut timeline.power_readings);
        }
        SampleLoop {
            header: reader.header().clone(),
            t0: reader.t0(),
            shared: Arc::new(Shared {
                reader: Mutex::new(reader),
                timeline: Mutex::new({
                    let mut k = Kept::new(timeline);
                    if cfg.keep_samples {
                        k.prepare();
                    }
                    k
                }),
                stopping: AtomicBool::new(false),
                wake_lock: Mutex::new(()),
                wake: Condvar::new(),
                disabled: Mutex::new(Vec::new()),
            }),
            cfg,
            interval,
            rpi_pmic: rpi.as_ref().map(|p| p.pmic),
            _rpi: rpi,
        }
    }

    /// Some(pmic) when Raspberry Pi firmware readings are being taken.
    pub fn rpi(&self) -> Option<bool> {
        self.rpi_pmic
    }

    pub fn header(&self) -> &TimelineHeader {
        &self.header
    }

    /// Sample until the `stop` flag is set or `on_sample` breaks; returns the timeline (its
    /// samples only with `keep_samples`).
    pub fn run<F: OnSampleFn>(mut self, mut on_sample: Option<F>) -> Timeline {
        self.run_loop(on_sample.as_mut().map(|f| f as &mut dyn OnSampleFn));
        let mut tl = lock(&self.shared.timeline).take();
        if self.cfg.keep_samples {
            let mut r = lock(&self.shared.reader);
            r.read_power();
            r.record_power(&mut tl.power_readings);
        }
        tl.fill_energy();
        tl
    }

    #[link_section = "truebench_tick"]
    fn stopped(&self) -> bool {
        self.shared.stopping.load(Ordering::SeqCst)
            || self
                .cfg
                .stop
                .as_ref()
                .is_some_and(|f| f.load(Ordering::SeqCst))
    }

    /// Wait until `due`; false when asked to stop meanwhile.
    #[link_section = "truebench_tick"]
    fn wait_until(&self, due: Instant, clock: &Monotonic) -> bool {
        if Arc::strong_count(&self.shared) == 1 || self.interval <= SLEEP_THROUGH {
            // Nobody holds a `Sampler` that could notify the condition variable, or its stop
            // may wait for the tick: one timed sleep, the cheapest wake-up there is (and the
            // one a minimal C loop uses).
            return self.sleep_until(due, clock);
        }
        let mut guard = lock(&self.shared.wake_lock);
        loop {
            if self.stopped() {
                return false;
            }
            let now = Instant::now();
            if now >= due {
                return true;
            }
            let mut wait = due - now;
            if self.cfg.stop.is_some() {
                wait = wait.min(STOP_POLL);
            }
            guard = self
                .shared
                .wake
                .wait_timeout(guard, wait)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// `wait_until` without the condition variable: an absolute `clock_nanosleep`, waking
    /// every `STOP_POLL` to look at the `stop` flag when the interval is longer.
    #[link_section = "truebench_tick"]
    fn sleep_until(&self, due: Instant, clock: &Monotonic) -> bool {
        loop {
            if self.stopped() {
                return false;
            }
            let target = if self.cfg.stop.is_some() && self.interval > STOP_POLL {
                due.min(Instant::now() + STOP_POLL)
            } else {
                due
            };
            if clock.sleep_until(target) && target >= due {
                return !self.stopped();
            }
            // Interrupted by a signal, or a poll of the flag: look at it and sleep on.
        }
    }

    // Not inlined into `run`: the caller's code is not in the tick section.
    #[inline(never)]
    #[link_section = "truebench_tick"]
    fn run_loop(&mut self, mut on_sample: Callback) {
        // Let the kernel batch our timer with others (up to 1 % of the interval, at most 1 ms):
        // a timed wakeup is the largest part of a sample's cost, more so in a VM.
        let slack_ns = (self.interval.as_nanos() / 100).clamp(50_000, 1_000_000) as libc::c_ulong;
        // SAFETY: PR_SET_TIMERSLACK on the calling thread; failure is harmless.
        unsafe {
            libc::prctl(libc::PR_SET_TIMERSLACK, slack_ns, 0, 0, 0);
        }
        if self.cfg.nice {
            // SAFETY: setpriority on our own thread id; failure is harmless.
            unsafe {
                let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
                libc::setpriority(libc::PRIO_PROCESS, tid, 19);
            }
        }
        let start = self.t0;
        let interval = self.interval;
        let clock = Monotonic::now();
        // Reused when samples are not kept: steady-state sampling allocates nothing.
        let mut scratch = Sample::default();
        let mut k: u32 = 1;
        let mut last_sample = start;
        // One clock reading per sample: taken on waking, it times the sample and tells
        // whether the next tick is already past.
        let mut now = Instant::now();
        loop {
            // Absolute deadlines: sampling does not drift by the cost of each sample. When a
            // sample ran late (a slow file, a busy machine), skip the ticks already missed.
            let mut due = start + interval * k;
            if due <= now {
                let behind = now.duration_since(start).as_secs_f64() / interval.as_secs_f64();
                k = behind as u32 + 1;
                due = start + interval * k;
            }
            if !self.wait_until(due, &clock) {
                // One closing sample when stopped by `Sampler::stop` (samples kept): the last
                // phase then has a reading after its end, so its energy and clocks reach it.
                // Not right after a sample: its /proc/stat deltas would be empty.
                if self.cfg.keep_samples
                    && self.shared.stopping.load(Ordering::SeqCst)
                    && last_sample.elapsed() >= CLOSING_GAP
                {
                    self.closing_sample();
                }
                return;
            }
            let tick = profile::start();
            // Before anything else the tick runs (see `warm`): its code, its stack, and the
            // struct holding the reader and the timeline (not what they point to).
            crate::warm::warm_tick_code();
            crate::warm::warm_value(&*self.shared);
            k += 1;
            now = Instant::now();
            last_sample = now;
            let flow = if self.cfg.keep_samples {
                let mut r = lock(&self.shared.reader);
                let flow = self.keep_sample(&mut r, now, &mut on_sample);
                note_disabled(&r, &self.shared.disabled);
                flow
            } else if let Some(sh) = Arc::get_mut(&mut self.shared) {
                // Nobody else holds the reader (`truebench monitor`): no lock, whose poison
                // check reads std's global panic count, a page of its own touched every tick.
                let r = sh.reader.get_mut().unwrap_or_else(PoisonError::into_inner);
                let flow = unkept_sample(r, now, &mut scratch, &mut on_sample);
                note_disabled(r, &sh.disabled);
                flow
            } else {
                let mut r = lock(&self.shared.reader);
                let flow = unkept_sample(&mut r, now, &mut scratch, &mut on_sample);
                note_disabled(&r, &self.shared.disabled);
                flow
            };
            profile::end(Part::Tick, tick);
            if flow.is_break() {
                return;
            }
        }
    }

    // The other paths of `run_loop`, apart from it (not inlined): the kept sample of a
    // session's every tick in the tick section (see `warm`), the closing sample not.

    /// A sample kept on the timeline (a `Sampler` in a session).
    #[inline(never)]
    #[link_section = "truebench_tick"]
    fn keep_sample(
        &self,
        r: &mut SampleReader,
        now: Instant,
        on_sample: &mut Callback,
    ) -> ControlFlow<()> {
        // Vectors of a sample moved to the file are filled again (see `keep`).
        let (mut s, mut x) = lock(&self.shared.timeline).take_free();
        r.warm(&s);
        r.sample_at(now, &mut s);
        let flow = on_sample
            .as_mut()
            .map_or(ControlFlow::Continue(()), |cb| cb.on_sample(&s, r.extra()));
        // The extra readings move to the timeline, not copied; the reader fills `x` next.
        r.swap_extra(&mut x);
        let mut tl = lock(&self.shared.timeline);
        tl.push(s, x);
        r.record_power(&mut tl.power_readings);
        flow
    }

    /// The closing sample after `Sampler::stop` (see `run_loop`).
    #[inline(never)]
    fn closing_sample(&self) {
        let mut r = lock(&self.shared.reader);
        let s = r.sample();
        let mut tl = lock(&self.shared.timeline);
        tl.push(s, r.extra().clone());
        r.record_power(&mut tl.power_readings);
    }
}

/// A sample into `scratch`, handed to `on_sample` and not kept.
#[link_section = "truebench_tick"]
fn unkept_sample(
    r: &mut SampleReader,
    now: Instant,
    scratch: &mut Sample,
    on_sample: &mut Callback,
) -> ControlFlow<()> {
    let t = profile::start();
    r.warm(scratch);
    r.sample_at(now, scratch);
    profile::end(Part::Sample, t);
    // Drains the meter's readings without keeping them.
    r.record_power(&mut []);
    on_sample.as_mut().map_or(ControlFlow::Continue(()), |cb| {
        cb.on_sample(scratch, r.extra())
    })
}

/// Files the reader disabled (a read that timed out), for `Sampler::disabled` (rarely any:
/// looked at first, the copy apart).
#[inline]
fn note_disabled(r: &SampleReader, to: &Mutex<Vec<String>>) {
    if !r.disabled().is_empty() {
        note_disabled_now(r.disabled(), to);
    }
}

#[inline(never)]
fn note_disabled_now(disabled: &[String], to: &Mutex<Vec<String>>) {
    let mut d = lock(to);
    if d.len() != disabled.len() {
        *d = disabled.to_vec();
    }
}

/// `Instant`s as `CLOCK_MONOTONIC` times, for an absolute `clock_nanosleep` (std's `Instant`
/// reads that clock on Linux but does not show its value): one pair of readings taken
/// together, deadlines placed from it.
struct Monotonic {
    instant: Instant,
    ts: Timespec,
}

impl Monotonic {
    fn now() -> Monotonic {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let instant = Instant::now();
        // Through the C library (once, not per tick): rustix's own vDSO lookup crashes under
        // valgrind, which bench/tick_footprint.sh runs the monitor in.
        // SAFETY: clock_gettime writes the timespec we pass.
        unsafe {
            libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts);
        }
        // time_t is 32 bits on some 32-bit targets.
        #[allow(clippy::unnecessary_cast)]
        let ts = Timespec {
            tv_sec: ts.tv_sec as i64,
            tv_nsec: ts.tv_nsec as _,
        };
        Monotonic { instant, ts }
    }

    /// Sleep until `due`; false when a signal cut the sleep short. The system call itself
    /// (rustix), not the C library's wrapper: that is a cancellation point, code on a page
    /// of its own a tick would touch cold.
    #[link_section = "truebench_tick"]
    fn sleep_until(&self, due: Instant) -> bool {
        let ahead = due.saturating_duration_since(self.instant);
        let nsec = self.ts.tv_nsec as u64 + ahead.subsec_nanos() as u64;
        let ts = Timespec {
            tv_sec: self.ts.tv_sec + ahead.as_secs() as i64 + (nsec / 1_000_000_000) as i64,
            tv_nsec: (nsec % 1_000_000_000) as _,
        };
        clock_nanosleep_absolute(ClockId::Monotonic, &ts) != Err(Errno::INTR)
    }
}

/// No closing sample this soon after the last one (see `run_loop`).
const CLOSING_GAP: Duration = Duration::from_millis(50);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A `SampleLoop` on a background thread, with phase marks on the shared timeline.
pub struct Sampler {
    shared: Arc<Shared>,
    handle: Option<JoinHandle<()>>,
    t0: Instant,
    rpi_pmic: Option<bool>,
}

impl Sampler {
    /// Open the files, take the baselines and start sampling.
    pub fn start(
        host: &Host,
        inv: &Inventory,
        cfg: SamplerConfig,
        on_sample: Option<OnSample>,
    ) -> Sampler {
        let mut lp = SampleLoop::new(host, inv, cfg);
        let shared = Arc::clone(&lp.shared);
        let t0 = lp.t0;
        let rpi_pmic = lp.rpi_pmic;
        let handle = std::thread::Builder::new()
            .name("truebench-sampler".into())
            .spawn(move || {
                let mut cb = on_sample;
                lp.run_loop(cb.as_mut().map(|f| f as &mut dyn OnSampleFn));
            })
            .ok();
        Sampler {
            shared,
            handle,
            t0,
            rpi_pmic,
        }
    }

    /// The instant the timeline's seconds count from (to line other logs up with it, such
    /// as `freq::FreqSampler`).
    pub fn t0(&self) -> Instant {
        self.t0
    }

    /// Seconds on the timeline's clock.
    pub fn now(&self) -> f64 {
        self.t0.elapsed().as_secs_f64()
    }

    /// Start a named phase now (ending the open one), with the parallelism it uses. The
    /// power sources are read at the boundary, before the phase's work starts.
    pub fn mark_phase(&self, name: &str, threads: Option<u32>) {
        let t = self.boundary();
        self.lock().begin_phase(name, t, threads);
    }

    /// Read the power sources now, into the series; the boundary's time.
    fn boundary(&self) -> f64 {
        let mut r = lock(&self.shared.reader);
        r.read_power();
        let mut tl = self.lock();
        if !tl.power_readings.is_empty() {
            r.record_power(&mut tl.power_readings);
        }
        r.last_read_t()
    }

    /// The open phase does its work in the kernel (network, storage): `%sys` is expected.
    pub fn mark_kernel_work(&self) {
        self.lock().set_kernel_work();
    }

    /// End the open phase now (with a reading of the power sources).
    pub fn end_phase(&self) {
        let t = self.boundary();
        self.lock().end_phase(t);
    }

    pub fn header(&self) -> TimelineHeader {
        self.lock().header.clone()
    }

    /// Some(pmic) when Raspberry Pi firmware readings are being taken.
    pub fn rpi(&self) -> Option<bool> {
        self.rpi_pmic
    }

    /// A copy of the timeline so far.
    pub fn snapshot(&self) -> Timeline {
        self.lock().full()
    }

    /// The latest sample (a copy of that one only).
    pub fn last_sample(&self) -> Option<truebench_model::timeline::Sample> {
        self.lock().samples.last().cloned()
    }

    /// The readings of the power sources `parts` (indices into the header's power sources)
    /// so far — a copy of those series only, not of the timeline (what a poll during a long
    /// phase needs).
    pub fn power_readings(&self, parts: &[usize]) -> Vec<truebench_model::timeline::PowerSeries> {
        let t = self.lock();
        parts
            .iter()
            .map(|&j| t.power_readings.get(j).cloned().unwrap_or_default())
            .collect()
    }

    /// True when the timeline has a power source.
    pub fn has_power_source(&self) -> bool {
        !self.lock().extra_header.power.is_empty()
    }

    /// Files disabled because a read timed out.
    pub fn disabled(&self) -> Vec<String> {
        lock(&self.shared.disabled).clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        lock(&self.shared.timeline)
    }

    /// Block until sampling ends by itself (the config's `stop` flag, or the callback's
    /// `Break`).
    pub fn wait(&mut self) {
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }

    /// Stop sampling (at once; with an interval of 100 ms or less, at the next tick's due time)
    /// and return the timeline, with the open phase ended and the energy of every phase filled
    /// in.
    pub fn stop(mut self) -> Timeline {
        self.halt();
        let t = self.boundary();
        let mut tl = self.lock().take();
        tl.end_phase(t);
        tl.fill_energy();
        tl
    }

    fn halt(&mut self) {
        {
            let _guard = lock(&self.shared.wake_lock);
            self.shared.stopping.store(true, Ordering::SeqCst);
        }
        self.shared.wake.notify_all();
        self.wait();
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.halt();
    }
}
