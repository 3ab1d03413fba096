//! interbench's simulated interactive tasks as periodic-task specs.

use serde::{Deserialize, Serialize};
use truebench_model::interactivity::{Benchmark, Load};
use truebench_workloads::loads::LoadKind;
use truebench_workloads::periodic::{Late, Pattern, Policy, TaskSpec, WorkKind};

/// A load as the result names it.
pub fn load(k: LoadKind) -> Load {
    match k {
        LoadKind::None => Load::None,
        LoadKind::Video => Load::Video,
        LoadKind::X => Load::X,
        LoadKind::Burn => Load::Burn,
        LoadKind::Write => Load::Write,
        LoadKind::Read => Load::Read,
        LoadKind::Compile => Load::Compile,
        LoadKind::Memload => Load::Memload,
        LoadKind::Hack => Load::Hack,
        LoadKind::Custom => Load::Custom,
    }
}

/// The benchmarked tasks, in interbench's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bench {
    Audio,
    Video,
    X,
    Gaming,
    Custom,
}

/// Real-time priority of benchmarked tasks with `--realtime`: above threaded interrupts
/// (SCHED_FIFO 50), cyclictest's usual range.
pub const RT_PRIORITY: i32 = 80;

/// `--custom-cpu PCT --custom-interval US`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CustomTask {
    pub cpu_pct: f64,
    pub interval_us: u64,
}

impl Bench {
    pub const ALL: [Bench; 5] = [
        Bench::Audio,
        Bench::Video,
        Bench::X,
        Bench::Gaming,
        Bench::Custom,
    ];

    pub fn name(&self) -> &'static str {
        match self {
            Bench::Audio => "audio",
            Bench::Video => "video",
            Bench::X => "x",
            Bench::Gaming => "gaming",
            Bench::Custom => "custom",
        }
    }

    pub fn label(&self) -> &'static str {
        match self {
            Bench::Audio => "Audio",
            Bench::Video => "Video",
            Bench::X => "X",
            Bench::Gaming => "Gaming",
            Bench::Custom => "Custom",
        }
    }

    /// The benchmark as the result names it.
    pub fn model(self) -> Benchmark {
        match self {
            Bench::Audio => Benchmark::Audio,
            Bench::Video => Benchmark::Video,
            Bench::X => Benchmark::X,
            Bench::Gaming => Benchmark::Gaming,
            Bench::Custom => Benchmark::Custom,
        }
    }

    pub fn parse(s: &str) -> Option<Bench> {
        Bench::ALL
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(s.trim()))
    }

    /// interbench's pattern: Audio 5 % every 50 ms, Video 40 % at 60 Hz, X a 0→100 % sweep of
    /// 100 ms frames, Gaming all it can get in 100 ms chunks, Custom as given.
    pub fn pattern(&self, custom: Option<CustomTask>) -> Option<Pattern> {
        Some(match self {
            Bench::Audio => Pattern::Periodic {
                run_ns: 2_500_000,
                period_ns: 50_000_000,
            },
            Bench::Video => Pattern::Periodic {
                run_ns: 16_666_667 * 40 / 100,
                period_ns: 16_666_667,
            },
            Bench::X => Pattern::Sweep {
                frame_ns: 100_000_000,
                steps: 100,
            },
            Bench::Gaming => Pattern::Continuous {
                chunk_ns: 100_000_000,
            },
            Bench::Custom => {
                let c = custom?;
                let period_ns = c.interval_us * 1000;
                Pattern::Periodic {
                    run_ns: (period_ns as f64 * c.cpu_pct / 100.0) as u64,
                    period_ns,
                }
            }
        })
    }

    /// `2.5 ms of work every 50 ms (5 % of a CPU)`.
    pub fn describe(p: &Pattern) -> String {
        match *p {
            Pattern::Periodic { run_ns, period_ns } => format!(
                "{:.2} ms of work every {:.2} ms ({:.0} % of a CPU)",
                run_ns as f64 / 1e6,
                period_ns as f64 / 1e6,
                p.cpu_pct()
            ),
            Pattern::Sweep { frame_ns, steps } => format!(
                "0 to 100 % of {:.0} ms frames in {} steps",
                frame_ns as f64 / 1e6,
                steps + 1
            ),
            Pattern::Continuous { chunk_ns } => format!(
                "all the CPU it gets, in {:.0} ms chunks (no deadlines)",
                chunk_ns as f64 / 1e6
            ),
        }
    }

    /// The task as benchmarked: real time (FIFO) with `realtime` for the tasks interbench
    /// benchmarks real time (Audio, Video; Gaming never), else SCHED_OTHER at `nice`.
    pub fn spec(
        &self,
        custom: Option<CustomTask>,
        work: WorkKind,
        realtime: bool,
        nice: i32,
    ) -> Option<TaskSpec> {
        let pattern = self.pattern(custom)?;
        let rt = realtime && !matches!(self, Bench::Gaming);
        Some(TaskSpec {
            name: self.label().into(),
            pattern,
            work,
            policy: if rt {
                Policy::Fifo {
                    priority: RT_PRIORITY,
                }
            } else {
                Policy::Other { nice }
            },
            cpus: None,
            late: Late::Drop,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interbench_shares_of_a_cpu() {
        let p = Bench::Audio.pattern(None).unwrap();
        assert!((p.cpu_pct() - 5.0).abs() < 1e-9);
        let p = Bench::Video.pattern(None).unwrap();
        assert!((p.cpu_pct() - 40.0).abs() < 0.01);
        assert!(!Bench::Gaming.pattern(None).unwrap().has_deadlines());
        assert_eq!(Bench::Custom.pattern(None), None);
        let c = CustomTask {
            cpu_pct: 25.0,
            interval_us: 10_000,
        };
        assert_eq!(
            Bench::Custom.pattern(Some(c)),
            Some(Pattern::Periodic {
                run_ns: 2_500_000,
                period_ns: 10_000_000
            })
        );
        assert_eq!(
            Bench::describe(&Bench::Audio.pattern(None).unwrap()),
            "2.50 ms of work every 50.00 ms (5 % of a CPU)"
        );
    }

    #[test]
    fn gaming_is_never_real_time() {
        let s = Bench::Gaming.spec(None, WorkKind::Wall, true, 0).unwrap();
        assert_eq!(s.policy, Policy::Other { nice: 0 });
        let s = Bench::Audio.spec(None, WorkKind::Wall, true, 0).unwrap();
        assert_eq!(s.policy, Policy::Fifo { priority: 80 });
    }
}
