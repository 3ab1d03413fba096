//! The figures of a `run` result.

use crate::{Figures, Metric};
use serde::{Deserialize, Serialize};
use truebench_model::*;

type RunView<'a> = View<'a, RunBody>;

impl Figures for RunBody {
    /// The Results.md scores as the run page's cards: every one, "–" where not measured.
    fn headline(r: RunView<'_>) -> Vec<crate::Headline> {
        use crate::headline::{fig, Headline};
        let m = metrics(r);
        let invalid = (!truebench_model::finding::is_valid(&r.envelope.findings))
            .then_some("see the verdicts");
        let card = |label: &str, v: Option<u64>, unit: &str, note: String| {
            Headline::new(
                label,
                v.map_or(format!("– {unit}"), |v| format!("{} {unit}", fig(v as f64))),
            )
            .note(note)
            .invalid(v.and(invalid))
        };
        let best_cluster = || "tinymembench's measure, best cluster".to_string();
        vec![
            card(
                "7-zip multi",
                m.sevenzip_multi,
                "MIPS",
                m.sevenzip_version
                    .as_ref()
                    .map(|v| format!("7-Zip {v}, all cores"))
                    .unwrap_or_default(),
            ),
            card("7-zip single", m.sevenzip_single, "MIPS", "best core".into()),
            card(
                "AES-256-CBC",
                m.aes,
                "kB/s",
                format!(
                    "16 KiB blocks{}",
                    m.openssl_version
                        .as_ref()
                        .map(|v| format!(", OpenSSL {v}"))
                        .unwrap_or_default()
                ),
            ),
            card("memcpy", m.memcpy, "MB/s", best_cluster()),
            card("memset", m.memset, "MB/s", best_cluster()),
        ]
    }

    fn label(r: RunView<'_>) -> String {
        r.body.mode.as_str().to_string()
    }

    fn metrics(r: RunView<'_>) -> Vec<Metric> {
        let m = metrics(r);
        let mut out = Vec::new();
        let mut num = |k: &str, v: Option<u64>, unit: &str| {
            if let Some(v) = v {
                out.push(Metric::number(k, v as f64, Some(unit)));
            }
        };
        num("sevenzip_multi", m.sevenzip_multi, "MIPS");
        num("sevenzip_single", m.sevenzip_single, "MIPS");
        num("aes", m.aes, "kB/s");
        num("memcpy", m.memcpy, "MB/s");
        num("memset", m.memset, "MB/s");
        if let Some(v) = m.sevenzip_version {
            out.push(Metric::text("sevenzip_version", v));
        }
        if let Some(v) = m.openssl_version {
            out.push(Metric::text("openssl_version", v));
        }
        out
    }
}

/// The Results.md scores of a result and the tool versions they depend on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// 7-zip total rating, mean of the all-core runs rounded to 10 (MIPS).
    pub sevenzip_multi: Option<u64>,
    /// Best single-threaded 7-zip total rating (MIPS).
    pub sevenzip_single: Option<u64>,
    /// aes-256-cbc at 16 KiB, best cluster, 1000 bytes/s rounded to 10.
    pub aes: Option<u64>,
    /// Best cluster, MB/s rounded to 10.
    pub memcpy: Option<u64>,
    pub memset: Option<u64>,
    /// `16.02`, `26.02`.
    pub sevenzip_version: Option<String>,
    /// `3.0.7`; `built-in …` for truebench's own AES kernel.
    pub openssl_version: Option<String>,
}

/// `OpenSSL 3.0.19 27 Jan 2026 (…)` / `OpenSSL 3.0.7, built on …` → `3.0.19` / `3.0.7`.
pub fn openssl_short(v: &str) -> String {
    let t = v.trim();
    match t.strip_prefix("OpenSSL ") {
        Some(rest) => rest
            .split(|c: char| c.is_whitespace() || c == ',')
            .next()
            .unwrap_or(rest)
            .to_string(),
        None => t.to_string(),
    }
}

/// The figures of `r`, computed the way its Results.md row is.
pub fn metrics(r: RunView<'_>) -> Metrics {
    let row = truebench_sbcbench::from_result::row(r);
    let mut sevenzip_version = None;
    for name in [phase::COMPRESSION_MULTI, phase::COMPRESSION_SINGLE] {
        for c in r.body.compression(name) {
            if c.tool == CompressionTool::SevenZip && sevenzip_version.is_none() {
                sevenzip_version = c.version.clone();
            }
        }
    }
    let openssl_version = r.body.aes(phase::AES).map(|a| match a.source {
            AesSourceKind::Openssl => a
                .version
                .as_deref()
                .map(openssl_short)
                .unwrap_or_else(|| "unknown".into()),
            AesSourceKind::Builtin => {
                format!("built-in ({})", a.version.as_deref().unwrap_or("truebench"))
            }
    });
    Metrics {
        sevenzip_multi: row.sevenzip_multi,
        sevenzip_single: row.sevenzip_single,
        aes: row.aes,
        memcpy: row.memcpy,
        memset: row.memset,
        sevenzip_version,
        openssl_version,
    }
}
