//! `/proc/pressure/{cpu,memory,io}` (PSI, 4.20+): the share of time tasks stalled for a
//! resource. `some` = at least one task stalled, `full` = every non-idle task stalled at once
//! (present for cpu at system level only since 5.13, and always zero there).

use super::bytes::{f64_of, lines, tokens, u64_of};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PsiLine {
    /// Running averages of the stalled share, percent.
    pub avg10: f64,
    pub avg60: f64,
    pub avg300: f64,
    /// Total stall time since boot, µs.
    pub total_us: u64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Pressure {
    pub some: Option<PsiLine>,
    pub full: Option<PsiLine>,
}

fn line(rest: &[u8]) -> Option<PsiLine> {
    let mut p = PsiLine::default();
    let mut seen = 0u8;
    for t in tokens(rest) {
        let eq = t.iter().position(|&c| c == b'=')?;
        let (k, v) = (&t[..eq], &t[eq + 1..]);
        match k {
            b"avg10" => (p.avg10, seen) = (f64_of(v)?, seen | 1),
            b"avg60" => (p.avg60, seen) = (f64_of(v)?, seen | 2),
            b"avg300" => (p.avg300, seen) = (f64_of(v)?, seen | 4),
            b"total" => (p.total_us, seen) = (u64_of(v)?, seen | 8),
            _ => {}
        }
    }
    (seen == 15).then_some(p)
}

/// Parse without allocating; a malformed line is None.
pub fn parse(text: &[u8]) -> Pressure {
    let mut p = Pressure::default();
    for l in lines(text) {
        if let Some(r) = l.strip_prefix(b"some ") {
            p.some = line(r);
        } else if let Some(r) = l.strip_prefix(b"full ") {
            p.full = line(r);
        }
    }
    p
}

/// The `total=` of a `some`/`full` line (µs), None when the line lacks it or has another value
/// there. What a sampler needs each tick: the averages beside it are not parsed.
#[link_section = "truebench_tick"]
fn total_of(rest: &[u8]) -> Option<u64> {
    // The last one, as `parse` reads it: looked for from the line's end, where the kernel
    // writes it, so the averages before it are not walked byte by byte.
    rest.rsplit(|c| *c == b' ' || *c == b'\t')
        .filter(|t| !t.is_empty())
        .find_map(|t| t.strip_prefix(b"total="))
        .and_then(u64_of)
}

/// `(some, full)` stall totals, µs: [`parse`]'s `total_us` wherever it reads a line, without
/// the averages — so also for lines it refuses for their averages (malformed or missing).
/// Does not allocate.
#[link_section = "truebench_tick"]
pub fn totals(text: &[u8]) -> (Option<u64>, Option<u64>) {
    let (mut some, mut full) = (None, None);
    for l in lines(text) {
        if let Some(r) = l.strip_prefix(b"some ") {
            some = total_of(r);
        } else if let Some(r) = l.strip_prefix(b"full ") {
            full = total_of(r);
        }
    }
    (some, full)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn procfs_fixture_lines() {
        // Prometheus procfs testdata fixtures/proc/pressure/io.
        let p = parse(b"some avg10=0.10 avg60=2.00 avg300=3.85 total=15\nfull avg10=0.20 avg60=3.00 avg300=4.95 total=25\n");
        let s = p.some.unwrap();
        assert_eq!((s.avg10, s.avg300, s.total_us), (0.1, 3.85, 15));
        assert_eq!(p.full.unwrap().total_us, 25);
        // cpu before 5.13: no full line.
        assert!(
            parse(b"some avg10=44.73 avg60=61.87 avg300=44.25 total=243382846\n")
                .full
                .is_none()
        );
        assert!(parse(b"some avg10=x avg60=1 avg300=1 total=1\n")
            .some
            .is_none());
        assert!(parse(b"some avg10=1 total=5\n").some.is_none());
    }

    #[test]
    fn totals_agree_with_the_whole_parse() {
        for text in [
            &b"some avg10=0.10 avg60=2.00 avg300=3.85 total=15\nfull avg10=0.20 avg60=3.00 avg300=4.95 total=25\n"[..],
            b"some avg10=44.73 avg60=61.87 avg300=44.25 total=243382846\n",
            b"full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
            b"",
        ] {
            let p = parse(text);
            let total = |l: Option<PsiLine>| l.map(|l| l.total_us);
            assert_eq!(totals(text), (total(p.some), total(p.full)), "{text:?}");
        }
        // The last `total=` counts, wherever it stands; a tab separates as a space does.
        assert_eq!(
            totals(b"some total=1 avg10=1.00 total=2 \nfull total=3\ttotal=x\n"),
            (Some(2), None)
        );
        // Only the total is read: a total that is not a number is None, the averages are
        // not looked at.
        assert_eq!(
            totals(b"some avg10=x total=12\nfull total=1x\n"),
            (Some(12), None)
        );
        assert_eq!(totals(b"some avg10=1.0 avg60=1.0\n"), (None, None));
    }
}
