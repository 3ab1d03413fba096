//! Results side by side: the headline scores with relative differences, and every reason
//! the comparison is not a fair one (different 7-zip or OpenSSL versions, throttling,
//! background activity, swapping, quick mode, different tuning, incomplete runs).

use serde::{Deserialize, Serialize};
use truebench_model::phase;

pub use truebench_figures::run::{metrics, openssl_short, Metrics};
use truebench_model::*;

/// `16.02` → `16.x`; 7-zip's benchmark scores change between major versions, and the
/// corpus holds p7zip 16.02 and 9.20 only.
pub fn sevenzip_family(version: &str) -> String {
    let major = version.split('.').next().unwrap_or(version).trim();
    format!("{major}.x")
}

/// `3.0.7` → `3.0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    SevenzipMulti,
    SevenzipSingle,
    Aes,
    Memcpy,
    Memset,
}

pub const METRICS: [Metric; 5] = [
    Metric::SevenzipMulti,
    Metric::SevenzipSingle,
    Metric::Aes,
    Metric::Memcpy,
    Metric::Memset,
];

impl Metric {
    pub fn label(self) -> &'static str {
        match self {
            Metric::SevenzipMulti => "7-zip multi",
            Metric::SevenzipSingle => "7-zip single",
            Metric::Aes => "AES-256 16 KiB",
            Metric::Memcpy => "memcpy",
            Metric::Memset => "memset",
        }
    }
    pub fn unit(self) -> &'static str {
        match self {
            Metric::SevenzipMulti | Metric::SevenzipSingle => "MIPS",
            Metric::Aes => "kB/s",
            Metric::Memcpy | Metric::Memset => "MB/s",
        }
    }
    pub fn get(self, m: &Metrics) -> Option<u64> {
        match self {
            Metric::SevenzipMulti => m.sevenzip_multi,
            Metric::SevenzipSingle => m.sevenzip_single,
            Metric::Aes => m.aes,
            Metric::Memcpy => m.memcpy,
            Metric::Memset => m.memset,
        }
    }
    /// Scores of this metric depend on the 7-zip version.
    pub fn sevenzip(self) -> bool {
        matches!(self, Metric::SevenzipMulti | Metric::SevenzipSingle)
    }
}

/// One compared result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Column {
    /// `A`, `B`, …
    pub key: String,
    /// What the user gave (file name, `#12`).
    pub label: String,
    pub device: String,
    pub date: String,
    /// The kernel release it ran on; None when unknown.
    #[serde(default)]
    pub kernel: Option<String>,
    pub mode: String,
    pub valid: bool,
    pub metrics: Metrics,
    /// Highest measured clock of any cluster at its top OPP before the benchmarks, MHz.
    pub max_clock_mhz: Option<f64>,
    /// Highest SoC temperature seen, °C.
    pub max_temp_c: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub metric: Metric,
    pub label: String,
    pub unit: String,
    pub values: Vec<Option<u64>>,
    /// (value − first value) / first value, %; None for the first column or missing values.
    pub relative_pct: Vec<Option<f64>>,
    /// Why the numbers in this row cannot be compared fairly (empty: they can).
    pub invalid: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    /// Every reason the comparison is not valid, per result or between results.
    pub warnings: Vec<String>,
    /// True when nothing above makes the comparison unfair.
    pub valid: bool,
    /// Where results of one machine are compared: each later one's figures beyond the noise
    /// band against the earlier one, with what differs (`regress`).
    #[serde(default)]
    pub regressions: Vec<String>,
    /// Where each result stands among the stored results of its SoC and tool versions
    /// (`standing`), filled by the caller that has the history.
    #[serde(default)]
    pub standing: Vec<String>,
}

/// The regression and improvement findings among `items` of one machine: each judged
/// against the earlier ones compared with it, `B: … against A …`.
pub fn regressions(items: &[(String, &Document)]) -> Vec<String> {
    let docs: Vec<&Document> = items.iter().map(|(_, d)| *d).collect();
    crate::regress::judge_all(&docs)
        .into_iter()
        .flat_map(|(i, j)| {
            let base = items[j.baseline].0.clone();
            let me = items[i].0.clone();
            j.findings(&base)
                .into_iter()
                .map(move |f| format!("{me}: {}", f.message))
        })
        .collect()
}

fn regressions_text(o: &mut String, r: &[String], standing: &[String]) {
    if !r.is_empty() {
        o.push_str("\nAgainst the same machine's earlier result:\n");
        for line in r {
            o.push_str(&format!("  * {line}\n"));
        }
    }
    if !standing.is_empty() {
        o.push_str("\nAmong the stored results of the same SoC and tool versions:\n");
        for line in standing {
            o.push_str(&format!("  * {line}\n"));
        }
    }
}

fn max_clock(r: RunView<'_>) -> Option<f64> {
    r.body
        .scores(phase::CLOCKS_COLD)
        .filter_map(|s| match s {
            Scores::Clocks(c) => Some(c),
            _ => None,
        })
        .flat_map(|c| c.clusters.iter())
        .filter_map(|cl| {
            let top = cl
                .points
                .iter()
                .filter(|p| p.measured_mhz.is_some())
                .max_by_key(|p| p.opp_mhz.unwrap_or(0))?;
            top.measured_mhz
        })
        .reduce(f64::max)
}

fn max_temp(r: RunView<'_>) -> Option<f64> {
    r.envelope
        .timeline
        .samples
        .iter()
        .filter_map(|s| s.soc_temp_c)
        .reduce(f64::max)
}

/// Compare results; the first is the reference for the relative differences.
pub fn compare(items: &[(String, RunResult)]) -> Comparison {
    let keys: Vec<String> = (0..items.len())
        .map(|i| {
            if i < 26 {
                ((b'A' + i as u8) as char).to_string()
            } else {
                format!("#{}", i + 1)
            }
        })
        .collect();
    let columns: Vec<Column> = items
        .iter()
        .zip(&keys)
        .map(|((label, r), key)| Column {
            key: key.clone(),
            label: label.clone(),
            device: r
                .envelope
                .inventory
                .device
                .clone()
                .or_else(|| r.envelope.hostname.clone())
                .unwrap_or_else(|| "unknown device".into()),
            kernel: r.envelope.inventory.kernel.release.clone(),
            date: if r.envelope.started.unix_ms == 0 {
                "unknown".into()
            } else {
                r.envelope
                    .started
                    .utc
                    .get(..10)
                    .unwrap_or(&r.envelope.started.utc)
                    .to_string()
            },
            mode: r.body.mode.as_str().into(),
            valid: r.envelope.valid,
            metrics: metrics(r.view()),
            max_clock_mhz: max_clock(r.view()),
            max_temp_c: max_temp(r.view()),
        })
        .collect();

    let fair: Vec<crate::fairness::Fairness> = items
        .iter()
        .map(|(_, r)| crate::fairness::of_run(r.view()))
        .collect();
    let all: Vec<&crate::fairness::Fairness> = fair.iter().collect();
    let mut warnings = Vec::new();
    for ((f, key), c) in fair.iter().zip(&keys).zip(&columns) {
        for reason in &f.own {
            warnings.push(format!("{key} ({}): {reason}", c.label));
        }
    }
    warnings.extend(crate::fairness::fact_warnings(&all, &keys));
    let zip_differ = crate::fairness::differing(&all, &keys, crate::fairness::SEVENZIP);
    let ssl_differ = crate::fairness::differing(&all, &keys, crate::fairness::OPENSSL);

    let rows = METRICS
        .iter()
        .map(|&m| {
            let values: Vec<Option<u64>> = columns.iter().map(|c| m.get(&c.metrics)).collect();
            let base = values.first().copied().flatten();
            let relative_pct = values
                .iter()
                .enumerate()
                .map(|(i, v)| match (i, base, v) {
                    (0, _, _) => None,
                    (_, Some(b), Some(v)) if b > 0 => {
                        Some((*v as f64 - b as f64) / b as f64 * 100.0)
                    }
                    _ => None,
                })
                .collect();
            let mut invalid = Vec::new();
            if m.sevenzip() {
                if let Some(d) = &zip_differ {
                    invalid.push(format!("7-zip versions differ ({d})"));
                }
            }
            if m == Metric::Aes {
                if let Some(d) = &ssl_differ {
                    invalid.push(format!("OpenSSL versions differ ({d})"));
                }
            }
            Row {
                metric: m,
                label: m.label().into(),
                unit: m.unit().into(),
                values,
                relative_pct,
                invalid,
            }
        })
        .collect();
    let docs: Vec<(String, Document)> = items
        .iter()
        .map(|(k, r)| (k.clone(), r.clone().into()))
        .collect();
    Comparison {
        valid: warnings.is_empty(),
        columns,
        rows,
        warnings,
        regressions: regressions(&docs.iter().map(|(k, d)| (k.clone(), d)).collect::<Vec<_>>()),
        standing: Vec::new(),
    }
}

/// The comparison as a text table: one column per result, widths fitted to the cells.
pub fn render(c: &Comparison) -> String {
    let short = |s: &str| -> String {
        if s.chars().count() > 28 {
            let t: String = s.chars().take(27).collect();
            format!("{t}…")
        } else {
            s.to_string()
        }
    };
    let mut lines: Vec<(String, Vec<String>)> = Vec::new();
    let mut add = |name: &str, f: &dyn Fn(&Column) -> String| {
        lines.push((name.to_string(), c.columns.iter().map(f).collect()));
    };
    add("", &|c| short(&format!("{}: {}", c.key, c.label)));
    add("device", &|c| short(&c.device));
    add("date", &|c| c.date.clone());
    add("kernel", &|c| short(c.kernel.as_deref().unwrap_or("-")));
    add("mode", &|c| c.mode.clone());
    add("valid", &|c| {
        if c.valid {
            "yes".into()
        } else {
            "NO".into()
        }
    });
    add("7-zip", &|c| {
        c.metrics
            .sevenzip_version
            .clone()
            .unwrap_or_else(|| "-".into())
    });
    add("OpenSSL", &|c| {
        short(c.metrics.openssl_version.as_deref().unwrap_or("-"))
    });
    add("max clock (MHz)", &|c| {
        c.max_clock_mhz.map_or("-".into(), |v| format!("{v:.0}"))
    });
    add("max temp (°C)", &|c| {
        c.max_temp_c.map_or("-".into(), |v| format!("{v:.1}"))
    });
    for r in &c.rows {
        let cells = r
            .values
            .iter()
            .zip(&r.relative_pct)
            .map(|(v, rel)| match (v, rel) {
                (Some(v), Some(p)) => format!("{v} ({p:+.1} %)"),
                (Some(v), None) => v.to_string(),
                (None, _) => "-".into(),
            })
            .collect();
        lines.push((
            format!(
                "{} ({}){}",
                r.label,
                r.unit,
                if r.invalid.is_empty() { "" } else { " *" }
            ),
            cells,
        ));
    }
    let w0 = lines.iter().map(|l| l.0.chars().count()).max().unwrap_or(0) + 2;
    let widths: Vec<usize> = (0..c.columns.len())
        .map(|i| {
            lines
                .iter()
                .map(|l| l.1[i].chars().count())
                .max()
                .unwrap_or(0)
                + 2
        })
        .collect();
    let mut o = String::new();
    for (name, cells) in &lines {
        let mut line = format!("{name:<w0$}");
        for (cell, w) in cells.iter().zip(&widths) {
            line.push_str(&format!("{cell:<w$}"));
        }
        o.push_str(line.trim_end());
        o.push('\n');
    }
    if c.rows.iter().any(|r| !r.invalid.is_empty()) {
        o.push_str("* not comparable: tool versions differ (see below)\n");
    }
    if c.warnings.is_empty() {
        o.push_str("\nValid comparison: same tool versions and tuning, no throttling, swapping or background activity.\n");
    } else {
        o.push_str("\nNot a valid comparison:\n");
        for w in &c.warnings {
            o.push_str(&format!("  * {w}\n"));
        }
    }
    regressions_text(&mut o, &c.regressions, &c.standing);
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(
            openssl_short("OpenSSL 3.0.19 27 Jan 2026 (Library: OpenSSL 3.0.19 27 Jan 2026)"),
            "3.0.19"
        );
        assert_eq!(openssl_short("OpenSSL 3.0.7, built on 1 Nov 2022"), "3.0.7");
        assert_eq!(sevenzip_family("16.02"), "16.x");
        assert_eq!(crate::fairness::major_minor("1.1.1n"), "1.1");
    }
}

/// Results of any one kind side by side: every headline figure ([`truebench_figures::metrics`])
/// with its difference to the first result, and what makes the comparison unfair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocumentComparison {
    pub kind: String,
    pub labels: Vec<String>,
    /// (figure, unit, value per result, % difference to the first per result).
    pub rows: Vec<FigureRow>,
    pub warnings: Vec<String>,
    pub valid: bool,
    /// As [`Comparison::regressions`].
    #[serde(default)]
    pub regressions: Vec<String>,
    /// As [`Comparison::standing`].
    #[serde(default)]
    pub standing: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FigureRow {
    pub key: String,
    /// The figure's readable name ([`truebench_figures::label_of`]).
    pub label: String,
    pub unit: Option<String>,
    pub values: Vec<Option<String>>,
    pub relative_pct: Vec<Option<f64>>,
}

/// Compare documents of one kind (the caller refuses mixed kinds).
pub fn compare_documents(items: &[(String, Document)]) -> DocumentComparison {
    let figures: Vec<Vec<truebench_figures::Metric>> = items
        .iter()
        .map(|(_, d)| truebench_figures::metrics(d))
        .collect();
    let mut keys: Vec<(String, Option<String>)> = Vec::new();
    for f in figures.iter().flatten() {
        if !keys.iter().any(|(k, _)| *k == f.key) {
            keys.push((f.key.clone(), f.unit.clone()));
        }
    }
    let rows: Vec<FigureRow> = keys
        .into_iter()
        .map(|(key, unit)| {
            let of = |i: usize| figures[i].iter().find(|m| m.key == key);
            let base = of(0).and_then(|m| m.value);
            FigureRow {
                values: (0..items.len())
                    .map(|i| {
                        of(i).map(|m| match (&m.value, &m.text) {
                            // No "-0" for a figure that rounds to nothing.
                            (Some(v), _) if v.abs() < 0.05 => "0".to_string(),
                            (Some(v), _) => format!("{v:.1}").trim_end_matches(".0").to_string(),
                            (None, Some(t)) => t.clone(),
                            (None, None) => "-".into(),
                        })
                    })
                    .collect(),
                relative_pct: (0..items.len())
                    .map(|i| match (base, of(i).and_then(|m| m.value)) {
                        (Some(b), Some(v)) if i > 0 && b != 0.0 => Some((v - b) / b.abs() * 100.0),
                        _ => None,
                    })
                    .collect(),
                label: truebench_figures::label_of(&key),
                key,
                unit,
            }
        })
        .collect();
    let mut warnings = Vec::new();
    for (label, d) in items {
        // A run's own reasons are those of `compare`'s run table; here only its state.
        for reason in crate::fairness::of_state(&d.envelope) {
            warnings.push(format!("{label} is {reason}"));
        }
    }
    let mut rows = rows;
    rows.extend(setting_rows(items));
    DocumentComparison {
        kind: items
            .first()
            .map(|(_, d)| d.kind().to_string())
            .unwrap_or_default(),
        labels: items.iter().map(|(l, _)| l.clone()).collect(),
        valid: warnings.is_empty(),
        rows,
        warnings,
        regressions: regressions(
            &items
                .iter()
                .map(|(l, d)| (l.clone(), d))
                .collect::<Vec<_>>(),
        ),
        standing: Vec::new(),
    }
}

/// What differs between the results, beside their figures (the kernel, the distribution,
/// tool versions, governors…: `regress::differences` against the first): one row each,
/// every result's value in its column — the same board across kernels says which.
fn setting_rows(items: &[(String, Document)]) -> Vec<FigureRow> {
    let Some((_, first)) = items.first() else {
        return Vec::new();
    };
    let diffs: Vec<Vec<crate::regress::Difference>> = items
        .iter()
        .map(|(_, d)| crate::regress::differences(first, d))
        .collect();
    let mut whats: Vec<&str> = Vec::new();
    for d in diffs.iter().flatten() {
        if !whats.contains(&d.what.as_str()) {
            whats.push(&d.what);
        }
    }
    whats
        .into_iter()
        .map(|what| {
            let base = diffs
                .iter()
                .flatten()
                .find(|d| d.what == what)
                .map(|d| d.from.clone());
            FigureRow {
                key: what.to_string(),
                label: what.to_string(),
                unit: None,
                values: diffs
                    .iter()
                    .map(|ds| {
                        ds.iter()
                            .find(|d| d.what == what)
                            .map(|d| d.to.clone())
                            .or_else(|| base.clone())
                    })
                    .collect(),
                relative_pct: vec![None; items.len()],
            }
        })
        .collect()
}

pub fn render_documents(c: &DocumentComparison) -> String {
    let mut o = format!("Comparing {} {} results:\n\n", c.labels.len(), c.kind);
    let w = c
        .rows
        .iter()
        .map(|r| r.label.chars().count() + 8)
        .max()
        .unwrap_or(10);
    o.push_str(&format!("{:<w$}", ""));
    for l in &c.labels {
        o.push_str(&format!("  {:>22}", l));
    }
    o.push('\n');
    for r in &c.rows {
        let name = match &r.unit {
            Some(u) => format!("{} ({u})", r.label),
            None => r.label.clone(),
        };
        o.push_str(&format!("{name:<w$}"));
        for (v, p) in r.values.iter().zip(&r.relative_pct) {
            let cell = match (v, p) {
                (Some(v), Some(p)) => format!("{v} ({p:+.1} %)"),
                (Some(v), None) => v.clone(),
                (None, _) => "-".into(),
            };
            o.push_str(&format!("  {cell:>22}"));
        }
        o.push('\n');
    }
    if c.warnings.is_empty() {
        o.push_str("\nNothing makes this comparison unfair that truebench can see.\n");
    } else {
        o.push_str("\nNot a valid comparison:\n");
        for w in &c.warnings {
            o.push_str(&format!("  * {w}\n"));
        }
    }
    regressions_text(&mut o, &c.regressions, &c.standing);
    o
}
