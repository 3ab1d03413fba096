//! `truebench report RESULT.json|LOG|ID --html FILE`: one self-contained HTML page.
//! Also the loader `compare` shares: a result document, an sbc-bench log or a history id.

use anyhow::Context;
use std::path::{Path, PathBuf};
use truebench_model::{migrate, Document};
use truebench_sbcbench::convert::to_run_result;
use truebench_sbcbench::parse;
use truebench_store::{self as store, Store};

#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// A result.json of any truebench measurement, an sbc-bench result log, or a history id (`12`).
    #[arg(value_name = "RESULT")]
    pub result: String,
    /// Write the HTML page here.
    #[arg(long, value_name = "FILE")]
    pub html: PathBuf,
    /// History database to read ids from (default $XDG_DATA_HOME/truebench/history.sqlite).
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
}

/// The history at `--db` or the default location.
pub fn open_db(db: Option<&Path>) -> anyhow::Result<Store> {
    let path = match db {
        Some(p) => p.to_path_buf(),
        None => store::default_path()?,
    };
    Ok(Store::open(&path)?)
}

/// Read what the user named: a file (truebench JSON or sbc-bench log) or a history id
/// (`12`, `#12`). Returns a label for display and the result.
pub fn load(what: &str, db: Option<&Path>) -> anyhow::Result<(String, Document)> {
    let path = Path::new(what);
    if path.is_file() {
        let bytes = std::fs::read(path).with_context(|| format!("reading {what}"))?;
        let text = String::from_utf8_lossy(&bytes);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| what.to_string());
        if text.trim_start().starts_with('{') {
            let v: serde_json::Value =
                serde_json::from_str(&text).with_context(|| format!("{what}: not valid JSON"))?;
            let r = migrate(v).with_context(|| what.to_string())?;
            return Ok((name, r));
        }
        let log = parse(&text);
        if !truebench_sbcbench::import::is_sbc_bench_log(&log) {
            anyhow::bail!("{what}: neither a truebench result (JSON) nor an sbc-bench log");
        }
        return Ok((name.clone(), to_run_result(&log, &name).into_document()));
    }
    let id: i64 = what
        .trim_start_matches('#')
        .parse()
        .map_err(|_| anyhow::anyhow!("{what}: no such file, and not a history id"))?;
    let s = open_db(db)?;
    match s.get(id)? {
        Some(r) => Ok((format!("#{id}"), r)),
        None => anyhow::bail!("{}: no result with id {id}", s.path()),
    }
}

pub fn run(args: ReportArgs) -> anyhow::Result<i32> {
    let (_, r) = load(&args.result, args.db.as_deref())?;
    let page = truebench_render::kinds::html_page(&r);
    // Written beside the target and renamed: a reader never sees half a page.
    let tmp = args.html.with_extension("html.tmp");
    std::fs::write(&tmp, page).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, &args.html)
        .with_context(|| format!("renaming {} to {}", tmp.display(), args.html.display()))?;
    errln!("truebench: report written to {}", args.html.display());
    Ok(0)
}
