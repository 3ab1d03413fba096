//! Kernel CPU lists: `0-3,8,10-11` (cpulist) and `0 1 2 3` (related_cpus).

/// Parse `0-3,8` or `0 1 2 3` into sorted, de-duplicated CPU numbers. Malformed parts are
/// skipped; ranges are capped so a corrupt file cannot allocate gigabytes.
pub fn parse(text: &str) -> Vec<u32> {
    const MAX_CPU: u32 = 1 << 16;
    let mut out = Vec::new();
    for part in text.split(|c: char| c == ',' || c.is_whitespace()) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) {
                    if a <= b && b < MAX_CPU {
                        out.extend(a..=b);
                    }
                }
            }
            None => {
                if let Ok(a) = part.parse::<u32>() {
                    if a < MAX_CPU {
                        out.push(a);
                    }
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Compact form: `[0,1,2,3,8]` → `0-3,8`.
pub fn format(cpus: &[u32]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < cpus.len() {
        let start = cpus[i];
        let mut end = start;
        while i + 1 < cpus.len() && cpus[i + 1] == end + 1 {
            i += 1;
            end = cpus[i];
        }
        if !out.is_empty() {
            out.push(',');
        }
        if end == start {
            out.push_str(&start.to_string());
        } else {
            out.push_str(&format!("{start}-{end}"));
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_spaces() {
        assert_eq!(parse("0-3,8,10-11\n"), [0, 1, 2, 3, 8, 10, 11]);
        assert_eq!(parse("4 5 6 7 \n"), [4, 5, 6, 7]);
        assert_eq!(parse(""), Vec::<u32>::new());
        assert_eq!(parse("3-1,x,2"), [2]);
        assert_eq!(parse("0-4294967295"), Vec::<u32>::new());
    }

    #[test]
    fn round_trip() {
        assert_eq!(format(&[0, 1, 2, 3, 8, 10, 11]), "0-3,8,10-11");
        assert_eq!(format(&[5]), "5");
        assert_eq!(format(&[]), "");
    }
}
