//! Task sets for the governor-efficiency study: `n` periodic tasks whose utilisations add up
//! to U, split by UUniFast-discard (Davis & Burns 2009: UUniFast, a set with any task above
//! 100 % of a CPU thrown away and drawn again), periods log-uniform between two bounds. Drawn
//! from a seeded ChaCha8 generator: the same seed gives the same sets on every machine and
//! architecture. Also rt-app's JSON for the same sets, and running a set on the engine.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Barrier;
use std::time::Duration;

use super::{run_task, Late, Pattern, Policy, TaskOutcome, TaskSpec, WorkKind};

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum TaskSetError {
    #[error(
        "utilisations {0:?}: expected FROM:TO:STEPS (e.g. 1.0:4.0:10) or a list (1.0,1.5,2.0)"
    )]
    Syntax(String),
    #[error("utilisation {u} cannot be split into {n} tasks of at most 100 % of a CPU each: use more tasks or a lower utilisation")]
    TooHigh { u: f64, n: usize },
    #[error("periods {0} … {1} ms: expected 0 < shortest ≤ longest")]
    Periods(f64, f64),
}

/// How sets are drawn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskSetOptions {
    /// Tasks per set.
    pub tasks: usize,
    /// Shortest and longest period, ms (log-uniform between them).
    pub period_ms: (f64, f64),
    pub seed: u64,
}

/// One task of a set, in whole µs as rt-app takes them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SetTask {
    pub run_us: u64,
    pub period_us: u64,
}

/// A task set: `tasks` at utilisation `utilisation` (Σ run/period, in CPUs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskSet {
    /// `u1.50-s2`: the level and the set's number within it.
    pub id: String,
    pub utilisation: f64,
    pub tasks: Vec<SetTask>,
}

impl TaskSet {
    /// Σ run/period after rounding to µs.
    pub fn actual_utilisation(&self) -> f64 {
        self.tasks
            .iter()
            .map(|t| t.run_us as f64 / t.period_us as f64)
            .sum()
    }

    /// The set as engine tasks (rt-app's absolute timer: every period's work is done).
    pub fn specs(&self, work: WorkKind, policy: Policy) -> Vec<TaskSpec> {
        self.tasks
            .iter()
            .enumerate()
            .map(|(i, t)| TaskSpec {
                name: format!("{}-t{i}", self.id),
                pattern: Pattern::Periodic {
                    run_ns: t.run_us * 1000,
                    period_ns: t.period_us * 1000,
                },
                work,
                policy,
                cpus: None,
                late: Late::RunAll,
            })
            .collect()
    }
}

/// `FROM:TO:STEPS` (STEPS levels from FROM to TO inclusive) or `A,B,C`.
pub fn parse_utilisations(s: &str) -> Result<Vec<f64>, TaskSetError> {
    let bad = || TaskSetError::Syntax(s.to_string());
    let num = |x: &str| {
        x.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v > 0.0)
    };
    let levels = if let Some((a, rest)) = s.split_once(':') {
        let (b, n) = rest.split_once(':').ok_or_else(bad)?;
        let (a, b) = (num(a).ok_or_else(bad)?, num(b).ok_or_else(bad)?);
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if n == 0 || b < a || (n == 1 && a != b) {
            return Err(bad());
        }
        if n == 1 {
            vec![a]
        } else {
            (0..n)
                .map(|i| a + (b - a) * i as f64 / (n - 1) as f64)
                .collect()
        }
    } else {
        s.split(',')
            .map(|x| num(x).ok_or_else(bad))
            .collect::<Result<Vec<_>, _>>()?
    };
    if levels.is_empty() {
        return Err(bad());
    }
    Ok(levels)
}

fn uniform(rng: &mut ChaCha8Rng) -> f64 {
    // 53 random bits: uniform in [0, 1).
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// UUniFast-discard: `n` utilisations adding up to `u`, none above 1; None after many
/// rejected draws (`u` too near `n`).
pub fn uunifast_discard(rng: &mut ChaCha8Rng, n: usize, u: f64) -> Option<Vec<f64>> {
    if n == 0 || u > n as f64 {
        return None;
    }
    for _ in 0..100_000 {
        let mut out = Vec::with_capacity(n);
        let mut sum = u;
        for i in 1..n {
            let next = sum * uniform(rng).powf(1.0 / (n - i) as f64);
            out.push(sum - next);
            sum = next;
        }
        out.push(sum);
        if out.iter().all(|&x| x <= 1.0) {
            return Some(out);
        }
    }
    None
}

/// `sets` task sets per utilisation level, in level order.
pub fn generate(
    opts: &TaskSetOptions,
    levels: &[f64],
    sets: u32,
) -> Result<Vec<TaskSet>, TaskSetError> {
    let (lo, hi) = opts.period_ms;
    if !(lo > 0.0 && hi >= lo && hi.is_finite()) {
        return Err(TaskSetError::Periods(lo, hi));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
    let mut out = Vec::new();
    for &u in levels {
        for s in 0..sets {
            let us = uunifast_discard(&mut rng, opts.tasks, u)
                .ok_or(TaskSetError::TooHigh { u, n: opts.tasks })?;
            let tasks = us
                .iter()
                .map(|&ui| {
                    let period_ms = (lo.ln() + (hi.ln() - lo.ln()) * uniform(&mut rng)).exp();
                    let period_us = (period_ms * 1000.0).round().max(1.0) as u64;
                    let run_us = ((ui * period_us as f64).round() as u64).clamp(1, period_us);
                    SetTask { run_us, period_us }
                })
                .collect();
            out.push(TaskSet {
                id: format!("u{u:.2}-s{s}"),
                utilisation: u,
                tasks,
            });
        }
    }
    Ok(out)
}

/// Fisher–Yates with its own stream of the seed: the run order of sets or governors.
pub fn shuffle<T>(items: &mut [T], seed: u64, stream: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(stream + 1);
    for i in (1..items.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

/// Run every task of a set at once (each on its own thread, started together) for
/// `duration` or until `stop`.
pub fn run_set(specs: &[TaskSpec], duration: Duration, stop: &AtomicBool) -> Vec<TaskOutcome> {
    let barrier = Barrier::new(specs.len());
    std::thread::scope(|s| {
        let handles: Vec<_> = specs
            .iter()
            .map(|spec| {
                let b = &barrier;
                std::thread::Builder::new()
                    .name("tb-task".into())
                    .spawn_scoped(s, move || run_task(spec, duration, stop, Some(b)))
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.ok().and_then(|h| h.join().ok()))
            .collect()
    })
}

/// rt-app's use-case file for a set: one thread per task, `run` then an absolute `timer`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RtAppDoc {
    pub global: RtAppGlobal,
    pub tasks: BTreeMap<String, RtAppTask>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RtAppGlobal {
    pub duration: u64,
    pub calibration: RtAppCalibration,
    pub default_policy: String,
    pub lock_pages: bool,
    pub log_basename: String,
    /// MB of log buffer per thread. rt-app 1.0's `"file"` mode loses every line of a thread
    /// ended by the use case's duration (seen: empty logs); a buffer keeps them.
    pub log_size: u64,
    pub logdir: String,
}

/// "CPU0" (rt-app calibrates on that CPU) or ns per loop (reused).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum RtAppCalibration {
    Cpu(String),
    NsPerLoop(u64),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RtAppTask {
    /// -1: until the use case's duration ends.
    #[serde(rename = "loop")]
    pub loop_: i64,
    pub run: u64,
    pub timer: RtAppTimer,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RtAppTimer {
    #[serde(rename = "ref")]
    pub ref_: String,
    pub period: u64,
    pub mode: String,
}

impl RtAppDoc {
    /// `ns_per_loop`: rt-app's calibration to reuse (None: it calibrates on CPU0).
    pub fn new(set: &TaskSet, duration_s: u64, ns_per_loop: Option<u64>, logdir: &str) -> Self {
        let tasks = set
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| {
                (
                    format!("task{i}"),
                    RtAppTask {
                        loop_: -1,
                        run: t.run_us,
                        timer: RtAppTimer {
                            ref_: format!("timer{i}"),
                            period: t.period_us,
                            mode: "absolute".into(),
                        },
                    },
                )
            })
            .collect();
        RtAppDoc {
            global: RtAppGlobal {
                duration: duration_s,
                calibration: ns_per_loop.map_or(
                    RtAppCalibration::Cpu("CPU0".into()),
                    RtAppCalibration::NsPerLoop,
                ),
                default_policy: "SCHED_OTHER".into(),
                lock_pages: false,
                log_basename: set.id.clone(),
                log_size: 16,
                logdir: logdir.into(),
            },
            tasks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(seed: u64) -> TaskSetOptions {
        TaskSetOptions {
            tasks: 10,
            period_ms: (5.0, 500.0),
            seed,
        }
    }

    #[test]
    fn utilisation_levels_parse_as_a_range_or_a_list() {
        assert_eq!(
            parse_utilisations("1.0:2.0:3").unwrap(),
            vec![1.0, 1.5, 2.0]
        );
        assert_eq!(parse_utilisations("0.5, 2").unwrap(), vec![0.5, 2.0]);
        assert_eq!(parse_utilisations("1.5:1.5:1").unwrap(), vec![1.5]);
        for bad in ["", "1:2", "2:1:3", "1:2:0", "a,b", "1,-1", "1:2:x", "nan"] {
            assert!(parse_utilisations(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn uunifast_discard_sums_to_u_with_no_task_above_one_cpu() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for &(n, u) in &[(10, 1.0), (10, 4.0), (4, 3.5), (1, 0.7)] {
            for _ in 0..200 {
                let v = uunifast_discard(&mut rng, n, u).unwrap();
                assert_eq!(v.len(), n);
                assert!((v.iter().sum::<f64>() - u).abs() < 1e-9);
                assert!(v.iter().all(|&x| (0.0..=1.0).contains(&x)), "{v:?}");
            }
        }
        assert_eq!(uunifast_discard(&mut rng, 2, 2.5), None);
    }

    #[test]
    fn uunifast_is_uniform_over_the_simplex() {
        // For n tasks at total U, each share has mean U/n; the first is Beta(1, n−1)·U with
        // variance U²(n−1)/(n²(n+1)).
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let (n, u, draws) = (5usize, 1.0, 20_000);
        let firsts: Vec<f64> = (0..draws)
            .map(|_| uunifast_discard(&mut rng, n, u).unwrap()[0])
            .collect();
        let mean = firsts.iter().sum::<f64>() / draws as f64;
        let var = firsts.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / draws as f64;
        let want_var = u * u * (n as f64 - 1.0) / ((n * n) as f64 * (n as f64 + 1.0));
        assert!((mean - 0.2).abs() < 0.005, "{mean}");
        assert!((var / want_var - 1.0).abs() < 0.05, "{var} vs {want_var}");
    }

    #[test]
    fn sets_are_deterministic_and_periods_log_uniform_within_bounds() {
        let levels = parse_utilisations("1.0:4.0:4").unwrap();
        let a = generate(&opts(42), &levels, 3).unwrap();
        assert_eq!(a, generate(&opts(42), &levels, 3).unwrap());
        assert_ne!(a, generate(&opts(43), &levels, 3).unwrap());
        assert_eq!(a.len(), 12);
        assert_eq!(a[4].id, "u2.00-s1");
        for s in &a {
            assert!(
                (s.actual_utilisation() - s.utilisation).abs() < 0.01,
                "{s:?}"
            );
            for t in &s.tasks {
                assert!((5000..=500_000).contains(&t.period_us));
                assert!(t.run_us >= 1 && t.run_us <= t.period_us);
            }
        }
        // Log-uniform: about half the periods below the geometric mean (50 ms).
        let all: Vec<_> = generate(&opts(1), &[1.0], 200).unwrap();
        let below = all
            .iter()
            .flat_map(|s| &s.tasks)
            .filter(|t| t.period_us < 50_000)
            .count();
        assert!((900..1100).contains(&below), "{below} of 2000");
        assert_eq!(
            generate(&opts(1), &[11.0], 1),
            Err(TaskSetError::TooHigh { u: 11.0, n: 10 })
        );
    }

    #[test]
    fn shuffles_are_seeded_permutations() {
        let mut a: Vec<u32> = (0..20).collect();
        let mut b = a.clone();
        shuffle(&mut a, 5, 0);
        shuffle(&mut b, 5, 0);
        assert_eq!(a, b);
        assert_ne!(a, (0..20).collect::<Vec<_>>());
        let mut c = a.clone();
        c.sort();
        assert_eq!(c, (0..20).collect::<Vec<_>>());
        let mut d: Vec<u32> = (0..20).collect();
        shuffle(&mut d, 5, 1);
        assert_ne!(a, d);
    }

    #[test]
    fn a_set_runs_with_every_task_and_records_slacks() {
        let set = TaskSet {
            id: "u0.20-s0".into(),
            utilisation: 0.2,
            tasks: vec![
                SetTask {
                    run_us: 500,
                    period_us: 5000,
                },
                SetTask {
                    run_us: 1000,
                    period_us: 10_000,
                },
            ],
        };
        let stop = AtomicBool::new(false);
        let out = run_set(
            &set.specs(WorkKind::Wall, Policy::default()),
            Duration::from_millis(200),
            &stop,
        );
        assert_eq!(out.len(), 2);
        let periods: Vec<u64> = out
            .iter()
            .map(|o| o.slack.as_ref().unwrap().count())
            .collect();
        assert!(periods[0] >= 30 && periods[1] >= 15, "{periods:?}");
    }

    #[test]
    fn rt_app_json_has_one_thread_per_task_with_an_absolute_timer() {
        let set = &generate(&opts(3), &[1.0], 1).unwrap()[0];
        let doc = serde_json::to_value(RtAppDoc::new(set, 30, None, "/tmp/x")).unwrap();
        assert_eq!(doc["global"]["calibration"], "CPU0");
        assert_eq!(doc["global"]["duration"], 30);
        assert_eq!(doc["global"]["log_size"], 16);
        let t = &doc["tasks"]["task3"];
        assert_eq!(t["loop"], -1);
        assert_eq!(t["run"], set.tasks[3].run_us);
        assert_eq!(t["timer"]["period"], set.tasks[3].period_us);
        assert_eq!(t["timer"]["mode"], "absolute");
        assert_eq!(doc["tasks"].as_object().unwrap().len(), 10);
        let d2 = serde_json::to_value(RtAppDoc::new(set, 30, Some(80), ".")).unwrap();
        assert_eq!(d2["global"]["calibration"], 80);
    }
}
