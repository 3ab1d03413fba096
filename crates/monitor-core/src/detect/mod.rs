//! Detectors: pure functions from evidence (snapshots, the timeline, kernel-log lines) to
//! findings. Each module covers one concern; [`detect_all`] runs them all for a before/after
//! pair, and the helpers other commands need (`clocks::clock_deviation`,
//! `activity::not_idle`) are public for them to call directly.

pub mod activity;
pub mod clock_walk;
pub mod clocks;
pub mod cores;
pub mod heat;
pub mod kernel_log;
pub mod memory;
pub mod opp_limit;
pub mod perf_limits;
pub mod phases;
pub mod power;
pub mod rpi;
pub mod thermal;
pub mod throttling;
pub mod turbo_clock;

use truebench_host::Inventory;

use crate::evidence::Snapshot;
use crate::kmsg::KernelLog;
use truebench_model::finding::{Basis, Finding, FindingKind, Severity};
use truebench_model::timeline::{Sample, Timeline};

/// What the detectors judge: the evidence of one measurement and its phases.
pub struct Context<'a> {
    pub inv: &'a Inventory,
    /// The snapshot the verdicts start from (after tuning) and the last one.
    pub before: &'a Snapshot,
    pub after: &'a Snapshot,
    /// Every snapshot taken, in order (one at each phase boundary): their process tables
    /// name the processes that ran during each phase.
    pub boundaries: &'a [&'a Snapshot],
    /// The samples, with the phases marked and the threads each keeps busy.
    pub timeline: &'a Timeline,
    pub log: &'a KernelLog,
}

/// Every detector over one watched run: `before`/`after` snapshots around it, the samples
/// taken in between and the kernel log written meanwhile. Most severe findings first.
pub fn detect_all(
    inv: &Inventory,
    before: &Snapshot,
    after: &Snapshot,
    timeline: &Timeline,
    klog: &KernelLog,
) -> Vec<Finding> {
    run(&Context {
        inv,
        before,
        after,
        boundaries: &[before, after],
        timeline,
        log: klog,
    })
}

/// The conditions [`run`] judges on every measurement: a farm format reports each as a test
/// that passed, failed (a critical finding) or was skipped (a `not_checked` finding left it
/// unchecked). Keep in step with the detectors `run` calls.
pub const CONDITIONS: &[FindingKind] = &[
    FindingKind::Throttling,
    FindingKind::FrequencyCapping,
    FindingKind::PowerLimit,
    FindingKind::Undervoltage,
    FindingKind::KilledCores,
    FindingKind::Swapping,
    FindingKind::ZswapOnZram,
    FindingKind::OomKill,
    FindingKind::ThermalTrip,
    FindingKind::BackgroundActivity,
    FindingKind::SystemActivity,
];

/// The one pipeline every measurement's verdicts come from: each detector once, background
/// and kernel activity judged per phase against the threads the phase uses and the processes
/// seen at its boundaries. Most severe findings first.
pub fn run(ctx: &Context<'_>) -> Vec<Finding> {
    let (inv, before, after, timeline, klog) =
        (ctx.inv, ctx.before, ctx.after, ctx.timeline, ctx.log);
    let lines = klog.lines();
    let mut f = Vec::new();
    f.extend(throttling::detect(inv, before, after, timeline));
    f.extend(rpi::detect(before, after, timeline));
    f.extend(power::undervoltage_log(lines));
    f.extend(power::undervoltage_alarm(before, after));
    f.extend(cores::killed_cores(before, after, lines));
    f.extend(memory::swapping(inv, before, after, timeline));
    f.extend(memory::zswap_on_zram(before, after));
    f.extend(memory::oom_kill(lines));
    f.extend(thermal::thermal_trip(lines));
    f.extend(perf_limits::detect(inv, before, after));
    f.extend(opp_limit::detect(inv));
    let tables = process_tables(timeline, ctx.boundaries);
    f.extend(activity::background_activity(inv, timeline, &tables));
    f.extend(activity::system_activity(timeline, &tables));
    f.extend(not_checked(inv, before, timeline));
    if let KernelLog::Unavailable(why) = klog {
        f.push(
            Finding::new(
                FindingKind::NotChecked,
                Severity::Info,
                "The kernel log could not be read, so killed CPU cores, under-voltage, oom-killer and thermal-trip messages were not checked; run as root to check them.",
            )
            .with_evidence([why.clone()])
            .leaving([
                FindingKind::KilledCores,
                FindingKind::Undervoltage,
                FindingKind::OomKill,
                FindingKind::ThermalTrip,
            ]),
        );
    }
    sort(&mut f);
    f
}

/// What could not be judged for want of evidence: a clean verdict must not be read as
/// "checked and clean" when there was nothing to check with.
pub fn not_checked(inv: &Inventory, before: &Snapshot, tl: &Timeline) -> Vec<Finding> {
    let mut f = Vec::new();
    let nc = |msg: String| Finding::new(FindingKind::NotChecked, Severity::Info, msg);
    if inv.thermal.chosen.is_none() && !tl.samples.iter().any(|s| s.soc_temp_c.is_some()) {
        f.push(nc(
            "No temperature sensor: throttling by heat (clocks falling as the SoC gets hotter) was not checked.".into(),
        ));
    }
    let cpufreq = inv.clusters.iter().any(|c| c.driver.is_some()) || !before.policies.is_empty();
    if !cpufreq {
        f.push(nc(
            "No cpufreq: clocks lowered by the kernel (throttling to lower OPPs, capped maximum clocks) were not checked.".into(),
        ).on(Basis::NoCpufreq)
        .leaving([FindingKind::Throttling, FindingKind::FrequencyCapping]));
    }
    if tl.samples.is_empty() {
        f.push(nc(
            "No monitoring sample was taken (it ended within the first sampling interval): background activity, swapping and clock drops while it ran were not checked.".into(),
        ).leaving([
            FindingKind::BackgroundActivity,
            FindingKind::SystemActivity,
            FindingKind::Swapping,
        ]));
    } else {
        // The first sample of a phase covers time before it, so a phase needs two.
        // Phases on every CPU are not judged for background activity anyway.
        let n = inv.online_cpus().count();
        let short: Vec<&str> = tl
            .phases
            .iter()
            .filter(|p| p.threads.is_some_and(|t| n == 0 || (t as usize) < n))
            .filter(|p| tl.samples_in(p).len() < 2)
            .map(|p| p.name.as_str())
            .collect();
        if !short.is_empty() {
            f.push(nc(format!(
                "Background activity was not checked during {} phase(s) shorter than the sampling interval: {}.",
                short.len(),
                short.join(", ")
            )));
        }
    }
    f
}

/// Snapshots with a process table, placed on the timeline's clock.
pub fn process_tables<'a>(
    tl: &Timeline,
    snaps: &[&'a Snapshot],
) -> Vec<(f64, &'a crate::evidence::ProcessTable)> {
    let mut v: Vec<_> = snaps
        .iter()
        .filter_map(|s| Some((s.timeline_t(tl)?, s.processes.as_ref()?)))
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    v
}

/// Most severe first; the order within a severity is the detectors' order.
pub fn sort(findings: &mut [Finding]) {
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
}

/// Human text: one bullet per finding, its evidence indented below.
pub fn render_findings(findings: &[Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        let sev = match f.severity {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Critical => "CRITICAL",
        };
        out.push_str(&format!("  * [{sev}] {}: {}\n", f.kind.as_str(), f.message));
        for e in &f.evidence {
            if e.is_empty() {
                out.push('\n');
            } else {
                out.push_str("      ");
                out.push_str(e);
                out.push('\n');
            }
        }
    }
    out
}

/// `cpu4-cpu7 (Cortex-A76)` or the timeline's label for a cluster.
pub(crate) fn cluster_label(inv: &Inventory, cluster: usize) -> String {
    match inv.clusters.get(cluster) {
        Some(c) => match &c.core_type {
            Some(t) => format!("{} ({t})", c.cpu_range()),
            None => c.cpu_range(),
        },
        None => format!("cluster {cluster}"),
    }
}

/// One sample as an evidence line: time, clocks, load, %cpu/%sys, temperature.
pub(crate) fn fmt_sample(s: &Sample) -> String {
    let mut out = format!("t={:7.1}s", s.t);
    if s.cluster_mhz.iter().any(Option::is_some) {
        let clocks: Vec<String> = s
            .cluster_mhz
            .iter()
            .map(|m| m.map_or("-".into(), |m| m.to_string()))
            .collect();
        out.push_str(&format!(" {}MHz", clocks.join("/")));
    }
    if s.measured_mhz.iter().any(Option::is_some) {
        let clocks: Vec<String> = s
            .measured_mhz
            .iter()
            .map(|m| m.map_or("-".into(), |m| format!("{m:.0}")))
            .collect();
        out.push_str(&format!(" (measured {}MHz)", clocks.join("/")));
    }
    if let Some(r) = s.rpi.and_then(|r| r.arm_mhz) {
        out.push_str(&format!(" (firmware {r:.0}MHz)"));
    }
    if let Some(l) = s.load1 {
        out.push_str(&format!(" load {l:.2}"));
    }
    if let Some(c) = s.cpu {
        out.push_str(&format!(
            " cpu {:.0}% sys {:.0}% usr {:.0}% nice {:.0}% io {:.0}% irq {:.0}%",
            c.cpu, c.sys, c.usr, c.nice, c.io, c.irq
        ));
    }
    if let Some(t) = s.soc_temp_c {
        out.push_str(&format!(" {t:.1}°C"));
    }
    out
}

/// At most `max` lines, then a count of the rest.
pub(crate) fn capped(lines: Vec<String>, max: usize) -> Vec<String> {
    let n = lines.len();
    if n <= max {
        return lines;
    }
    let mut v: Vec<String> = lines.into_iter().take(max).collect();
    v.push(format!("… and {} more", n - max));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_bullets_and_indented_evidence() {
        let f = vec![
            Finding::new(FindingKind::Swapping, Severity::Critical, "Swap grew.")
                .with_evidence(["a", "", "b"]),
            Finding::new(FindingKind::NotChecked, Severity::Info, "No log."),
        ];
        let t = render_findings(&f);
        assert_eq!(
            t,
            "  * [CRITICAL] swapping: Swap grew.\n      a\n\n      b\n  * [info] not_checked: No log.\n"
        );
    }

    #[test]
    fn sample_lines() {
        let mut s = Sample {
            t: 2.5,
            cluster_mhz: vec![None],
            soc_temp_c: Some(61.25),
            ..Default::default()
        };
        assert_eq!(fmt_sample(&s), "t=    2.5s 61.2°C");
        s.cluster_mhz = vec![Some(1800), None];
        assert_eq!(fmt_sample(&s), "t=    2.5s 1800/-MHz 61.2°C");
    }

    #[test]
    fn capping() {
        let v: Vec<String> = (0..5).map(|i| i.to_string()).collect();
        assert_eq!(capped(v.clone(), 10).len(), 5);
        let c = capped(v, 2);
        assert_eq!(c, ["0", "1", "… and 3 more"]);
    }
}
