//! `truebench io`: storage read tests on the Session — cached, sequential and random reads
//! — run by the sweep's plan (`sweep::run`: repeats in alternating order, each cpufreq setting
//! of the sweep, each test a phase marked as kernel work with this side's per-core load and
//! the clock reached). What is io's own: the reads, their figures, what holds the target and
//! when the figures can only be a cache's.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use truebench_host::inventory::StorageInfo;
use truebench_host::{Host, Inventory};
use truebench_model::io::{self as mio, IoBody, IoRow, IoTestSummary, TargetKind};
use truebench_model::sweep::{Sweep, TestSummary};
use truebench_model::{IoResult, PhaseStatus};
use truebench_monitor::Sources;
use truebench_stats::median;
use truebench_workloads::io::{self as wio, IoTest};

use crate::progress::Event;
use crate::session::{Outcome, Session, SessionOptions};
use crate::sweep::{self, Measure, MeasuredOf, Plan};

#[derive(Debug, Clone)]
pub struct IoOptions {
    /// File or block device to read.
    pub path: PathBuf,
    /// `file`, `block device` or `scratch file`.
    pub target_kind: TargetKind,
    pub size_bytes: u64,
    pub storage: Option<StorageInfo>,
    pub warnings: Vec<String>,
    /// The tests, their length, repeats and the sweep.
    pub plan: Plan<IoTest>,
    pub sample_interval: Duration,
    pub truebench_version: String,
    /// An external power meter (`--power-cmd`, `--power-file`): one more power source.
    pub meter: Option<std::sync::Arc<crate::meter::Meter>>,
}

#[derive(Debug, thiserror::Error)]
pub enum IoSuiteError {
    #[error(transparent)]
    Session(#[from] crate::session::SessionError),
    #[error("{0}")]
    Tuning(#[from] truebench_tuning::TuningError),
}

pub fn run(
    host: &Host,
    inv: &Inventory,
    opts: &IoOptions,
    stop: Arc<AtomicBool>,
    events: &mut dyn FnMut(Event),
) -> Result<IoResult, IoSuiteError> {
    let mut s = Session::start(
        host,
        inv,
        &SessionOptions {
            sample_interval: opts.sample_interval,
            sources: Sources {
                disks: true,
                pressure: true,
                softirq: true,
                ..Default::default()
            },
            truebench_version: opts.truebench_version.clone(),
            meter: opts.meter.clone(),
            ..Default::default()
        },
        stop,
    )?;
    s.tool("built-in storage reads", None, None);
    Ok(sweep::run(s, opts, &opts.plan, events)?)
}

impl Measure for IoOptions {
    type Test = IoTest;
    type Figures = wio::IoResult;
    type Body = IoBody;
    const UNIT: &'static str = "MB/s";

    fn test(t: IoTest) -> mio::IoTest {
        io_test(t)
    }

    fn title(&self, t: IoTest, setting: &str) -> (String, u32) {
        let title = format!(
            "{} reads of {} for {:.0} s, {setting}",
            t.name(),
            self.path.display(),
            self.plan.duration.as_secs_f64()
        );
        (title, 1)
    }

    fn measure(
        &self,
        t: IoTest,
        stop: &AtomicBool,
        out: &mut Outcome,
    ) -> Result<wio::IoResult, String> {
        let secs = self.plan.duration.as_secs_f64();
        let x = wio::run(&self.path, self.size_bytes, t, secs, stop).map_err(|e| e.to_string())?;
        out.details = serde_json::to_value(&x).unwrap_or_default();
        Ok(x)
    }

    fn row(m: MeasuredOf<Self>) -> IoRow {
        // A cut-short test has no throughput; what it read per I/O still stands.
        let whole = m.evidence.status == PhaseStatus::Ok;
        let x = m.figures.as_ref();
        IoRow {
            run: m.run,
            evidence: m.evidence,
            direct: x.is_some_and(|x| x.direct),
            block_bytes: x.map_or(0, |x| x.block_bytes),
            mb_s: x.filter(|_| whole).map(|x| x.mb_s),
            iops: x.filter(|_| whole).map(|x| x.iops),
            cpu_us_per_io: x.and_then(|x| x.cpu_us_per_io),
            latency_p50_us: x.and_then(|x| x.latency_p50_us),
            latency_p99_us: x.and_then(|x| x.latency_p99_us),
        }
    }

    fn summary(summary: TestSummary<mio::IoTest>, done: &[&IoRow]) -> IoTestSummary {
        let mb_s: Vec<f64> = done.iter().filter_map(|r| r.mb_s).collect();
        let iops: Vec<f64> = done.iter().filter_map(|r| r.iops).collect();
        IoTestSummary {
            summary,
            median_mb_s: median(&mb_s),
            median_iops: median(&iops),
        }
    }

    fn step_figures(r: &IoRow) -> String {
        r.mb_s
            .map(|m| format!(", {m:.1} MB/s, {:.0} IOPS", r.iops.unwrap_or(0.0)))
            .unwrap_or_default()
    }

    fn body(&self, sweep: Sweep, rows: Vec<IoRow>, tests: Vec<IoTestSummary>) -> IoBody {
        let mut warnings = self.warnings.clone();
        warnings.extend(cache_warnings(self.storage.as_ref(), &tests));
        IoBody {
            target: self.path.display().to_string(),
            target_kind: self.target_kind,
            size_bytes: self.size_bytes,
            storage: self.storage.clone().map(Box::new),
            warnings,
            sweep,
            rows,
            tests,
        }
    }
}

/// The test a kernel's test is, as the result names it.
pub fn io_test(t: IoTest) -> mio::IoTest {
    match t {
        IoTest::Cached => mio::IoTest::Cached,
        IoTest::Sequential => mio::IoTest::Sequential,
        IoTest::Random => mio::IoTest::Random,
    }
}

/// The most a storage kind's bus can carry, MB/s (sequential reads): beyond it a figure can
/// only come from a cache. None where no such limit applies (NVMe, RAID, unknown).
fn bus_ceiling_mb_s(st: &StorageInfo) -> Option<(f64, String)> {
    let kind = st.kind.as_deref().unwrap_or("");
    if let Some(mbit) = st.usb_mbit_s {
        return Some((mbit as f64 / 8.0, format!("USB at {mbit} Mbit/s")));
    }
    match kind {
        // UHS-I SDR104: 104 MB/s (UHS-II cards reach 312 MB/s; few boards support them).
        "SD card" => Some((104.0, "an SD card's UHS-I bus (104 MB/s)".into())),
        // HS400: 400 MB/s.
        "eMMC" | "SD card or eMMC" => Some((400.0, "an eMMC's HS400 bus (400 MB/s)".into())),
        _ if st.rotational == Some(true) => {
            Some((300.0, "a spinning disk (300 MB/s at best)".into()))
        }
        _ => None,
    }
}

/// Warnings when the figures can only be a cache: on a virtual disk every read may be served
/// from the host's page cache (a scratch file just written is there for sure), and a direct
/// read faster than the device's bus carries cannot have come from the device.
pub fn cache_warnings(storage: Option<&StorageInfo>, tests: &[IoTestSummary]) -> Vec<String> {
    let Some(st) = storage else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let direct: Vec<&IoTestSummary> = tests
        .iter()
        .filter(|t| t.summary.test != mio::IoTest::Cached && t.median_mb_s.is_some())
        .collect();
    if st.kind.as_deref() == Some("virtual disk") && !direct.is_empty() {
        out.push(format!(
            "{} is a virtual disk: its reads, O_DIRECT too, can be served from the host's page cache (a file just written is there), so these figures are the host's storage and cache, not a disk of this machine",
            st.disk
        ));
    }
    if let Some((ceiling, what)) = bus_ceiling_mb_s(st) {
        for t in direct {
            let m = t.median_mb_s.unwrap_or(0.0);
            if m > ceiling * 1.05 {
                out.push(format!(
                    "{}: {m:.0} MB/s is more than {what} carries: the figure can only be a cache's, not the device's",
                    t.summary.test
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(test: &str, mb_s: f64) -> IoTestSummary {
        IoTestSummary {
            summary: TestSummary {
                test: test.parse().unwrap(),
                setting: "as is".into(),
                runs: 3,
                spread_pct: None,
                cpu_bound_runs: 0,
            },
            median_mb_s: Some(mb_s),
            median_iops: None,
        }
    }

    fn storage(kind: &str) -> StorageInfo {
        StorageInfo {
            device: "/dev/x1".into(),
            disk: "x".into(),
            kind: Some(kind.into()),
            driver: None,
            model: None,
            scheduler: None,
            read_ahead_kb: None,
            usb_mbit_s: None,
            rotational: Some(false),
        }
    }

    #[test]
    fn figures_only_a_cache_can_deliver_are_said_to_be_one() {
        // This VM: 2.8 GB/s O_DIRECT from a virtio disk.
        let vd = storage("virtual disk");
        let w = cache_warnings(
            Some(&vd),
            &[summary("cached", 29000.0), summary("sequential", 2800.0)],
        );
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("host's page cache"), "{w:?}");
        // An SD card at 900 MB/s: beyond its bus.
        let sd = storage("SD card");
        let w = cache_warnings(
            Some(&sd),
            &[summary("sequential", 900.0), summary("random", 12.0)],
        );
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("sequential: 900 MB/s") && w[0].contains("UHS-I"),
            "{w:?}"
        );
        // The same card at 88 MB/s, and a USB 2 disk at 40 MB/s: plausible, no warning.
        assert!(cache_warnings(Some(&sd), &[summary("sequential", 88.0)]).is_empty());
        let mut usb = storage("USB storage");
        usb.usb_mbit_s = Some(480);
        assert!(cache_warnings(Some(&usb), &[summary("sequential", 40.0)]).is_empty());
        assert_eq!(
            cache_warnings(Some(&usb), &[summary("sequential", 300.0)]).len(),
            1
        );
        // The cached test is a cache by design.
        assert!(cache_warnings(Some(&sd), &[summary("cached", 5000.0)]).is_empty());
    }
}
