//! A tuning journal left on disk can be anything after a crash, a full disk or a stray
//! editor: random bytes, cut anywhere, a valid header followed by garbage, bit flips.
//! `recover` must answer with a report or an error naming the journal — never panic — and a
//! damaged line must never be written to a settings file.

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use truebench_host::{Host, Inventory};
use truebench_tuning::{recover, testing, Tuning};

const JOURNAL: &str = "var/lib/truebench/tuning.journal";

/// A real journal of a killed session on the rk3588 root (governor changed on every
/// cluster).
fn real_journal() -> Vec<u8> {
    let d = truebench_fixtures::root("rk3588-rock5b");
    let host = Host::new(d.path());
    let mut t = Tuning::begin(&host).unwrap();
    for c in Inventory::probe(&host).clusters {
        if !c.policies.is_empty() {
            t.set_governor(&c, "performance").unwrap();
        }
    }
    testing::kill(t);
    let j = fs::read(d.path().join(JOURNAL)).unwrap();
    assert!(j.iter().filter(|&&b| b == b'\n').count() >= 4, "{j:?}");
    j
}

/// Deterministic bytes (xorshift), so a failure reproduces.
fn noise(n: usize, mut seed: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        })
        .collect()
}

fn governors(root: &Path) -> Vec<String> {
    let host = Host::new(root);
    Inventory::probe(&host)
        .clusters
        .iter()
        .filter_map(|c| c.governor.clone())
        .collect()
}

#[test]
fn corrupt_journals_give_a_report_or_an_error() {
    let real = real_journal();
    let header_len = real.iter().position(|&b| b == b'\n').unwrap() + 1;
    let mut cases: Vec<(String, Vec<u8>)> = vec![
        ("empty".into(), Vec::new()),
        ("random".into(), noise(4096, 1)),
        ("random, newline-free".into(), vec![0xFF; 300]),
        ("newlines only".into(), b"\n\n\n".to_vec()),
        ("valid header + garbage".into(), {
            let mut v = real[..header_len].to_vec();
            v.extend(noise(500, 7));
            v
        }),
        ("valid header + garbage lines".into(), {
            let mut v = real[..header_len].to_vec();
            v.extend_from_slice(b"O 1 =x =y 00000000\nO\n \nR 99999999999 0\nS 1 2 3 4 5\n%%%\n");
            v
        }),
    ];
    for cut in 0..real.len() {
        cases.push((format!("cut at byte {cut}"), real[..cut].to_vec()));
    }
    for i in (0..real.len()).step_by(3) {
        let mut v = real.clone();
        v[i] ^= 0x24;
        cases.push((format!("byte {i} flipped"), v));
    }

    let d = truebench_fixtures::root("rk3588-rock5b");
    let host = Host::new(d.path());
    let clean = governors(d.path());
    let mut panics = Vec::new();
    for (what, bytes) in &cases {
        fs::create_dir_all(d.path().join("var/lib/truebench")).unwrap();
        fs::write(d.path().join(JOURNAL), bytes).unwrap();
        match catch_unwind(AssertUnwindSafe(|| recover(&host))) {
            Err(_) => panics.push(what.clone()),
            Ok(Err(e)) => {
                let msg = e.to_string();
                assert!(msg.contains("journal"), "{what}: {msg}");
            }
            Ok(Ok(_report)) => {}
        }
        // Whatever was restored came from checksummed lines, which hold the original values.
        assert_eq!(governors(d.path()), clean, "{what}");
        let _ = fs::remove_file(d.path().join(JOURNAL));
    }
    assert!(panics.is_empty(), "recover panicked on: {panics:?}");
    assert!(cases.len() > 100);
}

/// A FIFO, socket, device node (or a link to one) or a huge file at the journal's name in a
/// recorded tree: the start of a command on that root (recovery, a new session) says what
/// it is and names it, at once — a FIFO's read waited forever — and no setting is touched.
#[test]
fn an_odd_file_at_the_journals_name_is_refused_at_once() {
    use truebench_fixtures::odd::{self, Odd};
    for kind in odd::kinds() {
        let d = truebench_fixtures::root("rk3588-rock5b");
        let before = governors(d.path());
        let p = d.path().join(JOURNAL);
        odd::plant(&p, kind);
        let root = d.path().to_path_buf();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let host = Host::new(&root);
            let r = recover(&host).map(|_| ()).map_err(|e| e.to_string());
            let b = Tuning::begin(&host).map(drop).map_err(|e| e.to_string());
            let _ = tx.send((r, b));
        });
        let what = format!("{kind:?}");
        let (r, b) = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("{what}: still waiting after 20 s"));
        let said = match kind {
            Odd::Huge => "more than any journal of ours".to_string(),
            // The link itself is what is there: never followed.
            Odd::LinkToDevZero => "is a symbolic link, not a regular file".to_string(),
            _ => format!("is {}, not a regular file", kind.said()),
        };
        for e in [r, b] {
            let e = e.expect_err(&what);
            assert!(
                e.contains(&p.display().to_string()) && e.contains(&said),
                "{what}: {e}"
            );
        }
        assert_eq!(governors(d.path()), before, "{what}");
    }
}
