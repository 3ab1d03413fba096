//! The `review` kind (`truebench review`, sbc-bench -r/-R): every performance-relevant setting
//! as found, what tuning changed, and — while a command ran or until Ctrl-C — what changed in
//! the device status (links renegotiated, errors in the kernel log, throttling and killed cores
//! in the envelope's findings).

use serde::{Deserialize, Serialize};

use crate::evidence::{is_phase, words};

/// The phase of a `review`: the monitoring (while a command ran, until Ctrl-C or for
/// `--duration`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReviewPhase {
    Monitoring,
}
words!(ReviewPhase, "review phase", {
    Monitoring => "review",
});
is_phase!(ReviewPhase);

use truebench_host::kernel::KernelReport;
use truebench_host::review::Setting;

/// Body of a `review` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReviewBody {
    /// Every setting as found, before anything was tuned.
    pub settings: Vec<Setting>,
    /// The kernel: version, origin, support (sbc-bench's review has its "Kernel info").
    /// Boxed: keeps every `Body` small.
    pub kernel: Option<Box<KernelReport>>,
    /// Settings were switched to performance (`-R`) through the journaled Tuning.
    pub tuned: bool,
    /// What tuning changed (before → after).
    pub tuning_changes: Vec<SettingChange>,
    /// The command monitored (`--exec`); empty when monitoring until Ctrl-C or `--duration`,
    /// or when only the settings were reported.
    pub command: Vec<String>,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    /// Why the command could not start.
    pub error: Option<String>,
    /// Seconds monitored (0 when only the settings were reported).
    pub monitored_s: f64,
    /// Settings that changed by themselves while monitoring (a link renegotiated, a USB device
    /// reconnected slower, a governor switched by a daemon).
    pub status_changes: Vec<SettingChange>,
    /// Kernel-log lines logged while monitoring that report errors, resets or timeouts.
    pub kernel_errors: Vec<String>,
}

/// One setting whose value differs between two readings; `None` when it was not there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SettingChange {
    pub area: String,
    pub subject: String,
    pub name: String,
    pub before: Option<String>,
    pub after: Option<String>,
}
