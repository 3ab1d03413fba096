//! `truebench history [--kind …] [--device …] [--since …] [--json]`: the results of every
//! kind and the imports stored in the history database.

use std::path::PathBuf;
use truebench_model::Stamp;
use truebench_store::{parse_since, Entry, Filter};

#[derive(clap::Args, Debug)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub select: Select,
    /// One JSON array of entries instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Only the results whose headline figures moved beyond the noise band against the same
    /// machine's previous result of the kind (same board, SoC and host name), with what
    /// differs between the two (kernel, distribution, tools, governor, clocks, memory,
    /// settings); `--since` chooses which results are judged, never their history.
    #[arg(long)]
    pub regressions: bool,
    /// Check the history instead of listing it: the database's own check (SQLite's
    /// integrity_check) and the tallies that rank results against the rows they count, then
    /// every result against its document (the text whole, the columns and figures those it
    /// gives). Exit code 1 when anything is wrong, named.
    #[arg(long, conflicts_with_all = ["regressions", "json"])]
    pub check: bool,
    /// History database (default $XDG_DATA_HOME/truebench/history.sqlite).
    /// A postgresql://USER@HOST/DB URL uses that PostgreSQL database instead.
    #[arg(long, value_name = "PATH|URL", env = "TRUEBENCH_DB")]
    pub db: Option<PathBuf>,
}

fn cell(v: Option<u64>) -> String {
    v.map_or("-".into(), |v| v.to_string())
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() > n {
        let t: String = s.chars().take(n - 1).collect();
        format!("{t}…")
    } else {
        s.to_string()
    }
}

/// Figures listed per result that is no run; `report ID` shows them all.
const MAX_FIGURES: usize = 4;

/// The headline figures of a result that is no run, as `key value` pairs, at most
/// [`MAX_FIGURES`] (an interactivity result has dozens).
fn other_figures(e: &Entry) -> String {
    // The kind's headline, stored with the result (older entries: their figures).
    if let Some(serde_json::Value::String(h)) = e.metrics.get(truebench_store::HEADLINE_KEY) {
        return h.clone();
    }
    let mut v: Vec<String> = e
        .metrics
        .iter()
        .map(|(k, v)| match v {
            serde_json::Value::String(s) => format!("{k} {s}"),
            // Figures to one decimal: a list is for reading, the JSON keeps every digit.
            serde_json::Value::Number(n) => match n.as_f64() {
                Some(f) if f.fract() != 0.0 => format!("{k} {f:.1}"),
                _ => format!("{k} {n}"),
            },
            v => format!("{k} {v}"),
        })
        .collect();
    if v.len() > MAX_FIGURES {
        let more = v.len() - MAX_FIGURES;
        v.truncate(MAX_FIGURES);
        v.push(format!("… {more} more (truebench report {})", e.id));
    }
    v.join(", ")
}

/// The figures the table shows: a run's four columns, another kind's headline (a result of
/// another kind stored before headlines were: all of its figures, for [`other_figures`]).
const LISTED: truebench_store::Figures<'static> = truebench_store::Figures::Named(&[
    "sevenzip_multi",
    "sevenzip_single",
    "memcpy",
    "aes",
    truebench_store::HEADLINE_KEY,
]);

/// The table's header line.
fn header() -> String {
    format!(
        "{:>5}  {:<10}  {:<13}  {:<30}  {:<22}  {:<9}  {:<5}  {:>7}  {:>6}  {:>7}  {:>8}\n",
        "id", "date", "kind", "device", "SoC", "mode", "valid", "7z-mult", "7z-1", "memcpy", "AES"
    )
}

/// One entry's line of the table (the columns are fixed: lines are printed as they come).
fn row(e: &Entry) -> String {
    let date = if e.started_unix_ms == 0 {
        "unknown".to_string()
    } else {
        e.started_utc.chars().take(10).collect()
    };
    let device = e
        .device
        .clone()
        .or_else(|| e.hostname.clone())
        .unwrap_or_else(|| "-".into());
    let mode = if e.source == "sbc-bench" {
        "sbc-bench".to_string()
    } else {
        e.mode.clone()
    };
    let valid = if !e.complete {
        "part"
    } else if e.valid {
        "yes"
    } else {
        "NO"
    };
    if e.kind != "run" {
        // Other kinds have other figures: named in one column instead of the run's four.
        return format!(
            "{:>5}  {:<10}  {:<13}  {:<30}  {:<22}  {:<9}  {:<5}  {}\n",
            e.id,
            date,
            e.kind,
            clip(&device, 30),
            clip(e.soc.as_deref().unwrap_or("-"), 22),
            clip(&e.mode, 9),
            valid,
            other_figures(e)
        );
    }
    let m = e.run_metrics();
    format!(
        "{:>5}  {:<10}  {:<13}  {:<30}  {:<22}  {:<9}  {:<5}  {:>7}  {:>6}  {:>7}  {:>8}\n",
        e.id,
        date,
        e.kind,
        clip(&device, 30),
        clip(e.soc.as_deref().unwrap_or("-"), 22),
        mode,
        valid,
        cell(m.sevenzip_multi),
        cell(m.sevenzip_single),
        cell(m.memcpy),
        cell(m.aes),
    )
}

/// `--since WHEN` as Unix milliseconds (history and export share it).
/// Which stored results a command reads: the flags `history`, `export` and `site` share.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Select {
    /// Only results of this kind.
    #[arg(long, value_name = "KIND", value_parser = clap::builder::PossibleValuesParser::new(truebench_model::KINDS))]
    pub kind: Option<String>,
    /// Only results whose device, SoC or hostname contains this (case-insensitive).
    #[arg(long, value_name = "TEXT")]
    pub device: Option<String>,
    /// Only results started since: a date (`2024-03-01`, UTC) or an age (`7d`, `12h`).
    #[arg(long, value_name = "WHEN", value_parser = since)]
    pub since: Option<Since>,
}

/// `--since WHEN` as Unix milliseconds, an age counted back from when the flag was read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Since(pub i64);

fn since(s: &str) -> Result<Since, String> {
    parse_since(s, Stamp::now().unix_ms)
        .map(Since)
        .ok_or_else(|| "expected a date (2024-03-01) or an age (7d, 12h)".into())
}

impl Select {
    /// The store's filter.
    pub fn filter(&self) -> anyhow::Result<Filter> {
        Ok(Filter {
            device: self.device.clone(),
            since_unix_ms: self.since.map(|s| s.0),
            kind: self.kind.clone(),
        })
    }
}

/// `history --check`: each problem on a line of stdout, the verdict on stderr.
fn check(store: &truebench_store::Store) -> anyhow::Result<i32> {
    let c = store.check()?;
    for p in &c.problems {
        outln!("{}: {p}", store.path())?;
    }
    if c.problems.is_empty() {
        errln!(
            "truebench: {}: sound: the database checks ok and each of its {} results is whole",
            store.path(),
            c.results
        );
        Ok(crate::exit::VALID)
    } else {
        errln!(
            "truebench: {}: {} problem{} in {} results",
            store.path(),
            c.problems.len(),
            if c.problems.len() == 1 { "" } else { "s" },
            c.results
        );
        Ok(crate::exit::FAILED)
    }
}

pub fn run(args: HistoryArgs) -> anyhow::Result<i32> {
    let filter = args.select.filter()?;
    let store = match crate::report::open_db_read(args.db.as_deref()) {
        Ok(s) => s,
        // A fresh user has no history yet: an empty list, and nothing created.
        Err(e)
            if args.db.is_none()
                && matches!(
                    e.downcast_ref(),
                    Some(truebench_store::StoreError::Missing { .. })
                ) =>
        {
            if args.json {
                outln!("[]")?;
            } else {
                errln!("truebench: no stored result ({e})");
            }
            return Ok(0);
        }
        Err(e) => return Err(e),
    };
    if args.regressions {
        return regressions(&store, &filter, args.json);
    }
    if args.check {
        return check(&store);
    }
    let mut store = store;
    let n = list(&mut store, &filter, args.json)?;
    if n == 0 && !args.json {
        errln!("truebench: no stored result matches ({})", store.path());
    }
    Ok(0)
}

/// Print the entries matching `filter` as they are read (a table, or one JSON array the
/// same as `serde_json::to_string_pretty` of them all): the memory of one entry whatever
/// the history's size. Returns how many.
fn list(store: &mut truebench_store::Store, filter: &Filter, json: bool) -> anyhow::Result<usize> {
    use serde::ser::{SerializeSeq, Serializer};
    use std::io::Write;
    let mut out = std::io::BufWriter::new(crate::out::stdout());
    let mut n = 0;
    if json {
        let mut ser = serde_json::Serializer::pretty(&mut out);
        let mut seq = ser.serialize_seq(None)?;
        store.each(filter, |e| -> anyhow::Result<()> {
            seq.serialize_element(&e)?;
            n += 1;
            Ok(())
        })?;
        seq.end()?;
        writeln!(out)?;
    } else {
        store.each_with(filter, LISTED, |e| -> anyhow::Result<()> {
            if n == 0 {
                out.write_all(header().as_bytes())?;
            }
            out.write_all(row(&e).as_bytes())?;
            n += 1;
            Ok(())
        })?;
    }
    out.flush()?;
    Ok(n)
}

/// `history --regressions`: every result of the selection judged against its own history
/// (the whole history of its machine, whatever `--since` says).
fn regressions(store: &truebench_store::Store, filter: &Filter, json: bool) -> anyhow::Result<i32> {
    let all = store.list(&Filter {
        since_unix_ms: None,
        ..filter.clone()
    })?;
    // Each document is read, reduced to what judging needs (its facts and figures) and
    // dropped: a fleet's history is judged without holding its documents.
    let (mut entries, mut facts, mut figures) = (Vec::new(), Vec::new(), Vec::new());
    for e in &all {
        if let Some(d) = store.get(e.id)? {
            entries.push(e);
            facts.push(truebench_store::facts::Facts::of(&d));
            figures.push(truebench_figures::metrics(&d));
        }
    }
    let facts: Vec<&truebench_store::facts::Facts> = facts.iter().collect();
    let figures: Vec<&[truebench_figures::Metric]> = figures.iter().map(Vec::as_slice).collect();
    let since = filter.since_unix_ms.unwrap_or(i64::MIN);
    let mut shown = Vec::new();
    for (i, j) in truebench_store::regress::judge_all_of(&facts, &figures) {
        let (e, base) = (entries[i], entries[j.baseline]);
        if e.started_unix_ms < since || j.verdicts().next().is_none() {
            continue;
        }
        shown.push((e, base, j));
    }
    if json {
        let v: Vec<serde_json::Value> = shown
            .iter()
            .map(|(e, b, j)| {
                serde_json::json!({
                    "id": e.id,
                    "baseline_id": b.id,
                    "history": j.history,
                    "only_kernel": j.only_kernel(),
                    "differs": j.differs.iter().map(|d| serde_json::json!({"what": d.what, "from": d.from, "to": d.to})).collect::<Vec<_>>(),
                    "changes": j.verdicts().map(|c| serde_json::json!({
                        "metric": c.metric, "unit": c.unit, "value": c.value, "baseline": c.baseline,
                        "change_pct": c.change_pct, "band_pct": c.band_pct,
                        "verdict": c.verdict.map(|k| k.as_str()),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        outln!("{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(0);
    }
    if shown.is_empty() {
        errln!(
            "truebench: no result moved beyond its noise band against its machine's previous one ({} results, {})",
            all.len(),
            store.path()
        );
        return Ok(0);
    }
    for (e, b, j) in &shown {
        let device = e.device.as_deref().or(e.hostname.as_deref()).unwrap_or("-");
        outln!(
            "#{} {} {} on {} against #{} ({}):",
            e.id,
            e.kind,
            e.started_utc.chars().take(10).collect::<String>(),
            device,
            b.id,
            b.started_utc.chars().take(10).collect::<String>()
        )?;
        for f in j.findings(&format!("#{}", b.id)) {
            outln!("  {}", f.message)?;
        }
    }
    Ok(0)
}
