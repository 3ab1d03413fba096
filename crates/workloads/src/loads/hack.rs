//! Hack: a hackbench-like storm of small messages between thread pairs over Unix sockets.
//! Bounded: a fixed number of pairs and blocking sends, so it cannot grow memory (interbench's
//! `hackbench 50` forks 50 groups of 40 processes and can exhaust it).

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use super::spawn;

/// Sender/receiver pairs.
const PAIRS: usize = 20;
/// hackbench's message size.
const MSG: usize = 100;

pub(super) fn start(
    threads: &mut Vec<JoinHandle<()>>,
    nice: i32,
    stop: &Arc<AtomicBool>,
) -> String {
    let mut made = 0;
    for _ in 0..PAIRS {
        let Ok((mut a, mut b)) = UnixStream::pair() else {
            break;
        };
        // Timeouts so a stopped partner never leaves the other blocked.
        let t = Some(Duration::from_millis(100));
        let _ = a.set_write_timeout(t);
        let _ = b.set_read_timeout(t);
        spawn(threads, nice, stop, move |stop| {
            let msg = [0x42u8; MSG];
            while !stop.load(Ordering::Relaxed) {
                if a.write_all(&msg).is_err() && stop.load(Ordering::Relaxed) {
                    break;
                }
            }
        });
        spawn(threads, nice, stop, move |stop| {
            let mut buf = [0u8; MSG];
            while !stop.load(Ordering::Relaxed) {
                let _ = b.read(&mut buf);
            }
        });
        made += 1;
    }
    format!("{made} sender/receiver thread pairs passing {MSG}-byte messages over Unix sockets")
}
