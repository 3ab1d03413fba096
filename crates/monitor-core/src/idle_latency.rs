//! When a deep idle state explains late wake-ups. A CPU woken from an idle state takes up to
//! the state's exit latency (cpuidle `latency`) before the woken task runs, so a periodic
//! task whose lateness is of the same order as the deepest state its CPUs entered may be
//! measuring the wake-up from idle rather than the scheduler or the load. cyclictest's
//! practice is to hold `/dev/cpu_dma_latency` at 0 (which `interactivity --realtime` does)
//! and compare; this rule only names the state the evidence points at.
//!
//! The rule: the state is a power-down state (exit latency ≥ `DEEP_EXIT_US`, so WFI, HLT
//! and polling are never named), and its exit latency is within a factor
//! [`SAME_ORDER`] of the lateness either way — a state whose exit takes a third of the
//! lateness is a large part of it; one whose exit takes three times longer than the worst
//! lateness seen was evidently not what the late wake-ups left.

use truebench_host::cpuidle::DEEP_EXIT_US;
use truebench_model::governors::GovernorRow;
use truebench_model::interactivity::Cell;
use truebench_model::residency::DeepestIdle;

/// How far apart an exit latency and a lateness may be and still be of the same order.
pub const SAME_ORDER: f64 = 3.0;

/// The sentence naming `deepest` when its exit latency is of the same order as `late_us`
/// (`what` says which lateness: `p99 wake-up latency`); None otherwise or when unknown.
pub fn idle_explains(late_us: f64, what: &str, deepest: &DeepestIdle) -> Option<String> {
    let exit = deepest.exit_latency_us.filter(|&e| e >= DEEP_EXIT_US)? as f64;
    if !(late_us.is_finite() && late_us > 0.0) {
        return None;
    }
    if exit * SAME_ORDER < late_us || exit > late_us * SAME_ORDER {
        return None;
    }
    Some(format!(
        "{what} {late_us:.0} µs is of the same order as the exit latency of {} ({exit:.0} µs), \
         which cpu{} entered: wake-ups from it may be what is measured (hold \
         /dev/cpu_dma_latency at 0, as --realtime does, or disable the state to tell)",
        deepest.state,
        truebench_host::parse::cpulist::format(&deepest.cpus),
    ))
}

/// A cell's verdict: its p99 wake-up latency against the deepest state entered.
pub fn cell(c: &Cell) -> Option<String> {
    let l = c.latency.as_ref()?;
    idle_explains(l.p99_us, "p99 wake-up latency", c.deepest_idle.as_ref()?)
}

/// A governor row's verdict: the overrun of its latest deadline (negative smallest slack)
/// against the deepest state entered; None when no deadline was missed.
pub fn governor_row(r: &GovernorRow) -> Option<String> {
    let overrun = -r.slack_min_us.filter(|&s| s < 0.0)?;
    idle_explains(overrun, "the worst overrun", r.deepest_idle.as_ref()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(name: &str, exit: Option<u64>) -> DeepestIdle {
        DeepestIdle {
            state: name.into(),
            exit_latency_us: exit,
            cpus: vec![4, 5],
        }
    }

    #[test]
    fn same_order_within_a_factor_of_three() {
        // The phone's gold-c4: 1900 µs.
        let c4 = state("gold-c4", Some(1900));
        let t = idle_explains(2500.0, "p99 wake-up latency", &c4).unwrap();
        assert!(
            t.contains("gold-c4 (1900 µs)") && t.contains("cpu4-5"),
            "{t}"
        );
        assert!(idle_explains(5700.0, "x", &c4).is_some(), "exactly 3×");
        assert!(
            idle_explains(5800.0, "x", &c4).is_none(),
            "lateness far above"
        );
        assert!(idle_explains(640.0, "x", &c4).is_some());
        assert!(idle_explains(600.0, "x", &c4).is_none(), "exit far above");
        // intel_idle's C6 at 200 µs against 150 µs.
        assert!(idle_explains(150.0, "x", &state("NHM-C6", Some(200))).is_some());
    }

    /// A governor row is judged by its worst overrun, only when a deadline was missed.
    #[test]
    fn governor_rows_by_their_worst_overrun() {
        use truebench_model::governors::GovernorPhase;
        let phase: GovernorPhase = "governor/performance".parse().unwrap();
        let mut r = GovernorRow::new("performance", 1, phase, truebench_model::PhaseStatus::Ok);
        r.deepest_idle = Some(state("gold-c4", Some(1900)));
        r.slack_min_us = Some(-2500.0);
        let t = governor_row(&r).unwrap();
        assert!(t.starts_with("the worst overrun 2500 µs"), "{t}");
        r.slack_min_us = Some(120.0);
        assert!(governor_row(&r).is_none(), "no deadline missed");
        r.slack_min_us = Some(-20.0);
        assert!(
            governor_row(&r).is_none(),
            "overrun far below the exit latency"
        );
        r.slack_min_us = Some(-2500.0);
        r.deepest_idle = None;
        assert!(governor_row(&r).is_none());
    }

    #[test]
    fn shallow_or_unknown_states_are_never_named() {
        assert!(idle_explains(1.5, "x", &state("WFI", Some(1))).is_none());
        assert!(idle_explains(5.0, "x", &state("C1", Some(3))).is_none());
        assert!(idle_explains(300.0, "x", &state("C6", None)).is_none());
        assert!(idle_explains(0.0, "x", &state("C6", Some(200))).is_none());
        assert!(idle_explains(f64::NAN, "x", &state("C6", Some(200))).is_none());
    }
}
