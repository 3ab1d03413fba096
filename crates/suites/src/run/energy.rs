//! Score per watt of the run's phases whose score belongs to the whole phase's energy: 7-zip
//! (or the built-in LZMA) on all cores, and one-cluster phases (single-threaded 7-zip, AES)
//! when the machine has one cluster — with several, a phase walks the clusters one after the
//! other and its energy is theirs together, so a per-cluster figure would be invented.

use truebench_model::phase;
use truebench_model::timeline::EnergyReport;
use truebench_model::{CompressionTool, RunKind, RunPhase, RunResult, Scores};
use truebench_stats::mean;

/// The Results.md AES figure: AES-256-CBC on 16 KiB chunks.
const AES_CIPHER: &str = "aes-256-cbc";
const AES_SIZE: u32 = 16384;

fn compression(report: &mut EnergyReport, phase: RunPhase, s: &Scores, kind: RunKind, what: &str) {
    let Scores::Compression(c) = s else {
        return;
    };
    let runs: Vec<_> = c.runs.iter().filter(|r| r.kind == kind).collect();
    if runs.is_empty() || (kind == RunKind::Single && runs.len() > 1) {
        return;
    }
    match c.tool {
        CompressionTool::SevenZip => {
            let mips = runs.iter().filter_map(|r| r.total_mips).map(|m| m as f64);
            if let Some(m) = mean(mips) {
                report.add_per_watt(phase, &format!("7-zip, {what}"), m, "MIPS");
            }
        }
        CompressionTool::BuiltinLzma => {
            let mb = runs.iter().filter_map(|r| r.compress_mb_s);
            if let Some(m) = mean(mb) {
                report.add_per_watt(phase, &format!("LZMA compression, {what}"), m, "MB/s");
            }
        }
    }
}

fn aes(report: &mut EnergyReport, phase: RunPhase, s: &Scores, what: &str) {
    let Scores::Aes(a) = s else {
        return;
    };
    if a.tables.len() != 1 && !a.parallel {
        return;
    }
    let k: Option<f64> = a
        .tables
        .iter()
        .map(|t| t.get(&a.sizes, AES_CIPHER, AES_SIZE))
        .sum();
    if let Some(k) = k {
        // OpenSSL's k = 1000 bytes/s.
        report.add_per_watt(
            phase,
            &format!("AES-256-CBC 16 KiB, {what}"),
            k / 1000.0,
            "MB/s",
        );
    }
}

/// Fill `per_watt` of the run's energy report (nothing without one).
pub(super) fn per_watt(r: &mut RunResult) {
    let Some(mut report) = r.envelope.energy.take() else {
        return;
    };
    for p in &r.body.scores {
        let s = &p.scores;
        // Repeated names (compression-cluster) have no single energy row.
        if r.body.scores(&p.phase).count() > 1 {
            continue;
        }
        let Ok(phase) = p.phase.parse::<RunPhase>() else {
            continue;
        };
        match phase {
            phase::COMPRESSION_MULTI => {
                compression(&mut report, phase, s, RunKind::Multi, "all cores")
            }
            phase::COMPRESSION_SINGLE => {
                compression(&mut report, phase, s, RunKind::Single, "one core")
            }
            phase::AES => aes(&mut report, phase, s, "one core"),
            phase::AES_PARALLEL => aes(&mut report, phase, s, "all cores"),
            _ => {}
        }
    }
    r.envelope.energy = Some(report);
}
