//! Why an OPP is never reached, on the corpus: the logs' OPP tables and CPU regulators judged
//! by the rule of the live reader, and trees built from the logs read by the live reader.

use truebench_fixtures::sbc_bench::logs;
use truebench_host::opp::{Limit, OppLimit};
use truebench_sbcbench::convert::to_run_result;
use truebench_sbcbench::parse;

/// Every log's limits: `(log, first CPU of the cluster, limit)`.
fn corpus_limits() -> Vec<(String, u32, OppLimit)> {
    let mut out = Vec::new();
    for (name, text) in logs() {
        let log = parse(&text);
        let r = to_run_result(&log, &name);
        for c in &r.envelope.inventory.clusters {
            for l in &c.opp_limits {
                out.push((name.clone(), c.cpus[0], l.clone()));
            }
        }
    }
    out
}

fn of<'a>(all: &'a [(String, u32, OppLimit)], log: &str, cpu: u32) -> Vec<&'a OppLimit> {
    all.iter()
        .filter(|(n, c, _)| n == log && *c == cpu)
        .map(|x| &x.2)
        .collect()
}

/// The RK3588 boards whose chips' bins leave top OPPs out: each missing OPP is named with the
/// `opp-supported-hw` that excludes it. Without the rule no log would carry a limit.
#[test]
fn supported_hw_bins_explain_the_rk3588_opps_the_kernel_leaves_out() {
    let all = corpus_limits();
    // ROCK 5C (5pv8oh): policy4 offers up to 2304 MHz (pvtm-volt-sel=2 in its kernel log).
    let l = of(&all, "5pv8oh.txt", 4);
    assert_eq!(
        l.iter().map(|l| l.opps_mhz.clone()).collect::<Vec<_>>(),
        [vec![2256], vec![2352], vec![2400]]
    );
    assert_eq!(
        l[2].limit,
        Limit::SupportedHw {
            mask: vec![0xf9, 0x80],
            offered: vec![0xf9, 0x24]
        }
    );
    assert_eq!(l[2].source, "sbc-bench log: OPP table cluster1-opp-table");
    // … and the imported document's verdicts carry each as an `opp_limit` finding.
    let text = logs()
        .into_iter()
        .find(|(n, _)| n == "5pv8oh.txt")
        .unwrap()
        .1;
    let r = to_run_result(&parse(&text), "5pv8oh.txt");
    let f: Vec<&str> = r
        .envelope
        .findings
        .iter()
        .filter(|f| f.kind.as_str() == "opp_limit")
        .map(|f| f.message.as_str())
        .collect();
    assert!(
        f.contains(&"cpu4-cpu5 (Cortex-A76): 2400 MHz is never reached: in the device tree but not offered; its opp-supported-hw <0x00f9 0x0080> shares no bit with <0x00f9 0x0024>, the bits of every OPP the kernel offers (the chip's speed bin or version picks the OPPs)"),
        "{f:#?}"
    );
    // The import's summary lists them with their source.
    let sum = truebench_sbcbench::import::summary("5pv8oh.txt", &parse(&text));
    assert!(
        sum.contains("  OPP limit cpu4-cpu5: 2400 MHz is never reached: in the device tree but not offered; its opp-supported-hw <0x00f9 0x0080>"),
        "{sum}"
    );
    // ROCK 5A (C6zgdP): three OPPs carry a zero cell and match no chip.
    let l = of(&all, "C6zgdP.txt", 4);
    assert_eq!(l.len(), 1);
    assert_eq!(l[0].opps_mhz, [2256, 2304, 2352]);
    assert!(l[0].reason.contains("has a cell of 0"), "{}", l[0].reason);
    // ROCK 5B (4qJr) offers the whole table: nothing to explain.
    assert!(of(&all, "4qJr.txt", 4).is_empty());
    // Every limit in the corpus names its log section, and a log's regulators never hold an
    // OPP there (the CPU regulators' maxima all reach the tables' voltages).
    assert!(all
        .iter()
        .all(|(_, _, l)| l.source.starts_with("sbc-bench log: ")));
    assert!(!all
        .iter()
        .any(|(_, _, l)| matches!(l.limit, Limit::Regulator { .. })));
    let logs_with = {
        let mut v: Vec<&str> = all.iter().map(|x| x.0.as_str()).collect();
        v.dedup();
        v.len()
    };
    assert!(logs_with >= 15, "{logs_with} logs with a limit");
}

/// The log's regulator line is read and judged: at exactly its maximum an OPP is reachable
/// (NanoPi K1 Plus, 4MB5: 1368 MHz at 1400 mV, `vdd-cpux: 1400 mV (1400 mV max)`). The same
/// log edited as a board whose regulator stops one millivolt lower would print it (its kernel
/// then drops 1368 MHz, so neither the policy line nor the OPP check lists it): the top OPP is held by it.
#[test]
fn a_logs_regulator_maximum_is_weighed_against_its_table() {
    let text = logs().into_iter().find(|(n, _)| n == "4MB5.txt").unwrap().1;
    let log = parse(&text);
    let regs = &log.dt_opp.as_ref().unwrap().regulators;
    assert_eq!(regs[0].name, "vdd-cpux");
    let r = to_run_result(&log, "4MB5.txt");
    assert!(r.envelope.inventory.clusters[0].opp_limits.is_empty());
    let lowered: String = text
        .replace(
            "vdd-cpux: 1400 mV (1400 mV max)",
            "vdd-cpux: 1300 mV (1399 mV max)",
        )
        .replace(" 1296 1368)", " 1296)")
        .lines()
        .filter(|l| !l.starts_with("Cpufreq OPP: 1368"))
        .map(|l| format!("{l}\n"))
        .collect();
    let r = to_run_result(&parse(&lowered), "4MB5.txt");
    let l = &r.envelope.inventory.clusters[0].opp_limits;
    assert_eq!(l.len(), 1, "{l:#?}");
    assert_eq!(
        l[0].reason,
        "1368 MHz is never reached: it needs 1.4 V and the regulator vdd-cpux allows at most 1.399 V"
    );
}

/// A device-tree root built from a log (ROCK 5C, 5pv8oh: its three OPP tables with voltages and
/// `opp-supported-hw`, its big clusters' regulators, each policy's offered OPPs) is read by the
/// live reader into the same limits the import finds: one rule for both.
#[test]
fn a_tree_built_from_a_log_reads_as_the_log_judges() {
    use truebench_fixtures::dt::{dt_board, DtBoard, DtCluster, DtOpp, DtRegulator};
    let text = logs()
        .into_iter()
        .find(|(n, _)| n == "5pv8oh.txt")
        .unwrap()
        .1;
    let log = parse(&text);
    let imported = to_run_result(&log, "5pv8oh.txt").envelope.inventory;
    let dt = log.dt_opp.as_ref().unwrap();
    let reg = |name: &str| {
        let r = dt.regulators.iter().find(|r| r.name == name).unwrap();
        DtRegulator {
            name: r.name.clone(),
            min_uv: 550_000,
            max_uv: r.max_mv.unwrap() * 1000,
            now_uv: r.mv * 1000,
            sysfs: true,
        }
    };
    let mut board = DtBoard {
        model: "Radxa ROCK 5C".into(),
        ..Default::default()
    };
    for (k, cl) in imported.clusters.iter().enumerate() {
        let t = dt
            .tables
            .iter()
            .find(|t| t.name == format!("cluster{k}-opp-table"))
            .unwrap();
        let p = log
            .policies
            .iter()
            .find(|p| p.policy == cl.cpus[0])
            .unwrap();
        board.clusters.push(DtCluster {
            cpus: cl.cpus.clone(),
            table: t.name.clone(),
            opps: t
                .rows
                .iter()
                .map(|r| DtOpp {
                    hz: u64::from(r.mhz) * 1_000_000,
                    microvolt: r
                        .mv
                        .iter()
                        .map(|v| (v * 1000.0).round() as u32)
                        .take(1)
                        .collect(),
                    supported_hw: r.supported_hw.clone(),
                })
                .collect(),
            supply: match k {
                1 => Some(reg("vdd_cpu_big0_s0")),
                2 => Some(reg("vdd_cpu_big1_s0")),
                _ => None,
            },
            offered_khz: p.offered_mhz.iter().map(|&m| u64::from(m) * 1000).collect(),
            scaling_max_khz: None,
        });
    }
    let root = dt_board(&board);
    let live = truebench_host::Inventory::probe(&truebench_host::Host::new(root.path()));
    let strip = |v: &[OppLimit]| -> Vec<(Vec<u32>, Limit)> {
        v.iter()
            .map(|l| (l.opps_mhz.clone(), l.limit.clone()))
            .collect()
    };
    assert_eq!(live.clusters.len(), 3);
    for (a, b) in live.clusters.iter().zip(&imported.clusters) {
        assert!(!b.opp_limits.is_empty(), "cluster {:?}", b.cpus);
        assert_eq!(
            strip(&a.opp_limits),
            strip(&b.opp_limits),
            "cluster {:?}",
            a.cpus
        );
        assert!(a.opp_limits[0]
            .source
            .starts_with("proc/device-tree/cluster"));
    }
}
