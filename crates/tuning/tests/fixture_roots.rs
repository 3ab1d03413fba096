//! The shared fixture roots of real boards (tests/data/roots): every cluster's governor and
//! clock range changed, then restored — by `restore`, and after a simulated SIGKILL by
//! `recover` — leaving every file of the tree byte-identical.

mod common;

use common::{changed, snapshot};
use truebench_host::{Host, Inventory};
use truebench_tuning::{recover, testing, Tuning};

/// Change everything a clocks run changes on every cluster: governor, range pinned to the
/// lowest OPP (or the hardware minimum), then userspace with a set speed where offered.
fn tune_all(host: &Host, t: &mut Tuning) -> usize {
    let mut policies = 0;
    for c in Inventory::probe(host).clusters {
        if c.policies.is_empty() {
            continue;
        }
        policies += Tuning::policy_dirs(host, &c).unwrap().len();
        let low = c
            .opps_khz
            .first()
            .copied()
            .or(c.min_mhz.map(|m| m as u64 * 1000))
            .unwrap_or(800_000);
        t.set_governor(&c, "performance").unwrap();
        t.set_range_khz(&c, low, low).unwrap();
        if c.governors.iter().any(|g| g == "userspace") {
            t.set_governor(&c, "userspace").unwrap();
            t.set_setspeed_khz(&c, low).unwrap();
        }
    }
    policies
}

#[test]
fn every_board_root_comes_back_byte_for_byte() {
    let mut tuned = 0;
    for name in truebench_fixtures::root_names() {
        for killed in [false, true] {
            let d = truebench_fixtures::root(&name);
            let host = Host::new(d.path());
            let before = snapshot(d.path());
            let mut t = Tuning::begin(&host).unwrap();
            let policies = tune_all(&host, &mut t);
            if policies == 0 {
                continue;
            }
            tuned += 1;
            let diff = changed(&before, &snapshot(d.path()));
            assert!(diff.len() >= 3 * policies, "{name}: {diff:?}");
            if killed {
                testing::kill(t);
                let r = recover(&host).unwrap().expect("a stale journal");
                assert!(r.failed.is_empty(), "{name}: {r}");
            } else {
                let r = t.restore().unwrap();
                assert!(r.failed.is_empty(), "{name}: {r}");
            }
            assert_eq!(
                changed(&before, &snapshot(d.path())),
                Vec::<String>::new(),
                "{name} (killed: {killed})"
            );
        }
    }
    assert!(tuned >= 10, "only {tuned} runs on roots with cpufreq");
}
