//! One result as the site shows it: the index's cells, the figures `compare` reads, what makes
//! a comparison unfair, and the page that frames its report.

use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

use truebench_model::finding::Severity;
use truebench_model::{Body, Document, View};
use truebench_render::report::Frame;
use truebench_sbcbench::convert::import_source;
use truebench_sbcbench::row::{cell_agrees, MarkdownRow, COLUMNS};
use truebench_store::fairness::Fairness;

use crate::{esc, slug};

/// A figure of a result (`compare`'s rows).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Figure {
    pub key: String,
    pub label: String,
    pub unit: Option<String>,
    pub value: Option<f64>,
    pub text: Option<String>,
}

/// A result's row of the index, and what the compare page needs of it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    pub id: i64,
    pub href: String,
    pub kind: String,
    /// `#12 ROCK 5B, 2024-03-01`: how compare names it.
    pub label: String,
    pub device: String,
    /// The chip's page: the chip the result names (or a layout unique among all known chips),
    /// a variant under its chip (`RK3588S2` under `Rockchip RK3588`). None: unidentified.
    pub soc: Option<String>,
    pub soc_href: Option<String>,
    /// The chip as the result names it, where its page is another name's (a variant).
    pub soc_variant: Option<String>,
    /// The SoC answer as a reader sees it, with how sure it is (`layout of A, B or C`).
    pub soc_answer: Option<String>,
    /// Core types with their counts: `4× Cortex-A55 + 4× Cortex-A76`.
    pub cores: String,
    /// Each core type once, for the filter.
    pub core_types: Vec<String>,
    pub arch: String,
    pub clock: String,
    pub throttled: bool,
    pub kernel: String,
    pub distro: String,
    pub multi: Option<u64>,
    pub single: Option<u64>,
    pub aes: Option<u64>,
    pub memcpy: Option<u64>,
    pub memset: Option<u64>,
    /// The kind's headline on one line (every kind).
    pub headline: String,
    pub valid: bool,
    /// `valid`, or why not: `invalid: throttling …`, `incomplete: …`.
    pub validity: String,
    pub date: String,
    pub unix_ms: i64,
    pub tool: String,
    /// `truebench` or `sbc-bench log NAME`.
    pub source: String,
    /// Where the published Results.md row differs from the row computed from the log:
    /// (column, published, computed).
    pub published: Vec<(String, String, String)>,
    pub figures: Vec<Figure>,
    pub fair: Fairness,
    /// Memory installed, MiB (what explains a SoC's spread).
    pub memory_mib: Option<u64>,
    pub sevenzip_version: Option<String>,
    pub openssl_version: Option<String>,
    /// Its figures that moved beyond the noise band against the same machine's previous
    /// result, with what differs (`store::regress`); filled by `build`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regressions: Vec<String>,
    /// Where its figures stand among the site's results of its SoC and tool versions
    /// (`store::standing`); filled by `build`, written to its SoC's standing file, which its
    /// page loads.
    #[serde(skip)]
    pub standing: Vec<String>,
}

/// The cores of a result: `4× Cortex-A55 + 4× Cortex-A76`, and each type once.
fn cores(doc: &Document) -> (String, Vec<String>) {
    let inv = &doc.envelope.inventory;
    let mut types: Vec<(String, usize)> = Vec::new();
    for c in &inv.clusters {
        let t = c.core_type.clone().unwrap_or_else(|| "unknown core".into());
        match types.iter_mut().find(|(x, _)| *x == t) {
            Some(e) => e.1 += c.cpus.len(),
            None => types.push((t, c.cpus.len())),
        }
    }
    let text = types
        .iter()
        .map(|(t, n)| format!("{n}× {t}"))
        .collect::<Vec<_>>()
        .join(" + ");
    let only: Vec<String> = types
        .into_iter()
        .map(|(t, _)| t)
        .filter(|t| t != "unknown core")
        .collect();
    (text, only)
}

/// Why a result is not valid, in a few words.
fn validity(doc: &Document) -> String {
    let e = &doc.envelope;
    if !e.complete {
        return format!(
            "incomplete: {}",
            e.incomplete_reason.as_deref().unwrap_or("did not finish")
        );
    }
    if e.valid {
        return "valid".into();
    }
    match e.findings.iter().find(|f| f.severity == Severity::Critical) {
        Some(f) => format!("invalid: {}", f.message),
        None => "invalid".into(),
    }
}

fn kernel_short(release: &str) -> String {
    release.split('.').take(2).collect::<Vec<_>>().join(".")
}

/// The row of the stored result `id`, `doc`, whose figures are `metrics`
/// (`truebench_figures::metrics(doc)`).
pub fn row(
    id: i64,
    doc: &Document,
    metrics: &[truebench_figures::Metric],
    published: &[MarkdownRow],
) -> Row {
    let e = &doc.envelope;
    let inv = &e.inventory;
    let view = View {
        envelope: e,
        body: &(),
    };
    let imported = import_source(view);
    let device = inv
        .device
        .as_deref()
        .or(e.hostname.as_deref())
        .map(|d| d.trim().to_string())
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| "unknown device".into());
    // Grouped by the chip the answer names; a layout of several chips names none.
    let named = inv
        .soc
        .as_ref()
        .and_then(|s| s.chip())
        .and_then(crate::soc::chip);
    let soc = named.as_deref().map(crate::soc::family);
    let soc_variant = named.filter(|n| soc.as_ref() != Some(n));
    let soc_answer = inv.soc.as_ref().map(|s| s.display());
    let (cores, core_types) = cores(doc);
    let arch = inv
        .arch
        .userland
        .clone()
        .or_else(|| inv.arch.kernel.clone())
        .unwrap_or_else(|| "-".into());
    let date = e.started.utc.get(..10).unwrap_or("unknown").to_string();
    let mut r = Row {
        id,
        href: format!("r/{}.html", id),
        kind: doc.kind().to_string(),
        label: format!("#{} {device}, {date}", id),
        soc_href: soc.as_ref().map(|s| format!("soc/{}.html", slug(s))),
        device,
        soc,
        soc_variant,
        soc_answer,
        cores,
        core_types,
        arch,
        clock: "-".into(),
        throttled: false,
        kernel: inv
            .kernel
            .release
            .as_deref()
            .map(kernel_short)
            .unwrap_or_else(|| "-".into()),
        distro: inv.distro.clone().unwrap_or_else(|| "-".into()),
        multi: None,
        single: None,
        aes: None,
        memcpy: None,
        memset: None,
        headline: truebench_figures::headline::one_line(&truebench_figures::headline(doc)),
        valid: e.valid && e.complete,
        validity: validity(doc),
        date,
        unix_ms: e.started.unix_ms,
        tool: match &imported {
            Some((v, _)) => format!("sbc-bench {}", v.as_deref().unwrap_or("?")),
            None => format!("truebench {}", e.truebench_version),
        },
        source: match &imported {
            Some((_, name)) => format!("sbc-bench log {}", name.as_deref().unwrap_or("?")),
            None => "truebench".into(),
        },
        published: Vec::new(),
        figures: metrics
            .iter()
            .map(|m| Figure {
                label: truebench_figures::label_of(&m.key),
                key: m.key.clone(),
                unit: m.unit.clone(),
                value: m.value.filter(|v| v.is_finite()),
                text: m.text.clone(),
            })
            .collect(),
        fair: truebench_store::fairness::of_document(doc),
        memory_mib: inv.memory.total_kb.map(|k| k / 1024),
        sevenzip_version: None,
        openssl_version: None,
        regressions: Vec::new(),
        standing: Vec::new(),
    };
    if let Body::Run(body) = &doc.body {
        let rv = View { envelope: e, body };
        let row = truebench_sbcbench::from_result::row(rv);
        r.clock = row.clock.clone();
        r.throttled = row.throttled;
        r.kernel = row.kernel.clone();
        r.distro = row.distro.clone();
        r.multi = row.sevenzip_multi;
        r.single = row.sevenzip_single;
        r.aes = row.aes;
        r.memcpy = row.memcpy;
        r.memset = row.memset;
        let m = truebench_store::compare::metrics(rv);
        r.sevenzip_version = m.sevenzip_version;
        r.openssl_version = m.openssl_version;
        if let Some(name) = imported.as_ref().and_then(|(_, n)| n.as_deref()) {
            if let Some(p) = published.iter().find(|p| p.log.as_deref() == Some(name)) {
                let ours = row.cells();
                let names: Vec<&str> = [inv.distro.as_deref(), e.os_codename.as_deref()]
                    .into_iter()
                    .flatten()
                    .collect();
                // The columns and the rule the Results.md agreement test uses; the device cell,
                // written by hand upstream, is not compared.
                for (i, col) in COLUMNS.iter().enumerate().skip(1).take(8) {
                    let theirs = p.cells.get(i).map(|c| c.trim()).unwrap_or("");
                    if !theirs.is_empty() && !cell_agrees(i, &ours[i], theirs, &names) {
                        r.published
                            .push((col.to_string(), theirs.to_string(), ours[i].clone()));
                    }
                }
            }
        }
    }
    r
}

/// How many results of the same device a result's page links to.
pub const RELATED: usize = 12;

/// A result's page: its report in the site's frame, with links back, to its SoC's page and to
/// `device`: up to [`RELATED`] results of the same device around it in the history (its
/// neighbours, so a new result changes the pages of the few results next to it, not of all).
pub fn result_page(title: &str, doc: &Document, r: &Row, device: &[&Row]) -> String {
    let mut extra = String::new();
    let _ = write!(
        extra,
        "<div class=\"related\"><span>Same device (<a href=\"../index.html#q={}\">{}</a>):</span> ",
        esc(&url_part(&r.device)),
        esc(&r.device)
    );
    if device.is_empty() {
        extra.push_str("<span class=\"muted\">no other result</span>");
    }
    for x in device.iter() {
        let _ = write!(
            extra,
            "<a href=\"{}.html\" title=\"{}\">#{}</a> ",
            x.id,
            esc(&x.label),
            x.id
        );
    }
    extra.push_str("</div>");
    if let (Some(soc), Some(href)) = (&r.soc, &r.soc_href) {
        let _ = write!(
            extra,
            "<div class=\"related\"><span>Same SoC:</span> <a href=\"../{}\">{}</a></div>",
            esc(href),
            esc(soc),
        );
        // Its standing changes with every result of its group: it comes from the SoC's one
        // standing file, so that a new result does not make every page of the group again.
        let file = esc(&crate::shards::standing_file(href));
        let _ = write!(
            extra,
            "<div class=\"related standing\" id=\"tb-standing\" data-id=\"{}\"><span>Where it stands among this site's results of the same SoC and tool versions (percentile rank: the share it does better than):</span> <span class=\"muted\">shown with script, from {}</span></div><script src=\"../assets/standing.js\"></script><script src=\"../{}\"></script>",
            r.id,
            file,
            file,
        );
    }
    if !r.regressions.is_empty() {
        extra.push_str("<div class=\"related regress\"><span>Against the same machine's previous result:</span><ul>");
        for m in &r.regressions {
            let _ = write!(extra, "<li>{}</li>", esc(m));
        }
        extra.push_str("</ul></div>");
    }
    if !r.published.is_empty() {
        extra.push_str("<div class=\"related pub\"><span>The published Results.md row differs from this log:</span><ul>");
        for (col, theirs, ours) in &r.published {
            let _ = write!(
                extra,
                "<li>{}: published <b>{}</b>, computed from the log <b>{}</b></li>",
                esc(col),
                esc(theirs),
                esc(ours)
            );
        }
        extra.push_str("</ul></div>");
    }
    let nav = crate::nav("../", title, &format!("<div>{extra}</div>"));
    truebench_render::kinds::html_page_in(
        doc,
        Frame {
            stylesheets: &["../assets/report.css", "../assets/site.css"],
            nav: &nav,
            standing: &[],
        },
    )
}

/// Text for the address's fragment: `%`-escaped where the address would change its meaning.
pub fn url_part(s: &str) -> String {
    let mut o = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                o.push(b as char)
            }
            _ => {
                let _ = write!(o, "%{b:02X}");
            }
        }
    }
    o
}
