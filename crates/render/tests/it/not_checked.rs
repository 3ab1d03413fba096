//! What could not be checked is said in the summary, the HTML verdicts and the monitor
//! summary, never hidden behind "No problem found" (issue 10, item 8). The document is a
//! real quick run of this project's VM with its findings replaced.

use std::path::Path;

use truebench_model::finding::{Finding, FindingKind, Severity};
use truebench_model::{migrate_run, RunResult};

fn quick_run() -> RunResult {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../model/tests/data/v1/quick-run-x86-vm.json"),
    )
    .unwrap();
    migrate_run(serde_json::from_str(&text).unwrap()).unwrap()
}

const NO_SENSOR: &str = "No temperature sensor: throttling by heat was not checked.";

#[test]
fn summary_and_report_list_what_was_not_checked() {
    let mut r = quick_run();
    r.envelope.findings = vec![Finding::new(
        FindingKind::NotChecked,
        Severity::Info,
        NO_SENSOR,
    )];
    let s = truebench_render::summary(r.view());
    assert!(!s.contains("No problem found: no throttling"), "{s}");
    assert!(
        s.contains("No problem found in what could be checked"),
        "{s}"
    );
    assert!(s.contains(&format!("Not checked: {NO_SENSOR}")), "{s}");
    let html = truebench_render::report::html(r.view());
    assert!(!html.contains("No problem found: no throttling"));
    assert!(html.contains(NO_SENSOR));

    // Checked and clean keeps the plain sentence.
    r.envelope.findings.clear();
    let s = truebench_render::summary(r.view());
    assert!(s.contains("No problem found: no throttling"), "{s}");
    assert!(!s.contains("Not checked"), "{s}");
}
