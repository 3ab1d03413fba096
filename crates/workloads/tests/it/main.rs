//! This crate's integration tests in one binary: one link instead of one per file, and the
//! files' tests share the test threads instead of running binary after binary.

mod parsers;
mod real_runs;
mod scripted;
