//! SoC guessing: which system-on-chip a machine is built around, from the evidence the probe
//! found (device-tree compatible list and model, cpuinfo `Hardware`/`Model`/`Serial` lines, core
//! types per CPU).
//!
//! The knowledge lives in `data/socs.tsv` (see its header for the rule kinds and their
//! semantics); this module only applies it. Priority, strongest first:
//! device-tree compatible (entries in list order) > model > Amlogic chip ID in `Serial` >
//! cpuinfo `Hardware` > the kernel log's machine line > core signature with revisions > core
//! signature without revisions. Within one kind the first matching rule in file order wins.
//! A chip the evidence names (part number or codename, `named`) is never replaced by a
//! guess from the core types; a signature several chips share gives all of them.

use std::sync::OnceLock;

mod named;

/// What the probe found that can identify a SoC.
#[derive(Debug, Default, Clone)]
pub struct SocEvidence {
    pub dt_compatible: Vec<String>,
    pub dt_model: Option<String>,
    pub cpuinfo_hardware: Option<String>,
    pub cpuinfo_model: Option<String>,
    pub cpuinfo_serial: Option<String>,
    /// Core type per CPU, in CPU order, with revision if known: ("Cortex-A55", Some("r2p0")).
    pub core_types: Vec<(String, Option<String>)>,
    /// The kernel log's boot line naming the machine ("Machine model: …"), where the device
    /// tree itself could not be read.
    pub kernel_log_machine: Option<String>,
}

/// The guessed SoC and the evidence that led to it.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct SocGuess {
    /// The SoC (`Rockchip RK3588`), or "one of …" when several fit.
    pub name: String,
    /// Which rule matched, human-readable, e.g. "device-tree compatible \"rockchip,rk3588\"".
    pub evidence: String,
    /// When the evidence fits several chips (a core signature they share): each of them, and
    /// `name` says "one of …". Empty for one chip.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<String>,
}

/// The rule table compiled into the binary.
const TABLE: &str = include_str!("../../data/socs.tsv");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Compatible,
    Model,
    AmlogicSerial,
    Hardware,
    Signature,
}

impl Kind {
    fn parse(s: &str) -> Option<Kind> {
        match s {
            "compatible" => Some(Kind::Compatible),
            "model" => Some(Kind::Model),
            "amlogic-serial" => Some(Kind::AmlogicSerial),
            "hardware" => Some(Kind::Hardware),
            "signature" => Some(Kind::Signature),
            _ => None,
        }
    }
}

/// One run of a signature pattern: `count` CPUs (None = any number, written `*`) of `core`
/// (lowercase, including `/rNpM` when the pattern carries a revision).
#[derive(Debug, Clone, PartialEq, Eq)]
struct PatternRun {
    count: Option<usize>,
    core: String,
}

#[derive(Debug, Clone)]
struct Rule {
    kind: Kind,
    /// The pattern as written in the table.
    pattern: String,
    /// Lowercase pattern, for case-insensitive comparison.
    key: String,
    name: String,
    /// Signature rules only: the parsed runs.
    runs: Vec<PatternRun>,
    /// Signature rules only: whether any run carries a revision (`/rNpM`).
    with_revision: bool,
    /// 1-based line in the table, for diagnostics.
    line: usize,
}

/// A line of the table that could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
struct TableError {
    line: usize,
    message: String,
}

/// `true` if `s` ends in a revision suffix `/rNpM`.
fn has_revision_suffix(s: &str) -> bool {
    let Some(pos) = s.rfind("/r") else {
        return false;
    };
    let rest = &s[pos + 2..];
    let Some((var, rev)) = rest.split_once('p') else {
        return false;
    };
    !var.is_empty()
        && !rev.is_empty()
        && var.bytes().all(|b| b.is_ascii_digit())
        && rev.bytes().all(|b| b.is_ascii_digit())
}

fn parse_signature_pattern(pattern: &str) -> Result<Vec<PatternRun>, String> {
    let mut runs = Vec::new();
    for part in pattern.split('+') {
        let Some((count, core)) = part.split_once('x') else {
            return Err(format!("signature run {part:?} lacks '<count>x'"));
        };
        let count = if count == "*" {
            None
        } else {
            match count.parse::<usize>() {
                Ok(n) if n > 0 && count.bytes().all(|b| b.is_ascii_digit()) => Some(n),
                _ => return Err(format!("signature run {part:?} has a bad count {count:?}")),
            }
        };
        if core.trim().is_empty() || core.trim() != core {
            return Err(format!(
                "signature run {part:?} has an empty or padded core type"
            ));
        }
        runs.push(PatternRun {
            count,
            core: core.to_ascii_lowercase(),
        });
    }
    Ok(runs)
}

/// Parse the whole table; malformed lines are reported and left out.
fn parse_table(text: &str) -> (Vec<Rule>, Vec<TableError>) {
    let mut rules: Vec<Rule> = Vec::new();
    let mut errors = Vec::new();
    for (idx, raw) in text.lines().enumerate() {
        let line = idx + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw.trim().is_empty() || raw.trim_start().starts_with('#') {
            continue;
        }
        let mut err = |message: String| errors.push(TableError { line, message });
        let fields: Vec<&str> = raw.split('\t').collect();
        if fields.len() < 3 || fields.len() > 4 {
            err(format!(
                "expected 3 or 4 tab-separated fields, found {}",
                fields.len()
            ));
            continue;
        }
        let Some(kind) = Kind::parse(fields[0]) else {
            err(format!("unknown kind {:?}", fields[0]));
            continue;
        };
        let (pattern, name) = (fields[1], fields[2]);
        if pattern.is_empty() || pattern.trim() != pattern {
            err(format!("empty or padded pattern {pattern:?}"));
            continue;
        }
        if name.is_empty() || name.trim() != name {
            err(format!("empty or padded SoC name {name:?}"));
            continue;
        }
        let key = pattern.to_ascii_lowercase();
        let (mut runs, mut with_revision) = (Vec::new(), false);
        match kind {
            Kind::Signature => match parse_signature_pattern(pattern) {
                Ok(r) => {
                    with_revision = r.iter().any(|run| has_revision_suffix(&run.core));
                    runs = r;
                }
                Err(message) => {
                    err(message);
                    continue;
                }
            },
            Kind::AmlogicSerial => {
                if !key.bytes().all(|b| b.is_ascii_hexdigit() || b == b'?') {
                    err(format!(
                        "Amlogic serial prefix {pattern:?} is not hex digits and '?'"
                    ));
                    continue;
                }
            }
            Kind::Compatible | Kind::Model | Kind::Hardware => {}
        }
        if let Some(prev) = rules.iter().find(|r| r.kind == kind && r.key == key) {
            err(format!("duplicate of the rule on line {}", prev.line));
            continue;
        }
        rules.push(Rule {
            kind,
            pattern: pattern.to_string(),
            key,
            name: name.to_string(),
            runs,
            with_revision,
            line,
        });
    }
    (rules, errors)
}

/// The rules of the compiled-in table, parsed once. Malformed lines are skipped here; the unit
/// test `table_parses_without_errors` keeps the table clean.
fn rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| parse_table(TABLE).0)
}

/// Runs of identical consecutive core types in CPU order: (count, type[/revision]).
fn core_runs(core_types: &[(String, Option<String>)], with_revision: bool) -> Vec<(usize, String)> {
    let mut runs: Vec<(usize, String)> = Vec::new();
    for (core, rev) in core_types {
        let core = core.trim();
        let label = match rev.as_deref().map(str::trim) {
            Some(rev) if with_revision && !rev.is_empty() => format!("{core}/{rev}"),
            _ => core.to_string(),
        };
        match runs.last_mut() {
            Some((count, last)) if *last == label => *count += 1,
            _ => runs.push((1, label)),
        }
    }
    runs
}

/// Core-type signature: runs of identical consecutive core types in CPU order, `{count}x{type}`
/// joined by `+`, e.g. `4xCortex-A55+4xCortex-A76`; with revisions (where known)
/// `4xCortex-A55/r2p0+4xCortex-A76/r4p0`. Empty for no CPUs.
pub fn core_signature(core_types: &[(String, Option<String>)], with_revision: bool) -> String {
    core_runs(core_types, with_revision)
        .iter()
        .map(|(count, label)| format!("{count}x{label}"))
        .collect::<Vec<_>>()
        .join("+")
}

fn signature_matches(rule: &Rule, runs: &[(usize, String)]) -> bool {
    rule.runs.len() == runs.len()
        && rule.runs.iter().zip(runs).all(|(pat, (count, label))| {
            pat.count.is_none_or(|n| n == *count) && pat.core == label.to_ascii_lowercase()
        })
}

/// Case-insensitive prefix match where `?` in the pattern matches any one character.
fn serial_prefix_matches(key: &str, serial: &str) -> bool {
    let serial = serial.trim().as_bytes();
    key.len() <= serial.len()
        && key
            .bytes()
            .zip(serial)
            .all(|(p, s)| p == b'?' || p == s.to_ascii_lowercase())
}

/// A guess naming exactly one chip.
fn exact(name: &str, evidence: String) -> SocGuess {
    SocGuess {
        name: name.to_string(),
        evidence,
        candidates: Vec::new(),
    }
}

/// The guess for a chip the evidence names: the table's name for it, or the chip as named.
fn named_guess(named: &named::Named, source: &str) -> SocGuess {
    match named::lookup(named) {
        Some(known) => exact(
            &known.name,
            format!(
                "{source} names {} ({} {})",
                named.token, named.vendor, known.key
            ),
        ),
        None => {
            // A part number says its vendor itself (MT6769V/CB); a codename does not.
            let name = if vendor_of(&named.token).is_some() {
                format!("{} (not in the table)", named.token)
            } else {
                format!("{} {} (not in the table)", named.vendor, named.token)
            };
            exact(
                &name,
                format!(
                    "{source} names the {} chip {}, which truebench's table does not know; the core types are not used to guess another chip",
                    named.vendor, named.token
                ),
            )
        }
    }
}

fn guess_with(rules: &[Rule], ev: &SocEvidence) -> Option<SocGuess> {
    let of_kind = |kind: Kind| rules.iter().filter(move |r| r.kind == kind);

    // 1. device-tree compatible, most specific entry first
    for entry in &ev.dt_compatible {
        let entry = entry.trim();
        if let Some(rule) = of_kind(Kind::Compatible).find(|r| r.key.eq_ignore_ascii_case(entry)) {
            return Some(exact(
                &rule.name,
                format!("device-tree compatible {entry:?}"),
            ));
        }
    }
    // ... or a chip a compatible entry names that the rules do not know
    for entry in &ev.dt_compatible {
        if let Some(n) = named::in_compatible(entry) {
            return Some(named_guess(
                &n,
                &format!("device-tree compatible {:?}", entry.trim()),
            ));
        }
    }

    // 2. model: device-tree model, then cpuinfo Model
    let models = [
        ("device-tree model", &ev.dt_model),
        ("cpuinfo Model", &ev.cpuinfo_model),
    ];
    for (source, model) in models {
        let Some(model) = model.as_deref().map(str::trim).filter(|m| !m.is_empty()) else {
            continue;
        };
        let lower = model.to_ascii_lowercase();
        if let Some(rule) = of_kind(Kind::Model).find(|r| lower.contains(&r.key)) {
            return Some(exact(
                &rule.name,
                format!("{source} {model:?} contains {:?}", rule.pattern),
            ));
        }
    }

    let hardware = ev
        .cpuinfo_hardware
        .as_deref()
        .map(str::trim)
        .filter(|h| !h.is_empty());

    // 3. Amlogic chip ID in cpuinfo Serial (Amlogic vendor kernels only)
    if let (Some(hw), Some(serial)) = (hardware, ev.cpuinfo_serial.as_deref()) {
        if hw.to_ascii_lowercase().contains("amlogic") {
            if let Some(rule) =
                of_kind(Kind::AmlogicSerial).find(|r| serial_prefix_matches(&r.key, serial))
            {
                // The rest of the serial is unique to the chip: do not repeat it.
                return Some(exact(
                    &rule.name,
                    format!("Amlogic chip ID {:?} in cpuinfo Serial", rule.pattern),
                ));
            }
        }
    }

    // 4. cpuinfo Hardware: the rules, then a chip it names that the rules do not know
    if let Some(hw) = hardware {
        let lower = hw.to_ascii_lowercase();
        if let Some(rule) = of_kind(Kind::Hardware).find(|r| lower.contains(&r.key)) {
            return Some(exact(
                &rule.name,
                format!("cpuinfo Hardware {hw:?} contains {:?}", rule.pattern),
            ));
        }
        if let Some(n) = named::in_text(hw, vendor_of(hw)) {
            return Some(named_guess(&n, &format!("cpuinfo Hardware {hw:?}")));
        }
    }

    // 5. the kernel log's machine line (printed from the device tree at boot), read where
    // the device tree itself is not at hand
    if let Some(line) = ev
        .kernel_log_machine
        .as_deref()
        .map(str::trim)
        .filter(|l| !l.is_empty())
    {
        let lower = line.to_ascii_lowercase();
        if let Some(rule) = of_kind(Kind::Model).find(|r| lower.contains(&r.key)) {
            return Some(exact(
                &rule.name,
                format!("kernel log machine {line:?} contains {:?}", rule.pattern),
            ));
        }
        if let Some(n) = named::in_text(line, vendor_of(line)) {
            return Some(named_guess(&n, &format!("kernel log machine {line:?}")));
        }
    }

    // An emulator's CPUs say nothing about a SoC (QEMU's `-cpu cortex-a72` ×4 is no BCM2711).
    let said = [
        &ev.dt_model,
        &ev.cpuinfo_hardware,
        &ev.cpuinfo_model,
        &ev.kernel_log_machine,
    ]
    .into_iter()
    .flatten()
    .chain(ev.dt_compatible.iter())
    .map(|s| s.to_ascii_lowercase())
    .any(|s| s.contains("qemu") || s.contains("dummy-virt") || s.contains("kvm"));
    if said {
        return None;
    }

    // 6./7. core signature, with revisions first; only when every CPU's type is known and
    // there is more than one CPU (one core type fits too many chips).
    if ev.core_types.len() < 2 || ev.core_types.iter().any(|(core, _)| core.trim().is_empty()) {
        return None;
    }
    for with_revision in [true, false] {
        let runs = core_runs(&ev.core_types, with_revision);
        let matching: Vec<&Rule> = of_kind(Kind::Signature)
            .filter(|r| r.with_revision == with_revision)
            .filter(|r| signature_matches(r, &runs))
            .collect();
        let Some(rule) = matching.first() else {
            continue;
        };
        // Rules with the very same pattern name the SoCs that share it (an exact count
        // listed before a wildcard still wins alone); the table's own hedged names ("A or
        // B") are split into their candidates.
        let mut names: Vec<&str> = Vec::new();
        for r in matching.iter().filter(|r| r.pattern == rule.pattern) {
            for n in r.name.split(" or ") {
                if !names.contains(&n) {
                    names.push(n);
                }
            }
        }
        // A Hardware line that names a vendor but no chip: the vendor picks its candidates;
        // if the cores fit none of its chips, the Hardware line is shown as it is.
        if let Some(hw) = hardware {
            if let Some(v) = vendor_of(hw) {
                names.retain(|n| vendor_of(n).is_none_or(|w| w == v));
                if names.is_empty() {
                    return Some(exact(
                        hw,
                        format!(
                            "cpuinfo Hardware {hw:?}, a {v} chip truebench's table does not know (the cores alone would suggest {})",
                            rule.name
                        ),
                    ));
                }
            }
        }
        let signature = core_signature(&ev.core_types, with_revision);
        let evidence = if rule.pattern == signature {
            format!("core signature {signature:?}")
        } else {
            format!("core signature {signature:?} matches {:?}", rule.pattern)
        };
        // A signature several SoCs share: the candidates, never the first of them.
        return Some(if names.len() > 1 {
            SocGuess {
                name: format!("one of {}", names.join(", ")),
                evidence: format!("{evidence}, shared by {} SoCs", names.len()),
                candidates: names.iter().map(|n| n.to_string()).collect(),
            }
        } else {
            exact(names[0], evidence)
        });
    }
    None
}

/// The vendor a chip or SoC name belongs to, from its name or part-number prefix.
fn vendor_of(s: &str) -> Option<&'static str> {
    let l = s.to_ascii_lowercase();
    let starts = |p: &str| {
        l.split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| w.starts_with(p))
    };
    let table: [(&str, &[&str]); 14] = [
        ("MediaTek", &["mediatek", "mt6", "mt8", "mt7"]),
        ("Samsung", &["samsung", "exynos"]),
        (
            "Allwinner",
            &[
                "allwinner",
                "sun4i",
                "sun5i",
                "sun6i",
                "sun7i",
                "sun8i",
                "sun9i",
                "sun50i",
                "sun55i",
            ],
        ),
        ("Rockchip", &["rockchip", "rk3", "rk2", "rv11"]),
        ("Amlogic", &["amlogic", "meson"]),
        (
            "Qualcomm",
            &[
                "qualcomm",
                "qcom",
                "msm8",
                "sdm",
                "apq",
                "snapdragon",
                "ipq",
                "sm8",
                "sm7",
                "sm6",
            ],
        ),
        ("Broadcom", &["broadcom", "bcm"]),
        ("NVIDIA", &["nvidia", "tegra"]),
        ("NXP", &["nxp", "freescale", "imx", "i.mx"]),
        ("HiSilicon", &["hisilicon", "kirin", "hi3", "hi6"]),
        ("Unisoc", &["unisoc", "spreadtrum", "sc98", "ums"]),
        ("Texas Instruments", &["omap", "am335", "am62", "sitara"]),
        ("Realtek", &["realtek", "rtd1"]),
        ("Nexell", &["nexell"]),
    ];
    table
        .iter()
        .find(|(_, keys)| keys.iter().any(|k| starts(k)))
        .map(|(v, _)| *v)
}

/// Guess the SoC from the evidence, or None if no rule matches.
pub fn guess_soc(ev: &SocEvidence) -> Option<SocGuess> {
    guess_with(rules(), ev)
}

/// The core layout of one chip, from the signature rules that name it alone: runs of
/// (count, core type) in CPU order. None when the table has no such rule, when a rule has
/// a wildcard count, or when its rules disagree (different steppings are the same layout).
pub fn layout_of(name: &str) -> Option<Vec<(usize, String)>> {
    let mut layout: Option<Vec<(usize, String)>> = None;
    for r in rules()
        .iter()
        .filter(|r| r.kind == Kind::Signature && r.name == name)
    {
        let this = r
            .pattern
            .split('+')
            .map(|run| {
                let (count, core) = run.split_once('x')?;
                let core = match core.rfind("/r") {
                    Some(i) if has_revision_suffix(core) => &core[..i],
                    _ => core,
                };
                Some((count.parse::<usize>().ok()?, core.to_string()))
            })
            .collect::<Option<Vec<_>>>()?;
        match &layout {
            Some(l) if *l != this => return None,
            _ => layout = Some(this),
        }
    }
    layout
}

#[cfg(test)]
mod tests;
