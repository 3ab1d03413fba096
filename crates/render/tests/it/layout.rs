//! Every kind's page as a reader sees it, in headless Chromium at a laptop's 1280 px and a
//! phone's 390 px, each in a frame of that width (the headless window is never narrower than
//! 500 px; the width each was laid out at is asserted), every page at both widths in one
//! holding page so that Chromium starts once: nothing makes the page wider than the screen, every table fits its card
//! (on a phone each row is a card of "header: value" lines), unit text is shown as written
//! (no `text-transform` turning "µs" into "ΜS"), the headline is the first thing after the
//! header, and no headline card's or chart's text runs outside it.
//! Skipped with a message when Chromium is not installed.

use crate::common;

use common::{doc, docs};
use truebench_fixtures::chromium::{chromium, render};
use truebench_render::kinds;

/// Measures the page after layout and writes what it found into `<body data-layout=…>`
/// (only in the test's copy: the report itself has no script).
const MEASURE: &str = r#"<script>
addEventListener('load', () => {
  const w = document.documentElement.clientWidth;
  const out = {w, inner: innerWidth, page: document.documentElement.scrollWidth, tables: [], transformed: []};
  for (const t of document.querySelectorAll('table')) {
    const box = t.closest('section,header');
    const limit = box ? box.clientWidth : w;
    const r = t.getBoundingClientRect();
    if (r.width > limit + 1) {
      const h = t.closest('section') && t.closest('section').querySelector('h2,h3');
      out.tables.push((h ? h.textContent : '?') + ': ' + Math.round(r.width) + ' > ' + limit);
    }
  }
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('');
    if (/[µμ]/.test(own) && getComputedStyle(el).textTransform !== 'none') {
      out.transformed.push(el.tagName + ': ' + own.trim().slice(0, 40));
    }
  }
  // The headline is the first thing after the header.
  const header = document.querySelector('main > header');
  const next = header && header.nextElementSibling;
  out.headline_first = !!(next && next.classList.contains('headline'));
  // No headline card's text runs outside its card.
  out.cards = [];
  for (const c of document.querySelectorAll('.headline .card')) {
    for (const el of c.querySelectorAll('*')) {
      if (el.scrollWidth > c.clientWidth + 1) {
        out.cards.push(el.textContent.trim().slice(0, 40) + ': ' + el.scrollWidth + ' > ' + c.clientWidth);
      }
    }
  }
  // No chart's text runs outside its chart.
  out.chart_text = [];
  for (const svg of document.querySelectorAll('svg.chart')) {
    const box = svg.getBoundingClientRect();
    for (const t of svg.querySelectorAll('text')) {
      const r = t.getBoundingClientRect();
      if (r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1)) {
        out.chart_text.push((svg.getAttribute('aria-label') || '?') + ': "' + t.textContent.slice(0, 30) + '"');
      }
    }
  }
  document.body.setAttribute('data-layout', JSON.stringify(out));
  // In the phone's frame: the page that holds it writes what was found.
  if (parent !== window) parent.postMessage(JSON.stringify(out), '*');
});
</script>"#;

/// The holding page: every page at every width, each in a frame of that width (a phone's
/// screen is only real inside a frame, since headless Chromium keeps its window at least
/// 500 px wide). Each framed page posts what it measured, and the holding page writes all that
/// has arrived, by `name@width`, into its own `<body data-layout=…>` (the test names each
/// page that never posted).
fn frames(pages: &[(String, u32)]) -> String {
    // The listener comes first: a frame that loads early posts before a later script runs.
    let mut html = String::from(
        r#"<!doctype html><html><head><script>
const found = {};
addEventListener('message', e => {
  const f = [...document.querySelectorAll('iframe')].find(f => f.contentWindow === e.source);
  if (!f) return;
  found[f.dataset.key] = JSON.parse(e.data);
  document.body.setAttribute('data-layout', JSON.stringify(found));
});
</script></head><body style="margin:0">
"#,
    );
    for (name, width) in pages {
        html.push_str(&format!(
            "<iframe loading=\"eager\" data-key=\"{name}@{width}\" src=\"{name}.html\" style=\"display:block;width:{width}px;height:900px;border:0\"></iframe>\n"
        ));
    }
    html.push_str("</body></html>");
    html
}

#[test]
fn every_page_fits_the_screen_and_shows_units_as_written() {
    let Some(chrome) = chromium() else {
        truebench_fixtures::skip!("no chromium to render the pages");
    };
    let dir = tempfile::tempdir().unwrap();
    let mut problems = Vec::new();
    let names = docs();
    for name in &names {
        let d = doc(name);
        // Run results carry the history's "Where it stands" section, with lines as long as
        // real ones, so it is laid out at both widths too.
        let standing: Vec<String> = if d.kind() == "run" {
            (0..3)
                .map(|i| format!("sevenzip_multi 1341{i} MIPS: 93rd percentile of 7 BCM2712 run results with 7-zip 16.x, cpuminer cpuminer-multi 1.3.7, openssl 3.0, tinymembench v0.4.9-nuumio"))
                .collect()
        } else {
            Vec::new()
        };
        let frame = truebench_render::report::Frame {
            standing: &standing,
            ..Default::default()
        };
        let html =
            kinds::html_page_in(&d, frame).replacen("</body>", &format!("{MEASURE}</body>"), 1);
        if d.kind() == "run" {
            assert!(html.contains("<h2>Where it stands</h2>"), "{name}");
        }
        std::fs::write(dir.path().join(format!("{name}.html")), html).unwrap();
    }
    let widths = [1280, 390];
    let pages: Vec<(String, u32)> = names
        .iter()
        .flat_map(|n| widths.map(|w| (n.to_string(), w)))
        .collect();
    let holder = dir.path().join("all.html");
    std::fs::write(&holder, frames(&pages)).unwrap();
    // Wide enough for the widest frame; time for every frame's message before the dump.
    let out = render(
        &chrome,
        &holder,
        &[
            "--dump-dom",
            "--window-size=1300,900",
            "--virtual-time-budget=20000",
        ],
    );
    let Some(at) = out.dom.find("data-layout=\"") else {
        panic!("no page was measured; console: {:?}", out.console);
    };
    let raw = &out.dom[at + "data-layout=\"".len()..];
    let raw = &raw[..raw.find('"').unwrap_or(raw.len())];
    let json = raw
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
        .replace("&gt;", ">");
    let all: serde_json::Value =
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    for (name, width) in &pages {
        let v = &all[format!("{name}@{width}")];
        if v.is_null() {
            problems.push(format!("{name} @{width}: not measured"));
            continue;
        }
        let w = v["w"].as_u64().unwrap();
        // The width asked for is the width the page was laid out at.
        if v["inner"].as_u64() != Some(u64::from(*width)) {
            problems.push(format!("{name} @{width}: laid out {} px wide", v["inner"]));
        }
        if v["page"].as_u64().unwrap() > w {
            problems.push(format!("{name} @{width}: page {} px wide", v["page"]));
        }
        // At both widths: on a phone each row is a card of "header: value" lines.
        for t in v["tables"].as_array().unwrap() {
            problems.push(format!("{name} @{width}: table {t}"));
        }
        if v["headline_first"] != serde_json::Value::Bool(true) {
            problems.push(format!(
                "{name} @{width}: the headline is not first after the header"
            ));
        }
        for c in v["chart_text"].as_array().unwrap() {
            problems.push(format!(
                "{name} @{width}: chart text outside its chart: {c}"
            ));
        }
        for c in v["cards"].as_array().unwrap() {
            problems.push(format!(
                "{name} @{width}: headline card text overflows: {c}"
            ));
        }
        for t in v["transformed"].as_array().unwrap() {
            problems.push(format!("{name} @{width}: unit text transformed: {t}"));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
