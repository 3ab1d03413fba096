//! What ties a kind's figures to their evidence: each kind names its phases with a value of
//! its own type (an enum or a struct in its module) whose one `Display`/`FromStr` pair is
//! the envelope's phase name, so the stored JSON keeps the names; and every row of a kind's
//! table carries the same [`RowEvidence`]. A row and the findings of its phase are matched by
//! comparing phase values ([`PhaseId::is`]), never by building or searching names.

use serde::{Deserialize, Serialize};

use crate::PhaseStatus;

/// A phase identity: what a row, a lookup or a finding's phases are compared with.
pub trait PhaseId {
    /// Whether the envelope phase named `name` is this phase.
    fn is(&self, name: &str) -> bool;
}

/// A phase known by its stored name only: the session's bookkeeping of every kind's
/// phases, the phases of an imported sbc-bench log.
impl PhaseId for str {
    fn is(&self, name: &str) -> bool {
        self == name
    }
}

impl PhaseId for String {
    fn is(&self, name: &str) -> bool {
        self == name
    }
}

impl<T: PhaseId + ?Sized> PhaseId for &T {
    fn is(&self, name: &str) -> bool {
        (**self).is(name)
    }
}

/// Why a name is not a phase of a kind, or a word not one of a vocabulary.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name:?} is not a {what}")]
pub struct NotOne {
    /// What was expected (`thermal phase`).
    pub what: &'static str,
    /// What was given.
    pub name: String,
}

impl NotOne {
    pub(crate) fn new(what: &'static str, name: &str) -> NotOne {
        NotOne {
            what,
            name: name.into(),
        }
    }
}

/// Serialize and deserialize a type as its `Display`/`FromStr` string, described in the
/// schema by `$schema`.
macro_rules! string_form {
    ($t:ty, $schema:tt) => {
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                String::deserialize(d)?
                    .parse()
                    .map_err(serde::de::Error::custom)
            }
        }

        impl schemars::JsonSchema for $t {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($t).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!($schema)
            }
        }
    };
}
pub(crate) use string_form;

/// Compare a phase identity type with envelope phase names as a [`PhaseId`]: parse the
/// name, compare the values.
macro_rules! is_phase {
    ($t:ty) => {
        impl $crate::evidence::PhaseId for $t {
            fn is(&self, name: &str) -> bool {
                name.parse::<$t>().is_ok_and(|p| p == *self)
            }
        }
    };
}
pub(crate) use is_phase;

/// A phase identity type with a structure (a struct, an enum with fields): stored as its
/// `Display`/`FromStr` string, the envelope's phase name, described in the schema by `$form`.
macro_rules! phase_id {
    ($t:ty, $form:literal) => {
        $crate::evidence::is_phase!($t);
        $crate::evidence::string_form!($t, {"type": "string", "description": $form});
    };
}
pub(crate) use phase_id;

/// A fixed vocabulary, declared once with its JSON names (the serde names, not always
/// snake_case): the enum, `ALL`, `as_str`, `Display`, `FromStr`, serde as those names, and
/// in the schema one documented constant per value.
macro_rules! words {
    (
        $(#[doc = $doc:literal])*
        $vis:vis enum $t:ident($what:literal) {
            $($(#[doc = $vdoc:literal])* $v:ident => $s:literal,)*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $t {
            $($(#[doc = $vdoc])* $v,)*
        }

        impl $t {
            /// Every value, in the vocabulary's order.
            pub const ALL: &'static [$t] = &[$($t::$v),*];

            /// Its JSON name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($t::$v => $s,)*
                }
            }
        }

        impl std::fmt::Display for $t {
            // `pad`: tables align these words with `{:<12}`.
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(self.as_str())
            }
        }

        impl std::str::FromStr for $t {
            type Err = $crate::evidence::NotOne;
            fn from_str(s: &str) -> Result<$t, Self::Err> {
                match s {
                    $($s => Ok($t::$v),)*
                    _ => Err($crate::evidence::NotOne::new($what, s)),
                }
            }
        }

        $crate::evidence::string_form!($t, {
            "description": $crate::evidence::doc(&[$($doc),*]),
            "oneOf": [$($crate::evidence::word($s, &[$($vdoc),*])),*]
        });
    };
}
pub(crate) use words;

/// A doc comment's lines as schemars writes them: each trimmed, joined by newlines.
pub(crate) fn doc(lines: &[&str]) -> String {
    lines
        .iter()
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join("\n")
}

/// One value of a vocabulary in the schema: the constant, with its doc comment when it has
/// one.
pub(crate) fn word(name: &str, lines: &[&str]) -> serde_json::Value {
    let mut v = serde_json::json!({"const": name, "type": "string"});
    if !lines.is_empty() {
        v["description"] = doc(lines).into();
    }
    v
}

/// What every row of a kind's table carries about the phase it was measured in: which
/// phase, how it ended and what happened meanwhile. Flattened into the row: its fields are
/// the row's own in the JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RowEvidence<P> {
    /// The phase of the envelope holding this row's evidence (its timeline, energy and
    /// findings).
    pub phase: P,
    /// How its phase ended.
    pub status: PhaseStatus,
    /// Why it was skipped, failed or interrupted.
    pub reason: Option<String>,
    /// The kinds of the findings of its phase (`throttling`, `background_activity`,
    /// `swapping` …): its figures were taken while that happened.
    #[serde(default)]
    pub marks: Vec<String>,
    /// Why its figures are not valid: the critical findings of its phase (`throttling`,
    /// `swapping` …); None when none happened while it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
}

impl<P> RowEvidence<P> {
    /// A row of phase `phase` before it is marked: no reason, no marks.
    pub fn new(phase: P, status: PhaseStatus) -> RowEvidence<P> {
        RowEvidence {
            phase,
            status,
            reason: None,
            marks: Vec::new(),
            invalid: None,
        }
    }

    /// With `reason`.
    pub fn because(mut self, reason: impl Into<String>) -> RowEvidence<P> {
        self.reason = Some(reason.into());
        self
    }

    /// Its status as shown: `invalid` when it ran but something invalidating happened
    /// meanwhile ([`PhaseStatus::shown`]).
    pub fn shown(&self) -> &'static str {
        self.status.shown(self.invalid.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    words! {
        /// A test vocabulary.
        enum Word("word") {
            A => "a",
            /// Two words.
            Bee => "b c",
        }
    }
    is_phase!(Word);

    #[test]
    fn words_and_phase_ids_round_trip_through_their_names() {
        for w in Word::ALL {
            assert_eq!(w.to_string().parse::<Word>(), Ok(*w));
            assert!(w.is(w.as_str()));
        }
        assert_eq!(
            "x".parse::<Word>().unwrap_err().to_string(),
            "\"x\" is not a word"
        );
        assert!(!Word::A.is("b c"));
        assert_eq!(serde_json::to_value(Word::Bee).unwrap(), "b c");
        assert_eq!(format!("[{:<4}]", Word::A), "[a   ]");
        assert!(serde_json::from_value::<Word>("bee".into()).is_err());
        assert!("x".is("x") && !"x".is("y"));
    }

    /// Each kind's phase names as stored parse to their values and print back unchanged;
    /// a name of another kind is not one of them.
    #[test]
    fn every_kinds_phase_names_round_trip() {
        use crate::efficiency::OppRunPhase;
        use crate::governors::GovernorPhase;
        use crate::interactivity::CellPhase;
        use crate::io::{IoPhase, IoTest};
        use crate::monitor::MonitorPhase;
        use crate::net::{NetPhase, NetTest};

        fn round_trip<P>(names: &[&str]) -> Vec<P>
        where
            P: std::str::FromStr + std::fmt::Display + PhaseId,
            P::Err: std::fmt::Debug,
        {
            names
                .iter()
                .map(|n| {
                    let p: P = n.parse().unwrap_or_else(|e| panic!("{n}: {e:?}"));
                    assert_eq!(p.to_string(), *n);
                    assert!(p.is(n));
                    p
                })
                .collect()
        }
        let net: Vec<NetPhase> = round_trip(&["net-upload-1", "net-opp-1800-MHz-duplex-12"]);
        assert_eq!(
            net[1],
            NetPhase::new(Some("opp:1800 MHz"), NetTest::Duplex, 12)
        );
        assert_eq!(net[0].setting, None);
        let io: Vec<IoPhase> = round_trip(&["io-random-2", "io-governor-ondemand-cached-1"]);
        assert_eq!(io[0], IoPhase::new(None, IoTest::Random, 2));
        let g: Vec<GovernorPhase> = round_trip(&[
            "governor/schedutil#2",
            "governor/userspace@max",
            "governor/current",
        ]);
        assert_eq!(g[0], GovernorPhase::new("schedutil", Some(2)));
        let e: Vec<OppRunPhase> = round_trip(&["c0-1800mhz-run2", "c12-current-run1"]);
        assert_eq!((e[0].cluster, e[0].opp_mhz, e[0].run), (0, Some(1800), 2));
        assert_eq!(e[1].opp_mhz, None);
        let c: Vec<CellPhase> = round_trip(&["audio/burn", "x/none"]);
        assert_eq!(c[0].load, crate::interactivity::Load::Burn);
        let m: Vec<MonitorPhase> = round_trip(&["command", "cluster1"]);
        assert_eq!(m[1], MonitorPhase::Cluster(1));
        round_trip::<crate::thermal::ThermalPhase>(&["idle", "heat", "load"]);
        round_trip::<crate::RunPhase>(&["idle", "clocks-cold", "compression-cluster"]);
        round_trip::<crate::clocks::ClocksPhase>(&["clocks"]);
        round_trip::<crate::review::ReviewPhase>(&["review"]);
        for bad in [
            "io-upload-1",
            "net--upload-1",
            "net-upload-x",
            "governor/",
            "governor/a#b",
            "c0-run1",
            "c0-18mhz-runx",
            "audio/nothing",
            "cluster",
            "cluster+1",
        ] {
            assert!(!NetPhase::new(None, NetTest::Upload, 1).is(bad), "{bad}");
            assert!(bad.parse::<NetPhase>().is_err(), "{bad}");
            assert!(bad.parse::<IoPhase>().is_err(), "{bad}");
            assert!(bad.parse::<GovernorPhase>().is_err(), "{bad}");
            assert!(bad.parse::<OppRunPhase>().is_err(), "{bad}");
            assert!(bad.parse::<CellPhase>().is_err(), "{bad}");
            assert!(bad.parse::<MonitorPhase>().is_err(), "{bad}");
        }
    }

    #[test]
    fn row_evidence_is_flattened_into_its_row() {
        #[derive(Debug, PartialEq, Serialize, Deserialize)]
        struct Row {
            n: u32,
            #[serde(flatten)]
            evidence: RowEvidence<Word>,
        }
        let r = Row {
            n: 1,
            evidence: RowEvidence::new(Word::A, PhaseStatus::Ok),
        };
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"n": 1, "phase": "a", "status": "ok", "reason": null, "marks": []})
        );
        assert_eq!(serde_json::from_value::<Row>(v).unwrap(), r);
        assert_eq!(r.evidence.shown(), "ok");
    }
}
