//! The clock phases: the cold OPP walk, all cores at once (extensive), and the hot check under load.

use super::*;
use truebench_model::phase;
use truebench_monitor_core::detect::clocks::{self as clocks_judge, ClockCheck};
use truebench_monitor_core::detect::turbo_clock::judge_turbo_hot;

impl<M: Measurements + ?Sized> Run<'_, M> {
    pub(super) fn clock_options(&self) -> ClocksOptions {
        ClocksOptions {
            max_khz: self.opts.max_khz,
            min_khz: self.opts.min_khz,
            all_cores: false,
            load_heat: Duration::from_secs(if self.opts.mode == Mode::Quick { 1 } else { 5 }),
            tune: self.s.tuned(),
            ..ClocksOptions::default()
        }
    }

    pub(super) fn phase_clocks_cold(&mut self) {
        let first: Vec<u32> = self.groups.iter().map(|g| g.first).collect();
        self.phase(
            phase::CLOCKS_COLD,
            "clock check, idle and cold (measured vs advertised for every OPP)",
            Some(1),
            first,
            |r| {
                let opts = r.clock_options();
                let reason =
                    r.s.tuning_record()
                        .reason
                        .clone()
                        .or_else(|| (!r.opts.tune).then(|| "tuning switched off".to_string()));
                let mut tuning = r.s.take_tuning();
                let stop = r.s.stop_flag();
                let report = clocks::run_with(
                    r.host,
                    r.inv,
                    &opts,
                    r.m.clock_probe(),
                    &mut tuning,
                    reason,
                    &stop,
                );
                r.s.give_back_tuning(tuning);
                r.s.tool(
                    "built-in clock",
                    Some(format!("truebench {}", r.opts.truebench_version)),
                    None,
                );
                for f in &report.findings {
                    r.s.finding(f.clone());
                }
                r.cold_clocks = report
                    .clusters
                    .iter()
                    .filter_map(|c| Some((c.measured_cpu?, clocks::top_check(c)?)))
                    .collect();
                for n in &report.notes {
                    r.s.note(n.clone());
                }
                crate::clocks_session::outcome(&report, "OPP walk from the highest OPP")
            },
        );
    }

    pub(super) fn phase_clocks_all(&mut self) {
        let cpus = all_cpus(&self.groups);
        let n = cpus.len() as u32;
        self.phase(
            phase::CLOCKS_ALL,
            "clock of every CPU at once, idle and under load",
            Some(n),
            cpus,
            |r| {
                let opts = r.clock_options();
                let mut tuning = r.s.take_tuning();
                let a = clocks::all_cores(r.host, r.inv, &opts, r.m.clock_probe(), &mut tuning);
                r.s.give_back_tuning(tuning);
                let text = |what: &str, v: &[clocks::CoreClock]| -> String {
                    let mut s = format!("Measuring clockspeeds for all cores in parallel ({what}):\n");
                    for c in v {
                        s.push_str(&format!(
                            "cpu{}: {}\n",
                            c.cpu,
                            c.measured_mhz
                                .map_or("failed".into(), |m| format!("{m:.0} MHz"))
                        ));
                    }
                    s
                };
                Outcome {
                    raw: vec![m::RawOutput {
                        label: "all cores".into(),
                        command: format!(
                            "built-in clock measurement on every CPU, idle, then after {} s of load",
                            a.load_heat_s.unwrap_or_default()
                        ),
                        text: format!("{}\n{}", text("idle", &a.idle), text("full load", &a.load)),
                    }],
                    details: to_json(&a),
                    scores: Some(Scores::Clocks(m::ClockScores {
                        clusters: Vec::new(),
                        all_cores: Some(a),
                    })),
                    ..Default::default()
                }
            },
        );
    }

    /// The highest allowed OPP of every cluster again, right after the heaviest phases, with
    /// a load on every other CPU so the SoC stays hot.
    pub(super) fn phase_clocks_hot(&mut self) {
        let groups = self.groups.clone();
        let all = all_cpus(&groups);
        let n = all.len() as u32;
        self.phase(
            phase::CLOCKS_HOT,
            "clock check at the highest OPP, hot and under load on the other CPUs",
            Some(n),
            all.clone(),
            |r| {
                let mut scores = m::ClockScores::default();
                let mut text = String::new();
                for g in &groups {
                    let others: Vec<u32> = all.iter().copied().filter(|&c| c != g.first).collect();
                    let probe = r.m.clock_probe();
                    let load = probe.start_load(&others);
                    std::thread::sleep(r.opts.hot_settle);
                    let measured = probe.measure(r.host, g.first);
                    let firmware = probe.firmware_mhz(r.host);
                    drop(load);
                    let cluster = g.cluster.and_then(|c| r.inv.clusters.get(c));
                    let reported = cluster
                        .and_then(|c| c.cur_freq_file.as_ref())
                        .and_then(|f| r.host.read_u64(f))
                        .map(|k| (k / 1000) as u32);
                    // With the performance governor the clock is the policy's maximum.
                    let opp = g
                        .policy_dir
                        .as_ref()
                        .filter(|_| r.s.tuning_record().applied)
                        .and_then(|d| r.host.read_u64(format!("{d}/scaling_max_freq")))
                        .map(|k| (k / 1000) as u32);
                    let point = crate::clocks::point_from(
                        measured,
                        opp.map(|o| u64::from(o) * 1000),
                        reported,
                        firmware,
                    );
                    let hot = point
                        .opp_mhz
                        .zip(point.measured_mhz)
                        .and_then(|(o, mhz)| ClockCheck::new(o as f64, mhz, &point.samples_mhz));
                    if let Some(hot) = hot {
                        let cold = r
                            .cold_clocks
                            .iter()
                            .find(|(cpu, _)| *cpu == g.first)
                            .map(|(_, c)| c);
                        let label = format!(
                            "{}{}",
                            cluster.map_or(format!("cpu{}", g.first), |c| c.cpu_range()),
                            core(&g.core_type)
                        );
                        // A cluster without a frequency table at its boost limit: judged
                        // against base and boost, not as an OPP.
                        let turbo = cluster
                            .and_then(|c| crate::clocks::turbo_clocks(r.inv, c))
                            .filter(|t| hot.opp_mhz >= t.boost_mhz as f64);
                        let f = match turbo {
                            Some(t) => judge_turbo_hot(
                                &label,
                                cold,
                                &hot,
                                t.base_mhz as f64,
                                t.boost_mhz as f64,
                            ),
                            None => clocks_judge::judge_hot(&label, cold, &hot),
                        };
                        if let Some(f) = f {
                            r.s.finding(f);
                        }
                    }
                    text.push_str(&format!(
                        "Checking cpufreq OPP for {}{} (hot, load on {} other CPU(s)):\n{}\n\n",
                        cluster.map_or(format!("cpu{}", g.first), |c| c.cpu_range()),
                        core(&g.core_type),
                        others.len(),
                        hot_line(&point)
                    ));
                    scores.clusters.push(m::clocks::ClusterClocks {
                        id: g.cluster.unwrap_or(0),
                        cpus: cluster.map_or_else(|| vec![g.first], |c| c.cpus.clone()),
                        cpu_range: cluster.map_or(format!("cpu{}", g.first), |c| c.cpu_range()),
                        core_type: g.core_type.clone(),
                        driver: cluster.and_then(|c| c.driver.clone()),
                        measured_cpu: Some(g.first),
                        mode: m::clocks::WalkMode::MaxOpp,
                        enforced: None,
                        points: vec![point],
                        notes: Vec::new(),
                        turbo: None,
                    });
                    if r.stopped() {
                        break;
                    }
                }
                Outcome {
                    raw: vec![m::RawOutput {
                        label: "clocks, hot".into(),
                        command: "built-in clock measurement at the highest allowed OPP".into(),
                        text,
                    }],
                    scores: Some(Scores::Clocks(scores)),
                    ..Default::default()
                }
            },
        );
    }
}

pub(super) fn hot_line(p: &m::clocks::ClockPoint) -> String {
    let measured = match p.measured_mhz {
        Some(v) => format!(
            "{v:.0} ({})",
            p.samples_mhz
                .iter()
                .map(|s| format!("{s:.3}"))
                .collect::<Vec<_>>()
                .join("/")
        ),
        None => format!("failed ({})", p.error.as_deref().unwrap_or("?")),
    };
    match p.opp_mhz {
        Some(o) => format!(
            "Cpufreq OPP: {o:>4}    Measured: {measured}{}",
            truebench_monitor_core::clocks_text::deviation_column(p.deviation_pct)
        ),
        None => format!("Measured: {measured}"),
    }
}
