//! The few fields of an X.509 certificate (RFC 5280) that libpq's checks read beyond what
//! rustls checks: subject and issuer (is it its own issuer?), validity, the names it is made
//! out to (subjectAltName's dNSName and iPAddress entries, the subject's common name) and the
//! uses it allows (keyUsage, extendedKeyUsage). A small DER reader: only what is needed, every
//! length checked, anything malformed an error (never a panic).

/// One name a certificate is made out to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum San {
    Dns(Vec<u8>),
    Ip(Vec<u8>),
}

/// What libpq's checks read from a server's certificate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CertFields<'a> {
    /// The DER of the subject and issuer names (equal: the certificate is its own issuer).
    pub subject: &'a [u8],
    pub issuer: &'a [u8],
    /// Unix seconds.
    pub not_before: i64,
    pub not_after: i64,
    /// subjectAltName's DNS and IP entries, in order.
    pub sans: Vec<San>,
    /// The subject's first common name (its bytes: any string type but BMP, which is decoded).
    pub common_name: Option<Vec<u8>>,
    /// keyUsage, if present: does it allow a TLS server's key (digital signature, key
    /// encipherment or key agreement)?
    pub key_usage_tls: Option<bool>,
    /// extendedKeyUsage, if present: does it name serverAuth?
    pub eku_server_auth: Option<bool>,
}

const SEQUENCE: u8 = 0x30;
const OID: u8 = 0x06;
const OID_CN: &[u8] = &[0x55, 0x04, 0x03];
const OID_SAN: &[u8] = &[0x55, 0x1d, 0x11];
const OID_KEY_USAGE: &[u8] = &[0x55, 0x1d, 0x0f];
const OID_EKU: &[u8] = &[0x55, 0x1d, 0x25];
const OID_SERVER_AUTH: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01];

/// A run of DER elements.
struct Der<'a>(&'a [u8]);

impl<'a> Der<'a> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The next element's tag and contents.
    fn next(&mut self) -> Result<(u8, &'a [u8]), String> {
        let b = self.0;
        let (&tag, rest) = b.split_first().ok_or("DER ends early")?;
        if tag & 0x1f == 0x1f {
            return Err(format!("DER tag {tag:#04x} in the long form"));
        }
        let (&first, rest) = rest.split_first().ok_or("DER length missing")?;
        let (len, rest) = if first < 0x80 {
            (first as usize, rest)
        } else {
            let n = (first & 0x7f) as usize;
            if n == 0 || n > 4 || rest.len() < n {
                return Err(format!("DER length of {n} bytes"));
            }
            let len = rest[..n].iter().fold(0usize, |a, &x| (a << 8) | x as usize);
            (len, &rest[n..])
        };
        if rest.len() < len {
            return Err(format!("DER element of {len} bytes, {} left", rest.len()));
        }
        self.0 = &rest[len..];
        Ok((tag, &rest[..len]))
    }

    /// The next element, which must have `tag`.
    fn expect(&mut self, tag: u8, what: &str) -> Result<&'a [u8], String> {
        match self.next()? {
            (t, v) if t == tag => Ok(v),
            (t, _) => Err(format!("{what}: tag {t:#04x}, expected {tag:#04x}")),
        }
    }
}

/// Read `der`, a certificate.
pub(crate) fn read(der: &[u8]) -> Result<CertFields<'_>, String> {
    let cert = Der(der).expect(SEQUENCE, "certificate")?;
    let mut tbs = Der(Der(cert).expect(SEQUENCE, "tbsCertificate")?);
    // [0] version (optional), serial number, signature algorithm.
    if tbs.next()?.0 == 0xa0 {
        tbs.next()?; // the serial number after the version
    }
    tbs.expect(SEQUENCE, "signature algorithm")?;
    let issuer = tbs.expect(SEQUENCE, "issuer")?;
    let mut validity = Der(tbs.expect(SEQUENCE, "validity")?);
    let not_before = time(validity.next()?)?;
    let not_after = time(validity.next()?)?;
    let subject = tbs.expect(SEQUENCE, "subject")?;
    tbs.expect(SEQUENCE, "subject public key")?;
    let mut fields = CertFields {
        subject,
        issuer,
        not_before,
        not_after,
        sans: Vec::new(),
        common_name: common_name(subject)?,
        key_usage_tls: None,
        eku_server_auth: None,
    };
    while !tbs.is_empty() {
        let (tag, v) = tbs.next()?;
        if tag != 0xa3 {
            continue; // issuer or subject unique ID
        }
        let mut exts = Der(Der(v).expect(SEQUENCE, "extensions")?);
        while !exts.is_empty() {
            let mut ext = Der(exts.expect(SEQUENCE, "extension")?);
            let oid = ext.expect(OID, "extension id")?;
            let (mut tag, mut value) = ext.next()?;
            if tag == 0x01 {
                (tag, value) = ext.next()?; // critical
            }
            if tag != 0x04 {
                return Err(format!("extension value: tag {tag:#04x}"));
            }
            match oid {
                OID_SAN => {
                    let mut names = Der(Der(value).expect(SEQUENCE, "subjectAltName")?);
                    while !names.is_empty() {
                        match names.next()? {
                            (0x82, n) => fields.sans.push(San::Dns(n.to_vec())),
                            (0x87, n) => fields.sans.push(San::Ip(n.to_vec())),
                            _ => {}
                        }
                    }
                }
                OID_KEY_USAGE => {
                    let bits = Der(value).expect(0x03, "keyUsage")?;
                    // digitalSignature (bit 0), keyEncipherment (2), keyAgreement (4).
                    let first = bits.get(1).copied().unwrap_or(0);
                    fields.key_usage_tls = Some(first & 0xa8 != 0);
                }
                OID_EKU => {
                    let mut uses = Der(Der(value).expect(SEQUENCE, "extendedKeyUsage")?);
                    let mut server = false;
                    while !uses.is_empty() {
                        server |= uses.expect(OID, "key purpose")? == OID_SERVER_AUTH;
                    }
                    fields.eku_server_auth = Some(server);
                }
                _ => {}
            }
        }
    }
    Ok(fields)
}

/// The first common name of a Name (a SEQUENCE of SETs of type-and-value SEQUENCEs).
fn common_name(name: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let mut rdns = Der(name);
    while !rdns.is_empty() {
        let mut set = Der(rdns.expect(0x31, "name")?);
        while !set.is_empty() {
            let mut atv = Der(set.expect(SEQUENCE, "name attribute")?);
            if atv.expect(OID, "name attribute type")? != OID_CN {
                continue;
            }
            return Ok(Some(match atv.next()? {
                // BMPString: UTF-16 big-endian.
                (0x1e, v) => {
                    let units: Vec<u16> = v
                        .chunks(2)
                        .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]))
                        .collect();
                    String::from_utf16_lossy(&units).into_bytes()
                }
                (_, v) => v.to_vec(),
            }));
        }
    }
    Ok(None)
}

/// UTCTime (`YYMMDDHHMMSSZ`, 1950–2049) or GeneralizedTime (`YYYYMMDDHHMMSSZ`) as Unix
/// seconds.
fn time((tag, v): (u8, &[u8])) -> Result<i64, String> {
    let text = std::str::from_utf8(v).map_err(|_| "validity time: not text".to_string())?;
    let bad = || format!("validity time {text:?}");
    let digits = text.strip_suffix('Z').ok_or_else(bad)?;
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let (year, rest) = match (tag, digits.len()) {
        (0x17, 12) => {
            let yy: i16 = digits[..2].parse().map_err(|_| bad())?;
            (if yy >= 50 { 1900 + yy } else { 2000 + yy }, &digits[2..])
        }
        (0x18, 14) => (digits[..4].parse().map_err(|_| bad())?, &digits[4..]),
        _ => return Err(bad()),
    };
    let n = |i: usize| rest[i..i + 2].parse::<i8>().map_err(|_| bad());
    truebench_model::unix_s_utc(year, n(0)?, n(2)?, n(4)?, n(6)?, n(8)?).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cert(p: rcgen::CertificateParams) -> Vec<u8> {
        let key = rcgen::KeyPair::generate().unwrap();
        p.self_signed(&key).unwrap().der().to_vec()
    }

    #[test]
    fn names_dates_and_uses_of_a_certificate() {
        let mut p =
            rcgen::CertificateParams::new(vec!["db.example".into(), "10.0.0.5".into()]).unwrap();
        p.distinguished_name
            .push(rcgen::DnType::CommonName, "the db");
        p.not_before = rcgen::date_time_ymd(2024, 1, 2);
        p.not_after = rcgen::date_time_ymd(2051, 3, 4);
        p.key_usages = vec![rcgen::KeyUsagePurpose::KeyCertSign];
        p.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ClientAuth];
        let der = cert(p);
        let f = read(&der).unwrap();
        assert_eq!(
            f.sans,
            vec![San::Dns(b"db.example".to_vec()), San::Ip(vec![10, 0, 0, 5])]
        );
        assert_eq!(f.common_name.as_deref(), Some(&b"the db"[..]));
        assert_eq!(f.subject, f.issuer);
        assert_eq!(f.not_before, 1_704_153_600);
        // 2051: GeneralizedTime.
        assert_eq!(
            f.not_after,
            truebench_model::unix_s_utc(2051, 3, 4, 0, 0, 0).unwrap()
        );
        assert_eq!(f.key_usage_tls, Some(false));
        assert_eq!(f.eku_server_auth, Some(false));

        let mut p = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        p.key_usages = vec![rcgen::KeyUsagePurpose::DigitalSignature];
        p.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
        let der = cert(p);
        let f = read(&der).unwrap();
        assert_eq!(
            (f.key_usage_tls, f.eku_server_auth),
            (Some(true), Some(true))
        );
        assert!(f.sans.is_empty());
    }

    #[test]
    fn a_broken_certificate_is_an_error_never_a_panic() {
        let der = cert(rcgen::CertificateParams::new(vec!["localhost".into()]).unwrap());
        for n in 0..der.len() {
            let _ = read(&der[..n]);
            let mut bad = der.clone();
            bad[n] ^= 0xff;
            let _ = read(&bad);
        }
        assert!(read(&der[..der.len() - 1]).is_err());
        assert!(read(b"").is_err());
    }
}
