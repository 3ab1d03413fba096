//! The energy block, HTML section and figures every kind shares, on a real quick run of this
//! project's VM (no power source) and the same run given a power report.

use std::path::Path;

use truebench_model::timeline::{EnergyReport, PhaseEnergyRow, PowerKind};
use truebench_model::{migrate_run, RunResult};

fn quick_run() -> RunResult {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../model/tests/data/v1/quick-run-x86-vm.json"),
    )
    .unwrap();
    migrate_run(serde_json::from_str(&text).unwrap()).unwrap()
}

fn row(phase: &str, index: usize, w: f64) -> PhaseEnergyRow {
    PhaseEnergyRow {
        phase: phase.into(),
        index,
        joules: w * 10.0,
        mean_watts: w,
        seconds: 10.0,
        above_idle_watts: Some(w - 2.0),
        above_idle_joules: Some((w - 2.0) * 10.0),
        per_watt: Vec::new(),
    }
}

fn report(phases: Vec<PhaseEnergyRow>) -> EnergyReport {
    EnergyReport {
        source: "ina226 power1".into(),
        kind: PowerKind::HwmonPower,
        parts: vec!["ina226 power1".into()],
        covers: "the rail the hwmon sensor measures".into(),
        idle_watts: Some(2.0),
        idle_seconds: Some(10.0),
        idle_note: None,
        phases,
        others: vec!["intel-rapl:0 package-0".into()],
    }
}

#[test]
fn without_a_source_every_output_says_energy_was_not_measured() {
    let r = quick_run();
    assert!(r.envelope.energy.is_none());
    let t = truebench_render::energy::text(&r.envelope);
    assert!(t.starts_with("\nEnergy: not measured ("), "{t}");
    assert!(t.contains("--power-cmd"), "{t}");
    let h = truebench_render::energy::html(&r.envelope);
    assert!(
        h.contains("<h2>Energy</h2>") && h.contains("Not measured"),
        "{h}"
    );
    assert!(truebench_figures::energy::metrics(&r.envelope).is_empty());
}

#[test]
fn a_report_is_shown_with_idle_above_idle_per_watt_and_its_figures() {
    let mut r = quick_run();
    let mut e = report(vec![row("compression-multi", 5, 6.0), row("aes", 3, 3.0)]);
    e.add_per_watt("compression-multi", "7-zip, all cores", 4000.0, "MIPS");
    r.envelope.energy = Some(e);
    let t = truebench_render::energy::text(&r.envelope);
    assert!(t.contains("Energy from ina226 power1 — the rail"), "{t}");
    assert!(
        t.contains("idle: 2.00 W (mean over the last 10 s of the idle phase)"),
        "{t}"
    );
    assert!(t.contains("+4.00 W"), "{t}");
    // 4000 MIPS / 6 W and / 4 W above idle.
    assert!(
        t.contains("7-zip, all cores: 667 MIPS/W, 1000 above idle"),
        "{t}"
    );
    assert!(t.contains("other power sources"), "{t}");
    let summary = truebench_render::summary(r.view());
    assert!(summary.contains("Energy from ina226 power1"), "{summary}");
    let page = truebench_render::kinds::html_page(&r.clone().into_document());
    assert!(page.contains("667 MIPS/W"), "the report's Energy section");
    let m = truebench_figures::energy::metrics(&r.envelope);
    let keys: Vec<&str> = m.iter().map(|m| m.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "energy_idle_w",
            "energy_compression_multi_w",
            "energy_compression_multi_j",
            "energy_compression_multi_mips_per_w",
            "energy_aes_w",
            "energy_aes_j"
        ]
    );
}

#[test]
fn many_phases_keep_only_those_with_a_figure_per_watt() {
    let mut r = quick_run();
    let mut phases: Vec<PhaseEnergyRow> = (0..40)
        .map(|i| row(&format!("c0-{}mhz-run1", 400 + i * 100), i, 3.0))
        .collect();
    phases.push(row("load", 40, 5.0));
    let mut e = report(phases);
    e.add_per_watt("load", "stress", 30.0, "GFLOP/s");
    r.envelope.energy = Some(e);
    let m = truebench_figures::energy::metrics(&r.envelope);
    let keys: Vec<&str> = m.iter().map(|m| m.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "energy_idle_w",
            "energy_load_w",
            "energy_load_j",
            "energy_load_gflop_per_j"
        ]
    );
}
