//! Two machines store into one PostgreSQL history (`TRUEBENCH_DB` on one, `--db` on the
//! other), and every command that reads the history reads it from there: `history`,
//! `report`, `compare`, `export`. Against a real server started privately on 127.0.0.1.

use crate::common;

use common::{json, truebench};
use truebench_fixtures::pg::PgServer;

#[test]
fn two_machines_one_postgres_history() {
    let server = match PgServer::start() {
        Ok(s) => s,
        Err(why) => truebench_fixtures::skip!("{why}"),
    };
    let url = server.url.as_str();
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let r = root.path().to_str().unwrap();

    // Machine A: the URL from the environment.
    let out = truebench(a.path())
        .env("TRUEBENCH_DB", url)
        .args(["review", "--root", r])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains(&format!("in the history as #1 ({url})")),
        "{said}"
    );
    // Machine B: the URL as --db.
    let out = truebench(b.path())
        .args(["monitor", "--interval", "0.2", "--db", url, "--", "true"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");

    // Nothing went into either machine's own SQLite history.
    for m in [&a, &b] {
        assert!(!m.path().join("data/truebench/history.sqlite").exists());
    }

    let out = truebench(b.path())
        .args(["history", "--json", "--db", url])
        .output()
        .unwrap();
    let v = json(&out);
    let all = v.as_array().unwrap();
    assert_eq!(all.len(), 2, "{v}");
    assert_eq!(all[0]["kind"], "review");
    assert_eq!(all[1]["kind"], "monitor");
    assert_eq!(all[1]["exit_code"], 0);

    // report and compare by id, export: all from PostgreSQL.
    let html = a.path().join("r.html");
    let out = truebench(a.path())
        .env("TRUEBENCH_DB", url)
        .args(["report", "1", "--html", html.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(std::fs::read_to_string(&html).unwrap().contains("<html"));
    let dir = a.path().join("export");
    let out = truebench(a.path())
        .env("TRUEBENCH_DB", url)
        .args(["export", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);

    // A database that is not there: the error names it, without a password.
    let out = truebench(a.path())
        .args([
            "history",
            "--db",
            &format!(
                "postgresql://postgres:pw@127.0.0.1:{}/nosuchdb",
                server.port
            ),
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("postgres:***@127.0.0.1"), "{said}");
    assert!(said.contains("nosuchdb"), "{said}");
    assert!(!said.contains(":pw@"), "{said}");
}

/// TLS as libpq means it, against a private server that refuses connections without TLS and
/// whose certificate a test authority signed: `require` stores and lists; `verify-full`
/// with that authority connects to 127.0.0.1 (named in the certificate); with another
/// authority, or `disable`, it is refused with a clear error; the password comes from a file
/// and is never printed.
#[test]
fn the_fleet_history_over_tls() {
    let (server, certs) = match PgServer::start_tls() {
        Ok(s) => s,
        Err(why) => truebench_fixtures::skip!("{why}"),
    };
    let m = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let r = root.path().to_str().unwrap();
    let base = server.url.clone();
    let with = |q: &str| format!("{base}?{q}");

    // require: encrypted (the server takes nothing else), the certificate not checked.
    let url = with("sslmode=require");
    let out = truebench(m.path())
        .args(["review", "--root", r, "--db", &url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("in the history as #1"));

    // verify-full against the authority that signed it, with a password file (the server
    // trusts, so any password works; the point is that it is read and never shown).
    let pw = m.path().join("pw");
    std::fs::write(&pw, "s3cret-word\n").unwrap();
    let url = with(&format!(
        "sslmode=verify-full&sslrootcert={}",
        certs.ca.display()
    ));
    let out = truebench(m.path())
        .args(["history", "--json", "--db", &url, "--db-password-file"])
        .arg(&pw)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v = json(&out);
    assert_eq!(v.as_array().unwrap().len(), 1, "{v}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("s3cret"));

    // verify-full with an authority that signed nothing of it: refused, and why.
    let url = with(&format!(
        "sslmode=verify-full&sslrootcert={}",
        certs.other_ca.display()
    ));
    let out = truebench(m.path())
        .args(["history", "--db", &url])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr).to_lowercase();
    assert!(err.contains("certificate"), "{err}");

    // verify-ca without any root certificate: said before connecting.
    let out = truebench(m.path())
        .env("HOME", m.path())
        .args(["history", "--db", &with("sslmode=verify-ca")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("sslrootcert"));

    // disable: the server refuses a connection in the clear.
    let out = truebench(m.path())
        .args(["history", "--db", &with("sslmode=disable")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// The central server goes away while three machines measure into it: each keeps its result
/// in its local history, pending, and says so; `sync` sends them once the server is back, a
/// second `sync` sends nothing, and a result stored later also takes what waited. Every
/// result arrives exactly once.
#[test]
fn nothing_is_lost_while_the_server_is_away() {
    let server = match PgServer::start() {
        Ok(s) => s,
        Err(why) => truebench_fixtures::skip!("{why}"),
    };
    let url = server.url.clone();
    let machines: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let writers: Vec<_> = machines
        .iter()
        .enumerate()
        .map(|(i, m)| {
            truebench(m.path())
                .args(["monitor", "--interval", "0.2", "--db", &url, "--", "sleep"])
                .arg(format!("{}", 2 + i))
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(800));
    server.stop().unwrap();
    for w in writers {
        let out = w.wait_with_output().unwrap();
        // The monitored command's own code: the result's fate is said, not failed on.
        assert!(out.status.success(), "{out:?}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("pending"), "{said}");
        assert!(said.contains("kept in the local history as #1"), "{said}");
    }
    let m = machines[0].path();
    // While it is away, sync says why and keeps them.
    let out = truebench(m).args(["sync", "--db", &url]).output().unwrap();
    assert!(!out.status.success(), "{out:?}");
    server.start_again().unwrap();
    let count = || {
        let out = truebench(m)
            .args(["history", "--json", "--db", &url])
            .output()
            .unwrap();
        json(&out).as_array().unwrap().len()
    };
    for machine in &machines {
        let out = truebench(machine.path())
            .args(["sync", "--db", &url])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("1 pending result(s) sent"),
            "{out:?}"
        );
    }
    assert_eq!(count(), 3);
    let out = truebench(m).args(["sync", "--db", &url]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("0 pending result(s) sent"),
        "{out:?}"
    );
    assert_eq!(count(), 3);
    // Away again for one result; the next result stored there takes it along.
    server.stop().unwrap();
    let out = truebench(m)
        .args(["monitor", "--interval", "0.2", "--db", &url, "--", "true"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("pending"),
        "{out:?}"
    );
    server.start_again().unwrap();
    let out = truebench(m)
        .args(["monitor", "--interval", "0.2", "--db", &url, "--", "true"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("pending #2 sent to"), "{said}");
    assert_eq!(count(), 5);
    // Nothing waits any more.
    let out = truebench(m).args(["sync"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("nothing pending"),
        "{out:?}"
    );
}
