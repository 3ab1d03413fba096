//! This crate's integration tests in one binary: one link instead of one per file.

mod excerpts;
mod render;
