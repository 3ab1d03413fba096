//! SoC identification: which system-on-chip a machine is built around, from the evidence the
//! probe found (device-tree compatible list and model, cpuinfo `Hardware`/`Model`/`Serial`
//! lines, core types per CPU), with where the answer comes from and how sure it is
//! ([`SocBasis`]).
//!
//! The knowledge lives in `data/socs.tsv` (see its header for the rule kinds and their
//! semantics), `data/chips.tsv` (part numbers and codenames) and `data/layouts.tsv` (every
//! chip's core layout public sources give); this module only applies it. Priority, strongest
//! first: device-tree compatible (entries in list order) > model > Amlogic chip ID in
//! `Serial` > cpuinfo `Hardware` > the kernel log's machine line — each a *named* chip — then
//! the core layout. A chip the evidence names is never replaced by a guess from the core
//! types, which many chips share; a layout answer lists every chip of that layout any source
//! knows, and names one only where the layout is unique among all of them and vendor evidence
//! agrees. An emulator, or a device tree naming no known SoC vendor, gets no answer.

use std::sync::OnceLock;

mod answer;
mod boards;
mod layouts;
mod named;

pub use answer::{NamedBy, SocBasis, SocGuess};
pub use layouts::layout_text;

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

/// A chip named by a rule of the table: the evidence as written, the rule's chip as the
/// table's name.
fn ruled(source: NamedBy, named: &str, rule: &Rule, evidence: String) -> SocGuess {
    SocGuess::named(source, named.trim(), Some(rule.name.clone()), evidence)
}

/// The guess for a chip the evidence names: the table's name for it, or the chip as named.
fn named_guess(named: &named::Named, by: NamedBy, source: &str) -> SocGuess {
    // With its vendor's name where the token lacks it ("MT6769V/CB" → "MediaTek MT6769V/CB").
    let as_named = if named
        .token
        .to_ascii_lowercase()
        .contains(&named.vendor.to_ascii_lowercase())
    {
        named.token.clone()
    } else {
        format!("{} {}", named.vendor, named.token)
    };
    match named::lookup(named) {
        Some(known) => SocGuess::named(
            by,
            as_named,
            Some(known.name.clone()),
            format!(
                "{source} names {} ({} {})",
                named.token, named.vendor, known.key
            ),
        ),
        None => SocGuess::named(
            by,
            as_named,
            None,
            format!(
                "{source} names the {} chip {}, which truebench's table does not know; the core types are not used to guess another chip",
                named.vendor, named.token
            ),
        ),
    }
}

/// The Hardware line without the kernel's "(Flattened Device Tree)"-style remarks.
fn hardware_clean(hw: &str) -> String {
    let mut s = hw.to_string();
    for remark in [
        "(Flattened Device Tree)",
        "(Device Tree Support)",
        "(Device Tree)",
        "(DT)",
    ] {
        if let Some(i) = s.to_ascii_lowercase().find(&remark.to_ascii_lowercase()) {
            s.replace_range(i..i + remark.len(), "");
        }
    }
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether a Hardware line names a chip (or the machine) rather than only a vendor or a
/// generic kernel: it has a part-number-like word, letters with at least three digits, that
/// is no CPU core name (`ARM926EJ-S`).
fn hardware_names_something(hw: &str) -> bool {
    let lower = hw.to_ascii_lowercase();
    // The Raspberry Pi kernels print "BCM2835" for every Pi: a family, not the chip.
    if lower.starts_with("generic") || lower.contains("dummy") || lower.trim() == "bcm2835" {
        return false;
    }
    hw.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| {
            let l = w.to_ascii_lowercase();
            !(l.starts_with("arm") || l.starts_with("cortex") || l.starts_with("aarch"))
        })
        .any(|w| {
            w.bytes().filter(u8::is_ascii_digit).count() >= 3
                && w.bytes().any(|b| b.is_ascii_alphabetic())
        })
}

/// Split a table name listing several chips ("A or B"), where the parts stand alone (a
/// parenthesised remark with "or" inside stays whole).
fn split_alternatives(name: &str) -> Vec<&str> {
    let parts: Vec<&str> = name.split(" or ").collect();
    let balanced = parts
        .iter()
        .all(|p| p.matches('(').count() == p.matches(')').count());
    if balanced {
        parts
    } else {
        vec![name]
    }
}

/// Part-number-like words of a chip name, normalised: "Rockchip RK3588/RK3588S" →
/// {RK3588, RK3588S}; "Samsung Exynos 5250" → {EXYNOS5250}. Two names of one vendor where
/// one's parts are all among the other's are one chip said twice.
fn part_words(name: &str) -> Vec<String> {
    let words: Vec<&str> = name
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !w.bytes().any(|b| b.is_ascii_digit()) {
            continue;
        }
        // "Exynos 5250", "Kirin 710", "Tegra 3": a bare number belongs to the word before it
        let w = if w.bytes().all(|b| b.is_ascii_digit()) && i > 0 {
            format!("{}{w}", words[i - 1])
        } else {
            w.to_string()
        };
        out.push(w.to_ascii_uppercase().replace('.', ""));
    }
    out
}

/// A candidate chip of a layout: its name and vendor.
struct Candidate {
    name: String,
    vendor: Option<String>,
}

fn same_vendor(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
        _ => true,
    }
}

/// Add a candidate unless it is one already listed under another name.
fn push_candidate(list: &mut Vec<Candidate>, name: &str, vendor: Option<&str>) {
    let vendor = vendor_of(name).or(vendor).map(str::to_string);
    let parts = part_words(name);
    let dup = list.iter().any(|c| {
        c.name.eq_ignore_ascii_case(name)
            || (same_vendor(c.vendor.as_deref(), vendor.as_deref()) && !parts.is_empty() && {
                let theirs = part_words(&c.name);
                parts.iter().all(|p| theirs.contains(p))
                    || (!theirs.is_empty() && theirs.iter().all(|t| parts.contains(t)))
            })
    });
    if !dup {
        list.push(Candidate {
            name: name.to_string(),
            vendor,
        });
    }
}

/// How many candidates a layout answer's name lists before it says "N more".
const NAMED_CANDIDATES: usize = 6;

fn candidates_text(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        _ if names.len() <= NAMED_CANDIDATES => format!(
            "{} or {}",
            names[..names.len() - 1].join(", "),
            names[names.len() - 1]
        ),
        _ => format!(
            "{} or {} more",
            names[..NAMED_CANDIDATES].join(", "),
            names.len() - NAMED_CANDIDATES
        ),
    }
}

fn guess_with(rules: &[Rule], ev: &SocEvidence) -> Option<SocGuess> {
    let of_kind = |kind: Kind| rules.iter().filter(move |r| r.kind == kind);

    // 1. device-tree compatible, most specific entry first
    for entry in &ev.dt_compatible {
        let entry = entry.trim();
        if let Some(rule) = of_kind(Kind::Compatible).find(|r| r.key.eq_ignore_ascii_case(entry)) {
            return Some(ruled(
                NamedBy::DeviceTreeCompatible,
                entry,
                rule,
                format!("device-tree compatible {entry:?}"),
            ));
        }
    }
    // ... or a chip a compatible entry names that the rules do not know
    for entry in &ev.dt_compatible {
        if let Some(n) = named::in_compatible(entry) {
            return Some(named_guess(
                &n,
                NamedBy::DeviceTreeCompatible,
                &format!("device-tree compatible {:?}", entry.trim()),
            ));
        }
    }

    // 2. model: device-tree model, then cpuinfo Model
    let models = [
        (NamedBy::DeviceTreeModel, &ev.dt_model),
        (NamedBy::CpuinfoModel, &ev.cpuinfo_model),
    ];
    for (by, model) in models {
        let Some(model) = model.as_deref().map(str::trim).filter(|m| !m.is_empty()) else {
            continue;
        };
        let lower = model.to_ascii_lowercase();
        if let Some(rule) = of_kind(Kind::Model).find(|r| lower.contains(&r.key)) {
            return Some(ruled(
                by,
                model,
                rule,
                format!("{} {model:?} contains {:?}", by.label(), rule.pattern),
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
                return Some(ruled(
                    NamedBy::ChipId,
                    &format!("Amlogic chip ID {}", rule.pattern),
                    rule,
                    format!("Amlogic chip ID {:?} in cpuinfo Serial", rule.pattern),
                ));
            }
        }
    }

    // 4. cpuinfo Hardware: the rules, a chip it names that the rules do not know, or the
    // line itself where it names something no table knows (never a guess from the cores)
    if let Some(hw) = hardware {
        let lower = hw.to_ascii_lowercase();
        if let Some(rule) = of_kind(Kind::Hardware).find(|r| lower.contains(&r.key)) {
            // As named: the words of the line the rule matched ("KONA", "sun8i").
            let at = lower.find(&rule.key).unwrap_or(0);
            let named = hw.get(at..at + rule.key.len()).unwrap_or(hw);
            return Some(ruled(
                NamedBy::CpuinfoHardware,
                named,
                rule,
                format!("cpuinfo Hardware {hw:?} contains {:?}", rule.pattern),
            ));
        }
        if let Some(n) = named::in_text(hw, vendor_of(hw)) {
            return Some(named_guess(
                &n,
                NamedBy::CpuinfoHardware,
                &format!("cpuinfo Hardware {hw:?}"),
            ));
        }
        if hardware_names_something(hw) {
            return Some(SocGuess::named(
                NamedBy::CpuinfoHardware,
                hardware_clean(hw),
                None,
                format!(
                    "cpuinfo Hardware {hw:?}, which truebench's tables do not know; the core types are not used to guess another chip"
                ),
            ));
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
            return Some(ruled(
                NamedBy::KernelLog,
                line,
                rule,
                format!("kernel log machine {line:?} contains {:?}", rule.pattern),
            ));
        }
        if let Some(n) = named::in_text(line, vendor_of(line)) {
            return Some(named_guess(
                &n,
                NamedBy::KernelLog,
                &format!("kernel log machine {line:?}"),
            ));
        }
        // A board's model as its device tree names it: that device tree's compatible list.
        if let Some(compat) = boards::compatible_of(line) {
            let by_board = SocEvidence {
                dt_compatible: compat.to_vec(),
                ..Default::default()
            };
            if let Some(mut g) = guess_with(rules, &by_board)
                .filter(|g| matches!(g.basis, Some(SocBasis::Named { .. })))
            {
                g.basis = Some(SocBasis::Named {
                    source: NamedBy::KernelLog,
                });
                g.named = Some(line.to_string());
                g.evidence = format!(
                    "kernel log machine {line:?}, the board whose device tree is compatible with {:?}: {}",
                    compat.join(" "),
                    g.evidence
                );
                return Some(g);
            }
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

    // The vendor the evidence names: the Hardware line, a compatible entry's SoC-vendor
    // prefix. A device tree whose entries name no SoC vendor at all is an unknown vendor's:
    // no guess.
    let dt_vendors: Vec<&str> = ev
        .dt_compatible
        .iter()
        .filter_map(|e| named::dt_vendor(e))
        .collect();
    if !ev.dt_compatible.is_empty() && dt_vendors.is_empty() {
        return None;
    }
    let named_vendor = hardware.and_then(vendor_of).or(dt_vendors.first().copied());

    // 6. core layout; only when every CPU's type is known and there is more than one CPU
    // (one core type fits too many chips).
    if ev.core_types.len() < 2 || ev.core_types.iter().any(|(core, _)| core.trim().is_empty()) {
        return None;
    }
    let plain = core_runs(&ev.core_types, false);
    let layout = layouts::layout_text(&plain);
    // Every chip of this layout any source knows: the signature rules (those matching the
    // steppings first), then the layouts table.
    let mut found: Vec<Candidate> = Vec::new();
    let mut first_rule: Option<&Rule> = None;
    for with_revision in [true, false] {
        let runs = core_runs(&ev.core_types, with_revision);
        for r in of_kind(Kind::Signature)
            .filter(|r| r.with_revision == with_revision)
            .filter(|r| signature_matches(r, &runs))
        {
            first_rule.get_or_insert(r);
            for n in split_alternatives(&r.name) {
                push_candidate(&mut found, n, None);
            }
        }
    }
    for e in layouts::chips_with(&plain) {
        push_candidate(&mut found, &e.chip, Some(&e.vendor));
    }
    let signature = core_signature(&ev.core_types, true);
    let sig_note = match first_rule {
        Some(r) if r.pattern != signature => {
            format!("core signature {signature:?} matches {:?}", r.pattern)
        }
        _ => format!("core signature {signature:?}"),
    };
    // A vendor the evidence names picks its chips; none of its chips known with this layout:
    // the vendor only, never another vendor's chip.
    // How many chips of any vendor have this layout: one chip is named only where it is the
    // only one of them all, not merely its vendor's only one.
    let of_all_vendors = found.len();
    if let Some(v) = named_vendor {
        let all: Vec<String> = found.iter().map(|c| c.name.clone()).collect();
        found.retain(|c| same_vendor(c.vendor.as_deref(), Some(v)));
        if found.is_empty() {
            let mut g = SocGuess::new(
                format!("a {v} chip"),
                format!(
                    "{} names {v}, and no {v} chip of layout {layout} is known{}",
                    if hardware.and_then(vendor_of).is_some() {
                        format!("cpuinfo Hardware {:?}", hardware.unwrap_or_default())
                    } else {
                        "the device tree".to_string()
                    },
                    if all.is_empty() {
                        String::new()
                    } else {
                        format!(" (the layout alone fits {})", candidates_text(&all))
                    }
                ),
            );
            g.basis = Some(SocBasis::Vendor);
            g.layout = Some(layout);
            return Some(g);
        }
    }
    if found.is_empty() {
        return None;
    }
    // Vendor evidence that agrees with the one chip: a named vendor, or cores of the
    // chip vendor's own design (implementers other than Arm carry the vendor in their name).
    let core_vendors: Vec<&str> = ev
        .core_types
        .iter()
        .filter_map(|(c, _)| vendor_of(c))
        .collect();
    let names: Vec<String> = found.iter().map(|c| c.name.clone()).collect();
    let mut g = if let ([one], 1) = (found.as_slice(), of_all_vendors) {
        let agrees = one.vendor.as_deref().is_some_and(|v| {
            named_vendor.is_some_and(|n| n.eq_ignore_ascii_case(v))
                || core_vendors.iter().any(|c| c.eq_ignore_ascii_case(v))
        });
        if agrees {
            SocGuess::new(
                one.name.clone(),
                format!(
                    "{sig_note}: layout {layout}, the only chip of it known, and the vendor evidence names {}",
                    one.vendor.as_deref().unwrap_or_default()
                ),
            )
        } else {
            let mut g = SocGuess::new(
                format!("layout of {}", one.name),
                format!(
                    "{sig_note}: layout {layout}, of one chip known, but no vendor evidence confirms it"
                ),
            );
            g.candidates = names;
            g
        }
    } else {
        let mut g = SocGuess::new(
            format!("layout of {}", candidates_text(&names)),
            format!(
                "{sig_note}: layout {layout}, shared by {} known chips",
                names.len()
            ),
        );
        g.candidates = names;
        g
    };
    g.basis = Some(SocBasis::Layout);
    g.layout = Some(layout);
    Some(g)
}

/// The vendor a chip or SoC name belongs to, from its name or part-number prefix.
pub fn vendor_of(s: &str) -> Option<&'static str> {
    let l = s.to_ascii_lowercase();
    let starts = |p: &str| {
        l.split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| w.starts_with(p))
    };
    let table: [(&str, &[&str]); 20] = [
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
        ("Apple", &["apple"]),
        ("Phytium", &["phytium"]),
        ("Cavium", &["cavium", "thunderx"]),
        ("Ampere", &["ampere"]),
        ("SiFive", &["sifive"]),
        ("Loongson", &["loongson"]),
    ];
    table
        .iter()
        .find(|(_, keys)| keys.iter().any(|k| starts(k)))
        .map(|(v, _)| *v)
}

/// The chip a text names by part number or codename (an imported log's line): the table's
/// name for it where known, else as named. None where the text names no chip.
pub fn chip_named_in(text: &str, by: NamedBy) -> Option<SocGuess> {
    let n = named::in_text(text, vendor_of(text))?;
    Some(named_guess(&n, by, &format!("{text:?}")))
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
