//! The SoC of an imported log, from the evidence the log carries — its device-tree
//! compatible list, its device line, the core types of its topology table, lscpu's model
//! name on x86 — with sbc-bench's own `SoC guess:` line only where that evidence says
//! nothing: a chip the log names wins over a guess from the cores (an Unisoc UMS9620 phone
//! that sbc-bench guessed to be a RK3588 is a UMS9620).

use truebench_host::soc::{self, NamedBy, SocBasis, SocEvidence, SocGuess};

use crate::log::SbcBenchLog;

/// Whether the log comes from an x86 machine (the processor is the chip).
fn x86(log: &SbcBenchLog) -> bool {
    let arch = log
        .system
        .kernel_arch
        .as_deref()
        .or(log.system.architecture.as_deref())
        .unwrap_or("");
    matches!(arch, "x86_64" | "i686" | "i386" | "amd64")
}

/// sbc-bench's guess carries the chip's own ID where it could read one: Rockchip's
/// `(35880000 …)`, Amlogic's `Revision 29:b`, Allwinner's `(SID: …)`.
fn carries_chip_id(guess: &str) -> bool {
    let l = guess.to_ascii_lowercase();
    l.contains("(sid") || l.contains(" revision ") || {
        guess.split('(').skip(1).any(|p| {
            let id: String = p.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
            id.len() == 8
        })
    }
}

/// sbc-bench's guess without the chip ID and remarks it prints after the chip:
/// `Rockchip RK3588S2 (35881000 / 35 88 …)` → `Rockchip RK3588S2`,
/// `Amlogic Meson G12B (A311D) Revision 29:b (10:2)` → `Amlogic Meson G12B (A311D)`.
fn without_id(guess: &str) -> String {
    let mut s = guess;
    if let Some(i) = s.find(" Revision ") {
        s = &s[..i];
    }
    let mut out = String::new();
    let mut rest = s;
    while let Some(open) = rest.find(" (") {
        let inner = &rest[open + 2..];
        let id = inner.to_ascii_lowercase().starts_with("sid")
            || inner.chars().take_while(|c| c.is_ascii_hexdigit()).count() >= 8;
        out.push_str(&rest[..open]);
        if id {
            rest = "";
            break;
        }
        out.push_str(" (");
        rest = inner;
    }
    out.push_str(rest);
    out.trim().to_string()
}

/// The SoC answer of an imported log; `cpus` gives each CPU's (core type, stepping).
pub(super) fn soc_of(
    log: &SbcBenchLog,
    cpus: &[(Option<String>, Option<String>)],
) -> Option<SocGuess> {
    let sbc_guess = log
        .system
        .soc_guess
        .as_deref()
        .map(str::trim)
        .filter(|g| !g.is_empty() && !g.to_ascii_lowercase().starts_with("not able"));
    let note = |mut g: SocGuess| {
        if let Some(s) = sbc_guess.filter(|s| !g.name.eq_ignore_ascii_case(s)) {
            g.evidence = format!("{}; sbc-bench guessed {s:?}", g.evidence);
        }
        g
    };
    if x86(log) {
        let m = log.system.model_name.as_deref()?;
        return Some(SocGuess::named(
            NamedBy::CpuModelName,
            truebench_host::inventory::clean_x86_model(m),
            None,
            "lscpu's `Model name:` in the sbc-bench log",
        ));
    }
    let device = log.header.device.clone().filter(|d| !d.trim().is_empty());
    let ev = SocEvidence {
        dt_compatible: log.system.dt_compat.clone(),
        // The device line is sbc-bench's reading of the device-tree model: tried like the
        // kernel log's machine line (board rules, then a chip it names).
        kernel_log_machine: device.clone(),
        core_types: if cpus.iter().all(|(t, _)| t.is_some()) {
            cpus.iter()
                .map(|(t, s)| (t.clone().unwrap_or_default(), s.clone()))
                .collect()
        } else {
            Vec::new()
        },
        ..Default::default()
    };
    let ours = soc::guess_soc(&ev).map(|mut g| {
        if g.basis
            == Some(SocBasis::Named {
                source: NamedBy::KernelLog,
            })
        {
            g.basis = Some(SocBasis::Named {
                source: NamedBy::SbcBenchLog,
            });
            g.evidence = g
                .evidence
                .replace("kernel log machine", "sbc-bench's device line");
        }
        g
    });
    // A chip ID sbc-bench read off the chip names the part, more precisely than the device
    // tree or board of its family does (an RK3582 boots the RK3588's device tree).
    let by_id = sbc_guess.filter(|s| carries_chip_id(s)).map(|s| {
        let chip = without_id(s);
        let mut g = soc::chip_named_in(&chip, NamedBy::SbcBenchLog)
            .unwrap_or_else(|| SocGuess::named(NamedBy::SbcBenchLog, chip, None, String::new()));
        g.evidence = format!("sbc-bench's `SoC guess:` line {s:?}, with the chip's ID");
        g
    });
    let prefer_id = |g: SocGuess| match &by_id {
        Some(id)
            if soc::vendor_of(&id.name).is_some()
                && soc::vendor_of(&id.name) == soc::vendor_of(&g.name) =>
        {
            let mut id = id.clone();
            id.evidence = format!("{}; {}", id.evidence, g.evidence);
            id
        }
        _ => note(g),
    };
    if let Some(g) = ours
        .as_ref()
        .filter(|g| matches!(g.basis, Some(SocBasis::Named { .. })))
    {
        return Some(prefer_id(g.clone()));
    }
    // Without a device-tree model sbc-bench's device line is cpuinfo's Hardware line
    // ("PXA1908"): tried as one, for a chip a rule or a part number names only — a device
    // line is no chip name by itself (DMI's "WEIBU F20A V1000").
    let as_hardware = SocEvidence {
        cpuinfo_hardware: device.clone(),
        ..Default::default()
    };
    let whole = device.as_deref().map(str::trim);
    if let Some(mut g) = soc::guess_soc(&as_hardware).filter(|g| {
        matches!(g.basis, Some(SocBasis::Named { .. }))
            && (g.canonical.is_some() || g.named.as_deref() != whole)
    }) {
        g.basis = Some(SocBasis::Named {
            source: NamedBy::SbcBenchLog,
        });
        g.evidence = g
            .evidence
            .replace("cpuinfo Hardware", "sbc-bench's device line");
        return Some(prefer_id(g));
    }
    if let Some(g) = by_id {
        return Some(g);
    }
    if let Some(g) = ours {
        return Some(note(g));
    }
    sbc_guess.map(|s| {
        let mut g = SocGuess::new(
            s,
            "sbc-bench's `SoC guess:` line; the log carries no device tree or core types to check it",
        );
        g.basis = Some(SocBasis::Reported);
        g
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chip_ids_and_remarks_go() {
        assert!(carries_chip_id("Rockchip RK3588 (35880000)"));
        assert!(carries_chip_id("Allwinner A10 (SID: 16236782)"));
        assert!(carries_chip_id(
            "Amlogic Meson G12B (A311D) Revision 29:b (10:2)"
        ));
        assert!(!carries_chip_id("Rockchip RK3588/RK3588s"));
        assert!(!carries_chip_id("Amlogic Meson G12B (A311D)"));
        assert_eq!(
            without_id("Rockchip RK3588S2 (35881000 / 35 88 12 fe 53 41  32 58 4b 5a 00)"),
            "Rockchip RK3588S2"
        );
        assert_eq!(
            without_id("Amlogic Meson G12B (A311D) Revision 29:b (10:2)"),
            "Amlogic Meson G12B (A311D)"
        );
        assert_eq!(without_id("Allwinner A10 (SID: 1623)"), "Allwinner A10");
    }
}
