//! `truebench site` end to end: the corpus's sbc-bench logs imported as a folder, with
//! sbc-bench's published Results.md, plus recorded results of every kind; the site's links
//! all stay inside its folder, and in headless Chromium the index sorts and filters, result,
//! SoC and compare pages open with no failed request, and compare says what `truebench
//! compare` says. Screenshots of each page type are written under the test's target folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use truebench_fixtures::chromium::{chromium, render};

use crate::common::run_with_db as tb;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ok(o: Output, what: &str) -> String {
    assert!(
        o.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The rows of the index as the DOM has them: (id, hidden, cells by column label).
fn rows(dom: &str) -> Vec<(i64, bool, BTreeMap<String, String>)> {
    let mut out = Vec::new();
    for part in dom.split("<tr ").skip(1) {
        let Some(id) = part
            .strip_prefix("data-id=\"")
            .and_then(|p| p.split('"').next())
            .and_then(|i| i.parse().ok())
        else {
            continue;
        };
        let head = &part[..part.find('>').unwrap_or(0)];
        let hidden = head.contains("hidden");
        let body = &part[..part.find("</tr>").unwrap_or(part.len())];
        let mut cells = BTreeMap::new();
        for c in body.split("<td data-label=\"").skip(1) {
            let label = c.split('"').next().unwrap().to_string();
            let inner = &c[c.find('>').unwrap() + 1..c.find("</td>").unwrap_or(c.len())];
            cells.insert(label, strip_tags(inner));
        }
        out.push((id, hidden, cells));
    }
    out
}

fn strip_tags(s: &str) -> String {
    let mut o = String::new();
    let mut tag = false;
    for c in s.chars() {
        match c {
            '<' => tag = true,
            '>' => tag = false,
            _ if !tag => o.push(c),
            _ => {}
        }
    }
    o.replace("&amp;", "&").trim().to_string()
}

/// A shard's script (`NAME(k, a, b);`) as its JSON arguments after the shard's number.
fn shard_args(text: &str) -> Vec<serde_json::Value> {
    let inner = &text[text.find('(').unwrap() + 1..text.rfind(')').unwrap()];
    let mut rest = &inner[inner.find(',').unwrap() + 1..];
    let mut out = Vec::new();
    loop {
        let mut de = serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
        match de.next() {
            Some(Ok(v)) => out.push(v),
            _ => break,
        }
        rest = &rest[de.byte_offset()..];
        match rest.strip_prefix(',') {
            Some(r) => rest = r,
            None => break,
        }
    }
    out
}

/// Every row of the site's index shards, each field by name (strings resolved).
fn shard_rows(out: &Path) -> Vec<BTreeMap<String, serde_json::Value>> {
    let mut rows = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(out.join("assets/rows"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in files {
        let args = shard_args(&std::fs::read_to_string(&f).unwrap());
        let strings = args[0].as_array().unwrap();
        let text = |v: &serde_json::Value| match v.as_u64() {
            Some(i) => strings[i as usize].clone(),
            None => serde_json::Value::Null,
        };
        for r in args[1].as_array().unwrap() {
            let mut m = BTreeMap::new();
            for (i, name) in truebench_site::shards::FIELDS.iter().enumerate() {
                let v = &r[i];
                let v = match *name {
                    "id" | "unix_ms" | "multi" | "single" | "aes" | "memcpy" | "memset"
                    | "valid" | "throttled" => v.clone(),
                    "core_types" => v.as_array().unwrap().iter().map(text).collect(),
                    "published" => match v.as_array() {
                        Some(list) => list
                            .iter()
                            .map(|p| {
                                p.as_array()
                                    .unwrap()
                                    .iter()
                                    .map(text)
                                    .collect::<serde_json::Value>()
                            })
                            .collect(),
                        None => serde_json::Value::Array(Vec::new()),
                    },
                    _ => text(v),
                };
                m.insert(name.to_string(), v);
            }
            rows.push(m);
        }
    }
    rows
}

/// The score of a cell (`6480published: 6490` → 6480); None for `-`.
fn score(cell: &str) -> Option<u64> {
    let digits: String = cell.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// Every `href`/`src` of every page leads to a file inside the folder.
fn links_stay_inside(out: &Path) -> usize {
    let root = out.canonicalize().unwrap();
    let mut checked = 0;
    let mut pages = vec![out.join("index.html"), out.join("compare.html")];
    for sub in ["r", "soc"] {
        for e in std::fs::read_dir(out.join(sub)).unwrap() {
            pages.push(e.unwrap().path());
        }
    }
    for page in pages {
        let html = std::fs::read_to_string(&page).unwrap();
        for attr in [" href=\"", " src=\""] {
            for (i, _) in html.match_indices(attr) {
                let v = &html[i + attr.len()..];
                let v = &v[..v.find('"').unwrap()];
                if v.starts_with('#') {
                    continue;
                }
                assert!(
                    !v.contains("://") && !v.starts_with('/'),
                    "{}: {v} leads outside the folder",
                    page.display()
                );
                let file = v.split('#').next().unwrap();
                let target = page.parent().unwrap().join(file);
                let target = target
                    .canonicalize()
                    .unwrap_or_else(|e| panic!("{}: {v}: {e}", page.display()));
                assert!(target.starts_with(&root), "{}: {v}", page.display());
                checked += 1;
            }
        }
    }
    checked
}

/// A page as Chromium renders it: no console error (a failed load shows there), no request
/// to any host; the DOM after its script ran.
fn open(chrome: &Path, page: &str, width: u32) -> String {
    let r = render(
        chrome,
        Path::new(page),
        &["--dump-dom", &format!("--window-size={width},900")],
    );
    let errors: Vec<&String> = r
        .console
        .iter()
        .filter(|l| l.contains("Failed to load") || l.contains("Uncaught") || l.contains("Error"))
        .collect();
    assert!(errors.is_empty(), "{page}: {errors:#?}");
    assert!(r.hosts.is_empty(), "{page}: asked for {:?}", r.hosts);
    r.dom
}

#[test]
fn a_site_of_the_corpus_and_of_every_kind() {
    let Some(chrome) = chromium() else {
        truebench_fixtures::skip!("no chromium to open the site");
    };
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("history.sqlite");
    // The whole results folder in one go, Results.md among the logs (skipped with a hint).
    let logs = tmp.path().join("results");
    std::fs::create_dir(&logs).unwrap();
    let all = truebench_fixtures::sbc_bench::logs();
    for (name, text) in &all {
        std::fs::write(logs.join(name), text).unwrap();
    }
    let results_md = repo().join("tests/data/sbc-bench/Results.md");
    std::fs::copy(&results_md, logs.join("Results.md")).unwrap();
    let o = tb(&db, &["import", logs.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    ok(o, "import of the folder");
    assert!(
        err.contains("skipped 1 file") && err.contains("--results-md"),
        "{err}"
    );
    // A result of every kind, made on fixture roots and this machine.
    let kinds = repo().join("crates/render/tests/data/kinds");
    let mut docs: Vec<String> = std::fs::read_dir(&kinds)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| p.display().to_string())
        .collect();
    docs.sort();
    let mut args = vec!["import"];
    args.extend(docs.iter().map(String::as_str));
    ok(tb(&db, &args), "import of every kind");
    let entries: Vec<serde_json::Value> =
        serde_json::from_str(&ok(tb(&db, &["history", "--json"]), "history")).unwrap();
    let kinds_stored: std::collections::BTreeSet<&str> = entries
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds_stored.len(),
        truebench_model::KINDS.len(),
        "{kinds_stored:?}"
    );

    let out = tmp.path().join("site");
    let build = || {
        let args = [
            "site",
            out.to_str().unwrap(),
            "--results-md",
            results_md.to_str().unwrap(),
        ];
        ok(
            tb(
                &db,
                &[&args[..], &["--title", "Boards <compared>"]].concat(),
            ),
            "site",
        )
    };
    let t0 = std::time::Instant::now();
    let said = build();
    println!("site: {said}(built in {:.1} s)", t0.elapsed().as_secs_f64());

    // Every stored result is in the index's shards and has its page; the newest are in the
    // page itself; every link stays inside.
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert_eq!(
        rows(&index).len(),
        entries.len().min(truebench_site::IN_PAGE)
    );
    let data = shard_rows(&out);
    let listed: Vec<(i64, bool, BTreeMap<String, String>)> = data
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or("-").to_string();
            let cells = BTreeMap::from([
                ("SoC".to_string(), s("soc")),
                ("Kind".to_string(), s("kind")),
                ("Validity".to_string(), s("validity")),
            ]);
            (r["id"].as_i64().unwrap(), false, cells)
        })
        .collect();
    assert_eq!(listed.len(), entries.len());
    for e in &entries {
        let id = e["id"].as_i64().unwrap();
        assert!(listed.iter().any(|r| r.0 == id), "#{id} not in the index");
        assert!(
            out.join(format!("r/{id}.html")).is_file(),
            "#{id} has no page"
        );
    }
    assert!(index.contains("Boards &lt;compared&gt;"));
    let links = links_stay_inside(&out);
    assert!(links > entries.len() * 3, "{links} links checked");
    println!("{links} links checked: each leads to a file inside the site's folder");
    // Where the published row differs from the log's, both are shown.
    let differing: Vec<i64> = data
        .iter()
        .filter(|r| !r["published"].as_array().unwrap().is_empty())
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert!(!differing.is_empty());
    assert!(rows(&index)
        .iter()
        .any(|r| r.2.values().any(|c| c.contains("published: "))));
    let page = std::fs::read_to_string(out.join(format!("r/{}.html", differing[0]))).unwrap();
    assert!(page.contains("The published Results.md row differs from this log"));
    // And exactly where they differ: the cells the Results.md agreement test explains one by
    // one (its exception list, kH/s aside — the site has no kH/s column), no more, no fewer.
    let mut shown: Vec<[String; 4]> = Vec::new();
    for r in &data {
        let log = r["source"].as_str().unwrap().replace("sbc-bench log ", "");
        for p in r["published"].as_array().unwrap() {
            let p: Vec<String> = p
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap().to_string())
                .collect();
            shown.push([log.clone(), p[0].clone(), p[2].clone(), p[1].clone()]);
        }
    }
    let mut explained: Vec<[String; 4]> = truebench_fixtures::sbc_bench::tsv("row_exceptions.tsv")
        .into_iter()
        .filter(|e| e[1] != "kH/s")
        .map(|e| [e[0].clone(), e[1].clone(), e[2].clone(), e[3].clone()])
        .collect();
    shown.sort();
    explained.sort();
    assert_eq!(shown.len(), explained.len());
    assert_eq!(shown, explained);

    // Sorting: 7-zip multi, highest first, unknown last.
    let base = out.join("index.html").display().to_string();
    // The table draws the rows in view: the first of the order.
    let dom = open(&chrome, &format!("{base}#sort=multi:desc"), 1280);
    assert!(dom.contains(&format!("{n} of {n} results", n = entries.len())));
    let all: Vec<u64> = data.iter().filter_map(|r| r["multi"].as_u64()).collect();
    assert!(all.len() > 100);
    let multi: Vec<Option<u64>> = rows(&dom)
        .iter()
        .map(|r| score(&r.2["7-zip multi"]))
        .collect();
    assert!(
        multi.len() > 10 && multi.len() < 100,
        "{} drawn",
        multi.len()
    );
    assert_eq!(multi[0], all.iter().max().copied());
    assert!(multi.windows(2).all(|w| w[0] >= w[1]), "{multi:?}");
    assert!(dom.contains("aria-sort=\"descending\""));
    // Ascending, unknown still last: the lowest known first.
    let dom = open(&chrome, &format!("{base}#sort=multi:asc"), 1280);
    let multi: Vec<Option<u64>> = rows(&dom)
        .iter()
        .map(|r| score(&r.2["7-zip multi"]))
        .collect();
    assert_eq!(multi[0], all.iter().min().copied());
    // Filtering: one SoC, then valid results of one kind; the count says so.
    let soc = "Rockchip RK3399";
    let expected = listed.iter().filter(|r| r.2["SoC"] == soc).count();
    assert!(expected >= 5);
    let dom = open(&chrome, &format!("{base}#soc=Rockchip%20RK3399"), 1280);
    let visible: Vec<_> = rows(&dom).into_iter().filter(|r| !r.1).collect();
    assert_eq!(visible.len(), expected);
    assert!(visible.iter().all(|r| r.2["SoC"] == soc));
    assert!(dom.contains(&format!("{expected} of {} results", entries.len())));
    let dom = open(&chrome, &format!("{base}#kind=net&sort=device:asc"), 390);
    let visible: Vec<_> = rows(&dom).into_iter().filter(|r| !r.1).collect();
    assert_eq!(visible.len(), 1);
    assert_eq!(visible[0].2["Kind"], "net");

    // A result page and a SoC page open from the index with everything they load.
    let imported = differing[0];
    let dom = open(
        &chrome,
        &out.join(format!("r/{imported}.html")).display().to_string(),
        1280,
    );
    // Linked back, and to the same device's results in the index; styled by both sheets.
    assert!(
        dom.contains("href=\"../index.html#q="),
        "no link to the same device"
    );
    assert!(dom.contains("../assets/report.css") && dom.contains("../assets/site.css"));
    let soc_page = out.join("soc/rockchip-rk3399.html");
    assert!(index.contains("soc/rockchip-rk3399.html"));
    let dom = open(&chrome, &soc_page.display().to_string(), 1280);
    assert_eq!(
        dom.matches("<svg class=\"chart\"").count(),
        5,
        "a chart per score"
    );
    assert!(dom.contains("What explains the spread"));

    // Compare two runs: side by side, with what `truebench compare` finds unfair.
    // A valid run and one that is not: the comparison has reasons to be unfair.
    let of_soc = |valid: bool| {
        listed
            .iter()
            .find(|r| {
                r.2["SoC"] == soc && r.2["Kind"] == "run" && (r.2["Validity"] == "valid") == valid
            })
            .map(|r| r.0)
            .unwrap()
    };
    let runs = [of_soc(true), of_soc(false)];
    let dom = open(
        &chrome,
        &format!(
            "{}#ids={},{}",
            out.join("compare.html").display(),
            runs[0],
            runs[1]
        ),
        1280,
    );
    let table = &dom[dom.find("id=\"compare-table\"").unwrap()..];
    let table = &table[..table.find("</table>").unwrap()];
    assert_eq!(
        table.matches("scope=\"col\"").count(),
        3,
        "a figure column and two results"
    );
    assert!(table.matches("<tr").count() > 5);
    let store = truebench_store::Store::open(&db).unwrap();
    let label = |id: i64| {
        let shard = out.join(format!(
            "assets/detail/{}",
            truebench_site::shards::file(truebench_site::shards::shard_of(id))
        ));
        let args = shard_args(&std::fs::read_to_string(shard).unwrap());
        args[0]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap()["label"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let items: Vec<(String, truebench_model::RunResult)> = runs
        .iter()
        .map(|id| {
            let doc = store.get(*id).unwrap().unwrap();
            (label(*id), doc.into_typed().unwrap())
        })
        .collect();
    let rust = truebench_store::compare::compare(&items);
    let list = &dom[dom.find("id=\"fair-list\"").unwrap()..];
    let list = &list[..list.find("</ul>").unwrap()];
    let shown: Vec<String> = list
        .split("<li>")
        .skip(1)
        .map(|l| {
            strip_tags(&l.replace("</li>", ""))
                .replace("&gt;", ">")
                .replace("&lt;", "<")
        })
        .collect();
    // The shared rule is exercised, not two empty lists.
    assert!(!rust.warnings.is_empty());
    assert_eq!(shown, rust.warnings);
    assert!(dom.contains(if rust.warnings.is_empty() {
        "FAIR"
    } else {
        "NOT FAIR"
    }));

    // Screenshots of each page type, for a reader of the test's output.
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("site-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    for (name, page, width) in [
        ("index-1280", format!("{base}#sort=multi:desc"), 1280),
        ("index-390", format!("{base}#soc=Rockchip%20RK3399"), 390),
        (
            "result",
            out.join(format!("r/{imported}.html")).display().to_string(),
            1280,
        ),
        ("soc", soc_page.display().to_string(), 1280),
        (
            "compare",
            format!(
                "{}#ids={},{}",
                out.join("compare.html").display(),
                runs[0],
                runs[1]
            ),
            1280,
        ),
    ] {
        let png = shots.join(format!("{name}.png"));
        std::fs::remove_file(&png).ok();
        render(
            &chrome,
            Path::new(&page),
            &[
                &format!("--screenshot={}", png.display()),
                &format!("--window-size={width},1200"),
                "--hide-scrollbars",
            ],
        );
        let bytes = std::fs::read(&png).unwrap_or_else(|e| panic!("{name}: no screenshot: {e}"));
        // A page with content: a blank one of this size compresses to a few KiB.
        assert!(
            bytes.starts_with(b"\x89PNG") && bytes.len() > 20_000,
            "{name}: {} bytes",
            bytes.len()
        );
        println!("screenshot: {} ({} KiB)", png.display(), bytes.len() / 1024);
    }

    // A rebuild writes nothing new; a narrower one removes only its own pages, never the
    // reader's file beside them.
    let again = build();
    assert!(again.contains("(0 written"), "{again}");
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let narrow = ok(
        tb(&db, &["site", out.to_str().unwrap(), "--kind", "net"]),
        "site --kind net",
    );
    assert!(!narrow.contains(" 0 removed"), "{narrow}");
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    assert!(!out.join(format!("r/{imported}.html")).exists());
    assert_eq!(
        rows(&std::fs::read_to_string(out.join("index.html")).unwrap()).len(),
        1
    );

    // A page in the way that no build wrote stops the build, named.
    let other = tmp.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("index.html"), "someone's page").unwrap();
    let o = tb(&db, &["site", other.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("index.html") && err.contains("nothing was written"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(other.join("index.html")).unwrap(),
        "someone's page"
    );
}
