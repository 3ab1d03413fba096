//! Every `sslmode` as libpq means it: truebench and psql (libpq itself, the reference) connect
//! side by side to private servers — certificates of a CA chain, a self-signed certificate
//! that is its own root, a server without TLS — under each mode, with the right root file, an
//! authority that signed nothing of it and none, as 127.0.0.1 and as localhost. Each case's
//! outcome (refused, connected without TLS, connected with TLS: the server's own log says
//! which) must be the same for both clients AND the one written in the table here, so the
//! test cannot pass by both being wrong; truebench's refusal must say in words which check
//! failed.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::truebench;
use truebench_fixtures::pg::{self_signed, PgServer, TestAuthority};

/// Why truebench refused, by the letter a table cell uses for it ('P': connected without TLS,
/// 'T': with TLS, '-': psql and truebench say different words, not checked).
const WHY: &[(char, &str)] = &[
    (
        'S',
        "the server's certificate is not signed by the sslrootcert authority {file}",
    ),
    (
        'X',
        "the server's certificate is self-signed and not itself in the sslrootcert file {file}",
    ),
    ('N', "(sslmode=verify-full checks the host name)"),
    ('F', "needs the root certificates, and there is no file"),
    ('O', "the server does not offer TLS (sslmode={mode})"),
    ('H', "pg_hba.conf rejects connection"),
];

/// One certificate setup: its server, the root files tried (a label and the file, or none),
/// the host names tried, and per mode the expected outcome for each root × host.
struct Setup<'a> {
    name: &'a str,
    server: &'a PgServer,
    roots: Vec<Option<PathBuf>>,
    hosts: &'a [&'a str],
    table: [(&'a str, &'a str); 6],
}

/// What a client got: 'R' refused, 'P' connected without TLS, 'T' with TLS.
fn got(server: &PgServer, ok: bool, app: &str, log_from: usize) -> char {
    if !ok {
        return 'R';
    }
    let log = server.log();
    let new = String::from_utf8_lossy(&log.as_bytes()[log_from.min(log.len())..]).into_owned();
    let line = new
        .lines()
        .rev()
        .find(|l| {
            l.contains("connection authorized") && l.contains(&format!("application_name={app}"))
        })
        .unwrap_or_else(|| panic!("{app} connected but the server logged no connection:\n{log}"));
    if line.contains("SSL enabled") {
        'T'
    } else {
        'P'
    }
}

fn check(setup: &Setup, psql: &Path, home: &Path, tmp: &Path) {
    let s = setup.server;
    let mut wrong = Vec::new();
    for (mode, cells) in setup.table {
        let cells: Vec<char> = cells.chars().filter(|c| !c.is_whitespace()).collect();
        assert_eq!(cells.len(), setup.roots.len() * setup.hosts.len(), "{mode}");
        let mut cell = cells.iter();
        for root in &setup.roots {
            for host in setup.hosts {
                let want = *cell.next().unwrap();
                let mut url = format!(
                    "postgresql://postgres@{host}:{}/postgres?sslmode={mode}",
                    s.port
                );
                if let Some(r) = root {
                    url.push_str(&format!("&sslrootcert={}", r.display()));
                }
                let from = s.log().len();
                let out = Command::new(psql)
                    .env_clear()
                    .env("HOME", home)
                    .env("LC_ALL", "C")
                    .env("PGCONNECT_TIMEOUT", "10")
                    .args(["-X", "-w", "-At", "-c", "SELECT 1", &url])
                    .output()
                    .unwrap();
                let by_psql = got(s, out.status.success(), "psql", from);
                let psql_said = String::from_utf8_lossy(&out.stderr).into_owned();
                let from = s.log().len();
                let out = truebench(tmp)
                    .env("HOME", home)
                    .env_remove("PGPASSFILE")
                    .args(["history", "--json", "--db", &url])
                    .output()
                    .unwrap();
                let by_us = got(s, out.status.success(), "truebench", from);
                let said = String::from_utf8_lossy(&out.stderr).into_owned();
                let expected = if "PT".contains(want) { want } else { 'R' };
                let case = format!("{}: sslmode={mode} host={host} root={root:?}", setup.name);
                if by_psql != expected || by_us != expected {
                    wrong.push(format!(
                        "{case}: table {want}, psql {by_psql}, truebench {by_us}\n  psql: {}\n  \
                         truebench: {}",
                        psql_said.trim(),
                        said.trim()
                    ));
                    continue;
                }
                if let Some((_, words)) = WHY.iter().find(|(c, _)| *c == want) {
                    let file = root.as_deref().map(|r| r.display().to_string());
                    let words = words
                        .replace("{file}", file.as_deref().unwrap_or(""))
                        .replace("{mode}", mode);
                    if !said.contains(&words) {
                        wrong.push(format!("{case}: truebench did not say {words:?}: {said}"));
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} case(s) wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// The history's layout made through the server's Unix socket (no TLS there), so that
/// `history` over TCP exits 0 once connected.
fn make_history(server: &PgServer, tmp: &Path) {
    let url = format!(
        "postgresql://postgres@/postgres?host={}&port={}&sslmode=disable",
        server.socket_dir().display(),
        server.port
    );
    let out = truebench(tmp)
        .args(["monitor", "--interval", "0.2", "--db", &url, "--", "true"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn every_sslmode_as_libpq_means_it() {
    let plain = match PgServer::start() {
        Ok(s) => s,
        Err(why) => truebench_fixtures::skip!("{why}"),
    };
    let psql = match plain.psql() {
        Ok(p) => p,
        // A skip fails CI (see `skip`): psql comes with the server package there.
        Err(why) => truebench_fixtures::skip!("{why}"),
    };
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home"); // no ~/.postgresql/root.crt
    std::fs::create_dir_all(&home).unwrap();
    let file = |name: &str, pem: &str| {
        let p = tmp.path().join(name);
        std::fs::write(&p, pem).unwrap();
        Some(p)
    };
    let authority = TestAuthority::root("truebench test root").unwrap();
    let other = TestAuthority::root("an authority that signed nothing here").unwrap();
    let other_file = file("other.pem", &other.pem());
    let hosts = &["127.0.0.1", "localhost"];

    // A server without TLS: disable, allow and prefer connect; the others refuse.
    make_history(&plain, tmp.path());
    check(
        &Setup {
            name: "no TLS",
            server: &plain,
            roots: vec![file("ca.pem", &authority.pem())],
            hosts: &["127.0.0.1"],
            table: [
                ("disable", "P"),
                ("allow", "P"),
                ("prefer", "P"),
                ("require", "O"),
                ("verify-ca", "O"),
                ("verify-full", "O"),
            ],
        },
        &psql,
        &home,
        tmp.path(),
    );
    drop(plain);

    // A chain: root → intermediate → a certificate for the IP address 127.0.0.1 only; the
    // server also takes connections without TLS (so `allow` stays without, and `prefer`
    // falls back to without when the certificate is refused).
    let ca = authority
        .intermediate("truebench test intermediate")
        .unwrap();
    let cert = ca.server(&["127.0.0.1"], "truebench test server").unwrap();
    let chain = PgServer::start_with_cert(&cert.cert, &cert.key, true).unwrap();
    make_history(&chain, tmp.path());
    check(
        &Setup {
            name: "CA chain, certificate for 127.0.0.1",
            server: &chain,
            //     root:  the CA    other   none
            //     host:  IP name   IP name IP name
            roots: vec![file("ca.pem", &authority.pem()), other_file.clone(), None],
            hosts,
            table: [
                ("disable", "P P  P P  P P"),
                ("allow", "P P  P P  P P"),
                ("prefer", "T T  P P  T T"),
                ("require", "T T  S S  T T"),
                ("verify-ca", "T T  S S  F F"),
                ("verify-full", "T N  S S  F F"),
            ],
        },
        &psql,
        &home,
        tmp.path(),
    );
    drop(chain);

    // Self-signed, its own root (PostgreSQL's recipe, CA:TRUE), made out to 127.0.0.1; TLS
    // only (so `allow` goes on to TLS, and `prefer`'s fallback is refused).
    let own = self_signed(&["127.0.0.1"], "127.0.0.1").unwrap();
    let server = PgServer::start_with_cert(&own.cert, &own.key, false).unwrap();
    make_history(&server, tmp.path());
    check(
        &Setup {
            name: "self-signed for 127.0.0.1",
            server: &server,
            roots: vec![file("own-ip.pem", &own.cert), other_file.clone(), None],
            hosts,
            table: [
                ("disable", "H H  H H  H H"),
                ("allow", "T T  X X  T T"),
                ("prefer", "T T  X X  T T"),
                ("require", "T T  X X  T T"),
                ("verify-ca", "T T  X X  F F"),
                ("verify-full", "T N  X X  F F"),
            ],
        },
        &psql,
        &home,
        tmp.path(),
    );
    drop(server);

    // Self-signed with only a common name, localhost (no subjectAltName: the name check
    // falls back to it, as libpq's does).
    let own = self_signed(&[], "localhost").unwrap();
    let server = PgServer::start_with_cert(&own.cert, &own.key, false).unwrap();
    make_history(&server, tmp.path());
    check(
        &Setup {
            name: "self-signed, common name localhost",
            server: &server,
            roots: vec![file("own-cn.pem", &own.cert), other_file, None],
            hosts,
            table: [
                ("disable", "H H  H H  H H"),
                ("allow", "T T  X X  T T"),
                ("prefer", "T T  X X  T T"),
                ("require", "T T  X X  T T"),
                ("verify-ca", "T T  X X  F F"),
                ("verify-full", "N T  X X  F F"),
            ],
        },
        &psql,
        &home,
        tmp.path(),
    );
}
