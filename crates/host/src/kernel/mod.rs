//! `truebench kernel`: what kernel this is (version, build, options that matter for
//! benchmarks), where it comes from (kernel.org, a distribution, a SoC vendor's BSP…) and
//! whether kernel.org still maintains its series — from a dated release list, offline.
//!
//! Everything is read through `Host`, so a fixture root works like the live machine.

pub mod config;
pub mod origin;
pub mod releases;
pub mod version;

pub use config::ConfigHints;
pub use origin::{Origin, OriginKind};
pub use releases::{Releases, ReleasesError, Series};
pub use version::{BuildLine, KernelVersion};

use crate::inventory::{Inventory, Missing};
use crate::Host;
use jiff::civil::Date;
use serde::{Deserialize, Serialize};
use std::io::Read;

/// Version of the JSON document `truebench kernel --json` prints.
pub const SCHEMA_VERSION: u32 = 1;

/// What kernel this is, where it comes from and whether its series is maintained.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KernelReport {
    /// [`SCHEMA_VERSION`] of this report.
    pub schema_version: u32,
    /// The root it was read from (`/` for the live machine).
    pub root: String,
    /// `uname -r`.
    pub release: Option<String>,
    /// `/proc/version` as read.
    pub version_line: Option<String>,
    /// What the version line says about the build.
    pub build: BuildLine,
    /// The kernel.org version it is based on, and where that was read: the release string,
    /// Debian's package version in `/proc/version`, Ubuntu's `/proc/version_signature`.
    pub upstream: Option<String>,
    /// Where `upstream` was read; None when it is unknown.
    pub upstream_source: Option<String>,
    /// Kernel architecture as `uname -m` prints it; None when unknown.
    pub arch: Option<String>,
    /// Userland architecture in Debian's names; None when unknown.
    pub userland: Option<String>,
    /// The SoC guessed for the machine; None when unknown.
    pub soc: Option<String>,
    /// Build options that matter for benchmarks.
    pub config: ConfigHints,
    /// Where the kernel comes from.
    pub origin: Origin,
    /// Whether kernel.org still maintains its series.
    pub support: Support,
    /// What to act on, most important first.
    pub notes: Vec<String>,
    /// What could not be read, and why.
    pub missing: Vec<Missing>,
}

/// The kernel series' standing in the release list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SupportStatus {
    /// kernel.org maintains the series (until `eol`, if announced or projected).
    Maintained,
    /// The series reached its end of life (`eol`).
    Ended,
    /// Not LTS, no end announced in the list, but older than the four months such a series
    /// lives: most likely ended after the list was made.
    ProbablyEnded,
    /// Older than the list's newest series and not in it: long unmaintained.
    NotListed,
    /// Newer than every series in the list: the list is older than the kernel.
    NewerThanList,
    /// A release candidate or development snapshot: not checked.
    NotApplicable,
    /// No version could be read.
    Unknown,
}

/// The kernel's series judged against a dated list of kernel.org releases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Support {
    /// The list used: "built-in list" or the file given.
    pub list: String,
    /// The date the list was made, `YYYY-MM-DD`; None when it has none.
    pub list_as_of: Option<String>,
    /// The date the status was judged on.
    pub today: String,
    /// The kernel's series (`6.1`); None without a version.
    pub series: Option<String>,
    /// The series is a long-term one; None when it is not in the list.
    pub lts: Option<bool>,
    /// The verdict.
    pub status: SupportStatus,
    /// End of life: past (announced) or future (kernel.org's projection).
    pub eol: Option<String>,
    /// The newest release of the series in the list; None when it is not listed.
    pub latest: Option<String>,
    /// The date of `latest`, `YYYY-MM-DD`; None when unknown.
    pub latest_date: Option<String>,
    /// Stable revisions between this kernel and `latest`.
    pub revisions_behind: Option<u32>,
    /// The newest mainline series in the list.
    pub newest: Option<String>,
    /// The release date of `newest`, `YYYY-MM-DD`; None when unknown.
    pub newest_released: Option<String>,
    /// Mainline releases between this series and `newest`.
    pub releases_behind: Option<u32>,
    /// Years between this series' release and `newest`'s.
    pub years_behind: Option<f64>,
    /// `years_behind` is a lower bound (the list lacks this series' release date).
    pub years_at_least: bool,
    /// One sentence.
    pub summary: String,
}

/// What the report is judged against.
pub struct KernelContext<'a> {
    pub releases: &'a Releases,
    pub today: Date,
    /// Kernel log lines (`dmesg`), `None` when unreadable; some BSP rules need them.
    pub kernel_log: Option<&'a [String]>,
}

/// Read and judge the kernel of `host`.
pub fn report(host: &Host, inv: &Inventory, ctx: &KernelContext) -> KernelReport {
    let mut missing = Vec::new();
    let release = inv.kernel.release.clone();
    let version_line = host.read_trimmed("proc/version");
    if version_line.is_none() {
        missing.push(Missing {
            what: "build".into(),
            reason: "proc/version not readable: no compiler, build date or flags".into(),
        });
    }
    let build = version_line
        .as_deref()
        .map(version::parse_build_line)
        .unwrap_or_default();
    let parsed = release.as_deref().and_then(KernelVersion::parse);
    if release.is_some() && parsed.is_none() {
        missing.push(Missing {
            what: "version".into(),
            reason: format!(
                "release {:?} does not start with a version number",
                release.as_deref().unwrap_or_default()
            ),
        });
    }
    let signature = host
        .read_trimmed("proc/version_signature")
        .and_then(|s| version::parse_version_signature(&s));
    let (upstream, upstream_source) = match (&signature, &build.package_version, &parsed) {
        (Some(v), _, _) => (Some(v.clone()), Some("proc/version_signature".to_string())),
        (None, Some(v), _) => (
            Some(v.clone()),
            Some("the package version in proc/version".to_string()),
        ),
        (None, None, Some(p)) => (Some(p.numbers()), Some("the release string".to_string())),
        _ => (None, None),
    };
    let config = read_config(host, release.as_deref(), &build, &mut missing);
    // The origin rules' SoC globs read the candidates of a layout answer as one list (older
    // documents' hedged guesses said "one of …").
    let soc = inv.soc.as_ref().map(|s| {
        if s.candidates.is_empty() {
            s.name
                .strip_prefix("one of ")
                .unwrap_or(&s.name)
                .to_string()
        } else {
            s.candidates.join(", ")
        }
    });
    let origin = match (&release, &parsed) {
        (Some(r), Some(v)) => origin::classify(&origin::OriginInput {
            release: r,
            version: v,
            soc: soc.as_deref(),
            kernel_log: ctx.kernel_log,
        }),
        _ => Origin {
            kind: OriginKind::Undecided,
            vendor: None,
            evidence: vec!["no kernel release could be read".into()],
        },
    };
    let upstream_version = upstream.as_deref().and_then(KernelVersion::parse);
    let support = support(upstream_version.as_ref(), &origin, ctx);
    let notes = notes(&support, &origin, &config, ctx);
    KernelReport {
        schema_version: SCHEMA_VERSION,
        root: host.root().display().to_string(),
        release,
        version_line,
        build,
        upstream,
        upstream_source,
        arch: inv.arch.kernel.clone(),
        userland: inv.arch.userland.clone(),
        soc,
        config,
        origin,
        support,
        notes,
        missing,
    }
}

/// `/proc/config.gz` (gzip) first, then `/boot/config-RELEASE`; without either, what the
/// build line and `/sys/kernel/realtime` say about preemption.
fn read_config(
    host: &Host,
    release: Option<&str>,
    build: &BuildLine,
    missing: &mut Vec<Missing>,
) -> ConfigHints {
    let mut tried = Vec::new();
    if let Ok(gz) = host.read_bytes("proc/config.gz") {
        let mut text = String::new();
        match flate2::read::GzDecoder::new(&gz[..]).read_to_string(&mut text) {
            Ok(_) => {
                return config::hints_from_config(&config::parse_config(&text), "/proc/config.gz")
            }
            Err(e) => tried.push(format!("/proc/config.gz is not readable gzip text ({e})")),
        }
    } else {
        tried.push("no /proc/config.gz".to_string());
    }
    if let Some(r) = release {
        let rel = format!("boot/config-{r}");
        match host.read(&rel) {
            Ok(text) => {
                return config::hints_from_config(&config::parse_config(&text), &format!("/{rel}"))
            }
            Err(e) => tried.push(format!("/{rel}: {}", e.reason())),
        }
    }
    missing.push(Missing {
        what: "kernel config".into(),
        reason: format!("{} — HZ and the tick mode are unknown", tried.join("; ")),
    });
    let realtime = host.read_trimmed("sys/kernel/realtime").as_deref() == Some("1");
    let preemption = config::preemption_from_flags(&build.flags, realtime);
    ConfigHints {
        preemption: preemption.map(str::to_string),
        preemption_source: preemption.map(|_| {
            if realtime {
                "/sys/kernel/realtime".to_string()
            } else {
                "the flags in /proc/version".to_string()
            }
        }),
        ..ConfigHints::default()
    }
}

fn years_between(a: Date, b: Date) -> f64 {
    days_between(a, b) as f64 / 365.25
}

/// Whole days from `a` to `b` (negative when `b` is earlier).
fn days_between(a: Date, b: Date) -> i64 {
    // `Date::until` counts in days unless asked for larger units.
    a.until(b).map(|s| s.get_days() as i64).unwrap_or(0)
}

fn support(v: Option<&KernelVersion>, origin: &Origin, ctx: &KernelContext) -> Support {
    let r = ctx.releases;
    let newest = r.newest();
    let mut s = Support {
        list: r.source.clone(),
        list_as_of: r.as_of.map(|d| d.to_string()),
        today: ctx.today.to_string(),
        series: v.map(KernelVersion::series_string),
        lts: None,
        status: SupportStatus::Unknown,
        eol: None,
        latest: None,
        latest_date: None,
        revisions_behind: None,
        newest: newest.map(Series::name),
        newest_released: newest.and_then(|n| n.released).map(|d| d.to_string()),
        releases_behind: None,
        years_behind: None,
        years_at_least: false,
        summary: String::new(),
    };
    let Some(v) = v else {
        s.summary = "No kernel version could be read.".into();
        return s;
    };
    let name = v.series_string();
    let as_of = r
        .as_of
        .map(|d| format!(" (list as of {d})"))
        .unwrap_or_default();
    if origin.kind == OriginKind::Prerelease || v.is_prerelease() {
        s.status = SupportStatus::NotApplicable;
        s.summary = format!("{} is a development kernel: not checked.", v.numbers());
        return s;
    }
    if let Some(n) = newest {
        s.releases_behind = r.releases_between(v.series(), (n.major, n.minor));
        if let (Some((d, lower)), Some(nd)) =
            (r.release_date_at_least(v.major, v.minor), n.released)
        {
            if v.series() <= (n.major, n.minor) {
                s.years_behind = Some((years_between(d, nd) * 10.0).round() / 10.0);
                s.years_at_least = lower;
            }
        }
    }
    match r.find(v.major, v.minor) {
        Some(series) => {
            s.lts = Some(series.lts);
            s.eol = series.eol.map(|d| d.to_string());
            s.latest = series.latest.clone();
            s.latest_date = series.latest_date.map(|d| d.to_string());
            let latest_patch = series
                .latest
                .as_deref()
                .and_then(KernelVersion::parse)
                .and_then(|l| l.patch);
            if let (Some(l), Some(p)) = (latest_patch, v.patch) {
                s.revisions_behind = Some(l.saturating_sub(p));
            }
            let lts = if series.lts { " LTS" } else { "" };
            match series.eol {
                Some(eol) if eol <= ctx.today => {
                    s.status = SupportStatus::Ended;
                    s.summary = format!(
                        "{name}{lts} reached its end of life on {eol}{}: no more fixes from \
                         kernel.org.",
                        series
                            .latest
                            .as_ref()
                            .map(|l| format!(" with {l}"))
                            .unwrap_or_default()
                    );
                }
                Some(eol) => {
                    s.status = SupportStatus::Maintained;
                    s.summary =
                        format!("{name}{lts} is maintained by kernel.org until {eol} (projected).");
                }
                None => {
                    let age = series.released.map(|d| days_between(d, ctx.today));
                    if !series.lts && age.is_some_and(|a| a > 122) {
                        s.status = SupportStatus::ProbablyEnded;
                        s.summary = format!(
                            "{name} was maintained when the list was made{as_of}; a series that \
                             is not LTS ends about four months after its release, so it has most \
                             likely ended since."
                        );
                    } else {
                        s.status = SupportStatus::Maintained;
                        s.summary = format!("{name}{lts} is maintained by kernel.org{as_of}.");
                    }
                }
            }
        }
        None => match newest {
            Some(n) if v.series() > (n.major, n.minor) => {
                s.status = SupportStatus::NewerThanList;
                s.summary = format!(
                    "{name} is newer than every series in the list{as_of}: its status is not \
                     known here."
                );
            }
            Some(_) => {
                s.status = SupportStatus::NotListed;
                s.lts = Some(false);
                s.summary = format!(
                    "{name} is not among the series kernel.org maintained{as_of}: it is long \
                     out of maintenance."
                );
            }
            None => s.summary = "The release list is empty.".into(),
        },
    }
    s
}

fn notes(s: &Support, origin: &Origin, cfg: &ConfigHints, ctx: &KernelContext) -> Vec<String> {
    let mut out = Vec::new();
    let who = origin.vendor.as_deref().unwrap_or("a vendor");
    match origin.kind {
        OriginKind::Bsp => out.push(format!(
            "This is {who}'s vendor/BSP kernel: its version string does not say which fixes it \
             has; kernel.org's status of {} does not apply to it. Benchmarks on it measure the \
             vendor's scheduler, cpufreq and thermal code, not mainline's.",
            s.series.as_deref().unwrap_or("its series")
        )),
        OriginKind::Distribution => out.push(format!(
            "A {who} kernel: {who} backports fixes and supports it as long as the \
             distribution release, whatever kernel.org's status of the series."
        )),
        OriginKind::Undecided => out
            .push("Whether this is a vendor kernel could not be decided: see the evidence.".into()),
        _ => {}
    }
    let bsp_or_distro = matches!(origin.kind, OriginKind::Bsp | OriginKind::Distribution);
    if !bsp_or_distro {
        match s.status {
            SupportStatus::Ended | SupportStatus::NotListed => out.push(format!(
                "Unmaintained: {} gets no more fixes from kernel.org; expect unfixed bugs and \
                 vulnerabilities.",
                s.series.as_deref().unwrap_or("this series")
            )),
            SupportStatus::Maintained if s.lts == Some(true) => {
                if let (Some(n), Some(l)) = (s.revisions_behind, &s.latest) {
                    if n >= 20 {
                        out.push(format!(
                            "{n} stable revisions behind {l}{}: fixes are missing.",
                            s.latest_date
                                .as_deref()
                                .map(|d| format!(" ({d})"))
                                .unwrap_or_default()
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    if cfg.cpufreq_stats == Some(false) {
        out.push(
            "CONFIG_CPU_FREQ_STAT is not set: there is no time_in_state, so throttling shorter \
             than a sample cannot be seen."
                .into(),
        );
    }
    if let Some(as_of) = ctx.releases.as_of {
        let age = days_between(as_of, ctx.today);
        if age > 183 {
            out.push(format!(
                "The release list is from {as_of} ({} months old): give a newer one with \
                 --releases FILE (endoflife.date's linux-kernel.md or its API JSON).",
                age / 30
            ));
        }
    }
    out
}
