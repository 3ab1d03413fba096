//! Re-reading open files and parsing them without allocating: `pread_all` into a buffer the
//! caller owns, and byte parsers for the procfs lines the sampler reads every tick.

use crate::timeline::CpuPct;
use std::fs::File;
use std::os::unix::fs::FileExt;
use truebench_host::parse::bytes;
use truebench_host::parse::stat::CpuTimes;

/// Read a whole small file at offset 0 into `buf` (reused); returns the bytes read.
/// procfs seq_files and sysfs attributes regenerate their content on a read at offset 0, so
/// no seek and no reopen is needed. A short read is the end: procfs and sysfs fill the
/// buffer as far as the content goes in one call, and asking again at an offset would make
/// a seq_file generate the whole file a second time (/proc/stat sums every CPU's counters).
/// A file longer than `buf` is cut at its length.
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
    bytes::i64_of(b)
}

/// The next unsigned decimal token of a whitespace split; None at the end or on a bad token.
pub(crate) fn next_u64(it: &mut std::slice::Split<'_, u8, impl FnMut(&u8) -> bool>) -> Option<u64> {
    it.by_ref().find(|t| !t.is_empty()).and_then(bytes::u64_of)
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
            let Some(id) = bytes::u64_of(&rest[..digits]).and_then(|v| usize::try_from(v).ok())
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
