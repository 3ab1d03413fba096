//! `truebench serve`: the monitor's readings as Prometheus/OpenMetrics metrics on /metrics.

use crate::cli::MachineArgs;
use anyhow::Context;
use std::io::Write;
use std::net::TcpListener;
use std::time::Duration;
use truebench_host::Inventory;
use truebench_monitor::exporter::{serve, CachedExporter, Exporter, ServeOptions};

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
    /// Address and port to listen on (port 0 = any free port; the chosen one is printed).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9102")]
    pub listen: String,
}

pub fn run(args: ServeArgs) -> anyhow::Result<i32> {
    let host = args.machine.host()?;
    let inv = Inventory::probe(&host);
    let listener =
        TcpListener::bind(&args.listen).with_context(|| format!("--listen {}", args.listen))?;
    let addr = listener.local_addr()?;
    // Scrapes within 100 ms share one reading of the machine.
    let exporter = CachedExporter::new(Exporter::new(&host, &inv), Duration::from_millis(100));
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
