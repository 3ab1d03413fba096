//! The OPP walk of `truebench clocks` on hand-built fixture roots. A fixture's cpufreq files do
//! not change any real clock, so the measurement is a fake that answers from the files the walk
//! wrote (scaling_max_freq, scaling_min_freq, scaling_governor) — which also proves the writes
//! landed.
//!
//! The roots model a ROCK 5B (RK3588: cpu0-3 Cortex-A55, cpu4-7 Cortex-A76, cpufreq-dt; OPPs
//! from sbc-bench's rk3588 OPP tables) trimmed to what the clocks command reads.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tempfile::TempDir;
use truebench_host::{Host, Inventory};
use truebench_model::finding::Severity;
use truebench_suites::clocks::{
    render_text, ClockProbe, ClocksOptions, ClocksReport, LoadHandle, WalkMode,
};
use truebench_suites::clocks_session;
use truebench_suites::progress::{self, Event};
use truebench_workloads::clock::{ClockError, ClockMeasurement, Method};

const CPU: &str = "sys/devices/system/cpu";
const LITTLE_KHZ: &[u64] = &[
    408000, 600000, 816000, 1008000, 1200000, 1416000, 1608000, 1800000,
];
const BIG_KHZ: &[u64] = &[408000, 816000, 1200000, 1608000, 2016000, 2208000, 2400000];

fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// cpuinfo block for one ARM core (implementer 0x41, part: 0xd05 A55, 0xd0b A76).
fn cpuinfo(cpus: &[(u32, &str)]) -> String {
    cpus.iter()
        .map(|(n, part)| {
            format!(
                "processor\t: {n}\nBogoMIPS\t: 48.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\n\
                 CPU architecture: 8\nCPU variant\t: 0x2\nCPU part\t: {part}\nCPU revision\t: 0\n\n"
            )
        })
        .collect()
}

fn policy(root: &Path, id: u32, cpus: &str, opps: &[u64], governors: &str, driver: &str) {
    let d = format!("{CPU}/cpufreq/policy{id}");
    let list = |v: &[u64]| {
        v.iter()
            .map(|k| k.to_string())
            .collect::<Vec<_>>()
            .join(" ")
            + " \n"
    };
    let (min, max) = (opps[0], *opps.last().unwrap());
    for (f, v) in [
        ("affected_cpus", cpus.replace('-', " ")),
        ("related_cpus", cpus.to_string()),
        ("cpuinfo_min_freq", min.to_string()),
        ("cpuinfo_max_freq", max.to_string()),
        ("scaling_min_freq", min.to_string()),
        ("scaling_max_freq", max.to_string()),
        ("scaling_cur_freq", min.to_string()),
        ("scaling_driver", driver.to_string()),
        ("scaling_governor", "ondemand".to_string()),
        ("scaling_available_governors", governors.to_string()),
        ("scaling_setspeed", "<unsupported>".to_string()),
    ] {
        put(root, &format!("{d}/{f}"), &format!("{v}\n"));
    }
    if !opps.is_empty() && driver != "intel_pstate" {
        put(
            root,
            &format!("{d}/scaling_available_frequencies"),
            &list(opps),
        );
    }
}

/// ROCK 5B-like root; `cpufreq: false` leaves out every policy (a board without a driver).
fn rock5b(cpufreq: bool) -> TempDir {
    let t = tempfile::tempdir().unwrap();
    let r = t.path();
    let cores: Vec<(u32, &str)> = (0..8)
        .map(|n| (n, if n < 4 { "0xd05" } else { "0xd0b" }))
        .collect();
    put(r, "proc/cpuinfo", &cpuinfo(&cores));
    for f in ["online", "possible", "present"] {
        put(r, &format!("{CPU}/{f}"), "0-7\n");
    }
    for n in 0..8 {
        if n > 0 {
            put(r, &format!("{CPU}/cpu{n}/online"), "1\n");
        }
        put(
            r,
            &format!("{CPU}/cpu{n}/topology/core_id"),
            &format!("{}\n", n % 4),
        );
        put(
            r,
            &format!("{CPU}/cpu{n}/topology/physical_package_id"),
            "0\n",
        );
    }
    if cpufreq {
        let govs = "conservative ondemand userspace powersave performance schedutil\n";
        policy(r, 0, "0-3", LITTLE_KHZ, govs, "cpufreq-dt");
        policy(r, 4, "4-7", BIG_KHZ, govs, "cpufreq-dt");
    }
    put(
        r,
        "proc/stat",
        "cpu  1 0 1 100 0 0 0 0 0 0\ncpu0 1 0 1 100 0 0 0 0 0 0\n",
    );
    t
}

/// Every file below `root` (relative path → bytes), for byte-for-byte comparisons.
fn tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    truebench_fixtures::tree_bytes(root, &[])
}

/// Tuning's own journal directory is not part of the machine's settings.
fn settings(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    truebench_fixtures::tree_bytes(root, &["var/lib/truebench"])
}

/// What the fake saw when it was asked to measure.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    cpu: u32,
    governor: String,
    min_khz: u64,
    max_khz: u64,
}

/// Answers `mhz(cpu, scaling_max_freq kHz, loaded)` and records the cpufreq state it found.
struct Fake<F: FnMut(u32, u64, bool) -> f64> {
    mhz: F,
    seen: Vec<Seen>,
    loaded: bool,
    firmware: Option<f64>,
    /// cpufreq policy of a CPU (ROCK 5B layout unless changed).
    policy_of: fn(u32) -> u32,
}

impl<F: FnMut(u32, u64, bool) -> f64> Fake<F> {
    fn new(mhz: F) -> Self {
        Fake {
            mhz,
            seen: Vec::new(),
            loaded: false,
            firmware: None,
            policy_of: |cpu| if cpu < 4 { 0 } else { 4 },
        }
    }

    fn one(&mut self, host: &Host, cpu: u32) -> Result<ClockMeasurement, ClockError> {
        let d = format!("{CPU}/cpufreq/policy{}", (self.policy_of)(cpu));
        let max_khz = host.read_u64(format!("{d}/scaling_max_freq")).unwrap_or(0);
        let min_khz = host.read_u64(format!("{d}/scaling_min_freq")).unwrap_or(0);
        let governor = host
            .read_trimmed(format!("{d}/scaling_governor"))
            .unwrap_or_default();
        self.seen.push(Seen {
            cpu,
            governor,
            min_khz,
            max_khz,
        });
        let mhz = (self.mhz)(cpu, max_khz, self.loaded);
        Ok(ClockMeasurement {
            cpu,
            mhz,
            samples_mhz: vec![mhz + 0.123, mhz, mhz - 0.101],
            effective_mhz: mhz - 1.0,
            trials: 100,
            rejected: 1,
            disturbed: false,
            steal_ms: Some(0.0),
            run_delay_ms: Some(0.0),
            realtime: true,
            pinned: true,
            method: Method::Asm,
            iterations: 1000,
            duration_ms: 120.0,
        })
    }
}

impl<F: FnMut(u32, u64, bool) -> f64> ClockProbe for Fake<F> {
    fn measure(&mut self, host: &Host, cpu: u32) -> Result<ClockMeasurement, ClockError> {
        self.one(host, cpu)
    }
    fn measure_many(
        &mut self,
        host: &Host,
        cpus: &[u32],
    ) -> Vec<Result<ClockMeasurement, ClockError>> {
        cpus.iter().map(|&c| self.one(host, c)).collect()
    }
    fn start_load(&mut self, _cpus: &[u32]) -> LoadHandle {
        self.loaded = true;
        LoadHandle::none()
    }
    fn firmware_mhz(&mut self, _host: &Host) -> Option<f64> {
        self.firmware
    }
}

fn exec<F: FnMut(u32, u64, bool) -> f64>(
    root: &Path,
    opts: &ClocksOptions,
    fake: &mut Fake<F>,
) -> ClocksReport {
    let host = Host::new(root);
    let inv = Inventory::probe(&host);
    // The path `truebench clocks` runs: the walk as a phase of a Session, which tunes and
    // restores. The walk's own report is the phase's details; the tuning is the envelope's.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut events = Vec::new();
    let doc =
        clocks_session::document(&host, &inv, opts, fake, None, stop, &mut |e| events.push(e))
            .unwrap();
    // Every measurement is a step with its result.
    assert_eq!(progress::check(&events), Ok(()), "{events:#?}");
    let measured: usize = doc
        .body
        .clusters
        .iter()
        .map(|c| c.points.len())
        .sum::<usize>()
        + doc.body.all_cores.as_ref().map_or(0, |_| 2);
    let steps = events
        .iter()
        .filter(|e| matches!(e, Event::Step { .. }))
        .count();
    assert_eq!(steps, measured, "{events:#?}");
    let p = doc
        .envelope
        .phases
        .iter()
        .find(|p| p.name == "clocks")
        .expect("the clocks phase");
    let mut r: ClocksReport = serde_json::from_value(p.details.clone()).unwrap();
    let t = &doc.envelope.tuning;
    r.tuning.applied = t.applied;
    r.tuning.reason = t.reason.clone();
    r.tuning.restored = t.restored.clone();
    r.tuning.failed = t
        .restore_failed
        .iter()
        .map(|f| (f.path.clone(), f.reason.clone()))
        .collect();
    // The document's body is that same walk.
    assert_eq!(doc.body.clusters, r.clusters);
    assert_eq!(doc.body.all_cores, r.all_cores);
    r
}

/// A board whose clocks are what cpufreq says, except a fake top OPP per cluster: the A76
/// cluster's 2400 runs 2221 (Orange Pi 5 style, -7.5 %), the A55's 1800 runs 1620 (-10 %).
fn faked(cpu: u32, max_khz: u64, _loaded: bool) -> f64 {
    match (cpu, max_khz) {
        (4..=7, 2_400_000) => 2221.0,
        (0..=3, 1_800_000) => 1620.0,
        (_, k) => k as f64 / 1000.0 - 1.5,
    }
}

#[test]
fn walks_every_opp_from_the_highest_with_the_performance_governor() {
    let root = rock5b(true);
    let mut fake = Fake::new(faked);
    let r = exec(root.path(), &ClocksOptions::default(), &mut fake);

    assert_eq!(r.clusters.len(), 2, "{r:#?}");
    let little: Vec<Seen> = fake.seen.iter().filter(|s| s.cpu == 0).cloned().collect();
    let big: Vec<Seen> = fake.seen.iter().filter(|s| s.cpu == 4).cloned().collect();
    // Pinned to each cluster's first CPU, one measurement per OPP, highest first.
    assert_eq!(fake.seen.len(), LITTLE_KHZ.len() + BIG_KHZ.len());
    let walked: Vec<u64> = little.iter().map(|s| s.max_khz).collect();
    let mut want = LITTLE_KHZ.to_vec();
    want.reverse();
    assert_eq!(walked, want);
    let walked: Vec<u64> = big.iter().map(|s| s.max_khz).collect();
    let mut want = BIG_KHZ.to_vec();
    want.reverse();
    assert_eq!(walked, want);
    // The walk's writes were in the files when measuring: performance governor, min at the
    // lowest OPP so that max can go down.
    for s in &fake.seen {
        assert_eq!(s.governor, "performance", "{s:?}");
        assert_eq!(s.min_khz, 408000, "{s:?}");
    }

    for c in &r.clusters {
        assert_eq!(c.mode, WalkMode::OppWalk);
        assert_eq!(c.enforced, Some(true), "{c:#?}");
        let opps: Vec<u32> = c.points.iter().filter_map(|p| p.opp_mhz).collect();
        assert!(opps.windows(2).all(|w| w[0] > w[1]), "{opps:?}");
    }
    assert_eq!(r.clusters[0].core_type.as_deref(), Some("Cortex-A55"));
    assert_eq!(r.clusters[1].core_type.as_deref(), Some("Cortex-A76"));
    assert_eq!(r.clusters[1].measured_cpu, Some(4));
    assert!(
        r.tuning.applied && r.tuning.failed.is_empty(),
        "{:?}",
        r.tuning
    );
}

#[test]
fn every_file_is_restored_byte_for_byte() {
    let root = rock5b(true);
    let before = tree(root.path());
    let mut fake = Fake::new(faked);
    let opts = ClocksOptions {
        all_cores: true,
        load_heat: Duration::ZERO,
        ..ClocksOptions::default()
    };
    let r = exec(root.path(), &opts, &mut fake);
    assert!(!r.tuning.restored.is_empty(), "{:?}", r.tuning);
    // Governor, min and max of both policies were changed, and put back.
    for p in ["policy0", "policy4"] {
        for f in ["scaling_governor", "scaling_min_freq", "scaling_max_freq"] {
            let rel = format!("{CPU}/cpufreq/{p}/{f}");
            assert!(
                r.tuning.restored.contains(&rel),
                "{rel} not in {:?}",
                r.tuning.restored
            );
        }
    }
    assert_eq!(settings(root.path()), before);
}

#[test]
fn deviations_are_shown_beyond_one_percent_and_the_top_one_is_a_finding() {
    let root = rock5b(true);
    let mut fake = Fake::new(faked);
    let r = exec(root.path(), &ClocksOptions::default(), &mut fake);
    let text = render_text(&r);

    assert!(
        text.contains("Checking cpufreq OPP for cpu0-cpu3 (Cortex-A55):\n\n"),
        "{text}"
    );
    assert!(
        text.contains("Checking cpufreq OPP for cpu4-cpu7 (Cortex-A76):\n\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "Cpufreq OPP: 2400    Measured: 2221 (2221.123/2221.000/2220.899)     (-7.5%)\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "Cpufreq OPP: 1800    Measured: 1620 (1620.123/1620.000/1619.899)    (-10.0%)\n"
        ),
        "{text}"
    );
    // 1.5 MHz below 2208 is within 1 %: no column. 408 - 1.5 is -0.4 %: none either.
    assert!(
        text.contains("Cpufreq OPP: 2208    Measured: 2206 (2206.623/2206.500/2206.399)\n"),
        "{text}"
    );
    assert!(
        text.contains("Cpufreq OPP:  408    Measured:  406    (406.623/406.500/406.399)\n"),
        "{text}"
    );

    // One finding per cluster for the highest OPP: -10 % is a warning, -7.5 % information.
    assert_eq!(r.findings.len(), 2, "{:#?}", r.findings);
    let little = r
        .findings
        .iter()
        .find(|f| f.message.contains("cpu0-cpu3"))
        .unwrap();
    let big = r
        .findings
        .iter()
        .find(|f| f.message.contains("cpu4-cpu7"))
        .unwrap();
    assert_eq!(little.severity, Severity::Warning);
    assert_eq!(big.severity, Severity::Info);
    assert_eq!(big.kind.as_str(), "clock_deviation");
    assert!(big.evidence[0].contains("(-7.5%)"), "{:?}", big.evidence);
    assert!(text.contains("Findings:"), "{text}");
}

/// A core that loses the same 60 MHz at every OPP (a hypervisor's steal, an interrupt
/// storm): the top OPP is 2.5 % short, but so is every other by the same MHz — lost cycles,
/// not a fake label.
#[test]
fn a_constant_shortfall_at_every_opp_is_lost_cycles_not_a_fake_clock() {
    let root = rock5b(true);
    let mut fake = Fake::new(|_, k, _| k as f64 / 1000.0 - 60.0);
    let r = exec(root.path(), &ClocksOptions::default(), &mut fake);
    assert_eq!(r.findings.len(), 2, "{:#?}", r.findings);
    for f in &r.findings {
        assert_eq!(f.kind.as_str(), "lost_cycles", "{f:#?}");
        assert!(f.message.contains("~60 MHz"), "{}", f.message);
        assert!(
            f.evidence[0].contains("1.000 × OPP − 60 MHz"),
            "{:?}",
            f.evidence
        );
    }
}

#[test]
fn honest_top_opps_make_no_finding() {
    let root = rock5b(true);
    let mut fake = Fake::new(|_, k, _| k as f64 / 1000.0 - 3.0);
    let r = exec(root.path(), &ClocksOptions::default(), &mut fake);
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    assert!(!render_text(&r).contains('%'), "{}", render_text(&r));
}

#[test]
fn a_clock_that_ignores_scaling_max_freq_is_called_out_instead_of_huge_deviations() {
    let root = rock5b(true);
    // Whatever the kernel asks for, the cores run 2350 MHz (firmware or a hypervisor decides).
    let mut fake = Fake::new(|cpu, _, _| if cpu < 4 { 1790.0 } else { 2350.0 });
    let r = exec(root.path(), &ClocksOptions::default(), &mut fake);
    let text = render_text(&r);
    for c in &r.clusters {
        assert_eq!(c.enforced, Some(false), "{c:#?}");
    }
    assert!(
        text.contains("the kernel cannot enforce OPPs here"),
        "{text}"
    );
    // No sbc-bench style "+476.0%" line for the 408 MHz OPP.
    assert!(!text.contains("+476"), "{text}");
    assert!(
        text.contains("Cpufreq OPP:  408    Measured: 2350 (2350.123/2350.000/2349.899)\n"),
        "{text}"
    );
    // The top OPP's deviation stays visible and is still a finding (2400 vs 2350: -2.1 %).
    assert!(
        text.contains("Cpufreq OPP: 2400    Measured: 2350"),
        "{text}"
    );
    assert!(text.contains("(-2.1%)"), "{text}");
    let big = r
        .findings
        .iter()
        .find(|f| f.message.contains("cpu4-cpu7"))
        .unwrap();
    assert!(
        big.evidence.iter().any(|e| e.contains("cannot enforce")),
        "{big:?}"
    );
}

#[test]
fn max_khz_and_min_khz_limit_the_walk() {
    let root = rock5b(true);
    let before = tree(root.path());
    let mut fake = Fake::new(faked);
    let opts = ClocksOptions {
        max_khz: Some(2_208_000),
        min_khz: Some(1_000_000),
        ..ClocksOptions::default()
    };
    let r = exec(root.path(), &opts, &mut fake);
    let big: Vec<u32> = r.clusters[1]
        .points
        .iter()
        .filter_map(|p| p.opp_mhz)
        .collect();
    assert_eq!(big, vec![2208, 2016, 1608, 1200]);
    let little: Vec<u32> = r.clusters[0]
        .points
        .iter()
        .filter_map(|p| p.opp_mhz)
        .collect();
    assert_eq!(little, vec![1800, 1608, 1416, 1200, 1008]);
    assert!(fake
        .seen
        .iter()
        .all(|s| (1_000_000..=2_208_000).contains(&s.max_khz)));
    assert_eq!(settings(root.path()), before);
}

#[test]
fn without_cpufreq_the_clock_is_measured_once_per_cluster() {
    let root = rock5b(false);
    let mut fake = Fake::new(|_, _, _| 1416.0);
    let r = exec(root.path(), &ClocksOptions::default(), &mut fake);
    let text = render_text(&r);
    assert!(!r.clusters.is_empty());
    for c in &r.clusters {
        assert_eq!(c.mode, WalkMode::NoCpufreq);
        assert_eq!(c.points.len(), 1);
        assert_eq!(c.points[0].opp_mhz, None);
    }
    assert!(
        text.contains("No cpufreq support. Measured: 1416 (1416.123/1416.000/1415.899)"),
        "{text}"
    );
    assert!(!r.tuning.applied);
    // Nothing to tune: no journal directory either.
    assert!(!root.path().join("var/lib/truebench").exists());
}

#[test]
fn when_settings_cannot_be_changed_the_current_clock_is_measured() {
    let root = rock5b(true);
    // Tuning cannot keep its journal here (a file where its directory should be).
    put(root.path(), "var/lib/truebench", "not a directory\n");
    let before = tree(root.path());
    let mut fake = Fake::new(|_, _, _| 1795.0);
    let r = exec(root.path(), &ClocksOptions::default(), &mut fake);
    assert!(!r.tuning.applied);
    assert!(r.tuning.reason.is_some());
    for c in &r.clusters {
        assert_eq!(c.mode, WalkMode::CurrentClock, "{c:#?}");
        assert_eq!(c.points.len(), 1);
        // cpufreq's own claim is kept next to the measurement.
        assert_eq!(c.points[0].reported_mhz, Some(408));
        assert!(
            c.notes.iter().any(|n| n.contains("current clock only")),
            "{:?}",
            c.notes
        );
    }
    // Governor untouched: the fake saw ondemand.
    assert!(fake.seen.iter().all(|s| s.governor == "ondemand"));
    assert_eq!(tree(root.path()), before);
    assert!(render_text(&r).contains("Cpufreq now:  408    Measured: 1795"));
}

#[test]
fn all_cores_idle_and_under_load() {
    let root = rock5b(true);
    // Under load the big cores drop to 1800 MHz (throttling).
    let mut fake = Fake::new(|cpu, k, loaded| {
        if loaded && cpu >= 4 {
            1800.0
        } else {
            k as f64 / 1000.0 - 2.0
        }
    });
    let opts = ClocksOptions {
        all_cores: true,
        load_heat: Duration::ZERO,
        ..ClocksOptions::default()
    };
    let r = exec(root.path(), &opts, &mut fake);
    let a = r.all_cores.as_ref().unwrap();
    assert_eq!(a.idle.len(), 8);
    assert_eq!(a.load.len(), 8);
    // Measured at the highest OPP again after the walk.
    let all: Vec<&_> = fake.seen.iter().rev().take(16).collect();
    assert!(all
        .iter()
        .all(|s| s.max_khz == if s.cpu < 4 { 1_800_000 } else { 2_400_000 }));
    let text = render_text(&r);
    assert!(
        text.contains("Measuring highest clockspeeds for all cores in parallel (idle):\n\ncpu0: 1798/408 MHz (1798.123/1798.000/1797.899)\n"),
        "{text}"
    );
    assert!(
        text.contains("Measuring highest clockspeeds for all cores in parallel (full load):\n\n"),
        "{text}"
    );
    assert!(
        text.contains("cpu7: 1800/408 MHz (1800.123/1800.000/1799.899)\n"),
        "{text}"
    );
}

#[test]
fn json_has_the_documented_shape() {
    let root = rock5b(true);
    let mut fake = Fake::new(faked);
    let r = exec(root.path(), &ClocksOptions::default(), &mut fake);
    let v = serde_json::to_value(&r).unwrap();
    let c = &v["clusters"][1];
    assert_eq!(c["cpus"], serde_json::json!([4, 5, 6, 7]));
    assert_eq!(c["core_type"], "Cortex-A76");
    assert_eq!(c["points"][0]["opp_mhz"], 2400);
    assert_eq!(c["points"][0]["measured_mhz"], 2221.0);
    assert_eq!(c["points"][0]["samples_mhz"].as_array().unwrap().len(), 3);
    assert_eq!(v["findings"][0]["kind"], "clock_deviation");
    // Round trip.
    let back: ClocksReport = serde_json::from_value(v).unwrap();
    assert_eq!(back, r);
}

#[test]
fn raspberry_pi_firmware_clock_is_shown_next_to_the_measurement() {
    let root = rock5b(true);
    let mut fake = Fake::new(|_, k, _| k as f64 / 1000.0);
    fake.firmware = Some(1500.0);
    let opts = ClocksOptions {
        max_khz: Some(2_400_000),
        min_khz: Some(2_400_000),
        ..ClocksOptions::default()
    };
    let r = exec(root.path(), &opts, &mut fake);
    let text = render_text(&r);
    assert!(
        text.contains(
            "Cpufreq OPP: 2400  ThreadX: 1500  Measured: 2400 (2400.123/2400.000/2399.899)\n"
        ),
        "{text}"
    );
    assert_eq!(r.clusters[1].points[0].firmware_mhz, Some(1500.0));
}

#[test]
fn raspberry_pi_4_gets_the_firmware_note() {
    // tests/data/roots/rpi4b: cpufreq-dt under raspberrypi-cpufreq, OPPs 600…1800.
    let root = truebench_fixtures::root("rpi4b");
    let before = settings(root.path());
    let mut fake = Fake::new(|_, k, _| k as f64 / 1000.0 - 2.0);
    let r = exec(root.path(), &ClocksOptions::default(), &mut fake);
    assert_eq!(r.clusters.len(), 1);
    let c = &r.clusters[0];
    assert_eq!(c.mode, WalkMode::OppWalk);
    assert_eq!(c.points.len(), 13, "{c:#?}");
    assert_eq!(c.points[0].opp_mhz, Some(1800));
    assert!(
        c.notes.iter().any(|n| n.contains("Raspberry Pi")
            && n.contains("vcgencmd measure_clock arm")
            && n.contains("not available here")),
        "{:?}",
        c.notes
    );
    assert_eq!(settings(root.path()), before);
}

#[test]
fn intel_pstate_walks_its_limits_and_names_the_driver_when_the_clock_ignores_them() {
    // tests/data/roots/x86-intel-laptop: intel_pstate, one policy per CPU, no frequency table.
    let root = truebench_fixtures::root("x86-intel-laptop");
    let before = settings(root.path());
    let mut fake = Fake::new(|_, _, _| 2693.0);
    fake.policy_of = |cpu| cpu;
    let r = exec(root.path(), &ClocksOptions::default(), &mut fake);
    assert!(!r.clusters.is_empty());
    let c = &r.clusters[0];
    assert_eq!(c.driver.as_deref(), Some("intel_pstate"));
    // Without a frequency table the walk is cpuinfo_max_freq, then cpuinfo_min_freq.
    let opps: Vec<u32> = c.points.iter().filter_map(|p| p.opp_mhz).collect();
    assert_eq!(opps, vec![1900, 400]);
    assert_eq!(c.enforced, Some(false), "{c:#?}");
    let text = render_text(&r);
    assert!(
        text.contains("the kernel cannot enforce OPPs here"),
        "{text}"
    );
    assert!(text.contains("intel_pstate driver"), "{text}");
    // +41.7 % at the top stays visible (turbo above the advertised maximum); no +573 % line.
    assert!(!text.contains("+573"), "{text}");
    assert_eq!(settings(root.path()), before);
}

/// The i7-1165G7 laptop of util-linux's Linux 6.2 dump: intel_pstate with HWP, no frequency
/// table, base_frequency 1200 MHz, cpuinfo_max_freq 4700 MHz. `mhz` answers the clock for
/// the scaling_max_freq the walk set.
fn turbo_laptop(mhz: fn(u64) -> f64) -> (ClocksReport, bool) {
    const NAME: &str = "x86_64-64cpu-linux6.2";
    let d = truebench_fixtures::sysfs_dump(NAME);
    let root = d.path().join(NAME);
    let before = settings(&root);
    let mut fake = Fake::new(move |_, max_khz, _| mhz(max_khz));
    fake.policy_of = |cpu| cpu;
    let r = exec(&root, &ClocksOptions::default(), &mut fake);
    (r, settings(&root) == before)
}

#[test]
fn without_a_frequency_table_the_walk_includes_the_base_clock_and_restores() {
    // A clock that follows the limit: the walk's three points measure what they set.
    let (r, restored) = turbo_laptop(|khz| khz as f64 / 1000.0);
    assert!(restored, "every limit written back");
    let c = &r.clusters[0];
    let t = c.turbo.as_ref().expect("base and boost from intel_pstate");
    assert_eq!((t.base_mhz, t.boost_mhz), (1200, 4700));
    let opps: Vec<u32> = c.points.iter().filter_map(|p| p.opp_mhz).collect();
    assert_eq!(opps, [4700, 1200, 400], "boost, base, lowest");
    assert_eq!(c.enforced, Some(true));
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    assert!(
        render_text(&r)
            .contains("the highest limit is the 4700 MHz boost clock, the base clock 1200 MHz"),
        "{}",
        render_text(&r)
    );
}

#[test]
fn a_clock_between_base_and_boost_is_turbo_not_a_fake_label() {
    // 3900 MHz at the 4700 MHz limit: 17 % short of boost, far above base.
    let (r, _) = turbo_laptop(|khz| {
        if khz >= 4_700_000 {
            3900.0
        } else {
            khz as f64 / 1000.0
        }
    });
    assert_eq!(r.findings.len(), 1, "{:#?}", r.findings);
    let f = &r.findings[0];
    assert_eq!(f.severity, Severity::Info, "{f:#?}");
    assert!(
        f.message.contains("above its 1200 MHz base clock"),
        "{}",
        f.message
    );
    // Below the base clock it is a shortfall, judged against the base clock.
    let (r, _) = turbo_laptop(|khz| {
        if khz >= 4_700_000 {
            1000.0
        } else {
            khz as f64 / 1000.0
        }
    });
    let f = &r.findings[0];
    assert_eq!(f.severity, Severity::Warning, "{f:#?}");
    assert!(
        f.message.contains("not the advertised 1200 MHz"),
        "{}",
        f.message
    );
}

/// A cooling device holding the A76 cluster at 2208 MHz when the walk begins (state 1 of 13,
/// policy4's scaling_max_freq 2208 MHz): the 2400 MHz measured short gets that reason in the
/// notes and in its finding, with the cooling device's file.
#[test]
fn an_opp_measured_short_gets_the_limit_that_holds_it() {
    let root = rock5b(true);
    let r = root.path();
    put(
        r,
        &format!("{CPU}/cpufreq/policy4/scaling_max_freq"),
        "2208000\n",
    );
    for (f, v) in [
        ("type", "cpufreq-cpu4"),
        ("cur_state", "1"),
        ("max_state", "13"),
    ] {
        put(
            r,
            &format!("sys/class/thermal/cooling_device0/{f}"),
            &format!("{v}\n"),
        );
    }
    let mut fake = Fake::new(faked);
    let rep = exec(r, &ClocksOptions::default(), &mut fake);
    let big = rep.clusters.iter().find(|c| c.cpus.contains(&4)).unwrap();
    let note = big
        .notes
        .iter()
        .find(|n| n.starts_with("2400 MHz measured 2221 MHz: "))
        .unwrap_or_else(|| panic!("{:#?}", big.notes));
    assert!(
        note.contains(
            "the thermal cooling device cooling_device0 (cpufreq-cpu4) is at state 1 of 13, \
             which caps the clock at 2208 MHz (sys/class/thermal/cooling_device0/cur_state)"
        ),
        "{note}"
    );
    let f = rep
        .findings
        .iter()
        .find(|f| f.message.contains("cpu4-cpu7"))
        .unwrap();
    assert!(f.evidence.iter().any(|e| e == note), "{:?}", f.evidence);
    // The little cluster's short 1800 MHz has no known limit: no such note.
    let little = rep.clusters.iter().find(|c| c.cpus.contains(&0)).unwrap();
    assert!(!little
        .notes
        .iter()
        .any(|n| n.contains("measured 1620 MHz:")));
}
