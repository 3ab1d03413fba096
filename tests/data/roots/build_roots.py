#!/usr/bin/env python3
"""Build the hand-modelled fixture roots in tests/data/roots/*.ttar.

Each root looks like `/` of one real machine as far as truebench reads it. The values come from
real sbc-bench logs (named in each root's header), real /proc/cpuinfo captures in
tests/data/cpuinfo/, and real OPP tables; what no capture records (kernel build strings, counters,
exact hwmon numbering) is filled in plausibly and said so in the header.

Run from anywhere:  python3 tests/data/roots/build_roots.py
The .ttar files are the fixtures; this script only exists so they can be reviewed and rebuilt.
Python 3 standard library only.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from roots_lib import *  # noqa: F401,F403 (the helpers every board below uses)


OS_UBUNTU_2004_5 = """NAME="Ubuntu"
VERSION="20.04.5 LTS (Focal Fossa)"
ID=ubuntu
ID_LIKE=debian
PRETTY_NAME="Ubuntu 20.04.5 LTS"
VERSION_ID="20.04"
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
VERSION_CODENAME=focal
UBUNTU_CODENAME=focal
"""

# --------------------------------------------------------------------------------------------
# 1. Radxa ROCK 5B (RK3588)


def rk3588_rock5b():
    r = Root("rk3588-rock5b", [
        "models: Radxa ROCK 5B (Rockchip RK3588, 4x Cortex-A55 + 2x2 Cortex-A76), from sbc-bench log 4qJr.txt",
        "  (sbc-bench v0.9.39, Armbian 23.02.2 'Rock 5B' on Ubuntu 20.04.5, kernel 5.10.110-rockchip-rk3588)",
        "sources of the values:",
        "- cpufreq policies 0/4/6, OPP lists, governor ondemand, current clocks 1800/2400/2400: log",
        "  ('Original governor settings', 'CPU sysfs topology', 'Checking cpufreq OPP'); the same OPPs",
        "  are in sbc-bench opp-tables rk3588-5.10.110-*.txt; driver cpufreq-dt (Rockchip BSP)",
        "- thermal zones: soc-thermal is thermal_zone0 ('Thermal source' line); the other six zone",
        "  names from the 'Hardware sensors' hwmon names (bigcore0_thermal ...); temperatures from the",
        "  first sensors block (40.7 C etc.); soc-thermal crit 115 C from sensors, its two passive",
        "  trips (75/85 C, hyst 2 C) from the RK3588 BSP device tree; the other zones have no trips",
        "  (sensors shows no crit for them); zone order after soc-thermal and policy power_allocator",
        "  follow the BSP dtsi (assumed)",
        "- hwmon tcpm_source_psy_4_0022 (in0 5.00 V, curr1 3.00 A): log; hwmon numbering assumed",
        "- /proc/cpuinfo: no RK3588 capture exists in the corpus; composed in the arm64 format of",
        "  the RK3576-6.1.75 capture with the MIDRs the log's lscpu reports (A55 r2p0 = 0x41/0x2/",
        "  0xd05/0, A76 r4p0 = 0x41/0x4/0xd0b/0), its BogoMIPS 48.00 and Flags line",
        "- swap: /dev/zram0 8048172 kB prio 5, lzo-rle, 8 streams, 4K data/74B compressed/12K total",
        "  (log 'Swap configuration'); zram1 is Armbian's /var/log zram (in iostat, not a swap)",
        "- memory: 'free' shows 15Gi total, 15719 MB available in the summary; load 0.31 0.13 0.05",
        "  and uptime 1 min from the log's Uptime line; /proc/stat counters are plausible, not captured",
        "- DT model/compatible: log 'DT compat: radxa,rock-5b rockchip,rk3588'; model as the log title",
        "- /proc/version build string and cpufreq stats counters: plausible, not captured",
        "for `truebench review`:",
        "- devfreq dmc/fb000000.gpu/fdab0000.npu with their governors and OPPs, the GPU power_policy",
        "  '[coarse_demand] always_on' and ASPM '[default] ...': the 'Status of performance related",
        "  governors/policies' of 4D0a.txt (Orange Pi 5, the same RK3588 BSP kernel family; 4qJr.txt",
        "  shows the same devices after sbc-bench switched them to performance)",
        "- USB storage: Norelsys NS1066 bridge (2537:1066) on USB 3 bound to usb-storage, because",
        "  4qJr's kernel command line carries Armbian's quirk usb-storage.quirks=0x2537:0x1066:u",
        "  (UAS off); disk sda and its mount on /mnt/usb: plausible",
        "- NVMe SSD (Samsung 970 EVO Plus, 144d:a808) at 8 GT/s x4 and the RTL8125B 2.5GbE (10ec:8125,",
        "  driver r8125, eth0) at 5 GT/s x1 on the ROCK 5B's two PCIe controllers; bus addresses,",
        "  interrupt counts (eth0 served by cpu0) and THP/swappiness values: plausible, not captured",
    ])
    n = 8
    little = [0, 1, 2, 3]
    big0 = [4, 5]
    big1 = [6, 7]
    r.file("proc/cpuinfo", "".join(
        f"processor\t: {c}\nBogoMIPS\t: 48.00\n"
        "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp\n"
        "CPU implementer\t: 0x41\nCPU architecture: 8\n"
        + ("CPU variant\t: 0x2\nCPU part\t: 0xd05\n" if c < 4 else "CPU variant\t: 0x4\nCPU part\t: 0xd0b\n")
        + "CPU revision\t: 0\n\n"
        for c in range(n)) + "Serial\t\t: 0000000000000000\n")
    device_tree(r, "Radxa ROCK 5B", ["radxa,rock-5b", "rockchip,rk3588"])
    cpus_online(r, n)
    cpu_online_files(r, n)
    for cl, cpus in enumerate([little, big0, big1]):
        for k, c in enumerate(cpus):
            topology(r, c, n, core_id=k, package=cl, core_sibs=cpus, thread_sibs=[c], style="5.10-arm")
    govs = ["conservative", "ondemand", "userspace", "powersave", "performance", "schedutil"]
    f_l = [408000, 600000, 816000, 1008000, 1200000, 1416000, 1608000, 1800000]
    f_b = f_l + [2016000, 2208000, 2256000, 2304000, 2352000, 2400000]
    uptime = 77.2
    policy(r, 0, little, driver="cpufreq-dt", governor="ondemand", governors=govs, freqs=f_l,
           cur=1800000, minf=408000, maxf=1800000, latency=40000,
           stats=(tis(f_l, {408000: 70, 816000: 6, 1416000: 4, 1800000: 20}, int(uptime * 100)), 1536))
    for pid, cpus in ((4, big0), (6, big1)):
        policy(r, pid, cpus, driver="cpufreq-dt", governor="ondemand", governors=govs, freqs=f_b,
               cur=2400000, minf=408000, maxf=2400000, latency=40000,
               stats=(tis(f_b, {408000: 82, 1008000: 3, 1800000: 3, 2400000: 12}, int(uptime * 100)), 884))
    zones = [
        ("soc-thermal", 40740, [(75000, "passive", 2000), (85000, "passive", 2000), (115000, "critical", 2000)]),
        ("bigcore0-thermal", 40740, []),
        ("bigcore1-thermal", 40740, []),
        ("littlecore-thermal", 40740, []),
        ("center-thermal", 40740, []),
        ("gpu-thermal", 39815, []),
        ("npu-thermal", 40740, []),
    ]
    for k, (ty, temp, trips) in enumerate(zones):
        thermal_zone(r, k, ty, temp, trips=trips, policy="power_allocator", hwmon=k, hwmon_crit=True)
    hwmon(r, 7, "platform/feab0000.i2c/i2c-4/4-0022/power_supply/tcpm-source-psy-4-0022",
          "tcpm_source_psy_4_0022",
          {"in0_input": 5000, "in0_min": 5000, "in0_max": 5000, "curr1_input": 3000, "curr1_max": 3000},
          glue=False)
    total = 16096256
    r.file("proc/meminfo", meminfo(total, 15626240, 15094016, 10240, 92160, 8048172, 8048172, shmem=9216))
    r.file("proc/swaps", swaps([("/dev/zram0", "partition", 8048172, 0, 5)], new_format=False))
    zram(r, "zram0", algorithms=["lzo", "lzo-rle", "lz4", "lz4hc", "zstd"], algorithm="lzo-rle",
         disksize=8241328128, streams=8, mm_stat="    4096       74    12288        0    12288        0        0        0")
    zram(r, "zram1", algorithms=["lzo", "lzo-rle", "lz4", "lz4hc", "zstd"], algorithm="zstd",
         disksize=52428800, streams=8, mm_stat=" 3862528   454872  1060864        0  1060864      141        0        0")
    block(r, "mmcblk1", "platform/fe2c0000.mmc/mmc_host/mmc1/mmc1:aaaa", rotational=0,
          size_sectors=15523840, partitions=[("mmcblk1p1", 1, 32768, 15491072)])
    r.line("sys/devices/platform/fe2c0000.mmc/mmc_host/mmc1/mmc1:aaaa/type", "SD")
    r.line("sys/devices/platform/fe2c0000.mmc/mmc_host/mmc1/mmc1:aaaa/name", "SL08G")
    mhz = 1000000
    devfreq(r, "dmc", "dmc", "dmc_ondemand",
            ["rknpu_ondemand", "dmc_ondemand", "userspace", "powersave", "performance", "simple_ondemand"],
            [528 * mhz, 1068 * mhz, 1560 * mhz, 2112 * mhz], 528 * mhz)
    gpu_npu_govs = ["rknpu_ondemand", "dmc_ondemand", "userspace", "powersave", "performance", "simple_ondemand"]
    devfreq(r, "fb000000.gpu", "fb000000.gpu", "simple_ondemand", gpu_npu_govs,
            [f * 100 * mhz for f in range(3, 11)], 300 * mhz)
    devfreq(r, "fdab0000.npu", "fdab0000.npu", "rknpu_ondemand", gpu_npu_govs,
            [f * 100 * mhz for f in range(3, 11)], 300 * mhz)
    r.rw("sys/devices/platform/fb000000.gpu/power_policy", "[coarse_demand] always_on")
    aspm_policy(r, "[default] performance powersave powersupersave")
    mm_settings(r, "always [madvise] never", "always defer defer+madvise [madvise] never", 100)
    port0 = pci_device(r, "platform/fe150000.pcie/pci0000:00", "0000:00:00.0", cls="0x060400",
                       vendor="0x1d87", device="0x3588", speed="8.0 GT/s PCIe", width=4,
                       max_speed="8.0 GT/s PCIe", max_width=4, driver="pcieport")
    nvme = pci_device(r, port0, "0000:01:00.0", cls="0x010802", vendor="0x144d", device="0xa808",
                      speed="8.0 GT/s PCIe", width=4, max_speed="8.0 GT/s PCIe", max_width=4, driver="nvme")
    block(r, "nvme0n1", f"{nvme}/nvme/nvme0", rotational=0, size_sectors=976773168,
          partitions=[("nvme0n1p1", 1, 2048, 976771120)], glue=False)
    r.line(f"sys/devices/{nvme}/nvme/nvme0/model", "Samsung SSD 970 EVO Plus 500GB")
    r.link(f"sys/devices/{nvme}/nvme/nvme0/device", "../..")
    mmc1 = "sys/devices/platform/fe2c0000.mmc/mmc_host/mmc1/mmc1:aaaa"
    r.link(f"{mmc1}/driver", "../" * (mmc1.count("/") + 1) + "sys/bus/mmc/drivers/mmcblk")
    bus_driver(r, "mmc", "mmcblk")
    r.rw("sys/devices/" + nvme + "/nvme/nvme0/nvme0n1/queue/scheduler", "[none] mq-deadline kyber bfq")
    r.rw("sys/devices/" + nvme + "/nvme/nvme0/nvme0n1/queue/read_ahead_kb", 128)
    port4 = pci_device(r, "platform/fe190000.pcie/pci0004:40", "0004:40:00.0", cls="0x060400",
                       vendor="0x1d87", device="0x3588", speed="5.0 GT/s PCIe", width=1,
                       max_speed="8.0 GT/s PCIe", max_width=1, driver="pcieport")
    eth = pci_device(r, port4, "0004:41:00.0", cls="0x020000", vendor="0x10ec", device="0x8125",
                     speed="5.0 GT/s PCIe", width=1, max_speed="5.0 GT/s PCIe", max_width=1, driver="r8125")
    net_iface(r, "eth0", eth, driver="r8125", speed=2500, duplex="full")
    interrupts(r, n, [
        (26, [1045, 0, 0, 0, 0, 0, 0, 0], "GICv3  26 Level", "arch_timer"),
        (95, [831442, 0, 0, 0, 0, 0, 0, 0], "ITS-MSI 68681472 Edge", "eth0"),
        (96, [20131, 0, 0, 0, 0, 0, 0, 0], "ITS-MSI 524288 Edge", "nvme0q0"),
    ])
    usb_iface = usb_device(r, "platform/usbdrd3_0/fc000000.usb/xhci-hcd.3.auto/usb8", "8-1",
                           speed=5000, version=" 3.10", vendor="2537", product="1066",
                           manufacturer="Norelsys", name="NS1066", iface_driver="usb-storage")
    block(r, "sda", f"{usb_iface}/host0/target0:0:0/0:0:0:0", rotational=0, size_sectors=500118192,
          partitions=[("sda1", 1, 2048, 500116144)])
    r.line(f"sys/devices/{usb_iface}/host0/target0:0:0/0:0:0:0/model", "NS1066")
    r.file("proc/mounts", "/dev/mmcblk1p1 / ext4 rw,noatime,errors=remount-ro,commit=600 0 0\n"
           "proc /proc proc rw,relatime 0 0\n"
           "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
           "/dev/nvme0n1p1 /srv ext4 rw,relatime 0 0\n"
           "/dev/sda1 /mnt/usb ext4 rw,relatime 0 0\n")
    r.file("proc/stat", proc_stat(n, uptime, 0.06, 1678724402, ctxt=412311, processes=1893))
    loadavg_uptime(r, (0.31, 0.13, 0.05), "1/246", 1893, uptime, 590.11)
    kernel(r, "5.10.110-rockchip-rk3588",
           "Linux version 5.10.110-rockchip-rk3588 (root@armbian) (aarch64-linux-gnu-gcc (GNU Toolchain for the A-profile Architecture 8.3-2019.03 (arm-rel-8.36)) 8.3.0, GNU ld (GNU Toolchain for the A-profile Architecture 8.3-2019.03 (arm-rel-8.36)) 2.32.0.20190321) #23.02.2 SMP Fri Feb 17 23:59:20 UTC 2023")
    r.file("etc/os-release", OS_UBUNTU_2004_5)
    r.file("etc/armbian-release", """# PLEASE DO NOT EDIT THIS FILE
BOARD=rock-5b
BOARD_NAME="Rock 5B"
BOARDFAMILY=rockchip-rk3588
BUILD_REPOSITORY_URL=https://github.com/armbian/build
VERSION=23.02.2
LINUXFAMILY=rockchip-rk3588
ARCH=arm64
IMAGE_TYPE=stable
BOARD_TYPE=conf
INITRD_ARCH=arm64
KERNEL_IMAGE_TYPE=Image
BRANCH=legacy
""")
    r.write()


# --------------------------------------------------------------------------------------------
# 2. Raspberry Pi 4 Model B (BCM2711)

OS_RASPBIAN_11 = """PRETTY_NAME="Raspbian GNU/Linux 11 (bullseye)"
NAME="Raspbian GNU/Linux"
VERSION_ID="11"
VERSION="11 (bullseye)"
VERSION_CODENAME=bullseye
ID=raspbian
ID_LIKE=debian
HOME_URL="http://www.raspbian.org/"
SUPPORT_URL="http://www.raspbian.org/RaspbianForums"
BUG_REPORT_URL="http://www.raspbian.org/RaspbianBugs"
"""


def rpi4b():
    r = Root("rpi4b", [
        "models: Raspberry Pi 4 Model B Rev 1.4 (BCM2711, 4x Cortex-A72), from sbc-bench logs 3L37.txt",
        "  (Raspbian 11 bullseye, kernel 5.10.63-v8+), 3EhG.txt/3InF.txt (stock 1800 MHz OPPs) and",
        "  2Cyi.txt (dphys-swapfile swap only)",
        "sources of the values:",
        "- /proc/cpuinfo: the real capture BCM2711B0-5.10.63-v8.cpuinfo (Revision d03114 = Pi 4B Rev 1.4)",
        "- OPPs 600..1800 MHz in 100 MHz steps: 'Checking cpufreq OPP' of 3EhG.txt/3InF.txt; driver",
        "  cpufreq-dt (instantiated by raspberrypi-cpufreq), governor ondemand (Raspberry Pi OS default)",
        "- thermal: one zone cpu-thermal with no trip points (3L37's sensors shows cpu_thermal without",
        "  crit, which the thermal hwmon shows whenever a critical trip exists); hwmon cpu_thermal and",
        "  rpi_volt (in0_lcrit_alarm only, shown as 'in0: N/A' in 3L37's sensors output)",
        "- swap: /var/swap file 102396 kB prio -2 (dphys-swapfile default, 3EgS/3L37/2Cyi) on the SD",
        "  card (mmcblk0, device type SD)",
        "- zswap parameters (enabled N, lzo): assumed for the Raspberry Pi 5.10 kernel",
        "- memory 4 GB-class values ('Mem: 3.7Gi' in 3L37); counters and temps plausible, not captured",
        "for `truebench review`:",
        "- /boot/config.txt: the 'ThreadX configuration (/boot/config.txt)' block of 3L37 verbatim",
        "  (an overclocked Pi 4: arm_freq=2300, over_voltage=15, gpu_mem=128)",
        "- get_throttled 0 (3L37's rpi_volt alarm is 0 as well); the SD card's CID (SanDisk ids, date,",
        "  serial), the VL805 USB 3 controller at 5 GT/s x1, eth0 (bcmgenet, 1000 Mbit/s full) and its",
        "  interrupt counts: plausible, not captured",
    ])
    n = 4
    r.file("proc/cpuinfo", capture("BCM2711B0-5.10.63-v8.cpuinfo"))
    device_tree(r, "Raspberry Pi 4 Model B Rev 1.4", ["raspberrypi,4-model-b", "brcm,bcm2711"])
    cpus_online(r, n)
    cpu_online_files(r, n)
    for c in range(n):
        topology(r, c, n, core_id=c, package=0, core_sibs=range(n), thread_sibs=[c], style="5.10-arm")
    f = [600000 + 100000 * k for k in range(13)]
    uptime = 61440.0
    policy(r, 0, list(range(n)), driver="cpufreq-dt", governor="ondemand",
           governors=["conservative", "ondemand", "userspace", "powersave", "performance", "schedutil"],
           freqs=f, cur=600000, minf=600000, maxf=1800000, latency=355000,
           stats=(tis(f, {600000: 90, 700000: 1, 1000000: 1, 1500000: 1, 1800000: 7}, int(uptime * 100)), 48213))
    thermal_zone(r, 0, "cpu-thermal", 42355, trips=[], hwmon=0)
    hwmon(r, 1, "platform/soc/soc:firmware/raspberrypi-hwmon", "rpi_volt", {"in0_lcrit_alarm": 0})
    total = 3885212
    r.file("proc/meminfo", meminfo(total, 3422840, 3556612, 30712, 249448, 102396, 102396, shmem=9216))
    r.file("proc/swaps", swaps([("/var/swap", "file", 102396, 0, -2)], new_format=False))
    # The mount table tells which block device holds /var/swap (Raspberry Pi OS: root on
    # the SD card's second partition).
    r.file("proc/mounts", "/dev/mmcblk0p2 / ext4 rw,noatime 0 0\n"
           "devtmpfs /dev devtmpfs rw,relatime,size=1800032k,nr_inodes=450008,mode=755 0 0\n"
           "proc /proc proc rw,relatime 0 0\n"
           "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
           "/dev/mmcblk0p1 /boot/firmware vfat rw,relatime,fmask=0022,dmask=0022,codepage=437,iocharset=ascii,shortname=mixed,errors=remount-ro 0 0\n"
           "tmpfs /run tmpfs rw,nosuid,nodev,size=779296k,nr_inodes=819200,mode=755 0 0\n")
    block(r, "mmcblk0", "platform/emmc2bus/fe340000.mmc/mmc_host/mmc0/mmc0:aaaa", rotational=0,
          size_sectors=62333952,
          partitions=[("mmcblk0p1", 1, 8192, 524288), ("mmcblk0p2", 2, 532480, 61801472)])
    r.line("sys/devices/platform/emmc2bus/fe340000.mmc/mmc_host/mmc0/mmc0:aaaa/type", "SD")
    r.line("sys/devices/platform/emmc2bus/fe340000.mmc/mmc_host/mmc0/mmc0:aaaa/name", "SC32G")
    card = "sys/devices/platform/emmc2bus/fe340000.mmc/mmc_host/mmc0/mmc0:aaaa"
    r.line(f"{card}/manfid", "0x000003")
    r.line(f"{card}/oemid", "0x5344")
    r.line(f"{card}/serial", "0x6b2f8e31")
    r.line(f"{card}/date", "08/2021")
    r.file("boot/config.txt", "disable_overscan=0\nframebuffer_width=1920\nframebuffer_height=1080\n"
           "hdmi_force_hotplug=1\nhdmi_group=1\nhdmi_mode=6\nhdmi_drive=2\ndtparam=i2c_arm=on\n"
           "dtparam=audio=on\n[pi4]\ndtoverlay=vc4-fkms-v3d\nmax_framebuffers=2\nusb_max_power=1\n"
           "arm_freq=2300\nover_voltage=15\ngpu_mem=128\nv3d_freq=700\nh264_freq=550\narm_64bit=1\n"
           "disable_avs=1\n[all]\n")
    r.line("sys/devices/platform/soc/soc:firmware/get_throttled", "0")
    pci_device(r, "platform/scb/fd500000.pcie/pci0000:00/0000:00:00.0", "0000:01:00.0", cls="0x0c0330",
               vendor="0x1106", device="0x3483", speed="5.0 GT/s PCIe", width=1,
               max_speed="5.0 GT/s PCIe", max_width=1, driver="xhci_hcd")
    net_iface(r, "eth0", "platform/scb/fd580000.ethernet", driver="bcmgenet", speed=1000, duplex="full")
    interrupts(r, n, [(31, [2254781, 0, 0, 0], "GICv2 189 Level", "eth0"),
                      (32, [0, 0, 0, 0], "GICv2 190 Level", "eth0")])
    zswap(r, "N", "lzo")
    r.file("proc/stat", proc_stat(n, uptime, 0.008, 1641282700, ctxt=28834120, processes=44120))
    loadavg_uptime(r, (0.08, 0.05, 0.01), "1/163", 44120, uptime, 244150.30)
    kernel(r, "5.10.63-v8+",
           "Linux version 5.10.63-v8+ (dom@buildbot) (aarch64-linux-gnu-gcc-8 (Ubuntu/Linaro 8.4.0-3ubuntu1) 8.4.0, GNU ld (GNU Binutils for Ubuntu) 2.34) #1459 SMP PREEMPT Wed Oct 6 16:42:49 BST 2021")
    r.file("etc/os-release", OS_RASPBIAN_11)
    r.write()


# --------------------------------------------------------------------------------------------
# 3. Raspberry Pi 5 (BCM2712)

OS_DEBIAN_12 = """PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION="12 (bookworm)"
VERSION_CODENAME=bookworm
ID=debian
HOME_URL="https://www.debian.org/"
SUPPORT_URL="https://www.debian.org/support"
BUG_REPORT_URL="https://bugs.debian.org/"
"""


def rpi5():
    r = Root("rpi5", [
        "models: Raspberry Pi 5 Model B Rev 1.0 (BCM2712, 4x Cortex-A76), from sbc-bench log 1ULtUe.txt",
        "  (Debian 12 bookworm / Raspberry Pi OS, kernel 6.6.20+rpt-rpi-2712, arm_freq_min=1500) with the",
        "  fan of 8-NK.txt (pwmfan, Active Cooler)",
        "sources of the values:",
        "- /proc/cpuinfo: the real capture BCM2712-6.1.47.cpuinfo (Revision d04170, Pi 5 Rev 1.0)",
        "- OPPs 1500..2400 MHz in 100 MHz steps: 1ULtUe's 'Checking cpufreq OPP'; cpufreq-dt, ondemand",
        "- thermal: cpu-thermal = thermal_zone0 ('Thermal source'); trips: critical 110 C (sensors",
        "  'crit = +110.0 C' in 4JAv.txt) and the four fan trips of the Pi 5 device tree (50/60/67.5/75 C,",
        "  active, hyst 5 C)",
        "- hwmon: cpu_thermal, rp1_adc (in1..in4 946 mV/2.53 V/1.38 V/1.45 V, temp1 34.6 C) and sht4x",
        "  (19.0 C, 49.7 %RH, an I2C sensor on this board) from 1ULtUe; pwmfan (fan1 0 RPM) from 8-NK.",
        "  rpi_volt is deliberately absent: none of the 8 Pi 5 logs in the corpus lists it",
        "- swap: /dev/zram0 767984 kB prio 75 (1ULtUe); the 6.x /proc/swaps column layout (both logs)",
        "- 6.6 topology files: physical_package_id 0 and cluster_id 0 for all CPUs (arm64 since 6.x)",
        "- 8 GB-class memory, counters, hwmon numbering and device paths: plausible, not captured",
        "for `truebench review`:",
        "- /boot/firmware/config.txt: the 'ThreadX configuration' block of 1ULtUe verbatim (arm_boost=1)",
        "- get_throttled 0x0; RP1 (1de4:0001) at 5 GT/s x4 on PCIe: plausible, not captured",
    ])
    n = 4
    r.file("proc/cpuinfo", capture("BCM2712-6.1.47.cpuinfo"))
    device_tree(r, "Raspberry Pi 5 Model B Rev 1.0", ["raspberrypi,5-model-b", "brcm,bcm2712"])
    cpus_online(r, n)
    cpu_online_files(r, n)
    for c in range(n):
        topology(r, c, n, core_id=c, package=0, core_sibs=range(n), thread_sibs=[c], style="6.6-arm", cluster=0)
    f = [1500000 + 100000 * k for k in range(10)]
    uptime = 1412.6
    policy(r, 0, list(range(n)), driver="cpufreq-dt", governor="ondemand",
           governors=["conservative", "ondemand", "userspace", "powersave", "performance", "schedutil"],
           freqs=f, cur=1500000, minf=1500000, maxf=2400000, latency=355000,
           stats=(tis(f, {1500000: 88, 1800000: 1, 2100000: 1, 2400000: 10}, int(uptime * 100)), 3977))
    thermal_zone(r, 0, "cpu-thermal", 25350, trips=[
        (110000, "critical", 0), (50000, "active", 5000), (60000, "active", 5000),
        (67500, "active", 5000), (75000, "active", 5000)], hwmon=0)
    axi = "platform/axi/1000120000.pcie/1f00000000.rp1"
    hwmon(r, 1, f"{axi}/1f000c8000.adc", "rp1_adc",
          {"in1_input": 946, "in2_input": 2530, "in3_input": 1380, "in4_input": 1450, "temp1_input": 34600})
    hwmon(r, 2, "platform/cooling_fan", "pwmfan", {"fan1_input": 0, "pwm1": 0, "pwm1_enable": 1})
    hwmon(r, 3, f"{axi}/1f00074000.i2c/i2c-1/1-0044", "sht4x",
          {"temp1_input": 19000, "humidity1_input": 49700})
    total = 8245456
    r.file("proc/meminfo", meminfo(total, 7501136, 7792224, 40128, 431216, 767984, 767984, shmem=24880))
    r.file("proc/swaps", swaps([("/dev/zram0", "partition", 767984, 0, 75)], new_format=True))
    zram(r, "zram0", algorithms=["lzo", "lzo-rle", "lz4", "lz4hc", "zstd"], algorithm="lz4",
         disksize=786415616, streams=4, mm_stat="    4096       68    12288        0    12288        0        0        0        0")
    block(r, "mmcblk0", "platform/axi/1000fff000.mmc/mmc_host/mmc0/mmc0:59b4", rotational=0,
          size_sectors=124735488,
          partitions=[("mmcblk0p1", 1, 8192, 1048576), ("mmcblk0p2", 2, 1056768, 123678720)])
    r.line("sys/devices/platform/axi/1000fff000.mmc/mmc_host/mmc0/mmc0:59b4/type", "SD")
    r.file("proc/stat", proc_stat(n, uptime, 0.02, 1710870127, ctxt=1204418, processes=5412))
    loadavg_uptime(r, (0.12, 0.21, 0.14), "1/227", 5412, uptime, 5544.02)
    r.file("boot/firmware/config.txt", "dtparam=i2c_arm=on\ndtoverlay=i2c-sensor,sht4x\ndtoverlay=dwc2\n"
           "dtparam=audio=on\ncamera_auto_detect=1\ndisplay_auto_detect=1\nauto_initramfs=1\n"
           "max_framebuffers=1\ndisable_fw_kms_setup=1\narm_64bit=1\ndisable_overscan=1\narm_boost=1\n"
           "[cm4]\notg_mode=1\n[all]\n")
    r.line("sys/devices/platform/soc/soc:firmware/get_throttled", "0")
    pci_device(r, "platform/axi/1000120000.pcie/pci0002:00/0002:00:00.0", "0002:01:00.0", cls="0x020000",
               vendor="0x1de4", device="0x0001", speed="5.0 GT/s PCIe", width=4,
               max_speed="5.0 GT/s PCIe", max_width=4, driver="rp1")
    kernel(r, "6.6.20+rpt-rpi-2712",
           "Linux version 6.6.20+rpt-rpi-2712 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT Debian 1:6.6.20-1+rpt1 (2024-03-07)")
    r.file("etc/os-release", OS_DEBIAN_12)
    r.write()


# --------------------------------------------------------------------------------------------
# 4. Orange Pi Zero 2 (Allwinner H616, BSP kernel 4.9)

OS_DEBIAN_10 = """PRETTY_NAME="Debian GNU/Linux 10 (buster)"
NAME="Debian GNU/Linux"
VERSION_ID="10"
VERSION="10 (buster)"
VERSION_CODENAME=buster
ID=debian
HOME_URL="https://www.debian.org/"
SUPPORT_URL="https://www.debian.org/support"
BUG_REPORT_URL="https://bugs.debian.org/"
"""


def h616_opizero2():
    r = Root("h616-opizero2", [
        "models: Orange Pi Zero 2 (Allwinner H616, 4x Cortex-A53), from sbc-bench log 4knM.txt",
        "  (Debian 10 buster from orangepi-build 2.2.0, Allwinner BSP kernel 4.9.170-sun50iw9, 1 GB RAM)",
        "sources of the values:",
        "- /proc/cpuinfo: the real capture Allwinner-H616-4.9.255-sun50iw9.cpuinfo (same BSP, 4.9.255)",
        "- OPPs 480/600/792/1008/1200/1512 MHz: 4knM 'Checking cpufreq OPP' (the OPP table",
        "  sun50iw9p1-h616-4.9.255-Orange_Pi_Zero_2.txt has more rows, selected by speed bin)",
        "- thermal: cpu_thermal_zone is thermal_zone0 ('Thermal source' in 4knM, 4M8N, 4MLz); the BSP",
        "  also registers gpu_thermal_zone, ve_thermal_zone, ddr_thermal_zone (the mainline names seen",
        "  in 4bSf.txt are cpu/gpu/ve/ddr too); trip points are assumed; no hwmon entries are modelled",
        "  (the log has no sensors output)",
        "- DT: 'DT compat: allwinner,h616 arm,sun50iw9p1' from the log; model 'sun50iw9' as the BSP",
        "  device tree sets it",
        "- 4.9 topology attributes (no core_cpus/package_cpus/die_* yet)",
        "- swap: /dev/zram1 491632 kB prio 5 (zram0 is the BSP's /var/log zram, not a swap)",
        "- memory 'Mem: 960Mi', load 1.78 2.00 1.47, uptime 18 min, 61.2 C: the log's header",
    ])
    n = 4
    r.file("proc/cpuinfo", capture("Allwinner-H616-4.9.255-sun50iw9.cpuinfo"))
    device_tree(r, "sun50iw9", ["allwinner,h616", "arm,sun50iw9p1"])
    cpus_online(r, n)
    cpu_online_files(r, n)
    for c in range(n):
        topology(r, c, n, core_id=c, package=0, core_sibs=range(n), thread_sibs=[c], style="4.9")
    f = [480000, 600000, 792000, 1008000, 1200000, 1512000]
    uptime = 1104.3
    policy(r, 0, list(range(n)), driver="cpufreq-dt", governor="ondemand",
           governors=["conservative", "userspace", "powersave", "ondemand", "performance", "schedutil"],
           freqs=f, cur=1512000, minf=480000, maxf=1512000, latency=2000000,
           stats=(tis(f, {480000: 30, 600000: 3, 1008000: 5, 1512000: 62}, int(uptime * 100)), 2861))
    base_trips = [(70000, "passive", 0), (90000, "passive", 0), (100000, "passive", 0), (110000, "critical", 0)]
    thermal_zone(r, 0, "cpu_thermal_zone", 61200, trips=base_trips, available="user_space step_wise power_allocator")
    for k, (ty, t) in enumerate([("gpu_thermal_zone", 59800), ("ve_thermal_zone", 60100), ("ddr_thermal_zone", 60500)], 1):
        thermal_zone(r, k, ty, t, trips=[(110000, "critical", 0)], available="user_space step_wise power_allocator")
    total = 983260
    r.file("proc/meminfo", meminfo(total, 797900, 845880, 12544, 53264, 491632, 491632, shmem=2048))
    r.file("proc/swaps", swaps([("/dev/zram1", "partition", 491632, 0, 5)], new_format=False))
    zram(r, "zram0", algorithms=["lzo", "lz4", "lz4hc", "deflate"], algorithm="lz4",
         disksize=52428800, streams=4, mm_stat=" 1572864   108432   266240        0   266240       38        0")
    zram(r, "zram1", algorithms=["lzo", "lz4", "lz4hc", "deflate"], algorithm="lzo",
         disksize=503431168, streams=4, mm_stat="    4096       73    12288        0    12288        0        0")
    block(r, "mmcblk0", "platform/soc/sdmmc@04020000/mmc_host/mmc0/mmc0:aaaa", rotational=0,
          size_sectors=62333952, partitions=[("mmcblk0p1", 1, 8192, 62325760)])
    r.line("sys/devices/platform/soc/sdmmc@04020000/mmc_host/mmc0/mmc0:aaaa/type", "SD")
    r.file("proc/stat", proc_stat(n, uptime, 0.18, 1672895617, ctxt=1823770, processes=6105))
    loadavg_uptime(r, (1.78, 2.00, 1.47), "3/132", 6105, uptime, 3603.51)
    kernel(r, "4.9.170-sun50iw9",
           "Linux version 4.9.170-sun50iw9 (root@orangepi) (gcc version 5.4.0 (Linaro GCC 5.4-2017.05) ) #2.2.0 SMP PREEMPT Tue Aug 2 19:48:20 CST 2022")
    r.file("etc/os-release", OS_DEBIAN_10)
    r.file("etc/orangepi-release", """# PLEASE DO NOT EDIT THIS FILE
BOARD=orangepizero2
BOARD_NAME="Orange Pi Zero 2"
BOARDFAMILY=sun50iw9
BUILD_REPOSITORY_URL=https://github.com/orangepi-xunlong/orangepi-build
VERSION=2.2.0
LINUXFAMILY=sun50iw9
ARCH=arm64
IMAGE_TYPE=user-built
BOARD_TYPE=conf
INITRD_ARCH=arm64
KERNEL_IMAGE_TYPE=Image
BRANCH=legacy
""")
    r.write()


# --------------------------------------------------------------------------------------------
# 5. Hardkernel ODROID-N2+ (Amlogic S922X)


def s922x_odroidn2():
    r = Root("s922x-odroidn2", [
        "models: Hardkernel ODROID-N2+ (Amlogic S922X, 2x Cortex-A53 + 4x Cortex-A73), from sbc-bench",
        "  log 3R1a.txt (Armbian 21.08.8 meson64 on Ubuntu 20.04.4, kernel 5.10.81-meson64, 4 GB)",
        "sources of the values:",
        "- /proc/cpuinfo: the real capture Amlogic-S922X-5.10.81-meson64.cpuinfo (the same kernel)",
        "- OPPs: 3R1a 'Checking cpufreq OPP' (A53 100..2016 MHz, A73 100..2400 MHz); the voltage",
        "  table amlogic-g12b-5.10.139-Hardkernel_ODROID_N2Plus.txt lists the same OPPs >= 1000 MHz",
        "- clusters: policy0 = cpu0-1, policy2 = cpu2-5 (log topology table)",
        "- thermal: cpu-thermal and ddr-thermal (hwmon cpu_thermal/ddr_thermal in 3DtN/3LoH sensors,",
        "  'Thermal source: /sys/class/hwmon/hwmon0/ (cpu_thermal)' in 3R1a); crit 110 C from the",
        "  sensors output; passive 85 C and hot 95 C trips from the mainline meson-g12 device tree",
        "- DT model/compatible as the mainline meson-g12b-odroid-n2-plus.dts ('Hardkernel ODROID-N2Plus'",
        "  is also the log title)",
        "- swap: /dev/zram0 1953764 kB prio 5; /etc/armbian-release: the 'Armbian release info' block",
        "  of the log, verbatim",
    ])
    n = 6
    r.file("proc/cpuinfo", capture("Amlogic-S922X-5.10.81-meson64.cpuinfo"))
    device_tree(r, "Hardkernel ODROID-N2Plus", ["hardkernel,odroid-n2-plus", "amlogic,s922x", "amlogic,g12b"])
    cpus_online(r, n)
    cpu_online_files(r, n)
    for cl, cpus in enumerate([[0, 1], [2, 3, 4, 5]]):
        for k, c in enumerate(cpus):
            topology(r, c, n, core_id=k, package=cl, core_sibs=cpus, thread_sibs=[c], style="5.10-arm")
    govs = ["conservative", "ondemand", "userspace", "powersave", "performance", "schedutil"]
    low = [100000, 250000, 500000, 667000, 1000000, 1200000, 1398000, 1512000, 1608000, 1704000, 1800000, 1908000]
    f0 = low + [2016000]
    f2 = low + [2016000, 2108000, 2208000, 2304000, 2400000]
    uptime = 305.0
    policy(r, 0, [0, 1], driver="cpufreq-dt", governor="ondemand", governors=govs, freqs=f0,
           cur=1000000, minf=100000, maxf=2016000, latency=50000,
           stats=(tis(f0, {100000: 10, 1000000: 60, 1908000: 5, 2016000: 25}, int(uptime * 100)), 1204))
    policy(r, 2, [2, 3, 4, 5], driver="cpufreq-dt", governor="ondemand", governors=govs, freqs=f2,
           cur=1000000, minf=100000, maxf=2400000, latency=50000,
           stats=(tis(f2, {100000: 12, 1000000: 60, 2400000: 28}, int(uptime * 100)), 1733))
    trips_cpu = [(85000, "passive", 2000), (95000, "hot", 2000), (110000, "critical", 2000)]
    trips_ddr = [(85000, "passive", 2000), (110000, "critical", 2000)]
    thermal_zone(r, 0, "cpu-thermal", 41200, trips=trips_cpu, hwmon=0, hwmon_crit=True)
    thermal_zone(r, 1, "ddr-thermal", 43800, trips=trips_ddr, hwmon=1, hwmon_crit=True)
    total = 3907516
    r.file("proc/meminfo", meminfo(total, 3580544, 3650600, 21504, 173056, 1953764, 1953764, shmem=10240))
    r.file("proc/swaps", swaps([("/dev/zram0", "partition", 1953764, 0, 5)], new_format=False))
    zram(r, "zram0", algorithms=["lzo", "lzo-rle", "lz4", "lz4hc", "zstd"], algorithm="lzo-rle",
         disksize=2000654336, streams=6, mm_stat="    4096       74    12288        0    12288        0        0        0")
    zram(r, "zram1", algorithms=["lzo", "lzo-rle", "lz4", "lz4hc", "zstd"], algorithm="zstd",
         disksize=52428800, streams=6, mm_stat=" 1847296   310244   925696        0   925696       67        0        0")
    block(r, "mmcblk1", "platform/soc/ffe07000.mmc/mmc_host/mmc1/mmc1:0001", rotational=0,
          size_sectors=61071360, partitions=[("mmcblk1p1", 1, 32768, 61038592)])
    r.line("sys/devices/platform/soc/ffe07000.mmc/mmc_host/mmc1/mmc1:0001/type", "MMC")
    r.file("proc/stat", proc_stat(n, uptime, 0.05, 1646067526, ctxt=212044, processes=1390))
    loadavg_uptime(r, (0.48, 0.20, 0.07), "1/177", 1390, uptime, 1731.20)
    kernel(r, "5.10.81-meson64",
           "Linux version 5.10.81-meson64 (root@builder) (aarch64-linux-gnu-gcc (GNU Toolchain for the A-profile Architecture 8.3-2019.03 (arm-rel-8.36)) 8.3.0, GNU ld (GNU Toolchain for the A-profile Architecture 8.3-2019.03 (arm-rel-8.36)) 2.32.0.20190321) #21.08.8 SMP PREEMPT Mon Dec 20 14:10:38 UTC 2021")
    r.file("etc/os-release", OS_UBUNTU_2004_5.replace("20.04.5", "20.04.4"))
    r.file("etc/armbian-release", """# PLEASE DO NOT EDIT THIS FILE
BOARD=odroidn2
BOARD_NAME="Odroid N2"
BOARDFAMILY=meson-g12b
BUILD_REPOSITORY_URL=https://github.com/armbian/build
BUILD_REPOSITORY_COMMIT=d7794cc7b-dirty
VERSION=21.08.8
LINUXFAMILY=meson64
ARCH=arm64
IMAGE_TYPE=user-built
BOARD_TYPE=conf
INITRD_ARCH=arm64
KERNEL_IMAGE_TYPE=Image
BRANCH=current
""")
    r.write()


# --------------------------------------------------------------------------------------------
# 5b. Amlogic TV box with eMMC (S905X3)


def s905x3_x96maxplus():
    r = Root("s905x3-x96maxplus", [
        "models: AMedia X96 Max+ TV box (Amlogic S905X3, 4x Cortex-A55, eMMC), from sbc-bench log 3QOj.txt",
        "  (sbc-bench v0.9.3, Armbian 22.02.0-trunk 'lepotato' build on Ubuntu 20.04.4, flippy's kernel",
        "  5.15.25-flippy-70+, 4 GB)",
        "sources of the values:",
        "- /proc/cpuinfo: no S905X3 capture exists in the corpus; composed in the arm64 format with the",
        "  log's lscpu (Cortex-A55 r1p0 = 0x41/0x1/0xd05/0, BogoMIPS 48.00, its Flags line)",
        "- OPPs 100..2100 MHz: the log's 'Checking cpufreq OPP' (666 MHz as the mainline sm1 dtsi's",
        "  666666 kHz); one policy for cpu0-3 (topology table); driver cpufreq-dt; governor ondemand with",
        "  the kernel's ondemand defaults (up_threshold 80, sampling_down_factor 1, io_is_busy 0)",
        "- thermal: cpu-thermal with hwmon0 cpu_thermal ('Thermal source'), 48.9 C from the first sample",
        "- swap: /dev/zram0 1957364 kB prio 5 (log); eMMC mmcblk2 with boot0/boot1 (log's iostat)",
        "- /boot/config-5.15.25-flippy-70+: the CONFIG_ lines the log prints under 'Kernel:'",
        "- DT model/compatible: the log title and the mainline sm1 compatible; eMMC CID (a Samsung",
        "  BJTD4R), the NTFS USB disk mounted through FUSE, counters: plausible, not captured",
    ])
    n = 4
    r.file("proc/cpuinfo", "".join(
        f"processor\t: {c}\nBogoMIPS\t: 48.00\n"
        "Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp\n"
        "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x1\nCPU part\t: 0xd05\nCPU revision\t: 0\n\n"
        for c in range(n)))
    device_tree(r, "AMedia X96 Max+", ["amediatech,x96-max-plus", "amlogic,sm1"])
    cpus_online(r, n)
    cpu_online_files(r, n)
    for c in range(n):
        topology(r, c, n, core_id=c, package=0, core_sibs=range(n), thread_sibs=[c], style="5.10-arm")
    f = [100000, 250000, 500000, 666666, 1000000, 1200000, 1404000, 1500000, 1608000, 1704000, 1800000,
         1908000, 2016000, 2100000]
    uptime = 5940.0
    policy(r, 0, list(range(n)), driver="cpufreq-dt", governor="ondemand",
           governors=["conservative", "ondemand", "userspace", "powersave", "performance", "schedutil"],
           freqs=f, cur=1000000, minf=100000, maxf=2100000, latency=50000,
           stats=(tis(f, {100000: 20, 1000000: 60, 2100000: 20}, int(uptime * 100)), 3120))
    od = "sys/devices/system/cpu/cpufreq/ondemand"
    r.rw(f"{od}/io_is_busy", 0)
    r.rw(f"{od}/up_threshold", 80)
    r.rw(f"{od}/sampling_rate", 50000)
    r.rw(f"{od}/sampling_down_factor", 1)
    thermal_zone(r, 0, "cpu-thermal", 48900, trips=[(85000, "passive", 2000), (110000, "critical", 2000)],
                 hwmon=0, hwmon_crit=True)
    total = 3880000
    r.file("proc/meminfo", meminfo(total, 3460000, 3670000, 20000, 212000, 1957364, 1957364, shmem=6144))
    r.file("proc/swaps", swaps([("/dev/zram0", "partition", 1957364, 0, 5)], new_format=False))
    zram(r, "zram0", algorithms=["lzo", "lzo-rle", "lz4", "lz4hc", "zstd"], algorithm="lzo-rle",
         disksize=2004340736, streams=4, mm_stat="    4096       74    12288        0    12288        0        0        0")
    emmc = "platform/soc/ffe07000.mmc/mmc_host/mmc2/mmc2:0001"
    block(r, "mmcblk2", emmc, rotational=0, size_sectors=61071360,
          partitions=[("mmcblk2p1", 1, 139264, 1048576), ("mmcblk2p2", 2, 1187840, 59883520)])
    for k, v in {"type": "MMC", "name": "BJTD4R", "manfid": "0x000015", "oemid": "0x0100",
                 "serial": "0x5a3c71e2", "date": "11/2020"}.items():
        r.line(f"sys/devices/{emmc}/{k}", v)
    r.link(f"sys/devices/{emmc}/driver", "../" * (f"sys/devices/{emmc}".count("/") + 1) + "sys/bus/mmc/drivers/mmcblk")
    bus_driver(r, "mmc", "mmcblk")
    usb_iface = usb_device(r, "platform/soc/ffe09000.usb/ff500000.usb/xhci-hcd.0.auto/usb1", "1-1",
                           speed=480, version=" 3.20", vendor="174c", product="55aa",
                           manufacturer="ASMedia", name="ASM1153E", iface_driver="uas")
    block(r, "sda", f"{usb_iface}/host0/target0:0:0/0:0:0:0", rotational=1, size_sectors=1953525168,
          partitions=[("sda1", 1, 2048, 1953523120)])
    r.file("proc/mounts", "/dev/mmcblk2p2 / ext4 rw,noatime,errors=remount-ro 0 0\n"
           "/dev/mmcblk2p1 /boot vfat rw,relatime 0 0\n"
           "proc /proc proc rw,relatime 0 0\n"
           "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
           "/dev/sda1 /mnt/media fuseblk rw,relatime,user_id=0,group_id=0,allow_other,blksize=4096 0 0\n")
    r.file("boot/config-5.15.25-flippy-70+", "CONFIG_HZ=300\nCONFIG_HZ_300=y\nCONFIG_HZ_PERIODIC=y\n"
           "CONFIG_PREEMPTION=y\nCONFIG_PREEMPT=y\nCONFIG_PREEMPT_COUNT=y\nCONFIG_PREEMPT_NOTIFIERS=y\n"
           "CONFIG_PREEMPT_RCU=y\n")
    r.file("proc/stat", proc_stat(n, uptime, 0.05, 1645882846, ctxt=1320044, processes=5120))
    loadavg_uptime(r, (0.83, 0.27, 0.09), "1/133", 5120, uptime, 23100.50)
    kernel(r, "5.15.25-flippy-70+",
           "Linux version 5.15.25-flippy-70+ (root@UBUNTU) (aarch64-linux-gnu-gcc (GNU Toolchain for the A-profile Architecture 10.3-2021.07 (arm-10.29)) 10.3.1 20210621, GNU ld (GNU Toolchain for the A-profile Architecture 10.3-2021.07 (arm-10.29)) 2.36.1.20210621) #1 SMP PREEMPT Thu Feb 24 11:22:10 CST 2022")
    r.file("etc/os-release", OS_UBUNTU_2004_5.replace("20.04.5", "20.04.4"))
    r.write()


# --------------------------------------------------------------------------------------------
# 6. Intel laptop (Comet Lake-U)

OS_UBUNTU_2204_1 = """PRETTY_NAME="Ubuntu 22.04.1 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.1 LTS (Jammy Jellyfish)"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
UBUNTU_CODENAME=jammy
"""

CML_FLAGS = ("fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush dts acpi mmx "
             "fxsr sse sse2 ss ht tm pbe syscall nx pdpe1gb rdtscp lm constant_tsc art arch_perfmon pebs bts "
             "rep_good nopl xtopology nonstop_tsc cpuid aperfmperf pni pclmulqdq dtes64 monitor ds_cpl vmx est "
             "tm2 ssse3 sdbg cx16 xtpr pdcm pcid sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave "
             "rdrand lahf_lm abm 3dnowprefetch cpuid_fault epb invpcid_single ssbd ibrs ibpb stibp "
             "ibrs_enhanced tpr_shadow vnmi flexpriority ept vpid ept_ad fsgsbase tsc_adjust smep erms invpcid "
             "mpx rdseed smap clflushopt intel_pt xsaveopt xsavec xgetbv1 xsaves dtherm arat pln pts hwp "
             "hwp_notify hwp_act_window hwp_epp md_clear flush_l1d arch_capabilities")


def x86_intel_laptop():
    r = Root("x86-intel-laptop", [
        "models: an Intel Comet Lake-U laptop (Celeron 5205U, 2 cores, no SMT, intel_pstate with HWP),",
        "  CPU, kernel and sensors from sbc-bench log 4eiM.txt (Ubuntu 22.04.1, kernel 5.15.0-52-generic),",
        "  sysfs file layout of intel_pstate and thermal_throttle from the real i7-1165G7 laptop dump",
        "  tests/data/sysfs-dumps/x86_64-64cpu-linux6.2.tar.gz",
        "sources of the values:",
        "- /proc/cpuinfo: composed from 4eiM's lscpu (family 6, model 166, stepping 0, BogoMIPS 3799.90,",
        "  Flags, 39/48 address bits, caches 2 MiB L3) in the x86 cpuinfo format; microcode, cpuid level",
        "  and 'bugs'/'vmx flags' lines are plausible, not captured",
        "- cpufreq: intel_pstate, min 400 MHz, max = base 1900 MHz (no turbo on this SKU) from 4eiM; one",
        "  policy per CPU, no scaling_available_frequencies, no cpuinfo_cur_freq, no stats (as in the dump)",
        "- thermal zones: x86_pkg_temp is thermal_zone3 ('Thermal source' of 4eiM); acpitz (crit 119 C),",
        "  pch_cannonlake and iwlwifi_1 appear in 4eiM's sensors output; 'INT3400 Thermal' (DPTF, no",
        "  hwmon) added as laptops have it; zone numbering besides zone3 assumed",
        "- hwmon coretemp: 'Package id 0', 'Core 0', 'Core 1' with high = crit = 100 C (4eiM); nvme",
        "  Composite/Sensor 1/Sensor 2 with its limits from 4f3I.txt; BAT0 in0 like BAT1 of 4E5J.txt",
        "- RAPL: intel-rapl:0 package-0 / core / uncore and intel-rapl:1 psys; energy_uj readable by",
        "  root only (mode 0400 since the 2020 PLATYPUS fix); values plausible",
        "- DMI: BIOS vendor/version/date from 4eiM (American Megatrends 5.17, 08/05/2022); sys_vendor,",
        "  product_name and board_name are ILLUSTRATIVE (4eiM's machine reported none)",
        "- swap on an NVMe partition (/dev/nvme0n1p3) and zswap parameters: modelled, not from 4eiM",
        "for `truebench review` (all modelled, not from 4eiM): ASPM powersupersave (what TLP sets on",
        "  battery), the KIOXIA BG4 (1e0f:0001, PCIe 3 x4) link, an Intel CNVi Wi-Fi wlp0s20f3 (iwlwifi)",
        "  and an NTFS USB disk mounted through FUSE (ntfs-3g, as Ubuntu 22.04 mounts one by default)",
    ])
    n = 2
    blocks = []
    for c in range(n):
        blocks.append(
            f"processor\t: {c}\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 166\n"
            "model name\t: Intel(R) Celeron(R) CPU 5205U @ 1.90GHz\nstepping\t: 0\nmicrocode\t: 0xf0\n"
            f"cpu MHz\t\t: {1900.000 if c else 1899.990:.3f}\ncache size\t: 2048 KB\nphysical id\t: 0\nsiblings\t: 2\n"
            f"core id\t\t: {c}\ncpu cores\t: 2\napicid\t\t: {2 * c}\ninitial apicid\t: {2 * c}\nfpu\t\t: yes\n"
            "fpu_exception\t: yes\ncpuid level\t: 22\nwp\t\t: yes\n"
            f"flags\t\t: {CML_FLAGS}\n"
            "vmx flags\t: vnmi preemption_timer invvpid ept_x_only ept_ad ept_1gb flexpriority tsc_offset vtpr "
            "mtf vapic ept vpid unrestricted_guest ple pml ept_mode_based_exec\n"
            "bugs\t\t: spectre_v1 spectre_v2 spec_store_bypass swapgs itlb_multihit mmio_stale_data retbleed\n"
            "bogomips\t: 3799.90\nclflush size\t: 64\ncache_alignment\t: 64\n"
            "address sizes\t: 39 bits physical, 48 bits virtual\npower management:\n\n")
    r.file("proc/cpuinfo", "".join(blocks))
    cpus_online(r, n, kernel_max=8191)
    cpu_online_files(r, n, hotpluggable_cpu0=False)
    for c in range(n):
        topology(r, c, n, core_id=c, package=0, core_sibs=range(n), thread_sibs=[c], style="5.15-x86")
        tt = f"sys/devices/system/cpu/cpu{c}/thermal_throttle"
        r.line(f"{tt}/core_throttle_count", 0)
        r.line(f"{tt}/core_throttle_max_time_ms", 0)
        r.line(f"{tt}/core_throttle_total_time_ms", 0)
        r.line(f"{tt}/package_throttle_count", 0)
        r.line(f"{tt}/package_throttle_max_time_ms", 0)
        r.line(f"{tt}/package_throttle_total_time_ms", 0)
        policy(r, c, [c], driver="intel_pstate", governor="powersave", governors=["performance", "powersave"],
               freqs=None, cur=1899990 if c == 0 else 1900000, minf=400000, maxf=1900000,
               extra={"base_frequency": 1900000,
                      "energy_performance_available_preferences": "default performance balance_performance balance_power power ",
                      "energy_performance_preference": "balance_performance"})
    ip = "sys/devices/system/cpu/intel_pstate"
    r.rw(f"{ip}/status", "active")
    r.rw(f"{ip}/no_turbo", 1)
    r.rw(f"{ip}/max_perf_pct", 100)
    r.rw(f"{ip}/min_perf_pct", 21)
    r.rw(f"{ip}/hwp_dynamic_boost", 0)
    r.line(f"{ip}/num_pstates", 16)
    r.line(f"{ip}/turbo_pct", 0)
    zones = [
        (0, "acpitz", 27800, [(119000, "critical", 0)], 0),
        (1, "INT3400 Thermal", 20000, [], None),
        (2, "pch_cannonlake", 32000, [], 1),
        (3, "x86_pkg_temp", 35000, [(0, "passive", 0), (0, "passive", 0)], None),
        (4, "iwlwifi_1", 41000, [], 3),
    ]
    for k, ty, temp, trips, hw in zones:
        thermal_zone(r, k, ty, temp, trips=trips, hwmon=hw, hwmon_crit=(ty == "acpitz"),
                     policy="user_space" if ty == "INT3400 Thermal" else "step_wise",
                     available="power_allocator user_space step_wise bang_bang fair_share")
    hwmon(r, 2, "platform/coretemp.0", "coretemp", {
        "temp1_label": "Package id 0", "temp1_input": 35000, "temp1_max": 100000, "temp1_crit": 100000,
        "temp1_crit_alarm": 0,
        "temp2_label": "Core 0", "temp2_input": 35000, "temp2_max": 100000, "temp2_crit": 100000,
        "temp2_crit_alarm": 0,
        "temp3_label": "Core 1", "temp3_input": 34000, "temp3_max": 100000, "temp3_crit": 100000,
        "temp3_crit_alarm": 0,
    })
    nvme = "pci0000:00/0000:00:1d.0/0000:02:00.0/nvme/nvme0"
    hwmon(r, 4, nvme, "nvme", {
        "temp1_label": "Composite", "temp1_input": 43850, "temp1_alarm": 0, "temp1_min": -150,
        "temp1_max": 82850, "temp1_crit": 83850,
        "temp2_label": "Sensor 1", "temp2_input": 36850, "temp2_min": -273150, "temp2_max": 65261850,
        "temp3_label": "Sensor 2", "temp3_input": 38850, "temp3_min": -273150, "temp3_max": 65261850,
    }, glue=False)
    bat = "LNXSYSTM:00/LNXSYBUS:00/PNP0A08:00/device:1c/PNP0C09:00/PNP0C0A:00/power_supply/BAT0"
    hwmon(r, 5, bat, "BAT0", {"in0_input": 12390}, glue=False)
    r.line(f"sys/devices/{bat}/status", "Discharging")
    r.line(f"sys/devices/{bat}/capacity", 87)
    r.line(f"sys/devices/{bat}/type", "Battery")
    r.link("sys/class/power_supply/BAT0", f"../../devices/{bat}")
    ac = "LNXSYSTM:00/LNXSYBUS:00/ACPI0003:00/power_supply/AC"
    r.line(f"sys/devices/{ac}/online", 0)
    r.line(f"sys/devices/{ac}/type", "Mains")
    r.link("sys/class/power_supply/AC", f"../../devices/{ac}")
    rapl = "virtual/powercap/intel-rapl"
    for node, name, energy, rng in [
        ("intel-rapl:0", "package-0", 58239018541, 262143328850),
        ("intel-rapl:0/intel-rapl:0:0", "core", 21872011373, 262143328850),
        ("intel-rapl:0/intel-rapl:0:1", "uncore", 801224630, 262143328850),
        ("intel-rapl:1", "psys", 117330211892, 262143328850),
    ]:
        d = f"sys/devices/{rapl}/{node}"
        r.line(f"{d}/name", name)
        r.line(f"{d}/energy_uj", energy, 0o400)
        r.line(f"{d}/max_energy_range_uj", rng)
        r.rw(f"{d}/enabled", 1)
        r.link(f"sys/class/powercap/{node.split('/')[-1]}", f"../../devices/{rapl}/{node}")
    r.line(f"sys/devices/{rapl}/enabled", 1, 0o644)
    dmi = "sys/devices/virtual/dmi/id"
    for k, v in [("bios_vendor", "American Megatrends Inc."), ("bios_version", "5.17"),
                 ("bios_date", "08/05/2022"), ("bios_release", "5.17"),
                 ("sys_vendor", "Notebook"), ("product_name", "N14C"),
                 ("board_vendor", "Notebook"), ("board_name", "N14C"),
                 ("chassis_type", 10), ("chassis_vendor", "Notebook")]:
        r.line(f"{dmi}/{k}", v)
    r.link("sys/class/dmi/id", "../../devices/virtual/dmi/id")
    total = 7963344
    r.file("proc/meminfo", meminfo(total, 6560540, 6702308, 70656, 594944, 2097148, 2097148, shmem=338944, arch="x86"))
    r.file("proc/swaps", swaps([("/dev/nvme0n1p3", "partition", 2097148, 0, -2)], new_format=True))
    block(r, "nvme0n1", nvme, rotational=0, size_sectors=500118192, glue=False,
          partitions=[("nvme0n1p1", 1, 2048, 1048576), ("nvme0n1p2", 2, 1050624, 494872576),
                      ("nvme0n1p3", 3, 495923200, 4194296)])
    r.line(f"sys/devices/{nvme}/model", "KBG40ZNS256G NVMe KIOXIA 256GB")
    r.link(f"sys/devices/{nvme}/device", "../..")
    pci_device(r, "pci0000:00/0000:00:1d.0", "0000:02:00.0", cls="0x010802", vendor="0x1e0f",
               device="0x0001", speed="8.0 GT/s PCIe", width=4, max_speed="8.0 GT/s PCIe",
               max_width=4, driver="nvme")
    r.line("sys/devices/pci0000:00/0000:00:1d.0/max_link_speed", "8.0 GT/s PCIe")
    aspm_policy(r, "default performance powersave [powersupersave]")
    wifi = "pci0000:00/0000:00:14.3"
    r.line(f"sys/devices/{wifi}/class", "0x028000")
    net_iface(r, "wlp0s20f3", wifi, driver="iwlwifi", speed=-1, duplex="unknown")
    r.file(f"sys/devices/{wifi}/net/wlp0s20f3/wireless/.keep", "")
    r.file("proc/mounts", "/dev/nvme0n1p2 / ext4 rw,relatime,errors=remount-ro 0 0\n"
           "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
           "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
           "/dev/nvme0n1p1 /boot/efi vfat rw,relatime,fmask=0077,dmask=0077 0 0\n"
           "/dev/sda1 /media/user/Backup fuseblk rw,nosuid,nodev,relatime,user_id=0,group_id=0,default_permissions,allow_other,blksize=4096 0 0\n")
    zswap(r, "N", "lzo")
    uptime = 14402.5
    r.file("proc/stat", proc_stat(n, uptime, 0.10, 1666935510, ctxt=35514290, processes=61290))
    loadavg_uptime(r, (0.00, 0.36, 0.80), "1/412", 61290, uptime, 25925.11)
    kernel(r, "5.15.0-52-generic",
           "Linux version 5.15.0-52-generic (buildd@lcy02-amd64-045) (gcc (Ubuntu 11.2.0-19ubuntu1) 11.2.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #58-Ubuntu SMP Thu Oct 13 08:03:55 UTC 2022")
    r.file("etc/os-release", OS_UBUNTU_2204_1)
    r.write()


# --------------------------------------------------------------------------------------------
# 7. AMD Ryzen desktop


ZEN3_FLAGS = ("fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse "
              "sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good nopl nonstop_tsc "
              "cpuid extd_apicid aperfmperf rapl pni pclmulqdq monitor ssse3 fma cx16 sse4_1 sse4_2 movbe "
              "popcnt aes xsave avx f16c rdrand lahf_lm cmp_legacy svm extapic cr8_legacy abm sse4a "
              "misalignsse 3dnowprefetch osvw ibs skinit wdt tce topoext perfctr_core perfctr_nb bpext "
              "perfctr_llc mwaitx cpb cat_l3 cdp_l3 hw_pstate ssbd mba ibrs ibpb stibp vmmcall fsgsbase bmi1 "
              "avx2 smep bmi2 erms invpcid cqm rdt_a rdseed adx smap clflushopt clwb sha_ni xsaveopt xsavec "
              "xgetbv1 xsaves cqm_llc cqm_occup_llc cqm_mbm_total cqm_mbm_local clzero irperf xsaveerptr rdpru "
              "wbnoinvd arat npt lbrv svm_lock nrip_save tsc_scale vmcb_clean flushbyasid decodeassists "
              "pausefilter pfthreshold avic v_vmsave_vmload vgif v_spec_ctrl umip pku ospke vaes vpclmulqdq "
              "rdpid overflow_recov succor smca fsrm")


def x86_amd_desktop():
    r = Root("x86-amd-desktop", [
        "models: an AMD Ryzen 5 5600X desktop (Zen 3, 6 cores / 12 threads, one CCD) on a board with a",
        "  Nuvoton NCT6798D Super-I/O, Debian 12 with kernel 6.1.0-13-amd64, acpi-cpufreq, swap on a SATA HDD",
        "COMPOSITE: the corpus has no log or dump of a Ryzen desktop. Driver conventions (real):",
        "- k10temp on Zen 3: temp1 'Tctl', temp3 'Tccd1' (chiplet parts), no temp*_max (sensors 'Tctl:'",
        "  without limits as in 4HYd.txt, a Ryzen R1505G)",
        "- the Super-I/O driver nct6775 names the chip 'nct6798' and has in0..in14 / fan1..fan7 / temp*",
        "  inputs with _min/_max/_alarm, as the nct6779 of the Prometheus node_exporter fixtures; the",
        "  older w83627dhg of 4eOo.txt (an Athlon II desktop) shows the same in*/fan* shape",
        "- no CPU thermal zone on AMD desktops (k10temp is hwmon-only) and no acpitz on this board",
        "- acpi-cpufreq: one policy per CPU, three P-states (3700/2800/2200 MHz), boost, time_in_state",
        "  (like the acpi-cpufreq EPYC 7451 dump, whose per-CPU layout this follows)",
        "- /proc/cpuinfo in the format of the EPYC 7451 dump; family 25 model 33 stepping 0, flags of",
        "  a Zen 3 part: plausible, not captured",
        "- swap: partition /dev/sda2 on a rotational disk (sys/block/sda/queue/rotational = 1); the",
        "  system disk is NVMe (hwmon nvme 'Composite' with the limits of 4HYd.txt's drive)",
        "- nct6798 AUXTIN1 reads -62 C, as unconnected Super-I/O inputs do",
        "- DMI values: illustrative",
    ])
    n = 12
    cores = 6
    blocks = []
    for c in range(n):
        core = c % cores
        blocks.append(
            f"processor\t: {c}\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 33\n"
            "model name\t: AMD Ryzen 5 5600X 6-Core Processor\nstepping\t: 0\nmicrocode\t: 0xa201016\n"
            "cpu MHz\t\t: 2200.000\ncache size\t: 512 KB\nphysical id\t: 0\nsiblings\t: 12\n"
            f"core id\t\t: {core}\ncpu cores\t: 6\napicid\t\t: {2 * core + c // cores}\n"
            f"initial apicid\t: {2 * core + c // cores}\nfpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: 16\n"
            f"wp\t\t: yes\nflags\t\t: {ZEN3_FLAGS}\n"
            "bugs\t\t: sysret_ss_attrs spectre_v1 spectre_v2 spec_store_bypass srso\n"
            "bogomips\t: 7386.00\nTLB size\t: 2560 4K pages\nclflush size\t: 64\ncache_alignment\t: 64\n"
            "address sizes\t: 48 bits physical, 48 bits virtual\n"
            "power management: ts ttp tm hwpstate cpb eff_freq_ro [13] [14]\n\n")
    r.file("proc/cpuinfo", "".join(blocks))
    cpus_online(r, n, kernel_max=8191)
    cpu_online_files(r, n, hotpluggable_cpu0=False)
    govs = ["conservative", "ondemand", "userspace", "powersave", "performance", "schedutil"]
    f = [3700000, 2800000, 2200000]
    uptime = 86512.4
    for c in range(n):
        core = c % cores
        sib = [core, core + cores]
        topology(r, c, n, core_id=core, package=0, core_sibs=range(n), thread_sibs=sib, style="5.15-x86")
        r.line(f"sys/devices/system/cpu/cpu{c}/topology/cluster_id", core)
        r.line(f"sys/devices/system/cpu/cpu{c}/topology/cluster_cpus", cpumask(sib, n))
        r.line(f"sys/devices/system/cpu/cpu{c}/topology/cluster_cpus_list", cpulist(sib))
        policy(r, c, [c], driver="acpi-cpufreq", governor="schedutil", governors=govs, freqs=f,
               cur=[2200000, 3700000, 2800000][c % 3], minf=2200000, maxf=3700000, latency=0,
               stats=(tis(f, {3700000: 9, 2800000: 4, 2200000: 87}, int(uptime * 100)), 210000 + 977 * c),
               extra={"freqdomain_cpus": " ".join(map(str, sib)), "bios_limit": 3700000})
    r.rw("sys/devices/system/cpu/cpufreq/boost", 1)
    hwmon(r, 1, "pci0000:00/0000:00:18.3", "k10temp", {
        "temp1_label": "Tctl", "temp1_input": 42250, "temp3_label": "Tccd1", "temp3_input": 40500,
    })
    sio = {}
    vin = [1176, 1008, 3392, 3360, 1016, 1024, 808, 3392, 3328, 1672, 144, 1024, 1040, 936, 1016]
    for k, v in enumerate(vin):
        sio[f"in{k}_input"] = v
        sio[f"in{k}_min"] = 0
        sio[f"in{k}_max"] = 0 if k not in (2, 3, 7, 8) else 3632
        sio[f"in{k}_alarm"] = 0
    for k, rpm in enumerate([0, 1012, 0, 0, 0, 0, 0], 1):
        sio[f"fan{k}_input"] = rpm
        sio[f"fan{k}_min"] = 0
        sio[f"fan{k}_alarm"] = 0
    for k, (t, label) in enumerate([(36000, "SYSTIN"), (42500, "CPUTIN"), (30500, "AUXTIN0"),
                                    (-62000, "AUXTIN1"), (27000, "AUXTIN2"), (26000, "AUXTIN3"),
                                    (42250, "PECI Agent 0 Calibration")], 1):
        sio[f"temp{k}_input"] = t
        sio[f"temp{k}_label"] = label
    sio["pwm2"] = 102
    sio["pwm2_enable"] = 5
    hwmon(r, 2, "platform/nct6775.656", "nct6798", sio)
    dmi = "sys/devices/virtual/dmi/id"
    for k, v in [("bios_vendor", "American Megatrends International, LLC."), ("bios_version", "F36"),
                 ("bios_date", "08/24/2022"), ("sys_vendor", "Gigabyte Technology Co., Ltd."),
                 ("product_name", "B550 AORUS ELITE V2"), ("board_vendor", "Gigabyte Technology Co., Ltd."),
                 ("board_name", "B550 AORUS ELITE V2"), ("chassis_type", 3)]:
        r.line(f"{dmi}/{k}", v)
    r.link("sys/class/dmi/id", "../../devices/virtual/dmi/id")
    total = 32778188
    r.file("proc/meminfo", meminfo(total, 28924496, 30811880, 201768, 2315612, 8388604, 8388604, shmem=84512, arch="x86"))
    r.file("proc/swaps", swaps([("/dev/sda2", "partition", 8388604, 0, -2)], new_format=True))
    sata = "pci0000:00/0000:00:01.2/0000:02:00.1/ata2/host1/target1:0:0/1:0:0:0"
    block(r, "sda", sata, rotational=1, size_sectors=3907029168,
          partitions=[("sda1", 1, 2048, 3890249728), ("sda2", 2, 3890251776, 16777216)])
    r.line(f"sys/devices/{sata}/model", "WDC WD20EZRZ-00Z")
    r.line(f"sys/devices/{sata}/vendor", "ATA     ")
    hwmon(r, 0, "pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme0", "nvme", {
        "temp1_label": "Composite", "temp1_input": 38850, "temp1_alarm": 0, "temp1_min": -5150,
        "temp1_max": 83850, "temp1_crit": 84850,
    }, glue=False)
    block(r, "nvme0n1", "pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme0", rotational=0, glue=False,
          size_sectors=1000215216, partitions=[("nvme0n1p1", 1, 2048, 1048576), ("nvme0n1p2", 2, 1050624, 999163904)])
    zswap(r, "N", "lzo")
    r.file("proc/stat", proc_stat(n, uptime, 0.03, 1700054211, ctxt=412003321, processes=402118))
    loadavg_uptime(r, (0.42, 0.31, 0.25), "1/612", 402118, uptime, 1011342.73)
    kernel(r, "6.1.0-13-amd64",
           "Linux version 6.1.0-13-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 (2023-09-29)")
    r.file("etc/os-release", OS_DEBIAN_12)
    r.write()


# --------------------------------------------------------------------------------------------
# 8. edge cases


def empty():
    r = Root("empty", [
        "An empty root: zero records. Every reader must report 'unknown' with a reason, not panic.",
    ])
    r.write()


def cpuinfo_only():
    r = Root("cpuinfo-only", [
        "A root holding only /proc/cpuinfo: the real capture RK3399-5.15.5-rockchip64.cpuinfo",
        "(Rockchip RK3399, 4x Cortex-A53 + 2x Cortex-A72), byte for byte (it has no final newline,",
        "as stored in the corpus). No /sys at all, like a --cpuinfo FILE run.",
    ])
    with open(os.path.join(DATA, "cpuinfo", "RK3399-5.15.5-rockchip64.cpuinfo")) as f:
        r.file("proc/cpuinfo", f.read())
    r.write()


def main():
    for build in (rk3588_rock5b, rpi4b, rpi5, h616_opizero2, s922x_odroidn2, s905x3_x96maxplus,
                  x86_intel_laptop,
                  x86_amd_desktop, empty, cpuinfo_only):
        build()
    print("wrote", sum(f.endswith(".ttar") for f in os.listdir(HERE)), "roots to", HERE, file=sys.stderr)


if __name__ == "__main__":
    main()
