//! The `run` kind: sbc-bench's standard benchmark.

use truebench_model::*;

use super::Render;

impl Render for RunBody {
    fn summary(r: RunView<'_>) -> String {
        crate::text::summary(r)
    }

    fn detailed_log(r: RunView<'_>) -> String {
        crate::text::detailed_log(r)
    }

    fn html_sections(r: RunView<'_>) -> (String, String) {
        crate::report::run_sections(r)
    }

    /// The score cards are the run's headline (its first section).
    fn html_headline(_: RunView<'_>) -> String {
        String::new()
    }

    fn html_fact(r: RunView<'_>) -> (&'static str, String) {
        ("Mode", r.body.mode.as_str().to_string())
    }

    fn markdown(r: RunView<'_>) -> String {
        let row = crate::text::row(r);
        format!("{}\n{row}\n", truebench_sbcbench::row::RESULTS_MD_HEADER)
    }
}

pub use truebench_figures::run::{metrics, openssl_short, Metrics};
