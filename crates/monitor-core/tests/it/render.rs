//! Real sbc-bench monitoring lines (tests/data/sbc-bench-monitoring.txt, see its README) are
//! parsed back into samples and rendered again: header and every line must come out equal.

use truebench_model::timeline::{CpuPct, RpiSample, Sample};
use truebench_monitor_core::render::{ClusterShape, Layout};

fn shape(id: usize, first_cpu: u32, max: u32) -> ClusterShape {
    ClusterShape {
        id,
        first_cpu,
        max_mhz: Some(max),
        has_clock: true,
    }
}

/// The layout a header describes, and how its clock columns map to `cluster_mhz`.
fn layout_for(header: &str) -> (Layout, &'static str) {
    let clocks = header.split_whitespace().nth(1).unwrap();
    if header.contains("fake/real") {
        (
            Layout::from_shapes(&[shape(0, 0, 2400)], Some(header.contains("PMIC"))),
            "rpi",
        )
    } else if header.contains("CPU n/a") {
        (Layout::from_shapes(&[], None), "none")
    } else if clocks == "CPU" {
        (Layout::from_shapes(&[shape(0, 0, 2000)], None), "single")
    } else if clocks == "big.LITTLE" {
        // little = cluster 0 (lower maximum), big = cluster 1; big is printed first.
        (
            Layout::from_shapes(&[shape(0, 0, 1800), shape(1, 4, 2400)], None),
            "bl",
        )
    } else {
        let cpus: Vec<u32> = clocks.split('/').map(|c| c[3..].parse().unwrap()).collect();
        let shapes: Vec<ClusterShape> = cpus
            .iter()
            .enumerate()
            .map(|(i, &c)| shape(i, c, 1000 + i as u32))
            .collect();
        (Layout::from_shapes(&shapes, None), "multi")
    }
}

fn num(t: &str, unit: &str) -> Option<f64> {
    let v = t.strip_suffix(unit).unwrap();
    (!v.is_empty()).then(|| v.parse().unwrap())
}

fn sample_from(line: &str, kind: &str) -> (String, Sample) {
    let hms = line[..8].to_string();
    let rest = &line[10..];
    let m = rest.find("MHz").unwrap();
    let freqs: Vec<Option<u32>> = rest[..m]
        .split('/')
        .map(|f| f.trim().parse().ok())
        .collect();
    let mut tok = rest[m + 3..].split_whitespace();
    let mut s = Sample {
        load1: Some(tok.next().unwrap().parse().unwrap()),
        ..Default::default()
    };
    let p: Vec<f64> = (0..6)
        .map(|_| num(tok.next().unwrap(), "%").unwrap())
        .collect();
    s.cpu = Some(CpuPct {
        cpu: p[0],
        sys: p[1],
        usr: p[2],
        nice: p[3],
        io: p[4],
        irq: p[5],
        steal: 0.0,
    });
    s.soc_temp_c = num(tok.next().unwrap(), "°C");
    match kind {
        "rpi" => {
            s.cluster_mhz = vec![freqs[0]];
            let mut r = RpiSample {
                arm_mhz: freqs[1].map(f64::from),
                core_volts: num(tok.next().unwrap(), "V"),
                ..Default::default()
            };
            if let Some(w) = tok.next() {
                r.pmic_watts = num(w, "W");
                r.input_volts = num(tok.next().unwrap(), "V");
            }
            s.rpi = Some(r);
        }
        "bl" => s.cluster_mhz = vec![freqs[1], freqs[0]],
        "none" => {}
        _ => s.cluster_mhz = freqs,
    }
    assert!(tok.next().is_none(), "unparsed columns in {line}");
    (hms, s)
}

#[test]
fn real_monitoring_lines_round_trip() {
    let text = include_str!("../data/sbc-bench-monitoring.txt");
    let mut layout = None;
    let (mut headers, mut lines) = (0, 0);
    for line in text.lines() {
        if line.starts_with("# source:") {
            continue;
        }
        if line.starts_with("Time ") {
            let (l, kind) = layout_for(line);
            assert_eq!(l.header(), line.trim_end());
            layout = Some((l, kind));
            headers += 1;
            continue;
        }
        let (l, kind) = layout.as_ref().expect("a header before lines");
        let (hms, s) = sample_from(line, kind);
        assert_eq!(l.line_at(&hms, &s), line.trim_end(), "sample {s:?}");
        lines += 1;
    }
    assert_eq!(headers, 10);
    assert!(lines >= 70, "{lines}");
}

#[test]
fn truebench_fractions_render_as_bash_integers() {
    // sbc-bench's 12% for one busy core of eight is 12.5 % truncated.
    let l = Layout::from_shapes(&[shape(0, 0, 1416), shape(1, 4, 1800)], None);
    let s = Sample {
        cluster_mhz: vec![Some(1416), Some(1800)],
        load1: Some(1.0),
        cpu: Some(CpuPct {
            cpu: 12.5,
            sys: 0.4,
            usr: 12.1,
            ..Default::default()
        }),
        soc_temp_c: Some(56.44),
        ..Default::default()
    };
    assert_eq!(
        l.line_at("08:51:12", &s),
        "08:51:12: 1800/1416MHz  1.00  12%   0%  12%   0%   0%   0%  56.4°C"
    );
}
