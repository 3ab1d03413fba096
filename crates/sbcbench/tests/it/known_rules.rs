//! Every labelled reason for a disagreement fires on the log it describes and stops firing
//! when the condition it names is taken away: no label explains any disagreement of a kind.

use truebench_fixtures::sbc_bench as common;
use truebench_model::finding::FindingKind;
use truebench_sbcbench::convert::to_run_result;
use truebench_sbcbench::known::Label;
use truebench_sbcbench::verdict::{compare, VerdictComparison};
use truebench_sbcbench::{parse, SbcBenchLog};

fn log(name: &str) -> SbcBenchLog {
    let (_, text) = common::logs()
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no corpus log {name}"));
    parse(&text)
}

/// The comparison of `kind` on `log` (converted as it is now).
fn verdict(log: &SbcBenchLog, kind: FindingKind) -> VerdictComparison {
    let r = to_run_result(log, "test");
    compare(log, r.view())
        .into_iter()
        .find(|c| c.kind == kind)
        .unwrap()
}

fn id(log: &SbcBenchLog, kind: FindingKind) -> Option<String> {
    verdict(log, kind).known_error.map(|k| k.id)
}

fn set_bullet(log: &mut SbcBenchLog, prefix: &str, text: &str) {
    log.validation.retain(|b| !b.starts_with(prefix));
    log.validation.push(text.to_string());
}

#[test]
fn throttling_without_statistics_holds_only_in_its_versions() {
    let mut l = log("4zGI.txt");
    assert_eq!(
        id(&l, FindingKind::Throttling).as_deref(),
        Some("throttling-without-cpufreq-statistics")
    );
    // Before 0.9.41 the same message means a measured clock drop of more than 3 %.
    l.header.version = Some("0.9.38".into());
    let v = verdict(&l, FindingKind::Throttling);
    let k = v.known_error.unwrap();
    assert_eq!(k.id, "throttling-measured-clock-drop");
    assert_eq!(k.label, Label::TruebenchRule);
    // Older still: no rule fits.
    l.header.version = Some("0.9.20".into());
    assert_eq!(id(&l, FindingKind::Throttling), None);
}

#[test]
fn the_hedge_is_recognised_by_its_words_only() {
    let mut l = log("4zGI.txt");
    set_bullet(&mut l, "Throttling", "Throttling might have occured");
    assert_eq!(
        id(&l, FindingKind::Throttling).as_deref(),
        Some("throttling-hedge")
    );
}

#[test]
fn a_one_opp_throttling_table_is_named_only_with_one_opp() {
    let mut l = log("3Dfo.txt");
    assert_eq!(
        id(&l, FindingKind::Throttling).as_deref(),
        Some("throttling-table-below-cpuinfo-max")
    );
    // Time at a second OPP: the clock did move; this label no longer fits.
    let t = &mut l.throttling[0].time_in_state;
    let mhz = t[0].0;
    t.push((mhz / 2, 10.0));
    assert_ne!(
        id(&l, FindingKind::Throttling).as_deref(),
        Some("throttling-table-below-cpuinfo-max")
    );
}

#[test]
fn the_background_threshold_names_the_condition_that_fired() {
    let mut l = log("4Lyf.txt");
    let v = verdict(&l, FindingKind::BackgroundActivity);
    let k = v.known_error.expect("labelled");
    assert_eq!(k.id, "background-threshold");
    assert_eq!(k.label, Label::Threshold);
    assert!(
        k.explanation.contains("peak excess 3 > 2 points"),
        "{}",
        k.explanation
    );
    assert!(
        !k.explanation.contains("average excess"),
        "{}",
        k.explanation
    );
    assert!(v.why.starts_with("undecided (threshold)"), "{}", v.why);
    // Numbers that fire neither of sbc-bench's conditions are no threshold difference.
    set_bullet(
        &mut l,
        "Too much other background activity",
        "Too much other background activity: 0% avg, 1% max",
    );
    assert_eq!(id(&l, FindingKind::BackgroundActivity), None);
}

#[test]
fn averaging_over_the_run_is_checked_against_the_runs_numbers() {
    let l = log("4HYd.txt");
    let k = verdict(&l, FindingKind::BackgroundActivity)
        .known_error
        .expect("labelled");
    assert_eq!(k.id, "activity-averaged-over-the-run");
    assert_eq!(k.label, Label::TruebenchRule);
    // Read as an 8-core log, the same readings are far over sbc-bench's own limits over the
    // run (ideal 12 %, limit 0 points on average): its silence is not explained by averaging.
    let mut l2 = l.clone();
    l2.system.cpus = Some(8);
    let k2 = verdict(&l2, FindingKind::BackgroundActivity).known_error;
    assert!(
        k2.as_ref()
            .is_none_or(|k| k.id != "activity-averaged-over-the-run"),
        "{k2:?}"
    );
}

#[test]
fn a_clock_shortfall_within_truebenchs_tolerance_is_a_threshold_difference() {
    // A log where both say the clock is right, given sbc-bench's mismatch bullet.
    let mut l = log("4zGI.txt");
    let before = verdict(&l, FindingKind::ClockDeviation);
    assert!(before.truebench.is_none() || before.known_error.is_none());
    set_bullet(
        &mut l,
        "Measured clockspeed not lower",
        "Advertised vs. measured max CPU clockspeed: -0.8% before, -0.4% after",
    );
    let v = verdict(&l, FindingKind::ClockDeviation);
    let k = v.known_error.expect("labelled");
    assert_eq!(k.id, "clock-deviation-threshold");
    assert_eq!(k.label, Label::Threshold);
    // A shortfall beyond truebench's floor is not a threshold difference.
    set_bullet(
        &mut l,
        "Advertised vs. measured",
        "Advertised vs. measured max CPU clockspeed: -4.0% before, -3.5% after",
    );
    assert_eq!(id(&l, FindingKind::ClockDeviation), None);
}

#[test]
fn the_firmware_and_hot_clock_labels_need_their_evidence() {
    let l = log("4dJV.txt");
    assert_eq!(
        id(&l, FindingKind::Throttling).as_deref(),
        Some("throttling-by-cpufreq-statistics-only")
    );
    let l = log("1iI5.txt");
    assert_eq!(
        id(&l, FindingKind::Throttling).as_deref(),
        Some("pi-firmware-clock-not-judged")
    );
    // The same Pi log claimed by a version that judges the firmware clock: no label.
    let mut l2 = l.clone();
    l2.header.version = Some("0.9.50".into());
    assert_ne!(
        id(&l2, FindingKind::Throttling).as_deref(),
        Some("pi-firmware-clock-not-judged")
    );
    let l = log("4vfU.txt");
    assert_eq!(
        id(&l, FindingKind::ClockDeviation).as_deref(),
        Some("clock-deviation-needs-both-checks")
    );
}

#[test]
fn an_imported_log_with_an_opp_walk_is_not_said_to_lack_cpufreq() {
    for (name, text) in common::logs() {
        let l = parse(&text);
        let walk =
            !l.opp_blocks.is_empty() || l.validation.iter().any(|b| b.starts_with("No throttling"));
        if !walk {
            continue;
        }
        let r = to_run_result(&l, &name);
        assert!(
            !r.envelope
                .findings
                .iter()
                .any(|f| f.kind == FindingKind::NotChecked && f.message.starts_with("No cpufreq")),
            "{name}"
        );
    }
}
