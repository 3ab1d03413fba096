//! truebench: how fast a Linux machine really is, and why. This crate is the CLI only: it
//! parses flags, calls into the library crates and renders.

mod cli;
mod clocks;
mod compare;
mod history;
mod import;
mod info;
mod measure;
mod monitor;
mod recovery;
mod report;
mod run;
mod serve;

use clap::Parser;

fn main() {
    // Before anything can change a setting: SIGINT/SIGTERM/SIGHUP and panics restore.
    truebench_tuning::install_handlers();
    let cli = cli::Cli::parse();
    // truebench_tuning::exit waits for a signal handler that is restoring settings.
    match cli::run(cli) {
        Ok(code) => truebench_tuning::exit(code),
        Err(e) => {
            if truebench_tuning::pending_signal().is_none() {
                eprintln!("truebench: error: {e:#}");
            }
            truebench_tuning::exit(2);
        }
    }
}
