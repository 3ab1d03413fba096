//! `/proc/diskstats`: I/O counters of every block device and partition.
//!
//! Fields after `major minor name` (Documentation/admin-guide/iostats.rst): reads completed,
//! reads merged, sectors read, ms reading, writes completed, writes merged, sectors written,
//! ms writing, I/Os in flight, ms doing I/O, weighted ms; since 4.18 four discard fields, since
//! 5.5 two flush fields. Kernels before 2.6.25 printed partitions with four fields (reads,
//! sectors read, writes, sectors written). Sectors are 512-byte units whatever the device's
//! sector size.

use super::bytes::{lines, tokens, u64_of};
use serde::{Deserialize, Serialize};

/// One device's counters (cumulative since boot; `unsigned long`, so 32 bits wide on 32-bit
/// kernels).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct DiskCounters {
    pub reads: u64,
    pub reads_merged: u64,
    pub sectors_read: u64,
    pub read_ms: u64,
    pub writes: u64,
    pub writes_merged: u64,
    pub sectors_written: u64,
    pub write_ms: u64,
    pub in_flight: u64,
    /// Time the device had I/O in flight (its "utilisation" numerator).
    pub io_ms: u64,
    pub weighted_io_ms: u64,
    /// 4.18+.
    pub discards: Option<u64>,
    pub sectors_discarded: Option<u64>,
    /// 5.5+.
    pub flushes: Option<u64>,
}

/// One line of /proc/diskstats.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DiskStat {
    pub major: u32,
    pub minor: u32,
    pub name: String,
    pub counters: DiskCounters,
}

/// The counters of one line after `major minor name`, or None when malformed.
fn counters(rest: &[u8]) -> Option<DiskCounters> {
    let mut v = [0u64; 17];
    let mut n = 0;
    for t in tokens(rest) {
        if n == v.len() {
            break;
        }
        v[n] = u64_of(t)?;
        n += 1;
    }
    match n {
        // Old partition lines: reads, sectors read, writes, sectors written.
        4 => Some(DiskCounters {
            reads: v[0],
            sectors_read: v[1],
            writes: v[2],
            sectors_written: v[3],
            ..Default::default()
        }),
        11.. => Some(DiskCounters {
            reads: v[0],
            reads_merged: v[1],
            sectors_read: v[2],
            read_ms: v[3],
            writes: v[4],
            writes_merged: v[5],
            sectors_written: v[6],
            write_ms: v[7],
            in_flight: v[8],
            io_ms: v[9],
            weighted_io_ms: v[10],
            discards: (n >= 15).then_some(v[11]),
            sectors_discarded: (n >= 15).then_some(v[13]),
            flushes: (n >= 17).then_some(v[15]),
        }),
        _ => None,
    }
}

/// Call `f(major, minor, name, counters)` for every well-formed line, without allocating.
pub fn for_each(text: &[u8], mut f: impl FnMut(u32, u32, &[u8], &DiskCounters)) {
    for line in lines(text) {
        let mut it = tokens(line);
        let (Some(maj), Some(min), Some(name)) = (it.next(), it.next(), it.next()) else {
            continue;
        };
        let (Some(maj), Some(min)) = (
            u64_of(maj).and_then(|v| u32::try_from(v).ok()),
            u64_of(min).and_then(|v| u32::try_from(v).ok()),
        ) else {
            continue;
        };
        // The rest of the line after the name.
        let off = name.as_ptr() as usize - line.as_ptr() as usize + name.len();
        if let Some(c) = counters(&line[off..]) {
            f(maj, min, name, &c);
        }
    }
}

pub fn parse(text: &str) -> Vec<DiskStat> {
    let mut out = Vec::new();
    for_each(text.as_bytes(), |major, minor, name, c| {
        out.push(DiskStat {
            major,
            minor,
            name: String::from_utf8_lossy(name).into_owned(),
            counters: *c,
        })
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_generations() {
        // Lines of procfs' fixture (Prometheus testdata): 11, 15 and 17 fields, and a 4-field
        // partition line of a 2.6.18 kernel.
        let t = "   1       0 ram0 0 0 0 0 0 0 0 0 0 0 0\n \
                 259       0 nvme0n1 47114 4 4643973 21650 1078320 43950 39451633 1011053 0 222766 1032546\n \
                   8       0 sdb 326552 841 9657779 84 41822 2895 1972905 5007 0 60730 67070 68851 0 1925173784 11130\n \
                 254       0 vda 49188 6115 4417930 108026 54170 66600 21135072 135391 0 21888 254577 63503 138 1475640 11127 393 31\n \
                   3       1 hda1 35486 38030 38030 38030\n\
                 garbage line\n   8 1 sda1 1 2 x 4 5 6 7 8 9 10 11\n";
        let d = parse(t);
        assert_eq!(d.len(), 5);
        assert_eq!(d[1].name, "nvme0n1");
        assert_eq!(d[1].counters.sectors_written, 39451633);
        assert_eq!(d[1].counters.io_ms, 222766);
        assert_eq!(d[1].counters.discards, None);
        assert_eq!(d[2].counters.discards, Some(68851));
        assert_eq!(d[2].counters.sectors_discarded, Some(1925173784));
        assert_eq!(d[2].counters.flushes, None);
        assert_eq!(d[3].counters.flushes, Some(393));
        assert_eq!((d[4].major, d[4].minor), (3, 1));
        assert_eq!(d[4].counters.writes, 38030);
        assert_eq!(d[4].counters.io_ms, 0);
    }
}
