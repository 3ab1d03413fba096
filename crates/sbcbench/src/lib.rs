//! Compatibility with sbc-bench, the tool truebench succeeds: its result logs of every version
//! (v0.4 … v0.9.72) parsed (`import`, into the [`SbcBenchLog`] model of `log`), the Results.md
//! row computed by the rules of the version that wrote each log (`row`, `import::row`), a log
//! converted to a truebench `run` document and judged again by truebench's detectors
//! (`convert`), a truebench run as a log for its own row (`from_result`), and truebench's verdicts compared with sbc-bench's own (`verdict`), each
//! disagreement traced to a named sbc-bench error where one is known (`known`).
//!
//! Everything here is about the old tool; truebench's own model is `truebench-model`.

pub mod convert;
pub mod from_result;
pub mod import;
pub mod known;
pub mod log;
pub mod row;
pub mod verdict;

pub use import::{parse, results_row};
pub use log::SbcBenchLog;
pub use row::ResultsRow;
