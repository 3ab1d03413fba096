//! The stress phase (extensive): stockfish or the built-in SIMD load, with a score per interval.

use super::*;
use truebench_model::phase;
use truebench_model::StressTool;

impl<M: Measurements + ?Sized> Run<'_, M> {
    pub(super) fn phase_stress(&mut self) {
        let cpus = all_cpus(&self.groups);
        let n = cpus.len() as u32;
        let seconds = self.opts.stress_seconds;
        let interval = self.opts.stress_interval;
        self.phase(
            phase::STRESS,
            &format!("stress on all cores for {seconds:.0} s, a score every {interval:.0} s"),
            Some(n),
            cpus.clone(),
            |r| match r.m.stress(&cpus, seconds, interval, &r.stop) {
                Ok(StressOutcome::Builtin(s)) => {
                    r.s.tool("built-in stress", Some(s.implementation.clone()), None);
                    Outcome {
                        raw: vec![m::RawOutput {
                            label: "built-in SIMD load, score per interval".into(),
                            command: format!(
                                "built-in stress ({}) on CPUs {cpus:?}, {seconds} s, {interval} s intervals",
                                s.implementation
                            ),
                            text: s.series_text(),
                        }],
                        scores: Some(Scores::Stress(m::StressScores {
                            tool: StressTool::Builtin,
                            version: Some(s.implementation.clone()),
                            unit: s.unit.clone(),
                            intervals: s
                                .intervals
                                .iter()
                                .map(|i| m::StressInterval {
                                    start_s: i.start_s,
                                    end_s: i.end_s,
                                    score: i.score,
                                })
                                .collect(),
                            change_pct: s.change_pct(),
                        })),
                        details: to_json(&s),
                        ..Default::default()
                    }
                }
                Ok(StressOutcome::Stockfish(s)) => {
                    r.s.tool("stockfish", s.version_line.clone(), Some(s.program.clone()));
                    let mut t = 0.0;
                    let intervals: Vec<m::StressInterval> = s
                        .runs
                        .iter()
                        .filter_map(|run| {
                            let start = t;
                            t += run.output.seconds;
                            Some(m::StressInterval {
                                start_s: start,
                                end_s: t,
                                score: run.bench?.nodes_per_second as f64,
                            })
                        })
                        .collect();
                    let change = match (intervals.first(), intervals.last()) {
                        (Some(a), Some(b)) if intervals.len() > 1 && a.score > 0.0 => {
                            Some((b.score - a.score) / a.score * 100.0)
                        }
                        _ => None,
                    };
                    Outcome {
                        raw: s
                            .runs
                            .iter()
                            .enumerate()
                            .map(|(i, run)| m::RawOutput {
                                label: format!("stockfish bench, run {}", i + 1),
                                command: run.output.command_line(),
                                text: format!("{}{}", run.output.stdout, run.output.stderr),
                            })
                            .collect(),
                        scores: Some(Scores::Stress(m::StressScores {
                            tool: StressTool::Stockfish,
                            version: s.version_line.clone(),
                            unit: "nodes/s".into(),
                            intervals,
                            change_pct: change,
                        })),
                        details: to_json(&s),
                        ..Default::default()
                    }
                }
                Err(KernelError::Interrupted) => Outcome::default(),
                Err(e) => Outcome::failed(e.to_string()),
            },
        );
    }
}
