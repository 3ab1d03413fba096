//! sbc-bench logs come from the internet: every log of the corpus (v0.4 … v0.9.72), cut
//! short, edited, with garbage and hostile numbers in it, is parsed, its Results.md row
//! computed and it is converted and judged — none may panic. Inputs: `PROPTEST_CASES`
//! (default `truebench_fixtures::fuzz::CASES`); failures are kept in `proptest-regressions/`.

use proptest::prelude::*;
use std::sync::OnceLock;
use truebench_fixtures::fuzz::{config, mutated_text};

fn logs() -> Vec<Vec<u8>> {
    static LOGS: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        truebench_fixtures::sbc_bench::logs()
            .into_iter()
            .map(|(_, t)| t.into_bytes())
            .collect()
    })
    .clone()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_log_of_any_shape(t in mutated_text(logs())) {
        let log = truebench_sbcbench::parse(&t);
        let _ = truebench_sbcbench::results_row(&log);
        let r = truebench_sbcbench::convert::to_run_result(&log, "fuzzed");
        let v = truebench_sbcbench::verdict::compare(&log, r.view());
        let _ = truebench_sbcbench::verdict::render(&v);
    }
}
