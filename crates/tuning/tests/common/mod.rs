//! A hand-built root modelled on a Radxa ROCK 5B (RK3588: policy0 = cpu0-3 Cortex-A55,
//! policy4 = cpu4-5 and policy6 = cpu6-7 Cortex-A76; cpufreq-dt, OPPs from the sbc-bench
//! rk3588-5.10.110 OPP table), plus a devfreq memory controller, the PCIe ASPM policy and a
//! file of arbitrary bytes. Values are as the kernel shows them (trailing newlines, the space
//! before the newline in lists, `<unsupported>` in scaling_setspeed).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

pub const CPU: &str = "sys/devices/system/cpu";
pub const P0: &str = "sys/devices/system/cpu/cpufreq/policy0";
pub const P4: &str = "sys/devices/system/cpu/cpufreq/policy4";
pub const P6: &str = "sys/devices/system/cpu/cpufreq/policy6";
pub const ASPM: &str = "sys/module/pcie_aspm/parameters/policy";
pub const DMC: &str = "sys/class/devfreq/dmc/governor";
pub const ODD: &str = "sys/kernel/odd_bytes";

fn put(root: &Path, rel: &str, content: &[u8]) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, content).unwrap();
}

fn policy(root: &Path, dir: &str, cpus: &str, opps: &[u64], cur: u64) {
    let list = opps.iter().map(|o| format!("{o} ")).collect::<String>();
    let (lo, hi) = (opps[0], *opps.last().unwrap());
    for (f, v) in [
        ("related_cpus", format!("{cpus}\n")),
        ("affected_cpus", format!("{cpus}\n")),
        ("cpuinfo_min_freq", format!("{lo}\n")),
        ("cpuinfo_max_freq", format!("{hi}\n")),
        ("scaling_min_freq", format!("{lo}\n")),
        ("scaling_max_freq", format!("{hi}\n")),
        ("scaling_cur_freq", format!("{cur}\n")),
        ("scaling_driver", "cpufreq-dt\n".into()),
        ("scaling_governor", "ondemand\n".into()),
        (
            "scaling_available_governors",
            "conservative ondemand userspace powersave performance schedutil \n".into(),
        ),
        ("scaling_available_frequencies", format!("{list}\n")),
        ("scaling_setspeed", "<unsupported>\n".into()),
    ] {
        put(root, &format!("{dir}/{f}"), v.as_bytes());
    }
}

pub const LITTLE: &[u64] = &[
    408000, 600000, 816000, 1008000, 1200000, 1416000, 1608000, 1800000,
];
pub const BIG: &[u64] = &[
    408000, 600000, 816000, 1008000, 1200000, 1416000, 1608000, 1800000, 2016000, 2208000, 2400000,
];

/// Build the tree in `root`.
pub fn rock5b(root: &Path) {
    put(root, &format!("{CPU}/online"), b"0-7\n");
    put(root, &format!("{CPU}/present"), b"0-7\n");
    put(root, &format!("{CPU}/possible"), b"0-7\n");
    for c in 0..8 {
        if c > 0 {
            put(root, &format!("{CPU}/cpu{c}/online"), b"1\n");
        }
        put(root, &format!("{CPU}/cpu{c}/topology/core_id"), b"0\n");
    }
    policy(root, P0, "0 1 2 3", LITTLE, 1800000);
    policy(root, P4, "4 5", BIG, 2400000);
    policy(root, P6, "6 7", BIG, 2400000);
    put(
        root,
        ASPM,
        b"[default] performance powersave powersupersave \n",
    );
    put(root, DMC, b"dmc_ondemand\n");
    put(
        root,
        "sys/class/devfreq/dmc/available_governors",
        b"dmc_ondemand userspace powersave performance simple_ondemand\n",
    );
    put(root, ODD, b"\xff\x00 no newline %=\r");
}

pub fn temp_rock5b() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    rock5b(d.path());
    d
}

/// Every file and symlink below `root` with its content, except truebench's own state.
pub fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
            if rel.starts_with("var/lib/truebench") {
                continue;
            }
            let ft = e.file_type().unwrap();
            if ft.is_symlink() {
                let t = fs::read_link(&p).unwrap();
                out.insert(rel, format!("-> {}", t.display()).into_bytes());
            } else if ft.is_dir() {
                walk(base, &p, out);
            } else {
                out.insert(rel, fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Paths whose content differs between two snapshots.
pub fn changed(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .cloned()
        .collect()
}

pub fn read(root: &Path, rel: &str) -> String {
    String::from_utf8_lossy(&fs::read(root.join(rel)).unwrap()).into_owned()
}

pub fn journal(root: &Path) -> std::path::PathBuf {
    root.join("var/lib/truebench/tuning.journal")
}
