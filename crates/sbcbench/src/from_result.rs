//! A truebench `run` as sbc-bench's log model, for its Results.md row: the row of a run is
//! computed by the same rules as the row of an imported log.

use truebench_model::*;

use crate::log as sbcbench;
use crate::row::ResultsRow;

/// The Results.md row, computed by the same code that computes it for imported sbc-bench
/// logs (`import::results_row`, latest sbc-bench rules) from a log model filled with this
/// run's numbers: AES = aes-256-cbc at 16 KiB (best cluster), memcpy/memset = tinymembench's
/// `standard memcpy`/`memset` (best cluster),
/// 7-zip multi = mean of the all-core runs, single = best pinned run.
pub fn row(r: RunView<'_>) -> ResultsRow {
    let mut row = crate::import::results_row(&as_sbc_bench_log(r));
    // An imported log's scores are the log's own row, the same in every command.
    if let Some([multi, single, aes, memcpy, memset]) = crate::convert::imported_scores(r) {
        row.sevenzip_multi = multi;
        row.sevenzip_single = single;
        row.aes = aes;
        row.memcpy = memcpy;
        row.memset = memset;
    }
    // Its clock, kernel, distro and kH/s cells too, by the rules of the version that wrote it.
    if let Some(c) = crate::convert::imported_cells(r) {
        row.clock = c.clock;
        row.throttled = c.throttled;
        row.kernel = c.kernel;
        row.distro = c.distro;
        row.khs = c.khs;
    }
    if r.envelope.inventory.device.is_none() && r.envelope.hostname.is_none() {
        row.device = "-".into();
    }
    if let Some(m) = r.body.memory() {
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
        let Some(c) = r.body.clocks(name) else {
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
    if let Some(m) = r.body.memory() {
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
    if let Some(a) = r.body.aes(phase::AES) {
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
        for c in r.body.compression(name) {
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
        f.kind == truebench_model::finding::FindingKind::Throttling
            && f.severity > truebench_model::finding::Severity::Info
    });
    if throttled {
        log.throttling.push(ThrottlingTable::default());
    }
    log
}
