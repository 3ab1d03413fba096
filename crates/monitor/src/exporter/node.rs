//! The families a node_exporter user expects, with node_exporter's names, labels, types and
//! help texts where the quantity is the same (its `cpu`, `loadavg`, `meminfo`, `pressure`
//! and `cpufreq` collectors): dashboards and alerts written for node_exporter work unchanged.
//! Families with nothing to report (no PSI, no cpufreq) are left out, as node_exporter does.

use super::{lbl, Out};
use crate::reader::{parse_i64, pread_all};
use std::fs::File;
use truebench_host::parse::{loadavg, pressure, stat};
use truebench_host::{Host, Inventory};

/// USER_HZ: /proc/stat counts in 1/100 s on every architecture Linux exports it for.
const USER_HZ: f64 = 100.0;

struct CpuLimits {
    id: u32,
    scaling_min: Option<File>,
    scaling_max: Option<File>,
    cpuinfo_min: Option<File>,
    cpuinfo_max: Option<File>,
}

/// The files, opened once.
pub(super) struct NodeFiles {
    stat: Option<File>,
    loadavg: Option<File>,
    meminfo: Option<File>,
    /// (resource, file) for cpu, io, memory.
    pressure: Vec<(&'static str, File)>,
    limits: Vec<CpuLimits>,
}

impl NodeFiles {
    pub(super) fn open(host: &Host, inv: &Inventory) -> NodeFiles {
        let open = |rel: String| host.open(rel).ok();
        NodeFiles {
            stat: open("proc/stat".into()),
            loadavg: open("proc/loadavg".into()),
            meminfo: open("proc/meminfo".into()),
            pressure: ["cpu", "io", "memory"]
                .into_iter()
                .filter_map(|r| Some((r, open(format!("proc/pressure/{r}"))?)))
                .collect(),
            limits: inv
                .cpus
                .iter()
                .map(|c| {
                    let d = format!("sys/devices/system/cpu/cpu{}/cpufreq", c.id);
                    CpuLimits {
                        id: c.id,
                        scaling_min: open(format!("{d}/scaling_min_freq")),
                        scaling_max: open(format!("{d}/scaling_max_freq")),
                        cpuinfo_min: open(format!("{d}/cpuinfo_min_freq")),
                        cpuinfo_max: open(format!("{d}/cpuinfo_max_freq")),
                    }
                })
                .collect(),
        }
    }

    pub(super) fn write(&self, o: &mut Out, buf: &mut [u8]) {
        self.cpu_seconds(o, buf);
        self.load(o, buf);
        self.memory(o, buf);
        self.pressure(o, buf);
        self.limits(o, buf);
    }

    fn text<'b>(f: &Option<File>, buf: &'b mut [u8]) -> Option<&'b str> {
        let b = pread_all(f.as_ref()?, buf).ok()?;
        std::str::from_utf8(b).ok()
    }

    fn cpu_seconds(&self, o: &mut Out, buf: &mut [u8]) {
        let Some(st) = Self::text(&self.stat, buf).map(stat::parse) else {
            return;
        };
        let mut v = Vec::with_capacity(st.cpus.len() * 8);
        let mut g = Vec::new();
        for (cpu, t) in &st.cpus {
            for (mode, ticks) in [
                ("idle", t.idle),
                ("iowait", t.iowait),
                ("irq", t.irq),
                ("nice", t.nice),
                ("softirq", t.softirq),
                ("steal", t.steal),
                ("system", t.system),
                ("user", t.user),
            ] {
                v.push((
                    lbl(&[("cpu", cpu.to_string()), ("mode", mode.into())]),
                    ticks as f64 / USER_HZ,
                ));
            }
            for (mode, ticks) in [("nice", t.guest_nice), ("user", t.guest)] {
                g.push((
                    lbl(&[("cpu", cpu.to_string()), ("mode", mode.into())]),
                    ticks as f64 / USER_HZ,
                ));
            }
        }
        o.family(
            "node_cpu_seconds_total",
            "counter",
            "Seconds the CPUs spent in each mode.",
            &v,
        );
        o.family(
            "node_cpu_guest_seconds_total",
            "counter",
            "Seconds the CPUs spent in guests (VMs) for each mode.",
            &g,
        );
    }

    fn load(&self, o: &mut Out, buf: &mut [u8]) {
        let Some(l) = Self::text(&self.loadavg, buf).and_then(loadavg) else {
            return;
        };
        for (name, help, x) in [
            ("node_load1", "1m load average.", l[0]),
            ("node_load5", "5m load average.", l[1]),
            ("node_load15", "15m load average.", l[2]),
        ] {
            o.family(name, "gauge", help, &[(vec![], x)]);
        }
    }

    fn memory(&self, o: &mut Out, buf: &mut [u8]) {
        let Some(text) = Self::text(&self.meminfo, buf) else {
            return;
        };
        for (name, value) in meminfo_fields(text) {
            o.family(
                &format!("node_memory_{name}"),
                "gauge",
                &format!("Memory information field {name}."),
                &[(vec![], value)],
            );
        }
    }

    fn pressure(&self, o: &mut Out, buf: &mut [u8]) {
        for (res, f) in &self.pressure {
            let Ok(b) = pread_all(f, buf) else { continue };
            let p = pressure::parse(b);
            let secs = |l: Option<pressure::PsiLine>| l.map(|l| l.total_us as f64 / 1e6);
            let (waiting, stalled) = match *res {
                "cpu" => (
                    "Total time in seconds that processes have waited for CPU time",
                    None,
                ),
                "io" => (
                    "Total time in seconds that processes have waited due to IO congestion",
                    Some("Total time in seconds no process could make progress due to IO congestion"),
                ),
                _ => (
                    "Total time in seconds that processes have waited for memory",
                    Some("Total time in seconds no process could make progress due to memory congestion"),
                ),
            };
            if let Some(x) = secs(p.some) {
                o.family(
                    &format!("node_pressure_{res}_waiting_seconds_total"),
                    "counter",
                    waiting,
                    &[(vec![], x)],
                );
            }
            if let (Some(help), Some(x)) = (stalled, secs(p.full)) {
                o.family(
                    &format!("node_pressure_{res}_stalled_seconds_total"),
                    "counter",
                    help,
                    &[(vec![], x)],
                );
            }
        }
    }

    fn limits(&self, o: &mut Out, buf: &mut [u8]) {
        let read = |f: &Option<File>, buf: &mut [u8]| {
            f.as_ref()
                .and_then(|f| pread_all(f, &mut buf[..64]).ok().and_then(parse_i64))
        };
        type Pick = fn(&CpuLimits) -> &Option<File>;
        let families: [(&str, &str, Pick); 4] = [
            (
                "node_cpu_frequency_max_hertz",
                "Maximum CPU thread frequency in hertz.",
                |c| &c.cpuinfo_max,
            ),
            (
                "node_cpu_frequency_min_hertz",
                "Minimum CPU thread frequency in hertz.",
                |c| &c.cpuinfo_min,
            ),
            (
                "node_cpu_scaling_frequency_max_hertz",
                "Maximum scaled CPU thread frequency in hertz.",
                |c| &c.scaling_max,
            ),
            (
                "node_cpu_scaling_frequency_min_hertz",
                "Minimum scaled CPU thread frequency in hertz.",
                |c| &c.scaling_min,
            ),
        ];
        for (name, help, pick) in families {
            let v: Vec<_> = self
                .limits
                .iter()
                .filter_map(|c| {
                    let khz = read(pick(c), buf)?;
                    Some((lbl(&[("cpu", c.id.to_string())]), khz as f64 * 1000.0))
                })
                .collect();
            o.family(name, "gauge", help, &v);
        }
    }
}

/// `/proc/meminfo` as node_exporter names it: `Active(anon)` → `Active_anon`; kB values in
/// bytes with `_bytes` appended; unitless counters (`HugePages_Total`) as they are.
pub fn meminfo_fields(text: &str) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((k, rest)) = line.split_once(':') else {
            continue;
        };
        let mut it = rest.split_whitespace();
        let Some(n) = it.next().and_then(|n| n.parse::<f64>().ok()) else {
            continue;
        };
        let name: String = k
            .trim()
            .replace('(', "_")
            .replace(')', "")
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        match it.next() {
            Some("kB") => out.push((format!("{name}_bytes"), n * 1024.0)),
            _ => out.push((name, n)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_names_follow_node_exporter() {
        let m = meminfo_fields(
            "MemTotal:       16384 kB\nActive(anon):    4 kB\nHugePages_Total:       2\nbogus\nX: y kB\n",
        );
        assert_eq!(
            m,
            [
                ("MemTotal_bytes".to_string(), 16384.0 * 1024.0),
                ("Active_anon_bytes".to_string(), 4096.0),
                ("HugePages_Total".to_string(), 2.0),
            ]
        );
    }
}
