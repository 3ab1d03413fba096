//! `/etc/os-release`: `KEY=value` with optional shell quoting.

use std::collections::BTreeMap;

pub fn parse(text: &str) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let v = v.trim();
        let v = v
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
            .unwrap_or(v);
        m.insert(k.trim().to_string(), v.replace("\\\"", "\""));
    }
    m
}

#[cfg(test)]
mod tests {
    #[test]
    fn quoted_and_plain() {
        let m = super::parse(
            "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n# c\nVERSION_ID='12'\n",
        );
        assert_eq!(m["PRETTY_NAME"], "Debian GNU/Linux 12 (bookworm)");
        assert_eq!(m["ID"], "debian");
        assert_eq!(m["VERSION_ID"], "12");
    }
}
