//! `/proc/meminfo`.

use super::bytes::{newline, word_at};
use super::cursor::Cursor;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A kB figure whose bytes do not fit 64 bits is no real reading (a broken driver, an edited
/// file): unknown, so that no conversion to bytes can wrap.
const MAX_KB: u64 = u64::MAX / 1024;

/// Values in kB keyed by name (`MemTotal`, `SwapFree`, …). Lines that do not parse are skipped.
pub fn parse(text: &str) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for line in text.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let mut it = v.split_whitespace();
        let Some(n) = it
            .next()
            .and_then(|n| n.parse::<u64>().ok())
            .filter(|&n| n <= MAX_KB)
        else {
            continue;
        };
        // Values are kB except the HugePages_* counters, which have no unit.
        m.insert(k.trim().to_string(), n);
    }
    m
}

/// How many fields [`Meminfo`] has.
const FIELDS: usize = 11;

/// The fields of /proc/meminfo truebench uses, in kB; `None` when the line is missing or
/// malformed. Parsed from bytes without allocating, so the sampler can re-read it each tick.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct Meminfo {
    pub mem_total_kb: Option<u64>,
    pub mem_free_kb: Option<u64>,
    /// The kernel's estimate of memory available without swapping (3.14+).
    pub mem_available_kb: Option<u64>,
    pub buffers_kb: Option<u64>,
    /// Page cache (excluding swap cache).
    pub cached_kb: Option<u64>,
    pub swap_cached_kb: Option<u64>,
    /// Waiting to be written back to storage.
    pub dirty_kb: Option<u64>,
    /// Being written back right now.
    pub writeback_kb: Option<u64>,
    pub shmem_kb: Option<u64>,
    pub swap_total_kb: Option<u64>,
    pub swap_free_kb: Option<u64>,
}

impl Meminfo {
    #[link_section = ".text.hot"]
    pub fn parse(text: &[u8]) -> Meminfo {
        let mut m = Meminfo::default();
        // The fields wanted are in the first third of the file: stop once all were seen (the
        // sampler parses it every tick; on a kernel lacking one, the whole file is read).
        let mut seen = 0;
        let mut line = text;
        while seen < FIELDS {
            if let Some((slot, at)) = m.slot(line) {
                *slot = Cursor::new(&line[at..])
                    .u64_token()
                    .filter(|&n| n <= MAX_KB);
                seen += 1;
            }
            match newline(line) {
                Some(end) => line = &line[end + 1..],
                None => break,
            }
        }
        m
    }

    /// The field a line fills when the part before its first colon is one of the wanted keys
    /// (the line then starts with the key and a colon), and where its figure starts. Compared
    /// as one 8-byte word and a short tail, the keys as constants in the code: no search for
    /// the colon, no table of keys in read-only data (one more page the sampler would touch
    /// cold every tick).
    #[link_section = ".text.hot"]
    fn slot(&mut self, line: &[u8]) -> Option<(&mut Option<u64>, usize)> {
        const fn word(key: &[u8]) -> u64 {
            let mut w = [0u8; 8];
            let mut i = 0;
            while i < 8 && i < key.len() {
                w[i] = key[i];
                i += 1;
            }
            u64::from_le_bytes(w)
        }
        /// The low `n` bytes of a word.
        const fn low(n: u32) -> u64 {
            if n >= 8 {
                u64::MAX
            } else {
                (1u64 << (8 * n)) - 1
            }
        }
        let head = word_at(line, 0);
        let n = line.len().min(8);
        // Keys of at most eight bytes with their colon: the line's first bytes, masked. One
        // comparison each with an immediate: no array of candidates built per line.
        if n == 8 {
            if head == word(b"MemFree:") {
                return Some((&mut self.mem_free_kb, 8));
            }
            if head == word(b"Buffers:") {
                return Some((&mut self.buffers_kb, 8));
            }
        }
        if n >= 7 && head & low(7) == word(b"Cached:") {
            return Some((&mut self.cached_kb, 7));
        }
        if n >= 6 {
            if head & low(6) == word(b"Dirty:") {
                return Some((&mut self.dirty_kb, 6));
            }
            if head & low(6) == word(b"Shmem:") {
                return Some((&mut self.shmem_kb, 6));
            }
        }
        if n < 8 {
            return None;
        }
        // Longer keys: the first eight bytes, then the rest with the colon, also as a word
        // (a byte-string comparison would read the rest from read-only data).
        let (slot, rest, len): (&mut Option<u64>, u64, u32) = match head {
            h if h == word(b"MemTotal") => (&mut self.mem_total_kb, word(b":"), 1),
            h if h == word(b"MemAvail") => (&mut self.mem_available_kb, word(b"able:"), 5),
            h if h == word(b"SwapCach") => (&mut self.swap_cached_kb, word(b"ed:"), 3),
            h if h == word(b"Writebac") => (&mut self.writeback_kb, word(b"k:"), 2),
            h if h == word(b"SwapTota") => (&mut self.swap_total_kb, word(b"l:"), 2),
            h if h == word(b"SwapFree") => (&mut self.swap_free_kb, word(b":"), 1),
            _ => return None,
        };
        let hit = line.len() >= 8 + len as usize && word_at(line, 8) & low(len) == rest;
        hit.then_some((slot, 8 + len as usize))
    }

    /// `SwapTotal - SwapFree` (every swap device together).
    pub fn swap_used_kb(&self) -> Option<u64> {
        Some(self.swap_total_kb?.saturating_sub(self.swap_free_kb?))
    }
}

#[cfg(test)]
mod tests {
    use super::super::bytes::{first_token, lines, u64_of};
    use super::*;
    use proptest::prelude::*;

    /// The parse as it was written over `lines` and `first_token`: the reference the one-walk
    /// parse must equal.
    fn by_lines(text: &[u8]) -> Meminfo {
        let mut m = Meminfo::default();
        let mut seen = 0;
        for line in lines(text) {
            if seen == FIELDS {
                break;
            }
            let Some(colon) = line.iter().position(|&b| b == b':') else {
                continue;
            };
            let slot = match &line[..colon] {
                b"MemTotal" => &mut m.mem_total_kb,
                b"MemFree" => &mut m.mem_free_kb,
                b"MemAvailable" => &mut m.mem_available_kb,
                b"Buffers" => &mut m.buffers_kb,
                b"Cached" => &mut m.cached_kb,
                b"SwapCached" => &mut m.swap_cached_kb,
                b"Dirty" => &mut m.dirty_kb,
                b"Writeback" => &mut m.writeback_kb,
                b"Shmem" => &mut m.shmem_kb,
                b"SwapTotal" => &mut m.swap_total_kb,
                b"SwapFree" => &mut m.swap_free_kb,
                _ => continue,
            };
            *slot = first_token(&line[colon + 1..])
                .and_then(u64_of)
                .filter(|&n| n <= MAX_KB);
            seen += 1;
        }
        m
    }

    /// Lines as the kernel writes them, and broken ones: known and unknown keys, a key twice,
    /// missing colons, blanks, bad and huge numbers.
    fn meminfo_text() -> impl Strategy<Value = Vec<u8>> {
        let key = prop::sample::select(vec![
            "MemTotal",
            "MemFree",
            "MemAvailable",
            "Buffers",
            "Cached",
            "SwapCached",
            "Dirty",
            "Writeback",
            "Shmem",
            "SwapTotal",
            "SwapFree",
            "Active(anon)",
            "HugePages_Total",
            "",
        ]);
        let value = prop_oneof![
            any::<u64>().prop_map(|v| v.to_string()),
            (0u64..100_000_000).prop_map(|v| v.to_string()),
            Just("18014398509481984".to_string()),
            Just("x1".to_string()),
            Just(String::new()),
        ];
        let line = (
            key,
            any::<bool>(),
            "[ \\t]{0,9}",
            value,
            prop::sample::select(vec![" kB", "", "kB", "\t7"]),
        )
            .prop_map(|(k, colon, pad, v, unit)| {
                format!("{k}{}{pad}{v}{unit}", if colon { ":" } else { "" })
            });
        (prop::collection::vec(line, 0..40), any::<bool>()).prop_map(|(lines, end)| {
            let mut t = lines.join("\n");
            if end {
                t.push('\n');
            }
            t.into_bytes()
        })
    }

    proptest! {
        #[test]
        fn one_walk_equals_the_line_by_line_parse(t in meminfo_text()) {
            prop_assert_eq!(Meminfo::parse(&t), by_lines(&t));
        }

        #[test]
        fn any_bytes_parse_as_line_by_line(t in prop::collection::vec(any::<u8>(), 0..200)) {
            prop_assert_eq!(Meminfo::parse(&t), by_lines(&t));
        }
    }

    #[test]
    fn parses_kb_and_unitless() {
        let m = super::parse(
            "MemTotal:       16314512 kB\nHugePages_Total:       0\ngarbage\nX: y kB\n",
        );
        assert_eq!(m["MemTotal"], 16314512);
        assert_eq!(m["HugePages_Total"], 0);
        assert_eq!(m.len(), 2);
    }

    #[test]
    fn a_missing_field_does_not_hide_the_ones_after_it() {
        // No MemAvailable (kernels before 3.14): the rest of the file is still read.
        let t = b"MemTotal: 100 kB\nMemFree: 50 kB\nBuffers: 1 kB\nCached: 2 kB\nSwapCached: 0 kB\nDirty: 3 kB\nWriteback: 4 kB\nAnonPages: 9 kB\nShmem: 5 kB\nSwapTotal: 8 kB\nSwapFree: 6 kB\n";
        let m = Meminfo::parse(t);
        assert_eq!(m.mem_available_kb, None);
        assert_eq!((m.shmem_kb, m.swap_used_kb()), (Some(5), Some(2)));
    }

    #[test]
    fn typed_fields() {
        // The head of procfs' fixture meminfo (Prometheus procfs testdata).
        let t = b"MemTotal:       15666184 kB\nMemFree:          440324 kB\nBuffers:         1020128 kB\nCached:         12007640 kB\nSwapCached:            0 kB\nActive:          6761276 kB\nDirty:               768 kB\nWriteback:             0 kB\nShmem:            214836 kB\nSwapTotal:             0 kB\nSwapFree:              0 kB\n";
        let m = Meminfo::parse(t);
        assert_eq!(m.mem_total_kb, Some(15666184));
        assert_eq!(m.cached_kb, Some(12007640));
        assert_eq!(m.dirty_kb, Some(768));
        assert_eq!(m.mem_available_kb, None);
        assert_eq!(m.swap_used_kb(), Some(0));
        let m = Meminfo::parse(b"SwapTotal: 2097148 kB\nSwapFree: 2000000 kB\nSwapCached: x kB\n");
        assert_eq!(m.swap_used_kb(), Some(97148));
        assert_eq!(m.swap_cached_kb, None);
        assert_eq!(Meminfo::parse(b"\xff\0:").swap_used_kb(), None);
        // Found by fuzzing: a figure whose bytes overflow 64 bits is unknown, not wrapped.
        let m = Meminfo::parse(b"MemTotal: 18446744073709551615 kB\n");
        assert_eq!(m.mem_total_kb, None);
        assert!(!super::parse("MemTotal: 18446744073709551615 kB\n").contains_key("MemTotal"));
    }
}
