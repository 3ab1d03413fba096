//! `truebench net`: TCP throughput one way each direction and full duplex, with this side's
//! per-core CPU and softirq load and the verdict "CPU-bound" (the Arndale low-level measurements).
//! `--server` serves other truebench clients; `--connect` tests against a truebench server
//! (or an iperf3 server with `--iperf3`); `--loopback` tests against a server in this process.

use std::time::Duration;

use crate::frame::{MeasureArgs, Show};
use truebench_suites::net::{self as suite, Event, NetOptions, Peer};
use truebench_workloads::net::{self as wnet, Direction};

/// The port a truebench server listens on by default (iperf3's is 5201).
pub const DEFAULT_PORT: u16 = 5202;

#[derive(clap::Args, Debug)]
#[command(after_help = crate::exit::HELP)]
#[command(group(clap::ArgGroup::new("role").required(true).args(["server", "connect", "loopback"])))]
pub struct NetArgs {
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// Serve tests for `truebench net --connect` clients until Ctrl-C. Not a measurement
    /// itself (its clients measure): it takes no lock, so a client on this machine can.
    #[arg(long)]
    pub server: bool,
    /// Address to listen on with --server.
    #[arg(
        long,
        value_name = "ADDR",
        default_value = "0.0.0.0:5202",
        requires = "server"
    )]
    pub listen: String,
    /// Test against the server at HOST[:PORT] (default port 5202, or 5201 with --iperf3).
    #[arg(long, value_name = "HOST[:PORT]", value_parser = host_port)]
    pub connect: Option<HostPort>,
    /// Test against a server started in this process on 127.0.0.1 (the machine's own network
    /// stack: what the CPU costs without a wire).
    #[arg(long)]
    pub loopback: bool,
    /// The server is iperf3 (`iperf3 -s`): drive `iperf3 -J` as its client.
    #[arg(long, requires = "connect")]
    pub iperf3: bool,
    /// Tests, comma-separated: upload (this side sends), download, duplex (both at once).
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        default_value = "upload,download,duplex",
        value_parser = direction
    )]
    pub tests: Vec<Direction>,
    /// Seconds each test moves data (at least 0.5).
    #[arg(long, value_name = "S", default_value_t = 10.0, value_parser = crate::values::TEST_SECONDS)]
    pub duration: f64,
    /// Parallel TCP streams per test, started together (iperf3 -P; at least 1).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = crate::values::AT_LEAST_ONE)]
    pub parallel: u64,
    /// Send with sendfile(2) from a memory file: the data is not copied from user space (as
    /// iperf3 -Z; with --iperf3, passed to it). The receiver still copies.
    #[arg(long)]
    pub zerocopy: bool,
    /// Run every test this many times, in alternating order, for the spread (at least 1).
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = crate::values::AT_LEAST_ONE)]
    pub repeat: u64,
    /// Repeat the tests under each of these cpufreq settings (through the journaled Tuning,
    /// restored afterwards, also after Ctrl-C or kill -9): `max`, `min`, `governor:NAME`,
    /// `opps` (every OPP of the cluster of CPU 0), comma-separated; the machine as it is runs
    /// first. Needs root and cpufreq.
    #[arg(long, value_name = "LIST")]
    pub sweep: Option<String>,
    /// A core at least this busy (%) during a test makes it CPU-bound (above 0, at most 100).
    #[arg(long, value_name = "PCT", default_value_t = 95.0, value_parser = crate::values::PERCENT)]
    pub cpu_bound: f64,
}

pub(crate) fn direction(s: &str) -> Result<Direction, String> {
    match s.trim() {
        "upload" | "up" => Ok(Direction::Upload),
        "download" | "down" => Ok(Direction::Download),
        "duplex" | "both" => Ok(Direction::Duplex),
        _ => Err("expected upload, download or duplex".into()),
    }
}

/// `--connect HOST[:PORT]`: the port, when given; the default depends on the server's kind.
#[derive(Debug, Clone, PartialEq)]
pub struct HostPort {
    host: String,
    port: Option<u16>,
}

impl HostPort {
    fn with_default(&self, port: u16) -> (String, u16) {
        (self.host.clone(), self.port.unwrap_or(port))
    }
}

/// HOST[:PORT]; `[v6]:port` and bare IPv6 addresses too.
fn host_port(s: &str) -> Result<HostPort, String> {
    let bad = || "expected HOST or HOST:PORT".to_string();
    let at = |host: &str, port| HostPort {
        host: host.to_string(),
        port,
    };
    if s.is_empty() {
        return Err(bad());
    }
    if let Some(rest) = s.strip_prefix('[') {
        let (h, tail) = rest.split_once(']').ok_or_else(bad)?;
        return match tail.strip_prefix(':') {
            Some(p) => Ok(at(h, Some(p.parse().map_err(|_| bad())?))),
            None if tail.is_empty() => Ok(at(h, None)),
            None => Err(bad()),
        };
    }
    match s.rsplit_once(':') {
        // More than one colon and no brackets: a bare IPv6 address.
        Some((h, _)) if h.contains(':') => Ok(at(s, None)),
        Some((h, p)) => Ok(at(h, Some(p.parse().map_err(|_| bad())?))),
        None => Ok(at(s, None)),
    }
}

pub fn run(args: NetArgs) -> anyhow::Result<i32> {
    if args.server {
        // It tells a client on this machine who it is: its CPU time is then the measurement's.
        let me = suite::server_identity(&args.measure.machine.host()?);
        let srv = wnet::Server::start_as(&args.listen, me)?;
        errln!(
            "truebench: serving TCP throughput tests on {} (Ctrl-C ends); clients: truebench net --connect HOST:{}",
            srv.addr,
            srv.addr.port()
        );
        srv.wait(&truebench_tuning::graceful_interrupts());
        return Ok(0);
    }
    let mut tests = args.tests.clone();
    crate::frame::dedup(&mut tests);
    let peer = match (&args.connect, args.loopback) {
        (_, true) => Peer::Loopback,
        (Some(c), false) if args.iperf3 => {
            let (host, port) = c.with_default(5201);
            let program = truebench_workloads::tool::find_tool(&["iperf3"]).ok_or_else(|| {
                anyhow::anyhow!(
                    "--iperf3: no iperf3 program found on PATH (Debian: apt-get install iperf3)"
                )
            })?;
            Peer::Iperf3 {
                program,
                host,
                port,
            }
        }
        (Some(c), false) => {
            let (host, port) = c.with_default(DEFAULT_PORT);
            let addr = if host.contains(':') {
                format!("[{host}]:{port}")
            } else {
                format!("{host}:{port}")
            };
            Peer::Truebench(wnet::resolve(&addr)?)
        }
        (None, false) => anyhow::bail!("give --connect HOST, --loopback or --server"),
    };
    crate::cli::sweep_allowed(args.sweep.is_some(), &args.measure.tuning)?;
    let mut frame = args.measure.open()?;
    let sweep = match &args.sweep {
        Some(spec) => {
            let quiet = args.measure.output.json || args.measure.output.quiet;
            let cpu = irq_cpu(&frame.host, &peer, spec, quiet);
            truebench_suites::net_sweep::parse(spec, &frame.inv, cpu)
                .map_err(anyhow::Error::msg)?
        }
        None => Vec::new(),
    };
    // One measurement at a time, refused before the meter or anything else starts.
    let meter = frame.lock()?;
    let (host, inv) = (&frame.host, &frame.inv);
    let opts = NetOptions {
        peer,
        tests,
        streams: args.parallel as u32,
        duration: Duration::from_secs_f64(args.duration),
        zerocopy: args.zerocopy,
        repeat: args.repeat as u32,
        cpu_bound_pct: args.cpu_bound,
        sweep,
        sample_interval: args.measure.sample.or(Duration::from_secs(1)),
        truebench_version: env!("CARGO_PKG_VERSION").into(),
        meter,
    };
    let mut steps = args.measure.steps();
    steps.headline(&format!(
        "net: {}; Ctrl-C keeps what was measured{}",
        crate::progress::steps::plan(
            opts.tests.len(),
            opts.repeat,
            opts.sweep.len(),
            args.duration
        ),
        if opts.sweep.len() > 1 {
            " and restores every setting"
        } else {
            ""
        }
    ));
    let stop = truebench_tuning::graceful_interrupts();
    let per_test = args.duration;
    let mut events = |e: Event<'_>| match e {
        Event::Test {
            index,
            total,
            name,
            setting,
        } => steps.step(index, total, &format!("{name} ({setting})"), Some(per_test)),
        Event::Note(n) => steps.note(&n),
        Event::TestEnd(r) => steps.score(&format!(
            "{}{}{}{}",
            r.evidence.status,
            r.total_mbit_s()
                .map(|m| format!(", {m:.0} Mbit/s"))
                .unwrap_or_default(),
            r.cpu_bound
                .as_ref()
                .map(|v| format!(", CPU-bound (cpu{} {:.0} %, {})", v.cpu, v.busy_pct, v.by))
                .unwrap_or_default(),
            r.evidence.reason
                .as_ref()
                .map(|w| format!(": {w}"))
                .unwrap_or_default()
        )),
    };
    let result = suite::run(host, inv, &opts, stop, &mut events)?;
    drop(steps);
    frame.finish(result, Show::Summary)
}

/// For `--sweep opps`: the CPU that takes the interrupts of the interface the peer is reached
/// by (IPv4 route), said on stderr; None (CPU 0's cluster) when it cannot be told.
fn irq_cpu(host: &truebench_host::Host, peer: &Peer, spec: &str, quiet: bool) -> Option<u32> {
    if !spec.split(',').any(|s| s.trim() == "opps") {
        return None;
    }
    let ip = match peer {
        Peer::Truebench(a) => match a.ip() {
            std::net::IpAddr::V4(v4) => Some(v4),
            std::net::IpAddr::V6(_) => None,
        },
        Peer::Iperf3 { host: h, .. } => h.parse().ok(),
        Peer::Loopback => None,
    };
    let truebench_suites::net_sweep::IrqCpu {
        device: iface,
        cpu: found,
    } = truebench_suites::net_sweep::link_irq_cpu(host, ip);
    if !quiet {
        match (&iface, &found) {
            (Some(i), Some((cpu, irqs))) => errln!(
                "truebench: net: --sweep opps walks the cluster of cpu{cpu}, which takes {i}'s interrupts (IRQ {})",
                irqs.join(",")
            ),
            _ => errln!(
                "truebench: net: --sweep opps walks cpu0's cluster (which CPU takes the link's interrupts could not be told)"
            ),
        }
    }
    found.map(|(cpu, _)| cpu)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(clap::Parser, Debug)]
    struct T {
        #[command(flatten)]
        a: NetArgs,
    }

    /// The arguments, or the refusal as `main` prints it.
    fn parse(a: &[&str]) -> Result<NetArgs, String> {
        let argv: Vec<String> = std::iter::once("t")
            .chain(a.iter().copied())
            .map(String::from)
            .collect();
        <T as clap::Parser>::try_parse_from(&argv)
            .map(|t| t.a)
            .map_err(|e| {
                let cmd = <T as clap::CommandFactory>::command();
                crate::values::refusal_text(&e, &argv, &cmd).unwrap_or_else(|| e.to_string())
            })
    }

    #[test]
    fn addresses_take_the_default_port() {
        let f = |s| host_port(s).unwrap().with_default(5202);
        assert_eq!(f("board"), ("board".into(), 5202));
        assert_eq!(f("10.0.0.2:9000"), ("10.0.0.2".into(), 9000));
        assert_eq!(f("[fe80::1]:7"), ("fe80::1".into(), 7));
        assert_eq!(f("[fe80::1]"), ("fe80::1".into(), 5202));
        assert_eq!(f("fe80::1"), ("fe80::1".into(), 5202));
        for bad in ["", "h:port", "[::1", "[::1]x"] {
            let e = parse(&["--connect", bad]).map(|_| ()).unwrap_err();
            assert!(e.contains(&format!("--connect {bad}")), "{e}");
        }
    }

    #[test]
    fn tests_parse_or_name_the_value() {
        let a = parse(&["--loopback", "--tests", "duplex,up,duplex"]).unwrap();
        let mut t = a.tests.clone();
        crate::frame::dedup(&mut t);
        assert_eq!(t, [Direction::Duplex, Direction::Upload]);
        let e = parse(&["--loopback", "--tests", "sideways"]).map(|_| ()).unwrap_err();
        assert!(e.contains("--tests sideways"), "{e}");
    }
}
