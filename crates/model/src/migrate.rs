//! Reading documents of every schema version this build knows: each older version is
//! converted to the next, step by step, on the JSON before it is typed.

use serde_json::{json, Value};

use crate::{throttling, BodyKind, Document, RunBody, RunResult, Typed, SCHEMA_VERSION};

/// Why a document could not be read.
#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    /// No numeric `schema_version`: not a result document.
    #[error("not a truebench result: no numeric `schema_version` field")]
    NoVersion,
    /// A version above [`SCHEMA_VERSION`]: written by a newer truebench.
    #[error(
        "schema_version {0} was written by a newer truebench; this build reads versions up to {SCHEMA_VERSION}: upgrade truebench"
    )]
    Newer(u64),
    /// A version no truebench ever wrote (0).
    #[error("schema_version {0} is not a version truebench ever wrote")]
    Unknown(u64),
    /// A known version whose content does not fit it.
    #[error("schema_version {version}: {source}")]
    Invalid {
        /// The document's `schema_version`.
        version: u64,
        /// What did not fit.
        #[source]
        source: serde_json::Error,
    },
    /// A valid document of another kind than the caller needs.
    #[error("this is a {found} result, not a {wanted} result")]
    WrongKind {
        /// The document's kind.
        found: &'static str,
        /// The kind asked for.
        wanted: &'static str,
    },
}

/// Read a result document of any schema version this build knows, converting older versions
/// to the current model step by step.
pub fn migrate(value: Value) -> Result<Document, MigrateError> {
    let version = value.get("schema_version").and_then(Value::as_u64);
    let value = upgrade_to(value, SCHEMA_VERSION)?;
    let version = version.unwrap_or(SCHEMA_VERSION as u64);
    serde_json::from_value(value).map_err(|source| MigrateError::Invalid { version, source })
}

/// A document of an older schema version brought up to version `to` (at most the current):
/// the steps of [`migrate`] up to there, as that version's writer would have written it —
/// the documents of every version the tests read (the fuzz seeds) come from it.
pub fn upgrade_to(mut value: Value, to: u32) -> Result<Value, MigrateError> {
    let version = value
        .get("schema_version")
        .and_then(Value::as_u64)
        .ok_or(MigrateError::NoVersion)?;
    if version > SCHEMA_VERSION as u64 {
        return Err(MigrateError::Newer(version));
    }
    if version == 0 {
        return Err(MigrateError::Unknown(version));
    }
    let to = u64::from(to.min(SCHEMA_VERSION));
    let invalid = |source| MigrateError::Invalid { version, source };
    if version == 1 && to >= 2 {
        value = v1_to_v2(value).map_err(invalid)?;
    }
    if version <= 2 && to >= 3 {
        value = v2_to_v3(value);
    }
    if version <= 3 && to >= 4 {
        value = v3_to_v4(value);
    }
    if version <= 4 && to >= 5 {
        v4_to_v5(&mut value);
    }
    if let Some(v) = value.get_mut("schema_version") {
        *v = version.max(to).into();
    }
    Ok(value)
}

/// [`migrate`] for a caller that needs one kind.
pub fn migrate_typed<B: BodyKind>(value: Value) -> Result<Typed<B>, MigrateError> {
    migrate(value)?
        .into_typed()
        .map_err(|d| MigrateError::WrongKind {
            found: d.kind(),
            wanted: B::KIND,
        })
}

/// [`migrate`] for a `run` result.
pub fn migrate_run(value: Value) -> Result<RunResult, MigrateError> {
    migrate_typed(value)
}

/// Version 2 stored the throttling statistics as sbc-bench's text: read into tables.
fn v2_to_v3(mut value: Value) -> Value {
    if let Some(env) = value.get_mut("envelope").and_then(|e| e.as_object_mut()) {
        if let Some(Value::String(text)) = env.get("throttling") {
            let lines: Vec<&str> = text.lines().collect();
            let tables = throttling::parse(&lines);
            env.insert(
                "throttling".into(),
                serde_json::to_value(tables).unwrap_or_default(),
            );
        }
    }
    value
}

/// Version 1 was the flat `run` result: `mode` becomes the body, everything else the envelope.
fn v1_to_v2(value: Value) -> Result<Value, serde_json::Error> {
    use serde::de::Error;
    let Value::Object(mut obj) = value else {
        return Err(serde_json::Error::custom(
            "a version 1 document is a JSON object",
        ));
    };
    obj.remove("schema_version");
    let mode = obj
        .remove("mode")
        .ok_or_else(|| serde_json::Error::missing_field("mode"))?;
    Ok(json!({
        "schema_version": SCHEMA_VERSION,
        "kind": RunBody::KIND,
        "body": { "mode": mode },
        "envelope": Value::Object(obj),
    }))
}

/// Version 3 kept `run`'s scores in the envelope's phases (`phases[].scores`), and its clock
/// walks in types of their own: the scores move into the body (`scores: [{phase, scores}]`),
/// the walks become the `clocks` kind's clusters and points.
fn v3_to_v4(mut value: Value) -> Value {
    let is_run = value.get("kind").and_then(Value::as_str) == Some(RunBody::KIND);
    let mut moved = Vec::new();
    if let Some(phases) = value
        .pointer_mut("/envelope/phases")
        .and_then(Value::as_array_mut)
    {
        for p in phases.iter_mut().filter_map(Value::as_object_mut) {
            let scores = p.remove("scores");
            if let (Some(mut scores), Some(name)) = (scores, p.get("name").cloned()) {
                if scores.is_null() {
                    continue;
                }
                if scores.get("kind").and_then(Value::as_str) == Some("clocks") {
                    clocks_v3_to_v4(&mut scores);
                }
                moved.push(json!({ "phase": name, "scores": scores }));
            }
        }
    }
    if is_run {
        if let Some(body) = value.get_mut("body").and_then(Value::as_object_mut) {
            body.insert("scores".into(), Value::Array(moved));
        }
    }
    value
}

/// Version 4's `efficiency` runs had a phase and marks only (a run is kept only when it
/// completed): they get the status and reason every other kind's rows carry. Findings got an
/// optional `basis`, which older ones simply lack.
fn v4_to_v5(value: &mut Value) {
    if value.get("kind").and_then(Value::as_str) != Some(crate::EfficiencyBody::KIND) {
        return;
    }
    let Some(clusters) = value
        .pointer_mut("/body/clusters")
        .and_then(Value::as_array_mut)
    else {
        return;
    };
    let points = clusters
        .iter_mut()
        .filter_map(|c| c.get_mut("points").and_then(Value::as_array_mut))
        .flatten();
    let runs = points
        .filter_map(|p| p.get_mut("runs").and_then(Value::as_array_mut))
        .flatten();
    for r in runs.filter_map(Value::as_object_mut) {
        r.entry("status").or_insert(json!("ok"));
        r.entry("reason").or_insert(Value::Null);
    }
}

fn clocks_v3_to_v4(scores: &mut Value) {
    let Some(o) = scores.as_object_mut() else {
        return;
    };
    if let Some(clusters) = o.get_mut("clusters").and_then(Value::as_array_mut) {
        for c in clusters.iter_mut().filter_map(Value::as_object_mut) {
            let id = c.remove("cluster").unwrap_or(json!(0));
            let range = c.remove("cpus").unwrap_or(json!(""));
            let cpus = range.as_str().map(cpu_list).unwrap_or_default();
            c.insert("id".into(), id);
            c.insert("cpus".into(), json!(cpus));
            c.insert("cpu_range".into(), range);
            c.entry("driver").or_insert(Value::Null);
            c.entry("enforced").or_insert(Value::Null);
            if let Some(points) = c.get_mut("points").and_then(Value::as_array_mut) {
                for p in points.iter_mut().filter_map(Value::as_object_mut) {
                    let khz = p
                        .get("opp_mhz")
                        .and_then(Value::as_u64)
                        .and_then(|m| m.checked_mul(1000))
                        .map_or(Value::Null, |k| json!(k));
                    p.entry("opp_khz").or_insert(khz);
                    for k in ["effective_mhz", "rejected", "duration_ms"] {
                        p.entry(k).or_insert(Value::Null);
                    }
                }
            }
        }
    }
    if let Some(a) = o.get_mut("all_cores").and_then(Value::as_object_mut) {
        for side in ["idle", "load"] {
            if let Some(cores) = a.get_mut(side).and_then(Value::as_array_mut) {
                for c in cores.iter_mut().filter_map(Value::as_object_mut) {
                    c.entry("samples_mhz").or_insert(json!([]));
                    c.entry("error").or_insert(Value::Null);
                }
            }
        }
        a.entry("load_heat_s").or_insert(Value::Null);
    }
}

/// `cpu4-cpu7`, `cpu0,cpu2`, `cpu3` → the CPU numbers; nothing for anything else.
fn cpu_list(range: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for part in range.split(',') {
        let n = |s: &str| s.trim().trim_start_matches("cpu").parse::<u32>().ok();
        match part.split_once('-') {
            Some((a, b)) => match (n(a), n(b)) {
                (Some(a), Some(b)) if a <= b && b - a < 4096 => out.extend(a..=b),
                _ => return Vec::new(),
            },
            None => match n(part) {
                Some(c) => out.push(c),
                None => return Vec::new(),
            },
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by fuzzing: an OPP that does not fit in kHz is unknown, not an overflow.
    #[test]
    fn an_opp_too_large_for_khz_is_unknown() {
        let mut v = json!({"kind": "clocks", "clusters": [{"cluster": 0, "cpus": "cpu0",
            "points": [{"opp_mhz": u64::MAX}]}]});
        clocks_v3_to_v4(&mut v);
        assert!(v["clusters"][0]["points"][0]["opp_khz"].is_null());
    }

    #[test]
    fn version_4_efficiency_runs_get_a_status() {
        let mut v = json!({"schema_version": 4, "kind": "efficiency", "body": {"clusters": [
            {"points": [{"runs": [{"phase": "c0-1800mhz-run1", "score": 1.0}]}]}]}});
        v4_to_v5(&mut v);
        let run = &v["body"]["clusters"][0]["points"][0]["runs"][0];
        assert_eq!(run["status"], "ok");
        assert!(run["reason"].is_null());
        assert_eq!(run["phase"], "c0-1800mhz-run1");
        let mut other = json!({"kind": "net", "body": {"clusters": 1}});
        v4_to_v5(&mut other);
        assert_eq!(other["body"]["clusters"], 1);
    }

    #[test]
    fn cpu_ranges_of_version_3_clusters() {
        assert_eq!(cpu_list("cpu4-cpu7"), [4, 5, 6, 7]);
        assert_eq!(cpu_list("cpu0,cpu2"), [0, 2]);
        assert_eq!(cpu_list("cpu3"), [3]);
        assert!(cpu_list("cpu9-cpu2").is_empty());
        assert!(cpu_list("cpu0-cpu4294967295").is_empty());
        assert!(cpu_list("x").is_empty());
    }

    #[test]
    fn version_3_run_scores_move_into_the_body() {
        let v3 = json!({
            "schema_version": 3, "kind": "run", "body": {"mode": "quick"},
            "envelope": {"phases": [
                {"name": "idle", "scores": null},
                {"name": "clocks-cold", "scores": {"kind": "clocks", "clusters": [
                    {"cluster": 1, "cpus": "cpu4-cpu5", "core_type": "Cortex-A76",
                     "measured_cpu": 4, "mode": "opp_walk", "notes": [],
                     "points": [{"opp_mhz": 2400, "reported_mhz": 2400, "firmware_mhz": null,
                                 "measured_mhz": 2390.0, "samples_mhz": [2390.0],
                                 "deviation_pct": -0.4, "error": null}]}],
                    "all_cores": null}}
            ]}
        });
        let v4 = v3_to_v4(v3);
        assert!(v4["envelope"]["phases"][1].get("scores").is_none());
        let s = &v4["body"]["scores"];
        assert_eq!(s.as_array().unwrap().len(), 1, "{s:#}");
        assert_eq!(s[0]["phase"], "clocks-cold");
        let c = &s[0]["scores"]["clusters"][0];
        assert_eq!(c["id"], 1);
        assert_eq!(c["cpus"], json!([4, 5]));
        assert_eq!(c["cpu_range"], "cpu4-cpu5");
        assert_eq!(c["points"][0]["opp_khz"], 2_400_000);
        let typed: crate::ClockScores =
            serde_json::from_value(s[0]["scores"].clone()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(typed.clusters[0].points[0].measured_mhz, Some(2390.0));
    }

    #[test]
    fn a_document_upgraded_part_way_reads_as_the_whole_way() {
        let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let text =
            std::fs::read_to_string(here.join("tests/data/v1/quick-run-x86-vm.json")).unwrap();
        let v1: Value = serde_json::from_str(&text).unwrap();
        let whole = migrate(v1.clone()).unwrap();
        for to in 2..=SCHEMA_VERSION {
            let part = upgrade_to(v1.clone(), to).unwrap();
            assert_eq!(part["schema_version"], to);
            assert_eq!(migrate(part).unwrap(), whole, "through version {to}");
        }
        // Never down, never past the current.
        let up = upgrade_to(upgrade_to(v1, 3).unwrap(), 2).unwrap();
        assert_eq!(up["schema_version"], 3);
        assert!(matches!(
            upgrade_to(json!({}), 2),
            Err(MigrateError::NoVersion)
        ));
    }
}
