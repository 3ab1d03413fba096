use super::*;

fn cores(spec: &[(&str, &str, usize)]) -> Vec<(String, Option<String>)> {
    let mut v = Vec::new();
    for (core, rev, n) in spec {
        for _ in 0..*n {
            let rev = (!rev.is_empty()).then(|| rev.to_string());
            v.push((core.to_string(), rev));
        }
    }
    v
}

fn compat(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn table_parses_without_errors() {
    let (rules, errors) = parse_table(TABLE);
    assert!(
        errors.is_empty(),
        "malformed lines in data/socs.tsv: {errors:#?}"
    );
    for kind in [
        Kind::Compatible,
        Kind::Model,
        Kind::AmlogicSerial,
        Kind::Hardware,
        Kind::Signature,
    ] {
        assert!(
            rules.iter().any(|r| r.kind == kind),
            "no rule of kind {kind:?}"
        );
    }
    assert_eq!(rules.len(), super::rules().len());
}

/// A rule that can never win because an earlier rule of the same kind matches everything
/// it matches is a mistake in the table (usually: generic listed before specific).
#[test]
fn no_rule_is_shadowed_by_an_earlier_one() {
    let (rules, _) = parse_table(TABLE);
    let mut shadowed = Vec::new();
    for (i, later) in rules.iter().enumerate() {
        for earlier in rules[..i].iter().filter(|r| r.kind == later.kind) {
            let dead = match later.kind {
                Kind::Compatible => false, // exact matches; duplicates are parse errors
                Kind::Model | Kind::Hardware => later.key.contains(&earlier.key),
                Kind::AmlogicSerial => serial_prefix_matches(&earlier.key, &later.key),
                Kind::Signature => {
                    earlier.with_revision == later.with_revision
                        && earlier.runs.len() == later.runs.len()
                        && earlier.runs.iter().zip(&later.runs).all(|(e, l)| {
                            e.core == l.core && (e.count.is_none() || e.count == l.count)
                        })
                }
            };
            if dead {
                shadowed.push(format!(
                    "line {} ({}) is shadowed by line {} ({})",
                    later.line, later.pattern, earlier.line, earlier.pattern
                ));
            }
        }
    }
    assert!(shadowed.is_empty(), "{shadowed:#?}");
}

#[test]
fn malformed_lines_are_skipped_not_fatal() {
    let text = "# comment\n\
                compatible\tvendor,good\tGood SoC\n\
                compatible\tonly-two-fields\n\
                bogus\tx\ty\n\
                signature\t4Cortex-A53\tNo count separator\n\
                signature\t0xCortex-A53\tZero count\n\
                amlogic-serial\tzz\tNot hex\n\
                compatible\tvendor,good\tDuplicate\n\
                hardware\t\tEmpty pattern\n\
                signature\t2xCortex-A53/r0p4+*xCortex-A72\tGood signature\tnote\n";
    let (rules, errors) = parse_table(text);
    assert_eq!(rules.len(), 2);
    assert_eq!(
        errors.iter().map(|e| e.line).collect::<Vec<_>>(),
        vec![3, 4, 5, 6, 7, 8, 9]
    );
    let ev = SocEvidence {
        dt_compatible: compat(&["vendor,good"]),
        ..Default::default()
    };
    assert_eq!(guess_with(&rules, &ev).unwrap().name, "Good SoC");
    assert!(rules[1].with_revision);
}

#[test]
fn core_signature_merges_runs() {
    let types = cores(&[("Cortex-A55", "r2p0", 4), ("Cortex-A76", "r4p0", 4)]);
    assert_eq!(core_signature(&types, false), "4xCortex-A55+4xCortex-A76");
    assert_eq!(
        core_signature(&types, true),
        "4xCortex-A55/r2p0+4xCortex-A76/r4p0"
    );
    // same type, different stepping: one run without, two runs with revisions
    let oryon = cores(&[
        ("Qualcomm Oryon-X1", "r2p1", 4),
        ("Qualcomm Oryon-X1", "r1p1", 8),
    ]);
    assert_eq!(core_signature(&oryon, false), "12xQualcomm Oryon-X1");
    assert_eq!(
        core_signature(&oryon, true),
        "4xQualcomm Oryon-X1/r2p1+8xQualcomm Oryon-X1/r1p1"
    );
    // runs are consecutive only: a type that comes back starts a new run
    let cix = cores(&[
        ("Cortex-A720", "r0p1", 1),
        ("Cortex-A520", "r0p1", 4),
        ("Cortex-A720", "r0p1", 7),
    ]);
    assert_eq!(
        core_signature(&cix, false),
        "1xCortex-A720+4xCortex-A520+7xCortex-A720"
    );
    // unknown revision: the type alone, even with revisions requested
    assert_eq!(
        core_signature(&cores(&[("sifive,u74-mc", "", 4)]), true),
        "4xsifive,u74-mc"
    );
    assert_eq!(core_signature(&[], true), "");
}

#[test]
fn rk3588_by_compatible() {
    let ev = SocEvidence {
        dt_compatible: compat(&["radxa,rock-5b", "rockchip,rk3588"]),
        dt_model: Some("Radxa ROCK 5B".into()),
        core_types: cores(&[("Cortex-A55", "r2p0", 4), ("Cortex-A76", "r4p0", 4)]),
        ..Default::default()
    };
    let g = guess_soc(&ev).unwrap();
    assert_eq!(g.name, "Rockchip RK3588");
    assert_eq!(g.evidence, "device-tree compatible \"rockchip,rk3588\"");
}

#[test]
fn compatible_entries_are_tried_in_list_order() {
    let n2 = SocEvidence {
        dt_compatible: compat(&["hardkernel,odroid-n2-plus", "amlogic,s922x", "amlogic,g12b"]),
        ..Default::default()
    };
    assert_eq!(guess_soc(&n2).unwrap().name, "Amlogic S922X");
    let vim3l = SocEvidence {
        dt_compatible: compat(&["khadas,vim3l", "amlogic,sm1"]),
        ..Default::default()
    };
    assert_eq!(
        guess_soc(&vim3l).unwrap().name,
        "Amlogic S905X3/S905D3/S905Y3 (SM1)"
    );
    // a board entry with a rule is more specific than the SoC entry after it
    let pi3bplus = SocEvidence {
        dt_compatible: compat(&["raspberrypi,3-model-b-plus", "brcm,bcm2837"]),
        ..Default::default()
    };
    assert_eq!(guess_soc(&pi3bplus).unwrap().name, "BCM2837B0");
    // the compatible list outranks every other kind of evidence
    let xu4 = SocEvidence {
        dt_compatible: compat(&[
            "hardkernel,odroid-xu4",
            "samsung,exynos5800",
            "samsung,exynos5",
        ]),
        cpuinfo_hardware: Some("Hardkernel ODROID-XU4".into()),
        ..Default::default()
    };
    assert_eq!(guess_soc(&xu4).unwrap().name, "Samsung Exynos 5422/5800");
}

#[test]
fn rpi5_by_model_despite_hardware_bcm2835() {
    // /proc/cpuinfo of a Raspberry Pi 5 (corpus BCM2712-6.1.47.cpuinfo)
    let ev = SocEvidence {
        cpuinfo_hardware: Some("BCM2835".into()),
        cpuinfo_model: Some("Raspberry Pi 5 Model B Rev 1.0".into()),
        cpuinfo_serial: Some("0000000000000000".into()),
        core_types: cores(&[("Cortex-A76", "r4p1", 4)]),
        ..Default::default()
    };
    let g = guess_soc(&ev).unwrap();
    assert_eq!(g.name, "BCM2712");
    assert!(
        g.evidence.contains("Raspberry Pi 5 Model B Rev 1.0"),
        "{}",
        g.evidence
    );
    // a Pi 4 with the same Hardware line must not be called BCM2835
    let pi4 = SocEvidence {
        cpuinfo_hardware: Some("BCM2835".into()),
        cpuinfo_model: Some("Raspberry Pi 4 Model B Rev 1.4".into()),
        ..Default::default()
    };
    assert_eq!(guess_soc(&pi4).unwrap().name, "BCM2711");
    let zero2 = SocEvidence {
        cpuinfo_model: Some("Raspberry Pi Zero 2 Rev 1.0".into()),
        ..Default::default()
    };
    assert_eq!(guess_soc(&zero2).unwrap().name, "RP3A0 (BCM2710A1)");
}

#[test]
fn h3_by_hardware_sun8i() {
    // /proc/cpuinfo of an H3 with the 3.4 vendor kernel (corpus Allwinner-H3-3.4.113-sun8i)
    let ev = SocEvidence {
        cpuinfo_hardware: Some("sun8i".into()),
        core_types: cores(&[("Cortex-A7", "r0p5", 4)]),
        ..Default::default()
    };
    let g = guess_soc(&ev).unwrap();
    assert!(g.name.contains("Allwinner H3"), "{}", g.name);
    assert_eq!(g.evidence, "cpuinfo Hardware \"sun8i\" contains \"sun8i\"");
    // vendor family names are more specific than the bare 'sun8i'
    let bsp = SocEvidence {
        cpuinfo_hardware: Some("sun8iw11p1".into()),
        ..Default::default()
    };
    assert_eq!(guess_soc(&bsp).unwrap().name, "Allwinner R40/V40/T3/A40i");
    let a64 = SocEvidence {
        cpuinfo_hardware: Some("sun50iw10p1".into()),
        ..Default::default()
    };
    assert!(guess_soc(&a64).unwrap().name.contains("A133"));
}

#[test]
fn rk3399_by_signature() {
    let ev = SocEvidence {
        core_types: cores(&[("Cortex-A53", "r0p4", 4), ("Cortex-A72", "r0p2", 2)]),
        ..Default::default()
    };
    let g = guess_soc(&ev).unwrap();
    assert_eq!(g.name, "Rockchip RK3399");
    assert_eq!(
        g.evidence,
        "core signature \"4xCortex-A53/r0p4+2xCortex-A72/r0p2\""
    );
    // without revisions the same core types are ambiguous and the name says so
    let norev = SocEvidence {
        core_types: cores(&[("Cortex-A53", "", 4), ("Cortex-A72", "", 2)]),
        ..Default::default()
    };
    let g = guess_soc(&norev).unwrap();
    assert!(
        g.name.starts_with("one of ") && g.candidates.iter().any(|c| c.contains("RK3399")),
        "{g:?}"
    );
    assert!(g.candidates.len() > 1, "{g:?}");
}

#[test]
fn ambiguous_signature_names_the_candidates() {
    // four Cortex-A55 r2p0: RK3566/RK3568, S905X4, RTD1619B all look like this
    let ev = SocEvidence {
        core_types: cores(&[("Cortex-A55", "r2p0", 4)]),
        ..Default::default()
    };
    let g = guess_soc(&ev).unwrap();
    assert!(
        g.name.contains("RK3566") && g.name.contains("S905X4"),
        "{}",
        g.name
    );
    assert!(g.name.starts_with("one of "), "{}", g.name);
    assert_eq!(
        g.candidates,
        [
            "Rockchip RK3566/RK3568",
            "Amlogic S905X4/S905C2",
            "Realtek RTD1619B"
        ]
    );
    // RK3588 and Unisoc UMS9620 share cores and steppings (corpus UMS9620 capture)
    let rk3588 = SocEvidence {
        core_types: cores(&[("Cortex-A55", "r2p0", 4), ("Cortex-A76", "r4p0", 4)]),
        ..Default::default()
    };
    let g = guess_soc(&rk3588).unwrap();
    assert!(
        g.name.contains("RK3588") && g.name.contains("UMS9620"),
        "{}",
        g.name
    );
}

#[test]
fn nothing_matches() {
    assert_eq!(guess_soc(&SocEvidence::default()), None);
    // the most common signature of all (quad Cortex-A53 r0p4) identifies nothing
    let ev = SocEvidence {
        dt_compatible: compat(&["vendor,unknown-board", "vendor,unknown-soc"]),
        cpuinfo_hardware: Some("Generic DT based system".into()),
        core_types: cores(&[("Cortex-A53", "r0p4", 4)]),
        ..Default::default()
    };
    assert_eq!(guess_soc(&ev), None);
    // one CPU of unknown type (e.g. offline): no signature guess
    let mut partial = cores(&[("Cortex-A53", "r0p4", 4), ("Cortex-A72", "r0p2", 2)]);
    partial[5].0.clear();
    assert_eq!(
        guess_soc(&SocEvidence {
            core_types: partial,
            ..Default::default()
        }),
        None
    );
}

#[test]
fn signature_without_revision_and_wildcard_counts() {
    // old sbc-bench logs print core types without stepping (e.g. Tinker Board)
    let rk3288 = SocEvidence {
        core_types: cores(&[("Cortex-A17", "", 4)]),
        ..Default::default()
    };
    assert_eq!(guess_soc(&rk3288).unwrap().name, "Rockchip RK3288");
    // '*' counts: any number of Neoverse-N1 r3p1, exact counts listed first win
    let altra_max = SocEvidence {
        core_types: cores(&[("Neoverse-N1", "r3p1", 128)]),
        ..Default::default()
    };
    assert_eq!(guess_soc(&altra_max).unwrap().name, "Ampere Altra Max");
    let vm = SocEvidence {
        core_types: cores(&[("Neoverse-N1", "r3p1", 2)]),
        ..Default::default()
    };
    let g = guess_soc(&vm).unwrap();
    assert_eq!(g.name, "one of Ampere Altra, AWS Graviton2");
    assert_eq!(g.candidates, ["Ampere Altra", "AWS Graviton2"]);
    assert_eq!(
        g.evidence,
        "core signature \"2xNeoverse-N1/r3p1\" matches \"*xNeoverse-N1/r3p1\", shared by 2 SoCs"
    );
    // a core name containing '/' (sbc-bench's "Qualcomm Falkor V1/Kryo")
    let sd835 = SocEvidence {
        core_types: cores(&[
            ("Qualcomm Kryo V2", "r10p4", 4),
            ("Qualcomm Falkor V1/Kryo", "r10p1", 4),
        ]),
        ..Default::default()
    };
    assert_eq!(
        guess_soc(&sd835).unwrap().name,
        "Qualcomm MSM8998 (Snapdragon 835)"
    );
    // RISC-V harts have no revision
    let jh7110 = SocEvidence {
        core_types: cores(&[("sifive,u74-mc", "", 4)]),
        ..Default::default()
    };
    assert_eq!(guess_soc(&jh7110).unwrap().name, "StarFive JH7110");
}

#[test]
fn named_chips_emulators_and_single_cpus_are_not_guessed_from_cores() {
    let a55 = cores(&[("Cortex-A55", "r2p0", 4)]);
    // A MediaTek chip the table does not know: shown as named, not as a Rockchip.
    let mt = SocEvidence {
        cpuinfo_hardware: Some("MT8999".into()),
        core_types: a55.clone(),
        ..Default::default()
    };
    let g = guess_soc(&mt).unwrap();
    assert_eq!(g.name, "MT8999 (not in the table)");
    assert!(g.evidence.contains("MediaTek"), "{}", g.evidence);
    // The Hardware vendor picks its part of a hedged table entry.
    let aml = SocEvidence {
        cpuinfo_hardware: Some("Amlogic".into()),
        core_types: a55.clone(),
        ..Default::default()
    };
    assert_eq!(guess_soc(&aml).unwrap().name, "Amlogic S905X4/S905C2");
    // QEMU's virt machine with Cortex-A72s is no BCM2711.
    let qemu = SocEvidence {
        dt_compatible: vec!["linux,dummy-virt".into()],
        dt_model: Some("linux,dummy-virt".into()),
        core_types: cores(&[("Cortex-A72", "r0p3", 4)]),
        ..Default::default()
    };
    assert_eq!(guess_soc(&qemu), None);
    // One CPU says too little.
    let one = SocEvidence {
        core_types: cores(&[("Neoverse-V1", "r1p1", 1)]),
        ..Default::default()
    };
    assert_eq!(guess_soc(&one), None);
}

#[test]
fn amlogic_chip_id_in_serial() {
    // examples of chip IDs from sbc-bench's ParseAmlSerial
    for (serial, name) in [
        ("210a820094e04a85134", "Amlogic S905X (GXL)"),
        ("360b0103000000000e0", "Amlogic A311D2 (T7)"),
        ("320b0202000000001900", "Amlogic S905X4 (SC2)"),
        ("290b1000aaaaaaaaaaaa", "Amlogic A311D (G12B)"),
    ] {
        let ev = SocEvidence {
            cpuinfo_hardware: Some("Amlogic".into()),
            cpuinfo_serial: Some(serial.into()),
            core_types: cores(&[("Cortex-A53", "r0p4", 4)]),
            ..Default::default()
        };
        let g = guess_soc(&ev).unwrap();
        assert_eq!(g.name, name, "serial {serial}");
        assert!(
            !g.evidence.contains(serial),
            "the full serial is not repeated"
        );
    }
    // zeroed serial: fall through to the signature (none for quad A53 r0p4)
    let zero = SocEvidence {
        cpuinfo_hardware: Some("Amlogic".into()),
        cpuinfo_serial: Some("0000000000000000".into()),
        core_types: cores(&[("Cortex-A53", "r0p4", 4)]),
        ..Default::default()
    };
    assert_eq!(guess_soc(&zero), None);
    // a serial is only read as a chip ID on Amlogic kernels
    let rpi = SocEvidence {
        cpuinfo_hardware: Some("BCM2835".into()),
        cpuinfo_serial: Some("29ab1c0ffee00000".into()),
        ..Default::default()
    };
    assert_eq!(guess_soc(&rpi), None);
}

#[test]
fn model_outranks_hardware_and_hardware_outranks_signature() {
    let ev = SocEvidence {
        cpuinfo_hardware: Some("BCM2709".into()),
        cpuinfo_model: Some("Raspberry Pi 2 Model B Rev 1.2".into()),
        core_types: cores(&[("Cortex-A53", "r0p4", 4)]),
        ..Default::default()
    };
    assert_eq!(guess_soc(&ev).unwrap().name, "BCM2837");
    // Unisoc UMS9620: the Hardware line resolves what the signature cannot
    let ums = SocEvidence {
        cpuinfo_hardware: Some("Unisoc ums9620".into()),
        core_types: cores(&[("Cortex-A55", "r2p0", 4), ("Cortex-A76", "r4p0", 4)]),
        ..Default::default()
    };
    assert_eq!(guess_soc(&ums).unwrap().name, "Unisoc UMS9620");
}

#[test]
fn chips_table_parses() {
    let n = named::parse_builtin().unwrap();
    assert!(n > 50, "{n} rows");
}

/// A chip the Hardware line names is never replaced by one the cores suggest: the Helio G85
/// family shares 6×A55 + 2×A75 with the Helio P90 (MT6779), whose rule the table has.
#[test]
fn a_named_chip_is_never_another_chip() {
    let g85_cores = cores(&[("Cortex-A55", "r1p0", 6), ("Cortex-A75", "r3p1", 2)]);
    let hw = |h: &str| SocEvidence {
        cpuinfo_hardware: Some(h.into()),
        core_types: g85_cores.clone(),
        ..Default::default()
    };
    // Without a Hardware line the signature's rule speaks (and names the P90's signature).
    let p90 = cores(&[("Cortex-A55", "r1p0", 6), ("Cortex-A75", "r3p0", 2)]);
    let alone = guess_soc(&SocEvidence {
        core_types: p90,
        ..Default::default()
    })
    .unwrap();
    assert!(alone.name.contains("MT6779"), "{alone:?}");
    // The part with its package suffix: the table's chip, by its base part.
    let g = guess_soc(&hw("MT6769V/CB")).unwrap();
    assert_eq!(g.name, "MediaTek MT6769 (Helio G70/G80/G85)");
    assert!(g.evidence.contains("MT6769V/CB"), "{}", g.evidence);
    // A part the table does not know is printed as named.
    let g = guess_soc(&hw("MT6835V/ZA")).unwrap();
    assert_eq!(g.name, "MT6835V/ZA (not in the table)");
    assert!(g.evidence.contains("MediaTek"), "{}", g.evidence);
    // Qualcomm: part numbers and platform codenames after the vendor's name.
    let q = |h: &str| guess_soc(&hw(h)).unwrap().name;
    assert_eq!(
        q("Qualcomm Technologies, Inc SM6115"),
        "Qualcomm SM6115 (Snapdragon 662)"
    );
    assert_eq!(
        q("Qualcomm Technologies, Inc BENGAL"),
        "Qualcomm SM6115/SM4250 (Snapdragon 662/460)"
    );
    assert_eq!(
        q("Qualcomm Technologies, Inc TRINKET"),
        "Qualcomm SM6125 (Snapdragon 665)"
    );
    assert_eq!(
        q("Qualcomm Technologies, Inc SDM662"),
        "Qualcomm SM6115 (Snapdragon 662)"
    );
    assert_eq!(
        q("Qualcomm Technologies, Inc PARROT"),
        "Qualcomm PARROT (not in the table)"
    );
    // Exynos, Kirin, Unisoc as their kernels print them.
    assert_eq!(q("Exynos 850"), "Samsung Exynos 850");
    assert_eq!(q("Samsung Exynos9611"), "Samsung Exynos 9611");
    assert_eq!(q("Kirin 810"), "HiSilicon Kirin 810 (Hi6280)");
    assert_eq!(q("Unisoc T606"), "Unisoc T606 (UMS9230)");
    assert_eq!(q("Spreadtrum SC9863A"), "Unisoc SC9863A");
    // A part number is kept whole, never cut to a pattern's length.
    assert_eq!(q("hi3798mv300"), "hi3798mv300 (not in the table)");
    // A bare short part without its vendor is no evidence (T606 could be anything).
    let bare = guess_soc(&hw("T606"));
    assert!(
        bare.as_ref().is_none_or(|g| !g.name.contains("Unisoc")),
        "{bare:?}"
    );
}

#[test]
fn a_compatible_entry_names_a_chip_the_rules_do_not_know() {
    let ev = |list: &[&str]| SocEvidence {
        dt_compatible: compat(list),
        core_types: cores(&[("Cortex-A53", "r0p4", 4), ("Cortex-A73", "r0p2", 4)]),
        ..Default::default()
    };
    let g = guess_soc(&ev(&["xiaomi,lime", "qcom,sm6115"])).unwrap();
    assert_eq!(g.name, "Qualcomm SM6115 (Snapdragon 662)");
    assert!(g.evidence.contains("qcom,sm6115"), "{}", g.evidence);
    let g = guess_soc(&ev(&["vendor,board", "mediatek,mt6855"])).unwrap();
    assert_eq!(g.name, "MT6855 (not in the table)");
    // A board maker's prefix names no chip: the cores speak (and name candidates only).
    let g = guess_soc(&ev(&["radxa,rock-board"]));
    assert!(
        g.as_ref()
            .is_none_or(|g| !g.name.contains("not in the table")),
        "{g:?}"
    );
}

#[test]
fn the_kernel_log_names_the_machine_where_the_device_tree_is_missing() {
    use crate::inventory::machine_line;
    let dmesg = "[    0.000000] Booting Linux on physical CPU 0x0\n\
                 [    0.000000] Machine model: Raspberry Pi 4 Model B Rev 1.4\n";
    assert_eq!(
        machine_line(dmesg).as_deref(),
        Some("Raspberry Pi 4 Model B Rev 1.4")
    );
    let kmsg = "6,1,0,-;Booting Linux\n6,2,0,-;OF: fdt: Machine model: Xunlong Orange Pi 5\n";
    assert_eq!(machine_line(kmsg).as_deref(), Some("Xunlong Orange Pi 5"));
    assert_eq!(machine_line("6,1,0,-;Machine: \n"), None);
    let ev = SocEvidence {
        kernel_log_machine: Some("Raspberry Pi 4 Model B Rev 1.4".into()),
        core_types: cores(&[("Cortex-A72", "r0p3", 4)]),
        ..Default::default()
    };
    let g = guess_soc(&ev).unwrap();
    assert_eq!(g.name, "BCM2711");
    assert!(
        g.evidence.starts_with("kernel log machine"),
        "{}",
        g.evidence
    );
    // ... but it never outranks the Hardware line.
    let ev = SocEvidence {
        cpuinfo_hardware: Some("MT6769V/CB".into()),
        kernel_log_machine: Some("Raspberry Pi 4 Model B".into()),
        ..Default::default()
    };
    assert!(guess_soc(&ev).unwrap().name.contains("MT6769"));
}

#[test]
fn layouts_come_from_rules_that_name_one_chip() {
    assert_eq!(
        layout_of("Samsung Exynos 5422"),
        Some(vec![
            (4, "Cortex-A7".to_string()),
            (4, "Cortex-A15".to_string())
        ])
    );
    // Wildcard counts and names shared with other chips give no layout.
    assert_eq!(layout_of("Nvidia Tegra194 (Xavier)"), None);
    // Rules naming one chip with two layouts (both big cores or two of them online).
    assert_eq!(layout_of("Samsung Exynos 8890"), None);
}

/// Over every real cpuinfo capture: a guess never names a chip of another vendor than the
/// evidence names (the Hardware line's vendor), a single chip is never of another vendor
/// than the capture's file name says, and candidates include the file name's vendor. The
/// counts (exact, candidates, none) are printed for the record.
#[test]
fn captures_are_never_identified_as_another_vendors_chip() {
    use crate::{Host, Inventory};
    let empty = tempfile::tempdir().unwrap();
    let (mut exact_n, mut hedged_n, mut none_n) = (0, 0, 0);
    let mut wrong = Vec::new();
    for f in truebench_fixtures::cpuinfo_captures() {
        let host = Host::new(empty.path()).with_cpuinfo(Some(f.clone()));
        let inv = Inventory::probe(&host);
        let file = f.file_name().unwrap().to_string_lossy().into_owned();
        let text = host.cpuinfo().unwrap();
        let hw = text
            .lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim() == "Hardware")
            .map(|(_, v)| v.trim().to_string());
        let Some(g) = inv.soc else {
            none_n += 1;
            continue;
        };
        let names: Vec<&str> = if g.candidates.is_empty() {
            exact_n += 1;
            vec![g.name.as_str()]
        } else {
            hedged_n += 1;
            g.candidates.iter().map(String::as_str).collect()
        };
        let of = |n: &str| vendor_of(n);
        if let Some(v) = hw.as_deref().and_then(vendor_of) {
            if names.iter().any(|n| of(n).is_some_and(|w| w != v)) {
                wrong.push(format!("{file}: Hardware names {v}, guess {:?}", g.name));
            }
        }
        // The file names the chip the capture came from (x86 and server names aside).
        if let Some(v) = vendor_of(&file.replace(['-', '_', '.'], " ")) {
            let fits = |n: &&str| of(n).is_none_or(|w| w == v);
            let ok = if g.candidates.is_empty() {
                names.iter().all(fits)
            } else {
                names.iter().any(fits)
            };
            if !ok {
                wrong.push(format!("{file}: a {v} capture, guess {:?}", g.name));
            }
        }
    }
    eprintln!(
        "SoC identification over the cpuinfo captures: {exact_n} named exactly, {hedged_n} as candidates, {none_n} not at all"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(exact_n > 150, "{exact_n} exact");
}
