//! The external power meter with real commands and files: one-shot commands re-run, a
//! streaming logger read line by line and stopped with its whole pipeline, failures named;
//! and the meter as the last power source of a sample.

use std::sync::Arc;
use std::time::{Duration, Instant};

use truebench_host::{Host, Inventory};
use truebench_model::timeline::PowerKind;
use truebench_monitor::reader::SampleReader;
use truebench_suites::meter::{Meter, MeterSpec};

const MS100: Duration = Duration::from_millis(100);

#[test]
fn a_one_shot_command_is_run_again_at_the_interval() {
    let m = Meter::start(MeterSpec::Command("echo '4.25 W'".into()), MS100);
    assert_eq!(m.first_reading(Duration::from_secs(5)), Ok(4.25));
    std::thread::sleep(Duration::from_millis(600));
    assert!(m.readings() >= 3, "{} readings", m.readings());
    assert_eq!(m.name(), "power-cmd: echo '4.25 W'");
}

#[test]
fn a_streaming_logger_is_read_as_it_goes_and_stopped_with_its_pipeline() {
    // A logger piped through a filter: dropping the meter must stop both.
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let cmd = format!(
        "sh -c 'echo $$ > {}; i=0; while true; do i=$((i+1)); echo \"$i.5 W\"; sleep 0.05; done' | cat",
        pidfile.display()
    );
    let m = Meter::start(MeterSpec::Command(cmd), Duration::from_secs(1));
    m.first_reading(Duration::from_secs(5)).unwrap();
    std::thread::sleep(Duration::from_millis(400));
    let n = m.readings();
    assert!(n >= 4, "{n} readings from a stream of 20 per second");
    let w = m.latest().unwrap();
    assert!(w >= 2.5, "the latest line, not the first: {w}");
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let t0 = Instant::now();
    drop(m);
    assert!(t0.elapsed() < Duration::from_secs(2), "stopping waited");
    // The subshell of the pipeline is gone too (killed with its process group).
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|s| s.contains(") Z ")),
        "the logger {pid} outlived the meter"
    );
}

#[test]
fn failures_say_why() {
    let m = Meter::start(
        MeterSpec::Command("echo 'meter offline' >&2; exit 3".into()),
        MS100,
    );
    let e = m.first_reading(Duration::from_millis(800)).unwrap_err();
    assert!(
        e.contains("exit status: 3") && e.contains("meter offline"),
        "{e}"
    );
    let m = Meter::start(MeterSpec::Command("echo no watts here".into()), MS100);
    let e = m.first_reading(Duration::from_millis(800)).unwrap_err();
    assert!(e.contains("printed no number of watts"), "{e}");
    let m = Meter::start(MeterSpec::File("/nonexistent/meter".into()), MS100);
    let e = m.first_reading(Duration::from_millis(500)).unwrap_err();
    assert!(e.starts_with("/nonexistent/meter: "), "{e}");
}

#[test]
fn a_file_is_re_read_and_stale_readings_expire() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("watts");
    std::fs::write(&f, "t=1 2.0 W\nt=2 3.5 W\n").unwrap();
    let m = Meter::start(MeterSpec::File(f.clone()), MS100);
    assert_eq!(m.first_reading(Duration::from_secs(2)), Ok(3.5));
    std::fs::write(&f, "7000 mW\n").unwrap();
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(m.latest(), Some(7.0));
    // The logger stops writing numbers: after three intervals there is no reading.
    std::fs::write(&f, "logger stopped\n").unwrap();
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(m.latest(), None);
    assert!(m.error().unwrap().contains("no number of watts"));
}

#[test]
fn the_meter_is_the_last_power_source_of_each_sample() {
    let host = Host::live();
    let inv = Inventory::probe(&host);
    let mut r = SampleReader::new(&host, &inv, MS100);
    let before = r.extra_header().power.len();
    let m = Arc::new(Meter::start(MeterSpec::Command("echo 9.5".into()), MS100));
    m.first_reading(Duration::from_secs(5)).unwrap();
    r.set_meter(m);
    let h = &r.extra_header().power;
    assert_eq!(h.len(), before + 1);
    assert_eq!(h[before].kind, PowerKind::External);
    assert_eq!(h[before].name, "power-cmd: echo 9.5");
    std::thread::sleep(MS100);
    let _ = r.sample();
    assert_eq!(r.extra().power_w.len(), before + 1);
    assert_eq!(r.extra().power_w[before], Some(9.5));
}

/// A constant 5 W meter read every 250 ms while the sampler samples every 5 s: every phase
/// of two meter intervals or more gets 5 W × its duration within 2 %, from the meter's own
/// readings (the sampler takes none during these phases).
#[test]
fn every_phase_gets_the_meters_energy_over_its_whole_duration() {
    use truebench_monitor::sampler::{Sampler, SamplerConfig};
    let host = Host::live();
    let inv = Inventory::probe(&host);
    let m = Arc::new(Meter::start(
        MeterSpec::Command("echo 5.0".into()),
        Duration::from_millis(250),
    ));
    m.first_reading(Duration::from_secs(5)).unwrap();
    let sampler = Sampler::start(
        &host,
        &inv,
        SamplerConfig {
            interval: Duration::from_secs(5),
            nice: false,
            meter: Some(m),
            ..Default::default()
        },
        None,
    );
    for (name, ms) in [("a", 500), ("b", 800), ("c", 600)] {
        sampler.mark_phase(name, Some(1));
        std::thread::sleep(Duration::from_millis(ms));
    }
    let tl = sampler.stop();
    assert!(tl.samples.len() <= 1, "{} samples", tl.samples.len());
    let j = tl.extra_header.power.len() - 1;
    for (i, p) in tl.phases.iter().enumerate() {
        let dur = p.end.unwrap() - p.start;
        let e = tl
            .energy_of(i)
            .and_then(|e| e.sources.iter().find(|s| s.source == "power-cmd: echo 5.0"))
            .unwrap_or_else(|| panic!("no meter energy in {}: {:?}", p.name, tl.energy));
        assert!(
            (e.joules - 5.0 * dur).abs() <= 0.02 * 5.0 * dur,
            "{}: {} J over {dur:.3} s; readings {:?}",
            p.name,
            e.joules,
            tl.power_readings[j].t
        );
    }
}
