//! What the SQLite and the PostgreSQL history must both do.

use std::path::Path;

use truebench_fixtures::sbc_bench as common;
use truebench_model::{RunBody, RunResult};
use truebench_sbcbench::convert::to_run_result;
use truebench_sbcbench::parse;
use truebench_store::{Filter, Store};

pub fn sample_result() -> RunResult {
    let logs = common::logs();
    let (name, text) = logs.iter().find(|(n, _)| n == "4qJG.txt").unwrap();
    to_run_result(&parse(text), name)
}

/// A distinct document per (writer, n): the digest differs, so nothing is deduplicated.
pub fn variant(base: &RunResult, writer: &str, n: u64) -> RunResult {
    let mut r = base.clone();
    r.envelope.hostname = Some(format!("{writer}-{n}"));
    r.envelope.started.unix_ms += n as i64;
    r
}

/// Every stored row reads back as a whole document whose indexed columns match it.
pub fn check_rows(s: &Store) -> usize {
    assert_eq!(s.integrity_check().unwrap(), "ok");
    let rows = s.list(&Filter::default()).unwrap();
    for e in &rows {
        let r = s
            .get_typed::<RunBody>(e.id)
            .unwrap()
            .unwrap_or_else(|| panic!("row {} listed but not readable", e.id));
        assert_eq!(
            r.envelope.started.unix_ms, e.started_unix_ms,
            "row {}",
            e.id
        );
        assert_eq!(r.envelope.inventory.device, e.device);
        assert_eq!(r.envelope.hostname, e.hostname);
        assert_eq!(truebench_store::compare::metrics(r.view()), e.run_metrics());
        assert_eq!(e.kind, "run");
    }
    rows.len()
}

/// Store, deduplicate, read back and filter; reopen.
pub fn round_trip(db: &Path) {
    let base = sample_result();
    let mut s = Store::open(db).unwrap();
    let a = s.insert(&base).unwrap();
    assert!(a.new);
    // The same document again is not duplicated.
    let again = s.insert(&base).unwrap();
    assert_eq!(
        again,
        truebench_store::Inserted {
            id: a.id,
            new: false
        }
    );
    let later = variant(&base, "later", 86_400_000);
    let b = s.insert(&later).unwrap();
    assert!(b.new && b.id != a.id);
    // What comes back is the document as JSON reads it (serde_json's float parsing may
    // differ from the in-memory value in the last bit).
    let via_json = |r: &RunResult| {
        truebench_model::migrate_run(
            serde_json::from_str(&serde_json::to_string(r).unwrap()).unwrap(),
        )
        .unwrap()
    };
    assert_eq!(
        s.get_typed::<RunBody>(a.id).unwrap().unwrap(),
        via_json(&base)
    );
    assert_eq!(
        s.get_typed::<RunBody>(b.id).unwrap().unwrap(),
        via_json(&later)
    );
    assert!(s.get(9999).unwrap().is_none());
    let all = s.list(&Filter::default()).unwrap();
    assert_eq!(all.len(), 2);
    // `keys` lists the same ids in the same order, each with its document's digest.
    let keys = s.keys(&Filter::default()).unwrap();
    let ids: Vec<i64> = all.iter().map(|e| e.id).collect();
    assert_eq!(keys.iter().map(|k| k.0).collect::<Vec<_>>(), ids);
    assert!(
        keys[0].1 != keys[1].1 && keys.iter().all(|k| k.1.len() == 64),
        "{keys:?}"
    );
    let e = &all[0];
    assert_eq!(e.source, "sbc-bench");
    assert_eq!(e.source_name.as_deref(), Some("4qJG.txt"));
    // The log's device tree names the chip (sbc-bench guessed "RK3588/RK3588s" from the cores).
    assert_eq!(e.soc.as_deref(), Some("Rockchip RK3588"));
    assert_eq!(e.run_metrics().sevenzip_single, Some(2989));
    assert_eq!(e.run_metrics().sevenzip_version.as_deref(), Some("16.02"));
    assert_eq!(e.run_metrics().openssl_version.as_deref(), Some("3.0.7"));
    assert!(!e.valid);
    // Filters: device/SoC substring, case-insensitive; since.
    let f = |device: Option<&str>, since: Option<i64>| {
        s.list(&Filter {
            device: device.map(String::from),
            since_unix_ms: since,
            ..Default::default()
        })
        .unwrap()
        .len()
    };
    assert_eq!(f(Some("rock 5"), None), 2);
    assert_eq!(f(Some("rk3588"), None), 2);
    assert_eq!(f(Some("raspberry"), None), 0);
    assert_eq!(f(None, Some(base.envelope.started.unix_ms + 1)), 1);
    drop(s);
    // Reopening keeps everything.
    let s = Store::open(db).unwrap();
    assert_eq!(check_rows(&s), 2);
}

/// Every kind goes into the same table and comes back by kind.
pub fn every_kind(db: &Path) {
    use truebench_model::clocks::{ClockPoint, ClusterClocks, WalkMode};
    use truebench_model::{ClocksBody, Document, MonitorBody, Typed};
    let mut s = Store::open(db).unwrap();
    let run = sample_result();
    let clocks = Typed {
        envelope: run.envelope.clone(),
        body: ClocksBody {
            max_khz: None,
            min_khz: None,
            walked: true,
            clusters: vec![ClusterClocks {
                id: 0,
                cpus: vec![0, 1, 2, 3],
                cpu_range: "cpu0-cpu3".into(),
                core_type: Some("Cortex-A55".into()),
                driver: Some("cpufreq-dt".into()),
                measured_cpu: Some(0),
                mode: WalkMode::OppWalk,
                enforced: Some(true),
                points: vec![ClockPoint::at_opp(1800, vec![1795.5], 100.0)],
                notes: vec![],
                turbo: None,
            }],
            all_cores: None,
        },
    };
    let monitor = Typed {
        envelope: run.envelope.clone(),
        body: MonitorBody {
            command: vec!["sleep".into(), "3".into()],
            exit_code: Some(0),
            signal: None,
            error: None,
            start_failure: None,
            duration_s: 3.01,
            interval_s: 1.0,
            threads: None,
            clusters: Vec::new(),
            score_ratio: None,
        },
    };
    let r = s.insert(&run).unwrap();
    let c = s.insert(&clocks).unwrap();
    let m = s.insert(&monitor).unwrap();
    assert!(r.new && c.new && m.new);
    assert_eq!(s.count().unwrap(), 3);
    let only = |kind: &str| {
        s.list(&Filter {
            kind: Some(kind.into()),
            ..Default::default()
        })
        .unwrap()
    };
    let cl = only("clocks");
    assert_eq!(cl.len(), 1);
    assert_eq!(cl[0].id, c.id);
    assert_eq!(cl[0].mode, "OPP walk");
    assert_eq!(cl[0].metrics["cluster0_measured_mhz"], 1795.5);
    assert_eq!(cl[0].metrics["cluster0_opp_mhz"], 1800);
    let mo = only("monitor");
    assert_eq!(mo[0].mode, "sleep 3");
    assert_eq!(mo[0].metrics["exit_code"], 0);
    assert_eq!(only("run").len(), 1);
    let back: Document = s.get(c.id).unwrap().unwrap();
    assert_eq!(back.kind(), "clocks");
    assert!(s
        .get_typed::<RunBody>(m.id)
        .unwrap_err()
        .to_string()
        .contains("a monitor result, not a run result"));
    assert_eq!(
        s.get_typed::<MonitorBody>(m.id).unwrap().unwrap().body,
        monitor.body
    );
}
