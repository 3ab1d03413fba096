//! `/proc/meminfo`.

use std::collections::BTreeMap;

/// Values in kB keyed by name (`MemTotal`, `SwapFree`, …). Lines that do not parse are skipped.
pub fn parse(text: &str) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for line in text.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let mut it = v.split_whitespace();
        let Some(n) = it.next().and_then(|n| n.parse::<u64>().ok()) else {
            continue;
        };
        // Values are kB except the HugePages_* counters, which have no unit.
        m.insert(k.trim().to_string(), n);
    }
    m
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_kb_and_unitless() {
        let m = super::parse(
            "MemTotal:       16314512 kB\nHugePages_Total:       0\ngarbage\nX: y kB\n",
        );
        assert_eq!(m["MemTotal"], 16314512);
        assert_eq!(m["HugePages_Total"], 0);
        assert_eq!(m.len(), 2);
    }
}
