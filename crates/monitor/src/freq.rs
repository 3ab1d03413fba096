//! Fast frequency log: the current frequency of every cpufreq policy (`scaling_cur_freq`,
//! kept open), read at a high rate (20 Hz and more) on a thread of its own — what the
//! governor comparison needs to see a governor react. Nothing else is read, so a tick costs
//! one `pread` per policy instead of a whole sample.
//!
//! `scaling_cur_freq` is the kernel's cached value (or, on x86, an APERF/MPERF estimate); it
//! never asks firmware, unlike `cpuinfo_cur_freq`, so it is safe to read this often.

use crate::reader::{parse_i64, pread_all};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use truebench_host::{Host, Inventory};

const CPUFREQ_DIR: &str = "sys/devices/system/cpu/cpufreq";

/// The open `scaling_cur_freq` files, one per policy.
pub struct FreqReader {
    policies: Vec<u32>,
    files: Vec<Option<File>>,
    buf: [u8; 64],
}

impl FreqReader {
    /// Every policy of every cluster of the inventory.
    pub fn new(host: &Host, inv: &Inventory) -> FreqReader {
        let mut policies = Vec::new();
        let mut files = Vec::new();
        for cl in &inv.clusters {
            for &p in &cl.policies {
                // The cluster's own directory may be a legacy cpuN/cpufreq path.
                let dir = match (&cl.policy_dir, cl.policy) {
                    (Some(d), Some(own)) if own == p => d.clone(),
                    _ => format!("{CPUFREQ_DIR}/policy{p}"),
                };
                policies.push(p);
                files.push(host.open(format!("{dir}/scaling_cur_freq")).ok());
            }
        }
        FreqReader {
            policies,
            files,
            buf: [0; 64],
        }
    }

    /// Policy numbers, in the order of `read`'s output.
    pub fn policies(&self) -> &[u32] {
        &self.policies
    }

    /// The current frequency of each policy, kHz (None when unreadable). `out` must have one
    /// slot per policy.
    pub fn read(&mut self, out: &mut [Option<u32>]) {
        for (o, f) in out.iter_mut().zip(&self.files) {
            *o = f
                .as_ref()
                .and_then(|f| pread_all(f, &mut self.buf).ok())
                .and_then(parse_i64)
                .and_then(|k| u32::try_from(k).ok());
        }
    }
}

/// Frequencies over time. Row `i` was read at `t[i]` seconds; its values are
/// `khz[i * policies.len() ..][.. policies.len()]`, one per policy.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FreqLog {
    pub policies: Vec<u32>,
    pub interval_s: f64,
    pub t: Vec<f64>,
    pub khz: Vec<Option<u32>>,
}

impl FreqLog {
    pub fn len(&self) -> usize {
        self.t.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    /// The frequencies of row `i`, one per policy.
    pub fn row(&self, i: usize) -> &[Option<u32>] {
        let n = self.policies.len();
        &self.khz[i * n..(i + 1) * n]
    }

    /// Seconds spent at each frequency by policy index `p` within `[a, b)`, ascending by
    /// frequency. Each reading holds until the next one (the last holds for one interval);
    /// time at an unreadable value is left out.
    pub fn residency(&self, p: usize, a: f64, b: f64) -> Vec<(u32, f64)> {
        let mut out: Vec<(u32, f64)> = Vec::new();
        for i in 0..self.len() {
            let start = self.t[i];
            let end = self
                .t
                .get(i + 1)
                .copied()
                .unwrap_or(start + self.interval_s);
            let d = (end.min(b) - start.max(a)).max(0.0);
            let Some(khz) = self.row(i).get(p).copied().flatten() else {
                continue;
            };
            if d > 0.0 {
                match out.iter_mut().find(|(k, _)| *k == khz) {
                    Some((_, s)) => *s += d,
                    None => out.push((khz, d)),
                }
            }
        }
        out.sort_unstable_by_key(|(k, _)| *k);
        out
    }

    /// Time-weighted mean frequency of policy index `p` within `[a, b)`, kHz.
    pub fn mean_khz(&self, p: usize, a: f64, b: f64) -> Option<f64> {
        let r = self.residency(p, a, b);
        let secs: f64 = r.iter().map(|(_, s)| s).sum();
        (secs > 0.0).then(|| r.iter().map(|(k, s)| *k as f64 * s).sum::<f64>() / secs)
    }
}

struct Shared {
    log: Mutex<FreqLog>,
    stop: Mutex<bool>,
    wake: Condvar,
}

/// A `FreqReader` read every interval on its own thread into a `FreqLog`.
pub struct FreqSampler {
    shared: Arc<Shared>,
    handle: Option<JoinHandle<()>>,
}

impl FreqSampler {
    /// Start reading every `interval` (at least 1 ms). Times count from `t0` — pass
    /// the `Sampler`'s (`Sampler::t0`) so the log lines up with the timeline and its phases.
    pub fn start(host: &Host, inv: &Inventory, interval: Duration, t0: Instant) -> FreqSampler {
        let interval = interval.max(Duration::from_millis(1));
        let mut reader = FreqReader::new(host, inv);
        let shared = Arc::new(Shared {
            log: Mutex::new(FreqLog {
                policies: reader.policies().to_vec(),
                interval_s: interval.as_secs_f64(),
                ..Default::default()
            }),
            stop: Mutex::new(false),
            wake: Condvar::new(),
        });
        let sh = Arc::clone(&shared);
        let handle = std::thread::Builder::new()
            .name("truebench-freqlog".into())
            .spawn(move || run(&mut reader, &sh, interval, t0))
            .ok();
        FreqSampler { shared, handle }
    }

    /// A copy of the log so far.
    pub fn snapshot(&self) -> FreqLog {
        lock(&self.shared.log).clone()
    }

    /// Stop at once and return the log.
    pub fn stop(mut self) -> FreqLog {
        self.halt();
        std::mem::take(&mut *lock(&self.shared.log))
    }

    fn halt(&mut self) {
        *lock(&self.shared.stop) = true;
        self.shared.wake.notify_all();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for FreqSampler {
    fn drop(&mut self) {
        self.halt();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn run(reader: &mut FreqReader, sh: &Shared, interval: Duration, t0: Instant) {
    // Small timer slack (1 % of the interval): the log is about timing. Not reniced: at
    // nice 19 a busy machine would delay ticks by whole scheduler slices.
    let slack_ns = (interval.as_nanos() / 100).clamp(1_000, 1_000_000) as libc::c_ulong;
    // SAFETY: PR_SET_TIMERSLACK on the calling thread; failure is harmless.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, slack_ns, 0, 0, 0);
    }
    let mut row = vec![None; reader.policies().len()];
    let start = Instant::now();
    let mut k: u32 = 0;
    loop {
        let now = Instant::now();
        reader.read(&mut row);
        {
            let mut log = lock(&sh.log);
            log.t.push(now.saturating_duration_since(t0).as_secs_f64());
            log.khz.extend_from_slice(&row);
        }
        // Absolute deadlines; ticks missed on a busy machine are skipped, not bunched.
        k += 1;
        let mut due = start + interval * k;
        let after = Instant::now();
        if due <= after {
            k = (after.duration_since(start).as_secs_f64() / interval.as_secs_f64()) as u32 + 1;
            due = start + interval * k;
        }
        let mut stop = lock(&sh.stop);
        loop {
            if *stop {
                return;
            }
            let now = Instant::now();
            if now >= due {
                break;
            }
            stop = sh
                .wake
                .wait_timeout(stop, due - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn residency_and_mean() {
        let log = FreqLog {
            policies: vec![0, 4],
            interval_s: 0.05,
            t: vec![0.0, 0.05, 0.10, 0.15],
            khz: vec![
                Some(408000),
                Some(1800000),
                Some(1416000),
                None,
                Some(1416000),
                Some(1800000),
                Some(408000),
                Some(1800000),
            ],
        };
        assert_eq!(log.row(1), [Some(1416000), None]);
        let r = log.residency(0, 0.0, 1.0);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].0, 408000);
        assert!((r[0].1 - 0.10).abs() < 1e-12 && (r[1].1 - 0.10).abs() < 1e-12);
        // Policy 4: unreadable at 0.05 for one interval.
        let r = log.residency(1, 0.0, 1.0);
        assert_eq!(r.len(), 1);
        assert!((r[0].1 - 0.15).abs() < 1e-12);
        // Cut to [0.025, 0.125): 0.025 at 408, 0.075 at 1416 → mean.
        let m = log.mean_khz(0, 0.025, 0.125).unwrap();
        assert!((m - (408000.0 * 0.025 + 1416000.0 * 0.075) / 0.1).abs() < 1e-6);
        assert!(log.mean_khz(0, 5.0, 6.0).is_none());
        assert!(FreqLog::default().residency(0, 0.0, 1.0).is_empty());
    }
}
