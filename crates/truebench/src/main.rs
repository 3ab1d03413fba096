//! truebench: how fast a Linux machine really is, and why. This crate is the CLI only: it
//! parses flags, calls into the library crates and renders.

// All output goes through `out` (the macros below): see there why.
#![deny(clippy::print_stdout, clippy::print_stderr)]

#[macro_use]
mod out;

mod cli;
mod clocks;
mod compare;
mod efficiency;
mod exit;
mod export;
mod generate;
mod governors;
mod history;
mod import;
mod info;
mod interactivity;
mod io;
mod keep;
mod kernel;
mod measure;
mod monitor;
mod net;
mod power;
mod progress;
mod recovery;
mod report;
mod review;
mod run;
mod serve;
mod serve_results;
mod thermal;

use clap::Parser;

fn main() {
    // Before anything can change a setting: SIGINT/SIGTERM/SIGHUP and panics restore.
    truebench_tuning::install_handlers();
    let cli = cli::Cli::parse();
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
