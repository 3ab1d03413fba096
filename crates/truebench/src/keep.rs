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
/// Returns the history id.
pub fn store(doc: &impl AsDocument, args: &StoreArgs, quiet: bool) -> Option<i64> {
    if args.no_store {
        return None;
    }
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
            Some(ins.id)
        }
        Err(e) => {
            errln!("truebench: warning: not stored in the history: {e}");
            None
        }
    }
}
