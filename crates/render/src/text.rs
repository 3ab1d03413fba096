//! Renderers of a [`RunResult`]: the short summary (stdout of `truebench run`), the detailed
//! log (`detailed.log` in the results folder) and the Results.md row.
//!
//! Every number in the summary is also in the detailed log, next to the raw tool output it
//! was read from and the monitoring table of the phase that produced it.

use std::fmt::Write;
use truebench_model::phase;

use truebench_model::finding::{Finding, FindingKind, Severity};
use truebench_monitor_core::detect::render_findings;
use truebench_monitor_core::render::{table, Layout};

use truebench_model::*;

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

/// Why settings were not (all) tuned, with the ones that failed named: documents stored
/// before the reason listed them said only "(see changes)".
pub fn tuning_reason(t: &TuningRecord) -> String {
    let reason = t.reason.as_deref().unwrap_or("nothing to tune");
    match reason.strip_suffix(" (see changes)") {
        Some(head) => {
            let failed: Vec<String> = t
                .changes
                .iter()
                .filter_map(|c| Some(format!("{} → {} ({})", c.path, c.value, c.error.as_ref()?)))
                .collect();
            format!("{head}: {}", failed.join("; "))
        }
        None => reason.to_string(),
    }
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
    let single: Vec<&CompressionScores> = r.body.compression(phase::COMPRESSION_SINGLE).collect();
    let multi: Vec<&CompressionScores> = r.body.compression(phase::COMPRESSION_MULTI).collect();
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
        if let Some(a) = r.body.aes(name) {
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
    if let Some(a) = r
        .body
        .clocks(phase::CLOCKS_ALL)
        .and_then(|c| c.all_cores.as_ref())
    {
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
        let Some(c) = r.body.clocks(name) else {
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
    let ph = truebench_model::timeline::Phase {
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
    if let Some(m) = r.body.memory() {
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
    if let Some(s) = r.body.stress() {
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
            tuning_reason(&r.envelope.tuning)
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
        let _ = writeln!(o, "  Note: {}", tuning_reason(&r.envelope.tuning));
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
        o.push_str(&crate::residency::text(p));
        for raw in &p.raw {
            let _ = writeln!(o, "\n{}:\n$ {}\n", raw.label, raw.command);
            o.push_str(raw.text.trim_end());
            o.push('\n');
        }
        let ph = truebench_model::timeline::Phase {
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

pub use truebench_sbcbench::from_result::{as_sbc_bench_log, row};
