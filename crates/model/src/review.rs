//! The `review` kind (`truebench review`, sbc-bench -r/-R): every performance-relevant setting
//! as found, what tuning changed, and — while a command ran or until Ctrl-C — what changed in
//! the device status (links renegotiated, errors in the kernel log, throttling and killed cores
//! in the envelope's findings).

use serde::{Deserialize, Serialize};

use crate::evidence::{is_phase, words};
use truebench_host::kernel::KernelReport;
use truebench_host::review::Setting;

words! {
    /// The phase of a `review`: the monitoring (while a command ran, until Ctrl-C or for
    /// `--duration`).
    pub enum ReviewPhase("review phase") {
        /// The monitoring (`review`).
        Monitoring => "review",
    }
}
is_phase!(ReviewPhase);

/// Body of a `review` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReviewBody {
    /// Every setting as found, before anything was tuned.
    pub settings: Vec<Setting>,
    /// The kernel: version, origin, support (sbc-bench's review has its "Kernel info");
    /// None when the caller did not report it. Boxed: keeps every `Body` small.
    pub kernel: Option<Box<KernelReport>>,
    /// Settings were switched to performance (`-R`) through the journaled Tuning.
    pub tuned: bool,
    /// What tuning changed (before → after).
    pub tuning_changes: Vec<SettingChange>,
    /// The command monitored (`--exec`); empty when monitoring until Ctrl-C or `--duration`,
    /// or when only the settings were reported.
    pub command: Vec<String>,
    /// The command's exit code; None without a command, or when it was killed by a signal
    /// or could not start.
    pub exit_code: Option<i32>,
    /// The signal that ended the command; None when none did.
    pub signal: Option<i32>,
    /// Why the command could not start; None when it started or there was none.
    pub error: Option<String>,
    /// What kind of failure kept it from starting (the exit code follows a shell's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_failure: Option<crate::StartFailure>,
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
    /// The setting's area (`cpufreq`, `pcie`, `network`…).
    pub area: String,
    /// What it belongs to (`policy0 (cpu0-3)`, `eth0`).
    pub subject: String,
    /// The setting (`governor`, `link`…).
    pub name: String,
    /// The value before; None when the setting was not there.
    pub before: Option<String>,
    /// The value after; None when the setting went away.
    pub after: Option<String>,
}

impl crate::FailedRows for ReviewBody {
    fn failed_rows(&self) -> bool {
        // Settings are read, not measured; monitoring is one phase.
        false
    }
}
