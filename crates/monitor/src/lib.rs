//! Monitoring beside every benchmark: the sampler, the timeline, before/after evidence, and
//! the pure detectors that turn evidence into findings.

mod collect;
pub mod detect;
pub mod effective;
pub mod evidence;
pub mod exporter;
pub mod freq;
pub mod kmsg;
pub mod profile;
pub mod reader;
pub mod render;
pub mod rpi;
pub mod sampler;

// The evidence types are the stored format's: the model owns them, the monitor fills them.
pub use truebench_model::{finding, timeline};

pub use finding::{Finding, FindingKind, Severity};
pub use reader::Sources;
pub use timeline::{
    CpuPct, EnergyReport, ExtraHeader, ExtraSample, Phase, PhaseEnergy, RpiSample, Sample,
    SourceEnergy, Timeline, TimelineHeader,
};
