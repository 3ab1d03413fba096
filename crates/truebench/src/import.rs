//! `truebench import LOG…`: read sbc-bench result logs (v0.4 … v0.9.72), store them in the
//! history, and re-judge them with truebench's detectors. Result documents of truebench itself
//! (`truebench export`, a run's result.json, `--json` output) are stored as they are.

use std::path::PathBuf;
use truebench_sbcbench::convert::to_run_result;
use truebench_sbcbench::import::summary;
use truebench_sbcbench::{parse, results_row, verdict, SbcBenchLog};

#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// sbc-bench result logs (the text sbc-bench uploads, e.g. from its results/ folder), or
    /// truebench result documents (JSON, e.g. written by `truebench export` on another machine),
    /// or folders of them: every file directly in a folder is read, and one that is neither
    /// is skipped with a note.
    #[arg(value_name = "LOG|DIR", required = true)]
    pub logs: Vec<PathBuf>,
    /// Print the parsed model as JSON: one object for one log, an array for several.
    #[arg(long, conflicts_with_all = ["row", "result", "verdicts"])]
    pub json: bool,
    /// Print the Results.md row computed the way the sbc-bench version that wrote the log
    /// computes it, one per log.
    #[arg(long, conflicts_with_all = ["result", "verdicts"])]
    pub row: bool,
    /// Print each log converted to truebench's result document (the JSON of `truebench run`).
    #[arg(long, conflicts_with = "verdicts")]
    pub result: bool,
    /// Print only where truebench's detectors agree and disagree with sbc-bench's own
    /// verdicts (the summary shows them too); with --json-verdicts as JSON.
    #[arg(long)]
    pub verdicts: bool,
    /// With --verdicts: JSON instead of text.
    #[arg(long, requires = "verdicts")]
    pub json_verdicts: bool,
    #[command(flatten)]
    pub store: crate::keep::StoreArgs,
}

/// Exit code 2 when a file could not be read or stored (the others are still imported); sections that
/// cannot be parsed are reported as missing, not as errors.
pub fn run(args: ImportArgs) -> anyhow::Result<i32> {
    let mut parsed: Vec<(String, SbcBenchLog)> = Vec::new();
    let mut failed = false;
    let (files, folders) = expand(&args.logs)?;
    let mut skipped: Vec<String> = Vec::new();
    for (path, in_folder) in &files {
        let in_folder = *in_folder;
        match crate::files::read_input(path) {
            Ok(bytes) => {
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| path.display().to_string());
                let text = String::from_utf8_lossy(&bytes);
                if text.trim_start().starts_with('{') {
                    match import_document(&text, &args) {
                        Ok(line) => outln!("{name}: {line}")?,
                        Err(e) => {
                            errln!("truebench: error: {}: {e}", path.display());
                            failed = true;
                        }
                    }
                    continue;
                }
                let log = parse(&text);
                if truebench_sbcbench::import::is_sbc_bench_log(&log) {
                    parsed.push((name, log));
                } else if in_folder {
                    skipped.push(name);
                } else {
                    errln!(
                        "truebench: error: {}: not an sbc-bench log (no sbc-bench version line, no 7-zip or OpenSSL section)",
                        path.display()
                    );
                    failed = true;
                }
            }
            Err(e) => {
                errln!("truebench: error: {}: {e}", path.display());
                failed = true;
            }
        }
    }
    if !skipped.is_empty() {
        errln!(
            "truebench: skipped {} file{} in {} (neither an sbc-bench log nor a result document): {}",
            skipped.len(),
            if skipped.len() == 1 { "" } else { "s" },
            folders.join(", "),
            skipped.join(", ")
        );
        if skipped.iter().any(|n| n == "Results.md") {
            errln!(
                "truebench: Results.md is sbc-bench's published table: `truebench site DIR --results-md FILE` shows its rows beside the rows computed from the logs"
            );
        }
    }
    let converted: Vec<_> = parsed
        .iter()
        .map(|(name, log)| to_run_result(log, name))
        .collect();
    let mut stored: Vec<Option<(i64, bool)>> = vec![None; parsed.len()];
    if !args.store.no_store && !parsed.is_empty() {
        match crate::report::open_db(args.store.db.as_deref()) {
            Ok(mut db) => {
                for (i, r) in converted.iter().enumerate() {
                    match db.insert(r) {
                        Ok(ins) => stored[i] = Some((ins.id, ins.new)),
                        Err(e) => {
                            // Each log is its own transaction: those before are stored
                            // whole, this one not at all.
                            errln!("truebench: error: {}: not stored: {e}", parsed[i].0);
                            failed = true;
                        }
                    }
                }
            }
            Err(e) => {
                errln!(
                    "truebench: error: history not written, {} log{} not stored (the files are as they were): {}",
                    parsed.len(),
                    if parsed.len() == 1 { "" } else { "s" },
                    crate::out::chain(&e)
                );
                failed = true;
            }
        }
    }
    if args.json {
        let logs: Vec<&SbcBenchLog> = parsed.iter().map(|(_, l)| l).collect();
        let text = if logs.len() == 1 {
            serde_json::to_string_pretty(logs[0])?
        } else {
            serde_json::to_string_pretty(&logs)?
        };
        if !logs.is_empty() {
            outln!("{text}")?;
        }
    } else if args.row {
        for (_, log) in &parsed {
            outln!("{}", results_row(log))?;
        }
    } else if args.result {
        let text = if converted.len() == 1 {
            serde_json::to_string_pretty(&converted[0])?
        } else {
            serde_json::to_string_pretty(&converted)?
        };
        if !converted.is_empty() {
            outln!("{text}")?;
        }
    } else if args.json_verdicts {
        let all: Vec<serde_json::Value> = parsed
            .iter()
            .zip(&converted)
            .map(|((name, log), r)| {
                serde_json::json!({"log": name, "verdicts": verdict::compare(log, r.view())})
            })
            .collect();
        outln!("{}", serde_json::to_string_pretty(&all)?)?;
    } else {
        for (i, ((name, log), r)) in parsed.iter().zip(&converted).enumerate() {
            if i > 0 {
                outln!()?;
            }
            if args.verdicts {
                outln!("{name}:")?;
            } else {
                out!("{}", summary(name, log))?;
            }
            out!("{}", verdict::render(&verdict::compare(log, r.view())))?;
            if !args.verdicts {
                if let Some((id, new)) = stored[i] {
                    outln!(
                        "  history: {} as id {id}",
                        if new { "stored" } else { "already stored" }
                    )?;
                }
            }
        }
    }
    Ok(if failed { 2 } else { 0 })
}

/// A file to read and whether it came from a folder.
type Input = (PathBuf, bool);

/// The files to read, each with whether it came from a folder (a folder's files that are no
/// logs are skipped, a named file that is none is an error), and the folders named.
fn expand(paths: &[PathBuf]) -> anyhow::Result<(Vec<Input>, Vec<String>)> {
    let mut files = Vec::new();
    let mut folders = Vec::new();
    for p in paths {
        if !p.is_dir() {
            files.push((p.clone(), false));
            continue;
        }
        folders.push(p.display().to_string());
        let mut inner: Vec<PathBuf> = std::fs::read_dir(p)
            .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?
            .filter_map(|e| e.ok())
            // Regular files only: no links followed, no sub-folders.
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.path())
            .collect();
        inner.sort();
        if inner.is_empty() {
            anyhow::bail!("{}: a folder without files to import", p.display());
        }
        files.extend(inner.into_iter().map(|f| (f, true)));
    }
    Ok((files, folders))
}

/// Store one truebench result document (migrated to this version's schema); the line to print.
fn import_document(text: &str, args: &ImportArgs) -> anyhow::Result<String> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| anyhow::anyhow!("not valid JSON: {e}"))?;
    if v.get("kind").is_none() && v.get("truebench_version").is_none() {
        anyhow::bail!("JSON, but no truebench result document (no `kind`, no envelope)");
    }
    let doc = truebench_model::migrate(v)?;
    let what = format!(
        "{} result of {} ({})",
        doc.kind(),
        doc.envelope
            .inventory
            .device
            .clone()
            .or_else(|| doc.envelope.hostname.clone())
            .unwrap_or_else(|| "unknown device".into()),
        doc.envelope.started.utc
    );
    if args.store.no_store {
        return Ok(format!("{what}, not stored (--no-store)"));
    }
    let mut db = crate::report::open_db(args.store.db.as_deref())?;
    let ins = db.insert(&doc)?;
    Ok(format!(
        "{what}, {} as id {}",
        if ins.new { "stored" } else { "already stored" },
        ins.id
    ))
}
