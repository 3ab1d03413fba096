//! The command-line tests in one binary: one link instead of one per file, and the tests of
//! every file share the test threads (most wait on a child process), where a binary per file
//! ran one after the other.

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
mod long_run;
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
mod run;
mod scale;
mod serve;
mod site;
mod site_rebuild;
mod thermal;
