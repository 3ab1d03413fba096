//! `truebench kernel` as text: the build, the options that matter for benchmarks, where the
//! kernel comes from (with the evidence) and kernel.org's support status.

use std::fmt::Write;
use truebench_host::kernel::{ConfigHints, KernelReport, OriginKind, SupportStatus};

fn origin_label(r: &KernelReport) -> String {
    let v = r.origin.vendor.as_deref();
    match (r.origin.kind, v) {
        (OriginKind::Mainline, _) => "kernel.org version (no sign of a vendor tree)".into(),
        (OriginKind::Prerelease, _) => "development kernel (release candidate or -next)".into(),
        (OriginKind::Distribution, Some(v)) => format!("{v} distribution kernel"),
        (OriginKind::Distribution, None) => "distribution kernel".into(),
        (OriginKind::RaspberryPi, _) => "Raspberry Pi's kernel tree (raspberrypi/linux)".into(),
        (OriginKind::Android, _) => "Android common kernel".into(),
        (OriginKind::Community, Some(v)) => format!("{v} community build on mainline"),
        (OriginKind::Community, None) => "community build on mainline".into(),
        (OriginKind::Bsp, Some(v)) => format!("{v} vendor/BSP kernel"),
        (OriginKind::Bsp, None) => "vendor/BSP kernel".into(),
        (OriginKind::Undecided, Some(v)) => format!("undecided (perhaps {v}'s vendor kernel)"),
        (OriginKind::Undecided, None) => "unknown".into(),
    }
}

fn config_line(c: &ConfigHints) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(hz) = c.hz {
        parts.push(format!("HZ {hz}"));
    }
    if let Some(p) = &c.preemption {
        parts.push(format!("preemption {p}"));
    }
    if let Some(t) = &c.tick {
        parts.push(format!("tick {t}"));
    }
    if let Some(s) = c.cpufreq_stats {
        parts.push(format!("cpufreq stats {}", if s { "yes" } else { "no" }));
    }
    if let Some(g) = &c.default_governor {
        parts.push(format!("default governor {g}"));
    }
    if let Some(p) = c.page_kib {
        parts.push(format!("{p} KiB pages"));
    }
    if let Some(t) = &c.thp_default {
        parts.push(format!("THP {t}"));
    }
    if parts.is_empty() {
        return None;
    }
    let from = c
        .source
        .as_deref()
        .or(c.preemption_source.as_deref())
        .unwrap_or("unknown");
    Some(format!("{} (from {from})", parts.join(", ")))
}

pub fn render(r: &KernelReport) -> String {
    let mut o = String::new();
    let arch = match (&r.arch, &r.userland) {
        (Some(a), Some(u)) => format!(" ({a}, userland {u})"),
        (Some(a), None) => format!(" ({a})"),
        _ => String::new(),
    };
    let _ = writeln!(
        o,
        "Kernel {}{arch}",
        r.release.as_deref().unwrap_or("unknown")
    );
    let b = &r.build;
    if b.date.is_some() || b.builder.is_some() || b.compiler.is_some() {
        let mut built = b.date.clone().unwrap_or_default();
        if let Some(by) = &b.builder {
            let _ = write!(built, " by {by}");
        }
        if let Some(c) = &b.compiler {
            let _ = write!(built, " with {c}");
        }
        if b.date.is_none() {
            built.push_str(" (date unknown)");
        }
        let built = built.trim_start();
        let _ = writeln!(o, "  Built:     {built}");
    }
    if !b.flags.is_empty() {
        let _ = writeln!(o, "  Flags:     {}", b.flags.join(" "));
    }
    if let (Some(u), Some(src)) = (&r.upstream, &r.upstream_source) {
        let _ = writeln!(o, "  Based on:  {u} (from {src})");
    }
    if let Some(soc) = &r.soc {
        let _ = writeln!(o, "  SoC:       {soc}");
    }
    match config_line(&r.config) {
        Some(c) => {
            let _ = writeln!(o, "  Config:    {c}");
        }
        None => {
            let _ = writeln!(o, "  Config:    unknown (no kernel config found)");
        }
    }

    let _ = writeln!(o, "\nOrigin: {}", origin_label(r));
    for e in &r.origin.evidence {
        let _ = writeln!(o, "  - {e}");
    }

    let s = &r.support;
    let list = match &s.list_as_of {
        Some(d) => format!("{} as of {d}", s.list),
        None => s.list.clone(),
    };
    let _ = writeln!(o, "\nSupport ({list}; judged on {}):", s.today);
    let _ = writeln!(o, "  {}", s.summary);
    // A vendor kernel's revision number says nothing about the fixes it has.
    let revisions_mean_something = r.origin.kind != OriginKind::Bsp;
    if let (Some(l), Some(n), true) = (&s.latest, s.revisions_behind, revisions_mean_something) {
        let when = s
            .latest_date
            .as_deref()
            .map(|d| format!(" of {d}"))
            .unwrap_or_default();
        let what = match n {
            0 => "this is it".to_string(),
            1 => "1 stable revision behind".to_string(),
            n => format!("{n} stable revisions behind"),
        };
        let series = s.series.as_deref().unwrap_or("series");
        let _ = writeln!(
            o,
            "  Newest {series} release in the list: {l}{when} — {what}."
        );
    }
    if let (Some(n), Some(series)) = (&s.newest, &s.series) {
        if s.status != SupportStatus::NewerThanList && s.status != SupportStatus::Unknown {
            let mut behind = Vec::new();
            if let Some(k) = s.releases_behind {
                behind.push(format!("{k} mainline releases"));
            }
            if let Some(y) = s.years_behind {
                let at_least = if s.years_at_least { "more than " } else { "" };
                behind.push(format!("{at_least}{y:.1} years"));
            }
            let released = s
                .newest_released
                .as_deref()
                .map(|d| format!(", released {d}"))
                .unwrap_or_default();
            if !behind.is_empty() && series != n {
                let _ = writeln!(
                    o,
                    "  Mainline is at {n}{released}: {series} is {} behind.",
                    behind.join(" and ")
                );
            }
        }
    }
    if !r.notes.is_empty() {
        let _ = writeln!(o, "\nNotes:");
        for n in &r.notes {
            let _ = writeln!(o, "  * {n}");
        }
    }
    if !r.missing.is_empty() {
        let _ = writeln!(o, "\nNot known:");
        for m in &r.missing {
            let _ = writeln!(o, "  * {}: {}", m.what, m.reason);
        }
    }
    o
}
