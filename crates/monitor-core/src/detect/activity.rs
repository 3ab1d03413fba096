//! Background activity: CPU time other processes took while a benchmark ran.
//!
//! sbc-bench's rule (ValidateResults in sbc-bench.sh): during the single-threaded
//! benchmarks `%cpu` must be `100 / cores`; the first line of each monitoring table is
//! skipped; over the lines at or above that ideal it flags a peak excess > 8/5/3/2 points
//! or an average excess > 2/1/1/0 points on 2/4/6/8 cores (only the average, > 0, above 8).
//! Those tolerances amount to ~16–20 % of one core at peak and ~4–6 % of one core on
//! average, expressed in %-of-all-CPUs. truebench states them per core, so they work for
//! any core count and any phase parallelism:
//!
//! * expected `%cpu` of a phase = `threads / online CPUs × 100`;
//! * excess per sample = `%cpu − expected` (first sample of a phase skipped: its interval
//!   starts before the phase);
//! * warning when the peak excess exceeds 20 % of one core (`20 / n` points) or the mean
//!   excess (negative excess counted as 0) exceeds 5 % of one core (`5 / n` points);
//! * critical when the mean excess exceeds 20 % of one core: a fifth of a core taken away
//!   all the time.
//!
//! At the boundary: a source that prints whole percent (sbc-bench's monitor, bash's integer
//! arithmetic) floors, so a printed `r` means a true value in `[r, r+1)` (on 12 CPUs one
//! point is 12 % of a core). Each check is judged on that interval: within when all of it
//! is, over when all of it is beyond, and *undecidable* (an info finding saying so) when the
//! tolerance falls inside it. Means are weighted by the time each sample covers, without the
//! single highest sample: one spike is the peak rule's business and must not lift a short
//! phase's mean to the limit.
//!
//! Phases that use every CPU cannot show background in `%cpu`: they are judged by the other
//! processes' own CPU time in the process tables read at the phase boundaries (when there
//! are any; an imported log has none). Unlike sbc-bench, truebench names the processes, from
//! those per-process CPU times (or the run's before/after snapshots).

use truebench_host::Inventory;

use super::{capped, fmt_sample};
use crate::evidence::{ProcessDelta, ProcessTable};
use truebench_model::finding::{Finding, FindingKind, Severity};
use truebench_model::timeline::{Phase, Sample, Timeline};

/// Peak excess tolerated, in % of one core.
pub const PEAK_CORE_PCT: f64 = 20.0;
/// Mean excess tolerated, in % of one core.
pub const MEAN_CORE_PCT: f64 = 5.0;
/// Mean excess that makes results invalid, in % of one core.
pub const CRITICAL_CORE_PCT: f64 = 20.0;
/// Peak `%sys` tolerated in a benchmark phase (sbc-bench's limit too).
pub const PEAK_SYS_PCT: f64 = 15.0;

/// The processes that used CPU between the last table at or before `start` and the first
/// at or after `end` (as evidence lines), or None without such a pair.
pub fn processes_between(
    tables: &[(f64, &ProcessTable)],
    start: f64,
    end: f64,
) -> Option<(f64, f64, Vec<ProcessDelta>)> {
    // A snapshot taken "at" a boundary may be stamped a little after it.
    const SLACK: f64 = 0.5;
    let a = tables.iter().rev().find(|(t, _)| *t <= start + SLACK)?;
    let b = tables.iter().find(|(t, _)| *t >= end - SLACK && *t > a.0)?;
    Some((a.0, b.0, a.1.delta(b.1)))
}

/// Evidence lines naming the top processes.
pub fn process_lines(from: f64, to: f64, deltas: &[ProcessDelta]) -> Vec<String> {
    let top: Vec<String> = deltas
        .iter()
        .filter(|d| d.total_s() >= 0.01)
        .take(8)
        .map(|d| {
            let mut s = format!("{} (pid {}): {:.2} s", d.comm, d.pid, d.cpu_s);
            if d.children_s > 0.0 {
                s.push_str(&format!(" + {:.2} s in exited children", d.children_s));
            }
            if d.new {
                s.push_str(", started meanwhile");
            }
            s
        })
        .collect();
    if top.is_empty() {
        return vec![format!(
            "No other process used measurable CPU time between t={from:.1}s and t={to:.1}s (processes that started and ended in between cannot be seen)"
        )];
    }
    let mut v = vec![format!(
        "CPU time of other processes between t={from:.1}s and t={to:.1}s (truebench and the benchmark excluded):"
    )];
    v.extend(top.into_iter().map(|s| format!("  {s}")));
    v
}

fn names(deltas: &[ProcessDelta]) -> String {
    let v: Vec<&str> = deltas
        .iter()
        .filter(|d| d.total_s() >= 0.01)
        .take(3)
        .map(|d| d.comm.as_str())
        .collect();
    v.join(", ")
}

/// Samples of a phase, its first one skipped.
fn phase_samples<'a>(tl: &'a Timeline, p: &Phase) -> &'a [Sample] {
    let s = tl.samples_in(p);
    if s.is_empty() {
        s
    } else {
        &s[1..]
    }
}

fn ncpus(inv: &Inventory, samples: &[Sample]) -> f64 {
    let from_inv = inv.online_cpus().count();
    let n = if from_inv > 0 {
        from_inv as u32
    } else {
        samples
            .iter()
            .filter_map(|s| s.cpus_online)
            .max()
            .unwrap_or(1)
    };
    n.max(1) as f64
}

/// True when every value is a whole number (at least two of them): a source that floors
/// to whole percent, such as sbc-bench's monitor, whose `r` means a value in `[r, r+1)`.
pub fn floored(values: impl IntoIterator<Item = f64>) -> bool {
    let mut n = 0;
    for v in values {
        if v.fract() != 0.0 {
            return false;
        }
        n += 1;
    }
    n >= 2
}

/// How a check's value stands against its tolerance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judged {
    Within,
    Over,
    /// The tolerance lies inside the interval the readings allow.
    Undecidable,
}

/// Judge a value known to lie in `[lo, hi)` (`hi == lo`: known exactly) against `tol`.
/// `strict`: the value must stay below the tolerance, not only not exceed it.
pub fn judge(lo: f64, hi: f64, tol: f64, strict: bool) -> Judged {
    const E: f64 = 1e-9;
    let over = if strict { lo >= tol - E } else { lo > tol + E };
    if over {
        Judged::Over
    } else if hi <= lo || hi <= tol + E {
        Judged::Within
    } else {
        Judged::Undecidable
    }
}

/// The info finding for a check its readings cannot decide.
fn undecidable(kind: FindingKind, phase: &str, message: String, ev: Vec<String>) -> Finding {
    Finding::new(kind, Severity::Info, message)
        .with_evidence(ev)
        .in_phase(phase)
        .undecidable()
}

/// `2.3` for an exact value, `2.3–3.3` for an interval.
fn iv(lo: f64, hi: f64) -> String {
    if hi > lo {
        format!("{lo:.1}–{hi:.1}")
    } else {
        format!("{lo:.1}")
    }
}

/// Mean of `(value, sample)` pairs weighted by the time each sample covers (since the
/// sample before it in the timeline), leaving out the single highest value when there are
/// at least three: a spike alone must not decide a mean.
pub fn robust_weighted_mean(tl: &Timeline, vals: &[(f64, &Sample)]) -> f64 {
    let weight = |s: &Sample| -> f64 {
        let prev = tl.samples.iter().rev().find(|p| p.t < s.t).map(|p| p.t);
        prev.map_or(1.0, |p| (s.t - p).max(1e-3))
    };
    let skip = if vals.len() >= 3 {
        vals.iter()
            .enumerate()
            .max_by(|a, b| a.1 .0.total_cmp(&b.1 .0))
            .map(|(i, _)| i)
    } else {
        None
    };
    let (mut sum, mut wsum) = (0.0, 0.0);
    for (i, (v, s)) in vals.iter().enumerate() {
        if Some(i) == skip {
            continue;
        }
        let w = weight(s);
        sum += v * w;
        wsum += w;
    }
    if wsum > 0.0 {
        sum / wsum
    } else {
        0.0
    }
}

/// One finding per phase whose `%cpu` exceeded what its threads use.
pub fn background_activity(
    inv: &Inventory,
    tl: &Timeline,
    tables: &[(f64, &ProcessTable)],
) -> Vec<Finding> {
    let mut out = Vec::new();
    for p in &tl.phases {
        let samples = phase_samples(tl, p);
        let n = ncpus(inv, samples);
        let Some(threads) = p.threads else {
            // A monitored command's parallelism is not known: judged by the CPU time of the
            // processes outside truebench's tree (the command and its children are inside
            // it). The idle gate has its own verdict.
            if !truebench_model::PhaseId::is(&truebench_model::phase::IDLE, &p.name) {
                out.extend(others_by_process_table(p, n, samples, tables, false));
            }
            continue;
        };
        if p.kernel_work {
            out.extend(others_by_process_table(p, n, samples, tables, true));
            continue;
        }
        // A phase on every CPU leaves no room in `%cpu` for others to show: their own CPU
        // time in the process tables says what they took (an all-core benchmark with a
        // compile beside it).
        if threads as f64 >= n {
            out.extend(others_by_process_table(p, n, samples, tables, false));
            continue;
        }
        if samples.is_empty() {
            continue;
        }
        let expected = threads as f64 / n * 100.0;
        let excess: Vec<(f64, &Sample)> = samples
            .iter()
            .filter_map(|s| Some((s.cpu?.cpu - expected, s)))
            .collect();
        if excess.is_empty() {
            continue;
        }
        // Floored readings: the true excess of a sample lies in [e, e+1).
        let step = if floored(samples.iter().filter_map(|s| s.cpu.map(|c| c.cpu))) {
            1.0
        } else {
            0.0
        };
        let peak = excess.iter().map(|e| e.0).fold(f64::MIN, f64::max);
        let positive = |d: f64| -> Vec<(f64, &Sample)> {
            excess.iter().map(|e| ((e.0 + d).max(0.0), e.1)).collect()
        };
        let mean = robust_weighted_mean(tl, &positive(0.0));
        let mean_hi = robust_weighted_mean(tl, &positive(step));
        let peak_tol = PEAK_CORE_PCT / n;
        let mean_tol = MEAN_CORE_PCT / n;
        let jp = judge(peak, peak + step, peak_tol, false);
        let jm = judge(mean, mean_hi, mean_tol, false);
        if jp == Judged::Within && jm == Judged::Within {
            continue;
        }
        let mut ev = vec![format!(
            "expected {expected:.1} % cpu ({threads} of {n} CPUs); excess {} % mean without the highest sample, weighted by time (tolerated {mean_tol:.2}), {} % peak (tolerated {peak_tol:.2}){}",
            iv(mean, mean_hi),
            iv(peak, peak + step),
            if step > 0.0 { "; the readings are floored whole percent, so each lies in [r, r+1)" } else { "" }
        )];
        ev.extend(capped(
            excess
                .iter()
                .filter(|e| e.0 + step > peak_tol || e.0 + step > mean_tol)
                .map(|e| fmt_sample(e.1))
                .collect(),
            12,
        ));
        if jp != Judged::Over && jm != Judged::Over {
            out.push(undecidable(
                FindingKind::BackgroundActivity,
                &p.name,
                format!(
                    "Background activity during '{}' cannot be decided: the whole-percent readings put the other processes' share at {} % on average and {} % at peak, and the tolerance ({mean_tol:.2} and {peak_tol:.2} points) lies inside that range.",
                    p.name,
                    iv(mean, mean_hi),
                    iv(peak, peak + step)
                ),
                ev,
            ));
            continue;
        }
        let sev = if mean > CRITICAL_CORE_PCT / n {
            Severity::Critical
        } else {
            Severity::Warning
        };
        let end = p
            .end
            .unwrap_or_else(|| samples.last().map_or(p.start, |s| s.t));
        let procs = processes_between(tables, p.start, end);
        let who = procs
            .as_ref()
            .map(|(_, _, d)| names(d))
            .filter(|s| !s.is_empty())
            .map(|s| format!(" (top: {s})"))
            .unwrap_or_default();
        if let Some((a, b, d)) = &procs {
            ev.extend(process_lines(*a, *b, d));
        }
        out.push(
            Finding::new(
                FindingKind::BackgroundActivity,
                sev,
                format!(
                    "Other processes{who} used {mean:.1} % of all CPUs on average (up to {peak:.0} %) during '{}', on top of the benchmark's {expected:.0} %: scores are lower than they should be; stop them and run again.",
                    p.name
                ),
            )
            .with_evidence(ev)
            .in_phase(&p.name),
        );
    }
    out
}

/// Background activity in a phase whose CPU use is not known in advance — work that is the
/// kernel's (TCP, storage: softirq and interrupt time on any core, both ends of a loopback
/// transfer; `kernel_work`) or a monitored command of unknown parallelism — so `%cpu` minus
/// the threads says nothing. Judged instead by the CPU time of the other processes in the
/// process tables (truebench's tree, which holds the command, is not in them); with
/// `kernel_work`, `ksoftirqd` does the phase's own softirq work.
fn others_by_process_table(
    p: &truebench_model::timeline::Phase,
    n: f64,
    samples: &[Sample],
    tables: &[(f64, &ProcessTable)],
    kernel_work: bool,
) -> Option<Finding> {
    let end = p
        .end
        .unwrap_or_else(|| samples.last().map_or(p.start, |s| s.t));
    let (a, b, d) = processes_between(tables, p.start, end)?;
    if b <= a || n <= 0.0 {
        return None;
    }
    let others: Vec<ProcessDelta> = d
        .into_iter()
        .filter(|x| !(kernel_work && x.comm.starts_with("ksoftirqd/")))
        .collect();
    // Own CPU time only: exited children are reaped with all their time at once, which can
    // exceed the window.
    let share = (others.iter().map(|x| x.cpu_s).sum::<f64>() / ((b - a) * n) * 100.0).min(100.0);
    let tol = MEAN_CORE_PCT / n;
    if share <= tol {
        return None;
    }
    let sev = if share > CRITICAL_CORE_PCT / n {
        Severity::Critical
    } else {
        Severity::Warning
    };
    let own = if kernel_work {
        "the phase's own kernel and softirq time is not counted against it"
    } else {
        "the command's own processes are not counted against it"
    };
    let mut ev = vec![format!(
        "other processes' CPU time from the process table: {share:.1} % of all CPUs (tolerated {tol:.2}); {own}"
    )];
    ev.extend(process_lines(a, b, &others));
    Some(
        Finding::new(
            FindingKind::BackgroundActivity,
            sev,
            format!(
                "Other processes{} used {share:.1} % of all CPUs during '{}': scores are lower than they should be; stop them and run again.",
                Some(names(&others))
                    .filter(|s| !s.is_empty())
                    .map(|s| format!(" (top: {s})"))
                    .unwrap_or_default(),
                p.name
            ),
        )
        .with_evidence(ev)
        .in_phase(&p.name),
    )
}

/// `%sys` high during benchmark phases (sbc-bench: peak > 15 or integer mean ≥ 1). Usually
/// swapping to zram or a busy driver; single-threaded benchmarks spend ~0 % in the kernel.
/// Multi-threaded phases fault in their own memory (7-zip allocates its dictionaries per
/// thread): the corpus shows 1–2.5 % sys in clean all-core 7-zip runs that sbc-bench rightly
/// did not flag, so the tolerated mean grows with the share of CPUs the phase uses, up to 3 %.
pub fn system_activity(tl: &Timeline, tables: &[(f64, &ProcessTable)]) -> Vec<Finding> {
    let mut out = Vec::new();
    // A phase whose work is kernel work (TCP, storage) has %sys by design.
    for p in tl
        .phases
        .iter()
        .filter(|p| p.threads.is_some() && !p.kernel_work)
    {
        let threads = p.threads.unwrap_or(1) as f64;
        let samples = phase_samples(tl, p);
        let sys: Vec<(f64, &Sample)> = samples
            .iter()
            .filter_map(|s| Some((s.cpu?.sys, s)))
            .collect();
        if sys.is_empty() {
            continue;
        }
        let peak = sys.iter().map(|s| s.0).fold(f64::MIN, f64::max);
        let mean = robust_weighted_mean(tl, &sys);
        // Floored readings: the true value of a sample lies in [r, r+1).
        let step = if floored(sys.iter().map(|s| s.0)) {
            1.0
        } else {
            0.0
        };
        let mean_hi = robust_weighted_mean(
            tl,
            &sys.iter().map(|(v, s)| (v + step, *s)).collect::<Vec<_>>(),
        );
        let online = samples
            .iter()
            .find_map(|s| s.cpus_online)
            .map(f64::from)
            .filter(|&n| n > 0.0);
        // The phase's own page faults show in %sys diluted by the CPUs it does not use: the
        // allowance grows with its share of the machine (a single-threaded benchmark on a
        // one-CPU board is an all-CPU phase).
        let share = match online {
            Some(n) => (threads / n).min(1.0),
            None if threads > 1.0 => 1.0,
            None => 0.0,
        };
        let mean_tol = 1.0 + 2.0 * share;
        let jp = judge(peak, peak + step, PEAK_SYS_PCT, false);
        let jm = judge(mean, mean_hi, mean_tol, true);
        if jp == Judged::Within && jm == Judged::Within {
            continue;
        }
        let mut ev = vec![format!(
            "%sys {} % mean without the highest sample, weighted by time (tolerated < {mean_tol:.1}: {threads} thread(s) on {} CPUs), {} % peak (tolerated {PEAK_SYS_PCT:.0}){}",
            iv(mean, mean_hi),
            online.map_or("an unknown number of".into(), |n| format!("{n:.0}")),
            iv(peak, peak + step),
            if step > 0.0 { "; the readings are floored whole percent, so each lies in [r, r+1)" } else { "" }
        )];
        ev.extend(capped(
            sys.iter()
                .filter(|s| s.0 >= 1.0)
                .map(|s| fmt_sample(s.1))
                .collect(),
            12,
        ));
        let end = p
            .end
            .unwrap_or_else(|| samples.last().map_or(p.start, |s| s.t));
        // When no other process used CPU time in the phase, the kernel time is the
        // measurement's own (page faults of its buffers, starting the tool): worth a note,
        // not a warning that asks the user to stop processes that do not exist.
        let mut own = false;
        if let Some((a, b, d)) = processes_between(tables, p.start, end) {
            own = !d.iter().any(|x| x.total_s() >= 0.01);
            ev.extend(process_lines(a, b, &d));
        }
        if own {
            ev.push(
                "no other process ran: the kernel time is the benchmark's own (page faults of its buffers, starting the tool)"
                    .into(),
            );
        }
        if jp != Judged::Over && jm != Judged::Over {
            out.push(undecidable(
                FindingKind::SystemActivity,
                &p.name,
                format!(
                    "Kernel time during '{}' cannot be decided: the whole-percent readings put %sys at {} % on average and {} % at peak, and the tolerance (< {mean_tol:.1} on average, {PEAK_SYS_PCT:.0} at peak) lies inside that range.",
                    p.name,
                    iv(mean, mean_hi),
                    iv(peak, peak + step)
                ),
                ev,
            ));
            continue;
        }
        out.push(
            Finding::new(
                FindingKind::SystemActivity,
                if own { Severity::Info } else { Severity::Warning },
                format!(
                    "The kernel was busy during '{}' ({mean:.1} % sys on average, up to {peak:.1} %): benchmarks spend almost no time in the kernel, so this is usually swapping to zram, a busy driver or the command's own I/O; check the processes listed and run again.",
                    p.name
                ),
            )
            .with_evidence(ev)
            .in_phase(&p.name),
        );
    }
    out
}

/// The idle gate (sbc-bench waits until the 1-minute load is below 0.1 or `%cpu` below
/// 2.5 % over 30 s): a finding when *both* are above over the given samples (the last
/// `load1` and the mean `%cpu`), naming processes when their deltas are given.
pub fn not_idle(
    samples: &[Sample],
    processes: Option<(f64, f64, &[ProcessDelta])>,
) -> Option<Finding> {
    let cpu: Vec<f64> = samples
        .iter()
        .filter_map(|s| s.cpu.map(|c| c.cpu))
        .collect();
    if cpu.is_empty() {
        return None;
    }
    let mean = cpu.iter().sum::<f64>() / cpu.len() as f64;
    let load = samples.iter().rev().find_map(|s| s.load1);
    if mean < 2.5 || load.is_some_and(|l| l < 0.1) {
        return None;
    }
    let mut ev = vec![format!(
        "mean %cpu {mean:.1} (needs < 2.5), 1-minute load {} (needs < 0.10)",
        load.map_or("unknown".into(), |l| format!("{l:.2}"))
    )];
    ev.extend(capped(samples.iter().map(fmt_sample).collect(), 12));
    let mut who = String::new();
    if let Some((a, b, d)) = processes {
        let n = names(d);
        if !n.is_empty() {
            who = format!(" (top: {n})");
        }
        ev.extend(process_lines(a, b, d));
    }
    Some(
        Finding::new(
            FindingKind::NotIdle,
            Severity::Warning,
            format!(
                "The system is not idle{who}: {mean:.1} % CPU used with load {}; stop other work before benchmarking.",
                load.map_or("unknown".into(), |l| format!("{l:.2}"))
            ),
        )
        .with_evidence(ev),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use truebench_model::timeline::{CpuPct, TimelineHeader};

    fn s(t: f64, cpu: f64, sys: f64) -> Sample {
        Sample {
            t,
            cpu: Some(CpuPct {
                cpu,
                sys,
                usr: cpu - sys,
                ..Default::default()
            }),
            load1: Some(1.0),
            cpus_online: Some(4),
            ..Default::default()
        }
    }

    fn tl(vals: &[(f64, f64)], threads: u32) -> Timeline {
        let mut tl = Timeline::new(TimelineHeader::default());
        for (i, &(c, sys)) in vals.iter().enumerate() {
            tl.samples.push(s(i as f64 + 0.5, c, sys));
        }
        tl.begin_phase("single", 0.0, Some(threads));
        tl.end_phase(vals.len() as f64);
        tl
    }

    fn inv() -> Inventory {
        Inventory::probe(&truebench_host::Host::new("/nonexistent-root"))
    }

    #[test]
    fn quiet_single_thread_phase_passes() {
        // First sample (2 %) skipped; 25 % on 4 cores is exactly one core.
        let t = tl(&[(2.0, 0.0), (25.0, 0.0), (25.2, 0.0), (26.0, 0.0)], 1);
        assert!(background_activity(&inv(), &t, &[]).is_empty());
        assert!(system_activity(&t, &[]).is_empty());
    }

    #[test]
    fn burst_is_flagged() {
        let t = tl(&[(2.0, 0.0), (25.0, 0.0), (52.0, 1.0), (25.0, 0.0)], 1);
        let f = background_activity(&inv(), &t, &[]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].kind, FindingKind::BackgroundActivity);
        assert!(
            f[0].evidence.iter().any(|e| e.contains("cpu 52%")),
            "{:?}",
            f[0].evidence
        );
    }

    #[test]
    fn all_core_phases_and_unknown_threads_are_skipped() {
        let t = tl(&[(2.0, 0.0), (100.0, 0.0)], 4);
        assert!(background_activity(&inv(), &t, &[]).is_empty());
        let mut t = tl(&[(2.0, 0.0), (90.0, 0.0)], 1);
        t.phases[0].threads = None;
        assert!(background_activity(&inv(), &t, &[]).is_empty());
    }

    #[test]
    fn floored_readings_are_intervals() {
        // 16 CPUs, one busy: 6.25 % expected, tolerated 1.25 points at peak, 0.31 on average.
        let mut t = tl(
            &[(2.0, 0.0), (6.0, 0.0), (7.0, 0.0), (6.0, 0.0), (6.0, 0.0)],
            1,
        );
        for s in &mut t.samples {
            s.cpus_online = Some(16);
        }
        let empty = Inventory::probe(&truebench_host::Host::new("/nonexistent-root"));
        // A printed 7 is a true 7.0–8.0: an excess of 0.75–1.75 against 1.25 at peak cannot
        // be decided (and neither can the mean): an info finding that says so.
        let f = background_activity(&empty, &t, &[]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].undecidable && f[0].severity == Severity::Info, "{f:?}");
        assert!(
            f[0].message.contains("cannot be decided"),
            "{}",
            f[0].message
        );
        // A printed 8 is at least 1.75 over: beyond the tolerance whatever the decimals.
        t.samples[2].cpu.as_mut().unwrap().cpu = 8.0;
        let f = background_activity(&empty, &t, &[]);
        assert!(f.iter().any(|f| f.severity == Severity::Warning), "{f:?}");
        // Printed 6s only: 6.0–7.0 is 0–0.75 over at peak, within 1.25; the mean
        // (without the highest sample) straddles 0.31 and says so.
        t.samples[2].cpu.as_mut().unwrap().cpu = 6.0;
        let f = background_activity(&empty, &t, &[]);
        assert!(f.iter().all(|f| f.undecidable), "{f:?}");
        // Readings with decimals are exact: 7.6 is 1.35 over, beyond 1.25.
        t.samples[2].cpu.as_mut().unwrap().cpu = 7.6;
        t.samples[1].cpu.as_mut().unwrap().cpu = 6.1;
        let f = background_activity(&empty, &t, &[]);
        assert!(
            f.iter()
                .any(|f| f.severity == Severity::Warning && !f.undecidable),
            "{f:?}"
        );
    }

    #[test]
    fn judging_an_interval() {
        assert_eq!(judge(2.0, 3.0, 5.0, false), Judged::Within);
        assert_eq!(judge(2.0, 3.0, 2.5, false), Judged::Undecidable);
        assert_eq!(judge(2.0, 3.0, 2.0, false), Judged::Undecidable);
        assert_eq!(judge(2.0, 3.0, 2.0, true), Judged::Over);
        assert_eq!(judge(3.0, 4.0, 2.5, false), Judged::Over);
        // exact values: no interval
        assert_eq!(judge(2.5, 2.5, 2.5, false), Judged::Within);
        assert_eq!(judge(2.5, 2.5, 2.5, true), Judged::Over);
    }

    #[test]
    fn a_single_thread_on_one_cpu_is_an_all_cpu_phase_for_sys() {
        // 7-zip with a dictionary near the RAM size on a one-CPU board: its own page faults
        // show undiluted, 2 % sys. On one CPU the single thread is the whole machine.
        let mut t = tl(
            &[
                (2.0, 0.0),
                (97.0, 2.0),
                (97.0, 2.0),
                (97.0, 2.0),
                (97.0, 2.0),
            ],
            1,
        );
        for s in &mut t.samples {
            s.cpus_online = Some(1);
        }
        assert!(system_activity(&t, &[]).is_empty());
        // The same 2 % on four CPUs is another process's (or the kernel's) doing.
        for s in &mut t.samples {
            s.cpus_online = Some(4);
        }
        let f = system_activity(&t, &[]);
        assert!(f.iter().any(|f| !f.undecidable), "{f:?}");
    }

    #[test]
    fn one_spike_does_not_lift_a_short_phases_mean_sys() {
        // Four samples, one at 7 % sys: the mean of the rest is 0.33 %.
        let t = tl(
            &[
                (2.0, 0.0),
                (25.0, 0.0),
                (32.0, 7.0),
                (25.0, 1.0),
                (25.0, 0.0),
            ],
            1,
        );
        assert!(system_activity(&t, &[]).is_empty());
        // Sustained 2 % sys is flagged.
        let t = tl(
            &[
                (2.0, 0.0),
                (27.0, 2.0),
                (27.0, 2.0),
                (28.0, 3.0),
                (27.0, 2.0),
            ],
            1,
        );
        assert_eq!(system_activity(&t, &[]).len(), 1);
    }

    #[test]
    fn means_are_weighted_by_the_time_each_sample_covers() {
        let mut t = tl(
            &[
                (2.0, 0.0),
                (25.0, 3.0),
                (25.0, 0.0),
                (25.0, 0.0),
                (25.0, 0.0),
            ],
            1,
        );
        // The 3 % sample covers 30 s, the three others 1 s each (the highest of those is
        // left out, not the 3 %: it is the highest).
        t.samples[1].t = 30.5;
        for (i, s) in t.samples.iter_mut().enumerate().skip(2) {
            s.t = 30.5 + (i - 1) as f64;
        }
        t.phases[0].end = Some(40.0);
        let vals: Vec<(f64, &Sample)> = t.samples[1..]
            .iter()
            .map(|s| (s.cpu.unwrap().sys, s))
            .collect();
        // Without the spike: three zeros.
        assert_eq!(robust_weighted_mean(&t, &vals), 0.0);
        // With two long samples at 2 %, the short zeros barely count.
        t.samples[2].cpu.as_mut().unwrap().sys = 2.0;
        t.samples[2].t = 60.5;
        let vals: Vec<(f64, &Sample)> = t.samples[1..]
            .iter()
            .map(|s| (s.cpu.unwrap().sys, s))
            .collect();
        let m = robust_weighted_mean(&t, &vals);
        assert!(m > 1.5, "{m}");
    }

    #[test]
    fn sys_peak() {
        let t = tl(&[(2.0, 0.0), (25.0, 0.0), (45.0, 20.0), (25.0, 0.0)], 1);
        let f = system_activity(&t, &[]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].kind, FindingKind::SystemActivity);
        // The same %sys in a phase whose work is the kernel's (TCP) is the measurement.
        let mut k = t.clone();
        k.phases[0].kernel_work = true;
        assert!(system_activity(&k, &[]).is_empty());
    }

    #[test]
    fn idle_gate() {
        let busy: Vec<Sample> = (0..6).map(|i| s(i as f64, 12.0, 1.0)).collect();
        let f = not_idle(&busy, None).unwrap();
        assert_eq!(f.kind, FindingKind::NotIdle);
        let quiet: Vec<Sample> = (0..6).map(|i| s(i as f64, 1.0, 0.0)).collect();
        assert!(not_idle(&quiet, None).is_none());
        assert!(not_idle(&[], None).is_none());
    }
}
