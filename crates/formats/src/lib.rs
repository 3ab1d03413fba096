//! truebench's results in the formats that board farms and kernel CI already read, so they
//! need no glue that greps truebench's text:
//!
//! - [`junit`]: JUnit XML (Jenkins, GitLab CI);
//! - [`lava`]: LAVA test-shell signals (`lava-test-case`/`lava-test-set` lines);
//! - [`kcidb`]: KernelCI's KCIDB I/O schema v5;
//! - [`prom`]: Prometheus families (`serve`) and node_exporter's textfile.
//!
//! The first three render one list of test cases ([`cases`]); the fourth the same scores.

pub mod cases;
pub mod junit;
pub mod kcidb;
pub mod lava;
pub mod prom;

pub use cases::{cases, Case, Verdict};
pub use junit::junit;
pub use kcidb::kcidb;
pub use lava::{lava, Signals};
pub use prom::textfile;

use truebench_host::Inventory;

/// The device tree's root compatible entries as KCIDB takes them (no spaces or NULs).
pub(crate) fn compatible(inv: &Inventory) -> Vec<String> {
    inv.compatible
        .iter()
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty() && !c.contains([' ', '\0']))
        .collect()
}

/// A format a measuring command or `export` can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JUnit XML.
    Junit,
    /// LAVA test-shell signals.
    Lava,
    /// KCIDB v5 JSON.
    Kcidb,
    /// Prometheus text exposition (node_exporter's textfile collector).
    Prom,
}

impl Format {
    /// Every format with its name on the command line.
    pub const ALL: [(Format, &'static str); 4] = [
        (Format::Junit, "junit"),
        (Format::Lava, "lava"),
        (Format::Kcidb, "kcidb"),
        (Format::Prom, "prom"),
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        Format::ALL
            .iter()
            .find(|(f, _)| *f == self)
            .map_or("", |(_, n)| n)
    }

    /// The file name extension of the format.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Junit => "xml",
            Format::Lava => "lava.txt",
            Format::Kcidb => "kcidb.json",
            Format::Prom => "prom",
        }
    }

    /// The text of `docs` (`(id, document)` pairs) in this format; LAVA's lines as `signals`.
    pub fn render(self, docs: &[(String, &truebench_model::Document)], signals: Signals) -> String {
        match self {
            Format::Junit => junit(docs.iter().map(|(i, d)| (i.as_str(), *d))),
            Format::Lava => docs
                .iter()
                .flat_map(|(_, d)| lava(d, signals))
                .map(|l| l + "\n")
                .collect(),
            Format::Kcidb => {
                serde_json::to_string_pretty(&kcidb(docs.iter().map(|(_, d)| *d)))
                    .unwrap_or_default()
                    + "\n"
            }
            Format::Prom => textfile(docs.iter().map(|(i, d)| (i.as_str(), *d))),
        }
    }
}
