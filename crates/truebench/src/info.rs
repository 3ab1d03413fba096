//! Human-readable rendering of an `Inventory` (`truebench info`). The text lives in
//! `truebench_render::info` so the run's detailed log prints the same topology table.

pub use truebench_render::info::{identity, render, topology_table};
