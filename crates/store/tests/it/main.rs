//! This crate's integration tests in one binary: one link instead of one per file, and the
//! files' tests share the test threads instead of running binary after binary.

mod compare_rank;
mod postgres;
mod regress;
mod scale;
mod shared;
mod standing;
mod store;
mod tallies;
