//! Work over a fleet's results spread on the machine's CPUs: a rebuild after one new result
//! must still read and key every kept result, and a fleet has hundreds of thousands.

/// At most this many threads: the work is memory-bound beyond a few.
const MAX_THREADS: usize = 8;

/// `f(0)`, …, `f(n - 1)`, in that order, computed in contiguous parts on as many threads as
/// the machine has CPUs (up to [`MAX_THREADS`]), each part at least `least` calls (a thread
/// costs more than a few cheap calls). A panic in `f` is raised again here.
pub(crate) fn map<T: Send>(n: usize, least: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |c| c.get())
        .clamp(1, MAX_THREADS)
        .min(n.div_ceil(least.max(1)).max(1));
    if threads == 1 {
        return (0..n).map(f).collect();
    }
    let per = n.div_ceil(threads);
    let f = &f;
    std::thread::scope(|s| {
        let parts: Vec<_> = (0..n)
            .step_by(per)
            .map(|from| s.spawn(move || (from..(from + per).min(n)).map(f).collect::<Vec<T>>()))
            .collect();
        let mut out = Vec::with_capacity(n);
        for p in parts {
            out.extend(p.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
        out
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn in_order_whatever_the_parts() {
        for n in [0, 1, 63, 64, 65, 1000, 1001] {
            for least in [0, 1, 64] {
                let got = super::map(n, least, |i| i * 2);
                assert_eq!(got, (0..n).map(|i| i * 2).collect::<Vec<_>>());
            }
        }
    }
}
