//! `truebench power`: after the idle gate, the machine's power in a sequence of states — as
//! it is; each low-power step alone (governor `powersave` or the lowest OPP, devfreq devices
//! at `powersave`, PCIe ASPM `powersupersave`/`powersave`) and all together; the big cores
//! offline, then all but CPU 0; as configured again. Each state is one phase: its settings
//! written through the Session's journaled Tuning (put back before the next state, and after
//! Ctrl-C, SIGTERM or a kill), then readings until the power's trend is flat (the settling
//! time, measured), then until the mean's 95 % interval is within the precision asked or
//! the time is up. Network interfaces are never touched.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use truebench_host::{Host, Inventory};
use truebench_model::finding::FindingKind;
use truebench_model::power::{PowerRow, PowerState};
use truebench_model::timeline::{best_power_source, PowerKind, PowerSeries, Timeline};
use truebench_model::{PhaseStatus, PowerBody, RowEvidence, Typed};
use truebench_stats::{batch_mean_interval, mean, slope};

use crate::idle::{self, IdleConfig};
use crate::progress::Event;
use crate::session::{self, Finish, Outcome, Session, SessionError, SessionOptions};

/// Readings a mean needs at least, whatever its interval says.
const MIN_READINGS: usize = 10;
/// The settling window has at least this many readings (and spans `settle_window`).
const MIN_WINDOW: usize = 8;

#[derive(Debug, Clone)]
pub struct PowerOptions {
    pub states: Vec<PowerState>,
    pub only_safe: bool,
    /// Target half-width of each mean's 95 % interval, percent of the mean.
    pub precision_pct: f64,
    /// Longest time per state, settling included.
    pub max_seconds: f64,
    pub tune: bool,
    pub idle: IdleConfig,
    pub force: bool,
    pub sample_interval: Duration,
    /// The power counts as settled once a window this long (and of `MIN_WINDOW` readings) is
    /// flat: 2 s, a few of a slow meter's updates. A scripted meter that settles at once
    /// (the tests') needs less.
    pub settle_window: Duration,
    pub meter: Option<Arc<crate::meter::Meter>>,
    pub truebench_version: String,
}

impl Default for PowerOptions {
    fn default() -> Self {
        PowerOptions {
            states: PowerState::ALL.to_vec(),
            only_safe: false,
            precision_pct: 2.0,
            max_seconds: 300.0,
            tune: true,
            idle: IdleConfig::default(),
            force: false,
            sample_interval: Duration::from_secs(1),
            settle_window: Duration::from_secs(2),
            meter: None,
            truebench_version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PowerError {
    #[error("no power source: give an external meter (--power-cmd CMD or --power-file FILE); this machine has no RAPL or hwmon power, energy or current×voltage sensor truebench can read. Nothing was changed")]
    NoSource,
    #[error(transparent)]
    Session(#[from] SessionError),
}

/// A mean with its 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub n: usize,
    pub mean: f64,
    /// Half-width of the 95 % interval.
    pub ci: f64,
    pub min: f64,
    pub max: f64,
}

/// The mean of `v` with its 95 % interval by batch means (`truebench_stats`): readings next
/// to each other are not independent (a meter read faster than it updates repeats itself; a
/// slow drift), so each of up to 10 batches spans at least two of the meter's updates
/// (`per_update` readings). The meter's resolution bounds the interval from below
/// (`0.57 · resolution / √n`: the mean of n readings each rounded to it), so readings that
/// never change do not claim a perfect mean. None under 2 batches.
pub fn estimate(v: &[f64], per_update: f64, resolution: Option<f64>) -> Option<Estimate> {
    let size = (2.0 * per_update.max(1.0)).ceil() as usize;
    let m = batch_mean_interval(v, size, 10)?;
    let quant = resolution.map_or(0.0, |r| 0.57 * r / (m.n as f64).sqrt());
    Some(Estimate {
        n: m.n,
        mean: m.mean,
        ci: m.half_width.max(quant),
        min: v.iter().copied().fold(f64::INFINITY, f64::min),
        max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    })
}

/// Where the power stopped moving: the first reading of the first window (≥ `window_s`
/// and `MIN_WINDOW` readings) whose trend is flat — its change over the window within a
/// quarter of the precision (or the meter's resolution), or not told apart from noise (the
/// slope within two standard errors of zero).
pub fn settled_at(
    pts: &[(f64, f64)],
    interval_s: f64,
    window_s: f64,
    precision_pct: f64,
    res: f64,
) -> Option<usize> {
    let w = MIN_WINDOW.max((window_s / interval_s.max(1e-3)).ceil() as usize);
    (0..pts.len().checked_sub(w - 1)?).find(|&k| {
        let win = &pts[k..k + w];
        let Some((b, se)) = slope(win) else {
            return false;
        };
        let span = win[w - 1].0 - win[0].0;
        let level = win.iter().map(|p| p.1).sum::<f64>() / w as f64;
        (b * span).abs() <= (0.25 * precision_pct / 100.0 * level.abs()).max(res)
            || b.abs() <= 2.0 * se
    })
}

/// The chosen source's power readings, `(t, W)`, from its series (one per part): an
/// instantaneous source's readings, a counter's mean power between two readings (at their
/// midpoint); several sources (RAPL packages) summed where read at the same instants.
pub fn watts_series(series: &[PowerSeries], kind: PowerKind) -> Vec<(f64, f64)> {
    let counter = matches!(kind, PowerKind::Rapl | PowerKind::HwmonEnergy);
    let one = |s: &PowerSeries| -> Vec<(f64, f64)> {
        let pts = s.t.iter().copied().zip(s.value.iter().copied());
        if counter {
            let v: Vec<(f64, Option<f64>)> = pts.collect();
            v.windows(2)
                .filter_map(|w| match (w[0], w[1]) {
                    ((t0, Some(e0)), (t1, Some(e1))) if t1 > t0 => {
                        Some(((t0 + t1) / 2.0, (e1 - e0) / (t1 - t0)))
                    }
                    _ => None,
                })
                .collect()
        } else {
            pts.filter_map(|(t, v)| Some((t, v?))).collect()
        }
    };
    let Some((first, rest)) = series.split_first() else {
        return Vec::new();
    };
    let mut sum = one(first);
    for s in rest {
        // Both in time order: one walk keeps the instants they share.
        let other = one(s);
        let mut j = 0;
        sum.retain_mut(|(t, w)| {
            while j < other.len() && other[j].0 < *t - 1e-6 {
                j += 1;
            }
            match other.get(j) {
                Some(o) if (o.0 - *t).abs() < 1e-6 => {
                    *w += o.1;
                    true
                }
                _ => false,
            }
        });
    }
    sum
}

/// The smallest step between two different readings (the meter's resolution as seen) and
/// how many readings each value lasted on average.
fn resolution_and_runs(v: &[f64]) -> (Option<f64>, f64) {
    let mut sorted: Vec<f64> = v.iter().map(|x| (x * 1e6).round() / 1e6).collect();
    sorted.sort_by(f64::total_cmp);
    sorted.dedup();
    let res = sorted
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|d| *d > 0.0)
        .fold(None, |m: Option<f64>, d| Some(m.map_or(d, |m| m.min(d))))
        .map(|r| (r * 1e6).round() / 1e6);
    // A value that never changed tells nothing of how often the meter updates: each
    // reading counts as one (its interval is then the resolution's alone).
    let changes = v.windows(2).filter(|w| w[0] != w[1]).count();
    let per_update = if changes == 0 {
        1.0
    } else {
        v.len() as f64 / (changes + 1) as f64
    };
    (res, per_update)
}

/// A step of a state: one setting.
enum Step {
    Governor(usize),
    LowestOpp(usize, u64),
    Devfreq(String),
    Aspm(String),
    Offline(u32),
}

/// The CPUs that may go offline: online, with an `online` file, never CPU 0.
fn hotpluggable(host: &Host, inv: &Inventory) -> Vec<u32> {
    inv.cpus
        .iter()
        .filter(|c| c.online && c.id != 0)
        .filter(|c| host.exists(format!("sys/devices/system/cpu/cpu{}/online", c.id)))
        .map(|c| c.id)
        .collect()
}

/// What `state` writes on this machine, or why it cannot be measured here.
fn plan(
    host: &Host,
    inv: &Inventory,
    state: PowerState,
    only_safe: bool,
) -> Result<Vec<Step>, String> {
    if only_safe && state.risky() {
        return Err("--only-safe: it could cut a remote session".into());
    }
    let governor = || -> Vec<Step> {
        inv.clusters
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                if c.governors.iter().any(|g| g == "powersave") {
                    (c.governor.as_deref() != Some("powersave")).then_some(Step::Governor(i))
                } else {
                    let low = c.opps_khz.iter().copied().min()?;
                    let max = u64::from(c.scaling_max_mhz?) * 1000;
                    (max > low).then_some(Step::LowestOpp(i, low))
                }
            })
            .collect()
    };
    let devfreq = || -> Vec<Step> {
        host.devfreq()
            .into_iter()
            .filter(|d| d.available_governors.iter().any(|g| g == "powersave"))
            .filter(|d| d.governor.as_deref() != Some("powersave"))
            .map(|d| Step::Devfreq(d.name))
            .collect()
    };
    let aspm = || -> Vec<Step> {
        let Some(p) = host.pcie_aspm() else {
            return Vec::new();
        };
        let want = ["powersupersave", "powersave"]
            .into_iter()
            .find(|w| p.available.iter().any(|a| a == w));
        match want {
            Some(w) if p.active.as_deref() != Some(w) => vec![Step::Aspm(w.to_string())],
            _ => Vec::new(),
        }
    };
    let steps = match state {
        PowerState::AsIs | PowerState::AsIsAgain => return Ok(Vec::new()),
        PowerState::Governor => governor(),
        PowerState::Devfreq => devfreq(),
        PowerState::Aspm => aspm(),
        PowerState::Tuned => {
            let mut v = governor();
            v.extend(devfreq());
            if !only_safe {
                v.extend(aspm());
            }
            v
        }
        PowerState::BigOffline => {
            let top = inv.clusters.iter().filter_map(|c| c.max_mhz).max();
            let low = inv.clusters.iter().filter_map(|c| c.max_mhz).min();
            if top.is_none() || top == low {
                return Err("one kind of core: no big cluster".into());
            }
            let big: Vec<u32> = inv
                .clusters
                .iter()
                .filter(|c| c.max_mhz == top)
                .flat_map(|c| c.cpus.iter().copied())
                .collect();
            hotpluggable(host, inv)
                .into_iter()
                .filter(|c| big.contains(c))
                .map(Step::Offline)
                .collect()
        }
        PowerState::OneCpu => hotpluggable(host, inv)
            .into_iter()
            .map(Step::Offline)
            .collect(),
    };
    if steps.is_empty() {
        return Err(match state {
            PowerState::Governor => "no cpufreq policy above its lowest setting".into(),
            PowerState::Devfreq => {
                "no devfreq device that offers powersave and is not at it".into()
            }
            PowerState::Aspm => "no PCIe ASPM policy to lower".into(),
            PowerState::Tuned => "nothing to lower".into(),
            _ => "no CPU the kernel lets go offline (CPU 0 never goes)".into(),
        });
    }
    Ok(steps)
}

/// Write `steps` through the Session; the settings written, in words.
fn apply(s: &mut Session, inv: &Inventory, steps: &[Step]) -> Result<Vec<String>, String> {
    let before = s.tuning_record().changes.len();
    for st in steps {
        match st {
            Step::Governor(i) => s.set_governor(&inv.clusters[*i], "powersave"),
            Step::LowestOpp(i, k) => s.set_max_khz(&inv.clusters[*i], *k),
            Step::Devfreq(d) => s.set_devfreq_governor(d, "powersave"),
            Step::Aspm(p) => s.set_pcie_aspm_policy(p),
            Step::Offline(c) => s.set_cpu_online(*c, false),
        }?;
    }
    Ok(s.tuning_record().changes[before..]
        .iter()
        .map(|c| format!("{} = {}", c.path, c.value))
        .collect())
}

/// What was read while one state was measured.
struct Measured {
    settle_s: Option<f64>,
    from_t: f64,
    est: Option<Estimate>,
    seconds: f64,
    values: Vec<f64>,
}

/// Read until the power is flat, then until the interval is narrow or the time is up.
fn measure(
    s: &Session,
    src: &(Vec<usize>, PowerKind),
    opts: &PowerOptions,
    interval_s: f64,
    stop: &AtomicBool,
) -> Measured {
    let t0 = s.now();
    let poll = Duration::from_secs_f64((interval_s / 2.0).clamp(0.05, 0.5));
    loop {
        let running = idle::pause(poll, stop);
        let pts: Vec<(f64, f64)> = watts_series(&s.power_readings(&src.0), src.1)
            .into_iter()
            .filter(|p| p.0 >= t0)
            .collect();
        let vals: Vec<f64> = pts.iter().map(|p| p.1).collect();
        let (res, per_update) = resolution_and_runs(&vals);
        let elapsed = s.now() - t0;
        let out_of_time = elapsed >= opts.max_seconds || !running;
        let settled = settled_at(
            &pts,
            interval_s,
            opts.settle_window.as_secs_f64(),
            opts.precision_pct,
            res.unwrap_or(0.0),
        );
        let (from, settle_s) = match settled {
            Some(k) => (k, Some(pts[k].0 - t0)),
            // Never flat: the second half says most about where it went.
            None => (pts.len() / 2, None),
        };
        let values: Vec<f64> = vals[from.min(vals.len())..].to_vec();
        let est = estimate(&values, per_update, res);
        let narrow = est.is_some_and(|e| {
            e.n >= MIN_READINGS && e.ci <= opts.precision_pct / 100.0 * e.mean.abs()
        });
        if (settled.is_some() && narrow) || out_of_time {
            return Measured {
                settle_s,
                from_t: pts.get(from).map_or(t0, |p| p.0),
                est,
                seconds: pts.last().map_or(0.0, |l| l.0) - pts.get(from).map_or(t0, |p| p.0),
                values,
            };
        }
    }
}

/// Run the states. `stop` is raised by Ctrl-C or SIGTERM: the running state is marked
/// interrupted, the rest are not started, every setting goes back.
pub fn run(
    host: &Host,
    inv: &Inventory,
    opts: &PowerOptions,
    stop: Arc<AtomicBool>,
    events: &mut dyn FnMut(Event),
) -> Result<Typed<PowerBody>, PowerError> {
    let mut s = Session::start(
        host,
        inv,
        &SessionOptions {
            sample_interval: opts.sample_interval,
            truebench_version: opts.truebench_version.clone(),
            meter: opts.meter.clone(),
            // The first state is the idle power, measured to a stated confidence.
            idle_power: Duration::ZERO,
            ..Default::default()
        },
        stop.clone(),
    )?;
    let tl = s.timeline();
    let Some((source, kind, parts, covers)) = best_power_source(&tl.extra_header.power) else {
        return Err(PowerError::NoSource);
    };
    let interval_s = parts
        .iter()
        .filter_map(|&j| tl.power_readings.get(j).map(|p| p.interval_s))
        .fold(0.0, f64::max)
        .max(0.05);
    idle::gate(&mut s, &opts.idle, opts.force, "power states", events);
    let changing = opts.states.iter().any(|st| st.changes_settings());
    let mut untuned = None;
    if changing {
        if !opts.tune {
            untuned =
                Some("--no-tuning: only the states that change nothing were measured".to_string());
        } else {
            match s.begin_tuning(true, None) {
                Err(e) => untuned = Some(format!("settings could not be changed: {e}")),
                Ok(_) if !s.tuned() => {
                    untuned = Some(format!(
                        "{}: only the states that change nothing were measured",
                        s.tuning_reason().unwrap_or("settings could not be changed")
                    ))
                }
                Ok(_) => {}
            }
        }
    }
    let src = (parts, kind);
    let mut rows = Vec::new();
    let (mut all_values, mut per_updates) = (Vec::new(), Vec::new());
    for (i, &state) in opts.states.iter().enumerate() {
        if s.stopped() {
            break;
        }
        events(Event::step(
            i + 1,
            opts.states.len(),
            format!("{state}: {}", state.title()),
            None,
        ));
        let planned = match (&untuned, state.changes_settings()) {
            (Some(u), true) => Err(u.clone()),
            _ => plan(host, inv, state, opts.only_safe),
        };
        let mut row = PowerRow::new(state);
        let steps = match planned {
            Ok(steps) => steps,
            Err(why) => {
                row.evidence = RowEvidence::new(state, PhaseStatus::Skipped).because(why);
                events(Event::status(
                    PhaseStatus::Skipped,
                    row.evidence.reason.as_deref(),
                ));
                rows.push(row);
                continue;
            }
        };
        let mut m = None;
        let ran = s.phase(state, state.title(), Some(0), Vec::new(), |s| {
            match apply(s, inv, &steps) {
                Err(e) => return Outcome::failed(format!("a setting could not be written: {e}")),
                Ok(c) => row.changes = c,
            }
            m = Some(measure(s, &src, opts, interval_s, &s.stop_flag()));
            Outcome::default()
        });
        row.evidence.status = ran.recorded.status;
        row.evidence.reason = ran.recorded.reason.clone();
        let end_t = ran.recorded.ended.unwrap_or(0.0);
        // Back to as it was before the next state: each state's saving is its own.
        s.restore_now();
        if let Some(m) = m {
            let tl = s.timeline();
            fill_readings(&mut row, &m, &tl, end_t, opts.precision_pct);
            per_updates.push(resolution_and_runs(&m.values).1);
            all_values.extend(m.values);
        }
        events(Event::status(
            row.evidence.status,
            row.mean_w
                .map(|w| format!("{w:.3} W ± {:.3}", row.ci_w.unwrap_or(0.0)))
                .as_deref()
                .or(row.evidence.reason.as_deref()),
        ));
        rows.push(row);
    }
    if s.stopped() {
        s.interrupted("before every state was measured");
    }
    let (resolution_w, _) = resolution_and_runs(&all_values);
    let per_update = mean(per_updates.iter().copied()).unwrap_or(1.0);
    let body = PowerBody {
        source,
        covers,
        interval_s,
        update_s: (per_update > 1.0 || resolution_w.is_some()).then_some(interval_s * per_update),
        resolution_w,
        precision_pct: opts.precision_pct,
        max_seconds: opts.max_seconds,
        only_safe: opts.only_safe,
        untuned,
        states: rows,
    };
    let mut r = s.finish(body, Finish { comparable: true });
    let findings = r.envelope.findings.clone();
    for row in &mut r.body.states {
        // A state measured while something else ran or the SoC throttled is not its power.
        session::mark(
            &mut row.evidence,
            &findings,
            &[FindingKind::BackgroundActivity, FindingKind::Throttling],
            &[],
        );
    }
    deltas(&mut r.body);
    Ok(r)
}

/// A state's figures from its readings and the timeline's samples while it was measured.
fn fill_readings(row: &mut PowerRow, m: &Measured, tl: &Timeline, end_t: f64, precision: f64) {
    row.settle_s = m.settle_s;
    row.seconds = m.seconds.max(0.0);
    row.readings = m.values.len() as u32;
    if let Some(e) = m.est {
        row.mean_w = Some(e.mean);
        row.ci_w = Some(e.ci);
        row.min_w = Some(e.min);
        row.max_w = Some(e.max);
        row.narrowed =
            m.settle_s.is_some() && e.n >= MIN_READINGS && e.ci <= precision / 100.0 * e.mean.abs();
        row.wh_per_day = Some(e.mean * 24.0);
    } else if let (Some(lo), Some(hi)) = (
        m.values.iter().copied().reduce(f64::min),
        m.values.iter().copied().reduce(f64::max),
    ) {
        row.min_w = Some(lo);
        row.max_w = Some(hi);
    }
    if !row.narrowed && row.evidence.status == PhaseStatus::Ok {
        row.evidence.reason = Some(match m.settle_s {
            None => "the power never stopped moving: no settled reading".into(),
            Some(_) => format!(
                "its interval never narrowed to ±{precision} % ({} readings in {:.0} s)",
                m.values.len(),
                m.seconds
            ),
        });
    }
    let within: Vec<_> = tl
        .samples
        .iter()
        .filter(|x| x.t >= m.from_t && x.t <= end_t)
        .collect();
    let busy: Vec<f64> = within.iter().filter_map(|x| x.cpu.map(|c| c.cpu)).collect();
    row.busy_pct = mean(busy);
    let clusters = within
        .iter()
        .map(|x| x.cluster_mhz.len())
        .max()
        .unwrap_or(0);
    row.cluster_mhz = (0..clusters)
        .map(|c| {
            let v: Vec<f64> = within
                .iter()
                .filter_map(|x| x.cluster_mhz.get(c).copied().flatten().map(f64::from))
                .collect();
            mean(v)
        })
        .collect();
    row.cpus_online = within.last().and_then(|x| x.cpus_online);
}

/// Each state against the first `as-is`: the difference, its interval (the two intervals
/// added in quadrature: independent means), in percent.
fn deltas(b: &mut PowerBody) {
    let Some(base) = b
        .states
        .iter()
        .find(|r| r.evidence.phase == PowerState::AsIs && r.mean_w.is_some())
        .map(|r| (r.mean_w.unwrap_or(0.0), r.ci_w.unwrap_or(0.0)))
    else {
        return;
    };
    for r in &mut b.states {
        if r.evidence.phase == PowerState::AsIs {
            continue;
        }
        if let (Some(m), Some(c)) = (r.mean_w, r.ci_w) {
            r.delta_w = Some(m - base.0);
            r.delta_ci_w = Some((c * c + base.1 * base.1).sqrt());
            r.delta_pct = (base.0.abs() > 0.0).then(|| (m - base.0) / base.0 * 100.0);
        }
    }
}

#[cfg(test)]
mod tests {
    //! The states on a scripted ROCK 5B: a fixture meter whose reading is computed from the
    //! tree's settings (a wattage per online CPU, per policy not at powersave, per devfreq
    //! device not at powersave, ASPM not lowered) plus noise, so every saving is known.
    use super::*;
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::Ordering;
    use std::time::Instant;

    /// mW of the scripted board: base, per online CPU, per policy not at powersave, per
    /// devfreq device not at powersave, ASPM not at powersave/powersupersave.
    const BASE: f64 = 2.0;
    const CPU: f64 = 0.25;
    const POLICY: f64 = 0.4;
    const DEVFREQ: f64 = 0.3;
    const ASPM: f64 = 0.2;

    /// The noise is uniform within ±20 mW: four random bytes modulo 40,001 (two bytes, as
    /// before, made the low values twice as likely as the high ones and the mean 2.8 mW low —
    /// outside the tests' tolerance of 1.5 intervals more often than the 0.3 % they allow).
    fn meter_script(root: &Path, extra: &str) -> String {
        let r = root.display();
        format!(
            "w=2250; for f in {r}/sys/devices/system/cpu/cpu[1-9]*/online; do read v < $f; [ \"$v\" = 1 ] && w=$((w+250)); done; \
             for p in {r}/sys/devices/system/cpu/cpufreq/policy*/scaling_governor; do read g < $p; [ \"$g\" = powersave ] || w=$((w+400)); done; \
             for d in {r}/sys/class/devfreq/*/governor; do read g < $d; [ \"$g\" = powersave ] || w=$((w+300)); done; \
             read a < {r}/sys/module/pcie_aspm/parameters/policy; case \"$a\" in *powersave*\\]*|*\\[powersave*|*\\[powersupersave*|powersave|powersupersave) ;; *) w=$((w+200));; esac; \
             {extra} n=$(od -An -N4 -tu4 /dev/urandom); echo $((w*1000 + n % 40001 - 20000)) uW"
        )
    }

    fn tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
        // Tuning's journal directory is truebench's, not the machine's.
        truebench_fixtures::tree_bytes(root, &["var/lib/truebench"])
    }

    fn opts(root: &Path, extra: &str) -> PowerOptions {
        let meter = crate::meter::Meter::start(
            crate::meter::MeterSpec::Command(meter_script(root, extra)),
            Duration::from_millis(50),
        );
        PowerOptions {
            precision_pct: 1.0,
            max_seconds: 30.0,
            force: true,
            sample_interval: Duration::from_millis(100),
            // The scripted meter is flat from its first reading: 20 of its readings suffice.
            // (0.5 s failed once in seven runs, the as-is mean 12 mW below its truth; the
            // noise was then 2.8 mW low on average, a part of that, see `meter_script`. 1 s
            // passed eight of eight.)
            settle_window: Duration::from_millis(1000),
            meter: Some(Arc::new(meter)),
            ..Default::default()
        }
    }

    /// The states change a fixture tree through Tuning, which needs root.
    macro_rules! needs_root {
        () => {
            // SAFETY: geteuid has no preconditions and cannot fail.
            if unsafe { libc::geteuid() } != 0 {
                truebench_fixtures::skip!("Tuning needs root to change the fixture tree");
            }
        };
    }

    /// The recorded ROCK 5B: its directory, the tree as it was, its Host and Inventory.
    fn board() -> (
        tempfile::TempDir,
        BTreeMap<PathBuf, Vec<u8>>,
        Host,
        Inventory,
    ) {
        let dir = truebench_fixtures::root("rk3588-rock5b");
        let host = Host::new(dir.path());
        let inv = Inventory::probe(&host);
        let before = tree(dir.path());
        (dir, before, host, inv)
    }

    #[test]
    fn batch_means_give_the_interval_and_the_resolution_bounds_it() {
        // Alternating readings: the batches agree, the interval is narrow.
        let v: Vec<f64> = (0..100)
            .map(|i| if i % 2 == 0 { 4.9 } else { 5.1 })
            .collect();
        let e = estimate(&v, 1.0, Some(0.2)).unwrap();
        assert!((e.mean - 5.0).abs() < 1e-9);
        // Every batch mean is 5.0: only the resolution's share is left.
        assert!((e.ci - 0.57 * 0.2 / 10.0).abs() < 1e-9, "{e:?}");
        // A drift makes the batch means differ: a wide interval.
        let d: Vec<f64> = (0..100).map(|i| 5.0 + i as f64 * 0.01).collect();
        let e = estimate(&d, 1.0, None).unwrap();
        assert!(e.ci > 0.2, "{e:?}");
        // A meter that repeats each value 10 times has fewer independent readings.
        assert!(estimate(&v[..30], 10.0, None).is_none());
        assert_eq!(resolution_and_runs(&[5.0, 5.0, 5.1, 5.1]), (Some(0.1), 2.0));
        // A meter that always says the same: narrow at once, nothing to bound it by.
        let same = [5.0; 12];
        let (res, per) = resolution_and_runs(&same);
        assert_eq!((res, per), (None, 1.0));
        let e = estimate(&same, per, res).unwrap();
        assert_eq!((e.mean, e.ci, e.n), (5.0, 0.0, 12));
    }

    #[test]
    fn a_counter_gives_the_mean_power_between_readings_and_packages_add_up() {
        use truebench_model::timeline::PowerSeries;
        let mut tl = Timeline::default();
        for scale in [1.0, 2.0] {
            let mut p = PowerSeries::new(0.5);
            // RAPL joules since the first reading: 3 W, then 5 W (× scale).
            for (t, j) in [(0.0, 0.0), (0.5, 1.5), (1.0, 3.0), (1.5, 5.5)] {
                p.push(t, Some(j * scale));
            }
            tl.power_readings.push(p);
        }
        let w = watts_series(&tl.power_readings, PowerKind::Rapl);
        assert_eq!(w, [(0.25, 9.0), (0.75, 9.0), (1.25, 15.0)]);
        // An instantaneous source's readings are its watts.
        assert_eq!(
            watts_series(&tl.power_readings[..1], PowerKind::External)[3],
            (1.5, 5.5)
        );
    }

    #[test]
    fn settling_is_where_the_decay_flattens() {
        // 10 Hz readings of a power decaying from 6 W to 4 W with a 1 s time constant.
        let pts: Vec<(f64, f64)> = (0..100)
            .map(|i| {
                let t = i as f64 * 0.1;
                (t, 4.0 + 2.0 * (-t).exp())
            })
            .collect();
        let k = settled_at(&pts, 0.1, 2.0, 2.0, 0.0).unwrap();
        // Flat within a quarter of 2 % of 4 W over 2 s: the decay is then < 0.02 W.
        assert!((2.5..6.0).contains(&pts[k].0), "settled at {} s", pts[k].0);
        let flat: Vec<(f64, f64)> = (0..30).map(|i| (i as f64 * 0.1, 4.0)).collect();
        assert_eq!(settled_at(&flat, 0.1, 2.0, 2.0, 0.0), Some(0));
        assert_eq!(settled_at(&flat[..10], 0.1, 2.0, 2.0, 0.0), None);
    }

    #[test]
    fn states_on_a_scripted_board_match_its_truth_and_the_tree_is_restored() {
        needs_root!();
        let (dir, before, host, inv) = board();
        let root = dir.path();
        let o = opts(root, "");
        let stop = Arc::new(AtomicBool::new(false));
        let r = run(&host, &inv, &o, stop, &mut |_| {}).unwrap();
        assert_eq!(tree(root), before, "the tree is not as it was");
        let b = &r.body;
        assert!(b.source.starts_with("power-cmd"), "{}", b.source);
        let by = |s: PowerState| b.states.iter().find(|r| r.evidence.phase == s).unwrap();
        // The scripted truth: 8 CPUs online, 3 policies at ondemand, 3 devfreq devices, ASPM
        // default.
        let asis = BASE + 8.0 * CPU + 3.0 * POLICY + 3.0 * DEVFREQ + ASPM;
        let truth = [
            (PowerState::Governor, -3.0 * POLICY),
            (PowerState::Devfreq, -3.0 * DEVFREQ),
            (PowerState::Aspm, -ASPM),
            (PowerState::Tuned, -3.0 * POLICY - 3.0 * DEVFREQ - ASPM),
            (PowerState::BigOffline, -4.0 * CPU),
            (PowerState::OneCpu, -7.0 * CPU),
            (PowerState::AsIsAgain, 0.0),
        ];
        let a = by(PowerState::AsIs);
        assert!(a.narrowed, "{a:?}");
        let (m, c) = (a.mean_w.unwrap(), a.ci_w.unwrap());
        // Within 1.5 times the stated 95 % interval (a 0.3 % chance of failing by luck).
        assert!(
            (m - asis).abs() <= 1.5 * c + 0.002,
            "as is {m} ± {c}, truth {asis}"
        );
        assert!(
            a.settle_s.is_some() && a.readings >= MIN_READINGS as u32,
            "{a:?}"
        );
        for (state, saving) in truth {
            let r = by(state);
            assert_eq!(r.evidence.status, PhaseStatus::Ok, "{state}: {r:?}");
            assert!(r.narrowed, "{state}: {r:?}");
            let (d, dc) = (r.delta_w.unwrap(), r.delta_ci_w.unwrap());
            assert!(
                (d - saving).abs() <= 1.5 * dc + 0.002,
                "{state}: {d} ± {dc}, truth {saving}"
            );
            // The interval is as narrow as asked: the test could fail.
            assert!(
                r.ci_w.unwrap() <= 0.01 * r.mean_w.unwrap(),
                "{state}: {r:?}"
            );
            assert!(dc < 0.1, "{state}: {r:?}");
            if state.changes_settings() {
                assert!(!r.changes.is_empty(), "{state}: {r:?}");
            }
        }
        assert_eq!(by(PowerState::OneCpu).changes.len(), 7);
        assert!(by(PowerState::BigOffline).changes.iter().all(|c| [
            "cpu4", "cpu5", "cpu6", "cpu7"
        ]
        .iter()
        .any(|n| c.contains(n))));
        // Each state is its own phase of the envelope.
        for s in PowerState::ALL {
            assert!(r.envelope.phase(*s).is_some(), "{s}");
        }
    }

    /// Only-safe: nothing that could cut a remote session.
    #[test]
    fn only_safe_skips_aspm_and_tunes_without_it() {
        needs_root!();
        let (dir, before, host, inv) = board();
        let root = dir.path();
        let safe = PowerOptions {
            only_safe: true,
            states: vec![PowerState::AsIs, PowerState::Aspm, PowerState::Tuned],
            ..opts(root, "")
        };
        let r = run(
            &host,
            &inv,
            &safe,
            Arc::new(AtomicBool::new(false)),
            &mut |_| {},
        )
        .unwrap();
        let aspm = &r.body.states[1];
        assert_eq!(aspm.evidence.status, PhaseStatus::Skipped);
        assert!(aspm
            .evidence
            .reason
            .as_deref()
            .unwrap()
            .contains("--only-safe"));
        assert!(!r.body.states[2].changes.iter().any(|c| c.contains("aspm")));
        assert_eq!(tree(root), before);
    }

    #[test]
    fn only_the_state_measured_while_throttling_is_marked() {
        needs_root!();
        let dir = truebench_fixtures::root("rk3588-rock5b");
        let root = dir.path();
        let stats = truebench_fixtures::cooling_device(root);
        let host = Host::new(root);
        let inv = Inventory::probe(&host);
        // The meter throttles the board while the devfreq devices are at powersave.
        let throttle = format!(
            "read g < {}/sys/class/devfreq/dmc/governor; [ \"$g\" = powersave ] && printf 'state0 1000\\nstate1 300\\n' > {};",
            root.display(),
            stats.display()
        );
        let o = PowerOptions {
            states: vec![PowerState::AsIs, PowerState::Devfreq, PowerState::AsIsAgain],
            ..opts(root, &throttle)
        };
        let r = run(
            &host,
            &inv,
            &o,
            Arc::new(AtomicBool::new(false)),
            &mut |_| {},
        )
        .unwrap();
        for row in &r.body.states {
            let marked = row.evidence.marks.iter().any(|m| m == "throttling");
            assert_eq!(marked, row.evidence.phase == PowerState::Devfreq, "{row:?}");
            assert_eq!(row.evidence.invalid.is_some(), marked, "{row:?}");
        }
    }

    #[test]
    fn without_a_power_source_nothing_is_changed() {
        let (dir, before, host, inv) = board();
        let root = dir.path();
        let o = PowerOptions {
            force: true,
            sample_interval: Duration::from_millis(100),
            ..Default::default()
        };
        let e = run(
            &host,
            &inv,
            &o,
            Arc::new(AtomicBool::new(false)),
            &mut |_| {},
        )
        .unwrap_err();
        assert!(matches!(e, PowerError::NoSource), "{e}");
        assert!(e.to_string().contains("--power-cmd"), "{e}");
        assert_eq!(tree(root), before);
    }

    /// Until `file` no longer reads as `was` (a state's setting was written).
    fn wait_changed(file: &Path, was: &[u8]) {
        let t0 = Instant::now();
        while std::fs::read(file).unwrap_or_default() == was {
            assert!(
                t0.elapsed() < Duration::from_secs(60),
                "never changed: {}",
                file.display()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    const GOV4: &str = "sys/devices/system/cpu/cpufreq/policy4/scaling_governor";

    #[test]
    fn stopped_in_a_state_every_setting_goes_back() {
        // Ctrl-C and SIGTERM raise the same stop flag.
        needs_root!();
        let (dir, before, host, inv) = board();
        let root = dir.path().to_path_buf();
        let stop = Arc::new(AtomicBool::new(false));
        let raiser = {
            let (stop, file, was) = (
                stop.clone(),
                root.join(GOV4),
                before[Path::new(GOV4)].clone(),
            );
            std::thread::spawn(move || {
                wait_changed(&file, &was);
                stop.store(true, Ordering::SeqCst);
            })
        };
        let r = run(&host, &inv, &opts(&root, ""), stop, &mut |_| {}).unwrap();
        raiser.join().unwrap();
        assert!(!r.envelope.complete);
        let gov = r
            .body
            .states
            .iter()
            .find(|s| s.evidence.phase == PowerState::Governor);
        assert_eq!(gov.unwrap().evidence.status, PhaseStatus::Interrupted);
        assert!(r.body.states.len() < PowerState::ALL.len());
        assert_eq!(tree(&root), before);
    }

    /// Run by `killed_in_a_state_the_next_start_restores_the_tree` in a child process (the
    /// test binary itself), which it kills.
    #[test]
    #[ignore = "the child of killed_in_a_state_the_next_start_restores_the_tree"]
    fn child_measuring_power_states() {
        let root = PathBuf::from(std::env::var_os("TRUEBENCH_POWER_CHILD_ROOT").unwrap());
        let host = Host::new(&root);
        let inv = Inventory::probe(&host);
        let _ = run(
            &host,
            &inv,
            &opts(&root, ""),
            Arc::new(AtomicBool::new(false)),
            &mut |_| {},
        );
    }

    #[test]
    fn killed_in_a_state_the_next_start_restores_the_tree() {
        needs_root!();
        let (dir, before, _, _) = board();
        let root = dir.path().to_path_buf();
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--ignored",
                "--exact",
                "power::tests::child_measuring_power_states",
            ])
            .env("TRUEBENCH_POWER_CHILD_ROOT", &root)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        wait_changed(&root.join(GOV4), &before[Path::new(GOV4)]);
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        assert_ne!(tree(&root), before, "SIGKILL left the state's settings");
        // What every truebench command does first.
        let rep = truebench_tuning::recover(&Host::new(&root)).unwrap();
        assert!(rep.is_some());
        assert_eq!(tree(&root), before);
    }
}
