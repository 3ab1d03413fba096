//! `truebench serve`: the monitor's readings as Prometheus/OpenMetrics metrics on /metrics.

use crate::cli::MachineArgs;
use anyhow::Context;
use std::io::Write;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, ToSocketAddrs};
use std::time::Duration;
use truebench_host::Inventory;
use truebench_monitor::exporter::{serve, CachedExporter, Exporter, ServeOptions};

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
    /// Address and port to listen on (port 0 = any free port; the chosen one is printed);
    /// `:PORT` (node_exporter's style) listens on every interface.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9102", value_parser = listen)]
    pub listen: Listen,
    /// History whose latest result of each kind is exported too (`truebench_result_*`;
    /// default $XDG_DATA_HOME/truebench/history.sqlite; nothing while it does not exist).
    /// A postgresql://USER@HOST/DB URL uses that PostgreSQL database instead.
    #[arg(long, value_name = "PATH|URL", env = "TRUEBENCH_DB")]
    pub db: Option<std::path::PathBuf>,
}

pub fn run(args: ServeArgs) -> anyhow::Result<i32> {
    let host = args.machine.host()?;
    let inv = Inventory::probe(&host);
    let listener = TcpListener::bind(&args.listen.addrs[..])
        .with_context(|| format!("--listen {}", args.listen.text))?;
    let addr = listener.local_addr()?;
    // Scrapes within 100 ms share one reading of the machine.
    let mut exporter = Exporter::new(&host, &inv);
    match args
        .db
        .clone()
        .map(Ok)
        .unwrap_or_else(truebench_store::default_path)
    {
        Ok(db) => exporter = exporter.with_extra(crate::serve_results::provider(db)),
        Err(e) => errln!("truebench: serve: no history to export results from: {e}"),
    }
    let exporter = CachedExporter::new(exporter, Duration::from_millis(100));
    let mut out = crate::out::stdout();
    writeln!(out, "Serving metrics on http://{addr}/metrics")?;
    out.flush()?;
    drop(out);
    // Ctrl-C / SIGTERM: the first one sets this flag and the loop ends within 250 ms.
    let stop = truebench_tuning::graceful_interrupts();
    serve(listener, &exporter, &ServeOptions::default(), &stop)
        .with_context(|| format!("serving on {addr}"))?;
    Ok(0)
}

/// `--listen` as given and the addresses it names.
#[derive(Debug, Clone)]
pub struct Listen {
    text: String,
    addrs: Vec<SocketAddr>,
}

fn listen(s: &str) -> Result<Listen, String> {
    Ok(Listen {
        text: s.to_string(),
        addrs: listen_addrs(s)?,
    })
}

/// `:9556` means every interface on that port, as in node_exporter's `--web.listen-address`:
/// IPv6 and IPv4 (`[::]`), or IPv4 alone where IPv6 is off.
fn listen_addrs(listen: &str) -> Result<Vec<SocketAddr>, String> {
    let Some(port) = listen.strip_prefix(':') else {
        return listen
            .to_socket_addrs()
            .map(|a| a.collect())
            .map_err(|e| format!("expected ADDRESS:PORT (127.0.0.1:9102) or :PORT ({e})"));
    };
    let port: u16 = port
        .parse()
        .map_err(|_| format!("{port} is not a port number"))?;
    Ok(vec![
        SocketAddr::from((Ipv6Addr::UNSPECIFIED, port)),
        SocketAddr::from((Ipv4Addr::UNSPECIFIED, port)),
    ])
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_bare_port_is_every_interface() {
        let a = super::listen_addrs(":9556").unwrap();
        assert_eq!(a[0].to_string(), "[::]:9556");
        assert_eq!(a[1].to_string(), "0.0.0.0:9556");
        let a = super::listen_addrs("127.0.0.1:9102").unwrap();
        assert_eq!(a[0].to_string(), "127.0.0.1:9102");
        let e = super::listen_addrs("9102").unwrap_err().to_string();
        assert!(e.contains("ADDRESS:PORT"), "{e}");
    }
}
