//! Rendering of result documents: one [`kinds::Render`] implementation per kind (label,
//! headline figures, summary, detailed log, HTML sections, Markdown), the texts of the `run`
//! kind (`text`: summary, detailed log, the Results.md row), the inventory as text (`info`) and
//! the self-contained HTML report with one page frame for every kind (`report`).

pub mod compare;
pub mod energy;
pub mod info;
pub mod kernel;
pub mod kinds;
pub mod perf_control;
pub mod report;
pub mod residency;
pub mod text;
pub mod throttling;

pub use text::{detailed_log, summary};
