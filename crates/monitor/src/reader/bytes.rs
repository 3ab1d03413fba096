//! Re-reading open files and parsing them without allocating: `pread_all` into a buffer the
//! caller owns, and byte parsers for the procfs lines the sampler reads every tick.

use crate::profile::{self, Part};
use std::fs::File;
use truebench_host::parse::bytes;
use truebench_host::parse::cursor::Cursor;
use truebench_host::parse::stat::CpuTimes;
use truebench_model::timeline::CpuPct;

/// Read a whole small file at offset 0 into `buf` (reused); returns the bytes read.
/// procfs seq_files and sysfs attributes regenerate their content on a read at offset 0, so
/// no seek and no reopen is needed. A short read is the end: procfs and sysfs fill the
/// buffer as far as the content goes in one call, and asking again at an offset would make
/// a seq_file generate the whole file a second time (/proc/stat sums every CPU's counters).
/// A file longer than `buf` is cut at its length.
#[link_section = "truebench_tick"]
pub(crate) fn pread_all<'a>(f: &File, buf: &'a mut [u8]) -> std::io::Result<&'a [u8]> {
    let t = profile::start();
    let r = pread_from_0(f, buf);
    profile::end(Part::Read, t);
    r
}

/// `pread_all` with the error dropped — a failed read is an unknown figure — for the sampler's
/// every-tick reads: one copy of the read and of the error's disposal, called from each site,
/// instead of both inlined at every one (after 100 ms asleep each line of code a tick runs is
/// likely a cache miss).
#[inline(never)]
#[link_section = "truebench_tick"]
pub(crate) fn pread_ok<'a>(f: &File, buf: &'a mut [u8]) -> Option<&'a [u8]> {
    pread_all(f, buf).ok()
}

#[inline(always)]
fn pread_from_0<'a>(f: &File, buf: &'a mut [u8]) -> std::io::Result<&'a [u8]> {
    let mut n = 0;
    while n < buf.len() {
        // pread(2) as the system call itself (rustix), not through the C library: its
        // wrapper, a cancellation point, is code on pages of its own a tick would touch cold.
        match rustix::io::pread(f, &mut buf[n..], n as u64) {
            Ok(0) => break,
            Ok(k) if k < buf.len() - n => {
                n += k;
                break;
            }
            Ok(k) => n += k,
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(&buf[..n])
}

/// Leading (optionally negative) integer of a sysfs value, ignoring surrounding whitespace.
pub(crate) fn parse_i64(b: &[u8]) -> Option<i64> {
    bytes::i64_of(b)
}

/// The times of one `cpu…` line of /proc/stat, from the cursor (after the label) to the
/// line's end: up to ten numbers, stopping at the first that is not one; at least four.
#[link_section = "truebench_tick"]
fn cpu_fields(c: &mut Cursor<'_>) -> Option<CpuTimes> {
    let mut n = [0u64; 10];
    let mut got = 0;
    for slot in n.iter_mut() {
        match c.u64_token() {
            Some(v) => {
                *slot = v;
                got += 1;
            }
            None => break,
        }
    }
    (got >= 4).then(|| times(n))
}

/// The ten fields of a `cpu…` line in their order.
fn times(n: [u64; 10]) -> CpuTimes {
    CpuTimes {
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
    }
}

/// The aggregate `cpu ` line of /proc/stat, and optionally every `cpuN` line into `per_cpu`
/// (indexed by N; `None` for CPUs without a line, i.e. offline).
#[link_section = "truebench_tick"]
pub(crate) fn parse_stat(
    text: &[u8],
    per_cpu: Option<&mut Vec<Option<CpuTimes>>>,
) -> Option<CpuTimes> {
    let mut total = None;
    let mut per = per_cpu;
    if let Some(p) = per.as_deref_mut() {
        p.iter_mut().for_each(|x| *x = None);
    }
    let mut c = Cursor::new(text);
    // cpu lines come first; stop at the first other line (`intr` can be kilobytes long).
    while c.eat(b"cpu") {
        if c.peek() == Some(b' ') {
            total = cpu_fields(&mut c);
            if per.is_none() {
                break;
            }
        } else if let Some(p) = per.as_deref_mut() {
            let id = bytes::u64_of(c.digits()).and_then(|v| usize::try_from(v).ok());
            if let Some(slot) = id.and_then(|id| p.get_mut(id)) {
                *slot = cpu_fields(&mut c);
            }
        }
        if !c.next_line() {
            break;
        }
    }
    total
}

/// `v` of `total` (> 0) in per cent, rounded to 0.001 % of the machine: finer than anything
/// shown or judged from it, and a share that is the double nearest a short decimal prints
/// without a float formatter (`timeline::line`). Integer arithmetic and signed conversions:
/// no constant from the pool, which is pages away from the sampler's code. Not inlined: one
/// copy for the seven shares of a sample (see `pread_ok`).
#[inline(never)]
#[link_section = "truebench_tick"]
pub(crate) fn share_pct(v: u64, total: u64) -> f64 {
    match v
        .checked_mul(100_000)
        .and_then(|x| x.checked_add(total / 2))
    {
        Some(x) => (x / total) as i64 as f64 / bytes::f64_at_run_time(1000),
        None => share_pct_huge(v, total),
    }
}

/// `share_pct` for counts beyond 1.8e14 jiffies (never in practice), out of the hot code;
/// rounded to 0.001 % as well.
#[cold]
#[inline(never)]
fn share_pct_huge(v: u64, total: u64) -> f64 {
    (v as f64 * 100_000.0 / total as f64).round() / 1000.0
}

/// %-split between two /proc/stat readings, or None when no time passed.
#[link_section = "truebench_tick"]
pub fn cpu_pct(now: &CpuTimes, before: &CpuTimes) -> Option<CpuPct> {
    let d = now.delta(before);
    let total = d.total();
    if total == 0 {
        return None;
    }
    let p = |v: u64| share_pct(v, total);
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
#[link_section = "truebench_tick"]
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
                n = n.checked_add(z.checked_sub(a)?.checked_add(1)?)?;
            }
            None => {
                num(part)?;
                n = n.checked_add(1)?;
            }
        }
    }
    Some(n)
}

/// First field of /proc/loadavg.
pub(crate) fn load1(text: &[u8]) -> Option<f64> {
    let tok = text.split(|&c| c == b' ').next()?;
    bytes::f64_of(tok.trim_ascii()).filter(|v| *v >= 0.0)
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use truebench_host::parse::meminfo::Meminfo;

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

    /// The parse as it was written over `split` lines and tokens: the reference.
    fn stat_by_lines(text: &[u8], mut per: Option<&mut Vec<Option<CpuTimes>>>) -> Option<CpuTimes> {
        fn fields(rest: &[u8]) -> Option<CpuTimes> {
            let mut it = bytes::tokens(rest);
            let mut n = [0u64; 10];
            let mut got = 0;
            for slot in n.iter_mut() {
                match it.next().and_then(bytes::u64_of) {
                    Some(v) => {
                        *slot = v;
                        got += 1;
                    }
                    None => break,
                }
            }
            (got >= 4).then(|| times(n))
        }
        let mut total = None;
        if let Some(p) = per.as_deref_mut() {
            p.iter_mut().for_each(|x| *x = None);
        }
        for line in text.split(|&c| c == b'\n') {
            let Some(rest) = line.strip_prefix(b"cpu") else {
                break;
            };
            if rest.first() == Some(&b' ') {
                total = fields(rest);
                if per.is_none() {
                    break;
                }
            } else if let Some(p) = per.as_deref_mut() {
                let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
                let Some(id) = bytes::u64_of(&rest[..digits]).and_then(|v| usize::try_from(v).ok())
                else {
                    continue;
                };
                if let Some(slot) = p.get_mut(id) {
                    *slot = fields(&rest[digits..]);
                }
            }
        }
        total
    }

    /// /proc/stat-like texts: cpu lines with few, many, bad or huge numbers, unknown ids, and
    /// the lines that end the walk.
    fn stat_text() -> impl Strategy<Value = Vec<u8>> {
        let label = prop_oneof![
            Just("cpu ".to_string()),
            Just("cpu  ".to_string()),
            (0u32..6).prop_map(|i| format!("cpu{i} ")),
            Just("cpu".to_string()),
            Just("cpux ".to_string()),
            Just("intr ".to_string()),
        ];
        let num = prop_oneof![
            (0u64..10_000_000).prop_map(|v| v.to_string()),
            any::<u64>().prop_map(|v| v.to_string()),
            Just("18446744073709551616".to_string()),
            Just("-3".to_string()),
        ];
        let line =
            (label, prop::collection::vec((num, "[ \t]{1,3}"), 0..13)).prop_map(|(l, fields)| {
                let mut s = l;
                for (n, sep) in fields {
                    s.push_str(&n);
                    s.push_str(&sep);
                }
                s
            });
        prop::collection::vec(line, 0..9).prop_map(|l| l.join("\n").into_bytes())
    }

    proptest::proptest! {
        #[test]
        fn stat_one_walk_equals_the_line_by_line_parse(t in stat_text(), n in 0usize..5) {
            proptest::prop_assert_eq!(parse_stat(&t, None), stat_by_lines(&t, None));
            let (mut a, mut b) = (vec![Some(CpuTimes::default()); n], vec![None; n]);
            proptest::prop_assert_eq!(parse_stat(&t, Some(&mut a)), stat_by_lines(&t, Some(&mut b)));
            proptest::prop_assert_eq!(a, b);
        }
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
        // Rounded to 0.001 %: 28.5714… → 28.571, 47.619… → 47.619, 4.7619… → 4.762.
        assert_eq!(p.usr, 28.571);
        assert_eq!(p.cpu, 47.619);
        assert_eq!(p.irq, 4.762);
        assert_eq!(p.io, 4.762);
        assert_eq!(share_pct(1, 3), 33.333);
        assert_eq!(share_pct(2, 3), 66.667);
        assert_eq!(share_pct(7, 7), 100.0);
        assert_eq!(share_pct(0, 7), 0.0);
        // Counts too large for the integer path: the same rounding.
        assert_eq!(share_pct(1 << 60, 3 << 60), 33.333);
        assert_eq!(share_pct(2 << 60, 3 << 60), 66.667);
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
        assert_eq!(count_cpulist(b"0-4294967295"), None);
        let m = b"MemTotal:  100 kB\nSwapCached: 0 kB\nSwapTotal:     2097148 kB\nSwapFree:      2000000 kB\n";
        assert_eq!(Meminfo::parse(m).swap_used_kb(), Some(97148));
        assert_eq!(Meminfo::parse(b"MemTotal: 1 kB\n").swap_used_kb(), None);
        assert_eq!(load1(b"2.39 1.00 0.50 1/100 42\n"), Some(2.39));
        assert_eq!(load1(b"x"), None);
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
