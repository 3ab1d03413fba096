//! Keeping a result: the history flags every measuring command shares and the one call that
//! stores a document of any kind.

use std::path::PathBuf;

use truebench_model::Document;
use truebench_store::{store_result, AsDocument};

#[derive(clap::Args, Debug, Clone, Default)]
pub struct StoreArgs {
    /// Do not store the result in the history database.
    #[arg(long)]
    pub no_store: bool,
    /// History database (default $XDG_DATA_HOME/truebench/history.sqlite).
    /// A postgresql://USER@HOST/DB URL uses that PostgreSQL database instead.
    #[arg(long, value_name = "PATH|URL", env = "TRUEBENCH_DB")]
    pub db: Option<PathBuf>,
}

/// Where [`store`] put a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    /// `--no-store`: nowhere, as asked.
    Skipped,
    /// In the history (or kept in the local one, pending for a server): its id.
    In(i64),
    /// The history could not take it (said on stderr): the caller keeps it elsewhere.
    Failed,
}

impl Stored {
    /// The history id, where it was stored.
    pub fn id(self) -> Option<i64> {
        match self {
            Stored::In(id) => Some(id),
            _ => None,
        }
    }
}

/// Store `doc` unless `--no-store`; say where on stderr (unless `quiet`), or why not.
/// A PostgreSQL server that cannot be reached loses nothing: the result is kept in the local
/// history, marked pending for that server, and sent by `truebench sync` or by the next
/// result stored there (sending twice stores it once: the server keys results by their
/// content).
pub fn store(doc: &impl AsDocument, args: &StoreArgs, quiet: bool) -> Stored {
    if args.no_store {
        return Stored::Skipped;
    }
    let url = args
        .db
        .as_deref()
        .and_then(truebench_store::postgres_url)
        .map(str::to_string);
    match store_result(doc, args.db.as_deref()) {
        Ok((path, ins)) => {
            if !quiet {
                errln!(
                    "truebench: {} in the history as #{} ({})",
                    if ins.new { "stored" } else { "already" },
                    ins.id,
                    path
                );
            }
            if let Some(url) = &url {
                // The server is back: what waited for it goes now.
                if let Err(e) = send_pending(url, quiet) {
                    errln!("truebench: warning: results pending for {path} not sent yet: {e}");
                }
            }
            Stored::In(ins.id)
        }
        Err(e) => match url {
            Some(url) => keep_pending(doc, &url, &e).map_or(Stored::Failed, Stored::In),
            None => {
                errln!("truebench: error: not stored in the history: {e}");
                Stored::Failed
            }
        },
    }
}

/// [`store`], and where the history could not take the result, keep it in a file of the
/// temporary directory named on stderr ([`keep_in_temp`]): a measurement's result is never
/// only on a terminal. `Failed` still comes back (the exit code says so).
pub fn store_or_keep(doc: &Document, args: &StoreArgs, quiet: bool) -> Stored {
    let s = store(doc, args, quiet);
    if s == Stored::Failed {
        say_kept(doc);
    }
    s
}

/// Keep `doc` in the temporary directory and say where (or that it could not be kept).
pub fn say_kept(doc: &Document) {
    match keep_in_temp(doc) {
        Ok(p) => errln!("truebench: the result was kept in {}", p.display()),
        Err(e) => errln!(
            "truebench: error: the result could not be kept anywhere: {}",
            crate::out::chain(&e)
        ),
    }
}

/// The result in a file of the temporary directory, when nowhere else took it:
/// `truebench-result-MS-XXXXXX.json`, written whole under a hidden temporary name (created
/// exclusively, mode 0600) and then linked to its name without replacing anything, so a
/// link planted in a shared `/tmp` is never followed, no file is overwritten, and the name
/// never holds half a document (a full disk or a kill leaves no file there).
pub fn keep_in_temp(r: &Document) -> anyhow::Result<PathBuf> {
    use anyhow::Context;
    use std::io::Write;
    let dir = std::env::temp_dir();
    let text = serde_json::to_string_pretty(r)? + "\n";
    let mut f = tempfile::Builder::new()
        .prefix(&format!(
            ".truebench-result-{}-",
            r.envelope.started.unix_ms
        ))
        .suffix(".tmp")
        .tempfile_in(&dir)
        .with_context(|| format!("creating a file in {}", dir.display()))?;
    f.as_file_mut()
        .write_all(text.as_bytes())
        .and_then(|()| f.as_file().sync_all())
        .with_context(|| format!("writing {}", f.path().display()))?;
    let name = f
        .path()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = name
        .trim_start_matches('.')
        .trim_end_matches(".tmp")
        .to_string();
    let path = dir.join(format!("{name}.json"));
    f.persist_noclobber(&path)
        .map_err(|e| e.error)
        .with_context(|| format!("keeping the result in {}", path.display()))?;
    Ok(path)
}

/// The server at `url` failed with `e`: keep `doc` in the local history, pending for it.
fn keep_pending(doc: &impl AsDocument, url: &str, e: &truebench_store::StoreError) -> Option<i64> {
    let target = truebench_store::redact_url(url);
    // Stored and marked pending in one transaction: a kill between the two would leave a
    // result that `sync` never sends.
    let kept = truebench_store::default_path().and_then(|path| {
        let mut local = truebench_store::Store::open(&path)?;
        let ins = local.insert_pending(doc, &target)?;
        Ok((local.path().to_string(), ins))
    });
    match kept {
        Ok((path, ins)) => {
            errln!(
                "truebench: warning: not stored in {target} ({e}); kept in the local history as #{} ({path}), pending: `truebench sync --db URL` or the next result stored there sends it",
                ins.id
            );
            Some(ins.id)
        }
        Err(local) => {
            errln!("truebench: warning: not stored in {target} ({e}), nor in the local history ({local})");
            None
        }
    }
}

/// Send every result of the local history pending for the server at `url` (matched by the
/// URL without its password); each is cleared once the server has it. Returns how many
/// were sent; nothing pending (or no local history) is 0.
pub fn send_pending(url: &str, quiet: bool) -> anyhow::Result<usize> {
    let target = truebench_store::redact_url(url);
    let local_path = truebench_store::default_path()?;
    let Ok(mut local) = truebench_store::Store::open_existing(&local_path) else {
        return Ok(0);
    };
    let waiting: Vec<i64> = local
        .pending()?
        .into_iter()
        .filter(|(_, t)| *t == target)
        .map(|(id, _)| id)
        .collect();
    if waiting.is_empty() {
        return Ok(0);
    }
    let mut server = truebench_store::Store::open(std::path::Path::new(url))?;
    let mut sent = 0;
    for id in waiting {
        let Some(doc) = local.get(id)? else {
            // Deleted from the local history meanwhile: nothing to send.
            local.clear_pending(id, &target)?;
            continue;
        };
        let ins = server.insert(&doc)?;
        local.clear_pending(id, &target)?;
        sent += 1;
        if !quiet {
            errln!(
                "truebench: pending #{id} {} {target} as #{}",
                if ins.new { "sent to" } else { "was already in" },
                ins.id
            );
        }
    }
    Ok(sent)
}
