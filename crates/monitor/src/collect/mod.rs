//! One collector per data source. Each opens its files through `Host` when the reader is
//! built and fills its part of the `Sample` at every tick from handles kept open.

pub(crate) mod clocks;
pub(crate) mod cpu;
pub(crate) mod disks;
pub(crate) mod idle;
pub(crate) mod memory;
pub(crate) mod net;
pub(crate) mod power;
pub(crate) mod pressure;
pub(crate) mod softirq;
pub(crate) mod thermal;
