//! The whole OPP walk, not only its top: what the measured clock does across the OPPs says
//! whether a shortfall at the top is the clock's or the measurement's.
//!
//! * A **constant shortfall in MHz** at every OPP (measured = 1.00 × OPP − k) is cycles
//!   taken from the measuring core each second — interrupts, a hypervisor's steal — not a
//!   wrong clock: the clock follows the OPPs, the measurement loses the same work at each.
//!   Said with the slope and offset of the fit ([`FindingKind::LostCycles`], info), and it
//!   replaces the top OPP's clock-deviation finding.
//! * A shortfall **specific to the top OPP** — below what the lower OPPs' fit predicts by
//!   more than three times the readings' spread, and seen both before and after the
//!   benchmarks — is a real cap at that OPP: an info finding naming it even under the
//!   1.5 % floor of the top-OPP check (which alone cannot tell a small cap from noise).

use crate::detect::clocks::ClockCheck;
use truebench_model::finding::{Basis, Finding, FindingKind, Severity};

/// Least-squares line `measured = slope × opp + offset`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fit {
    pub slope: f64,
    pub offset_mhz: f64,
}

/// The fit over points `(opp, measured)`; None for fewer than two distinct OPPs.
pub fn fit(points: &[(f64, f64)]) -> Option<Fit> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let slope = sxy / sxx;
    Some(Fit {
        slope,
        offset_mhz: my - slope * mx,
    })
}

/// What the walk says about a cluster's top OPP.
#[derive(Debug, Clone, PartialEq)]
pub enum WalkVerdict {
    /// The shortfall is the same MHz at every OPP: lost cycles (replaces the top's finding).
    LostCycles(Finding),
    /// The top OPP alone falls short of the line the others lie on, before and after.
    TopCap(Finding),
}

/// The largest spread of one measurement's own readings, MHz.
fn spread_mhz(c: &ClockCheck) -> f64 {
    let s = &c.samples_mhz;
    if s.len() < 2 {
        return 0.0;
    }
    let (lo, hi) = s
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    hi - lo
}

/// Judge a cluster's cold walk (every OPP measured before the benchmarks) and, when
/// measured, its top OPP again after them (`hot`).
pub fn judge_walk(
    label: &str,
    walk: &[ClockCheck],
    hot: Option<&ClockCheck>,
) -> Option<WalkVerdict> {
    let mut pts: Vec<&ClockCheck> = walk.iter().collect();
    pts.sort_by(|a, b| a.opp_mhz.total_cmp(&b.opp_mhz));
    pts.dedup_by(|a, b| a.opp_mhz == b.opp_mhz);
    if pts.len() < 3 {
        return None;
    }
    let top = *pts.last()?;
    let xy: Vec<(f64, f64)> = pts.iter().map(|c| (c.opp_mhz, c.measured_mhz)).collect();
    let all = fit(&xy)?;
    let short: Vec<f64> = pts.iter().map(|c| c.opp_mhz - c.measured_mhz).collect();
    let noise = pts.iter().map(|c| spread_mhz(c)).fold(0.0, f64::max);
    let (lo, hi) = short
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    let mean = short.iter().sum::<f64>() / short.len() as f64;
    // Constant: every OPP short by about the same MHz (within a quarter of it, or the
    // readings' own noise), the slope one within 2 %, and the top beyond its tolerance.
    let top_flagged = top.deviation_pct() < -top.tolerance_pct();
    if top_flagged
        && lo > 0.0
        && (hi - lo) <= (0.25 * mean).max(3.0 * noise)
        && (all.slope - 1.0).abs() <= 0.02
    {
        let ev = std::iter::once(format!(
            "fit over {} OPPs: measured = {:.3} × OPP {} {:.0} MHz; shortfall {:.0}–{:.0} MHz at every OPP",
            pts.len(),
            all.slope,
            if all.offset_mhz < 0.0 { "−" } else { "+" },
            all.offset_mhz.abs(),
            lo,
            hi
        ))
        .chain(pts.iter().rev().map(|c| c.evidence("cold, before the benchmarks")))
        .collect::<Vec<_>>();
        return Some(WalkVerdict::LostCycles(
            Finding::new(
                FindingKind::LostCycles,
                Severity::Info,
                format!(
                    "{label}: the same ~{mean:.0} MHz are missing at every OPP (measured = {:.3} × OPP {} {:.0} MHz), so the clock follows the OPPs and the measuring core loses cycles each second (interrupts, a hypervisor's steal): not a wrong clock.",
                    all.slope,
                    if all.offset_mhz < 0.0 { "−" } else { "+" },
                    all.offset_mhz.abs()
                ),
            )
            .with_evidence(ev),
        ));
    }
    // Top-specific: the lower OPPs' line predicts the top; a cap shows below it, before and
    // after the benchmarks, by more than three times the readings' spread.
    if top_flagged {
        return None;
    }
    let hot = hot.filter(|h| h.opp_mhz == top.opp_mhz)?;
    let lower: Vec<(f64, f64)> = xy[..xy.len() - 1].to_vec();
    let line = fit(&lower)?;
    let predicted = line.slope * top.opp_mhz + line.offset_mhz;
    // The lower OPPs' own shortfall (none when they reach their labels): the top's must
    // exceed it, and its own label, by more than the readings can resolve (three times
    // their spread, at least the 1 MHz of an integer reading twice).
    let lower_short = pts[..pts.len() - 1]
        .iter()
        .map(|c| c.opp_mhz - c.measured_mhz)
        .fold(0.0, f64::max);
    let beyond = |c: &ClockCheck| {
        let resolution = (3.0 * spread_mhz(c).max(noise)).max(2.0);
        let short = c.opp_mhz - c.measured_mhz;
        short > resolution && short - lower_short > resolution
    };
    if !(beyond(top) && beyond(hot)) {
        return None;
    }
    let pct = (top.opp_mhz - top.measured_mhz) / top.opp_mhz * 100.0;
    Some(WalkVerdict::TopCap(
        Finding::new(
            FindingKind::ClockDeviation,
            Severity::Info,
            format!(
                "{label}: the top OPP ({:.0} MHz) runs at {:.0} MHz, {pct:.1} % below its label, before and after the benchmarks, while the lower OPPs fall short by {lower_short:.0} MHz at most: a cap at that OPP (within the 1.5 % any single reading is allowed, but beyond three times the readings' spread).",
                top.opp_mhz, top.measured_mhz
            ),
        )
        .with_evidence([
            format!(
                "lower OPPs' fit: measured = {:.3} × OPP {} {:.0} MHz; predicted {predicted:.0} MHz at {:.0} MHz",
                line.slope,
                if line.offset_mhz < 0.0 { "−" } else { "+" },
                line.offset_mhz.abs(),
                top.opp_mhz
            ),
            top.evidence("cold, before the benchmarks"),
            hot.evidence("hot, after the benchmarks"),
        ])
        .on(Basis::HotClock),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(opp: f64, m: f64) -> ClockCheck {
        ClockCheck::new(opp, m, &[m + 0.5, m, m - 0.5]).unwrap()
    }

    #[test]
    fn a_constant_shortfall_is_lost_cycles() {
        // 40 MHz missing at every OPP: 2.2 % at the top, 5.7 % at the bottom.
        let walk: Vec<ClockCheck> = [1800.0, 1500.0, 1200.0, 1000.0, 700.0]
            .iter()
            .map(|&o| c(o, o - 40.0))
            .collect();
        let Some(WalkVerdict::LostCycles(f)) = judge_walk("cpu0-3", &walk, None) else {
            panic!("not lost cycles");
        };
        assert_eq!(f.kind, FindingKind::LostCycles);
        assert!(f.message.contains("~40 MHz"), "{}", f.message);
        assert!(
            f.evidence[0].contains("1.000 × OPP − 40 MHz"),
            "{:?}",
            f.evidence
        );
    }

    #[test]
    fn a_wrong_clock_is_not_lost_cycles() {
        // The top OPP alone is 10 % short (a fake label): no constant shortfall.
        let mut walk: Vec<ClockCheck> = [1500.0, 1200.0, 1000.0, 700.0]
            .iter()
            .map(|&o| c(o, o - 2.0))
            .collect();
        walk.push(c(2000.0, 1800.0));
        assert_eq!(judge_walk("cpu0-3", &walk, None), None);
        // A proportional shortfall (a slow reference clock: 0.95 × OPP) is no constant.
        let walk: Vec<ClockCheck> = [1800.0, 1500.0, 1200.0, 700.0]
            .iter()
            .map(|&o| c(o, o * 0.95))
            .collect();
        assert_eq!(judge_walk("cpu0-3", &walk, None), None);
    }

    #[test]
    fn a_small_cap_at_the_top_seen_twice_is_named() {
        // Lower OPPs exact, the 1800 MHz OPP at 1782 (−1.0 %): under the 1.5 % floor but
        // 36 times the readings' spread of 0.5 MHz... only when the hot check repeats it.
        let mut walk: Vec<ClockCheck> = [1500.0, 1200.0, 1000.0, 700.0]
            .iter()
            .map(|&o| c(o, o))
            .collect();
        walk.push(c(1800.0, 1782.0));
        assert_eq!(judge_walk("cpu0-3", &walk, None), None);
        let hot = c(1800.0, 1781.0);
        let Some(WalkVerdict::TopCap(f)) = judge_walk("cpu0-3", &walk, Some(&hot)) else {
            panic!("no cap");
        };
        assert!(f.message.contains("top OPP (1800 MHz)"), "{}", f.message);
        assert!(f.message.contains("1.0 % below its label"), "{}", f.message);
        // After the benchmarks at the full clock: the cold reading was noise, no cap.
        let hot = c(1800.0, 1800.0);
        assert_eq!(judge_walk("cpu0-3", &walk, Some(&hot)), None);
    }

    #[test]
    fn fit_of_a_line() {
        let f = fit(&[(1.0, 3.0), (2.0, 5.0), (3.0, 7.0)]).unwrap();
        assert!((f.slope - 2.0).abs() < 1e-9 && (f.offset_mhz - 1.0).abs() < 1e-9);
        assert_eq!(fit(&[(1.0, 1.0), (1.0, 2.0)]), None);
    }
}
