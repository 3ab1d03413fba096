//! `/proc/cpuinfo` in all its shapes: x86 and arm64 per-processor blocks, old 32-bit ARM (a
//! `Processor : ARMv7…` header, bare `processor : N` lines, then one shared block with `CPU
//! part` and `Hardware`), RISC-V, POWER, LoongArch, s390 and SPARC (no per-processor blocks).

/// A `processor : N` block.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Processor {
    pub index: u32,
    pub fields: Vec<(String, String)>,
}

impl Processor {
    /// Field by name, case-insensitive (`CPU part`, `model name`).
    pub fn get(&self, key: &str) -> Option<&str> {
        get(&self.fields, key)
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cpuinfo {
    pub processors: Vec<Processor>,
    /// Fields outside any processor block: `Hardware`, `Serial`, `Model`, old-ARM shared
    /// `CPU part`, POWER's `platform`, SPARC's `cpu`, …
    pub global: Vec<(String, String)>,
}

fn get<'a>(fields: &'a [(String, String)], key: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v.as_str())
        .filter(|v| !v.is_empty())
}

impl Cpuinfo {
    pub fn global(&self, key: &str) -> Option<&str> {
        get(&self.global, key)
    }

    /// Field of processor `index`, falling back to the shared block (old ARM format).
    pub fn field(&self, index: u32, key: &str) -> Option<&str> {
        self.processors
            .iter()
            .find(|p| p.index == index)
            .and_then(|p| p.get(key))
            .or_else(|| self.global(key))
    }

    /// Indices of listed processors (cpuinfo lists only online CPUs).
    pub fn indices(&self) -> Vec<u32> {
        self.processors.iter().map(|p| p.index).collect()
    }
}

pub fn parse(text: &str) -> Cpuinfo {
    let mut info = Cpuinfo::default();
    // Are we inside a processor block (until the next blank line)?
    let mut in_proc = false;
    for raw in text.lines() {
        let line = raw.trim_end();
        if line.trim().is_empty() {
            in_proc = false;
            continue;
        }
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let key = k.trim().to_string();
        let val = v.trim().to_string();
        if key == "processor" {
            if let Ok(n) = val.parse::<u32>() {
                info.processors.push(Processor {
                    index: n,
                    fields: Vec::new(),
                });
                in_proc = true;
                continue;
            }
        }
        if key == "hart" && !in_proc {
            // Early RISC-V kernels start each CPU's block with `hart : N` (no `processor`);
            // hart ids are not CPU numbers, so number the blocks in order.
            info.processors.push(Processor {
                index: info.processors.len() as u32,
                fields: Vec::new(),
            });
            in_proc = true;
        }
        if in_proc {
            if let Some(p) = info.processors.last_mut() {
                p.fields.push((key, val));
                continue;
            }
        }
        info.global.push((key, val));
    }
    // Old ARM kernels list `processor : N` lines back to back and then one block that
    // describes every CPU, without a blank line before it: the block landed in the last
    // processor. When every other processor is empty, it is shared.
    let n = info.processors.len();
    if n > 1 && info.processors[..n - 1].iter().all(|p| p.fields.is_empty()) {
        let shared = std::mem::take(&mut info.processors[n - 1].fields);
        info.global.splice(0..0, shared);
    }
    info
}

/// Parse a hex (`0x41`, `0X41`) or decimal number as cpuinfo prints them.
/// Why `text` (a file given as cpuinfo, read lossily) holds no cpuinfo, or None when it does:
/// a file given by mistake must be refused, not read as a machine without CPUs.
pub fn not_cpuinfo(text: &str) -> Option<&'static str> {
    if text.trim().is_empty() {
        return Some("the file is empty");
    }
    if text.contains('\0') || text.contains('\u{FFFD}') {
        return Some("the file is binary");
    }
    let c = parse(text);
    if c.processors.is_empty() && c.global.is_empty() {
        return Some("no `key : value` line as in /proc/cpuinfo");
    }
    None
}

pub fn parse_num(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD_ARM: &str = "Processor\t: ARMv7 Processor rev 4 (v7l)\nprocessor\t: 0\nBogoMIPS\t: 1694.10\n\nprocessor\t: 1\nBogoMIPS\t: 1694.10\n\nFeatures\t: swp half thumb neon\nCPU implementer\t: 0x41\nCPU architecture: 7\nCPU variant\t: 0x0\nCPU part\t: 0xc0f\nCPU revision\t: 4\n\nHardware\t: SAMSUNG EXYNOS5 (Flattened Device Tree)\nRevision\t: 0000\nSerial\t\t: 0000000000000000\n";

    #[test]
    fn old_arm_shared_block() {
        let c = parse(OLD_ARM);
        assert_eq!(c.indices(), [0, 1]);
        assert_eq!(c.field(1, "CPU part"), Some("0xc0f"));
        assert_eq!(c.field(0, "cpu implementer"), Some("0x41"));
        assert_eq!(c.global("Processor"), Some("ARMv7 Processor rev 4 (v7l)"));
        assert!(c.global("Hardware").unwrap().starts_with("SAMSUNG"));
    }

    #[test]
    fn back_to_back_processor_lines_share_the_block() {
        let t = "Processor\t: AArch64 Processor rev 4 (aarch64)\nprocessor\t: 0\nprocessor\t: 1\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU part\t: 0xd03\n\nHardware\t: hi6250\n";
        let c = parse(t);
        assert_eq!(c.indices(), [0, 1]);
        assert_eq!(c.field(0, "CPU part"), Some("0xd03"));
        assert_eq!(c.field(1, "CPU part"), Some("0xd03"));
        assert_eq!(c.global("Hardware"), Some("hi6250"));
    }

    #[test]
    fn early_riscv_hart_blocks() {
        let c = parse("hart\t: 1\nisa\t: rv64imafdc\n\nhart\t: 2\nisa\t: rv64imafdc\nuarch\t: sifive,rocket0\n");
        assert_eq!(c.indices(), [0, 1]);
        assert_eq!(c.field(1, "uarch"), Some("sifive,rocket0"));
        assert_eq!(c.field(0, "hart"), Some("1"));
    }

    #[test]
    fn per_processor_blocks() {
        let t = "processor\t: 0\nCPU part\t: 0xd03\n\nprocessor\t: 1\nCPU part\t: 0xd09\n\nHardware\t: X\n";
        let c = parse(t);
        assert_eq!(c.field(0, "CPU part"), Some("0xd03"));
        assert_eq!(c.field(1, "CPU part"), Some("0xd09"));
        assert_eq!(c.field(2, "CPU part"), None);
    }

    #[test]
    fn no_blocks_sparc_and_garbage() {
        let c =
            parse("cpu\t\t: UltraSparc T2 (Niagara2)\nncpus probed\t: 64\n\u{0}\u{1}garbage\n:\n");
        assert!(c.processors.is_empty());
        assert_eq!(c.global("cpu"), Some("UltraSparc T2 (Niagara2)"));
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_num("0x41"), Some(0x41));
        assert_eq!(parse_num("0XD0B"), Some(0xd0b));
        assert_eq!(parse_num("4"), Some(4));
        assert_eq!(parse_num("zz"), None);
    }

    #[test]
    fn files_that_hold_no_cpuinfo() {
        assert_eq!(not_cpuinfo(""), Some("the file is empty"));
        assert_eq!(not_cpuinfo(" \n\n"), Some("the file is empty"));
        assert_eq!(
            not_cpuinfo("\u{7f}ELF\u{2}\0\0"),
            Some("the file is binary")
        );
        let lossy = String::from_utf8_lossy(&[0x89, b'P', b'N', b'G', 0xff]).into_owned();
        assert_eq!(not_cpuinfo(&lossy), Some("the file is binary"));
        assert!(not_cpuinfo("just some words\nand more\n").is_some());
        assert_eq!(not_cpuinfo("processor\t: 0\nBogoMIPS\t: 48.00\n"), None);
    }
}
