//! Device, SoC, kernel, architecture, distribution, virtualization.

use super::cpus::{clean_x86_model, CpuPart};
use super::{note, Missing};
use crate::knowledge::{self, glob_match};
use crate::parse::{nul_separated, os_release};
use crate::soc::{self, SocEvidence, SocGuess};
use crate::Host;
use serde::{Deserialize, Serialize};

/// The running kernel as `/proc` names it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Kernel {
    /// `6.1.0-13-arm64`
    pub release: Option<String>,
    /// The whole /proc/version line (compiler, build date).
    pub version: Option<String>,
}

/// Kernel and userland architecture.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Arch {
    /// Kernel architecture as `uname -m` prints it (`aarch64`, `armv7l`, `x86_64`).
    pub kernel: Option<String>,
    /// How the kernel architecture was found.
    pub kernel_source: Option<String>,
    /// Userland architecture in Debian's names (`arm64`, `armhf`, `amd64`), read from the ELF
    /// header of the root's /bin/sh — a 64-bit kernel often runs a 32-bit userland on SBCs.
    pub userland: Option<String>,
}

/// What the machine runs in: bare metal, a VM, a container, WSL.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Virtualization {
    /// `none`, `vm`, `container` or `wsl` — the innermost layer we run in.
    pub kind: String,
    /// That layer's name (`kvm`, `docker`); None when nothing was found.
    pub name: Option<String>,
    /// What showed it (a file and its value), or that no signature was found.
    pub evidence: Option<String>,
    /// Every layer found, innermost first (a container inside a VM has two).
    pub layers: Vec<VirtLayer>,
}

/// One layer of virtualization.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VirtLayer {
    /// `vm`, `container` or `wsl`.
    pub kind: String,
    /// Its name (`kvm`, `docker`, `lxc`).
    pub name: String,
    /// What showed it.
    pub evidence: String,
}

pub(super) struct SystemPart {
    pub device: Option<String>,
    pub compatible: Vec<String>,
    pub soc: Option<SocGuess>,
    pub kernel: Kernel,
    pub arch: Arch,
    pub distro: Option<String>,
    pub virtualization: Virtualization,
}

/// DMI strings vendors leave unfilled.
fn dmi_placeholder(s: &str) -> bool {
    let l = s.to_ascii_lowercase();
    [
        "to be filled",
        "default string",
        "system product name",
        "system manufacturer",
        "not applicable",
        "not specified",
        "none",
        "o.e.m.",
        "oem",
        "123456789",
        "x.x",
    ]
    .iter()
    .any(|p| l == *p || l.starts_with(p))
}

fn dmi(host: &Host, f: &str) -> Option<String> {
    host.read_trimmed(format!("sys/class/dmi/id/{f}"))
        .filter(|s| !dmi_placeholder(s))
}

fn device(host: &Host) -> Option<String> {
    for p in [
        "proc/device-tree/model",
        "sys/firmware/devicetree/base/model",
    ] {
        if let Ok(b) = host.read_bytes(p) {
            if let Some(m) = nul_separated(&b).into_iter().next() {
                return Some(m);
            }
        }
    }
    let vendor = dmi(host, "sys_vendor").or_else(|| dmi(host, "board_vendor"));
    let product = dmi(host, "product_name").or_else(|| dmi(host, "board_name"));
    let version = dmi(host, "product_version");
    match (vendor, product) {
        (Some(v), Some(p)) => {
            let mut s = if p.starts_with(&v) {
                p
            } else {
                format!("{v} {p}")
            };
            if let Some(ver) = version.filter(|ver| ver.len() < 20 && !s.contains(ver.as_str())) {
                s = format!("{s} {ver}");
            }
            Some(s)
        }
        (v, p) => v.or(p),
    }
}

fn dt_compatible(host: &Host) -> Vec<String> {
    [
        "proc/device-tree/compatible",
        "sys/firmware/devicetree/base/compatible",
    ]
    .iter()
    .find_map(|p| host.read_bytes(p).ok())
    .map(|b| nul_separated(&b))
    .unwrap_or_default()
}

/// ELF header → Debian architecture name.
pub fn elf_arch(hdr: &[u8]) -> Option<&'static str> {
    if hdr.len() < 20 || &hdr[..4] != b"\x7fELF" {
        return None;
    }
    let class64 = hdr[4] == 2;
    let le = hdr[5] == 1;
    let half = |o: usize| {
        if le {
            u16::from_le_bytes([hdr[o], hdr[o + 1]])
        } else {
            u16::from_be_bytes([hdr[o], hdr[o + 1]])
        }
    };
    let machine = half(18);
    Some(match (machine, class64) {
        (62, _) => "amd64",
        (3, _) => "i386",
        (183, _) => "arm64",
        (40, _) => {
            // e_flags: EF_ARM_ABI_FLOAT_HARD (0x400) tells armhf from armel.
            let flags_off = 36;
            if hdr.len() >= flags_off + 4 {
                let f = u32::from_le_bytes([
                    hdr[flags_off],
                    hdr[flags_off + 1],
                    hdr[flags_off + 2],
                    hdr[flags_off + 3],
                ]);
                if f & 0x400 != 0 {
                    "armhf"
                } else {
                    "armel"
                }
            } else {
                "arm"
            }
        }
        (243, true) => "riscv64",
        (243, false) => "riscv32",
        (21, _) if le => "ppc64el",
        (21, _) => "ppc64",
        (20, _) => "powerpc",
        (22, _) => "s390x",
        (258, _) => "loong64",
        (43, _) => "sparc64",
        (8, true) if le => "mips64el",
        (8, _) if le => "mipsel",
        (8, _) => "mips",
        _ => return None,
    })
}

/// Follow symlinks *inside* the root (absolute targets are re-rooted), at most 16 hops.
fn resolve_in_root(host: &Host, rel: &str) -> String {
    let mut cur = rel.trim_start_matches('/').to_string();
    for _ in 0..16 {
        let Some(t) = host.read_link(&cur) else {
            return cur;
        };
        let t = t.to_string_lossy().into_owned();
        cur = if let Some(abs) = t.strip_prefix('/') {
            abs.to_string()
        } else {
            let parent = cur.rsplit_once('/').map(|(p, _)| p).unwrap_or("");
            let mut parts: Vec<&str> = parent.split('/').filter(|s| !s.is_empty()).collect();
            for c in t.split('/') {
                match c {
                    "" | "." => {}
                    ".." => {
                        parts.pop();
                    }
                    c => parts.push(c),
                }
            }
            parts.join("/")
        };
    }
    cur
}

fn userland(host: &Host) -> Option<String> {
    for p in ["bin/sh", "usr/bin/env", "bin/ls"] {
        let real = resolve_in_root(host, p);
        if let Ok(b) = host.read_bytes(&real) {
            if let Some(a) = elf_arch(&b[..b.len().min(64)]) {
                return Some(a.to_string());
            }
        }
    }
    None
}

/// Kernel architecture: the sysctl, else uname on the live machine, else inferred from cpuinfo.
fn kernel_arch(host: &Host, cpu: &CpuPart) -> (Option<String>, Option<String>) {
    if let Some(a) = host.read_trimmed("proc/sys/kernel/arch") {
        return (Some(a), Some("proc/sys/kernel/arch".into()));
    }
    if host.is_live() {
        // SAFETY: uname fills a caller-owned struct.
        let mut u: libc::utsname = unsafe { std::mem::zeroed() };
        if unsafe { libc::uname(&mut u) } == 0 {
            let m: Vec<u8> = u
                .machine
                .iter()
                .take_while(|&&c| c != 0)
                .map(|&c| c as u8)
                .collect();
            return (
                Some(String::from_utf8_lossy(&m).into_owned()),
                Some("uname".into()),
            );
        }
    }
    let Some(ci) = &cpu.cpuinfo else {
        return (None, None);
    };
    let first = ci.indices().first().copied().unwrap_or(0);
    let f = |k: &str| ci.field(first, k);
    let guess = if let Some(a) = f("CPU architecture") {
        // arm64 kernels print "8"; 32-bit kernels "7", "5TEJ", "AArch64" on some old ones.
        let feats = f("Features").unwrap_or("");
        // The leading number; anything outside ARMv4…v9 is not an architecture version.
        let n: Option<u8> = a
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect::<String>()
            .parse()
            .ok();
        match n {
            _ if a.eq_ignore_ascii_case("aarch64") => Some("aarch64".to_string()),
            Some(8 | 9) if feats.split_whitespace().any(|w| w == "asimd" || w == "fp") => {
                Some("aarch64".to_string())
            }
            Some(8 | 9) => Some("armv8l".to_string()),
            Some(v @ 4..=7) => Some(format!("armv{v}l")),
            _ => None,
        }
    } else if let Some(isa) = f("isa").filter(|i| i.starts_with("rv")) {
        Some(
            if isa.starts_with("rv32") {
                "riscv32"
            } else {
                "riscv64"
            }
            .to_string(),
        )
    } else if let Some(flags) = f("flags") {
        Some(
            if flags.split_whitespace().any(|w| w == "lm") {
                "x86_64"
            } else {
                "i686"
            }
            .to_string(),
        )
    } else if f("cpu").is_some_and(|c| c.contains("POWER")) {
        Some("ppc64".into())
    } else if ci.global("vendor_id").is_some_and(|v| v.contains("S390")) {
        Some("s390x".into())
    } else if let Some(isa) = f("isa")
        .or_else(|| f("ISA"))
        .filter(|i| i.contains("mips") || i.contains("loongarch"))
    {
        // MIPS kernels (Loongson 1/2/3 up to the 3A4000, Ingenic) list mips ISAs; LoongArch
        // ones (3A5000 on) loongarch ones — both print `system type`, which says neither.
        Some(
            if isa.contains("loongarch64") {
                "loongarch64"
            } else if isa.contains("loongarch") {
                "loongarch32"
            } else if isa.contains("mips64") {
                "mips64"
            } else {
                "mips"
            }
            .to_string(),
        )
    } else if f("CPU Family").is_some_and(|v| v.contains("Loongson-64bit")) {
        Some("loongarch64".into())
    } else if ci.global("system type").is_some() || f("cpu model").is_some() {
        // `system type` and `cpu model` are MIPS fields (arch/mips/kernel/proc.c).
        Some("mips".into())
    } else if ci
        .global("cpu")
        .is_some_and(|c| c.contains("Sparc") || c.contains("SPARC"))
    {
        Some("sparc64".into())
    } else {
        None
    };
    let src = guess.as_ref().map(|_| "inferred from cpuinfo".to_string());
    (guess, src)
}

fn virtualization(host: &Host, cpu: &CpuPart, compatible: &[String]) -> Virtualization {
    let ci = cpu.cpuinfo.as_ref();
    let dmi_s = format!(
        "{}|{}",
        host.read_trimmed("sys/class/dmi/id/sys_vendor")
            .unwrap_or_default(),
        host.read_trimmed("sys/class/dmi/id/product_name")
            .unwrap_or_default()
    );
    let osrelease = host
        .read_trimmed("proc/sys/kernel/osrelease")
        .unwrap_or_default();
    let hyp_type = host.read_trimmed("sys/hypervisor/type").unwrap_or_default();
    let dt_hyp = host
        .read_bytes("proc/device-tree/hypervisor/compatible")
        .map(|b| nul_separated(&b))
        .unwrap_or_default();
    let sysinfo = host.read("proc/sysinfo").unwrap_or_default();
    let container_file = host.read_trimmed("run/systemd/container");
    let flags: Vec<String> = ci
        .and_then(|c| c.field(c.indices().first().copied().unwrap_or(0), "flags"))
        .map(|f| f.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    let tracer = tracer_comm(host);

    let mut layers: Vec<VirtLayer> = Vec::new();
    for r in knowledge::virt_rules() {
        let hit: Option<String> = match r.source.as_str() {
            "dmi" => (dmi_s != "|" && glob_match(&r.pattern, &dmi_s))
                .then(|| format!("DMI vendor|product \"{dmi_s}\"")),
            "osrelease" => glob_match(&r.pattern, &osrelease)
                .then(|| format!("kernel release \"{osrelease}\"")),
            "hypervisor_type" => glob_match(&r.pattern, &hyp_type)
                .then(|| format!("sys/hypervisor/type \"{hyp_type}\"")),
            "dt_hypervisor" => dt_hyp
                .iter()
                .find(|c| glob_match(&r.pattern, c))
                .map(|c| format!("device-tree hypervisor node \"{c}\"")),
            "dt_compatible" => compatible
                .iter()
                .find(|c| glob_match(&r.pattern, c))
                .map(|c| format!("device-tree compatible \"{c}\"")),
            "sysinfo" => sysinfo
                .lines()
                .find(|l| glob_match(&r.pattern, l.trim()))
                .map(|l| format!("proc/sysinfo \"{}\"", l.trim())),
            "exists" => host
                .exists(&r.pattern)
                .then(|| format!("{} exists", r.pattern)),
            "container_file" => container_file
                .as_ref()
                .filter(|c| glob_match(&r.pattern, c))
                .map(|c| format!("run/systemd/container says \"{c}\"")),
            "tracer" => tracer
                .as_ref()
                .filter(|t| glob_match(&r.pattern, t))
                .map(|t| format!("traced by \"{t}\"")),
            "cpuinfo_flag" => flags
                .iter()
                .any(|f| f.eq_ignore_ascii_case(&r.pattern))
                .then(|| format!("cpuinfo flag \"{}\"", r.pattern)),
            "cpuinfo" => ci.and_then(|c| {
                c.global
                    .iter()
                    .chain(
                        c.processors
                            .first()
                            .map(|p| p.fields.iter())
                            .into_iter()
                            .flatten(),
                    )
                    .find(|(_, v)| glob_match(&r.pattern, v))
                    .map(|(k, v)| format!("cpuinfo {k} \"{v}\""))
            }),
            _ => None,
        };
        if let Some(evidence) = hit {
            // One layer per kind: the first (most specific) rule of each kind wins.
            if layers.iter().any(|l: &VirtLayer| l.kind == r.kind) {
                continue;
            }
            let name = match (&r.source[..], &container_file) {
                ("container_file", Some(c)) => c.clone(),
                _ => r.name.clone(),
            };
            layers.push(VirtLayer {
                kind: r.kind.clone(),
                name,
                evidence,
            });
        }
    }
    // "none" only says bare metal when it is the only finding (EC2 metal).
    let real: Vec<VirtLayer> = layers
        .iter()
        .filter(|l| l.kind != "none")
        .cloned()
        .collect();
    let order = |k: &str| match k {
        "container" => 0,
        "wsl" => 1,
        _ => 2,
    };
    let mut real = real;
    real.sort_by_key(|l| order(&l.kind));
    if let Some(first) = real.first() {
        return Virtualization {
            kind: first.kind.clone(),
            name: Some(first.name.clone()),
            evidence: Some(first.evidence.clone()),
            layers: real.clone(),
        };
    }
    Virtualization {
        kind: "none".into(),
        name: layers.first().map(|l| l.name.clone()),
        evidence: Some(
            layers
                .first()
                .map(|l| l.evidence.clone())
                .unwrap_or_else(|| "no hypervisor or container signature found".into()),
        ),
        layers: Vec::new(),
    }
}

/// Command name of the process tracing the reader (proot runs its guests under ptrace).
fn tracer_comm(host: &Host) -> Option<String> {
    let status = host.read("proc/self/status").ok()?;
    let pid: u32 = status
        .lines()
        .find_map(|l| l.strip_prefix("TracerPid:"))?
        .trim()
        .parse()
        .ok()?;
    if pid == 0 {
        return None;
    }
    host.read_trimmed(format!("proc/{pid}/comm"))
}

/// The machine the kernel named at boot ("Machine model: …" from the device tree, "Machine:
/// …" on older ARM kernels), from `dev/kmsg`: the live device (records until it has no more)
/// or, in a recorded tree, a file of kmsg records or dmesg lines. Only the first 4 MiB are
/// read; the boot lines come first.
fn kernel_log_machine(host: &Host) -> Option<String> {
    use std::io::Read;
    use std::os::unix::io::AsRawFd;
    let mut f = host
        .open_device("dev/kmsg", crate::host::KMSG_DEVICE)
        .ok()?;
    // SAFETY: fcntl on a descriptor we own; flags are read before being extended. Without
    // O_NONBLOCK a read at the end of the live log would wait for the next record.
    unsafe {
        let fd = f.as_raw_fd();
        let fl = libc::fcntl(fd, libc::F_GETFL);
        if fl < 0 || libc::fcntl(fd, libc::F_SETFL, fl | libc::O_NONBLOCK) < 0 {
            return None;
        }
    }
    // The line is among the first boot records: stop at it, and after 4 MiB at most.
    let (mut pending, mut buf, mut total) = (Vec::new(), vec![0u8; 16 * 1024], 0usize);
    while total < 4 << 20 {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                total += n;
                pending.extend_from_slice(&buf[..n]);
                if let Some(end) = pending.iter().rposition(|&b| b == b'\n') {
                    if let Some(m) = machine_line(&String::from_utf8_lossy(&pending[..end])) {
                        return Some(m);
                    }
                    pending.drain(..=end);
                }
            }
            // EPIPE: a record was overwritten while reading; the next read goes on.
            Err(e) if e.raw_os_error() == Some(libc::EPIPE) => continue,
            Err(_) => break,
        }
    }
    machine_line(&String::from_utf8_lossy(&pending))
}

/// The machine named in kernel-log text (kmsg records `prio,seq,usec,flags;message` or dmesg
/// lines `[    0.000000] message`).
pub(crate) fn machine_line(log: &str) -> Option<String> {
    log.lines().find_map(|l| {
        let msg = match l.split_once(';') {
            Some((head, msg)) if head.split(',').count() >= 3 => msg,
            _ => l.split_once("] ").map_or(l, |(_, m)| m),
        };
        let msg = msg.trim_start_matches("OF: fdt: ");
        msg.strip_prefix("Machine model: ")
            .or_else(|| msg.strip_prefix("Machine: "))
            .map(|m| m.trim().to_string())
            .filter(|m| !m.is_empty())
    })
}

pub(super) fn probe(host: &Host, cpu: &CpuPart, missing: &mut Vec<Missing>) -> SystemPart {
    let device = device(host);
    if device.is_none() {
        note(
            missing,
            "device",
            "no device-tree model and no DMI vendor/product",
        );
    }
    let compatible = dt_compatible(host);
    let ci = cpu.cpuinfo.as_ref();
    // Armbian arm64 kernels print `Hardware` inside every processor block, older kernels once
    // at the end: look in the first CPU's block, then the shared part.
    let g = |k: &str| {
        ci.and_then(|c| c.field(c.indices().first().copied().unwrap_or(0), k))
            .map(str::to_string)
    };
    let ev = SocEvidence {
        dt_compatible: compatible.clone(),
        dt_model: device
            .clone()
            .filter(|_| host.exists("proc/device-tree/model")),
        cpuinfo_hardware: g("Hardware"),
        cpuinfo_model: g("Model"),
        cpuinfo_serial: g("Serial"),
        // An unknown core stays in the list (as ""), so a partial signature can never pass
        // for a smaller SoC's.
        core_types: cpu
            .cpus
            .iter()
            .map(|c| (c.core_type.clone().unwrap_or_default(), c.stepping.clone()))
            .collect(),
        // Only where the device tree is not at hand: reading the log costs a few ms.
        kernel_log_machine: None,
    };
    let mut soc = soc::guess_soc(&ev);
    // The kernel log's machine line, only where it can add something: no device tree at
    // hand, not an x86 CPU (no such line), and nothing better than a core signature yet.
    let x86 = ci.and_then(|c| c.field(0, "vendor_id")).is_some();
    let weak = soc
        .as_ref()
        .is_none_or(|g| !matches!(g.basis, Some(soc::SocBasis::Named { .. })));
    if weak && !x86 && compatible.is_empty() && !host.exists("proc/device-tree/model") {
        if let Some(line) = kernel_log_machine(host) {
            let ev = SocEvidence {
                kernel_log_machine: Some(line),
                ..ev
            };
            soc = soc::guess_soc(&ev).or(soc);
        }
    }
    if soc.is_none() {
        // x86 machines have a CPU, not a SoC: name the CPU model.
        if let Some(m) = ci
            .and_then(|c| c.field(c.indices().first().copied().unwrap_or(0), "model name"))
            .filter(|_| ci.and_then(|c| c.field(0, "vendor_id")).is_some())
        {
            soc = Some(SocGuess::named(
                soc::NamedBy::CpuModelName,
                clean_x86_model(m),
                None,
                "x86 CPU model name from cpuinfo",
            ));
        }
    }
    if soc.is_none() {
        note(missing, "soc", "no device-tree compatible, cpuinfo Hardware/Model or core signature matched a known SoC");
    }

    let kernel = Kernel {
        release: host.read_trimmed("proc/sys/kernel/osrelease"),
        version: host.read_trimmed("proc/version"),
    };
    if kernel.release.is_none() {
        note(missing, "kernel", "proc/sys/kernel/osrelease not readable");
    }
    let (k_arch, k_src) = kernel_arch(host, cpu);
    let arch = Arch {
        kernel: k_arch,
        kernel_source: k_src,
        userland: userland(host),
    };
    let distro = ["etc/os-release", "usr/lib/os-release"]
        .iter()
        .find_map(|p| host.read(p).ok())
        .and_then(|t| {
            let m = os_release::parse(&t);
            m.get("PRETTY_NAME").or_else(|| m.get("NAME")).cloned()
        });
    let virtualization = virtualization(host, cpu, &compatible);
    SystemPart {
        device,
        compatible,
        soc,
        kernel,
        arch,
        distro,
        virtualization,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elf_headers() {
        let mut h = vec![0u8; 64];
        h[..4].copy_from_slice(b"\x7fELF");
        h[4] = 2;
        h[5] = 1;
        h[18] = 183;
        assert_eq!(elf_arch(&h), Some("arm64"));
        h[4] = 1;
        h[18] = 40;
        h[36..40].copy_from_slice(&0x0500_0400u32.to_le_bytes());
        assert_eq!(elf_arch(&h), Some("armhf"));
        h[36..40].copy_from_slice(&0x0500_0000u32.to_le_bytes());
        assert_eq!(elf_arch(&h), Some("armel"));
        assert_eq!(elf_arch(b"#!/bin/sh"), None);
    }

    #[test]
    fn placeholders() {
        assert!(dmi_placeholder("To Be Filled By O.E.M."));
        assert!(dmi_placeholder("Default string"));
        assert!(!dmi_placeholder("ThinkPad X1"));
    }
}
