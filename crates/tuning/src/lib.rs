//! `Tuning`: the only code in truebench that writes to /sys (DESIGN.md rule 4).
//!
//! API published early for the `clocks` command; the implementation follows.

use std::path::{Path, PathBuf};

use truebench_host::inventory::Cluster;
use truebench_host::Host;

/// Everything that can go wrong while changing or restoring a setting.
#[derive(Debug, thiserror::Error)]
pub enum TuningError {
    /// EACCES/EPERM: changing this setting needs root.
    #[error("permission denied writing {path} (changing this setting needs root)")]
    PermissionDenied { path: PathBuf },
    #[error("not implemented yet")]
    Todo,
}

/// What a restore did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RestoreReport {
    /// Root-relative paths put back to their original bytes, in the order restored.
    pub restored: Vec<String>,
    /// Root-relative paths that could not be restored, with the reason.
    pub failed: Vec<(String, String)>,
    /// Root-relative paths that need no write back, with the reason (e.g. `scaling_setspeed`
    /// read `<unsupported>`: the governor is restored instead).
    pub skipped: Vec<(String, String)>,
    /// Pid of the session that journaled these settings.
    pub pid: Option<u32>,
}

/// A session of changes to one root, journaled before every first write.
pub struct Tuning {
    journal: PathBuf,
}

impl Tuning {
    /// Recover any stale journal on this root first (a previous run killed with SIGKILL /
    /// power loss), then start a new session.
    pub fn begin(host: &Host) -> Result<Tuning, TuningError> {
        let _ = host;
        Err(TuningError::Todo)
    }

    /// Journal the file's original bytes (first time this path is touched in this session)
    /// durably, THEN write `value`.
    pub fn write(&mut self, rel: &str, value: &str) -> Result<(), TuningError> {
        let _ = (rel, value);
        Err(TuningError::Todo)
    }

    /// `scaling_governor` of every policy of the cluster.
    pub fn set_governor(&mut self, cluster: &Cluster, governor: &str) -> Result<(), TuningError> {
        let _ = (cluster, governor);
        Err(TuningError::Todo)
    }

    /// Set scaling_min/max so that [min, max] holds, in the order that never leaves min > max
    /// (the kernel rejects it).
    pub fn set_range_khz(
        &mut self,
        cluster: &Cluster,
        min_khz: u64,
        max_khz: u64,
    ) -> Result<(), TuningError> {
        let _ = (cluster, min_khz, max_khz);
        Err(TuningError::Todo)
    }

    /// `scaling_setspeed` of every policy of the cluster (userspace governor only).
    pub fn set_setspeed_khz(&mut self, cluster: &Cluster, khz: u64) -> Result<(), TuningError> {
        let _ = (cluster, khz);
        Err(TuningError::Todo)
    }

    /// Restore every touched file byte for byte, in reverse order; idempotent; removes the
    /// journal when all succeeded.
    pub fn restore(&mut self) -> Result<RestoreReport, TuningError> {
        Err(TuningError::Todo)
    }

    pub fn journal_path(&self) -> &Path {
        &self.journal
    }
}

/// Called at the start of every truebench command for the given root: restores a journal
/// left by a killed run. `Ok(None)` if there was none.
pub fn recover(host: &Host) -> Result<Option<RestoreReport>, TuningError> {
    let _ = host;
    Ok(None)
}

/// SIGINT/SIGTERM/SIGHUP → restore every live Tuning, then exit with 128+signal. Panics →
/// restore too.
pub fn install_handlers() {}
