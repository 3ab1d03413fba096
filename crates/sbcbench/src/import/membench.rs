//! tinymembench and ramlat output.

use super::util::{cpu_number, int, is_separator, number, split_label};
use crate::log::{
    LatencyRow, LatencyTable, RamlatRow, RamlatRun, TinymembenchResult, TinymembenchRun,
};

/// ` libc memcpy copy                                 :  17507.8 MB/s (3, 1.8%)`
pub fn result_line(line: &str) -> Option<TinymembenchResult> {
    let (name, rest) = line.split_once(" : ")?;
    let name = name.trim();
    let rest = rest.trim();
    let (value, rest) = rest.split_once(" MB/s")?;
    let mb_per_s = number(value)?;
    let mut r = TinymembenchResult {
        name: name.to_string(),
        mb_per_s,
        framebuffer: name.contains("(from framebuffer)"),
        ..Default::default()
    };
    let rest = rest.trim();
    if let Some(inner) = rest.strip_prefix('(').and_then(|s| s.strip_suffix(')')) {
        for part in inner.split(',') {
            let part = part.trim();
            if let Some(p) = part.strip_suffix('%') {
                r.sd_pct = number(p);
            } else {
                r.repeats = int(part).map(|v| v as u32);
            }
        }
    }
    Some(r)
}

/// `      1024 :    0.0 ns          /     0.0 ns `
fn latency_row(line: &str) -> Option<LatencyRow> {
    let (size, rest) = line.split_once(':')?;
    let block_bytes = int(size)?;
    let mut parts = rest.split('/');
    let single_ns = number(parts.next()?.trim().trim_end_matches("ns"))?;
    let dual_ns = parts
        .next()
        .and_then(|p| number(p.trim().trim_end_matches("ns")));
    Some(LatencyRow {
        block_bytes,
        single_ns,
        dual_ns,
    })
}

/// The `Executing …` line shortly before a run names the CPU it was pinned to.
fn run_label(lines: &[&str], start: usize) -> (Option<u32>, Option<String>) {
    for l in lines[start.saturating_sub(4)..start].iter().rev() {
        if let Some(rest) = l.strip_prefix("Executing benchmark on ") {
            let (cpu, label) = split_label(rest);
            return (cpu_number(&cpu), label);
        }
        if let Some(rest) = l.strip_prefix("Executing tinymembench on a ") {
            // v0.6: `on a little core:` / `on a big core:`
            let label = rest.trim_end_matches(':').trim_end_matches(" core").trim();
            return (None, Some(label.to_string()));
        }
    }
    (None, None)
}

pub fn tinymembench(lines: &[&str]) -> Vec<TinymembenchRun> {
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with("tinymembench v"))
        .map(|(i, _)| i)
        .collect();
    let mut runs = Vec::new();
    for (k, &start) in starts.iter().enumerate() {
        let limit = starts.get(k + 1).copied().unwrap_or(lines.len());
        let (cpu, label) = run_label(lines, start);
        let version = lines[start]
            .split_whitespace()
            .nth(1)
            .map(|v| v.to_string());
        let mut run = TinymembenchRun {
            cpu,
            label,
            version,
            ..Default::default()
        };
        let mut i = start + 1;
        while i < limit {
            let line = lines[i];
            if is_separator(line) || line.starts_with("Executing ") {
                break;
            }
            if let Some(rest) = line.strip_prefix("block size :") {
                let variant = rest
                    .split_once(", [")
                    .map(|(_, v)| v.trim_end_matches(']').trim().to_string());
                let mut table = LatencyTable {
                    variant,
                    rows: Vec::new(),
                };
                i += 1;
                while i < limit {
                    match latency_row(lines[i]) {
                        Some(r) => table.rows.push(r),
                        None => break,
                    }
                    i += 1;
                }
                run.latency.push(table);
                continue;
            }
            if line.contains("MB/s") {
                if let Some(r) = result_line(line) {
                    run.results.push(r);
                }
            }
            i += 1;
        }
        runs.push(run);
    }
    runs
}

pub fn ramlat(lines: &[&str]) -> Vec<RamlatRun> {
    let mut runs = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let Some(rest) = line.strip_prefix("Executing ramlat on ") else {
            continue;
        };
        let rest = rest.split(", results in").next().unwrap_or(rest);
        let (cpu, label) = split_label(rest);
        let mut run = RamlatRun {
            cpu: cpu_number(&cpu),
            label,
            ..Default::default()
        };
        for l in lines.iter().skip(start + 1) {
            let t = l.trim();
            if t.is_empty() {
                if run.rows.is_empty() {
                    continue;
                }
                break;
            }
            if let Some(cols) = t.strip_prefix("size:") {
                run.columns = cols.split_whitespace().map(|s| s.to_string()).collect();
                continue;
            }
            let Some((size, vals)) = t.split_once(':') else {
                break;
            };
            let Some(kib) = size.strip_suffix('k').and_then(int) else {
                break;
            };
            run.rows.push(RamlatRow {
                size_kib: kib,
                ns: vals.split_whitespace().map(number).collect(),
            });
        }
        runs.push(run);
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_lines() {
        let r = result_line(
            " libc memcpy copy                                 :  17507.8 MB/s (3, 1.8%)",
        )
        .unwrap();
        assert_eq!(
            (r.name.as_str(), r.mb_per_s, r.repeats, r.sd_pct),
            ("libc memcpy copy", 17507.8, Some(3), Some(1.8))
        );
        let r =
            result_line(" C 2-pass copy                                    :  14079.6 MB/s (2)")
                .unwrap();
        assert_eq!((r.repeats, r.sd_pct), (Some(2), None));
        let r = result_line(
            " standard memset                                      :   1176.1 MB/s (0.7%)",
        )
        .unwrap();
        assert_eq!((r.repeats, r.sd_pct), (None, Some(0.7)));
        let r =
            result_line(" NEON read (from framebuffer)                         :     61.1 MB/s")
                .unwrap();
        assert!(r.framebuffer);
        assert!(result_line("== Note 1: 1MB = 1000000 bytes ==").is_none());
    }

    #[test]
    fn runs_with_latency() {
        let lines = [
            "Executing benchmark on cpu4 (Cortex-A72):",
            "",
            "tinymembench v0.4.9-nuumio (simple benchmark for memory throughput and latency)",
            " libc memcpy copy                                 :   3650.5 MB/s (3, 0.2%)",
            "block size : single random read / dual random read, [MADV_NOHUGEPAGE]",
            "      1024 :    0.0 ns          /     0.0 ns ",
            "  67108864 :  188.4 ns          /   232.7 ns ",
            "",
            "##########",
            "Executing ramlat on cpu0 (Cortex-A55), results in ns:",
            "",
            "       size:  1x32  2x32  1x64",
            "         4k: 2.789 2.787 n/a",
            "    131072k: 216.0 220.1 218.3 ",
            "",
        ];
        let t = tinymembench(&lines);
        assert_eq!(t.len(), 1);
        assert_eq!(
            (t[0].cpu, t[0].label.as_deref()),
            (Some(4), Some("Cortex-A72"))
        );
        assert_eq!(t[0].version.as_deref(), Some("v0.4.9-nuumio"));
        assert_eq!(t[0].results.len(), 1);
        assert_eq!(t[0].latency[0].variant.as_deref(), Some("MADV_NOHUGEPAGE"));
        assert_eq!(t[0].latency[0].rows[1].block_bytes, 67108864);
        assert_eq!(t[0].latency[0].rows[1].dual_ns, Some(232.7));
        let r = ramlat(&lines);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].columns, vec!["1x32", "2x32", "1x64"]);
        assert_eq!(r[0].rows[0].ns, vec![Some(2.789), Some(2.787), None]);
        assert_eq!(r[0].rows[1].size_kib, 131072);
    }
}
