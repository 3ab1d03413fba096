//! This crate's integration tests in one binary: one link instead of one per file, and the
//! files' tests share the test threads instead of running binary after binary.

#[path = "../common/mod.rs"]
mod common;
mod energy;
mod idle;
mod layout;
mod not_checked;
mod report_render;
