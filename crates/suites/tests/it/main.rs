//! This crate's integration tests in one binary: one link instead of one per file, and the
//! files' tests share the test threads instead of running binary after binary.

mod clocks;
mod efficiency;
mod interactivity;
mod max_khz;
mod meter;
mod progress;
mod residency;
mod run;
mod run_support;
mod session;
mod thermal;
