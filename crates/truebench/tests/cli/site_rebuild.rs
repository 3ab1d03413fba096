//! `truebench site` rebuilt over its own folder reads from the history only the documents
//! that are new or changed since the last build (and those of the pages it makes again), by
//! what it kept of each result (`.truebench-rows`); the site it leaves is, to the byte, the
//! site built from nothing on the same history — after a new result, a stored document that
//! changed under its id, a result gone, and a kept list that is cut or not its own (then it
//! says so and reads every document).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_truebench");

fn tb(tmp: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("XDG_DATA_HOME", tmp.join("xdg"))
        .env("TRUEBENCH_LOCK_DIR", truebench_fixtures::lock_dir())
        .output()
        .unwrap()
}

/// A history holding `logs`, imported in this order (ids 1, 2, …).
fn history(tmp: &Path, name: &str, logs: &[&PathBuf]) -> PathBuf {
    let db = tmp.join(format!("{name}.sqlite"));
    let mut args = vec!["import", "--db", db.to_str().unwrap()];
    args.extend(logs.iter().map(|l| l.to_str().unwrap()));
    let o = tb(tmp, &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    db
}

/// Build the site of `db` into `dir`: (stdout, stderr, documents read).
fn site(tmp: &Path, dir: &Path, db: &Path) -> (String, String, usize) {
    let o = tb(
        tmp,
        &[
            "site",
            dir.to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
            "--title",
            "fleet",
        ],
    );
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "{out}{err}");
    let read = out
        .split("; ")
        .find_map(|p| p.split_once(" document")?.0.parse().ok())
        .unwrap_or_else(|| panic!("no count of documents read: {out}"));
    (out, err, read)
}

/// Every file of the folder by path (the manifest's lines sorted).
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
                continue;
            }
            let rel = p.strip_prefix(dir).unwrap().display().to_string();
            let mut bytes = std::fs::read(&p).unwrap();
            if rel == ".truebench-site" {
                let text = String::from_utf8(bytes).unwrap();
                let mut lines: Vec<&str> = text.lines().collect();
                lines.sort();
                bytes = lines.join("\n").into_bytes();
            }
            out.insert(rel, bytes);
        }
    }
    out
}

/// The folder is the site built from nothing on `db`, to the byte.
fn same_as_whole(tmp: &Path, dir: &Path, db: &Path, what: &str) {
    let whole = tmp.join(format!("whole-{what}"));
    site(tmp, &whole, db);
    let (got, want) = (files(dir), files(&whole));
    let differ: Vec<&String> = want
        .keys()
        .chain(got.keys())
        .filter(|k| got.get(*k) != want.get(*k))
        .collect();
    assert!(
        differ.is_empty(),
        "{what}: the rebuilt site differs from a whole build in {differ:?}"
    );
    assert!(got.contains_key(".truebench-rows/0000.brief"), "{what}");
    assert!(got.contains_key(".truebench-rows/0000.rows"), "{what}");
}

/// The result pages a build wrote (each one's document read for it).
fn pages_written(dir: &Path, before: &BTreeMap<String, Vec<u8>>) -> usize {
    files(dir)
        .iter()
        .filter(|(p, b)| p.starts_with("r/") && before.get(*p) != Some(*b))
        .count()
}

#[test]
fn a_rebuild_reads_only_the_new_or_changed_documents_and_gives_the_whole_builds_site() {
    let t = tempfile::tempdir().unwrap();
    let tmp = t.path();
    let logs_dir = tmp.join("logs");
    std::fs::create_dir(&logs_dir).unwrap();
    let mut all = truebench_fixtures::sbc_bench::logs();
    all.sort();
    let logs: Vec<PathBuf> = all
        .iter()
        .take(25)
        .map(|(name, text)| {
            let p = logs_dir.join(name);
            std::fs::write(&p, text).unwrap();
            p
        })
        .collect();
    let l: Vec<&PathBuf> = logs.iter().collect();
    let n = 20;
    // 20 results; then one more; then the 20th stored anew as another document (another
    // log: other figures) and the 21st gone; then the 20th gone too.
    let first = history(tmp, "first", &l[..n]);
    let more = history(tmp, "more", &l[..n + 1]);
    let changed = history(tmp, "changed", &[&l[..n - 1], &[l[n + 2]][..]].concat());
    let fewer = history(tmp, "fewer", &l[..n - 1]);
    let dir = tmp.join("site");

    let (_, err, read) = site(tmp, &dir, &first);
    assert_eq!(read, n, "a first build reads every document");
    assert!(!err.contains("warning"), "{err}");
    // Nothing changed: nothing read, nothing written.
    let before = files(&dir);
    let (out, _, read) = site(tmp, &dir, &first);
    assert_eq!(read, 0, "{out}");
    assert!(out.contains("(0 written"), "{out}");
    assert_eq!(files(&dir), before);

    // One new result: its document and those of the pages made again for it (its device's
    // and group's), not the history's.
    let (out, err, read) = site(tmp, &dir, &more);
    assert!(!err.contains("warning"), "{err}");
    let pages = pages_written(&dir, &before);
    assert!(pages >= 1, "{out}");
    assert_eq!(read, pages, "one document per page made: {out}");
    assert!(
        read < n / 2,
        "{read} documents read for one new result: {out}"
    );
    same_as_whole(tmp, &dir, &more, "more");

    // The 20th result's stored document is another now; the 21st is gone.
    let before = files(&dir);
    let (out, _, read) = site(tmp, &dir, &changed);
    assert!(read >= 1 && read < n / 2, "{out}");
    assert_eq!(read, pages_written(&dir, &before), "{out}");
    let page = String::from_utf8_lossy(&files(&dir)[&format!("r/{n}.html")]).into_owned();
    let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
    assert!(page.contains(&name(l[n + 2])), "the changed result's page");
    assert!(!dir.join(format!("r/{}.html", n + 1)).exists());
    same_as_whole(tmp, &dir, &changed, "changed");
    let (_, _, read) = site(tmp, &dir, &fewer);
    assert_eq!(read, 0, "a result gone needs no document");
    same_as_whole(tmp, &dir, &fewer, "fewer");

    // A kept brief file cut short, edited, or another file, or its rows file cut or grown:
    // said, every document read, the same site.
    let brief = dir.join(".truebench-rows/0000.brief");
    let rows = dir.join(".truebench-rows/0000.rows");
    let text = std::fs::read_to_string(&brief).unwrap();
    let row_text = std::fs::read_to_string(&rows).unwrap();
    let edited = text.replacen("\"id\":3,", "\"id\":4,", 1);
    assert_ne!(edited, text);
    // A figure's value changed by a digit, the length kept.
    let figure = truebench_fixtures::damage::digit_after(&text, "\"bits\":[");
    let first_row = row_text.lines().next().unwrap_or_default();
    for (what, file, bad) in [
        ("cut", &brief, text[..text.len() * 2 / 3].to_string()),
        ("edited", &brief, edited),
        ("a figure", &brief, figure),
        ("foreign", &brief, "my notes\n".to_string()),
        (
            "grown",
            &brief,
            format!("{text}{}", text.lines().nth(1).unwrap_or_default()),
        ),
        (
            "rows cut",
            &rows,
            row_text[..row_text.len() / 2].to_string(),
        ),
        ("rows grown", &rows, format!("{row_text}{first_row}\n")),
    ] {
        std::fs::write(file, &bad).unwrap();
        let (_, err, read) = site(tmp, &dir, &fewer);
        assert!(
            err.contains("warning") && err.contains(".truebench-rows"),
            "{what}: {err}"
        );
        assert_eq!(read, n - 1, "{what}: every document read again");
        same_as_whole(tmp, &dir, &fewer, what);
    }

    // A row line changed, its length kept (the rows file's size is right): found when a file
    // needs the row, said, and the build made again from every document.
    let row_text = std::fs::read_to_string(&rows).unwrap();
    std::fs::write(
        &rows,
        truebench_fixtures::damage::digit_after(&row_text, "\"aes\":"),
    )
    .unwrap();
    // Every page made again, so the row is needed.
    std::fs::remove_file(dir.join(".truebench-keys")).unwrap();
    let (_, err, _) = site(tmp, &dir, &fewer);
    assert!(
        err.contains("warning") && err.contains("0000.rows") && err.contains("read again"),
        "{err}"
    );
    same_as_whole(tmp, &dir, &fewer, "a row unreadable whole");
}
