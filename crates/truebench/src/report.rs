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
    /// A postgresql://USER@HOST/DB URL uses that PostgreSQL database instead.
    #[arg(long, value_name = "PATH|URL", env = "TRUEBENCH_DB")]
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

/// The existing history, for commands that only read it: they create nothing.
pub fn open_db_read(db: Option<&Path>) -> anyhow::Result<Store> {
    let path = match db {
        Some(p) => p.to_path_buf(),
        None => store::default_path()?,
    };
    Ok(Store::open_existing(&path)?)
}

/// The existing history, opened when first asked for and then kept: `compare` and `report`
/// read ids and standings from it, and each open of a PostgreSQL history is a connection and
/// a look at its layout (`compare A B` opened it three times).
pub struct History<'a> {
    db: Option<&'a Path>,
    store: Option<Store>,
}

impl<'a> History<'a> {
    /// The history at `--db` (or the default location), not opened yet.
    pub fn at(db: Option<&'a Path>) -> History<'a> {
        History { db, store: None }
    }

    /// The history, opened now if it is not yet ([`open_db_read`]); an error when it cannot
    /// be, asked again next time.
    pub fn store(&mut self) -> anyhow::Result<&Store> {
        if self.store.is_none() {
            self.store = Some(open_db_read(self.db)?);
        }
        Ok(self.store.as_ref().expect("opened above"))
    }
}

/// Read what the user named: a file (truebench JSON or sbc-bench log) or a history id
/// (`12`, `#12`). Returns a label for display and the result.
pub fn load(what: &str, history: &mut History<'_>) -> anyhow::Result<(String, Document)> {
    let mut path = PathBuf::from(what);
    // A results folder of `truebench run`: its result.json.
    if path.is_dir() {
        let inner = path.join("result.json");
        if !inner.is_file() {
            anyhow::bail!("{what}: a folder without a result.json");
        }
        path = inner;
    }
    let what = &*path.to_string_lossy().into_owned();
    let path = path.as_path();
    if path.is_file() {
        let bytes = crate::files::read_input(path).with_context(|| format!("reading {what}"))?;
        let text = String::from_utf8_lossy(&bytes);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| what.to_string());
        if text.trim_start().starts_with('{') {
            let v: serde_json::Value =
                serde_json::from_str(&text).with_context(|| format!("{what}: not valid JSON"))?;
            // `info --json`: an inventory, no envelope (results of every version have one
            // or, in version 1, `truebench_version`).
            let is_info = v.get("envelope").is_none()
                && v.get("truebench_version").is_none()
                && v.get("root").is_some()
                && v.get("cpus").is_some();
            if is_info {
                anyhow::bail!(
                    "{what}: this is an info document (truebench info --json), not a result; report and compare read the results of run, clocks and monitor"
                );
            }
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
    let s = history.store()?;
    match s.get(id)? {
        Some(r) => Ok((format!("#{id}"), r)),
        None => anyhow::bail!("{}: no result with id {id}", s.path()),
    }
}

pub fn run(args: ReportArgs) -> anyhow::Result<i32> {
    let mut history = History::at(args.db.as_deref());
    let (label, r) = load(&args.result, &mut history)?;
    // Where it stands, when there is a history to rank it in.
    let standing: Vec<String> = match history.store() {
        Ok(store) => crate::compare::stored_standing(store, &r)
            .iter()
            .map(|s| s.text())
            .collect(),
        Err(_) => Vec::new(),
    };
    let page = truebench_render::kinds::html_page_in(
        &r,
        truebench_render::report::Frame {
            standing: &standing,
            ..Default::default()
        },
    );
    let target = html_target(&args.html, &label);
    // Written beside the target under an unpredictable name and renamed over it: a reader
    // never sees half a page, a link planted at either name is never written through.
    crate::files::replace(&target, page.as_bytes())
        .with_context(|| format!("writing {}", target.display()))?;
    errln!("truebench: report written to {}", target.display());
    Ok(0)
}

/// `--html DIR/` (an existing folder, or a path ending in `/`) gets `DIR/<result>.html`.
fn html_target(html: &Path, label: &str) -> PathBuf {
    let is_dir = html.is_dir() || html.as_os_str().to_string_lossy().ends_with('/');
    if !is_dir {
        return html.to_path_buf();
    }
    let stem = Path::new(label.trim_start_matches('#'))
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "report".into());
    html.join(format!("{stem}.html"))
}

