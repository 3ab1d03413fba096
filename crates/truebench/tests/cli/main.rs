//! The command-line tests in one binary: one link instead of one per file, and the tests of
//! every file share the test threads (most wait on a child process), where a binary per file
//! ran one after the other.
//!
//! libtest starts the tests in the order of their names, as threads come free. The longest
//! tests — the real quick runs on this machine and the half-minute long run — are in modules
//! named `a_…` so that they start first, beside the many short ones; named as their files,
//! they started last and the binary waited for them alone.

#[path = "long_run.rs"]
mod a_long_run;
#[path = "run.rs"]
mod a_run;

mod clocks;
mod common;
mod contract;
mod crash;
mod efficiency;
mod ending;
mod errors;
mod export;
mod farm;
mod fleet;
mod full_disk;
mod generate;
mod governors;
mod history;
mod idle;
mod import;
mod interactivity;
mod interrupted;
mod io;
mod kernel;
mod marks;
mod measure;
mod meter;
mod monitor;
mod net;
mod odd_files;
mod output;
mod per_cluster;
mod pg_tls;
mod postgres;
mod recovery;
mod review;
mod scale;
mod serve;
mod site;
mod site_rebuild;
mod thermal;
