//! `truebench thermal`'s flow on the ROCK 5B fixture root with a scripted load whose machine
//! responds: while it runs, the SoC heats at 15 °C/s, the A76 clusters fall from 2400 to
//! 2208 MHz once the SoC passes 80 °C (the score falls with them), and an INA226 on the 5 V
//! input reads 9 W instead of the idle 2.5 W. The real session, sampler, idle gate,
//! detectors and renderer run on the fixture's files.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use truebench_host::{Host, Inventory};
use truebench_model::thermal::ScorePoint;
use truebench_model::{PhaseStatus, ThermalBody, ThermalResult};
use truebench_render::kinds::Render;
use truebench_suites::progress::{self, Event};
use truebench_suites::thermal::{self, Load, LoadRan, LoadRunner, Start, ThermalOptions};

const INA: &str = "sys/class/hwmon/hwmon9";

/// Write in place without truncating (the sampler keeps the file open and re-reads it, so a
/// renamed file would go unseen, and a truncated one could be read empty): the scripted
/// values keep their length (45000…99999 m°C, 2400000/2208000 kHz, 2500000/9000000 µW).
fn put(root: &Path, rel: &str, text: &str) {
    use std::io::Write;
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

struct Board {
    root: PathBuf,
    temp_file: String,
    /// Current-clock files of the A76 clusters.
    big: Vec<String>,
    temp_c: f64,
}

impl Board {
    fn set_temp(&mut self, c: f64) {
        self.temp_c = c;
        put(
            &self.root,
            &self.temp_file,
            &format!("{}\n", (c * 1000.0) as i64),
        );
        let khz = if c >= 80.0 { 2208000 } else { 2400000 };
        for f in &self.big {
            put(&self.root, f, &format!("{khz}\n"));
        }
    }
}

/// The scripted load: heats the board, scores 100 (92 once throttled) every 0.25 s.
struct Scripted {
    board: Board,
    /// Raise the stop flag after this long under load (Ctrl-C).
    interrupt_after: Option<(f64, Arc<AtomicBool>)>,
}

impl LoadRunner for Scripted {
    fn run(
        &mut self,
        _load: &Load,
        seconds: f64,
        _interval: f64,
        stop: &AtomicBool,
        on_score: &mut dyn FnMut(ScorePoint),
    ) -> Result<LoadRan, String> {
        put(
            &self.board.root,
            &format!("{INA}/power1_input"),
            "9000000\n",
        );
        let t0 = Instant::now();
        let start_c = self.board.temp_c;
        let mut last = 0.0;
        while t0.elapsed().as_secs_f64() < seconds && !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(20));
            // By the clock, not per step: a loaded test machine stretches the steps.
            let now = t0.elapsed().as_secs_f64();
            self.board.set_temp(start_c + 15.0 * now);
            if now - last >= 0.25 {
                on_score(ScorePoint {
                    start_s: last,
                    end_s: now,
                    score: if self.board.temp_c >= 80.0 {
                        92.0
                    } else {
                        100.0
                    },
                });
                last = now;
            }
            if let Some((after, flag)) = &self.interrupt_after {
                if now >= *after {
                    flag.store(true, Ordering::SeqCst);
                }
            }
        }
        put(
            &self.board.root,
            &format!("{INA}/power1_input"),
            "2500000\n",
        );
        Ok(LoadRan {
            detail: "scripted load".into(),
            unit: Some("GFLOP/s".into()),
            tool: ("scripted".into(), None, None),
        })
    }
}

fn board() -> (tempfile::TempDir, Inventory) {
    let d = truebench_fixtures::root("rk3588-rock5b");
    let r = d.path();
    put(r, "proc/loadavg", "0.00 0.00 0.00 1/246 1893\n");
    put(r, "dev/kmsg", "");
    put(r, &format!("{INA}/name"), "ina226\n");
    put(r, &format!("{INA}/in1_input"), "5104\n");
    put(r, &format!("{INA}/curr1_input"), "490\n");
    put(r, &format!("{INA}/power1_input"), "2500000\n");
    let inv = Inventory::probe(&Host::new(r));
    (d, inv)
}

fn scripted(root: &Path, inv: &Inventory) -> Scripted {
    let mut b = Board {
        root: root.to_path_buf(),
        temp_file: inv.thermal.chosen.as_ref().unwrap().path.clone(),
        big: inv.clusters[1..]
            .iter()
            .map(|c| c.cur_freq_file.clone().unwrap())
            .collect(),
        temp_c: 0.0,
    };
    b.set_temp(45.0);
    Scripted {
        board: b,
        interrupt_after: None,
    }
}

fn opts(start: Start) -> ThermalOptions {
    let mut o = ThermalOptions::new(Load::Stress, 3.0 / 60.0);
    o.start = start;
    o.sample_interval = Duration::from_millis(40);
    o.idle_window = Duration::from_millis(200);
    o.wait_timeout = Duration::from_secs(10);
    o.idle_power = Duration::from_millis(400);
    o
}

fn go(
    root: &Path,
    inv: &Inventory,
    o: &ThermalOptions,
    s: &mut Scripted,
    stop: Arc<AtomicBool>,
) -> ThermalResult {
    let host = Host::new(root);
    let mut events = Vec::new();
    let r = thermal::run(&host, inv, o, s, stop, &mut |e: Event| events.push(e)).unwrap();
    assert_eq!(progress::check(&events), Ok(()), "{events:#?}");
    let v = serde_json::to_value(&r).unwrap();
    let errors = truebench_fixtures::schema::validate_result(&v);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    r
}

#[test]
fn clock_loss_temperature_score_and_energy_follow_the_scripted_board() {
    let (d, inv) = board();
    let mut s = scripted(d.path(), &inv);
    let r = go(
        d.path(),
        &inv,
        &opts(Start::CoolTo(50.0)),
        &mut s,
        Arc::new(AtomicBool::new(false)),
    );
    let b = &r.body;
    let text = ThermalBody::summary(r.view());
    assert!(r.envelope.complete, "{text}");
    assert_eq!(b.start.mode.as_str(), "cool");
    assert!(b.start.reached, "{:?}", b.start);
    // 3 s at 15 °C/s from 45 °C: the load ends near 90 °C.
    let (t0, tmax) = (b.temp_start_c.unwrap(), b.temp_max_c.unwrap());
    assert!((45.0..47.0).contains(&t0), "{t0}");
    assert!(tmax > 85.0, "{tmax}");
    // The little cluster never lost clock; both A76 clusters did, just past 80 °C.
    assert_eq!(b.clusters[0].first_loss, None, "{text}");
    for c in &b.clusters[1..] {
        let l = c.first_loss.as_ref().unwrap_or_else(|| panic!("{text}"));
        let t = l.temp_c.unwrap();
        assert!((80.0..82.0).contains(&t), "{l:?}");
        assert_eq!((l.from_mhz, l.to_mhz), (2400.0, 2208.0));
        assert!(l.t_s > 2.0 && l.t_s < 2.7, "{l:?}");
        assert_eq!(c.last_minute_mhz.map(|m| m < 2400.0), Some(true));
    }
    // The score fell with the clock.
    assert!(
        (b.change_pct.unwrap() + 8.0).abs() < 1e-9,
        "{:?}",
        b.change_pct
    );
    // Energy: idle power from the gate, the load at 9 W, GFLOP per joule.
    let e = r.envelope.energy.as_ref().unwrap();
    // The trapezoid towards the first 9 W reading after the gate adds a trace.
    assert!((e.idle_watts.unwrap() - 2.5).abs() < 0.01, "{e:#?}");
    let load = e.phase("load").unwrap();
    assert!(
        load.mean_watts > 8.5 && load.mean_watts <= 9.0 + 1e-9,
        "{load:#?}"
    );
    assert_eq!(load.per_watt[0].unit, "GFLOP/J");
    assert!(text.contains("first lost clock after"), "{text}");
    assert!(text.contains("Energy from ina226 power1"), "{text}");
    let html = truebench_render::kinds::html_page(&r.clone().into_document());
    assert!(html.contains("Score over time") && html.contains("Clock per cluster"));
}

#[test]
fn heat_to_runs_the_load_until_the_soc_is_hot_then_counts() {
    let (d, inv) = board();
    let mut s = scripted(d.path(), &inv);
    let r = go(
        d.path(),
        &inv,
        &opts(Start::HeatTo(60.0)),
        &mut s,
        Arc::new(AtomicBool::new(false)),
    );
    let names: Vec<&str> = r.envelope.phases.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["idle", "heat", "load"]);
    let b = &r.body;
    assert!(
        b.start.reached && b.start.mode.as_str() == "heat",
        "{:?}",
        b.start
    );
    // About 1 s of heating at 15 °C/s; the load starts hot.
    assert!(b.start.waited_s < 5.0, "{:?}", b.start);
    assert!(b.temp_start_c.unwrap() >= 60.0, "{:?}", b.temp_start_c);
}

#[test]
fn ctrl_c_during_the_load_keeps_the_scores_so_far() {
    let (d, inv) = board();
    let stop = Arc::new(AtomicBool::new(false));
    let mut s = scripted(d.path(), &inv);
    s.interrupt_after = Some((1.0, stop.clone()));
    let r = go(d.path(), &inv, &opts(Start::Idle), &mut s, stop);
    assert!(!r.envelope.complete);
    let load = r.envelope.phases.iter().find(|p| p.name == "load").unwrap();
    assert_eq!(load.status, PhaseStatus::Interrupted);
    assert!(
        (3..=5).contains(&r.body.scores.len()),
        "{:?}",
        r.body.scores
    );
    assert!(ThermalBody::summary(r.view()).contains("INCOMPLETE"));
}
