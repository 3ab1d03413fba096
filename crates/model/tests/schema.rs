//! The JSON Schema of the result document is generated from the model and checked in
//! (`docs/schema/result.schema.json`): this test fails when the file is stale (rewrite it with
//! `TRUEBENCH_WRITE_SCHEMA=1 cargo test -p truebench-model --test schema`), and checks that
//! real version-1 documents migrate to documents the schema accepts.

use std::path::Path;

use truebench_fixtures::schema::{result_schema_path, validate, validate_result};
use truebench_model::{self as model, Body, Document, Mode, RunBody};

fn data(name: &str) -> serde_json::Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn checked_in_schema_is_current() {
    let generated = serde_json::to_string_pretty(&model::json_schema()).unwrap() + "\n";
    let path = result_schema_path();
    if std::env::var_os("TRUEBENCH_WRITE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "{} is stale: the model changed. Rewrite it with TRUEBENCH_WRITE_SCHEMA=1 cargo test -p truebench-model --test schema, and review the diff",
        path.display()
    );
}

/// Every definition and every property of the generated schema has a description, so a
/// field added without a doc comment fails here even where the `missing_docs` lint does not
/// reach (the machine's types come from truebench-host).
#[test]
fn every_definition_and_property_is_described() {
    let schema = model::json_schema();
    let defs = schema["$defs"].as_object().expect("$defs");
    let mut seen = std::collections::BTreeSet::new();
    let mut missing = Vec::new();
    undescribed(&schema, &schema, "#", false, &mut seen, &mut missing);
    // Definitions no $ref reaches are published too.
    for name in defs.keys() {
        if seen.insert(name.clone()) {
            let def = &defs[name];
            let path = format!("#/$defs/{name}");
            undescribed(&schema, def, &path, false, &mut seen, &mut missing);
        }
    }
    for (name, def) in defs {
        if def.get("description").is_none() {
            missing.push(format!("#/$defs/{name}"));
        }
    }
    assert!(
        missing.is_empty(),
        "{} without a description (give the Rust item a doc comment, then rewrite the schema):\n{}",
        missing.len(),
        missing.join("\n")
    );
}

/// Adds to `out` the path of every property under `node` without a description, following
/// `$ref`s into `schema`'s definitions (each once). `in_variant`: `node` is an enum variant
/// with a description of its own, which describes its serde tag (a `const`) and content (a
/// bare `$ref`): schemars puts a variant's doc comment there, not on those two.
fn undescribed(
    schema: &serde_json::Value,
    node: &serde_json::Value,
    path: &str,
    in_variant: bool,
    seen: &mut std::collections::BTreeSet<String>,
    out: &mut Vec<String>,
) {
    let Some(obj) = node.as_object() else {
        for (i, v) in node.as_array().into_iter().flatten().enumerate() {
            undescribed(schema, v, &format!("{path}/{i}"), false, seen, out);
        }
        return;
    };
    if let Some(name) = obj
        .get("$ref")
        .and_then(|r| r.as_str())
        .and_then(|r| r.strip_prefix("#/$defs/"))
    {
        if seen.insert(name.to_string()) {
            let def = &schema["$defs"][name];
            assert!(def.is_object(), "{path}: $ref to a missing #/$defs/{name}");
            undescribed(schema, def, &format!("#/$defs/{name}"), false, seen, out);
        }
    }
    for (key, value) in obj {
        match key.as_str() {
            "$defs" => {}
            "properties" => {
                for (name, p) in value.as_object().into_iter().flatten() {
                    let tag_or_content = p.get("const").is_some()
                        || p.as_object()
                            .is_some_and(|o| o.len() == 1 && o.contains_key("$ref"));
                    if p.get("description").is_none() && !(in_variant && tag_or_content) {
                        out.push(format!("{path}/properties/{name}"));
                    }
                    let sub = format!("{path}/properties/{name}");
                    undescribed(schema, p, &sub, false, seen, out);
                }
            }
            "oneOf" | "anyOf" => {
                for (i, v) in value.as_array().into_iter().flatten().enumerate() {
                    let described = v.get("description").is_some();
                    undescribed(
                        schema,
                        v,
                        &format!("{path}/{key}/{i}"),
                        described,
                        seen,
                        out,
                    );
                }
            }
            _ => undescribed(schema, value, &format!("{path}/{key}"), false, seen, out),
        }
    }
}

#[test]
fn version_1_documents_migrate_and_validate() {
    for name in [
        "v1/quick-run-x86-vm.json",
        "v1/quick-run-x86-vm-2.json",
        "v1/imported-4qJG.json",
    ] {
        let v1 = data(name);
        assert_eq!(v1["schema_version"], 1, "{name}");
        let doc = model::migrate(v1.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(doc.kind(), "run");
        assert_eq!(doc.schema_version, model::SCHEMA_VERSION);
        let Body::Run(body) = &doc.body else {
            panic!("{name}: not a run")
        };
        assert_eq!(serde_json::to_value(body.mode).unwrap(), v1["mode"]);
        // Nothing of the old document is lost: every field is in the envelope, unchanged.
        let env = serde_json::to_value(&doc.envelope).unwrap();
        for (k, v) in v1.as_object().unwrap() {
            if k == "schema_version" || k == "mode" {
                continue;
            }
            if k == "throttling" {
                // Version 3 keeps the tables typed: the same figures as the old text.
                let lines: Vec<&str> = v.as_str().unwrap().lines().collect();
                let tables = model::throttling::parse(&lines);
                assert_eq!(doc.envelope.throttling, tables, "{name}");
                assert_eq!(tables.is_empty(), v.as_str().unwrap().trim().is_empty());
                continue;
            }
            if k == "phases" {
                // Version 4 moves each phase's scores into the body, in the phases' order;
                // the rest of each phase is unchanged.
                let mut moved = body.scores.iter();
                for (old, new) in v.as_array().unwrap().iter().zip(env[k].as_array().unwrap()) {
                    let mut rest = old.clone();
                    let scores = rest.as_object_mut().unwrap().remove("scores").unwrap();
                    assert_eq!(new, &rest, "{name}: phase {}", old["name"]);
                    if scores.is_null() {
                        continue;
                    }
                    let m = moved
                        .next()
                        .unwrap_or_else(|| panic!("{name}: {}", old["name"]));
                    assert_eq!(serde_json::json!(m.phase), old["name"]);
                    let typed = serde_json::to_value(&m.scores).unwrap();
                    if scores["kind"] == "clocks" {
                        // The clocks kind's types: the same clusters and measured clocks.
                        let ours = typed["clusters"].as_array().unwrap();
                        let theirs = scores["clusters"].as_array().unwrap();
                        assert_eq!(ours.len(), theirs.len(), "{name}");
                        for (a, b) in ours.iter().zip(theirs) {
                            assert_eq!(a["id"], b["cluster"]);
                            assert_eq!(a["cpu_range"], b["cpus"]);
                            assert_eq!(a["mode"], b["mode"]);
                            for (p, q) in a["points"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .zip(b["points"].as_array().unwrap())
                            {
                                for f in ["opp_mhz", "measured_mhz", "samples_mhz", "deviation_pct"]
                                {
                                    assert_eq!(p[f], q[f], "{name}: {f}");
                                }
                            }
                        }
                    } else {
                        assert_eq!(typed, scores, "{name}: {}", old["name"]);
                    }
                }
                assert!(moved.next().is_none(), "{name}");
                continue;
            }
            assert_eq!(&env[k], v, "{name}: {k}");
        }
        let v2 = serde_json::to_value(&doc).unwrap();
        let errors = validate_result(&v2);
        assert!(errors.is_empty(), "{name}: {errors:#?}");
        // The typed form writes the same JSON as the generic one.
        let typed: model::RunResult = doc.clone().into_typed().unwrap();
        assert_eq!(serde_json::to_value(&typed).unwrap(), v2);
        assert_eq!(serde_json::from_value::<Document>(v2).unwrap(), doc);
    }
}

#[test]
fn the_schema_rejects_what_the_model_rejects() {
    let doc = model::migrate(data("v1/quick-run-x86-vm.json")).unwrap();
    let good = serde_json::to_value(&doc).unwrap();
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(result_schema_path()).unwrap()).unwrap();
    assert!(validate(&schema, &good).is_empty());
    for (what, bad) in [
        ("unknown kind", {
            let mut b = good.clone();
            b["kind"] = "nonsense".into();
            b
        }),
        ("mode of another kind", {
            let mut b = good.clone();
            b["body"]["mode"] = "turbo".into();
            b
        }),
        ("no envelope", {
            let mut b = good.clone();
            b.as_object_mut().unwrap().remove("envelope");
            b
        }),
        ("valid is no boolean", {
            let mut b = good.clone();
            b["envelope"]["valid"] = "yes".into();
            b
        }),
    ] {
        assert!(!validate(&schema, &bad).is_empty(), "{what}: accepted");
        assert!(
            serde_json::from_value::<Document>(bad).is_err(),
            "{what}: the model read it"
        );
    }
}

#[test]
fn a_typed_document_refuses_another_kind() {
    let mut doc = model::migrate(data("v1/quick-run-x86-vm.json")).unwrap();
    let v = serde_json::to_value(&doc).unwrap();
    assert!(serde_json::from_value::<model::ClocksResult>(v.clone()).is_err());
    let e = model::migrate_typed::<model::MonitorBody>(v).unwrap_err();
    assert_eq!(e.to_string(), "this is a run result, not a monitor result");
    doc.body = Body::Run(RunBody::new(Mode::Quick));
    assert!(doc.into_typed::<RunBody>().is_ok());
}

/// Version-2 documents (one of every kind, written by truebench before the throttling tables
/// were typed) read as version 3 and validate.
#[test]
fn version_2_documents_migrate_and_validate() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../render/tests/data/kinds");
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        if v["schema_version"] != 2 {
            continue;
        }
        seen += 1;
        let doc = model::migrate(v.clone()).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(doc.schema_version, model::SCHEMA_VERSION);
        assert_eq!(doc.kind(), v["kind"].as_str().unwrap(), "{}", p.display());
        let v3 = serde_json::to_value(&doc).unwrap();
        let errors = validate_result(&v3);
        assert!(errors.is_empty(), "{}: {errors:#?}", p.display());
        // The old text, when there was one, became the same tables.
        let text = v["envelope"]["throttling"].as_str().unwrap_or("");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(doc.envelope.throttling, model::throttling::parse(&lines));
    }
    assert!(seen >= 10, "{seen} version-2 documents");
    // A version-2 text with two tables becomes two tables.
    let mut v =
        serde_json::to_value(model::migrate(data("v1/imported-4qJG.json")).unwrap()).unwrap();
    let text = "Throttling statistics (time spent on each cpufreq OPP) for CPUs 4-5 (Cortex-A76):\n\n2400 MHz:  10.00 sec\n2208 MHz:   2.50 sec\n";
    v["schema_version"] = 2.into();
    v["envelope"]["throttling"] = text.into();
    let doc = model::migrate(v).unwrap();
    assert_eq!(doc.envelope.throttling.len(), 1);
    assert_eq!(
        doc.envelope.throttling[0].time_in_state,
        [(2400, 10.0), (2208, 2.5)]
    );
}
