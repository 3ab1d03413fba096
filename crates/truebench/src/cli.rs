//! Command-line interface.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use truebench_host::Host;

#[derive(Parser, Debug)]
#[command(
    name = "truebench",
    version,
    about = "How fast a Linux machine really is, and why",
    long_about = "truebench measures a Linux machine — from a single-board computer to a \
                  many-core server — and records the evidence of what the machine was doing \
                  (measured clocks, temperatures, load, throttling, swapping) next to every score.",
    after_help = crate::exit::HELP,
    after_long_help = crate::exit::HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// sbc-bench's NOTUNING: set and not empty means "change no setting" (`--no-tuning`).
pub fn notuning_env() -> bool {
    std::env::var("NOTUNING").is_ok_and(|v| !v.is_empty())
}

/// Options every command that reads the machine shares.
#[derive(Args, Debug, Clone)]
pub struct MachineArgs {
    /// Read the machine below this directory instead of / (a recorded /proc + /sys tree).
    #[arg(long, value_name = "DIR", default_value = "/")]
    pub root: PathBuf,
    /// Read this file instead of /proc/cpuinfo (sbc-bench's CPUINFOFILE).
    #[arg(long, value_name = "FILE", env = "CPUINFOFILE")]
    pub cpuinfo: Option<PathBuf>,
}

impl MachineArgs {
    pub fn host(&self) -> anyhow::Result<Host> {
        if !self.root.is_dir() {
            anyhow::bail!("--root {}: not a directory", self.root.display());
        }
        // Name what the user wrote: the flag, or sbc-bench's variable.
        let given = |c: &std::path::Path| {
            let flag = std::env::args_os().any(|a| a.to_string_lossy().starts_with("--cpuinfo"));
            if flag {
                format!("--cpuinfo {}", c.display())
            } else {
                format!("CPUINFOFILE={}", c.display())
            }
        };
        if let Some(c) = &self.cpuinfo {
            if !c.is_file() {
                anyhow::bail!("{}: no such file", given(c));
            }
        }
        let host = Host::new(&self.root).with_cpuinfo(self.cpuinfo.clone());
        if let Some(c) = &self.cpuinfo {
            let text = host
                .cpuinfo()
                .map_err(|e| anyhow::anyhow!("{}: {}", given(c), e.source))?;
            if let Some(why) = truebench_host::parse::cpuinfo::not_cpuinfo(&text) {
                anyhow::bail!("{}: it holds no cpuinfo ({why})", given(c));
            }
        }
        // Every command opens its machine here, so this is where settings left changed by a
        // killed run on this root are put back, before the command looks at anything.
        crate::recovery::recover_at_start(&host);
        Ok(host)
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Identify the machine: device, SoC, CPU topology and clusters, OPPs, thermal sensors,
    /// memory and swap.
    Info {
        #[command(flatten)]
        machine: MachineArgs,
        /// Print one versioned JSON document instead of text (see docs/schema/info.md).
        #[arg(long)]
        json: bool,
    },
    /// Watch clocks, load, CPU time split and temperatures (sbc-bench -m), or run a command
    /// and report what happened while it ran: throttling, swapping, background activity…
    Monitor(crate::monitor::MonitorArgs),
    /// Serve the monitor's readings as Prometheus/OpenMetrics metrics on /metrics.
    Serve(crate::serve::ServeArgs),
    /// Measured vs advertised clock for every OPP of every cluster (sbc-bench's "Checking
    /// cpufreq OPP"); walking the OPPs needs root, measuring does not.
    Clocks(crate::clocks::ClocksArgs),
    /// The standard benchmark (sbc-bench): idle gate, tuning, clocks, memory, AES, 7-zip,
    /// clocks again under load, verdicts; every score with the evidence of its phase.
    Run(crate::run::RunArgs),
    /// Interactivity (interbench): simulated Audio, Video, X and Gaming tasks alone and under
    /// background loads — wake-up latency ± SD, percentiles, max, % desired CPU, % deadlines met.
    Interactivity(crate::interactivity::InteractivityArgs),
    /// cpufreq governor efficiency: periodic task sets (fixed work, seeded) under every
    /// governor — miss ratio per utilisation, efficiency, clocks, time in state, energy.
    Governors(crate::governors::GovernorsArgs),
    /// TCP throughput one way each direction and full duplex (truebench or iperf3 server),
    /// with per-core CPU and softirq load and the verdict CPU-bound.
    Net(crate::net::NetArgs),
    /// Storage reads — cached, sequential O_DIRECT, 4 KiB random O_DIRECT — with what holds
    /// the target, the CPU they cost, and the cpufreq sweep; never writes to a device.
    Io(crate::io::IoArgs),
    /// Thermal test (sbc-bench -t/-T): cool to (or heat to) a start temperature, run a load
    /// for N minutes; score, clock and temperature over time, where each cluster first lost
    /// clock, time in state, energy.
    Thermal(crate::thermal::ThermalArgs),
    /// Efficiency per OPP (sbc-bench -g): for each cluster every OPP set, its real clock
    /// measured, the same work run from the same temperature; score, watts, score per watt,
    /// the best OPP.
    Efficiency(crate::efficiency::EfficiencyArgs),
    /// Kernel version, build and config hints, vendor/BSP or mainline, and whether kernel.org
    /// still maintains the series (sbc-bench -k) — offline, from a dated release list.
    Kernel(crate::kernel::KernelArgs),
    /// Every performance-relevant setting with its value and why it matters (sbc-bench -r);
    /// -R tunes to performance, monitors until Ctrl-C or while --exec runs, and restores.
    Review(crate::review::ReviewArgs),
    /// Read sbc-bench result logs (v0.4 … v0.9.72): a summary per log, the parsed model
    /// (--json) or the Results.md row computed the way sbc-bench computes it (--row).
    Import(crate::import::ImportArgs),
    /// Run one measurement kernel or tool adapter alone (memory, aes, openssl, sevenzip,
    /// lzma, stress, stockfish) — for the bench/ scripts.
    #[command(hide = true)]
    Measure(crate::measure::MeasureArgs),
    /// List the runs and imported logs stored in the history database.
    History(crate::history::HistoryArgs),
    /// Write stored results as one JSON document each into a folder, to import them on
    /// another machine (`truebench import FILE.json`) without a shared database.
    Export(crate::export::ExportArgs),
    /// Write one self-contained HTML report (charts, verdicts, evidence) for a result.
    Report(crate::report::ReportArgs),
    /// Scores side by side with relative differences and what makes the comparison unfair;
    /// with --corpus, where a result stands among sbc-bench logs.
    Compare(crate::compare::CompareArgs),
    /// Man pages and shell completions (bash, zsh, fish…), made from this binary's options.
    Generate(crate::generate::GenerateArgs),
}

/// Run a command; returns the process exit code.
///
/// Each command lives in its own module with an `Args` struct and a `run` function; adding a
/// command is one variant above and one arm here.
pub fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
        Command::Info { machine, json } => {
            let host = machine.host()?;
            let inv = truebench_host::Inventory::probe(&host);
            if json {
                outln!("{}", serde_json::to_string_pretty(&inv)?)?;
            } else {
                out!("{}", crate::info::render(&inv))?;
            }
            Ok(0)
        }
        Command::Monitor(args) => crate::monitor::run(args),
        Command::Serve(args) => crate::serve::run(args),
        Command::Clocks(args) => crate::clocks::run(args),
        Command::Run(args) => crate::run::run(args),
        Command::Interactivity(args) => crate::interactivity::run(args),
        Command::Governors(args) => crate::governors::run(args),
        Command::Net(args) => crate::net::run(args),
        Command::Io(args) => crate::io::run(args),
        Command::Thermal(args) => crate::thermal::run(args),
        Command::Efficiency(args) => crate::efficiency::run(args),
        Command::Kernel(args) => crate::kernel::run(args),
        Command::Review(args) => crate::review::run(args),
        Command::Import(args) => crate::import::run(args),
        Command::Measure(args) => crate::measure::run(args),
        Command::History(args) => crate::history::run(args),
        Command::Export(args) => crate::export::run(args),
        Command::Report(args) => crate::report::run(args),
        Command::Compare(args) => crate::compare::run(args),
        Command::Generate(args) => crate::generate::run(args),
    }
}
