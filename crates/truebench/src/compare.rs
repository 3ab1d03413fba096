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
    /// History database for ids (default $XDG_DATA_HOME/truebench/history.sqlite).
    /// A postgresql://USER@HOST/DB URL uses that PostgreSQL database instead.
    #[arg(long, value_name = "PATH|URL", env = "TRUEBENCH_DB")]
    pub db: Option<PathBuf>,
}

pub fn run(args: CompareArgs) -> anyhow::Result<i32> {
    let mut docs = Vec::new();
    for r in &args.results {
        docs.push(crate::report::load(r, args.db.as_deref())?);
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
        let c = compare::compare_documents(&docs);
        if args.json {
            outln!("{}", serde_json::to_string_pretty(&c)?)?;
        } else {
            out!("{}", compare::render_documents(&c))?;
        }
        return Ok(0);
    }
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
    let c = compare::compare(&items);
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&c)?)?;
    } else {
        out!("{}", compare::render(&c))?;
    }
    Ok(0)
}
