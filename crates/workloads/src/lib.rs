//! Built-in measurement kernels and load generators.
//!
//! Each kernel is validated against the peer tool it replaces by a script under `bench/`;
//! unit tests only check plausibility, never timing.

pub mod aes;
pub mod clock;
pub mod exit_wait;
pub mod io;
pub mod iperf3;
pub mod loads;
pub mod lzma;
pub mod memory;
pub mod net;
pub mod openssl;
pub mod periodic;
pub mod pin;
pub mod progress;
pub mod rng;
mod sched_sys;
pub mod sevenzip;
pub mod stress;
pub mod tool;
