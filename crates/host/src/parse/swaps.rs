//! `/proc/swaps`.

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SwapEntry {
    pub filename: String,
    /// `partition` or `file` as the kernel says.
    pub kind: String,
    pub size_kb: u64,
    pub used_kb: u64,
    pub priority: i64,
}

pub fn parse(text: &str) -> Vec<SwapEntry> {
    let mut out = Vec::new();
    for line in text.lines().skip_while(|l| l.starts_with("Filename")) {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 5 {
            continue;
        }
        let (Ok(size), Ok(used), Ok(prio)) = (f[2].parse(), f[3].parse(), f[4].parse()) else {
            continue;
        };
        out.push(SwapEntry {
            // The kernel escapes spaces in paths as \040.
            filename: f[0].replace("\\040", " "),
            kind: f[1].to_string(),
            size_kb: size,
            used_kb: used,
            priority: prio,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn real_format() {
        let t = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/zram0                              partition\t1015276\t\t34816\t\t5\n/var/swap file 102396 0 -2\n";
        let s = super::parse(t);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].filename, "/dev/zram0");
        assert_eq!(s[0].used_kb, 34816);
        assert_eq!(s[1].priority, -2);
        assert!(super::parse("Filename Type\n").is_empty());
    }
}
