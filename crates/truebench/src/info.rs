//! Human-readable rendering of an `Inventory` (`truebench info`). The text lives in
//! `truebench_results::info` so the run's detailed log prints the same topology table.

pub use truebench_results::info::{identity, render, topology_table};
