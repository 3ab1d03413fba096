//! What each kind of result document renders as and which figures it stores: one [`Render`]
//! implementation per body type, the way hyperfine puts its exporters behind one trait.
//!
//! The generic entry points ([`summary`], [`detailed_log`], [`html_page`], [`markdown`],
//! [`metrics`], [`label`]) take a [`Document`] of any kind and dispatch on its body. Adding a
//! kind: implement [`Render`] for its body type (the model's kind list makes the dispatch).

pub mod readings;
pub mod sweep;

use truebench_model::{Body, Document, View};

pub use truebench_figures::{headline, label, metrics, Figures, Headline, Metric};

/// The renderers of one kind of result (its figures and label: [`Figures`], in
/// `truebench-figures`).
pub trait Render: Figures {
    /// The short text the command prints at its end.
    fn summary(r: View<'_, Self>) -> String;
    /// The detailed log: every raw output, the monitoring of every phase, the evidence.
    fn detailed_log(r: View<'_, Self>) -> String;
    /// The kind's sections of the HTML page: (headline under the header, details after the
    /// timeline). The page frame is the same for every kind (`report::page`).
    fn html_sections(r: View<'_, Self>) -> (String, String);
    /// `Mode`-like fact in the page header: (name, value).
    fn html_fact(r: View<'_, Self>) -> (&'static str, String);
    /// Markdown for publishing (the Results.md row for a run).
    fn markdown(r: View<'_, Self>) -> String;

    /// The headline cards under the header (the figures a user came for).
    fn html_headline(r: View<'_, Self>) -> String {
        crate::report::headline_html(&Self::headline(r))
    }

    /// The whole page: the shared frame around the kind's sections, its headline first.
    fn html_page(r: View<'_, Self>, frame: crate::report::Frame<'_>) -> String {
        let (main, details) = Self::html_sections(r);
        let top = format!("{}{main}", Self::html_headline(r));
        crate::report::page(r, Self::html_fact(r), &top, &details, frame)
    }
}

/// [`Render`] of any kind, bound to its document: what the generic entry points call.
trait Bound {
    fn summary(&self) -> String;
    fn detailed_log(&self) -> String;
    fn markdown(&self) -> String;
    fn html_sections(&self) -> (String, String);
    fn html_page(&self, frame: crate::report::Frame<'_>) -> String;
}

impl<B: Render> Bound for View<'_, B> {
    fn summary(&self) -> String {
        B::summary(*self)
    }
    fn detailed_log(&self) -> String {
        B::detailed_log(*self)
    }
    fn markdown(&self) -> String {
        B::markdown(*self)
    }
    fn html_sections(&self) -> (String, String) {
        B::html_sections(*self)
    }
    fn html_page(&self, frame: crate::report::Frame<'_>) -> String {
        B::html_page(*self, frame)
    }
}

/// One module per kind, named as the model's (`kinds/<module>.rs`, its `Render` impl), and
/// the document's body with its renderer, for every kind the model lists: a new kind needs no
/// line here, and a kind without a renderer does not compile.
macro_rules! define_bound {
    ($($module:ident::$t:ident as $variant:ident = $kind:literal,)*) => {
        $(pub mod $module;)*

        fn bound(doc: &Document) -> Box<dyn Bound + '_> {
            let envelope = &doc.envelope;
            match &doc.body {
                $(Body::$variant(body) => Box::new(View { envelope, body }),)*
            }
        }
    };
}
truebench_model::for_each_kind!(define_bound);

/// The command's closing text: the headline, then the kind's own summary (a run's summary
/// leads with its scores already).
pub fn summary(doc: &Document) -> String {
    let own = bound(doc).summary();
    if matches!(doc.body, Body::Run(_)) {
        return own;
    }
    let h = truebench_figures::headline(doc);
    if h.is_empty() {
        return own;
    }
    format!("Headline:\n{}{own}", truebench_figures::headline::text(&h))
}

pub fn detailed_log(doc: &Document) -> String {
    bound(doc).detailed_log()
}

pub fn markdown(doc: &Document) -> String {
    bound(doc).markdown() + &crate::residency::markdown(&doc.envelope)
}

/// The kind's own sections of the HTML page: (headline, details).
pub fn html_sections(doc: &Document) -> (String, String) {
    bound(doc).html_sections()
}

/// The whole self-contained HTML page of `doc`.
pub fn html_page(doc: &Document) -> String {
    html_page_in(doc, crate::report::Frame::default())
}

/// The HTML page of `doc` in `frame` (a site's shared stylesheet and navigation).
pub fn html_page_in(doc: &Document, frame: crate::report::Frame<'_>) -> String {
    bound(doc).html_page(frame)
}
