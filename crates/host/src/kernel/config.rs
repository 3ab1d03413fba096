//! The kernel build options that matter for benchmarks, from the kernel's config
//! (`/proc/config.gz` or `/boot/config-RELEASE`), with what `/proc/version` and
//! `/sys/kernel/realtime` tell when there is no config.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The kernel build options that matter for benchmarks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConfigHints {
    /// Where the options were read: `/proc/config.gz`, `/boot/config-6.1.0-13-arm64`, or
    /// `None` when no config was found.
    pub source: Option<String>,
    /// Timer ticks per second (`CONFIG_HZ`).
    pub hz: Option<u32>,
    /// `none`, `voluntary`, `full`, `dynamic`, `rt` — from the config, else the build line.
    pub preemption: Option<String>,
    /// Where `preemption` came from.
    pub preemption_source: Option<String>,
    /// `idle` (NO_HZ_IDLE), `full` (NO_HZ_FULL), `periodic`.
    pub tick: Option<String>,
    /// `CONFIG_CPU_FREQ_STAT`: without it there is no `time_in_state`, so short throttling
    /// cannot be seen.
    pub cpufreq_stats: Option<bool>,
    /// The governor a policy starts with (`CONFIG_CPU_FREQ_DEFAULT_GOV_*`).
    pub default_governor: Option<String>,
    /// Page size in KiB (arm64 `CONFIG_ARM64_{4,16,64}K_PAGES`, else 4 on x86).
    pub page_kib: Option<u32>,
    /// Transparent huge pages by default: `always`, `madvise`, `never` (not built).
    pub thp_default: Option<String>,
}

/// `CONFIG_X=value` lines; `# CONFIG_X is not set` as `n`.
pub fn parse_config(text: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("# ") {
            if let Some(name) = rest.strip_suffix(" is not set") {
                if name.starts_with("CONFIG_") {
                    out.insert(name.to_string(), "n".to_string());
                }
            }
            continue;
        }
        if let Some((k, v)) = t.split_once('=') {
            if k.starts_with("CONFIG_") && !k.contains(' ') {
                out.insert(k.to_string(), v.trim_matches('"').to_string());
            }
        }
    }
    out
}

/// The hints from a parsed config (`source` names the file).
pub fn hints_from_config(cfg: &HashMap<String, String>, source: &str) -> ConfigHints {
    let on = |k: &str| cfg.get(k).map(|v| v == "y" || v == "m");
    let yes = |k: &str| on(k) == Some(true);
    let preemption = if yes("CONFIG_PREEMPT_RT") || yes("CONFIG_PREEMPT_RT_FULL") {
        Some("rt")
    } else if yes("CONFIG_PREEMPT_DYNAMIC") {
        Some("dynamic")
    } else if yes("CONFIG_PREEMPT") {
        Some("full")
    } else if yes("CONFIG_PREEMPT_VOLUNTARY") {
        Some("voluntary")
    } else if yes("CONFIG_PREEMPT_NONE") {
        Some("none")
    } else {
        None
    };
    let tick = if yes("CONFIG_NO_HZ_FULL") {
        Some("full")
    } else if yes("CONFIG_NO_HZ_IDLE") || yes("CONFIG_NO_HZ") {
        Some("idle")
    } else if yes("CONFIG_HZ_PERIODIC") {
        Some("periodic")
    } else {
        None
    };
    let governors = [
        ("CONFIG_CPU_FREQ_DEFAULT_GOV_PERFORMANCE", "performance"),
        ("CONFIG_CPU_FREQ_DEFAULT_GOV_POWERSAVE", "powersave"),
        ("CONFIG_CPU_FREQ_DEFAULT_GOV_USERSPACE", "userspace"),
        ("CONFIG_CPU_FREQ_DEFAULT_GOV_ONDEMAND", "ondemand"),
        ("CONFIG_CPU_FREQ_DEFAULT_GOV_CONSERVATIVE", "conservative"),
        ("CONFIG_CPU_FREQ_DEFAULT_GOV_SCHEDUTIL", "schedutil"),
        ("CONFIG_CPU_FREQ_DEFAULT_GOV_INTERACTIVE", "interactive"),
    ];
    let default_governor = governors
        .iter()
        .find(|(k, _)| yes(k))
        .map(|(_, g)| g.to_string());
    let page_kib = if yes("CONFIG_ARM64_64K_PAGES") || yes("CONFIG_PPC_64K_PAGES") {
        Some(64)
    } else if yes("CONFIG_ARM64_16K_PAGES") || yes("CONFIG_PAGE_SIZE_16KB") {
        Some(16)
    } else if yes("CONFIG_ARM64_4K_PAGES") || yes("CONFIG_X86") || yes("CONFIG_PAGE_SIZE_4KB") {
        Some(4)
    } else {
        None
    };
    let thp_default = if on("CONFIG_TRANSPARENT_HUGEPAGE") == Some(false) {
        Some("never")
    } else if yes("CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS") {
        Some("always")
    } else if yes("CONFIG_TRANSPARENT_HUGEPAGE_MADVISE") {
        Some("madvise")
    } else {
        None
    };
    ConfigHints {
        source: Some(source.to_string()),
        hz: cfg.get("CONFIG_HZ").and_then(|v| v.parse().ok()),
        preemption: preemption.map(str::to_string),
        preemption_source: preemption.map(|_| source.to_string()),
        tick: tick.map(str::to_string),
        cpufreq_stats: on("CONFIG_CPU_FREQ_STAT").or_else(|| {
            // Only meaningful when cpufreq is built at all.
            yes("CONFIG_CPU_FREQ").then_some(false)
        }),
        default_governor,
        page_kib,
        thp_default: thp_default.map(str::to_string),
    }
}

/// Preemption from the build line's flags, when no config says it.
pub fn preemption_from_flags(flags: &[String], realtime: bool) -> Option<&'static str> {
    let has = |f: &str| flags.iter().any(|x| x == f);
    if realtime || has("PREEMPT_RT") {
        Some("rt")
    } else if has("PREEMPT_DYNAMIC") {
        Some("dynamic")
    } else if has("PREEMPT") {
        Some("full")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_from_a_config() {
        // As in Debian 12's arm64 config and the StarFive log's CONFIG_HZ_100/PREEMPT_NONE.
        let cfg = parse_config(
            "#\n# Automatically generated file; DO NOT EDIT.\nCONFIG_HZ_250=y\nCONFIG_HZ=250\n\
             CONFIG_PREEMPT_BUILD=y\n# CONFIG_PREEMPT_NONE is not set\nCONFIG_PREEMPT_VOLUNTARY=y\n\
             CONFIG_PREEMPT_DYNAMIC=y\nCONFIG_NO_HZ_IDLE=y\nCONFIG_CPU_FREQ=y\n\
             CONFIG_CPU_FREQ_STAT=y\nCONFIG_CPU_FREQ_DEFAULT_GOV_SCHEDUTIL=y\n\
             CONFIG_ARM64_4K_PAGES=y\nCONFIG_TRANSPARENT_HUGEPAGE=y\n\
             CONFIG_TRANSPARENT_HUGEPAGE_MADVISE=y\nCONFIG_LOCALVERSION=\"\"\n",
        );
        let h = hints_from_config(&cfg, "/boot/config-6.1.0-13-arm64");
        assert_eq!(h.hz, Some(250));
        assert_eq!(h.preemption.as_deref(), Some("dynamic"));
        assert_eq!(h.tick.as_deref(), Some("idle"));
        assert_eq!(h.cpufreq_stats, Some(true));
        assert_eq!(h.default_governor.as_deref(), Some("schedutil"));
        assert_eq!(h.page_kib, Some(4));
        assert_eq!(h.thp_default.as_deref(), Some("madvise"));
    }

    #[test]
    fn missing_cpufreq_stats_and_rt() {
        let cfg = parse_config(
            "CONFIG_HZ=100\nCONFIG_PREEMPT_NONE=y\nCONFIG_CPU_FREQ=y\n\
             # CONFIG_CPU_FREQ_STAT is not set\nCONFIG_ARM64_16K_PAGES=y\n",
        );
        let h = hints_from_config(&cfg, "x");
        assert_eq!(
            (h.hz, h.preemption.as_deref(), h.cpufreq_stats, h.page_kib),
            (Some(100), Some("none"), Some(false), Some(16))
        );
        let cfg = parse_config("CONFIG_PREEMPT_RT=y\nCONFIG_PREEMPT=y\n");
        assert_eq!(
            hints_from_config(&cfg, "x").preemption.as_deref(),
            Some("rt")
        );
        // Garbage is nothing, not a crash.
        let h = hints_from_config(&parse_config("\u{0}\u{1}=\nCONFIG_HZ=abc\n"), "x");
        assert_eq!((h.hz, h.preemption), (None, None));
    }

    #[test]
    fn preemption_from_the_build_line() {
        let f = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            preemption_from_flags(&f(&["SMP", "PREEMPT_DYNAMIC"]), false),
            Some("dynamic")
        );
        assert_eq!(
            preemption_from_flags(&f(&["SMP", "PREEMPT"]), false),
            Some("full")
        );
        assert_eq!(preemption_from_flags(&f(&["SMP"]), true), Some("rt"));
        assert_eq!(preemption_from_flags(&f(&["SMP"]), false), None);
    }
}
