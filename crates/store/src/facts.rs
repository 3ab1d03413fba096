//! What the history's summaries ([`crate::standing`], [`crate::regress`]) read of a result
//! besides its figures, taken from its document once: a whole history is then ranked and
//! judged from these and the figures (`truebench_figures::metrics`) without holding, or even
//! loading, the documents (the static site keeps both per stored result between builds).

use serde::{Deserialize, Serialize};
use truebench_model::Document;

/// A result's kind, time, machine names, group and the settings a regression's differences
/// name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Facts {
    /// `run`, `clocks`, …
    pub kind: String,
    /// When it started.
    pub started_unix_ms: i64,
    /// The host name.
    pub hostname: Option<String>,
    /// The board's name.
    pub device: Option<String>,
    /// The SoC answer's name as stored (what names the machine).
    pub soc_name: Option<String>,
    /// The one chip the answer names, when it names one (what groups results).
    pub chip: Option<String>,
    /// Complete, valid and comparable: its figures count.
    pub counts: bool,
    /// Each tool with its version, in the document's order.
    pub tools: Vec<(String, Option<String>)>,
    /// The kernel release.
    pub kernel: Option<String>,
    /// The distribution (or the OS code name).
    pub distro: Option<String>,
    /// The userland's architecture.
    pub userland: Option<String>,
    /// The clusters' governors, `a / b`.
    pub governors: Option<String>,
    /// The clusters' maximum clocks, `2400 MHz / 1800 MHz`.
    pub clocks: Option<String>,
    /// Memory installed, kB.
    pub memory_kb: Option<u64>,
    /// The settings truebench tuned that took, `path=value`, sorted, each once.
    pub tuned: Vec<String>,
}

impl Facts {
    /// The facts of `doc`.
    pub fn of(doc: &Document) -> Facts {
        let e = &doc.envelope;
        let inv = &e.inventory;
        let join = |v: Vec<String>| (!v.is_empty()).then(|| v.join(" / "));
        let mut tuned: Vec<String> = e
            .tuning
            .changes
            .iter()
            .filter(|c| c.error.is_none())
            .map(|c| format!("{}={}", c.path, c.value))
            .collect();
        tuned.sort();
        tuned.dedup();
        Facts {
            kind: doc.kind().to_string(),
            started_unix_ms: e.started.unix_ms,
            hostname: e.hostname.clone(),
            device: inv.device.clone(),
            soc_name: inv.soc.as_ref().map(|s| s.name.clone()),
            // A layout several chips share, a vendor only or another tool's guess (and an old
            // document's hedged "one of …") names no one chip to be grouped with.
            chip: inv
                .soc
                .as_ref()
                .and_then(|s| s.chip())
                .filter(|c| !c.is_empty())
                .map(str::to_string),
            counts: e.complete && e.valid && e.comparable,
            tools: e
                .tools
                .iter()
                .map(|t| (t.name.clone(), t.version.clone()))
                .collect(),
            kernel: inv.kernel.release.clone(),
            distro: inv.distro.clone().or_else(|| e.os_codename.clone()),
            userland: inv.arch.userland.clone(),
            governors: join(
                inv.clusters
                    .iter()
                    .filter_map(|c| c.governor.clone())
                    .collect(),
            ),
            clocks: join(
                inv.clusters
                    .iter()
                    .filter_map(|c| c.max_mhz.map(|m| format!("{m} MHz")))
                    .collect(),
            ),
            memory_kb: inv.memory.total_kb,
            tuned,
        }
    }
}
