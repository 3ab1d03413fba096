//! `truebench net --connect`: TCP throughput tests on the Session — upload, download and full
//! duplex — run by the sweep's plan (`sweep::run`: repeats in alternating order, each cpufreq
//! setting of the sweep, each test one phase with this side's per-core load from `/proc/stat`
//! and the verdict "CPU-bound" when a core was saturated). What is net's own: the peer, the
//! transfer and its figures. A truebench server on this same machine (also in another network
//! namespace of it) is part of the measurement: asked who it is, its CPU time is not counted
//! as other processes' load.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use truebench_host::{Host, Inventory};
use truebench_model::net::{NetBody, NetRow, NetTest, NetTestSummary, PeerKind};
use truebench_model::sweep::{Sweep, TestSummary};
use truebench_model::{self as m, NetResult, PhaseStatus};
use truebench_monitor::Sources;
use truebench_monitor_core::evidence::parse_proc_stat;
use truebench_stats::median;
use truebench_workloads::net::{self as wnet, Direction};
use truebench_workloads::tool::ToolOutput;

use crate::progress::Event;
use crate::session::{Outcome, Session, SessionOptions};
use crate::sweep::{self, Measure, MeasuredOf, Plan};

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
    /// The tests (directions), their length, repeats and the sweep.
    pub plan: Plan<Direction>,
    pub streams: u32,
    /// Send with sendfile(2) (iperf3 `-Z`).
    pub zerocopy: bool,
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
        stop,
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
    let transfer = Transfer {
        opts,
        server: &server,
        peer,
        peer_kind,
    };
    Ok(sweep::run(s, &transfer, &opts.plan, events)?)
}

/// The transfers against one peer: what `net` measures on the sweep's plan.
struct Transfer<'a> {
    opts: &'a NetOptions,
    server: &'a Option<wnet::Server>,
    peer: String,
    peer_kind: PeerKind,
}

impl Measure for Transfer<'_> {
    type Test = Direction;
    /// What moved, and iperf3's output when it moved it.
    type Figures = (wnet::NetResult, Option<ToolOutput>);
    type Body = NetBody;
    const UNIT: &'static str = "Mbit/s";

    fn test(d: Direction) -> NetTest {
        net_test(d)
    }

    fn title(&self, d: Direction, setting: &str) -> (String, u32) {
        let title = format!(
            "TCP {} with {} stream(s) for {:.0} s against {} ({}), {setting}",
            test_name(d),
            self.opts.streams,
            self.opts.plan.duration.as_secs_f64(),
            self.peer,
            self.peer_kind
        );
        let per_stream = if d == Direction::Duplex { 2 } else { 1 };
        (title, self.opts.streams * per_stream)
    }

    fn measure(
        &self,
        dir: Direction,
        stop: &AtomicBool,
        out: &mut Outcome,
    ) -> Result<Self::Figures, String> {
        let wopts = wnet::NetOptions {
            streams: self.opts.streams,
            duration: self.opts.plan.duration,
            direction: dir,
            zerocopy: self.opts.zerocopy,
        };
        let moved = match (&self.opts.peer, self.server) {
            (
                Peer::Iperf3 {
                    program,
                    host,
                    port,
                },
                _,
            ) => truebench_workloads::iperf3::run(program, host, *port, &wopts, stop)
                .map(|(r, out)| (r, Some(out)))
                .map_err(|e| e.to_string()),
            (Peer::Truebench(a), _) => wnet::run(*a, &wopts, stop)
                .map(|r| (r, None))
                .map_err(|e| e.to_string()),
            (Peer::Loopback, Some(sv)) => wnet::run(sv.addr, &wopts, stop)
                .map(|r| (r, None))
                .map_err(|e| e.to_string()),
            (Peer::Loopback, None) => Err("the loopback server did not start".to_string()),
        }?;
        if let Some(o) = &moved.1 {
            out.raw.push(m::RawOutput {
                label: format!("iperf3 {}", test_name(dir)),
                command: o.command_line(),
                text: o.stdout.clone(),
            });
        }
        out.details = serde_json::to_value(&moved.0).unwrap_or_default();
        Ok(moved)
    }

    fn row(m: MeasuredOf<Self>) -> NetRow {
        // A cut-short transfer is no figure; how long it flowed still stands.
        let whole = m.evidence.status == PhaseStatus::Ok;
        let res = m.figures.as_ref().map(|(r, _)| r);
        let moved = res.filter(|_| whole);
        NetRow {
            run: m.run,
            evidence: m.evidence,
            seconds: res.map_or(0.0, |r| r.seconds),
            sent_mbit_s: moved
                .filter(|_| m.test != Direction::Download)
                .map(|r| r.sent_bps / 1e6),
            received_mbit_s: moved
                .filter(|_| m.test != Direction::Upload)
                .map(|r| r.received_bps / 1e6),
        }
    }

    fn summary(summary: TestSummary<NetTest>, done: &[&NetRow]) -> NetTestSummary {
        let mbit_s: Vec<f64> = done.iter().filter_map(|r| r.total_mbit_s()).collect();
        NetTestSummary {
            summary,
            median_mbit_s: median(&mbit_s),
        }
    }

    fn step_figures(r: &NetRow) -> String {
        format!(
            "{}{}",
            r.total_mbit_s()
                .map(|m| format!(", {m:.0} Mbit/s"))
                .unwrap_or_default(),
            r.run
                .cpu_bound
                .as_ref()
                .map(|v| format!(", CPU-bound (cpu{} {:.0} %, {})", v.cpu, v.busy_pct, v.by))
                .unwrap_or_default()
        )
    }

    fn body(&self, sweep: Sweep, rows: Vec<NetRow>, tests: Vec<NetTestSummary>) -> NetBody {
        NetBody {
            peer: self.peer.clone(),
            peer_kind: self.peer_kind,
            streams: self.opts.streams,
            zerocopy: self.opts.zerocopy,
            sweep,
            rows,
            tests,
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use truebench_model::net::NetPhase;
    use truebench_model::sweep::TestRun;
    use truebench_model::RowEvidence;

    fn row(test: &str, mbit: Option<f64>, status: PhaseStatus) -> NetRow {
        let test: NetTest = test.parse().unwrap();
        NetRow {
            run: TestRun {
                test,
                setting: "as is".into(),
                repeat: 1,
                cores: vec![],
                cpu_bound: None,
                reached_mhz: vec![],
            },
            evidence: RowEvidence::new(NetPhase::new(None, test, 1), status),
            seconds: 1.0,
            sent_mbit_s: mbit,
            received_mbit_s: None,
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
        let s = sweep::summaries::<Transfer<'_>>(&rows);
        assert_eq!(s.len(), 2);
        assert_eq!(
            (s[0].summary.test.as_str(), s[0].summary.runs),
            ("upload", 3)
        );
        assert_eq!(s[0].median_mbit_s, Some(950.0));
        assert!((s[0].summary.spread_pct.unwrap() - 100.0 / 950.0 * 100.0).abs() < 1e-9);
        assert_eq!(
            (s[1].median_mbit_s, s[1].summary.spread_pct),
            (Some(500.0), None)
        );
    }
}
