//! This crate's integration tests in one binary: one link instead of one per file, and the
//! files' tests share the test threads instead of running binary after binary.

mod cpuidle;
mod kernel;
mod machines;
mod odd_files;
mod old_cpuinfo;
mod opp_tree;
mod perf_control;
mod review;
mod review_checks;
