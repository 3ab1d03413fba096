//! The adapters driven by scripted tools that answer with recorded output: what a real run
//! checks of the adapter's own logic (a run per cipher, the progress, the merged table), in
//! milliseconds and on any machine. The real tools run once, briefly, in `real_runs`.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use truebench_workloads::aes::{Cipher, SIZES};
use truebench_workloads::openssl;

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

/// An `openssl` that answers `version` and `speed … -evp CIPHER` with Debian 12's recorded
/// output for AES-128-CBC and AES-256-GCM, fails for any other cipher, and logs its
/// arguments to `args.log` beside it.
fn scripted_openssl(dir: &Path) -> PathBuf {
    let cbc = data("openssl/debian12-openssl-3.0.19-aes-128-cbc.txt");
    let gcm = data("openssl/debian12-openssl-3.0.19-aes-256-gcm.txt");
    let log = dir.join("args.log");
    let script = format!(
        "#!/bin/sh\necho \"$*\" >> '{log}'\n\
         case \"$1\" in version) echo 'OpenSSL 3.0.19 27 Jan 2026 (Library: OpenSSL 3.0.19 27 Jan 2026)'; exit 0 ;; esac\n\
         for a in \"$@\"; do last=$a; done\n\
         case \"$last\" in aes-128-cbc) cat '{cbc}' ;; aes-256-gcm) cat '{gcm}' ;; *) echo \"speed: unknown cipher $last\" >&2; exit 1 ;; esac\n",
        log = log.display(),
        cbc = cbc.display(),
        gcm = gcm.display(),
    );
    let p = dir.join("openssl");
    std::fs::write(&p, script).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p
}

#[test]
fn openssl_runs_each_cipher_and_merges_their_tables() {
    let dir = tempfile::tempdir().unwrap();
    let program = scripted_openssl(dir.path());
    let ciphers = [Cipher::Aes128Cbc, Cipher::Aes256Gcm];
    let opts = openssl::OpensslOptions {
        ciphers: ciphers.to_vec(),
        ..openssl::OpensslOptions::standard()
    };
    opts.progress.step(0, 1, "openssl");
    let r = openssl::measure_with(&program, &opts, None).unwrap();
    assert_eq!(r.version.as_deref(), Some("3.0.19"));
    // One run per cipher, in order, each with -seconds 1 (known from 1.1.0 on).
    let args = std::fs::read_to_string(dir.path().join("args.log")).unwrap();
    let speed: Vec<&str> = args.lines().filter(|l| l.starts_with("speed")).collect();
    assert_eq!(
        speed,
        [
            "speed -elapsed -seconds 1 -evp aes-128-cbc",
            "speed -elapsed -seconds 1 -evp aes-256-gcm"
        ]
    );
    assert_eq!(r.runs.len(), 2);
    assert_eq!(r.seconds_option, Some(1));
    // The second cipher's six `Doing … blocks` lines moved the progress to its last size
    // (the CBC recording has its stderr apart: no such lines).
    let (done, _) = opts.progress.get().unwrap();
    assert!((done - 11.0 / 12.0).abs() < 1e-9, "{done}");
    // The two tables merged: both ciphers at every size, each run's values kept.
    assert!(r.table.is_complete(&ciphers, &SIZES), "{}", r.table.text());
    assert_eq!(r.table.get(Cipher::Aes128Cbc, 16384), Some(1573634.05));
    assert_eq!(r.table.get(Cipher::Aes256Gcm, 16), Some(36264.66));
}

#[test]
fn openssl_that_fails_a_cipher_is_an_error_naming_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let program = scripted_openssl(dir.path());
    let opts = openssl::OpensslOptions {
        ciphers: vec![Cipher::Aes128Cbc, Cipher::Aes256Cbc],
        ..openssl::OpensslOptions::standard()
    };
    let e = openssl::measure_with(&program, &opts, None).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("aes-256-cbc"), "{msg}");
    assert!(msg.contains("unknown cipher"), "{msg}");
}
