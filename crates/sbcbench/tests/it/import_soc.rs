//! The SoC of every imported corpus log: a chip the log names (its device-tree compatible
//! list, its device line, a chip ID sbc-bench read) wins over a guess from the cores; a
//! layout answer lists every chip of that layout; x86 logs name the processor and their
//! cores by it. Prints the counts per basis
//! (`cargo test -p truebench-sbcbench --test it import_soc -- --nocapture`).

use truebench_fixtures::sbc_bench as common;
use truebench_host::soc::{NamedBy, SocBasis};
use truebench_sbcbench::convert::to_run_result;
use truebench_sbcbench::parse;

#[test]
fn every_log_gets_a_soc_answer_with_its_basis() {
    let logs = common::logs();
    let (mut named, mut unique, mut layout, mut vendor, mut reported, mut none) =
        (0, 0, 0, 0, 0, 0);
    let mut wrong = Vec::new();
    for (name, text) in &logs {
        let log = parse(text);
        let r = to_run_result(&log, name);
        let Some(g) = r.envelope.inventory.soc.clone() else {
            none += 1;
            continue;
        };
        match g.basis {
            Some(SocBasis::Named { .. }) => named += 1,
            Some(SocBasis::Layout) if g.candidates.is_empty() => unique += 1,
            Some(SocBasis::Layout) => layout += 1,
            Some(SocBasis::Vendor) => vendor += 1,
            Some(SocBasis::Reported) => reported += 1,
            None => wrong.push(format!("{name}: no basis: {g:?}")),
        }
        // A compatible list naming a SoC vendor: the answer is never another vendor's chip.
        if let Some(entry) = log.system.dt_compat.iter().find(|e| e.contains(',')) {
            let vendor = entry.split(',').next().unwrap_or("");
            if let Some(chip) = g.chip() {
                let known = [
                    "rockchip",
                    "allwinner",
                    "amlogic",
                    "sprd",
                    "mediatek",
                    "qcom",
                ];
                let v = log
                    .system
                    .dt_compat
                    .iter()
                    .filter_map(|e| e.split_once(',').map(|x| x.0))
                    .find(|p| known.contains(p));
                if let Some(v) = v {
                    let word = match v {
                        "sprd" => "unisoc",
                        "qcom" => "qualcomm",
                        w => w,
                    };
                    if !chip.to_ascii_lowercase().contains(word) {
                        wrong.push(format!("{name}: {entry} (vendor {vendor}), chip {chip:?}"));
                    }
                }
            }
        }
    }
    eprintln!(
        "SoC answers of {} imported logs: {named} named, {unique} one chip by layout, {layout} layouts, {vendor} vendor only, {reported} sbc-bench's unconfirmed guess, {none} none",
        logs.len()
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(named > logs.len() / 3, "{named} named");
}

fn log_named(needle: &str) -> (String, String) {
    common::logs()
        .into_iter()
        .find(|(_, t)| t.lines().next().is_some_and(|l| l.contains(needle)))
        .unwrap_or_else(|| panic!("no corpus log whose first line has {needle:?}"))
}

#[test]
fn the_ums9620_phone_is_a_ums9620_not_a_rk3588() {
    // sbc-bench guessed "Rockchip RK3588/RK3588s" from the cores; the log's device tree
    // says sprd,ums9620.
    let (name, text) = log_named("UMS9620");
    let log = parse(&text);
    assert_eq!(
        log.system.soc_guess.as_deref(),
        Some("Rockchip RK3588/RK3588s")
    );
    let g = to_run_result(&log, &name).envelope.inventory.soc.unwrap();
    assert_eq!(
        g.basis,
        Some(SocBasis::Named {
            source: NamedBy::DeviceTreeCompatible
        })
    );
    assert!(g.name.contains("UMS9620"), "{g:?}");
    assert!(
        g.evidence.contains("RK3588"),
        "sbc-bench's guess noted: {g:?}"
    );
}

#[test]
fn an_x86_log_names_its_processor_and_cores() {
    let (name, text) = log_named("RYZEN AI MAX+ 395");
    let r = to_run_result(&parse(&text), &name);
    let inv = &r.envelope.inventory;
    let g = inv.soc.clone().unwrap();
    assert_eq!(
        g.basis,
        Some(SocBasis::Named {
            source: NamedBy::CpuModelName
        })
    );
    assert!(g.name.contains("RYZEN AI MAX+ 395"), "{g:?}");
    assert!(!inv.cpus.is_empty());
    assert!(
        inv.cpus
            .iter()
            .all(|c| c.core_type.as_deref() == Some(g.name.as_str())),
        "{:?}",
        inv.cpus.first()
    );
}

#[test]
fn a_chip_id_names_the_chip() {
    // "Rockchip RK3588 (35880000 / 35 88 12 fe …)": the ID sbc-bench read off the chip.
    let (name, text) = common::logs()
        .into_iter()
        .find(|(_, t)| {
            t.contains("SoC guess: Rockchip RK3588 (35880000 /") && !t.contains("DT compat:")
        })
        .or_else(|| {
            common::logs()
                .into_iter()
                .find(|(_, t)| t.contains("SoC guess: Rockchip RK3588s2"))
        })
        .or_else(|| {
            common::logs()
                .into_iter()
                .find(|(_, t)| t.contains("SoC guess: Rockchip RK3588 (35880000"))
        })
        .unwrap();
    let g = to_run_result(&parse(&text), &name)
        .envelope
        .inventory
        .soc
        .unwrap();
    assert!(matches!(g.basis, Some(SocBasis::Named { .. })), "{g:?}");
    assert!(g.chip().is_some_and(|c| c.contains("RK3588")), "{g:?}");
}
