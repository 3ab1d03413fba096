//! Loops per millisecond: measured once per machine (pinned to the fastest cluster, at its
//! highest clock where Tuning may pin it), cached with the machine's identity, reused until
//! the machine changes; `--loops-per-ms N` gives it, `--recalibrate` measures again.

use serde::{Deserialize, Serialize};
use std::path::Path;

use truebench_host::Inventory;

/// What identifies a machine for the calibration: the loop body, CPU models, core types and
/// top clocks, kernel. A change of any makes a cached value stale.
pub fn identity(inv: &Inventory) -> String {
    let cpus: Vec<String> = inv
        .clusters
        .iter()
        .map(|c| {
            format!(
                "{}x{}@{}",
                c.cpus.len(),
                c.core_type.as_deref().unwrap_or("?"),
                c.max_mhz.map_or("?".into(), |m| m.to_string())
            )
        })
        .collect();
    format!(
        "{} | {} | {} | {}",
        truebench_workloads::periodic::burn::LOOP_BODY,
        inv.device.as_deref().unwrap_or("?"),
        cpus.join(" "),
        inv.kernel.release.as_deref().unwrap_or("?")
    )
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub identity: String,
    pub loops_per_ms: u64,
    pub cpu: Option<u32>,
    pub checks: Vec<u64>,
    pub drift_pct: f64,
    pub clock_pinned: bool,
}

/// The cache file: one entry per machine identity.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cache {
    pub entries: Vec<Entry>,
}

impl Cache {
    /// The cache at `path`; empty when missing, and a damaged file is said and ignored.
    pub fn load(path: &Path) -> (Cache, Option<String>) {
        match std::fs::read(path) {
            Ok(b) => match serde_json::from_slice(&b) {
                Ok(c) => (c, None),
                Err(e) => (
                    Cache::default(),
                    Some(format!(
                        "{}: not a calibration cache ({e}); calibrating again",
                        path.display()
                    )),
                ),
            },
            Err(_) => (Cache::default(), None),
        }
    }

    pub fn find(&self, identity: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.identity == identity)
    }

    /// Store `e` (replacing the same machine's) and write the file atomically.
    pub fn store(&mut self, e: Entry, path: &Path) -> std::io::Result<()> {
        self.entries.retain(|x| x.identity != e.identity);
        self.entries.push(e);
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d)?;
        }
        let tmp = path.with_extension("json.tmp");
        std::fs::write(
            &tmp,
            serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?,
        )?;
        std::fs::rename(&tmp, path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_round_trip_replaces_the_same_machine() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sub/calibration.json");
        let (mut c, warn) = Cache::load(&p);
        assert!(warn.is_none() && c.entries.is_empty());
        let e = Entry {
            identity: "m1".into(),
            loops_per_ms: 1000,
            cpu: Some(0),
            checks: vec![1000, 1001],
            drift_pct: 0.1,
            clock_pinned: false,
        };
        c.store(e.clone(), &p).unwrap();
        c.store(
            Entry {
                loops_per_ms: 2000,
                ..e
            },
            &p,
        )
        .unwrap();
        let (c, _) = Cache::load(&p);
        assert_eq!(c.entries.len(), 1);
        assert_eq!(c.find("m1").unwrap().loops_per_ms, 2000);
        assert!(c.find("m2").is_none());
    }

    #[test]
    fn a_damaged_cache_is_said_and_ignored() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("calibration.json");
        std::fs::write(&p, b"\x00garbage").unwrap();
        let (c, warn) = Cache::load(&p);
        assert!(c.entries.is_empty());
        assert!(warn.unwrap().contains("calibration.json"));
    }
}
