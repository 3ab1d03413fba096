//! Renderers of a [`RunResult`]: the short summary (stdout of `truebench run`), the detailed
//! log (`detailed.log` in the results folder) and the Results.md row.
//!
//! Every number in the summary is also in the detailed log, next to the raw tool output it
//! was read from and the monitoring table of the phase that produced it.

use std::fmt::Write;
use truebench_model::phase;

use truebench_monitor::detect::render_findings;
use truebench_monitor::render::{table, Layout};
use truebench_monitor::{Finding, FindingKind, Severity};

use truebench_model::*;
use truebench_sbcbench::log as sbcbench;
use truebench_sbcbench::row::ResultsRow;

const RULE: &str = "##########################################################################";

/// `4 min 12 s`, `38 s`.
pub fn human_duration(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    if s >= 60 {
        format!("{} min {} s", s / 60, s % 60)
    } else {
        format!("{s} s")
    }
}

fn spread(pct: f64) -> String {
    if pct >= 0.1 {
        format!(" ({pct:.1}%)")
    } else {
        String::new()
    }
}

/// The device, else the hostname.
pub fn machine_name(env: &Envelope) -> String {
    env.inventory
        .device
        .clone()
        .or_else(|| env.hostname.clone())
        .unwrap_or_else(|| "unknown device".into())
}

fn header(r: RunView<'_>) -> String {
    header_for(r.envelope, &format!("{} run", r.body.mode.as_str()))
}

/// First lines of every kind's summary: `truebench 0.1.0 — quick run on …, started …`, and
/// whether the figures are comparable and complete.
pub fn header_for(env: &Envelope, what: &str) -> String {
    let r = View {
        envelope: env,
        body: &(),
    };
    let mut o = format!(
        "truebench {} — {what} on {}, started {}, {}\n",
        r.envelope.truebench_version,
        machine_name(env),
        r.envelope.started.utc,
        human_duration(r.envelope.duration_s)
    );
    if !r.envelope.comparable {
        o.push_str(
            "Quick mode: every phase was shortened. These numbers are NOT comparable with standard runs.\n",
        );
    }
    if !r.envelope.complete {
        let _ = writeln!(
            o,
            "INCOMPLETE: {}. The scores below are partial.",
            r.envelope
                .incomplete_reason
                .as_deref()
                .unwrap_or("the run did not finish")
        );
    }
    o
}

fn validation(r: RunView<'_>) -> String {
    validation_for(r.envelope)
}

/// The findings saying what could not be checked, which a summary must list: without them
/// "no problem found" would read as "checked and clean".
pub fn not_checked(findings: &[Finding]) -> Vec<&Finding> {
    findings
        .iter()
        .filter(|f| f.kind == FindingKind::NotChecked)
        .collect()
}

/// sbc-bench's `Results validation` bullets, from the findings, and the verdict.
pub fn validation_for(env: &Envelope) -> String {
    let r = View {
        envelope: env,
        body: &(),
    };
    let mut o = String::from("Results validation:\n\n");
    let shown: Vec<Finding> = r
        .envelope
        .findings
        .iter()
        .filter(|f| f.severity > Severity::Info)
        .cloned()
        .collect();
    let unchecked = not_checked(&r.envelope.findings);
    if shown.is_empty() && unchecked.is_empty() {
        o.push_str(
            "  * No problem found: no throttling, swapping, background activity, killed cores or under-voltage seen\n",
        );
    } else if shown.is_empty() {
        o.push_str("  * No problem found in what could be checked\n");
    } else {
        for f in &shown {
            let sev = if f.severity == Severity::Critical {
                "CRITICAL"
            } else {
                "warning"
            };
            let _ = writeln!(o, "  * [{sev}] {}", f.message);
        }
    }
    for f in &unchecked {
        let _ = writeln!(o, "  * Not checked: {}", f.message);
    }
    let info = r
        .envelope
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Info && f.kind != FindingKind::NotChecked)
        .count();
    if info > 0 {
        let _ = writeln!(o, "  * {info} more note(s) in the detailed log");
    }
    let _ = writeln!(
        o,
        "\nVerdict: {}",
        if r.envelope.valid {
            "valid"
        } else if !r.envelope.complete {
            "incomplete"
        } else {
            "INVALID (see above)"
        }
    );
    o
}

fn memory_lines(m: &MemoryScores) -> String {
    let mut o = String::new();
    let many = m.clusters.len() > 1;
    for c in &m.clusters {
        if many {
            let _ = writeln!(
                o,
                "On cpu{}{}:",
                c.cpu.map_or("?".into(), |v| v.to_string()),
                c.core_type
                    .as_ref()
                    .map(|t| format!(" ({t})"))
                    .unwrap_or_default()
            );
        }
        for (name, b) in [
            ("memcpy", &c.memcpy),
            ("memset", &c.memset),
            ("read", &c.read),
        ] {
            if let Some(b) = b {
                let _ = writeln!(o, "{name}: {:.1} MB/s{}", b.mb_s, spread(b.spread_pct));
            }
        }
        // The row's measure, when it is not the same figure (an imported log has only it).
        for (name, b, best) in [
            ("standard memcpy", &c.standard_memcpy, &c.memcpy),
            ("standard memset", &c.standard_memset, &c.memset),
        ] {
            if let Some(b) = b.as_ref().filter(|b| Some(*b) != best.as_ref()) {
                let _ = writeln!(
                    o,
                    "{name}: {:.1} MB/s{} (tinymembench's measure: the Results.md row's)",
                    b.mb_s,
                    spread(b.spread_pct)
                );
            }
        }
        if let Some(p) = c.latency.iter().rev().find(|p| p.bytes >= 64 << 20) {
            let _ = writeln!(o, "latency at {} MiB: {:.1} ns", p.bytes >> 20, p.ns);
        }
    }
    o
}

fn compression_lines(r: RunView<'_>) -> String {
    let mut o = String::new();
    let single: Vec<&CompressionScores> = r
        .body
        .scores(phase::COMPRESSION_SINGLE)
        .filter_map(|s| match s {
            Scores::Compression(c) => Some(c),
            _ => None,
        })
        .collect();
    let multi: Vec<&CompressionScores> = r
        .body
        .scores(phase::COMPRESSION_MULTI)
        .filter_map(|s| match s {
            Scores::Compression(c) => Some(c),
            _ => None,
        })
        .collect();
    let Some(first) = single.first().or(multi.first()) else {
        return o;
    };
    let runs = |v: &[&CompressionScores]| -> Vec<CompressionRun> {
        v.iter().flat_map(|c| c.runs.iter().cloned()).collect()
    };
    let (s, m) = (runs(&single), runs(&multi));
    match first.tool {
        CompressionTool::SevenZip => {
            let totals: Vec<String> = m
                .iter()
                .filter_map(|x| x.total_mips)
                .map(|v| v.to_string())
                .collect();
            let singles: Vec<String> = s
                .iter()
                .filter_map(|x| {
                    Some(format!(
                        "{}{}",
                        x.total_mips?,
                        if s.len() > 1 {
                            format!(" (cpu{})", x.cpus.first()?)
                        } else {
                            String::new()
                        }
                    ))
                })
                .collect();
            let _ = writeln!(
                o,
                "7-zip total scores ({} consecutive runs): {}, single-threaded: {}",
                totals.len(),
                if totals.is_empty() {
                    "-".into()
                } else {
                    totals.join(",")
                },
                if singles.is_empty() {
                    "-".into()
                } else {
                    singles.join(", ")
                }
            );
            if let Some(v) = &first.version {
                let _ = writeln!(o, "(7-Zip {v}: scores differ between 7-zip versions)");
            }
        }
        CompressionTool::BuiltinLzma => {
            let _ = writeln!(
                o,
                "7-zip scores were not taken: 7-zip is not installed (`apt install 7zip` adds 7zz; truebench uses it when found)."
            );
            for x in s.iter().chain(m.iter()) {
                let _ = writeln!(
                    o,
                    "Built-in LZMA ({}, MB/s of uncompressed data, not 7-zip MIPS), {} thread(s): compress {:.2} MB/s, decompress {:.2} MB/s",
                    first.version.as_deref().unwrap_or("liblzma"),
                    x.threads,
                    x.compress_mb_s.unwrap_or(0.0),
                    x.decompress_mb_s.unwrap_or(0.0)
                );
            }
        }
    }
    o
}

/// OpenSSL's table layout, one row per cipher and cluster (`(Cortex-A76)` after each row on
/// machines with several clusters, as sbc-bench prints it).
pub fn aes_table_text(a: &AesScores) -> String {
    let mut o = String::from("type        ");
    for s in &a.sizes {
        let _ = write!(o, " {:>7} bytes", s);
    }
    o.push('\n');
    let label = a.tables.len() > 1 || a.parallel;
    for t in &a.tables {
        for row in &t.rows {
            let _ = write!(o, "{:<12}", row.cipher);
            for v in &row.k {
                let _ = write!(o, " {:>12}", format!("{v:.2}k"));
            }
            if a.parallel {
                o.push_str(" (fully parallel)");
            } else if label {
                let _ = write!(
                    o,
                    " ({})",
                    t.core_type
                        .clone()
                        .unwrap_or_else(|| format!("cpu{}", t.cpus.first().copied().unwrap_or(0)))
                );
            }
            o.push('\n');
        }
    }
    o
}

fn aes_lines(r: RunView<'_>) -> String {
    let mut o = String::new();
    for name in [phase::AES, phase::AES_PARALLEL] {
        for s in r.body.scores(name) {
            let Scores::Aes(a) = s else { continue };
            let src = match a.source {
                AesSourceKind::Openssl => format!(
                    "openssl speed ({})",
                    a.version.as_deref().unwrap_or("unknown version")
                ),
                AesSourceKind::Builtin => format!(
                    "built-in ({}; install openssl for scores comparable with sbc-bench)",
                    a.version.as_deref().unwrap_or("built-in")
                ),
            };
            let instr = match (a.has_aes_instructions, &a.aes_instructions) {
                (Some(true), Some(k)) => format!("yes ({k})"),
                (Some(false), Some(k)) => format!("no (no {k})"),
                (Some(b), None) => if b { "yes" } else { "no" }.to_string(),
                (None, _) => "unknown".into(),
            };
            let _ = writeln!(
                o,
                "AES{}, {src}; CPU has AES instructions: {instr}",
                if a.parallel {
                    " on all CPUs in parallel"
                } else {
                    ""
                }
            );
            o.push_str(&aes_table_text(a));
        }
    }
    o
}

fn clock_scores(r: RunView<'_>, name: &str) -> Option<ClockScores> {
    r.body.scores(name).find_map(|s| match s {
        Scores::Clocks(c) => Some(c.clone()),
        _ => None,
    })
}

fn clock_line(c: &truebench_model::clocks::ClusterClocks) -> Option<String> {
    let p = c.points.iter().find(|p| p.measured_mhz.is_some())?;
    let m = p.measured_mhz?;
    let opp = match p.opp_mhz {
        Some(o) => {
            let dev = p
                .deviation_pct
                .filter(|d| d.abs() > 1.0)
                .map(|d| format!(" ({d:+.1}%)"))
                .unwrap_or_default();
            format!("OPP {o} MHz, measured {m:.0} MHz{dev}")
        }
        None => match p.reported_mhz {
            Some(rep) => format!("cpufreq says {rep} MHz, measured {m:.0} MHz"),
            None => format!("measured {m:.0} MHz (no cpufreq)"),
        },
    };
    Some(format!(
        "{}{}: {opp}",
        c.cpu_range,
        c.core_type
            .as_ref()
            .map(|t| format!(" ({t})"))
            .unwrap_or_default()
    ))
}

fn clocks_lines(r: RunView<'_>) -> String {
    let mut o = String::new();
    if let Some(a) = clock_scores(r, phase::CLOCKS_ALL).and_then(|c| c.all_cores) {
        let mhz = |v: &[truebench_model::clocks::CoreClock], cpu: u32| {
            v.iter()
                .find(|c| c.cpu == cpu)
                .and_then(|c| c.measured_mhz)
                .map_or("-".into(), |m| format!("{m:.0}"))
        };
        let cells: Vec<String> = a
            .idle
            .iter()
            .map(|c| {
                format!(
                    "cpu{} {}/{}",
                    c.cpu,
                    mhz(&a.idle, c.cpu),
                    mhz(&a.load, c.cpu)
                )
            })
            .collect();
        let _ = writeln!(
            o,
            "All CPUs at once, idle/under load (MHz): {}",
            cells.join(", ")
        );
    }
    for (name, title) in [
        (phase::CLOCKS_COLD, "Before (idle, cold)"),
        (phase::CLOCKS_HOT, "After (still under load)"),
    ] {
        let Some(c) = clock_scores(r, name) else {
            continue;
        };
        let temp = r.envelope.phase(name).and_then(|p| phase_temp(r, p));
        let _ = writeln!(
            o,
            "{title}{}:",
            temp.map(|t| format!(" at {t:.1}°C")).unwrap_or_default()
        );
        for cl in &c.clusters {
            if let Some(l) = clock_line(cl) {
                let _ = writeln!(o, "  {l}");
            }
        }
    }
    o
}

/// Highest SoC temperature seen during a phase.
fn phase_temp(r: RunView<'_>, p: &PhaseResult) -> Option<f64> {
    let ph = truebench_monitor::Phase {
        name: p.name.clone(),
        start: p.started,
        end: p.ended,
        threads: p.threads,
        ..Default::default()
    };
    r.envelope
        .timeline
        .samples_in(&ph)
        .iter()
        .filter_map(|s| s.soc_temp_c)
        .reduce(f64::max)
}

/// The short summary `truebench run` prints on stdout (sbc-bench's console summary).
pub fn summary(r: RunView<'_>) -> String {
    let mut o = header(r);
    o.push('\n');
    o.push_str(&validation(r));
    if let Some(Scores::Memory(m)) = r.body.scores(phase::MEMORY).next() {
        let _ = writeln!(o, "\nMemory performance (pinned to one CPU per cluster):");
        o.push_str(&memory_lines(m));
    }
    let comp = compression_lines(r);
    if !comp.is_empty() {
        o.push('\n');
        o.push_str(&comp);
    }
    let aes = aes_lines(r);
    if !aes.is_empty() {
        o.push('\n');
        o.push_str(&aes);
    }
    if let Some(Scores::Stress(s)) = r.body.scores(phase::STRESS).next() {
        let v: Vec<String> = s
            .intervals
            .iter()
            // GFLOP/s need decimals, stockfish's nodes/s do not.
            .map(|i| {
                if i.score >= 1000.0 {
                    format!("{:.0}", i.score)
                } else {
                    format!("{:.2}", i.score)
                }
            })
            .collect();
        let _ = writeln!(
            o,
            "\nStress ({}, {} per interval): {}{}",
            s.tool,
            s.unit,
            v.join(","),
            s.change_pct
                .map(|c| format!(" ({c:+.1}% first to last)"))
                .unwrap_or_default()
        );
    }
    let clocks = clocks_lines(r);
    if !clocks.is_empty() {
        let _ = writeln!(o, "\nClockspeeds (measured):");
        o.push_str(&clocks);
    }
    o.push_str(&crate::energy::text(r.envelope));
    let skipped: Vec<String> = r
        .envelope
        .phases
        .iter()
        .filter(|p| p.status != PhaseStatus::Ok)
        .map(|p| {
            format!(
                "  * {} {}: {}",
                p.name,
                match p.status {
                    PhaseStatus::Skipped => "skipped",
                    PhaseStatus::Failed => "FAILED",
                    PhaseStatus::Interrupted => "interrupted",
                    PhaseStatus::Ok => "ok",
                },
                p.reason.as_deref().unwrap_or("")
            )
        })
        .collect();
    if !skipped.is_empty() {
        let _ = writeln!(o, "\nNot measured:");
        for s in skipped {
            let _ = writeln!(o, "{s}");
        }
    }
    let invalid: Vec<String> = r
        .envelope
        .phases
        .iter()
        .filter_map(|p| Some(format!("  * {}: {}", p.name, p.invalid.as_deref()?)))
        .collect();
    if !invalid.is_empty() {
        let _ = writeln!(o, "\nINVALID scores (measured while this happened):");
        for s in invalid {
            let _ = writeln!(o, "{s}");
        }
    }
    if !r.envelope.tuning.applied {
        let _ = writeln!(
            o,
            "\nSettings were not tuned: {}",
            r.envelope
                .tuning
                .reason
                .as_deref()
                .unwrap_or("nothing to tune")
        );
    }
    let _ = writeln!(o, "\n{}", row(r));
    o
}

fn layout<B>(r: View<'_, B>) -> Layout {
    let rpi = r
        .envelope
        .timeline
        .samples
        .iter()
        .find_map(|s| s.rpi)
        .map(|x| x.pmic_watts.is_some() || x.input_volts.is_some());
    Layout::new(&r.envelope.inventory, rpi)
}

/// The full log: every phase's raw output and monitoring table, throttling statistics,
/// kernel-log lines, findings with evidence, topology and versions.
pub fn detailed_log(r: RunView<'_>) -> String {
    detailed_log_for(r.envelope, &header(r), &summary(r))
}

/// The detailed log of any kind: `header`, the machine, tools, tuning, every phase with its
/// raw output and monitoring table, throttling, kernel log, findings, notes, then `summary`.
pub fn detailed_log_for(env: &Envelope, header: &str, summary: &str) -> String {
    let r = View {
        envelope: env,
        body: &(),
    };
    let mut o = header.to_string();
    let _ = writeln!(
        o,
        "Ended {} (schema_version {}), complete: {}, valid: {}",
        r.envelope.ended.utc,
        truebench_model::SCHEMA_VERSION,
        r.envelope.complete,
        r.envelope.valid
    );
    o.push('\n');
    o.push_str(&crate::info::identity(&r.envelope.inventory));
    if let Some(h) = &r.envelope.hostname {
        let _ = writeln!(o, "Hostname:       {h}");
    }
    o.push('\n');
    o.push_str(&crate::info::topology_table(&r.envelope.inventory));
    o.push('\n');
    match &r.envelope.inventory.thermal.chosen {
        Some(c) => {
            let _ = writeln!(o, "Thermal source: /{} ({})", c.path, c.name);
        }
        None => o.push_str("Thermal source: none found\n"),
    }
    let _ = writeln!(
        o,
        "Measured clock during monitoring: {}",
        r.envelope.timeline.header.measured_clock_source
    );

    let _ = writeln!(o, "\n{RULE}\n\nTools and versions:\n");
    let _ = writeln!(o, "  * truebench {}", r.envelope.truebench_version);
    for t in &r.envelope.tools {
        let _ = writeln!(
            o,
            "  * {}: {}{}",
            t.name,
            t.version.as_deref().unwrap_or("version unknown"),
            t.path
                .as_ref()
                .map(|p| format!(" ({p})"))
                .unwrap_or_default()
        );
    }

    let _ = writeln!(o, "\n{RULE}\n\nTuning:\n");
    if r.envelope.tuning.applied {
        o.push_str("  Settings changed for the run and restored afterwards:\n");
    } else {
        let _ = writeln!(
            o,
            "  Not tuned: {}",
            r.envelope
                .tuning
                .reason
                .as_deref()
                .unwrap_or("nothing to tune")
        );
    }
    for c in &r.envelope.tuning.changes {
        let _ = writeln!(
            o,
            "    /{} = {}{}",
            c.path,
            c.value,
            c.error
                .as_ref()
                .map(|e| format!("  (FAILED: {e})"))
                .unwrap_or_default()
        );
    }
    if r.envelope.tuning.applied && r.envelope.tuning.reason.is_some() {
        let _ = writeln!(
            o,
            "  Note: {}",
            r.envelope.tuning.reason.as_deref().unwrap_or("")
        );
    }
    for f in &r.envelope.tuning.restore_failed {
        let _ = writeln!(o, "  NOT RESTORED: /{}: {}", f.path, f.reason);
    }

    let layout = layout(r);
    for p in &r.envelope.phases {
        let _ = writeln!(o, "\n{RULE}\n");
        let status = match p.status {
            PhaseStatus::Ok => match &p.invalid {
                Some(why) => format!("INVALID: {why}"),
                None => "ok".to_string(),
            },
            s => format!(
                "{}{}",
                match s {
                    PhaseStatus::Skipped => "skipped",
                    PhaseStatus::Failed => "FAILED",
                    PhaseStatus::Interrupted => "interrupted",
                    PhaseStatus::Ok => "ok",
                },
                p.reason
                    .as_ref()
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default()
            ),
        };
        let _ = writeln!(
            o,
            "Phase {}: {} — {}{}",
            p.name,
            p.title,
            status,
            p.duration_s()
                .map(|d| format!(", {:.1} s", d))
                .unwrap_or_default()
        );
        if let Some(t) = p.threads {
            let cpus: Vec<String> = p.cpus.iter().map(|c| c.to_string()).collect();
            let _ = writeln!(
                o,
                "Threads: {t}{}",
                if cpus.is_empty() {
                    String::new()
                } else {
                    format!(", CPUs {}", cpus.join(","))
                }
            );
        }
        for raw in &p.raw {
            let _ = writeln!(o, "\n{}:\n$ {}\n", raw.label, raw.command);
            o.push_str(raw.text.trim_end());
            o.push('\n');
        }
        let ph = truebench_monitor::Phase {
            name: p.name.clone(),
            start: p.started,
            end: p.ended,
            threads: p.threads,
            ..Default::default()
        };
        let samples = r.envelope.timeline.samples_in(&ph);
        let _ = writeln!(o, "\nSystem health while running {}:\n", p.title);
        if samples.is_empty() {
            o.push_str("(no sample: the phase was shorter than the sampling interval)\n");
        } else {
            o.push_str(&table(&layout, samples));
        }
    }

    if !r.envelope.throttling.is_empty() {
        let _ = writeln!(o, "\n{RULE}\n");
        o.push_str(crate::throttling::text(&r.envelope.throttling).trim_end());
        o.push('\n');
    }

    let _ = writeln!(o, "\n{RULE}\n");
    if r.envelope.kernel_log.available {
        let _ = writeln!(o, "Kernel log while running the benchmarks:\n");
        if r.envelope.kernel_log.lines.is_empty() {
            o.push_str("(nothing logged)\n");
        }
        for l in &r.envelope.kernel_log.lines {
            let _ = writeln!(o, "{l}");
        }
    } else {
        let _ = writeln!(
            o,
            "Kernel log not read: {}",
            r.envelope
                .kernel_log
                .reason
                .as_deref()
                .unwrap_or("unavailable")
        );
    }

    let _ = writeln!(
        o,
        "\n{RULE}\n\nFindings (every detector over the whole run):\n"
    );
    if r.envelope.findings.is_empty() {
        o.push_str("  none\n");
    } else {
        o.push_str(&render_findings(&r.envelope.findings));
    }
    if !r.envelope.notes.is_empty() {
        let _ = writeln!(o, "\nNotes:");
        for n in &r.envelope.notes {
            let _ = writeln!(o, "  * {n}");
        }
    }
    let _ = writeln!(o, "\n{RULE}\n\nSummary:\n");
    o.push_str(summary);
    o
}

/// The Results.md row, computed by the same code that computes it for imported sbc-bench
/// logs (`import::results_row`, latest sbc-bench rules) from a log model filled with this
/// run's numbers: AES = aes-256-cbc at 16 KiB (best cluster), memcpy/memset = tinymembench's
/// `standard memcpy`/`memset` (best cluster),
/// 7-zip multi = mean of the all-core runs, single = best pinned run.
pub fn row(r: RunView<'_>) -> ResultsRow {
    let mut row = truebench_sbcbench::import::results_row(&as_sbc_bench_log(r));
    // An imported log's scores are the log's own row, the same in every command.
    if let Some([multi, single, aes, memcpy, memset]) =
        truebench_sbcbench::convert::imported_scores(r)
    {
        row.sevenzip_multi = multi;
        row.sevenzip_single = single;
        row.aes = aes;
        row.memcpy = memcpy;
        row.memset = memset;
    }
    if r.envelope.inventory.device.is_none() && r.envelope.hostname.is_none() {
        row.device = "-".into();
    }
    if let Some(Scores::Memory(m)) = r.body.scores(phase::MEMORY).next() {
        if m.clusters.iter().all(|c| c.standard_memcpy.is_none()) {
            row.notes
                .retain(|n| !n.starts_with("memcpy: ") && !n.starts_with("memset: "));
            row.notes.push(
                "memcpy/memset: no figures in tinymembench's measure (measured before \
                 truebench took them): not compared"
                    .into(),
            );
        }
    }
    if !r.envelope.comparable {
        row.notes.push("quick mode: not comparable".into());
    }
    row
}

fn trunc_mhz(v: f64) -> u32 {
    v.max(0.0).trunc() as u32
}

/// This run as the sbc-bench log model, as far as the row needs it.
pub fn as_sbc_bench_log(r: RunView<'_>) -> sbcbench::SbcBenchLog {
    use sbcbench::*;
    let inv = &r.envelope.inventory;
    let mut log = SbcBenchLog::default();
    log.header.version = Some("0.9.72".into());
    log.header.device = inv.device.clone().or_else(|| r.envelope.hostname.clone());
    log.system.kernel = inv.kernel.release.clone();
    log.system.kernel_arch = inv.arch.kernel.clone();
    log.system.userland = inv.arch.userland.clone();
    log.system.os_pretty = inv.distro.clone();
    log.system.codename = r.envelope.os_codename.clone();
    log.system.hostname = r.envelope.hostname.clone();
    log.system.cpus = Some(inv.cpus.len() as u32);
    log.topology = inv
        .cpus
        .iter()
        .map(|c| {
            let cl = c.cluster.and_then(|i| inv.clusters.get(i));
            TopologyCpu {
                cpu: c.id,
                cluster: c.cluster.map(|v| v as i64),
                policy: c.policy,
                min_mhz: cl.and_then(|c| c.min_mhz),
                max_mhz: cl.and_then(|c| c.max_mhz),
                core_type: c.core_type.clone(),
                stepping: c.stepping.clone(),
            }
        })
        .collect();
    for (name, round) in [
        (phase::CLOCKS_COLD, Round::Before),
        (phase::CLOCKS_HOT, Round::After),
    ] {
        let Some(c) = clock_scores(r, name) else {
            continue;
        };
        for cl in &c.clusters {
            let with_opp: Vec<&truebench_model::clocks::ClockPoint> =
                cl.points.iter().filter(|p| p.opp_mhz.is_some()).collect();
            if with_opp.is_empty() {
                for p in cl.points.iter().filter(|p| p.measured_mhz.is_some()) {
                    log.no_cpufreq.push(NoCpufreqMeasurement {
                        round,
                        cpu: cl.measured_cpu,
                        measured_mhz: p.measured_mhz.map(trunc_mhz),
                        samples: p.samples_mhz.clone(),
                        wording: "short".into(),
                    });
                }
                continue;
            }
            log.opp_blocks.push(OppBlock {
                round,
                cpus: (inv.clusters.len() > 1).then(|| cl.cpu_range.clone()),
                core_type: cl.core_type.clone(),
                points: with_opp
                    .iter()
                    .map(|p| OppPoint {
                        opp_mhz: p.opp_mhz.unwrap_or(0),
                        threadx_mhz: p.firmware_mhz.map(trunc_mhz),
                        measured_mhz: p.measured_mhz.map(trunc_mhz),
                        measured_printed: p.measured_mhz.is_some(),
                        samples: p.samples_mhz.clone(),
                        volts: vec![],
                        deviation_pct: p.deviation_pct,
                    })
                    .collect(),
            });
        }
    }
    if let Some(Scores::Memory(m)) = r.body.scores(phase::MEMORY).next() {
        for c in &m.clusters {
            let mut results = Vec::new();
            // The row's memcpy/memset are tinymembench's measure, never the best method's
            // (a different measure, up to +70 %): same measure, or not compared.
            for (name, b) in [
                ("standard memcpy", &c.standard_memcpy),
                ("standard memset", &c.standard_memset),
            ] {
                if let Some(b) = b {
                    results.push(TinymembenchResult {
                        name: name.into(),
                        mb_per_s: b.mb_s,
                        repeats: Some(b.samples),
                        sd_pct: (b.spread_pct >= 0.1).then_some(b.spread_pct),
                        framebuffer: false,
                    });
                }
            }
            log.tinymembench.push(TinymembenchRun {
                cpu: c.cpu,
                label: c.core_type.clone(),
                version: Some("truebench".into()),
                results,
                latency: vec![],
            });
        }
    }
    if let Some(Scores::Aes(a)) = r.body.scores(phase::AES).next() {
        log.openssl = Some(OpenSsl {
            version_line: a.version.clone(),
            version: a.version.clone(),
            // truebench measures each cluster once: the row takes the best cluster.
            mode: Some("per_cluster".into()),
            block_sizes: a.sizes.clone(),
            rows: a
                .tables
                .iter()
                .flat_map(|t| {
                    t.rows.iter().map(|row| OpenSslRow {
                        algorithm: row.cipher.clone(),
                        label: t.core_type.clone(),
                        kbytes_per_s: row.k.clone(),
                    })
                })
                .collect(),
        });
    }
    let mut zip_runs = Vec::new();
    let mut zip_version = None;
    for (name, kind) in [
        (phase::COMPRESSION_SINGLE, SevenZipKind::Single),
        (phase::COMPRESSION_MULTI, SevenZipKind::Multi),
    ] {
        for s in r.body.scores(name) {
            let Scores::Compression(c) = s else { continue };
            if c.tool != CompressionTool::SevenZip {
                continue;
            }
            zip_version = c.version.clone();
            for run in &c.runs {
                zip_runs.push(SevenZipRun {
                    kind,
                    cpu: run
                        .cpus
                        .first()
                        .copied()
                        .filter(|_| kind == SevenZipKind::Single),
                    label: None,
                    threads: Some(run.threads),
                    ram_usage_mb: None,
                    avr: None,
                    tot: run.total_mips.map(|t| [0, 0, t]),
                });
            }
        }
    }
    if !zip_runs.is_empty() {
        log.sevenzip = Some(SevenZip {
            version: zip_version,
            banner: None,
            runs: zip_runs,
            summary: None,
        });
    }
    // sbc-bench prints throttling tables (and flags the clock column) only when the clock
    // was lowered.
    let throttled = r.envelope.findings.iter().any(|f| {
        f.kind == truebench_monitor::FindingKind::Throttling && f.severity > Severity::Info
    });
    if throttled {
        log.throttling.push(ThrottlingTable::default());
    }
    log
}
