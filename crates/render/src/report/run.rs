//! The sections of a `run` page: score cards, measured clocks, AES, memory, compression and
//! stress.

use super::*;
use truebench_model::phase;

/// The score cards under the header.
pub(super) fn headline(r: RunView<'_>) -> String {
    let mut o = String::new();
    scores(&mut o, r);
    o
}

/// Everything after the timeline.
pub(super) fn details(r: RunView<'_>) -> String {
    let mut o = String::new();
    clocks(&mut o, r);
    aes(&mut o, r);
    memory(&mut o, r);
    compression(&mut o, r);
    stress(&mut o, r);
    o
}

/// The Results.md scores as the page's headline cards (the run's `Figures::headline`).
pub(super) fn scores(o: &mut String, r: RunView<'_>) {
    let mut extra = String::new();
    if metrics(r).sevenzip_multi.is_none() {
        if let Some(c) = r.body.compression(phase::COMPRESSION_MULTI).next() {
            if c.tool == CompressionTool::BuiltinLzma {
                extra.push_str("<p class=\"muted\">7-zip was not installed: the built-in LZMA benchmark ran instead (MB/s, not comparable with 7-zip MIPS).</p>");
            }
        }
    }
    o.push_str(&headline_section(
        "Scores",
        &<RunBody as truebench_figures::Figures>::headline(r),
        &extra,
    ));
}

pub(super) fn clocks(o: &mut String, r: RunView<'_>) {
    let cold = r.body.clocks(phase::CLOCKS_COLD);
    let hot = r.body.clocks(phase::CLOCKS_HOT);
    if cold.is_none() && hot.is_none() {
        return;
    }
    let any_opp = cold
        .iter()
        .chain(hot.iter())
        .flat_map(|c| c.clusters.iter())
        .flat_map(|c| c.points.iter())
        .any(|p| p.opp_mhz.is_some());
    o.push_str(if any_opp {
        "<section><h2>Measured vs advertised clock</h2><p class=\"muted\">Each OPP set through cpufreq, the clock measured by counting cycles. On the diagonal the CPU runs at the clock it advertises; below it, slower. Filled: cold, before the benchmarks; hollow: hot, after them.</p><div class=\"grid2\">"
    } else {
        "<section><h2>Measured clock</h2><p class=\"muted\">No cpufreq on this machine, so no advertised clocks: the clock measured by counting cycles, cold (before the benchmarks) and hot (after them).</p><div class=\"grid2\">"
    });
    let mut clusters: Vec<usize> = cold
        .iter()
        .chain(hot.iter())
        .flat_map(|c| c.clusters.iter().map(|x| x.id))
        .collect();
    clusters.sort_unstable();
    clusters.dedup();
    let mut table = String::from("<div class=\"scroll\"><table><thead><tr><th>cluster</th><th>OPP (MHz)</th><th>measured cold</th><th>measured hot</th><th>deviation</th></tr></thead><tbody>");
    for k in clusters {
        let pick = |c: &Option<&ClockScores>| -> Vec<truebench_model::clocks::ClockPoint> {
            c.iter()
                .flat_map(|c| c.clusters.iter().filter(|x| x.id == k))
                .flat_map(|x| x.points.iter().cloned())
                .collect()
        };
        let (pc, ph) = (pick(&cold), pick(&hot));
        let name = cluster_name(r, k);
        let has_opp = pc.iter().chain(ph.iter()).any(|p| p.opp_mhz.is_some());
        if has_opp {
            let mut c = LineChart::new(&name, "OPP (MHz)", "measured (MHz)");
            c.width = 420.0;
            c.height = 280.0;
            c.diagonal = true;
            let pts = |v: &[truebench_model::clocks::ClockPoint]| -> Vec<(f64, Option<f64>)> {
                let mut p: Vec<(f64, Option<f64>)> = v
                    .iter()
                    .filter_map(|p| Some((p.opp_mhz? as f64, p.measured_mhz)))
                    .collect();
                p.sort_by(|a, b| a.0.total_cmp(&b.0));
                p
            };
            let mut s = Series::new("cold", cluster_colour(k), "MHz", pts(&pc));
            s.markers = true;
            c.series.push(s);
            let mut s = Series::new("hot", cluster_colour(k), "MHz", pts(&ph));
            s.markers = true;
            s.dashed = true;
            c.series.push(s);
            o.push_str(&c.render());
        } else {
            let rows: Vec<Bar> = pc
                .iter()
                .map(|p| ("cold", p))
                .chain(ph.iter().map(|p| ("hot", p)))
                .filter_map(|(w, p)| {
                    let m = p.measured_mhz?;
                    Some(Bar {
                        label: w.into(),
                        value: m,
                        colour: cluster_colour(k).into(),
                        text: format!("{} MHz", num(m)),
                    })
                })
                .collect();
            o.push_str(&bars(&name, &rows));
        }
        let mut opps: Vec<Option<u32>> = pc.iter().chain(ph.iter()).map(|p| p.opp_mhz).collect();
        opps.sort_unstable_by(|a, b| b.cmp(a));
        opps.dedup();
        for opp in opps {
            let c = pc.iter().find(|p| p.opp_mhz == opp);
            let hh = ph.iter().find(|p| p.opp_mhz == opp);
            let dev = c.or(hh).and_then(|p| p.deviation_pct);
            let _ = write!(
                table,
                "<tr><td><i class=\"dot\" style=\"background:{}\"></i>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td></tr>",
                cluster_colour(k),
                esc(&name),
                opp.map_or("–".into(), |o| o.to_string()),
                c.and_then(|p| p.measured_mhz).map_or("–".into(), |m| format!("{m:.0}")),
                hh.and_then(|p| p.measured_mhz).map_or("–".into(), |m| format!("{m:.0}")),
                if dev.is_some_and(|d| d < -9.0) { "bad" } else if dev.is_some_and(|d| d.abs() > 1.0) { "meh" } else { "" },
                dev.map_or("".into(), |d| format!("{d:+.1} %"))
            );
        }
    }
    o.push_str("</div><details><summary>all points</summary>");
    table.push_str("</tbody></table></div>");
    o.push_str(&table);
    o.push_str("</details></section>");
}

pub(super) fn aes(o: &mut String, r: RunView<'_>) {
    let mut any = false;
    for name in [phase::AES, phase::AES_PARALLEL] {
        if let Some(a) = r.body.aes(name) {
            if !any {
                o.push_str("<section><h2>AES</h2>");
                any = true;
            }
            let src = match a.source {
                AesSourceKind::Openssl => format!(
                    "openssl speed -evp, {}",
                    a.version.as_deref().unwrap_or("unknown version")
                ),
                AesSourceKind::Builtin => {
                    format!("built-in, {}", a.version.as_deref().unwrap_or("truebench"))
                }
            };
            let instr = match (a.has_aes_instructions, &a.aes_instructions) {
                (Some(true), Some(k)) => format!("; CPU has {k}"),
                (Some(false), Some(k)) => format!("; no {k}"),
                _ => String::new(),
            };
            let _ = write!(
                o,
                "<p class=\"muted\">{}{}{}. Throughput in 1000 bytes/s per block size (OpenSSL's k).</p><div class=\"scroll\"><table class=\"num2\"><thead><tr><th>cipher</th><th>cluster</th>",
                if a.parallel { "All CPUs in parallel; " } else { "" },
                esc(&src),
                esc(&instr)
            );
            for s in &a.sizes {
                let _ = write!(
                    o,
                    "<th>{}</th>",
                    if *s >= 1024 {
                        format!("{} KiB", s / 1024)
                    } else {
                        format!("{s} B")
                    }
                );
            }
            o.push_str("</tr></thead><tbody>");
            let best = a
                .tables
                .iter()
                .flat_map(|t| t.rows.iter())
                .flat_map(|r| r.k.iter().copied())
                .fold(0.0, f64::max)
                .max(1.0);
            for t in &a.tables {
                let k = t.cluster.unwrap_or(0);
                let who = if a.parallel {
                    "all".to_string()
                } else {
                    t.core_type.clone().unwrap_or_else(|| cluster_name(r, k))
                };
                for row in &t.rows {
                    let _ = write!(
                        o,
                        "<tr><td>{}</td><td><i class=\"dot\" style=\"background:{}\"></i>{}</td>",
                        esc(&row.cipher),
                        cluster_colour(k),
                        esc(&who)
                    );
                    for v in &row.k {
                        let _ = write!(
                            o,
                            "<td><span class=\"cellbar\" style=\"width:{:.0}%;background:{}\"></span>{}</td>",
                            v / best * 100.0,
                            cluster_colour(k),
                            num(*v)
                        );
                    }
                    o.push_str("</tr>");
                }
            }
            o.push_str("</tbody></table></div>");
        }
    }
    if any {
        o.push_str("</section>");
    }
}

pub(super) fn memory(o: &mut String, r: RunView<'_>) {
    let Some(m) = r.body.memory() else {
        return;
    };
    o.push_str("<section><h2>Memory</h2><div class=\"scroll\"><table class=\"num\"><thead><tr><th>cluster</th><th>memcpy (MB/s)</th><th>memset (MB/s)</th><th>read (MB/s)</th><th title=\"tinymembench's standard memcpy / memset: libc over 32 MiB, the Results.md row's measure\">standard memcpy</th><th>standard memset</th></tr></thead><tbody>");
    for c in &m.clusters {
        let k = c.cluster.unwrap_or(0);
        let bw = |b: &Option<Bandwidth>| {
            b.as_ref().map_or("–".into(), |b| {
                if b.spread_pct >= 0.1 {
                    format!("{} <small>±{:.1} %</small>", num(b.mb_s), b.spread_pct)
                } else {
                    num(b.mb_s)
                }
            })
        };
        let _ = write!(
            o,
            "<tr><td><i class=\"dot\" style=\"background:{}\"></i>{}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            cluster_colour(k),
            c.cpu.map(|c| format!("cpu{c} · ")).unwrap_or_default(),
            esc(c.core_type.as_deref().unwrap_or("")),
            bw(&c.memcpy),
            bw(&c.memset),
            bw(&c.read),
            bw(&c.standard_memcpy),
            bw(&c.standard_memset)
        );
    }
    o.push_str("</tbody></table></div>");
    if m.clusters.iter().any(|c| !c.latency.is_empty()) {
        let mut ch = LineChart::new(
            "Memory latency (random dependent reads)",
            "buffer size (bytes)",
            "latency (ns)",
        );
        ch.x_log2 = true;
        ch.width = 760.0;
        ch.height = 300.0;
        ch.y_min = Some(0.0);
        for c in &m.clusters {
            let k = c.cluster.unwrap_or(0);
            let name = match (c.cpu, &c.core_type) {
                (Some(cpu), Some(t)) => format!("cpu{cpu} · {t}"),
                (Some(cpu), None) => format!("cpu{cpu}"),
                (None, Some(t)) => t.clone(),
                (None, None) => cluster_name(r, k),
            };
            let mut s = Series::new(
                &name,
                cluster_colour(k),
                "ns",
                c.latency
                    .iter()
                    .map(|p| (p.bytes as f64, Some(p.ns)))
                    .collect(),
            );
            s.markers = true;
            ch.series.push(s);
            if c.latency.iter().any(|p| p.ns_hugepages.is_some()) {
                let mut s = Series::new(
                    &format!("{name}, huge pages"),
                    cluster_colour(k),
                    "ns",
                    c.latency
                        .iter()
                        .map(|p| (p.bytes as f64, p.ns_hugepages))
                        .collect(),
                );
                s.dashed = true;
                ch.series.push(s);
            }
        }
        o.push_str(&wide(&ch.render()));
        if let Some(n) = r
            .envelope
            .notes
            .iter()
            .find(|n| n.starts_with("memory latency from"))
        {
            let _ = write!(o, "<p class=\"muted\">{}</p>", esc(n));
        }
    }
    o.push_str("</section>");
}

pub(super) fn compression(o: &mut String, r: RunView<'_>) {
    let mut rows = Vec::new();
    for name in [
        phase::COMPRESSION_SINGLE,
        phase::COMPRESSION_MULTI,
        phase::COMPRESSION_CLUSTER,
    ] {
        for c in r.body.compression(name) {
            for run in &c.runs {
                rows.push((c.tool, c.version.clone(), run.clone()));
            }
        }
    }
    if rows.is_empty() {
        return;
    }
    o.push_str("<section><h2>Compression</h2><div class=\"scroll\"><table class=\"num2\"><thead><tr><th>run</th><th>CPUs</th><th>compress</th><th>decompress</th><th>total</th></tr></thead><tbody>");
    for (tool, _v, run) in rows {
        let kind = match run.kind {
            RunKind::Single => "single-threaded",
            RunKind::Multi => "all cores",
            RunKind::Cluster => "one cluster",
        };
        let k = run.cluster.unwrap_or(0);
        let cpus = truebench_host::parse::cpulist::format(&run.cpus);
        let (c, d, t) = match tool {
            CompressionTool::SevenZip => (
                run.compress_mips
                    .map_or("–".into(), |v| format!("{} MIPS", num(v as f64))),
                run.decompress_mips
                    .map_or("–".into(), |v| format!("{} MIPS", num(v as f64))),
                run.total_mips
                    .map_or("–".into(), |v| format!("<b>{}</b> MIPS", num(v as f64))),
            ),
            CompressionTool::BuiltinLzma => (
                run.compress_mb_s
                    .map_or("–".into(), |v| format!("{} MB/s", num(v))),
                run.decompress_mb_s
                    .map_or("–".into(), |v| format!("{} MB/s", num(v))),
                "–".into(),
            ),
        };
        let _ = write!(
            o,
            "<tr><td><i class=\"dot\" style=\"background:{}\"></i>{kind}</td><td>{}</td><td>{c}</td><td>{d}</td><td>{t}</td></tr>",
            if run.kind == RunKind::Multi { "#4a5568" } else { cluster_colour(k) },
            esc(&cpus)
        );
    }
    o.push_str("</tbody></table></div></section>");
}

pub(super) fn stress(o: &mut String, r: RunView<'_>) {
    let Some(s) = r.body.stress() else {
        return;
    };
    if s.intervals.len() < 2 {
        return;
    }
    let mut c = LineChart::new(
        &format!("{} over time", s.tool),
        "time (s)",
        &format!("score ({})", s.unit),
    );
    c.width = 760.0;
    c.series.push(Series::new(
        s.tool.as_str(),
        svg::CPU_COLOUR,
        &s.unit,
        s.intervals
            .iter()
            .map(|i| (i.end_s, Some(i.score)))
            .collect(),
    ));
    let _ = write!(
        o,
        "<section><h2>Sustained load</h2><p class=\"muted\">{}{}</p>{}</section>",
        esc(s.version.as_deref().unwrap_or(s.tool.as_str())),
        s.change_pct
            .map(|p| format!(": {p:+.1} % from the first to the last interval"))
            .unwrap_or_default(),
        wide(&c.render())
    );
}
