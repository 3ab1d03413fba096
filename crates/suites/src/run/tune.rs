//! Tuning for the run: performance governors, devfreq, ASPM, MaxKHz/MinKHz, through the Session.

use super::*;

impl<M: Measurements + ?Sized> Run<'_, M> {
    pub(super) fn begin_tuning(&mut self) -> Result<(), RunError> {
        let why_not = (!self.opts.tune).then(|| {
            self.opts
                .no_tuning_reason
                .clone()
                .unwrap_or_else(|| "tuning switched off".into())
        });
        self.s
            .begin_tuning(self.opts.tune, why_not)
            .map_err(RunError::Tuning)?;
        if self.opts.tune && !self.s.tuned() {
            let why = self.s.record.reason.clone().unwrap_or_default();
            self.emit(Event::Note(why));
        }
        Ok(())
    }

    pub(super) fn write(&mut self, path: String, value: &str) -> bool {
        self.s.write(path, value)
    }

    /// Performance governor on every cpufreq policy and devfreq device, ASPM `performance`,
    /// MaxKHz/MinKHz as limits.
    pub(super) fn apply_tuning(&mut self) {
        if !self.s.tuned() {
            return;
        }
        let host = self.host;
        for c in &self.inv.clusters {
            let Ok(dirs) = Tuning::policy_dirs(host, c) else {
                continue;
            };
            for d in dirs {
                if c.governors.iter().any(|g| g == "performance")
                    && host
                        .read_trimmed(format!("{d}/scaling_governor"))
                        .as_deref()
                        != Some("performance")
                {
                    self.write(format!("{d}/scaling_governor"), "performance");
                }
                let (Some(lo), Some(hi)) = (
                    host.read_u64(format!("{d}/cpuinfo_min_freq")),
                    host.read_u64(format!("{d}/cpuinfo_max_freq")),
                ) else {
                    continue;
                };
                // MaxKHz caps the whole run at the highest OPP not above it (sbc-bench).
                if let Some(max) = self.opts.max_khz {
                    let cap = c
                        .opps_khz
                        .iter()
                        .copied()
                        .filter(|&k| k <= max)
                        .max()
                        .unwrap_or(max)
                        .max(lo);
                    if cap < hi {
                        self.write(format!("{d}/scaling_max_freq"), &cap.to_string());
                    }
                }
                if let Some(min) = self.opts.min_khz {
                    let floor = min.clamp(lo, hi);
                    self.write(format!("{d}/scaling_min_freq"), &floor.to_string());
                }
            }
        }
        for d in host.devfreq() {
            if d.can_switch_to_performance() {
                self.write(format!("{}/governor", d.path), "performance");
            }
        }
        if let Some(p) = host.pcie_aspm() {
            if p.active.as_deref() != Some("performance") {
                self.write(
                    truebench_host::devices::PCIE_ASPM_POLICY.into(),
                    "performance",
                );
            }
        }
        self.s.settle_tuning_record();
    }
}
