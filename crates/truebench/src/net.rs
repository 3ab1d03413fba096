//! `truebench net`: TCP throughput one way each direction and full duplex, with this side's
//! per-core CPU and softirq load and the verdict "CPU-bound" (the Arndale low-level measurements).
//! `--server` serves other truebench clients; `--connect` tests against a truebench server
//! (or an iperf3 server with `--iperf3`); `--loopback` tests against a server in this process.

use std::time::Duration;

use crate::frame::{MeasureArgs, Show};
use crate::sweep::SweepArgs;
use truebench_suites::net::{self as suite, NetOptions, Peer};
use truebench_suites::progress::Event;
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
    #[command(flatten)]
    pub sweep: SweepArgs,
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
    args.sweep.allowed(&args.measure)?;
    let mut frame = args.measure.open()?;
    let sweep = args
        .sweep
        .settings("net", "link", &frame, |host| {
            link_irq_cpu(host, &peer)
        })?;
    // One measurement at a time, refused before the meter or anything else starts.
    let meter = frame.lock()?;
    let (host, inv) = (&frame.host, &frame.inv);
    let opts = NetOptions {
        peer,
        plan: args.sweep.plan(tests, args.duration, sweep),
        streams: args.parallel as u32,
        zerocopy: args.zerocopy,
        sample_interval: args.measure.sample.or(Duration::from_secs(1)),
        truebench_version: env!("CARGO_PKG_VERSION").into(),
        meter,
    };
    let mut progress = args.measure.progress();
    progress.event(Event::headline(crate::sweep::headline(
        "net",
        &opts.plan,
        args.duration,
        "",
        true,
    )));
    let stop = truebench_tuning::graceful_interrupts();
    let result = suite::run(host, inv, &opts, stop, &mut |e| progress.event(e))?;
    drop(progress);
    frame.finish(result, Show::Summary)
}

/// For `--sweep opps`: the interface the peer is reached by (IPv4 route) and the CPU that
/// takes its interrupts.
fn link_irq_cpu(host: &truebench_host::Host, peer: &Peer) -> truebench_suites::sweep::IrqCpu {
    let ip = match peer {
        Peer::Truebench(a) => match a.ip() {
            std::net::IpAddr::V4(v4) => Some(v4),
            std::net::IpAddr::V6(_) => None,
        },
        Peer::Iperf3 { host: h, .. } => h.parse().ok(),
        Peer::Loopback => None,
    };
    truebench_suites::sweep::link_irq_cpu(host, ip)
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
