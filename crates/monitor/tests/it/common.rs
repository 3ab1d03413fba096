//! Hand-made roots shared by the monitor's tests, each modelled on a real machine.

#![allow(dead_code)]

use std::fs;
use std::path::Path;

pub fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// Three hwmon chips:
/// - a Jetson Nano's INA3221 (mainline `ina3221`): rails labelled on in1-in3 (POM_5V_IN,
///   POM_5V_GPU, POM_5V_CPU), currents curr1-curr3 unlabelled, shunt voltages in4-in6 and the
///   summed current curr4 — V×A for the three rails, nothing for the sum;
/// - an INA226 on an SBC's 5 V input (`ina2xx`: in0 shunt, in1 bus, curr1, power1) — its own
///   power1, not V×A;
/// - an AMD EPYC's `amd_energy` socket counter (energy17_input, label Esocket0, µJ).
pub fn power_board(root: &Path) {
    let c = "sys/devices/system/cpu";
    write(root, &format!("{c}/present"), "0-3\n");
    write(root, &format!("{c}/online"), "0-3\n");
    write(root, "proc/stat", "cpu  100 0 50 1000 0 0 0 0 0 0\n");
    let ina3221 = "sys/class/hwmon/hwmon0";
    write(root, &format!("{ina3221}/name"), "ina3221\n");
    for (i, label, mv, ma) in [
        (1, "POM_5V_IN", 5072, 1230),
        (2, "POM_5V_GPU", 5072, 40),
        (3, "POM_5V_CPU", 5072, 320),
    ] {
        write(
            root,
            &format!("{ina3221}/in{i}_label"),
            &format!("{label}\n"),
        );
        write(root, &format!("{ina3221}/in{i}_input"), &format!("{mv}\n"));
        write(
            root,
            &format!("{ina3221}/curr{i}_input"),
            &format!("{ma}\n"),
        );
        write(root, &format!("{ina3221}/in{}_input", i + 3), "40\n");
    }
    write(root, &format!("{ina3221}/curr4_input"), "1590\n");
    let ina226 = "sys/class/hwmon/hwmon1";
    write(root, &format!("{ina226}/name"), "ina226\n");
    write(root, &format!("{ina226}/in0_input"), "2\n");
    write(root, &format!("{ina226}/in1_input"), "5120\n");
    write(root, &format!("{ina226}/curr1_input"), "850\n");
    write(root, &format!("{ina226}/power1_input"), "4352000\n");
    let amd = "sys/class/hwmon/hwmon2";
    write(root, &format!("{amd}/name"), "amd_energy\n");
    write(root, &format!("{amd}/energy17_label"), "Esocket0\n");
    write(root, &format!("{amd}/energy17_input"), "1000000\n");
}

/// A two-CPU board with one SATA disk (sda, two partitions), an NVMe disk, an idle loop
/// device, eth0 and lo — lines from Prometheus procfs' recorded /proc files — plus PSI.
pub fn io_board(root: &Path) {
    let c = "sys/devices/system/cpu";
    write(root, &format!("{c}/present"), "0-1\n");
    write(root, &format!("{c}/online"), "0-1\n");
    write(
        root,
        "proc/stat",
        "cpu  200 0 100 2000 0 0 10 0 0 0\ncpu0 100 0 50 1000 0 0 5 0 0 0\ncpu1 100 0 50 1000 0 0 5 0 0 0\n",
    );
    write(
        root,
        "proc/diskstats",
        "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0\n   8       0 sda 25354637 34367663 1003346126 18492372 28444756 11134226 505697032 63877960 0 9653652 82621804\n   8       1 sda1 1 0 8 0 0 0 0 0 0 0 0\n   8       2 sda2 5 0 40 0 0 0 0 0 0 0 0\n 259       0 nvme0n1 47114 4 4643973 21650 1078320 43950 39451633 1011053 0 222766 1032546\n",
    );
    net(root, 874354587, 1036395);
    softirqs(root, 55919, 28694);
    write(
        root,
        "proc/pressure/cpu",
        "some avg10=0.10 avg60=2.00 avg300=3.85 total=15\n",
    );
    write(
        root,
        "proc/pressure/io",
        "some avg10=0.10 avg60=2.00 avg300=3.85 total=15\nfull avg10=0.20 avg60=3.00 avg300=4.95 total=25\n",
    );
    write(
        root,
        "proc/meminfo",
        "MemTotal: 4000000 kB\nMemFree: 1000000 kB\nMemAvailable: 3000000 kB\nCached: 1500000 kB\nDirty: 768 kB\nWriteback: 0 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n",
    );
}

pub fn net(root: &Path, eth0_rx: u64, eth0_rx_packets: u64) {
    write(
        root,
        "proc/net/dev",
        &format!("Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n    lo: 1664039048 1566805    0    0    0     0          0         0 1664039048 1566805    0    0    0     0       0          0\n  eth0: {eth0_rx} {eth0_rx_packets}    0    0    0     0          0         0 563352563  732147    0    0    0     0       0          0\n"),
    );
}

pub fn softirqs(root: &Path, rx0: u64, rx1: u64) {
    write(
        root,
        "proc/softirqs",
        &format!("                    CPU0       CPU1       \n          HI:          3          0\n       TIMER:    2776180     247490\n      NET_TX:       2419        772\n      NET_RX:      {rx0}      {rx1}\n       BLOCK:     174915     262755\n"),
    );
}

/// A Rockchip RK3588 board's devfreq devices (Mali GPU, DMC) and the PCIe ASPM policy, as a
/// Radxa ROCK 5B with a vendor kernel shows them.
pub fn devfreq_board(root: &Path) {
    let g = "sys/class/devfreq/fb000000.gpu";
    write(root, &format!("{g}/governor"), "simple_ondemand\n");
    write(
        root,
        &format!("{g}/available_governors"),
        "userspace powersave performance simple_ondemand\n",
    );
    write(root, &format!("{g}/cur_freq"), "300000000\n");
    write(
        root,
        &format!("{g}/available_frequencies"),
        "300000000 1000000000\n",
    );
    write(root, "sys/class/devfreq/dmc/governor", "dmc_ondemand\n");
    write(
        root,
        "sys/module/pcie_aspm/parameters/policy",
        "[default] performance powersave powersupersave \n",
    );
    write(
        root,
        "sys/devices/system/cpu/cpu0/cache/index0/size",
        "64K\n",
    );
    write(
        root,
        "sys/devices/system/cpu/cpu0/cache/index0/level",
        "1\n",
    );
    write(root, "proc/sys/kernel/hostname", "rock-5b\n");
}
