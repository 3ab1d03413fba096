//! KernelCI's KCIDB I/O schema v5: the kernel the result ran on as a checkout and a build,
//! and a test per case — each score with `number {value, unit}` — so a KCIDB submitter
//! (`kcidb-submit`) can send it as it is. The kernel log written while it ran is the
//! summary test's log excerpt.

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use truebench_model::Document;

use crate::cases::{cases, ident, Verdict};

/// KCIDB's origin for what truebench submits (`[a-z0-9_]+`).
pub const ORIGIN: &str = "truebench";

/// KCIDB caps a log excerpt at 16 KiB.
const EXCERPT_MAX: usize = 16384;

/// The first 16 bytes of SHA-256 over `parts`, as hex: ids that are the same for the same
/// input and differ otherwise.
fn key(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0]);
    }
    truebench_host::parse::bytes::lower_hex(&h.finalize()[..16])
}

/// The document's own id: its content's hash, so sending it twice is sending one test run.
pub fn document_key(doc: &Document) -> String {
    key(&[&serde_json::to_string(doc).unwrap_or_default()])
}

fn status(v: Verdict) -> &'static str {
    match v {
        Verdict::Pass => "PASS",
        Verdict::Fail => "FAIL",
        Verdict::Skip => "SKIP",
    }
}

/// The last lines of `lines` that fit in KCIDB's excerpt (whole lines, newest kept).
fn excerpt(lines: &[String]) -> Option<String> {
    let mut picked: Vec<&str> = Vec::new();
    let mut size = 0;
    for l in lines.iter().rev() {
        let n = l.len() + 1;
        if size + n > EXCERPT_MAX {
            break;
        }
        size += n;
        picked.push(l.trim_end_matches('\0'));
    }
    (!picked.is_empty()).then(|| {
        picked.reverse();
        picked.join("\n") + "\n"
    })
}

/// A KCIDB v5 document for `docs`: one checkout and build per kernel, the tests of each.
pub fn kcidb<'a>(docs: impl IntoIterator<Item = &'a Document>) -> Value {
    let mut checkouts: Vec<Value> = Vec::new();
    let mut builds: Vec<Value> = Vec::new();
    let mut tests: Vec<Value> = Vec::new();
    for doc in docs {
        let e = &doc.envelope;
        let inv = &e.inventory;
        let release = inv.kernel.release.as_deref().unwrap_or("unknown");
        let version = inv.kernel.version.as_deref().unwrap_or("");
        let arch = inv.arch.kernel.as_deref().unwrap_or("unknown");
        let checkout_id = format!("{ORIGIN}:kernel-{}", key(&[release, version]));
        let build_id = format!("{ORIGIN}:build-{}", key(&[release, version, arch]));
        if !checkouts.iter().any(|c| c["id"] == checkout_id.as_str()) {
            checkouts.push(json!({
                "id": checkout_id,
                "origin": ORIGIN,
                "comment": format!("Linux {release} {version}").trim().replace('\0', ""),
            }));
        }
        if !builds.iter().any(|b| b["id"] == build_id.as_str()) {
            let mut b = json!({
                "id": build_id,
                "origin": ORIGIN,
                "checkout_id": checkout_id,
                "comment": format!("Linux {release} as running on the measured machine"),
            });
            if let Some(a) = inv.arch.kernel.as_deref() {
                b["architecture"] = json!(a);
            }
            builds.push(b);
        }
        let doc_key = document_key(doc);
        let kind = doc.kind();
        let mut env = Map::new();
        let comment = [
            inv.device.as_deref(),
            inv.soc.as_ref().map(|s| s.name.as_str()),
            e.hostname.as_deref(),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ");
        if !comment.is_empty() {
            env.insert("comment".into(), json!(comment.replace('\0', "")));
        }
        let compatible = crate::compatible(inv);
        if !compatible.is_empty() {
            env.insert("compatible".into(), json!(compatible));
        }
        let test = |path: String, status: &str| {
            let mut t = json!({
                "id": format!("{ORIGIN}:{doc_key}:{path}"),
                "origin": ORIGIN,
                "build_id": build_id,
                "path": path,
                "status": status,
                "start_time": e.started.utc,
                "misc": {"truebench_version": e.truebench_version},
            });
            if !env.is_empty() {
                t["environment"] = Value::Object(env.clone());
            }
            t
        };
        // The whole result: its verdict, its length, the kernel log it wrote.
        let overall = if !e.complete {
            "ERROR"
        } else if e.valid {
            "PASS"
        } else {
            "FAIL"
        };
        let mut top = test(format!("truebench.{kind}"), overall);
        top["duration"] = json!(e.duration_s.max(0.0));
        if let Some(x) = excerpt(&e.kernel_log.lines) {
            top["log_excerpt"] = json!(x);
        }
        if let Some(r) = &e.incomplete_reason {
            top["comment"] = json!(r.replace('\0', ""));
        }
        tests.push(top);
        for c in cases(doc) {
            let path = format!("truebench.{kind}.{}.{}", ident(&c.set), ident(&c.name));
            let st = match (&c.measurement, c.verdict) {
                // A score is the test's output, not a check: DONE when it can be trusted.
                (Some(_), Verdict::Pass) => "DONE",
                (_, v) => status(v),
            };
            let mut t = test(path, st);
            if let Some((v, unit)) = &c.measurement {
                let mut n = json!({ "value": v });
                if let Some(u) = unit.as_deref().filter(|u| !u.is_empty()) {
                    n["unit"] = json!(u);
                }
                t["number"] = n;
            }
            if let Some(m) = &c.message {
                t["comment"] = json!(m.replace('\0', ""));
            }
            if let Some(s) = c.seconds {
                t["duration"] = json!(s);
            }
            tests.push(t);
        }
    }
    json!({
        "version": {"major": 5, "minor": 0},
        "checkouts": checkouts,
        "builds": builds,
        "tests": tests,
    })
}
