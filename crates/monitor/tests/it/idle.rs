//! Idle states per sample on the Snapdragon phone's dump: the counters grown between two
//! samples come back as that interval's entries and µs per state, summed per group of CPUs
//! with the same states; a machine without cpuidle opens and reads nothing for it.

use std::time::Duration;

use truebench_fixtures::cpuidle::grow_idle;
use truebench_host::{Host, Inventory};
use truebench_monitor::reader::{SampleReader, Sources};

const PHONE: &str = "arm-A510-A710-A715-X3";

#[test]
fn idle_counters_become_interval_deltas_per_group() {
    let dir = truebench_fixtures::sysfs_dump(PHONE);
    let r = dir.path().join(PHONE);
    let host = Host::new(&r);
    let inv = Inventory::probe(&host);
    let mut reader = SampleReader::new(&host, &inv, Duration::from_millis(100));
    let groups: Vec<_> = reader
        .extra_header()
        .idle
        .iter()
        .map(|g| (g.cpus.clone(), g.states.clone(), g.exit_latency_us.clone()))
        .collect();
    assert_eq!(groups.len(), 3);
    assert_eq!(
        groups[1],
        (
            vec![3, 4, 5, 6],
            vec!["WFI".to_string(), "gold-c4".to_string()],
            vec![Some(1), Some(1900)]
        )
    );

    // cpu5 enters gold-c4 3 times for 40 ms, cpu4 WFI 10 times for 5 ms; cpu6 too, 1 + 2.
    grow_idle(&r, 5, 1, 3, 40_000);
    grow_idle(&r, 4, 0, 10, 5_000);
    grow_idle(&r, 6, 0, 1, 2);
    let _ = reader.sample();
    let x = reader.extra().idle.clone();
    assert_eq!(x.len(), 3);
    assert_eq!(x[1].entries, [Some(11), Some(3)]);
    assert_eq!(x[1].time_us, [Some(5_002), Some(40_000)]);
    assert_eq!(x[0].entries, [Some(0), Some(0)], "nothing on cpu0-2");
    assert_eq!(x[2].time_us, [Some(0), Some(0)]);

    // The next interval starts from there.
    grow_idle(&r, 7, 1, 1, 900);
    let _ = reader.sample();
    let x = &reader.extra().idle;
    assert_eq!(x[1].entries, [Some(0), Some(0)]);
    assert_eq!(x[2].entries, [Some(0), Some(1)]);
    assert_eq!(x[2].time_us, [Some(0), Some(900)]);

    // Asked not to, it reads nothing.
    let mut off = SampleReader::with_sources(
        &host,
        &inv,
        Duration::from_millis(100),
        Sources {
            idle: false,
            ..Default::default()
        },
    );
    let _ = off.sample();
    assert!(off.extra_header().idle.is_empty() && off.extra().idle.is_empty());
}

#[test]
fn no_cpuidle_no_idle_readings() {
    let dir = truebench_fixtures::sysfs_dump("rv64-visionfive2");
    let r = dir.path().join("rv64-visionfive2");
    let host = Host::new(&r);
    let inv = Inventory::probe(&host);
    let mut reader = SampleReader::new(&host, &inv, Duration::from_millis(100));
    let _ = reader.sample();
    assert!(reader.extra_header().idle.is_empty());
    assert!(reader.extra().idle.is_empty());
}
