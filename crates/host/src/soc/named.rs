//! Chips the evidence names: a part number or a vendor's platform codename in the cpuinfo
//! `Hardware` line, a device-tree compatible entry or the kernel log's machine line.
//!
//! A named chip is the strongest evidence there is: it is looked up in `data/chips.tsv`
//! (part numbers and codenames → chip), and when the table does not know it, it is shown as
//! named — never replaced by a guess from the core types, which many chips share.

use std::sync::OnceLock;

use regex::Regex;

/// A chip named in some text: its vendor and the part number or codename as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Named {
    pub vendor: &'static str,
    pub token: String,
}

/// What the table says about a named chip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Known {
    pub name: String,
    /// The table key that matched (the token itself, or its base part without a suffix).
    pub key: String,
}

/// Part-number patterns per vendor. `needs_context`: the pattern alone is too short or
/// shared between vendors (Spreadtrum's SC7731 and Qualcomm's SC7180), so it only counts
/// when the text also names the vendor.
struct Pattern {
    vendor: &'static str,
    re: &'static str,
    needs_context: bool,
}

const PATTERNS: &[Pattern] = &[
    Pattern {
        vendor: "MediaTek",
        re: r"(?i)\bMT\s?(\d{4}[A-Z]{0,3}(?:/[A-Z0-9]{1,3})?)(?:\b|$)",
        needs_context: false,
    },
    Pattern {
        vendor: "Qualcomm",
        re: r"(?i)\b((?:MSM|APQ|SDM|SDA|SM|QCS|QCM|QRB|IPQ|QSD)\s?\d{3,4}[A-Z]{0,3}(?:-[A-Z]{2})?)\b",
        needs_context: false,
    },
    Pattern {
        vendor: "Qualcomm",
        re: r"(?i)\b((?:SC|SA|X1E|X1P)\d{4,5}[A-Z]{0,3})\b",
        needs_context: true,
    },
    Pattern {
        vendor: "Samsung",
        re: r"(?i)\b(Exynos\s?-?\d{3,4}|S5E\d{4})\b",
        needs_context: false,
    },
    Pattern {
        vendor: "HiSilicon",
        re: r"(?i)\b(Kirin\s?\d{3,4}[A-Z]{0,2}|Hi\d{4}[A-Z0-9]*)\b",
        needs_context: false,
    },
    Pattern {
        vendor: "Unisoc",
        re: r"(?i)\b(UMS\d{3,4}|SC\d{4}[A-Z]?|T\d{3,4})\b",
        needs_context: true,
    },
    Pattern {
        vendor: "Unisoc",
        re: r"(?i)\b(UMS\d{3,4})\b",
        needs_context: false,
    },
    Pattern {
        vendor: "Rockchip",
        re: r"(?i)\b(RK\d{4}[A-Z]?\d?|PX30|RV\d{4}[A-Z]?)\b",
        needs_context: false,
    },
    Pattern {
        vendor: "Allwinner",
        re: r"(?i)\b(sun\d{1,2}iw\d{1,2}(?:p\d)?|sun\d{1,2}i-[a-z]\d{2,3}[a-z]?)\b",
        needs_context: false,
    },
    Pattern {
        vendor: "Allwinner",
        re: r"(?i)\b([AHRTV]\d{2,3}[A-Z]?)\b",
        needs_context: true,
    },
    Pattern {
        vendor: "Amlogic",
        re: r"(?i)\b(S[89]\d{2}[A-Z]{0,2}\d?|A311D\d?|A113[XD]|T9\d{2}[A-Z]?)\b",
        needs_context: true,
    },
    Pattern {
        vendor: "Broadcom",
        re: r"(?i)\b(BCM\d{4}[A-Z0-9]{0,3})\b",
        needs_context: false,
    },
    Pattern {
        vendor: "NVIDIA",
        re: r"(?i)\b(Tegra\s?(?:\d{2,3}|K1|X1|X2))\b",
        needs_context: false,
    },
    Pattern {
        vendor: "NXP",
        re: r"(?i)\b(i\.?MX\s?\d{1,2}[A-Z]{0,3})\b",
        needs_context: false,
    },
];

fn compiled() -> &'static [(usize, Regex)] {
    static RES: OnceLock<Vec<(usize, Regex)>> = OnceLock::new();
    RES.get_or_init(|| {
        PATTERNS
            .iter()
            .enumerate()
            .map(|(i, p)| (i, Regex::new(p.re).expect("valid built-in pattern")))
            .collect()
    })
}

/// Device-tree vendor prefixes of SoC makers (the part before the comma of a compatible).
const DT_VENDORS: &[(&str, &str)] = &[
    ("mediatek", "MediaTek"),
    ("qcom", "Qualcomm"),
    ("samsung", "Samsung"),
    ("hisilicon", "HiSilicon"),
    ("sprd", "Unisoc"),
    ("unisoc", "Unisoc"),
    ("rockchip", "Rockchip"),
    ("allwinner", "Allwinner"),
    ("amlogic", "Amlogic"),
    ("brcm", "Broadcom"),
    ("nvidia", "NVIDIA"),
    ("fsl", "NXP"),
    ("nxp", "NXP"),
];

/// The chip a text names, if any. `context` is the vendor the text's surroundings name
/// (the Hardware line's words, a compatible's vendor prefix); patterns that are too short
/// to stand alone only count for that vendor.
pub(super) fn in_text(text: &str, context: Option<&str>) -> Option<Named> {
    // The Raspberry Pi kernels print "BCM2835" for every Pi model (a BCM2711 too): not a
    // chip named, only a family. The model line names the Pi.
    if text.trim().eq_ignore_ascii_case("BCM2835") {
        return None;
    }
    // A codename after the vendor, as Qualcomm's downstream kernels print it:
    // "Qualcomm Technologies, Inc BENGAL".
    if let Some(rest) = text
        .trim()
        .strip_prefix("Qualcomm Technologies, Inc")
        .map(|r| r.trim_start_matches('.').trim())
    {
        let word = rest.split_whitespace().next().unwrap_or("");
        if word.len() >= 3 && word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return Some(Named {
                vendor: "Qualcomm",
                token: word.to_string(),
            });
        }
    }
    for (i, re) in compiled() {
        let p = &PATTERNS[*i];
        if p.needs_context && context != Some(p.vendor) {
            continue;
        }
        if let Some(c) = re.captures(text) {
            let token = c.get(1).map_or("", |m| m.as_str()).trim();
            let token = if p.vendor == "MediaTek" {
                format!("MT{}", token.trim_start_matches([' ']))
            } else {
                token.to_string()
            };
            return Some(Named {
                vendor: p.vendor,
                token,
            });
        }
    }
    // A codename of the table, as one word of a text that names its vendor.
    let vendor = context?;
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() >= 3)
        .find(|w| lookup_key(vendor, w).is_some())
        .map(|w| Named {
            vendor: vendor_name(vendor).unwrap_or(""),
            token: w.to_string(),
        })
        .filter(|n| !n.vendor.is_empty())
}

/// The SoC vendor of a device-tree compatible entry's prefix (`rockchip,rk3588` → Rockchip),
/// None for a board maker's or an unknown prefix.
pub(super) fn dt_vendor(entry: &str) -> Option<&'static str> {
    let (prefix, _) = entry.trim().split_once(',')?;
    DT_VENDORS
        .iter()
        .find(|(p, _)| p.eq_ignore_ascii_case(prefix))
        .map(|(_, v)| *v)
}

/// The chip a device-tree compatible entry names (`vendor,part`), if its vendor makes SoCs.
pub(super) fn in_compatible(entry: &str) -> Option<Named> {
    let (prefix, part) = entry.trim().split_once(',')?;
    let vendor = DT_VENDORS
        .iter()
        .find(|(p, _)| p.eq_ignore_ascii_case(prefix))?
        .1;
    let named = in_text(part, Some(vendor))?;
    (named.vendor == vendor).then_some(named)
}

/// One row of `data/chips.tsv`.
#[derive(Debug)]
struct Row {
    vendor: &'static str,
    /// Normalised keys (part numbers and codenames).
    keys: Vec<String>,
    name: String,
}

const CHIPS: &str = include_str!("../../data/chips.tsv");

/// Upper case without spaces, hyphens or underscores: "Exynos 850" = "EXYNOS850".
fn normalise(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_'))
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// The vendor names of the table, interned (rows borrow them for the program's life).
fn vendor_name(s: &str) -> Option<&'static str> {
    const VENDORS: &[&str] = &[
        "MediaTek",
        "Qualcomm",
        "Samsung",
        "HiSilicon",
        "Unisoc",
        "Rockchip",
        "Allwinner",
        "Amlogic",
        "Broadcom",
        "NVIDIA",
        "NXP",
    ];
    VENDORS.iter().copied().find(|v| *v == s)
}

/// Parse the table: `vendor<TAB>keys (comma-separated)<TAB>chip name<TAB>source`.
fn parse(text: &'static str) -> Result<Vec<Row>, String> {
    let mut rows: Vec<Row> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 4 {
            return Err(format!(
                "data/chips.tsv line {}: expected 4 tab-separated fields, found {}",
                i + 1,
                f.len()
            ));
        }
        let vendor = vendor_name(f[0])
            .ok_or_else(|| format!("data/chips.tsv line {}: unknown vendor {:?}", i + 1, f[0]))?;
        let keys: Vec<String> = f[1].split(',').map(normalise).collect();
        if keys.iter().any(String::is_empty) || f[2].trim().is_empty() || f[3].trim().is_empty() {
            return Err(format!(
                "data/chips.tsv line {}: empty key, name or source",
                i + 1
            ));
        }
        for k in &keys {
            if let Some(prev) = rows
                .iter()
                .find(|r| r.vendor == vendor && r.keys.contains(k))
            {
                return Err(format!(
                    "data/chips.tsv line {}: key {k} already names {}",
                    i + 1,
                    prev.name
                ));
            }
        }
        rows.push(Row {
            vendor,
            keys,
            name: f[2].to_string(),
        });
    }
    Ok(rows)
}

fn table() -> &'static [Row] {
    static ROWS: OnceLock<Vec<Row>> = OnceLock::new();
    // The unit test `chips_table_parses` keeps the table clean; a broken line here only
    // means fewer chips known.
    ROWS.get_or_init(|| parse(CHIPS).unwrap_or_default())
}

fn lookup_key(vendor: &str, key: &str) -> Option<&'static Row> {
    let key = normalise(key);
    table()
        .iter()
        .find(|r| r.vendor == vendor && r.keys.contains(&key))
}

/// The base part of a token: without a MediaTek package suffix ("MT6769V/CB" → "MT6769"),
/// a Qualcomm bin ("SM8350-AC" → "SM8350", "SM8150P" → "SM8150") or an Amlogic/Rockchip
/// variant letter.
fn base(token: &str) -> Option<String> {
    let t = normalise(token);
    let t = t.split('/').next().unwrap_or(&t).to_string();
    let digits_end = t.rfind(|c: char| c.is_ascii_digit())? + 1;
    (digits_end < t.len()).then(|| t[..digits_end].to_string())
}

/// The table's chip for a named token: the token itself, else its base part.
pub(super) fn lookup(named: &Named) -> Option<Known> {
    if let Some(r) = lookup_key(named.vendor, &named.token) {
        return Some(Known {
            name: r.name.clone(),
            key: normalise(&named.token),
        });
    }
    let b = base(&named.token)?;
    lookup_key(named.vendor, &b).map(|r| Known {
        name: r.name.clone(),
        key: b,
    })
}

#[cfg(test)]
pub(super) fn parse_builtin() -> Result<usize, String> {
    parse(CHIPS).map(|r| r.len())
}
