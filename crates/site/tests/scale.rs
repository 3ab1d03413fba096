//! The site at a fleet's scale, bounded for CI: 3,000 generated results (three shards). In
//! headless Chromium, from `file://`: the shards load, the index's virtualised table shows the
//! newest rows, a filter and a sort give the right rows over all of them, a scroll shows the
//! rows of that place, at a phone's width (an iframe 390 px wide) the page does not scroll
//! sideways, at 1280 px each row's device, SoC, validity and scores lie inside the window, and
//! compare loads the shards of the results it shows. Without Chromium: the table without
//! script, a SoC of more than 500 results summarised per board, and a rebuild after one new
//! result that makes and writes only what changed. No timing is asserted (see
//! `bench/site_scale.sh`).

mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::site_rows;
use truebench_fixtures::chromium::{chromium, render};
use truebench_model::{Body, View};
use truebench_site::{build, build_over, write, Options, Stored};

const N: usize = 3000;

fn bases() -> &'static Vec<truebench_model::Document> {
    static B: OnceLock<Vec<truebench_model::Document>> = OnceLock::new();
    B.get_or_init(site_rows::bases)
}

/// The 3,000-result site, built once for every test of this file: the index, its shards and
/// compare (the result pages are made but not written: no test here opens one).
fn site() -> &'static (tempfile::TempDir, Vec<Stored>) {
    static S: OnceLock<(tempfile::TempDir, Vec<Stored>)> = OnceLock::new();
    S.get_or_init(|| {
        let results = site_rows::site_rows(bases(), N);
        let mut site = build(&results, &Options::default());
        site.files.retain(|p, _| !p.starts_with("r/"));
        site.keys.clear();
        let dir = tempfile::tempdir().unwrap();
        write::write(&site, &dir.path().join("site")).unwrap();
        // A static is never dropped.
        truebench_fixtures::remove_at_exit(dir.path());
        (dir, results)
    })
}

fn multi(s: &Stored) -> Option<u64> {
    match &s.doc.body {
        Body::Run(body) => {
            truebench_sbcbench::from_result::row(View {
                envelope: &s.doc.envelope,
                body,
            })
            .sevenzip_multi
        }
        _ => None,
    }
}

/// Open `page` (relative to the site) in an iframe `width` px wide, run `probe` (JavaScript
/// with `w` and `d`, the frame's window and document, filling the object `o`) once the frame
/// has loaded, and return `o`. The frame's window is asserted to be `width` wide.
fn probe(chrome: &Path, root: &Path, page: &str, width: u32, probe: &str) -> serde_json::Value {
    let harness = root.join(format!("probe-{width}-{}.html", page.len()));
    let html = format!(
        r##"<!DOCTYPE html><html><body style="margin:0"><pre id="out">no result</pre><script>
function rows(d) {{
  return Array.prototype.map.call(d.querySelectorAll("#results tbody tr[data-id]"), function (tr) {{
    var c = {{}};
    Array.prototype.forEach.call(tr.cells, function (td) {{ if (td.dataset.label) c[td.dataset.label] = td.textContent.trim(); }});
    return {{ id: +tr.dataset.id, cells: c }};
  }});
}}
var f = document.createElement("iframe");
f.style.cssText = "border:0;width:{width}px;height:800px";
f.addEventListener("load", function () {{
  var w = f.contentWindow, d = f.contentDocument, o = {{}};
  try {{
    o.innerWidth = w.innerWidth;
    {probe}
  }} catch (e) {{ o.error = String(e && e.stack || e); }}
  document.getElementById("out").textContent = JSON.stringify(o);
}});
f.src = "site/{page}";
document.body.appendChild(f);
</script></body></html>"##
    );
    std::fs::write(&harness, html).unwrap();
    let r = render(
        chrome,
        &harness,
        &[
            "--dump-dom",
            "--allow-file-access-from-files",
            &format!("--window-size={},900", width + 40),
        ],
    );
    let errors: Vec<&String> = r
        .console
        .iter()
        .filter(|l| l.contains("Failed to load") || l.contains("Uncaught") || l.contains("Error"))
        .collect();
    assert!(errors.is_empty(), "{page}: {errors:#?}");
    assert!(r.hosts.is_empty(), "{page}: asked for {:?}", r.hosts);
    let out = r
        .dom
        .split("<pre id=\"out\">")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .unwrap_or_else(|| panic!("{page}: no probe output in {}", r.dom));
    let text = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    let v: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{page}: {e}: {text}"));
    assert!(v.get("error").is_none(), "{page}: {}", v["error"]);
    assert_eq!(v["innerWidth"], width, "{page}: the frame's window");
    v
}

fn ids(v: &serde_json::Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect()
}

fn chrome() -> Option<PathBuf> {
    chromium()
}

#[test]
fn on_a_phone_the_shards_load_and_filter_sort_and_scroll_give_the_right_rows() {
    let Some(chrome) = chrome() else {
        truebench_fixtures::skip!("no chromium to open the site");
    };
    let (dir, results) = site();
    let v = probe(
        &chrome,
        dir.path(),
        "index.html",
        390,
        r##"
    var t = d.getElementById("results"), s = d.getElementById("scroller");
    o.ready = t.dataset.ready || null;
    o.failed = t.dataset.failed || null;
    o.noteHidden = d.getElementById("in-page").hidden;
    o.pageScroll = d.documentElement.scrollWidth;
    o.count = d.getElementById("count").textContent;
    o.first = rows(d);
    o.rowH = t.tBodies[0].rows[1].offsetHeight;
    s.scrollTop = 1000 * o.rowH;
    w.dispatchEvent(new Event("resize"));
    o.scrolled = rows(d);
    o.top = s.getBoundingClientRect().top;
    var at = d.elementFromPoint(50, o.top + 60);
    o.atTop = at && at.closest("tr") ? +at.closest("tr").dataset.id : null;
    var valid = d.getElementById("f-valid");
    valid.value = "valid";
    valid.dispatchEvent(new Event("change"));
    o.validCount = d.getElementById("count").textContent;
    o.validRows = rows(d);
    d.querySelector("button[data-sort=multi]").click();
    o.sorted = rows(d);
    o.hash = w.location.hash;
    "##,
    );
    assert_eq!(v["ready"], "1", "{v}");
    assert!(v["failed"].is_null());
    // Every row loaded: the note for a reader without script is gone.
    assert_eq!(v["noteHidden"], true, "{v}");
    assert!(
        v["pageScroll"].as_u64().unwrap() <= 390,
        "the page scrolls sideways at 390 px: {}",
        v["pageScroll"]
    );
    assert_eq!(v["count"], format!("{N} of {N} results"));
    // Newest first (the generator's dates grow with the id), and only the rows in view.
    let first = ids(&v["first"]);
    assert_eq!(&first[..3], &[N as i64, N as i64 - 1, N as i64 - 2]);
    assert!(first.len() < 100, "{} rows drawn", first.len());
    // After a scroll to the 1001st row: the rows around it, that one at the box's top.
    let scrolled = ids(&v["scrolled"]);
    let at = N as i64 - 1000;
    assert!(scrolled.contains(&at), "{scrolled:?}");
    assert!(scrolled.len() < 100);
    assert!(
        (v["atTop"].as_i64().unwrap() - at).abs() <= 2,
        "row at the top {} (expected about {at})",
        v["atTop"]
    );
    // Valid only: as many as the results say, each one valid.
    let valid = results
        .iter()
        .filter(|s| s.doc.envelope.valid && s.doc.envelope.complete)
        .count();
    assert!(valid > 0 && valid < N);
    assert_eq!(v["validCount"], format!("{valid} of {N} results"));
    for r in v["validRows"].as_array().unwrap() {
        assert_eq!(r["cells"]["Validity"], "valid", "{r}");
    }
    // Then sorted by 7-zip multi, highest first: the best valid result on top.
    let best = results
        .iter()
        .filter(|s| s.doc.envelope.valid && s.doc.envelope.complete)
        .filter_map(multi)
        .max()
        .unwrap();
    let shown: Vec<u64> = v["sorted"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["cells"]["7-zip multi"].as_str()?.parse().ok())
        .collect();
    assert_eq!(shown[0], best, "{shown:?}");
    assert!(shown.windows(2).all(|w| w[0] >= w[1]), "{shown:?}");
    let hash = v["hash"].as_str().unwrap();
    assert!(
        hash.contains("sort=multi%3Adesc") && hash.contains("valid=valid"),
        "{hash}"
    );
}

#[test]
fn at_1280_px_device_soc_validity_and_scores_fit_the_first_screen() {
    let Some(chrome) = chrome() else {
        truebench_fixtures::skip!("no chromium to open the site");
    };
    let (dir, _) = site();
    let v = probe(
        &chrome,
        dir.path(),
        "index.html",
        1280,
        r##"
    o.ready = d.getElementById("results").dataset.ready || null;
    o.cells = [];
    var trs = d.querySelectorAll("#results tbody tr[data-id]");
    for (var i = 0; i < 10; i++) {
      ["device", "soc", "validity", "multi", "single", "aes", "memcpy", "memset"].forEach(function (k) {
        var td = trs[i].querySelector("td.c-" + k);
        o.cells.push([k, td.getBoundingClientRect().right, td.getBoundingClientRect().bottom]);
      });
    }
    o.pageScroll = d.documentElement.scrollWidth;
    "##,
    );
    assert_eq!(v["ready"], "1");
    for c in v["cells"].as_array().unwrap() {
        let right = c[1].as_f64().unwrap();
        assert!(right <= 1280.0, "{} ends at {right} px, beyond 1280", c[0]);
    }
    assert!(v["pageScroll"].as_u64().unwrap() <= 1280);
}

#[test]
fn compare_loads_the_shards_of_the_results_it_shows() {
    let Some(chrome) = chrome() else {
        truebench_fixtures::skip!("no chromium to open the site");
    };
    let (dir, results) = site();
    // Two results of one kind in two shards.
    let (a, b) = (5, 2999);
    let v = probe(
        &chrome,
        dir.path(),
        &format!("compare.html#ids={a},{b}"),
        800,
        r##"
    o.heads = Array.prototype.map.call(d.querySelectorAll("#compare-table thead th"), function (th) { return th.textContent; });
    o.rows = d.querySelectorAll("#compare-table tbody tr").length;
    o.badge = d.getElementById("fair-badge").textContent;
    "##,
    );
    let label = |id: i64| {
        let s = results.iter().find(|s| s.entry.id == id).unwrap();
        format!("#{id} {}", s.entry.device.as_deref().unwrap())
    };
    let heads: Vec<&str> = v["heads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect();
    assert!(heads[1].contains(&label(a)), "{heads:?}");
    assert!(heads[2].contains(&label(b)), "{heads:?}");
    assert!(v["rows"].as_u64().unwrap() > 5, "{v}");
    assert!(v["badge"] == "FAIR" || v["badge"] == "NOT FAIR");
}

#[test]
fn without_script_the_newest_rows_and_every_socs_page_are_in_the_index() {
    let (dir, results) = site();
    let index = std::fs::read_to_string(dir.path().join("site/index.html")).unwrap();
    let rows = index.matches("<tr data-id=").count();
    assert_eq!(rows, truebench_site::IN_PAGE);
    assert!(index.contains(&format!("<tr data-id=\"{N}\"")));
    assert!(index.contains("The newest 200 of 3000 results are listed here"));
    assert!(
        index.contains("data-shards=\"0,1,2,3\""),
        "ids 1–3000: four blocks"
    );
    // Every SoC a result names has its page linked from the index.
    let socs = index.matches("<li><a href=\"soc/").count();
    assert!(socs > 20, "{socs} SoC pages linked");
    for k in 0..4 {
        assert!(dir
            .path()
            .join(format!("site/assets/rows/{:04}.js", k))
            .is_file());
    }
    assert_eq!(results.len(), N);
}

#[test]
fn a_soc_of_more_than_500_results_is_summarised_per_board() {
    // Every result of one SoC: copies of an RK3588 board's log.
    let at = bases()
        .iter()
        .position(|d| {
            d.envelope
                .inventory
                .soc
                .as_ref()
                .is_some_and(|s| s.name.contains("RK3588"))
        })
        .expect("an RK3588 log in the corpus");
    let base = &bases()[at..=at];
    let results = site_rows::site_rows(base, 520);
    let site = build(&results, &Options::default());
    let (path, page) = site
        .files
        .iter()
        .find(|(p, _)| p.starts_with("soc/"))
        .expect("a SoC page");
    let page = String::from_utf8(page.clone()).unwrap();
    assert!(page.contains("id=\"summarised\""), "{path}");
    assert!(page.contains("520 results: more than 500"));
    // A dot per board, not per result; a table row per board whose counts add up.
    let boards: usize = {
        let mut d: Vec<&str> = results
            .iter()
            .map(|s| s.entry.device.as_deref().unwrap())
            .collect();
        d.sort();
        d.dedup();
        d.len()
    };
    assert!(boards > 1 && boards < 520);
    let per_chart = page.matches("<circle").count();
    assert!(
        per_chart <= 5 * boards,
        "{per_chart} dots for {boards} boards"
    );
    let table = &page[page.find("id=\"boards\"").unwrap()..];
    assert_eq!(
        table.matches("<tr><td data-label=\"Board\">").count(),
        boards
    );
    let counted: usize = table
        .split("<td data-label=\"Results\" class=\"num\">")
        .skip(1)
        .map(|c| c.split('<').next().unwrap().parse::<usize>().unwrap())
        .sum();
    assert_eq!(counted, 520);
    assert!(!page.contains("href=\"../r/1.html\""), "no row per result");
}

#[test]
fn a_rebuild_after_one_new_result_makes_and_writes_only_what_changed() {
    let n = 1200;
    let mut results = site_rows::site_rows(bases(), n);
    let opts = Options::default();
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("site");
    let first = write::write(&build(&results, &opts), &dir).unwrap();
    assert!(first.written.len() > n);
    // The same history again: nothing made anew, nothing written.
    let site = build_over(&results, &opts, &write::keys(&dir));
    let pages_kept = site.reused.iter().filter(|p| p.starts_with("r/")).count();
    assert_eq!(pages_kept, n, "every page kept");
    // Nor any shard, SoC page or standing file: only what no input key covers is made.
    let made: Vec<&str> = site.files.keys().map(String::as_str).collect();
    assert_eq!(
        made,
        [
            "assets/report.css",
            "assets/site.css",
            "assets/site.js",
            "assets/standing.js",
            "compare.html",
            "index.html"
        ]
    );
    let again = write::write(&site, &dir).unwrap();
    assert!(again.written.is_empty(), "{:?}", again.written);
    // One more result.
    results.insert(0, site_rows::one(bases(), n as i64 + 1));
    let site = build_over(&results, &opts, &write::keys(&dir));
    let w = write::write(&site, &dir).unwrap();
    let new = format!("r/{}.html", n + 1);
    assert!(w.written.contains(&new), "{:?}", w.written);
    assert!(w.written.contains(&"assets/rows/0001.js".to_string()));
    assert!(w.written.contains(&"index.html".to_string()));
    assert!(
        !w.written.iter().any(|p| p.contains("/0000.js")),
        "the first shard is untouched: {:?}",
        w.written
    );
    // Its page, its shards, the index, its SoC's page and the pages of its device that link
    // to it (at most the neighbours on each side): a few dozen, not the history.
    assert!(
        w.written.len() <= 40,
        "{} written: {:?}",
        w.written.len(),
        w.written
    );
    // Made: what the new result changed, not every SoC's page and standing file (each has
    // an input key): at most its SoC's two, and only its shard of each kind.
    let made = |prefix: &str| site.files.keys().filter(|p| p.starts_with(prefix)).count();
    assert!(
        made("soc/") <= 1 && made("assets/standing/") <= 1,
        "{:?}",
        site.files.keys()
    );
    assert_eq!(made("assets/rows/") + made("assets/detail/"), 2);
    assert!(site.files.len() <= 40, "{:?}", site.files.keys());
    assert!(std::fs::read_to_string(dir.join(&new))
        .unwrap()
        .contains("<html"));
    // A page deleted by hand is made again, not trusted to the list of keys.
    std::fs::remove_file(dir.join("r/7.html")).unwrap();
    let site = build_over(&results, &opts, &write::keys(&dir));
    assert!(site.files.contains_key("r/7.html"));
    write::write(&site, &dir).unwrap();
    assert!(dir.join("r/7.html").is_file());
    // One more result that is ranked among its SoC's (valid, complete, a SoC named): every
    // result of its group now stands against one more, yet of the result pages only the new
    // one and at most its 12 neighbours on its device's list are written — the standings
    // live in the SoC's one standing file.
    let ranked_of = |s: &Stored| {
        let e = &s.doc.envelope;
        (e.valid && e.complete && s.doc.kind() == "run")
            .then(|| e.inventory.soc.as_ref().map(|c| c.name.clone()))
            .flatten()
    };
    let mut groups: std::collections::HashMap<String, Vec<&Stored>> = Default::default();
    for s in &results {
        if let Some(soc) = ranked_of(s) {
            groups.entry(soc).or_default().push(s);
        }
    }
    let biggest = groups.values().max_by_key(|g| g.len()).unwrap();
    assert!(biggest.len() > 13, "a group of {}", biggest.len());
    // A copy of one of them (the same SoC and tools) on a machine of its own, newer than
    // every result.
    let mut doc = biggest[0].doc.clone();
    doc.envelope.inventory.device = Some("a board new to the site".into());
    doc.envelope.hostname = Some("new-node".into());
    doc.envelope.started = results[0].doc.envelope.started.clone();
    doc.envelope.started.unix_ms += 3_600_000;
    let ranked = site_rows::stored_log(n as i64 + 2, doc, "fleet-ranked.txt");
    results.insert(0, ranked);
    let site = build_over(&results, &opts, &write::keys(&dir));
    let w = write::write(&site, &dir).unwrap();
    let pages = w.written.iter().filter(|p| p.starts_with("r/")).count();
    assert!(pages <= 13, "{pages} result pages written: {:?}", w.written);
    let standing: Vec<&String> = w
        .written
        .iter()
        .filter(|p| p.starts_with("assets/standing/"))
        .collect();
    assert_eq!(standing.len(), 1, "{:?}", w.written);
}
