//! How far a running measurement is, from what it knows (7-zip's passes, the tests of a
//! memory run, openssl's block sizes) rather than a time estimate: shared between the
//! measurement, which moves it, and whoever shows progress, which reads it.

use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

#[derive(Debug, Default)]
struct State {
    /// Steps finished, of `total`.
    done: u32,
    total: u32,
    /// How far the current step is, 0…1 (a tool's output lines so far).
    within: f64,
    /// What the current step is: `7-zip run 2 of 3`.
    what: String,
}

/// A phase's progress; cloning shares it. Compares equal to every other (it is not part of a
/// measurement's settings) and is never serialized.
#[derive(Debug, Clone, Default)]
pub struct Progress(Arc<Mutex<State>>);

impl PartialEq for Progress {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Serialize for Progress {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_unit()
    }
}

impl<'de> Deserialize<'de> for Progress {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d)?;
        Ok(Progress::default())
    }
}

impl Progress {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Step `done` (0-based count of finished steps) of `total` begins.
    pub fn step(&self, done: u32, total: u32, what: impl Into<String>) {
        let mut s = self.state();
        s.done = done.min(total);
        s.total = total;
        s.within = 0.0;
        s.what = what.into();
    }

    /// How far the current step is, 0…1.
    pub fn within(&self, fraction: f64) {
        if fraction.is_finite() {
            self.state().within = fraction.clamp(0.0, 1.0);
        }
    }

    /// The share of the work done, 0…1, and what runs now; None before any step.
    pub fn get(&self) -> Option<(f64, String)> {
        let s = self.state();
        (s.total > 0).then(|| {
            (
                ((s.done as f64 + s.within) / s.total as f64).min(1.0),
                s.what.clone(),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_and_the_share_within_a_step() {
        let p = Progress::default();
        assert_eq!(p.get(), None);
        let seen = p.clone();
        p.step(1, 4, "run 2 of 4");
        p.within(0.5);
        let (f, what) = seen.get().unwrap();
        assert!((f - 0.375).abs() < 1e-9, "{f}");
        assert_eq!(what, "run 2 of 4");
        p.within(7.0);
        assert!((seen.get().unwrap().0 - 0.5).abs() < 1e-9);
        p.within(f64::NAN);
        assert!((seen.get().unwrap().0 - 0.5).abs() < 1e-9);
        // A new step starts at its beginning.
        p.step(2, 4, "run 3 of 4");
        assert!((seen.get().unwrap().0 - 0.5).abs() < 1e-9);
    }

    #[test]
    fn never_serialized_and_always_equal() {
        let p = Progress::default();
        p.step(1, 2, "x");
        assert_eq!(serde_json::to_string(&p).unwrap(), "null");
        assert_eq!(p, Progress::default());
    }
}
