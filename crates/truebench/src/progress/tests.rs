//! The renderer on the events of a made-up run, in each mode.

use super::state::mmss;
use super::*;
use indicatif::TermLike;
use truebench_model::PhaseStatus;
use truebench_suites::run::phase_end;

/// A buffer the test keeps a handle on.
#[derive(Clone, Default, Debug)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Shared {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A terminal 100 columns wide that records the text written (cursor moves and line ends
/// dropped: indicatif pads every line to the width).
impl TermLike for Shared {
    fn width(&self) -> u16 {
        100
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.write_str(s)
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        self.0.lock().unwrap().extend_from_slice(s.as_bytes());
        Ok(())
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        Ok(())
    }
}

fn step(index: usize, name: &str, title: &str, estimate: u64) -> Event {
    Event::Step {
        index,
        total: 2,
        what: name.into(),
        title: Some(title.into()),
        estimate: Some(Duration::from_secs(estimate)),
        progress: Some(Default::default()),
    }
}

fn waiting(reason: &str) -> Event {
    Event::Waiting {
        what: "waiting for an idle system".into(),
        reason: Some(reason.into()),
    }
}

fn events() -> Vec<Event> {
    let s = Duration::from_secs;
    let mut v = vec![
        Event::Plan {
            headline: "2 phases, about 2:00 (plus waiting for an idle system)".into(),
            steps: vec![("idle".into(), s(30)), ("memory".into(), s(90))],
        },
        step(1, "idle", "Waiting for an idle system", 30),
    ];
    // The idle gate repeats its verdict every second; only changes make a line.
    for w in [
        "load 2.10",
        "load 2.10",
        "load 2.10",
        "load 0.40",
        "load 0.40",
    ] {
        v.push(waiting(w));
    }
    v.extend([
        phase_end(PhaseStatus::Ok, None, 4.25),
        step(2, "memory", "Memory bandwidth and latency", 90),
        Event::Note("memory: cpu4 is offline".into()),
        phase_end(PhaseStatus::Failed, Some("out of memory".into()), 1.0),
    ]);
    v
}

#[test]
fn the_bar_only_on_a_terminal_without_json() {
    assert_eq!(Mode::choose(false, false, true), Mode::Bar);
    assert_eq!(Mode::choose(false, true, true), Mode::Lines);
    assert_eq!(Mode::choose(false, false, false), Mode::Lines);
    assert_eq!(Mode::choose(false, true, false), Mode::Lines);
    assert_eq!(Mode::choose(true, false, true), Mode::Off);
    assert_eq!(Mode::choose(true, true, false), Mode::Off);
}

#[test]
fn plain_lines_only_when_something_changes() {
    let out = Shared::default();
    let mut p = Progress::with_targets(
        Mode::Lines,
        Box::new(out.clone()),
        ProgressDrawTarget::hidden,
    );
    for e in events() {
        p.event(e);
    }
    p.finish();
    assert_eq!(
        out.text(),
        "truebench: 2 phases, about 2:00 (plus waiting for an idle system)\n\
         truebench: [1/2] idle: Waiting for an idle system (about 30 s)\n\
         truebench: waiting for an idle system: load 2.10\n\
         truebench: waiting for an idle system: load 0.40\n\
         truebench: [1/2] idle: ok in 4.2 s\n\
         truebench: [2/2] memory: Memory bandwidth and latency (about 90 s)\n\
         truebench: memory: cpu4 is offline\n\
         truebench: [2/2] memory: FAILED in 1.0 s (out of memory)\n"
    );
}

#[test]
fn a_forced_gate_says_not_idle_instead_of_ok() {
    let out = Shared::default();
    let mut p = Progress::with_targets(
        Mode::Lines,
        Box::new(out.clone()),
        ProgressDrawTarget::hidden,
    );
    p.event(step(1, "idle", "the idle gate: one look (--force)", 1));
    p.event(phase_end(
        PhaseStatus::Ok,
        Some("not idle (forced): load 3.50".into()),
        0.0,
    ));
    p.finish();
    assert_eq!(
        out.text(),
        "truebench: [1/2] idle: the idle gate: one look (--force) (about 1.0 s)\n\
         truebench: [1/2] idle: not idle (forced): load 3.50 in 0.0 s\n"
    );
}

#[test]
fn a_long_phase_says_how_far_it_is_without_a_bar() {
    let out = Shared::default();
    let mut p = Progress::with_targets(
        Mode::Lines,
        Box::new(out.clone()),
        ProgressDrawTarget::hidden,
    );
    p.heartbeat_every = Duration::from_millis(40);
    p.event(Event::Step {
        index: 4,
        total: 7,
        what: "compression-multi".into(),
        title: Some("7-zip on all cores".into()),
        estimate: Some(Duration::from_secs(60)),
        progress: None,
    });
    std::thread::sleep(Duration::from_millis(150));
    p.event(phase_end(PhaseStatus::Ok, None, 0.15));
    std::thread::sleep(Duration::from_millis(100));
    p.finish();
    let text = out.text();
    let beats: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("truebench: [4/7] compression-multi: 0 s of about 60 s, ETA"))
        .collect();
    assert!((1..=4).contains(&beats.len()), "{text}");
    // Nothing after the phase ended.
    assert!(
        text.trim_end().ends_with("ok in 0.1 s") || text.trim_end().ends_with("ok in 0.2 s"),
        "{text}"
    );
}

#[test]
fn quiet_prints_nothing() {
    let out = Shared::default();
    let mut p =
        Progress::with_targets(Mode::Off, Box::new(out.clone()), ProgressDrawTarget::hidden);
    for e in events() {
        p.event(e);
    }
    p.finish();
    assert_eq!(out.text(), "");
}

#[test]
fn the_bar_shows_the_phase_and_the_eta_and_ended_phases_above_it() {
    let lines = Shared::default();
    let term = Shared::default();
    let t = term.clone();
    let mut p = Progress::with_targets(Mode::Bar, Box::new(lines.clone()), move || {
        ProgressDrawTarget::term_like(Box::new(t))
    });
    let mut ev = events().into_iter();
    p.event(ev.next().unwrap()); // the plan, before the bar is shown
    p.event(ev.next().unwrap()); // idle starts: the bar appears
    p.event(waiting("load 2.10"));
    std::thread::sleep(Duration::from_millis(600));
    let drawn = term.text();
    assert!(drawn.contains("[1/2] idle"), "{drawn:?}");
    assert!(drawn.contains("/~30s  ETA 1:59  load 2.10"), "{drawn:?}");
    assert!(drawn.contains("[>-----------------------]"), "{drawn:?}");
    for e in ev {
        p.event(e);
    }
    p.finish();
    assert_eq!(
        lines.text(),
        "truebench: 2 phases, about 2:00 (plus waiting for an idle system)\n"
    );
    let drawn = term.text();
    // Phase starts and idle verdicts are on the bar only; the rest is printed above it.
    assert!(!drawn.contains("waiting for an idle system:"), "{drawn:?}");
    assert!(!drawn.contains("(about 90 s)"), "{drawn:?}");
    for l in [
        "truebench: [1/2] idle: ok in 4.2 s",
        "truebench: memory: cpu4 is offline",
        "truebench: [2/2] memory: FAILED in 1.0 s (out of memory)",
    ] {
        assert!(drawn.contains(l), "{l:?} in {drawn:?}");
    }
    assert!(drawn.contains("[2/2] memory"), "{drawn:?}");
}

#[test]
fn eta_is_the_current_phase_rest_and_every_phase_not_started() {
    let s = Duration::from_secs;
    let mut st = State {
        plan: vec![
            ("a".into(), s(10)),
            ("b".into(), s(20)),
            ("c".into(), s(30)),
        ],
        ..Default::default()
    };
    assert_eq!(st.eta(), s(60));
    st.done = 1;
    st.current = Some(Phase {
        index: 2,
        total: 3,
        name: "b".into(),
        waits: false,
        started: Instant::now() - s(5),
        estimate: s(20),
        progress: Default::default(),
    });
    let eta = st.eta().as_secs_f64();
    assert!((44.0..=45.0).contains(&eta), "{eta}");
    // A phase that overruns its estimate leaves only the phases after it.
    st.current.as_mut().unwrap().started = Instant::now() - s(25);
    assert_eq!(st.eta(), s(30));
    assert_eq!(mmss(s(125)), "2:05");
}

#[test]
fn alike_steps_are_expected_to_take_as_long_as_the_ended_ones() {
    let s = Duration::from_secs;
    let mut st = State {
        plan: vec![("a".into(), s(10)); 4],
        adaptive: true,
        ..Default::default()
    };
    // Nothing ended yet: the plan's 10 s each.
    assert_eq!(st.eta(), s(40));
    st.done = 1;
    st.took.push(2.0);
    // Step 2 of 4 not started: three more steps of 2 s each.
    assert_eq!(st.eta(), s(6));
    st.adaptive = false;
    assert_eq!(st.eta(), s(30));
    assert_eq!(short(4.25), "4.2 s");
    assert_eq!(short(200.0), "3 min 20 s");
}

#[test]
fn a_phase_that_reports_its_share_is_projected_from_it() {
    let s = Duration::from_secs;
    let progress = truebench_workloads::progress::Progress::default();
    let mut st = State {
        plan: vec![("a".into(), s(10)), ("b".into(), s(100))],
        done: 1,
        ..Default::default()
    };
    st.current = Some(Phase {
        index: 2,
        total: 2,
        name: "compression-multi".into(),
        waits: false,
        started: Instant::now() - s(30),
        estimate: s(100),
        progress: progress.clone(),
    });
    // Nothing reported yet: the estimate's rest.
    let eta = st.eta().as_secs_f64();
    assert!((69.0..=70.0).contains(&eta), "{eta}");
    // Run 2 of 2 starting (50 %) after 30 s: 30 s left, not the estimate's 70.
    progress.step(1, 2, "7-zip run 2 of 2");
    let eta = st.eta().as_secs_f64();
    assert!((29.0..=31.0).contains(&eta), "{eta}");
    assert_eq!(st.position(), Some((1000, 500)));
    let status = st.status();
    assert!(
        status.contains("/~60s") && status.ends_with("7-zip run 2 of 2"),
        "{status}"
    );
    let line = phase_line(st.current.as_ref().unwrap(), st.eta());
    assert!(
        line.starts_with("truebench: [2/2] compression-multi: 30 s, 7-zip run 2 of 2 (50 %), about 30 s left, ETA 0:3"),
        "{line}"
    );
}
