//! truebench results: the versioned result model of `truebench run` (`model`) and its
//! renderers (`render`: summary, detailed log, Results.md row), the text rendering of an
//! inventory (`info`), and the
//! import of sbc-bench result logs of every version (`import`), with the Results.md row
//! computed the way sbc-bench computes it (`row`).

pub mod compare;
pub mod convert;
pub mod import;
pub mod info;
pub mod kinds;
pub mod model;
pub mod rank;
pub mod render;
pub mod report;
pub mod row;
pub mod sbcbench;
pub mod store;
pub mod verdict;

pub use import::{parse, results_row};
pub use model::{migrate, migrate_run, migrate_typed, Document, RunResult};
pub use render::{detailed_log, summary};
pub use row::ResultsRow;
pub use sbcbench::SbcBenchLog;
