//! `truebench export DIR`: the stored results as one JSON document each, to move them to
//! another machine without a database (`truebench import FILE.json` there) — or, with
//! `--format`, one file each in a farm engine's format. Never overwrites a different file; an
//! identical one is left as it is; each file appears whole (written, then renamed).

use std::path::PathBuf;

use anyhow::Context;

#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// Folder to write into (created when missing).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    #[command(flatten)]
    pub select: crate::history::Select,
    /// History database (default $XDG_DATA_HOME/truebench/history.sqlite).
    /// A postgresql://USER@HOST/DB URL uses that PostgreSQL database instead.
    #[arg(long, value_name = "PATH|URL", env = "TRUEBENCH_DB")]
    pub db: Option<PathBuf>,
    /// The files' format: the result documents (json, what `import` reads back) or a farm
    /// engine's (junit, lava, kcidb, prom — a directory of .prom files is what
    /// node_exporter's textfile collector reads).
    #[arg(long, value_name = "FORMAT", value_parser = crate::farm::parser(), default_value = "json")]
    pub format: crate::farm::OutFormat,
}

/// `truebench-12-run-20261125T170510Z.json`: the id keeps names unique within one history,
/// the kind and start make them readable.
fn file_name(id: i64, kind: &str, started_utc: &str, ext: &str) -> String {
    let stamp: String = started_utc
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .take(15)
        .collect();
    // node_exporter reads only `*.prom` files whose names are metric-safe: no dashes there.
    if ext == "prom" {
        format!("truebench_{id}_{kind}_{stamp}Z.prom")
    } else {
        format!("truebench-{id}-{kind}-{stamp}Z.{ext}")
    }
}

/// Remove the temporaries a killed export left in `dir`: hidden regular files named after an
/// export's file (`.truebench-….tmp`, `.truebench_….tmp`), nothing else.
fn sweep(dir: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let ours = (name.starts_with(".truebench-") || name.starts_with(".truebench_"))
            && name.ends_with(".tmp");
        if ours && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

pub fn run(args: ExportArgs) -> anyhow::Result<i32> {
    let store = crate::report::open_db_read(args.db.as_deref())?;
    let entries = store.list(&args.select.filter()?)?;
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("creating {}", args.dir.display()))?;
    sweep(&args.dir);
    let (mut written, mut same, mut refused) = (0, 0, 0);
    for e in &entries {
        let Some(doc) = store.get(e.id)? else {
            continue;
        };
        let (text, ext) = match args.format {
            crate::farm::OutFormat::Json => (serde_json::to_string_pretty(&doc)? + "\n", "json"),
            crate::farm::OutFormat::Farm(f) => {
                (crate::farm::render(f, Some(e.id), &doc), f.extension())
            }
        };
        let path = args.dir.join(file_name(e.id, &e.kind, &e.started_utc, ext));
        // What is there is looked at without following a link or waiting on a FIFO, and read
        // only when it is a regular file no larger than this export (else it differs).
        match truebench_host::read_if_present(&path, text.len() as u64) {
            Ok(Some(old)) if old == text.as_bytes() => same += 1,
            Ok(Some(_)) => {
                errln!(
                    "truebench: error: {} exists with other content: not overwritten",
                    path.display()
                );
                refused += 1;
            }
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                errln!(
                    "truebench: error: {} exists with other content ({e}): not overwritten",
                    path.display()
                );
                refused += 1;
            }
            Err(e) if e.kind() != std::io::ErrorKind::InvalidInput => {
                return Err(e).with_context(|| format!("reading {}", path.display()));
            }
            Err(e) => {
                // A link, a FIFO, a socket, a device or a folder planted at the name.
                errln!("truebench: error: {}: {e}: not written", path.display());
                refused += 1;
            }
            Ok(None) => {
                // Whole or not at all, and never over a file or link planted at the name (the
                // rename refuses an existing name, a dangling link included).
                match crate::files::create_atomic(&path, text.as_bytes()) {
                    Ok(()) => written += 1,
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                        errln!(
                            "truebench: error: {} appeared while it was written: not written",
                            path.display()
                        );
                        refused += 1;
                    }
                    Err(e) => {
                        // A full disk: what is there is whole (each file is written, then
                        // renamed); say how far it got.
                        anyhow::bail!(
                            "writing {}: {e}; {} of {} results were written whole to {} before it ({same} already there), none cut: a rerun writes the rest",
                            path.display(),
                            written,
                            entries.len(),
                            args.dir.display()
                        );
                    }
                }
            }
        }
    }
    errln!(
        "truebench: {written} result{} written to {}{}{}",
        if written == 1 { "" } else { "s" },
        args.dir.display(),
        if same > 0 {
            format!(", {same} already there")
        } else {
            String::new()
        },
        if refused > 0 {
            format!(", {refused} refused")
        } else {
            String::new()
        },
    );
    Ok(if refused > 0 { 2 } else { 0 })
}
