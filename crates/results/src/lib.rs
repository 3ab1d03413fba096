//! truebench results: the result model and its renderers (to come), and the import of
//! sbc-bench result logs of every version (`import`), with the Results.md row computed the way
//! sbc-bench computes it (`row`).

pub mod import;
pub mod row;
pub mod sbcbench;

pub use import::{parse, results_row};
pub use row::ResultsRow;
pub use sbcbench::SbcBenchLog;
