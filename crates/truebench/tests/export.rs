//! Moving results between machines without a database: `export DIR` on one, `import FILE.json`
//! on the other — nothing lost, nothing overwritten, nothing stored twice.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_truebench");

fn tb(data: &Path, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .env("XDG_DATA_HOME", data)
        .env("TMPDIR", data)
        .env("TRUEBENCH_LOCK_DIR", data)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn export_here_import_there() {
    let here = tempfile::tempdir().unwrap();
    let there = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let r = root.path().to_str().unwrap();
    // Two results of different kinds in this machine's history.
    assert!(tb(here.path(), &["review", "--root", r]).status.success());
    assert!(
        tb(here.path(), &["monitor", "--interval", "0.2", "--", "true"])
            .status
            .success()
    );

    let dir = here.path().join("out");
    let d = dir.to_str().unwrap();
    let out = tb(here.path(), &["export", d]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(
        files[0].starts_with("truebench-1-review-") && files[1].starts_with("truebench-2-monitor-"),
        "{files:?}"
    );
    // Again: the same files, untouched.
    let out = tb(here.path(), &["export", d]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("0 results written"),
        "{out:?}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("2 already there"));
    // Only one kind.
    let only = here.path().join("only");
    tb(
        here.path(),
        &["export", only.to_str().unwrap(), "--kind", "review"],
    );
    assert_eq!(std::fs::read_dir(&only).unwrap().count(), 1);

    // On the other machine.
    let paths: Vec<String> = files
        .iter()
        .map(|f| dir.join(f).display().to_string())
        .collect();
    let mut args = vec!["import"];
    args.extend(paths.iter().map(String::as_str));
    let out = tb(there.path(), &args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("review result of Radxa ROCK 5B") && text.contains("stored as id 1"),
        "{text}"
    );
    let out = tb(there.path(), &args);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("already stored"),
        "nothing twice"
    );
    let h = tb(there.path(), &["history", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&h.stdout).unwrap();
    let kinds: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"review") && kinds.contains(&"monitor"),
        "{kinds:?}"
    );

    // A changed file is never overwritten.
    std::fs::write(dir.join(&files[0]), "{}").unwrap();
    let out = tb(here.path(), &["export", d]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("exists with other content"));
    assert_eq!(std::fs::read_to_string(dir.join(&files[0])).unwrap(), "{}");
    // And that file is no result to import: said, exit 2.
    let out = tb(
        there.path(),
        &["import", &dir.join(&files[0]).display().to_string()],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no truebench result document"));
}
