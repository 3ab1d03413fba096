//! One `--json-lines` line: a sample and its extra readings as one JSON object, the sample's
//! keys first. The monitor writes one every tick, so the fixed part is written here field by
//! field (static keys, serde_json's own number formatting) rather than through serde's
//! generic serializer, whose per-key escaping and dispatch were most of a tick's user-space
//! instructions. So are the power readings and idle states, which a board has every tick; the
//! rarer extras (pressure, disks, network, softirq) go through serde. A test holds the output
//! byte-equal to serde's for the same values.

use super::extra::{
    DiskDelta, ExtraSample, IdleDelta, MemorySample, NetDelta, PressureSample, SoftirqSample,
};
use super::{CpuPct, RpiSample, Sample};
use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter};
use truebench_host::parse::bytes::f64_at_run_time;

/// Every key the fixed part writes, as `,"name":`, and its other literals, in one constant: a
/// line's copies then read one or two pages of read-only data, not a page or more per few
/// keys wherever the linker put each literal (on a VM every page a tick touches after a sleep
/// may be cold, and on some hosts a cold page costs tens of microseconds).
const KEYS: &str = concat!(
    ",\"t\":",
    ",\"unix_ms\":",
    ",\"cluster_mhz\":",
    ",\"measured_mhz\":",
    ",\"load1\":",
    ",\"cpu\":",
    ",\"soc_temp_c\":",
    ",\"temps_c\":",
    ",\"electrical\":",
    ",\"rapl_watts\":",
    ",\"swap_used_kb\":",
    ",\"cpus_online\":",
    ",\"rpi\":",
    ",\"dt_s\":",
    ",\"memory\":",
    ",\"sys\":",
    ",\"usr\":",
    ",\"nice\":",
    ",\"io\":",
    ",\"irq\":",
    ",\"steal\":",
    ",\"arm_mhz\":",
    ",\"core_volts\":",
    ",\"throttled\":",
    ",\"pmic_watts\":",
    ",\"input_volts\":",
    ",\"available_kb\":",
    ",\"free_kb\":",
    ",\"cached_kb\":",
    ",\"dirty_kb\":",
    ",\"writeback_kb\":",
    ",\"power_w\":",
    ",\"idle\":",
    ",\"entries\":",
    ",\"time_us\":",
    "null",
    "-0.0",
    // Room for a window of `WINDOW` bytes from the start of any key above.
    "                ",
);

/// How many bytes a key's copy moves: the longest key (`,"writeback_kb":`). A copy of a
/// length known at compile time is a few moves, not a call to the C library's `memcpy`.
const WINDOW: usize = 16;

/// The exponent bits of a double.
const EXP: u64 = 0x7FF0_0000_0000_0000;

/// A literal of the line (a key as `Obj::key` writes it, `null`, a zero): the `WINDOW` bytes of `KEYS` from its start, of which its
/// `len` are the key.
#[derive(Clone, Copy)]
struct Key {
    window: &'static [u8; WINDOW],
    len: usize,
}

/// `k` as a [`Key`], found in `KEYS` (a compile-time error when missing or longer than
/// `WINDOW`).
const fn key_at(k: &str) -> Key {
    assert!(k.len() <= WINDOW, "a key longer than WINDOW");
    let from = KEYS.as_bytes().split_at(offset_in(k)).1;
    match from.first_chunk::<WINDOW>() {
        Some(window) => Key {
            window,
            len: k.len(),
        },
        None => panic!("KEYS' padding is shorter than WINDOW"),
    }
}

/// Where `k` is in `KEYS`.
const fn offset_in(k: &str) -> usize {
    let (all, k) = (KEYS.as_bytes(), k.as_bytes());
    let mut i = 0;
    while i + k.len() <= all.len() {
        let mut j = 0;
        while j < k.len() && all[i + j] == k[j] {
            j += 1;
        }
        if j == k.len() {
            return i;
        }
        i += 1;
    }
    panic!("a key missing from KEYS")
}

/// A key as `Obj::key` writes it, `,"name":`, taken from `KEYS` at compile time.
macro_rules! k {
    ($name:literal) => {{
        const K: Key = key_at(concat!(",\"", $name, "\":"));
        K
    }};
}

/// Write the line into `out` (cleared first; no newline), so a caller printing many lines
/// reuses one buffer.
#[link_section = "truebench_tick"]
pub fn json_line(out: &mut Vec<u8>, sample: &Sample, extra: &ExtraSample) {
    out.clear();
    let mut o = Obj::open(out);
    o.f64(k!("t"), sample.t);
    o.key(k!("unix_ms"));
    o.i64(sample.unix_ms);
    o.opt_u32_list(k!("cluster_mhz"), &sample.cluster_mhz);
    o.opt_f64_list(k!("measured_mhz"), &sample.measured_mhz);
    o.opt_f64_field(k!("load1"), sample.load1);
    o.key(k!("cpu"));
    match &sample.cpu {
        Some(c) => cpu(&mut o, c),
        None => o.null(),
    }
    o.opt_f64_field(k!("soc_temp_c"), sample.soc_temp_c);
    o.opt_f64_list(k!("temps_c"), &sample.temps_c);
    o.opt_f64_list(k!("electrical"), &sample.electrical);
    o.opt_f64_field(k!("rapl_watts"), sample.rapl_watts);
    o.key(k!("swap_used_kb"));
    o.opt_u64(sample.swap_used_kb);
    o.key(k!("cpus_online"));
    o.opt_u64(sample.cpus_online.map(u64::from));
    o.key(k!("rpi"));
    match &sample.rpi {
        Some(r) => rpi(&mut o, r),
        None => o.null(),
    }
    o.f64(k!("dt_s"), extra.dt_s);
    if let Some(m) = &extra.memory {
        o.key(k!("memory"));
        memory(&mut o, m);
    }
    // The extras in `ExtraSample`'s order, each left out when empty as serde leaves it out:
    // the power readings and idle states, which a board has every tick, by hand; the rarer
    // ones through serde.
    if let Some(pressure) = &extra.pressure {
        append(o.out, &Pressure { pressure });
    }
    if !extra.power_w.is_empty() {
        o.opt_f64_list(k!("power_w"), &extra.power_w);
    }
    if !extra.disks.is_empty() || !extra.net.is_empty() || extra.softirq.is_some() {
        let devices = Devices {
            disks: &extra.disks,
            net: &extra.net,
            softirq: extra.softirq.as_ref(),
        };
        append(o.out, &devices);
    }
    if !extra.idle.is_empty() {
        o.key(k!("idle"));
        idle(&mut o, &extra.idle);
    }
    o.out.push(b'}');
}

/// `pressure`, as `ExtraSample` has it.
#[derive(Serialize)]
struct Pressure<'a> {
    pressure: &'a PressureSample,
}

/// The extras between the power readings and the idle states, with `ExtraSample`'s skip
/// rules.
#[derive(Serialize)]
struct Devices<'a> {
    #[serde(skip_serializing_if = "empty")]
    disks: &'a [Option<DiskDelta>],
    #[serde(skip_serializing_if = "empty")]
    net: &'a [Option<NetDelta>],
    #[serde(skip_serializing_if = "Option::is_none")]
    softirq: Option<&'a SoftirqSample>,
}

fn empty<T>(v: &&[T]) -> bool {
    v.is_empty()
}

/// An object of extras (`{"pressure":…}`, `{"disks":…}`) appended to the line's open object,
/// its brace turned into the comma that joins it. Not inlined and not in the tick section:
/// serde's code for the rarer extras would spread the monitor's every-tick code over more
/// pages. Only called with a field to write.
#[inline(never)]
fn append(out: &mut Vec<u8>, extras: &impl Serialize) {
    let at = out.len();
    if serde_json::to_writer(&mut *out, extras).is_ok() && out.len() > at + 2 {
        out[at] = b',';
        out.pop();
    } else {
        out.truncate(at);
    }
}

#[link_section = "truebench_tick"]
fn cpu(o: &mut Obj<'_>, c: &CpuPct) {
    let mut p = Obj::open(&mut *o.out);
    p.f64(k!("cpu"), c.cpu);
    p.f64(k!("sys"), c.sys);
    p.f64(k!("usr"), c.usr);
    p.f64(k!("nice"), c.nice);
    p.f64(k!("io"), c.io);
    p.f64(k!("irq"), c.irq);
    p.f64(k!("steal"), c.steal);
    p.close();
}

// Only on a Raspberry Pi: kept out of `json_line`'s hot code.
#[inline(never)]
fn rpi(o: &mut Obj<'_>, r: &RpiSample) {
    let mut p = Obj::open(&mut *o.out);
    p.opt_f64_field(k!("arm_mhz"), r.arm_mhz);
    p.opt_f64_field(k!("core_volts"), r.core_volts);
    p.key(k!("throttled"));
    p.opt_u64(r.throttled.map(u64::from));
    p.opt_f64_field(k!("pmic_watts"), r.pmic_watts);
    p.opt_f64_field(k!("input_volts"), r.input_volts);
    p.close();
}

/// The idle states' deltas of each CPU group, `[{"entries":[…],"time_us":[…]},…]`.
#[link_section = "truebench_tick"]
fn idle(o: &mut Obj<'_>, groups: &[IdleDelta]) {
    o.list(groups, |o, g| {
        let mut p = Obj::open(&mut *o.out);
        p.opt_u64_list(k!("entries"), &g.entries);
        p.opt_u64_list(k!("time_us"), &g.time_us);
        p.close();
    });
}

#[link_section = "truebench_tick"]
fn memory(o: &mut Obj<'_>, m: &MemorySample) {
    let mut p = Obj::open(&mut *o.out);
    for (k, v) in [
        (k!("available_kb"), m.available_kb),
        (k!("free_kb"), m.free_kb),
        (k!("cached_kb"), m.cached_kb),
        (k!("dirty_kb"), m.dirty_kb),
        (k!("writeback_kb"), m.writeback_kb),
    ] {
        p.key(k);
        p.opt_u64(v);
    }
    p.close();
}

/// A JSON object being written: keys are the struct's field names (plain ASCII, nothing to
/// escape), numbers as serde_json writes them (non-finite floats as `null`).
struct Obj<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
}

impl<'a> Obj<'a> {
    /// An object whose brace is written with its first key (see `key`).
    fn open(out: &'a mut Vec<u8>) -> Obj<'a> {
        Obj { out, first: true }
    }

    fn close(self) {
        if self.first {
            self.out.push(b'{');
        }
        self.out.push(b'}');
    }

    /// `k` as made by [`k!`]: `,"name":`, its comma the object's brace for the first key —
    /// one copy per key, of `WINDOW` bytes, cut to the key.
    #[inline(never)]
    #[link_section = "truebench_tick"]
    fn key(&mut self, k: Key) {
        let at = self.out.len();
        put(self.out, k);
        if self.first {
            if let Some(c) = self.out.get_mut(at) {
                *c = b'{';
            }
            self.first = false;
        }
    }

    #[inline(never)]
    #[link_section = "truebench_tick"]
    fn null(&mut self) {
        const NULL: Key = key_at("null");
        put(self.out, NULL);
    }

    #[inline(never)]
    #[link_section = "truebench_tick"]
    fn f64(&mut self, k: Key, v: f64) {
        self.key(k);
        self.num_f64(v);
    }

    #[inline(never)]
    #[link_section = "truebench_tick"]
    fn opt_f64_field(&mut self, k: Key, v: Option<f64>) {
        self.key(k);
        self.opt_f64(v);
    }

    #[link_section = "truebench_tick"]
    fn num_f64(&mut self, v: f64) {
        // Writing into a Vec cannot fail.
        // Finite when the exponent is not all ones (a bit test: no constant to load).
        if v.to_bits() & EXP == EXP {
            self.null();
        } else if !short_decimal(self.out, v) {
            let _ = CompactFormatter.write_f64(self.out, v);
        }
    }

    #[link_section = "truebench_tick"]
    fn opt_f64(&mut self, v: Option<f64>) {
        match v {
            Some(v) => self.num_f64(v),
            None => self.null(),
        }
    }

    #[inline(never)]
    #[link_section = "truebench_tick"]
    fn opt_u64(&mut self, v: Option<u64>) {
        match v {
            Some(v) => digits(self.out, v),
            None => self.null(),
        }
    }

    #[inline(never)]
    #[link_section = "truebench_tick"]
    fn i64(&mut self, v: i64) {
        if v < 0 {
            self.out.push(b'-');
        }
        digits(self.out, v.unsigned_abs());
    }

    /// `k` and a list of optional integers; one copy (see `digits`).
    #[inline(never)]
    #[link_section = "truebench_tick"]
    fn opt_u32_list(&mut self, k: Key, items: &[Option<u32>]) {
        self.key(k);
        self.list(items, |o, v| o.opt_u64(v.map(u64::from)));
    }

    /// `k` and a list of optional integers.
    #[inline(never)]
    #[link_section = "truebench_tick"]
    fn opt_u64_list(&mut self, k: Key, items: &[Option<u64>]) {
        self.key(k);
        self.list(items, |o, v| o.opt_u64(*v));
    }

    /// `k` and a list of optional numbers; one copy for the four such lists.
    #[inline(never)]
    #[link_section = "truebench_tick"]
    fn opt_f64_list(&mut self, k: Key, items: &[Option<f64>]) {
        self.key(k);
        self.list(items, |o, v| o.opt_f64(*v));
    }

    #[link_section = "truebench_tick"]
    fn list<T>(&mut self, items: &[T], mut each: impl FnMut(&mut Self, &T)) {
        self.out.push(b'[');
        for (i, v) in items.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            each(self, v);
        }
        self.out.push(b']');
    }
}

/// `v` in decimal, as serde_json (itoa) writes it, by division: no digit table in read-only
/// data and no formatter code elsewhere in the binary for a sleeping sampler to touch cold.
/// Its loops are bounded by `v` alone: one bounded by the length of a 20-byte array is
/// unrolled twenty times by the compiler (1.5 KiB, a dozen cache lines touched cold for a
/// 13-digit figure). Not inlined: one copy for every caller.
#[inline(never)]
#[link_section = "truebench_tick"]
fn digits(out: &mut Vec<u8>, mut v: u64) {
    let mut n = 1;
    let mut t = v;
    while t >= 10 {
        t /= 10;
        n += 1;
    }
    // Into a buffer of a fixed size, then one copy of that size cut to the digits (see
    // `put_window`). `n` is at most 20, the digits of `u64::MAX`.
    let mut buf = [b'0'; 20];
    let mut i = n;
    while i > 0 {
        i -= 1;
        if let Some(d) = buf.get_mut(i) {
            *d = b'0' + (v % 10) as u8;
        }
        v /= 10;
    }
    put_window(out, &buf, n);
}

/// The first `len` bytes of `window` appended: all of them copied, then the rest cut off — a
/// copy of a size known at compile time, a few moves, where a copy of `len` bytes would be a
/// call to the C library's `memcpy`, code on a page of its own that a sleeping sampler would
/// touch cold every tick for a dozen bytes.
#[inline(always)]
fn put_window<const N: usize>(out: &mut Vec<u8>, window: &[u8; N], len: usize) {
    let at = out.len();
    out.extend_from_slice(window);
    out.truncate(at + len.min(N));
}

/// A literal of the line, from `KEYS`.
#[inline(always)]
fn put(out: &mut Vec<u8>, k: Key) {
    put_window(out, k.window, k.len);
}

/// Write `v` as serde_json does, without its float formatter, when `v` is the double nearest
/// a decimal of at most nine fraction digits between 0.001 and 10^15 (or zero): a load
/// average, a time counted in nanoseconds, a share rounded to 0.001. False (nothing written)
/// for any other value. Exact: `v` is checked to be the double nearest `k / 10^d`, and with
/// `k < 2^52` the double's spacing there is below `10^-d`, so no other decimal of `d` or fewer
/// fraction digits rounds to `v` — this one, its trailing zeros dropped, is the shortest that
/// reads back as `v`, which is what serde_json prints (in plain notation in this range).
#[link_section = "truebench_tick"]
fn short_decimal(out: &mut Vec<u8>, v: f64) -> bool {
    // Compared and scaled without floating-point constants: the compiler puts those in the
    // binary's constant pool, pages away from this code (positive doubles order as their bits).
    let bits = v.to_bits();
    if bits << 1 == 0 {
        const ZERO: Key = key_at("0.0");
        const MINUS_ZERO: Key = key_at("-0.0");
        put(out, if bits == 0 { ZERO } else { MINUS_ZERO });
        return true;
    }
    const LOW: u64 = 0x3F50_624D_D2F1_A9FC; // 1e-3
    const HIGH: u64 = 0x430C_6BF5_2634_0000; // 1e15
    if !(LOW..HIGH).contains(&bits) {
        return false;
    }
    // Nine fraction digits first, their trailing zeros dropped: the one decimal of nine or
    // fewer fraction digits that rounds to `v` (see above), so the same the search from zero
    // digits up finds — in one step instead of up to ten for a time in nanoseconds. Only
    // values too large for nine digits below 2^52 search.
    match nearest_decimal(v, NINE) {
        Some(Some(k)) => {
            let (mut k, mut pow) = (k, NINE as u64);
            while pow > 1 && k % 10 == 0 {
                k /= 10;
                pow /= 10;
            }
            write_decimal(out, k, pow);
            return true;
        }
        Some(None) => return false,
        None => {}
    }
    let mut pow = 1i64;
    while pow < NINE {
        match nearest_decimal(v, pow) {
            Some(Some(k)) => {
                write_decimal(out, k, pow as u64);
                return true;
            }
            // More fraction digits only make it larger.
            None => return false,
            Some(None) => {}
        }
        pow *= 10;
    }
    false
}

/// 10^9, the most fraction digits `short_decimal` writes.
const NINE: i64 = 1_000_000_000;

/// For `v` positive and finite, with `pow` = 10^d: Some(Some(k)) when `v` is the double
/// nearest k / 10^d, Some(None) when it is not, None when `v` · 10^d is 2^52 or more (the
/// decimals of d digits are then not all apart by more than the doubles' spacing).
/// Not inlined: `short_decimal` calls it from two places, and one copy keeps the tick section
/// smaller.
#[link_section = "truebench_tick"]
#[inline(never)]
fn nearest_decimal(v: f64, pow: i64) -> Option<Option<u64>> {
    const TWO_52: u64 = 0x4330_0000_0000_0000; // 2^52, above any k + 1 kept below
    let scale = f64_at_run_time(pow);
    let x = v * scale;
    if x.to_bits() >= TWO_52 {
        return None;
    }
    // SAFETY: x is positive and below 2^52 (checked above), so it fits an i64. (`as` would
    // also test for the range with a constant from the pool.)
    let t = unsafe { x.to_int_unchecked::<i64>() };
    // The product is rounded, so k is its integer part or the next one.
    for k in [t, t + 1] {
        if k as f64 / scale == v {
            return Some(Some(k as u64));
        }
    }
    Some(None)
}

/// k / pow (pow a power of ten) as a decimal: `12.5`, `3.0`.
#[link_section = "truebench_tick"]
fn write_decimal(out: &mut Vec<u8>, k: u64, pow: u64) {
    digits(out, k / pow);
    if pow == 1 {
        const POINT_ZERO: Key = key_at(".0");
        put(out, POINT_ZERO);
    } else {
        // The fraction with its leading zeros: 10^d + the fraction is d + 1 digits starting
        // with a 1, which becomes the point.
        let at = out.len();
        digits(out, pow + k % pow);
        out[at] = b'.';
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the line must equal: serde's output for the two structs flattened into one.
    fn flattened(s: &Sample, x: &ExtraSample) -> String {
        #[derive(Serialize)]
        struct Flat<'a> {
            #[serde(flatten)]
            sample: &'a Sample,
            #[serde(flatten)]
            extra: &'a ExtraSample,
        }
        serde_json::to_string(&Flat {
            sample: s,
            extra: x,
        })
        .unwrap()
    }

    fn line(s: &Sample, x: &ExtraSample) -> String {
        let mut out = b"left over from the last line".to_vec();
        json_line(&mut out, s, x);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn defaults_and_a_full_sample() {
        let (s, x) = (Sample::default(), ExtraSample::default());
        assert_eq!(line(&s, &x), flattened(&s, &x));
        let s = Sample {
            t: 1.25,
            unix_ms: -1_700_000_000_123,
            cluster_mhz: vec![Some(1800), None],
            measured_mhz: vec![Some(1799.5), None, Some(f64::NAN)],
            load1: Some(0.06),
            cpu: Some(CpuPct {
                cpu: 12.5,
                steal: f64::INFINITY,
                ..Default::default()
            }),
            soc_temp_c: Some(-47.2),
            temps_c: vec![Some(47.2), None],
            electrical: vec![Some(5.1)],
            rapl_watts: Some(1e-7),
            swap_used_kb: Some(u64::MAX),
            cpus_online: Some(8),
            rpi: Some(RpiSample {
                arm_mhz: Some(1500.0),
                throttled: Some(0x50005),
                ..Default::default()
            }),
        };
        let x = ExtraSample {
            dt_s: 0.1,
            memory: Some(MemorySample {
                available_kb: Some(1),
                ..Default::default()
            }),
            pressure: Some(PressureSample::default()),
            power_w: vec![Some(3.5), None],
            disks: vec![None, Some(DiskDelta::default())],
            net: vec![Some(NetDelta::default())],
            softirq: Some(SoftirqSample {
                pct: Some(1.0),
                cpus: vec![Default::default()],
            }),
            idle: vec![IdleDelta {
                entries: vec![Some(3), None],
                time_us: vec![Some(40_000), None],
            }],
        };
        assert_eq!(line(&s, &x), flattened(&s, &x));
        // Each extra alone: the join must not leave a brace or a doubled comma.
        let alone = [
            ExtraSample {
                power_w: vec![None],
                ..Default::default()
            },
            ExtraSample {
                softirq: x.softirq.clone(),
                ..Default::default()
            },
            ExtraSample {
                net: x.net.clone(),
                memory: x.memory,
                ..Default::default()
            },
            ExtraSample {
                idle: x.idle.clone(),
                ..Default::default()
            },
            // What a board's monitor has every tick, without the rarer extras.
            ExtraSample {
                memory: x.memory,
                power_w: x.power_w.clone(),
                idle: vec![x.idle[0].clone(), IdleDelta::default()],
                ..Default::default()
            },
        ];
        for x in &alone {
            assert_eq!(line(&s, x), flattened(&s, x));
        }
    }

    fn float() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<f64>(),
            (0u32..100_000).prop_map(|v| v as f64 / 100.0),
            Just(f64::NAN),
            Just(f64::NEG_INFINITY),
            Just(0.0),
            Just(-0.0),
        ]
    }

    fn opt_float() -> impl Strategy<Value = Option<f64>> {
        proptest::option::of(float())
    }

    prop_compose! {
        fn sample()(
            t in float(),
            unix_ms in any::<i64>(),
            cluster_mhz in proptest::collection::vec(proptest::option::of(any::<u32>()), 0..3),
            measured_mhz in proptest::collection::vec(opt_float(), 0..3),
            load1 in opt_float(),
            cpu in proptest::option::of((float(), float(), float())),
            soc_temp_c in opt_float(),
            temps_c in proptest::collection::vec(opt_float(), 0..3),
            electrical in proptest::collection::vec(opt_float(), 0..2),
            rapl_watts in opt_float(),
            swap_used_kb in proptest::option::of(any::<u64>()),
            cpus_online in proptest::option::of(any::<u32>()),
            rpi in proptest::option::of((opt_float(), proptest::option::of(any::<u32>()), opt_float())),
        ) -> Sample {
            Sample {
                t, unix_ms, cluster_mhz, measured_mhz, load1,
                cpu: cpu.map(|(a, b, c)| CpuPct { cpu: a, sys: b, usr: c, nice: a, io: b, irq: c, steal: a }),
                soc_temp_c, temps_c, electrical, rapl_watts, swap_used_kb, cpus_online,
                rpi: rpi.map(|(a, th, b)| RpiSample { arm_mhz: a, core_volts: b, throttled: th, pmic_watts: a, input_volts: b }),
            }
        }
    }

    prop_compose! {
        fn extra()(
            dt_s in float(),
            memory in proptest::option::of(proptest::array::uniform5(proptest::option::of(any::<u64>()))),
            pressure in proptest::option::of(opt_float()),
            power_w in proptest::collection::vec(opt_float(), 0..3),
            disks in proptest::collection::vec(proptest::option::of(any::<u64>()), 0..2),
            softirq in proptest::option::of(opt_float()),
            idle in proptest::collection::vec(
                (
                    proptest::collection::vec(proptest::option::of(any::<u64>()), 0..3),
                    proptest::collection::vec(proptest::option::of(any::<u64>()), 0..3),
                ),
                0..3,
            ),
        ) -> ExtraSample {
            ExtraSample {
                dt_s,
                memory: memory.map(|m| MemorySample { available_kb: m[0], free_kb: m[1], cached_kb: m[2], dirty_kb: m[3], writeback_kb: m[4] }),
                pressure: pressure.map(|p| PressureSample { cpu_some: p, ..Default::default() }),
                power_w,
                disks: disks.iter().map(|d| d.map(|v| DiskDelta { reads: v, ..Default::default() })).collect(),
                net: disks.iter().map(|d| d.map(|v| NetDelta { tx_bytes: v, ..Default::default() })).collect(),
                softirq: softirq.map(|pct| SoftirqSample { pct, cpus: Vec::new() }),
                // Apart from the disks: the hand-written idle states beside every mix of the
                // extras serde writes.
                idle: idle.into_iter().map(|(entries, time_us)| IdleDelta { entries, time_us }).collect(),
            }
        }
    }

    proptest! {
        #[test]
        fn equals_serde(s in sample(), x in extra()) {
            prop_assert_eq!(line(&s, &x), flattened(&s, &x));
        }

        /// The integer path writes what serde_json writes, for decimals of 0 to 12 fraction
        /// digits, their neighbours one unit away, and any double; where it declines, nothing
        /// is written.
        #[test]
        fn short_decimals_as_serde(k in 0u64..(1 << 53), d in 0i32..=12, step in -1i64..=1, bits in any::<u64>()) {
            let near = k as f64 / 10f64.powi(d);
            let moved = f64::from_bits((near.to_bits() as i64 + step).max(0) as u64);
            for v in [near, moved, -near, f64::from_bits(bits)] {
                let mut out = Vec::new();
                if v.is_finite() && short_decimal(&mut out, v) {
                    prop_assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&v).unwrap());
                } else {
                    prop_assert!(out.is_empty());
                }
            }
            let mut out = Vec::new();
            digits(&mut out, bits);
            prop_assert_eq!(String::from_utf8(out).unwrap(), bits.to_string());
        }
    }

    /// Every count of digits, at both its ends, appended after what the buffer holds.
    #[test]
    fn digits_at_every_length() {
        let mut vals = vec![0u64, u64::MAX];
        for k in 1..=19 {
            vals.extend([10u64.pow(k) - 1, 10u64.pow(k), 10u64.pow(k) + 1]);
        }
        for v in vals {
            let mut out = b"x".to_vec();
            digits(&mut out, v);
            assert_eq!(String::from_utf8(out).unwrap(), format!("x{v}"));
        }
    }

    /// What the sampler prints every tick takes the integer path: load averages, times in
    /// nanoseconds, shares rounded to 0.001, whole numbers, zero.
    #[test]
    fn the_sampler_values_are_short_decimals() {
        let values = [
            0.0,
            -0.0,
            0.78,
            12.34,
            7.001682747,
            1_000_000.000000001,
            33.333,
            100.0,
            0.001,
            45.0,
            123_456_789.5,
        ];
        let times = [
            1_000_000u64,
            99_902_143,
            7_001_682_747,
            86_400_000_000_001,
            2_000_000_000_000_000,
        ]
        .map(|ns| ns as f64 / 1e9);
        for v in values.into_iter().chain(times) {
            let mut out = Vec::new();
            assert!(
                short_decimal(&mut out, v),
                "{v} should take the integer path"
            );
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string(&v).unwrap()
            );
        }
        // Not the nearest double to a short decimal, or out of range: declined.
        for v in [1.0 / 3.0, 0.1 + 0.2, 1e-4, 1e15, f64::MIN_POSITIVE, -1.5] {
            assert!(!short_decimal(&mut Vec::new(), v), "{v} should be declined");
        }
    }
}
