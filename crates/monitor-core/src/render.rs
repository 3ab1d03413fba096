//! sbc-bench's monitoring lines, column for column (pure functions).
//!
//! ```text
//! Time       big.LITTLE   load %cpu %sys %usr %nice %io %irq   Temp
//! 23:46:41: 2600/2200MHz  2.39  13%   3%   9%   0%   0%   0%  37.0°C
//! ```
//! The layout follows sbc-bench's `MonitorBoard` printf formats: clock columns `%4s`, load
//! `%5s`, `%cpu` `%3s%` and the rest `%4s%` (integer percentages, truncated as bash's integer
//! division does), temperature `%8s` counted in bytes (bash's printf pads bytes, and `°` is
//! two of them). Header variants: one cluster `CPU`; two `big.LITTLE` (big first: higher
//! maximum clock); three or more `cpu0/cpu4/cpu6`; Raspberry Pi `fake/real` (cpufreq's idea
//! vs the firmware's real clock) plus `VCore` (and `PMIC`, `DC(V)` on a Pi 5); no cpufreq
//! `CPU n/a`. Missing values print as sbc-bench prints empty shell variables: blanks.
//! Unlike sbc-bench no trailing blanks are printed for empty optional columns.

use std::fmt::Write;
use truebench_host::Inventory;
use truebench_model::timeline::Sample;

/// What one clock column shows.
#[derive(Debug, Clone, PartialEq)]
pub enum Clocks {
    /// No cpufreq: `n/a MHz`.
    None,
    /// One cluster (index into `Sample::cluster_mhz`).
    Single(usize),
    /// Two clusters, big first.
    BigLittle { big: usize, little: usize },
    /// Three or more clusters in CPU order, each named by its first CPU.
    Multi(Vec<(usize, u32)>),
    /// Raspberry Pi: cpufreq of `cluster` vs `vcgencmd measure_clock arm`; `pmic` = Pi 5
    /// PMIC columns.
    Rpi { cluster: usize, pmic: bool },
}

/// The shape of one cluster, as far as the header needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterShape {
    pub id: usize,
    pub first_cpu: u32,
    pub max_mhz: Option<u32>,
    /// Whether the sampler reads a current clock for it.
    pub has_clock: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub clocks: Clocks,
    header: String,
}

const STATS_HEADER: &str = "load %cpu %sys %usr %nice %io %irq   Temp";

impl Layout {
    /// Layout for a machine. `rpi` = Some(pmic) when Raspberry Pi firmware readings exist.
    pub fn new(inv: &Inventory, rpi: Option<bool>) -> Layout {
        let shapes: Vec<ClusterShape> = inv
            .clusters
            .iter()
            .map(|c| ClusterShape {
                id: c.id,
                first_cpu: c.cpus.first().copied().unwrap_or(0),
                max_mhz: c.max_mhz,
                has_clock: c.cur_freq_file.is_some(),
            })
            .collect();
        Layout::from_shapes(&shapes, rpi)
    }

    pub fn from_shapes(clusters: &[ClusterShape], rpi: Option<bool>) -> Layout {
        let with: Vec<&ClusterShape> = clusters.iter().filter(|c| c.has_clock).collect();
        let clocks = match (rpi, with.len()) {
            (Some(pmic), _) => Clocks::Rpi {
                cluster: with.first().map_or(0, |c| c.id),
                pmic,
            },
            (None, 0) => Clocks::None,
            (None, 1) => Clocks::Single(with[0].id),
            (None, 2) => {
                // sbc-bench: the last cluster is big unless the first has the higher maximum.
                let (a, b) = (with[0], with[1]);
                if a.max_mhz.unwrap_or(0) > b.max_mhz.unwrap_or(0) {
                    Clocks::BigLittle {
                        big: a.id,
                        little: b.id,
                    }
                } else {
                    Clocks::BigLittle {
                        big: b.id,
                        little: a.id,
                    }
                }
            }
            (None, _) => Clocks::Multi(with.iter().map(|c| (c.id, c.first_cpu)).collect()),
        };
        let header = match &clocks {
            Clocks::None => format!("Time      CPU n/a    {STATS_HEADER}"),
            Clocks::Single(_) => format!("Time        CPU    {STATS_HEADER}"),
            Clocks::BigLittle { .. } => format!("Time       big.LITTLE   {STATS_HEADER}"),
            Clocks::Multi(v) => format!(
                "Time       {}    {STATS_HEADER}",
                v.iter()
                    .map(|(_, cpu)| format!("cpu{cpu}"))
                    .collect::<Vec<_>>()
                    .join("/")
            ),
            Clocks::Rpi { pmic: false, .. } => {
                format!("Time        fake/real   {STATS_HEADER}    VCore")
            }
            Clocks::Rpi { pmic: true, .. } => {
                format!("Time        fake/real   {STATS_HEADER}    VCore    PMIC   DC(V)")
            }
        };
        Layout { clocks, header }
    }

    pub fn header(&self) -> &str {
        &self.header
    }

    /// The line for a sample, timed by its wall clock in local time.
    pub fn line(&self, s: &Sample) -> String {
        self.line_at(&hms_local(s.unix_ms), s)
    }

    /// The line for a sample with the time column given (`HH:MM:SS`).
    pub fn line_at(&self, hms: &str, s: &Sample) -> String {
        let mut o = String::with_capacity(96);
        let _ = write!(o, "{hms}: ");
        let mhz = |i: usize| -> String {
            s.cluster_mhz
                .get(i)
                .copied()
                .flatten()
                .map_or(String::new(), |v| v.to_string())
        };
        let load = s.load1.map_or(String::new(), |l| format!("{l:.2}"));
        match &self.clocks {
            Clocks::None => {
                let _ = write!(o, "n/a MHz {load:>7} ");
            }
            Clocks::Single(i) => {
                let _ = write!(o, "{:>4}MHz {load:>5} ", mhz(*i));
            }
            Clocks::BigLittle { big, little } => {
                let _ = write!(o, "{:>4}/{:>4}MHz {load:>5} ", mhz(*big), mhz(*little));
            }
            Clocks::Multi(v) => {
                let cols: Vec<String> = v.iter().map(|(i, _)| format!("{:>4}", mhz(*i))).collect();
                let _ = write!(o, "{}MHz {load:>5} ", cols.join("/"));
            }
            Clocks::Rpi { cluster, .. } => {
                let real = s
                    .rpi
                    .and_then(|r| r.arm_mhz)
                    .map_or(String::new(), |m| format!("{:.0}", m));
                let _ = write!(o, "{:>4}/{real:>4}MHz {load:>5} ", mhz(*cluster));
            }
        }
        o.push_str(&proc_stats(s));
        let temp = s.soc_temp_c.map_or(String::new(), |t| format!("{t:.1}"));
        o.push(' ');
        o.push_str(&pad_bytes(&format!("{temp}°C"), 8));
        if let Clocks::Rpi { pmic, .. } = self.clocks {
            let r = s.rpi.unwrap_or_default();
            let vcore = r.core_volts.map_or(String::new(), |v| format!("{v:.4}V"));
            let _ = write!(o, " {vcore:>8}");
            if pmic {
                let w = r.pmic_watts.map_or(String::new(), |w| format!("{w:.1}W"));
                let dc = r.input_volts.map_or(String::new(), |v| format!("{v:.2}V"));
                let _ = write!(o, " {w:>6} {dc:>7}");
            }
        }
        let end = o.trim_end().len();
        o.truncate(end);
        o
    }
}

/// Integer percentage as bash computes it (`x * 100 / total`, truncated). The epsilon keeps
/// 25.0 computed as 24.999… from printing 24.
fn pct(v: f64) -> i64 {
    (v.max(0.0) + 1e-6).floor() as i64
}

/// `%cpu %sys %usr %nice %io %irq` as ` 13%   3%   9%   0%   0%   0%`.
fn proc_stats(s: &Sample) -> String {
    match s.cpu {
        Some(c) => format!(
            "{:>3}%{:>4}%{:>4}%{:>4}%{:>4}%{:>4}%",
            pct(c.cpu),
            pct(c.sys),
            pct(c.usr),
            pct(c.nice),
            pct(c.io),
            pct(c.irq)
        ),
        None => format!(
            "{:>3}%{:>4}%{:>4}%{:>4}%{:>4}%{:>4}%",
            "", "", "", "", "", ""
        ),
    }
}

/// Right-align to `width` bytes, as bash's printf does with multi-byte text.
fn pad_bytes(s: &str, width: usize) -> String {
    let pad = width.saturating_sub(s.len());
    format!("{}{s}", " ".repeat(pad))
}

/// `unix_ms` in local time (libc's time-zone handling; rustix has no localtime_r).
#[allow(deprecated)] // libc::time_t on 32-bit musl: 32 bits until libc follows musl 1.2
pub fn local_tm(unix_ms: i64) -> Option<libc::tm> {
    let secs = unix_ms.div_euclid(1000) as libc::time_t;
    // SAFETY: localtime_r writes into the tm we pass and reads only `secs`.
    unsafe {
        let mut tm: libc::tm = std::mem::zeroed();
        (!libc::localtime_r(&secs, &mut tm).is_null()).then_some(tm)
    }
}

/// `HH:MM:SS` in local time.
pub fn hms_local(unix_ms: i64) -> String {
    match local_tm(unix_ms) {
        Some(tm) => format!("{:02}:{:02}:{:02}", tm.tm_hour, tm.tm_min, tm.tm_sec),
        None => "??:??:??".into(),
    }
}

/// Live printing: the header first, then again (after an empty line) every 15 lines,
/// exactly as sbc-bench's monitor mode does on a terminal.
pub struct Table {
    pub layout: Layout,
    count: u32,
    started: bool,
}

impl Table {
    pub fn new(layout: Layout) -> Table {
        Table {
            layout,
            count: 0,
            started: false,
        }
    }

    /// The text to print for the next sample (one line, or header + line).
    pub fn next(&mut self, s: &Sample) -> String {
        self.next_at(&hms_local(s.unix_ms), s)
    }

    pub fn next_at(&mut self, hms: &str, s: &Sample) -> String {
        let mut o = String::new();
        if !self.started {
            self.started = true;
            o.push_str(self.layout.header());
            o.push('\n');
        }
        // sbc-bench counts before printing and repeats the header when the count reaches 15.
        self.count += 1;
        if self.count == 15 {
            o.push('\n');
            o.push_str(self.layout.header());
            o.push('\n');
            self.count = 0;
        }
        o.push_str(&self.layout.line_at(hms, s));
        o.push('\n');
        o
    }
}

/// A whole monitoring section as in sbc-bench's logs (`System health while running …`): one
/// header, then every sample.
pub fn table(layout: &Layout, samples: &[Sample]) -> String {
    let mut o = String::new();
    o.push_str(layout.header());
    o.push('\n');
    for s in samples {
        o.push_str(&layout.line(s));
        o.push('\n');
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use truebench_model::timeline::CpuPct;

    fn shape(id: usize, first_cpu: u32, max: u32) -> ClusterShape {
        ClusterShape {
            id,
            first_cpu,
            max_mhz: Some(max),
            has_clock: true,
        }
    }

    #[test]
    fn big_is_the_cluster_with_the_higher_maximum() {
        let l = Layout::from_shapes(&[shape(0, 0, 1800), shape(1, 4, 2400)], None);
        assert_eq!(l.clocks, Clocks::BigLittle { big: 1, little: 0 });
        let l = Layout::from_shapes(&[shape(0, 0, 2400), shape(1, 4, 1800)], None);
        assert_eq!(l.clocks, Clocks::BigLittle { big: 0, little: 1 });
        // Equal maxima: sbc-bench names the last cluster first.
        let l = Layout::from_shapes(&[shape(0, 0, 1800), shape(1, 4, 1800)], None);
        assert_eq!(l.clocks, Clocks::BigLittle { big: 1, little: 0 });
    }

    #[test]
    fn clusters_without_a_clock_are_left_out() {
        let mut b = shape(1, 4, 2400);
        b.has_clock = false;
        let l = Layout::from_shapes(&[shape(0, 0, 1800), b], None);
        assert_eq!(l.clocks, Clocks::Single(0));
        assert_eq!(Layout::from_shapes(&[], None).clocks, Clocks::None);
    }

    #[test]
    fn header_repeats_every_15_lines_like_sbc_bench() {
        let mut t = Table::new(Layout::from_shapes(&[shape(0, 0, 1800)], None));
        let s = Sample {
            cluster_mhz: vec![Some(1800)],
            cpu: Some(CpuPct::default()),
            ..Default::default()
        };
        let out: String = (0..40).map(|_| t.next_at("00:00:00", &s)).collect();
        let lines: Vec<&str> = out.lines().collect();
        let headers: Vec<usize> = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.starts_with("Time"))
            .map(|(i, _)| i)
            .collect();
        // header, 14 lines, blank + header, 15 lines, blank + header, …
        assert_eq!(headers, [0, 16, 33]);
        assert_eq!(lines[15], "");
        assert_eq!(lines.iter().filter(|l| l.starts_with("00:")).count(), 40);
    }

    #[test]
    fn percentages_truncate_like_bash() {
        assert_eq!(pct(12.99), 12);
        assert_eq!(pct(24.999_999_9), 25);
        assert_eq!(pct(-0.0), 0);
        assert_eq!(pad_bytes("37.0°C", 8), " 37.0°C");
        assert_eq!(pad_bytes("°C", 8), "     °C");
        assert_eq!(pad_bytes("103.1°C", 8), "103.1°C");
    }

    #[test]
    fn a_sample_without_anything_is_blank_not_a_panic() {
        let l = Layout::from_shapes(
            &[shape(0, 0, 1800), shape(1, 4, 2400), shape(2, 6, 2400)],
            Some(true),
        );
        let line = l.line_at("12:00:00", &Sample::default());
        assert!(line.starts_with("12:00:00:     /    MHz"), "{line}");
        let l = Layout::from_shapes(
            &[shape(0, 0, 1800), shape(1, 4, 2400), shape(2, 6, 2400)],
            None,
        );
        assert_eq!(
            l.header(),
            "Time       cpu0/cpu4/cpu6    load %cpu %sys %usr %nice %io %irq   Temp"
        );
        let line = l.line_at("12:00:00", &Sample::default());
        assert_eq!(
            line,
            "12:00:00:     /    /    MHz          %    %    %    %    %    %      °C"
        );
    }
}
