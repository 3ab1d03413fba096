//! The Results.md row of sbc-bench:
//! `| device | clock | kernel | distro | 7-zip multi | 7-zip single | AES | memcpy | memset | kH/s |`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Column names in Results.md order.
pub const COLUMNS: [&str; 10] = [
    "device",
    "clock",
    "kernel",
    "distro",
    "7-zip multi",
    "7-zip single",
    "AES",
    "memcpy",
    "memset",
    "kH/s",
];

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultsRow {
    pub device: String,
    /// `1800 MHz`, `2400/1800 MHz`, `~2290`, `~1600 MHz`, `no cpufreq support`.
    pub clock: String,
    /// sbc-bench appends ` (throttled)` to the clock when it saw throttling.
    pub throttled: bool,
    /// `major.minor` of the kernel release.
    pub kernel: String,
    /// `${OperatingSystem} ${ARCH}` or `${OperatingSystem} ${KernelArch}/${ARCH}`.
    pub distro: String,
    /// 7-zip total rating (MIPS), mean of the multi-threaded runs, rounded to 10.
    pub sevenzip_multi: Option<u64>,
    /// Best single-threaded 7-zip total rating (MIPS), not rounded.
    pub sevenzip_single: Option<u64>,
    /// `openssl speed -elapsed -evp aes-256-cbc` at 16 KiB, 1000 bytes/s, rounded to 10.
    pub aes: Option<u64>,
    /// tinymembench memcpy / memset, MB/s, rounded to 10.
    pub memcpy: Option<u64>,
    pub memset: Option<u64>,
    /// cpuminer kH/s as printed in `Total Scores:`.
    pub khs: Option<String>,
    /// How each figure was obtained (which runs, which sbc-bench rule), for `--row` users and
    /// for explaining disagreements.
    #[serde(default)]
    pub notes: Vec<String>,
}

fn num(v: &Option<u64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_else(|| "-".into())
}

/// The table header of sbc-bench's Results.md, as it prints it.
pub const RESULTS_MD_HEADER: &str = "| Device / details | Clockspeed | Kernel | Distro | 7-zip multi | 7-zip single | AES | memcpy | memset | kH/s |\n| ----- | :--------: | :----: | :----: | ----: | ------: | ------: | -----: | -----: | ---: |";

impl ResultsRow {
    /// The ten cells as printed (clock without the throttling suffix).
    pub fn cells(&self) -> [String; 10] {
        [
            self.device.clone(),
            self.clock.clone(),
            self.kernel.clone(),
            self.distro.clone(),
            num(&self.sevenzip_multi),
            num(&self.sevenzip_single),
            num(&self.aes),
            num(&self.memcpy),
            num(&self.memset),
            self.khs.clone().unwrap_or_else(|| "-".into()),
        ]
    }
}

impl fmt::Display for ResultsRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut cells = self.cells();
        if self.throttled {
            cells[1].push_str(" (throttled)");
        }
        write!(f, "|")?;
        for c in &cells {
            let c = if c.is_empty() { "-" } else { c.as_str() };
            write!(f, " {c} |")?;
        }
        Ok(())
    }
}

/// Whether a published Results.md cell says what the computed one says. The distro cell is
/// the codename and architecture shortened by hand (`Bookworm arm64` for sbc-bench's `Debian
/// GNU/Linux 12 (bookworm) arm64`): it agrees when every word of theirs (without Markdown
/// emphasis) appears in ours or in `names` (the distribution's other names: lsb, os-release,
/// codename), case-insensitively. Every other column agrees only when equal.
pub fn cell_agrees(column: usize, ours: &str, theirs: &str, names: &[&str]) -> bool {
    if COLUMNS.get(column) != Some(&"distro") {
        return ours == theirs;
    }
    let mut hay = ours.to_lowercase();
    for n in names {
        hay.push(' ');
        hay.push_str(&n.to_lowercase());
    }
    let words: Vec<String> = theirs
        .replace("**", " ")
        .split(|c: char| c.is_whitespace() || c == '/')
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
        .collect();
    !words.is_empty() && words.iter().all(|w| hay.contains(w.as_str()))
}

/// One table row of Results.md, split into cells, with the log it links to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MarkdownRow {
    /// File name of the linked log (`3R3N.txt`), from `(results/3R3N.txt)`.
    pub log: Option<String>,
    /// Device cell with the link removed (`AAEON BOXER-8654AI (Orin NX)`).
    pub device: String,
    pub cells: Vec<String>,
}

/// Parse one Markdown table row; `None` for lines that are not table rows.
pub fn parse_markdown_row(line: &str) -> Option<MarkdownRow> {
    let t = line.trim();
    if !t.starts_with('|') || t.starts_with("| -") || t.starts_with("| :") {
        return None;
    }
    let inner = t.trim_start_matches('|').trim_end_matches('|');
    let cells: Vec<String> = inner.split('|').map(|c| c.trim().to_string()).collect();
    if cells.len() < 2 {
        return None;
    }
    let first = &cells[0];
    let (device, log) = match (first.find("]("), first.starts_with('[')) {
        (Some(i), true) => {
            let name = first[1..i].to_string();
            let target = first[i + 2..].trim_end_matches(')').trim();
            let log = target
                .rsplit('/')
                .next()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty());
            (name, log)
        }
        _ => (first.clone(), None),
    };
    Some(MarkdownRow { log, device, cells })
}

/// Rows of a Results.md document that link a log (`results/NAME`).
pub fn parse_results_md(text: &str) -> Vec<MarkdownRow> {
    text.lines()
        .filter(|l| l.starts_with("| ["))
        .filter_map(parse_markdown_row)
        .filter(|r| r.log.is_some())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_matches_sbc_bench_layout() {
        let r = ResultsRow {
            device: "Radxa ROCK 5A".into(),
            clock: "~2290".into(),
            throttled: true,
            kernel: "5.10".into(),
            distro: "Debian GNU/Linux 11 (bullseye) arm64".into(),
            sevenzip_multi: Some(15630),
            sevenzip_single: Some(3015),
            aes: Some(1302120),
            memcpy: Some(9170),
            memset: Some(27080),
            khs: Some("23.42".into()),
            notes: vec![],
        };
        assert_eq!(
            r.to_string(),
            "| Radxa ROCK 5A | ~2290 (throttled) | 5.10 | Debian GNU/Linux 11 (bullseye) arm64 | 15630 | 3015 | 1302120 | 9170 | 27080 | 23.42 |"
        );
    }

    #[test]
    fn markdown_row_with_link_and_br() {
        let r = parse_markdown_row("| [Clearfog A1<br />(Armada 388)](results/4d1U.txt) | 1600 MHz | 5.15 | Bullseye armhf | 2230 | 1239 | 44080 | 910 | 5060 | - |").unwrap();
        assert_eq!(r.log.as_deref(), Some("4d1U.txt"));
        assert_eq!(r.device, "Clearfog A1<br />(Armada 388)");
        assert_eq!(r.cells.len(), 10);
        assert_eq!(r.cells[9], "-");
        // a link with a space before the closing parenthesis, as in upstream Results.md
        let r = parse_markdown_row("| [DC-ROMA (EIC7702X)](results/fml13v03.txt ) | 1800 MHz | 6.6 | Noble riscv64 | 9800 | 1787 | 50380 | 4850 | 7460 | - |").unwrap();
        assert_eq!(r.log.as_deref(), Some("fml13v03.txt"));
        assert!(parse_markdown_row("| ----- | :--------: |").is_none());
        assert!(parse_markdown_row("no table").is_none());
    }
}
