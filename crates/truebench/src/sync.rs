//! `truebench sync [--db URL]`: send the results the local history keeps for a PostgreSQL
//! server that could not be reached when they were measured. Each is stored once however often
//! it is sent (the server keys results by their content).

use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct SyncArgs {
    /// The PostgreSQL history to send to, a postgresql://USER@HOST/DB URL (the one the
    /// results were measured for; the password may come from --db-password-file).
    #[arg(long, value_name = "URL", env = "TRUEBENCH_DB")]
    pub db: Option<PathBuf>,
}

pub fn run(args: SyncArgs) -> anyhow::Result<i32> {
    let local_path = truebench_store::default_path()?;
    let waiting = match truebench_store::Store::open_existing(&local_path) {
        Ok(local) => local.pending()?,
        Err(_) => Vec::new(),
    };
    let Some(url) = args
        .db
        .as_deref()
        .and_then(truebench_store::postgres_url)
        .map(str::to_string)
    else {
        if waiting.is_empty() {
            errln!("truebench: nothing pending in {}", local_path.display());
            return Ok(0);
        }
        let mut targets: Vec<&str> = waiting.iter().map(|(_, t)| t.as_str()).collect();
        targets.dedup();
        anyhow::bail!(
            "{} result(s) in {} wait for {}: give --db with that URL (and its password)",
            waiting.len(),
            local_path.display(),
            targets.join(", ")
        );
    };
    let target = truebench_store::redact_url(&url);
    let mine = waiting.iter().filter(|(_, t)| *t == target).count();
    let sent = crate::keep::send_pending(&url, false)?;
    errln!(
        "truebench: {sent} pending result(s) sent to {target}{}",
        match waiting.len() - mine {
            0 => String::new(),
            n => format!("; {n} wait for another server"),
        }
    );
    Ok(0)
}
