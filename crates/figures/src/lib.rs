//! The headline figures of every kind of result — what the history stores (`metrics`),
//! `compare` sets side by side and lists show (`label`) — computed from the model alone:
//! the history and compare read them here, not from the renderer.
//!
//! One module per kind, named as the model's, implements [`Figures`] for its body; the
//! model's kind list (`for_each_kind!`) declares the modules and makes the dispatch, so a new
//! kind needs no line here.

pub mod energy;
pub mod headline;
pub mod labels;

pub use headline::Headline;
pub use labels::label_of;

use truebench_model::{Body, BodyKind, Document, View};

/// One headline figure of a result, as the history stores it (`metrics` table) and `compare`
/// reads it: a number with its unit, or a text (tool versions).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Metric {
    /// `sevenzip_multi`, `cluster0_measured_mhz`, `exit_code`.
    pub key: String,
    pub value: Option<f64>,
    /// For figures that are no numbers (`sevenzip_version` = `16.02`).
    pub text: Option<String>,
    /// `MIPS`, `MB/s`, `MHz`, `s`; None for counts and texts.
    pub unit: Option<String>,
}

/// A figure as the history's rankings and judgements read it (`store`'s standing and
/// regressions): its key, value and unit. Implemented by [`Metric`] and by what a caller
/// keeps of one, so a fleet's figures are read where they are, not copied into metrics.
pub trait Figure {
    fn key(&self) -> &str;
    fn value(&self) -> Option<f64>;
    fn unit(&self) -> Option<&str>;
}

impl Figure for Metric {
    fn key(&self) -> &str {
        &self.key
    }
    fn value(&self) -> Option<f64> {
        self.value
    }
    fn unit(&self) -> Option<&str> {
        self.unit.as_deref()
    }
}

impl Metric {
    pub fn number(key: impl Into<String>, value: f64, unit: Option<&str>) -> Metric {
        Metric {
            key: key.into(),
            value: Some(value),
            text: None,
            unit: unit.map(str::to_string),
        }
    }

    pub fn text(key: impl Into<String>, text: impl Into<String>) -> Metric {
        Metric {
            key: key.into(),
            value: None,
            text: Some(text.into()),
            unit: None,
        }
    }
}

/// The key of a test measured under a cpufreq setting (net, io): `upload`, or
/// `upload_performance` when the setting was not left as it was.
pub fn setting_key(test: &str, setting: &str) -> String {
    if setting == "as is" {
        test.to_string()
    } else {
        format!("{test}_{setting}")
    }
}

/// A result measured with `--root` of a recorded tree: its settings, clocks and sensors were
/// that tree's files, while the work itself ran on the machine truebench ran on — said first.
pub fn recorded_tree(e: &truebench_model::Envelope) -> Option<Headline> {
    let root = e.inventory.root.as_str();
    (root.starts_with('/') && root != "/").then(|| {
        Headline::new("Recorded tree", root.to_string()).note(format!(
            "settings and readings came from this tree; the work ran on {}",
            e.hostname
                .as_deref()
                .unwrap_or("the machine truebench ran on")
        ))
    })
}

/// A test under a cpufreq setting as lists name it: `upload`, or `upload (performance)` when
/// the setting was not left as it was.
pub fn setting_label(test: &str, setting: &str) -> String {
    if setting == "as is" {
        test.to_string()
    } else {
        format!("{test} ({setting})")
    }
}

/// The figures of one kind of result.
pub trait Figures: BodyKind {
    /// What was measured, in a few words, for lists (`standard`, `OPP walk`, `sleep 3`).
    fn label(r: View<'_, Self>) -> String;
    /// The headline figures the history stores and `compare` sets side by side.
    fn metrics(r: View<'_, Self>) -> Vec<Metric>;
    /// The few figures a user came for, first on the page, in the summary and in history.
    fn headline(r: View<'_, Self>) -> Vec<Headline>;
}

macro_rules! define_dispatch {
    ($($module:ident::$t:ident as $variant:ident = $kind:literal,)*) => {
        $(pub mod $module;)*

        /// What was measured, in a few words, for lists.
        pub fn label(doc: &Document) -> String {
            let envelope = &doc.envelope;
            match &doc.body {
                $(Body::$variant(body) => Figures::label(View { envelope, body }),)*
            }
        }

        /// The kind's headline, led by a warning when the machine's settings were a
        /// recorded tree's (`--root`) while this machine ran the work.
        pub fn headline(doc: &Document) -> Vec<Headline> {
            let envelope = &doc.envelope;
            let mut h = match &doc.body {
                $(Body::$variant(body) => Figures::headline(View { envelope, body }),)*
            };
            if let Some(r) = recorded_tree(envelope) {
                h.insert(0, r);
            }
            h
        }

        /// The kind's figures, then the energy figures every kind shares.
        pub fn metrics(doc: &Document) -> Vec<Metric> {
            let envelope = &doc.envelope;
            let mut m = match &doc.body {
                $(Body::$variant(body) => Figures::metrics(View { envelope, body }),)*
            };
            m.extend(energy::metrics(envelope));
            m
        }
    };
}
truebench_model::for_each_kind!(define_dispatch);
