//! "Where do I stand?": a result ranked among sbc-bench logs (a folder of logs, or the
//! repository's `results.tar.gz`) for each Results.md metric. 7-zip ratings are ranked only
//! against logs of the same 7-zip version family, since its scores change between versions.
//!
//! The corpus side uses each log's Results.md row as sbc-bench computed it (the numbers the
//! community table shows); the ranked result uses its own row.

use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::compare::{sevenzip_family, Metric, Metrics, METRICS};
use truebench_sbcbench::import::{parse, results_row};

#[derive(Debug, thiserror::Error)]
pub enum RankError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}: no sbc-bench log found (expected *.txt files or a .tar.gz of them)")]
    Empty(String),
}

/// One log of the corpus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorpusEntry {
    /// File name (`4qJG.txt`).
    pub name: String,
    pub device: String,
    pub metrics: Metrics,
}

fn entry(name: &str, text: &str) -> CorpusEntry {
    let log = parse(text);
    let row = results_row(&log);
    CorpusEntry {
        name: name.to_string(),
        device: row.device.clone(),
        metrics: Metrics {
            sevenzip_multi: row.sevenzip_multi.filter(|v| *v > 0),
            sevenzip_single: row.sevenzip_single.filter(|v| *v > 0),
            aes: row.aes.filter(|v| *v > 0),
            memcpy: row.memcpy.filter(|v| *v > 0),
            memset: row.memset.filter(|v| *v > 0),
            sevenzip_version: log.sevenzip.as_ref().and_then(|z| z.version.clone()),
            openssl_version: log.openssl.as_ref().and_then(|o| o.version.clone()),
        },
    }
}

/// Read every log of a folder (`*.txt`, not recursive) or a `.tar.gz` / `.tgz` archive.
pub fn load_corpus(path: &Path) -> Result<Vec<CorpusEntry>, RankError> {
    let shown = path.display().to_string();
    let io = |source| RankError::Io {
        path: shown.clone(),
        source,
    };
    let mut out = Vec::new();
    if path.is_dir() {
        let mut files: Vec<_> = std::fs::read_dir(path)
            .map_err(io)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "txt") && p.is_file())
            .collect();
        files.sort();
        for f in files {
            let bytes = std::fs::read(&f).map_err(|source| RankError::Io {
                path: f.display().to_string(),
                source,
            })?;
            let name = f
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            out.push(entry(&name, &String::from_utf8_lossy(&bytes)));
        }
    } else {
        let f = std::fs::File::open(path).map_err(io)?;
        let mut ar = tar::Archive::new(flate2::read::GzDecoder::new(f));
        for e in ar.entries().map_err(io)? {
            let mut e = e.map_err(io)?;
            if !e.header().entry_type().is_file() {
                continue;
            }
            let name = e
                .path()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_default();
            if !name.ends_with(".txt") {
                continue;
            }
            let mut bytes = Vec::new();
            e.read_to_end(&mut bytes).map_err(io)?;
            out.push(entry(&name, &String::from_utf8_lossy(&bytes)));
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
    }
    if out.is_empty() {
        return Err(RankError::Empty(shown));
    }
    Ok(out)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Neighbour {
    pub rank: usize,
    pub name: String,
    pub device: String,
    pub value: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rank {
    pub metric: Metric,
    pub value: Option<u64>,
    /// The 7-zip family ranked within (`16.x`), for 7-zip metrics.
    pub family: Option<String>,
    /// 1 = best. None without a value or without corpus logs to rank against.
    pub rank: Option<usize>,
    /// Logs ranked against plus this result.
    pub of: usize,
    /// Up to `n` logs just above (best first) and just below.
    pub above: Vec<Neighbour>,
    pub below: Vec<Neighbour>,
    /// Why the rank is missing or only indicative.
    pub note: Option<String>,
}

/// Rank `m` for every metric; `n` neighbours on each side.
pub fn rank(m: &Metrics, corpus: &[CorpusEntry], n: usize) -> Vec<Rank> {
    METRICS
        .iter()
        .map(|&metric| {
            let value = metric.get(m);
            let mut note = None;
            let mut family = None;
            let pool: Vec<&CorpusEntry> = if metric.sevenzip() {
                let with: Vec<&CorpusEntry> = corpus
                    .iter()
                    .filter(|e| metric.get(&e.metrics).is_some())
                    .collect();
                let mine = m.sevenzip_version.as_deref().map(sevenzip_family);
                let same: Vec<&CorpusEntry> = with
                    .iter()
                    .copied()
                    .filter(|e| {
                        e.metrics.sevenzip_version.as_deref().map(sevenzip_family) == mine
                    })
                    .collect();
                if same.is_empty() && mine.is_some() {
                    // Nothing of the same family: rank among the biggest family, flagged.
                    let mut fams: Vec<(String, usize)> = Vec::new();
                    for e in &with {
                        if let Some(f) = e.metrics.sevenzip_version.as_deref().map(sevenzip_family) {
                            match fams.iter_mut().find(|x| x.0 == f) {
                                Some(x) => x.1 += 1,
                                None => fams.push((f, 1)),
                            }
                        }
                    }
                    fams.sort_by_key(|f| std::cmp::Reverse(f.1));
                    match fams.first() {
                        Some((f, _)) => {
                            note = Some(format!(
                                "no corpus log ran 7-zip {}; indicative only, among 7-zip {f} logs (7-zip's ratings change between versions)",
                                mine.clone().unwrap_or_default()
                            ));
                            family = Some(f.clone());
                            with.into_iter()
                                .filter(|e| {
                                    e.metrics.sevenzip_version.as_deref().map(sevenzip_family).as_ref()
                                        == Some(f)
                                })
                                .collect()
                        }
                        None => Vec::new(),
                    }
                } else {
                    family = mine;
                    same
                }
            } else {
                corpus
                    .iter()
                    .filter(|e| metric.get(&e.metrics).is_some())
                    .collect()
            };
            let Some(v) = value else {
                return Rank {
                    metric,
                    value,
                    family,
                    rank: None,
                    of: pool.len(),
                    above: Vec::new(),
                    below: Vec::new(),
                    note: Some("this result has no such score".into()),
                };
            };
            if pool.is_empty() {
                return Rank {
                    metric,
                    value,
                    family,
                    rank: None,
                    of: 1,
                    above: Vec::new(),
                    below: Vec::new(),
                    note: Some("no corpus log has this score".into()),
                };
            }
            let mut sorted: Vec<(u64, &CorpusEntry)> = pool
                .iter()
                .filter_map(|e| Some((metric.get(&e.metrics)?, *e)))
                .collect();
            sorted.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.name.cmp(&b.1.name)));
            // Ties rank the result above the logs it equals.
            let higher = sorted.iter().filter(|x| x.0 > v).count();
            let nb = |i: usize, x: &(u64, &CorpusEntry), after: bool| Neighbour {
                rank: i + 1 + usize::from(after),
                name: x.1.name.clone(),
                device: x.1.device.clone(),
                value: x.0,
            };
            let above = sorted[higher.saturating_sub(n)..higher]
                .iter()
                .enumerate()
                .map(|(k, x)| nb(higher.saturating_sub(n) + k, x, false))
                .collect();
            let end = (higher + n).min(sorted.len());
            let below = sorted[higher..end]
                .iter()
                .enumerate()
                .map(|(k, x)| nb(higher + k, x, true))
                .collect();
            Rank {
                metric,
                value,
                family,
                rank: Some(higher + 1),
                of: sorted.len() + 1,
                above,
                below,
                note,
            }
        })
        .collect()
}

/// The ranks as text.
pub fn render(label: &str, corpus_len: usize, ranks: &[Rank]) -> String {
    let mut o = format!("Where {label} stands among {corpus_len} sbc-bench logs:\n");
    for r in ranks {
        let head = format!(
            "{} ({}){}",
            r.metric.label(),
            r.metric.unit(),
            r.family
                .as_ref()
                .map(|f| format!(", 7-zip {f}"))
                .unwrap_or_default()
        );
        match (r.value, r.rank) {
            (Some(v), Some(k)) => {
                o.push_str(&format!("\n{head}: {v} — rank {k} of {}\n", r.of));
                let nw = r
                    .above
                    .iter()
                    .chain(&r.below)
                    .map(|x| x.name.chars().count())
                    .chain([label_short(label).chars().count()])
                    .max()
                    .unwrap_or(10);
                for x in &r.above {
                    o.push_str(&format!(
                        "    {:>4}. {:<nw$} {:>9}  {}\n",
                        x.rank, x.name, x.value, x.device
                    ));
                }
                o.push_str(&format!(
                    "  → {:>4}. {:<nw$} {:>9}  (this result)\n",
                    k,
                    label_short(label),
                    v
                ));
                for x in &r.below {
                    o.push_str(&format!(
                        "    {:>4}. {:<nw$} {:>9}  {}\n",
                        x.rank, x.name, x.value, x.device
                    ));
                }
            }
            _ => o.push_str(&format!(
                "\n{head}: {}\n",
                r.note.as_deref().unwrap_or("not ranked")
            )),
        }
        if let (Some(n), Some(_)) = (&r.note, r.rank) {
            o.push_str(&format!("    note: {n}\n"));
        }
    }
    o
}

fn label_short(l: &str) -> String {
    if l.chars().count() > 24 {
        let t: String = l.chars().take(23).collect();
        format!("{t}…")
    } else {
        l.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(name: &str, multi: u64, v: &str) -> CorpusEntry {
        CorpusEntry {
            name: name.into(),
            device: format!("board {name}"),
            metrics: Metrics {
                sevenzip_multi: Some(multi),
                memcpy: Some(multi / 2),
                sevenzip_version: Some(v.into()),
                ..Default::default()
            },
        }
    }

    #[test]
    fn ranks_within_the_family_with_neighbours() {
        let corpus = vec![
            e("a", 1000, "16.02"),
            e("b", 3000, "16.02"),
            e("c", 2000, "16.02"),
            e("d", 9000, "9.20"),
            e("f", 500, "16.02"),
        ];
        let m = Metrics {
            sevenzip_multi: Some(2500),
            memcpy: Some(1200),
            sevenzip_version: Some("16.02".into()),
            ..Default::default()
        };
        let r = rank(&m, &corpus, 1);
        let multi = &r[0];
        // 9.20's 9000 is another family: 3000 > 2500 > 2000 > 1000 > 500.
        assert_eq!(multi.rank, Some(2));
        assert_eq!(multi.of, 5);
        assert_eq!(multi.above[0].name, "b");
        assert_eq!(multi.below[0].name, "c");
        assert_eq!(multi.below[0].rank, 3);
        // memcpy: all logs, 4500 1500 1000 (→1200 is 3rd) 500 250.
        let memcpy = r.iter().find(|x| x.metric == Metric::Memcpy).unwrap();
        assert_eq!(memcpy.rank, Some(3));
        assert_eq!(memcpy.of, 6);
        // Another family only: ranked among the biggest one, with a note.
        let m2 = Metrics {
            sevenzip_multi: Some(2500),
            sevenzip_version: Some("26.02".into()),
            ..Default::default()
        };
        let r2 = rank(&m2, &corpus, 2);
        assert_eq!(r2[0].family.as_deref(), Some("16.x"));
        assert!(r2[0].note.as_deref().unwrap().contains("26.x"));
        assert_eq!(r2[0].rank, Some(2));
        // No value: no rank.
        assert_eq!(r2[2].rank, None);
    }
}
