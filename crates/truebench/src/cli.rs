//! Command-line interface.

use clap::{Args, Parser};

pub use crate::Command;
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
    /// The PostgreSQL history's password, from the first line of this file, when the
    /// `--db` URL has none (else libpq's PGPASSFILE or ~/.pgpass). Never printed.
    #[arg(
        long,
        global = true,
        value_name = "FILE",
        env = "TRUEBENCH_DB_PASSWORD_FILE"
    )]
    pub db_password_file: Option<PathBuf>,
}

/// sbc-bench's NOTUNING: set and not empty means "change no setting" (`--no-tuning`).
pub fn notuning_env() -> bool {
    std::env::var("NOTUNING").is_ok_and(|v| !v.is_empty())
}

/// `--sweep` sets cpufreq governors and clocks: refused under `--no-tuning` or `NOTUNING`
/// (net and io, which change nothing else).
pub fn sweep_allowed(sweep: bool, tuning: &crate::frame::TuningArgs) -> anyhow::Result<()> {
    if sweep {
        tuning_allowed("--sweep changes cpufreq settings", tuning)?;
    }
    Ok(())
}

/// A flag that changes settings (`what` says which), refused under `--no-tuning` or
/// `NOTUNING`.
pub fn tuning_allowed(what: &str, tuning: &crate::frame::TuningArgs) -> anyhow::Result<()> {
    if tuning.allowed() {
        return Ok(());
    }
    Err(anyhow::anyhow!(
        "{what}, which --no-tuning (or NOTUNING) forbids: give one of them"
    ))
}

/// Options every command that reads the machine shares.
#[derive(Args, Debug, Clone)]
pub struct MachineArgs {
    /// Read the machine below this directory instead of / (a recorded /proc + /sys tree).
    #[arg(long, value_name = "DIR", default_value = "/", value_parser = crate::values::DIRECTORY)]
    pub root: PathBuf,
    /// Read this file instead of /proc/cpuinfo (sbc-bench's CPUINFOFILE).
    #[arg(long, value_name = "FILE", env = "CPUINFOFILE")]
    pub cpuinfo: Option<PathBuf>,
}

impl MachineArgs {
    pub fn host(&self) -> anyhow::Result<Host> {
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
            // A capture is a file: a FIFO, socket or device there would block or never end.
            match std::fs::metadata(c) {
                Err(_) => anyhow::bail!("{}: no such file", given(c)),
                Ok(m) if !m.is_file() => {
                    let what = truebench_host::file_kind(&m.file_type());
                    anyhow::bail!("{}: is {what}, not a cpuinfo capture file", given(c))
                }
                Ok(_) => {}
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

/// Run a command; returns the process exit code.
pub fn run(cli: Cli) -> anyhow::Result<i32> {
    if let Some(f) = cli.db_password_file {
        truebench_store::set_password_file(f);
    }
    cli.command.run()
}
