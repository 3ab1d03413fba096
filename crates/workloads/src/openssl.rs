//! `openssl speed -elapsed -evp CIPHER` adapter: run it pinned, keep its output, parse the
//! table of every OpenSSL generation (0.9.8/1.0.x: five sizes; 1.1.x: six; 3.x: upper-case
//! names and a `version:` line; `-multi` in 3.x: no header) and sbc-bench's condensed logs.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::aes::{AesRow, AesTable, Cipher, SIZES};
use crate::progress::Progress;
use crate::tool::{find_tool, run_tool, RunSpec, ToolError, ToolOutput};

/// The version an OpenSSL (or LibreSSL) output names: `1.1.1f`, `3.0.19`, `3.2.2-dev`.
///
/// Accepts `openssl version` (`OpenSSL 3.0.2 15 Mar 2022 (Library: …)`, sbc-bench's
/// `OpenSSL 3.0.2, built on …`), the banner of 1.x `speed` (`OpenSSL 1.0.2g  1 Mar 2016`)
/// and 3.x's `version: 3.0.19`.
pub fn parse_version(text: &str) -> Option<String> {
    for line in text.lines() {
        let l = line.trim();
        let rest = l
            .strip_prefix("OpenSSL ")
            .or_else(|| l.strip_prefix("LibreSSL "))
            .or_else(|| l.strip_prefix("version: "));
        if let Some(rest) = rest {
            let v: String = rest
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != ',')
                .collect();
            if v.starts_with(|c: char| c.is_ascii_digit()) {
                return Some(v);
            }
        }
    }
    None
}

/// (major, minor, patch) of a version string; letters and suffixes ignored.
pub fn version_tuple(v: &str) -> Option<(u32, u32, u32)> {
    let mut it = v.split(['.', '-']).map(|p| {
        p.chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse::<u32>()
            .ok()
    });
    let major = it.next()??;
    let minor = it.next().flatten().unwrap_or(0);
    let patch = it.next().flatten().unwrap_or(0);
    Some((major, minor, patch))
}

/// Whether `speed` of this version knows `-seconds` (added in 1.1.0; absent from LibreSSL's
/// older releases — the adapter retries without it on an error anyway).
pub fn supports_seconds(version: &str) -> bool {
    version_tuple(version).is_some_and(|t| t >= (1, 1, 0))
}

/// Why a speed output could not be read.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ParseError {
    #[error("no `openssl speed` table in the output ({0} lines)")]
    NoTable(usize),
}

/// Parse every speed table in `text` into one table (rows in order of appearance).
///
/// Values are `12345.67k` (1000s of bytes/s); OpenSSL ≤ 1.1 prints values of at most
/// 10000 bytes/s without the `k`, in bytes/s — converted here. Text after the last value
/// (sbc-bench appends `(Cortex-A53)`) is ignored.
pub fn parse_speed(text: &str) -> Result<AesTable, ParseError> {
    let mut sizes: Option<Vec<usize>> = None;
    let mut rows = Vec::new();
    for line in text.lines() {
        let l = line.trim();
        if let Some(h) = parse_header(l) {
            sizes = Some(h);
            continue;
        }
        if let Some(h) = l.strip_prefix("+H:") {
            // -multi / -mr header: `+H:16:64:256:1024:8192:16384`.
            let v: Vec<usize> = h.split(':').filter_map(|x| x.parse().ok()).collect();
            if !v.is_empty() && sizes.is_none() {
                sizes = Some(v);
            }
            continue;
        }
        if let Some(row) = parse_row(l, sizes.as_ref().map(Vec::len)) {
            rows.push(row);
        }
    }
    if rows.is_empty() {
        return Err(ParseError::NoTable(text.lines().count()));
    }
    let width = rows.iter().map(|r| r.k.len()).max().unwrap_or(0);
    let sizes = sizes.unwrap_or_else(|| SIZES[..width.min(SIZES.len())].to_vec());
    for r in &mut rows {
        r.k.truncate(sizes.len());
    }
    Ok(AesTable { sizes, rows })
}

/// `type             16 bytes     64 bytes …` → [16, 64, …].
fn parse_header(l: &str) -> Option<Vec<usize>> {
    let rest = l.strip_prefix("type")?;
    let toks: Vec<&str> = rest.split_whitespace().collect();
    let mut sizes = Vec::new();
    let mut i = 0;
    while i + 1 < toks.len() {
        if toks[i + 1] == "bytes" {
            sizes.push(toks[i].parse().ok()?);
            i += 2;
        } else {
            return None;
        }
    }
    (!sizes.is_empty()).then_some(sizes)
}

/// A value token: `848212.30k` → k; `9876.54` (bytes/s, old OpenSSL) → k.
fn parse_value(tok: &str) -> Option<f64> {
    match tok.strip_suffix('k') {
        Some(n) => n.parse::<f64>().ok(),
        None => {
            if tok.contains('.') {
                tok.parse::<f64>().ok().map(|b| b / 1000.0)
            } else {
                None
            }
        }
    }
}

/// `aes-128-cbc     339708.40k   878890.22k …` — a name (may contain spaces) then at least
/// four values (five sizes in old tables, six in new; fewer means it is not a speed row).
fn parse_row(l: &str, expected: Option<usize>) -> Option<AesRow> {
    if l.starts_with('+') || l.is_empty() {
        return None;
    }
    let toks: Vec<&str> = l.split_whitespace().collect();
    let first_val = toks.iter().position(|t| parse_value(t).is_some())?;
    if first_val == 0 {
        return None;
    }
    let mut k = Vec::new();
    for t in &toks[first_val..] {
        match parse_value(t) {
            Some(v) => k.push(v),
            None => break,
        }
        if expected.is_some_and(|n| k.len() == n) {
            break;
        }
    }
    if k.len() < 4 {
        return None;
    }
    let name = toks[..first_val].join(" ");
    // Reject `Doing …`, `compiler: …` and other prose that happens to hold numbers.
    if name.ends_with(':') || name.split_whitespace().count() > 3 {
        return None;
    }
    Some(AesRow {
        cipher: Cipher::from_name(&name),
        name,
        k,
    })
}

/// Settings of an `openssl speed` run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpensslOptions {
    /// Pin to this CPU (`taskset -c`).
    pub cpu: Option<u32>,
    /// `-seconds N` per chunk size where supported (OpenSSL's default is 3).
    pub seconds: Option<u32>,
    /// `-multi N`: N processes in parallel (the all-cores AES run); pinning then covers `cpus`.
    pub multi: Option<u32>,
    /// CPUs for a `-multi` run.
    pub cpus: Option<Vec<u32>>,
    pub ciphers: Vec<Cipher>,
    /// Moved on with each block size openssl reports starting (not a setting).
    #[serde(default)]
    pub progress: Progress,
}

impl OpensslOptions {
    /// sbc-bench-comparable: every cipher, 1 s per chunk size (24 s per CPU).
    pub fn standard() -> Self {
        OpensslOptions {
            cpu: None,
            seconds: Some(1),
            multi: None,
            cpus: None,
            ciphers: Cipher::ALL.to_vec(),
            progress: Progress::default(),
        }
    }

    pub fn on_cpu(mut self, cpu: u32) -> Self {
        self.cpu = Some(cpu);
        self
    }
}

/// One `openssl speed` invocation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpensslRun {
    pub cipher: Cipher,
    pub output: ToolOutput,
    /// `None` when the output held no table (see `output`).
    pub table: Option<AesTable>,
}

/// The whole adapter result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpensslResult {
    pub program: String,
    /// First line of `openssl version`.
    pub version_line: String,
    pub version: Option<String>,
    pub cpu: Option<u32>,
    /// `-seconds` was passed.
    pub seconds_option: Option<u32>,
    pub runs: Vec<OpensslRun>,
    /// All ciphers' rows merged (sizes of the first table).
    pub table: AesTable,
}

/// Why the adapter failed.
#[derive(Debug, thiserror::Error)]
pub enum OpensslError {
    #[error("openssl is not installed (looked for `openssl` in PATH)")]
    NotInstalled,
    #[error(transparent)]
    Tool(#[from] ToolError),
    #[error("`{command}` printed no speed table (exit {exit:?}); stderr: {stderr}")]
    NoTable {
        command: String,
        exit: Option<i32>,
        stderr: String,
    },
}

/// Path of the `openssl` binary, if installed.
pub fn find() -> Option<PathBuf> {
    find_tool(&["openssl"])
}

/// `openssl version` → (first line, parsed version).
pub fn version(program: &Path) -> Result<(String, Option<String>), OpensslError> {
    let out = run_tool(
        program,
        &["version".to_string()],
        RunSpec {
            timeout: Some(Duration::from_secs(10)),
            ..RunSpec::default()
        },
    )?;
    let line = out.stdout.lines().next().unwrap_or("").trim().to_string();
    let v = parse_version(&line);
    Ok((line, v))
}

/// Run `openssl speed -elapsed [-seconds N] [-multi N] -evp CIPHER` for each cipher.
pub fn measure(
    opts: &OpensslOptions,
    stop: Option<&AtomicBool>,
) -> Result<OpensslResult, OpensslError> {
    let program = find().ok_or(OpensslError::NotInstalled)?;
    measure_with(&program, opts, stop)
}

/// [`measure`] with an explicit binary.
pub fn measure_with(
    program: &Path,
    opts: &OpensslOptions,
    stop: Option<&AtomicBool>,
) -> Result<OpensslResult, OpensslError> {
    let (version_line, ver) = version(program)?;
    let mut seconds = opts
        .seconds
        .filter(|_| ver.as_deref().is_none_or(supports_seconds));
    let cpus: Option<Vec<u32>> = match (&opts.cpus, opts.cpu) {
        (Some(c), _) => Some(c.clone()),
        (None, Some(c)) => Some(vec![c]),
        (None, None) => None,
    };
    let mut runs = Vec::new();
    // Progress: one step per cipher and block size, `Doing aes-256-cbc … on 16 size blocks`.
    let steps = (opts.ciphers.len() * SIZES.len()).max(1) as f64;
    for (ci, &cipher) in opts.ciphers.iter().enumerate() {
        let doing = std::sync::atomic::AtomicUsize::new(0);
        let on_line = |l: &str| {
            if l.trim_start().starts_with("Doing ") {
                let n = doing.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                opts.progress.within((ci * SIZES.len() + n) as f64 / steps);
            }
        };
        let mut attempt = 0;
        let run = loop {
            let mut args = vec!["speed".to_string(), "-elapsed".to_string()];
            if let Some(s) = seconds {
                args.extend(["-seconds".to_string(), s.to_string()]);
            }
            if let Some(m) = opts.multi {
                args.extend(["-multi".to_string(), m.to_string()]);
            }
            args.extend(["-evp".to_string(), cipher.name().to_string()]);
            // Generous: OpenSSL's default is 3 s per size, 6 sizes; -multi forks per size.
            let per = seconds.unwrap_or(3) as u64;
            let spec = RunSpec {
                cpus: cpus.as_deref(),
                timeout: Some(Duration::from_secs(60 + per * 6 * 3)),
                stop,
                on_line: Some(&on_line),
            };
            let output = run_tool(program, &args, spec)?;
            let table = parse_speed(&output.stdout).ok();
            // Old builds reject -seconds: retry once without it.
            if table.is_none() && seconds.is_some() && attempt == 0 && !output.stopped {
                attempt += 1;
                seconds = None;
                continue;
            }
            break OpensslRun {
                cipher,
                output,
                table,
            };
        };
        let failed = run.table.is_none();
        if failed && !run.output.stopped {
            return Err(OpensslError::NoTable {
                command: run.output.command_line(),
                exit: run.output.exit_code,
                stderr: run
                    .output
                    .stderr
                    .lines()
                    .take(3)
                    .collect::<Vec<_>>()
                    .join(" | "),
            });
        }
        runs.push(run);
        if failed {
            break;
        }
    }
    let mut table = AesTable::default();
    for r in &runs {
        if let Some(t) = &r.table {
            if table.sizes.is_empty() {
                table.sizes = t.sizes.clone();
            }
            table.rows.extend(t.rows.iter().cloned());
        }
    }
    Ok(OpensslResult {
        program: program.display().to_string(),
        version_line,
        version: ver,
        cpu: opts.cpu,
        seconds_option: seconds,
        runs,
        table,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_from_every_banner() {
        assert_eq!(
            parse_version(
                "OpenSSL 3.0.2, built on 15 Mar 2022 (Library: OpenSSL 3.0.2 15 Mar 2022)"
            ),
            Some("3.0.2".into())
        );
        assert_eq!(
            parse_version("OpenSSL 1.0.2g  1 Mar 2016"),
            Some("1.0.2g".into())
        );
        assert_eq!(
            parse_version("junk\nversion: 3.0.19\nbuilt on: x"),
            Some("3.0.19".into())
        );
        assert_eq!(parse_version("LibreSSL 3.8.2"), Some("3.8.2".into()));
        assert_eq!(
            parse_version("OpenSSL 3.2.2-dev, built on"),
            Some("3.2.2-dev".into())
        );
        assert_eq!(parse_version("nothing here"), None);
    }

    #[test]
    fn seconds_option_from_1_1_0() {
        assert!(!supports_seconds("1.0.2g"));
        assert!(!supports_seconds("0.9.8zh"));
        assert!(supports_seconds("1.1.0f"));
        assert!(supports_seconds("3.0.19"));
        assert_eq!(version_tuple("1.1.1w"), Some((1, 1, 1)));
        assert_eq!(version_tuple("x"), None);
    }

    #[test]
    fn small_values_without_k_are_bytes_per_second() {
        let t = parse_speed(
            "type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes\n\
             aes-128-cbc      9519.15      1784.13k     6315.78k    25199.27k   124499.22k\n",
        )
        .unwrap();
        assert_eq!(t.rows[0].k[0], 9.51915);
        assert_eq!(t.rows[0].k[1], 1784.13);
    }

    #[test]
    fn prose_with_numbers_is_not_a_row() {
        assert!(
            parse_speed("Doing aes-128-cbc for 3s on 16 size blocks: 1 aes's in 3.00s\n").is_err()
        );
        assert_eq!(parse_speed("").unwrap_err(), ParseError::NoTable(0));
    }
}
