//! Prometheus / OpenMetrics exporter: the sampler's readings as metrics, and a small HTTP
//! server for `truebench serve`.
//!
//! Names follow node_exporter where the quantity is the same (`node_cpu_seconds_total`,
//! `node_load1/5/15`, `node_memory_*`, `node_pressure_*`, `node_cpu_scaling_frequency_hertz`,
//! `node_thermal_zone_temp`, `node_hwmon_temp_celsius`, … — `node.rs` has the cpu, load,
//! memory, pressure and cpufreq-limit ones) so existing dashboards work; the rest is under
//! `truebench_` (time in state, the chosen SoC temperature, cluster clocks, Raspberry Pi
//! firmware bits, findings). The HTTP server is in `http.rs`.
//!
//! ## Server design
//! One thread runs a `poll(2)` loop over non-blocking sockets instead of a worker pool: a slow
//! or half-open client then costs a table slot and at most 8 KiB, never a thread. Limits: at
//! most `max_conns` connections (when full, the oldest one still sending its request is
//! dropped for the new one, so slowloris clients cannot lock others out), a request head of
//! at most 8 KiB that must arrive within `header_timeout`, a response that must be taken within
//! `write_timeout`, `Connection: close` after every response. The scrape body is rendered at
//! most once per `max_age` (100 ms) and shared by every connection (an `Arc`), so 40 scrapers
//! at once cost one round of sysfs reads.

use crate::reader::{Origin, SampleReader, SlowReader};
use crate::rpi::{RpiPoller, THROTTLED_BITS};
use std::fmt::Write as _;
use std::fs::File;
use std::sync::Arc;
use std::time::Duration;
use truebench_host::parse::cpufreq::time_in_state;
use truebench_host::{Host, Inventory};
use truebench_model::timeline::Sample;

const CPU_DIR: &str = "sys/devices/system/cpu";

struct CpuFiles {
    id: u32,
    scaling_cur: Option<File>,
}

struct Throttle {
    core: String,
    package: String,
    file: File,
}

/// Everything one scrape reads, opened once.
pub struct Exporter {
    reader: SampleReader,
    cpus: Vec<CpuFiles>,
    /// Per-CPU `cpuinfo_cur_freq` (a hardware/firmware query: read with a deadline).
    cpuinfo_cur: Option<(Vec<u32>, SlowReader, Vec<Option<i64>>)>,
    core_throttles: Vec<Throttle>,
    package_throttles: Vec<(String, File)>,
    policies: Vec<(u32, File)>,
    clusters: Vec<(String, String)>,
    /// Kept alive: its thread refreshes the readings the sample reader shares.
    _rpi: Option<RpiPoller>,
    /// For findings between scrapes.
    cpus_online_at_start: Option<u32>,
    last_throttle_total: Option<u64>,
    last_swap_used: Option<u64>,
    node: node::NodeFiles,
    sample: Sample,
    buf: Vec<u8>,
    /// Families from elsewhere (`serve`'s latest stored results), added to every scrape.
    extra: Option<ExtraFamilies>,
}

/// A metric family built outside the exporter: `samples` are (labels, value).
#[derive(Debug, Clone, PartialEq)]
pub struct Family {
    pub name: String,
    /// `gauge` or `counter`.
    pub kind: &'static str,
    pub help: String,
    pub samples: Vec<(Vec<(String, String)>, f64)>,
}

/// The text exposition (format 0.0.4) of families built elsewhere, as node_exporter's
/// textfile collector reads it.
pub fn exposition(families: &[Family]) -> String {
    let mut o = Out {
        s: String::new(),
        om: false,
    };
    for f in families {
        o.extra(f);
    }
    o.s
}

/// What adds [`Family`]s to each scrape.
pub type ExtraFamilies = Box<dyn FnMut() -> Vec<Family> + Send>;

fn esc(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Metric text writer for both formats.
struct Out {
    s: String,
    om: bool,
}

impl Out {
    /// One family. `name` is the sample name; counters end in `_total`, which OpenMetrics
    /// leaves out of the family name.
    fn family(
        &mut self,
        name: &str,
        kind: &str,
        help: &str,
        samples: &[(Vec<(&str, String)>, f64)],
    ) {
        if samples.is_empty() {
            return;
        }
        let fam = if self.om && kind == "counter" {
            name.strip_suffix("_total").unwrap_or(name)
        } else {
            name
        };
        let _ = writeln!(self.s, "# HELP {fam} {help}");
        let _ = writeln!(self.s, "# TYPE {fam} {kind}");
        for (labels, v) in samples {
            self.s.push_str(name);
            if !labels.is_empty() {
                self.s.push('{');
                for (i, (k, val)) in labels.iter().enumerate() {
                    if i > 0 {
                        self.s.push(',');
                    }
                    let _ = write!(self.s, "{k}=\"{}\"", esc(val));
                }
                self.s.push('}');
            }
            let _ = writeln!(self.s, " {v}");
        }
    }
}

impl Out {
    /// A family built elsewhere.
    fn extra(&mut self, f: &Family) {
        let samples: Vec<(Vec<(&str, String)>, f64)> = f
            .samples
            .iter()
            .map(|(l, v)| (l.iter().map(|(k, x)| (k.as_str(), x.clone())).collect(), *v))
            .collect();
        self.family(&f.name, f.kind, &f.help, &samples);
    }
}

fn lbl(pairs: &[(&'static str, String)]) -> Vec<(&'static str, String)> {
    pairs.to_vec()
}

impl Exporter {
    pub fn new(host: &Host, inv: &Inventory) -> Exporter {
        let mut reader = SampleReader::new(host, inv, Duration::from_millis(500));
        let rpi = RpiPoller::start(host, Duration::from_secs(5));
        if let Some(p) = &rpi {
            reader.set_rpi(Arc::clone(&p.latest));
        }
        let open = |rel: String| host.open(rel).ok();
        let mut cpus = Vec::new();
        let mut slow_ids = Vec::new();
        let mut slow_files = Vec::new();
        let mut slow_names = Vec::new();
        let mut core_throttles: Vec<Throttle> = Vec::new();
        let mut package_throttles: Vec<(String, File)> = Vec::new();
        for c in &inv.cpus {
            let d = format!("{CPU_DIR}/cpu{}", c.id);
            cpus.push(CpuFiles {
                id: c.id,
                scaling_cur: open(format!("{d}/cpufreq/scaling_cur_freq")),
            });
            let rel = format!("{d}/cpufreq/cpuinfo_cur_freq");
            if let Some(f) = open(rel.clone()) {
                slow_ids.push(c.id);
                slow_files.push(Some(f));
                slow_names.push(rel);
            }
            let package = c.package.unwrap_or(0).to_string();
            let core = c.core_id.unwrap_or(c.id).to_string();
            // One counter per core (SMT siblings report the same one), as node_exporter.
            if !core_throttles
                .iter()
                .any(|t| t.core == core && t.package == package)
            {
                if let Some(file) = open(format!("{d}/thermal_throttle/core_throttle_count")) {
                    core_throttles.push(Throttle {
                        core,
                        package: package.clone(),
                        file,
                    });
                }
            }
            if !package_throttles.iter().any(|(p, _)| *p == package) {
                if let Some(f) = open(format!("{d}/thermal_throttle/package_throttle_count")) {
                    package_throttles.push((package, f));
                }
            }
        }
        let cpuinfo_cur = (!slow_ids.is_empty()).then(|| {
            let n = slow_ids.len();
            (
                slow_ids,
                SlowReader::start(slow_files, slow_names),
                vec![None; n],
            )
        });
        let mut policies = Vec::new();
        for cl in &inv.clusters {
            for &p in &cl.policies {
                let dir = if Some(p) == cl.policy {
                    cl.policy_dir.clone()
                } else {
                    None
                }
                .unwrap_or_else(|| format!("{CPU_DIR}/cpufreq/policy{p}"));
                if let Some(f) = open(format!("{dir}/stats/time_in_state")) {
                    policies.push((p, f));
                }
            }
        }
        let clusters = inv
            .clusters
            .iter()
            .map(|c| (c.cpu_range(), c.core_type.clone().unwrap_or_default()))
            .collect();
        let mut e = Exporter {
            reader,
            cpus,
            cpuinfo_cur,
            core_throttles,
            package_throttles,
            policies,
            clusters,
            _rpi: rpi,
            cpus_online_at_start: None,
            last_throttle_total: None,
            last_swap_used: None,
            node: node::NodeFiles::open(host, inv),
            sample: Sample::default(),
            // /proc/stat is read whole into it: a line per CPU, each at most 10 counters of
            // 20 digits; a fixed 64 KiB cut a 1024-CPU machine's file inside its CPU lines.
            buf: vec![0; (64 * 1024).max(8192 + 256 * inv.cpus.len())],
            extra: None,
        };
        e.reader.sample_into(&mut e.sample);
        e.cpus_online_at_start = e.sample.cpus_online;
        e
    }

    fn read_int(f: &File, buf: &mut [u8]) -> Option<i64> {
        crate::reader::pread_all(f, &mut buf[..64])
            .ok()
            .and_then(crate::reader::parse_i64)
    }

    /// Read everything now and render it (`om` = OpenMetrics, else Prometheus text 0.0.4).
    pub fn scrape(&mut self, om: bool) -> String {
        self.reader.sample_into(&mut self.sample);
        let s = &self.sample;
        let mut o = Out {
            s: String::with_capacity(16 * 1024),
            om,
        };
        let buf = &mut self.buf;

        let v: Vec<_> = self
            .cpus
            .iter()
            .filter_map(|c| {
                let khz = Self::read_int(c.scaling_cur.as_ref()?, buf)?;
                Some((lbl(&[("cpu", c.id.to_string())]), khz as f64 * 1000.0))
            })
            .collect();
        o.family(
            "node_cpu_scaling_frequency_hertz",
            "gauge",
            "Current scaled CPU thread frequency in hertz.",
            &v,
        );
        let mut v = Vec::new();
        if let Some((ids, slow, vals)) = self.cpuinfo_cur.as_mut() {
            slow.collect(Duration::from_millis(250), vals);
            for (id, val) in ids.iter().zip(vals.iter()) {
                if let Some(khz) = val {
                    v.push((lbl(&[("cpu", id.to_string())]), *khz as f64 * 1000.0));
                }
            }
        }
        o.family(
            "node_cpu_frequency_hertz",
            "gauge",
            "Current CPU thread frequency in hertz (cpuinfo_cur_freq).",
            &v,
        );

        let mut zones = Vec::new();
        let mut hw_temps = Vec::new();
        for (origin, t) in self.reader.thermal.temp_origin.iter().zip(&s.temps_c) {
            let Some(t) = t else { continue };
            match origin {
                Origin::Zone { zone, kind } => {
                    zones.push((lbl(&[("type", kind.clone()), ("zone", zone.clone())]), *t))
                }
                Origin::Hwmon { chip, sensor, .. } => hw_temps.push((
                    lbl(&[("chip", chip.clone()), ("sensor", sensor.clone())]),
                    *t,
                )),
                Origin::Other(_) => {}
            }
        }
        o.family(
            "node_thermal_zone_temp",
            "gauge",
            "Zone temperature in Celsius",
            &zones,
        );
        o.family(
            "node_hwmon_temp_celsius",
            "gauge",
            "Hardware monitor for temperature (input)",
            &hw_temps,
        );
        for (kind, name, help) in [
            (
                "in",
                "node_hwmon_in_volts",
                "Hardware monitor for voltage (input)",
            ),
            (
                "curr",
                "node_hwmon_curr_amps",
                "Hardware monitor for current (input)",
            ),
            (
                "power",
                "node_hwmon_power_watt",
                "Hardware monitor for power (input)",
            ),
        ] {
            let v: Vec<_> = self
                .reader
                .thermal
                .electrical_origin
                .iter()
                .zip(&s.electrical)
                .filter(|((k, _), _)| k == kind)
                .filter_map(|((_, origin), val)| match (origin, val) {
                    (Origin::Hwmon { chip, sensor, .. }, Some(x)) => Some((
                        lbl(&[("chip", chip.clone()), ("sensor", sensor.clone())]),
                        *x,
                    )),
                    _ => None,
                })
                .collect();
            o.family(name, "gauge", help, &v);
        }
        let mut names: Vec<(Vec<(&str, String)>, f64)> = Vec::new();
        for origin in self
            .reader
            .thermal
            .temp_origin
            .iter()
            .chain(self.reader.thermal.electrical_origin.iter().map(|(_, o)| o))
        {
            if let Origin::Hwmon {
                chip, chip_name, ..
            } = origin
            {
                let l = lbl(&[("chip", chip.clone()), ("chip_name", chip_name.clone())]);
                if !names.iter().any(|(x, _)| *x == l) {
                    names.push((l, 1.0));
                }
            }
        }
        o.family(
            "node_hwmon_chip_names",
            "gauge",
            "Annotation metric for human-readable chip names",
            &names,
        );

        let mut throttle_total = 0u64;
        let v: Vec<_> = self
            .core_throttles
            .iter()
            .filter_map(|t| {
                let n = Self::read_int(&t.file, buf)?;
                throttle_total += n.max(0) as u64;
                Some((
                    lbl(&[("core", t.core.clone()), ("package", t.package.clone())]),
                    n as f64,
                ))
            })
            .collect();
        o.family(
            "node_cpu_core_throttles_total",
            "counter",
            "Number of times this CPU core has been throttled.",
            &v,
        );
        let v: Vec<_> = self
            .package_throttles
            .iter()
            .filter_map(|(p, f)| {
                let n = Self::read_int(f, buf)?;
                throttle_total += n.max(0) as u64;
                Some((lbl(&[("package", p.clone())]), n as f64))
            })
            .collect();
        o.family(
            "node_cpu_package_throttles_total",
            "counter",
            "Number of times this CPU package has been throttled.",
            &v,
        );

        // node_exporter's cpu, loadavg, meminfo, pressure and cpufreq-limit families.
        self.node.write(&mut o, buf);

        let mut v = Vec::new();
        for (p, f) in &self.policies {
            let Ok(text) = crate::reader::pread_all(f, buf) else {
                continue;
            };
            for (khz, ticks) in time_in_state(&String::from_utf8_lossy(text)) {
                v.push((
                    lbl(&[
                        ("policy", p.to_string()),
                        ("freq_mhz", format!("{}", (khz + 500) / 1000)),
                    ]),
                    // USER_HZ ticks (10 ms), not milliseconds.
                    ticks as f64 / 100.0,
                ));
            }
        }
        o.family(
            "truebench_cpufreq_time_in_state_seconds_total",
            "counter",
            "Time spent at each cpufreq OPP (stats/time_in_state, 10 ms ticks).",
            &v,
        );
        if let Some(t) = s.soc_temp_c {
            let name = self.reader.header().soc_sensor.clone().unwrap_or_default();
            o.family(
                "truebench_soc_temperature_celsius",
                "gauge",
                "The SoC temperature from the sensor truebench chose (see truebench info).",
                &[(lbl(&[("sensor", name)]), t)],
            );
        }
        let v: Vec<_> = self
            .clusters
            .iter()
            .enumerate()
            .filter_map(|(i, (cpus, core))| {
                let mhz = s.cluster_mhz.get(i).copied().flatten()?;
                Some((
                    lbl(&[
                        ("cluster", i.to_string()),
                        ("cpus", cpus.clone()),
                        ("core_type", core.clone()),
                    ]),
                    mhz as f64 * 1e6,
                ))
            })
            .collect();
        o.family(
            "truebench_cluster_frequency_hertz",
            "gauge",
            "Current clock of each CPU cluster as the kernel reports it.",
            &v,
        );
        let v: Vec<_> = self
            .clusters
            .iter()
            .enumerate()
            .filter_map(|(i, (cpus, _))| {
                let mhz = s.measured_mhz.get(i).copied().flatten()?;
                Some((
                    lbl(&[("cluster", i.to_string()), ("cpus", cpus.clone())]),
                    mhz * 1e6,
                ))
            })
            .collect();
        o.family(
            "truebench_cluster_measured_frequency_hertz",
            "gauge",
            "Clock each busy cluster really ran at, from cycle counters.",
            &v,
        );
        if let Some(n) = s.cpus_online {
            o.family(
                "truebench_cpus_online",
                "gauge",
                "CPUs online (sys/devices/system/cpu/online).",
                &[(vec![], n as f64)],
            );
        }
        if let Some(w) = s.rapl_watts {
            o.family(
                "truebench_rapl_package_watts",
                "gauge",
                "RAPL package power since the previous scrape.",
                &[(vec![], w)],
            );
        }

        let rpi = s.rpi;
        if let Some(r) = rpi {
            if let Some(bits) = r.throttled {
                let v: Vec<_> = THROTTLED_BITS
                    .iter()
                    .map(|(b, m)| {
                        (
                            lbl(&[("bit", b.to_string()), ("meaning", m.to_string())]),
                            ((bits >> b) & 1) as f64,
                        )
                    })
                    .collect();
                o.family(
                    "truebench_rpi_throttled_bit",
                    "gauge",
                    "Raspberry Pi firmware get_throttled bits (official meanings).",
                    &v,
                );
            }
            for (name, help, val) in [
                (
                    "truebench_rpi_arm_frequency_hertz",
                    "ARM clock the Raspberry Pi firmware runs (measure_clock arm).",
                    r.arm_mhz.map(|m| m * 1e6),
                ),
                (
                    "truebench_rpi_core_volts",
                    "Core voltage (measure_volts core).",
                    r.core_volts,
                ),
                (
                    "truebench_rpi_pmic_watts",
                    "Raspberry Pi 5 PMIC power over all rails (pmic_read_adc).",
                    r.pmic_watts,
                ),
            ] {
                if let Some(x) = val {
                    o.family(name, "gauge", help, &[(vec![], x)]);
                }
            }
        }

        // Findings that need no before/after run: what is wrong right now.
        let bits = rpi.and_then(|r| r.throttled).unwrap_or(0);
        let throttling_now =
            bits & 0b1100 != 0 || self.last_throttle_total.is_some_and(|l| throttle_total > l);
        let swap_used = s.swap_used_kb;
        let swapping = matches!((self.last_swap_used, swap_used), (Some(a), Some(b)) if b > a);
        let killed =
            matches!((self.cpus_online_at_start, s.cpus_online), (Some(a), Some(b)) if b < a);
        let findings = [
            ("throttling", throttling_now),
            ("frequency_capping", bits & 0b10 != 0),
            ("undervoltage", bits & 0b1 != 0),
            ("killed_cores", killed),
            ("swapping", swapping),
        ];
        self.last_throttle_total = Some(throttle_total);
        self.last_swap_used = swap_used;
        let v: Vec<_> = findings
            .iter()
            .map(|(k, on)| (lbl(&[("kind", k.to_string())]), if *on { 1.0 } else { 0.0 }))
            .collect();
        o.family(
            "truebench_finding_active",
            "gauge",
            "1 while a problem is visible now or since the previous scrape (throttle bits or counters, under-voltage, CPUs gone offline, swap growing).",
            &v,
        );
        if let Some(extra) = self.extra.as_mut() {
            for f in extra() {
                o.extra(&f);
            }
        }
        if om {
            o.s.push_str("# EOF\n");
        }
        o.s
    }

    /// Add families from elsewhere to every scrape (called once per scrape).
    pub fn with_extra(mut self, extra: ExtraFamilies) -> Exporter {
        self.extra = Some(extra);
        self
    }
}

pub mod http;
mod node;
pub use http::*;

#[cfg(test)]
mod tests {
    use super::http::find_head_end;
    use super::*;

    #[test]
    fn requests() {
        assert_eq!(
            parse_request(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"),
            Request::Metrics {
                openmetrics: false,
                head_only: false
            }
        );
        assert_eq!(
            parse_request(b"GET /metrics?x=1 HTTP/1.1\r\naccept: application/openmetrics-text;version=1.0.0,text/plain;q=0.5\r\n\r\n"),
            Request::Metrics {
                openmetrics: true,
                head_only: false
            }
        );
        assert_eq!(parse_request(b"GET / HTTP/1.1\r\n\r\n"), Request::NotFound);
        assert_eq!(
            parse_request(b"POST /metrics HTTP/1.1\r\n\r\n"),
            Request::BadMethod
        );
        assert_eq!(parse_request(b"garbage\r\n\r\n"), Request::Bad);
        assert_eq!(find_head_end(b"GET / HTTP/1.1\r\n\r\nrest"), Some(18));
    }

    #[test]
    fn counters_lose_total_in_openmetrics_family_names() {
        let mut o = Out {
            s: String::new(),
            om: true,
        };
        o.family(
            "x_throttles_total",
            "counter",
            "h",
            &[(lbl(&[("core", "0".into())]), 3.0)],
        );
        assert_eq!(
            o.s,
            "# HELP x_throttles h\n# TYPE x_throttles counter\nx_throttles_total{core=\"0\"} 3\n"
        );
        let mut o = Out {
            s: String::new(),
            om: false,
        };
        o.family("x_throttles_total", "counter", "h", &[(vec![], 3.0)]);
        assert!(o.s.contains("# TYPE x_throttles_total counter\n"));
        o.family("empty", "gauge", "h", &[]);
        assert!(!o.s.contains("empty"));
        assert_eq!(esc("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
