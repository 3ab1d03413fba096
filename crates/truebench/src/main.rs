//! truebench: how fast a Linux machine really is, and why. This crate is the CLI only: it
//! parses flags, calls into the library crates and renders.

// All output goes through `out` (the macros below): see there why.
#![deny(clippy::print_stdout, clippy::print_stderr)]

#[macro_use]
mod out;

mod cli;
mod exit;
mod farm;
mod files;
mod frame;
mod keep;
mod meter_args;
mod progress;
mod recovery;
mod serve_results;
mod sweep;
mod values;

use clap::{CommandFactory, Parser};

/// mimalloc, not the C library's malloc: the commands that hold a fleet (the site, the
/// history) make millions of small strings. With it a site rebuild at 10^5 results takes a
/// quarter less CPU and memory than with glibc's (BENCHMARKS.md). The sampler's
/// tick allocates nothing, whichever allocator.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Every command, once: its help, its variant and its module (`src/<module>.rs` with an
/// `Args` struct and `run(args) -> anyhow::Result<i32>`). Adding a command is one entry in
/// the list below: the module, the clap subcommand and its dispatch come from it.
macro_rules! commands {
    ($($(#[$meta:meta])* $variant:ident($module:ident::$args:ident),)*) => {
        $(mod $module;)*

        #[derive(clap::Subcommand, Debug)]
        pub enum Command {
            $($(#[$meta])* $variant($module::$args),)*
        }

        impl Command {
            /// Run the command; returns the process exit code.
            pub fn run(self) -> anyhow::Result<i32> {
                match self {
                    $(Command::$variant(args) => $module::run(args),)*
                }
            }
        }
    };
}

commands! {
    /// Identify the machine: device, SoC, CPU topology and clusters, OPPs, thermal sensors,
    /// memory and swap.
    Info(info::InfoArgs),
    /// Watch clocks, load, CPU time split and temperatures (sbc-bench -m), or run a command
    /// and report what happened while it ran: throttling, swapping, background activity…
    Monitor(monitor::MonitorArgs),
    /// Serve the monitor's readings as Prometheus/OpenMetrics metrics on /metrics.
    Serve(serve::ServeArgs),
    /// Measured vs advertised clock for every OPP of every cluster (sbc-bench's "Checking
    /// cpufreq OPP"); walking the OPPs needs root, measuring does not.
    Clocks(clocks::ClocksArgs),
    /// The standard benchmark (sbc-bench): idle gate, tuning, clocks, memory, AES, 7-zip,
    /// clocks again under load, verdicts; every score with the evidence of its phase.
    Run(run::RunArgs),
    /// Interactivity (interbench): simulated Audio, Video, X and Gaming tasks alone and under
    /// background loads — wake-up latency ± SD, percentiles, max, % desired CPU, % deadlines met.
    Interactivity(interactivity::InteractivityArgs),
    /// cpufreq governor efficiency: periodic task sets (fixed work, seeded) under every
    /// governor — miss ratio per utilisation, efficiency, clocks, time in state, energy.
    Governors(governors::GovernorsArgs),
    /// TCP throughput one way each direction and full duplex (truebench or iperf3 server),
    /// with per-core CPU and softirq load and the verdict CPU-bound.
    Net(net::NetArgs),
    /// Storage reads — cached, sequential O_DIRECT, 4 KiB random O_DIRECT — with what holds
    /// the target, the CPU they cost, and the cpufreq sweep; never writes to a device.
    Io(io::IoArgs),
    /// Thermal test (sbc-bench -t/-T): cool to (or heat to) a start temperature, run a load
    /// for N minutes; score, clock and temperature over time, where each cluster first lost
    /// clock, time in state, energy.
    Thermal(thermal::ThermalArgs),
    /// Efficiency per OPP (sbc-bench -g): for each cluster every OPP set, its real clock
    /// measured, the same work run from the same temperature; score, watts, score per watt,
    /// the best OPP.
    Efficiency(efficiency::EfficiencyArgs),
    /// Power idle, as configured and in each low-power setting (governor, devfreq, ASPM,
    /// cores offline), each state to a stated 95 % interval, with its saving; all put back.
    Power(power::PowerArgs),
    /// Kernel version, build and config hints, vendor/BSP or mainline, and whether kernel.org
    /// still maintains the series (sbc-bench -k) — offline, from a dated release list.
    Kernel(kernel::KernelArgs),
    /// Every performance-relevant setting with its value and why it matters (sbc-bench -r);
    /// -R tunes to performance, monitors until Ctrl-C or while --exec runs, and restores.
    Review(review::ReviewArgs),
    /// Read sbc-bench result logs (v0.4 … v0.9.72): a summary per log, the parsed model
    /// (--json) or the Results.md row computed the way sbc-bench computes it (--row).
    Import(import::ImportArgs),
    /// Run one measurement kernel or tool adapter alone (memory, aes, openssl, sevenzip,
    /// lzma, stress, stockfish) — for the bench/ scripts.
    #[command(hide = true)]
    Measure(measure::MeasureArgs),
    /// List the runs and imported logs stored in the history database.
    History(history::HistoryArgs),
    /// Write stored results as one JSON document each into a folder, to import them on
    /// another machine (`truebench import FILE.json`) without a shared database.
    Export(export::ExportArgs),
    /// Send the results kept in the local history for a PostgreSQL server that could not be
    /// reached when they were measured (each arrives once, however often it is sent).
    Sync(sync::SyncArgs),
    /// Write one self-contained HTML report (charts, verdicts, evidence) for a result.
    Report(report::ReportArgs),
    /// Scores side by side with relative differences and what makes the comparison unfair;
    /// with --corpus, where a result stands among sbc-bench logs.
    Compare(compare::CompareArgs),
    /// Write the history as a static site: an index of every result (sortable, filterable),
    /// a page per result and per SoC, and a compare page — one folder, no network needed.
    Site(site::SiteArgs),
    /// Man pages and shell completions (bash, zsh, fish…), made from this binary's options.
    Generate(generate::GenerateArgs),
}

fn main() {
    // Before anything can change a setting: SIGINT/SIGTERM/SIGHUP and panics restore.
    truebench_tuning::install_handlers();
    let cli = match cli::Cli::try_parse() {
        Ok(c) => c,
        Err(e) => parse_error(e),
    };
    let result = cli::run(cli);
    let code = match (out::finish(), result) {
        // The reader of standard output went away (`| head`): stop without a word.
        (out::Outcome::Closed, _) => 0,
        (_, Err(e)) => {
            if truebench_tuning::pending_signal().is_none() {
                errln!("truebench: error: {}", out::chain(&e));
            }
            exit::of_error(&e)
        }
        // Output was lost though the command went on (the monitor stops quietly).
        (out::Outcome::Failed(message), Ok(_)) => {
            errln!("truebench: error: {message}");
            exit::ERROR
        }
        (out::Outcome::Written, Ok(code)) => code,
    };
    // truebench_tuning::exit waits for a signal handler that is restoring settings.
    truebench_tuning::exit(code);
}

/// A bad command line: a refused value as `truebench: error: --flag VALUE: expected …` (exit
/// 2), everything else (help, version, unknown flags) as clap prints it.
fn parse_error(e: clap::Error) -> ! {
    let argv: Vec<String> = std::env::args().collect();
    match values::refusal_text(&e, &argv, &cli::Cli::command()) {
        Some(text) => {
            errln!("truebench: error: {text}");
            errln!("For more information, try '--help'.");
            let _ = out::finish();
            truebench_tuning::exit(exit::ERROR)
        }
        None => e.exit(),
    }
}
