//! `truebench generate`: man pages and shell completions, made from the same clap definition
//! the binary parses (so they cannot drift from it); the Debian package ships both.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, CommandFactory, Subcommand};

#[derive(Args, Debug)]
pub struct GenerateArgs {
    #[command(subcommand)]
    what: What,
}

#[derive(Subcommand, Debug)]
enum What {
    /// Man pages into DIR: truebench.1 and truebench-COMMAND.1 for every command.
    Man {
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Completions for SHELL on standard output, e.g.
    /// `truebench generate completions bash > /etc/bash_completion.d/truebench`.
    Completions {
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
}

pub fn run(args: GenerateArgs) -> anyhow::Result<i32> {
    let mut cmd = crate::cli::Cli::command();
    match args.what {
        What::Man { dir } => {
            std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
            clap_mangen::generate_to(cmd, &dir)
                .with_context(|| format!("writing man pages into {}", dir.display()))?;
            let n = std::fs::read_dir(&dir)
                .with_context(|| format!("reading {}", dir.display()))?
                .filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().ends_with(".1"))
                .count();
            errln!("truebench: {n} man pages in {}", dir.display());
        }
        What::Completions { shell } => {
            let mut text = Vec::new();
            clap_complete::generate(shell, &mut cmd, "truebench", &mut text);
            out!("{}", String::from_utf8_lossy(&text))?;
        }
    }
    Ok(0)
}
