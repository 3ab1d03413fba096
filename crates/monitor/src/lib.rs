//! Monitoring beside every benchmark: the sampler, the timeline, before/after evidence, and
//! the pure detectors that turn evidence into findings.

pub mod finding;

pub use finding::{Finding, FindingKind, Severity};
