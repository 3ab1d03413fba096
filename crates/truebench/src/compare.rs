//! `truebench compare A B … [--json]`: scores side by side with relative differences and
//! every reason the comparison is unfair; `truebench compare RESULT --corpus DIR|ARCHIVE`:
//! where a result stands among sbc-bench logs.

use std::path::PathBuf;
use truebench_model::{BodyKind, RunBody, RunResult};
use truebench_store::{compare, rank};

#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// result.json files, sbc-bench logs or history ids (`12`); the first is the reference.
    #[arg(value_name = "RESULT", required = true)]
    pub results: Vec<String>,
    /// Rank each result among the sbc-bench logs of this folder (*.txt) or .tar.gz archive
    /// (e.g. tests/data/sbc-bench/results.tar.gz).
    #[arg(long, value_name = "DIR|ARCHIVE")]
    pub corpus: Option<PathBuf>,
    /// Logs shown above and below in a ranking.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub neighbours: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also write the comparison as a self-contained HTML page here (an existing file is
    /// replaced).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// History database for ids (default $XDG_DATA_HOME/truebench/history.sqlite).
    /// A postgresql://USER@HOST/DB URL uses that PostgreSQL database instead.
    #[arg(long, value_name = "PATH|URL", env = "TRUEBENCH_DB")]
    pub db: Option<PathBuf>,
}

pub fn run(args: CompareArgs) -> anyhow::Result<i32> {
    let mut history = crate::report::History::at(args.db.as_deref());
    let mut docs = Vec::new();
    for r in &args.results {
        docs.push(crate::report::load(r, &mut history)?);
    }
    // Different kinds measure different things: say which and refuse.
    if let Some((first_label, first)) = docs.first() {
        for (label, d) in &docs[1..] {
            if d.kind() != first.kind() {
                anyhow::bail!(
                    "cannot compare {first_label} (a {} result) with {label} (a {} result): only results of one kind can be compared",
                    first.kind(),
                    d.kind()
                );
            }
        }
    }
    let kind = docs.first().map(|(_, d)| d.kind()).unwrap_or("run");
    if kind != RunBody::KIND {
        if args.corpus.is_some() {
            anyhow::bail!(
                "--corpus ranks run results among sbc-bench logs; these are {kind} results"
            );
        }
        if docs.len() < 2 {
            anyhow::bail!("compare needs two or more results");
        }
        let mut c = compare::compare_documents(&docs);
        c.standing = standing_lines(&docs, &mut history);
        if let Some(path) = &args.html {
            write_html(path, &c, &[])?;
        }
        if args.json {
            outln!("{}", serde_json::to_string_pretty(&c)?)?;
        } else {
            out!("{}", compare::render_documents(&c))?;
        }
        return Ok(0);
    }
    // The HTML form lists every figure by name, from the documents.
    let run_docs = if args.html.is_some() {
        docs.clone()
    } else {
        Vec::new()
    };
    let items: Vec<(String, RunResult)> = docs
        .into_iter()
        .map(|(l, d)| (l, d.into_typed().expect("every result is a run")))
        .collect();
    if let Some(dir) = &args.corpus {
        let corpus = rank::load_corpus(dir)?;
        let mut all = Vec::new();
        for (label, r) in &items {
            let m = compare::metrics(r.view());
            let ranks = rank::rank(&m, &corpus, args.neighbours);
            if args.json {
                all.push(serde_json::json!({"result": label, "metrics": m, "corpus": corpus.len(), "ranks": ranks}));
            } else {
                out!("{}", rank::render(label, corpus.len(), &ranks))?;
            }
        }
        if args.json {
            outln!("{}", serde_json::to_string_pretty(&all)?)?;
        }
        return Ok(0);
    }
    if items.len() < 2 {
        anyhow::bail!("compare needs two or more results (or --corpus DIR to rank one)");
    }
    let mut c = compare::compare(&items);
    let typed: Vec<(String, truebench_model::Document)> = items
        .iter()
        .map(|(l, r)| (l.clone(), r.clone().into()))
        .collect();
    c.standing = standing_lines(&typed, &mut history);
    if let Some(path) = &args.html {
        // Every figure under its name, and the run comparison's reasons it is unfair.
        write_html(path, &compare::compare_documents(&run_docs), &c.warnings)?;
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&c)?)?;
    } else {
        out!("{}", compare::render(&c))?;
    }
    Ok(0)
}

/// The HTML form of a comparison, written safely (`files::replace`).
fn write_html(
    path: &std::path::Path,
    c: &compare::DocumentComparison,
    more_warnings: &[String],
) -> anyhow::Result<()> {
    use anyhow::Context;
    let rows: Vec<truebench_render::compare::CompareRow<'_>> = c
        .rows
        .iter()
        .map(|r| truebench_render::compare::CompareRow {
            label: &r.label,
            unit: r.unit.as_deref(),
            values: &r.values,
            relative_pct: &r.relative_pct,
        })
        .collect();
    let mut warnings = c.warnings.clone();
    for w in more_warnings {
        if !warnings.contains(w) {
            warnings.push(w.clone());
        }
    }
    let page = truebench_render::compare::page(&c.kind, &c.labels, &rows, &warnings);
    crate::files::replace(path, page.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    errln!("truebench: comparison written to {}", path.display());
    Ok(())
}

/// Where each compared result stands among the stored results of its SoC and tool versions
/// (`label: figure …: Nth percentile of M …`); nothing without a history.
pub fn standing_lines(
    docs: &[(String, truebench_model::Document)],
    history: &mut crate::report::History<'_>,
) -> Vec<String> {
    let Ok(store) = history.store() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (label, doc) in docs {
        for s in stored_standing(store, doc) {
            out.push(format!("{label}: {}", s.text()));
        }
    }
    out
}

/// `doc`'s standing among the stored results of its group, counted in the history's index
/// (`Store::standing`); nothing when the history cannot say.
pub fn stored_standing(
    store: &truebench_store::Store,
    doc: &truebench_model::Document,
) -> Vec<truebench_store::standing::Standing> {
    store.standing(doc).unwrap_or_default()
}
