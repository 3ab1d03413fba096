//! `truebench monitor --per-cluster -- CMD` (sbc-bench -G/-P): the command once per type of
//! CPU core, pinned to those CPUs — and with `--offline` the other CPUs taken offline through
//! the journaled Tuning and brought back after each run — each run one phase with its own
//! evidence, so a big.LITTLE score is known per core type and the throttling, clocks and
//! background activity of each run are judged apart.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use truebench_host::{Host, Inventory};
use truebench_model::monitor::MonitorPhase;
use truebench_model::{ClusterRun, MonitorBody, MonitorResult};

use crate::command::{spawn_and_wait, start, CommandError, CommandOptions};
use crate::progress::Event;
use crate::session::Finish;

/// CPU groups by core type in cluster order (sbc-bench's ClusterConfigByCoreType): the two
/// A76 clusters of an RK3588 are one group. Without core types, one group per cluster.
pub fn groups(inv: &Inventory) -> Vec<(String, Vec<u32>)> {
    let mut out: Vec<(Option<String>, Vec<u32>)> = Vec::new();
    for c in &inv.clusters {
        let online: Vec<u32> = c
            .cpus
            .iter()
            .copied()
            .filter(|cpu| inv.cpus.iter().any(|x| x.id == *cpu && x.online))
            .collect();
        if online.is_empty() {
            continue;
        }
        match (
            &c.core_type,
            out.iter_mut()
                .find(|(t, _)| t.is_some() && *t == c.core_type),
        ) {
            (Some(_), Some((_, cpus))) => cpus.extend(online),
            _ => out.push((c.core_type.clone(), online)),
        }
    }
    out.into_iter()
        .map(|(t, mut cpus)| {
            cpus.sort_unstable();
            let range = match (cpus.first(), cpus.last()) {
                (Some(a), Some(b)) if a != b => format!("cpu{a}-cpu{b}"),
                (Some(a), _) => format!("cpu{a}"),
                _ => String::new(),
            };
            let label = match t {
                Some(t) => format!("{t} ({range})"),
                None => range,
            };
            (label, cpus)
        })
        .collect()
}

pub fn run(
    host: &Host,
    inv: &Inventory,
    command: &[String],
    opts: &CommandOptions,
    offline: bool,
    stop: Arc<AtomicBool>,
    events: &mut dyn FnMut(Event),
) -> Result<MonitorResult, CommandError> {
    let mut s = start(host, inv, opts, stop.clone())?;
    let why_not = (!offline).then(|| {
        "--per-cluster pins the command to each core type; nothing is changed (--offline takes \
         the other CPUs offline)"
            .to_string()
    });
    let _ = s.begin_tuning(offline, why_not);
    let groups = groups(inv);
    events(Event::headline(format!(
        "monitor --per-cluster: the command once per type of CPU core, {} run(s){}; Ctrl-C keeps what was measured",
        groups.len(),
        if offline && s.tuned() {
            ", the other CPUs offline"
        } else {
            ""
        }
    )));
    // A recorded root's CPU numbers are not this machine's: its settings are changed as on the
    // board, but the command cannot be pinned to CPUs that are not here.
    let pin = host.is_live();
    if !pin {
        s.note(
            "Recorded root: the command runs unpinned on this machine; the CPU groups and the \
             offline settings are the root's.",
        );
    }
    if groups.len() < 2 {
        s.note("One type of CPU core: the command runs once, on all of them.");
    }
    let mut body = MonitorBody {
        command: command.to_vec(),
        exit_code: None,
        signal: None,
        error: None,
        start_failure: None,
        duration_s: 0.0,
        interval_s: opts.interval.as_secs_f64(),
        threads: opts.threads,
        clusters: Vec::new(),
        score_ratio: None,
    };
    let t_all = Instant::now();
    for (i, (label, cpus)) in groups.iter().enumerate() {
        if s.stopped() {
            s.interrupted(format!("before {label}"));
            break;
        }
        let mut taken = Vec::new();
        if offline && s.tuned() {
            for cpu in inv
                .cpus
                .iter()
                .filter(|c| c.online && !cpus.contains(&c.id))
            {
                let path = format!("sys/devices/system/cpu/cpu{}/online", cpu.id);
                // cpu0 has no `online` file on most arm64 kernels: it stays, and is said.
                if host.exists(&path) && s.set_cpu_online(cpu.id, false).is_ok() {
                    taken.push(cpu.id);
                }
            }
        }
        let phase = MonitorPhase::Cluster(i);
        let threads = opts
            .threads
            .map(|t| t.min(cpus.len() as u32))
            .or(Some(cpus.len() as u32));
        let mut run = ClusterRun {
            label: label.clone(),
            cpus: cpus.clone(),
            offline: taken,
            phase,
            exit_code: None,
            signal: None,
            error: None,
            start_failure: None,
            duration_s: 0.0,
            score: None,
        };
        events(Event::step(i + 1, groups.len(), label.clone(), None));
        s.phase(
            phase,
            &format!("the command on {label}"),
            threads,
            cpus.clone(),
            |_| {
                let t0 = Instant::now();
                let ended = spawn_and_wait(command, pin.then_some(cpus.as_slice()), &stop, true);
                run.score = crate::score::score(&ended.output, opts.score.as_ref());
                run.exit_code = ended.exit_code;
                run.signal = ended.signal;
                run.error = ended.error.clone();
                run.start_failure = ended.start_failure;
                run.duration_s = t0.elapsed().as_secs_f64();
                ended.outcome
            },
        );
        if offline && !run.offline.is_empty() {
            s.restore_now();
        }
        events(Event::score(result_text(&run)));
        let not_started = run.error.is_some();
        body.clusters.push(run);
        if not_started {
            break;
        }
    }
    // The whole: the last run's ending decides (the first failure if one failed).
    let decisive = body
        .clusters
        .iter()
        .find(|r| r.exit_code != Some(0))
        .or(body.clusters.last());
    if let Some(r) = decisive {
        body.exit_code = r.exit_code;
        body.signal = r.signal;
        body.error = r.error.clone();
        body.start_failure = r.start_failure;
    }
    body.duration_s = t_all.elapsed().as_secs_f64();
    body.score_ratio = score_ratio(&body.clusters);
    if body.clusters.iter().all(|r| r.score.is_none()) && !body.clusters.is_empty() {
        s.note(match &opts.score {
            Some(p) => format!("--score {}: no run printed a number it matches", p.as_str()),
            None => "No score found in the command's output (not 7-zip, openssl speed, sysbench or stress-ng): give --score REGEX to read one".into(),
        });
    }
    for d in s.sampler_disabled() {
        s.note(format!("Not read any more: {d}"));
    }
    Ok(s.finish(body, Finish { comparable: true }))
}

/// A run's result as progress: `exit code 0, score 3000 MIPS` (the summary's words).
fn result_text(r: &ClusterRun) -> String {
    let end = match (r.exit_code, r.signal, &r.error) {
        (_, _, Some(e)) => format!("could not start: {e}"),
        (Some(x), _, _) => format!("exit code {x}"),
        (None, Some(sig), _) => format!("killed by signal {sig}"),
        _ => "ending unknown".into(),
    };
    let score = r.score.as_ref().map_or(String::new(), |s| {
        let v = if s.value.abs() >= 100.0 {
            format!("{:.0}", s.value)
        } else {
            format!("{:.2}", s.value)
        };
        format!(", score {v} {}", s.unit).trim_end().to_string()
    });
    format!("{end}{score}")
}

/// Highest score / lowest, when two or more runs scored in one unit.
pub fn score_ratio(runs: &[ClusterRun]) -> Option<f64> {
    let scores: Vec<&crate::score::Score> = runs.iter().filter_map(|r| r.score.as_ref()).collect();
    let unit = &scores.first()?.unit;
    if scores.len() < 2 || scores.iter().any(|s| &s.unit != unit) {
        return None;
    }
    let hi = scores.iter().map(|s| s.value).fold(f64::MIN, f64::max);
    let lo = scores.iter().map(|s| s.value).fold(f64::MAX, f64::min);
    (lo > 0.0).then(|| hi / lo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    /// The command really runs on the CPUs it is pinned to (read back from its own status).
    #[test]
    fn the_command_is_pinned() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("allowed");
        let script = format!(
            "grep Cpus_allowed_list /proc/self/status > {}",
            out.display()
        );
        let cmd = ["sh".to_string(), "-c".to_string(), script];
        let ended = spawn_and_wait(&cmd, Some(&[0]), &AtomicBool::new(false), false);
        assert_eq!(ended.exit_code, Some(0));
        let text = std::fs::read_to_string(&out).unwrap();
        assert_eq!(text.split_whitespace().last(), Some("0"), "{text}");
        // A CPU that does not exist: the command does not start, and that is said.
        let ended = spawn_and_wait(&cmd, Some(&[1000]), &AtomicBool::new(false), false);
        assert!(ended.error.is_some(), "{:?}", ended.exit_code);
    }

    #[test]
    fn groups_by_core_type() {
        let dir = truebench_fixtures::root("rk3588-rock5b");
        let host = Host::new(dir.path());
        let g = groups(&Inventory::probe(&host));
        assert_eq!(
            g,
            [
                ("Cortex-A55 (cpu0-cpu3)".to_string(), vec![0, 1, 2, 3]),
                ("Cortex-A76 (cpu4-cpu7)".to_string(), vec![4, 5, 6, 7]),
            ]
        );
    }
}
