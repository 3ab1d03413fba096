//! Keeping a result: the history flags every measuring command shares and the one call that
//! stores a document of any kind.

use std::path::PathBuf;

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

/// Store `doc` unless `--no-store`; say where on stderr (unless `quiet`), or why not.
/// Returns the history id. A PostgreSQL server that cannot be reached loses nothing: the
/// result is kept in the local history, marked pending for that server, and sent by
/// `truebench sync` or by the next result stored there (sending twice stores it once: the
/// server keys results by their content).
pub fn store(doc: &impl AsDocument, args: &StoreArgs, quiet: bool) -> Option<i64> {
    if args.no_store {
        return None;
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
            Some(ins.id)
        }
        Err(e) => match url {
            Some(url) => keep_pending(doc, &url, &e),
            None => {
                errln!("truebench: warning: not stored in the history: {e}");
                None
            }
        },
    }
}

/// The server at `url` failed with `e`: keep `doc` in the local history, pending for it.
fn keep_pending(doc: &impl AsDocument, url: &str, e: &truebench_store::StoreError) -> Option<i64> {
    let target = truebench_store::redact_url(url);
    let kept = store_result(doc, None).and_then(|(path, ins)| {
        truebench_store::Store::open(std::path::Path::new(&path))?.mark_pending(ins.id, &target)?;
        Ok((path, ins))
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
