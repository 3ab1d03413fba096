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

/// A user of a shared folder plants links at the names `export` and `report` will write (one
/// dangling, which reads as absent): root's export refuses that name and says so, root's
/// report replaces the link with the page; no link target is created or changed.
#[test]
fn planted_links_in_a_shared_folder_are_never_written_through() {
    let data = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let r = root.path().to_str().unwrap();
    assert!(tb(data.path(), &["review", "--root", r]).status.success());
    let shared = tempfile::tempdir().unwrap();
    // The name export will use: ask a dry export elsewhere first.
    let probe = data.path().join("probe");
    tb(data.path(), &["export", probe.to_str().unwrap()]);
    let name = std::fs::read_dir(&probe)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .file_name();
    let elsewhere = data.path().join("created-by-the-link");
    std::os::unix::fs::symlink(&elsewhere, shared.path().join(&name)).unwrap();
    let out = tb(data.path(), &["export", shared.path().to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not written"), "{err}");
    assert!(!elsewhere.exists(), "the dangling link was followed");
    assert!(std::fs::symlink_metadata(shared.path().join(&name))
        .unwrap()
        .file_type()
        .is_symlink());

    let victim = data.path().join("victim");
    std::fs::write(&victim, b"precious").unwrap();
    let page = shared.path().join("report.html");
    std::os::unix::fs::symlink(&victim, &page).unwrap();
    let out = tb(
        data.path(),
        &["report", "1", "--html", page.to_str().unwrap()],
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    let md = std::fs::symlink_metadata(&page).unwrap();
    assert!(md.is_file());
    assert!(std::fs::read_to_string(&page).unwrap().contains("<html"));
    // No temporary left beside it.
    let left: Vec<_> = std::fs::read_dir(shared.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
