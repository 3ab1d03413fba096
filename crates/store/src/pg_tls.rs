//! TLS and passwords for the PostgreSQL history, as libpq means them.
//!
//! `sslmode` in the URL (`?sslmode=…`): `disable` (never TLS), `prefer` (the default: TLS when
//! the server offers it, the certificate not checked), `require` (TLS or nothing; the
//! certificate is checked against the root certificates when a root file exists, as libpq
//! does), `verify-ca` (TLS, the certificate chain checked against the root certificates),
//! `verify-full` (that, and the certificate names the host connected to). The root
//! certificates: `sslrootcert=FILE` (PEM), else `~/.postgresql/root.crt`. The client library
//! knows only the first three modes and no `sslrootcert`, so both are taken out of the URL here.
//!
//! The password, when the URL has none: `--db-password-file FILE` (its first line), else the
//! password file of libpq (`PGPASSFILE`, else `~/.pgpass`; `host:port:database:user:password`
//! lines with `*` wildcards, ignored when others may read it, as libpq does).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, Error as TlsError, SignatureScheme};

/// libpq's `sslmode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    fn parse(s: &str) -> Result<SslMode, String> {
        Ok(match s {
            "disable" => SslMode::Disable,
            // libpq's `allow` tries without TLS first: with no way to fall back the other way
            // here, it is taken as `prefer`, which is never less safe.
            "allow" | "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            other => {
                return Err(format!(
                "sslmode={other}: expected disable, allow, prefer, require, verify-ca or verify-full"
            ))
            }
        })
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

/// The root certificates' file: the one named, else libpq's default when it exists.
fn root_file(tls: &Tls) -> Option<PathBuf> {
    tls.root_cert.clone().or_else(|| {
        home()
            .map(|h| h.join(".postgresql/root.crt"))
            .filter(|p| p.is_file())
    })
}

fn roots(file: &Path) -> Result<rustls::RootCertStore, String> {
    let mut store = rustls::RootCertStore::empty();
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(file)
        .map_err(|e| format!("sslrootcert {}: {e}", file.display()))?
        .collect::<Result<_, _>>()
        .map_err(|e| format!("sslrootcert {}: {e}", file.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "sslrootcert {}: no PEM certificate in it",
            file.display()
        ));
    }
    for c in certs {
        store
            .add(c)
            .map_err(|e| format!("sslrootcert {}: {e}", file.display()))?;
    }
    Ok(store)
}

/// The connector for `tls`, and the mode to give the client library (`None`: no TLS).
pub fn connector(
    tls: &Tls,
) -> Result<
    Option<(
        tokio_postgres_rustls::MakeRustlsConnect,
        postgres::config::SslMode,
    )>,
    String,
> {
    use postgres::config::SslMode as Lib;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?;
    let root = root_file(tls);
    let verifier: Arc<dyn ServerCertVerifier> = match (tls.mode, &root) {
        (SslMode::Disable, _) => return Ok(None),
        (SslMode::VerifyCa | SslMode::VerifyFull, None) => {
            return Err(format!(
            "sslmode={}: needs the root certificates (sslrootcert=FILE, or ~/.postgresql/root.crt)",
            if tls.mode == SslMode::VerifyCa {
                "verify-ca"
            } else {
                "verify-full"
            }
        ))
        }
        // libpq: `require` with a root file checks the chain as verify-ca does.
        (SslMode::Require | SslMode::VerifyCa, Some(f)) => {
            Arc::new(ChainOnly(webpki(f, &provider)?))
        }
        (SslMode::VerifyFull, Some(f)) => webpki(f, &provider)?,
        (SslMode::Prefer | SslMode::Require, _) => Arc::new(Unchecked(provider.clone())),
    };
    let config = builder
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    let lib = if tls.mode == SslMode::Prefer {
        Lib::Prefer
    } else {
        Lib::Require
    };
    Ok(Some((
        tokio_postgres_rustls::MakeRustlsConnect::new(config),
        lib,
    )))
}

fn webpki(
    file: &Path,
    provider: &Arc<rustls::crypto::CryptoProvider>,
) -> Result<Arc<WebPkiServerVerifier>, String> {
    WebPkiServerVerifier::builder_with_provider(Arc::new(roots(file)?), provider.clone())
        .build()
        .map_err(|e| format!("sslrootcert {}: {e}", file.display()))
}

/// `verify-ca`: the chain checked, the name not (libpq's meaning).
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, TlsError> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
        {
            Err(TlsError::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }
    fn verify_tls12_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, TlsError> {
        self.0.verify_tls12_signature(m, c, d)
    }
    fn verify_tls13_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, TlsError> {
        self.0.verify_tls13_signature(m, c, d)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// `prefer` and `require` without root certificates: encrypted, the peer not authenticated
/// (libpq's meaning; the handshake's signatures are still checked).
#[derive(Debug)]
struct Unchecked(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, TlsError> {
        Ok(ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, TlsError> {
        rustls::crypto::verify_tls12_signature(m, c, d, &self.0.signature_verification_algorithms)
    }
    fn verify_tls13_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, TlsError> {
        rustls::crypto::verify_tls13_signature(m, c, d, &self.0.signature_verification_algorithms)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
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
        let e = connector(&Tls {
            mode: SslMode::VerifyCa,
            root_cert: Some(PathBuf::from("/nonexistent/ca.pem")),
        })
        .err()
        .unwrap();
        assert!(e.contains("/nonexistent/ca.pem"), "{e}");
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
