//! How a measurement ended, decided once from its document for every kind: the exit code's
//! table reads these, so "failed", "invalid" and "interrupted" mean the same for every command.

use crate::{Body, Document, PhaseId, PhaseStatus};

/// What the table of exit codes is decided from, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Stopped before its end (Ctrl-C, SIGTERM); what completed was kept.
    Interrupted,
    /// It ran, but a test or phase failed (nothing to measure with, a tool broke).
    Failed,
    /// It ran, but a critical finding makes the result invalid.
    Invalid,
    /// Complete, nothing failed, valid.
    Valid,
}

impl Document {
    /// A measuring phase (the idle gate only waits, and its verdict is a finding) or a row of
    /// the body ended failed.
    pub fn failed(&self) -> bool {
        let phase = self
            .envelope
            .phases
            .iter()
            .any(|p| p.status == PhaseStatus::Failed && !crate::phase::IDLE.is(&p.name));
        phase || self.body.failed_rows()
    }

    /// How the measurement ended.
    pub fn outcome(&self) -> Outcome {
        if !self.envelope.complete {
            Outcome::Interrupted
        } else if self.failed() {
            Outcome::Failed
        } else if !self.envelope.valid {
            Outcome::Invalid
        } else {
            Outcome::Valid
        }
    }
}

/// A kind's rows, as the exit table reads them: every body says, in its own module, whether
/// one of its rows ended failed — also one that never became a phase (an OPP that could not
/// be set). A new kind that does not say it does not compile.
pub trait FailedRows {
    /// A row of the body ended failed.
    fn failed_rows(&self) -> bool;
}

macro_rules! dispatch_failed_rows {
    ($($module:ident::$t:ident as $variant:ident = $kind:literal,)*) => {
        impl Body {
            /// A row of the body ended failed (the kind's [`FailedRows`]).
            pub fn failed_rows(&self) -> bool {
                match self {
                    $(Body::$variant(b) => FailedRows::failed_rows(b),)*
                }
            }
        }
    };
}
crate::for_each_kind!(dispatch_failed_rows);

/// A row's status is failed.
pub(crate) fn failed(s: PhaseStatus) -> bool {
    s == PhaseStatus::Failed
}

/// Why a command could not be started, told apart as a shell does for its exit code.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum StartFailure {
    /// No such program (a shell's 127).
    NotFound,
    /// It is there but could not be executed: no permission, not an executable (126).
    NotExecutable,
}

impl StartFailure {
    /// The failure of a spawn that ended with an error of `kind`.
    pub fn of(kind: std::io::ErrorKind) -> StartFailure {
        match kind {
            std::io::ErrorKind::NotFound => StartFailure::NotFound,
            _ => StartFailure::NotExecutable,
        }
    }

    /// The exit code a shell gives: 127 not found, 126 not executable.
    pub fn shell_code(self) -> i32 {
        match self {
            StartFailure::NotFound => 127,
            StartFailure::NotExecutable => 126,
        }
    }
}

impl<B: crate::BodyKind> From<crate::Typed<B>> for Document {
    fn from(t: crate::Typed<B>) -> Document {
        t.into_document()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Document {
        let text = include_str!("../tests/data/v1/quick-run-x86-vm.json");
        crate::migrate_run(serde_json::from_str(text).unwrap())
            .unwrap()
            .into_document()
    }

    #[test]
    fn the_outcome_is_decided_in_the_tables_order() {
        let mut d = doc();
        d.envelope.valid = true;
        assert_eq!(d.outcome(), Outcome::Valid);
        d.envelope.valid = false;
        assert_eq!(d.outcome(), Outcome::Invalid);
        d.envelope.phases[2].status = PhaseStatus::Failed;
        assert_eq!(d.outcome(), Outcome::Failed);
        d.envelope.complete = false;
        assert_eq!(d.outcome(), Outcome::Interrupted);
    }

    #[test]
    fn a_failed_idle_gate_is_no_failed_measurement() {
        let mut d = doc();
        d.envelope.valid = true;
        let idle = d
            .envelope
            .phases
            .iter_mut()
            .find(|p| crate::phase::IDLE.is(&p.name))
            .unwrap();
        idle.status = PhaseStatus::Failed;
        assert_eq!(d.outcome(), Outcome::Valid);
    }
}
