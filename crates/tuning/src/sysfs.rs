//! How settings files are written, and what writing an original value back means for the
//! kernel. Pure decisions (what to write, in which order) are separate from the file system
//! calls so they can be tested without a kernel.

use rustix::io::Errno;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::Path;

/// True when `path` lives on a kernel pseudo file system (sysfs, procfs, …), where a write
/// is a request to the kernel, as opposed to a regular file in a recorded fixture root.
pub fn is_pseudo(path: &Path) -> bool {
    const SYSFS: i64 = 0x6265_6572;
    const PROC: i64 = 0x9fa0;
    const DEBUGFS: i64 = 0x6462_6720;
    const CGROUP: i64 = 0x0027_e0eb;
    const CGROUP2: i64 = 0x6367_7270;
    let Ok(st) = rustix::fs::statfs(path) else {
        return false;
    };
    // f_type's width differs between architectures.
    #[allow(clippy::unnecessary_cast)]
    let t = st.f_type as i64;
    [SYSFS, PROC, DEBUGFS, CGROUP, CGROUP2].contains(&t)
}

/// Open for writing without changing anything: fails now with EACCES/EROFS/ENOENT rather
/// than after the original value was journaled.
pub fn check_writable(path: &Path) -> io::Result<()> {
    OpenOptions::new().write(true).open(path).map(drop)
}

/// Replace the file's content with `value` in one write (sysfs takes one write as one
/// request; O_TRUNC is what `echo >` does and matters only for regular files).
pub fn write_value(path: &Path, value: &[u8]) -> io::Result<()> {
    let mut f = OpenOptions::new().write(true).truncate(true).open(path)?;
    crate::trace::setting(path, b"");
    f.write_all(value)?;
    crate::trace::setting(path, value);
    Ok(())
}

/// What to write back for a journaled original.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreAction {
    Write(Vec<u8>),
    /// Nothing to write back, and why.
    Skip(String),
}

/// Decide how to put `original` back. A regular file (fixture root) takes its bytes back
/// exactly. The kernel shows some values it does not accept as input: `<unsupported>` in
/// `scaling_setspeed` (it holds a value only under the userspace governor, and restoring the
/// governor brings the same text back), and lists like `[default] performance powersave`
/// where only the bracketed word may be written.
pub fn restore_action(original: &[u8], pseudo: bool) -> RestoreAction {
    if !pseudo {
        return RestoreAction::Write(original.to_vec());
    }
    let text = String::from_utf8_lossy(original);
    let t = text.trim_matches(|c: char| c.is_whitespace() || c == '\0');
    if t.is_empty() {
        return RestoreAction::Skip("not restorable: it read empty".into());
    }
    if t.starts_with('<') && t.ends_with('>') {
        return RestoreAction::Skip(format!(
            "not restorable, skipped: it read {t} (only the userspace governor holds a value; \
             the governor is restored instead)"
        ));
    }
    if t.split_whitespace().count() > 1 {
        if let Some(choice) = truebench_host::parse::bracketed_choice(t) {
            return RestoreAction::Write(format!("{choice}\n").into_bytes());
        }
    }
    RestoreAction::Write(original.to_vec())
}

/// What a regular file (fixture) should hold after `value` is written to it, imitating the
/// kernel for choice lists: writing `powersave` to `[default] powersave` gives
/// `default [powersave]`. Anything else is stored as written.
pub fn emulated_content(current: &[u8], value: &str) -> Vec<u8> {
    let Ok(cur) = std::str::from_utf8(current) else {
        return value.as_bytes().to_vec();
    };
    let v = value.trim();
    let body = cur.trim_end_matches('\n');
    let words: Vec<&str> = body.split(' ').collect();
    let bare = |w: &str| w.trim_start_matches('[').trim_end_matches(']').to_string();
    let is_list = words.len() > 1 && words.iter().filter(|w| w.starts_with('[')).count() == 1;
    if !is_list || !words.iter().any(|w| bare(w) == v) {
        return value.as_bytes().to_vec();
    }
    let mut out = words
        .iter()
        .map(|w| {
            let b = bare(w);
            if b == v {
                format!("[{b}]")
            } else {
                b
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    out.push_str(&cur[body.len()..]);
    out.into_bytes()
}

/// True when this process runs as root.
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Whether an error means "not allowed for this user" (so root would succeed). EPERM for
/// root means the kernel forbids the change (ASPM under firmware control, lockdown).
pub fn needs_privilege(e: &io::Error) -> bool {
    match Errno::from_io_error(e) {
        Some(Errno::ACCESS) => true,
        Some(Errno::PERM) => !is_root(),
        _ => false,
    }
}

/// Errors after which a later attempt may succeed (as root, when the device is free), so
/// the journal is kept; anything else (the file is gone, the kernel refuses the value for
/// good) is reported once and given up.
pub fn retryable(e: &io::Error) -> bool {
    needs_privilege(e)
        || matches!(
            Errno::from_io_error(e),
            Some(Errno::ROFS | Errno::BUSY | Errno::AGAIN | Errno::INTR)
        )
}

/// One step of a restore.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    One(usize),
    /// A lower and an upper limit of the same device, restored together in the order that
    /// keeps min ≤ max at every moment.
    MinMax {
        min: usize,
        max: usize,
    },
}

fn split(rel: &str) -> (&str, &str) {
    rel.rsplit_once('/').unwrap_or(("", rel))
}

fn limit_pair(name: &str) -> Option<(bool, &'static str)> {
    match name {
        "scaling_min_freq" => Some((true, "scaling_max_freq")),
        "scaling_max_freq" => Some((false, "scaling_min_freq")),
        "min_freq" => Some((true, "max_freq")),
        "max_freq" => Some((false, "min_freq")),
        _ => None,
    }
}

/// Order the restore of `pending` entries (indices with their root-relative paths, in the
/// order they were first changed): the reverse of that order, except that a
/// `scaling_setspeed` waits for its policy's governor (it is only writable under the
/// userspace governor), and a min/max pair of one device is restored as one step.
pub fn plan(pending: &[(usize, &str)]) -> Vec<Step> {
    let mut order: Vec<(usize, &str)> = pending.iter().rev().copied().collect();
    // Move each setspeed after the governor of the same directory when that comes later.
    let mut i = 0;
    while i < order.len() {
        let (dir, name) = split(order[i].1);
        if name == "scaling_setspeed" {
            if let Some(g) = (i + 1..order.len())
                .rev()
                .find(|&j| order[j].1 == format!("{dir}/scaling_governor"))
            {
                let e = order.remove(i);
                order.insert(g, e);
                continue;
            }
        }
        i += 1;
    }
    let mut used = vec![false; order.len()];
    let mut steps = Vec::new();
    for i in 0..order.len() {
        if used[i] {
            continue;
        }
        used[i] = true;
        let (dir, name) = split(order[i].1);
        let sibling = limit_pair(name).and_then(|(is_min, other)| {
            let want = format!("{dir}/{other}");
            let j = (i + 1..order.len()).find(|&j| !used[j] && order[j].1 == want)?;
            Some((is_min, j))
        });
        match sibling {
            Some((is_min, j)) => {
                used[j] = true;
                let (a, b) = (order[i].0, order[j].0);
                steps.push(if is_min {
                    Step::MinMax { min: a, max: b }
                } else {
                    Step::MinMax { min: b, max: a }
                });
            }
            None => steps.push(Step::One(order[i].0)),
        }
    }
    steps
}

/// Whether setting the range [new_min, new_max] must write min first: only when the new
/// max is below the min in force now (max first would leave min > max). Otherwise max goes
/// first: a new min above the current max would cross it.
pub fn min_first(current_min: Option<u64>, new_max: u64) -> bool {
    current_min.is_some_and(|m| new_max < m)
}

/// Whether restoring a min/max pair must write max first: when the lower limit to restore is
/// above the upper limit in force now (writing min first would leave min > max).
pub fn max_first(orig_min: &[u8], current_max: Option<u64>) -> bool {
    let num = |b: &[u8]| std::str::from_utf8(b).ok()?.trim().parse::<u64>().ok();
    match (num(orig_min), current_max) {
        (Some(m), Some(cur)) => m > cur,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str = "sys/devices/system/cpu/cpufreq/policy0";

    #[test]
    fn regular_files_get_their_bytes_back() {
        for b in [&b"<unsupported>\n"[..], b"", b"[a] b\n", b"\xff\x00"] {
            assert_eq!(restore_action(b, false), RestoreAction::Write(b.to_vec()));
        }
    }

    #[test]
    fn kernel_files_get_what_the_kernel_accepts() {
        assert_eq!(
            restore_action(b"schedutil\n", true),
            RestoreAction::Write(b"schedutil\n".to_vec())
        );
        assert!(matches!(
            restore_action(b"<unsupported>\n", true),
            RestoreAction::Skip(r) if r.contains("not restorable") && r.contains("<unsupported>")
        ));
        assert!(matches!(
            restore_action(b"\n", true),
            RestoreAction::Skip(_)
        ));
        assert_eq!(
            restore_action(b"[default] performance powersave powersupersave\n", true),
            RestoreAction::Write(b"default\n".to_vec())
        );
        assert_eq!(
            restore_action(b"1\n", true),
            RestoreAction::Write(b"1\n".to_vec())
        );
    }

    #[test]
    fn choice_lists_are_imitated_on_regular_files() {
        assert_eq!(
            emulated_content(
                b"[default] performance powersave powersupersave\n",
                "powersave"
            ),
            b"default performance [powersave] powersupersave\n"
        );
        // Not a list, or a value not in it: stored as written.
        assert_eq!(
            emulated_content(b"schedutil\n", "performance"),
            b"performance"
        );
        assert_eq!(emulated_content(b"[a] b\n", "c"), b"c");
    }

    #[test]
    fn plan_is_reverse_order() {
        let g = format!("{P}/scaling_governor");
        let o = "sys/devices/system/cpu/cpu1/online".to_string();
        assert_eq!(plan(&[(0, &g), (1, &o)]), vec![Step::One(1), Step::One(0)]);
    }

    #[test]
    fn plan_restores_setspeed_after_its_governor() {
        let s = format!("{P}/scaling_setspeed");
        let g = format!("{P}/scaling_governor");
        let other = "sys/devices/system/cpu/cpufreq/policy4/scaling_governor".to_string();
        // Changed: setspeed, then governor, then another policy. Reverse would restore the
        // governor first anyway.
        assert_eq!(
            plan(&[(0, &s), (1, &g), (2, &other)]),
            vec![Step::One(2), Step::One(1), Step::One(0)]
        );
        // Changed: governor, setspeed, other: reverse would put setspeed first.
        assert_eq!(
            plan(&[(0, &g), (1, &s), (2, &other)]),
            vec![Step::One(2), Step::One(0), Step::One(1)]
        );
    }

    #[test]
    fn plan_pairs_limits_of_one_device_only() {
        let min0 = format!("{P}/scaling_min_freq");
        let max0 = format!("{P}/scaling_max_freq");
        let max4 = "sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq".to_string();
        let dmin = "sys/class/devfreq/dmc/min_freq".to_string();
        let dmax = "sys/class/devfreq/dmc/max_freq".to_string();
        assert_eq!(
            plan(&[(0, &max0), (1, &max4), (2, &min0), (3, &dmin), (4, &dmax)]),
            vec![
                Step::MinMax { min: 3, max: 4 },
                Step::MinMax { min: 2, max: 0 },
                Step::One(1),
            ]
        );
    }

    /// Walk a clock range up and down and check min ≤ max after every single write, as an
    /// old kernel (before freq QoS) would enforce.
    #[test]
    fn range_writes_never_cross() {
        let (mut min, mut max) = (408_000u64, 1_800_000u64);
        for (lo, hi) in [
            (1_800_000, 1_800_000),
            (408_000, 408_000),
            (1_200_000, 1_608_000),
            (600_000, 816_000),
            (1_608_000, 1_800_000),
            (408_000, 1_800_000),
        ] {
            let writes = if min_first(Some(min), hi) {
                [(true, lo), (false, hi)]
            } else {
                [(false, hi), (true, lo)]
            };
            for (is_min, v) in writes {
                if is_min {
                    min = v;
                } else {
                    max = v;
                }
                assert!(min <= max, "{min} > {max} on the way to [{lo}, {hi}]");
            }
            assert_eq!((min, max), (lo, hi));
        }
    }

    #[test]
    fn max_goes_first_only_when_min_would_exceed_it() {
        assert!(max_first(b"1800000\n", Some(408000)));
        assert!(!max_first(b"408000\n", Some(408000)));
        assert!(!max_first(b"408000\n", Some(2400000)));
        assert!(!max_first(b"junk", Some(1)));
        assert!(!max_first(b"5", None));
    }

    #[test]
    fn a_tmpfs_or_disk_file_is_not_a_kernel_file() {
        let d = tempfile::tempdir().unwrap();
        assert!(!is_pseudo(d.path()));
        assert!(!is_pseudo(Path::new("/nonexistent/x")));
    }
}
