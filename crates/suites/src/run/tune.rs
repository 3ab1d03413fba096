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
            let why = self.s.tuning_record().reason.clone().unwrap_or_default();
            self.emit(Event::Note(why));
        }
        Ok(())
    }

    /// Performance governor on every cpufreq policy and devfreq device, ASPM `performance`,
    /// MaxKHz/MinKHz as limits.
    pub(super) fn apply_tuning(&mut self) {
        crate::session::tune_for_performance(
            &mut self.s,
            self.host,
            self.inv,
            self.opts.max_khz,
            self.opts.min_khz,
        );
    }
}
