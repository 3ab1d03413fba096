//! The system readings a timeline stores beside its samples — memory, pressure stall, disk
//! and network traffic — as charts: what `monitor` recorded while the command ran. A chart
//! is drawn only where its readings moved or were ever above zero; the rest is one line.

use std::fmt::Write as _;

use crate::report::svg::{cluster_colour, esc, LineChart, Series};
use truebench_model::timeline::{ExtraSample, Timeline};

/// Points `(t, value)` over the samples with extra readings, from `f`.
fn series(
    tl: &Timeline,
    t0: f64,
    f: impl Fn(&ExtraSample) -> Option<f64>,
) -> Vec<(f64, Option<f64>)> {
    tl.samples
        .iter()
        .zip(&tl.extra)
        .map(|(s, x)| (s.t - t0, f(x).filter(|v| v.is_finite())))
        .collect()
}

/// True when a series has something to show: three readings or more, not all zero.
fn shows(points: &[(f64, Option<f64>)]) -> bool {
    let v: Vec<f64> = points.iter().filter_map(|p| p.1).collect();
    v.len() >= 3 && v.iter().any(|x| *x != 0.0)
}

/// The section, or "" when the timeline has no extra readings.
pub fn html(tl: &Timeline) -> String {
    if tl.extra.is_empty() || tl.extra.len() != tl.samples.len() {
        return String::new();
    }
    let t0 = tl.samples.first().map_or(0.0, |s| s.t);
    let mut charts: Vec<LineChart> = Vec::new();
    let mut quiet: Vec<&str> = Vec::new();
    let mb = |kb: Option<u64>| kb.map(|k| k as f64 / 1024.0);

    let mut mem = LineChart::new("Memory", "time (s)", "MiB");
    for (i, (name, f)) in [
        (
            "available",
            Box::new(|x: &ExtraSample| mb(x.memory.as_ref()?.available_kb))
                as Box<dyn Fn(&ExtraSample) -> Option<f64>>,
        ),
        (
            "page cache",
            Box::new(|x: &ExtraSample| mb(x.memory.as_ref()?.cached_kb)),
        ),
        (
            "dirty",
            Box::new(|x: &ExtraSample| mb(x.memory.as_ref()?.dirty_kb)),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let p = series(tl, t0, f);
        if shows(&p) {
            mem.series
                .push(Series::new(name, cluster_colour(i), "MiB", p));
        }
    }
    let swap: Vec<(f64, Option<f64>)> = tl
        .samples
        .iter()
        .map(|s| (s.t - t0, mb(s.swap_used_kb)))
        .collect();
    if shows(&swap) {
        mem.series
            .push(Series::new("swap used", cluster_colour(3), "MiB", swap));
    }
    let mut psi = LineChart::new(
        "Pressure stall (share of time some task waited)",
        "time (s)",
        "%",
    );
    for (i, (name, f)) in [
        (
            "cpu",
            Box::new(|x: &ExtraSample| x.pressure.as_ref()?.cpu_some)
                as Box<dyn Fn(&ExtraSample) -> Option<f64>>,
        ),
        (
            "memory",
            Box::new(|x: &ExtraSample| x.pressure.as_ref()?.memory_some),
        ),
        (
            "io",
            Box::new(|x: &ExtraSample| x.pressure.as_ref()?.io_some),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let p = series(tl, t0, f);
        if shows(&p) {
            psi.series
                .push(Series::new(name, cluster_colour(i), "%", p));
        }
    }
    let rate = |bytes: u64, x: &ExtraSample| (x.dt_s > 0.0).then(|| bytes as f64 / x.dt_s / 1e6);
    let mut disk = LineChart::new("Disk traffic", "time (s)", "MB/s");
    for (d, name) in tl.extra_header.disks.iter().enumerate() {
        let r = series(tl, t0, |x| rate(x.disks.get(d)?.as_ref()?.read_bytes, x));
        let w = series(tl, t0, |x| rate(x.disks.get(d)?.as_ref()?.write_bytes, x));
        if shows(&r) {
            disk.series.push(Series::new(
                &format!("{name} read"),
                cluster_colour(2 * d),
                "MB/s",
                r,
            ));
        }
        if shows(&w) {
            let mut s = Series::new(
                &format!("{name} write"),
                cluster_colour(2 * d + 1),
                "MB/s",
                w,
            );
            s.dashed = true;
            disk.series.push(s);
        }
    }
    let mut net = LineChart::new("Network traffic", "time (s)", "Mbit/s");
    for (n, name) in tl.extra_header.net.iter().enumerate() {
        let rx = series(tl, t0, |x| {
            rate(x.net.get(n)?.as_ref()?.rx_bytes, x).map(|m| m * 8.0)
        });
        let tx = series(tl, t0, |x| {
            rate(x.net.get(n)?.as_ref()?.tx_bytes, x).map(|m| m * 8.0)
        });
        if shows(&rx) {
            net.series.push(Series::new(
                &format!("{name} in"),
                cluster_colour(2 * n),
                "Mbit/s",
                rx,
            ));
        }
        if shows(&tx) {
            let mut s = Series::new(
                &format!("{name} out"),
                cluster_colour(2 * n + 1),
                "Mbit/s",
                tx,
            );
            s.dashed = true;
            net.series.push(s);
        }
    }
    for (c, what) in [
        (mem, "memory"),
        (psi, "pressure stall"),
        (disk, "disk traffic"),
        (net, "network traffic"),
    ] {
        if c.has_data() {
            charts.push(c);
        } else {
            quiet.push(what);
        }
    }
    let mut o = String::from("<section><h2>System readings</h2>");
    if !charts.is_empty() {
        o.push_str("<div class=\"grid2\">");
        for mut c in charts {
            c.y_min = Some(0.0);
            c.width = 480.0;
            c.height = 220.0;
            o.push_str(&c.render());
        }
        o.push_str("</div>");
    }
    if !quiet.is_empty() {
        let _ = write!(
            o,
            "<p class=\"muted\">Nothing moved (or nothing was read) in: {}.</p>",
            esc(&quiet.join(", "))
        );
    }
    o.push_str("</section>");
    o
}
