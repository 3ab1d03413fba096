//! An sbc-bench result log ([`SbcBenchLog`]) as a truebench [`RunResult`], so that old results
//! can be stored, compared, drawn and re-judged by truebench's own detectors.
//!
//! What maps where:
//! * header, `lsb_release`, topology table, `SoC guess`, `free`/`swapon` → the inventory;
//! * `Checking cpufreq OPP` (before / after the benchmarks) → `clocks-cold` / `clocks-hot`;
//! * tinymembench (+ ramlat latency) → `memory`, OpenSSL → `aes` (and `aes-parallel`),
//!   7-zip → `compression-single` / `-multi` / `-cluster`, cpuminer or stockfish → `stress`;
//! * every `System health while running X` table → timeline samples in a phase named X;
//! * throttling statistics, dmesg lines → `throttling`, `kernel_log`;
//! * the detectors of `truebench_monitor_core::detect` run on that evidence → `findings`.
//!
//! The log is the source: an imported result names sbc-bench (with its version and the log
//! file) in `tools`, and the log's own validation bullets in `notes`.

use crate::log::{Round, SbcBenchLog, SevenZipKind};
use truebench_model::phase;
use truebench_model::*;

/// Name of the tool entry that marks a result as imported from an sbc-bench log.
pub const SBC_BENCH_TOOL: &str = "sbc-bench";

/// True when `r` was converted from an sbc-bench log (not measured by truebench).
pub fn is_imported<B>(r: View<'_, B>) -> bool {
    r.envelope.tools.iter().any(|t| t.name == SBC_BENCH_TOOL)
}

/// The text cells of an imported log's Results.md row as sbc-bench computes them.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedCells {
    pub clock: String,
    pub throttled: bool,
    pub kernel: String,
    pub distro: String,
    pub khs: Option<String>,
}

/// [`ImportedCells`] from the same note as [`imported_scores`]; None for results that were
/// measured, or imported before the note carried them.
pub fn imported_cells<B>(r: View<'_, B>) -> Option<ImportedCells> {
    let v = row_note(r)?;
    let text = |k: &str| {
        v.get(k)
            .and_then(serde_json::Value::as_str)
            .map(String::from)
    };
    Some(ImportedCells {
        clock: text("clock")?,
        throttled: v.get("throttled")?.as_bool()?,
        kernel: text("kernel")?,
        distro: text("distro")?,
        khs: text("khs"),
    })
}

fn row_note<B>(r: View<'_, B>) -> Option<serde_json::Value> {
    let json = r
        .envelope
        .notes
        .iter()
        .find_map(|n| n.strip_prefix(ROW_NOTE))?;
    serde_json::from_str(json).ok()
}

/// Start of the note holding an imported log's Results.md scores (JSON).
pub const ROW_NOTE: &str = "sbc-bench's Results.md scores: ";

/// The Results.md scores of an imported log as sbc-bench computes them, from the note the
/// conversion left: `[7-zip multi, 7-zip single, AES, memcpy, memset]`. None for results
/// that were measured, or imported before the note existed.
pub fn imported_scores<B>(r: View<'_, B>) -> Option<[Option<u64>; 5]> {
    let v = row_note(r)?;
    let get = |k: &str| v.get(k).and_then(serde_json::Value::as_u64);
    Some([
        get("sevenzip_multi"),
        get("sevenzip_single"),
        get("aes"),
        get("memcpy"),
        get("memset"),
    ])
}

/// The sbc-bench version and log file name of an imported result.
pub fn import_source<B>(r: View<'_, B>) -> Option<(Option<String>, Option<String>)> {
    r.envelope
        .tools
        .iter()
        .find(|t| t.name == SBC_BENCH_TOOL)
        .map(|t| (t.version.clone(), t.path.clone()))
}

mod dates;
mod evidence;
mod inventory;
pub mod opp_limits;
mod scores;
mod soc;
mod timeline;

pub use dates::rfc2822;
pub use evidence::detect;
use inventory::*;
use scores::*;
use timeline::*;

fn phase(
    name: RunPhase,
    title: &str,
    span: Option<(f64, f64, i64, i64)>,
    threads: Option<u32>,
    cpus: Vec<u32>,
    scores: Option<Scores>,
    details: serde_json::Value,
) -> (PhaseResult, Option<Scores>) {
    let (start, end, ms0, ms1) = span.unwrap_or((0.0, 0.0, 0, 0));
    let ok = scores.is_some();
    let p = PhaseResult {
        name: name.to_string(),
        title: title.into(),
        started: start,
        ended: Some(end),
        started_unix_ms: ms0,
        ended_unix_ms: Some(ms1),
        threads,
        cpus,
        status: if ok {
            PhaseStatus::Ok
        } else {
            PhaseStatus::Skipped
        },
        reason: (!ok).then(|| "not in the sbc-bench log".to_string()),
        raw: Vec::new(),
        details,
        marks: Vec::new(),
        invalid: None,
        residency: None,
    };
    (p, scores)
}

/// A phase on the timeline, its scores (if the log had them) into the body's list.
fn push(
    phases: &mut Vec<PhaseResult>,
    scores: &mut Vec<PhaseScores>,
    (p, s): (PhaseResult, Option<Scores>),
) {
    if let Some(s) = s {
        scores.push(PhaseScores {
            phase: p.name.clone(),
            scores: s,
        });
    }
    phases.push(p);
}

/// Span of the monitoring tables named in `names`: (start, end, first ms, last ms).
fn span_of(spans: &[(String, f64, f64, i64, i64)], names: &[&str]) -> Option<(f64, f64, i64, i64)> {
    let v: Vec<_> = spans
        .iter()
        .filter(|s| names.contains(&s.0.as_str()))
        .collect();
    let a = v.iter().map(|s| s.1).reduce(f64::min)?;
    let b = v.iter().map(|s| s.2).reduce(f64::max)?;
    let ms0 = v.iter().map(|s| s.3).min()?;
    let ms1 = v.iter().map(|s| s.4).max()?;
    Some((a, b, ms0, ms1))
}

fn json<T: serde::Serialize>(v: &T) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

/// Convert one parsed sbc-bench log; `name` is the log's file name (`4qJG.txt`).
pub fn to_run_result(log: &SbcBenchLog, name: &str) -> RunResult {
    let inv = inventory(log, name);
    let start = log.header.date.as_deref().and_then(rfc2822);
    let built = timeline(log, &inv, start);
    let spans = &built.spans;
    let all: Vec<u32> = inv.cpus.iter().map(|c| c.id).collect();
    let ncpus = all.len() as u32;
    let mut notes = vec![format!(
        "Imported from the sbc-bench{} log {name}: scores and monitoring as sbc-bench recorded them; findings by truebench's detectors on that evidence.",
        log.header
            .version
            .as_ref()
            .map(|v| format!(" v{v}"))
            .unwrap_or_default()
    )];
    if start.is_none() {
        notes.push(
            "the log's date is unknown: times are relative to the first monitoring sample".into(),
        );
    }
    let mut phases = Vec::new();
    let mut scores = Vec::new();
    let t_end = spans.iter().map(|s| s.2).fold(0.0, f64::max);
    let ms_start = start.map_or(0, |s| s.0 * 1000);
    let ms_end = spans.iter().map(|s| s.4).max().unwrap_or(ms_start);
    push(
        &mut phases,
        &mut scores,
        phase(
            phase::CLOCKS_COLD,
            "Checking cpufreq OPP (before the benchmarks)",
            Some((0.0, 0.0, ms_start, ms_start)),
            Some(1),
            Vec::new(),
            clock_scores(log, &inv, Round::Before).map(Scores::Clocks),
            json(
                &log.opp_blocks
                    .iter()
                    .filter(|b| b.round == Round::Before)
                    .collect::<Vec<_>>(),
            ),
        ),
    );
    push(
        &mut phases,
        &mut scores,
        phase(
            phase::MEMORY,
            "tinymembench and ramlat",
            span_of(spans, &["tinymembench", "ramlat"]),
            Some(1),
            log.tinymembench.iter().filter_map(|t| t.cpu).collect(),
            memory_scores(log, &inv, &mut notes).map(Scores::Memory),
            json(&(&log.tinymembench, &log.ramlat)),
        ),
    );
    push(
        &mut phases,
        &mut scores,
        phase(
            phase::AES,
            "OpenSSL benchmark",
            span_of(spans, &["OpenSSL benchmark"]),
            Some(1),
            Vec::new(),
            aes_scores(log, &inv, false).map(Scores::Aes),
            json(&log.openssl),
        ),
    );
    if let Some(a) = aes_scores(log, &inv, true) {
        push(
            &mut phases,
            &mut scores,
            phase(
                phase::AES_PARALLEL,
                "parallel OpenSSL benchmarks",
                span_of(spans, &["parallel OpenSSL benchmarks"]),
                Some(ncpus),
                all.clone(),
                Some(Scores::Aes(a)),
                serde_json::Value::Null,
            ),
        );
    }
    let zip_details = json(&log.sevenzip);
    push(
        &mut phases,
        &mut scores,
        phase(
            phase::COMPRESSION_SINGLE,
            "7-zip single core benchmark",
            span_of(spans, &["7-zip single core benchmark"]),
            Some(1),
            log.sevenzip
                .iter()
                .flat_map(|z| z.runs.iter())
                .filter(|r| r.kind == SevenZipKind::Single)
                .filter_map(|r| r.cpu)
                .collect(),
            compression(log, &inv, SevenZipKind::Single).map(Scores::Compression),
            zip_details.clone(),
        ),
    );
    push(
        &mut phases,
        &mut scores,
        phase(
            phase::COMPRESSION_MULTI,
            "7-zip multi core benchmark",
            span_of(spans, &["7-zip multi core benchmark"]),
            Some(ncpus),
            all.clone(),
            compression(log, &inv, SevenZipKind::Multi).map(Scores::Compression),
            zip_details,
        ),
    );
    if let Some(c) = compression(log, &inv, SevenZipKind::Cluster) {
        push(
            &mut phases,
            &mut scores,
            phase(
                phase::COMPRESSION_CLUSTER,
                "7-zip cluster benchmarks",
                span_of(spans, &["7-zip cluster benchmarks"]),
                None,
                Vec::new(),
                Some(Scores::Compression(c)),
                serde_json::Value::Null,
            ),
        );
    }
    if let Some(s) = stress_scores(log) {
        let title = if s.tool == StressTool::Cpuminer {
            "cpuminer"
        } else {
            "stockfish"
        };
        push(
            &mut phases,
            &mut scores,
            phase(
                phase::STRESS,
                title,
                span_of(spans, &[title]),
                Some(ncpus),
                all.clone(),
                Some(Scores::Stress(s)),
                json(&(&log.cpuminer, &log.stockfish)),
            ),
        );
    }
    push(
        &mut phases,
        &mut scores,
        phase(
            phase::CLOCKS_HOT,
            "Testing clockspeeds again (after the benchmarks)",
            Some((t_end, t_end, ms_end, ms_end)),
            Some(1),
            Vec::new(),
            clock_scores(log, &inv, Round::After).map(Scores::Clocks),
            json(
                &log.opp_blocks
                    .iter()
                    .filter(|b| b.round == Round::After)
                    .collect::<Vec<_>>(),
            ),
        ),
    );

    let findings = detect(log, &inv, &built.timeline, &scores);
    let lacking: Vec<&str> = ["tinymembench", "openssl", "7-zip"]
        .into_iter()
        .filter(|w| log.is_missing(w))
        .collect();
    let complete = lacking.is_empty();
    let valid = complete && truebench_model::finding::is_valid(&findings);
    for v in &log.validation {
        notes.push(format!("sbc-bench's validation: {v}"));
    }
    for w in &log.warnings {
        notes.push(format!("sbc-bench's warning: {w}"));
    }
    for m in &log.missing {
        notes.push(format!("not in the log: {} ({})", m.what, m.reason));
    }
    // The scores as sbc-bench's rules compute them from the log itself: every command shows
    // these (`import --row`, compare, history, rank), never a recomputation from the
    // converted phases, which cannot reproduce every version's rules.
    let row = crate::results_row(log);
    notes.push(format!(
        "{ROW_NOTE}{}",
        serde_json::json!({
            "sevenzip_multi": row.sevenzip_multi,
            "sevenzip_single": row.sevenzip_single,
            "aes": row.aes,
            "memcpy": row.memcpy,
            "memset": row.memset,
            "clock": row.clock,
            "throttled": row.throttled,
            "kernel": row.kernel,
            "distro": row.distro,
            "khs": row.khs,
        })
    ));

    let mut tools = vec![Tool {
        name: SBC_BENCH_TOOL.into(),
        version: log.header.version.clone(),
        path: Some(name.to_string()),
    }];
    if let Some(t) = log.tinymembench.first() {
        tools.push(Tool {
            name: "tinymembench".into(),
            version: t.version.clone(),
            path: None,
        });
    }
    if let Some(o) = &log.openssl {
        tools.push(Tool {
            name: "openssl".into(),
            version: o.version_line.clone().or(o.version.clone()),
            path: None,
        });
    }
    if let Some(z) = &log.sevenzip {
        tools.push(Tool {
            name: "7-zip".into(),
            version: z.version.clone(),
            path: None,
        });
    }
    if let Some(c) = &log.cpuminer {
        tools.push(Tool {
            name: "cpuminer".into(),
            version: c.version.clone(),
            path: None,
        });
    }

    let started = Stamp::from_unix_ms(ms_start);
    let ended = Stamp::from_unix_ms(ms_end.max(ms_start));
    RunResult {
        body: RunBody {
            mode: match log.header.mode.as_deref() {
                Some("extensive") => Mode::Extensive,
                _ => Mode::Standard,
            },
            scores,
        },
        envelope: Envelope {
            truebench_version: env!("CARGO_PKG_VERSION").to_string(),
            comparable: true,
            complete,
            incomplete_reason: (!complete)
                .then(|| format!("the log has no usable {} output", lacking.join(", "))),
            valid,
            duration_s: if start.is_some() {
                (ended.unix_ms - started.unix_ms) as f64 / 1000.0
            } else {
                t_end
            },
            started,
            ended,
            hostname: log.system.hostname.clone(),
            os_codename: log.system.codename.clone(),
            inventory: inv,
            tuning: TuningRecord {
                requested: true,
                applied: false,
                reason: Some(
                    "sbc-bench's own tuning (performance governors), not recorded in the log"
                        .into(),
                ),
                ..Default::default()
            },
            tools,
            phases,
            findings,
            timeline: built.timeline,
            energy: None,
            kernel_log: KernelLogRecord {
                available: log.dmesg.is_some(),
                reason: log.dmesg.is_none().then(|| {
                    "the log has no `dmesg output while running the benchmarks` section".into()
                }),
                lines: log.dmesg.clone().unwrap_or_default(),
            },
            throttling: log.throttling.clone(),
            notes,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        // 18:03:30 at +0100 is 17:03:30 UTC.
        let (u, off) = rfc2822("Mon, 13 Mar 2023 18:03:30 +0100").unwrap();
        assert_eq!(off, 3600);
        assert_eq!(rfc3339_utc(u * 1000), "2023-03-13T17:03:30.000Z");
        let (u, _) = rfc2822("Sun, 29 Jul 2018 12:34:58 -0230").unwrap();
        assert_eq!(rfc3339_utc(u * 1000), "2018-07-29T15:04:58.000Z");
        assert!(rfc2822("yesterday").is_none());
        assert!(rfc2822("Mon, 40 Mar 2023 18:03:30 +0100").is_none());
    }
}
