//! Helper thread for slow files: a read that asks hardware or firmware (`cpuinfo_cur_freq`
//! over CPPC/SCMI, hwmon chips on I2C/PMBus, ACPI thermal zones) cannot be cancelled, so it is
//! done here while the sampler waits at most a deadline. A file whose read outlives the
//! deadline yields `None` for that sample and is disabled for the rest of the run.
//!
//! Many files of those kinds are served from memory or a register all the same (an on-chip
//! sensor behind hwmon, a cached reading): handing each of their reads to the helper costs two
//! thread switches per sample, more than the read. A file whose last [`PROMOTE_AFTER`] reads
//! were each quick is read by the sampler itself from then on. Quick: under [`FAST`], or
//! without sleeping and under [`NO_SLEEP_CAP`]. The first read after the helper wakes finds
//! cold caches and TLB: on a VM, in 200 wake-ups after 100 ms asleep, it took 14 µs at the
//! median, 183 µs at the 99th percentile and 228 µs at most, over 25 µs in one of eight, where
//! the same read again took 0.3 µs, so a bound on time alone kept such files on the helper
//! for good. A read that waits for a bus transfer or a mailbox's answer sleeps, so it stays
//! here. Busy-waiting hardware (bit-banged I2C, a firmware call polled for its answer) costs
//! more than the cap, or resets the count on the reads that reach the hardware, as does a
//! read delayed by a busy machine.

use super::bytes::{parse_i64, pread_all};
use std::fs::File;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// A read this quick is served from memory or a register (sysfs reads of kernel memory take a
/// few µs; one I2C transfer takes hundreds).
const FAST: Duration = Duration::from_micros(25);
/// The longest a read that did not sleep may take and still count as quick: above the cold
/// reads measured on a VM (228 µs at most), below a word over a bit-banged 100 kHz SMBus
/// (about 300 µs and more).
const NO_SLEEP_CAP: Duration = Duration::from_micros(250);
/// Consecutive quick reads before the sampler reads a file itself.
const PROMOTE_AFTER: u32 = 20;

/// A read served from memory or a register: see the module's doc.
fn quick(took: Duration, slept: bool) -> bool {
    took < FAST || (!slept && took < NO_SLEEP_CAP)
}

/// The calling thread's voluntary context switches so far: a read that waits sleeps, and
/// this count moves. None where it cannot be had (a read then counts as having slept).
fn voluntary_switches() -> Option<i64> {
    // SAFETY: getrusage writes the struct it is given and nothing else.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a rusage; RUSAGE_THREAD (Linux 2.6.26) asks for this thread.
    let r = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    // A C long: 64 bits here, 32 on armv7.
    #[allow(clippy::useless_conversion)]
    (r == 0).then(|| i64::from(ru.ru_nvcsw))
}

struct SlowState {
    /// Consecutive quick reads of each slot (`quick`).
    streak: Vec<u32>,
    /// Slots the sampler reads itself, and how many.
    promoted: Vec<bool>,
    n_promoted: usize,
    /// Generation of the last request posted / completed.
    req: u64,
    done: u64,
    /// `(generation read in, value)` per slow slot.
    values: Vec<(u64, Option<i64>)>,
    disabled: Vec<bool>,
    /// The slot being read right now (to blame on a timeout).
    current: Option<usize>,
    stop: bool,
}

struct SlowShared {
    state: Mutex<SlowState>,
    request: Condvar,
    done: Condvar,
}

/// Reads a set of files on a helper thread, each at most once per `collect`, giving up on
/// (and disabling) a file whose read outlives the deadline.
pub(crate) struct SlowReader {
    shared: Arc<SlowShared>,
    /// The files, shared with the helper: a promoted one is read here.
    files: Vec<Option<Arc<File>>>,
    read: ReadFn,
    /// The helper's `promoted` as last seen (copied when its count changes).
    promoted: Vec<bool>,
    /// Slots neither promoted nor disabled: the helper has work only while some are left.
    helper_has_work: bool,
    /// Root-relative paths, for the report of disabled files.
    names: Vec<String>,
    pub(crate) timed_out: Vec<String>,
}

/// How the helper thread reads slot `i` (replaceable in tests to simulate a hanging file).
type ReadFn = fn(usize, &File, &mut [u8]) -> Option<i64>;

#[link_section = "truebench_tick"]
fn read_int(_: usize, f: &File, buf: &mut [u8]) -> Option<i64> {
    pread_all(f, buf).ok().and_then(parse_i64)
}

impl SlowReader {
    pub(crate) fn start(files: Vec<Option<File>>, names: Vec<String>) -> SlowReader {
        Self::start_with(files, names, read_int)
    }

    fn start_with(files: Vec<Option<File>>, names: Vec<String>, read: ReadFn) -> SlowReader {
        let n = names.len();
        let files: Vec<Option<Arc<File>>> = files.into_iter().map(|f| f.map(Arc::new)).collect();
        let shared = Arc::new(SlowShared {
            state: Mutex::new(SlowState {
                streak: vec![0; n],
                promoted: vec![false; n],
                n_promoted: 0,
                req: 0,
                done: 0,
                values: vec![(0, None); n],
                disabled: files.iter().map(|f| f.is_none()).collect(),
                current: None,
                stop: false,
            }),
            request: Condvar::new(),
            done: Condvar::new(),
        });
        let sh = Arc::clone(&shared);
        let theirs = files.clone();
        // The thread is detached on drop: a read stuck in the kernel cannot be interrupted,
        // and joining it would move the hang to the caller.
        let _ = std::thread::Builder::new()
            .name("truebench-slowread".into())
            .spawn(move || slow_loop(sh, theirs, read));
        SlowReader {
            shared,
            files,
            read,
            promoted: vec![false; n],
            helper_has_work: true,
            names,
            timed_out: Vec::new(),
        }
    }

    /// Read the promoted files here, into `out`.
    #[link_section = "truebench_tick"]
    fn read_promoted(&self, out: &mut [Option<i64>]) {
        let mut buf = [0u8; 64];
        for (i, ((o, p), f)) in out
            .iter_mut()
            .zip(&self.promoted)
            .zip(&self.files)
            .enumerate()
        {
            if let (true, Some(f)) = (*p, f) {
                *o = (self.read)(i, f, &mut buf);
            }
        }
    }

    /// Slots the sampler reads itself (for tests).
    #[cfg(test)]
    fn n_promoted(&self) -> usize {
        self.promoted.iter().filter(|p| **p).count()
    }

    /// Post a request and wait up to `deadline`; returns per-slot values of this round.
    #[link_section = "truebench_tick"]
    pub(crate) fn collect(&mut self, deadline: Duration, out: &mut [Option<i64>]) {
        out.iter_mut().for_each(|v| *v = None);
        if self.helper_has_work {
            // Files the helper found quick since the last round are read here from now on.
            let st = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
            if st.n_promoted != self.promoted.iter().filter(|p| **p).count() {
                self.promoted.clone_from(&st.promoted);
                self.helper_has_work = (0..self.promoted.len())
                    .any(|i| !st.promoted[i] && !st.disabled[i] && self.files[i].is_some());
            }
        }
        self.read_promoted(out);
        if !self.helper_has_work {
            // Every file is read here or disabled: no hand-off at all.
            return;
        }
        let mut st = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        if st.done < st.req {
            // Still stuck in the previous round: do not queue behind it.
            if let Some(i) = st.current {
                Self::blame(&mut st, &self.names, &mut self.timed_out, i);
            }
            return;
        }
        st.req += 1;
        let gen = st.req;
        self.shared.request.notify_one();
        let start = Instant::now();
        while st.done < gen {
            let left = deadline.saturating_sub(start.elapsed());
            if left.is_zero() {
                break;
            }
            st = self
                .shared
                .done
                .wait_timeout(st, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        if st.done < gen {
            if let Some(i) = st.current {
                Self::blame(&mut st, &self.names, &mut self.timed_out, i);
            }
        }
        for ((o, (g, v)), p) in out.iter_mut().zip(st.values.iter()).zip(&self.promoted) {
            if *g == gen && !*p {
                *o = *v;
            }
        }
    }

    fn blame(st: &mut SlowState, names: &[String], timed_out: &mut Vec<String>, i: usize) {
        if !st.disabled[i] {
            st.disabled[i] = true;
            timed_out.push(format!("/{} (read timed out; disabled)", names[i]));
        }
    }
}

impl Drop for SlowReader {
    fn drop(&mut self) {
        let mut st = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        st.stop = true;
        self.shared.request.notify_one();
    }
}

fn slow_loop(sh: Arc<SlowShared>, files: Vec<Option<Arc<File>>>, read: ReadFn) {
    let mut buf = [0u8; 64];
    let mut seen = 0u64;
    loop {
        let gen = {
            let mut st = sh.state.lock().unwrap_or_else(|e| e.into_inner());
            while st.req == seen && !st.stop {
                st = sh.request.wait(st).unwrap_or_else(|e| e.into_inner());
            }
            if st.stop {
                return;
            }
            st.req
        };
        seen = gen;
        for (i, f) in files.iter().enumerate() {
            let Some(f) = f else { continue };
            {
                let mut st = sh.state.lock().unwrap_or_else(|e| e.into_inner());
                if st.disabled[i] || st.promoted[i] {
                    continue;
                }
                st.current = Some(i);
            }
            let switches = voluntary_switches();
            let t = Instant::now();
            let v = read(i, f, &mut buf);
            let took = t.elapsed();
            let slept = match (switches, voluntary_switches()) {
                (Some(a), Some(b)) => a != b,
                _ => true,
            };
            let mut st = sh.state.lock().unwrap_or_else(|e| e.into_inner());
            st.values[i] = (gen, v);
            st.current = None;
            if quick(took, slept) {
                st.streak[i] += 1;
                if st.streak[i] >= PROMOTE_AFTER {
                    st.promoted[i] = true;
                    st.n_promoted += 1;
                }
            } else {
                st.streak[i] = 0;
            }
        }
        let mut st = sh.state.lock().unwrap_or_else(|e| e.into_inner());
        st.done = gen;
        sh.done.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_read_quickly_every_time_are_read_by_the_sampler_and_slow_ones_stay() {
        fn slow_1(i: usize, f: &File, buf: &mut [u8]) -> Option<i64> {
            if i == 1 {
                std::thread::sleep(Duration::from_millis(2));
            }
            read_int(i, f, buf)
        }
        let d = tempfile::tempdir().unwrap();
        let mut files = Vec::new();
        let mut names = Vec::new();
        for (i, v) in ["41000", "52000"].iter().enumerate() {
            let p = d.path().join(format!("f{i}"));
            std::fs::write(&p, v).unwrap();
            files.push(Some(File::open(&p).unwrap()));
            names.push(format!("f{i}"));
        }
        let mut r = SlowReader::start_with(files, names, slow_1);
        let mut out = vec![None; 2];
        // A busy machine may delay a read past `FAST` and restart the count: more rounds than
        // the count, still bounded.
        for _ in 0..PROMOTE_AFTER * 20 {
            r.collect(Duration::from_millis(200), &mut out);
            assert_eq!(out, [Some(41000), Some(52000)]);
            if r.n_promoted() == 1 {
                break;
            }
        }
        assert_eq!(
            r.promoted,
            [true, false],
            "the quick file is read here, the slow one not"
        );
        // The quick file is now read here: a new value shows at once.
        std::fs::write(d.path().join("f0"), "43000").unwrap();
        r.collect(Duration::from_millis(200), &mut out);
        assert_eq!(out, [Some(43000), Some(52000)]);
        assert!(r.timed_out.is_empty());
    }

    /// What counts as quick; and what the count of sleeps sees: a spin (as a cold read) leaves
    /// it, a sleep (as a bus transfer) moves it, whatever else runs (being put off the CPU is
    /// an involuntary switch, not counted).
    #[test]
    fn a_read_is_quick_when_it_did_not_sleep() {
        let us = Duration::from_micros;
        assert!(quick(us(10), true));
        assert!(quick(us(200), false));
        assert!(!quick(us(200), true));
        assert!(!quick(NO_SLEEP_CAP + us(1), false));
        let before = voluntary_switches().expect("getrusage(RUSAGE_THREAD) works here");
        let t = Instant::now();
        while t.elapsed() < us(100) {
            std::hint::spin_loop();
        }
        assert_eq!(voluntary_switches(), Some(before), "a spin does not sleep");
        std::thread::sleep(us(100));
        assert!(voluntary_switches().unwrap() > before, "a sleep is counted");
    }

    #[test]
    fn a_hanging_slow_file_costs_one_sample_and_is_disabled() {
        fn hang_on_1(i: usize, f: &File, buf: &mut [u8]) -> Option<i64> {
            if i == 1 {
                std::thread::sleep(Duration::from_millis(600));
            }
            read_int(i, f, buf)
        }
        let d = tempfile::tempdir().unwrap();
        let mut files = Vec::new();
        let mut names = Vec::new();
        for (i, v) in ["1800000", "2000000", "52000"].iter().enumerate() {
            let p = d.path().join(format!("f{i}"));
            std::fs::write(&p, v).unwrap();
            files.push(Some(File::open(&p).unwrap()));
            names.push(format!("f{i}"));
        }
        let mut r = SlowReader::start_with(files, names, hang_on_1);
        let mut out = vec![None; 3];
        let t = Instant::now();
        r.collect(Duration::from_millis(50), &mut out);
        assert!(t.elapsed() < Duration::from_millis(500));
        // Read before the hang: fresh; the hanging one and the one after it: nothing.
        assert_eq!(out, [Some(1800000), None, None]);
        assert_eq!(r.timed_out, ["/f1 (read timed out; disabled)"]);
        // Still stuck: the next round does not wait at all.
        let t = Instant::now();
        r.collect(Duration::from_millis(50), &mut out);
        assert!(t.elapsed() < Duration::from_millis(400));
        assert_eq!(out, [None, None, None]);
        // Once the read returns, the other files are read again; f1 stays off.
        std::thread::sleep(Duration::from_millis(700));
        r.collect(Duration::from_millis(200), &mut out);
        assert_eq!(out, [Some(1800000), None, Some(52000)]);
        assert_eq!(r.timed_out.len(), 1);
    }
}
