//! The `run` kind: sbc-bench's standard benchmark.

use super::{Metric, Render};
use crate::model::{RunBody, RunView};

impl Render for RunBody {
    fn label(r: RunView<'_>) -> String {
        r.body.mode.as_str().to_string()
    }

    fn metrics(r: RunView<'_>) -> Vec<Metric> {
        let m = crate::compare::metrics(r);
        let mut out = Vec::new();
        let mut num = |k: &str, v: Option<u64>, unit: &str| {
            if let Some(v) = v {
                out.push(Metric::number(k, v as f64, Some(unit)));
            }
        };
        num("sevenzip_multi", m.sevenzip_multi, "MIPS");
        num("sevenzip_single", m.sevenzip_single, "MIPS");
        num("aes", m.aes, "k");
        num("memcpy", m.memcpy, "MB/s");
        num("memset", m.memset, "MB/s");
        if let Some(v) = m.sevenzip_version {
            out.push(Metric::text("sevenzip_version", v));
        }
        if let Some(v) = m.openssl_version {
            out.push(Metric::text("openssl_version", v));
        }
        out
    }

    fn summary(r: RunView<'_>) -> String {
        crate::render::summary(r)
    }

    fn detailed_log(r: RunView<'_>) -> String {
        crate::render::detailed_log(r)
    }

    fn html_sections(r: RunView<'_>) -> (String, String) {
        crate::report::run_sections(r)
    }

    fn html_fact(r: RunView<'_>) -> (&'static str, String) {
        ("Mode", r.body.mode.as_str().to_string())
    }

    fn markdown(r: RunView<'_>) -> String {
        let row = crate::render::row(r);
        format!("{}\n{row}\n", crate::row::RESULTS_MD_HEADER)
    }
}
