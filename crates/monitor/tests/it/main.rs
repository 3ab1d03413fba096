//! This crate's integration tests in one binary: one link instead of one per file, and the
//! files' tests share the test threads instead of running binary after binary.

mod common;
mod damaged_roots;
mod exporter_node;
mod extra_sources;
mod freq_log;
mod idle;
mod not_checked;
mod perf_limits;
mod reader_live;
mod sampler;
mod scenarios;
