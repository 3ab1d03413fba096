//! `--max-khz` (sbc-bench's MaxKHz) on a driver without a frequency table: the i7-1165G7
//! laptop of util-linux's Linux 6.2 dump under intel_pstate (eight policies, no
//! scaling_available_frequencies). The cap goes to every policy's scaling_max_freq through
//! the Session's journaled Tuning and comes back at the end — or, after a kill, at the next
//! start.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use truebench_host::{Host, Inventory};
use truebench_model::finding::FindingKind;
use truebench_suites::session::{tune_for_performance, Finish, Outcome, Session};

use crate::session::{body, opts};

const NAME: &str = "x86_64-64cpu-linux6.2";
const SKIP: &[&str] = &["var/lib/truebench", "dev/kmsg"];

fn max_freqs(host: &Host) -> Vec<Option<u64>> {
    (0..8)
        .map(|n| {
            host.read_u64(format!(
                "sys/devices/system/cpu/cpufreq/policy{n}/scaling_max_freq"
            ))
        })
        .collect()
}

/// A started, tuned Session with MaxKHz 2.0 GHz applied; None when this user cannot tune.
fn capped<'a>(host: &'a Host, inv: &'a Inventory) -> Option<Session<'a>> {
    let mut s = Session::start(host, inv, &opts(), Arc::new(AtomicBool::new(false))).unwrap();
    s.begin_tuning(true, None).unwrap();
    if !s.tuned() {
        return None;
    }
    assert!(
        inv.clusters.iter().all(|c| c.opps_khz.is_empty()),
        "no frequency table"
    );
    tune_for_performance(&mut s, host, inv, Some(2_000_000), None);
    Some(s)
}

#[test]
fn max_khz_caps_every_policy_and_is_restored() {
    let d = truebench_fixtures::sysfs_dump(NAME);
    let root = d.path().join(NAME);
    let before = truebench_fixtures::tree_bytes(&root, SKIP);
    let host = Host::new(&root);
    let inv = Inventory::probe(&host);
    assert_eq!(max_freqs(&host), vec![Some(4_700_000); 8]);
    let Some(mut s) = capped(&host, &inv) else {
        truebench_fixtures::skip!("this user cannot write the fixture root's journal");
    };
    assert_eq!(
        max_freqs(&host),
        vec![Some(2_000_000); 8],
        "MaxKHz itself: no OPP to round to"
    );
    s.phase("capped", "a phase under the cap", Some(1), vec![0], |_| {
        std::thread::sleep(Duration::from_millis(120));
        Outcome::default()
    });
    let doc = s.finish(body(), Finish { comparable: true });
    let env = &doc.envelope;
    let capped: Vec<&str> = env
        .tuning
        .changes
        .iter()
        .map(|c| c.path.as_str())
        .filter(|p| p.ends_with("scaling_max_freq"))
        .collect();
    assert_eq!(capped.len(), 8, "{:#?}", env.tuning.changes);
    assert_eq!(max_freqs(&host), vec![Some(4_700_000); 8], "restored");
    assert_eq!(truebench_fixtures::tree_bytes(&root, SKIP), before);
    // The laptop's balance_power preference held while measuring (a fixture's files do not
    // follow the performance governor as the kernel's do): a finding of the run.
    assert!(
        env.findings
            .iter()
            .any(|f| f.kind == FindingKind::PerfLimit),
        "{:#?}",
        env.findings
    );
}

#[test]
fn a_killed_run_with_max_khz_is_restored_at_the_next_start() {
    let d = truebench_fixtures::sysfs_dump(NAME);
    let root = d.path().join(NAME);
    let before = truebench_fixtures::tree_bytes(&root, SKIP);
    let host = Host::new(&root);
    let inv = Inventory::probe(&host);
    let Some(mut s) = capped(&host, &inv) else {
        truebench_fixtures::skip!("this user cannot write the fixture root's journal");
    };
    let t = s.take_tuning().expect("tuned");
    truebench_tuning::testing::kill(t);
    std::mem::forget(s);
    assert_eq!(
        max_freqs(&host),
        vec![Some(2_000_000); 8],
        "a kill restores nothing"
    );
    let r = truebench_tuning::recover(&host)
        .unwrap()
        .expect("a stale journal");
    assert!(r.failed.is_empty(), "{r:?}");
    assert_eq!(max_freqs(&host), vec![Some(4_700_000); 8]);
    assert_eq!(truebench_fixtures::tree_bytes(&root, SKIP), before);
}
