//! `/proc/stat`: CPU time counters (in USER_HZ ticks) and a few global counters.

use serde::Serialize;

/// One `cpu`/`cpuN` line. Fields missing on old kernels are zero.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CpuTimes {
    pub user: u64,
    pub nice: u64,
    pub system: u64,
    pub idle: u64,
    pub iowait: u64,
    pub irq: u64,
    pub softirq: u64,
    pub steal: u64,
    pub guest: u64,
    pub guest_nice: u64,
}

impl CpuTimes {
    /// Total ticks. guest/guest_nice are already included in user/nice, so not added twice.
    /// Saturating: a corrupt line with huge counters must not overflow.
    pub fn total(&self) -> u64 {
        [
            self.nice,
            self.system,
            self.idle,
            self.iowait,
            self.irq,
            self.softirq,
            self.steal,
        ]
        .iter()
        .fold(self.user, |a, &b| a.saturating_add(b))
    }

    /// Ticks not idle nor waiting for I/O (saturating, like `total`).
    pub fn busy(&self) -> u64 {
        self.total()
            .saturating_sub(self.idle)
            .saturating_sub(self.iowait)
    }

    /// Per-field difference `self - earlier`, saturating (counters can step back after a CPU
    /// goes offline and online again).
    pub fn delta(&self, earlier: &CpuTimes) -> CpuTimes {
        CpuTimes {
            user: self.user.saturating_sub(earlier.user),
            nice: self.nice.saturating_sub(earlier.nice),
            system: self.system.saturating_sub(earlier.system),
            idle: self.idle.saturating_sub(earlier.idle),
            iowait: self.iowait.saturating_sub(earlier.iowait),
            irq: self.irq.saturating_sub(earlier.irq),
            softirq: self.softirq.saturating_sub(earlier.softirq),
            steal: self.steal.saturating_sub(earlier.steal),
            guest: self.guest.saturating_sub(earlier.guest),
            guest_nice: self.guest_nice.saturating_sub(earlier.guest_nice),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Stat {
    /// The aggregate `cpu` line.
    pub total: Option<CpuTimes>,
    /// `cpuN` lines as (N, times); offline CPUs have no line.
    pub cpus: Vec<(u32, CpuTimes)>,
    pub ctxt: Option<u64>,
    pub procs_running: Option<u64>,
    pub procs_blocked: Option<u64>,
}

fn parse_times(fields: &[&str]) -> Option<CpuTimes> {
    let n: Vec<u64> = fields.iter().map_while(|f| f.parse().ok()).collect();
    if n.len() < 4 {
        return None;
    }
    let g = |i: usize| n.get(i).copied().unwrap_or(0);
    Some(CpuTimes {
        user: g(0),
        nice: g(1),
        system: g(2),
        idle: g(3),
        iowait: g(4),
        irq: g(5),
        softirq: g(6),
        steal: g(7),
        guest: g(8),
        guest_nice: g(9),
    })
}

pub fn parse(text: &str) -> Stat {
    let mut s = Stat::default();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let Some((&key, rest)) = f.split_first() else {
            continue;
        };
        if key == "cpu" {
            s.total = parse_times(rest);
        } else if let Some(n) = key.strip_prefix("cpu").and_then(|n| n.parse::<u32>().ok()) {
            if let Some(t) = parse_times(rest) {
                s.cpus.push((n, t));
            }
        } else {
            let v = rest.first().and_then(|v| v.parse().ok());
            match key {
                "ctxt" => s.ctxt = v,
                "procs_running" => s.procs_running = v,
                "procs_blocked" => s.procs_blocked = v,
                _ => {}
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn total_of_huge_counters_saturates() {
        let t = CpuTimes {
            user: u64::MAX,
            idle: u64::MAX,
            steal: 5,
            ..Default::default()
        };
        assert_eq!(t.total(), u64::MAX);
        assert_eq!(t.busy(), 0);
        let small = CpuTimes {
            user: 1,
            nice: 2,
            system: 3,
            idle: 4,
            iowait: 5,
            irq: 6,
            softirq: 7,
            steal: 8,
            guest: 100,
            guest_nice: 100,
        };
        assert_eq!(small.total(), 36);
        assert_eq!(small.busy(), 27);
    }

    #[test]
    fn real_lines() {
        let t = "cpu  301854 612 111922 8979004 3552 2 3944 0 0 0\ncpu0 44490 19 21045 1087069 220 1 3410 0 0 0\ncpu1 47869 23 16474 1110787 591 0 46 0 0 0\nintr 1 2\nctxt 38014093\nprocs_running 1\nprocs_blocked 0\n";
        let s = parse(t);
        let tot = s.total.unwrap();
        assert_eq!(tot.user, 301854);
        assert_eq!(tot.softirq, 3944);
        assert_eq!(s.cpus.len(), 2);
        assert_eq!(s.cpus[1].0, 1);
        assert_eq!(s.ctxt, Some(38014093));
        assert_eq!(
            tot.total(),
            301854 + 612 + 111922 + 8979004 + 3552 + 2 + 3944
        );
    }

    #[test]
    fn old_kernel_four_fields_and_garbage() {
        let s = parse("cpu 1 2 3 4\ncpu0 1 2\ncpuX 1 2 3 4\n");
        assert_eq!(s.total.unwrap().idle, 4);
        assert!(s.cpus.is_empty());
    }

    #[test]
    fn delta_saturates() {
        let a = CpuTimes {
            user: 10,
            ..Default::default()
        };
        let b = CpuTimes {
            user: 5,
            ..Default::default()
        };
        assert_eq!(b.delta(&a).user, 0);
        assert_eq!(a.delta(&b).user, 5);
    }
}
