//! `index.html`: every result in one table. The newest [`IN_PAGE`] rows are in the page (a
//! plain table: readable without script, and by a screen reader as a table), with every SoC's
//! page linked below; the script loads every row from the shards (`assets/rows/`), keeps them
//! as columns, sorts and filters those, shows only the rows in view and keeps the view in the
//! address.
//!
//! The columns a reader compares come first — device, SoC, validity, the scores — and the
//! wide text after them, so at 1280 px the first screen holds them without scrolling
//! sideways; a long cell is cut with its whole text in its title.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::{clip, esc, Named, Row};

/// The table's columns: (key the script sorts by, heading, numeric). site.js has the same
/// list (a test holds them equal).
pub const COLUMNS: [(&str, &str, bool); 18] = [
    ("device", "Device", false),
    ("soc", "SoC", false),
    ("validity", "Validity", false),
    ("multi", "7-zip multi", true),
    ("single", "7-zip single", true),
    ("aes", "AES", true),
    ("memcpy", "memcpy", true),
    ("memset", "memset", true),
    ("headline", "Headline", false),
    ("kind", "Kind", false),
    ("date", "Date", false),
    ("clock", "Clock", false),
    ("kernel", "Kernel", false),
    ("cores", "Core types", false),
    ("arch", "Arch", false),
    ("distro", "Distribution", false),
    ("tool", "Tool", false),
    ("source", "Source", false),
];

/// Rows in the page itself (the newest): what a reader without script sees.
pub const IN_PAGE: usize = 200;

/// Results listed as unidentified by name below the table (the newest); the rest are counted.
pub const UNIDENTIFIED_LISTED: usize = 500;

fn num(v: Option<u64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "-".into())
}

/// The published cell beside ours where they differ.
fn published(r: &Row, column: &str) -> String {
    r.published
        .iter()
        .find(|(c, _, _)| c == column)
        .map(|(_, theirs, _)| {
            format!(
                " <span class=\"pub\" title=\"the published Results.md row says {}\">published: {}</span>",
                esc(theirs),
                esc(theirs)
            )
        })
        .unwrap_or_default()
}

fn cell(r: &Row, key: &str) -> String {
    match key {
        "device" => format!("<a href=\"{}\">{}</a>", esc(&r.href), esc(&r.device)),
        "kind" => esc(&r.kind),
        "soc" => match (&r.soc, &r.soc_href) {
            (Some(s), Some(h)) => format!("<a href=\"{}\">{}</a>", esc(h), esc(s)),
            // No chip named: the answer as it is, marked as no identification.
            _ => match &r.soc_answer {
                Some(a) => format!(
                    "<a class=\"muted\" href=\"#unidentified\" title=\"{}\">unidentified</a>",
                    esc(a)
                ),
                None => "-".into(),
            },
        },
        "cores" => format!("<span title=\"{}\">{}</span>", esc(&r.cores), esc(&r.cores)),
        "arch" => esc(&r.arch),
        "clock" => format!(
            "{}{}{}",
            esc(&r.clock),
            if r.throttled {
                " <span class=\"bad\">(throttled)</span>"
            } else {
                ""
            },
            published(r, "clock")
        ),
        "kernel" => format!("{}{}", esc(&r.kernel), published(r, "kernel")),
        "distro" => format!("{}{}", esc(&r.distro), published(r, "distro")),
        "multi" => format!("{}{}", num(r.multi), published(r, "7-zip multi")),
        "single" => format!("{}{}", num(r.single), published(r, "7-zip single")),
        "aes" => format!("{}{}", num(r.aes), published(r, "AES")),
        "memcpy" => format!("{}{}", num(r.memcpy), published(r, "memcpy")),
        "memset" => format!("{}{}", num(r.memset), published(r, "memset")),
        "headline" => {
            if r.kind == "run" {
                "-".into()
            } else {
                format!(
                    "<span title=\"{}\">{}</span>",
                    esc(&r.headline),
                    esc(&r.headline)
                )
            }
        }
        "validity" => {
            let class = if r.valid { "good" } else { "bad" };
            // The reason in a few words; the whole of it on hover and on the result's page.
            let short = clip(&r.validity, 40);
            format!(
                "<span class=\"{class}\" title=\"{}\">{}</span>",
                esc(&r.validity),
                esc(&short)
            )
        }
        "date" => esc(&r.date),
        "tool" => esc(&r.tool),
        "source" => esc(&r.source),
        _ => String::new(),
    }
}

/// A row of the table as the page holds it (site.js draws the same cells).
fn tr(r: &Row) -> String {
    let mut o = format!(
        "<tr data-id=\"{}\"><td class=\"pick\"><input type=\"checkbox\" class=\"pick\" value=\"{}\" aria-label=\"select {} for comparing\"></td>",
        r.id,
        r.id,
        esc(&r.label)
    );
    for (key, head, numeric) in COLUMNS {
        let c = cell(r, key);
        let empty = if c == "-" { " empty" } else { "" };
        let num = if numeric { " num" } else { "" };
        let _ = write!(
            o,
            "<td data-label=\"{}\" class=\"c-{key}{num}{empty}\">{c}</td>",
            esc(head)
        );
    }
    o.push_str("</tr>");
    o
}

fn select<S: AsRef<str>>(id: &str, label: &str, values: &BTreeSet<S>) -> String {
    let mut o = format!(
        "<label>{}<select id=\"{id}\" data-filter=\"{}\"><option value=\"\">all</option>",
        esc(label),
        id.trim_start_matches("f-")
    );
    for v in values {
        let _ = write!(o, "<option>{}</option>", esc(v.as_ref()));
    }
    o.push_str("</select></label>");
    o
}

/// The index of `rows` (each kept row as the build names its SoC); `full(i)` puts together
/// the whole row of `rows[i]` for the newest, which the page lists (its error is the page's).
pub(crate) fn page<E>(
    title: &str,
    rows: &[Named],
    shards: &[i64],
    full: &dyn Fn(usize) -> Result<Row, E>,
) -> Result<String, E> {
    let mut o = crate::head(title, "").replacen("<main>", "<main class=\"full\">", 1);
    o.push_str(&crate::nav("", title, ""));
    let imported = rows.iter().filter(|r| r.row.source != "truebench").count();
    let _ = write!(
        o,
        "<header><div class=\"title\"><h1>{}</h1></div><p class=\"sub\">{} result{} ({} measured by truebench, {imported} imported sbc-bench log{}). Every score links to its report with the evidence of what the machine was doing.</p></header>",
        esc(title),
        rows.len(),
        if rows.len() == 1 { "" } else { "s" },
        rows.len() - imported,
        if imported == 1 { "" } else { "s" },
    );
    // Each filter's values over every row (borrowed: a fleet has a hundred thousand rows).
    let (mut socs, mut cores, mut archs, mut kinds) = (
        BTreeSet::new(),
        BTreeSet::new(),
        BTreeSet::new(),
        BTreeSet::new(),
    );
    for r in rows {
        socs.extend(r.soc);
        cores.extend(r.row.core_types.iter().map(String::as_str));
        archs.insert(r.row.arch.as_str());
        kinds.insert(r.row.kind.as_str());
    }
    for set in [&mut socs, &mut cores, &mut archs, &mut kinds] {
        set.remove("");
    }
    o.push_str("<section class=\"controls\" aria-label=\"Filters\">");
    o.push_str(
        "<label>Search<input type=\"search\" id=\"q\" placeholder=\"device, SoC, kernel…\"></label>",
    );
    o.push_str(&select("f-soc", "SoC", &socs));
    o.push_str(&select("f-core", "Core type", &cores));
    o.push_str(&select("f-arch", "Arch", &archs));
    o.push_str(&select(
        "f-valid",
        "Validity",
        &["valid", "not valid"].into(),
    ));
    o.push_str(&select("f-kind", "Kind", &kinds));
    let _ = write!(
        o,
        "<p class=\"count\" id=\"count\" role=\"status\" aria-live=\"polite\">{n} of {n} results</p><button type=\"button\" id=\"compare\" disabled>Compare selected</button><button type=\"button\" id=\"reset\">Show all</button></section>",
        n = rows.len()
    );
    let shown = rows.len().min(IN_PAGE);
    let _ = write!(
        o,
        "<p class=\"muted\" id=\"in-page\">{}</p>",
        if shown < rows.len() {
            format!("The newest {shown} of {} results are listed here; the others, sorting and filtering need JavaScript (the rows load from this folder's assets/rows/). Without it, each SoC's page below has its results.", rows.len())
        } else {
            "Sorting and filtering need JavaScript; without it the table lists every result, newest first.".to_string()
        }
    );
    let list: Vec<String> = shards.iter().map(|k| k.to_string()).collect();
    let _ = write!(
        o,
        "<section class=\"results\"><div class=\"scroll\" id=\"scroller\"><table id=\"results\" data-count=\"{}\" data-shards=\"{}\"><caption class=\"vh\">Every stored result; the column headings sort.</caption><thead><tr><th scope=\"col\" class=\"pick\"><span class=\"vh\">Select for comparing</span></th>",
        rows.len(),
        list.join(",")
    );
    for (key, head, numeric) in COLUMNS {
        let _ = write!(
            o,
            "<th scope=\"col\" aria-sort=\"none\" class=\"c-{key}{}\"><button type=\"button\" data-sort=\"{key}\">{}</button></th>",
            if numeric { " num" } else { "" },
            esc(head)
        );
    }
    o.push_str("</tr></thead><tbody>");
    let mut newest: Vec<usize> = (0..rows.len()).collect();
    newest.sort_by_key(|&i| std::cmp::Reverse((rows[i].row.unix_ms, rows[i].row.id)));
    for i in newest.into_iter().take(IN_PAGE) {
        o.push_str(&tr(&full(i)?));
    }
    o.push_str("</tbody></table></div></section>");
    // Every SoC with its page.
    let mut count: std::collections::BTreeMap<(&str, &str), usize> = Default::default();
    for r in rows {
        if let (Some(s), Some(h)) = (r.soc, r.soc_href) {
            *count.entry((s, h)).or_default() += 1;
        }
    }
    let socs: Vec<(&str, &str, usize)> = count.into_iter().map(|((s, h), n)| (s, h, n)).collect();
    o.push_str("<section id=\"socs\"><h2>SoCs</h2>");
    if socs.is_empty() {
        o.push_str("<p class=\"muted\">No result names its SoC.</p>");
    } else {
        o.push_str("<ul class=\"socs\">");
        for (s, h, n) in socs {
            let _ = write!(
                o,
                "<li><a href=\"{}\">{}</a> <small>{n}</small></li>",
                esc(h),
                esc(s)
            );
        }
        o.push_str("</ul>");
    }
    // Results that name no chip: listed with their answer and layout, never dropped.
    let mut unidentified: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].soc.is_none()).collect();
    unidentified.sort_by_key(|&i| std::cmp::Reverse((rows[i].row.unix_ms, rows[i].row.id)));
    if !unidentified.is_empty() {
        let n = unidentified.len();
        let _ = write!(
            o,
            "<h3 id=\"unidentified\">Unidentified</h3><p class=\"muted\">{n} result{} whose evidence names no chip: the answer (a core layout several chips share, a vendor, another tool's guess) and the cores{}.</p><ul class=\"unidentified\">",
            if n == 1 { "" } else { "s" },
            if n > UNIDENTIFIED_LISTED {
                format!("; the newest {UNIDENTIFIED_LISTED} here, every one in the table (SoC “unidentified”)")
            } else {
                String::new()
            }
        );
        for i in unidentified.into_iter().take(UNIDENTIFIED_LISTED) {
            let r = full(i)?;
            let _ = write!(
                o,
                "<li><a href=\"{}\">{}</a> — {} <small>{}</small></li>",
                esc(&r.href),
                esc(&r.label),
                esc(r.soc_answer.as_deref().unwrap_or("no SoC answer")),
                esc(if r.cores.is_empty() {
                    "cores unknown"
                } else {
                    &r.cores
                })
            );
        }
        o.push_str("</ul>");
    }
    o.push_str("</section>");
    o.push_str(&crate::foot("", true));
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// site.js draws the rows the script shows with the same columns in the same order.
    #[test]
    fn the_script_has_the_same_columns() {
        let mut at = 0;
        for (key, head, numeric) in COLUMNS {
            let entry = format!(
                "[\"{key}\", \"{head}\"{}]",
                if numeric { ", 1" } else { "" }
            );
            let found = crate::SITE_JS[at..]
                .find(&entry)
                .unwrap_or_else(|| panic!("site.js has no {entry} after the previous column"));
            at += found + entry.len();
        }
    }
}
