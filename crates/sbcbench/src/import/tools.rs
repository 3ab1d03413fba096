//! OpenSSL, 7-zip, cpuminer and stockfish output.

use super::util::{cpu_number, int, is_separator, number, split_label};
use crate::log::{
    Cpuminer, OpenSsl, OpenSslRow, SevenZip, SevenZipKind, SevenZipRun, SevenZipSummary, Stockfish,
    StockfishRun,
};

/// `aes-256-cbc     848212.30k  1326481.54k … 1458356.22k (Cortex-A720)`
pub fn openssl_row(line: &str) -> Option<OpenSslRow> {
    let line = line.trim_end();
    if !line.starts_with("aes-") {
        return None;
    }
    let (body, label) = match line.find(" (") {
        Some(i) if line.ends_with(')') => {
            (&line[..i], Some(line[i + 2..line.len() - 1].to_string()))
        }
        _ => (line, None),
    };
    let mut toks = body.split_whitespace();
    let algorithm = toks.next()?.to_string();
    let mut kbytes_per_s = Vec::new();
    for t in toks {
        kbytes_per_s.push(number(t.strip_suffix('k')?)?);
    }
    if kbytes_per_s.is_empty() {
        return None;
    }
    Some(OpenSslRow {
        algorithm,
        label,
        kbytes_per_s,
    })
}

fn openssl_version(line: &str) -> Option<String> {
    let rest = line.strip_prefix("OpenSSL")?.trim();
    let rest = rest.strip_prefix("(version").unwrap_or(rest).trim();
    let v = rest.split([',', ' ', ')']).next()?;
    (!v.is_empty() && v.starts_with(|c: char| c.is_ascii_digit())).then(|| v.to_string())
}

pub fn openssl(lines: &[&str]) -> Option<OpenSsl> {
    let mut o = OpenSsl::default();
    let mut seen = false;
    for line in lines {
        if line.starts_with("Executing benchmark twice on cluster") {
            o.mode = Some("twice".into());
        } else if line.starts_with("Executing benchmark on each cluster individually") {
            o.mode = Some("per_cluster".into());
        } else if line.starts_with("OpenSSL") && o.version_line.is_none() {
            o.version_line = Some(line.trim().to_string());
            o.version = openssl_version(line);
        } else if let Some(rest) = line.strip_prefix("type ") {
            if o.block_sizes.is_empty() {
                o.block_sizes = rest
                    .split("bytes")
                    .filter_map(|s| int(s.trim()).map(|v| v as u32))
                    .collect();
            }
            seen = true;
        } else if let Some(r) = openssl_row(line) {
            o.rows.push(r);
            seen = true;
        }
    }
    seen.then_some(o)
}

/// `7-Zip (a) [64] 16.02 : Copyright …`, `7-Zip (a) 23.01 (arm64) : …`, `7-Zip (A) 9.20  Copyright`
fn sevenzip_version(banner: &str) -> Option<String> {
    banner
        .split_whitespace()
        .skip(1)
        .find(|t| t.starts_with(|c: char| c.is_ascii_digit()) && t.contains('.'))
        .map(|t| t.to_string())
}

fn numbers_of(rest: &str) -> Vec<u64> {
    rest.split_whitespace().filter_map(int).collect()
}

fn csv_numbers(rest: &str) -> Vec<u64> {
    rest.split(',').filter_map(int).collect()
}

pub fn sevenzip(lines: &[&str]) -> Option<SevenZip> {
    let mut z = SevenZip::default();
    // (kind, cpu, label, explicit) of the last `Executing benchmark …` marker
    let mut marker: Option<(SevenZipKind, Option<u32>, Option<String>)> = None;
    let mut summary_seen = false;
    let mut any_marker = false;
    let mut current: Option<SevenZipRun> = None;
    for line in lines {
        if let Some(rest) = line.strip_prefix("Executing benchmark single-threaded on ") {
            let (cpu, label) = split_label(rest);
            marker = Some((SevenZipKind::Single, cpu_number(&cpu), label));
            any_marker = true;
        } else if let Some(rest) = line.strip_prefix("Executing benchmark ") {
            if rest.contains("multi-threaded") || rest.contains("times single-threaded on CPU") {
                let label = rest
                    .find(" on CPU")
                    .map(|i| rest[i + 4..].trim().to_string());
                let kind = if summary_seen {
                    SevenZipKind::Cluster
                } else {
                    SevenZipKind::Multi
                };
                marker = Some((kind, None, label));
                any_marker = true;
            }
        }
        let t = line.trim_start();
        if t.starts_with("7-Zip") {
            if let Some(r) = current.take() {
                z.runs.push(r);
            }
            if z.banner.is_none() {
                z.banner = Some(t.trim().to_string());
                z.version = sevenzip_version(t);
            }
            let (kind, cpu, label) = marker.clone().unwrap_or((SevenZipKind::Single, None, None));
            current = Some(SevenZipRun {
                kind,
                cpu,
                label,
                ..Default::default()
            });
        } else if let Some(run) = current.as_mut() {
            if let Some(i) = t.find("# Benchmark threads:") {
                run.threads = int(t[i + 20..].trim()).map(|v| v as u32);
                if let Some(r) = t.strip_prefix("RAM usage:") {
                    run.ram_usage_mb = r.split_whitespace().next().and_then(int);
                }
            } else if let Some(rest) = t.strip_prefix("Avr:") {
                let n = numbers_of(&rest.replace('|', " "));
                if n.len() >= 6 {
                    run.avr = Some([n[0], n[1], n[2], n[3], n[4], n[5]]);
                }
            } else if let Some(rest) = t.strip_prefix("Tot:") {
                let n = numbers_of(rest);
                if n.len() >= 3 {
                    run.tot = Some([n[0], n[1], n[2]]);
                }
                z.runs.push(current.take().unwrap_or_default());
            }
        }
        if let Some(rest) = line.strip_prefix("Compression:") {
            let s = z.summary.get_or_insert_with(SevenZipSummary::default);
            if s.compression.is_empty() {
                s.compression = csv_numbers(rest);
                summary_seen = true;
            }
        } else if let Some(rest) = line.strip_prefix("Decompression:") {
            if let Some(s) = z.summary.as_mut() {
                if s.decompression.is_empty() {
                    s.decompression = csv_numbers(rest);
                }
            }
        } else if let Some(rest) = line.strip_prefix("Total:") {
            if !rest.contains("kH/s") {
                if let Some(s) = z.summary.as_mut() {
                    if s.total.is_empty() {
                        s.total = csv_numbers(rest);
                    }
                }
            }
        }
    }
    if let Some(r) = current.take() {
        z.runs.push(r);
    }
    if z.runs.is_empty() && z.summary.is_none() {
        return None;
    }
    if !any_marker {
        // v0.4 … v0.8 printed no markers: the summary lists one figure per multi-threaded
        // run, and those were the last runs; the runs before them were single-threaded.
        let k = z
            .summary
            .as_ref()
            .map_or(0, |s| s.total.len().max(s.compression.len()));
        let finished: Vec<usize> = (0..z.runs.len())
            .filter(|&i| z.runs[i].tot.is_some())
            .collect();
        let first_multi = finished
            .len()
            .checked_sub(k)
            .and_then(|i| finished.get(i).copied());
        for (i, run) in z.runs.iter_mut().enumerate() {
            run.kind = match first_multi {
                Some(f) if i >= f => SevenZipKind::Multi,
                _ => SevenZipKind::Single,
            };
        }
    }
    Some(z)
}

pub fn cpuminer(lines: &[&str]) -> Option<Cpuminer> {
    let mut c = Cpuminer::default();
    let mut seen = false;
    for line in lines {
        if let Some(rest) = line.strip_prefix("** cpuminer") {
            c.version = Some(
                format!("cpuminer{rest}")
                    .split(" by ")
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_string(),
            );
            seen = true;
        } else if let Some(rest) = line.strip_prefix("Total Scores:").or_else(|| {
            // the terminal summary's wording, in logs pasted from a console
            line.strip_prefix("Cpuminer total scores (5 minutes execution):")
                .map(|r| r.trim().trim_end_matches("kH/s"))
        }) {
            c.total_scores = rest
                .trim()
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            seen = true;
        } else if line.trim_end().ends_with("kH/s") {
            if let Some(i) = line.find(" Total: ") {
                if let Some(v) = number(line[i + 8..].trim_end().trim_end_matches("kH/s")) {
                    c.totals_khs.push(v);
                }
            }
        }
    }
    seen.then_some(c)
}

pub fn stockfish(lines: &[&str]) -> Option<Stockfish> {
    let start = lines
        .iter()
        .position(|l| l.starts_with("Executing Stockfish"))?;
    let mut s = Stockfish {
        heading: lines[start].trim().trim_end_matches(':').to_string(),
        ..Default::default()
    };
    let mut run: Option<StockfishRun> = None;
    for line in &lines[start + 1..] {
        if is_separator(line) {
            break;
        }
        let value = |l: &str| l.split_once(':').and_then(|(_, v)| int(v));
        if line.starts_with("Total time (ms)") {
            if let Some(r) = run.take() {
                s.runs.push(r);
            }
            run = Some(StockfishRun {
                total_time_ms: value(line),
                ..Default::default()
            });
        } else if line.starts_with("Nodes searched") {
            run.get_or_insert_with(Default::default).nodes = value(line);
        } else if line.starts_with("Nodes/second") {
            run.get_or_insert_with(Default::default).nodes_per_second = value(line);
        } else if line.starts_with("Total Scores") {
            if let Some((_, v)) = line.split_once("):").or_else(|| line.split_once(':')) {
                s.total_scores = csv_numbers(v.trim());
            }
        }
    }
    if let Some(r) = run.take() {
        s.runs.push(r);
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openssl_formats() {
        let lines = [
            "Executing benchmark on each cluster individually",
            "",
            "OpenSSL 3.0.17, built on 1 Jul 2025 (Library: OpenSSL 3.0.17 1 Jul 2025)",
            "type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes  16384 bytes",
            "aes-256-cbc     848212.30k  1326481.54k  1434583.47k  1453447.85k  1457924.78k  1458356.22k (Cortex-A720)",
            "aes-256-cbc     169779.88k   344076.48k   462005.08k   505280.17k   519558.49k   520421.38k (Cortex-A520)",
        ];
        let o = openssl(&lines).unwrap();
        assert_eq!(o.version.as_deref(), Some("3.0.17"));
        assert_eq!(o.mode.as_deref(), Some("per_cluster"));
        assert_eq!(o.block_sizes, vec![16, 64, 256, 1024, 8192, 16384]);
        assert_eq!(o.rows.len(), 2);
        assert_eq!(o.rows[1].label.as_deref(), Some("Cortex-A520"));
        assert_eq!(o.rows[0].kbytes_per_s[5], 1458356.22);
        assert_eq!(
            openssl_version("OpenSSL (version 1.1.0f, built on 25 May 2017)").as_deref(),
            Some("1.1.0f")
        );
        assert_eq!(
            openssl_version("OpenSSL 1.0.1t  3 May 2016 (Library: OpenSSL 1.0.2l  25 May 2017)")
                .as_deref(),
            Some("1.0.1t")
        );
        // OpenSSL 1.0.x: no 16384 bytes column
        let o = openssl(&[
            "type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes",
            "aes-128-cbc      27524.84k    31910.27k    33292.54k    33607.00k    33759.23k",
        ])
        .unwrap();
        assert_eq!(o.block_sizes.len(), 5);
        assert_eq!(o.rows[0].kbytes_per_s.len(), 5);
        assert!(openssl(&["nothing here"]).is_none());
    }

    #[test]
    fn sevenzip_without_markers() {
        // v0.4 layout: one single-threaded run, a separator, three multi-threaded runs + summary
        let run = |rating: &str| {
            vec![
                "7-Zip (a) [32] 16.02 : Copyright (c) 1999-2016 Igor Pavlov : 2016-05-21"
                    .to_string(),
                "RAM usage:    882 MB,  # Benchmark threads:      4".to_string(),
                "Avr:             100    451    451  |              100    734    734".to_string(),
                format!("Tot:             100    593    {rating}"),
            ]
        };
        let mut lines: Vec<String> = vec!["##########".into()];
        lines.extend(run("592"));
        lines.push("##########".into());
        for r in ["2075", "2066", "2063"] {
            lines.extend(run(r));
        }
        lines.push("Compression: 1318,1273,1287".into());
        lines.push("Decompression: 2832,2858,2838".into());
        lines.push("Total: 2075,2066,2063".into());
        let refs: Vec<&str> = lines.iter().map(|s| s.as_str()).collect();
        let z = sevenzip(&refs).unwrap();
        assert_eq!(z.version.as_deref(), Some("16.02"));
        assert_eq!(z.runs.len(), 4);
        assert_eq!(z.runs[0].kind, SevenZipKind::Single);
        assert_eq!(z.runs[0].rating(), Some(592));
        assert_eq!(z.runs[0].threads, Some(4));
        assert_eq!(z.runs[0].ram_usage_mb, Some(882));
        assert_eq!(z.runs[0].avr, Some([100, 451, 451, 100, 734, 734]));
        assert!(z.runs[1..].iter().all(|r| r.kind == SevenZipKind::Multi));
        assert_eq!(z.summary.unwrap().total, vec![2075, 2066, 2063]);
    }

    #[test]
    fn sevenzip_with_markers() {
        let lines = [
            "Executing benchmark single-threaded on cpu2 (Cortex-A520)",
            "7-Zip (a) 23.01 (arm64) : Copyright (c) 1999-2023 Igor Pavlov : 2023-06-20",
            "Tot:             100   1706   1698",
            "Executing benchmark 3 times multi-threaded on CPUs 0-11",
            "7-Zip (a) 23.01 (arm64) : Copyright (c) 1999-2023 Igor Pavlov : 2023-06-20",
            "Tot:            1041   3173  32932",
            "Compression: 34344",
            "Executing benchmark 3 times multi-threaded on CPUs 0-3 (Cortex-A55)",
            "7-Zip (a) 23.01 (arm64) : Copyright (c) 1999-2023 Igor Pavlov : 2023-06-20",
            "Tot:             400   1000   4000",
        ];
        let z = sevenzip(&lines).unwrap();
        assert_eq!(z.version.as_deref(), Some("23.01"));
        assert_eq!(
            (z.runs[0].kind, z.runs[0].cpu),
            (SevenZipKind::Single, Some(2))
        );
        assert_eq!(z.runs[0].label.as_deref(), Some("Cortex-A520"));
        assert_eq!(z.runs[1].kind, SevenZipKind::Multi);
        assert_eq!(z.runs[2].kind, SevenZipKind::Cluster);
    }

    #[test]
    fn cpuminer_and_stockfish() {
        let lines = [
            "** cpuminer-multi 1.3.7 by tpruvot@github **",
            "[2025-11-11 00:01:01] Total: 41.93 kH/s",
            "[2025-11-11 00:01:06] Total: 42.58 kH/s",
            "",
            "Total Scores: 42.91,42.90,42.89",
            "Executing Stockfish 15 using nn-6877cd24400e.nnue 3 times in a row:",
            "Total time (ms) : 241055",
            "Nodes searched  : 1371164413",
            "Nodes/second    : 5688180",
            "Total Scores (nn-6877cd24400e.nnue): 5688180,5528916",
        ];
        let c = cpuminer(&lines).unwrap();
        let console =
            cpuminer(&["Cpuminer total scores (5 minutes execution): 8.16,8.15 kH/s"]).unwrap();
        assert_eq!(console.total_scores, vec!["8.16", "8.15"]);
        assert_eq!(c.version.as_deref(), Some("cpuminer-multi 1.3.7"));
        assert_eq!(c.totals_khs, vec![41.93, 42.58]);
        assert_eq!(c.total_scores, vec!["42.91", "42.90", "42.89"]);
        let s = stockfish(&lines).unwrap();
        assert_eq!(s.runs.len(), 1);
        assert_eq!(s.runs[0].nodes_per_second, Some(5688180));
        assert_eq!(s.total_scores, vec![5688180, 5528916]);
    }
}
