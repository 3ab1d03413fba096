//! The server's certificate checked as libpq checks it (libpq with OpenSSL, PostgreSQL's
//! "SSL Support" chapter and `fe-secure-openssl.c`):
//!
//! - With a root file (`sslrootcert`, else `~/.postgresql/root.crt` when it exists), in every
//!   mode that uses TLS (`allow`, `prefer`, `require`, `verify-ca`, `verify-full`), the chain
//!   must lead to one of its certificates. A certificate that is its own issuer and is itself
//!   in the root file is a chain of one (OpenSSL trusts it as the root it is; rustls' path
//!   builder would refuse it as "a CA used as an end entity"): then its validity dates and
//!   the uses it allows a TLS server are checked here.
//! - `verify-full` also checks the host name as libpq does: the subjectAltName entries of the
//!   host's kind (DNS name or IP address) decide; without one of that kind, the subject's
//!   common name; names compared without regard to case, `*.` matching one leading label.
//! - Without a root file (not `verify-*`), the certificate is not checked.
//!
//! The handshake's signatures are always checked (rustls' `WebPkiSupportedAlgorithms`). Why a
//! certificate was refused is said in words and kept for the caller ([`Seen`]), since the
//! client library reports only that the handshake failed.

use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, DigitallySignedStruct, Error as TlsError, OtherError, RootCertStore,
    SignatureScheme,
};

use crate::pg_cert::{self, San};

/// What a connection attempt's handshake saw.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// The server offered TLS and sent its certificate.
    pub handshake: bool,
    /// Why its certificate was refused.
    pub refused: Option<String>,
}

/// The root file's certificates, as rustls' trust anchors and as they are.
#[derive(Debug)]
pub(crate) struct Roots {
    pub file: PathBuf,
    pub store: Arc<RootCertStore>,
    pub certs: Vec<CertificateDer<'static>>,
}

#[derive(Debug)]
pub(crate) struct Verifier {
    /// None: not checked.
    pub roots: Option<Arc<Roots>>,
    /// `verify-full`: the host name too.
    pub check_name: bool,
    pub provider: Arc<CryptoProvider>,
    pub seen: Arc<Mutex<Seen>>,
}

/// A refusal in words, as rustls carries it.
#[derive(Debug)]
struct Refusal(String);

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refusal {}

impl Verifier {
    fn check(
        &self,
        roots: &Roots,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        now: UnixTime,
    ) -> Result<(), String> {
        let file = roots.file.display();
        let fields = pg_cert::read(end_entity)
            .map_err(|e| format!("the server's certificate cannot be read ({e})"))?;
        let own_root = fields.subject == fields.issuer
            && roots
                .certs
                .iter()
                .any(|c| c.as_ref() == end_entity.as_ref());
        if own_root {
            let now = now.as_secs() as i64;
            if now < fields.not_before {
                return Err(format!(
                    "the server's certificate (its own root in {file}) is not valid before {}",
                    utc(fields.not_before)
                ));
            }
            if now > fields.not_after {
                return Err(format!(
                    "the server's certificate (its own root in {file}) expired at {}",
                    utc(fields.not_after)
                ));
            }
            if fields.key_usage_tls == Some(false) || fields.eku_server_auth == Some(false) {
                return Err(format!(
                    "the server's certificate (its own root in {file}) does not allow a TLS \
                     server's use (its key usage)"
                ));
            }
        } else {
            let parsed = rustls::server::ParsedCertificate::try_from(end_entity)
                .map_err(|e| format!("the server's certificate cannot be read ({e})"))?;
            rustls::client::verify_server_cert_signed_by_trust_anchor(
                &parsed,
                &roots.store,
                intermediates,
                now,
                self.provider.signature_verification_algorithms.all,
            )
            .map_err(|e| {
                if fields.subject == fields.issuer {
                    // (rustls would call it "a CA used as an end entity", or its issuer
                    // unknown: the same fact.)
                    format!(
                        "the server's certificate is self-signed and not itself in the \
                         sslrootcert file {file}"
                    )
                } else {
                    chain_refusal(&e, &file.to_string())
                }
            })?;
        }
        if self.check_name {
            name_matches(&fields, server_name)?;
        }
        Ok(())
    }
}

/// A chain check's failure in words.
fn chain_refusal(e: &TlsError, file: &str) -> String {
    use CertificateError as C;
    let TlsError::InvalidCertificate(c) = e else {
        return format!("the server's certificate was refused ({e})");
    };
    match c {
        C::UnknownIssuer => {
            format!("the server's certificate is not signed by the sslrootcert authority {file}")
        }
        C::BadSignature => format!(
            "the server's certificate chain has a signature that does not verify (against {file})"
        ),
        C::Expired | C::ExpiredContext { .. } => {
            format!("a certificate of the server's chain has expired ({c})")
        }
        C::NotValidYet | C::NotValidYetContext { .. } => {
            format!("a certificate of the server's chain is not valid yet ({c})")
        }
        C::InvalidPurpose | C::InvalidPurposeContext { .. } => {
            format!("the server's certificate is not for a TLS server ({c})")
        }
        other => format!("the server's certificate was refused ({other})"),
    }
}

fn utc(unix_s: i64) -> String {
    truebench_model::rfc3339_utc(unix_s.saturating_mul(1000))
}

/// libpq's host-name rule (`verify-full`).
pub(crate) fn name_matches(
    f: &pg_cert::CertFields<'_>,
    host: &ServerName<'_>,
) -> Result<(), String> {
    let host_text = host.to_str().into_owned();
    let host_ip: Option<IpAddr> = match host {
        ServerName::IpAddress(ip) => Some((*ip).into()),
        _ => host_text.parse().ok(),
    };
    let ip_bytes = host_ip.map(|ip| match ip {
        IpAddr::V4(a) => a.octets().to_vec(),
        IpAddr::V6(a) => a.octets().to_vec(),
    });
    let mut names = Vec::new();
    let mut check_cn = true;
    for san in &f.sans {
        match san {
            San::Dns(d) => {
                check_cn &= host_ip.is_some();
                let d = String::from_utf8_lossy(d).into_owned();
                if dns_matches(&d, &host_text) {
                    return Ok(());
                }
                names.push(d);
            }
            San::Ip(a) => {
                check_cn &= host_ip.is_none();
                if ip_bytes.as_deref() == Some(&a[..]) {
                    return Ok(());
                }
                names.push(show_ip(a));
            }
        }
    }
    if check_cn {
        if let Some(cn) = &f.common_name {
            if cn.contains(&0) {
                return Err("the server's certificate has a NUL in its common name".into());
            }
            let cn = String::from_utf8_lossy(cn).into_owned();
            if dns_matches(&cn, &host_text) {
                return Ok(());
            }
            names.push(cn);
        }
    }
    names.dedup();
    let made_out = match names.as_slice() {
        [] => "to no name".to_string(),
        [one] => format!("to {one}"),
        [all @ .., last] => format!("to {} and {last}", all.join(", ")),
    };
    Err(format!(
        "the server's certificate is made out {made_out}, not {host_text} \
         (sslmode=verify-full checks the host name)"
    ))
}

/// Equal without regard to case, or `*.rest` matching one label followed by `.rest`.
fn dns_matches(pattern: &str, host: &str) -> bool {
    if pattern.eq_ignore_ascii_case(host) {
        return true;
    }
    let Some(rest) = pattern.strip_prefix('*') else {
        return false;
    };
    rest.starts_with('.')
        && host.len() > rest.len()
        && host.is_char_boundary(host.len() - rest.len())
        && host[host.len() - rest.len()..].eq_ignore_ascii_case(rest)
        && !host[..host.len() - rest.len()].contains('.')
}

fn show_ip(a: &[u8]) -> String {
    match a.len() {
        4 => IpAddr::from(<[u8; 4]>::try_from(a).unwrap_or_default()).to_string(),
        16 => IpAddr::from(<[u8; 16]>::try_from(a).unwrap_or_default()).to_string(),
        n => format!("an IP address of {n} bytes"),
    }
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        _ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, TlsError> {
        let result = match &self.roots {
            None => Ok(()),
            Some(roots) => self.check(roots, end_entity, intermediates, server_name, now),
        };
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        seen.handshake = true;
        match result {
            Ok(()) => Ok(ServerCertVerified::assertion()),
            Err(words) => {
                seen.refused = Some(words.clone());
                Err(TlsError::InvalidCertificate(CertificateError::Other(
                    OtherError(Arc::new(Refusal(words))),
                )))
            }
        }
    }

    fn verify_tls12_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, TlsError> {
        rustls::crypto::verify_tls12_signature(
            m,
            c,
            d,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, TlsError> {
        rustls::crypto::verify_tls13_signature(
            m,
            c,
            d,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(sans: Vec<San>, cn: Option<&str>) -> pg_cert::CertFields<'static> {
        pg_cert::CertFields {
            subject: b"",
            issuer: b"",
            not_before: 0,
            not_after: 0,
            sans,
            common_name: cn.map(|c| c.as_bytes().to_vec()),
            key_usage_tls: None,
            eku_server_auth: None,
        }
    }

    fn host(h: &str) -> ServerName<'static> {
        ServerName::try_from(h.to_string()).unwrap()
    }

    /// A certificate made by rcgen: its DER and its issuer (for signing others).
    fn made(
        p: rcgen::CertificateParams,
        by: Option<&rcgen::Issuer<'static, rcgen::KeyPair>>,
    ) -> (
        CertificateDer<'static>,
        rcgen::Issuer<'static, rcgen::KeyPair>,
    ) {
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = match by {
            Some(i) => p.signed_by(&key, i).unwrap(),
            None => p.self_signed(&key).unwrap(),
        };
        (cert.der().clone(), rcgen::Issuer::new(p, key))
    }

    fn params(names: &[&str], ca: bool) -> rcgen::CertificateParams {
        params_cn(names, ca, "t")
    }

    fn params_cn(names: &[&str], ca: bool, cn: &str) -> rcgen::CertificateParams {
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let mut p = rcgen::CertificateParams::new(names).unwrap();
        p.distinguished_name = rcgen::DistinguishedName::new();
        p.distinguished_name.push(rcgen::DnType::CommonName, cn);
        if ca {
            p.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        }
        p
    }

    fn verifier(roots: &[&CertificateDer<'static>], full: bool) -> Verifier {
        let mut store = RootCertStore::empty();
        store.add_parsable_certificates(roots.iter().map(|c| (*c).clone()));
        Verifier {
            roots: Some(Arc::new(Roots {
                file: PathBuf::from("/etc/root.pem"),
                store: Arc::new(store),
                certs: roots.iter().map(|c| (*c).clone()).collect(),
            })),
            check_name: full,
            provider: Arc::new(rustls::crypto::ring::default_provider()),
            seen: Arc::default(),
        }
    }

    fn verdict(
        v: &Verifier,
        ee: &CertificateDer<'_>,
        chain: &[CertificateDer<'_>],
        host: &str,
    ) -> Result<(), String> {
        let r = v.verify_server_cert(ee, chain, &super::tests::host(host), &[], UnixTime::now());
        let seen = v.seen.lock().unwrap();
        assert!(seen.handshake);
        match r {
            Ok(_) => Ok(()),
            Err(_) => Err(seen.refused.clone().expect("a refusal says why")),
        }
    }

    #[test]
    fn a_self_signed_certificate_is_its_own_root_with_its_dates_and_uses_checked() {
        // CA:TRUE, as `openssl req -x509` makes it: rustls alone refuses it as an end entity.
        let (own, _) = made(params(&["127.0.0.1"], true), None);
        assert_eq!(
            verdict(&verifier(&[&own], true), &own, &[], "127.0.0.1"),
            Ok(())
        );
        let e = verdict(&verifier(&[&own], true), &own, &[], "localhost").unwrap_err();
        assert!(
            e.contains("made out to 127.0.0.1 and t, not localhost"),
            "{e}"
        );
        // verify-ca: the name is not looked at.
        assert_eq!(
            verdict(&verifier(&[&own], false), &own, &[], "localhost"),
            Ok(())
        );
        // Another root file: refused, and why.
        let (other, _) = made(params(&[], true), None);
        let e = verdict(&verifier(&[&other], false), &own, &[], "127.0.0.1").unwrap_err();
        assert_eq!(
            e,
            "the server's certificate is self-signed and not itself in the sslrootcert file \
             /etc/root.pem"
        );

        let mut p = params(&["127.0.0.1"], true);
        p.not_before = rcgen::date_time_ymd(2001, 1, 1);
        p.not_after = rcgen::date_time_ymd(2002, 1, 1);
        let (old, _) = made(p, None);
        let e = verdict(&verifier(&[&old], false), &old, &[], "127.0.0.1").unwrap_err();
        assert!(e.contains("expired at 2002-01-01T00:00:00.000Z"), "{e}");
        let mut p = params(&["127.0.0.1"], true);
        p.not_before = rcgen::date_time_ymd(2090, 1, 1);
        p.not_after = rcgen::date_time_ymd(2091, 1, 1);
        let (early, _) = made(p, None);
        let e = verdict(&verifier(&[&early], false), &early, &[], "127.0.0.1").unwrap_err();
        assert!(e.contains("is not valid before 2090-01-01"), "{e}");
        // An authority's certificate for signing only is no TLS server's (OpenSSL's purpose
        // check).
        let mut p = params(&["127.0.0.1"], true);
        p.key_usages = vec![rcgen::KeyUsagePurpose::KeyCertSign];
        let (signer, _) = made(p, None);
        let e = verdict(&verifier(&[&signer], false), &signer, &[], "127.0.0.1").unwrap_err();
        assert!(e.contains("does not allow a TLS server's use"), "{e}");
    }

    #[test]
    fn a_chain_is_checked_by_rustls_and_refused_in_words() {
        let (root, root_issuer) = made(params_cn(&[], true, "root"), None);
        let (mid, mid_issuer) = made(params_cn(&[], true, "mid"), Some(&root_issuer));
        let (leaf, _) = made(params_cn(&["db.example"], false, "db"), Some(&mid_issuer));
        let chain = [mid.clone()];
        assert_eq!(
            verdict(&verifier(&[&root], true), &leaf, &chain, "DB.example"),
            Ok(())
        );
        let e = verdict(&verifier(&[&root], true), &leaf, &chain, "other.example").unwrap_err();
        assert!(
            e.contains("made out to db.example, not other.example"),
            "{e}"
        );
        assert_eq!(
            verdict(&verifier(&[&root], false), &leaf, &chain, "other.example"),
            Ok(())
        );
        // Without the intermediate, or against another root: not signed by it.
        let e = verdict(&verifier(&[&root], false), &leaf, &[], "db.example").unwrap_err();
        assert_eq!(
            e,
            "the server's certificate is not signed by the sslrootcert authority /etc/root.pem"
        );
        let (other, _) = made(params(&[], true), None);
        let e = verdict(&verifier(&[&other], false), &leaf, &chain, "db.example").unwrap_err();
        assert!(e.contains("not signed by the sslrootcert authority"), "{e}");
        // A leaf that is in the root file but not its own issuer is no root (OpenSSL without
        // partial chains): its chain is still needed.
        let e = verdict(&verifier(&[&leaf], false), &leaf, &[], "db.example").unwrap_err();
        assert!(e.contains("not signed by"), "{e}");
        // An expired leaf.
        let mut p = params_cn(&["db.example"], false, "db");
        p.not_before = rcgen::date_time_ymd(2001, 1, 1);
        p.not_after = rcgen::date_time_ymd(2002, 1, 1);
        let (old, _) = made(p, Some(&mid_issuer));
        let e = verdict(&verifier(&[&root], false), &old, &chain, "db.example").unwrap_err();
        assert!(e.contains("has expired"), "{e}");
    }

    #[test]
    fn host_names_match_as_libpq_matches_them() {
        let dns = |s: &str| San::Dns(s.as_bytes().to_vec());
        let ip = San::Ip(vec![127, 0, 0, 1]);
        let ok = |f: &pg_cert::CertFields<'_>, h: &str| name_matches(f, &host(h)).is_ok();
        // An IP address in the certificate: the host's address, never a name for it.
        let f = fields(vec![ip.clone()], Some("localhost"));
        assert!(ok(&f, "127.0.0.1"));
        // (A DNS host with no DNS entry falls back to the common name.)
        assert!(ok(&f, "localhost"));
        let f = fields(vec![ip.clone()], None);
        let e = name_matches(&f, &host("localhost")).unwrap_err();
        assert_eq!(
            e,
            "the server's certificate is made out to 127.0.0.1, not localhost \
             (sslmode=verify-full checks the host name)"
        );
        // A DNS entry: the common name is not looked at for a DNS host; an IP host still
        // falls back to it when there is no IP entry (libpq's documented departure).
        let f = fields(vec![dns("db.example")], Some("127.0.0.1"));
        assert!(ok(&f, "DB.Example"));
        assert!(!ok(&f, "other.example"));
        assert!(ok(&f, "127.0.0.1"));
        let f = fields(vec![dns("db.example"), ip], Some("127.0.0.2"));
        assert!(!ok(&f, "127.0.0.2"));
        // Only the common name (PostgreSQL's own recipe for a self-signed certificate).
        let f = fields(vec![], Some("dbhost.example"));
        assert!(ok(&f, "dbhost.example"));
        // Wildcards: one leading label only.
        let f = fields(vec![dns("*.example")], None);
        assert!(ok(&f, "db.example"));
        assert!(!ok(&f, "a.db.example"));
        assert!(!ok(&f, "example"));
        let e = name_matches(&fields(vec![], None), &host("db")).unwrap_err();
        assert!(e.contains("made out to no name, not db"), "{e}");
    }
}
