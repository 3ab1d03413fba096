//! The sampler thread: samples arrive, phases are marked, stop is prompt.

use std::sync::mpsc;
use std::time::{Duration, Instant};
use truebench_host::{Host, Inventory};
use truebench_monitor::sampler::{Sampler, SamplerConfig};

#[test]
fn samples_phases_callback_and_prompt_stop() {
    let host = Host::live();
    let inv = Inventory::probe(&host);
    let (tx, rx) = mpsc::channel();
    let cfg = SamplerConfig {
        interval: Duration::from_millis(20),
        ..Default::default()
    };
    let s = Sampler::start(
        &host,
        &inv,
        cfg,
        Some(Box::new(move |x| {
            let _ = tx.send(x.t);
        })),
    );
    s.mark_phase("warm", Some(1));
    std::thread::sleep(Duration::from_millis(120));
    s.mark_phase("busy", Some(2));
    std::thread::sleep(Duration::from_millis(120));
    let tl = s.stop();
    let seen: Vec<f64> = rx.try_iter().collect();
    assert!(tl.samples.len() >= 4, "{} samples", tl.samples.len());
    assert_eq!(seen.len(), tl.samples.len());
    assert!(tl.samples.windows(2).all(|w| w[1].t > w[0].t));
    assert!(tl.samples.iter().all(|x| x.cpu.is_some()));
    assert_eq!(tl.phases.len(), 2);
    assert!(tl.phases.iter().all(|p| p.end.is_some()));
    let warm = tl.phase("warm").unwrap().clone();
    assert!(!tl.samples_in(&warm).is_empty());

    // A long interval does not delay stop.
    let cfg = SamplerConfig {
        interval: Duration::from_secs(30),
        ..Default::default()
    };
    let s = Sampler::start(&host, &inv, cfg, None);
    let t = Instant::now();
    let tl = s.stop();
    assert!(t.elapsed() < Duration::from_secs(5));
    assert!(tl.samples.is_empty());
}
