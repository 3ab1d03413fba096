//! The rows as script files loaded on demand: `assets/rows/NNNN.js` (the index's columns) and
//! `assets/detail/NNNN.js` (what compare reads: figures and fairness), each holding the results
//! whose ids fall in one block of [`SHARD`] ids. Scripts, not JSON to fetch: a page opened from
//! `file://` may not fetch, and a script tag works there and from any plain web server. A new
//! result takes the next id, so it changes the last shard only.
//!
//! An index shard is `TRUEBENCH_ROWS(k, strings, rows)`: each row an array of [`FIELDS`], its
//! text cells as indexes into the shard's `strings` (a device, kernel or validity repeated over
//! a thousand rows is sent once), so ten thousand rows parse in a few milliseconds. A row's
//! `published` is 0, or the cells where the published Results.md row differs from the one
//! computed from its log: `[column, published, computed]`.

use std::collections::HashMap;

use crate::Row;

/// Ids per shard.
pub const SHARD: i64 = 1000;

/// The fields of an index shard's row, in order (site.js reads them by position).
pub const FIELDS: [&str; 26] = [
    "id",
    "unix_ms",
    "device",
    "kind",
    "soc",
    "soc_href",
    "soc_answer",
    "cores",
    "core_types",
    "arch",
    "clock",
    "throttled",
    "kernel",
    "distro",
    "multi",
    "single",
    "aes",
    "memcpy",
    "memset",
    "headline",
    "valid",
    "validity",
    "date",
    "tool",
    "source",
    "published",
];

/// The shard a result's id falls in.
pub fn shard_of(id: i64) -> i64 {
    id.div_euclid(SHARD)
}

/// A shard's file name without its folder: `0007.js`.
pub fn file(k: i64) -> String {
    format!("{k:04}.js")
}

/// JSON safe inside a script: a closing tag in a string must not end it.
fn js(v: &serde_json::Value) -> String {
    serde_json::to_string(v)
        .unwrap_or_else(|_| "null".into())
        .replace("</", "<\\/")
}

struct Strings {
    list: Vec<String>,
    at: HashMap<String, usize>,
}

impl Strings {
    fn id(&mut self, s: &str) -> serde_json::Value {
        let n = match self.at.get(s) {
            Some(&n) => n,
            None => {
                self.list.push(s.to_string());
                self.at.insert(s.to_string(), self.list.len() - 1);
                self.list.len() - 1
            }
        };
        n.into()
    }
    fn opt(&mut self, s: &Option<String>) -> serde_json::Value {
        match s {
            Some(s) => self.id(s),
            None => serde_json::Value::Null,
        }
    }
}

/// The index shard `k` of `rows` (the rows of that shard, in id order).
pub fn rows_js(k: i64, rows: &[&Row]) -> String {
    use serde_json::{json, Value};
    let mut s = Strings {
        list: Vec::new(),
        at: HashMap::new(),
    };
    let out: Vec<Value> = rows
        .iter()
        .map(|r| {
            let types: Vec<Value> = r.core_types.iter().map(|t| s.id(t)).collect();
            let published: Vec<Value> = r
                .published
                .iter()
                .map(|(c, theirs, ours)| json!([s.id(c), s.id(theirs), s.id(ours)]))
                .collect();
            json!([
                r.id,
                r.unix_ms,
                s.id(&r.device),
                s.id(&r.kind),
                s.opt(&r.soc),
                s.opt(&r.soc_href),
                s.opt(&r.soc_answer),
                s.id(&r.cores),
                types,
                s.id(&r.arch),
                s.id(&r.clock),
                u8::from(r.throttled),
                s.id(&r.kernel),
                s.id(&r.distro),
                r.multi,
                r.single,
                r.aes,
                r.memcpy,
                r.memset,
                s.id(&r.headline),
                u8::from(r.valid),
                s.id(&r.validity),
                s.id(&r.date),
                s.id(&r.tool),
                s.id(&r.source),
                if published.is_empty() {
                    Value::from(0)
                } else {
                    Value::from(published)
                },
            ])
        })
        .collect();
    format!(
        "TRUEBENCH_ROWS({k},{},{});\n",
        js(&Value::from(s.list)),
        js(&Value::from(out))
    )
}

/// The compare shard `k`: each row's label, figures and fairness.
pub fn detail_js(k: i64, rows: &[&Row]) -> String {
    let out: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "id": r.id,
                "href": r.href,
                "kind": r.kind,
                "label": r.label,
                "figures": r.figures,
                "fair": r.fair,
            })
        })
        .collect();
    format!(
        "TRUEBENCH_DETAIL({k},{});\n",
        js(&serde_json::Value::from(out))
    )
}

/// Where each result of one SoC stands (`rows`: that SoC's results): the file a result page
/// loads its standing from, `TRUEBENCH_STANDING({"id": [lines]})`. One file per SoC: a new
/// result changes the standing of every result of its group, and so rewrites this file
/// instead of every page of the group.
pub fn standing_js(rows: &[&Row]) -> String {
    let map: serde_json::Map<String, serde_json::Value> = rows
        .iter()
        .filter(|r| !r.standing.is_empty())
        .map(|r| (r.id.to_string(), serde_json::json!(r.standing)))
        .collect();
    format!(
        "TRUEBENCH_STANDING({});\n",
        js(&serde_json::Value::Object(map))
    )
}

/// The standing file of the SoC whose page is `soc_href` (`soc/SLUG.html`), relative to
/// the site's folder.
pub fn standing_file(soc_href: &str) -> String {
    let slug = soc_href
        .strip_prefix("soc/")
        .and_then(|s| s.strip_suffix(".html"))
        .unwrap_or(soc_href);
    format!("assets/standing/{slug}.js")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_fall_in_blocks_and_files_sort_by_block() {
        assert_eq!(shard_of(1), 0);
        assert_eq!(shard_of(999), 0);
        assert_eq!(shard_of(1000), 1);
        assert_eq!(shard_of(123_456), 123);
        assert_eq!(file(7), "0007.js");
        assert_eq!(file(12345), "12345.js");
    }
}
