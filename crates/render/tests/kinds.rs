//! Every `Render` implementation on a recorded document of its kind (made by truebench on a
//! 2-CPU x86 VM, the imported one from an sbc-bench log): the summary, the Markdown, the
//! kind's HTML sections and its figures, as snapshots — a change in what users read shows in
//! review. `INSTA_UPDATE=always cargo test -p truebench-render --test kinds` rewrites them
//! after a wanted change.

mod common;

use common::{doc, docs};
use std::path::Path;
use truebench_render::kinds;

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name.to_string(), text));
}

/// The list of kinds is the test's: a kind without a recorded document fails here, naming it.
#[test]
fn every_kind_has_a_recorded_document() {
    let have: Vec<String> = docs()
        .iter()
        .map(|n| doc(n).body.kind().to_string())
        .collect();
    for kind in truebench_model::KINDS {
        assert!(
            have.iter().any(|k| k == kind),
            "no recorded document of kind {kind} in tests/data/kinds (have {have:?})"
        );
    }
}

/// One snapshot per form (`summary`, `markdown`, `html`, `figures`), each document's part
/// under its name: a new kind's recorded document adds its parts to the four, not files.
#[test]
fn every_kind_renders_its_summary_markdown_html_and_figures() {
    let mut forms: std::collections::BTreeMap<&str, String> = Default::default();
    let mut add = |form: &'static str, name: &str, text: &str| {
        let o = forms.entry(form).or_default();
        o.push_str(&format!("=== {name} ===\n{text}\n\n"));
    };
    for name in &docs() {
        let d = doc(name);
        add("summary", name, &kinds::summary(&d));
        add("markdown", name, &kinds::markdown(&d));
        let (head, details) = kinds::html_sections(&d);
        add(
            "html",
            name,
            &format!("{head}\n<!-- details -->\n{details}"),
        );
        let figures: Vec<String> = kinds::metrics(&d)
            .iter()
            .map(|m| {
                format!(
                    "{} = {} {}",
                    m.key,
                    m.value
                        .map(|v| format!("{v:.4}"))
                        .or(m.text.clone())
                        .unwrap_or_default(),
                    m.unit.as_deref().unwrap_or("")
                )
            })
            .collect();
        add("figures", name, &figures.join("\n"));
        // The whole page holds the kind's sections in the shared frame, self-contained.
        let page = kinds::html_page(&d);
        // (Its tables may lose dash-only columns on the page: compared by their headings.)
        for h2 in head.split("<h2>").skip(1) {
            let title = &h2[..h2.find("</h2>").unwrap_or(0)];
            assert!(
                page.contains(&format!("<h2>{title}</h2>")),
                "{name}: the page lacks its section {title:?}"
            );
        }
        // What was not checked is said once (it was listed again among the notes).
        for f in d
            .envelope
            .findings
            .iter()
            .filter(|f| f.kind == truebench_model::finding::FindingKind::NotChecked)
        {
            let key: String = f
                .message
                .chars()
                .take_while(|c| !"&<>\"'".contains(*c))
                .take(60)
                .collect();
            assert_eq!(
                page.matches(key.as_str()).count(),
                1,
                "{name}: said twice: {key}"
            );
        }
        // Self-contained: no address but the SVG namespace.
        let stripped = page.replace("http://www.w3.org/2000/svg", "");
        assert!(
            !stripped.contains("http://") && !stripped.contains("https://"),
            "{name}: the page refers to something outside it"
        );
        assert!(!kinds::label(&d).is_empty(), "{name}: no label");
    }
    for (form, text) in &forms {
        snapshot(form, text);
    }
}

/// What a row's evidence looks like in every kind that has rows: a row measured while a
/// critical finding happened shows INVALID with what, in text and HTML.
#[test]
fn an_invalid_row_says_so_in_text_and_html() {
    for name in ["governors-repeat", "net", "io", "interactivity"] {
        let mut d = doc(name);
        // The recorded document has no invalid row: what is asserted below is new.
        let (before, _) = kinds::html_sections(&d);
        assert!(
            !before.contains("invalid") && !before.contains("INVALID"),
            "{name}"
        );
        let why = "throttling";
        let mut v = serde_json::to_value(&d).unwrap();
        let rows = match name {
            "interactivity" => v["body"]["benchmarks"][0]["cells"].as_array_mut().unwrap(),
            _ => v["body"]["rows"].as_array_mut().unwrap(),
        };
        rows[0]["invalid"] = why.into();
        rows[0]["marks"] = serde_json::json!(["throttling"]);
        d = truebench_model::migrate(v).unwrap();
        let text = kinds::summary(&d);
        let (html, _) = kinds::html_sections(&d);
        match name {
            "interactivity" => {
                assert!(text.contains("INVALID (throttling)"), "{name}: {text}");
                assert!(
                    html.contains("INVALID") || html.contains("invalid"),
                    "{name}"
                );
            }
            _ => {
                assert!(text.contains("invalid"), "{name}: {text}");
                assert!(html.contains("invalid"), "{name}");
            }
        }
    }
}

/// An efficiency walk whose every OPP ran at one clock (the recorded-tree case: the tree's
/// OPPs set, this VM's clock measured): no chart against a clock that never moved, one line
/// saying so.
#[test]
fn efficiency_on_one_clock_draws_no_chart_against_it() {
    let mut d = doc("efficiency");
    let truebench_model::Body::Efficiency(b) = &mut d.body else {
        panic!("not an efficiency document");
    };
    let mut p = b.clusters[0].points[0].clone();
    p.opp_mhz = Some(1800);
    b.clusters[0].points.push(p.clone());
    p.opp_mhz = Some(1200);
    b.clusters[0].points.push(p);
    let page = kinds::html_page(&d);
    assert!(
        page.contains("Every OPP set ran at one measured clock (3694 MHz)"),
        "{page}"
    );
    assert!(
        !page.contains("vs clock</text>"),
        "a chart against the clock was drawn"
    );
}

/// The monitor page charts the system readings its timeline stores: memory here (it moved),
/// and pressure (a moment of CPU pressure), and says in one line what did not move (no disk
/// or network traffic during `sleep`).
#[test]
fn monitor_charts_the_system_readings_it_stored() {
    let d = doc("monitor");
    assert!(
        !d.envelope.timeline.extra.is_empty(),
        "the fixture has readings"
    );
    let page = kinds::html_page(&d);
    assert!(page.contains("<h2>System readings</h2>"), "{page}");
    assert!(page.contains(">Memory</text>"), "no memory chart");
    assert!(
        page.contains("Nothing moved (or nothing was read) in: disk traffic, network traffic."),
        "{page}"
    );
}

/// A result measured with --root of a recorded tree: its kernel clocks and its temperature
/// are the tree's files, so they are not charted as this machine's readings, and the page
/// says so.
#[test]
fn a_recorded_trees_clock_files_are_not_charted_as_live() {
    let d = doc("monitor-per-cluster");
    assert_eq!(d.envelope.inventory.root, "/tmp/rock");
    assert!(d
        .envelope
        .timeline
        .samples
        .iter()
        .any(|s| s.cluster_mhz.iter().any(Option::is_some)));
    let page = kinds::html_page(&d);
    assert!(
        page.contains("the kernel's clocks (they are the recorded tree's files"),
        "{page}"
    );
    assert!(
        !page.contains("Clock per cluster, whole run</text>"),
        "a clock chart was drawn"
    );
    assert!(!page.contains("no cpufreq and no cycle counters"), "{page}");
    // Its sensor file is as static: not charted either.
    assert!(
        page.contains("the temperature (the recorded tree's sensor file)"),
        "{page}"
    );
    assert!(!page.contains("Temperature, whole run</text>"), "{page}");
}

/// Interactivity's bar colours are explained when a marked cell gives a bar the second colour.
#[test]
fn interactivity_bars_say_what_their_colours_mean() {
    let mut d = doc("interactivity");
    let page = kinds::html_page(&d);
    assert!(
        !page.contains("measured while something was marked"),
        "no marked cell yet"
    );
    let truebench_model::Body::Interactivity(b) = &mut d.body else {
        panic!("not an interactivity document");
    };
    b.benchmarks[0].cells[0].evidence.marks = vec!["throttling".into()];
    let page = kinds::html_page(&d);
    assert!(
        page.contains("measured while something was marked"),
        "{page}"
    );
}
