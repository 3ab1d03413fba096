//! Pure parsers for the kernel's version strings: the release (`uname -r`), the build line
//! (`/proc/version`) and Ubuntu's `/proc/version_signature`.

use serde::{Deserialize, Serialize};

/// `major.minor[.patch]` and whatever follows (`-rc3`, `-13-arm64`, `+rpt-rpi-2712`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KernelVersion {
    pub major: u32,
    pub minor: u32,
    /// The stable revision; `None` for `6.1` alone.
    pub patch: Option<u32>,
    /// Everything after the numbers, as written.
    pub suffix: String,
}

impl KernelVersion {
    /// `6.1.0-13-arm64` → 6, 1, Some(0), "-13-arm64". `None` when it does not start with
    /// `N.N`.
    pub fn parse(release: &str) -> Option<KernelVersion> {
        let release = release.trim();
        let end = release
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(release.len());
        let (numbers, suffix) = release.split_at(end);
        let mut parts = numbers.split('.').filter(|p| !p.is_empty());
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let patch = parts.next().and_then(|p| p.parse().ok());
        Some(KernelVersion {
            major,
            minor,
            patch,
            suffix: suffix.to_string(),
        })
    }

    /// The release series, `6.1`.
    pub fn series(&self) -> (u32, u32) {
        (self.major, self.minor)
    }

    pub fn series_string(&self) -> String {
        format!("{}.{}", self.major, self.minor)
    }

    /// `6.1.55` (the numbers only).
    pub fn numbers(&self) -> String {
        match self.patch {
            Some(p) => format!("{}.{}.{}", self.major, self.minor, p),
            None => self.series_string(),
        }
    }

    /// A release candidate or a development snapshot (`-rc4`, `-next-20240101`).
    pub fn is_prerelease(&self) -> bool {
        let s = self.suffix.to_ascii_lowercase();
        s.contains("-rc") || s.contains("-next-")
    }
}

/// What `/proc/version` says about the build.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BuildLine {
    /// `root@armbian`, `debian-kernel@lists.debian.org`.
    pub builder: Option<String>,
    /// The compiler, as printed (`gcc-12 (Debian 12.2.0-14) 12.2.0`).
    pub compiler: Option<String>,
    /// The flags after the build number: `SMP`, `PREEMPT`, `PREEMPT_DYNAMIC`, `PREEMPT_RT`.
    pub flags: Vec<String>,
    /// The build date, `YYYY-MM-DD`, from the timestamp or the packager's date.
    pub date: Option<String>,
    /// Upstream version a distribution names inside the line (`Debian 6.1.55-1` → `6.1.55`).
    pub package_version: Option<String>,
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Parse `Linux version R (builder) (compiler…) #N FLAGS DATE`. Never fails: what cannot
/// be found stays `None`.
pub fn parse_build_line(line: &str) -> BuildLine {
    let mut out = BuildLine::default();
    let line = line.trim();
    // The builder and compiler are the first two balanced parenthesised groups.
    let groups = paren_groups(line);
    if let Some((_, g)) = groups.first() {
        if !g.is_empty() && !g.contains(' ') {
            out.builder = Some(g.to_string());
        }
    }
    if let Some((_, g)) = groups.get(1) {
        let compiler = g.trim();
        // "gcc version 5.4.0 (Linaro GCC 5.4-2017.05) " and "gcc-12 (Debian…) 12.2.0, GNU ld…"
        let compiler = compiler.split(", GNU ld").next().unwrap_or(compiler).trim();
        if !compiler.is_empty() {
            out.compiler = Some(compiler.to_string());
        }
    }
    // After the last group that precedes '#': "#1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 (2023-09-29)"
    let tail_start = groups.get(1).map(|(end, _)| *end).unwrap_or(0);
    let tail = &line[tail_start.min(line.len())..];
    let Some(hash) = tail.find('#') else {
        return out;
    };
    let words: Vec<&str> = tail[hash..].split_whitespace().skip(1).collect();
    // Flags come before the date or the packager's name; a time zone (`CST`) after them is
    // not a flag.
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    for w in &words {
        if DAYS.contains(w) || MONTHS.contains(w) || w.starts_with('(') || *w == "Debian" {
            break;
        }
        let upper = w.chars().all(|c| c.is_ascii_uppercase() || c == '_');
        if upper && w.len() >= 3 {
            out.flags.push(w.to_string());
        }
    }
    for (i, w) in words.iter().enumerate() {
        if matches!(*w, "Debian" | "Raspbian") {
            if let Some(v) = words.get(i + 1) {
                // Epoch and packaging revision: "1:6.6.20-1+rpt1" → 6.6.20
                let v = v.rsplit(':').next().unwrap_or(v);
                let v = v.split(['-', '+', '~']).next().unwrap_or(v);
                if KernelVersion::parse(v).is_some_and(|k| k.patch.is_some()) {
                    out.package_version = Some(v.to_string());
                }
            }
        }
    }
    out.date = date_in(&words);
    out
}

/// `(start_after_group, content)` of each top-level parenthesised group.
fn paren_groups(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => {
                if depth == 0 {
                    start = i + 1;
                }
                depth += 1;
            }
            ')' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push((i + 1, &s[start..i]));
                }
            }
            // The build number ends the compiler part; a '#' inside a group is rare but
            // a '#' at top level means the groups are over.
            '#' if depth == 0 && out.len() >= 2 => break,
            _ => {}
        }
    }
    out
}

/// A date among the words after '#': `(2023-09-29)` or `Tue Aug 2 19:48:20 CST 2022`.
fn date_in(words: &[&str]) -> Option<String> {
    for w in words.iter().rev() {
        let w = w.trim_matches(|c| c == '(' || c == ')');
        let b = w.as_bytes();
        if b.len() == 10 && b[4] == b'-' && b[7] == b'-' {
            let (y, m, d) = (&w[0..4], &w[5..7], &w[8..10]);
            if let (Ok(y), Ok(m), Ok(d)) = (y.parse::<u32>(), m.parse::<u32>(), d.parse::<u32>()) {
                if (1991..=9999).contains(&y) && (1..=12).contains(&m) && (1..=31).contains(&d) {
                    return Some(w.to_string());
                }
            }
        }
    }
    // `Mon D HH:MM:SS [TZ] YYYY`
    for (i, w) in words.iter().enumerate() {
        let Some(m) = MONTHS.iter().position(|m| m == w) else {
            continue;
        };
        let day: u32 = words.get(i + 1)?.parse().ok()?;
        let year = words[i + 2..]
            .iter()
            .take(3)
            .find_map(|w| w.parse::<u32>().ok().filter(|y| (1991..=9999).contains(y)))?;
        if (1..=31).contains(&day) {
            return Some(format!("{year:04}-{:02}-{day:02}", m + 1));
        }
    }
    None
}

/// Ubuntu's `/proc/version_signature`: `Ubuntu 5.15.0-52.58-generic 5.15.60` → `5.15.60`.
pub fn parse_version_signature(text: &str) -> Option<String> {
    let last = text.split_whitespace().last()?;
    KernelVersion::parse(last)
        .filter(|v| v.patch.is_some() && v.suffix.is_empty())
        .map(|v| v.numbers())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_split_into_numbers_and_suffix() {
        let v = KernelVersion::parse("6.1.0-13-arm64").unwrap();
        assert_eq!((v.major, v.minor, v.patch), (6, 1, Some(0)));
        assert_eq!(v.suffix, "-13-arm64");
        let v = KernelVersion::parse("6.6.20+rpt-rpi-2712").unwrap();
        assert_eq!(
            (v.numbers().as_str(), v.suffix.as_str()),
            ("6.6.20", "+rpt-rpi-2712")
        );
        let v = KernelVersion::parse("5.14.0-rc4-sun50iw11").unwrap();
        assert!(v.is_prerelease());
        assert_eq!(KernelVersion::parse("6.8").unwrap().patch, None);
        assert!(KernelVersion::parse("").is_none());
        assert!(KernelVersion::parse("linux").is_none());
        assert!(KernelVersion::parse("6").is_none());
        assert!(KernelVersion::parse("6.x").is_none());
    }

    #[test]
    fn debian_build_line() {
        let b = parse_build_line(
            "Linux version 6.1.0-13-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian \
             12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC \
             Debian 6.1.55-1 (2023-09-29)",
        );
        assert_eq!(b.builder.as_deref(), Some("debian-kernel@lists.debian.org"));
        assert_eq!(
            b.compiler.as_deref(),
            Some("gcc-12 (Debian 12.2.0-14) 12.2.0")
        );
        assert_eq!(b.flags, ["SMP", "PREEMPT_DYNAMIC"]);
        assert_eq!(b.package_version.as_deref(), Some("6.1.55"));
        assert_eq!(b.date.as_deref(), Some("2023-09-29"));
    }

    #[test]
    fn vendor_build_lines() {
        // Orange Pi's Allwinner H616 BSP (tests/data/roots/h616-opizero2.ttar).
        let b = parse_build_line(
            "Linux version 4.9.170-sun50iw9 (root@orangepi) (gcc version 5.4.0 (Linaro GCC \
             5.4-2017.05) ) #2.2.0 SMP PREEMPT Tue Aug 2 19:48:20 CST 2022",
        );
        assert_eq!(
            b.compiler.as_deref(),
            Some("gcc version 5.4.0 (Linaro GCC 5.4-2017.05)")
        );
        assert_eq!(b.flags, ["SMP", "PREEMPT"]);
        assert_eq!(b.date.as_deref(), Some("2022-08-02"));
        assert_eq!(b.package_version, None);
        // Raspberry Pi OS: epoch and +rpt revision.
        let b = parse_build_line(
            "Linux version 6.6.20+rpt-rpi-2712 (debian-kernel@lists.debian.org) (gcc-12 (Debian \
             12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT Debian \
             1:6.6.20-1+rpt1 (2024-03-07)",
        );
        assert_eq!(b.package_version.as_deref(), Some("6.6.20"));
        assert_eq!(b.date.as_deref(), Some("2024-03-07"));
        // Ubuntu: no upstream version in the line, a date without a time zone word.
        let b = parse_build_line(
            "Linux version 5.15.0-52-generic (buildd@lcy02-amd64-045) (gcc (Ubuntu \
             11.2.0-19ubuntu1) 11.2.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #58-Ubuntu SMP \
             Thu Oct 13 08:03:55 UTC 2022",
        );
        assert_eq!(b.flags, ["SMP"]);
        assert_eq!(b.date.as_deref(), Some("2022-10-13"));
    }

    #[test]
    fn odd_build_lines_are_partial_not_wrong() {
        assert_eq!(parse_build_line(""), BuildLine::default());
        let b = parse_build_line("Linux version 6.1.0 (no closing");
        assert_eq!(b.compiler, None);
        assert_eq!(b.date, None);
        let b = parse_build_line("Linux version 6.1.0 (a@b) (gcc 12) #1 SMP Feb 31");
        assert_eq!(b.date, None, "no year: no date");
    }

    #[test]
    fn ubuntu_version_signature() {
        assert_eq!(
            parse_version_signature("Ubuntu 5.15.0-52.58-generic 5.15.60\n").as_deref(),
            Some("5.15.60")
        );
        assert_eq!(parse_version_signature("garbage"), None);
        assert_eq!(parse_version_signature(""), None);
    }
}
