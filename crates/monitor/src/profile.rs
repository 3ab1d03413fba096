//! Where a monitor tick's time goes, in wall-clock time per part: compiled in only with the
//! `tick-profile` feature (`bench/tick_phases.sh` builds it apart). Without the feature every
//! call here is empty and inlined away, so the sampler's code is what it is.
//!
//! The counts say what a tick touches (`bench/tick_footprint.sh`); these times say what it
//! costs on a real CPU after each sleep, split where the kernel's work (the reads, the
//! write) and truebench's own (parsing, formatting) meet. Reading the clock costs ~20 ns here,
//! far below the parts measured.

/// A part of a tick.
#[derive(Debug, Clone, Copy)]
pub enum Part {
    /// From the wake-up to the line written (one count per tick).
    Tick = 0,
    /// Each pread(2) of a /proc or /sys file.
    Read = 1,
    /// Taking the sample: the reads and their parsing.
    Sample = 2,
    /// Formatting the line.
    Format = 3,
    /// Writing it.
    Write = 4,
}

#[cfg(feature = "tick-profile")]
mod imp {
    use super::Part;
    use std::sync::atomic::{AtomicU64, Ordering};

    static NS: [AtomicU64; 5] = [const { AtomicU64::new(0) }; 5];
    static TICKS: AtomicU64 = AtomicU64::new(0);

    #[inline(always)]
    pub fn start() -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a valid timespec to fill.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }

    #[inline(always)]
    pub fn end(part: Part, since: u64) {
        NS[part as usize].fetch_add(start().saturating_sub(since), Ordering::Relaxed);
        if let Part::Tick = part {
            TICKS.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn report() -> Option<String> {
        let ticks = TICKS.load(Ordering::Relaxed);
        let us =
            |p: Part| NS[p as usize].load(Ordering::Relaxed) as f64 / ticks.max(1) as f64 / 1e3;
        let (tick, read, sample, format, write) = (
            us(Part::Tick),
            us(Part::Read),
            us(Part::Sample),
            us(Part::Format),
            us(Part::Write),
        );
        Some(format!(
            "tick-profile ticks {ticks} tick_us {tick:.2} read_us {read:.2} write_us {write:.2} \
             user_us {:.2} parse_us {:.2} format_us {format:.2} other_us {:.2}",
            tick - read - write,
            sample - read,
            tick - sample - format - write,
        ))
    }
}

#[cfg(not(feature = "tick-profile"))]
mod imp {
    use super::Part;

    #[inline(always)]
    pub fn start() -> u64 {
        0
    }

    #[inline(always)]
    pub fn end(_: Part, _: u64) {}

    pub fn report() -> Option<String> {
        None
    }
}

/// Add the time since `start` to `part` (a tick also counts one tick).
pub use imp::end;
/// The time per tick of each part so far, as one line (None without the feature).
pub use imp::report;
/// A clock reading to pass to [`end`] (0 without the feature).
pub use imp::start;

#[cfg(all(test, feature = "tick-profile"))]
mod tests {
    use super::*;

    #[test]
    fn parts_add_up_per_tick() {
        let t = start();
        std::thread::sleep(std::time::Duration::from_millis(2));
        end(Part::Read, t);
        end(Part::Tick, t);
        let r = report().unwrap();
        let words: Vec<&str> = r.split_whitespace().collect();
        let value = |k: &str| -> f64 {
            let at = words.iter().position(|w| *w == k);
            let v = at
                .and_then(|i| words.get(i + 1))
                .and_then(|v| v.parse().ok());
            v.unwrap_or_else(|| panic!("no {k} in {r}"))
        };
        assert_eq!(words[0], "tick-profile", "{r}");
        assert_eq!(value("ticks"), 1.0, "{r}");
        assert!(
            value("tick_us") >= 2000.0 && value("read_us") >= 2000.0,
            "{r}"
        );
        assert_eq!(value("write_us"), 0.0, "{r}");
    }
}
