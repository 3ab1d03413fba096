//! Where a kernel comes from — kernel.org, a distribution, Raspberry Pi's tree, Android, a
//! community build or a SoC vendor's BSP — from the rules in `data/kernel_origins.tsv` applied
//! to the release string, the SoC guess and (where a rule needs it) the kernel log.

use super::version::KernelVersion;
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

const TABLE: &str = include_str!("../../data/kernel_origins.tsv");

/// Where a kernel comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OriginKind {
    /// A version number kernel.org could have released, with no sign of another tree.
    Mainline,
    /// A release candidate or linux-next: not checked against the release list.
    Prerelease,
    /// Built and supported by a distribution on its own schedule.
    Distribution,
    /// Raspberry Pi's downstream tree, which follows an LTS series closely.
    RaspberryPi,
    /// An Android common kernel.
    Android,
    /// A community build on mainline with patches (Armbian current/edge, flippy/ophub).
    Community,
    /// A SoC vendor's kernel: the version string says little about the code.
    Bsp,
    /// A rule would decide but needs evidence that could not be read (the kernel log).
    Undecided,
}

/// A kernel's origin and the rule that decided it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Origin {
    /// Which kind of tree.
    pub kind: OriginKind,
    /// Who made it (`Rockchip`, `Debian`, `Raspberry Pi`), when known.
    pub vendor: Option<String>,
    /// What decided it: the rule's note and the values it matched.
    pub evidence: Vec<String>,
}

struct Rule {
    line: usize,
    kind: OriginKind,
    vendor: String,
    version: Vec<String>,
    release: Option<(bool, Regex)>,
    soc: Vec<String>,
    needs_log: Option<String>,
    note: String,
}

struct Table {
    rules: Vec<Rule>,
    errors: Vec<String>,
}

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| load(TABLE))
}

fn load(text: &str) -> Table {
    let mut rules = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let c: Vec<&str> = line.split('\t').map(str::trim).collect();
        let mut bad = |what: String| errors.push(format!("kernel_origins.tsv:{}: {what}", i + 1));
        if c.len() != 7 {
            bad(format!("expected 7 columns, found {}", c.len()));
            continue;
        }
        let kind = match c[0] {
            "prerelease" => OriginKind::Prerelease,
            "android" => OriginKind::Android,
            "distribution" => OriginKind::Distribution,
            "raspberrypi" => OriginKind::RaspberryPi,
            "community" => OriginKind::Community,
            "bsp" => OriginKind::Bsp,
            other => {
                bad(format!("unknown origin `{other}`"));
                continue;
            }
        };
        let release = match c[3] {
            "*" => None,
            r => {
                let (neg, r) = match r.strip_prefix('!') {
                    Some(r) => (true, r),
                    None => (false, r),
                };
                match Regex::new(r) {
                    Ok(re) => Some((neg, re)),
                    Err(e) => {
                        bad(format!("release pattern: {e}"));
                        continue;
                    }
                }
            }
        };
        let needs_log = match c[5] {
            "-" => None,
            n => match n.strip_prefix("log:") {
                Some(t) if !t.is_empty() => Some(t.to_string()),
                _ => {
                    bad(format!("needs must be `-` or `log:TEXT`, not `{n}`"));
                    continue;
                }
            },
        };
        let alts = |s: &str| {
            s.split('|')
                .map(|a| a.trim().to_string())
                .collect::<Vec<_>>()
        };
        rules.push(Rule {
            line: i + 1,
            kind,
            vendor: c[1].to_string(),
            version: alts(c[2]),
            release,
            soc: alts(&c[4].to_ascii_lowercase()),
            needs_log,
            note: c[6].to_string(),
        });
    }
    Table { rules, errors }
}

/// Problems in the compiled-in table (a unit test asserts there are none).
pub fn table_errors() -> Vec<String> {
    table().errors.clone()
}

/// `*` matches any run of characters; everything else literally.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    if !text.ends_with(last) {
        return false;
    }
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    true
}

/// What the classification looks at.
pub struct OriginInput<'a> {
    /// `uname -r`.
    pub release: &'a str,
    pub version: &'a KernelVersion,
    /// truebench's SoC guess, when there is one.
    pub soc: Option<&'a str>,
    /// Kernel log lines, `None` when the log could not be read.
    pub kernel_log: Option<&'a [String]>,
}

/// Apply the rules in order; the first that matches decides. No rule: a kernel.org-looking
/// version (with the unexplained suffix in the evidence).
pub fn classify(input: &OriginInput) -> Origin {
    let numbers = input.version.numbers();
    let soc_lower = input.soc.map(str::to_ascii_lowercase);
    for rule in &table().rules {
        if !rule.version.iter().any(|p| glob(p, &numbers)) {
            continue;
        }
        if let Some((neg, re)) = &rule.release {
            if re.is_match(input.release) == *neg {
                continue;
            }
        }
        let soc_ok = rule
            .soc
            .iter()
            .any(|p| p == "*" || soc_lower.as_deref().is_some_and(|s| glob(p, s)));
        if !soc_ok {
            continue;
        }
        let mut evidence = vec![format!("release \"{}\"", input.release)];
        if let (Some(soc), true) = (input.soc, rule.soc.iter().any(|p| p != "*")) {
            evidence.push(format!("SoC {soc}"));
        }
        if let Some(text) = &rule.needs_log {
            match input.kernel_log {
                Some(lines) => match lines.iter().find(|l| l.contains(text.as_str())) {
                    Some(l) => evidence.push(format!("kernel log: \"{}\"", l.trim())),
                    None => continue,
                },
                None => {
                    evidence.push(format!(
                        "{} — deciding needs the kernel log (\"{text}\"), which could not be \
                         read (run as root)",
                        rule.note
                    ));
                    return Origin {
                        kind: OriginKind::Undecided,
                        vendor: vendor(&rule.vendor, input.soc),
                        evidence,
                    };
                }
            }
        }
        evidence.push(format!(
            "{} (kernel_origins.tsv line {})",
            rule.note, rule.line
        ));
        return Origin {
            kind: rule.kind,
            vendor: vendor(&rule.vendor, input.soc),
            evidence,
        };
    }
    let mut evidence = vec![format!("release \"{}\"", input.release)];
    if !input.version.suffix.is_empty() {
        evidence.push(format!(
            "no known vendor, distribution or community scheme matches the suffix \"{}\"",
            input.version.suffix
        ));
    } else {
        evidence.push("a plain kernel.org version number".into());
    }
    Origin {
        kind: OriginKind::Mainline,
        vendor: None,
        evidence,
    }
}

fn vendor(rule: &str, soc: Option<&str>) -> Option<String> {
    match rule {
        "-" => None,
        "*" => soc
            .and_then(|s| s.split_whitespace().next())
            .map(str::to_string),
        v => Some(v.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(release: &str, soc: Option<&str>, log: Option<&[String]>) -> Origin {
        let v = KernelVersion::parse(release).unwrap();
        classify(&OriginInput {
            release,
            version: &v,
            soc,
            kernel_log: log,
        })
    }

    fn kind(release: &str, soc: Option<&str>) -> (OriginKind, Option<String>) {
        let o = origin(release, soc, Some(&[]));
        (o.kind, o.vendor)
    }

    #[test]
    fn the_table_loads_without_errors() {
        assert_eq!(table_errors(), Vec::<String>::new());
        assert!(table().rules.len() > 40);
    }

    #[test]
    fn globs() {
        assert!(glob("*rk3588*", "rockchip rk3588s"));
        assert!(glob("5.10.*", "5.10.110"));
        assert!(!glob("5.10.*", "5.1.0"));
        assert!(glob("6.6.98*", "6.6.98"));
        assert!(glob("5.10.4", "5.10.4"));
        assert!(!glob("5.10.4", "5.10.40"));
        assert!(glob("realtek rtd*", "realtek rtd1296"));
        assert!(!glob("a*b*c", "acb"));
    }

    // Release strings from the sbc-bench logs in tests/data/sbc-bench and the fixture roots.
    #[test]
    fn distributions_raspberry_pi_and_community_builds() {
        use OriginKind::*;
        let d = |r| kind(r, Some("AMD Ryzen"));
        assert_eq!(d("6.1.0-13-amd64"), (Distribution, Some("Debian".into())));
        assert_eq!(
            d("5.10.0-0.bpo.7-arm64"),
            (Distribution, Some("Debian".into()))
        );
        assert_eq!(
            d("4.19.0-13-686-pae"),
            (Distribution, Some("Debian".into()))
        );
        assert_eq!(
            d("5.15.0-52-generic"),
            (Distribution, Some("Ubuntu".into()))
        );
        assert_eq!(
            d("6.8.0-39-generic-64k"),
            (Distribution, Some("Ubuntu".into()))
        );
        assert_eq!(
            d("6.0.3-76060003-generic"),
            (Distribution, Some("Ubuntu".into()))
        );
        assert_eq!(
            d("6.17.0-0.rc0.250804gd2eedaa3909b.10.fc43.x86_64").0,
            Distribution
        );
        assert_eq!(d("5.15.79.1-microsoft-standard-WSL2").0, Distribution);
        let pi = Some("Broadcom BCM2711");
        for r in [
            "5.10.63-v8+",
            "5.10.63-v7l+",
            "6.1.47-v8_16k+",
            "6.6.63-v8-16k+",
        ] {
            assert_eq!(kind(r, pi).0, RaspberryPi, "{r}");
        }
        assert_eq!(kind("6.6.20+rpt-rpi-2712", None).0, RaspberryPi);
        assert_eq!(kind("6.1.0-rpi7-rpi-2712", None).0, RaspberryPi);
        assert_eq!(kind("6.1.21+", pi).0, RaspberryPi);
        assert_eq!(
            kind("6.1.21+", Some("Amlogic S922X")).0,
            Mainline,
            "bare + elsewhere"
        );
        assert_eq!(
            kind("6.1.50-current-rockchip64", Some("Rockchip RK3588")).0,
            Community
        );
        assert_eq!(kind("5.10.60-meson64", Some("Amlogic S922X")).0, Community);
        assert_eq!(
            kind("5.15.25-flippy-70+", Some("Amlogic S905X")).0,
            Community
        );
        assert_eq!(kind("5.19.0-rc4+", None).0, Prerelease);
        assert_eq!(kind("7.1.0-rc1-gad296806eadf", None).0, Prerelease);
        assert_eq!(kind("5.10.110-android13-4-00001-g1", None).0, Android);
        assert_eq!(kind("6.6.38", None), (Mainline, None));
    }

    #[test]
    fn vendor_kernels() {
        use OriginKind::*;
        let cases = [
            (
                "5.10.110-rockchip-rk3588",
                "Rockchip RK3588/RK3588s",
                "Rockchip",
            ),
            ("5.10.160-rk35xx", "Rockchip RK3588", "Rockchip"),
            ("6.1.75-vendor-rk35xx", "Rockchip RK3588", "Rockchip"),
            ("4.4.213-rockchip", "Rockchip RK3399", "Rockchip"),
            ("6.1.11-rockchip", "Rockchip RK3588", "Rockchip"),
            ("4.9.170-sun50iw9", "Allwinner H616", "Allwinner"),
            ("6.1.31-sun50iw9", "Allwinner H618", "Allwinner"),
            ("5.4.125", "Allwinner H616/H313/H618", "Allwinner"),
            ("3.4.113-sun8i", "Allwinner H3", "Allwinner"),
            ("4.9.201-jetson-nano", "Nvidia Tegra X1/TX1", "Nvidia"),
            (
                "4.14.98-imx_4.14.98_2.0.0_ga+g1175b5961153",
                "NXP i.MX8M",
                "NXP",
            ),
            ("5.15.0-1018-mtk", "MediaTek Genio 1200", "MediaTek"),
            ("5.15.0", "StarFive JH7110", "StarFive"),
            ("5.10.113+", "T-Head TH1520", "T-Head"),
            ("5.4.125", "Amlogic S905X4", "Amlogic"),
        ];
        for (release, soc, vendor) in cases {
            let (k, v) = kind(release, Some(soc));
            assert_eq!((k, v.as_deref()), (Bsp, Some(vendor)), "{release} on {soc}");
        }
        // Same version on a SoC without a vendor tree of that version: no verdict.
        assert_eq!(kind("5.4.125", Some("Broadcom BCM2711")).0, Mainline);
        assert_eq!(
            kind("4.4.302", None).0,
            Mainline,
            "unknown SoC: only release rules"
        );
    }

    #[test]
    fn a_rule_that_needs_the_kernel_log_says_so_when_it_cannot_read_it() {
        let soc = Some("Rockchip RK3568");
        let log = vec!["[    1.2] cpu cpu0: pvtm = 87350, from nvmem".to_string()];
        let o = origin("5.10.160", soc, Some(&log));
        assert_eq!(o.kind, OriginKind::Bsp);
        assert!(
            o.evidence.iter().any(|e| e.contains("pvtm = 87350")),
            "{o:?}"
        );
        assert_eq!(
            origin("5.10.160", soc, Some(&[])).kind,
            OriginKind::Mainline
        );
        let o = origin("5.10.160", soc, None);
        assert_eq!(o.kind, OriginKind::Undecided);
        assert!(
            o.evidence.iter().any(|e| e.contains("run as root")),
            "{o:?}"
        );
    }
}
