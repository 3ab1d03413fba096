//! The device tree as the kernel exposes it (`/proc/device-tree`, a link to
//! `/sys/firmware/devicetree/base`): one directory per node, one file per property, numbers as
//! big-endian 32-bit cells. Pure decoders for the property files, and a reader over `Host`.
//! A truncated or odd property decodes to None, never a panic.

use super::Volts;
use crate::Host;
use std::collections::BTreeMap;

/// A property of whole 32-bit big-endian cells; None when empty or not a multiple of 4 bytes.
pub fn cells(b: &[u8]) -> Option<Vec<u32>> {
    if b.is_empty() || b.len() % 4 != 0 {
        return None;
    }
    Some(
        b.chunks_exact(4)
            .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

/// One 32-bit cell (a phandle, `regulator-max-microvolt`).
pub fn cell(b: &[u8]) -> Option<u32> {
    match cells(b)?[..] {
        [v] => Some(v),
        _ => None,
    }
}

/// `opp-hz`: a 64-bit value (the first, when a table names several clocks); 32-bit tables
/// written as one cell are accepted too.
pub fn hz(b: &[u8]) -> Option<u64> {
    match b.len() {
        4 => cell(b).map(u64::from),
        n if n >= 8 && n % 8 == 0 => Some(u64::from_be_bytes(b[..8].try_into().ok()?)),
        _ => None,
    }
}

/// The first NUL-terminated string of a property (`regulator-name`, `device_type`).
pub fn string(b: &[u8]) -> Option<String> {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    let s = std::str::from_utf8(&b[..end]).ok()?.trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// `opp-microvolt`: one value, or `<target min max>`; with several supplies the first
/// supply's (the CPU's). Inconsistent triplets (min above max) are None.
pub fn microvolt(b: &[u8]) -> Option<Volts> {
    let c = cells(b)?;
    let v = if c.len() % 3 == 0 {
        Volts {
            target: c[0].into(),
            min: c[1].into(),
            max: c[2].into(),
        }
    } else {
        Volts::exact(c[0].into())
    };
    (v.min <= v.max && v.max > 0).then_some(v)
}

/// The device tree below a root, when it has one.
pub struct Tree<'h> {
    host: &'h Host,
    /// `proc/device-tree` or `sys/firmware/devicetree/base`.
    pub base: String,
}

/// More nodes than any real device tree has: a loop of links or a wrong directory stops here.
const MAX_NODES: usize = 50_000;

impl<'h> Tree<'h> {
    pub fn locate(host: &'h Host) -> Option<Tree<'h>> {
        ["proc/device-tree", "sys/firmware/devicetree/base"]
            .into_iter()
            .find(|b| host.is_dir(b))
            .map(|b| Tree {
                host,
                base: b.to_string(),
            })
    }

    /// The path of a node (`cpus/cpu@100`) relative to the root.
    pub fn path(&self, node: &str) -> String {
        if node.is_empty() {
            self.base.clone()
        } else {
            format!("{}/{node}", self.base)
        }
    }

    pub fn prop(&self, node: &str, name: &str) -> Option<Vec<u8>> {
        self.host
            .read_bytes(format!("{}/{name}", self.path(node)))
            .ok()
    }

    /// Child nodes (directories) of a node.
    pub fn children(&self, node: &str) -> Vec<String> {
        self.host
            .list(self.path(node))
            .into_iter()
            .map(|c| {
                if node.is_empty() {
                    c
                } else {
                    format!("{node}/{c}")
                }
            })
            .filter(|c| self.host.is_dir(self.path(c)))
            .collect()
    }

    /// The CPU nodes below `/cpus`, in the order of their unit addresses.
    pub fn cpu_nodes(&self) -> Vec<String> {
        self.children("cpus")
            .into_iter()
            .filter(|n| {
                self.prop(n, "device_type")
                    .and_then(|b| string(&b))
                    .is_some_and(|t| t == "cpu")
            })
            .collect()
    }

    /// The node of logical CPU `cpu`: its sysfs `of_node` link, else (on a root without such
    /// links, `by_order`) the cpu-th CPU node.
    pub fn cpu_node(&self, cpu: u32, nodes: &[String], by_order: bool) -> Option<String> {
        let link = self
            .host
            .read_link(format!("sys/devices/system/cpu/cpu{cpu}/of_node"));
        if let Some(l) = link {
            let l = l.to_string_lossy().into_owned();
            if let Some((_, node)) = l.split_once("devicetree/base/") {
                if self.host.is_dir(self.path(node)) {
                    return Some(node.to_string());
                }
            }
        }
        if !by_order {
            return None;
        }
        nodes.get(usize::try_from(cpu).ok()?).cloned()
    }

    /// The nodes holding the wanted phandles (`phandle`, or `linux,phandle` of old trees),
    /// found by walking the tree until all are found.
    pub fn phandles(&self, wanted: &[u32]) -> BTreeMap<u32, String> {
        let mut found = BTreeMap::new();
        if wanted.is_empty() {
            return found;
        }
        let mut queue = vec![String::new()];
        let mut seen = 0usize;
        while let Some(node) = queue.pop() {
            seen += 1;
            if seen > MAX_NODES {
                break;
            }
            let ph = self
                .prop(&node, "phandle")
                .or_else(|| self.prop(&node, "linux,phandle"))
                .and_then(|b| cell(&b));
            if let Some(p) = ph.filter(|p| wanted.contains(p)) {
                found.insert(p, node.clone());
                if found.len() == wanted.len() {
                    break;
                }
            }
            if node.matches('/').count() < 8 {
                let mut kids = self.children(&node);
                kids.reverse();
                queue.extend(kids);
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_odd_lengths() {
        assert_eq!(
            cells(&[0, 0, 0, 1, 0, 0, 0xff, 0xff]),
            Some(vec![1, 0xffff])
        );
        assert_eq!(cells(&[0, 0, 1]), None, "truncated");
        assert_eq!(cells(&[]), None);
        assert_eq!(cell(&[0, 0, 0, 7]), Some(7));
        assert_eq!(cell(&[0, 0, 0, 7, 0, 0, 0, 8]), None);
    }

    #[test]
    fn opp_hz_is_64_bit_big_endian() {
        // 2400 MHz = 0x8F0D1800: the high bit set, as in RK3588's top OPP.
        assert_eq!(hz(&[0, 0, 0, 0, 0x8f, 0x0d, 0x18, 0]), Some(2_400_000_000));
        assert_eq!(hz(&[0x3b, 0x9a, 0xca, 0]), Some(1_000_000_000));
        assert_eq!(hz(&[0, 0, 0, 0, 0x8f]), None);
    }

    #[test]
    fn microvolt_single_and_triplet() {
        let one = 1_000_000u32.to_be_bytes();
        assert_eq!(microvolt(&one), Some(Volts::exact(1_000_000)));
        let three: Vec<u8> = [1_300_000u32, 1_300_000, 1_310_000]
            .iter()
            .flat_map(|v| v.to_be_bytes())
            .collect();
        assert_eq!(
            microvolt(&three),
            Some(Volts {
                target: 1_300_000,
                min: 1_300_000,
                max: 1_310_000
            })
        );
        let bad: Vec<u8> = [900_000u32, 1_000_000, 800_000]
            .iter()
            .flat_map(|v| v.to_be_bytes())
            .collect();
        assert_eq!(microvolt(&bad), None, "min above max");
        assert_eq!(microvolt(&[1, 2]), None);
    }

    #[test]
    fn strings() {
        assert_eq!(string(b"vdd_cpu_b\0"), Some("vdd_cpu_b".into()));
        assert_eq!(string(b"\0"), None);
        assert_eq!(string(&[0xff, 0xfe, 0]), None);
    }
}
