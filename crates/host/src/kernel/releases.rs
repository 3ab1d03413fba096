//! kernel.org's release series (which are maintained, until when) from a dated list: the one
//! compiled in (`data/kernel_releases.tsv`) or one the user gives — the same TSV,
//! endoflife.date's API JSON, or its `products/linux-kernel.md` (the file sbc-bench downloads).
//! Offline: nothing is ever downloaded.

use jiff::civil::Date;
use std::path::Path;

const BUILTIN: &str = include_str!("../../data/kernel_releases.tsv");

/// The last minor version of each finished major (3.19 was followed by 4.0, and so on); needed
/// to count the releases between two series that the list does not all contain.
const LAST_MINOR: [(u32, u32); 4] = [(3, 19), (4, 20), (5, 19), (6, 19)];

#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub major: u32,
    pub minor: u32,
    pub lts: bool,
    pub released: Option<Date>,
    /// End of life: in the past an announced date, in the future kernel.org's projection.
    pub eol: Option<Date>,
    pub latest: Option<String>,
    pub latest_date: Option<Date>,
}

impl Series {
    pub fn name(&self) -> String {
        format!("{}.{}", self.major, self.minor)
    }
}

/// A dated list of release series, newest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Releases {
    /// What the list is: "built in" or the path given.
    pub source: String,
    /// The date the list was true on: its `# as of:` line, else the newest date in it.
    pub as_of: Option<Date>,
    pub series: Vec<Series>,
}

#[derive(Debug, thiserror::Error)]
pub enum ReleasesError {
    #[error("cannot read the release list {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {what}")]
    Line {
        path: String,
        line: usize,
        what: String,
    },
    #[error("{path}: {what}")]
    Format { path: String, what: String },
}

impl Releases {
    /// The list compiled in. A malformed built-in line is a bug caught by a unit test; at run
    /// time the list is then used without it.
    pub fn builtin() -> Releases {
        parse_tsv(BUILTIN, "built-in list").unwrap_or_else(|_| Releases {
            source: "built-in list".into(),
            as_of: None,
            series: Vec::new(),
        })
    }

    /// Read a list the user gives, in any of the three formats (told apart by content).
    pub fn from_file(path: &Path) -> Result<Releases, ReleasesError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ReleasesError::Read {
            path: shown.clone(),
            source,
        })?;
        Releases::parse(&text, &shown)
    }

    pub fn parse(text: &str, source: &str) -> Result<Releases, ReleasesError> {
        let t = text.trim_start();
        let list = if t.starts_with('[') || t.starts_with('{') {
            parse_json(text, source)?
        } else if text.contains("releaseCycle:") {
            parse_md(text, source)?
        } else {
            parse_tsv(text, source)?
        };
        if list.series.is_empty() {
            return Err(ReleasesError::Format {
                path: source.into(),
                what: "no release series in it (expected the TSV of data/kernel_releases.tsv, \
                       endoflife.date's JSON array, or its linux-kernel.md)"
                    .into(),
            });
        }
        Ok(list)
    }

    pub fn find(&self, major: u32, minor: u32) -> Option<&Series> {
        self.series
            .iter()
            .find(|s| s.major == major && s.minor == minor)
    }

    pub fn newest(&self) -> Option<&Series> {
        self.series.iter().max_by_key(|s| (s.major, s.minor))
    }

    /// Mainline releases from `from` up to `to` (0 when equal); `None` when the numbering
    /// between them is not known (2.6.x, or a major whose last minor is not known yet).
    pub fn releases_between(&self, from: (u32, u32), to: (u32, u32)) -> Option<u32> {
        if from >= to {
            return Some(0);
        }
        if from.0 < 3 {
            return None;
        }
        let mut count = 0;
        let mut major = from.0;
        let mut minor = from.1;
        while (major, minor) < to {
            let last = self.last_minor(major)?;
            if minor < last {
                minor += 1;
            } else {
                major += 1;
                minor = 0;
            }
            count += 1;
        }
        Some(count)
    }

    fn last_minor(&self, major: u32) -> Option<u32> {
        if let Some((_, m)) = LAST_MINOR.iter().find(|(maj, _)| *maj == major) {
            return Some(*m);
        }
        // A later major in the list closes this one at its highest listed minor.
        let later = self.series.iter().any(|s| s.major > major);
        let highest = self
            .series
            .iter()
            .filter(|s| s.major == major)
            .map(|s| s.minor)
            .max();
        if later {
            highest
        } else {
            // The newest major: its series run up to the newest listed.
            Some(u32::MAX)
        }
    }

    /// The release date of `series`, or — when the list does not have it — the date of the
    /// next series after it that has one (then the age is a lower bound: `true`).
    pub fn release_date_at_least(&self, major: u32, minor: u32) -> Option<(Date, bool)> {
        if let Some(d) = self.find(major, minor).and_then(|s| s.released) {
            return Some((d, false));
        }
        self.series
            .iter()
            .filter(|s| (s.major, s.minor) > (major, minor))
            .filter_map(|s| s.released.map(|d| ((s.major, s.minor), d)))
            .min_by_key(|(k, _)| *k)
            .map(|(_, d)| (d, true))
    }
}

fn date(s: &str) -> Option<Date> {
    let s = s.trim();
    if s.is_empty() || s == "-" {
        return None;
    }
    s.parse::<Date>().ok()
}

fn series_key(s: &str) -> Option<(u32, u32)> {
    let (a, b) = s.trim().trim_matches('"').split_once('.')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// `series lts released eol latest latest_date`, `-` for unknown; `# as of: DATE` dates it.
fn parse_tsv(text: &str, source: &str) -> Result<Releases, ReleasesError> {
    let mut series = Vec::new();
    let mut as_of = None;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        let t = line.trim();
        if let Some(rest) = t.strip_prefix('#') {
            if let Some(d) = rest.trim().strip_prefix("as of:") {
                as_of = date(d);
            }
            continue;
        }
        if t.is_empty() {
            continue;
        }
        let bad = |what: &str| ReleasesError::Line {
            path: source.into(),
            line: i + 1,
            what: format!("{what}: `{t}`"),
        };
        let cols: Vec<&str> = line.split('\t').map(str::trim).collect();
        if cols.len() != 6 {
            return Err(bad(
                "expected 6 tab-separated columns (series, lts|-, released, eol, latest, its date)",
            ));
        }
        let (major, minor) = series_key(cols[0]).ok_or_else(|| bad("series is not N.N"))?;
        let lts = match cols[1] {
            "lts" => true,
            "-" | "" => false,
            _ => return Err(bad("second column must be `lts` or `-`")),
        };
        let mut dates = [None; 3];
        for (slot, col) in dates.iter_mut().zip([cols[2], cols[3], cols[5]]) {
            if col != "-" && !col.is_empty() {
                *slot = Some(date(col).ok_or_else(|| bad("dates are YYYY-MM-DD or -"))?);
            }
        }
        let latest = (cols[4] != "-" && !cols[4].is_empty()).then(|| cols[4].to_string());
        series.push(Series {
            major,
            minor,
            lts,
            released: dates[0],
            eol: dates[1],
            latest,
            latest_date: dates[2],
        });
    }
    Ok(finish(source, as_of, series))
}

fn finish(source: &str, as_of: Option<Date>, mut series: Vec<Series>) -> Releases {
    series.sort_by_key(|s| std::cmp::Reverse((s.major, s.minor)));
    series.dedup_by_key(|s| (s.major, s.minor));
    let as_of = as_of.or_else(|| {
        series
            .iter()
            .flat_map(|s| [s.released, s.latest_date])
            .flatten()
            .max()
    });
    Releases {
        source: source.into(),
        as_of,
        series,
    }
}

/// endoflife.date's API: `[{"cycle": "6.6", "releaseDate": "…", "eol": "…"|false,
/// "latest": "…", "latestReleaseDate": "…", "lts": true|"date"|false}, …]` (also under
/// `{"result": {"releases": […]}}` in its v1 API, with `name` for `cycle`).
fn parse_json(text: &str, source: &str) -> Result<Releases, ReleasesError> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| ReleasesError::Format {
        path: source.into(),
        what: format!("not valid JSON: {e}"),
    })?;
    let items = v
        .as_array()
        .or_else(|| v.pointer("/result/releases").and_then(|r| r.as_array()))
        .ok_or_else(|| ReleasesError::Format {
            path: source.into(),
            what: "expected a JSON array of release cycles (endoflife.date's API)".into(),
        })?;
    let mut series = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let s = |k: &str| item.get(k).and_then(|v| v.as_str());
        let name = s("cycle").or_else(|| s("name")).unwrap_or_default();
        let Some((major, minor)) = series_key(name) else {
            return Err(ReleasesError::Format {
                path: source.into(),
                what: format!("item {i}: `cycle` is not N.N: {:?}", item.get("cycle")),
            });
        };
        let flag_or_date = |k: &str| match item.get(k) {
            Some(serde_json::Value::Bool(b)) => (*b, None),
            Some(serde_json::Value::String(d)) => (true, date(d)),
            _ => (false, None),
        };
        let latest = item
            .get("latest")
            .and_then(|l| {
                l.as_str()
                    .or_else(|| l.get("name").and_then(|n| n.as_str()))
            })
            .map(str::to_string);
        let latest_date = s("latestReleaseDate")
            .or_else(|| item.pointer("/latest/date").and_then(|d| d.as_str()))
            .and_then(date);
        series.push(Series {
            major,
            minor,
            lts: flag_or_date("lts").0 || item.get("isLts").and_then(|b| b.as_bool()) == Some(true),
            released: s("releaseDate").and_then(date),
            eol: flag_or_date("eol")
                .1
                .or_else(|| s("eolFrom").and_then(date)),
            latest,
            latest_date,
        });
    }
    Ok(finish(source, None, series))
}

/// endoflife.date's product page: YAML front matter with `releases:` items of
/// `- releaseCycle: "6.6"` followed by `key: value` lines (comments after ` #`).
fn parse_md(text: &str, source: &str) -> Result<Releases, ReleasesError> {
    let mut series: Vec<Series> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        let value = |v: &str| {
            let v = v.split(" #").next().unwrap_or(v).trim();
            v.trim_matches('"').to_string()
        };
        if let Some(v) = t.strip_prefix("- releaseCycle:") {
            let Some((major, minor)) = series_key(&value(v)) else {
                return Err(ReleasesError::Line {
                    path: source.into(),
                    line: i + 1,
                    what: format!("releaseCycle is not N.N: `{t}`"),
                });
            };
            series.push(Series {
                major,
                minor,
                lts: false,
                released: None,
                eol: None,
                latest: None,
                latest_date: None,
            });
            continue;
        }
        if t == "---" && !series.is_empty() {
            break; // end of the front matter
        }
        let Some(cur) = series.last_mut() else {
            continue;
        };
        let Some((k, v)) = t.split_once(':') else {
            continue;
        };
        let v = value(v);
        match k.trim() {
            "lts" => cur.lts = v == "true" || date(&v).is_some(),
            "releaseDate" => cur.released = date(&v),
            "eol" => cur.eol = date(&v),
            "latest" => cur.latest = Some(v).filter(|v| !v.is_empty()),
            "latestReleaseDate" => cur.latest_date = date(&v),
            _ => {}
        }
    }
    Ok(finish(source, None, series))
}

/// Problems in the compiled-in list (a unit test asserts there are none).
pub fn builtin_errors() -> Option<String> {
    parse_tsv(BUILTIN, "data/kernel_releases.tsv")
        .err()
        .map(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_list_is_well_formed_and_dated() {
        assert_eq!(builtin_errors(), None);
        let r = Releases::builtin();
        assert_eq!(r.as_of, Some(jiff::civil::date(2026, 8, 22)));
        let s = r.find(6, 1).unwrap();
        assert!(s.lts);
        assert_eq!(s.eol, Some(jiff::civil::date(2027, 12, 31)));
        assert_eq!(r.newest().unwrap().name(), "7.2");
        // The majors' last minors agree with the list where it has them.
        for (major, last) in LAST_MINOR {
            if r.find(major, last).is_some() {
                let highest = r
                    .series
                    .iter()
                    .filter(|s| s.major == major)
                    .map(|s| s.minor);
                assert_eq!(highest.max(), Some(last), "major {major}");
            }
        }
    }

    #[test]
    fn counting_releases_across_majors() {
        let r = Releases::builtin();
        assert_eq!(r.releases_between((6, 1), (6, 6)), Some(5));
        assert_eq!(r.releases_between((5, 10), (6, 1)), Some(11));
        // 4.4 → 4.20 is 16, → 5.0 one more, 5.0 → 5.19 19, → 6.0 1, → 6.19 19, → 7.0 1, → 7.2 2
        assert_eq!(r.releases_between((4, 4), (7, 2)), Some(59));
        assert_eq!(r.releases_between((7, 2), (7, 2)), Some(0));
        assert_eq!(r.releases_between((2, 6), (7, 2)), None);
    }

    #[test]
    fn age_of_a_series_the_list_lacks_is_a_lower_bound() {
        let r = Releases::builtin();
        let (d, lower) = r.release_date_at_least(4, 9).unwrap();
        assert_eq!((d, lower), (jiff::civil::date(2016, 12, 11), false));
        // 4.5 … 4.8 are not listed: at least as old as 4.9.
        let (d, lower) = r.release_date_at_least(4, 8).unwrap();
        assert_eq!((d, lower), (jiff::civil::date(2016, 12, 11), true));
    }

    #[test]
    fn the_three_formats_read_the_same_series() {
        let tsv = "# as of: 2026-01-02\n6.6\tlts\t2023-10-30\t2027-12-31\t6.6.152\t2026-08-19\n";
        let json = r#"[{"cycle":"6.6","releaseDate":"2023-10-30","eol":"2027-12-31",
            "latest":"6.6.152","latestReleaseDate":"2026-08-19","lts":true}]"#;
        let md = "---\nreleases:\n  - releaseCycle: \"6.6\"\n    lts: true\n    releaseDate: \
                  2023-10-30\n    eol: 2027-12-31 # Projected\n    latest: \"6.6.152\"\n    \
                  latestReleaseDate: 2026-08-19\n---\n> text: with colon\n";
        let a = Releases::parse(tsv, "a").unwrap();
        let b = Releases::parse(json, "b").unwrap();
        let c = Releases::parse(md, "c").unwrap();
        assert_eq!(a.series, b.series);
        assert_eq!(b.series, c.series);
        assert_eq!(a.as_of, Some(jiff::civil::date(2026, 1, 2)));
        assert_eq!(
            b.as_of,
            Some(jiff::civil::date(2026, 8, 19)),
            "newest date in it"
        );
        // eol: false → not announced.
        let j = r#"[{"cycle":"7.2","releaseDate":"2026-08-16","eol":false,"latest":"7.2.0"}]"#;
        assert_eq!(Releases::parse(j, "j").unwrap().series[0].eol, None);
    }

    #[test]
    fn bad_lists_name_the_file_line_and_what_was_expected() {
        let e = Releases::parse("6.6\tlts\t2023-10-30\n", "x.tsv").unwrap_err();
        assert!(e.to_string().starts_with("x.tsv:1: expected 6"), "{e}");
        let e = Releases::parse("6.6\tyes\t-\t-\t-\t-\n", "x.tsv").unwrap_err();
        assert!(e.to_string().contains("`lts` or `-`"), "{e}");
        let e = Releases::parse("6.6\t-\t2023-13-40\t-\t-\t-\n", "x.tsv").unwrap_err();
        assert!(e.to_string().contains("YYYY-MM-DD"), "{e}");
        let e = Releases::parse("[{\"cycle\": 6}]", "x.json").unwrap_err();
        assert!(e.to_string().contains("x.json: item 0"), "{e}");
        let e = Releases::parse("{\"a\": 1}", "x.json").unwrap_err();
        assert!(e.to_string().contains("JSON array"), "{e}");
        let e = Releases::parse("# nothing\n", "x.tsv").unwrap_err();
        assert!(e.to_string().contains("no release series"), "{e}");
        let e = Releases::from_file(Path::new("/nonexistent/list.tsv")).unwrap_err();
        assert!(e.to_string().contains("/nonexistent/list.tsv"), "{e}");
    }
}
