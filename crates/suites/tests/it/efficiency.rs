//! `truebench efficiency` on the ROCK 5B fixture root with scripted kernels and a board that
//! responds: the clock is what the walk set (scaling_setspeed, or scaling_max_freq without a
//! userspace governor), the INA226 on the 5 V input reads idle + the cluster's static and
//! dynamic power at that clock (voltage floor 0.8 V below ~860 MHz), each run warms the SoC
//! by 2 °C and it cools by itself. The real session, Tuning (writing into the fixture), idle
//! gate, sampler and renderer run.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use truebench_host::{Host, Inventory};
use truebench_model::efficiency::{OppPoint, WorkSource};
use truebench_model::{EfficiencyBody, EfficiencyResult};
use truebench_render::kinds::Render;
use truebench_suites::efficiency::{self, EfficiencyKernels, EfficiencyOptions, WorkScore};
use truebench_suites::idle::IdleConfig;

const INA: &str = "sys/class/hwmon/hwmon9";
const IDLE_W: f64 = 2.5;

/// In place, no truncation: the sampler keeps files open (values keep their length here).
fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(&p)
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

/// Power of `n` busy cores at `ghz` above idle: static 0.3 W·V² + dynamic 0.5 W/GHz·V² per
/// core, with the voltage floor real DVFS tables have.
fn busy_watts(n: usize, ghz: f64) -> f64 {
    let v = (0.5 + 0.35 * ghz).max(0.8);
    n as f64 * v * v * (0.3 + 0.5 * ghz)
}

struct Scripted {
    root: PathBuf,
    inv: Inventory,
    temp_mc: Arc<AtomicU32>,
    runs: u32,
    /// Raise this flag after so many runs (Ctrl-C).
    stop_after: Option<(u32, Arc<AtomicBool>)>,
    /// At this clock (kHz) the thermal framework caps the CPU during each run (a cooling
    /// device spends 100 ms in state 1).
    throttle_khz: Option<u64>,
    /// The clock measured whatever the OPP set (a VM, a recorded tree), MHz.
    fixed_mhz: Option<f64>,
}

impl Scripted {
    /// The clock the walk left the cluster of `cpu` at, kHz.
    fn khz(&self, host: &Host, cpu: u32) -> u64 {
        let c = self
            .inv
            .clusters
            .iter()
            .find(|c| c.cpus.contains(&cpu))
            .unwrap();
        let d = c.policy_dir.as_ref().unwrap();
        let gov = host.read_trimmed(format!("{d}/scaling_governor")).unwrap();
        let file = if gov == "userspace" {
            "scaling_setspeed"
        } else {
            "scaling_max_freq"
        };
        host.read_u64(format!("{d}/{file}")).unwrap()
    }
}

impl EfficiencyKernels for Scripted {
    fn clock(&mut self, host: &Host, cpu: u32) -> Option<f64> {
        Some(
            self.fixed_mhz
                .unwrap_or(self.khz(host, cpu) as f64 / 1000.0 * 0.995),
        )
    }

    fn work(&mut self, host: &Host, cpus: &[u32], stop: &AtomicBool) -> Result<WorkScore, String> {
        let khz = self.khz(host, cpus[0]);
        let ghz = khz as f64 / 1e6;
        let w = IDLE_W + busy_watts(cpus.len(), ghz);
        if self.throttle_khz == Some(khz) {
            let f = self
                .root
                .join("sys/class/thermal/cooling_device0/stats/time_in_state_ms");
            let text = std::fs::read_to_string(&f).unwrap();
            let ms: u64 = text
                .lines()
                .find_map(|l| l.strip_prefix("state1 "))
                .unwrap()
                .trim()
                .parse()
                .unwrap();
            std::thread::sleep(Duration::from_millis(50));
            std::fs::write(&f, format!("state0 1000\nstate1 {}\n", ms + 100)).unwrap();
        }
        put(
            &self.root,
            &format!("{INA}/power1_input"),
            &format!("{:08}\n", (w * 1e6) as u64),
        );
        std::thread::sleep(Duration::from_millis(200));
        put(
            &self.root,
            &format!("{INA}/power1_input"),
            &format!("{:08}\n", (IDLE_W * 1e6) as u64),
        );
        self.temp_mc.fetch_add(2000, Ordering::SeqCst);
        self.runs += 1;
        if let Some((n, flag)) = &self.stop_after {
            if self.runs >= *n {
                flag.store(true, Ordering::SeqCst);
            }
        }
        if stop.load(Ordering::SeqCst) {
            return Err("interrupted".into());
        }
        Ok(WorkScore {
            score: 1000.0 * ghz * cpus.len() as f64,
            unit: "MIPS".into(),
            detail: "scripted work".into(),
            tool: ("scripted".into(), None, None),
            source: WorkSource::SevenZip,
        })
    }
}

/// Every cpufreq file of the root, to compare before and after.
fn cpufreq(root: &Path) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for p in ["policy0", "policy4", "policy6"] {
        for f in [
            "scaling_governor",
            "scaling_setspeed",
            "scaling_min_freq",
            "scaling_max_freq",
        ] {
            let rel = format!("sys/devices/system/cpu/cpufreq/{p}/{f}");
            m.insert(
                rel.clone(),
                std::fs::read_to_string(root.join(&rel)).unwrap_or_default(),
            );
        }
    }
    m
}

fn board(userspace: bool) -> (tempfile::TempDir, Inventory) {
    let d = truebench_fixtures::root("rk3588-rock5b");
    let r = d.path();
    for (rel, text) in [
        ("proc/loadavg", "0.00 0.00 0.00 1/246 1893\n"),
        ("dev/kmsg", ""),
    ] {
        std::fs::create_dir_all(r.join(rel).parent().unwrap()).unwrap();
        std::fs::write(r.join(rel), text).unwrap();
    }
    for p in ["policy0", "policy4", "policy6"] {
        let dir = r.join(format!("sys/devices/system/cpu/cpufreq/{p}"));
        if !userspace {
            std::fs::write(
                dir.join("scaling_available_governors"),
                "conservative ondemand powersave performance schedutil\n",
            )
            .unwrap();
        }
        if !dir.join("scaling_setspeed").exists() {
            std::fs::write(dir.join("scaling_setspeed"), "<unsupported>\n").unwrap();
        }
    }
    put(r, &format!("{INA}/name"), "ina226\n");
    put(r, &format!("{INA}/power1_input"), "02500000\n");
    let inv = Inventory::probe(&Host::new(r));
    (d, inv)
}

fn go(
    d: &Path,
    inv: &Inventory,
    clusters: Vec<usize>,
    stop_after: Option<u32>,
) -> (EfficiencyResult, Scripted) {
    go_throttled(d, inv, clusters, stop_after, None)
}

fn go_throttled(
    d: &Path,
    inv: &Inventory,
    clusters: Vec<usize>,
    stop_after: Option<u32>,
    throttle_khz: Option<u64>,
) -> (EfficiencyResult, Scripted) {
    go_with(d, inv, clusters, stop_after, throttle_khz, None)
}

fn go_with(
    d: &Path,
    inv: &Inventory,
    clusters: Vec<usize>,
    stop_after: Option<u32>,
    throttle_khz: Option<u64>,
    fixed_mhz: Option<f64>,
) -> (EfficiencyResult, Scripted) {
    let temp_file = inv.thermal.chosen.as_ref().unwrap().path.clone();
    let temp_mc = Arc::new(AtomicU32::new(45_000));
    let stop = Arc::new(AtomicBool::new(false));
    let mut k = Scripted {
        root: d.to_path_buf(),
        inv: inv.clone(),
        temp_mc: temp_mc.clone(),
        runs: 0,
        stop_after: stop_after.map(|n| (n, stop.clone())),
        throttle_khz,
        fixed_mhz,
    };
    // The SoC cools by itself: 0.5 °C every 20 ms down to 45 °C.
    let done = Arc::new(AtomicBool::new(false));
    let physics = {
        let (root, done, t) = (d.to_path_buf(), done.clone(), temp_mc.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                let now = t.load(Ordering::SeqCst);
                let next = now.saturating_sub(500).max(45_000);
                t.store(next, Ordering::SeqCst);
                put(&root, &temp_file, &format!("{next}\n"));
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let opts = EfficiencyOptions {
        clusters: Some(clusters),
        runs: 2,
        cool_to: Some(46.0),
        cool_timeout: Duration::from_secs(5),
        idle: IdleConfig {
            timeout: Duration::from_secs(5),
            window: Duration::from_millis(100),
            poll: Duration::from_millis(20),
            cool_to: None,
        },
        sample_interval: Duration::from_millis(20),
        idle_power: Duration::from_millis(400),
        ..EfficiencyOptions::default()
    };
    let host = Host::new(d);
    let mut events = Vec::new();
    let r = efficiency::run(&host, inv, &opts, &mut k, stop, &mut |e| events.push(e)).unwrap();
    done.store(true, Ordering::SeqCst);
    physics.join().unwrap();
    // Each OPP is a step (counted per cluster) that says its result.
    assert_eq!(
        truebench_suites::progress::check(&events),
        Ok(()),
        "{events:#?}"
    );
    let points: usize = r.body.clusters.iter().map(|c| c.points.len()).sum();
    let ends = events
        .iter()
        .filter(|e| matches!(e, truebench_suites::progress::Event::Score { .. }))
        .count();
    assert_eq!(ends, points, "{events:#?}");
    let v = serde_json::to_value(&r).unwrap();
    let errors = truebench_fixtures::schema::validate_result(&v);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    (r, k)
}

#[test]
fn every_opp_of_the_little_cluster_with_power_per_run_and_the_best_opp() {
    let (d, inv) = board(true);
    let before = cpufreq(d.path());
    let (r, k) = go(d.path(), &inv, vec![0], None);
    let b = &r.body;
    let text = EfficiencyBody::summary(r.view());
    assert!(r.envelope.complete, "{text}");
    assert!(b.switched, "{text}");
    // The clock followed every OPP: no verdict against the walk.
    assert!(
        !r.envelope
            .findings
            .iter()
            .any(|f| f.kind == truebench_model::finding::FindingKind::ClockDeviation),
        "{text}"
    );
    assert_eq!(b.method.map(|m| m.as_str()), Some("userspace"));
    let c = &b.clusters[0];
    // RK3588's A55 table: 408 … 1800 MHz, lowest first, two runs each.
    let mhz: Vec<u32> = c.points.iter().filter_map(|p| p.opp_mhz).collect();
    assert_eq!(mhz, [408, 600, 816, 1008, 1200, 1416, 1608, 1800]);
    assert_eq!(k.runs, 16);
    let idle = r.envelope.energy.as_ref().unwrap().idle_watts.unwrap();
    // Within 2 %: the trapezoid towards the first busy reading after the gate adds a trace,
    // more when a loaded test machine stretches the sampling.
    assert!((idle - IDLE_W).abs() < 0.05, "{idle}");
    for p in &c.points {
        assert_eq!(p.runs.len(), 2, "{p:?}");
        let ghz = f64::from(p.opp_mhz.unwrap()) / 1000.0;
        assert!((p.measured_mhz.unwrap() - ghz * 995.0).abs() < 1e-6);
        // Each run's energy is integrated from the sensor: close to the scripted power
        // (the edges of a 400 ms run blend with idle readings).
        let want = IDLE_W + busy_watts(4, ghz);
        let w = p.watts.unwrap();
        assert!(w > IDLE_W && w <= want * 1.02, "{p:?} want {want}");
        assert!(w > want - 0.5 * (want - IDLE_W), "{p:?} want {want}");
        assert!(p.per_watt.unwrap() > 0.0);
        // Every run started cool.
        assert!(
            p.runs.iter().all(|r| r.temp_start_c.unwrap() <= 46.5),
            "{p:?}"
        );
    }
    // The best OPP is the valid one of the most work per watt above idle, as measured.
    assert_eq!(c.best_mhz, measured_best(&c.points), "{text}");
    // In the model it is where the voltage floor ends, 816 MHz; 1008 MHz does 4 % less work
    // per watt there, close enough for the measured energies to swap them (each 200 ms run's
    // edges blend with idle readings, more on a loaded test machine: one of the suite's runs
    // measured 1008 MHz's power above idle 9 % low and picked it). The next ones are 13 % and
    // more below.
    let e = |m: u32| f64::from(m) / busy_watts(4, f64::from(m) / 1000.0);
    let best = mhz
        .iter()
        .copied()
        .max_by(|a, b| e(*a).total_cmp(&e(*b)))
        .unwrap();
    assert_eq!(best, 816);
    assert!(e(1008) > 0.95 * e(816) && e(600) < 0.9 * e(816) && e(1200) < 0.88 * e(816));
    // The model's pick is required where every point's power above idle was measured within
    // 6 % of the script: then no point 12 % behind can come out ahead. A machine loaded
    // enough for the sampler to miss part of a run does not give that (a CI run beside the
    // static builds measured 1416 MHz 16 % low and picked it, rightly by its figures).
    let off = |p: &OppPoint| {
        let want = busy_watts(4, f64::from(p.opp_mhz.unwrap()) / 1000.0);
        ((p.watts.unwrap() - IDLE_W) - want).abs() / want
    };
    let worst = c.points.iter().map(off).fold(0.0, f64::max);
    if worst <= 0.06 {
        assert!(
            matches!(c.best_mhz, Some(816 | 1008)),
            "{:?} is not within 5 % of the modelled best: {text}",
            c.best_mhz
        );
    } else {
        eprintln!(
            "note: a point's power above idle measured {:.0} % off its script (a loaded machine): the pick is checked against the measured figures only",
            worst * 100.0
        );
    }
    assert!(text.contains("← best"), "{text}");
    // While cluster 0 was walked the A76 clusters were held at 408 MHz; all restored.
    let writes = &r.envelope.tuning.changes;
    assert!(writes
        .iter()
        .any(|w| w.path.ends_with("policy4/scaling_max_freq") && w.value == "408000"));
    assert_eq!(cpufreq(d.path()), before);
    let html = truebench_render::kinds::html_page(&r.clone().into_document());
    assert!(html.contains("Power vs clock") && html.contains("MIPS/W vs clock"));
}

#[test]
fn without_a_userspace_governor_min_equals_max_pins_each_opp() {
    let (d, inv) = board(false);
    let before = cpufreq(d.path());
    let (r, _) = go(d.path(), &inv, vec![2], None);
    assert_eq!(r.body.method.map(|m| m.as_str()), Some("min=max"));
    let c = &r.body.clusters[0];
    assert_eq!(c.cluster, 2);
    assert_eq!(c.points.len(), 14, "{:#?}", c.points);
    let w = &r.envelope.tuning.changes;
    assert!(w
        .iter()
        .any(|x| x.path.ends_with("policy6/scaling_min_freq") && x.value == "2400000"));
    assert!(!w.iter().any(|x| x.value == "userspace"));
    assert_eq!(cpufreq(d.path()), before);
}

#[test]
fn ctrl_c_mid_walk_restores_every_setting_and_keeps_the_points_so_far() {
    let (d, inv) = board(true);
    let before = cpufreq(d.path());
    let (r, _) = go(d.path(), &inv, vec![0, 1], Some(5));
    assert!(!r.envelope.complete);
    let c = &r.body.clusters[0];
    // Two OPPs done, the third interrupted in its first run; cluster 1 never started.
    assert_eq!(r.body.clusters.len(), 1);
    assert_eq!(c.points[0].runs.len(), 2);
    assert_eq!(
        c.points[2].status,
        truebench_model::PhaseStatus::Interrupted,
        "{:#?}",
        c.points
    );
    assert_eq!(cpufreq(d.path()), before);
    assert!(EfficiencyBody::summary(r.view()).contains("INCOMPLETE"));
}

/// The valid point of the most work per watt (above idle where the idle power is known), as
/// its figures say: the pick the walk must make.
fn measured_best(points: &[OppPoint]) -> Option<u32> {
    let key = |p: &OppPoint| p.per_watt_above_idle.or(p.per_watt);
    points
        .iter()
        .filter(|p| p.invalid.is_none() && key(p).is_some())
        .max_by(|a, b| key(a).unwrap_or(0.0).total_cmp(&key(b).unwrap_or(0.0)))
        .and_then(|p| p.opp_mhz)
}

/// Evidence tied to its run: the thermal framework caps the clock only while the runs at
/// 816 MHz (the best OPP otherwise) go (a cooling device's time in state 1 grows then). Exactly those runs are marked
/// throttling, that point is invalid (with which runs) and never the best OPP; every other
/// run is clean.
#[test]
fn a_run_measured_while_throttled_marks_its_point_invalid() {
    let (d, inv) = board(true);
    let cd = d.path().join("sys/class/thermal/cooling_device0");
    std::fs::create_dir_all(cd.join("stats")).unwrap();
    std::fs::write(cd.join("type"), "thermal-cpufreq-0\n").unwrap();
    std::fs::write(cd.join("cur_state"), "0\n").unwrap();
    std::fs::write(cd.join("max_state"), "7\n").unwrap();
    std::fs::write(cd.join("stats/time_in_state_ms"), "state0 1000\nstate1 0\n").unwrap();
    let (r, _) = go_throttled(d.path(), &inv, vec![0], None, Some(816_000));
    let c = &r.body.clusters[0];
    for p in &c.points {
        let throttled = p.opp_mhz == Some(816);
        for run in &p.runs {
            assert_eq!(
                run.evidence.marks.iter().any(|m| m == "throttling"),
                throttled,
                "{} at {:?}: {:?}",
                run.evidence.phase,
                p.opp_mhz,
                run.evidence.marks
            );
        }
        assert_eq!(p.invalid.is_some(), throttled, "{p:?}");
    }
    let bad = c.points.iter().find(|p| p.opp_mhz == Some(816)).unwrap();
    assert!(
        bad.invalid.as_deref().unwrap().contains("throttling"),
        "{bad:?}"
    );
    // The best is the valid point of the most work per watt as measured, never the throttled
    // one. In the model that is 1008 MHz, ahead of 1200 MHz; each 200 ms run's energy
    // blends with idle readings at its edges, and on a loaded machine (a CI run with the
    // static builds beside it) 1008 MHz once measured about 1 % behind 1200 MHz. So the pick is
    // checked against the measured figures, and to be one of the two next in the model.
    assert_eq!(c.best_mhz, measured_best(&c.points), "{:?}", c.points);
    assert!(matches!(c.best_mhz, Some(1008 | 1200)), "{:?}", c.points);
    let text = EfficiencyBody::summary(r.view());
    assert!(text.contains("INVALID"), "{text}");
}

/// A walk whose measured clock does not follow the OPPs set (3694 MHz at every one, as on a
/// VM or with a recorded tree): the result is not valid and says why, naming the clocks.
#[test]
fn a_clock_that_ignores_the_opps_set_makes_the_walk_invalid() {
    let (d, inv) = board(true);
    let (r, _) = go_with(d.path(), &inv, vec![0], Some(3), None, Some(3694.0));
    let f = r
        .envelope
        .findings
        .iter()
        .find(|f| f.kind == truebench_model::finding::FindingKind::ClockDeviation)
        .unwrap_or_else(|| panic!("{:#?}", r.envelope.findings));
    assert_eq!(f.severity, truebench_model::finding::Severity::Critical);
    assert!(
        f.message.contains("did not follow the OPPs"),
        "{}",
        f.message
    );
    assert!(f.message.contains("3694 MHz"), "{}", f.message);
    assert!(!r.envelope.valid);
}
