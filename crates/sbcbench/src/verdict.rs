//! sbc-bench's own verdicts (its `Results validation` bullets, or what older logs show
//! instead) next to truebench's findings on the same evidence: where they agree, where they
//! disagree, and why.
//!
//! sbc-bench's verdict per kind:
//! * throttling: `Throttling occured` / `Throttling might have occured` vs `No throttling`;
//!   before v0.9.35 (no bullets) the printed `Throttling statistics` table or the
//!   `Throttling occured` warning, which sbc-bench only prints when it saw throttling;
//! * swapping: `Swapping occured` / `Swapping (ZRAM) occured` vs `No swapping`;
//! * background activity: `Too much other background activity` vs `Background activity
//!   (%system) OK`; system activity: `Too much background activity (%system)` vs the same OK;
//! * clock deviation: `Advertised vs. measured max CPU clockspeed: …` vs `Measured clockspeed
//!   not lower than advertised …` / `No mismatch between advertised and measured …`;
//! * zswap on zram: `Zswap combined with ZRAM`;
//! * kernel-log verdicts (killed cores, under-voltage, oom-killer, thermal trips): sbc-bench
//!   writes no bullet for them, so truebench's findings there are its own.

use serde::{Deserialize, Serialize};
use truebench_model::finding::{Basis, Finding, FindingKind, Severity};

use crate::log::SbcBenchLog;
use truebench_model::RunView;

/// The kinds compared, in report order.
pub const KINDS: [FindingKind; 10] = [
    FindingKind::Throttling,
    FindingKind::Swapping,
    FindingKind::BackgroundActivity,
    FindingKind::SystemActivity,
    FindingKind::ClockDeviation,
    FindingKind::ZswapOnZram,
    FindingKind::KilledCores,
    FindingKind::Undervoltage,
    FindingKind::OomKill,
    FindingKind::ThermalTrip,
];

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "said", rename_all = "snake_case")]
pub enum SbcVerdict {
    /// sbc-bench flagged it; `text` is its bullet or the evidence it printed.
    Flagged { text: String, explicit: bool },
    /// sbc-bench said it did not happen (`explicit`: a bullet; otherwise inferred, e.g. no
    /// throttling table printed).
    Clear { text: String, explicit: bool },
    /// sbc-bench has no verdict of this kind in this log.
    Silent,
}

impl SbcVerdict {
    pub fn flagged(&self) -> Option<bool> {
        match self {
            SbcVerdict::Flagged { .. } => Some(true),
            SbcVerdict::Clear { .. } => Some(false),
            SbcVerdict::Silent => None,
        }
    }
    pub fn explicit(&self) -> bool {
        matches!(
            self,
            SbcVerdict::Flagged { explicit: true, .. } | SbcVerdict::Clear { explicit: true, .. }
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Agreement {
    /// Both flag it.
    BothFlag,
    /// Both say it did not happen.
    BothClear,
    /// sbc-bench flags it, truebench does not.
    OnlySbcBench,
    /// truebench flags it, sbc-bench says it did not happen.
    OnlyTruebench,
    /// truebench flags something sbc-bench has no verdict on.
    TruebenchOnlyKind,
    /// Neither has anything to say.
    Neither,
}

impl Agreement {
    pub fn agrees(self) -> Option<bool> {
        match self {
            Agreement::BothFlag | Agreement::BothClear => Some(true),
            Agreement::OnlySbcBench | Agreement::OnlyTruebench => Some(false),
            Agreement::TruebenchOnlyKind | Agreement::Neither => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Agreement::BothFlag => "agree: both flag it",
            Agreement::BothClear => "agree: neither flags it",
            Agreement::OnlySbcBench => "DISAGREE: only sbc-bench flags it",
            Agreement::OnlyTruebench => "DISAGREE: only truebench flags it",
            Agreement::TruebenchOnlyKind => "truebench only (sbc-bench has no such check)",
            Agreement::Neither => "not flagged (sbc-bench has no such check)",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerdictComparison {
    pub kind: FindingKind,
    pub sbc_bench: SbcVerdict,
    /// truebench's most severe finding of this kind (info findings count as "not flagged").
    pub truebench: Option<Finding>,
    pub agreement: Agreement,
    /// Why they agree or disagree, in one or two sentences.
    pub why: String,
    /// The named sbc-bench error behind a disagreement, when one fits (see `known`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known_error: Option<crate::known::KnownError>,
}

/// Whether truebench's finding counts as "flagged" against sbc-bench's verdict. Warnings
/// and worse always do. For a clock below its label (beyond the measurement's tolerance; a
/// clock above it is another kind) and for zswap on zram truebench states the same fact
/// sbc-bench flags but rates it as information (the scores stay true; no swapping
/// happened), so those info findings count too.
fn is_flag(f: &Finding) -> bool {
    f.severity > Severity::Info
        || matches!(
            f.kind,
            FindingKind::ClockDeviation | FindingKind::ZswapOnZram
        )
}

/// The phase a finding was judged in (`7-zip multi core benchmark`).
fn phase_in(f: &Finding) -> Option<&str> {
    f.phases.first().map(String::as_str)
}

fn bullet<'a>(log: &'a SbcBenchLog, prefixes: &[&str]) -> Option<&'a String> {
    log.validation
        .iter()
        .find(|b| prefixes.iter().any(|p| b.starts_with(p)))
}

/// sbc-bench's verdict of one kind in this log.
pub fn sbc_verdict(log: &SbcBenchLog, kind: FindingKind) -> SbcVerdict {
    let has_bullets = !log.validation.is_empty();
    let flagged = |t: &String| SbcVerdict::Flagged {
        text: t.clone(),
        explicit: true,
    };
    let clear = |t: &String| SbcVerdict::Clear {
        text: t.clone(),
        explicit: true,
    };
    match kind {
        FindingKind::Throttling => {
            if let Some(b) = bullet(
                log,
                &["Throttling occured", "Throttling might have occured"],
            ) {
                return flagged(b);
            }
            if let Some(b) = bullet(log, &["No throttling"]) {
                return clear(b);
            }
            if let Some(w) = log
                .warnings
                .iter()
                .find(|w| w.contains("Throttling occured"))
            {
                return SbcVerdict::Flagged {
                    text: w.clone(),
                    explicit: false,
                };
            }
            if !log.throttling.is_empty() {
                return SbcVerdict::Flagged {
                    text: format!(
                        "{} throttling statistics table(s) printed (sbc-bench prints them only when the clock was lowered)",
                        log.throttling.len()
                    ),
                    explicit: false,
                };
            }
            if has_bullets {
                // v0.9.35+ writes `No throttling` only when cpufreq statistics exist.
                SbcVerdict::Silent
            } else {
                SbcVerdict::Clear {
                    text: "no throttling table printed".into(),
                    explicit: false,
                }
            }
        }
        FindingKind::Swapping => {
            if let Some(b) = bullet(log, &["Swapping occured", "Swapping (ZRAM) occured"]) {
                return flagged(b);
            }
            match bullet(log, &["No swapping"]) {
                Some(b) => clear(b),
                None => SbcVerdict::Silent,
            }
        }
        FindingKind::BackgroundActivity => {
            if let Some(b) = bullet(log, &["Too much other background activity"]) {
                return flagged(b);
            }
            match bullet(log, &["Background activity (%system) OK"]) {
                Some(b) => clear(b),
                None => SbcVerdict::Silent,
            }
        }
        FindingKind::SystemActivity => {
            if let Some(b) = bullet(log, &["Too much background activity (%system)"]) {
                return flagged(b);
            }
            match bullet(log, &["Background activity (%system) OK"]) {
                Some(b) => clear(b),
                None => SbcVerdict::Silent,
            }
        }
        FindingKind::ClockDeviation => {
            if let Some(b) = bullet(log, &["Advertised vs. measured max CPU clockspeed"]) {
                return flagged(b);
            }
            match bullet(
                log,
                &[
                    "Measured clockspeed not lower than advertised",
                    "No mismatch between advertised and measured",
                ],
            ) {
                Some(b) => clear(b),
                None => SbcVerdict::Silent,
            }
        }
        FindingKind::ZswapOnZram => {
            if let Some(b) = bullet(log, &["Zswap combined with ZRAM"]) {
                return flagged(b);
            }
            if let Some(w) = log
                .warnings
                .iter()
                .find(|w| w.contains("ZSWAP ON TOP OF ZRAM"))
            {
                return SbcVerdict::Flagged {
                    text: w.clone(),
                    explicit: false,
                };
            }
            SbcVerdict::Silent
        }
        _ => SbcVerdict::Silent,
    }
}

/// Largest clock deviation below the OPP at the top OPP of any cluster, %, from the result.
fn worst_top_deviation(r: RunView<'_>) -> Option<f64> {
    r.body
        .scores
        .iter()
        .filter_map(|p| match &p.scores {
            truebench_model::Scores::Clocks(c) => Some(c),
            _ => None,
        })
        .flat_map(|c| c.clusters.iter())
        .filter_map(|cl| {
            cl.points
                .iter()
                .filter(|p| p.opp_mhz.is_some())
                .max_by_key(|p| p.opp_mhz)
                .and_then(|p| p.deviation_pct)
        })
        .reduce(f64::min)
}

fn why(
    kind: FindingKind,
    a: Agreement,
    log: &SbcBenchLog,
    r: RunView<'_>,
    tb: Option<&Finding>,
) -> String {
    let tb_msg = tb.map(|f| f.message.clone()).unwrap_or_default();
    let tb_ev = tb
        .and_then(|f| f.evidence.first())
        .map(|e| format!(" Evidence: {e}"))
        .unwrap_or_default();
    match (kind, a) {
        (_, Agreement::BothFlag) => format!("Same conclusion. truebench: {tb_msg}"),
        (_, Agreement::Neither) => String::new(),
        (_, Agreement::TruebenchOnlyKind) => format!(
            "sbc-bench has no verdict of this kind in this log; truebench found it in the log's evidence: {tb_msg}"
        ),
        (FindingKind::Throttling, Agreement::OnlySbcBench) => {
            if log.throttling.is_empty() {
                "sbc-bench saw throttling in evidence the log does not contain (no throttling table is printed), and the monitoring samples show no clock drop under heat.".into()
            } else {
                let single: Vec<String> = log
                    .throttling
                    .iter()
                    .filter(|t| t.time_in_state.iter().filter(|x| x.1 > 0.0).count() <= 1)
                    .filter_map(|t| t.time_in_state.first().map(|x| format!("{} MHz", x.0)))
                    .collect();
                if single.len() == log.throttling.len() {
                    format!(
                        "The throttling table shows all time at one OPP ({}): nothing below the highest OPP the table lists. sbc-bench printed it because the clock stayed below the policy's maximum (capped by firmware or a limit), which the log does not give; truebench judges time below the highest OPP in the table.",
                        single.join(", ")
                    )
                } else {
                    "The throttling tables show little time below the top OPP; truebench's rule did not rate it as throttling (see its info finding).".into()
                }
            }
        }
        (FindingKind::Throttling, Agreement::OnlyTruebench) => format!(
            "truebench's timeline check: under the same load the clock fell while the SoC got hotter; sbc-bench judges throttling only by cpufreq statistics, which did not show it (on x86 turbo clocks fall with heat without cpufreq noticing).{tb_ev}"
        ),
        (FindingKind::Throttling, Agreement::BothClear) => {
            if log.throttling.is_empty() {
                "No throttling table in the log and no clock drop under heat in the monitoring samples.".into()
            } else {
                "Same conclusion.".into()
            }
        }
        (FindingKind::Swapping, Agreement::OnlySbcBench) => {
            let (b, a2) = log.swap_before_after();
            format!(
                "The log's `free` outputs give swap used {} before and {} after, so truebench sees no growth; sbc-bench also counts swapping it saw in between, which the log does not keep.",
                b.map_or("unknown".into(), |v| format!("{} KiB", v / 1024)),
                a2.map_or("unknown".into(), |v| format!("{} KiB", v / 1024))
            )
        }
        (FindingKind::Swapping, Agreement::OnlyTruebench) => format!(
            "Swap in use grew between the first and the last `free` output; sbc-bench did not count it as swapping. truebench: {tb_msg}"
        ),
        (FindingKind::BackgroundActivity, Agreement::OnlySbcBench) => {
            "sbc-bench judges one integer mean and peak over all single-threaded tables against fixed points per core count; truebench's per-core tolerances (20 % of one core at peak, 5 % on average, per phase) were not exceeded.".into()
        }
        (FindingKind::SystemActivity, Agreement::OnlySbcBench) => {
            "sbc-bench flags an integer mean of 1 % sys or more over all tables from tinymembench on; truebench judges each phase (peak 15 %, mean below 1 % plus 2 points times the phase's share of the CPUs) and found none over.".into()
        }
        (FindingKind::SystemActivity, Agreement::OnlyTruebench) => {
            let multi = tb
                .and_then(phase_in)
                .and_then(|p| r.envelope.timeline.phase(p))
                .and_then(|p| p.threads)
                .is_some_and(|t| t > 1);
            if multi {
                format!(
                    "truebench judges %sys in every benchmark phase, also the all-core ones, where 7-zip's own memory management costs 1–2 % sys; sbc-bench judges the single-threaded tables only.{tb_ev}"
                )
            } else {
                format!(
                    "truebench's limit (mean %sys at the phase's allowance or more) is met in one phase; sbc-bench's integer mean over all tables stayed below 1 %.{tb_ev}"
                )
            }
        }
        (FindingKind::BackgroundActivity, Agreement::OnlyTruebench) => format!(
            "truebench's tolerances scale with the core count (20 % of one core at peak, 5 % on average); sbc-bench's fixed percentage points are looser here (above 8 cores it judges only the mean).{tb_ev}"
        ),
        (FindingKind::ClockDeviation, Agreement::OnlySbcBench) => format!(
            "Measured top clock {}: within truebench's tolerance of 1.5 % or three times the measurement's spread (sbc-bench flags any shortfall).",
            worst_top_deviation(r).map_or("unknown".into(), |d| format!("{d:+.1} %"))
        ),
        (FindingKind::ClockDeviation, Agreement::OnlyTruebench) => {
            let hot = tb.is_some_and(|f| f.rests_on(Basis::HotClock));
            if hot {
                format!(
                    "Measured after the benchmarks while hot: the clock was lowered by throttling at that moment; sbc-bench compares the overall maxima only.{tb_ev}"
                )
            } else {
                format!(
                    "truebench judges the top OPP of every cluster; sbc-bench compares one overall maximum (here the disturbed or fake point is not the overall maximum, or a later check measured it right).{tb_ev}"
                )
            }
        }
        (FindingKind::ZswapOnZram, Agreement::OnlySbcBench) => {
            "The log does not show zswap's setting in a form truebench reads.".into()
        }
        (_, Agreement::BothClear) => "Same conclusion.".into(),
        (_, Agreement::OnlySbcBench) => "truebench found no such evidence in the log.".into(),
        (_, Agreement::OnlyTruebench) => format!("truebench: {tb_msg}"),
    }
}

/// One comparison per kind in [`KINDS`].
pub fn compare(log: &SbcBenchLog, r: RunView<'_>) -> Vec<VerdictComparison> {
    KINDS
        .iter()
        .map(|&kind| {
            let sbc = sbc_verdict(log, kind);
            let tb = r
                .envelope
                .findings
                .iter()
                .filter(|f| f.kind == kind)
                .max_by_key(|f| f.severity)
                .cloned();
            let tb_flag = tb.as_ref().is_some_and(is_flag);
            let agreement = match (sbc.flagged(), tb_flag) {
                (Some(true), true) => Agreement::BothFlag,
                (Some(true), false) => Agreement::OnlySbcBench,
                (Some(false), true) => Agreement::OnlyTruebench,
                (Some(false), false) => Agreement::BothClear,
                (None, true) => Agreement::TruebenchOnlyKind,
                (None, false) => Agreement::Neither,
            };
            let known_error = match agreement.agrees() {
                Some(false) => crate::known::explain(kind, agreement, &sbc, log, r, tb.as_ref()),
                _ => None,
            };
            let why = match &known_error {
                Some(k) => format!(
                    "{} `{}` (versions {}; the evidence supports {}): {}",
                    k.label.as_str(),
                    k.id,
                    k.versions,
                    match k.supports {
                        crate::known::Side::Truebench => "truebench",
                        crate::known::Side::SbcBench => "sbc-bench",
                        crate::known::Side::Undecided => "neither side clearly",
                    },
                    k.explanation
                ),
                None => why(kind, agreement, log, r, tb.as_ref()),
            };
            VerdictComparison {
                kind,
                sbc_bench: sbc,
                truebench: tb,
                agreement,
                why,
                known_error,
            }
        })
        .collect()
}

/// Text for `truebench import --verdicts`: one line per kind with a verdict on either side.
pub fn render(v: &[VerdictComparison]) -> String {
    let mut o = String::from("  verdicts (sbc-bench vs truebench on the same evidence):\n");
    let mut any = false;
    for c in v {
        if c.agreement == Agreement::Neither {
            continue;
        }
        any = true;
        let sbc = match &c.sbc_bench {
            SbcVerdict::Flagged { text, explicit } => {
                format!(
                    "flagged{} ({text})",
                    if *explicit { "" } else { ", implicit" }
                )
            }
            SbcVerdict::Clear { text, explicit } => {
                format!(
                    "clear{} ({text})",
                    if *explicit { "" } else { ", implicit" }
                )
            }
            SbcVerdict::Silent => "no verdict".into(),
        };
        let tb = match &c.truebench {
            Some(f) if is_flag(f) => format!("{:?}", f.severity).to_lowercase(),
            Some(_) => "info only".into(),
            None => "nothing".into(),
        };
        o.push_str(&format!(
            "    {:<20} {} — sbc-bench: {sbc}; truebench: {tb}\n",
            c.kind.as_str(),
            c.agreement.as_str()
        ));
        if !c.why.is_empty() && c.agreement != Agreement::BothClear {
            o.push_str(&format!("      why: {}\n", c.why));
        }
    }
    if !any {
        o.push_str(
            "    nothing flagged by either, and the log has no verdict bullets to compare\n",
        );
    }
    o
}
