//! truebench: how fast a Linux machine really is, and why. This crate is the CLI only: it
//! parses flags, calls into the library crates and renders.

mod cli;
mod info;

use clap::Parser;

fn main() {
    let cli = cli::Cli::parse();
    match cli::run(cli) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("truebench: error: {e:#}");
            std::process::exit(2);
        }
    }
}
