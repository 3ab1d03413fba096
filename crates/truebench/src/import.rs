//! `truebench import LOG…`: read sbc-bench result logs (v0.4 … v0.9.72).

use std::path::PathBuf;
use truebench_results::import::summary;
use truebench_results::{parse, results_row, SbcBenchLog};

#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// sbc-bench result logs (the text sbc-bench uploads, e.g. from its results/ folder).
    #[arg(value_name = "LOG", required = true)]
    pub logs: Vec<PathBuf>,
    /// Print the parsed model as JSON: one object for one log, an array for several.
    #[arg(long, conflicts_with = "row")]
    pub json: bool,
    /// Print the Results.md row computed the way the sbc-bench version that wrote the log
    /// computes it, one per log.
    #[arg(long)]
    pub row: bool,
}

/// Exit code 2 when a file could not be read (the others are still imported); sections that
/// cannot be parsed are reported as missing, not as errors.
pub fn run(args: ImportArgs) -> anyhow::Result<i32> {
    let mut parsed: Vec<(String, SbcBenchLog)> = Vec::new();
    let mut failed = false;
    for path in &args.logs {
        match std::fs::read(path) {
            Ok(bytes) => {
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| path.display().to_string());
                parsed.push((name, parse(&String::from_utf8_lossy(&bytes))));
            }
            Err(e) => {
                eprintln!("truebench: error: {}: {e}", path.display());
                failed = true;
            }
        }
    }
    if args.json {
        let logs: Vec<&SbcBenchLog> = parsed.iter().map(|(_, l)| l).collect();
        let text = if logs.len() == 1 {
            serde_json::to_string_pretty(logs[0])?
        } else {
            serde_json::to_string_pretty(&logs)?
        };
        if !logs.is_empty() {
            println!("{text}");
        }
    } else if args.row {
        for (_, log) in &parsed {
            println!("{}", results_row(log));
        }
    } else {
        for (i, (name, log)) in parsed.iter().enumerate() {
            if i > 0 {
                println!();
            }
            print!("{}", summary(name, log));
        }
    }
    Ok(if failed { 2 } else { 0 })
}
