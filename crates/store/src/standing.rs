//! Where a result stands: each of its headline figures ranked among the stored results of
//! the same kind, the same SoC and the same tool versions ("73rd percentile of 41 Rockchip
//! RK3588 runs"), scores per watt included where energy was measured (they are headline
//! figures of their own).
//!
//! The percentile is the percentile rank: the share of the group the result does better
//! than, ties counted half (itself included), so the best of 41 is at 98.8 and a group of
//! one says nothing (no rank is given below [`MIN_GROUP`] results).

use truebench_model::Document;

use crate::facts::Facts;
use crate::regress::{better, counts, Better, Ways};

/// The fewest results of a group worth ranking in.
pub const MIN_GROUP: usize = 3;

/// One figure's place in its group.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Standing {
    /// The figure's key.
    pub metric: String,
    /// Its unit.
    pub unit: Option<String>,
    /// This result's value.
    pub value: f64,
    /// Percentile rank in the group, 0–100 (higher: better than more of them).
    pub percentile: f64,
    /// Results in the group with this figure, this one included.
    pub of: usize,
    /// The group in words: `Rockchip RK3588 run results with 7-zip 16.02`.
    pub group: String,
}

impl Standing {
    /// `sevenzip_multi 16250 MIPS: 73rd percentile of 41 Rockchip RK3588 run results (…)`.
    pub fn text(&self) -> String {
        let unit = self
            .unit
            .as_deref()
            .map(|u| format!(" {u}"))
            .unwrap_or_default();
        let p = self.percentile.round() as u32;
        let suffix = match (p % 10, p % 100) {
            (_, 11..=13) => "th",
            (1, _) => "st",
            (2, _) => "nd",
            (3, _) => "rd",
            _ => "th",
        };
        format!(
            "{} {}{unit}: {p}{suffix} percentile of {} {}",
            self.metric,
            fmt(self.value),
            self.of,
            self.group
        )
    }
}

fn fmt(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v:.2}")
    }
}

fn soc(doc: &Document) -> Option<&str> {
    let s = doc.envelope.inventory.soc.as_ref()?;
    // A layout several chips share, a vendor only or another tool's guess (and an old
    // document's hedged "one of …") names no one chip to be grouped with.
    s.chip().filter(|c| !c.is_empty())
}

/// The tool versions that decide a group, as `compare` weighs them: 7-zip by its rating
/// family, OpenSSL by major.minor (its build date says nothing), the others as printed; the
/// sbc-bench script that ran an imported log is no tool that scores.
fn versions(doc: &Document) -> Vec<(String, String)> {
    let tools: Vec<(String, Option<String>)> = doc
        .envelope
        .tools
        .iter()
        .map(|t| (t.name.clone(), t.version.clone()))
        .collect();
    versions_of(&tools)
}

fn versions_of(tools: &[(String, Option<String>)]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = tools
        .iter()
        .filter(|(name, _)| name != "sbc-bench")
        .filter_map(|(name, version)| {
            let raw = version.clone()?;
            let shown = match name.as_str() {
                "7-zip" => crate::compare::sevenzip_family(&raw),
                "openssl" => openssl_major_minor(&raw).unwrap_or(raw),
                _ => raw,
            };
            Some((name.clone(), shown))
        })
        .collect();
    v.sort();
    v
}

/// `3.0` of `OpenSSL 3.0.11, built on 19 Sep 2023`.
fn openssl_major_minor(v: &str) -> Option<String> {
    let start = v.find(|c: char| c.is_ascii_digit())?;
    let num: String = v[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let mut parts = num.split('.');
    Some(format!("{}.{}", parts.next()?, parts.next()?))
}

/// Whether `other` is in `doc`'s group: same kind, same SoC, same tool versions, and a
/// result whose figures count (complete, valid, comparable).
pub fn same_group(doc: &Document, other: &Document) -> bool {
    doc.kind() == other.kind()
        && soc(doc).is_some()
        && soc(doc) == soc(other)
        && versions(doc) == versions(other)
        && counts(other)
}

/// The same result, whether the same value or a copy loaded again: one machine starts no two
/// measurements of a kind in the same millisecond.
fn same_result(a: &Document, b: &Document) -> bool {
    std::ptr::eq(a, b)
        || (a.kind() == b.kind()
            && a.envelope.started.unix_ms == b.envelope.started.unix_ms
            && a.envelope.hostname == b.envelope.hostname
            && a.envelope.inventory.device == b.envelope.inventory.device)
}

/// The group in words: `Rockchip RK3588 run results with 7-zip 16.x`.
fn group_text(doc: &Document, chip: &str) -> String {
    group_text_of(doc.kind(), &versions(doc), chip)
}

fn group_text_of(kind: &str, versions: &[(String, String)], chip: &str) -> String {
    let tools = versions
        .iter()
        .filter(|(n, _)| !n.starts_with("built-in"))
        .map(|(n, v)| format!("{n} {v}"))
        .collect::<Vec<_>>();
    format!(
        "{chip} {kind} results{}",
        if tools.is_empty() {
            String::new()
        } else {
            format!(" with {}", tools.join(", "))
        }
    )
}

/// Every result's [`standing`] among `docs`, the same as calling it for each, in time that
/// grows with the history, not with its square: each result's figures are computed once and
/// each group's values sorted once (a site of a fleet's history ranks every result).
pub fn standing_all(docs: &[&Document]) -> Vec<Vec<Standing>> {
    let facts: Vec<Facts> = docs.iter().map(|d| Facts::of(d)).collect();
    let figures: Vec<Vec<truebench_figures::Metric>> = docs
        .iter()
        .zip(&facts)
        .map(|(d, f)| {
            if f.chip.is_some() {
                truebench_figures::metrics(d)
            } else {
                Vec::new()
            }
        })
        .collect();
    let facts: Vec<&Facts> = facts.iter().collect();
    let figures: Vec<&[truebench_figures::Metric]> = figures.iter().map(Vec::as_slice).collect();
    standing_all_of(&facts, &figures)
}

/// [`standing_all`] of the results' [`Facts`] and figures (`truebench_figures::metrics`;
/// those of results that name no chip are not read), without their documents.
pub fn standing_all_of<F: truebench_figures::Figure>(
    facts: &[&Facts],
    figures: &[&[F]],
) -> Vec<Vec<Standing>> {
    let ranks = ranks_of(facts, figures);
    (0..facts.len())
        .map(|i| ranks.standing(i, figures[i]))
        .collect()
}

/// One figure's place in its group, as [`ranks_of`] finds it: a [`Standing`] without its
/// words (a fleet's hundred thousand results have half a million of them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rank {
    /// The figure's place among the result's figures.
    pub figure: usize,
    pub value: f64,
    pub percentile: f64,
    pub of: usize,
    /// The group's place in [`Ranks::groups`].
    pub group: usize,
}

/// Every result's [`Rank`]s, and each group in words.
#[derive(Debug, Clone, Default)]
pub struct Ranks {
    /// Per result, its figures' ranks (empty: none ranked).
    pub of: Vec<Vec<Rank>>,
    /// Each group in words: `Rockchip RK3588 run results with 7-zip 16.x`.
    pub groups: Vec<String>,
}

impl Ranks {
    /// The standing of result `i`, whose figures are `figures`.
    pub fn standing<F: truebench_figures::Figure>(&self, i: usize, figures: &[F]) -> Vec<Standing> {
        self.of[i]
            .iter()
            .map(|r| Standing {
                metric: figures[r.figure].key().to_string(),
                unit: figures[r.figure].unit().map(str::to_string),
                value: r.value,
                percentile: r.percentile,
                of: r.of,
                group: self.groups[r.group].clone(),
            })
            .collect()
    }
}

/// [`standing_all_of`] as [`Ranks`]: the same places, the words made only for the results
/// asked for ([`Ranks::standing`]).
pub fn ranks_of<F: truebench_figures::Figure>(facts: &[&Facts], figures: &[&[F]]) -> Ranks {
    use foldhash::HashMap;
    type Key = (String, String, Vec<(String, String)>);
    // Each result's group as a number (the key hashed once per result, not once per figure
    // of a fleet's results), with the group's words made once.
    let mut numbered: HashMap<Key, usize> = HashMap::default();
    let mut words: Vec<String> = Vec::new();
    // The same kind, chip and tools as spelt in the facts are the same group: a fleet's
    // results repeat a few hundred of them, whose versions are normalised once each.
    type Spelt<'a> = (&'a str, &'a str, &'a [(String, Option<String>)]);
    let mut spelt: HashMap<Spelt<'_>, usize> = HashMap::default();
    let group: Vec<Option<usize>> = facts
        .iter()
        .map(|f| {
            let c = f.chip.as_ref()?;
            let raw = (f.kind.as_str(), c.as_str(), f.tools.as_slice());
            if let Some(&g) = spelt.get(&raw) {
                return Some(g);
            }
            let key = (f.kind.clone(), c.clone(), versions_of(&f.tools));
            let n = numbered.len();
            let g = *numbered.entry(key).or_insert_with_key(|k| {
                words.push(group_text_of(&k.0, &k.2, &k.1));
                n
            });
            spelt.insert(raw, g);
            Some(g)
        })
        .collect();
    // Whether a figure ranks, and which way, by its key and unit.
    let mut ways = Ways::default();
    // A figure of a result as `standing` reads it of another: the first with its key.
    let value = |j: usize, key: &str| -> Option<f64> {
        figures[j]
            .iter()
            .find(|x| x.key() == key)?
            .value()
            .filter(|x| x.is_finite())
    };
    // Each group's values per figure, sorted, of the results that count.
    let mut sorted: HashMap<(usize, &str), Vec<f64>> = HashMap::default();
    let mut seen: Vec<&str> = Vec::new();
    for (j, g) in group.iter().enumerate() {
        let Some(g) = *g else { continue };
        if !facts[j].counts {
            continue;
        }
        seen.clear();
        for m in figures[j] {
            if seen.contains(&m.key()) {
                continue;
            }
            seen.push(m.key());
            if let Some(v) = m.value().filter(|v| v.is_finite()) {
                sorted.entry((g, m.key())).or_default().push(v);
            }
        }
    }
    for v in sorted.values_mut() {
        v.sort_by(f64::total_cmp);
    }
    // The members that are the same result as another (itself, or a copy loaded again).
    type Same<'a> = (&'a str, i64, &'a Option<String>, &'a Option<String>);
    fn same(f: &Facts) -> Same<'_> {
        (&f.kind, f.started_unix_ms, &f.hostname, &f.device)
    }
    let mut copies: HashMap<Same<'_>, Vec<usize>> = HashMap::default();
    for (j, g) in group.iter().enumerate() {
        if g.is_some() && facts[j].counts {
            copies.entry(same(facts[j])).or_default().push(j);
        }
    }
    let empty = Vec::new();
    let mut out = Vec::with_capacity(facts.len());
    let mut excluded: Vec<usize> = Vec::new();
    for (i, g) in group.iter().enumerate() {
        let Some(g) = *g else {
            out.push(Vec::new());
            continue;
        };
        excluded.clear();
        if let Some(c) = copies.get(&same(facts[i])) {
            excluded.extend(c.iter().copied().filter(|&j| group[j] == Some(g)));
        }
        let mut mine = Vec::new();
        for (at, m) in figures[i].iter().enumerate() {
            let Some(v) = m.value().filter(|v| v.is_finite()) else {
                continue;
            };
            let Some(dir) = ways.of(m.key(), m.unit()) else {
                continue;
            };
            let all = sorted.get(&(g, m.key())).unwrap_or(&empty);
            let mut below = all.partition_point(|&x| x < v);
            let upto = all.partition_point(|&x| x <= v);
            let mut equal = upto - below;
            let mut above = all.len() - upto;
            for &e in &excluded {
                match value(e, m.key()) {
                    Some(x) if x < v => below -= 1,
                    Some(x) if x == v => equal -= 1,
                    Some(_) => above -= 1,
                    None => {}
                }
            }
            let n = below + equal + above + 1;
            if n < MIN_GROUP {
                continue;
            }
            let worse = match dir {
                Better::Higher => below,
                Better::Lower => above,
            };
            mine.push(Rank {
                figure: at,
                value: v,
                percentile: 100.0 * (worse as f64 + 0.5 * (equal + 1) as f64) / n as f64,
                of: n,
                group: g,
            });
        }
        out.push(mine);
    }
    Ranks {
        of: out,
        groups: words,
    }
}

/// `doc`'s figures ranked among `stored` (which may hold `doc` itself: it is counted once).
/// Empty when `doc` names no SoC or its group is smaller than [`MIN_GROUP`].
pub fn standing(doc: &Document, stored: &[&Document]) -> Vec<Standing> {
    let others: Vec<Vec<truebench_figures::Metric>> = stored
        .iter()
        .filter_map(|d| group_figures(doc, d))
        .collect();
    standing_among(doc, &others)
}

/// The figures of `other` when it is in `doc`'s group and not `doc` itself: what
/// [`standing_among`] ranks `doc` in, taken one stored result at a time (a large group's
/// documents need not be held together).
pub fn group_figures(doc: &Document, other: &Document) -> Option<Vec<truebench_figures::Metric>> {
    (same_group(doc, other) && !same_result(doc, other)).then(|| truebench_figures::metrics(other))
}

/// The SoC name a result's group is stored under (the `soc` column), when it has a group.
pub fn group_soc(doc: &Document) -> Option<&str> {
    soc(doc)
}

/// `doc`'s figures ranked among `others` (its group's figures, [`group_figures`]).
pub fn standing_among(doc: &Document, others: &[Vec<truebench_figures::Metric>]) -> Vec<Standing> {
    let figures = ranked_figures(doc);
    let counted: Result<_, std::convert::Infallible> = standing_counted(doc, figures, |key, v| {
        let values = others
            .iter()
            .filter_map(|o| o.iter().find(|x| x.key == key)?.value)
            .filter(|x| x.is_finite());
        let mut c = Counted::default();
        for x in values {
            c.of += 1;
            c.below += usize::from(x < v);
            c.equal += usize::from(x == v);
        }
        Ok(c)
    });
    counted.unwrap_or_else(|e| match e {})
}

/// How a figure's value `v` compares with its group's values of the figure (the result
/// itself left out).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Counted {
    /// Values of the figure in the group.
    pub of: usize,
    /// Of those, below `v`.
    pub below: usize,
    /// Equal to `v`.
    pub equal: usize,
}

/// A figure of a result that is ranked: its value finite, and better one way.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// The figure's key.
    pub key: String,
    /// Its unit.
    pub unit: Option<String>,
    /// The result's value.
    pub value: f64,
    better: Better,
}

/// The figures of `doc` that get a standing, in its order (none when it names no chip): what
/// [`standing_counted`] ranks and a history is asked to count, all at once.
pub fn ranked_figures(doc: &Document) -> Vec<Ranked> {
    if soc(doc).is_none() {
        return Vec::new();
    }
    truebench_figures::metrics(doc)
        .into_iter()
        .filter_map(|m| {
            let value = m.value.filter(|v| v.is_finite())?;
            let better = better(&m.key, m.unit.as_deref())?;
            Some(Ranked {
                key: m.key,
                unit: m.unit,
                value,
                better,
            })
        })
        .collect()
}

/// `doc`'s `figures` ([`ranked_figures`]) ranked, each by `count(key, value)`: its group's
/// values of that figure counted ([`standing_among`] counts a list; the history counts its
/// `standing` table).
pub fn standing_counted<E>(
    doc: &Document,
    figures: Vec<Ranked>,
    mut count: impl FnMut(&str, f64) -> Result<Counted, E>,
) -> Result<Vec<Standing>, E> {
    let Some(chip) = soc(doc) else {
        return Ok(Vec::new());
    };
    let group = group_text(doc, chip);
    let mut out = Vec::new();
    for m in figures {
        let (v, dir) = (m.value, m.better);
        let c = count(&m.key, v)?;
        let n = c.of + 1;
        if n < MIN_GROUP {
            continue;
        }
        let worse = match dir {
            Better::Higher => c.below,
            Better::Lower => c.of - c.below - c.equal,
        };
        let ties = c.equal + 1;
        out.push(Standing {
            metric: m.key,
            unit: m.unit,
            value: v,
            percentile: 100.0 * (worse as f64 + 0.5 * ties as f64) / n as f64,
            of: n,
            group: group.clone(),
        });
    }
    Ok(out)
}

/// The key of `doc`'s group as the history's `standing` table stores it (kind, chip and the
/// tool versions that decide a group); None when it names no one chip.
pub fn group_key(doc: &Document) -> Option<String> {
    let chip = soc(doc)?;
    Some(serde_json::json!([doc.kind(), chip, versions(doc)]).to_string())
}

/// What the history's `standing` table holds of `doc`, whose figures
/// (`truebench_figures::metrics`, computed once by the caller, who stores them too) are
/// `figures`: its group's key (`""` when its figures count in no group: it names no chip, or
/// it is incomplete, invalid or not comparable) and, in a group, each figure's value as
/// [`standing_among`] reads another result's (the first of a key, when finite).
pub fn stored(
    doc: &Document,
    figures: &[truebench_figures::Metric],
) -> (String, Vec<(String, f64)>) {
    let Some(key) = group_key(doc).filter(|_| counts(doc)) else {
        return (String::new(), Vec::new());
    };
    let mut out: Vec<(String, f64)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for m in figures {
        if !seen.insert(m.key.as_str()) {
            continue;
        }
        if let Some(v) = m.value.filter(|v| v.is_finite()) {
            out.push((m.key.clone(), v));
        }
    }
    (key, out)
}
