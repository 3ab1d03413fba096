//! TLS and passwords for the PostgreSQL history, as libpq means them.
//!
//! `sslmode` in the URL (`?sslmode=…`), libpq's meaning (PostgreSQL's "SSL Support"):
//! `disable` (never TLS), `allow` (without TLS first; with TLS when the server refuses that),
//! `prefer` (the default: TLS when the server offers it, else without; also without when the
//! TLS connection fails), `require` (TLS or nothing), `verify-ca` (TLS, the certificate chain
//! checked against the root certificates), `verify-full` (that, and the certificate names the
//! host connected to). The root certificates: `sslrootcert=FILE` (PEM), else
//! `~/.postgresql/root.crt`; when that file exists, every mode that uses TLS checks the chain
//! against it, as libpq does (a server certificate that is itself in the file, its own
//! issuer, is a chain of one). The checks: `pg_verify.rs`. The client library knows only
//! `disable`, `prefer` and `require` and no `sslrootcert`, so both are taken out of the URL
//! here and the fallbacks made here.
//!
//! The password, when the URL has none: `--db-password-file FILE` (its first line), else the
//! password file of libpq (`PGPASSFILE`, else `~/.pgpass`; `host:port:database:user:password`
//! lines with `*` wildcards, ignored when others may read it, as libpq does).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use postgres::{Client, Config, NoTls};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;

use crate::pg_verify::{Roots, Seen, Verifier};

/// libpq's `sslmode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Allow,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    const ALL: [SslMode; 6] = [
        SslMode::Disable,
        SslMode::Allow,
        SslMode::Prefer,
        SslMode::Require,
        SslMode::VerifyCa,
        SslMode::VerifyFull,
    ];

    /// Its name in a URL.
    pub fn name(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Allow => "allow",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }

    fn parse(s: &str) -> Result<SslMode, String> {
        Self::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                format!(
                "sslmode={s}: expected disable, allow, prefer, require, verify-ca or verify-full"
            )
            })
    }

    fn verifies(self) -> bool {
        matches!(self, SslMode::VerifyCa | SslMode::VerifyFull)
    }
}

/// What the URL asks of TLS, and the URL without those parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Tls {
    pub mode: SslMode,
    pub root_cert: Option<PathBuf>,
}

/// Take `sslmode` and `sslrootcert` out of `url` (a `postgresql://` URL; key=value strings
/// are left to the client library, which knows their `sslmode` up to `require`).
pub fn split(url: &str) -> Result<(String, Tls), String> {
    let mut tls = Tls {
        mode: SslMode::Prefer,
        root_cert: None,
    };
    let Some((base, query)) = url.split_once('?') else {
        return Ok((url.to_string(), tls));
    };
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let v = percent_decode(v);
        match k {
            "sslmode" => tls.mode = SslMode::parse(&v)?,
            "sslrootcert" => tls.root_cert = Some(PathBuf::from(v)),
            _ => kept.push(pair),
        }
    }
    let url = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok((url, tls))
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// The root certificates' file as libpq finds it: the one named, else
/// `~/.postgresql/root.crt`; None when it does not exist (an error for `verify-*`).
fn root_file(tls: &Tls) -> Result<Option<PathBuf>, String> {
    let file = tls
        .root_cert
        .clone()
        .or_else(|| home().map(|h| h.join(".postgresql/root.crt")));
    match file {
        Some(f) if f.exists() => Ok(Some(f)),
        f if tls.mode.verifies() => Err(format!(
            "sslmode={}: needs the root certificates, and {} (sslrootcert=FILE, else \
             ~/.postgresql/root.crt)",
            tls.mode.name(),
            match f {
                Some(f) => format!("there is no file {}", f.display()),
                None => "no file is named".to_string(),
            }
        )),
        _ => Ok(None),
    }
}

fn roots(file: &Path) -> Result<Roots, String> {
    let bad = |e: &dyn std::fmt::Display| format!("sslrootcert {}: {e}", file.display());
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(file)
        .map_err(|e| bad(&e))?
        .collect::<Result<_, _>>()
        .map_err(|e| bad(&e))?;
    if certs.is_empty() {
        return Err(bad(&"no PEM certificate in it"));
    }
    // (A certificate rustls cannot take as a trust anchor can still be the server's own, as
    // OpenSSL would take it: kept in `certs`.)
    let mut store = rustls::RootCertStore::empty();
    store.add_parsable_certificates(certs.iter().cloned());
    Ok(Roots {
        file: file.to_path_buf(),
        store: Arc::new(store),
        certs,
    })
}

/// Why connecting failed: the client library's error, or a reason in words (a certificate
/// refused, no TLS offered, both tries of a fallback).
#[derive(Debug)]
pub(crate) enum Failed {
    Client(postgres::Error),
    Said(String),
}

/// Connect as libpq would in `tls.mode` (`config` without `sslmode`).
pub(crate) fn connect(config: &Config, tls: &Tls) -> Result<Client, Failed> {
    let plain = || {
        config
            .clone()
            .ssl_mode(postgres::config::SslMode::Disable)
            .connect(NoTls)
    };
    // (The root file is read only when TLS is tried: `allow` may never need it.)
    let with_tls = |lib| {
        let roots = match root_file(tls).map_err(Failed::Said)? {
            Some(f) => Some(Arc::new(roots(&f).map_err(Failed::Said)?)),
            None => None,
        };
        attempt(config, tls.mode, roots, lib)
    };
    match tls.mode {
        SslMode::Disable => plain().map_err(Failed::Client),
        // Without TLS first; with TLS when the server answered with an error.
        SslMode::Allow => match plain() {
            Err(e) if e.as_db_error().is_some() => {
                let (r, seen) = with_tls(postgres::config::SslMode::Prefer)?;
                r.map_err(|t| {
                    Failed::Said(format!(
                        "without TLS: {}; with TLS: {}",
                        full(&e),
                        said(&t, &seen)
                    ))
                })
            }
            r => r.map_err(Failed::Client),
        },
        // TLS when offered; without when the server does not offer it (the client library
        // does that) or when the TLS connection failed after the server offered it (in the
        // handshake, or the server refused it over TLS).
        SslMode::Prefer => match with_tls(postgres::config::SslMode::Prefer)? {
            (Err(t), seen) if seen.handshake || tls_failed(&t) => plain().map_err(|e| {
                Failed::Said(format!(
                    "with TLS: {}; without TLS: {}",
                    said(&t, &seen),
                    full(&e)
                ))
            }),
            (r, _) => r.map_err(Failed::Client),
        },
        SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => {
            match with_tls(postgres::config::SslMode::Require)? {
                (Ok(c), _) => Ok(c),
                (Err(t), seen) if seen.refused.is_some() => Err(Failed::Said(said(&t, &seen))),
                (Err(t), _) if not_offered(&t) => Err(Failed::Said(format!(
                    "the server does not offer TLS (sslmode={})",
                    tls.mode.name()
                ))),
                (Err(t), _) => Err(Failed::Client(t)),
            }
        }
    }
}

/// One connection with TLS (`lib`: the client library's mode, `prefer` or `require`).
fn attempt(
    config: &Config,
    mode: SslMode,
    roots: Option<Arc<Roots>>,
    lib: postgres::config::SslMode,
) -> Result<(Result<Client, postgres::Error>, Seen), Failed> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let seen = Arc::new(Mutex::new(Seen::default()));
    let verifier = Arc::new(Verifier {
        roots,
        check_name: mode == SslMode::VerifyFull,
        provider: provider.clone(),
        seen: seen.clone(),
    });
    let tls_config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Failed::Said(format!("TLS: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    let r = config
        .clone()
        .ssl_mode(lib)
        .connect(tokio_postgres_rustls::MakeRustlsConnect::new(tls_config));
    let seen = std::mem::take(&mut *seen.lock().unwrap_or_else(|p| p.into_inner()));
    Ok((r, seen))
}

/// A TLS try's failure in words: the certificate check's reason when it refused.
fn said(e: &postgres::Error, seen: &Seen) -> String {
    seen.refused.clone().unwrap_or_else(|| full(e))
}

/// The error with its causes (the client library's own text is only its kind).
fn full(e: &postgres::Error) -> String {
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// The TLS handshake failed (the client library's words for its kind of error).
fn tls_failed(e: &postgres::Error) -> bool {
    e.to_string() == "error performing TLS handshake"
}

/// The server answered the TLS request with "no" (the client library's words for it; the
/// no-TLS server test shows they still are).
fn not_offered(e: &postgres::Error) -> bool {
    full(e).contains("server does not support TLS")
}

static PASSWORD_FILE: OnceLock<PathBuf> = OnceLock::new();

/// `--db-password-file FILE`: the password of every PostgreSQL connection whose URL has none.
pub fn set_password_file(file: PathBuf) {
    let _ = PASSWORD_FILE.set(file);
}

/// The password for a connection without one in its URL: the password file given, else the
/// matching line of libpq's password file. Err: a file given but unreadable.
pub fn password(host: &str, port: u16, db: &str, user: &str) -> Result<Option<String>, String> {
    if let Some(f) = PASSWORD_FILE.get() {
        let text = std::fs::read_to_string(f)
            .map_err(|e| format!("--db-password-file {}: {e}", f.display()))?;
        let line = text.lines().next().unwrap_or("").trim_end_matches('\r');
        if line.is_empty() {
            return Err(format!("--db-password-file {}: empty", f.display()));
        }
        return Ok(Some(line.to_string()));
    }
    let file = std::env::var_os("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| home().map(|h| h.join(".pgpass")));
    let Some(file) = file else { return Ok(None) };
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(&file) {
        // libpq ignores a password file others may read or write.
        Ok(md) if md.is_file() && md.mode() & 0o077 == 0 => {}
        _ => return Ok(None),
    }
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    Ok(pgpass_lookup(&text, host, port, db, user))
}

/// The password of the first `host:port:database:user:password` line matching (`*` matches
/// anything; `\:` and `\\` are a colon and a backslash).
pub fn pgpass_lookup(text: &str, host: &str, port: u16, db: &str, user: &str) -> Option<String> {
    let port = port.to_string();
    for line in text.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut fields = Vec::new();
        let mut cur = String::new();
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => cur.extend(chars.next()),
                ':' if fields.len() < 4 => fields.push(std::mem::take(&mut cur)),
                c => cur.push(c),
            }
        }
        fields.push(cur);
        if fields.len() != 5 {
            continue;
        }
        let host_ok = fields[0] == "*"
            || fields[0] == host
            || (fields[0] == "localhost" && (host.starts_with('/') || host == "127.0.0.1"));
        let ok = |f: &str, v: &str| f == "*" || f == v;
        if host_ok && ok(&fields[1], &port) && ok(&fields[2], db) && ok(&fields[3], user) {
            return Some(fields[4].clone());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sslmode_and_sslrootcert_leave_the_url() {
        let (u, t) = split(
            "postgresql://u@h/db?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&connect_timeout=3",
        )
        .unwrap();
        assert_eq!(u, "postgresql://u@h/db?connect_timeout=3");
        assert_eq!(t.mode, SslMode::VerifyFull);
        assert_eq!(t.root_cert.as_deref(), Some(Path::new("/etc/ca.pem")));
        let (u, t) = split("postgresql://u@h/db").unwrap();
        assert_eq!(
            (u.as_str(), t.mode),
            ("postgresql://u@h/db", SslMode::Prefer)
        );
        let (u, _) = split("postgresql://u@h/db?sslmode=disable").unwrap();
        assert_eq!(u, "postgresql://u@h/db");
        let e = split("postgresql://h/db?sslmode=maybe").unwrap_err();
        assert!(
            e.contains("sslmode=maybe") && e.contains("verify-full"),
            "{e}"
        );
        let e = root_file(&Tls {
            mode: SslMode::VerifyCa,
            root_cert: Some(PathBuf::from("/nonexistent/ca.pem")),
        })
        .unwrap_err();
        assert!(e.contains("/nonexistent/ca.pem"), "{e}");
        // libpq: a root file that is not there means no check in the other modes.
        let none = root_file(&Tls {
            mode: SslMode::Require,
            root_cert: Some(PathBuf::from("/nonexistent/ca.pem")),
        });
        assert_eq!(none, Ok(None));
        for m in SslMode::ALL {
            assert_eq!(SslMode::parse(m.name()), Ok(m));
        }
    }

    use proptest::prelude::*;
    use truebench_fixtures::fuzz::{config, mutated_text};

    fn urls() -> Vec<Vec<u8>> {
        truebench_fixtures::fuzz::seeds_of(&[
            "postgresql://bench:s3cret@dbhost/fleet",
            "postgresql://bench:s3cret@10.0.0.5:5433/fleet?sslmode=verify-full&sslrootcert=/etc/ca.pem",
            "postgres://bench@[::1]:5432/fleet?connect_timeout=3&application_name=x",
            "postgresql:///fleet?host=/run/postgresql&user=bench&password=s3cret",
            "host=dbhost user=bench password=s3cret dbname=fleet sslmode=require",
    ])
    }

    proptest! {
        #![proptest_config(config())]

        /// `--db` URLs as users write them, broken and hostile: read or refused with a reason,
        /// never a panic; a password the client would use never reaches a message.
        #[test]
        fn a_db_url_of_any_shape(u in mutated_text(urls())) {
            let shown = crate::postgres::redact(&u);
            if let Ok((rest, _)) = split(&u) {
                if let Ok(c) = rest.parse::<postgres::Config>() {
                    if let Some(p) = c.get_password().filter(|p| p.len() >= 4) {
                        let p = String::from_utf8_lossy(p);
                        // (Text that is also elsewhere in the URL, a database of that name,
                        // is shown there.)
                        if u.matches(p.as_ref()).count() == 1 {
                            prop_assert!(!shown.contains(p.as_ref()), "{u:?} → {shown:?}");
                        }
                    }
                }
            }
            if u.contains(":s3cret@") {
                prop_assert!(!shown.contains(":s3cret@"), "{u:?} → {shown:?}");
            }
            let _ = pgpass_lookup(&u, "h", 5432, "d", "u");
        }
    }

    #[test]
    fn pgpass_lines_match_as_libpq_matches_them() {
        let text = "# comment\nother:5432:*:bench:no\n*:5432:fleet:bench:s\\:ecret\n*:*:*:*:any\n";
        assert_eq!(
            pgpass_lookup(text, "db", 5432, "fleet", "bench").as_deref(),
            Some("s:ecret")
        );
        assert_eq!(
            pgpass_lookup(text, "db", 5433, "fleet", "bench").as_deref(),
            Some("any")
        );
        assert_eq!(pgpass_lookup("h:1:d:u", "h", 1, "d", "u"), None);
    }
}
