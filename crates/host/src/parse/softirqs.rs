//! `/proc/softirqs`: how many times each softirq ran on each CPU (counts, not time; the time
//! spent in softirq context is the `softirq` column of /proc/stat).
//!
//! The header names the columns (`CPU0 CPU1 …`, one per possible CPU); each row is `NAME:`
//! followed by one count per column.

use super::bytes::{lines, tokens, u64_of};
use super::cursor::Cursor;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Softirqs {
    /// CPU number of each column.
    pub cpus: Vec<u32>,
    /// `(name, count per column)`, e.g. `("NET_RX", [55919, 28694])`.
    pub rows: Vec<(String, Vec<u64>)>,
}

impl Softirqs {
    pub fn row(&self, name: &str) -> Option<&[u64]> {
        self.rows
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }
}

/// CPU numbers of the header's columns; tokens that are not `CPU<n>` end the list.
pub fn for_each_column(text: &[u8], mut f: impl FnMut(u32)) {
    let Some(head) = lines(text).next() else {
        return;
    };
    for t in tokens(head) {
        match t
            .strip_prefix(b"CPU")
            .and_then(u64_of)
            .and_then(|v| u32::try_from(v).ok())
        {
            Some(c) => f(c),
            None => return,
        }
    }
}

/// Fill `out[i]` with column i of row `name` (`NET_RX`, `BLOCK`…); columns the line lacks or
/// that do not parse become None. Returns false when the row is missing. Does not allocate.
pub fn fill_row(text: &[u8], name: &[u8], out: &mut [Option<u64>]) -> bool {
    out.iter_mut().for_each(|v| *v = None);
    for line in lines(text).skip(1) {
        let l = line.trim_ascii_start();
        let Some(rest) = l.strip_prefix(name).and_then(|r| r.strip_prefix(b":")) else {
            continue;
        };
        for (slot, t) in out.iter_mut().zip(tokens(rest)) {
            *slot = u64_of(t);
        }
        return true;
    }
    false
}

/// [`fill_row`] for several rows in one pass over the text: `out[k]` gets row `names[k]`, as
/// `fill_row(text, names[k], &mut out[k])` would fill it (the first row of that name; every
/// slot None when it is missing). At most 64 names are looked for; rows of `out` past them
/// are left as they are. Does not allocate.
pub fn fill_rows(text: &[u8], names: &[&[u8]], out: &mut [Vec<Option<u64>>]) {
    let wanted = names.len().min(out.len()).min(64);
    out[..wanted].iter_mut().flatten().for_each(|v| *v = None);
    // Rows found so far, by bit.
    let all = if wanted == 64 {
        u64::MAX
    } else {
        (1u64 << wanted) - 1
    };
    let mut found = 0u64;
    for line in lines(text).skip(1) {
        if found == all {
            break;
        }
        let l = line.trim_ascii_start();
        let Some(&first) = l.first() else {
            continue;
        };
        for (k, name) in names[..wanted].iter().enumerate() {
            // The first byte tells most rows apart without comparing the whole name.
            if found & (1 << k) != 0 || name.first().is_some_and(|&b| b != first) {
                continue;
            }
            let Some(rest) = l.strip_prefix(*name).and_then(|r| r.strip_prefix(b":")) else {
                continue;
            };
            found |= 1 << k;
            // One pass over each count (as `tokens` then `u64_of` would read it): the sampler
            // reads three rows of a count per CPU every tick.
            let mut c = Cursor::new(rest);
            for slot in out[k].iter_mut() {
                *slot = c.u64_token();
            }
        }
    }
}

pub fn parse(text: &str) -> Softirqs {
    let b = text.as_bytes();
    let mut s = Softirqs::default();
    for_each_column(b, |c| s.cpus.push(c));
    for line in text.lines().skip(1) {
        let Some((name, rest)) = line.split_once(':') else {
            continue;
        };
        let vals: Option<Vec<u64>> = rest
            .split_whitespace()
            .take(s.cpus.len())
            .map(|t| t.parse().ok())
            .collect();
        if let Some(v) = vals.filter(|v| v.len() == s.cpus.len()) {
            s.rows.push((name.trim().to_string(), v));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    // Prometheus procfs testdata fixtures/proc/softirqs.
    const T: &str = "                    CPU0       CPU1       \n          HI:          3          0\n       TIMER:    2776180     247490\n      NET_TX:       2419        772\n      NET_RX:      55919      28694\n       BLOCK:     174915     262755\n    IRQ_POLL:          0          0\n     TASKLET:        209         75\n       SCHED:    2278692     815209\n     HRTIMER:       1281        220\n         RCU:     605871     532783\n";

    #[test]
    fn rows_and_columns() {
        let s = parse(T);
        assert_eq!(s.cpus, [0, 1]);
        assert_eq!(s.rows.len(), 10);
        assert_eq!(s.row("NET_RX"), Some(&[55919, 28694][..]));
        let mut out = [None; 3];
        assert!(fill_row(T.as_bytes(), b"BLOCK", &mut out));
        assert_eq!(out, [Some(174915), Some(262755), None]);
        assert!(!fill_row(T.as_bytes(), b"NOPE", &mut out));
        // `NET_RX` must not match a `NET_RXX` row, nor `TX` `NET_TX`.
        assert!(!fill_row(b"CPU0\nNET_RXX: 5\n", b"NET_RX", &mut out));
        assert!(!fill_row(b"CPU0\nNET_TX: 5\n", b"TX", &mut out));
        assert_eq!(parse("garbage").cpus, Vec::<u32>::new());
    }

    #[test]
    fn rows_in_one_pass_are_the_rows_one_by_one() {
        let names: [&[u8]; 6] = [b"NET_RX", b"NET_TX", b"BLOCK", b"NET_RX", b"A:B", b""];
        for text in [
            b"CPU0\nA:B: 3 4\n: 5\n",
            T.as_bytes(),
            b"CPU0 CPU1\nNET_RX: x 4\nNET_RX: 1 2\nBLOCK: 7\n",
            b"CPU0\nNET_RXX: 5\n NET_TX:9\n",
            // Tabs, a count past 19 digits, one past 64 bits, a stray byte, trailing blanks.
            concat!(
                "CPU0 CPU1 CPU2\nNET_RX:\t1\t 99999999999999999999 x7\n",
                "BLOCK: 18446744073709551615 18446744073709551616 3\r  \n"
            )
            .as_bytes(),
            b"",
        ] {
            let mut rows = vec![vec![Some(99); 3]; names.len()];
            fill_rows(text, &names, &mut rows);
            for (name, row) in names.iter().zip(&rows) {
                let mut one = [Some(99); 3];
                fill_row(text, name, &mut one);
                assert_eq!(row[..], one[..], "{text:?} {name:?}");
            }
        }
    }

    #[test]
    fn sparse_cpu_numbers() {
        // CPUs 0 and 2 possible only (a hotplug-limited VM).
        let s = parse("  CPU0 CPU2\nNET_RX: 1 2\nBAD: 1\n");
        assert_eq!(s.cpus, [0, 2]);
        assert_eq!(s.rows.len(), 1);
    }
}
