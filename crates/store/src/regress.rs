//! Regressions from the history: a result's headline figures against the earlier results of
//! the same machine and kind, and what differs between them — what board farms and kernel CI
//! exist to see (a board that got slower after a kernel update).
//!
//! The rule (docs/results.md, "Regressions"):
//! - history: earlier results of the same kind and machine — the same board (its device name,
//!   letters and digits only, case ignored), the same SoC and host name where both results
//!   name one — that are complete, valid and comparable;
//! - baseline: the previous such result;
//! - band: [`FLOOR_PCT`], or twice the earlier values' coefficient of variation when there are
//!   at least three of them and that is wider;
//! - verdict: a change beyond the band in the direction the figure calls worse is a
//!   regression, in the other an improvement.

use truebench_figures::Metric;
use truebench_model::finding::{Finding, FindingKind, Severity};
use truebench_model::Document;

use crate::facts::Facts;

/// The smallest change called a regression or an improvement, percent: run-to-run noise of
/// the same board, kernel and tools stays within it (sbc-bench's repeated 7-zip runs vary by
/// 1–3 %, memory bandwidth a little more).
pub const FLOOR_PCT: f64 = 5.0;

/// How many earlier values make a spread worth using instead of the floor.
const SPREAD_FROM: usize = 3;

/// Which way a figure gets better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    /// Scores, bandwidths, clocks, rates.
    Higher,
    /// Times, latencies, energy, power, temperatures, spreads, miss ratios.
    Lower,
}

/// [`better`] of each key and unit, found once: a fleet's results repeat a few dozen of them,
/// and each call searches the key for a dozen words.
#[derive(Default)]
pub(crate) struct Ways<'a>(foldhash::HashMap<(&'a str, Option<&'a str>), Option<Better>>);

impl<'a> Ways<'a> {
    pub(crate) fn of(&mut self, key: &'a str, unit: Option<&'a str>) -> Option<Better> {
        *self
            .0
            .entry((key, unit))
            .or_insert_with(|| better(key, unit))
    }
}

/// The direction of a figure by its key and unit; None for figures that are no score (an
/// exit code, a deviation either way, a thermal score change).
pub fn better(key: &str, unit: Option<&str>) -> Option<Better> {
    // Settings and labels, not scores: an exit code, a deviation either way, an OPP's label,
    // a count of settings, a ratio whose best value is in the middle.
    let label = [
        "exit_code",
        "deviation",
        "score_change",
        "desired_cpu",
        "_version",
        "opp_mhz",
        "work_time_ratio",
    ]
    .iter()
    .any(|k| key.contains(k))
        || key == "settings";
    if label {
        return None;
    }
    let lower_unit = matches!(
        unit,
        Some("s" | "ms" | "µs" | "us" | "ns" | "J" | "W" | "°C")
    );
    // Counts of problems and spreads: fewer is better.
    let problems = [
        "_spread_pct",
        "miss_ratio",
        "errors",
        "to_look_at",
        "status_changes",
    ]
    .iter()
    .any(|k| key.contains(k));
    if lower_unit || problems {
        Some(Better::Lower)
    } else {
        Some(Better::Higher)
    }
}

/// What one figure did against the baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The figure's key (`sevenzip_multi`).
    pub metric: String,
    /// Its unit.
    pub unit: Option<String>,
    /// This result's value.
    pub value: f64,
    /// The baseline's.
    pub baseline: f64,
    /// Relative change, percent.
    pub change_pct: f64,
    /// The noise band it is judged against, percent.
    pub band_pct: f64,
    /// Regression or improvement; None within the band.
    pub verdict: Option<FindingKind>,
}

/// One thing that differs between a result and its baseline: `kernel 5.14.0 → 5.10.1`.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// `kernel`, `distribution`, `7-zip`, `governor`, `memory`, `settings tuned`, …
    pub what: String,
    /// The baseline's value.
    pub from: String,
    /// This result's.
    pub to: String,
}

/// A result judged against its history.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// The baseline's position in the list given (or its history id, as the caller maps it).
    pub baseline: usize,
    /// How many earlier results the band was taken from.
    pub history: usize,
    /// Every figure both have.
    pub changes: Vec<Change>,
    /// What differs between the two results.
    pub differs: Vec<Difference>,
}

impl Judgement {
    /// Only the kernel differs (what KernelCI counts as a kernel regression).
    pub fn only_kernel(&self) -> bool {
        self.differs.len() == 1 && self.differs[0].what == "kernel"
    }

    /// The changes beyond the band.
    pub fn verdicts(&self) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(|c| c.verdict.is_some())
    }

    /// The differences in words: `only the kernel differs (5.14.0 → 5.10.1)`, `kernel
    /// 5.14.0 → 5.10.1, distribution … → …`, or `nothing recorded differs`.
    pub fn differs_text(&self) -> String {
        if self.only_kernel() {
            let d = &self.differs[0];
            return format!("only the kernel differs ({} → {})", d.from, d.to);
        }
        if self.differs.is_empty() {
            return "nothing recorded differs".into();
        }
        self.differs
            .iter()
            .map(|d| format!("{} {} → {}", d.what, d.from, d.to))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// One finding per figure beyond the band: a regression (warning) or an improvement
    /// (info), saying what moved, by how much against which band, and what differs.
    pub fn findings(&self, baseline_name: &str) -> Vec<Finding> {
        self.verdicts()
            .map(|c| {
                let kind = c.verdict.unwrap_or(FindingKind::Regression);
                let (word, severity) = if kind == FindingKind::Regression {
                    ("regression", Severity::Warning)
                } else {
                    ("improvement", Severity::Info)
                };
                let unit = c.unit.as_deref().map(|u| format!(" {u}")).unwrap_or_default();
                Finding::new(
                    kind,
                    severity,
                    format!(
                        "{}: {word} of {:+.1} % against {baseline_name} ({}{unit} → {}{unit}; noise band ±{:.1} %); {}.",
                        truebench_figures::label_of(&c.metric),
                        c.change_pct,
                        fmt(c.baseline),
                        fmt(c.value),
                        c.band_pct,
                        self.differs_text()
                    ),
                )
                .with_evidence(self.differs.iter().map(|d| format!("{}: {} → {}", d.what, d.from, d.to)))
            })
            .collect()
    }
}

fn fmt(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v:.2}")
    }
}

/// Letters and digits of a name, lower case: `Pine64 RockPro64` = `pine64rockpro64`.
pub fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether `a` and `b` are results of the same machine (see the module's rule).
pub fn same_machine(a: &Document, b: &Document) -> bool {
    same_names(&Names::of(&Facts::of(a)), &Names::of(&Facts::of(b)))
}

/// What names a result's machine, normalised once: board, SoC, host name.
struct Names {
    device: Option<String>,
    soc: Option<String>,
    host: Option<String>,
}

impl Names {
    fn of(f: &Facts) -> Names {
        Names {
            device: f.device.as_deref().map(norm),
            soc: f.soc_name.as_deref().map(norm),
            host: f.hostname.as_deref().map(norm),
        }
    }
}

fn same_names(x: &Names, y: &Names) -> bool {
    let both = |p: &Option<String>, q: &Option<String>| match (p, q) {
        (Some(p), Some(q)) => p == q,
        _ => true,
    };
    // A board must be named by both: "unknown" is no machine to follow.
    matches!((&x.device, &y.device), (Some(p), Some(q)) if p == q && !p.is_empty())
        && both(&x.soc, &y.soc)
        && both(&x.host, &y.host)
}

/// A result that can be a baseline or be judged: complete, valid and comparable.
pub fn counts(doc: &Document) -> bool {
    let e = &doc.envelope;
    e.complete && e.valid && e.comparable
}

/// What differs between `base` and `doc`: kernel, distribution, architecture, tool versions,
/// governors, maximum clocks, memory, the settings truebench tuned.
pub fn differences(base: &Document, doc: &Document) -> Vec<Difference> {
    differences_of(&Facts::of(base), &Facts::of(doc))
}

/// [`differences`] of two results' [`Facts`].
pub fn differences_of(a: &Facts, b: &Facts) -> Vec<Difference> {
    let mut out = Vec::new();
    let mut push = |what: &str, from: Option<String>, to: Option<String>| {
        if let (Some(f), Some(t)) = (from, to) {
            if f != t {
                out.push(Difference {
                    what: what.into(),
                    from: f,
                    to: t,
                });
            }
        }
    };
    push("kernel", a.kernel.clone(), b.kernel.clone());
    push("distribution", a.distro.clone(), b.distro.clone());
    push("userland", a.userland.clone(), b.userland.clone());
    let versions = |f: &Facts| -> Vec<(String, String)> {
        f.tools
            .iter()
            .filter_map(|(n, v)| Some((n.clone(), v.clone()?)))
            .collect()
    };
    let (ta, tb) = (versions(a), versions(b));
    for (name, va) in &ta {
        let vb = tb.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        push(name, Some(va.clone()), vb);
    }
    push("governor", a.governors.clone(), b.governors.clone());
    push("maximum clocks", a.clocks.clone(), b.clocks.clone());
    // Memory within 2 % is the same RAM (MemTotal moves with kernel reservations).
    if let (Some(x), Some(y)) = (a.memory_kb, b.memory_kb) {
        if (x as f64 - y as f64).abs() > 0.02 * x.max(y) as f64 {
            push(
                "memory",
                Some(format!("{} MiB", x / 1024)),
                Some(format!("{} MiB", y / 1024)),
            );
        }
    }
    if a.tuned != b.tuned {
        let said = |v: &[String]| {
            if v.is_empty() {
                "none".to_string()
            } else {
                format!("{} settings", v.len())
            }
        };
        out.push(Difference {
            what: "settings tuned".into(),
            from: said(&a.tuned),
            to: said(&b.tuned),
        });
    }
    out
}

/// The noise band for a figure whose earlier values are `values`: [`FLOOR_PCT`], or twice
/// their coefficient of variation (percent) when there are at least three and it is wider.
pub fn band_pct(values: &[f64]) -> f64 {
    if values.len() < SPREAD_FROM {
        return FLOOR_PCT;
    }
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    truebench_stats::sample_sd(values)
        .filter(|_| mean != 0.0)
        .map_or(FLOOR_PCT, |sd| {
            (2.0 * 100.0 * sd / mean.abs()).max(FLOOR_PCT)
        })
}

fn numbers(doc: &Document) -> Vec<Metric> {
    finite(truebench_figures::metrics(doc))
}

fn finite(m: Vec<Metric>) -> Vec<Metric> {
    m.into_iter()
        .filter(|m| m.value.is_some_and(f64::is_finite))
        .collect()
}

/// Judge `doc` against `earlier` (the same machine's and kind's results before it, oldest
/// first, each counting — see [`counts`]). None without any.
pub fn judge(doc: &Document, earlier: &[&Document]) -> Option<Judgement> {
    let figures: Vec<Vec<Metric>> = earlier.iter().map(|d| numbers(d)).collect();
    let refs: Vec<&[Metric]> = figures.iter().map(Vec::as_slice).collect();
    let base = Facts::of(earlier.last()?);
    judge_figures(&Facts::of(doc), &numbers(doc), &base, &refs, &mut better)
}

/// [`judge`] with every result's figures computed once by the caller (`earlier_figures[k]`
/// are the k-th earlier result's, the last the baseline's), so a whole history is judged
/// without recomputing them per result.
///
/// `way` is [`better`] (or a memo of it).
fn judge_figures<'a, F: truebench_figures::Figure>(
    doc: &Facts,
    mine: &'a [F],
    base: &Facts,
    earlier_figures: &[&[F]],
    way: &mut dyn FnMut(&'a str, Option<&'a str>) -> Option<Better>,
) -> Option<Judgement> {
    let base_figures = *earlier_figures.last()?;
    // Only finite figures are judged or judged against (the first finite one of a key).
    let finite = |x: &F| x.value().is_some_and(f64::is_finite);
    let first = |f: &[F], key: &str| -> Option<f64> {
        f.iter().find(|x| x.key() == key && finite(x))?.value()
    };
    let mut changes = Vec::new();
    for m in mine.iter().filter(|m| finite(m)) {
        let Some(dir) = way(m.key(), m.unit()) else {
            continue;
        };
        let Some(bv) = first(base_figures, m.key()) else {
            continue;
        };
        let v = m.value().unwrap_or(0.0);
        if bv == 0.0 {
            continue;
        }
        let values: Vec<f64> = earlier_figures
            .iter()
            .filter_map(|f| first(f, m.key()))
            .collect();
        let band = band_pct(&values);
        let change = 100.0 * (v - bv) / bv.abs();
        let verdict = (change.abs() > band).then(|| {
            let worse = match dir {
                Better::Higher => change < 0.0,
                Better::Lower => change > 0.0,
            };
            if worse {
                FindingKind::Regression
            } else {
                FindingKind::Improvement
            }
        });
        changes.push(Change {
            metric: m.key().to_string(),
            unit: m.unit().map(str::to_string),
            value: v,
            baseline: bv,
            change_pct: change,
            band_pct: band,
            verdict,
        });
    }
    Some(Judgement {
        baseline: earlier_figures.len() - 1,
        history: earlier_figures.len(),
        changes,
        differs: differences_of(base, doc),
    })
}

/// Every result of `docs` judged against its own history within `docs`: for each index, the
/// judgement (its `baseline` an index into `docs`). Results that do not count are neither
/// judged nor anyone's baseline.
pub fn judge_all(docs: &[&Document]) -> Vec<(usize, Judgement)> {
    let facts: Vec<Facts> = docs.iter().map(|d| Facts::of(d)).collect();
    // Each result's figures once, not once per later result of its machine.
    let figures: Vec<Vec<Metric>> = docs
        .iter()
        .zip(&facts)
        .map(|(d, f)| {
            if f.counts {
                truebench_figures::metrics(d)
            } else {
                Vec::new()
            }
        })
        .collect();
    let facts: Vec<&Facts> = facts.iter().collect();
    let figures: Vec<&[Metric]> = figures.iter().map(Vec::as_slice).collect();
    judge_all_of(&facts, &figures)
}

/// [`judge_all`] of the results' [`Facts`] and figures (`truebench_figures::metrics`; those
/// of results that do not count are not read), without their documents.
pub fn judge_all_of<'a, F: truebench_figures::Figure>(
    facts: &[&Facts],
    figures: &[&'a [F]],
) -> Vec<(usize, Judgement)> {
    let n = facts.len();
    let mut order: Vec<usize> = (0..n).filter(|&i| facts[i].counts).collect();
    order.sort_by_key(|&i| (facts[i].started_unix_ms, i));
    let mut out = Vec::new();
    // The earlier results of each kind and board name (what `same_machine` needs first), so
    // each result is checked against its board's, not against the whole history.
    let names: Vec<Option<Names>> = (0..n)
        .map(|i| facts[i].counts.then(|| Names::of(facts[i])))
        .collect();
    let mut by_board: foldhash::HashMap<(&str, &str), Vec<usize>> = Default::default();
    // Each figure's direction found once per key and unit, not per result.
    let mut ways = Ways::default();
    let mut way = |key: &'a str, unit: Option<&'a str>| ways.of(key, unit);
    for &i in &order {
        let mine = names[i].as_ref().expect("named: it counts");
        // A result with no board name is no machine to follow (`same_machine`).
        let earlier: Vec<usize> = match mine.device.as_deref() {
            Some(board) => {
                let before = by_board.entry((facts[i].kind.as_str(), board)).or_default();
                let earlier = before
                    .iter()
                    .copied()
                    .filter(|&j| names[j].as_ref().is_some_and(|n| same_names(n, mine)))
                    .collect();
                before.push(i);
                earlier
            }
            None => Vec::new(),
        };
        let Some(&last) = earlier.last() else {
            continue;
        };
        // Only results that count are anyone's earlier results: their figures are read.
        let figs: Vec<&[F]> = earlier.iter().map(|&j| figures[j]).collect();
        if let Some(mut j) = judge_figures(facts[i], figures[i], facts[last], &figs, &mut way) {
            j.baseline = earlier[j.baseline];
            out.push((i, j));
        }
    }
    out
}
