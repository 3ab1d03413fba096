//! `truebench net`: TCP throughput one way each direction and full duplex, with this side's
//! per-core CPU and softirq load and the verdict "CPU-bound" (the Arndale low-level measurements).
//! `--server` serves other truebench clients; `--connect` tests against a truebench server
//! (or an iperf3 server with `--iperf3`); `--loopback` tests against a server in this process.

use std::io::Write;
use std::time::Duration;

use crate::cli::MachineArgs;
use truebench_host::Inventory;
use truebench_model::NetBody;
use truebench_render::kinds::Render;
use truebench_suites::net::{self as suite, Event, NetOptions, Peer};
use truebench_workloads::net::{self as wnet, Direction};

/// The port a truebench server listens on by default (iperf3's is 5201).
pub const DEFAULT_PORT: u16 = 5202;

#[derive(clap::Args, Debug)]
#[command(after_help = crate::exit::HELP)]
#[command(group(clap::ArgGroup::new("role").required(true).args(["server", "connect", "loopback"])))]
pub struct NetArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
    #[command(flatten)]
    pub power: crate::power::PowerArgs,
    #[command(flatten)]
    pub sample: crate::cli::SampleArgs,
    /// Change no setting: the measurement runs as the machine is, and --sweep (which sets
    /// cpufreq governors and clocks) is refused. (--no-tune is taken too.) Env NOTUNING too.
    #[arg(long, alias = "no-tune")]
    pub no_tuning: bool,
    /// No progress on stderr (errors and warnings still); without it, progress goes to
    /// stderr with --json too.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Serve tests for `truebench net --connect` clients until Ctrl-C.
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
    #[arg(long, value_name = "HOST[:PORT]")]
    pub connect: Option<String>,
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
        default_value = "upload,download,duplex"
    )]
    pub tests: Vec<String>,
    /// Seconds each test moves data.
    #[arg(long, value_name = "S", default_value_t = 10.0)]
    pub duration: f64,
    /// Parallel TCP streams per test, started together (iperf3 -P).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub parallel: u32,
    /// Send with sendfile(2) from a memory file: the data is not copied from user space (as
    /// iperf3 -Z; with --iperf3, passed to it). The receiver still copies.
    #[arg(long)]
    pub zerocopy: bool,
    /// Run every test this many times, in alternating order, for the spread.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub repeat: u32,
    /// Repeat the tests under each of these cpufreq settings (through the journaled Tuning,
    /// restored afterwards, also after Ctrl-C or kill -9): `max`, `min`, `governor:NAME`,
    /// `opps` (every OPP of the cluster of CPU 0), comma-separated; the machine as it is runs
    /// first. Needs root and cpufreq.
    #[arg(long, value_name = "LIST")]
    pub sweep: Option<String>,
    /// A core at least this busy (%) during a test makes it CPU-bound.
    #[arg(long, value_name = "PCT", default_value_t = 95.0)]
    pub cpu_bound: f64,
    /// Print the result document as JSON on stdout instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub store: crate::keep::StoreArgs,
}

fn parse_tests(list: &[String]) -> anyhow::Result<Vec<Direction>> {
    let mut out = Vec::new();
    for t in list {
        let d = match t.trim() {
            "upload" | "up" => Direction::Upload,
            "download" | "down" => Direction::Download,
            "duplex" | "both" => Direction::Duplex,
            other => {
                anyhow::bail!("--tests {other}: expected upload, download or duplex")
            }
        };
        if !out.contains(&d) {
            out.push(d);
        }
    }
    if out.is_empty() {
        anyhow::bail!("--tests: name at least one of upload, download, duplex");
    }
    Ok(out)
}

/// HOST[:PORT] with the default port; `[v6]:port` and bare IPv6 addresses too.
fn split_host_port(s: &str, default_port: u16) -> anyhow::Result<(String, u16)> {
    let bad = || anyhow::anyhow!("--connect {s}: expected HOST or HOST:PORT");
    if s.is_empty() {
        return Err(bad());
    }
    if let Some(rest) = s.strip_prefix('[') {
        let (h, tail) = rest.split_once(']').ok_or_else(bad)?;
        let port = match tail.strip_prefix(':') {
            Some(p) => p.parse().map_err(|_| bad())?,
            None if tail.is_empty() => default_port,
            None => return Err(bad()),
        };
        return Ok((h.to_string(), port));
    }
    match s.rsplit_once(':') {
        // More than one colon and no brackets: a bare IPv6 address.
        Some((h, _)) if h.contains(':') => Ok((s.to_string(), default_port)),
        Some((h, p)) => Ok((h.to_string(), p.parse().map_err(|_| bad())?)),
        None => Ok((s.to_string(), default_port)),
    }
}

pub fn run(args: NetArgs) -> anyhow::Result<i32> {
    if args.server {
        let srv = wnet::Server::start(&args.listen)?;
        errln!(
            "truebench: serving TCP throughput tests on {} (Ctrl-C ends); clients: truebench net --connect HOST:{}",
            srv.addr,
            srv.addr.port()
        );
        srv.wait(&truebench_tuning::graceful_interrupts());
        return Ok(0);
    }
    let tests = parse_tests(&args.tests)?;
    if !(args.duration.is_finite() && args.duration >= 0.5) {
        anyhow::bail!("--duration {}: must be at least 0.5 seconds", args.duration);
    }
    if args.parallel == 0 || args.repeat == 0 {
        anyhow::bail!("--parallel and --repeat must be at least 1");
    }
    if !(args.cpu_bound > 0.0 && args.cpu_bound <= 100.0) {
        anyhow::bail!(
            "--cpu-bound {}: expected a share in (0, 100] %",
            args.cpu_bound
        );
    }
    let peer = match (&args.connect, args.loopback) {
        (_, true) => Peer::Loopback,
        (Some(c), false) if args.iperf3 => {
            let (host, port) = split_host_port(c, 5201)?;
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
            let (host, port) = split_host_port(c, DEFAULT_PORT)?;
            let addr = if host.contains(':') {
                format!("[{host}]:{port}")
            } else {
                format!("{host}:{port}")
            };
            Peer::Truebench(wnet::resolve(&addr)?)
        }
        (None, false) => anyhow::bail!("give --connect HOST, --loopback or --server"),
    };
    let host = args.machine.host()?;
    let inv = Inventory::probe(&host);
    crate::cli::sweep_allowed(args.sweep.is_some(), args.no_tuning)?;
    let sweep = match &args.sweep {
        Some(spec) => {
            let cpu = irq_cpu(&host, &peer, spec, args.json);
            truebench_suites::net_sweep::parse(spec, &inv, cpu).map_err(anyhow::Error::msg)?
        }
        None => Vec::new(),
    };
    // One measurement at a time, refused before the meter or anything else starts.
    let _lock = crate::exit::lock()?;
    let opts = NetOptions {
        peer,
        tests,
        streams: args.parallel,
        duration: Duration::from_secs_f64(args.duration),
        zerocopy: args.zerocopy,
        repeat: args.repeat,
        cpu_bound_pct: args.cpu_bound,
        sweep,
        sample_interval: args.sample.or(Duration::from_secs(1))?,
        truebench_version: env!("CARGO_PKG_VERSION").into(),
        meter: args.power.start()?,
    };
    let quiet = args.json || args.quiet;
    let mut steps = crate::progress::steps::Steps::new(args.quiet, args.json);
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
    let result = suite::run(&host, &inv, &opts, stop, &mut events)?;
    drop(steps);
    crate::keep::store(&result, &args.store, quiet);
    let mut out = crate::out::stdout();
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&result)?)?;
    } else {
        write!(out, "{}", NetBody::summary(result.view()))?;
    }
    out.flush()?;
    let failed = result
        .body
        .rows
        .iter()
        .any(|r| r.evidence.status == truebench_model::PhaseStatus::Failed);
    Ok(crate::exit::of(&result.envelope, failed))
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

    #[test]
    fn addresses_take_the_default_port() {
        let f = |s| split_host_port(s, 5202).unwrap();
        assert_eq!(f("board"), ("board".into(), 5202));
        assert_eq!(f("10.0.0.2:9000"), ("10.0.0.2".into(), 9000));
        assert_eq!(f("[fe80::1]:7"), ("fe80::1".into(), 7));
        assert_eq!(f("[fe80::1]"), ("fe80::1".into(), 5202));
        assert_eq!(f("fe80::1"), ("fe80::1".into(), 5202));
        for bad in ["", "h:port", "[::1", "[::1]x"] {
            let e = split_host_port(bad, 1).unwrap_err().to_string();
            assert!(e.contains(&format!("--connect {bad}")), "{e}");
        }
    }

    #[test]
    fn tests_parse_or_name_the_value() {
        let t = parse_tests(&["duplex".into(), "up".into(), "duplex".into()]).unwrap();
        assert_eq!(t, [Direction::Duplex, Direction::Upload]);
        let e = parse_tests(&["sideways".into()]).unwrap_err().to_string();
        assert!(e.contains("--tests sideways"), "{e}");
    }
}
