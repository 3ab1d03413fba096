//! The rule on values of real boards (each test names its source).

use super::*;

fn opp(mhz: u64, mv: f64, hw: &[u32]) -> TableOpp {
    TableOpp {
        khz: mhz * 1000,
        volts: Some(Volts::exact((mv * 1000.0).round() as u64)),
        supported_hw: hw.to_vec(),
    }
}

fn khz(m: &[u64]) -> Vec<u64> {
    m.iter().map(|m| m * 1000).collect()
}

/// Radxa ROCK 5C (sbc-bench log 5pv8oh): cluster1's top OPPs and what policy4 offers.
fn rock5c() -> OppInputs {
    OppInputs {
        table: vec![
            opp(2016, 925.0, &[0xf9, 0xffff]),
            opp(2016, 950.0, &[0x06, 0xffff]),
            opp(2208, 987.5, &[0xf9, 0xffff]),
            opp(2256, 1000.0, &[0xf9, 0x13]),
            opp(2304, 1000.0, &[0xf9, 0x24]),
            opp(2352, 1000.0, &[0xf9, 0x48]),
            opp(2400, 1000.0, &[0xf9, 0x80]),
        ],
        table_source: "cluster1-opp-table".into(),
        offered_khz: khz(&[2016, 2208, 2304]),
        offered_source: "policy4".into(),
        ..Default::default()
    }
}

#[test]
fn opps_outside_the_chips_bin_are_named_by_their_supported_hw() {
    let l = judge(&rock5c());
    assert_eq!(l.len(), 3, "{l:#?}");
    assert_eq!(l[0].opps_mhz, [2256]);
    assert_eq!(
        l[0].limit,
        Limit::SupportedHw {
            mask: vec![0xf9, 0x13],
            offered: vec![0xf9, 0x24]
        }
    );
    assert_eq!(l[1].opps_mhz, [2352]);
    assert_eq!(l[2].opps_mhz, [2400]);
    assert!(
        l[2].reason.starts_with("2400 MHz is never reached: in the device tree but not offered; its opp-supported-hw <0x00f9 0x0080> shares no bit with <0x00f9 0x0024>"),
        "{}",
        l[2].reason
    );
}

/// Radxa ROCK 5A (log C6zgdP): 2256–2352 MHz carry a second cell of 0.
#[test]
fn a_zero_cell_matches_no_chip() {
    let i = OppInputs {
        table: vec![
            opp(2208, 987.5, &[0xfd, 0xffff]),
            opp(2256, 1000.0, &[0xff, 0]),
            opp(2304, 1000.0, &[0xff, 0]),
            opp(2352, 1000.0, &[0xff, 0]),
            opp(2400, 1000.0, &[0xff, 0xffff]),
        ],
        offered_khz: khz(&[2208, 2400]),
        ..Default::default()
    };
    let l = judge(&i);
    assert_eq!(l.len(), 1, "{l:#?}");
    assert_eq!(l[0].opps_mhz, [2256, 2304, 2352]);
    assert!(l[0].reason.contains("has a cell of 0"), "{}", l[0].reason);
}

/// An H5 OPP table as Armbian ships it (sbc-bench log 4MB5, NanoPi K1 Plus) under the
/// `vdd-cpux` GPIO regulator of the NanoPi NEO Plus2 (Linux
/// arch/arm64/boot/dts/allwinner/sun50i-h5-nanopi-neo-plus2.dts: 1.1–1.3 V).
fn h5_on_neo_plus2(offered: &[u64]) -> OppInputs {
    OppInputs {
        table: vec![
            opp(480, 1040.0, &[]),
            opp(648, 1040.0, &[]),
            opp(816, 1100.0, &[]),
            opp(960, 1200.0, &[]),
            opp(1008, 1200.0, &[]),
            opp(1104, 1320.0, &[]),
            opp(1200, 1320.0, &[]),
            opp(1296, 1340.0, &[]),
            opp(1368, 1400.0, &[]),
        ],
        table_source: "opp-table-cpu".into(),
        supply: Some(Supply {
            name: "vdd-cpux".into(),
            min_uv: Some(1_100_000),
            max_uv: Some(1_300_000),
            source: "sys/class/regulator/regulator.2/max_microvolts".into(),
        }),
        offered_khz: khz(offered),
        ..Default::default()
    }
}

#[test]
fn opps_above_the_regulators_maximum_are_held_by_it() {
    // The GPIO regulator gives 1.1 or 1.3 V: 480 and 648 MHz (1.04 V exactly) are dropped
    // as well as everything above 1.3 V.
    let l = judge(&h5_on_neo_plus2(&[816, 960, 1008]));
    assert_eq!(l.len(), 2, "{l:#?}");
    assert_eq!(l[0].opps_mhz, [480, 648]);
    assert_eq!(
        l[0].reason,
        "480, 648 MHz are never reached: they need at most 1.04 V and the regulator vdd-cpux \
         allows no less than 1.1 V"
    );
    assert_eq!(l[1].opps_mhz, [1104, 1200, 1296, 1368]);
    assert_eq!(
        l[1].reason,
        "1104, 1200, 1296, 1368 MHz are never reached: they need at least 1.32 V and the \
         regulator vdd-cpux allows at most 1.3 V"
    );
    assert_eq!(
        l[1].source,
        "sys/class/regulator/regulator.2/max_microvolts"
    );
    // Without the offered list (no cpufreq) the regulator still explains them.
    let l = judge(&h5_on_neo_plus2(&[]));
    assert_eq!(l[1].opps_mhz, [1104, 1200, 1296, 1368]);
    // The same table on its own board (vdd-cpux up to 1.4 V, log 4MB5): all reachable.
    let mut i = h5_on_neo_plus2(&[480, 648, 816, 960, 1008, 1104, 1200, 1296, 1368]);
    let s = i.supply.as_mut().unwrap();
    s.max_uv = Some(1_400_000);
    s.min_uv = Some(1_000_000);
    assert!(judge(&i).is_empty());
    i.offered_khz.clear();
    assert!(judge(&i).is_empty(), "1368 MHz at exactly 1.4 V is allowed");
}

/// A triplet: the OPP is kept when the regulator reaches into its range (Linux
/// sun50i-h5-cpu-opp.dtsi: 1152 MHz at <1.3 1.3 1.31> V under a 1.3 V maximum).
#[test]
fn a_voltage_range_is_kept_when_the_regulator_reaches_into_it() {
    let s = Supply {
        name: "vdd-cpux".into(),
        min_uv: Some(1_100_000),
        max_uv: Some(1_300_000),
        source: String::new(),
    };
    let v = Volts {
        target: 1_300_000,
        min: 1_300_000,
        max: 1_310_000,
    };
    assert_eq!(supports(&s, v), Some(true));
    assert_eq!(supports(&s, Volts::exact(1_310_000)), Some(false));
    let unknown = Supply {
        max_uv: Some(0),
        min_uv: None,
        ..s
    };
    assert_eq!(
        supports(&unknown, v),
        None,
        "0 mV max is no constraint known"
    );
}

#[test]
fn scaling_max_below_the_hardware_names_the_cooling_device() {
    // ODROID-N2+ big cluster (S922X): what a cpufreq cooling device at state 2 leaves.
    let mut i = OppInputs {
        offered_khz: khz(&[
            1000, 1200, 1398, 1512, 1608, 1704, 1800, 1908, 2016, 2108, 2208,
        ]),
        cpuinfo_max_khz: Some(2_208_000),
        scaling_max_khz: Some(2_016_000),
        scaling_max_source: "sys/devices/system/cpu/cpufreq/policy2/scaling_max_freq".into(),
        cooling_read: true,
        cooling: vec![Cooling {
            device: "cooling_device1".into(),
            kind: "cpufreq-cpu2".into(),
            cur_state: 2,
            max_state: 10,
            source: "sys/class/thermal/cooling_device1/cur_state".into(),
        }],
        ..Default::default()
    };
    let l = judge(&i);
    assert_eq!(l.len(), 1);
    assert_eq!(l[0].opps_mhz, [2108, 2208]);
    assert_eq!(
        l[0].reason,
        "2108, 2208 MHz are never reached: scaling_max_freq is 2016 MHz, below cpuinfo_max_freq \
         2208 MHz; the thermal cooling device cooling_device1 (cpufreq-cpu2) is at state 2 of \
         10, which caps the clock at 2016 MHz"
    );
    assert_eq!(l[0].source, "sys/class/thermal/cooling_device1/cur_state");
    // At state 0 the device is not it; a MaxKHz is named when it matches.
    i.cooling[0].cur_state = 0;
    let l = judge(&i);
    assert_eq!(
        l[0].limit,
        Limit::ScalingMax {
            scaling_max_mhz: 2016,
            by: LoweredBy::Unknown
        }
    );
    assert!(
        l[0].reason.contains("cooling_device1) is at state 0"),
        "{}",
        l[0].reason
    );
    i.user_max_khz = Some(2_016_000);
    assert_eq!(
        judge(&i)[0].limit,
        Limit::ScalingMax {
            scaling_max_mhz: 2016,
            by: LoweredBy::User { max_mhz: 2016 }
        }
    );
    i.scaling_max_khz = Some(2_208_000);
    assert!(judge(&i).is_empty());
}

#[test]
fn an_opp_missing_without_a_reason_is_still_named() {
    let mut i = h5_on_neo_plus2(&[480, 648, 816, 960, 1008, 1104, 1200]);
    i.supply = None;
    let l = judge(&i);
    assert_eq!(l.len(), 1);
    assert_eq!(l[0].limit, Limit::NotOffered);
    assert_eq!(l[0].opps_mhz, [1296, 1368]);
}

#[test]
fn volts_are_short() {
    assert_eq!(volts(1_290_000), "1.29 V");
    assert_eq!(volts(1_288_000), "1.288 V");
    assert_eq!(volts(1_000_000), "1.0 V");
    assert_eq!(volts(987_500), "0.988 V");
}
