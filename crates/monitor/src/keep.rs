//! The timeline a `Sampler` keeps, with flat memory however long it samples: the newest
//! samples in memory, the older ones — beyond `IN_MEMORY` — moved in chunks to a temporary
//! file that has no name (unlinked at creation, so nothing is left behind, also after
//! `kill -9`). A session that samples for hours (`review -R`, a long `monitor -- CMD`) then
//! holds a bounded number of samples while it runs; the whole timeline is read back when it
//! is asked for (a copy for a suite, the end of the session). A sample's vectors moved out
//! are reused for the next samples, so a tick past the bound allocates nothing.
//!
//! Where the file cannot be made or written (no temporary directory, a full disk), the samples
//! stay in memory, as before: nothing is lost, only the bound.

use std::fs::File;
use std::os::unix::fs::FileExt;
use truebench_host::inventory::Missing;
use truebench_model::timeline::{ExtraSample, Sample, Timeline};

/// At most this many samples are kept in memory before the oldest are moved to the file: at a
/// run's 1 s, about 3 minutes.
pub(crate) const IN_MEMORY: usize = 192;
/// Fewer where samples are large: those in memory hold at most about this many bytes (as
/// their JSON, measured on the first sample). A sample with every source read is 2.5 KiB on a
/// small machine and 24 KiB at 512 CPUs (each CPU's softirq counts); with the moved samples
/// whose vectors wait for reuse, a session's samples then stay under a MiB.
const BUDGET: usize = 384 << 10;
/// The fewest samples kept in memory, however large.
const FEWEST: usize = 16;

/// The timeline and its older samples on file. Derefs to the in-memory part (phases,
/// headers, power readings and the newest samples).
#[derive(Default)]
pub(crate) struct Kept {
    tl: Timeline,
    file: Option<File>,
    /// Bytes and samples in the file.
    file_len: u64,
    on_file: usize,
    /// Why samples stay in memory past the bound (the file could not be made or written).
    failed: Option<String>,
    /// Where the file is made (None: the system's temporary directory).
    dir: Option<std::path::PathBuf>,
    /// Moved-out samples whose vectors the next samples reuse.
    free: Vec<(Sample, ExtraSample)>,
    /// Serialisation buffer, reused.
    buf: Vec<u8>,
    /// Samples kept in memory before a move (0: not yet known — set by the first sample).
    limit: usize,
}

impl std::ops::Deref for Kept {
    type Target = Timeline;
    fn deref(&self) -> &Timeline {
        &self.tl
    }
}

impl std::ops::DerefMut for Kept {
    fn deref_mut(&mut self) -> &mut Timeline {
        &mut self.tl
    }
}

impl Kept {
    pub(crate) fn new(tl: Timeline) -> Kept {
        Kept {
            tl,
            ..Default::default()
        }
    }

    /// Make the file now (a session that keeps its samples): its descriptor is then there from
    /// the start, not opened an hour in. Where it cannot be made, the samples stay in memory.
    pub(crate) fn prepare(&mut self) {
        if self.file.is_none() && self.failed.is_none() {
            match self.make_file() {
                Ok(f) => self.file = Some(f),
                Err(e) => self.failed = Some(e.to_string()),
            }
        }
    }

    fn make_file(&self) -> std::io::Result<File> {
        match &self.dir {
            Some(d) => tempfile::tempfile_in(d),
            None => tempfile::tempfile(),
        }
    }

    /// A sample and extra readings to fill (reused vectors when there are some).
    #[link_section = "truebench_tick"]
    pub(crate) fn take_free(&mut self) -> (Sample, ExtraSample) {
        self.free.pop().unwrap_or_default()
    }

    /// Append a sample with its extra readings; past the bound, move the oldest to the file.
    #[link_section = "truebench_tick"]
    pub(crate) fn push(&mut self, s: Sample, x: ExtraSample) {
        if self.limit == 0 {
            let bytes = serde_json::to_vec(&(&s, &x)).map_or(0, |b| b.len());
            self.limit = (BUDGET / bytes.max(1)).clamp(FEWEST, IN_MEMORY);
            // The samples up to the first move, allocated now in the first one's shape: a
            // tick then fills vectors that are there, as it does after a move, instead of
            // growing a dozen new ones (and the timeline's list) each time.
            self.tl.samples.reserve(self.limit);
            self.tl.extra.reserve(self.limit);
            self.free
                .extend((1..self.limit).map(|_| (s.clone(), x.clone())));
        }
        self.tl.samples.push(s);
        self.tl.extra.push(x);
        if self.tl.samples.len() >= self.limit && self.failed.is_none() {
            if let Err(e) = self.spill() {
                self.failed = Some(e.to_string());
            }
        }
    }

    /// Samples in all (in memory and on file).
    pub(crate) fn len(&self) -> usize {
        self.on_file + self.tl.samples.len()
    }

    /// Why samples stay in memory past the bound, if they do.
    #[cfg(test)]
    pub(crate) fn failed(&self) -> Option<&str> {
        self.failed.as_deref()
    }

    fn spill(&mut self) -> std::io::Result<()> {
        // Extra readings are one per sample here (the sampler pushes both).
        // Half of them at a time: one write per half-bound of samples.
        let n = (self.limit / 2).max(1).min(self.tl.samples.len());
        if self.tl.extra.len() != self.tl.samples.len() {
            return Err(std::io::Error::other(
                "samples and extra readings differ in number",
            ));
        }
        self.buf.clear();
        for (s, x) in self.tl.samples[..n].iter().zip(&self.tl.extra[..n]) {
            serde_json::to_writer(&mut self.buf, &(s, x))?;
            self.buf.push(b'\n');
        }
        if self.file.is_none() {
            self.file = Some(self.make_file()?);
        }
        let f = self.file.as_mut().expect("made above");
        f.write_all_at(&self.buf, self.file_len)?;
        self.file_len += self.buf.len() as u64;
        self.on_file += n;
        let moved = self.tl.samples.drain(..n).zip(self.tl.extra.drain(..n));
        self.free.clear();
        self.free.extend(moved);
        Ok(())
    }

    /// The whole timeline: the samples on file read back, then those in memory. A sample that
    /// cannot be read back (the file damaged under us) is named in the timeline's missing
    /// sources, never left out silently.
    pub(crate) fn full(&self) -> Timeline {
        let mut tl = Timeline {
            header: self.tl.header.clone(),
            samples: Vec::new(),
            phases: self.tl.phases.clone(),
            extra_header: self.tl.extra_header.clone(),
            extra: Vec::new(),
            power_readings: self.tl.power_readings.clone(),
            energy: self.tl.energy.clone(),
        };
        tl.samples.reserve_exact(self.len());
        tl.extra.reserve_exact(self.on_file + self.tl.extra.len());
        if let Some(f) = self.file.as_ref().filter(|_| self.on_file > 0) {
            let mut bytes = vec![0; self.file_len as usize];
            let mut lost = 0;
            let mut why = None;
            match f.read_exact_at(&mut bytes, 0) {
                Ok(()) => {
                    for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                        match serde_json::from_slice::<(Sample, ExtraSample)>(line) {
                            Ok((s, x)) => {
                                tl.samples.push(s);
                                tl.extra.push(x);
                            }
                            Err(e) => {
                                lost += 1;
                                why.get_or_insert_with(|| e.to_string());
                            }
                        }
                    }
                }
                Err(e) => {
                    lost = self.on_file;
                    why = Some(e.to_string());
                }
            }
            if lost > 0 {
                tl.extra_header.missing.push(Missing {
                    what: "samples".into(),
                    reason: format!(
                        "{lost} of the {} older samples kept in a temporary file could not be read back: {}",
                        self.on_file,
                        why.unwrap_or_default()
                    ),
                });
            }
        }
        tl.samples.extend(self.tl.samples.iter().cloned());
        tl.extra.extend(self.tl.extra.iter().cloned());
        tl
    }

    /// The whole timeline, taken (the file is closed, and so gone).
    pub(crate) fn take(&mut self) -> Timeline {
        if self.on_file == 0 {
            return std::mem::take(&mut self.tl);
        }
        let tl = self.full();
        *self = Kept::default();
        tl
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use truebench_model::timeline::{IdleDelta, SoftirqSample};

    fn sample(i: usize) -> (Sample, ExtraSample) {
        let s = Sample {
            t: i as f64 * 0.1,
            load1: Some(i as f64 / 7.0),
            cluster_mhz: vec![Some(i as u32), None],
            ..Default::default()
        };
        let x = ExtraSample {
            dt_s: 0.1,
            softirq: Some(SoftirqSample {
                pct: Some(1.0 / (i as f64 + 3.0)),
                cpus: Vec::new(),
            }),
            idle: vec![IdleDelta {
                entries: vec![Some(i as u64)],
                time_us: vec![None],
            }],
            ..Default::default()
        };
        (s, x)
    }

    fn fill(k: &mut Kept, n: usize) {
        for i in 0..n {
            let (mut s, mut x) = k.take_free();
            let (s1, x1) = sample(i);
            // What the sampler does: fill the vectors it was given.
            s.clone_from(&s1);
            x.clone_from(&x1);
            k.push(s, x);
        }
    }

    #[test]
    fn memory_stays_bounded_and_every_sample_comes_back_in_order() {
        let mut k = Kept::new(Timeline::default());
        fill(&mut k, 5000);
        assert!(k.samples.len() < IN_MEMORY, "{} in memory", k.samples.len());
        assert_eq!(k.samples.len(), k.extra.len());
        assert_eq!(k.len(), 5000);
        assert_eq!(k.failed(), None);
        let tl = k.full();
        assert_eq!((tl.samples.len(), tl.extra.len()), (5000, 5000));
        for (i, (s, x)) in tl.samples.iter().zip(&tl.extra).enumerate() {
            let (s1, x1) = sample(i);
            assert_eq!((s, x), (&s1, &x1), "sample {i}");
        }
        assert!(tl.extra_header.missing.is_empty());
        // Taking it gives the same and leaves nothing.
        let taken = k.take();
        assert_eq!(taken, tl);
        assert_eq!(k.len(), 0);
    }

    #[test]
    fn large_samples_are_fewer_in_memory() {
        let mut k = Kept::new(Timeline::default());
        for i in 0..400 {
            let (mut s, x) = sample(i);
            // A 512-CPU machine's sample: thousands of values.
            s.measured_mhz = vec![Some(1800.5); 3000];
            k.push(s, x);
        }
        assert!(
            k.samples.len() < 40,
            "{} large samples in memory",
            k.samples.len()
        );
        assert_eq!(k.len(), 400);
        assert_eq!(k.full().samples.len(), 400);
    }

    #[test]
    fn a_moved_sample_lends_its_vectors_to_the_next() {
        let mut k = Kept::new(Timeline::default());
        fill(&mut k, 3);
        // The samples up to the first move were allocated with the first: in memory and
        // waiting, no more than the bound.
        assert!(
            k.samples.len() + k.free.len() <= k.limit,
            "{} + {} > {}",
            k.samples.len(),
            k.free.len(),
            k.limit
        );
        fill(&mut k, IN_MEMORY);
        let (s, x) = k.take_free();
        assert!(s.cluster_mhz.capacity() >= 2 && x.idle.capacity() >= 1);
    }

    #[test]
    fn without_a_file_the_samples_stay_in_memory() {
        let mut k = Kept::new(Timeline::default());
        k.dir = Some("/nonexistent/truebench-keep".into());
        fill(&mut k, 2000);
        assert!(k.failed().is_some_and(|e| !e.is_empty()));
        assert_eq!(k.samples.len(), 2000);
        assert_eq!(k.take().samples.len(), 2000);
    }

    #[test]
    fn a_damaged_file_is_named_not_hidden() {
        let mut k = Kept::new(Timeline::default());
        fill(&mut k, 1500);
        let on_file = k.on_file;
        assert!(on_file > 0);
        // Another hand overwrites the first line.
        k.file
            .as_ref()
            .unwrap()
            .write_all_at(b"#garbage", 0)
            .unwrap();
        let tl = k.full();
        assert_eq!(tl.samples.len(), 1499);
        let m = &tl.extra_header.missing;
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].what, "samples");
        assert!(
            m[0].reason
                .starts_with(&format!("1 of the {on_file} older samples")),
            "{}",
            m[0].reason
        );
    }
}
