//! The result document every truebench measurement writes (`result.json`, `--json`, the
//! history): `{schema_version, kind, envelope, body}`.
//!
//! - The [`Envelope`] is what every kind shares: version, times, machine, tuning, tools, phases
//!   with their evidence, findings, timeline, kernel log, complete/valid and why.
//! - The body is per kind ([`Body`]): [`RunBody`] (`truebench run`), [`ClocksBody`]
//!   (`truebench clocks`), [`MonitorBody`] (`truebench monitor -- CMD`), [`InteractivityBody`]
//!   (`truebench interactivity`), [`GovernorsBody`] (`truebench governors`), [`NetBody`]
//!   (`truebench net`), [`IoBody`] (`truebench io`), [`ThermalBody`] (`truebench thermal`),
//!   [`EfficiencyBody`] (`truebench efficiency`).
//!
//! Code that knows its kind works with a [`Typed`] document (`RunResult` = `Typed<RunBody>`);
//! code that takes any kind (history, report, compare) works with [`Document`]. Both serialize
//! to the same JSON. The JSON Schema is generated from these types (`docs/schema/result.schema.json`,
//! kept current by a test); older versions are read through [`migrate`].
//!
//! The model owns the whole stored format: besides the bodies and the envelope, the evidence
//! types the monitor fills ([`finding::Finding`], [`timeline::Timeline`] with its energy
//! report) live here, with their pure computations (a phase's energy from the power
//! readings). It depends only on the machine model (`truebench_host::Inventory`), never on
//! the sampler or the measurement kernels: a suite converts each kernel's result into the
//! typed scores here and keeps the kernel's full result as JSON
//! in [`PhaseResult::details`] for traceability.

mod envelope;
pub mod evidence;
pub mod finding;
mod migrate;
mod outcome;
pub mod residency;
pub mod sweep;
pub mod throttling;
mod time;
pub mod timeline;

use serde::{Deserialize, Serialize};

pub use envelope::*;
pub use evidence::{PhaseId, RowEvidence};
pub use migrate::{migrate, migrate_run, migrate_typed, upgrade_to, MigrateError};
pub use monitor::ClusterRun;
pub use outcome::{FailedRows, Outcome, StartFailure};
pub use run::*;
pub use time::{rfc3339_utc, unix_s_utc, Stamp};

/// Version of the document. Bump on an incompatible change and teach [`migrate`] the old one.
/// 1: the `run` result alone (flat); 2: `{schema_version, kind, envelope, body}`; 3: the
/// throttling statistics as tables; 4: `run`'s scores in its body, its clock walks in the
/// `clocks` kind's types; 5: each `efficiency` run carries its status and validity like
/// every other kind's rows, findings may say what they rest on (`basis`).
pub const SCHEMA_VERSION: u32 = 5;

/// Every kind of measurement, once: `module::BodyType as Variant = "kind"`. This list is the
/// only registration a new kind needs in the model: it declares the module (`module.rs`) and
/// makes the [`Body`] variant, [`Body::kind`], [`KINDS`] and the [`BodyKind`] impl; the
/// renderer declares its module of the same name and dispatches on the same list
/// (`for_each_kind!(their_macro)` calls `their_macro!` with it).
#[macro_export]
macro_rules! for_each_kind {
    ($callback:ident) => {
        $callback! {
            run::RunBody as Run = "run",
            clocks::ClocksBody as Clocks = "clocks",
            monitor::MonitorBody as Monitor = "monitor",
            interactivity::InteractivityBody as Interactivity = "interactivity",
            governors::GovernorsBody as Governors = "governors",
            net::NetBody as Net = "net",
            io::IoBody as Io = "io",
            review::ReviewBody as Review = "review",
            thermal::ThermalBody as Thermal = "thermal",
            efficiency::EfficiencyBody as Efficiency = "efficiency",
            power::PowerBody as Power = "power",
        }
    };
}

macro_rules! define_kinds {
    ($($module:ident::$t:ident as $variant:ident = $kind:literal,)*) => {
        $(pub mod $module;)*
        $(pub use $module::$t;)*

        /// What a document measured, with the figures of that kind.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
        #[serde(tag = "kind", content = "body", rename_all = "snake_case")]
        pub enum Body {
            $(
                #[doc = concat!("`kind` is `", $kind, "`; `body` holds its figures.")]
                $variant($module::$t),
            )*
        }

        impl Body {
            /// The `kind` string of the document (`run`).
            pub fn kind(&self) -> &'static str {
                match self {
                    $(Body::$variant(_) => $kind,)*
                }
            }
        }

        /// Every kind of document, by its `kind` string (for `history --kind` and error
        /// messages).
        pub const KINDS: &[&str] = &[$($kind),*];

        $(body_kind!($module::$t, $variant, $kind);)*
    };
}

/// One result document of any kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(title = "truebench result document")]
pub struct Document {
    /// [`SCHEMA_VERSION`] of the writer.
    pub schema_version: u32,
    /// The kind (`kind`) and its figures (`body`), flattened into the document.
    #[serde(flatten)]
    pub body: Body,
    /// What every kind shares: times, machine, tuning, phases, evidence, validity.
    pub envelope: Envelope,
}

impl Document {
    /// The `kind` string of the document (`run`).
    pub fn kind(&self) -> &'static str {
        self.body.kind()
    }

    /// The document as its kind's type; `Err` gives it back when it is another kind.
    pub fn into_typed<B: BodyKind>(self) -> Result<Typed<B>, Box<Document>> {
        let Document {
            schema_version,
            body,
            envelope,
        } = self;
        match B::from_body(body) {
            Ok(body) => Ok(Typed { envelope, body }),
            Err(body) => Err(Box::new(Document {
                schema_version,
                body,
                envelope,
            })),
        }
    }
}

/// A body type: one per kind of measurement. Adding a kind = a body type implementing this,
/// a variant of [`Body`], a renderer and a suite (docs/architecture.md).
pub trait BodyKind: Sized + Clone {
    /// The `kind` string of the document (`run`).
    const KIND: &'static str;
    /// The body as the [`Body`] variant of its kind.
    fn into_body(self) -> Body;
    /// The body back, or the other kind's body unchanged (moved once per document: its
    /// size does not matter here).
    #[allow(clippy::result_large_err)]
    fn from_body(body: Body) -> Result<Self, Body>;
    /// The body when `body` is of this kind, else None.
    fn of(body: &Body) -> Option<&Self>;
}

macro_rules! body_kind {
    ($t:ty, $variant:ident, $kind:literal) => {
        impl BodyKind for $t {
            const KIND: &'static str = $kind;
            fn into_body(self) -> Body {
                Body::$variant(self)
            }
            fn from_body(body: Body) -> Result<Self, Body> {
                match body {
                    Body::$variant(b) => Ok(b),
                    other => Err(other),
                }
            }
            fn of(body: &Body) -> Option<&Self> {
                match body {
                    Body::$variant(b) => Some(b),
                    _ => None,
                }
            }
        }
    };
}

for_each_kind!(define_kinds);

/// A document whose kind is known: the envelope and the body of kind `B`. Serializes to (and
/// deserializes from) the same JSON as [`Document`].
#[derive(Debug, Clone, PartialEq)]
pub struct Typed<B> {
    /// What every kind shares.
    pub envelope: Envelope,
    /// The figures of kind `B`.
    pub body: B,
}

/// The result of `truebench run`.
pub type RunResult = Typed<RunBody>;
/// The result of `truebench clocks`.
pub type ClocksResult = Typed<ClocksBody>;
/// The result of `truebench monitor -- CMD`.
pub type MonitorResult = Typed<MonitorBody>;
/// The result of `truebench interactivity`.
pub type InteractivityResult = Typed<InteractivityBody>;
/// The result of `truebench governors`.
pub type GovernorsResult = Typed<GovernorsBody>;
/// The result of `truebench net --connect`.
pub type NetResult = Typed<NetBody>;
/// The result of `truebench io`.
pub type IoResult = Typed<IoBody>;
/// The result of `truebench review`.
pub type ReviewResult = Typed<ReviewBody>;
/// The result of `truebench thermal`.
pub type ThermalResult = Typed<ThermalBody>;
/// The result of `truebench efficiency`.
pub type EfficiencyResult = Typed<EfficiencyBody>;

/// A borrowed document of kind `B`: what renderers take, so a [`Document`] renders without
/// being taken apart or copied. Field access reads like [`Typed`]'s (`r.envelope.phases`).
#[derive(Debug, PartialEq)]
pub struct View<'a, B> {
    /// What every kind shares.
    pub envelope: &'a Envelope,
    /// The figures of kind `B`.
    pub body: &'a B,
}

impl<B> Clone for View<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B> Copy for View<'_, B> {}

/// A borrowed `run` result.
pub type RunView<'a> = View<'a, RunBody>;

impl<B> Typed<B> {
    /// The document borrowed as a [`View`].
    pub fn view(&self) -> View<'_, B> {
        View {
            envelope: &self.envelope,
            body: &self.body,
        }
    }
}

impl Document {
    /// The document as a view of kind `B`, if it is one.
    pub fn view<B: BodyKind>(&self) -> Option<View<'_, B>> {
        B::of(&self.body).map(|body| View {
            envelope: &self.envelope,
            body,
        })
    }
}

impl<B: BodyKind> Typed<B> {
    /// The document of any kind, at the current [`SCHEMA_VERSION`].
    pub fn into_document(self) -> Document {
        Document {
            schema_version: SCHEMA_VERSION,
            body: self.body.into_body(),
            envelope: self.envelope,
        }
    }

    /// [`Typed::into_document`] of a copy.
    pub fn to_document(&self) -> Document {
        self.clone().into_document()
    }
}

impl<B: BodyKind + Serialize> Serialize for Typed<B> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Document", 4)?;
        st.serialize_field("schema_version", &SCHEMA_VERSION)?;
        st.serialize_field("kind", B::KIND)?;
        st.serialize_field("body", &self.body)?;
        st.serialize_field("envelope", &self.envelope)?;
        st.end()
    }
}

impl<'de, B: BodyKind> Deserialize<'de> for Typed<B> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let doc = Document::deserialize(d)?;
        let kind = doc.kind();
        doc.into_typed().map_err(|_| {
            serde::de::Error::custom(format!("a {kind} document, not a {} document", B::KIND))
        })
    }
}

/// The JSON Schema of [`Document`] (checked in as `docs/schema/result.schema.json`).
pub fn json_schema() -> serde_json::Value {
    let mut s = serde_json::to_value(schemars::schema_for!(Document)).unwrap_or_default();
    if let Some(o) = s.as_object_mut() {
        o.insert(
            "$comment".into(),
            format!(
                "schema_version {SCHEMA_VERSION}; generated from crates/model by `cargo test -p truebench-model --test schema` (set TRUEBENCH_WRITE_SCHEMA=1 to rewrite)"
            )
            .into(),
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrate_rejects_future_and_missing_versions() {
        let e = migrate(serde_json::json!({"schema_version": 7})).unwrap_err();
        assert!(e.to_string().contains("newer truebench"), "{e}");
        assert!(matches!(
            migrate(serde_json::json!({"mode": "quick"})),
            Err(MigrateError::NoVersion)
        ));
        assert!(matches!(
            migrate(serde_json::json!({"schema_version": 0})),
            Err(MigrateError::Unknown(0))
        ));
        let e = migrate(serde_json::json!({"schema_version": 1})).unwrap_err();
        assert!(matches!(e, MigrateError::Invalid { version: 1, .. }), "{e}");
        let e = migrate(serde_json::json!({"schema_version": 2, "kind": "run"})).unwrap_err();
        assert!(matches!(e, MigrateError::Invalid { version: 2, .. }), "{e}");
    }

    #[test]
    fn scores_are_tagged_by_kind() {
        let s = Scores::Stress(StressScores {
            tool: StressTool::Builtin,
            version: None,
            unit: "GFLOP/s".into(),
            intervals: vec![],
            change_pct: None,
        });
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["kind"], "stress");
        assert_eq!(serde_json::from_value::<Scores>(v).unwrap(), s);
    }

    #[test]
    fn kinds_are_listed_once() {
        let mut k = KINDS.to_vec();
        k.sort_unstable();
        k.dedup();
        assert_eq!(k.len(), KINDS.len());
    }
}
