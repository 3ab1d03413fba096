//! System state around the benchmarks: kernel log, memory and swap, thermal source, sensors,
//! the log's own validation bullets and the Markdown row sbc-bench appended.

use super::util::{human_size, int, is_separator, number};
use crate::log::{EmbeddedRow, FreeSnapshot, SensorChip, SensorReading, SwapDevice, ThermalSource};

pub fn dmesg(lines: &[&str]) -> Option<Vec<String>> {
    let start = lines
        .iter()
        .position(|l| l.starts_with("dmesg output while running the benchmarks"))?;
    let mut out: Vec<String> = lines[start + 1..]
        .iter()
        .take_while(|l| !is_separator(l))
        .map(|l| l.to_string())
        .collect();
    while out.first().is_some_and(|l| l.trim().is_empty()) {
        out.remove(0);
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    Some(out)
}

/// `free` / `free -h` outputs: a `Mem:` line followed (after procps 3's `-/+ buffers/cache:`
/// line) by `Swap:`.
pub fn free(lines: &[&str]) -> Vec<FreeSnapshot> {
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        // `free` is localised on some systems (`Память:`/`Подкачка:` in the corpus).
        let Some(mem) = line
            .strip_prefix("Mem:")
            .or_else(|| line.strip_prefix("Память:"))
        else {
            continue;
        };
        let m: Vec<&str> = mem.split_whitespace().collect();
        let mut snap = FreeSnapshot {
            mem_total: m.first().and_then(|s| human_size(s)),
            mem_used: m.get(1).and_then(|s| human_size(s)),
            mem_available: m.get(5).and_then(|s| human_size(s)),
            ..Default::default()
        };
        if let Some(swap) = lines[i + 1..].iter().take(2).find_map(|l| {
            l.strip_prefix("Swap:")
                .or_else(|| l.strip_prefix("Подкачка:"))
        }) {
            let s: Vec<&str> = swap.split_whitespace().collect();
            snap.swap_total = s.first().and_then(|s| human_size(s));
            snap.swap_used = s.get(1).and_then(|s| human_size(s));
        }
        out.push(snap);
    }
    out
}

/// `swapon -s` tables.
pub fn swapon(lines: &[&str]) -> Vec<Vec<SwapDevice>> {
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let header = (line.starts_with("Filename") && line.contains("Priority"))
            || (line.starts_with("Имя файла") && line.contains("Приоритет"));
        if !header {
            continue;
        }
        let mut devs = Vec::new();
        for l in &lines[i + 1..] {
            let t: Vec<&str> = l.split_whitespace().collect();
            if t.len() < 5 {
                break;
            }
            devs.push(SwapDevice {
                filename: t[0].to_string(),
                kind: t[1].to_string(),
                size_kb: int(t[2]),
                used_kb: int(t[3]),
                priority: t[4].parse().ok(),
            });
        }
        out.push(devs);
    }
    out
}

/// `Thermal source: /sys/devices/virtual/thermal/thermal_zone0/ (cpu-thermal)`
pub fn thermal_source(lines: &[&str]) -> Option<ThermalSource> {
    let rest = lines
        .iter()
        .find_map(|l| l.strip_prefix("Thermal source:"))?
        .trim();
    let (path, name) = match rest.split_once(" (") {
        Some((p, n)) => (p.trim(), Some(n.trim_end_matches(')').to_string())),
        None => (rest, None),
    };
    Some(ThermalSource {
        path: path.to_string(),
        name,
    })
}

/// `temp1:        +36.0 C  (crit = +105.0 C)`, `in0:           5.10 V`, `/dev/nvme0:<TAB>33°C`
fn reading(label: &str, rest: &str) -> SensorReading {
    let toks: Vec<&str> = rest.split_whitespace().collect();
    let first = toks.first().copied().unwrap_or("");
    let (value, unit) = if let Some(v) = first.strip_suffix("°C") {
        (number(v), Some("C".to_string()))
    } else {
        (
            number(first),
            toks.get(1)
                .filter(|u| !u.starts_with('('))
                .map(|u| u.to_string()),
        )
    };
    SensorReading {
        label: label.trim().to_string(),
        value,
        unit,
    }
}

pub fn sensors(lines: &[&str]) -> Vec<Vec<SensorChip>> {
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !line.starts_with("Hardware sensors:") {
            continue;
        }
        let mut chips: Vec<SensorChip> = Vec::new();
        let mut current: Option<SensorChip> = None;
        for l in &lines[i + 1..] {
            if is_separator(l) {
                break;
            }
            if l.trim().is_empty() {
                if let Some(c) = current.take() {
                    chips.push(c);
                }
                continue;
            }
            if l.starts_with(char::is_whitespace) || l.starts_with("Adapter:") {
                continue; // continuation `(crit = …)` lines, adapter names
            }
            if l.starts_with("/dev/") {
                if let Some((dev, rest)) = l.split_once(':') {
                    chips.push(SensorChip {
                        name: dev.to_string(),
                        readings: vec![reading("temp", rest)],
                    });
                }
                continue;
            }
            match l.split_once(':') {
                Some((label, rest)) => {
                    if let Some(c) = current.as_mut() {
                        c.readings.push(reading(label, rest));
                    }
                }
                None => {
                    if let Some(c) = current.take() {
                        chips.push(c);
                    }
                    current = Some(SensorChip {
                        name: l.trim().to_string(),
                        readings: Vec::new(),
                    });
                }
            }
        }
        if let Some(c) = current.take() {
            chips.push(c);
        }
        out.push(chips);
    }
    out
}

/// The bullets under `Results validation:`.
pub fn validation(lines: &[&str]) -> Option<Vec<String>> {
    let start = lines
        .iter()
        .position(|l| l.starts_with("Results validation:"))?;
    let mut out = Vec::new();
    for l in &lines[start + 1..] {
        let t = l.trim();
        if t.is_empty() && out.is_empty() {
            continue;
        }
        match t.strip_prefix("* ") {
            Some(b) => out.push(b.trim().to_string()),
            None => break,
        }
    }
    Some(out)
}

/// Warnings sbc-bench wrote outside `Results validation:` — the only verdicts older logs carry.
pub fn warnings(lines: &[&str]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| {
            l.starts_with("Throttling occured")
                || l.starts_with("WARNING:")
                || l.starts_with("ATTENTION:")
        })
        .map(|l| l.trim().to_string())
        .collect()
}

/// The last Markdown row sbc-bench appended (`| device | clock | … |`).
pub fn embedded_row(lines: &[&str], version: Option<&[u32]>) -> Option<EmbeddedRow> {
    let line = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("| ") && l.matches('|').count() >= 11)?;
    let inner = line.trim().trim_start_matches('|');
    let mut cells: Vec<String> = inner.split('|').map(|c| c.trim().to_string()).collect();
    while cells.last().is_some_and(|c| c.is_empty()) {
        cells.pop();
    }
    // v0.8.4 … v0.9.8 wrote `| zip | AES-128 16 B | AES-256 16 KiB |`; v0.9.9 changed the
    // second score to the single-threaded 7-zip rating during its development. A
    // single-threaded rating can never exceed the multi-threaded one; AES-128 at 16 bytes (in
    // 1000 bytes/s) always does, which tells the two layouts apart inside v0.9.9.
    let layout = match version {
        Some(v) if v < &[0, 9, 9][..] => "aes128",
        Some(v) if v > &[0, 9, 9][..] => "single",
        _ => {
            let zip = cells.get(4).and_then(|c| int(c));
            let second = cells.get(5).and_then(|c| int(c));
            match (zip, second) {
                (Some(z), Some(s)) if s > z => "aes128",
                _ => "single",
            }
        }
    };
    Some(EmbeddedRow {
        line: line.trim_end().to_string(),
        cells,
        layout: layout.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_and_swapon() {
        let lines = [
            "              total        used        free      shared  buff/cache   available",
            "Mem:           976M         59M        803M         29M        113M        872M",
            "Swap:          488M        5.8M        482M",
            "",
            "Filename\t\t\t\tType\t\tSize\tUsed\tPriority",
            "/dev/zram0                             \tpartition\t125020\t1536\t5",
            "",
            "             total       used       free     shared    buffers     cached",
            "Mem:       1022028     400000     622028          0      10000     200000",
            "-/+ buffers/cache:     190000     832028",
            "Swap:       511996       1024     510972",
        ];
        let f = free(&lines);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].swap_used, human_size("5.8M"));
        assert_eq!(f[0].mem_available, human_size("872M"));
        assert_eq!(f[1].swap_used, Some(1024 * 1024));
        let s = swapon(&lines);
        assert_eq!(s[0].len(), 1);
        assert_eq!(s[0][0].kind, "partition");
        assert_eq!(s[0][0].used_kb, Some(1536));
    }

    #[test]
    fn sensors_block() {
        let lines = [
            "Hardware sensors:",
            "",
            "acpitz-acpi-0",
            "temp1:        +36.0 C  ",
            "temp2:        +35.0 C  (crit = +105.0 C)",
            "                       (crit = +105.0 C)",
            "",
            "ina226-i2c-0-40",
            "in0:           5.10 V  ",
            "",
            "/dev/nvme0:\t33°C",
            "",
            "##########",
        ];
        let s = sensors(&lines);
        assert_eq!(s.len(), 1);
        let chips = &s[0];
        assert_eq!(chips.len(), 3);
        assert_eq!(chips[0].readings.len(), 2);
        assert_eq!(chips[0].readings[1].value, Some(35.0));
        assert_eq!(chips[0].readings[1].unit.as_deref(), Some("C"));
        assert_eq!(chips[1].readings[0].unit.as_deref(), Some("V"));
        assert_eq!(chips[2].name, "/dev/nvme0");
        assert_eq!(chips[2].readings[0].value, Some(33.0));
    }

    #[test]
    fn validation_dmesg_row() {
        let lines = [
            "dmesg output while running the benchmarks:",
            "",
            "[  516.831051] CPU3: update max cpu_capacity 950",
            "",
            "##########",
            "Results validation:",
            "",
            "  * Measured clockspeed not lower than advertised max CPU clockspeed",
            "  * No swapping",
            "",
            "| Radxa ROCK 5A | ~2290 | 5.10 | Debian GNU/Linux 11 (bullseye) arm64 | 15630 | 3015 | 1302120 | 9170 | 27080 | 23.42 |",
        ];
        assert_eq!(
            dmesg(&lines).unwrap(),
            vec!["[  516.831051] CPU3: update max cpu_capacity 950"]
        );
        assert_eq!(validation(&lines).unwrap().len(), 2);
        let r = embedded_row(&lines, Some(&[0, 9, 65])).unwrap();
        assert_eq!(r.cells.len(), 10);
        assert_eq!(r.layout, "single");
        let r = embedded_row(&["| RPi 4 | 1500 MHz | 5.10 | Buster armhf | 5750 | 62310 | 64930 | 2550 | 3430 | - | []() |"], Some(&[0, 8, 4])).unwrap();
        assert_eq!((r.layout.as_str(), r.cells.len()), ("aes128", 11));
        let r = embedded_row(&["| MangoPi | 1800 MHz | 5.19 | Jammy arm64 | 4100 | 133750 | 840270 | 990 | 2380 | - |"], Some(&[0, 9, 9])).unwrap();
        assert_eq!(r.layout, "aes128");
        let r = embedded_row(&["| Jetson | 2265600 MHz | 4.9 | Bionic arm64 | 21590 | 2742 | 853250 | 10910 | 22520 | 26.57 |"], Some(&[0, 9, 9])).unwrap();
        assert_eq!(r.layout, "single");
    }
}
