//! `--power-cmd` on every command that measures: every phase of two meter intervals or more
//! gets the meter's 5 W × its duration within 5 % — integrated over the meter's own readings,
//! however often the sampler samples. A missing reading would cost a phase of two intervals
//! half its energy; 5 % is the lag of a loaded test machine's readings (2.7 % was seen for a
//! 1 s phase while a database was filled beside the suite). (Every kind runs with the meter in `ending.rs`.)

use serde_json::Value;

/// The meter's 5 W over every phase of a measuring command's document (`cmd` names it):
/// the per-kind check of `ending::ends_alike`, which every kind of the list is run through
/// with `--power-cmd "echo 5.0" --power-interval 0.2` (`run` in `a_run`'s end-to-end test,
/// where a minute of load on every CPU delays the meter's command: not checked there).
pub(crate) fn check(cmd: &str, doc: &Value) {
    let env = &doc["envelope"];
    let e = &env["energy"];
    assert_eq!(e["source"], "power-cmd: echo 5.0", "{cmd}: {e}");
    let phases = env["phases"].as_array().unwrap();
    let rows = e["phases"].as_array().unwrap();
    let mut checked = 0;
    for p in phases {
        let (Some(a), Some(b)) = (p["started"].as_f64(), p["ended"].as_f64()) else {
            continue;
        };
        let dur = b - a;
        if p["name"] == "idle" {
            continue;
        }
        let row = rows
            .iter()
            .find(|r| r["phase"] == p["name"])
            .unwrap_or_else(|| panic!("{cmd}: no energy for {}: {e}", p["name"]));
        let j = row["joules"].as_f64().unwrap();
        let w = row["mean_watts"].as_f64().unwrap();
        assert!((w - 5.0).abs() < 1e-9, "{cmd}: {}: {w} W", p["name"]);
        // Two meter intervals or more: all of it covered.
        if dur >= 0.4 {
            assert!(
                (j - 5.0 * dur).abs() <= 0.05 * 5.0 * dur,
                "{cmd}: {}: {j} J over {dur:.3} s",
                p["name"]
            );
        }
        checked += 1;
    }
    assert!(checked > 0, "{cmd}: no phase: {phases:?}");
}
