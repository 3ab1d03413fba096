//! What the renderer knows of the run so far, and the texts made from it: the bar's label and
//! status, the heartbeat line, the ETA.

use std::time::{Duration, Instant};

pub(super) use truebench_suites::progress::mmss;

/// The current phase.
pub(super) struct Phase {
    pub index: usize,
    pub total: usize,
    pub name: String,
    /// The step is a wait (run's idle gate): its verdicts are shown beside the bar instead of
    /// on lines of their own.
    pub waits: bool,
    pub started: Instant,
    pub estimate: Duration,
    pub progress: truebench_workloads::progress::Progress,
}

impl Phase {
    /// The share done and what runs now, once the phase has reported enough to project from.
    pub(super) fn known(&self) -> Option<(f64, String)> {
        self.progress.get().filter(|(f, _)| *f >= 0.02)
    }

    /// Time left: projected from the share done, else the estimate's rest.
    pub(super) fn left(&self) -> Duration {
        let el = self.started.elapsed();
        match self.known() {
            Some((f, _)) => el.mul_f64((1.0 - f) / f),
            None => self.estimate.saturating_sub(el),
        }
    }

    /// The phase's whole expected length: elapsed + left.
    pub(super) fn expected(&self) -> Duration {
        self.started.elapsed() + self.left()
    }
}

/// What the events said so far.
#[derive(Default)]
pub(super) struct State {
    pub plan: Vec<(String, Duration)>,
    pub current: Option<Phase>,
    /// The last wait said (its line), and what the bar shows of it.
    pub waiting: Option<(String, String)>,
    /// Phases ended.
    pub done: usize,
    /// The label of the phase that ended last, shown until the next one starts.
    pub last: String,
    /// Seconds each ended phase took: with `adaptive`, a step not started yet is expected to
    /// take their mean (commands whose steps are alike; `run`'s phases each have their own).
    pub took: Vec<f64>,
    pub adaptive: bool,
}

impl State {
    /// Estimated time left: the current phase's rest plus every phase not started.
    pub(super) fn eta(&self) -> Duration {
        let mean = (self.adaptive && !self.took.is_empty()).then(|| {
            Duration::from_secs_f64(self.took.iter().sum::<f64>() / self.took.len() as f64)
        });
        let rest: Duration = self
            .plan
            .iter()
            .skip(self.done + usize::from(self.current.is_some()))
            .map(|p| mean.unwrap_or(p.1))
            .sum();
        let cur = self.current.as_ref().map(Phase::left).unwrap_or_default();
        rest + cur
    }

    /// The bar's length and position (ms) for the current phase.
    pub(super) fn position(&self) -> Option<(u64, u64)> {
        let c = self.current.as_ref()?;
        if let Some((f, _)) = c.known() {
            return Some((1000, (f * 1000.0) as u64));
        }
        let estimate_ms = (c.estimate.as_millis() as u64).max(1);
        Some((
            estimate_ms,
            (c.started.elapsed().as_millis() as u64).min(estimate_ms),
        ))
    }

    /// Left of the bar: `[3/7] memory`, padded.
    pub(super) fn label(&self) -> String {
        self.current.as_ref().map_or(self.last.clone(), |c| {
            format!("[{}/{}] {:<19}", c.index, c.total, c.name)
        })
    }

    /// Right of the bar: time in the phase, its estimate, the ETA of the run, and the idle
    /// gate's verdict while it waits.
    pub(super) fn status(&self) -> String {
        let Some(c) = &self.current else {
            return format!("{:>12}  ETA {}", "", mmss(self.eta()));
        };
        let wait = self
            .waiting
            .as_ref()
            .filter(|_| c.waits)
            .map(|(_, w)| format!("  {w}"))
            .unwrap_or_default();
        let what = c.known().map(|(_, w)| format!("  {w}")).unwrap_or_default();
        format!(
            "{:>4.0}s/~{:.0}s  ETA {}{what}{wait}",
            c.started.elapsed().as_secs_f64(),
            c.expected().as_secs_f64(),
            mmss(self.eta())
        )
    }
}

/// How often a phase says how far it is when there is no bar.
pub(super) const HEARTBEAT: Duration = Duration::from_secs(30);

/// `truebench: [5/7] compression-multi: 30 s of about 95 s, ETA 2:10`.
/// With the phase's own progress: `… 30 s, 7-zip run 2 of 3 (45 %), about 40 s left, ETA 2:10`.
pub(super) fn phase_line(c: &Phase, eta: Duration) -> String {
    let el = c.started.elapsed().as_secs_f64();
    let est = c.estimate.as_secs_f64();
    let of = match c.known() {
        Some((f, what)) => format!(
            ", {what} ({:.0} %), about {:.0} s left",
            f * 100.0,
            c.left().as_secs_f64()
        ),
        None if el <= est => format!(" of about {est:.0} s"),
        None => format!(" (longer than the estimate of {est:.0} s)"),
    };
    format!(
        "truebench: [{}/{}] {}: {el:.0} s{of}, ETA {}",
        c.index,
        c.total,
        c.name,
        mmss(eta)
    )
}

/// `4.2 s`, `45 s`, `3 min 20 s`.
pub(super) fn short(s: f64) -> String {
    if s < 10.0 {
        format!("{s:.1} s")
    } else if s < 120.0 {
        format!("{s:.0} s")
    } else {
        format!("{} min {:.0} s", (s / 60.0) as u64, s % 60.0)
    }
}
