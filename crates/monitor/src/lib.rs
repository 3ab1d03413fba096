//! Monitoring beside every benchmark, the part that reads the machine: the sampler and its
//! readers, evidence snapshots taken at phase boundaries, the kernel log followed while a run
//! lasts, and the OpenMetrics exporter. What is made of that evidence — the detectors, their
//! findings' texts, the monitoring table — is `truebench_monitor_core`'s.

pub mod capture;
mod collect;
pub mod effective;
pub mod exporter;
pub mod freq;
mod keep;
pub mod kmsg;
pub mod profile;
pub mod reader;
pub mod rpi;
pub mod sampler;
mod warm;

pub use reader::Sources;
