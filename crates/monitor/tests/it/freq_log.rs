//! The fast frequency log on a recorded root whose `scaling_cur_freq` files change.

use std::time::{Duration, Instant};
use truebench_host::{Host, Inventory};
use truebench_monitor::freq::{FreqReader, FreqSampler};
use truebench_monitor::sampler::{Sampler, SamplerConfig};

use crate::common;
use common::write;

/// A Rockchip RK3399 board: policy0 = cpu0-3 (Cortex-A53), policy4 = cpu4-5 (Cortex-A72).
fn rk3399(root: &std::path::Path) {
    let c = "sys/devices/system/cpu";
    write(root, &format!("{c}/present"), "0-5\n");
    write(root, &format!("{c}/online"), "0-5\n");
    for (p, cpus, cur) in [
        ("policy0", "0 1 2 3", "1416000"),
        ("policy4", "4 5", "1800000"),
    ] {
        write(
            root,
            &format!("{c}/cpufreq/{p}/related_cpus"),
            &format!("{cpus}\n"),
        );
        write(
            root,
            &format!("{c}/cpufreq/{p}/scaling_cur_freq"),
            &format!("{cur}\n"),
        );
        write(
            root,
            &format!("{c}/cpufreq/{p}/cpuinfo_max_freq"),
            &format!("{cur}\n"),
        );
        write(
            root,
            &format!("{c}/cpufreq/{p}/scaling_driver"),
            "cpufreq-dt\n",
        );
    }
    write(root, "proc/stat", "cpu  100 0 50 1000 0 0 0 0 0 0\n");
}

#[test]
fn policies_logged_at_high_rate_on_the_timeline_clock() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    rk3399(r);
    let host = Host::new(r);
    let inv = Inventory::probe(&host);
    let mut reader = FreqReader::new(&host, &inv);
    assert_eq!(reader.policies(), [0, 4]);
    let mut row = [None; 2];
    reader.read(&mut row);
    assert_eq!(row, [Some(1416000), Some(1800000)]);

    let sampler = Sampler::start(
        &host,
        &inv,
        SamplerConfig {
            interval: Duration::from_secs(1),
            ..Default::default()
        },
        None,
    );
    let started = Instant::now();
    let log = FreqSampler::start(&host, &inv, Duration::from_millis(10), sampler.t0());
    std::thread::sleep(Duration::from_millis(200));
    let switch = sampler.now();
    write(
        r,
        "sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq",
        "408000\n",
    );
    std::thread::sleep(Duration::from_millis(200));
    let log = log.stop();
    let elapsed = started.elapsed().as_secs_f64();
    drop(sampler);

    assert_eq!(log.policies, [0, 4]);
    assert_eq!(log.khz.len(), 2 * log.len());
    // Asked for 100 Hz: at least the 20 Hz a governor log needs, even on a loaded machine.
    let hz = log.len() as f64 / elapsed;
    assert!(hz >= 20.0, "{} rows in {elapsed} s", log.len());
    assert!(log.t.windows(2).all(|w| w[1] > w[0]));
    // Times are on the sampler's clock: the first row is read right after the start.
    assert!(log.t[0] >= 0.0 && log.t[0] < switch);
    let before = log.residency(1, 0.0, switch);
    assert_eq!(
        before.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
        [1800000]
    );
    let after = log.residency(1, switch + 0.05, f64::INFINITY);
    assert_eq!(after.iter().map(|(k, _)| *k).collect::<Vec<_>>(), [408000]);
    let mean = log.mean_khz(0, 0.0, f64::INFINITY).unwrap();
    assert!((mean - 1416000.0).abs() < 1e-6, "{mean}");

    // No cpufreq at all: an empty reader and a log with no columns, not a failure.
    let empty = tempfile::tempdir().unwrap();
    let h = Host::new(empty.path());
    let inv = Inventory::probe(&h);
    let log = FreqSampler::start(&h, &inv, Duration::from_millis(5), Instant::now());
    std::thread::sleep(Duration::from_millis(30));
    let log = log.stop();
    assert!(log.policies.is_empty() && log.khz.is_empty());
}
