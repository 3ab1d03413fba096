//! 7-zip benchmark adapter (`7zz`/`7z`/`7za`/`7zr b`): run it pinned or on all cores, keep its
//! output, parse every generation's table (p7zip 9.20, p7zip 16.02, 7-Zip 21+), and on low
//! memory choose a dictionary whose footprint cannot push the machine into swap.
//!
//! Scores are 7-zip's own MIPS ratings: compression and decompression from the `Avr:` line,
//! total from `Tot:` (sbc-bench's "7-zip total scores"). Speeds (`KiB/s` column) are kept
//! per dictionary for comparison with the built-in LZMA benchmark.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::progress::Progress;
use crate::tool::{find_tool, run_tool, RunSpec, ToolError, ToolOutput};

/// Binary names, in order of preference: 7-Zip 21+ (`7zz`), p7zip/7-Zip full (`7z`),
/// standalone (`7za`), reduced (`7zr`, LZMA only — enough for `b`).
pub const NAMES: [&str; 4] = ["7zz", "7z", "7za", "7zr"];

/// The first 7-zip binary found.
pub fn find() -> Option<PathBuf> {
    find_tool(&NAMES)
}

/// One half (compressing or decompressing) of a benchmark line.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Half {
    /// `Speed` column, KiB/s (KB/s in 9.20); absent on `Avr:` lines before 7-Zip 21.
    pub speed_kib_s: Option<u64>,
    /// `Usage` %, CPU usage summed over threads.
    pub usage_pct: u64,
    /// `R/U` MIPS: rating per 100 % usage.
    pub ru_mips: u64,
    /// `Rating` MIPS.
    pub rating_mips: u64,
}

/// A per-dictionary line (`22:`, `23:` …).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DictLine {
    /// log2 of the dictionary size.
    pub dict_log2: u32,
    pub compress: Half,
    pub decompress: Half,
}

/// The `Tot:` line.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Total {
    pub usage_pct: u64,
    pub ru_mips: u64,
    pub rating_mips: u64,
}

/// One parsed `7z b` output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bench {
    /// `7-Zip (a) [64] 16.02 : Copyright …`
    pub version_line: Option<String>,
    /// `16.02`, `26.02`, `9.20`.
    pub version: Option<String>,
    /// A `p7zip Version …` line was present (the POSIX port).
    pub p7zip: bool,
    pub ram_size_mb: Option<u64>,
    /// 7-zip's own estimate of its memory use (`RAM usage:`), MB.
    pub ram_usage_mb: Option<u64>,
    /// `# Benchmark threads:`.
    pub threads: Option<u32>,
    pub lines: Vec<DictLine>,
    pub avr_compress: Option<Half>,
    pub avr_decompress: Option<Half>,
    pub total: Option<Total>,
}

impl Bench {
    /// Total rating (MIPS), sbc-bench's "7-zip total score".
    pub fn total_mips(&self) -> Option<u64> {
        self.total.map(|t| t.rating_mips)
    }

    pub fn compress_mips(&self) -> Option<u64> {
        self.avr_compress.map(|h| h.rating_mips)
    }

    pub fn decompress_mips(&self) -> Option<u64> {
        self.avr_decompress.map(|h| h.rating_mips)
    }

    /// Mean compression speed over the dictionary lines, KiB/s.
    pub fn compress_speed_kib_s(&self) -> Option<f64> {
        truebench_stats::mean(
            self.lines
                .iter()
                .filter_map(|l| l.compress.speed_kib_s.map(|s| s as f64)),
        )
    }

    /// Mean decompression speed over the dictionary lines, KiB/s.
    pub fn decompress_speed_kib_s(&self) -> Option<f64> {
        truebench_stats::mean(
            self.lines
                .iter()
                .filter_map(|l| l.decompress.speed_kib_s.map(|s| s as f64)),
        )
    }
}

/// Why an output could not be read.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ParseError {
    #[error("no `Tot:` line in the 7-zip output ({0} lines)")]
    NoTotal(usize),
}

/// The version token of a `7-Zip …` banner: the first `N.NN` after `7-Zip`.
pub fn parse_version_line(line: &str) -> Option<String> {
    let rest = line.trim().strip_prefix("7-Zip")?;
    rest.split_whitespace()
        .find(|t| {
            let mut parts = t.split('.');
            matches!((parts.next(), parts.next()), (Some(a), Some(b))
                if !a.is_empty() && !b.is_empty()
                    && a.chars().all(|c| c.is_ascii_digit())
                    && b.chars().all(|c| c.is_ascii_digit()))
        })
        .map(str::to_string)
}

fn numbers(s: &str) -> Vec<u64> {
    s.split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect()
}

fn half(v: &[u64]) -> Option<Half> {
    match *v {
        [speed, usage, ru, rating] => Some(Half {
            speed_kib_s: Some(speed),
            usage_pct: usage,
            ru_mips: ru,
            rating_mips: rating,
        }),
        [usage, ru, rating] => Some(Half {
            speed_kib_s: None,
            usage_pct: usage,
            ru_mips: ru,
            rating_mips: rating,
        }),
        _ => None,
    }
}

/// Split a line body into its compress and decompress numbers (at `|`, or in the middle
/// where p7zip 9.20's `Avr:` line has no separator).
fn halves(body: &str) -> Option<(Half, Half)> {
    let (a, b) = match body.split_once('|') {
        Some((a, b)) => (numbers(a), numbers(b)),
        None => {
            let n = numbers(body);
            if n.len() % 2 != 0 {
                return None;
            }
            let (a, b) = n.split_at(n.len() / 2);
            (a.to_vec(), b.to_vec())
        }
    };
    Some((half(&a)?, half(&b)?))
}

/// Parse one benchmark output (the first, if several are concatenated).
pub fn parse_bench(text: &str) -> Result<Bench, ParseError> {
    parse_all(text)
        .into_iter()
        .next()
        .ok_or(ParseError::NoTotal(text.lines().count()))
}

/// Parse every benchmark in `text` (sbc-bench logs hold three multi-threaded runs in a row).
/// A run counts once its `Tot:` line is seen.
pub fn parse_all(text: &str) -> Vec<Bench> {
    let mut out = Vec::new();
    let mut cur = empty();
    for raw in text.lines() {
        let l = raw.trim();
        if l.starts_with("7-Zip") {
            if cur.total.is_none() {
                // A new banner before Tot: the previous run was incomplete; start over.
                cur = empty();
            }
            cur.version = parse_version_line(l);
            cur.version_line = Some(l.to_string());
        } else if l.starts_with("p7zip Version") {
            cur.p7zip = true;
        } else if let Some(rest) = l.strip_prefix("RAM size:") {
            cur.ram_size_mb = numbers(rest.split(',').next().unwrap_or(""))
                .first()
                .copied();
        } else if let Some(rest) = l.strip_prefix("RAM usage:") {
            cur.ram_usage_mb = numbers(rest.split(',').next().unwrap_or(""))
                .first()
                .copied();
            if let Some(t) = rest.split_once("Benchmark threads:") {
                cur.threads = numbers(t.1).first().map(|&n| n as u32);
            }
        } else if let Some(rest) = l.strip_prefix("Avr:") {
            if let Some((c, d)) = halves(rest) {
                cur.avr_compress = Some(c);
                cur.avr_decompress = Some(d);
            }
        } else if let Some(rest) = l.strip_prefix("Tot:") {
            if let [usage, ru, rating] = numbers(rest)[..] {
                cur.total = Some(Total {
                    usage_pct: usage,
                    ru_mips: ru,
                    rating_mips: rating,
                });
                out.push(std::mem::replace(&mut cur, empty()));
            }
        } else if let Some((dict, rest)) = l.split_once(':') {
            if let Ok(d) = dict.parse::<u32>() {
                if (10..=40).contains(&d) {
                    if let Some((c, dd)) = halves(rest) {
                        cur.lines.push(DictLine {
                            dict_log2: d,
                            compress: c,
                            decompress: dd,
                        });
                    }
                }
            }
        }
    }
    out
}

fn empty() -> Bench {
    Bench {
        version_line: None,
        version: None,
        p7zip: false,
        ram_size_mb: None,
        ram_usage_mb: None,
        threads: None,
        lines: Vec::new(),
        avr_compress: None,
        avr_decompress: None,
        total: None,
    }
}

/// 7-zip's default (and largest) benchmark dictionary: 2^25 = 32 MiB.
pub const DEFAULT_DICT_LOG2: u32 = 25;
/// Smallest dictionary truebench will pick.
pub const MIN_DICT_LOG2: u32 = 18;

/// Memory `7z b` needs for a dictionary of 2^`dict_log2` bytes and `threads` threads, bytes —
/// 7-zip's own formula (`GetBenchMemoryUsage` in Bench.cpp: the LZMA encoder's hash and
/// match-finder tables plus in/out buffers, one pair of buffers per two threads when
/// multi-threaded). Matches its `RAM usage:` line to within a few MB (16.02: exact;
/// 26.02: 437 vs 435 MB at 1 thread).
pub fn bench_memory_bytes(dict_log2: u32, threads: u32) -> u64 {
    let dict = 1u64 << dict_log2.min(31);
    let mut hs = (dict - 1) as u32;
    hs |= hs >> 1;
    hs |= hs >> 2;
    hs |= hs >> 4;
    hs |= hs >> 8;
    hs >>= 1;
    hs |= 0xFFFF;
    if hs > (1 << 24) {
        hs >>= 1;
    }
    let hs = hs as u64 + 1;
    let mt = threads > 1;
    let lzma =
        ((hs + (1 << 16)) + dict * 2) * 4 + dict * 3 / 2 + (1 << 20) + if mt { 6 << 20 } else { 0 };
    let big_threads = if mt { (threads / 2).max(1) } else { 1 } as u64;
    (dict * 2 + lzma + (2 << 20)) * big_threads
}

/// The dictionary chosen for a run, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DictChoice {
    pub dict_log2: u32,
    /// `-md{dict_log2}` is passed (only when the default would not fit).
    pub passed: bool,
    pub threads: u32,
    /// [`bench_memory_bytes`] for the choice, MiB.
    pub estimated_mib: u64,
    pub mem_available_mib: Option<u64>,
    pub reason: String,
}

/// Share of MemAvailable the benchmark may use: the rest stays for the page cache, the
/// monitor and whatever else runs, so nothing is pushed into swap.
pub const MEMORY_SHARE: f64 = 0.8;

/// Largest dictionary (default 2^25 at most) whose footprint fits in [`MEMORY_SHARE`] of
/// `mem_available_bytes`; unknown memory keeps the default.
pub fn choose_dictionary(mem_available_bytes: Option<u64>, threads: u32) -> DictChoice {
    let threads = threads.max(1);
    let mib = |b: u64| b / (1024 * 1024);
    let Some(avail) = mem_available_bytes else {
        return DictChoice {
            dict_log2: DEFAULT_DICT_LOG2,
            passed: false,
            threads,
            estimated_mib: mib(bench_memory_bytes(DEFAULT_DICT_LOG2, threads)),
            mem_available_mib: None,
            reason: "MemAvailable unknown: 7-zip's default dictionary".into(),
        };
    };
    let budget = (avail as f64 * MEMORY_SHARE) as u64;
    let mut d = DEFAULT_DICT_LOG2;
    while d > MIN_DICT_LOG2 && bench_memory_bytes(d, threads) > budget {
        d -= 1;
    }
    let est = bench_memory_bytes(d, threads);
    let reason = if d == DEFAULT_DICT_LOG2 {
        format!(
            "default dictionary (2^{d}) needs ~{} MiB for {threads} threads, within {:.0}% of MemAvailable ({} MiB)",
            mib(est),
            MEMORY_SHARE * 100.0,
            mib(avail)
        )
    } else if est <= budget {
        format!(
            "2^{DEFAULT_DICT_LOG2} would need ~{} MiB for {threads} threads, more than {:.0}% of MemAvailable ({} MiB): -md{d} (~{} MiB)",
            mib(bench_memory_bytes(DEFAULT_DICT_LOG2, threads)),
            MEMORY_SHARE * 100.0,
            mib(avail),
            mib(est)
        )
    } else {
        format!(
            "even the smallest dictionary 2^{d} needs ~{} MiB for {threads} threads, more than {:.0}% of MemAvailable ({} MiB): expect swapping",
            mib(est),
            MEMORY_SHARE * 100.0,
            mib(avail)
        )
    };
    DictChoice {
        dict_log2: d,
        passed: d != DEFAULT_DICT_LOG2,
        threads,
        estimated_mib: mib(est),
        mem_available_mib: Some(mib(avail)),
        reason,
    }
}

/// Settings of one `7z b` run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SevenZipOptions {
    /// Restrict to these CPUs (`taskset -c`).
    pub cpus: Option<Vec<u32>>,
    /// `-mmtN`; `None` lets 7-zip use every CPU it may run on.
    pub threads: Option<u32>,
    /// Force a dictionary (`-mdN`); `None` chooses from MemAvailable.
    pub dict_log2: Option<u32>,
    /// `7z b N`: N passes per dictionary; `None` is 7-zip's default (short runs for tests).
    pub iterations: Option<u32>,
    /// Kill the run after this long.
    pub timeout_secs: u64,
    /// Moved on with each benchmark line 7-zip prints (not a setting).
    #[serde(default)]
    pub progress: Progress,
}

impl SevenZipOptions {
    /// Single-threaded on `cpu` (`taskset -c CPU 7z b -mmt1`), as sbc-bench does per cluster.
    pub fn single(cpu: u32) -> Self {
        SevenZipOptions {
            cpus: Some(vec![cpu]),
            threads: Some(1),
            dict_log2: None,
            iterations: None,
            timeout_secs: 1800,
            progress: Progress::default(),
        }
    }

    /// All CPUs (sbc-bench's three multi-threaded runs are three calls of this).
    pub fn all() -> Self {
        SevenZipOptions {
            cpus: None,
            threads: None,
            dict_log2: None,
            iterations: None,
            timeout_secs: 1800,
            progress: Progress::default(),
        }
    }

    /// All cores of one cluster (extensive mode).
    pub fn cluster(cpus: Vec<u32>) -> Self {
        let n = cpus.len() as u32;
        SevenZipOptions {
            cpus: Some(cpus),
            threads: Some(n),
            dict_log2: None,
            iterations: None,
            timeout_secs: 1800,
            progress: Progress::default(),
        }
    }
}

/// One finished run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SevenZipRun {
    pub program: String,
    pub dictionary: DictChoice,
    pub output: ToolOutput,
    /// `None` when the output held no result (see `output`).
    pub bench: Option<Bench>,
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum SevenZipError {
    #[error("7-zip is not installed (looked for {} in PATH); `apt install 7zip` adds 7zz", NAMES.join(", "))]
    NotInstalled,
    #[error(transparent)]
    Tool(#[from] ToolError),
}

/// Run `7z b [-mmtN] [-mdN]` with the first 7-zip found. `mem_available_bytes` comes from
/// the inventory (`MemAvailable`) and guides the dictionary; `allowed_cpus` is how many CPUs
/// the run may use when `threads` is `None`.
pub fn run(
    opts: &SevenZipOptions,
    mem_available_bytes: Option<u64>,
    allowed_cpus: u32,
    stop: Option<&AtomicBool>,
) -> Result<SevenZipRun, SevenZipError> {
    let program = find().ok_or(SevenZipError::NotInstalled)?;
    run_with(&program, opts, mem_available_bytes, allowed_cpus, stop)
}

/// [`run`] with an explicit binary.
pub fn run_with(
    program: &Path,
    opts: &SevenZipOptions,
    mem_available_bytes: Option<u64>,
    allowed_cpus: u32,
    stop: Option<&AtomicBool>,
) -> Result<SevenZipRun, SevenZipError> {
    let threads = opts
        .threads
        .or(opts.cpus.as_ref().map(|c| c.len() as u32))
        .unwrap_or(allowed_cpus)
        .max(1);
    let dictionary = match opts.dict_log2 {
        Some(d) => DictChoice {
            dict_log2: d,
            passed: true,
            threads,
            estimated_mib: bench_memory_bytes(d, threads) / (1024 * 1024),
            mem_available_mib: mem_available_bytes.map(|b| b / (1024 * 1024)),
            reason: "set by the caller".into(),
        },
        None => choose_dictionary(mem_available_bytes, threads),
    };
    let mut args = vec!["b".to_string()];
    if let Some(n) = opts.iterations {
        args.push(n.to_string());
    }
    if let Some(t) = opts.threads {
        args.push(format!("-mmt{t}"));
    }
    if dictionary.passed {
        args.push(format!("-md{}", dictionary.dict_log2));
    }
    // One line per pass and dictionary size (`22:`, `23:` … up to the chosen one; below 2^22
    // 7-zip starts one size lower).
    let sizes = if dictionary.dict_log2 >= 22 {
        dictionary.dict_log2 - 21
    } else {
        2
    };
    let expected = (opts.iterations.unwrap_or(1) * sizes).max(1) as f64;
    let lines = std::sync::atomic::AtomicU32::new(0);
    let on_line = |l: &str| {
        let t = l.trim_start();
        let numbered = t
            .find(':')
            .is_some_and(|i| i > 0 && t[..i].bytes().all(|b| b.is_ascii_digit()));
        if numbered {
            let n = lines.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            opts.progress.within((n as f64 / expected).min(0.99));
        }
    };
    let output = run_tool(
        program,
        &args,
        RunSpec {
            cpus: opts.cpus.as_deref(),
            timeout: Some(Duration::from_secs(opts.timeout_secs)),
            stop,
            on_line: Some(&on_line),
        },
    )?;
    let bench = parse_bench(&output.stdout).ok();
    Ok(SevenZipRun {
        program: program.display().to_string(),
        dictionary,
        output,
        bench,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_tokens_of_every_banner() {
        assert_eq!(
            parse_version_line(
                "7-Zip (a) [64] 16.02 : Copyright (c) 1999-2016 Igor Pavlov : 2016-05-21"
            )
            .as_deref(),
            Some("16.02")
        );
        assert_eq!(
            parse_version_line("7-Zip (A) 9.20  Copyright (c) 1999-2010 Igor Pavlov  2010-11-18")
                .as_deref(),
            Some("9.20")
        );
        assert_eq!(
            parse_version_line(
                "7-Zip 22.01 (x64) : Copyright (c) 1999-2022 Igor Pavlov : 2022-07-15"
            )
            .as_deref(),
            Some("22.01")
        );
        assert_eq!(
            parse_version_line(
                "7-Zip (z) 26.02 (x64) : Copyright (c) 1999-2026 Igor Pavlov : 2026-06-25"
            )
            .as_deref(),
            Some("26.02")
        );
        assert_eq!(parse_version_line("p7zip Version 16.02"), None);
    }

    #[test]
    fn memory_formula_matches_ram_usage_lines_in_the_corpus() {
        let mb = |d, t| bench_memory_bytes(d, t) / (1024 * 1024);
        // sbc-bench logs (p7zip 16.02): 435 MB @1, 441 @2, 882 @4, 1765 @8, 21180 @96.
        assert_eq!(mb(25, 1), 435);
        assert_eq!(mb(25, 2), 441);
        assert_eq!(mb(25, 4), 882);
        assert_eq!(mb(25, 8), 1765);
        assert_eq!(mb(25, 96), 21180);
        // Reduced dictionaries seen in the corpus: 450 MB and 234 MB with 4 threads.
        assert_eq!(mb(24, 4), 450);
        assert_eq!(mb(23, 4), 234);
        // 7-Zip 26.02 here: `-md22 -mmt1` printed 57 MB.
        assert_eq!(mb(22, 1), 57);
    }

    #[test]
    fn dictionary_shrinks_only_when_memory_is_short() {
        let gib = 1024 * 1024 * 1024u64;
        let big = choose_dictionary(Some(8 * gib), 4);
        assert_eq!((big.dict_log2, big.passed), (25, false));
        // 1 GB board, 8 threads, 700 MiB available: 1765 MB default does not fit.
        let small = choose_dictionary(Some(700 * 1024 * 1024), 8);
        assert!(small.passed);
        assert!(small.dict_log2 < 25);
        assert!(
            small.estimated_mib as f64 <= 700.0 * MEMORY_SHARE,
            "{small:?}"
        );
        assert!(
            bench_memory_bytes(small.dict_log2 + 1, 8) as f64
                > 700.0 * 1024.0 * 1024.0 * MEMORY_SHARE
        );
        assert!(small.reason.contains("-md"), "{}", small.reason);
        let unknown = choose_dictionary(None, 2);
        assert!(!unknown.passed);
        let hopeless = choose_dictionary(Some(1024 * 1024), 64);
        assert_eq!(hopeless.dict_log2, MIN_DICT_LOG2);
        assert!(hopeless.reason.contains("swapping"));
    }

    #[test]
    fn truncated_output_is_an_error() {
        let t = "7-Zip (a) [64] 16.02 : Copyright\n22:  1812  99  1781  1763 |  28415  99  2451  2426\n";
        assert_eq!(parse_bench(t).unwrap_err(), ParseError::NoTotal(2));
        assert!(parse_all("").is_empty());
    }
}
