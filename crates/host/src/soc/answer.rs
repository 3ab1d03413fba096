//! The SoC answer as the result document carries it: the chip, where the answer comes from
//! and how sure it is.

/// How a SoC answer was reached, and so how far it can be trusted.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SocBasis {
    /// The evidence names the chip (a device-tree entry, a cpuinfo line, the kernel log, the
    /// processor's model name): as sure as that evidence. `named` holds it as written,
    /// `canonical` the table's name for the chip where the table knows it.
    Named {
        /// Which evidence names it.
        source: NamedBy,
    },
    /// Only the core layout fits: `candidates` lists every chip of that layout known to
    /// truebench's sources (data/layouts.tsv and the signature rules). `name` is one chip only
    /// where the layout is unique among all of them and vendor evidence (cpuinfo `Hardware`,
    /// a device-tree vendor prefix, a vendor's own core design) names the same vendor.
    Layout,
    /// The evidence names the vendor, and no chip of that vendor with this core layout is
    /// known: `name` says the vendor only.
    Vendor,
    /// Another tool's answer that nothing at hand confirms (an imported sbc-bench log's
    /// `SoC guess:` line without a chip ID, device tree or core types): `name` is that
    /// tool's guess, no identification.
    Reported,
}

/// The evidence that named a chip.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum NamedBy {
    /// An entry of /proc/device-tree/compatible.
    DeviceTreeCompatible,
    /// /proc/device-tree/model.
    DeviceTreeModel,
    /// The `Hardware` line of /proc/cpuinfo.
    CpuinfoHardware,
    /// The `Model` line of /proc/cpuinfo.
    CpuinfoModel,
    /// The chip ID Amlogic's vendor kernels put in the cpuinfo `Serial` line.
    ChipId,
    /// The kernel log's machine line (`Machine model: …`).
    KernelLog,
    /// The processor's `model name` (x86 CPUs: the processor is the chip).
    CpuModelName,
    /// An sbc-bench log: its device line or the chip ID its `SoC guess:` line carries.
    SbcBenchLog,
}

impl NamedBy {
    /// How the source reads in a sentence.
    pub fn label(self) -> &'static str {
        match self {
            NamedBy::DeviceTreeCompatible => "device-tree compatible",
            NamedBy::DeviceTreeModel => "device-tree model",
            NamedBy::CpuinfoHardware => "cpuinfo Hardware",
            NamedBy::CpuinfoModel => "cpuinfo Model",
            NamedBy::ChipId => "chip ID",
            NamedBy::KernelLog => "kernel log",
            NamedBy::CpuModelName => "CPU model name",
            NamedBy::SbcBenchLog => "sbc-bench log",
        }
    }
}

/// The SoC answer and the evidence that led to it.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct SocGuess {
    /// The chip (`Rockchip RK3588`): the table's name for a named chip, else the chip as
    /// named; for a layout answer the one chip of that layout, or "layout of A, B or C"; for
    /// a vendor answer "a Rockchip chip". Documents older than `basis` may say "one of …".
    pub name: String,
    /// Which rule matched, human-readable, e.g. "device-tree compatible \"rockchip,rk3588\"".
    pub evidence: String,
    /// For a layout answer: every chip of that layout known, and `name` says "layout of …"
    /// (empty when one chip is named). Empty for a named chip.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<String>,
    /// Where the answer comes from and how sure it is; absent in documents written before
    /// truebench said so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basis: Option<SocBasis>,
    /// A named chip as the evidence writes it (`rockchip,rk3588s`, `MT6769V/CB`,
    /// `Qualcomm Technologies, Inc SM8150`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub named: Option<String>,
    /// The table's name for a named chip, where the table knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical: Option<String>,
    /// The machine's core layout (`4 × Cortex-A55 + 4 × Cortex-A76`) where the answer rests
    /// on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<String>,
}

impl SocGuess {
    /// An answer with no basis set yet (the caller fills it in).
    pub fn new(name: impl Into<String>, evidence: impl Into<String>) -> SocGuess {
        SocGuess {
            name: name.into(),
            evidence: evidence.into(),
            candidates: Vec::new(),
            basis: None,
            named: None,
            canonical: None,
            layout: None,
        }
    }

    /// A chip the evidence names: `named` as written, `canonical` the table's name if known.
    pub fn named(
        source: NamedBy,
        named: impl Into<String>,
        canonical: Option<String>,
        evidence: impl Into<String>,
    ) -> SocGuess {
        let named = named.into();
        SocGuess {
            name: canonical.clone().unwrap_or_else(|| named.clone()),
            basis: Some(SocBasis::Named { source }),
            named: Some(named),
            canonical,
            ..SocGuess::new("", evidence)
        }
    }

    /// The one chip this answer names, for grouping results by chip: a named chip (its
    /// table name, else as named) or a layout unique among all known chips. None for a
    /// list of candidates, a vendor, or an old document's hedged "one of …".
    pub fn chip(&self) -> Option<&str> {
        match self.basis {
            Some(SocBasis::Named { .. }) => Some(self.name.as_str()),
            Some(SocBasis::Layout) => self.candidates.is_empty().then_some(self.name.as_str()),
            Some(SocBasis::Vendor | SocBasis::Reported) => None,
            None => (self.candidates.is_empty() && !self.name.starts_with("one of "))
                .then_some(self.name.as_str()),
        }
    }

    /// The answer as a reader sees it: a named chip as named with the table's name beside
    /// it, a layout answer saying it is one, a vendor answer as such.
    pub fn display(&self) -> String {
        match self.basis {
            Some(SocBasis::Named { .. }) => match (&self.named, &self.canonical) {
                (Some(n), Some(c)) if !c.to_ascii_lowercase().contains(&n.to_ascii_lowercase()) => {
                    format!("{n} = {c}")
                }
                _ => self.name.clone(),
            },
            Some(SocBasis::Layout) if self.candidates.is_empty() => format!(
                "{} (by its core layout{})",
                self.name,
                self.layout
                    .as_deref()
                    .map(|l| format!(" {l}"))
                    .unwrap_or_default()
            ),
            Some(SocBasis::Reported) => format!("{} (as another tool guessed)", self.name),
            _ => self.name.clone(),
        }
    }
}
