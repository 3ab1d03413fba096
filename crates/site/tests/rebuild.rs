//! A rebuild from what the site kept of each result (`.truebench-rows`) asks for no document
//! but those of the pages it makes again, and makes, to the byte, the site and the kept list
//! a build from every document makes (the figures read back exactly: their bits are kept).

mod common;

use std::borrow::Cow;
use std::collections::BTreeMap;

use common::site_rows;
use truebench_site::{build_kept, build_over, build_to, kept, write, Kept, Options, Stored};

/// What a history would say of each result: its id and its stored document's digest.
fn kept_of(results: &[Stored], opts: &Options) -> Vec<Kept> {
    results
        .iter()
        .map(|s| {
            let digest = format!("digest-{}-{}", s.entry.id, s.doc.envelope.started.unix_ms);
            Kept::of(s.entry.id, &digest, &s.doc, &opts.published)
        })
        .collect()
}

/// A fleet of `n` results (its base documents, the results, the site's options, a scratch
/// folder, the site's folder in it, what the site keeps of each result).
type Fleet = (
    Vec<truebench_model::Document>,
    Vec<Stored>,
    Options,
    tempfile::TempDir,
    std::path::PathBuf,
    Vec<Kept>,
);

fn fleet(n: usize) -> Fleet {
    let bases = site_rows::bases();
    let results = site_rows::site_rows(&bases, n);
    let opts = Options {
        title: "fleet".into(),
        ..Options::default()
    };
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("site");
    let all = kept_of(&results, &opts);
    (bases, results, opts, d, dir, all)
}

/// Every file below `root`, by its path relative to it.
fn files(root: &std::path::Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(p) = todo.pop() {
        for e in std::fs::read_dir(&p).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(root).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn a_rebuild_from_the_kept_rows_reads_only_the_pages_documents_and_is_a_whole_build() {
    let n = 700;
    let (bases, mut results, opts, d, dir, all) = fleet(n);
    // The first build written as it is made (`truebench site`'s way); the whole build below
    // is made in memory, then written: both folders must hold the same bytes.
    let mut load = |i: usize| Ok(Cow::Borrowed(&results[i].doc));
    let (made, w) = build_to(&all, &opts, &dir, &mut load).unwrap();
    assert_eq!(w.written.len(), made.files);
    assert!(made.reused.is_empty());
    kept::save(&dir, &all, &opts.published).unwrap();

    // One more result, first in the list as the history gives it; every other from the list.
    results.insert(0, site_rows::one(&bases, n as i64 + 1));
    let mut before = kept::read(&dir, &opts.published).unwrap();
    assert_eq!(before.len(), n);
    let now = kept_of(&results, &opts);
    let mut list = Vec::new();
    for k in &now {
        match before.remove(&k.id) {
            Some(old) if old.digest == k.digest => list.push(*old),
            _ => list.push(k.clone()),
        }
    }
    let mut asked = Vec::new();
    let mut load = |i: usize| {
        asked.push(results[i].entry.id);
        Ok(Cow::Borrowed(&results[i].doc))
    };
    let site = build_kept(&list, &opts, &write::keys(&dir), &mut load).unwrap();
    let mut made: Vec<i64> = site
        .files
        .keys()
        .filter_map(|p| p.strip_prefix("r/")?.strip_suffix(".html")?.parse().ok())
        .collect();
    asked.sort();
    made.sort();
    assert_eq!(asked, made, "a document for each page made, no other");
    assert!(asked.contains(&(n as i64 + 1)));
    // Its page and the pages of its device's results that link to it: not the history.
    assert!(
        asked.len() <= 1 + 12,
        "{} documents asked: {asked:?}",
        asked.len()
    );
    write::write(&site, &dir).unwrap();
    kept::save(&dir, &list, &opts.published).unwrap();

    // The same as a whole build of every document, to the byte, the kept list included.
    let whole = d.path().join("whole");
    write::write(&build_over(&results, &opts, &BTreeMap::new()), &whole).unwrap();
    kept::save(&whole, &now, &opts.published).unwrap();
    let (got, want) = (files(&dir), files(&whole));
    assert_eq!(got.len(), want.len());
    for (p, b) in &want {
        if p == write::MANIFEST {
            continue;
        }
        assert!(got.get(p) == Some(b), "{p} differs from a whole build's");
    }
    // Every figure read back is the one made, to the bit: in the brief part every build
    // reads, and in the row read whole from the line; the row whole is the one made.
    let back = kept::read(&dir, &opts.published).unwrap();
    for k in &now {
        let b = &back[&k.id];
        let (made, read) = (k.row().unwrap(), b.row().unwrap());
        assert_eq!(
            serde_json::to_string(&*read).unwrap(),
            serde_json::to_string(&*made).unwrap(),
            "#{}",
            k.id
        );
        assert_eq!(b.brief.figures.len(), made.figures.len());
        for ((x, y), z) in b.brief.figures.iter().zip(&read.figures).zip(&made.figures) {
            for v in [x.value, y.value] {
                assert_eq!(v.map(f64::to_bits), z.value.map(f64::to_bits), "#{}", k.id);
            }
            assert_eq!((&x.key, &x.unit), (&z.key, &z.unit), "#{}", k.id);
        }
        assert_eq!(
            (
                &b.brief.device,
                &b.brief.label,
                &b.brief.soc,
                b.brief.unix_ms
            ),
            (&made.device, &made.label, &made.soc, made.unix_ms)
        );
        assert_eq!(b.facts, k.facts);
    }
    // Another Results.md: the list is not used (made anew), without a complaint.
    let other = vec![truebench_sbcbench::row::MarkdownRow::default()];
    assert!(kept::read(&dir, &other).unwrap().is_empty());
}

/// A build written as it is made stops at a file in its way that no earlier build wrote, the
/// last it meets, and leaves the folder as it was: the earlier site whole, no temporary.
#[test]
fn a_build_written_as_made_that_meets_a_strangers_file_changes_nothing() {
    let (_, results, opts, _d, dir, all) = fleet(40);
    let mut load = |i: usize| Ok(Cow::Borrowed(&results[i].doc));
    build_to(&all[30..], &opts, &dir, &mut load).unwrap();
    // Each file's size and hash (a failure prints the paths, not megabytes).
    let snapshot = |root: &std::path::Path| -> BTreeMap<String, (usize, u64)> {
        files(root)
            .into_iter()
            .map(|(rel, b)| {
                let mut h = std::hash::DefaultHasher::new();
                std::hash::Hash::hash(&b, &mut h);
                (rel, (b.len(), std::hash::Hasher::finish(&h)))
            })
            .collect()
    };
    // The SoC pages come last; one the site does not have yet is someone else's.
    let soc = build_over(&results, &opts, &BTreeMap::new())
        .files
        .into_keys()
        .rfind(|p| p.starts_with("soc/") && !dir.join(p).exists())
        .expect("a SoC page the 10 oldest results have not");
    std::fs::write(dir.join(&soc), "mine").unwrap();
    let before = snapshot(&dir);
    let mut asked = 0;
    let mut load = |i: usize| {
        asked += 1;
        Ok(Cow::Borrowed(&results[i].doc))
    };
    let e = build_to(&all, &opts, &dir, &mut load).unwrap_err();
    assert!(
        e.to_string().contains(&soc) && e.to_string().contains("in the way"),
        "{e}"
    );
    assert!(asked > 0, "the pages were made before the SoC page");
    assert_eq!(
        snapshot(&dir),
        before,
        "the folder as it was, no temporary left"
    );
}

/// What the site keeps is a file per shard of ids: a rebuild after one new result writes its
/// shard's file alone; a shard no result falls in any more is removed; an older truebench's
/// single list in the folder's place is replaced; a stranger's file among the shards is left
/// where it is, named, and nothing is kept.
#[test]
fn the_kept_rows_are_written_a_shard_at_a_time() {
    let bases = site_rows::bases();
    let opts = Options::default();
    let of = |id: i64| {
        let s = site_rows::one(&bases, id);
        Kept::of(id, &format!("d{id}"), &s.doc, &opts.published)
    };
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let rows = dir.join(kept::ROWS);
    // An older truebench's list: a file where the folder goes. Not read, replaced.
    std::fs::write(&rows, "truebench-rows 2 0.1.0 abc 0 0 e3b0\n").unwrap();
    assert!(kept::read(dir, &opts.published).unwrap().is_empty());
    let ids = [3, 999, 1000, 2500, 2501];
    let all: Vec<Kept> = ids.iter().map(|&id| of(id)).collect();
    kept::save(dir, &all, &opts.published).unwrap();
    let names = || -> Vec<String> {
        let mut n: Vec<String> = std::fs::read_dir(&rows)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    };
    assert_eq!(
        names(),
        [
            "0000.brief",
            "0000.rows",
            "0001.brief",
            "0001.rows",
            "0002.brief",
            "0002.rows"
        ]
    );
    let stamp = |n: &str| std::fs::read(rows.join(n)).unwrap();
    let before: Vec<Vec<u8>> = names().iter().map(|n| stamp(n)).collect();

    // Read back, one result added to shard 2 and shard 1's result gone.
    let back = kept::read(dir, &opts.published).unwrap();
    assert_eq!(back.keys().copied().collect::<Vec<_>>(), ids);
    let mut now: Vec<Kept> = back
        .into_values()
        .map(|k| *k)
        .filter(|k| k.id != 1000)
        .collect();
    now.push(of(2600));
    // A marker: a file written again is another file (a new inode).
    use std::os::unix::fs::MetadataExt;
    let inode = |n: &str| std::fs::metadata(rows.join(n)).unwrap().ino();
    let first = (inode("0000.brief"), inode("0000.rows"));
    kept::save(dir, &now, &opts.published).unwrap();
    assert_eq!(
        names(),
        ["0000.brief", "0000.rows", "0002.brief", "0002.rows"],
        "shard 1 removed"
    );
    assert_eq!(
        (inode("0000.brief"), inode("0000.rows")),
        first,
        "shard 0 not written again"
    );
    assert_eq!(stamp("0000.brief"), before[0]);
    assert_eq!(stamp("0000.rows"), before[1]);
    assert_ne!(stamp("0002.brief"), before[4]);
    assert_ne!(stamp("0002.rows"), before[5]);
    let again = kept::read(dir, &opts.published).unwrap();
    assert_eq!(
        again.keys().copied().collect::<Vec<_>>(),
        [3, 999, 2500, 2501, 2600]
    );

    // A stranger's file among the shards: read and save both name it, and it stays.
    std::fs::write(rows.join("notes.txt"), "mine").unwrap();
    let e = kept::read(dir, &opts.published).unwrap_err();
    assert!(e.contains("notes.txt"), "{e}");
    let e = kept::save(dir, &now, &opts.published)
        .unwrap_err()
        .to_string();
    assert!(e.contains("notes.txt") && e.contains("not saved"), "{e}");
    assert_eq!(std::fs::read(rows.join("notes.txt")).unwrap(), b"mine");
}

/// A kept row line changed under its brief file (its length kept, so its file's size is
/// right): the read takes the shard, and the first file that needs the row whole stops the
/// build with a `LoadError` naming the result and the rows file. A rows file cut short is seen
/// when the shard is read.
#[test]
fn a_kept_row_that_cannot_be_read_whole_stops_the_build_naming_its_file() {
    let (_, results, opts, _d, dir, all) = fleet(3);
    let mut none = |_: usize| Err("no document".to_string());
    build_to(&all, &opts, &dir, &mut |i| {
        Ok(Cow::Borrowed(&results[i].doc))
    })
    .unwrap();
    kept::save(&dir, &all, &opts.published).unwrap();
    let shard = dir.join(kept::ROWS).join("0000.rows");
    let text = std::fs::read_to_string(&shard).unwrap();
    // A digit of the first row's AES cell, the length kept.
    let edited = truebench_fixtures::damage::digit_after(&text, "\"aes\":");
    assert_eq!(edited.len(), text.len());
    std::fs::write(&shard, &edited).unwrap();

    let back = kept::read(&dir, &opts.published).unwrap();
    let bad = back
        .values()
        .find(|k| k.row().is_err())
        .expect("one row unreadable");
    let why = bad.row().unwrap_err();
    let bad = bad.id;
    assert!(
        why.contains("0000.rows") && why.contains(&format!("#{bad}")) && why.contains("SHA-256"),
        "{why}"
    );
    assert_eq!(
        back.values().filter(|k| k.row().is_ok()).count(),
        back.len() - 1,
        "the other rows read"
    );
    // A build that makes its files again (no earlier keys) needs it: stopped, named.
    let list: Vec<Kept> = back.into_values().map(|k| *k).collect();
    let e = build_kept(&list, &opts, &BTreeMap::new(), &mut none).unwrap_err();
    assert_eq!(e.id, bad, "{e}");
    assert!(e.kept, "the kept row, not a document: {e}");
    assert!(e.to_string().contains("0000.rows"), "{e}");
    // Saved again without another result, the shard needs that row: not saved, said.
    let other = list.iter().find(|k| k.id != bad).unwrap().id;
    let fewer: Vec<Kept> = list.iter().filter(|k| k.id != other).cloned().collect();
    let e = kept::save(&dir, &fewer, &opts.published)
        .unwrap_err()
        .to_string();
    assert!(e.contains("0000.rows") && e.contains("not saved"), "{e}");
    let brief = dir.join(kept::ROWS).join("0000.brief");
    assert!(!brief.exists(), "the shard is made anew next time");
    assert!(kept::read(&dir, &opts.published).unwrap().is_empty());
    kept::save(&dir, &list, &opts.published).unwrap_err();
    kept::save(&dir, &all, &opts.published).unwrap();

    // Cut short: the shard is not read.
    std::fs::write(&shard, &text[..text.len() / 2]).unwrap();
    let e = kept::read(&dir, &opts.published).unwrap_err();
    assert!(e.contains("0000.rows") && e.contains("cut"), "{e}");
}

/// A brief file whose header is made right but whose line claims a row longer than any row:
/// refused when the shard is read, naming the file and the line, before anything is
/// allocated for it.
#[test]
fn a_kept_row_length_beyond_the_bound_is_refused() {
    use sha2::{Digest, Sha256};
    let (_, _, opts, _d, dir, all) = fleet(2);
    kept::save(&dir, &all, &opts.published).unwrap();
    let brief = dir.join(kept::ROWS).join("0000.brief");
    let text = std::fs::read_to_string(&brief).unwrap();
    let (head, body) = text.split_once('\n').unwrap();
    let at = body.find("\"row_len\":").expect("a row length") + "\"row_len\":".len();
    let end = at + body[at..].find('}').unwrap();
    let body = format!("{}{}{}", &body[..at], u64::MAX / 2, &body[end..]);
    // The header's count, bytes and SHA-256 made right for the edited lines.
    let words: Vec<&str> = head.split(' ').collect();
    let n = words.len();
    let head = format!(
        "{} {} {} {:x} {}",
        words[..n - 4].join(" "),
        body.split_terminator('\n').count(),
        body.len(),
        Sha256::digest(body.as_bytes()),
        words[n - 1]
    );
    std::fs::write(&brief, format!("{head}\n{body}")).unwrap();
    let e = kept::read(&dir, &opts.published).unwrap_err();
    assert!(
        e.contains("0000.brief") && e.contains("line 2") && e.contains("more than a row's"),
        "{e}"
    );
}
