//! `truebench io`: storage read tests on the Session — cached, sequential and random reads,
//! repeated in alternating order, optionally under each cpufreq setting of the sweep — each a
//! phase marked as kernel work, with this side's per-core load and the clock reached.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use truebench_host::inventory::StorageInfo;
use truebench_host::{Host, Inventory};
use truebench_model::io::{self as mio, IoBody, IoRow, IoTestSummary, TargetKind};
use truebench_model::{IoResult, PhaseStatus, RowEvidence};
use truebench_monitor::Sources;
use truebench_stats::{median, spread_pct};
use truebench_workloads::io::{self as wio, IoTest};

use crate::governors::{time_in_state, tis_delta};
use crate::net::{core_loads, cpu_bound};
use crate::net_sweep::{self, Setting};
use crate::progress::Event;
use crate::session::{self, Finish, Outcome, Session, SessionOptions};

#[derive(Debug, Clone)]
pub struct IoOptions {
    /// File or block device to read.
    pub path: PathBuf,
    /// `file`, `block device` or `scratch file`.
    pub target_kind: TargetKind,
    pub size_bytes: u64,
    pub storage: Option<StorageInfo>,
    pub warnings: Vec<String>,
    pub tests: Vec<IoTest>,
    pub duration: Duration,
    pub repeat: u32,
    pub cpu_bound_pct: f64,
    /// From `net_sweep::parse` (`as is` first); empty: as is only.
    pub sweep: Vec<Setting>,
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

/// A test's result as progress: `ok, 312.4 MB/s, 2441 IOPS`.
pub fn result_text(r: &IoRow) -> String {
    format!(
        "{}{}{}",
        r.evidence.status,
        r.mb_s
            .map(|m| format!(", {m:.1} MB/s, {:.0} IOPS", r.iops.unwrap_or(0.0)))
            .unwrap_or_default(),
        r.evidence
            .reason
            .as_ref()
            .map(|w| format!(": {w}"))
            .unwrap_or_default()
    )
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
        stop.clone(),
    )?;
    s.tool("built-in storage reads", None, None);
    let cpus: Vec<u32> = inv.online_cpus().map(|c| c.id).collect();
    let (settings, sweep_note) = net_sweep::begin(&mut s, &opts.sweep)?;
    // Both closures below report progress.
    let events = std::cell::RefCell::new(events);
    let rows = net_sweep::each_test(
        &mut s,
        &settings,
        &opts.tests,
        opts.repeat,
        "io",
        &mut |n| (events.borrow_mut())(Event::Note(n)),
        |s, setting, t, r, (index, total)| {
            (events.borrow_mut())(Event::step(
                index,
                total,
                format!("{} ({})", t.name(), setting.label()),
                Some(opts.duration.as_secs_f64()),
            ));
            let row = one_test(s, opts, setting, t, r, &cpus);
            (events.borrow_mut())(Event::score(result_text(&row)));
            row
        },
    );
    let tests = summaries(&rows);
    let figures: Vec<net_sweep::Figure<'_>> = tests
        .iter()
        .map(|t| net_sweep::Figure {
            test: t.test.as_str(),
            setting: &t.setting,
            median: t.median_mb_s,
            spread_pct: t.spread_pct,
        })
        .collect();
    let verdicts = net_sweep::verdicts(host, inv, &figures, "MB/s");
    let mut warnings = opts.warnings.clone();
    warnings.extend(cache_warnings(opts.storage.as_ref(), &tests));
    let body = IoBody {
        target: opts.path.display().to_string(),
        target_kind: opts.target_kind,
        size_bytes: opts.size_bytes,
        storage: opts.storage.clone().map(Box::new),
        duration_s: opts.duration.as_secs_f64(),
        repeat: opts.repeat,
        cpu_bound_pct: opts.cpu_bound_pct,
        warnings,
        settings: settings.iter().map(Setting::label).collect(),
        sweep_note,
        verdicts,
        rows,
        tests,
    };
    let mut result = s.finish(body, Finish { comparable: true });
    let findings = result.envelope.findings.clone();
    for row in result.body.rows.iter_mut() {
        session::mark(&mut row.evidence, &findings, &[], &[]);
    }
    Ok(result)
}

fn one_test(
    s: &mut Session<'_>,
    opts: &IoOptions,
    setting: &Setting,
    t: IoTest,
    r: u32,
    cpus: &[u32],
) -> IoRow {
    let (host, inv, stop) = (s.host(), s.inv(), s.stop_flag());
    let label = setting.label();
    let name = t.name();
    let phase = net_sweep::phase(setting, io_test(t), r);
    let title = format!(
        "{name} reads of {} for {:.0} s, {label}",
        opts.path.display(),
        opts.duration.as_secs_f64()
    );
    let open = s.begin_phase(&phase, &title, Some(1), cpus.to_vec());
    // Storage reads are kernel work: their %sys is the measurement.
    s.mark_kernel_work();
    let tis_before = time_in_state(host, inv);
    let before = host.stat().ok();
    let res = wio::run(
        &opts.path,
        opts.size_bytes,
        t,
        opts.duration.as_secs_f64(),
        &stop,
    );
    let after = host.stat().ok();
    let tis = tis_delta(&tis_before, &time_in_state(host, inv));
    let cores = match (&before, &after) {
        (Some(b), Some(a)) => core_loads(b, a),
        _ => Vec::new(),
    };
    let mut row = IoRow {
        test: io_test(t),
        setting: label,
        repeat: r,
        evidence: RowEvidence::new(phase, PhaseStatus::Ok),
        direct: false,
        block_bytes: 0,
        mb_s: None,
        iops: None,
        cpu_us_per_io: None,
        latency_p50_us: None,
        latency_p99_us: None,
        cpu_bound: cpu_bound(&cores, opts.cpu_bound_pct),
        cores,
        reached_mhz: net_sweep::reached_mhz(&tis),
    };
    let mut out = Outcome::default();
    match res {
        Ok(x) => {
            row.direct = x.direct;
            row.block_bytes = x.block_bytes;
            row.mb_s = Some(x.mb_s);
            row.iops = Some(x.iops);
            row.cpu_us_per_io = x.cpu_us_per_io;
            row.latency_p50_us = x.latency_p50_us;
            row.latency_p99_us = x.latency_p99_us;
            out.details = serde_json::to_value(&x).unwrap_or_default();
        }
        Err(e) => {
            row.evidence.status = PhaseStatus::Failed;
            row.evidence.reason = Some(e.to_string());
            row.cpu_bound = None;
            out.fail(e.to_string());
        }
    }
    let recorded = s.end_phase(open, out);
    if recorded.status == PhaseStatus::Interrupted {
        row.evidence.status = PhaseStatus::Interrupted;
        row.evidence.reason = recorded.reason.clone();
        row.mb_s = None;
        row.iops = None;
        row.cpu_bound = None;
    }
    row
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
        .filter(|t| t.test != mio::IoTest::Cached && t.median_mb_s.is_some())
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
                    t.test
                ));
            }
        }
    }
    out
}

pub fn summaries(rows: &[IoRow]) -> Vec<IoTestSummary> {
    let mut keys: Vec<(mio::IoTest, String)> = Vec::new();
    for r in rows {
        let k = (r.test, r.setting.clone());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .map(|(test, setting)| {
            let done: Vec<&IoRow> = rows
                .iter()
                .filter(|r| {
                    r.test == test
                        && r.setting == setting
                        && r.evidence.status == PhaseStatus::Ok
                        && r.evidence.invalid.is_none()
                })
                .collect();
            let mb_s: Vec<f64> = done.iter().filter_map(|r| r.mb_s).collect();
            let iops: Vec<f64> = done.iter().filter_map(|r| r.iops).collect();
            IoTestSummary {
                runs: done.len() as u32,
                median_mb_s: median(&mb_s),
                median_iops: median(&iops),
                spread_pct: spread_pct(&mb_s),
                cpu_bound_runs: done.iter().filter(|r| r.cpu_bound.is_some()).count() as u32,
                test,
                setting,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(test: &str, mb_s: f64) -> IoTestSummary {
        IoTestSummary {
            test: test.parse().unwrap(),
            setting: "as is".into(),
            runs: 3,
            median_mb_s: Some(mb_s),
            median_iops: None,
            spread_pct: None,
            cpu_bound_runs: 0,
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
