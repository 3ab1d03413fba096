//! The pure half of monitoring: evidence in, findings and text out. Nothing here reads the
//! machine — the sampler, the snapshot capture and the kernel-log reader that fill these
//! types are `truebench_monitor`'s — so the stored documents, the renderer and the sbc-bench
//! conversion judge and print evidence with the same code the live run uses.

pub mod clocks_text;
pub mod detect;
pub mod evidence;
pub mod idle_latency;
pub mod kmsg;
pub mod render;
pub mod residency;
