//! Human-readable rendering of an `Inventory` (`truebench info`). The text lives in
//! `truebench_render::info` so the run's detailed log prints the same topology table.

pub use truebench_render::info::{identity, render, topology_table};

use crate::cli::MachineArgs;

#[derive(clap::Args, Debug)]
pub struct InfoArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
    /// Print one versioned JSON document instead of text (see docs/schema/info.md).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: InfoArgs) -> anyhow::Result<i32> {
    let host = args.machine.host()?;
    let inv = truebench_host::Inventory::probe(&host);
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&inv)?)?;
    } else {
        out!("{}", render(&inv))?;
    }
    Ok(0)
}
