//! `truebench net --connect`: TCP throughput tests on the Session — upload, download and full
//! duplex, repeated in alternating order — each one phase, with this side's per-core load from
//! `/proc/stat` over the transfer and the verdict "CPU-bound" when a core was saturated.
//! A truebench server on this same machine (also in another network namespace of it) is part
//! of the measurement: asked who it is, its CPU time is not counted as other processes' load.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use truebench_host::parse::stat::Stat;
use truebench_host::{Host, Inventory};
use truebench_model::net::{
    BusyBy, CoreLoad, CpuBound, NetBody, NetRow, NetTest, NetTestSummary, PeerKind,
};
use truebench_model::{self as m, NetResult, PhaseStatus, RowEvidence};
use truebench_monitor::Sources;
use truebench_monitor_core::evidence::parse_proc_stat;
use truebench_stats::{median, spread_pct};
use truebench_workloads::net::{self as wnet, Direction};

use crate::governors::{time_in_state, tis_delta};
use crate::net_sweep::{self, Setting};
use crate::progress::Event;
use crate::session::{self, Finish, Outcome, Session, SessionOptions};

/// Who is on the other side.
#[derive(Debug, Clone)]
pub enum Peer {
    /// A `truebench net --server`.
    Truebench(SocketAddr),
    /// A server started in this process on 127.0.0.1 (`--loopback`).
    Loopback,
    /// An iperf3 server, driven through `iperf3 -J` (the program found on PATH).
    Iperf3 {
        program: PathBuf,
        host: String,
        port: u16,
    },
}

#[derive(Debug, Clone)]
pub struct NetOptions {
    pub peer: Peer,
    /// In the order of the first repeat; later even repeats run them reversed.
    pub tests: Vec<Direction>,
    pub streams: u32,
    pub duration: Duration,
    /// Send with sendfile(2) (iperf3 `-Z`).
    pub zerocopy: bool,
    pub repeat: u32,
    /// A core at or above this busy share is the limit.
    pub cpu_bound_pct: f64,
    /// Settings to sweep (from `net_sweep::parse`: `as is` first); empty: as is only.
    pub sweep: Vec<Setting>,
    pub sample_interval: Duration,
    pub truebench_version: String,
    /// An external power meter (`--power-cmd`, `--power-file`): one more power source.
    pub meter: Option<std::sync::Arc<crate::meter::Meter>>,
}

/// Why the tests could not start (a failed test is a row, not an error).
#[derive(Debug, thiserror::Error)]
pub enum NetSuiteError {
    #[error(transparent)]
    Net(#[from] wnet::NetError),
    #[error(transparent)]
    Session(#[from] crate::session::SessionError),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Tuning(#[from] truebench_tuning::TuningError),
}

/// A test's result as progress: `ok, 940 Mbit/s, CPU-bound (cpu1 97 %, softirq)`.
pub fn result_text(r: &NetRow) -> String {
    format!(
        "{}{}{}{}",
        r.evidence.status,
        r.total_mbit_s()
            .map(|m| format!(", {m:.0} Mbit/s"))
            .unwrap_or_default(),
        r.cpu_bound
            .as_ref()
            .map(|v| format!(", CPU-bound (cpu{} {:.0} %, {})", v.cpu, v.busy_pct, v.by))
            .unwrap_or_default(),
        r.evidence
            .reason
            .as_ref()
            .map(|w| format!(": {w}"))
            .unwrap_or_default()
    )
}

pub fn test_name(d: Direction) -> &'static str {
    net_test(d).as_str()
}

/// The test a direction is, as the result names it.
pub fn net_test(d: Direction) -> NetTest {
    match d {
        Direction::Upload => NetTest::Upload,
        Direction::Download => NetTest::Download,
        Direction::Duplex => NetTest::Duplex,
    }
}

/// Run every test; the result holds what completed, also after Ctrl-C.
pub fn run(
    host: &Host,
    inv: &Inventory,
    opts: &NetOptions,
    stop: Arc<AtomicBool>,
    events: &mut dyn FnMut(Event),
) -> Result<NetResult, NetSuiteError> {
    // The in-process server lives until the result is assembled.
    let (server, peer, peer_kind) = match &opts.peer {
        Peer::Loopback => {
            let s = wnet::Server::start("127.0.0.1:0")?;
            let a = s.addr;
            (Some(s), a.to_string(), PeerKind::Loopback)
        }
        Peer::Truebench(a) => (None, a.to_string(), PeerKind::Truebench),
        Peer::Iperf3 { host, port, .. } => (None, format!("{host}:{port}"), PeerKind::Iperf3),
    };
    let mut s = Session::start(
        host,
        inv,
        &SessionOptions {
            sample_interval: opts.sample_interval,
            sources: Sources {
                net: true,
                softirq: true,
                ..Default::default()
            },
            truebench_version: opts.truebench_version.clone(),
            meter: opts.meter.clone(),
            ..Default::default()
        },
        stop.clone(),
    )?;
    // Before the first phase: its boundary snapshot must already leave the server out.
    if let Peer::Truebench(a) = &opts.peer {
        let local = wnet::hello::ask(*a, ASK_TIMEOUT).and_then(|id| local_server(host, &id));
        if let Some(pid) = local {
            let n = format!(
                "the server, pid {pid} on this machine, is part of the measurement: its CPU time is not counted as other processes' load"
            );
            events(Event::Note(n.clone()));
            s.part_of_measurement(pid, n);
        }
    }
    match &opts.peer {
        Peer::Iperf3 { program, .. } => s.tool("iperf3", None, Some(program.display().to_string())),
        _ => s.tool(
            "built-in TCP transfer",
            Some(wnet::BUFFER.to_string()),
            None,
        ),
    }
    let cpus: Vec<u32> = inv.online_cpus().map(|c| c.id).collect();
    let (settings, sweep_note) = net_sweep::begin(&mut s, &opts.sweep)?;
    // Both closures below report progress.
    let events = std::cell::RefCell::new(events);
    let rows = net_sweep::each_test(
        &mut s,
        &settings,
        &opts.tests,
        opts.repeat,
        "net",
        &mut |n| (events.borrow_mut())(Event::Note(n)),
        |s, setting, dir, r, (index, total)| {
            (events.borrow_mut())(Event::step(
                index,
                total,
                format!("{} ({})", test_name(dir), setting.label()),
                Some(opts.duration.as_secs_f64()),
            ));
            let row = one_test(s, opts, setting, dir, r, &cpus, &server, &peer, peer_kind);
            (events.borrow_mut())(Event::score(result_text(&row)));
            row
        },
    );
    let tests = summaries(&rows);
    let figures: Vec<net_sweep::Figure<'_>> = tests
        .iter()
        .map(|t| net_sweep::Figure {
            test: t.test.as_str(),
            setting: &t.setting,
            median: t.median_mbit_s,
            spread_pct: t.spread_pct,
        })
        .collect();
    let verdicts = net_sweep::verdicts(host, inv, &figures, "Mbit/s");
    let body = NetBody {
        peer,
        peer_kind,
        duration_s: opts.duration.as_secs_f64(),
        streams: opts.streams,
        zerocopy: opts.zerocopy,
        repeat: opts.repeat,
        cpu_bound_pct: opts.cpu_bound_pct,
        tests,
        settings: settings.iter().map(Setting::label).collect(),
        sweep_note,
        verdicts,
        rows,
    };
    let mut result = s.finish(body, Finish { comparable: true });
    drop(server);
    let findings = result.envelope.findings.clone();
    for row in result.body.rows.iter_mut() {
        session::mark(&mut row.evidence, &findings, &[], &[]);
    }
    Ok(result)
}

/// How long the question to the server may take (it answers at once; a server that is not
/// there fails the tests anyway).
const ASK_TIMEOUT: Duration = Duration::from_secs(5);
const BOOT_ID: &str = "proc/sys/kernel/random/boot_id";

/// Who this process is, as a `net --server` tells a client that asks: read through `host`,
/// so a server on a recorded machine (`--root`) matches no client.
pub fn server_identity(host: &Host) -> wnet::Identity {
    let mut id = wnet::Identity::this_process();
    if let Some(me) = host
        .read(format!("proc/{}/stat", id.pid))
        .ok()
        .and_then(|t| parse_proc_stat(&t))
    {
        id.start = Some(me.start);
        id.comm = Some(me.comm);
    }
    id.boot_id = host.read_trimmed(BOOT_ID);
    id
}

/// The pid of the server that said `id` when it runs on this machine, in this pid namespace:
/// the same boot, and that pid's start time and name are the ones it gave (another pid
/// namespace's number, or a pid since reused, does not match). None for a server elsewhere.
pub fn local_server(host: &Host, id: &wnet::Identity) -> Option<u32> {
    let boot = host.read_trimmed(BOOT_ID)?;
    if id.boot_id.as_deref() != Some(boot.as_str()) {
        return None;
    }
    let p = parse_proc_stat(&host.read(format!("proc/{}/stat", id.pid)).ok()?)?;
    let same =
        p.pid == id.pid && id.start == Some(p.start) && id.comm.as_deref() == Some(p.comm.as_str());
    same.then_some(p.pid)
}

/// One test under the current setting: a phase, the transfer, this side's per-core load
/// and the clock reached.
#[allow(clippy::too_many_arguments)]
fn one_test(
    s: &mut Session<'_>,
    opts: &NetOptions,
    setting: &Setting,
    dir: Direction,
    r: u32,
    cpus: &[u32],
    server: &Option<wnet::Server>,
    peer: &str,
    peer_kind: PeerKind,
) -> NetRow {
    let (host, inv, stop) = (s.host(), s.inv(), s.stop_flag());
    let name = test_name(dir);
    let label = setting.label();
    let phase = net_sweep::phase(setting, net_test(dir), r);
    let title = format!(
        "TCP {name} with {} stream(s) for {:.0} s against {peer} ({peer_kind}), {label}",
        opts.streams,
        opts.duration.as_secs_f64()
    );
    let per_stream = if dir == Direction::Duplex { 2 } else { 1 };
    let open = s.begin_phase(
        &phase,
        &title,
        Some(opts.streams * per_stream),
        cpus.to_vec(),
    );
    // TCP is kernel work: its %sys is the measurement.
    s.mark_kernel_work();
    let tis_before = time_in_state(host, inv);
    let before = host.stat().ok();
    let wopts = wnet::NetOptions {
        streams: opts.streams,
        duration: opts.duration,
        direction: dir,
        zerocopy: opts.zerocopy,
    };
    let moved = match (&opts.peer, server) {
        (
            Peer::Iperf3 {
                program,
                host,
                port,
            },
            _,
        ) => truebench_workloads::iperf3::run(program, host, *port, &wopts, &stop)
            .map(|(r, out)| (r, Some(out)))
            .map_err(|e| e.to_string()),
        (Peer::Truebench(a), _) => wnet::run(*a, &wopts, &stop)
            .map(|r| (r, None))
            .map_err(|e| e.to_string()),
        (Peer::Loopback, Some(sv)) => wnet::run(sv.addr, &wopts, &stop)
            .map(|r| (r, None))
            .map_err(|e| e.to_string()),
        (Peer::Loopback, None) => Err("the loopback server did not start".to_string()),
    };
    let after = host.stat().ok();
    let tis = tis_delta(&tis_before, &time_in_state(host, inv));
    let cores = match (&before, &after) {
        (Some(b), Some(a)) => core_loads(b, a),
        _ => Vec::new(),
    };
    let mut row = NetRow {
        test: net_test(dir),
        setting: label,
        repeat: r,
        evidence: RowEvidence::new(phase, PhaseStatus::Ok),
        seconds: 0.0,
        sent_mbit_s: None,
        received_mbit_s: None,
        cpu_bound: cpu_bound(&cores, opts.cpu_bound_pct),
        cores,
        reached_mhz: net_sweep::reached_mhz(&tis),
    };
    let mut out = Outcome::default();
    match moved {
        Ok((res, tool_out)) => {
            row.seconds = res.seconds;
            row.sent_mbit_s = (dir != Direction::Download).then_some(res.sent_bps / 1e6);
            row.received_mbit_s = (dir != Direction::Upload).then_some(res.received_bps / 1e6);
            if let Some(o) = tool_out {
                out.raw.push(m::RawOutput {
                    label: format!("iperf3 {name}"),
                    command: o.command_line(),
                    text: o.stdout,
                });
            }
            out.details = serde_json::to_value(&res).unwrap_or_default();
        }
        Err(e) => {
            row.evidence.status = PhaseStatus::Failed;
            row.evidence.reason = Some(e.clone());
            row.cpu_bound = None;
            out.fail(e);
        }
    }
    let recorded = s.end_phase(open, out);
    if recorded.status == PhaseStatus::Interrupted {
        row.evidence.status = PhaseStatus::Interrupted;
        row.evidence.reason = recorded.reason.clone();
        // A cut-short transfer is no figure.
        row.sent_mbit_s = None;
        row.received_mbit_s = None;
        row.cpu_bound = None;
    }
    row
}

/// Each CPU's share of the wall time between two reads of `/proc/stat`.
pub fn core_loads(before: &Stat, after: &Stat) -> Vec<CoreLoad> {
    after
        .cpus
        .iter()
        .filter_map(|(cpu, a)| {
            let (_, b) = before.cpus.iter().find(|(c, _)| c == cpu)?;
            let d = a.delta(b);
            let total = d.total();
            (total > 0).then(|| {
                let pct = |v: u64| v as f64 * 100.0 / total as f64;
                let softirq = pct(d.softirq + d.irq);
                let process = pct(d.user + d.nice + d.system);
                CoreLoad {
                    cpu: *cpu,
                    busy_pct: softirq + process,
                    softirq_pct: softirq,
                    process_pct: process,
                }
            })
        })
        .collect()
}

/// The busiest core when it reached `limit_pct`; named by what kept it busy.
pub fn cpu_bound(cores: &[CoreLoad], limit_pct: f64) -> Option<CpuBound> {
    let c = cores
        .iter()
        .max_by(|a, b| a.busy_pct.total_cmp(&b.busy_pct))?;
    (c.busy_pct >= limit_pct).then_some(CpuBound {
        cpu: c.cpu,
        busy_pct: c.busy_pct,
        by: if c.softirq_pct >= c.process_pct {
            BusyBy::Softirq
        } else {
            BusyBy::Process
        },
    })
}

/// Median and spread per test and setting over the completed repeats.
pub fn summaries(rows: &[NetRow]) -> Vec<NetTestSummary> {
    let mut keys: Vec<(NetTest, String)> = Vec::new();
    for r in rows {
        let k = (r.test, r.setting.clone());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .map(|(test, setting)| {
            let done: Vec<&NetRow> = rows
                .iter()
                .filter(|r| {
                    r.test == test
                        && r.setting == setting
                        && r.evidence.status == PhaseStatus::Ok
                        && r.evidence.invalid.is_none()
                })
                .collect();
            let mbit_s: Vec<f64> = done.iter().filter_map(|r| r.total_mbit_s()).collect();
            NetTestSummary {
                runs: done.len() as u32,
                median_mbit_s: median(&mbit_s),
                spread_pct: spread_pct(&mbit_s),
                cpu_bound_runs: done.iter().filter(|r| r.cpu_bound.is_some()).count() as u32,
                test,
                setting,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use truebench_host::parse::stat;
    use truebench_model::net::NetPhase;

    fn stat_of(lines: &[&str]) -> Stat {
        stat::parse(&lines.join("\n"))
    }

    #[test]
    fn a_core_saturated_by_softirq_is_named() {
        // user nice system idle iowait irq softirq steal: cpu1 spends 60 of 100 ticks in
        // softirq and 37 in the process, cpu0 half idle.
        let b = stat_of(&["cpu0 0 0 0 0 0 0 0 0", "cpu1 0 0 0 0 0 0 0 0"]);
        let a = stat_of(&["cpu0 30 0 20 50 0 0 0 0", "cpu1 20 0 17 3 0 2 58 0"]);
        let cores = core_loads(&b, &a);
        assert_eq!(cores.len(), 2);
        assert_eq!(cores[0].busy_pct, 50.0);
        assert_eq!((cores[1].softirq_pct, cores[1].process_pct), (60.0, 37.0));
        let v = cpu_bound(&cores, 95.0).unwrap();
        assert_eq!((v.cpu, v.by.as_str()), (1, "softirq"));
        assert_eq!(v.busy_pct, 97.0);
        // Steal is time the VM did not get: not busy here.
        let a2 = stat_of(&["cpu0 30 0 20 50 0 0 0 0", "cpu1 50 0 40 0 0 0 0 10"]);
        let c2 = core_loads(&b, &a2);
        assert_eq!(c2[1].busy_pct, 90.0);
        assert!(cpu_bound(&c2, 95.0).is_none());
        // A process-bound core.
        let a3 = stat_of(&["cpu0 90 0 8 2 0 0 0 0", "cpu1 0 0 0 100 0 0 0 0"]);
        let v3 = cpu_bound(&core_loads(&b, &a3), 95.0).unwrap();
        assert_eq!((v3.cpu, v3.by.as_str()), (0, "process"));
        assert!(cpu_bound(&[], 95.0).is_none());
    }

    fn row(test: &str, mbit: Option<f64>, status: PhaseStatus) -> NetRow {
        let test: NetTest = test.parse().unwrap();
        NetRow {
            test,
            setting: "as is".into(),
            repeat: 1,
            evidence: RowEvidence::new(NetPhase::new(None, test, 1), status),
            seconds: 1.0,
            sent_mbit_s: mbit,
            received_mbit_s: None,
            cores: vec![],
            cpu_bound: None,
            reached_mhz: vec![],
        }
    }

    #[test]
    fn a_server_is_local_only_on_this_boot_with_its_pid_start_and_name() {
        let root = tempfile::tempdir().unwrap();
        let put = |rel: &str, text: &str| {
            let p = root.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        put(BOOT_ID, "5e1f0c9e-77aa-4b1b-8d43-2f7c1e0a9b00\n");
        put(
            "proc/4242/stat",
            "4242 (truebench) S 1 4242 4242 0 -1 4194560 900 0 0 0 150 40 0 0 20 0 9 0 777000 0 0",
        );
        let host = Host::new(root.path());
        let said = wnet::Identity {
            pid: 4242,
            start: Some(777000),
            boot_id: Some("5e1f0c9e-77aa-4b1b-8d43-2f7c1e0a9b00".into()),
            comm: Some("truebench".into()),
        };
        assert_eq!(local_server(&host, &said), Some(4242));
        let unlike = |f: &dyn Fn(&mut wnet::Identity)| {
            let mut id = said.clone();
            f(&mut id);
            local_server(&host, &id)
        };
        // Another machine, or this one booted again.
        assert_eq!(unlike(&|i| i.boot_id = Some("other".into())), None);
        assert_eq!(unlike(&|i| i.boot_id = None), None);
        // The number of a process in another pid namespace, or a pid since reused.
        assert_eq!(unlike(&|i| i.start = Some(1)), None);
        assert_eq!(unlike(&|i| i.comm = Some("sshd".into())), None);
        assert_eq!(unlike(&|i| i.pid = 4243), None);
        // What a server says of itself is what a client reads of it.
        let me = server_identity(&host);
        assert_eq!(me.pid, std::process::id());
        assert_eq!(me.boot_id, said.boot_id);
        assert_eq!(
            (me.start, me.comm),
            (None, None),
            "not in the recorded tree"
        );
        // On the live machine this process is found as itself.
        let live = Host::new("/");
        let me = server_identity(&live);
        if me.boot_id.is_some() {
            assert_eq!(local_server(&live, &me), Some(std::process::id()), "{me:?}");
        }
    }

    #[test]
    fn summaries_take_the_median_of_completed_repeats() {
        let rows = [
            row("upload", Some(900.0), PhaseStatus::Ok),
            row("download", Some(500.0), PhaseStatus::Ok),
            row("upload", Some(1000.0), PhaseStatus::Ok),
            row("upload", Some(950.0), PhaseStatus::Ok),
            row("upload", None, PhaseStatus::Interrupted),
        ];
        let s = summaries(&rows);
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].test.as_str(), s[0].runs), ("upload", 3));
        assert_eq!(s[0].median_mbit_s, Some(950.0));
        assert!((s[0].spread_pct.unwrap() - 100.0 / 950.0 * 100.0).abs() < 1e-9);
        assert_eq!((s[1].median_mbit_s, s[1].spread_pct), (Some(500.0), None));
    }
}
