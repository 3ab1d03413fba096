//! `/proc/net/dev`: per-interface byte and packet counters.

use super::bytes::{lines, tokens, u64_of};
use serde::{Deserialize, Serialize};

#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct NetCounters {
    pub rx_bytes: u64,
    pub rx_packets: u64,
    pub rx_errors: u64,
    pub rx_dropped: u64,
    pub tx_bytes: u64,
    pub tx_packets: u64,
    pub tx_errors: u64,
    pub tx_dropped: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NetDev {
    pub name: String,
    pub counters: NetCounters,
}

/// Call `f(name, counters)` for every interface line, without allocating. The two header lines
/// and malformed lines are skipped.
pub fn for_each(text: &[u8], mut f: impl FnMut(&[u8], &NetCounters)) {
    for line in lines(text) {
        // `  eth0: 874354587 1036395 …`; kernels before 2.6.x glued the first number to the
        // colon (`eth0:874354587`), so split at the colon, not at whitespace.
        let Some(colon) = line.iter().rposition(|&c| c == b':') else {
            continue;
        };
        let name = line[..colon].trim_ascii();
        if name.is_empty() || name.contains(&b'|') {
            continue;
        }
        let mut v = [0u64; 16];
        let mut n = 0;
        let mut ok = true;
        for t in tokens(&line[colon + 1..]) {
            if n == v.len() {
                break;
            }
            match u64_of(t) {
                Some(x) => v[n] = x,
                None => {
                    ok = false;
                    break;
                }
            }
            n += 1;
        }
        if !ok || n < 16 {
            continue;
        }
        f(
            name,
            &NetCounters {
                rx_bytes: v[0],
                rx_packets: v[1],
                rx_errors: v[2],
                rx_dropped: v[3],
                tx_bytes: v[8],
                tx_packets: v[9],
                tx_errors: v[10],
                tx_dropped: v[11],
            },
        );
    }
}

pub fn parse(text: &str) -> Vec<NetDev> {
    let mut out = Vec::new();
    for_each(text.as_bytes(), |name, c| {
        out.push(NetDev {
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
    fn procfs_fixture() {
        // Prometheus procfs testdata fixtures/proc/net/dev, plus a glued old-style line and junk.
        let t = "Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\nvethf345468:     648       8    0    0    0     0          0         0      438       5    0    0    0     0       0          0\n    lo: 1664039048 1566805    0    0    0     0          0         0 1664039048 1566805    0    0    0     0       0          0\n  eth0: 874354587 1036395    0    0    0     0          0         0 563352563  732147    0    0    0     0       0          0\n  old:12 1 2 3 0 0 0 0 34 4 5 6 0 0 0 0\n  bad: 1 2 3\n";
        let d = parse(t);
        assert_eq!(d.len(), 4);
        assert_eq!(d[0].name, "vethf345468");
        assert_eq!(d[2].counters.rx_bytes, 874354587);
        assert_eq!(d[2].counters.tx_packets, 732147);
        assert_eq!(d[3].counters.rx_bytes, 12);
        assert_eq!(d[3].counters.tx_bytes, 34);
        assert_eq!(d[3].counters.tx_dropped, 6);
    }
}
