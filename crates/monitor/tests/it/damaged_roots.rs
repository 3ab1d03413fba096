//! Robustness: every regular file of several machine roots is damaged in systematic ways
//! (cut in half, emptied, digits turned to letters, NUL/0xFF bytes inserted, numbers made
//! huge or negative) and the whole read path — `Inventory::probe`, `capture::snapshot`, the
//! sample reader and every detector over a clean/damaged before/after pair — must not panic.
//! Odd content is "unknown", never a crash.
//!
//! Per root and mode all files are damaged at once, then (for roots up to `PER_FILE_LIMIT`
//! files, or when all-at-once panicked) every file alone, so a failure names file and mode.

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Duration;

use truebench_host::{Host, Inventory};
use truebench_model::timeline::Timeline;
use truebench_monitor::capture;
use truebench_monitor::reader::{SampleReader, Sources};
use truebench_monitor_core::detect::detect_all;
use truebench_monitor_core::evidence::Snapshot;
use truebench_monitor_core::kmsg::KernelLog;

use crate::common;

#[derive(Debug, Clone, Copy)]
enum Mode {
    Half,
    Empty,
    DigitsToLetters,
    NulAndFf,
    Huge,
    Negative,
    /// Parses as u64 but overflows any sum, product or unit conversion.
    MaxU64,
    /// Parses as i64 but overflows negation and subtraction.
    MinI64,
    /// Divides by zero; counters that went backwards since the clean snapshot.
    Zero,
}

const MODES: [Mode; 9] = [
    Mode::Half,
    Mode::Empty,
    Mode::DigitsToLetters,
    Mode::NulAndFf,
    Mode::Huge,
    Mode::Negative,
    Mode::MaxU64,
    Mode::MinI64,
    Mode::Zero,
];

/// The damaged form of a file's bytes.
fn damage(orig: &[u8], mode: Mode) -> Vec<u8> {
    match mode {
        Mode::Half => orig[..orig.len() / 2].to_vec(),
        Mode::Empty => Vec::new(),
        Mode::DigitsToLetters => orig
            .iter()
            .map(|&b| {
                if b.is_ascii_digit() {
                    b - b'0' + b'a'
                } else {
                    b
                }
            })
            .collect(),
        Mode::NulAndFf => {
            // At the start, in the middle and before the last byte: every parser position.
            let mut v = vec![0u8, 0xFF];
            let mid = orig.len() / 2;
            v.extend_from_slice(&orig[..mid]);
            v.extend_from_slice(&[0xFF, 0, 0xFE]);
            v.extend_from_slice(&orig[mid..]);
            v.extend_from_slice(&[0, 0xFF]);
            v
        }
        Mode::Huge => replace_numbers(orig, b"99999999999999999999"),
        Mode::Negative => replace_numbers(orig, b"-1"),
        Mode::MaxU64 => replace_numbers(orig, b"18446744073709551615"),
        Mode::MinI64 => replace_numbers(orig, b"-9223372036854775808"),
        Mode::Zero => replace_numbers(orig, b"0"),
    }
}

/// Every run of ASCII digits replaced by `with` (a file with no number gets `with` alone).
fn replace_numbers(orig: &[u8], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(orig.len());
    let mut in_num = false;
    let mut any = false;
    for &b in orig {
        if b.is_ascii_digit() {
            if !in_num {
                out.extend_from_slice(with);
                any = true;
            }
            in_num = true;
        } else {
            in_num = false;
            out.push(b);
        }
    }
    if !any {
        out = with.to_vec();
        out.push(b'\n');
    }
    out
}

/// Regular files below `root` (symlinks not followed), root-relative.
fn regular_files(root: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = fs::read_dir(root.join(rel)) else {
            return;
        };
        for e in rd.flatten() {
            let r = rel.join(e.file_name());
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                walk(root, &r, out);
            } else if ft.is_file() {
                out.push(r);
            }
        }
    }
    let mut v = Vec::new();
    walk(root, Path::new(""), &mut v);
    v.sort();
    v
}

/// A clean machine: its inventory, a snapshot, and an open sample reader taken before damage.
struct Clean {
    inv: Inventory,
    before: Snapshot,
    reader: SampleReader,
}

/// The clean root's inventory and snapshot, read once: the root is restored after each
/// damage, so they are the same for every case (a case opens its own reader).
struct Base {
    inv: Inventory,
    before: Snapshot,
}

impl Base {
    fn of(host: &Host) -> Base {
        let inv = Inventory::probe(host);
        let before = capture::snapshot(host, &inv);
        Base { inv, before }
    }
}

fn clean(host: &Host, base: &Base) -> Clean {
    let reader =
        SampleReader::with_sources(host, &base.inv, Duration::from_millis(10), Sources::ALL);
    Clean {
        inv: base.inv.clone(),
        before: base.before.clone(),
        reader,
    }
}

/// The read path over the damaged root: handles opened before the damage keep being read,
/// fresh probes and snapshots read the damaged files, and the detectors compare every pair.
fn exercise_damaged(host: &Host, c: &mut Clean) {
    let inv = Inventory::probe(host);
    let after = capture::snapshot(host, &inv);
    let mut tl = Timeline::new(c.reader.header().clone());
    tl.extra_header = c.reader.extra_header().clone();
    tl.begin_phase("p", 0.0, None);
    for _ in 0..3 {
        tl.samples.push(c.reader.sample());
        tl.extra.push(c.reader.extra().clone());
    }
    tl.end_phase(1.0);
    tl.fill_energy();
    // A reader opened on the damaged files.
    let mut fresh = SampleReader::with_sources(host, &inv, Duration::from_millis(10), Sources::ALL);
    let mut tl2 = Timeline::new(fresh.header().clone());
    tl2.extra_header = fresh.extra_header().clone();
    for _ in 0..3 {
        tl2.samples.push(fresh.sample());
        tl2.extra.push(fresh.extra().clone());
    }
    tl2.fill_energy();
    // The typed Host readers over the damaged files.
    let _ = (
        host.meminfo(),
        host.hostname(),
        host.diskstats(),
        host.net_dev(),
    );
    let _ = (
        host.softirqs(),
        host.devfreq(),
        host.pcie_aspm(),
        host.disks(),
    );
    let _ = (host.powercap_zones(), host.cpu_caches(0));
    for k in truebench_host::procfs::PressureKind::ALL {
        let _ = host.pressure(k);
    }
    let _ = serde_json::to_string(&tl2);
    let klog = KernelLog::Lines(vec!["[ 1.0] CPU3: shutdown".into()]);
    detect_all(&c.inv, &c.before, &after, &tl, &klog);
    detect_all(&inv, &after, &c.before, &tl2, &klog);
    detect_all(
        &inv,
        &after,
        &after,
        &tl2,
        &KernelLog::Unavailable("x".into()),
    );
    // Info's rendering of the damaged inventory goes through serde too.
    let _ = serde_json::to_string(&inv);
}

fn write_all(dir: &Path, files: &[(PathBuf, Vec<u8>)], mode: Mode) {
    for (rel, orig) in files {
        // Same inode (truncate + write), as sysfs attributes change under open handles.
        let _ = fs::write(dir.join(rel), damage(orig, mode));
    }
}

thread_local! {
    /// Where the last caught panic happened (the payload does not say).
    static PANIC_AT: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Record panic locations instead of printing each of possibly hundreds of caught panics.
fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let at = info.location().map(|l| l.to_string()).unwrap_or_default();
            PANIC_AT.with(|p| *p.borrow_mut() = at);
            // The test's own verdict (outside catch_unwind) still prints.
            if !CATCHING.with(|c| c.get()) {
                default(info);
            }
        }));
    });
}

thread_local! {
    static CATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `f` under catch_unwind; a panic becomes "message at file:line".
fn catch(f: impl FnOnce()) -> Result<(), String> {
    CATCHING.with(|c| c.set(true));
    let r = catch_unwind(AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(false));
    r.map_err(|e| {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "?".into());
        format!("{msg} at {}", PANIC_AT.with(|p| p.borrow().clone()))
    })
}

/// Roots with at most this many files are also damaged one file at a time.
const PER_FILE_LIMIT: usize = 500;

/// Damage `root` in each of `modes`; returns one line per (mode, file) that panicked.
fn check_root(label: &str, root: &Path, modes: &[Mode]) -> Vec<String> {
    let files: Vec<(PathBuf, Vec<u8>)> = regular_files(root)
        .into_iter()
        .filter_map(|r| Some((r.clone(), fs::read(root.join(&r)).ok()?)))
        .collect();
    assert!(files.len() > 10, "{label}: only {} files", files.len());
    let host = Host::new(root);
    let base = Base::of(&host);
    let mut failures = Vec::new();
    for &mode in modes {
        let r = catch(|| {
            let mut c = clean(&host, &base);
            write_all(root, &files, mode);
            exercise_damaged(&host, &mut c);
        });
        // Restore before anything else, so the next mode starts clean.
        for (rel, orig) in &files {
            fs::write(root.join(rel), orig).unwrap();
        }
        let all_at_once = match r {
            Err(e) => Some(e),
            // One damaged file can hide another (an empty `online` list skips every per-CPU
            // file), so small roots are also damaged file by file.
            Ok(()) if files.len() <= PER_FILE_LIMIT => None,
            Ok(()) => continue,
        };
        // Find the file(s): damage each alone.
        let mut named = false;
        for (rel, orig) in &files {
            let r = catch(|| {
                let mut c = clean(&host, &base);
                let _ = fs::write(root.join(rel), damage(orig, mode));
                exercise_damaged(&host, &mut c);
            });
            fs::write(root.join(rel), orig).unwrap();
            if let Err(e) = r {
                named = true;
                failures.push(format!("{label}: {mode:?} on {}: {e}", rel.display()));
            }
        }
        if let (false, Some(all_at_once)) = (named, all_at_once) {
            failures.push(format!(
                "{label}: {mode:?} on all files at once: {all_at_once}"
            ));
        }
    }
    failures
}

fn check(label: &str, root: &Path) {
    check_modes(label, root, &MODES);
}

/// The largest roots are damaged in two tests, half the modes each, on two copies of the
/// root: side by side on two CPUs (the ROCK 5B alone took 13.5 s).
fn check_modes(label: &str, root: &Path, modes: &[Mode]) {
    quiet_panics();
    let failures = check_root(label, root, modes);
    assert!(
        failures.is_empty(),
        "panics on damaged files:\n{}",
        failures.join("\n")
    );
}

#[test]
fn damage_modes_change_the_bytes() {
    // Guards the test itself: every mode must actually alter a typical sysfs value.
    for mode in MODES {
        assert_ne!(damage(b"1800000\n", mode), b"1800000\n", "{mode:?}");
    }
    assert_eq!(damage(b"a 12 b 3\n", Mode::Negative), b"a -1 b -1\n");
}

#[test]
fn rk3588_rock5b_survives_damage() {
    let d = truebench_fixtures::root("rk3588-rock5b");
    check_modes("rk3588-rock5b", d.path(), &MODES[..5]);
}

#[test]
fn rk3588_rock5b_survives_more_damage() {
    let d = truebench_fixtures::root("rk3588-rock5b");
    check_modes("rk3588-rock5b", d.path(), &MODES[5..]);
}

#[test]
fn rpi4b_survives_damage() {
    let d = truebench_fixtures::root("rpi4b");
    check("rpi4b", d.path());
}

#[test]
fn x86_intel_laptop_survives_damage() {
    let d = truebench_fixtures::root("x86-intel-laptop");
    check_modes("x86-intel-laptop", d.path(), &MODES[..5]);
}

#[test]
fn x86_intel_laptop_survives_more_damage() {
    let d = truebench_fixtures::root("x86-intel-laptop");
    check_modes("x86-intel-laptop", d.path(), &MODES[5..]);
}

#[test]
fn real_arm_dump_survives_damage() {
    let name = "arm-A510-A710-A715-X3";
    let d = truebench_fixtures::sysfs_dump(name);
    let copy = tempfile::tempdir().unwrap();
    truebench_fixtures::copy_tree(&d.path().join(name), copy.path()).unwrap();
    check(name, copy.path());
}

#[test]
fn power_io_and_devfreq_board_survives_damage() {
    // The hand-made roots of the extra-source tests in one: a Jetson INA3221, an INA226 and an
    // amd_energy counter; disks, network, softirqs and PSI; RK3588 devfreq and ASPM.
    let d = tempfile::tempdir().unwrap();
    common::power_board(d.path());
    common::io_board(d.path());
    common::devfreq_board(d.path());
    check("power-io-devfreq", d.path());
}

#[test]
fn x86_laptop_rapl_survives_damage_to_its_counters() {
    // Only the powercap files (energy counters, ranges, names) damaged: the full laptop root
    // runs in `x86_intel_laptop_survives_damage`.
    let d = truebench_fixtures::root("x86-intel-laptop");
    let zones = d.path().join("sys/devices/virtual/powercap");
    assert!(zones.is_dir());
    quiet_panics();
    let host = Host::new(d.path());
    let base = Base::of(&host);
    let files: Vec<(PathBuf, Vec<u8>)> = regular_files(d.path())
        .into_iter()
        .filter(|r| r.starts_with("sys/devices/virtual/powercap"))
        .filter_map(|r| Some((r.clone(), fs::read(d.path().join(&r)).ok()?)))
        .collect();
    assert!(files.len() >= 12, "{files:?}");
    let mut failures = Vec::new();
    for mode in MODES {
        for (rel, orig) in &files {
            let r = catch(|| {
                let mut c = clean(&host, &base);
                let _ = fs::write(d.path().join(rel), damage(orig, mode));
                exercise_damaged(&host, &mut c);
            });
            fs::write(d.path().join(rel), orig).unwrap();
            if let Err(e) = r {
                failures.push(format!("{mode:?} on {}: {e}", rel.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
