//! Import clusters (issue 11 item 9) on real boards' logs of the repo's corpus: when the
//! cpufreq policies say nothing about clusters (one policy for every CPU, or one per CPU) the
//! log's cluster column and core types group the CPUs; a mixed group gets no core type, and a
//! label such as "Efficiency" is no core type. Checked as patterns over every log, and on
//! examples that have them.

use truebench_fixtures::sbc_bench as common;
use truebench_sbcbench::convert::to_run_result;
use truebench_sbcbench::parse;

/// (cluster CPUs, core type) of a converted log.
fn clusters(name: &str, text: &str) -> Vec<(Vec<u32>, Option<String>)> {
    let r = to_run_result(&parse(text), name);
    r.envelope
        .inventory
        .clusters
        .iter()
        .map(|c| (c.cpus.clone(), c.core_type.clone()))
        .collect()
}

#[test]
fn uninformative_policies_give_way_to_the_cluster_column_and_core_types() {
    let logs = common::logs();
    let get = |n: &str| {
        let (name, text) = logs.iter().find(|(name, _)| name.ends_with(n)).unwrap();
        clusters(name, text)
    };
    // Intel Meteor Lake, one policy per CPU: P and E cores apart.
    let x = get("XRRi.txt");
    assert!(x.len() >= 2, "{x:?}");
    assert!(
        x.iter().any(|c| c.1.as_deref() == Some("Redwood Cove")),
        "{x:?}"
    );
    assert!(
        x.iter().any(|c| c.1.as_deref() == Some("Crestmont")),
        "{x:?}"
    );
    // One policy per CPU, X925 and A725 cores.
    let f = get("fcm1253.txt");
    assert_eq!(f.len(), 2, "{f:?}");
    // "Efficiency"/"Performance" are labels, not core types.
    let e = get("4E5J.txt");
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(e.iter().all(|c| c.1.is_none()), "{e:?}");
    // One policy for all eight A53: the cluster column makes two clusters of four.
    let g = get("3GmP.txt");
    assert_eq!(g.len(), 2, "{g:?}");
    assert!(g.iter().all(|c| c.0.len() == 4), "{g:?}");

    // Over every log: no cluster's core type is a label, and every CPU is in one cluster.
    for (name, text) in &logs {
        let cs = clusters(name, text);
        for (_, t) in &cs {
            if let Some(t) = t {
                let l = t.to_ascii_lowercase();
                assert!(
                    !["little", "big", "efficiency", "performance"].contains(&l.as_str())
                        && !l.ends_with(" core")
                        && !l.ends_with(" cores"),
                    "{name}: core type {t:?}"
                );
            }
        }
        let mut all: Vec<u32> = cs.iter().flat_map(|c| c.0.clone()).collect();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "{name}: a CPU in two clusters: {cs:?}");
    }
}
