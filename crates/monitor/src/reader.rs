//! `SampleReader`: one `Sample` per call, from files opened once and re-read in place.
//!
//! Cost is the point: sbc-bench forks ~15 processes per monitoring line; here a sample is a
//! handful of `pread(2)` calls into buffers allocated at construction, parsed without
//! allocating (`sample_into` allocates nothing in steady state; see tests/alloc.rs).
//!
//! ## Slow files
//! Most files the sampler reads are served from kernel memory (procfs counters, cached
//! `scaling_cur_freq`, thermal zones fed by the SoC's sensor registers) and return in
//! microseconds. Some ask hardware or firmware each time: `cpuinfo_cur_freq` (a CPPC mailbox
//! or SCMI message on servers and new ARM SoCs — known to take seconds or hang), hwmon chips
//! (I2C/PMBus transfers, NVMe admin commands) and ACPI thermal zones (AML evaluation through
//! the embedded controller). A read cannot be cancelled, so those files are read by a helper
//! thread: the sampler posts a request and waits at most a deadline (half the interval,
//! capped at 250 ms). A file whose read outlives the deadline yields `None` for that sample and
//! is disabled for the rest of the run (listed by `disabled()`), so one hanging file costs one
//! late sample, not a stalled timeline. Fast files are read inline, which keeps the common
//! case free of thread hand-offs (two futex wakes per sample only when slow files exist).

use crate::effective::{self, Effective};
use crate::timeline::{CpuPct, RpiSample, Sample, TimelineHeader};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use truebench_host::parse::stat::CpuTimes;
use truebench_host::{Host, Inventory};

/// Where a value read from a file goes in the `Sample`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Target {
    ClusterMhz(usize),
    Temp(usize),
    Electrical(usize),
}

/// One integer file and how to turn it into the sample's unit.
#[derive(Debug)]
struct Slot {
    rel: String,
    target: Target,
    /// Divisor from the file's integer to the sample's unit (kHz→MHz, m°C→°C, µW→W); a
    /// division by a power of ten is exact where a multiplication by 1e-3 is not.
    div: f64,
}

/// Read a whole small file at offset 0 into `buf` (reused); returns the bytes read.
/// procfs seq_files and sysfs attributes regenerate their content on a read at offset 0, so
/// no seek and no reopen is needed. A short read is the end: procfs and sysfs fill the
/// buffer as far as the content goes in one call, and asking again at an offset would make
/// a seq_file generate the whole file a second time (/proc/stat sums every CPU's counters).
pub(crate) fn pread_all<'a>(f: &File, buf: &'a mut [u8]) -> std::io::Result<&'a [u8]> {
    let mut n = 0;
    while n < buf.len() {
        match f.read_at(&mut buf[n..], n as u64) {
            Ok(0) => break,
            Ok(k) if k < buf.len() - n => {
                n += k;
                break;
            }
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(&buf[..n])
}

/// Leading (optionally negative) integer of a sysfs value, ignoring surrounding whitespace.
pub(crate) fn parse_i64(b: &[u8]) -> Option<i64> {
    let b = b.trim_ascii();
    let (neg, digits) = match b.first()? {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((c - b'0') as i64)?;
    }
    Some(if neg { -v } else { v })
}

/// Unsigned decimal token parser over whitespace-separated fields, without allocating.
pub(crate) fn next_u64(it: &mut std::slice::Split<'_, u8, impl FnMut(&u8) -> bool>) -> Option<u64> {
    for tok in it.by_ref() {
        if tok.is_empty() {
            continue;
        }
        let mut v: u64 = 0;
        for &c in tok {
            if !c.is_ascii_digit() {
                return None;
            }
            v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
        }
        return Some(v);
    }
    None
}

/// The times of one `cpu…` line of /proc/stat (the part after the label).
pub(crate) fn parse_cpu_fields(rest: &[u8]) -> Option<CpuTimes> {
    let mut it = rest.split(|c: &u8| *c == b' ' || *c == b'\t');
    let mut n = [0u64; 10];
    let mut got = 0;
    for slot in n.iter_mut() {
        match next_u64(&mut it) {
            Some(v) => {
                *slot = v;
                got += 1;
            }
            None => break,
        }
    }
    (got >= 4).then_some(CpuTimes {
        user: n[0],
        nice: n[1],
        system: n[2],
        idle: n[3],
        iowait: n[4],
        irq: n[5],
        softirq: n[6],
        steal: n[7],
        guest: n[8],
        guest_nice: n[9],
    })
}

/// The aggregate `cpu ` line of /proc/stat, and optionally every `cpuN` line into `per_cpu`
/// (indexed by N; `None` for CPUs without a line, i.e. offline).
pub(crate) fn parse_stat(
    text: &[u8],
    per_cpu: Option<&mut Vec<Option<CpuTimes>>>,
) -> Option<CpuTimes> {
    let mut total = None;
    let mut per = per_cpu;
    if let Some(p) = per.as_deref_mut() {
        p.iter_mut().for_each(|x| *x = None);
    }
    for line in text.split(|&c| c == b'\n') {
        let Some(rest) = line.strip_prefix(b"cpu") else {
            // cpu lines come first; stop at `intr` (which can be kilobytes long).
            break;
        };
        if rest.first() == Some(&b' ') {
            total = parse_cpu_fields(rest);
            if per.is_none() {
                break;
            }
        } else if let Some(p) = per.as_deref_mut() {
            let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
            let Some(id) = std::str::from_utf8(&rest[..digits])
                .ok()
                .and_then(|s| s.parse::<usize>().ok())
            else {
                continue;
            };
            if let Some(slot) = p.get_mut(id) {
                *slot = parse_cpu_fields(&rest[digits..]);
            }
        }
    }
    total
}

/// %-split between two /proc/stat readings, or None when no time passed.
pub fn cpu_pct(now: &CpuTimes, before: &CpuTimes) -> Option<CpuPct> {
    let d = now.delta(before);
    let total = d.total();
    if total == 0 {
        return None;
    }
    let p = |v: u64| v as f64 * 100.0 / total as f64;
    Some(CpuPct {
        cpu: p(d.busy()),
        sys: p(d.system),
        usr: p(d.user),
        nice: p(d.nice),
        io: p(d.iowait),
        irq: p(d.irq.saturating_add(d.softirq)),
        steal: p(d.steal),
    })
}

/// Number of CPUs in a kernel cpulist (`0-3,6`), without allocating.
pub(crate) fn count_cpulist(b: &[u8]) -> Option<u32> {
    let b = b.trim_ascii();
    if b.is_empty() {
        return Some(0);
    }
    let mut n: u32 = 0;
    for part in b.split(|&c| c == b',') {
        let part = part.trim_ascii();
        let num = |s: &[u8]| -> Option<u32> {
            let v = parse_i64(s)?;
            u32::try_from(v).ok()
        };
        match part.iter().position(|&c| c == b'-') {
            Some(i) => {
                let (a, z) = (num(&part[..i])?, num(&part[i + 1..])?);
                n += z.checked_sub(a)? + 1;
            }
            None => {
                num(part)?;
                n += 1;
            }
        }
    }
    Some(n)
}

/// `SwapTotal - SwapFree` in kB from /proc/meminfo text.
pub(crate) fn swap_used_kb(text: &[u8]) -> Option<u64> {
    let mut total = None;
    let mut free = None;
    for line in text.split(|&c| c == b'\n') {
        let field = |name: &[u8]| -> Option<u64> {
            let rest = line.strip_prefix(name)?;
            let mut it = rest.split(|c: &u8| *c == b' ' || *c == b'\t');
            next_u64(&mut it)
        };
        if let Some(v) = field(b"SwapTotal:") {
            total = Some(v);
        } else if let Some(v) = field(b"SwapFree:") {
            free = Some(v);
        }
        if total.is_some() && free.is_some() {
            break;
        }
    }
    Some(total?.saturating_sub(free?))
}

/// First field of /proc/loadavg.
pub(crate) fn load1(text: &[u8]) -> Option<f64> {
    let tok = text.split(|&c| c == b' ').next()?;
    std::str::from_utf8(tok).ok()?.trim().parse().ok()
}

/// Energy delta of a RAPL counter that wraps at `max_range` (`max_energy_range_uj`).
pub fn energy_delta_uj(before: u64, now: u64, max_range: Option<u64>) -> Option<u64> {
    if now >= before {
        Some(now - before)
    } else {
        // Wrapped: the counter ran up to max_range and restarted at 0. Without the range we
        // cannot tell a wrap from a reset.
        let m = max_range?;
        (before <= m).then(|| m - before + now)
    }
}

/// One RAPL package domain.
struct Rapl {
    file: File,
    max_range: Option<u64>,
    last: Option<u64>,
}

// ---------------------------------------------------------------------------------------
// Helper thread for slow files.

struct SlowState {
    /// Generation of the last request posted / completed.
    req: u64,
    done: u64,
    /// `(generation read in, value)` per slow slot.
    values: Vec<(u64, Option<i64>)>,
    disabled: Vec<bool>,
    /// The slot being read right now (to blame on a timeout).
    current: Option<usize>,
    stop: bool,
}

struct SlowShared {
    state: Mutex<SlowState>,
    request: Condvar,
    done: Condvar,
}

/// Reads a set of files on a helper thread, each at most once per `collect`, giving up on
/// (and disabling) a file whose read outlives the deadline.
pub(crate) struct SlowReader {
    shared: Arc<SlowShared>,
    /// Root-relative paths, for the report of disabled files.
    names: Vec<String>,
    pub(crate) timed_out: Vec<String>,
}

/// How the helper thread reads slot `i` (replaceable in tests to simulate a hanging file).
type ReadFn = fn(usize, &File, &mut [u8]) -> Option<i64>;

fn read_int(_: usize, f: &File, buf: &mut [u8]) -> Option<i64> {
    pread_all(f, buf).ok().and_then(parse_i64)
}

impl SlowReader {
    pub(crate) fn start(files: Vec<Option<File>>, names: Vec<String>) -> SlowReader {
        Self::start_with(files, names, read_int)
    }

    fn start_with(files: Vec<Option<File>>, names: Vec<String>, read: ReadFn) -> SlowReader {
        let n = names.len();
        let shared = Arc::new(SlowShared {
            state: Mutex::new(SlowState {
                req: 0,
                done: 0,
                values: vec![(0, None); n],
                disabled: files.iter().map(|f| f.is_none()).collect(),
                current: None,
                stop: false,
            }),
            request: Condvar::new(),
            done: Condvar::new(),
        });
        let sh = Arc::clone(&shared);
        // The thread is detached on drop: a read stuck in the kernel cannot be interrupted,
        // and joining it would move the hang to the caller.
        let _ = std::thread::Builder::new()
            .name("truebench-slowread".into())
            .spawn(move || slow_loop(sh, files, read));
        SlowReader {
            shared,
            names,
            timed_out: Vec::new(),
        }
    }

    /// Post a request and wait up to `deadline`; returns per-slot values of this round.
    pub(crate) fn collect(&mut self, deadline: Duration, out: &mut [Option<i64>]) {
        out.iter_mut().for_each(|v| *v = None);
        let mut st = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        if st.done < st.req {
            // Still stuck in the previous round: do not queue behind it.
            if let Some(i) = st.current {
                Self::blame(&mut st, &self.names, &mut self.timed_out, i);
            }
            return;
        }
        st.req += 1;
        let gen = st.req;
        self.shared.request.notify_one();
        let start = Instant::now();
        while st.done < gen {
            let left = deadline.saturating_sub(start.elapsed());
            if left.is_zero() {
                break;
            }
            st = self
                .shared
                .done
                .wait_timeout(st, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        if st.done < gen {
            if let Some(i) = st.current {
                Self::blame(&mut st, &self.names, &mut self.timed_out, i);
            }
        }
        for (o, (g, v)) in out.iter_mut().zip(st.values.iter()) {
            if *g == gen {
                *o = *v;
            }
        }
    }

    fn blame(st: &mut SlowState, names: &[String], timed_out: &mut Vec<String>, i: usize) {
        if !st.disabled[i] {
            st.disabled[i] = true;
            timed_out.push(format!("/{} (read timed out; disabled)", names[i]));
        }
    }
}

impl Drop for SlowReader {
    fn drop(&mut self) {
        let mut st = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        st.stop = true;
        self.shared.request.notify_one();
    }
}

fn slow_loop(sh: Arc<SlowShared>, files: Vec<Option<File>>, read: ReadFn) {
    let mut buf = [0u8; 64];
    let mut seen = 0u64;
    loop {
        let gen = {
            let mut st = sh.state.lock().unwrap_or_else(|e| e.into_inner());
            while st.req == seen && !st.stop {
                st = sh.request.wait(st).unwrap_or_else(|e| e.into_inner());
            }
            if st.stop {
                return;
            }
            st.req
        };
        seen = gen;
        for (i, f) in files.iter().enumerate() {
            let Some(f) = f else { continue };
            {
                let mut st = sh.state.lock().unwrap_or_else(|e| e.into_inner());
                if st.disabled[i] {
                    continue;
                }
                st.current = Some(i);
            }
            let v = read(i, f, &mut buf);
            let mut st = sh.state.lock().unwrap_or_else(|e| e.into_inner());
            st.values[i] = (gen, v);
            st.current = None;
        }
        let mut st = sh.state.lock().unwrap_or_else(|e| e.into_inner());
        st.done = gen;
        sh.done.notify_all();
    }
}

// ---------------------------------------------------------------------------------------

/// The file behind one temperature or electrical reading.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Origin {
    /// `thermal_zone<zone>` with its `type`.
    Zone {
        zone: String,
        kind: String,
    },
    Hwmon {
        /// node_exporter-style chip id (the device behind the chip, sanitised).
        chip: String,
        chip_name: String,
        /// `temp1`, `in0`…
        sensor: String,
        label: Option<String>,
    },
    Other(String),
}

/// node_exporter names a hwmon chip after the device it hangs off (`platform_coretemp_0`,
/// `0000:00:18_3`); without one, after the hwmon directory.
fn chip_id(chip: &truebench_host::inventory::HwmonChip) -> String {
    let raw = chip.device.as_deref().unwrap_or(&chip.dir);
    raw.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == ':' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Per-CPU /proc/stat lines (indexed by CPU number) and each CPU's busy share.
struct PerCpu {
    now: Vec<Option<CpuTimes>>,
    last: Vec<Option<CpuTimes>>,
    busy: Vec<f64>,
}

/// Stateful sample reader: build once, call `sample()` at every tick.
pub struct SampleReader {
    t0: Instant,
    header: TimelineHeader,
    buf: Vec<u8>,
    stat: Option<File>,
    last_stat: Option<CpuTimes>,
    /// Per-CPU times (only kept when the effective-clock source needs busy fractions).
    per_cpu: Option<PerCpu>,
    last_t: Instant,
    loadavg: Option<File>,
    meminfo: Option<File>,
    online: Option<File>,
    fast: Vec<(Option<File>, Slot)>,
    slow: Option<SlowReader>,
    slow_slots: Vec<Slot>,
    /// Where each `Sample::temps_c` / `Sample::electrical` entry comes from (exporter labels).
    pub(crate) temp_origin: Vec<Origin>,
    /// `(hwmon kind, origin)` of each electrical reading.
    pub(crate) electrical_origin: Vec<(String, Origin)>,
    slow_vals: Vec<Option<i64>>,
    soc_temp: Option<usize>,
    rapl: Vec<Rapl>,
    effective: Option<Effective>,
    rpi: Option<Arc<Mutex<Option<RpiSample>>>>,
    n_clusters: usize,
    n_temps: usize,
    n_electrical: usize,
    slow_deadline: Duration,
}

/// hwmon kinds the sampler records, with scale to the sample's unit and the unit's name.
const ELECTRICAL: &[(&str, f64, &str)] =
    &[("in", 1e3, "V"), ("curr", 1e3, "A"), ("power", 1e6, "W")];

impl SampleReader {
    /// Open every file once and take the /proc/stat and RAPL baselines, so the first
    /// `sample()` is a real delta.
    pub fn new(host: &Host, inv: &Inventory, interval: Duration) -> SampleReader {
        let open = |rel: &str| host.open(rel).ok();
        let mut fast = Vec::new();
        let mut slow_files = Vec::new();
        let mut slow_slots = Vec::new();
        let mut header = TimelineHeader {
            interval_s: interval.as_secs_f64(),
            ..Default::default()
        };

        // Clusters: cpuinfo_cur_freq when readable (root only on most kernels), else
        // scaling_cur_freq, as sbc-bench does.
        for cl in &inv.clusters {
            header.clusters.push(format!(
                "{}{}",
                cl.cpu_range(),
                cl.core_type
                    .as_ref()
                    .map(|c| format!(" ({c})"))
                    .unwrap_or_default()
            ));
            let Some(rel) = &cl.cur_freq_file else {
                continue;
            };
            let mut candidates = vec![rel.clone()];
            if rel.ends_with("/cpuinfo_cur_freq") {
                candidates.push(rel.replace("/cpuinfo_cur_freq", "/scaling_cur_freq"));
            }
            for rel in candidates {
                if let Some(f) = open(&rel) {
                    let slot = Slot {
                        target: Target::ClusterMhz(cl.id),
                        div: 1e3,
                        rel: rel.clone(),
                    };
                    if rel.ends_with("/cpuinfo_cur_freq") {
                        slow_files.push(Some(f));
                        slow_slots.push(slot);
                    } else {
                        fast.push((Some(f), slot));
                    }
                    break;
                }
            }
        }

        // Temperatures: every thermal zone, then every hwmon temp input.
        let chosen = inv.thermal.chosen.as_ref().map(|c| c.path.as_str());
        let mut soc_temp = None;
        let mut temp_origin = Vec::new();
        let mut electrical_origin = Vec::new();
        for z in &inv.thermal.zones {
            let rel = format!("{}/temp", z.path);
            let idx = header.temp_sensors.len();
            temp_origin.push(Origin::Zone {
                zone: z
                    .name
                    .strip_prefix("thermal_zone")
                    .unwrap_or(&z.name)
                    .to_string(),
                kind: z.kind.clone().unwrap_or_default(),
            });
            header
                .temp_sensors
                .push(z.kind.clone().unwrap_or_else(|| z.name.clone()));
            if chosen == Some(rel.as_str()) {
                soc_temp = Some(idx);
            }
            let slot = Slot {
                target: Target::Temp(idx),
                div: 1e3,
                rel: rel.clone(),
            };
            // ACPI zones evaluate AML (often through the embedded controller) on every read.
            if z.kind.as_deref() == Some("acpitz") {
                slow_files.push(open(&rel));
                slow_slots.push(slot);
            } else {
                fast.push((open(&rel), slot));
            }
        }
        for chip in &inv.thermal.hwmon {
            let chip_name = chip.name.clone().unwrap_or_else(|| chip.dir.clone());
            for s in &chip.sensors {
                let name = format!("{chip_name} {}", s.label.as_deref().unwrap_or(&s.input));
                let origin = Origin::Hwmon {
                    chip: chip_id(chip),
                    chip_name: chip_name.clone(),
                    sensor: s.input.clone(),
                    label: s.label.clone(),
                };
                let target = if s.kind == "temp" {
                    let idx = header.temp_sensors.len();
                    header.temp_sensors.push(name);
                    temp_origin.push(origin);
                    if chosen == Some(s.path.as_str()) {
                        soc_temp = Some(idx);
                    }
                    (Target::Temp(idx), 1e3)
                } else if let Some((_, div, unit)) = ELECTRICAL.iter().find(|e| e.0 == s.kind) {
                    let idx = header.electrical.len();
                    header.electrical.push((name, unit.to_string()));
                    electrical_origin.push((s.kind.clone(), origin));
                    (Target::Electrical(idx), *div)
                } else {
                    continue;
                };
                slow_files.push(open(&s.path));
                slow_slots.push(Slot {
                    target: target.0,
                    div: target.1,
                    rel: s.path.clone(),
                });
            }
        }
        header.soc_sensor = soc_temp.map(|i| header.temp_sensors[i].clone());
        // A chosen sensor outside the lists above (should not happen) still gets read.
        if let (None, Some(c)) = (soc_temp, &inv.thermal.chosen) {
            let idx = header.temp_sensors.len();
            header.temp_sensors.push(c.name.clone());
            temp_origin.push(Origin::Other(c.path.clone()));
            soc_temp = Some(idx);
            header.soc_sensor = Some(c.name.clone());
            fast.push((
                open(&c.path),
                Slot {
                    target: Target::Temp(idx),
                    div: 1e3,
                    rel: c.path.clone(),
                },
            ));
        }

        // RAPL package domains (top level `intel-rapl:N`, not the `:N:M` sub-zones). AMD
        // exposes its package energy under the same powercap name.
        let mut rapl = Vec::new();
        for name in host.list("sys/class/powercap") {
            let is_pkg = name
                .strip_prefix("intel-rapl:")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            if !is_pkg {
                continue;
            }
            let d = format!("sys/class/powercap/{name}");
            if let Some(file) = open(&format!("{d}/energy_uj")) {
                rapl.push(Rapl {
                    file,
                    max_range: host.read_u64(format!("{d}/max_energy_range_uj")),
                    last: None,
                });
            }
        }

        let (effective, source) = effective::probe(host, inv);
        header.measured_clock_source = source;
        let max_cpu = inv
            .cpus
            .iter()
            .map(|c| c.id as usize + 1)
            .max()
            .unwrap_or(0);
        let per_cpu = effective
            .as_ref()
            .is_some_and(|e| e.needs_busy())
            .then(|| PerCpu {
                now: vec![None; max_cpu],
                last: vec![None; max_cpu],
                busy: vec![0.0; max_cpu],
            });
        // Aggregate line only: 4 KiB. All cpuN lines: ~80 bytes each plus slack.
        let buf_len = if per_cpu.is_some() {
            8192 + 96 * max_cpu
        } else {
            8192
        };

        let n_slow = slow_slots.len();
        let slow = (n_slow > 0).then(|| {
            let names = slow_slots.iter().map(|s| s.rel.clone()).collect();
            SlowReader::start(slow_files, names)
        });
        let mut r = SampleReader {
            t0: Instant::now(),
            n_clusters: inv.clusters.len(),
            n_temps: header.temp_sensors.len(),
            n_electrical: header.electrical.len(),
            header,
            buf: vec![0; buf_len],
            stat: open("proc/stat"),
            last_stat: None,
            per_cpu,
            last_t: Instant::now(),
            loadavg: open("proc/loadavg"),
            meminfo: open("proc/meminfo"),
            online: open("sys/devices/system/cpu/online"),
            fast,
            slow,
            slow_slots,
            temp_origin,
            electrical_origin,
            slow_vals: vec![None; n_slow],
            soc_temp,
            rapl,
            effective,
            rpi: None,
            slow_deadline: (interval / 2)
                .clamp(Duration::from_millis(20), Duration::from_millis(250)),
        };
        // Baselines.
        r.last_stat = r.read_stat();
        if let Some(p) = r.per_cpu.as_mut() {
            p.last.clone_from(&p.now);
        }
        for i in 0..r.rapl.len() {
            let v = r.read_rapl(i);
            r.rapl[i].last = v;
        }
        if let Some(e) = r.effective.as_mut() {
            e.baseline();
        }
        r.last_t = Instant::now();
        r
    }

    /// Share the latest Raspberry Pi firmware reading (from `rpi::RpiPoller`) into samples.
    pub fn set_rpi(&mut self, latest: Arc<Mutex<Option<RpiSample>>>) {
        self.rpi = Some(latest);
    }

    pub fn header(&self) -> &TimelineHeader {
        &self.header
    }

    /// The instant `Sample::t` counts from.
    pub fn t0(&self) -> Instant {
        self.t0
    }

    /// Files disabled after a read timed out, for the report.
    pub fn disabled(&self) -> &[String] {
        self.slow.as_ref().map_or(&[], |s| &s.timed_out)
    }

    fn read_stat(&mut self) -> Option<CpuTimes> {
        let f = self.stat.as_ref()?;
        let text = pread_all(f, &mut self.buf).ok()?;
        match self.per_cpu.as_mut() {
            Some(p) => parse_stat(text, Some(&mut p.now)),
            None => parse_stat(text, None),
        }
    }

    fn read_rapl(&mut self, i: usize) -> Option<u64> {
        let text = pread_all(&self.rapl[i].file, &mut self.buf[..64]).ok()?;
        parse_i64(text).and_then(|v| u64::try_from(v).ok())
    }

    fn read_small(f: &Option<File>, buf: &mut [u8]) -> Option<i64> {
        parse_i64(pread_all(f.as_ref()?, buf).ok()?)
    }

    /// A new sample (allocates the sample's vectors).
    pub fn sample(&mut self) -> Sample {
        let mut s = Sample::default();
        self.sample_into(&mut s);
        s
    }

    /// Fill `s` in place, reusing its vectors: no allocation once they have their length.
    pub fn sample_into(&mut self, s: &mut Sample) {
        let now_t = Instant::now();
        let dt = now_t.duration_since(self.last_t).as_secs_f64();
        self.last_t = now_t;
        s.t = now_t.duration_since(self.t0).as_secs_f64();
        s.unix_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        reset(&mut s.cluster_mhz, self.n_clusters);
        reset(&mut s.measured_mhz, self.n_clusters);
        reset(&mut s.temps_c, self.n_temps);
        reset(&mut s.electrical, self.n_electrical);

        // Slow files first: their helper thread works while we read the fast ones.
        if let Some(slow) = self.slow.as_mut() {
            slow.collect(self.slow_deadline, &mut self.slow_vals);
        }

        // CPU %: delta against the previous reading (the baseline for the first sample).
        let now = self.read_stat();
        s.cpu = match (now, self.last_stat) {
            (Some(n), Some(l)) => cpu_pct(&n, &l),
            _ => None,
        };
        if now.is_some() {
            self.last_stat = now;
        }
        if let Some(PerCpu { now, last, busy }) = self.per_cpu.as_mut() {
            for (i, b) in busy.iter_mut().enumerate() {
                *b = match (now[i], last[i]) {
                    (Some(n), Some(l)) => {
                        let d = n.delta(&l);
                        let t = d.total();
                        if t == 0 {
                            0.0
                        } else {
                            d.busy() as f64 / t as f64
                        }
                    }
                    _ => 0.0,
                };
            }
            std::mem::swap(now, last);
        }

        s.load1 = self
            .loadavg
            .as_ref()
            .and_then(|f| pread_all(f, &mut self.buf).ok())
            .and_then(load1);
        s.swap_used_kb = self
            .meminfo
            .as_ref()
            .and_then(|f| pread_all(f, &mut self.buf).ok())
            .and_then(swap_used_kb);
        s.cpus_online = self
            .online
            .as_ref()
            .and_then(|f| pread_all(f, &mut self.buf).ok())
            .and_then(count_cpulist);

        let small = &mut self.buf[..64];
        for (f, slot) in &self.fast {
            let v = Self::read_small(f, small);
            put(s, slot, v);
        }
        if self.slow.is_some() {
            for (slot, v) in self.slow_slots.iter().zip(&self.slow_vals) {
                put(s, slot, *v);
            }
        }
        s.soc_temp_c = self.soc_temp.and_then(|i| s.temps_c[i]);

        // RAPL: sum of package power over the interval.
        s.rapl_watts = None;
        if !self.rapl.is_empty() && dt > 0.0 {
            let mut uj = 0u64;
            let mut ok = true;
            for i in 0..self.rapl.len() {
                let v = self.read_rapl(i);
                let r = &mut self.rapl[i];
                match (r.last, v) {
                    (Some(l), Some(n)) => match energy_delta_uj(l, n, r.max_range) {
                        Some(d) => uj += d,
                        None => ok = false,
                    },
                    _ => ok = false,
                }
                r.last = v;
            }
            s.rapl_watts = ok.then(|| uj as f64 / 1e6 / dt);
        }

        if let Some(e) = self.effective.as_mut() {
            let busy = self.per_cpu.as_ref().map(|p| p.busy.as_slice());
            e.sample(busy, &mut s.measured_mhz);
        }

        s.rpi = self
            .rpi
            .as_ref()
            .and_then(|m| *m.lock().unwrap_or_else(|e| e.into_inner()));
    }
}

fn reset<T: Default + Clone>(v: &mut Vec<T>, n: usize) {
    v.clear();
    v.resize(n, T::default());
}

fn put(s: &mut Sample, slot: &Slot, v: Option<i64>) {
    let v = v.map(|v| v as f64 / slot.div);
    match slot.target {
        Target::ClusterMhz(i) => s.cluster_mhz[i] = v.map(|m| m.round() as u32),
        Target::Temp(i) => {
            // Unconnected inputs read -273 or 255 °C; a sample records what the file says,
            // but the SoC temperature must not be garbage.
            s.temps_c[i] = v;
        }
        Target::Electrical(i) => s.electrical[i] = v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_integers_like_sysfs() {
        assert_eq!(parse_i64(b"45000\n"), Some(45000));
        assert_eq!(parse_i64(b"-5000\n"), Some(-5000));
        assert_eq!(parse_i64(b"\n"), None);
        assert_eq!(parse_i64(b"abc"), None);
        assert_eq!(parse_i64(b"99999999999999999999999"), None);
    }

    #[test]
    fn stat_first_line_and_per_cpu() {
        let t = b"cpu  301854 612 111922 8979004 3552 2 3944 0 0 0\ncpu0 44490 19 21045 1087069 220 1 3410 0 0 0\ncpu2 47869 23 16474 1110787 591 0 46 0 0 0\nintr 1 2 3\n";
        let tot = parse_stat(t, None).unwrap();
        assert_eq!(tot.user, 301854);
        assert_eq!(tot.softirq, 3944);
        let mut per = vec![None; 4];
        parse_stat(t, Some(&mut per)).unwrap();
        assert_eq!(per[0].unwrap().system, 21045);
        assert!(per[1].is_none());
        assert_eq!(per[2].unwrap().idle, 1110787);
        assert!(parse_stat(b"garbage\n", None).is_none());
        // Old kernels: four fields.
        assert_eq!(parse_stat(b"cpu 1 2 3 4\n", None).unwrap().idle, 4);
    }

    #[test]
    fn percentages_from_deltas() {
        let a = CpuTimes {
            user: 100,
            system: 50,
            idle: 1000,
            ..Default::default()
        };
        let b = CpuTimes {
            user: 160,
            nice: 10,
            system: 60,
            idle: 1100,
            iowait: 10,
            irq: 5,
            softirq: 5,
            steal: 10,
            ..Default::default()
        };
        let p = cpu_pct(&b, &a).unwrap();
        // Δ: user 60 nice 10 sys 10 idle 100 io 10 irq 10 steal 10 = 210 ticks.
        assert!((p.usr - 60.0 * 100.0 / 210.0).abs() < 1e-9);
        assert!((p.cpu - 100.0 * 100.0 / 210.0).abs() < 1e-9);
        assert!((p.irq - 10.0 * 100.0 / 210.0).abs() < 1e-9);
        assert!((p.io - 10.0 * 100.0 / 210.0).abs() < 1e-9);
        assert!(cpu_pct(&a, &a).is_none());
        // A corrupt line with counters near u64::MAX: a figure, not an overflow panic.
        let huge = CpuTimes {
            user: u64::MAX,
            idle: u64::MAX,
            irq: u64::MAX,
            softirq: u64::MAX,
            ..Default::default()
        };
        let p = cpu_pct(&huge, &CpuTimes::default()).unwrap();
        assert!(p.cpu.is_finite() && p.irq.is_finite());
    }

    #[test]
    fn cpulists_and_meminfo() {
        assert_eq!(count_cpulist(b"0-3\n"), Some(4));
        assert_eq!(count_cpulist(b"0-3,6,8-9\n"), Some(7));
        assert_eq!(count_cpulist(b"0\n"), Some(1));
        assert_eq!(count_cpulist(b"\n"), Some(0));
        assert_eq!(count_cpulist(b"3-1"), None);
        assert_eq!(count_cpulist(b"x"), None);
        let m = b"MemTotal:  100 kB\nSwapCached: 0 kB\nSwapTotal:     2097148 kB\nSwapFree:      2000000 kB\n";
        assert_eq!(swap_used_kb(m), Some(97148));
        assert_eq!(swap_used_kb(b"MemTotal: 1 kB\n"), None);
        assert_eq!(load1(b"2.39 1.00 0.50 1/100 42\n"), Some(2.39));
        assert_eq!(load1(b"x"), None);
    }

    #[test]
    fn a_hanging_slow_file_costs_one_sample_and_is_disabled() {
        fn hang_on_1(i: usize, f: &File, buf: &mut [u8]) -> Option<i64> {
            if i == 1 {
                std::thread::sleep(Duration::from_millis(600));
            }
            read_int(i, f, buf)
        }
        let d = tempfile::tempdir().unwrap();
        let mut files = Vec::new();
        let mut names = Vec::new();
        for (i, v) in ["1800000", "2000000", "52000"].iter().enumerate() {
            let p = d.path().join(format!("f{i}"));
            std::fs::write(&p, v).unwrap();
            files.push(Some(File::open(&p).unwrap()));
            names.push(format!("f{i}"));
        }
        let mut r = SlowReader::start_with(files, names, hang_on_1);
        let mut out = vec![None; 3];
        let t = Instant::now();
        r.collect(Duration::from_millis(50), &mut out);
        assert!(t.elapsed() < Duration::from_millis(500));
        // Read before the hang: fresh; the hanging one and the one after it: nothing.
        assert_eq!(out, [Some(1800000), None, None]);
        assert_eq!(r.timed_out, ["/f1 (read timed out; disabled)"]);
        // Still stuck: the next round does not wait at all.
        let t = Instant::now();
        r.collect(Duration::from_millis(50), &mut out);
        assert!(t.elapsed() < Duration::from_millis(400));
        assert_eq!(out, [None, None, None]);
        // Once the read returns, the other files are read again; f1 stays off.
        std::thread::sleep(Duration::from_millis(700));
        r.collect(Duration::from_millis(200), &mut out);
        assert_eq!(out, [Some(1800000), None, Some(52000)]);
        assert_eq!(r.timed_out.len(), 1);
    }

    #[test]
    fn rapl_wraps_around() {
        assert_eq!(energy_delta_uj(100, 250, None), Some(150));
        // 262143328850 is a real max_energy_range_uj (Prometheus' node_exporter fixture).
        let max = 262_143_328_850;
        assert_eq!(energy_delta_uj(max - 50, 70, Some(max)), Some(120));
        assert_eq!(energy_delta_uj(500, 70, None), None);
    }
}
