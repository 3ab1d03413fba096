//! What the detectors say they could not check, on a root with nothing to read.

use truebench_host::Inventory;
use truebench_model::finding::FindingKind;
use truebench_model::timeline::{Phase, Sample, Timeline};
use truebench_monitor::capture;
use truebench_monitor_core::detect::not_checked;

#[test]
fn missing_sensor_cpufreq_and_samples_are_not_checked() {
    let host = truebench_host::Host::new("/nonexistent-root");
    let inv = Inventory::probe(&host);
    let snap = capture::snapshot(&host, &inv);
    let f = not_checked(&inv, &snap, &Timeline::default());
    let text: Vec<&str> = f.iter().map(|f| f.message.as_str()).collect();
    assert!(f.iter().all(|f| f.kind == FindingKind::NotChecked));
    assert_eq!(f.len(), 3, "{text:?}");
    assert!(text[0].starts_with("No temperature sensor"), "{text:?}");
    assert!(text[1].starts_with("No cpufreq"), "{text:?}");
    assert!(text[2].starts_with("No monitoring sample"), "{text:?}");

    // A sample with a temperature proves a sensor; a phase within one sample is too short.
    let mut tl = Timeline::default();
    tl.samples.push(Sample {
        t: 1.0,
        soc_temp_c: Some(50.0),
        ..Default::default()
    });
    tl.phases.push(Phase {
        name: "aes".into(),
        start: 0.5,
        end: Some(1.5),
        threads: Some(1),
        ..Default::default()
    });
    let f = not_checked(&inv, &snap, &tl);
    let text: Vec<&str> = f.iter().map(|f| f.message.as_str()).collect();
    assert_eq!(f.len(), 2, "{text:?}");
    assert!(
        text[1].contains("1 phase(s) shorter than the sampling interval: aes"),
        "{text:?}"
    );
}
