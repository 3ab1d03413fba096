//! Every parser of what the machine (or a recorded tree, or a broken driver) hands truebench,
//! fed the real files of the corpus mutated the way hostile input looks: none may panic, loop
//! or return garbage where it should say "unknown". Inputs per parser: `PROPTEST_CASES`
//! (default `truebench_fixtures::fuzz::CASES`); failures are kept in `proptest-regressions/`.

use proptest::prelude::*;
use truebench_fixtures::fuzz::{config, mutated, mutated_text, seeds};
use truebench_host::parse;

fn text(suffixes: &[&str]) -> impl Strategy<Value = String> {
    mutated_text(seeds(suffixes))
}

fn bytes(suffixes: &[&str]) -> impl Strategy<Value = Vec<u8>> {
    mutated(seeds(suffixes))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn cpuinfo(t in text(&["proc/cpuinfo"])) {
        let c = parse::cpuinfo::parse(&t);
        let _ = parse::cpuinfo::not_cpuinfo(&t);
        // Whatever it found is bounded by what it was given.
        prop_assert!(c.processors.len() <= t.len());
    }

    #[test]
    fn stat(t in text(&["proc/stat"])) {
        let _ = parse::stat::parse(&t);
    }

    #[test]
    fn meminfo(t in text(&["proc/meminfo"])) {
        for v in parse::meminfo::parse(&t).values() {
            // kB values that do not fit are left out, not wrapped.
            prop_assert!(*v < u64::MAX);
        }
    }

    #[test]
    fn diskstats(t in text(&["proc/diskstats"])) {
        let _ = parse::diskstats::parse(&t);
        parse::diskstats::for_each(t.as_bytes(), |_, _, _, _| {});
    }

    #[test]
    fn netdev(t in text(&["proc/net/dev"])) {
        let _ = parse::netdev::parse(&t);
    }

    #[test]
    fn softirqs(t in text(&["proc/softirqs"])) {
        let _ = parse::softirqs::parse(&t);
        let mut row = vec![None; 8];
        let _ = parse::softirqs::fill_row(t.as_bytes(), b"NET_RX", &mut row);
        // One pass for several rows reads each as the one-row parse does.
        // Names repeated, with a colon in them, empty: read as the one-row parse reads them.
        let names: [&[u8]; 5] = [b"NET_RX", b"BLOCK", b"NET_RX", b"NET_RX:", b""];
        let mut rows = vec![vec![None; 8]; names.len()];
        parse::softirqs::fill_rows(t.as_bytes(), &names, &mut rows);
        for (name, got) in names.iter().zip(&rows) {
            parse::softirqs::fill_row(t.as_bytes(), name, &mut row);
            prop_assert_eq!(got, &row);
        }
    }

    #[test]
    fn pressure(b in bytes(&["pressure/cpu", "pressure/memory", "pressure/io"])) {
        let p = parse::pressure::parse(&b);
        // The sampler's totals agree with the whole parse wherever it reads a line.
        let (some, full) = parse::pressure::totals(&b);
        if let Some(l) = p.some {
            prop_assert_eq!(some, Some(l.total_us));
        }
        if let Some(l) = p.full {
            prop_assert_eq!(full, Some(l.total_us));
        }
    }

    #[test]
    fn swaps(t in text(&["proc/swaps"])) {
        let _ = parse::swaps::parse(&t);
    }

    #[test]
    fn loadavg(t in text(&["proc/loadavg"])) {
        if let Some(l) = parse::loadavg(&t) {
            prop_assert!(l.iter().all(|x| x.is_finite()), "{l:?}");
        }
    }

    #[test]
    fn os_release(t in text(&["os-release"])) {
        let _ = parse::os_release::parse(&t);
    }

    #[test]
    fn interrupts(t in text(&["proc/interrupts"])) {
        let _ = truebench_host::irq::irq_counts(&t, &["eth0", "mmc0", "nvme0q1"]);
    }

    #[test]
    fn sysfs_values(t in text(&[
        "cpulist", "online", "possible", "present", "scaling_available_frequencies",
        "time_in_state", "scaling_cur_freq", "cpuinfo_max_freq", "temp", "size",
    ])) {
        let cpus = parse::cpulist::parse(&t);
        prop_assert!(cpus.len() <= 1 << 16, "{}", cpus.len());
        let _ = parse::cpufreq::freq_list_khz(&t);
        let _ = parse::cpufreq::time_in_state(&t);
        let _ = truebench_host::devices::parse_cache_size(&t);
        let _ = parse::bracketed_choice(&t);
        let _ = parse::bytes::u64_of(t.trim().as_bytes());
        let _ = parse::bytes::i64_of(t.trim().as_bytes());
        if let Some(f) = parse::bytes::f64_of(t.trim().as_bytes()) {
            prop_assert!(f.is_finite(), "{f}");
        }
    }

    #[test]
    fn kernel_version_and_config(t in text(&["proc/version", "osrelease", "config.txt", "config-5.15.25-flippy-70+"])) {
        let _ = truebench_host::kernel::config::parse_config(&t);
        let _ = truebench_host::kernel::KernelVersion::parse(t.trim());
        let _ = truebench_host::kernel::version::parse_build_line(&t);
        let _ = truebench_host::kernel::version::parse_version_signature(&t);
    }
}
