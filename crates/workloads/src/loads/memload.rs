//! Memload: interbench's memory pressure — allocate `bytes` (110 % of the available RAM) in
//! 1 MiB blocks, touch every page, copy blocks around, free them, repeat. Only started with
//! swap (the caller checks); the stop flag is polled between blocks.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use super::spawn;

const MIB: usize = 1 << 20;

pub(super) fn start(
    threads: &mut Vec<JoinHandle<()>>,
    bytes: u64,
    nice: i32,
    stop: &Arc<AtomicBool>,
) -> String {
    let blocks = (bytes / MIB as u64).max(1) as usize;
    spawn(threads, nice, stop, move |stop| {
        while !stop.load(Ordering::Relaxed) {
            let mut v: Vec<Vec<u8>> = Vec::new();
            for _ in 0..blocks {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                v.push(vec![1u8; MIB]);
            }
            for i in 0..v.len() {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let j = (i + v.len() / 2) % v.len();
                if i != j {
                    let src = v[j].clone();
                    v[i].copy_from_slice(&src);
                }
            }
        }
    });
    format!(
        "allocating, touching and moving {:.1} GiB (110 % of the available RAM)",
        bytes as f64 / (1u64 << 30) as f64
    )
}
