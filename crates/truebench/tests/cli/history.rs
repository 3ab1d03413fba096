//! `truebench import` into the history, `history`, `report`, `compare` and `compare --corpus`
//! end to end, on real sbc-bench logs of the corpus (tests/data/sbc-bench/results.tar.gz).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_truebench");

fn archive() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/sbc-bench/results.tar.gz")
}

/// Extract the named logs of the corpus into `dir`.
fn logs(dir: &Path, names: &[&str]) -> Vec<PathBuf> {
    let f = std::fs::File::open(archive()).unwrap();
    let mut ar = tar::Archive::new(flate2::read::GzDecoder::new(f));
    let mut out = Vec::new();
    for e in ar.entries().unwrap() {
        let mut e = e.unwrap();
        let name = e
            .path()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if names.contains(&name.as_str()) {
            let mut text = Vec::new();
            e.read_to_end(&mut text).unwrap();
            let p = dir.join(&name);
            std::fs::write(&p, text).unwrap();
            out.push(p);
        }
    }
    out.sort();
    assert_eq!(out.len(), names.len());
    out
}

fn tb(db: &Path, args: &[&str]) -> std::process::Output {
    crate::common::with_db(db, args)
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn import_history_report_compare() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    // RK3588 ROCK 5B (throttled), Raspberry Pi 4, Rock 5A-class board.
    let files = logs(dir.path(), &["3L37.txt", "4qJG.txt", "4qJr.txt"]);
    let paths: Vec<&str> = files.iter().map(|p| p.to_str().unwrap()).collect();

    // import: summary with the verdict comparison, stored.
    let mut args = vec!["import"];
    args.extend(&paths);
    let out = text(&tb(&db, &args));
    assert!(
        out.contains("verdicts (sbc-bench vs truebench on the same evidence)"),
        "{out}"
    );
    assert!(
        out.contains("throttling           agree: both flag it"),
        "the ROCK 5B's throttling: {out}"
    );
    assert_eq!(out.matches("history: stored as id").count(), 3, "{out}");
    // The same logs again: not duplicated.
    let out = text(&tb(&db, &args));
    assert_eq!(
        out.matches("history: already stored as id").count(),
        3,
        "{out}"
    );

    // history: table and JSON, filters.
    let out = text(&tb(&db, &["history"]));
    assert_eq!(out.lines().count(), 4, "{out}");
    assert!(out.contains("Raspberry Pi 4"), "{out}");
    let v: serde_json::Value =
        serde_json::from_slice(&tb(&db, &["history", "--json"]).stdout).unwrap();
    let all = v.as_array().unwrap();
    assert_eq!(all.len(), 3);
    let rock = all
        .iter()
        .find(|e| e["source_name"] == "4qJG.txt")
        .expect("4qJG stored");
    assert_eq!(rock["sevenzip_single"], 2989);
    assert_eq!(rock["valid"], false);
    let id = rock["id"].as_i64().unwrap().to_string();
    let v: serde_json::Value =
        serde_json::from_slice(&tb(&db, &["history", "--json", "--device", "rk3588"]).stdout)
            .unwrap();
    assert!(!v.as_array().unwrap().is_empty());
    assert!(v
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["soc"].as_str().unwrap_or("").contains("RK3588")));
    let v: serde_json::Value =
        serde_json::from_slice(&tb(&db, &["history", "--json", "--since", "2023-01-01"]).stdout)
            .unwrap();
    assert!(v
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["started_unix_ms"].as_i64().unwrap() >= 1_672_531_200_000));

    // report from a history id and from the log itself: the same page.
    let html = dir.path().join("r.html");
    tb(&db, &["report", &id, "--html", html.to_str().unwrap()]);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("Radxa ROCK 5 Model B"));
    assert!(page.contains("Throttling statistics"));
    let html2 = dir.path().join("r2.html");
    tb(
        &db,
        &["report", paths[1], "--html", html2.to_str().unwrap()],
    );
    assert_eq!(std::fs::read_to_string(&html2).unwrap(), page);

    // compare: side by side with relative differences, unfair comparisons flagged.
    let out = text(&tb(&db, &["compare", paths[1], paths[0]]));
    assert!(out.contains("7-zip multi (MIPS)"), "{out}");
    assert!(out.contains(" %)"), "relative difference missing: {out}");
    assert!(out.contains("Not a valid comparison"), "{out}");
    assert!(out.contains("throttled"), "{out}");
    let v: serde_json::Value =
        serde_json::from_slice(&tb(&db, &["compare", "--json", &id, paths[0]]).stdout).unwrap();
    assert_eq!(v["columns"].as_array().unwrap().len(), 2);
    assert_eq!(v["valid"], false);

    // where does the ROCK 5B stand among the corpus?
    let out = text(&tb(
        &db,
        &["compare", paths[1], "--corpus", archive().to_str().unwrap()],
    ));
    assert!(out.contains("among 260 sbc-bench logs"), "{out}");
    assert!(
        out.contains("7-zip multi (MIPS), 7-zip 16.x: 16060 — rank"),
        "{out}"
    );
    assert!(out.contains("(this result)"), "{out}");
}

fn tb_raw(db: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("XDG_DATA_HOME", db.parent().unwrap().join("xdg"))
        .env("TRUEBENCH_LOCK_DIR", truebench_fixtures::lock_dir())
        .output()
        .unwrap()
}

/// `clocks` and `monitor -- CMD` results go through the same path as runs: stored, listed by
/// kind, rendered as a page, compared with their own kind and refused against another.
#[test]
fn clocks_and_monitor_results_are_stored_listed_rendered_and_compared() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let dbs = db.to_str().unwrap();
    let paths = logs(dir.path(), &["4qJG.txt"]);
    tb(&db, &["import", paths[0].to_str().unwrap()]);
    let root = truebench_fixtures::root("rk3588-rock5b");
    let rootp = root.path().to_str().unwrap();
    // The OPPs from 1.8 GHz up: what is stored and listed, not the walk (4 s of CPU for all
    // of the board's OPPs, 1.5 s for these), which the clocks tests check.
    for _ in 0..2 {
        let o = tb_raw(
            &db,
            &[
                "clocks",
                "--min-khz",
                "1800000",
                "--root",
                rootp,
                "--db",
                dbs,
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stderr).contains("in the history as #"));
    }
    let o = tb_raw(
        &db,
        &[
            "monitor",
            "--interval",
            "0.2",
            "--db",
            dbs,
            "--",
            "sh",
            "-c",
            "sleep 0.5; exit 3",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    let list = |kind: &str| -> Vec<serde_json::Value> {
        let v: serde_json::Value =
            serde_json::from_slice(&tb(&db, &["history", "--json", "--kind", kind]).stdout)
                .unwrap();
        v.as_array().unwrap().clone()
    };
    let clocks = list("clocks");
    assert_eq!(clocks.len(), 2, "{clocks:?}");
    for c in &clocks {
        assert_eq!(c["kind"], "clocks");
        assert!(c["cluster0_measured_mhz"].as_f64().unwrap() > 0.0, "{c}");
    }
    let mon = list("monitor");
    assert_eq!(mon.len(), 1);
    assert_eq!(mon[0]["exit_code"], 3);
    assert!(
        mon[0]["mode"].as_str().unwrap().contains("sleep 0.5"),
        "{}",
        mon[0]
    );
    let runs = list("run");
    assert_eq!(runs.len(), 1);
    let all = text(&tb(&db, &["history"]));
    assert_eq!(all.lines().count(), 5, "{all}");
    assert!(
        all.contains(" clocks ") && all.contains(" monitor "),
        "{all}"
    );
    // Each kind's line shows its headline, not `key value` pairs: the monitored command's
    // exit, a clocks result's measured clock.
    let mon_line = all.lines().find(|l| l.contains(" monitor ")).unwrap();
    assert!(mon_line.contains("exit 3"), "{mon_line}");
    assert!(!mon_line.contains("exit_code"), "{mon_line}");
    let clocks_line = all.lines().find(|l| l.contains(" clocks ")).unwrap();
    assert!(clocks_line.contains(" MHz"), "{clocks_line}");
    assert!(!clocks_line.contains("measured_mhz"), "{clocks_line}");
    // An unknown kind is refused with the list of kinds.
    let o = tb_raw(&db, &["history", "--db", dbs, "--kind", "nonsense"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("clocks"));

    let id = |v: &serde_json::Value| v["id"].as_i64().unwrap().to_string();
    // Every kind renders in the same page frame.
    for (doc, expect) in [(&clocks[0], "Measured clocks"), (&mon[0], "sleep 0.5")] {
        let html = dir.path().join(format!("{}.html", id(doc)));
        tb(&db, &["report", &id(doc), "--html", html.to_str().unwrap()]);
        let page = std::fs::read_to_string(&html).unwrap();
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(page.contains(expect), "{expect} missing");
        assert!(page.contains("<h2>Verdicts</h2>"));
    }
    // Two clocks results compare figure by figure.
    let page = db.with_file_name("compare.html");
    let pages = page.to_string_lossy().into_owned();
    let out = text(&tb(
        &db,
        &[
            "compare",
            &id(&clocks[0]),
            &id(&clocks[1]),
            "--html",
            &pages,
        ],
    ));
    assert!(out.contains("Comparing 2 clocks results"), "{out}");
    // Figures by their names, not their keys, in the text and in the HTML form.
    assert!(out.contains("cluster 0: measured clock (MHz)"), "{out}");
    assert!(!out.contains("cluster0_measured_mhz"), "{out}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert!(html.contains("cluster 0: measured clock"), "{html}");
    assert!(!html.contains("<script"), "{html}");
    // A clocks result against a run: refused, saying why.
    let o = tb_raw(
        &db,
        &["compare", "--db", dbs, &id(&clocks[0]), &id(&runs[0])],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("cannot compare")
            && err.contains("a clocks result")
            && err.contains("a run result"),
        "{err}"
    );
}

fn raw(args: &[&str], xdg: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .env("XDG_DATA_HOME", xdg)
        .env("TRUEBENCH_LOCK_DIR", truebench_fixtures::lock_dir())
        .output()
        .unwrap()
}

/// Reading the history creates nothing: a `--db` where none is is an error naming it, the
/// default location of a fresh user an empty list; a folder is named as one.
#[test]
fn reading_a_history_that_does_not_exist_creates_nothing() {
    let t = tempfile::tempdir().unwrap();
    let xdg = t.path().join("xdg");
    let db = t.path().join("no/such/history.sqlite");
    let o = raw(&["history", "--db", db.to_str().unwrap()], &xdg);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(db.to_str().unwrap()), "{err}");
    assert!(err.contains("no history database there"), "{err}");
    assert!(!t.path().join("no").exists(), "folders created");
    for args in [
        &["report", "3", "--html", "x.html"][..],
        &["compare", "1", "2"],
    ] {
        let mut a = args.to_vec();
        a.extend(["--db", db.to_str().unwrap()]);
        let o = raw(&a, &xdg);
        assert_eq!(o.status.code(), Some(2), "{a:?}");
        assert!(!t.path().join("no").exists(), "{a:?} created folders");
    }

    let o = raw(&["history", "--json"], &xdg);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(text(&o).trim(), "[]");
    assert!(!xdg.exists(), "the default history was created");

    let o = raw(&["history", "--db", t.path().to_str().unwrap()], &xdg);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("is a directory"), "{err}");
}

/// `report … --html DIR/` writes a page named after the result into DIR; no temporary file
/// is left behind, also when writing fails, and errors name the user's path.
#[test]
fn report_into_a_folder_leaves_no_temporary_files() {
    let t = tempfile::tempdir().unwrap();
    let xdg = t.path().join("xdg");
    let log = logs(t.path(), &["4qJG.txt"]).remove(0);
    let out = t.path().join("pages");
    std::fs::create_dir(&out).unwrap();
    let dir_arg = format!("{}/", out.display());
    let o = raw(&["report", log.to_str().unwrap(), "--html", &dir_arg], &xdg);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["4qJG.html"], "{err}");
    assert!(
        err.contains(&out.join("4qJG.html").display().to_string()),
        "{err}"
    );

    let missing = t.path().join("nowhere/page.html");
    let o = raw(
        &[
            "report",
            log.to_str().unwrap(),
            "--html",
            missing.to_str().unwrap(),
        ],
        &xdg,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(missing.to_str().unwrap()), "{err}");
    assert!(!err.contains("page.html.tmp"), "{err}");
}

/// One imported log, one set of scores: `import --row`, `compare --json` (of the files and of
/// the stored ids) and `history --json` show the same AES and memset figures (issue 10,
/// item 10). 1Dt1 and 1iGV are logs whose figures used to differ between the commands.
#[test]
fn an_imported_logs_scores_agree_in_import_compare_and_history() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let paths = logs(dir.path(), &["1Dt1.txt", "1iGV.txt"]);
    let p: Vec<&str> = paths.iter().map(|p| p.to_str().unwrap()).collect();
    let mut args = vec!["import", "--row"];
    args.extend(&p);
    let rows = text(&tb(&db, &args));
    // | device | clock | kernel | distro | 7z multi | 7z single | AES | memcpy | memset | kH/s |
    let cells: Vec<Vec<String>> = rows
        .lines()
        .filter(|l| l.starts_with('|'))
        .map(|l| l.split('|').map(|c| c.trim().to_string()).collect())
        .collect();
    assert_eq!(cells.len(), 2, "{rows}");
    let want: Vec<(u64, u64)> = cells
        .iter()
        .map(|c| (c[7].parse().unwrap(), c[9].parse().unwrap()))
        .collect();

    let mut args = vec!["import"];
    args.extend(&p);
    tb(&db, &args);
    let hist: serde_json::Value =
        serde_json::from_slice(&tb(&db, &["history", "--json"]).stdout).unwrap();
    let mut hist: Vec<(String, u64, u64)> = hist
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["source_name"].as_str().unwrap().to_string(),
                e["aes"].as_u64().unwrap(),
                e["memset"].as_u64().unwrap(),
            )
        })
        .collect();
    hist.sort();
    assert_eq!(
        hist.iter().map(|h| (h.1, h.2)).collect::<Vec<_>>(),
        want,
        "history"
    );

    let ids: Vec<String> = (1..=2).map(|i| i.to_string()).collect();
    for what in [p.clone(), ids.iter().map(String::as_str).collect()] {
        let mut args = vec!["compare", "--json"];
        args.extend(&what);
        let v: serde_json::Value = serde_json::from_slice(&tb(&db, &args).stdout).unwrap();
        let row = |m: &str| -> Vec<u64> {
            v["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["metric"] == m)
                .unwrap()["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect()
        };
        let got: Vec<(u64, u64)> = row("aes").into_iter().zip(row("memset")).collect();
        assert_eq!(got, want, "compare {what:?}");
    }
}

/// `history --regressions` on a real board's series (two ThunderX CN8890 on host bigboy:
/// 5.16.0-rc2, then 5.16.0 with more memory, then 5.16.0 again): one result moved beyond the
/// band, named with what differs; the last one did not move.
#[test]
fn regressions_are_listed_with_what_differs() {
    let d = tempfile::tempdir().unwrap();
    import_logs(d.path(), &["3N5c.txt", "3Owk.txt", "3Owv.txt"]);
    let run = |args: &[&str]| ok(d.path(), args);
    let text = run(&["history", "--regressions"]);
    assert!(
        text.starts_with("#2 run 2022-02-03 on bigboy against #1"),
        "{text}"
    );
    assert!(
        text.contains("7-zip multi: improvement of +7.9 %"),
        "{text}"
    );
    assert!(
        text.contains("kernel 5.16.0-rc2-00344-gc5c17547b778 → 5.16.0"),
        "{text}"
    );
    assert!(text.contains("memory 31744 MiB → 130048 MiB"), "{text}");
    assert!(!text.contains("#3 "), "{text}");
    let json: serde_json::Value =
        serde_json::from_str(&run(&["history", "--regressions", "--json"])).unwrap();
    assert_eq!(json[0]["id"], 2);
    assert_eq!(json[0]["baseline_id"], 1);
    assert_eq!(json[0]["changes"][0]["verdict"], "improvement");
    // compare says it too, for the results it compares.
    let c = run(&["compare", "1", "2"]);
    assert!(
        c.contains("Against the same machine's earlier result:\n  * #2: 7-zip multi: improvement of +7.9 % against #1"),
        "{c}"
    );
    // --since chooses what is judged, not the history it is judged against.
    let later = run(&[
        "history",
        "--regressions",
        "--since",
        "2022-02-01",
        "--json",
    ]);
    assert!(later.contains("\"baseline_id\": 1"), "{later}");
}

/// Where a result stands among the stored results of its SoC and tool versions: in
/// `compare` and on the report page (five real Raspberry Pi 5 logs).
#[test]
fn compare_and_report_say_where_a_result_stands() {
    let d = tempfile::tempdir().unwrap();
    import_logs(
        d.path(),
        &[
            "1ULtUe.txt",
            "4JAv.txt",
            "8acvqG.txt",
            "Au3jaA.txt",
            "frdzAn.txt",
        ],
    );
    let tb = |args: &[&str]| ok(d.path(), args);
    let c = tb(&["compare", "1", "2"]);
    assert!(
        c.contains("Among the stored results of the same SoC and tool versions:"),
        "{c}"
    );
    assert!(c.contains("percentile of 5 "), "{c}");
    let json: serde_json::Value =
        serde_json::from_str(&tb(&["compare", "1", "2", "--json"])).unwrap();
    assert_eq!(json["standing"].as_array().unwrap().len() % 2, 0, "{json}");
    // Both results ranked, not an empty list.
    let lines: Vec<&str> = json["standing"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l.as_str())
        .collect();
    assert!(
        lines.iter().any(|l| l.starts_with("#1: sevenzip_multi ")),
        "{json}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("#2: sevenzip_multi ")),
        "{json}"
    );
    let page = d.path().join("r.html");
    let _ = tb(&["report", "1", "--html", page.to_str().unwrap()]);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("<h2>Where it stands</h2>"),
        "no standing section"
    );
    assert!(html.contains("percentile of 5 "));
}

/// `truebench ARGS` with the history in `data`: its stdout, after asserting success.
fn ok(data: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_truebench"))
        .env("XDG_DATA_HOME", data)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The named logs of the corpus imported into the history in `data`, ids from 1 in order.
fn import_logs(data: &std::path::Path, names: &[&str]) {
    let logs = truebench_fixtures::sbc_bench::logs();
    for name in names {
        let p = data.join(name);
        std::fs::write(&p, &logs.iter().find(|(n, _)| n == name).unwrap().1).unwrap();
        ok(data, &["import", p.to_str().unwrap()]);
    }
}

/// Every kind, from its recorded document and the same document as if measured a day later
/// on another kernel: both stored and listed, one reported as an HTML page, and the two
/// compared figure by figure, the kernel named as what differs. From the list of recorded
/// documents: a new kind is in it without an edit.
#[test]
fn every_kind_is_listed_reported_and_compared_across_kernels() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let kinds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../render/tests/data/kinds");
    let mut seen = std::collections::BTreeSet::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&kinds)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    for path in names {
        // Older documents (schema v1) read through the migration, as `import` does.
        let doc = truebench_model::migrate(
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap(),
        )
        .unwrap();
        let kind = doc.kind().to_string();
        let mut v = serde_json::to_value(&doc).unwrap();
        if !seen.insert(kind.clone()) {
            continue;
        }
        let a = dir.path().join(format!("{kind}-a.json"));
        std::fs::write(&a, v.to_string()).unwrap();
        let env = &mut v["envelope"];
        let day = 86_400_000;
        env["started"]["unix_ms"] = (env["started"]["unix_ms"].as_i64().unwrap() + day).into();
        env["ended"]["unix_ms"] = (env["ended"]["unix_ms"].as_i64().unwrap() + day).into();
        env["inventory"]["kernel"]["release"] = "6.12.0-other".into();
        let b = dir.path().join(format!("{kind}-b.json"));
        std::fs::write(&b, v.to_string()).unwrap();
        tb(&db, &["import", a.to_str().unwrap(), b.to_str().unwrap()]);
        let listed: serde_json::Value =
            serde_json::from_slice(&tb(&db, &["history", "--json", "--kind", &kind]).stdout)
                .unwrap();
        let ids: Vec<String> = listed
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].as_i64().unwrap().to_string())
            .collect();
        assert_eq!(ids.len(), 2, "{kind}: {listed}");
        let html = dir.path().join(format!("{kind}.html"));
        tb(&db, &["report", &ids[0], "--html", html.to_str().unwrap()]);
        assert!(std::fs::read_to_string(&html)
            .unwrap()
            .starts_with("<!DOCTYPE html>"));
        let out = text(&tb(&db, &["compare", &ids[0], &ids[1]]));
        assert!(
            out.contains(&format!("Comparing 2 {kind} results"))
                || (kind == "run" && out.contains(" A: #") && out.contains(" B: #")),
            "{kind}: {out}"
        );
        assert!(
            out.contains("6.12.0-other"),
            "{kind}: the kernel not named\n{out}"
        );
    }
    assert_eq!(seen.len(), truebench_model::KINDS.len(), "{seen:?}");

    // The table: each result of another kind by its headline (the only figure it reads)…
    let all: serde_json::Value =
        serde_json::from_slice(&tb(&db, &["history", "--json"]).stdout).unwrap();
    let table = text(&tb(&db, &["history"]));
    let line = |id: i64| {
        table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(&id.to_string()))
            .unwrap_or_else(|| panic!("#{id} not in\n{table}"))
            .to_string()
    };
    let mut headlines = 0;
    for e in all.as_array().unwrap() {
        if let Some(h) = e["headline"].as_str().filter(|_| e["kind"] != "run") {
            assert!(line(e["id"].as_i64().unwrap()).ends_with(h), "{e}\n{table}");
            headlines += 1;
        }
    }
    assert!(headlines >= 2 * (seen.len() - 1), "{headlines}");
    // … and one stored before headlines were, by its own figures: the first four, and how
    // many more.
    let monitor = all
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "monitor")
        .unwrap();
    let id = monitor["id"].as_i64().unwrap();
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute(
            "DELETE FROM metrics WHERE result_id = ?1 AND key = 'headline'",
            [id],
        )
        .unwrap();
    let listed = text(&tb(&db, &["history", "--kind", "monitor"]));
    let row = listed
        .lines()
        .find(|l| l.split_whitespace().next() == Some(&id.to_string()))
        .unwrap();
    assert!(
        !row.contains(monitor["headline"].as_str().unwrap()),
        "{row}"
    );
    assert!(
        row.ends_with(&format!("more (truebench report {id})")),
        "{row}"
    );
}
