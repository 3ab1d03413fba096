//! The deepest idle state of each interactivity cell, and the latency verdict that names it,
//! in the summary: the recorded interactivity document with the states of real machines'
//! dumps (the Core i5 laptop's intel_idle) set as the cells' deepest — its C6 (200 µs) is of
//! the same order as Audio's 205 µs p99, its C3 (20 µs) is not of Audio under Burn's 83 µs.

use truebench_host::{Host, Inventory};
use truebench_model::residency::DeepestIdle;
use truebench_model::Body;

use crate::common::doc;

fn laptop_state(name: &str) -> DeepestIdle {
    let dir = truebench_fixtures::sysfs_dump("x86_64-dell_e4310");
    let inv = Inventory::probe(&Host::new(dir.path().join("x86_64-dell_e4310")));
    let g = &inv.cpuidle.unwrap().groups[0];
    let s = g.states.iter().find(|s| s.name == name).unwrap();
    DeepestIdle {
        state: s.name.clone(),
        exit_latency_us: s.exit_latency_us,
        cpus: vec![0, 2],
    }
}

#[test]
fn a_cell_whose_tail_matches_a_deep_state_names_it() {
    let mut d = doc("interactivity");
    let before = truebench_render::kinds::summary(&d);
    assert!(
        !before.contains("Deepest idle state"),
        "old documents unchanged"
    );
    let Body::Interactivity(b) = &mut d.body else {
        panic!("not interactivity")
    };
    let audio = &mut b.benchmarks[0].cells;
    audio[0].deepest_idle = Some(laptop_state("NHM-C6"));
    audio[1].deepest_idle = Some(laptop_state("NHM-C3"));
    let s = truebench_render::kinds::summary(&d);
    assert!(
        s.contains("Deepest idle state entered: None NHM-C6 (200 µs), Burn NHM-C3 (20 µs)"),
        "{s}"
    );
    assert!(
        s.contains(
            "  None: p99 wake-up latency 205 µs is of the same order as the exit latency of NHM-C6 (200 µs), which cpu0,2 entered"
        ),
        "{s}"
    );
    assert!(!s.contains("  Burn: p99"), "{s}");
}
