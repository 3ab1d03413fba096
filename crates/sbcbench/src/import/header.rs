//! The first line and the system identification lines.

use super::util::{is_separator, number};
use crate::log::{Header, System};

/// Modes sbc-bench appends to the device name in the first line.
const MODES: [&str; 2] = ["extensive", "unattended"];

pub fn header(lines: &[&str]) -> Option<Header> {
    let first = lines.iter().find(|l| !l.trim().is_empty())?;
    let rest = first.trim().strip_prefix("sbc-bench v")?;
    let (version, rest) = match rest.find(' ') {
        Some(i) => (&rest[..i], rest[i + 1..].trim()),
        None => (rest, ""),
    };
    let mut h = Header {
        version: Some(version.to_string()),
        ..Default::default()
    };
    if let Some(date) = rest.strip_prefix("-- ") {
        h.date = Some(date.trim().to_string());
        return Some(h);
    }
    // An empty device name leaves `(date)` alone after the version (two spaces in the log).
    let (mut device, date) = match rest
        .rfind(" (")
        .map(|i| i + 1)
        .or(rest.starts_with('(').then_some(0))
    {
        Some(i) if rest.ends_with(')') => (
            rest[..i].trim().to_string(),
            Some(rest[i + 1..rest.len() - 1].to_string()),
        ),
        _ => (rest.to_string(), None),
    };
    // sbc-bench joins board and CPU with " / "; with no board name (x86 without DMI product)
    // the line starts with the separator. Its own Results.md row keeps it.
    let printed = device.clone();
    device = device
        .trim_start_matches('/')
        .trim_end_matches('/')
        .trim()
        .to_string();
    h.date = date;
    if let Some((head, last)) = device.rsplit_once(' ') {
        if MODES.contains(&last) {
            h.mode = Some(last.to_string());
            device = head.trim().to_string();
        }
    }
    if let Some((head, last)) = printed.rsplit_once(' ') {
        if MODES.contains(&last) && !device.is_empty() {
            h.device_as_printed = Some(head.trim().to_string());
        }
    }
    if !device.is_empty() {
        h.device_as_printed.get_or_insert(printed);
        h.device = Some(device);
    }
    Some(h)
}

fn value_after<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let v = line.strip_prefix(key)?.trim();
    (!v.is_empty()).then_some(v)
}

/// `Linux 4.14.34-v7+ (raspberrypi)  07/29/2018  _armv7l_  (4 CPU)` (tab-separated)
fn iostat_line(line: &str) -> Option<(String, String, Option<String>, Option<u32>)> {
    let rest = line.strip_prefix("Linux ")?;
    let mut it = rest.split_whitespace();
    let kernel = it.next()?.to_string();
    let host = it.next()?;
    if !(host.starts_with('(') && host.ends_with(')')) {
        return None;
    }
    let host = host[1..host.len() - 1].to_string();
    let mut arch = None;
    let mut cpus = None;
    let toks: Vec<&str> = it.collect();
    for (i, t) in toks.iter().enumerate() {
        if t.len() > 2 && t.starts_with('_') && t.ends_with('_') {
            arch = Some(t[1..t.len() - 1].to_string());
        }
        if *t == "CPU)" && i > 0 {
            cpus = toks[i - 1].trim_start_matches('(').parse().ok();
        }
    }
    Some((kernel, host, arch, cpus))
}

pub fn system(lines: &[&str]) -> System {
    let mut s = System::default();
    // The lsb_release block, compiler and uptime come before the first separator; later
    // `Architecture:` lines belong to lscpu.
    let head_end = lines
        .iter()
        .position(|l| is_separator(l))
        .unwrap_or(lines.len());
    for line in &lines[..head_end] {
        if let Some(v) = value_after(line, "Distributor ID:") {
            s.distributor_id.get_or_insert(v.to_string());
        } else if let Some(v) = value_after(line, "Description:") {
            s.description.get_or_insert(v.to_string());
        } else if let Some(v) = value_after(line, "Release:") {
            s.release.get_or_insert(v.to_string());
        } else if let Some(v) = value_after(line, "Codename:") {
            s.codename.get_or_insert(v.to_string());
        } else if let Some(v) = value_after(line, "Architecture:") {
            s.architecture.get_or_insert(v.to_string());
        } else if line.starts_with('/') && (line.contains("gcc") || line.contains("clang")) {
            s.compiler.get_or_insert(line.trim().to_string());
        } else if let Some(v) = value_after(line, "Uptime:") {
            if let Some(i) = v.find("load average:") {
                // `0.09, 1.53, 1.73` or, with a comma locale, `0,99, 0,51, 1,03`
                let nums: Vec<f64> = v[i + 13..]
                    .split(", ")
                    .take(3)
                    .filter_map(|x| number(x.trim()))
                    .collect();
                if nums.len() == 3 {
                    s.load_avg = Some([nums[0], nums[1], nums[2]]);
                }
            }
        }
    }
    let mut in_software = false;
    let mut in_dt = false;
    for line in lines {
        // `DT compat: radxa,rock-5a` then `           rockchip,rk3588`: one entry a line.
        if let Some(v) = value_after(line, "DT compat:") {
            if s.dt_compat.is_empty() {
                s.dt_compat.push(v.to_string());
                in_dt = true;
            }
            continue;
        }
        if in_dt {
            let t = line.trim();
            if line.starts_with(' ') && t.contains(',') && !t.contains(':') && !t.contains(' ') {
                s.dt_compat.push(t.to_string());
                continue;
            }
            in_dt = false;
        }
        if s.kernel.is_none() {
            if let Some((k, host, arch, cpus)) = iostat_line(line) {
                s.kernel = Some(k);
                s.hostname = Some(host);
                s.kernel_arch = arch;
                s.cpus = cpus;
                continue;
            }
        }
        let t = line.trim();
        if let Some(v) = value_after(t, "Kernel:") {
            // `   Kernel: 6.6.10-cix-build-generic/aarch64` (v0.9.x); fills what iostat lacked.
            if let Some((k, a)) = v.rsplit_once('/') {
                if !k.contains(' ') {
                    s.kernel.get_or_insert(k.to_string());
                    if s.kernel_arch.is_none() {
                        s.kernel_arch = Some(a.to_string());
                    }
                }
            }
        } else if let Some(v) = value_after(t, "Userland:") {
            s.userland.get_or_insert(v.to_string());
        } else if let Some(v) = value_after(t, "CPU max MHz:") {
            if let Some(n) = number(v) {
                s.lscpu_max_mhz.push(n);
            }
        } else if let Some(v) = value_after(t, "Model name:") {
            s.model_name.get_or_insert(v.to_string());
        } else if let Some(v) = value_after(t, "SoC guess:") {
            s.soc_guess.get_or_insert(v.to_string());
        } else if let Some(v) = value_after(t, "Compiler:") {
            s.compiler.get_or_insert(v.to_string());
        } else if t == "### Software versions:" {
            in_software = true;
        } else if in_software {
            if let Some(v) = t.strip_prefix("* ") {
                s.os_pretty.get_or_insert(v.trim().to_string());
                in_software = false;
            }
        }
    }
    if s.userland.is_none() {
        s.userland = s.architecture.clone();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_variants() {
        let h = header(&["sbc-bench v0.4 -- Sun, 29 Jul 2018 12:34:58 +0000"]).unwrap();
        assert_eq!(h.version.as_deref(), Some("0.4"));
        assert_eq!(h.device, None);
        assert_eq!(h.date.as_deref(), Some("Sun, 29 Jul 2018 12:34:58 +0000"));

        let h = header(&["sbc-bench v0.9.72 Micro Computer (HK) Tech Limited MS-R1 1.0 (Mon, 10 Nov 2025 23:46:00 +0800)"]).unwrap();
        assert_eq!(h.version.as_deref(), Some("0.9.72"));
        assert_eq!(
            h.device.as_deref(),
            Some("Micro Computer (HK) Tech Limited MS-R1 1.0")
        );
        assert_eq!(h.date.as_deref(), Some("Mon, 10 Nov 2025 23:46:00 +0800"));

        let h = header(&[
            "sbc-bench v0.9.37 WeiBu ADL-N / i3-N305 extensive (Fri, 24 Mar 2023 10:00:00 +0100)",
        ])
        .unwrap();
        assert_eq!(h.mode.as_deref(), Some("extensive"));
        assert_eq!(h.device.as_deref(), Some("WeiBu ADL-N / i3-N305"));

        // No device name: the date is not taken for one (corpus: 0.4.6, 0.7.1 on x86).
        let h = header(&["sbc-bench v0.7.1  (Sun, 19 Apr 2020 14:33:16 +0000)"]).unwrap();
        assert_eq!(h.device, None);
        assert_eq!(h.date.as_deref(), Some("Sun, 19 Apr 2020 14:33:16 +0000"));
        // No board name: the CPU alone, without the separator (corpus: 0.9.8, 0.9.41).
        let h = header(&["sbc-bench v0.9.41  / N95 (Mon, 05 Jun 2023 13:24:35 +0200)"]).unwrap();
        assert_eq!(h.device.as_deref(), Some("N95"));
        assert_eq!(h.date.as_deref(), Some("Mon, 05 Jun 2023 13:24:35 +0200"));
        let h = header(&["sbc-bench v0.9.9  / Celeron 5205U @ 1.90GHz unattended (Fri, 28 Oct 2022 20:48:30 +1100)"]).unwrap();
        assert_eq!(h.device.as_deref(), Some("Celeron 5205U @ 1.90GHz"));
        assert_eq!(h.mode.as_deref(), Some("unattended"));

        assert!(header(&["Distributor ID:\tDebian"]).is_none());
    }

    #[test]
    fn system_lines() {
        let lines = [
            "sbc-bench v0.4 -- Sun, 29 Jul 2018 12:34:58 +0000",
            "",
            "Distributor ID:\tDebian",
            "Description:\tDebian GNU/Linux 9.4 (stretch)",
            "Release:\t9.4",
            "Codename:\tstretch",
            "Architecture:\tarmhf",
            "Uptime: 12:34:58 up 48 min,  2 users,  load average: 0.09, 1.53, 1.73",
            "Linux 4.14.34-v7+ (raspberrypi) \t07/29/2018 \t_armv7l_\t(4 CPU)",
            "##########",
            "Architecture:          armv7l",
        ];
        let s = system(&lines);
        let ru = system(&["Uptime: 19:24:40 up  1:06,  2 users,  load average: 0,99, 0,51, 1,03"]);
        assert_eq!(ru.load_avg, Some([0.99, 0.51, 1.03]));
        assert_eq!(s.codename.as_deref(), Some("stretch"));
        assert_eq!(s.architecture.as_deref(), Some("armhf"));
        assert_eq!(s.userland.as_deref(), Some("armhf"));
        assert_eq!(s.kernel.as_deref(), Some("4.14.34-v7+"));
        assert_eq!(s.kernel_arch.as_deref(), Some("armv7l"));
        assert_eq!(s.hostname.as_deref(), Some("raspberrypi"));
        assert_eq!(s.cpus, Some(4));
        assert_eq!(s.load_avg, Some([0.09, 1.53, 1.73]));
    }
}
