//! The progress every suite reports while it runs, in one vocabulary, so the command line
//! shows every command the same way with no code per kind: what is planned, waiting (the
//! machine is being readied), step `i` of `n` with its estimate, the step's result, partial
//! results and notes. The texts are made here, next to the suites that know what they mean.

use std::time::Duration;

use truebench_model::PhaseStatus;
use truebench_workloads::progress::Progress;

/// What a suite tells its caller while it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// What the command is about to do (`net: 3 test(s) × 2 repeat(s), 10 s each`), said
    /// first. `steps`: every step with its estimate when the suite knows them up front (the
    /// ETA's base); empty when the steps are alike, so those not started are expected to take
    /// as long as the ended ones did.
    Plan {
        headline: String,
        steps: Vec<(String, Duration)>,
    },
    /// The machine is being readied: `what` it waits for (`cooling to 45.0 °C`), said again
    /// only when it changes. With a `reason` (`load 2.10`) the running step is the wait itself
    /// (the idle gate), and the reason is its latest verdict.
    Waiting {
        what: String,
        reason: Option<String>,
    },
    /// Step `index` (1-based) of `total` starts: `what` (`download (as is)`), what it runs
    /// when that says more (`title`), how long it should take.
    Step {
        index: usize,
        total: usize,
        what: String,
        title: Option<String>,
        estimate: Option<Duration>,
        /// How far the step is, when it knows (7-zip's passes, the governors' task sets);
        /// moved on while it runs.
        progress: Option<Progress>,
    },
    /// The running step ended with `text` (`ok, 940 Mbit/s`), why when it says so apart
    /// (`out of memory`), and how long it took when its maker measured that.
    Score {
        text: String,
        reason: Option<String>,
        seconds: Option<f64>,
    },
    /// A result of the running step that does not end it (one run of several, a score every
    /// interval).
    Partial(String),
    /// Something to know that is no step's result.
    Note(String),
}

impl Event {
    /// A plan that is only a headline: the steps are alike.
    pub fn headline(text: impl Into<String>) -> Event {
        Event::Plan {
            headline: text.into(),
            steps: Vec::new(),
        }
    }

    /// A wait said on its own line (`calibrating loops per ms (a few seconds)`).
    pub fn waiting(what: impl Into<String>) -> Event {
        Event::Waiting {
            what: what.into(),
            reason: None,
        }
    }

    /// Step `index` of `total`, expected to take `seconds`, with nothing more to say.
    pub fn step(
        index: usize,
        total: usize,
        what: impl Into<String>,
        seconds: Option<f64>,
    ) -> Event {
        Event::Step {
            index,
            total,
            what: what.into(),
            title: None,
            estimate: seconds
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(Duration::from_secs_f64),
            progress: None,
        }
    }

    /// The running step's result, said as it is.
    pub fn score(text: impl Into<String>) -> Event {
        Event::Score {
            text: text.into(),
            reason: None,
            seconds: None,
        }
    }

    /// The running step's result as `status: reason` (`skipped: no scratch space`).
    pub fn status(status: PhaseStatus, reason: Option<&str>) -> Event {
        Event::score(format!(
            "{status}{}",
            reason.map(|r| format!(": {r}")).unwrap_or_default()
        ))
    }

    pub fn note(text: impl Into<String>) -> Event {
        Event::Note(text.into())
    }
}

/// `2:05`: minutes and seconds.
pub fn mmss(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}", s / 60, s % 60)
}

/// Why `events` are not what a renderer can follow: every step numbered within `1..=total`,
/// one after the other from 1 (a new count may start at 1: the next cluster's OPPs), and
/// every step followed by its result before the next starts (or the end).
pub fn check(events: &[Event]) -> Result<(), String> {
    let mut open: Option<(usize, usize, &str)> = None;
    let mut last: Option<(usize, usize)> = None;
    for (k, e) in events.iter().enumerate() {
        match e {
            Event::Step {
                index, total, what, ..
            } => {
                if let Some((i, n, w)) = open {
                    return Err(format!(
                        "event {k}: step {index}/{total} {what:?} starts before {i}/{n} {w:?} said its result"
                    ));
                }
                if !(1..=*total).contains(index) {
                    return Err(format!("event {k}: step {index} of {total}"));
                }
                let follows = match last {
                    Some((i, n)) if n == *total => *index == i + 1 || *index == 1,
                    _ => *index == 1,
                };
                if !follows {
                    return Err(format!(
                        "event {k}: step {index}/{total} {what:?} after {last:?}"
                    ));
                }
                open = Some((*index, *total, what));
                last = Some((*index, *total));
            }
            Event::Score { .. } if open.take().is_none() => {
                return Err(format!("event {k}: a result without a step: {e:?}"));
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_numbered_in_order_and_each_ends_with_its_result() {
        let ok = [
            Event::headline("two steps"),
            Event::step(1, 2, "a", Some(1.0)),
            Event::Partial("half".into()),
            Event::score("ok"),
            Event::step(2, 2, "b", None),
        ];
        assert_eq!(check(&ok), Ok(()));
        // A second count from 1 (the next cluster), a count cut short (Ctrl-C).
        let again = [
            Event::step(1, 3, "a", None),
            Event::score("ok"),
            Event::step(1, 2, "b", None),
            Event::score("ok"),
        ];
        assert_eq!(check(&again), Ok(()));
        for bad in [
            vec![Event::step(1, 2, "a", None), Event::step(2, 2, "b", None)],
            vec![Event::step(0, 2, "a", None)],
            vec![Event::step(3, 2, "a", None)],
            vec![
                Event::step(1, 3, "a", None),
                Event::score("ok"),
                Event::step(3, 3, "c", None),
            ],
            vec![Event::score("ok")],
        ] {
            assert!(check(&bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_status_with_its_reason() {
        assert_eq!(
            Event::status(PhaseStatus::Skipped, Some("no space")),
            Event::score("skipped: no space")
        );
        assert_eq!(Event::status(PhaseStatus::Ok, None), Event::score("ok"));
        assert_eq!(mmss(Duration::from_secs(125)), "2:05");
    }
}
