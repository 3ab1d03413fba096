//! The HTML form of `compare`: results of one kind side by side, each figure under its
//! readable name with its difference to the first result, and every reason the comparison
//! is unfair above the table. Self-contained like the report pages (same style, no script).

use std::fmt::Write as _;

use crate::report::svg::esc;

/// One figure across the results.
pub struct CompareRow<'a> {
    pub label: &'a str,
    pub unit: Option<&'a str>,
    pub values: &'a [Option<String>],
    /// % difference to the first result (None for the first and where there is none).
    pub relative_pct: &'a [Option<f64>],
}

/// The whole page.
pub fn page(kind: &str, labels: &[String], rows: &[CompareRow<'_>], warnings: &[String]) -> String {
    let mut o = String::with_capacity(32 * 1024);
    let title = format!("truebench — {} {kind} results compared", labels.len());
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{}</style></head><body><main>",
        esc(&title),
        crate::report::CSS
    );
    let (class, badge) = if warnings.is_empty() {
        ("ok", "FAIR")
    } else {
        ("warn", "NOT FAIR")
    };
    let _ = write!(
        o,
        "<header><div class=\"title\"><h1>{}</h1><span class=\"badge {class}\">{badge}</span></div><p class=\"sub\">The first result is the reference; every other shows its difference to it.</p></header>",
        esc(&title)
    );
    if !warnings.is_empty() {
        o.push_str("<section class=\"headline\"><h2>Why the comparison is unfair</h2><ul>");
        for w in warnings {
            let _ = write!(o, "<li>{}</li>", esc(w));
        }
        o.push_str("</ul></section>");
    } else {
        o.push_str("<section class=\"headline\"><h2>Fair</h2><p>Every result is complete, valid and comparable.</p></section>");
    }
    o.push_str("<section><h2>Figures</h2><table><thead><tr><th>Figure</th>");
    for l in labels {
        let _ = write!(o, "<th class=\"num\">{}</th>", esc(l));
    }
    o.push_str("</tr></thead><tbody>");
    for r in rows {
        let _ = write!(
            o,
            "<tr><td>{}{}</td>",
            esc(r.label),
            r.unit
                .map(|u| format!(" <small>({})</small>", esc(u)))
                .unwrap_or_default()
        );
        for (v, p) in r.values.iter().zip(r.relative_pct) {
            let cell = match (v, p) {
                (Some(v), Some(p)) => format!("{} <small>({p:+.1} %)</small>", esc(v)),
                (Some(v), None) => esc(v),
                (None, _) => "–".into(),
            };
            let _ = write!(o, "<td class=\"num\">{cell}</td>");
        }
        o.push_str("</tr>");
    }
    let _ = writeln!(
        o,
        "</tbody></table></section><footer>truebench {} · this page is self-contained: no script, nothing loaded from anywhere.</footer></main></body></html>",
        esc(env!("CARGO_PKG_VERSION"))
    );
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_values_and_reasons() {
        let values = [Some("271".to_string()), Some("199".to_string())];
        let rel = [None, Some(-26.6)];
        let rows = [CompareRow {
            label: "Score change",
            unit: Some("%"),
            values: &values,
            relative_pct: &rel,
        }];
        let p = page(
            "thermal",
            &["#1".into(), "#2 <b>".into()],
            &rows,
            &["#2 is not valid".into()],
        );
        assert!(p.contains("Score change <small>(%)</small>"), "{p}");
        assert!(p.contains("199 <small>(-26.6 %)</small>"), "{p}");
        assert!(p.contains("#2 &lt;b&gt;") && p.contains("NOT FAIR"), "{p}");
        assert!(!p.contains("<script"));
    }
}
