//! The OPP-limit reader on device-tree boards: the tree, regulators and cooling devices are
//! read into `Cluster::opp_limits` as `opp::judge` rules on them.

use truebench_fixtures::dt::{dt_board, DtBoard, DtCluster, DtOpp, DtRegulator};
use truebench_host::opp::{Limit, LoweredBy};
use truebench_host::{Host, Inventory};

fn opp(mhz: u64, mv: u32) -> DtOpp {
    DtOpp {
        hz: mhz * 1_000_000,
        microvolt: vec![mv * 1000],
        supported_hw: vec![],
    }
}

/// The H5 OPP table Armbian ships (sbc-bench log 4MB5: 480–1368 MHz, 1.04–1.4 V) under the
/// NanoPi NEO Plus2's `vdd-cpux` GPIO regulator (Linux sun50i-h5-nanopi-neo-plus2.dts:
/// regulator-min-microvolt 1100000, regulator-max-microvolt 1300000). The kernel keeps
/// 816–1008 MHz only.
fn h5_neo_plus2(sysfs: bool) -> DtBoard {
    DtBoard {
        model: "FriendlyARM NanoPi NEO Plus2".into(),
        clusters: vec![DtCluster {
            cpus: vec![0, 1, 2, 3],
            table: "opp-table-cpu".into(),
            opps: vec![
                opp(480, 1040),
                opp(648, 1040),
                opp(816, 1100),
                opp(960, 1200),
                opp(1008, 1200),
                opp(1104, 1320),
                opp(1200, 1320),
                opp(1296, 1340),
                opp(1368, 1400),
            ],
            supply: Some(DtRegulator {
                name: "vdd-cpux".into(),
                min_uv: 1_100_000,
                max_uv: 1_300_000,
                now_uv: 1_300_000,
                sysfs,
            }),
            offered_khz: vec![816_000, 960_000, 1_008_000],
            scaling_max_khz: None,
        }],
        cooling: vec![],
    }
}

#[test]
fn the_regulator_that_holds_the_clock_down_is_named_with_its_file() {
    let root = dt_board(&h5_neo_plus2(true));
    let inv = Inventory::probe(&Host::new(root.path()));
    let l = &inv.clusters[0].opp_limits;
    assert_eq!(l.len(), 2, "{l:#?}");
    assert_eq!(l[1].opps_mhz, [1104, 1200, 1296, 1368]);
    assert!(
        matches!(&l[1].limit, Limit::Regulator { supply, max_uv: Some(1_300_000), .. } if supply == "vdd-cpux")
    );
    assert_eq!(
        l[1].source,
        "sys/class/regulator/regulator.3/max_microvolts"
    );
    assert_eq!(l[0].opps_mhz, [480, 648]);
    assert_eq!(
        l[0].source,
        "sys/class/regulator/regulator.3/min_microvolts"
    );
    // review warns of each, with the file.
    let host = Host::new(root.path());
    let s = truebench_host::review::review(&host, &inv);
    let w = s
        .iter()
        .find(|s| s.name == "OPP limit: regulator" && s.value == "1104, 1200, 1296, 1368 MHz")
        .expect("a review setting");
    assert_eq!(w.severity, truebench_host::review::Severity::Warn);
    assert_eq!(w.source, "sys/class/regulator/regulator.3/max_microvolts");
    assert_eq!(w.subject, "policy0 (cpu0-cpu3)");
    // Without a sysfs regulator entry the node's own constraints are read.
    let root = dt_board(&h5_neo_plus2(false));
    let inv = Inventory::probe(&Host::new(root.path()));
    let l = &inv.clusters[0].opp_limits;
    assert_eq!(
        l[1].source,
        "proc/device-tree/i2c@fd880000/pmic@42/regulators/dcdc-reg1/regulator-max-microvolt"
    );
}

/// Radxa ROCK 5C (sbc-bench log 5pv8oh): policy4 stops at 2304 MHz, the cooling device of
/// policy6 holds it at 2208 MHz.
#[test]
fn supported_hw_and_a_cooling_device_on_a_big_little_board() {
    let hw = |mhz: u64, mv: u32, cells: [u32; 2]| DtOpp {
        supported_hw: cells.to_vec(),
        ..opp(mhz, mv)
    };
    let table = vec![
        hw(2016, 925, [0xf9, 0xffff]),
        hw(2016, 950, [0x06, 0xffff]),
        hw(2208, 987, [0xf9, 0xffff]),
        hw(2256, 1000, [0xf9, 0x13]),
        hw(2304, 1000, [0xf9, 0x24]),
        hw(2352, 1000, [0xf9, 0x48]),
        hw(2400, 1000, [0xf9, 0x80]),
    ];
    let big = |cpus: Vec<u32>, name: &str, smax: Option<u64>| DtCluster {
        table: format!("cluster{}-opp-table", cpus[0] / 2 - 1),
        cpus,
        opps: table.clone(),
        supply: Some(DtRegulator {
            name: name.into(),
            min_uv: 550_000,
            max_uv: 1_050_000,
            now_uv: 1_000_000,
            sysfs: true,
        }),
        offered_khz: vec![2_016_000, 2_208_000, 2_304_000],
        scaling_max_khz: smax,
    };
    let board = DtBoard {
        model: "Radxa ROCK 5C".into(),
        clusters: vec![
            big(vec![4, 5], "vdd_cpu_big0_s0", None),
            big(vec![6, 7], "vdd_cpu_big1_s0", Some(2_208_000)),
        ],
        cooling: vec![
            ("cpufreq-cpu4".into(), 0, 13),
            ("cpufreq-cpu6".into(), 1, 13),
        ],
    };
    let root = dt_board(&board);
    let inv = Inventory::probe(&Host::new(root.path()));
    let of = |cpu: u32| {
        &inv.clusters
            .iter()
            .find(|c| c.cpus[0] == cpu)
            .unwrap()
            .opp_limits
    };
    let a = of(4);
    assert_eq!(
        a.iter().map(|l| l.opps_mhz.clone()).collect::<Vec<_>>(),
        [vec![2256], vec![2352], vec![2400]],
        "{a:#?}"
    );
    assert!(a
        .iter()
        .all(|l| matches!(l.limit, Limit::SupportedHw { .. })));
    assert_eq!(a[0].source, "proc/device-tree/cluster1-opp-table");
    let b = of(6);
    assert_eq!(b.len(), 4, "{b:#?}");
    assert_eq!(b[3].opps_mhz, [2304]);
    assert!(matches!(
        &b[3].limit,
        Limit::ScalingMax { scaling_max_mhz: 2208, by: LoweredBy::Cooling { device, cap_mhz: Some(2208), .. } } if device == "cooling_device1"
    ));
    assert_eq!(b[3].source, "sys/class/thermal/cooling_device1/cur_state");
}

#[test]
fn a_broken_tree_is_unknown_not_a_panic() {
    let root = dt_board(&h5_neo_plus2(true));
    let base = root.path().join("sys/firmware/devicetree/base");
    // A truncated phandle and a truncated opp-hz.
    std::fs::write(base.join("cpus/cpu@0/operating-points-v2"), [0, 0, 1]).unwrap();
    std::fs::write(base.join("opp-table-cpu/opp-1368000000/opp-hz"), [0, 0, 0]).unwrap();
    let inv = Inventory::probe(&Host::new(root.path()));
    // cpu@0's table is unreadable; cpu1 still names it, so the cluster is judged without 1368.
    let l = &inv.clusters[0].opp_limits;
    assert_eq!(l[1].opps_mhz, [1104, 1200, 1296]);
}

/// Without a device tree (an ACPI or stripped root), the kernel's OPP table in debugfs is read:
/// the same H5 table as the OPP core holds it, under the same regulator in sysfs.
#[test]
fn the_kernels_debugfs_table_stands_in_for_a_missing_device_tree() {
    let root = dt_board(&h5_neo_plus2(true));
    let r = root.path();
    std::fs::remove_dir_all(r.join("sys/firmware")).unwrap();
    std::fs::remove_file(r.join("proc/device-tree")).unwrap();
    for o in &h5_neo_plus2(true).clusters[0].opps {
        let d = r.join(format!("sys/kernel/debug/opp/cpu0/opp:{}", o.hz));
        std::fs::create_dir_all(d.join("supply-0")).unwrap();
        std::fs::write(d.join("rate_hz"), format!("{}\n", o.hz)).unwrap();
        std::fs::write(d.join("available"), "Y\n").unwrap();
        for f in ["u_volt_target", "u_volt_min", "u_volt_max"] {
            std::fs::write(d.join("supply-0").join(f), format!("{}\n", o.microvolt[0])).unwrap();
        }
    }
    // The supply is not named without the tree: the table alone explains nothing, so the
    // missing OPPs are named as not offered, with the debugfs table as their source.
    let inv = Inventory::probe(&Host::new(r));
    let l = &inv.clusters[0].opp_limits;
    assert_eq!(l.len(), 1, "{l:#?}");
    assert_eq!(l[0].limit, Limit::NotOffered);
    assert_eq!(l[0].opps_mhz, [480, 648, 1104, 1200, 1296, 1368]);
    assert!(
        l[0].reason.contains("sys/kernel/debug/opp/cpu0"),
        "{}",
        l[0].reason
    );
    // The regulator's consumer link (`cpu0-cpu`) names it: the limits are the regulator's.
    std::os::unix::fs::symlink(
        "../../../devices/system/cpu/cpu0",
        r.join("sys/class/regulator/regulator.3/cpu0-cpu"),
    )
    .unwrap();
    let inv = Inventory::probe(&Host::new(r));
    let l = &inv.clusters[0].opp_limits;
    assert_eq!(l.len(), 2, "{l:#?}");
    assert_eq!(l[1].opps_mhz, [1104, 1200, 1296, 1368]);
    assert!(matches!(l[1].limit, Limit::Regulator { .. }));
}
