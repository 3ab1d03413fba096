//! The one way every measuring command ends: with `--quiet` nothing but warnings and errors
//! on stderr (no progress, no "stored" message, no meter reading); on stdout the kind's
//! summary as the shared renderer makes it from the stored document — its headline first —
//! and the external meter's energy per phase in that document,
//! and an exit code from the one table (`monitor -- CMD`: the command's). Every kind, from
//! the list of kinds (`run`'s real quick run is `run.rs`'s end-to-end test, checked here).

use crate::common;
use common::{kinds, truebench};

/// The flags every kind runs with here, `run.rs`'s end-to-end run too: quiet, with the
/// scripted meter.
pub(crate) const QUIET_METERED: [&str; 5] = [
    "--quiet",
    "--power-cmd",
    "echo 5.0",
    "--power-interval",
    "0.2",
];

/// `run` is not run here: its one real quick run on this machine is the end-to-end test in
/// `run.rs`, which runs it with [`QUIET_METERED`] (tuned) and checks it with [`ends_alike`].
#[test]
fn every_measuring_command_ends_alike_and_obeys_quiet() {
    let scratch_dir = tempfile::tempdir_in("/var/tmp").unwrap();
    let mut failures = Vec::new();
    for &kind in kinds::all().iter().filter(|k| **k != "run") {
        let tmp = tempfile::tempdir().unwrap();
        let scratch = scratch_dir.path().join(format!("scratch-{kind}"));
        let out = truebench(tmp.path())
            .args(kinds::quick(kind, &scratch))
            .args(QUIET_METERED)
            // How a command ends is not about tuning: nothing of this machine changes.
            .arg("--no-tuning")
            .args(kinds::tail(kind))
            .output()
            .unwrap();
        failures.extend(ends_alike(kind, &out, tmp.path()));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// What is wrong with how `kind`'s command ended (`out`), run with [`QUIET_METERED`] and its
/// history in `tmp` (`common::truebench(tmp)`, which is exported here): empty when nothing.
pub(crate) fn ends_alike(
    kind: &str,
    out: &std::process::Output,
    tmp: &std::path::Path,
) -> Vec<String> {
    let mut failures = Vec::new();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    if !common::measured(out) {
        failures.push(format!("{kind}: exit {:?}\n{stderr}", out.status.code()));
        return failures;
    }
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.contains("warning:") && !l.contains("error:"))
        .collect();
    if !said.is_empty() {
        failures.push(format!("{kind}: --quiet, yet stderr has {said:#?}"));
    }
    // The stored document, rendered by the shared renderer, is what was printed.
    let v = common::stored(tmp);
    // Its energy: the meter's 5 W × each phase's duration. Not for `run`, whose minute of
    // load on all CPUs delays the meter's command on a busy test machine past the 2 %.
    if kind != "run" {
        crate::meter::check(kind, &v);
    }
    let doc: truebench_model::Document = serde_json::from_value(v).unwrap();
    let summary = truebench_render::kinds::summary(&doc);
    // monitor prints the machine's header before, run where its files are after.
    if !stdout.contains(&summary) {
        failures.push(format!(
            "{kind}: stdout is not the shared summary\n--- printed\n{stdout}\n--- summary\n{summary}"
        ));
    }
    if kind != "run" && !summary.starts_with("Headline:") {
        failures.push(format!("{kind}: no headline in\n{summary}"));
    }
    let code = out.status.code().unwrap();
    if kind == "monitor" {
        // A monitored command's code is its own, as from a shell (here `sleep`'s 0).
        if code != 0 {
            failures.push(format!("{kind}: exit {code}, the command's was 0"));
        }
        return failures;
    }
    let table = match doc.outcome() {
        truebench_model::Outcome::Valid => 0,
        truebench_model::Outcome::Invalid => 3,
        truebench_model::Outcome::Failed => 1,
        truebench_model::Outcome::Interrupted => 130,
    };
    if code != table {
        failures.push(format!("{kind}: exit {code}, the table says {table}"));
    }
    failures
}
