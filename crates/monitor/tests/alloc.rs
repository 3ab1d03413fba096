//! Allocations per sample: `SampleReader::sample_into` must not allocate once the sample's
//! vectors have their length (a counting global allocator proves it; not a timing test).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use truebench_host::{Host, Inventory};
use truebench_model::timeline::Sample;
use truebench_monitor::reader::{SampleReader, Sources};

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static A: Counting = Counting;

fn allocs_per_sample(host: &Host, sources: Sources) -> (usize, usize) {
    let inv = Inventory::probe(host);
    let mut r = SampleReader::with_sources(host, &inv, Duration::from_millis(100), sources);
    let mut s = Sample::default();
    r.sample_into(&mut s);
    let before = ALLOCS.load(Ordering::Relaxed);
    for _ in 0..50 {
        r.sample_into(&mut s);
    }
    let steady = ALLOCS.load(Ordering::Relaxed) - before;
    let before = ALLOCS.load(Ordering::Relaxed);
    let _owned = r.sample();
    (steady, ALLOCS.load(Ordering::Relaxed) - before)
}

// One test function: the counter is global and tests run in parallel threads.
#[test]
fn steady_state_sampling_does_not_allocate() {
    let (steady, owned) = allocs_per_sample(&Host::live(), Sources::default());
    assert_eq!(
        steady, 0,
        "live machine: {steady} allocations in 50 samples"
    );
    // A fresh Sample allocates its vectors only (cluster, measured, temps, electrical).
    assert!(
        owned <= 4,
        "live machine: {owned} allocations for an owned sample"
    );

    // A board with slow-path files (hwmon, read by the helper thread) and a thermal zone.
    let d = tempfile::tempdir().unwrap();
    let w = |rel: &str, t: &str| {
        let p = d.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    };
    w("sys/devices/system/cpu/present", "0-3\n");
    w("sys/devices/system/cpu/online", "0-3\n");
    w(
        "sys/devices/system/cpu/cpufreq/policy0/related_cpus",
        "0 1 2 3\n",
    );
    w(
        "sys/devices/system/cpu/cpufreq/policy0/cpuinfo_cur_freq",
        "1800000\n",
    );
    w("proc/stat", "cpu  1 0 1 10 0 0 0 0 0 0\n");
    w("proc/loadavg", "0.00 0.00 0.00 1/1 1\n");
    w("proc/meminfo", "SwapTotal: 0 kB\nSwapFree: 0 kB\n");
    w("sys/class/thermal/thermal_zone0/type", "cpu-thermal\n");
    w("sys/class/thermal/thermal_zone0/temp", "40000\n");
    w("sys/class/hwmon/hwmon0/name", "rpi_volt\n");
    w("sys/class/hwmon/hwmon0/in0_input", "5000\n");
    let (steady, _) = allocs_per_sample(&Host::new(d.path()), Sources::default());
    assert_eq!(steady, 0, "board root: {steady} allocations in 50 samples");

    // Every optional source (disks, network, softirqs, pressure) on the live machine.
    let (steady, _) = allocs_per_sample(&Host::live(), Sources::ALL);
    assert_eq!(
        steady, 0,
        "live machine, all sources: {steady} allocations in 50 samples"
    );

    // The Snapdragon phone's dump: 8 CPUs with two idle states each, read every sample.
    let phone = "arm-A510-A710-A715-X3";
    let dir = truebench_fixtures::sysfs_dump(phone);
    let (steady, _) = allocs_per_sample(&Host::new(dir.path().join(phone)), Sources::default());
    assert_eq!(steady, 0, "phone dump: {steady} allocations in 50 samples");
}
