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

/// The low `n` bytes of a word.
const fn low(n: u32) -> u64 {
    if n >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * n)) - 1
    }
}

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
    #[link_section = "truebench_tick"]
    pub fn parse(text: &[u8]) -> Meminfo {
        Meminfo::walk(text, |_, _, _| {})
    }

    /// The parse, telling `hit` each wanted line it takes: (field, where its line starts,
    /// where its figure may start — just after the key's colon).
    #[inline(always)]
    fn walk(text: &[u8], mut hit: impl FnMut(usize, usize, usize)) -> Meminfo {
        let mut v = [None; FIELDS];
        // The fields wanted are in the first third of the file: stop once all were seen (the
        // sampler parses it every tick; on a kernel lacking one, the whole file is read).
        let mut seen = 0;
        let mut start = 0;
        while seen < FIELDS {
            let line = &text[start..];
            if let Some((f, at)) = Meminfo::field(line) {
                v[f] = Cursor::new(&line[at..])
                    .u64_token()
                    .filter(|&n| n <= MAX_KB);
                hit(f, start, start + at);
                seen += 1;
            }
            match newline(line) {
                Some(end) => start += end + 1,
                None => break,
            }
        }
        Meminfo::from_slots(v)
    }

    /// The fields as numbered by `field`, from an array indexed by that number: one
    /// straight run of moves, where storing each through a `match` on the number compiles
    /// to a jump table — a read-only page of its own the sampler would touch every tick.
    #[inline(always)]
    fn from_slots(v: [Option<u64>; FIELDS]) -> Meminfo {
        Meminfo {
            mem_free_kb: v[0],
            buffers_kb: v[1],
            cached_kb: v[2],
            dirty_kb: v[3],
            shmem_kb: v[4],
            mem_total_kb: v[5],
            mem_available_kb: v[6],
            swap_cached_kb: v[7],
            writeback_kb: v[8],
            swap_total_kb: v[9],
            swap_free_kb: v[10],
        }
    }

    /// The field (0 to `FIELDS - 1`) a line fills when the part before its first colon is
    /// one of the wanted keys (the line then starts with the key and a colon), and where its
    /// figure starts. Compared as one 8-byte word and a short tail, the keys as constants in
    /// the code: no search for the colon, no table of keys in read-only data (one more page
    /// the sampler would touch cold every tick).
    #[link_section = "truebench_tick"]
    fn field(line: &[u8]) -> Option<(usize, usize)> {
        const fn word(key: &[u8]) -> u64 {
            let mut w = [0u8; 8];
            let mut i = 0;
            while i < 8 && i < key.len() {
                w[i] = key[i];
                i += 1;
            }
            u64::from_le_bytes(w)
        }
        let head = word_at(line, 0);
        let n = line.len().min(8);
        // Keys of at most eight bytes with their colon: the line's first bytes, masked. One
        // comparison each with an immediate: no array of candidates built per line.
        if n == 8 {
            if head == word(b"MemFree:") {
                return Some((0, 8));
            }
            if head == word(b"Buffers:") {
                return Some((1, 8));
            }
        }
        if n >= 7 && head & low(7) == word(b"Cached:") {
            return Some((2, 7));
        }
        if n >= 6 {
            if head & low(6) == word(b"Dirty:") {
                return Some((3, 6));
            }
            if head & low(6) == word(b"Shmem:") {
                return Some((4, 6));
            }
        }
        if n < 8 {
            return None;
        }
        // Longer keys: the first eight bytes, then the rest with the colon, also as a word
        // (a byte-string comparison would read the rest from read-only data).
        let (f, rest, len): (usize, u64, u32) = match head {
            h if h == word(b"MemTotal") => (5, word(b":"), 1),
            h if h == word(b"MemAvail") => (6, word(b"able:"), 5),
            h if h == word(b"SwapCach") => (7, word(b"ed:"), 3),
            h if h == word(b"Writebac") => (8, word(b"k:"), 2),
            h if h == word(b"SwapTota") => (9, word(b"l:"), 2),
            h if h == word(b"SwapFree") => (10, word(b":"), 1),
            _ => return None,
        };
        let hit = line.len() >= 8 + len as usize && word_at(line, 8) & low(len) == rest;
        hit.then_some((f, 8 + len as usize))
    }

    /// `SwapTotal - SwapFree` (every swap device together).
    pub fn swap_used_kb(&self) -> Option<u64> {
        Some(self.swap_total_kb?.saturating_sub(self.swap_free_kb?))
    }
}

/// Where the wanted lines were in the last /proc/meminfo parsed through it, so that the next
/// parse of the same kernel's file reads those eleven lines only: the sampler parses the file
/// every tick, and walking its first two dozen lines to find them was 40 % of a tick's
/// instructions. The kernel writes the lines in a fixed order with each figure padded to eight
/// digits, so they stay where they were until a figure outgrows its padding.
///
/// Each remembered line is checked before it is read: it must still start a line and hold
/// its key and colon; a figure is taken from where it began last time only when the bytes
/// between the colon and there are all spaces (else from the colon, as the full parse does).
/// When any check fails, or the last parse did not find all fields, the full parse runs and
/// the places are taken again. The result is then the full parse's for any file in which each
/// wanted key starts one line at most — as the kernel writes it (a file repeating a key could
/// have its first copy skipped).
#[derive(Debug, Clone, Default)]
pub struct MeminfoLayout {
    /// Per wanted line, in the file's order: the field, where its line starts, where its
    /// figure started.
    at: [(u8, u32, u32); FIELDS],
    /// How many of `at` hold a place: FIELDS when the places can be used.
    n: usize,
}

impl MeminfoLayout {
    /// `Meminfo::parse(text)`, from the remembered places when they still hold.
    #[link_section = "truebench_tick"]
    pub fn parse(&mut self, text: &[u8]) -> Meminfo {
        if let Some(m) = self.remembered(text) {
            return m;
        }
        self.n = 0;
        let mut n = 0;
        let mut at = [(0u8, 0u32, 0u32); FIELDS];
        let m = Meminfo::walk(text, |f, line, colon| {
            let fig = colon + blanks(&text[colon..]);
            if let (Some(slot), Ok(l), Ok(g)) =
                (at.get_mut(n), u32::try_from(line), u32::try_from(fig))
            {
                *slot = (f as u8, l, g);
                n += 1;
            }
        });
        // Places are used only when every field was found once each.
        let mut fields = 0u32;
        for &(f, ..) in &at[..n] {
            fields |= 1 << f;
        }
        if n == FIELDS && fields == (1 << FIELDS) - 1 {
            self.at = at;
            self.n = n;
        }
        m
    }

    #[inline(always)]
    fn remembered(&self, text: &[u8]) -> Option<Meminfo> {
        if self.n != FIELDS {
            return None;
        }
        let mut v = [None; FIELDS];
        for &(f, line, fig) in &self.at {
            let (line, fig) = (line as usize, fig as usize);
            if line > 0 && text.get(line - 1) != Some(&b'\n') {
                return None;
            }
            let (g, at) = Meminfo::field(text.get(line..)?)?;
            if g != f as usize {
                return None;
            }
            let colon = line + at;
            // Only spaces between the colon and the figure's old start: the token starts
            // where the full parse's walk over the blanks would take it.
            let from = if spaces(text, colon, fig) { fig } else { colon };
            *v.get_mut(g)? = Cursor::new(&text[from..])
                .u64_token()
                .filter(|&n| n <= MAX_KB);
        }
        Some(Meminfo::from_slots(v))
    }
}

/// How many blanks (spaces and tabs) `b` starts with.
fn blanks(b: &[u8]) -> usize {
    b.iter().take_while(|&&c| c == b' ' || c == b'\t').count()
}

/// Whether `text[from..to]` is all spaces, eight bytes per step (a figure is padded with up to
/// fifteen); false when the range runs past the text's end.
#[inline(always)]
fn spaces(text: &[u8], from: usize, to: usize) -> bool {
    const SPACES: u64 = u64::from_ne_bytes([b' '; 8]);
    let mut i = from;
    while i < to {
        let n = (to - i).min(8) as u32;
        if (word_at(text, i) ^ SPACES) & low(n) != 0 {
            return false;
        }
        i += 8;
    }
    true
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

    /// The keys `Meminfo` takes.
    const WANTED: [&str; FIELDS] = [
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
    ];

    /// Lines as the kernel writes them, and broken ones: known and unknown keys, a key twice,
    /// missing colons, blanks, bad and huge numbers.
    fn meminfo_text() -> impl Strategy<Value = Vec<u8>> {
        let mut keys = WANTED.to_vec();
        keys.extend(["Active(anon)", "HugePages_Total", ""]);
        let key = prop::sample::select(keys);
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

    /// Runs of texts in which each key starts one line at most, in one order for the run,
    /// among other lines, the figures and the spaces before them changing from text to text:
    /// what `MeminfoLayout` must parse as the full parse does. Mostly with every wanted key,
    /// so that its places are used.
    fn unique_key_texts() -> impl Strategy<Value = Vec<Vec<u8>>> {
        let wanted = WANTED.to_vec();
        let others = vec!["Active(anon)", "HugePages_Total", "Mlocked"];
        let all: Vec<&str> = wanted.iter().chain(&others).copied().collect();
        let keys = prop_oneof![
            3 => prop::sample::subsequence(others, 0..=3).prop_map(move |o| {
                let mut k = wanted.clone();
                k.extend(o);
                k
            }),
            1 => prop::sample::subsequence(all.clone(), 0..=all.len()),
        ]
        .prop_shuffle();
        let value = prop_oneof![
            4 => (0u64..100_000_000).prop_map(|v| v.to_string()),
            1 => (0u64..u64::MAX).prop_map(|v| v.to_string()),
            1 => Just("x1".to_string()),
        ];
        let rest = (
            prop_oneof![6 => Just(true), 1 => Just(false)],
            prop_oneof![3 => Just("       ".to_string()), 1 => "[ \\t]{0,17}"],
            value,
            prop::sample::select(vec![" kB", "", "\t7"]),
        );
        keys.prop_flat_map(move |ks| {
            let n = ks.len();
            let rests = prop::collection::vec(rest.clone(), n);
            (Just(ks), prop::collection::vec(rests, 1..5))
        })
        .prop_map(|(ks, runs)| {
            runs.into_iter()
                .map(|rests| {
                    let mut t = String::new();
                    for (k, (colon, pad, v, unit)) in ks.iter().zip(rests) {
                        let colon = if colon { ":" } else { "" };
                        t.push_str(&format!("{k}{colon}{pad}{v}{unit}\n"));
                    }
                    t.into_bytes()
                })
                .collect()
        })
    }

    /// /proc/meminfo as the kernel writes it (`show_val_kb`: the key and colon padded to
    /// sixteen columns, the figure to eight) with the given figures.
    fn kernel_text(figures: &[u64]) -> Vec<u8> {
        const KEYS: [&str; 14] = [
            "MemTotal",
            "MemFree",
            "MemAvailable",
            "Buffers",
            "Cached",
            "SwapCached",
            "Active",
            "Inactive",
            "SwapTotal",
            "SwapFree",
            "Dirty",
            "Writeback",
            "AnonPages",
            "Shmem",
        ];
        let mut t = String::new();
        for (k, v) in KEYS.iter().zip(figures) {
            t.push_str(&format!("{:<16}{v:>8} kB\n", format!("{k}:")));
        }
        t.push_str("HugePages_Total:       0\n");
        t.into_bytes()
    }

    proptest! {
        #[test]
        fn remembered_places_parse_as_the_full_parse(
            runs in prop::collection::vec(unique_key_texts(), 1..3),
        ) {
            let mut layout = MeminfoLayout::default();
            for t in runs.iter().flatten() {
                prop_assert_eq!(layout.parse(t), Meminfo::parse(t));
                // Twice: the second from the places the first took.
                prop_assert_eq!(layout.parse(t), Meminfo::parse(t));
            }
        }

        #[test]
        fn figures_growing_past_their_padding_move_the_places(
            runs in prop::collection::vec(
                prop::collection::vec(
                    prop_oneof![4 => 0u64..100_000_000, 1 => 0u64..1 << 40],
                    14,
                ),
                1..6,
            ),
        ) {
            let mut layout = MeminfoLayout::default();
            for figures in &runs {
                let t = kernel_text(figures);
                let want = Meminfo::parse(&t);
                prop_assert_eq!(layout.parse(&t), want);
                prop_assert_eq!(layout.n, FIELDS);
            }
        }
    }

    #[test]
    fn places_are_taken_only_when_every_field_was_found() {
        let full = kernel_text(&[
            16314512, 440324, 9000000, 1020128, 12007640, 0, 1, 2, 2097148, 2000000, 768, 0, 5,
            214836,
        ]);
        let mut layout = MeminfoLayout::default();
        assert_eq!(layout.parse(&full), Meminfo::parse(&full));
        assert_eq!(layout.n, FIELDS);
        assert_eq!(layout.parse(&full).dirty_kb, Some(768));
        // No MemAvailable (kernels before 3.14): the full parse each time.
        let old = b"MemTotal: 100 kB\nMemFree: 50 kB\nBuffers: 1 kB\nCached: 2 kB\nSwapCached: 0 kB\nDirty: 3 kB\nWriteback: 4 kB\nShmem: 5 kB\nSwapTotal: 8 kB\nSwapFree: 6 kB\n";
        assert_eq!(layout.parse(old), Meminfo::parse(old));
        assert_eq!(layout.n, 0);
        // A key no longer at a line's start (the newline before it gone) is not a field.
        let mut joined = full.clone();
        let nl = joined.iter().position(|&c| c == b'\n').unwrap();
        joined[nl] = b' ';
        assert_eq!(layout.parse(&full).mem_free_kb, Some(440324));
        assert_eq!(layout.parse(&joined), Meminfo::parse(&joined));
        assert_eq!(layout.parse(&joined).mem_free_kb, None);
        // A truncated read: the places checked fail, the full parse gives what it can.
        let cut = &full[..100];
        assert_eq!(layout.parse(&full), Meminfo::parse(&full));
        assert_eq!(layout.parse(cut), Meminfo::parse(cut));
        assert_eq!(layout.parse(b""), Meminfo::default());
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
