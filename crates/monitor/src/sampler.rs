//! `Sampler`: one background thread that owns a `SampleReader` and appends a `Sample` to a
//! shared `Timeline` every interval. It never forks (the Raspberry Pi poller, which must run
//! `vcgencmd`, is a thread of its own).

use crate::reader::{SampleReader, Sources};
use crate::rpi::RpiPoller;
use crate::timeline::{Sample, Timeline, TimelineHeader};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use truebench_host::{Host, Inventory};

/// Called on the sampler thread with each new sample (print it, send it on a channel…).
/// Keep it short: the next sample waits for it.
pub type OnSample = Box<dyn FnMut(&Sample) + Send>;

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
}

impl Default for SamplerConfig {
    fn default() -> Self {
        SamplerConfig {
            interval: Duration::from_secs(5),
            rpi_interval: Duration::from_secs(5),
            nice: true,
            sources: Sources::default(),
        }
    }
}

struct Shared {
    timeline: Mutex<Timeline>,
    stop: Mutex<bool>,
    wake: Condvar,
}

pub struct Sampler {
    shared: Arc<Shared>,
    handle: Option<JoinHandle<()>>,
    t0: Instant,
    rpi_pmic: Option<bool>,
    disabled: Arc<Mutex<Vec<String>>>,
    _rpi: Option<RpiPoller>,
}

impl Sampler {
    /// Open the files, take the baselines and start sampling.
    pub fn start(
        host: &Host,
        inv: &Inventory,
        cfg: SamplerConfig,
        on_sample: Option<OnSample>,
    ) -> Sampler {
        let interval = cfg.interval.max(Duration::from_millis(1));
        let mut reader = SampleReader::with_sources(host, inv, interval, cfg.sources);
        let rpi = RpiPoller::start(host, cfg.rpi_interval);
        if let Some(p) = &rpi {
            reader.set_rpi(Arc::clone(&p.latest));
        }
        let t0 = reader.t0();
        let mut timeline = Timeline::new(reader.header().clone());
        timeline.extra_header = reader.extra_header().clone();
        let shared = Arc::new(Shared {
            timeline: Mutex::new(timeline),
            stop: Mutex::new(false),
            wake: Condvar::new(),
        });
        let disabled = Arc::new(Mutex::new(Vec::new()));
        let sh = Arc::clone(&shared);
        let dis = Arc::clone(&disabled);
        let nice = cfg.nice;
        let handle = std::thread::Builder::new()
            .name("truebench-sampler".into())
            .spawn(move || run(reader, sh, interval, on_sample, nice, dis))
            .ok();
        Sampler {
            shared,
            handle,
            t0,
            rpi_pmic: rpi.as_ref().map(|p| p.pmic),
            disabled,
            _rpi: rpi,
        }
    }

    /// Seconds on the timeline's clock.
    pub fn now(&self) -> f64 {
        self.t0.elapsed().as_secs_f64()
    }

    /// Start a named phase now (ending the open one), with the parallelism it uses.
    pub fn mark_phase(&self, name: &str, threads: Option<u32>) {
        let t = self.now();
        self.lock().begin_phase(name, t, threads);
    }

    /// End the open phase now.
    pub fn end_phase(&self) {
        let t = self.now();
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
        self.lock().clone()
    }

    /// Files disabled because a read timed out.
    pub fn disabled(&self) -> Vec<String> {
        self.disabled
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Timeline> {
        self.shared
            .timeline
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Stop sampling (at once, not at the next tick) and return the timeline, with the open
    /// phase ended and the energy of every phase filled in.
    pub fn stop(mut self) -> Timeline {
        self.halt();
        let t = self.now();
        let mut tl = std::mem::take(&mut *self.lock());
        tl.end_phase(t);
        tl.fill_energy();
        tl
    }

    fn halt(&mut self) {
        *self.shared.stop.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.shared.wake.notify_all();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.halt();
    }
}

fn run(
    mut reader: SampleReader,
    sh: Arc<Shared>,
    interval: Duration,
    mut on_sample: Option<OnSample>,
    nice: bool,
    disabled: Arc<Mutex<Vec<String>>>,
) {
    // Let the kernel batch our timer with others (up to 1 % of the interval, at most 1 ms):
    // a timed wakeup is the largest part of a sample's cost, more so in a VM.
    let slack_ns = (interval.as_nanos() / 100).clamp(50_000, 1_000_000) as libc::c_ulong;
    // SAFETY: PR_SET_TIMERSLACK on the calling thread; failure is harmless.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, slack_ns, 0, 0, 0);
    }
    if nice {
        // SAFETY: setpriority on our own thread id; failure is harmless.
        unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            libc::setpriority(libc::PRIO_PROCESS, tid, 19);
        }
    }
    let start = reader.t0();
    let mut k: u32 = 1;
    loop {
        // Absolute deadlines: sampling does not drift by the cost of each sample. When a
        // sample ran late (a slow file, a busy machine), skip the ticks already missed.
        let mut due = start + interval * k;
        let now = Instant::now();
        if due <= now {
            let behind = now.duration_since(start).as_secs_f64() / interval.as_secs_f64();
            k = behind as u32 + 1;
            due = start + interval * k;
        }
        {
            let mut stop = sh.stop.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if *stop {
                    return;
                }
                let now = Instant::now();
                if now >= due {
                    break;
                }
                stop = sh
                    .wake
                    .wait_timeout(stop, due - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
        }
        k += 1;
        let s = reader.sample();
        if let Some(cb) = on_sample.as_mut() {
            cb(&s);
        }
        if !reader.disabled().is_empty() {
            let mut d = disabled.lock().unwrap_or_else(|e| e.into_inner());
            if d.len() != reader.disabled().len() {
                *d = reader.disabled().to_vec();
            }
        }
        let mut tl = sh.timeline.lock().unwrap_or_else(|e| e.into_inner());
        tl.samples.push(s);
        tl.extra.push(reader.extra().clone());
    }
}
