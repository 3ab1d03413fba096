//! Odd files in a recorded tree (`--root`): a FIFO, a socket, a device node or a link to one,
//! and a huge file, planted where the Host reads. Each read says what the file is and names
//! it, or — for the huge one — stops at the limit; what is built from them (inventory,
//! review) says "unknown" for that value, and nothing waits or reads without end.

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use truebench_fixtures::odd::{self, Odd};
use truebench_host::host::KMSG_DEVICE;
use truebench_host::{review, Host, Inventory};

const POLICY0: &str = "sys/devices/system/cpu/cpufreq/policy0";

/// `f()` within `secs`, or the test fails naming `what` (instead of hanging the suite).
fn within<T: Send + 'static>(secs: u64, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .unwrap_or_else(|_| panic!("{what}: no answer within {secs} s"))
}

fn tree() -> tempfile::TempDir {
    truebench_fixtures::root("rk3588-rock5b")
}

#[test]
fn every_read_of_an_odd_file_says_what_it_is_or_stops_at_the_limit() {
    for rel in [
        "proc/cpuinfo",
        "proc/stat",
        &format!("{POLICY0}/scaling_governor"),
        &format!("{POLICY0}/scaling_max_freq"),
    ] {
        for kind in odd::kinds() {
            let d = tree();
            odd::plant(&d.path().join(rel), kind);
            let host = Host::new(d.path());
            let what = format!("{kind:?} at {rel}");
            let (r, open, trimmed, took) = within(20, &what, {
                let (host, rel) = (host.clone(), rel.to_string());
                move || {
                    let t0 = Instant::now();
                    let r = host.read_bytes(&rel);
                    let open = host.open(&rel).map(drop);
                    let trimmed = host.read_trimmed(&rel);
                    (r, open, trimmed, t0.elapsed())
                }
            });
            assert!(took < Duration::from_secs(10), "{what}: {took:?}");
            assert_eq!(trimmed, None, "{what}");
            if kind == Odd::Huge {
                // Refused unread, by its size.
                let e = r.expect_err(&what).to_string();
                assert!(e.contains("is 1 GiB, larger than the 4 MiB"), "{what}: {e}");
                open.unwrap();
                continue;
            }
            let e = r.expect_err(&what);
            let msg = e.to_string();
            assert!(
                msg.contains(&d.path().join(rel).display().to_string())
                    && msg.contains(&format!("is {}, not a regular file", kind.said())),
                "{what}: {msg}"
            );
            assert!(!e.is_not_found(), "{what}");
            let e = open.expect_err(&what).to_string();
            assert!(e.contains(kind.said()), "{what}: {e}");
        }
    }
}

#[test]
fn an_odd_settings_file_is_unknown_in_the_inventory_and_the_review() {
    let clean = tree();
    let host = Host::new(clean.path());
    let inv = Inventory::probe(&host);
    let little = inv
        .clusters
        .iter()
        .find(|c| c.policies.contains(&0))
        .unwrap();
    assert!(little.governor.is_some());
    let governor = |host: &Host, inv: &Inventory| {
        review::review(host, inv)
            .into_iter()
            .find(|s| s.source.ends_with("policy0/scaling_governor"))
    };
    assert_eq!(governor(&host, &inv).unwrap().value, "ondemand");

    for kind in odd::kinds() {
        let d = tree();
        odd::plant(&d.path().join(format!("{POLICY0}/scaling_governor")), kind);
        odd::plant(&d.path().join("proc/cpuinfo"), kind);
        let host = Host::new(d.path());
        let what = format!("{kind:?}");
        let (inv, seen) = within(60, &what, move || {
            let inv = Inventory::probe(&host);
            let seen = governor(&host, &inv);
            (inv, seen)
        });
        let little = inv.clusters.iter().find(|c| c.policies.contains(&0));
        let little = little.unwrap_or_else(|| panic!("{what}: {:#?}", inv.clusters));
        assert_eq!(little.governor, None, "{what}");
        // The other files of the policy are still read.
        assert!(little.max_mhz.is_some(), "{what}");
        // Said to be unknown, with why — not left out as if there were nothing to check.
        let seen = seen.unwrap_or_else(|| panic!("{what}: the governor is not in the review"));
        assert_eq!(seen.value, "unknown", "{what}");
        let why = seen.why.unwrap_or_default();
        let said = match kind {
            Odd::Huge => "is 1 GiB, larger than".to_string(),
            _ => format!("is {}, not a regular file", kind.said()),
        };
        assert!(
            why.contains(&said) && why.contains("policy0/scaling_governor"),
            "{what}: {why}"
        );
    }
}

#[test]
fn the_kernel_log_device_must_be_the_kernel_log() {
    let d = tree();
    let p = d.path().join("dev/kmsg");
    let host = Host::new(d.path());
    for kind in odd::kinds() {
        odd::plant(&p, kind);
        let r = host.open_device("dev/kmsg", KMSG_DEVICE);
        if kind == Odd::Huge {
            // A recorded tree's kernel log is a regular file.
            r.unwrap();
            continue;
        }
        // /dev/zero is a memory device (1:5) as /dev/kmsg is (1:11): refused all the same.
        let e = r.expect_err(&format!("{kind:?}")).to_string();
        assert!(
            e.contains(kind.said()) && e.contains("dev/kmsg"),
            "{kind:?}: {e}"
        );
    }
    // The real one where there is one.
    if Path::new("/dev/kmsg").exists() {
        let live = Host::live().open_device("dev/kmsg", KMSG_DEVICE);
        assert!(
            !matches!(&live, Err(e) if e.source.kind() == std::io::ErrorKind::InvalidInput),
            "{live:?}"
        );
    }
}
