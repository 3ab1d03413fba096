//! Raspberry Pi firmware settings that cost performance (config.txt) and the firmware's record
//! of under-voltage and throttling since boot (`get_throttled`).

use super::Setting;
use crate::Host;

/// Official `get_throttled` bit meanings (raspberrypi.com documentation). sbc-bench's printed
/// legend swaps bits 1 and 2 (and 17 and 18).
pub const THROTTLED_BITS: &[(u32, &str)] = &[
    (0, "under-voltage detected"),
    (1, "arm frequency capped"),
    (2, "currently throttled"),
    (3, "soft temperature limit active"),
    (16, "under-voltage has occurred"),
    (17, "arm frequency capping has occurred"),
    (18, "throttling has occurred"),
    (19, "soft temperature limit has occurred"),
];

const GET_THROTTLED: &str = "sys/devices/platform/soc/soc:firmware/get_throttled";
const CONFIG_TXT: [&str; 2] = ["boot/firmware/config.txt", "boot/config.txt"];

/// `key=value` settings of config.txt with the conditional section each is in (`[pi4]`,
/// `[all]`); comments and blank lines skipped.
pub fn parse_config_txt(text: &str) -> Vec<(String, String, String)> {
    let mut section = "all".to_string();
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.split('#').next().unwrap_or("").trim();
        if let Some(s) = t.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            section = s.trim().to_string();
            continue;
        }
        if let Some((k, v)) = t.split_once('=') {
            out.push((section.clone(), k.trim().to_string(), v.trim().to_string()));
        }
    }
    out
}

pub fn review(host: &Host, out: &mut Vec<Setting>) {
    if let Some(hex) = host.read_trimmed(GET_THROTTLED) {
        if let Ok(bits) = u32::from_str_radix(hex.trim_start_matches("0x"), 16) {
            let set: Vec<&str> = THROTTLED_BITS
                .iter()
                .filter(|(b, _)| bits & (1 << b) != 0)
                .map(|(_, m)| *m)
                .collect();
            let s = Setting::new(
                "firmware",
                "Raspberry Pi",
                "get_throttled",
                format!("0x{bits:x}"),
            )
            .from(GET_THROTTLED);
            out.push(if set.is_empty() {
                s.ok()
            } else {
                s.warn(format!(
                    "{} — under-voltage makes the firmware cap the ARM clock (600 MHz on Pi 2-4, \
                     1-1.5 GHz on Pi 5): use a better power supply or cable",
                    set.join(", ")
                ))
            });
        }
    }
    let Some((path, text)) = CONFIG_TXT
        .iter()
        .find_map(|p| host.read(p).ok().map(|t| (*p, t)))
    else {
        return;
    };
    let settings = parse_config_txt(&text);
    let get = |k: &str| settings.iter().rev().find(|(_, key, _)| key == k);
    let subject = |sec: &str| format!("config.txt [{sec}]");
    if let Some((sec, _, v)) = get("temp_soft_limit") {
        let s = Setting::new(
            "firmware",
            subject(sec),
            "temp_soft_limit",
            format!("{v} °C"),
        )
        .from(path);
        out.push(match v.parse::<f64>() {
            Ok(t) if t < 70.0 => s.warn(format!(
                "the firmware lowers the clock from {t} °C on: earlier than the 70 °C most boards \
                 can take (Pi 3B+ ships with 60)"
            )),
            _ => s.ok(),
        });
    }
    if let Some((sec, _, v)) = get("arm_boost") {
        let s = Setting::new("firmware", subject(sec), "arm_boost", v).from(path);
        out.push(if v == "0" {
            s.warn("arm_boost=0: a Pi 4 stays at 1.5 GHz instead of 1.8 GHz")
        } else {
            s.ok()
        });
    }
    let force_turbo = get("force_turbo").is_some_and(|(_, _, v)| v == "1");
    if let Some((sec, _, v)) = get("over_voltage") {
        let s = Setting::new("firmware", subject(sec), "over_voltage", v).from(path);
        let raised = v.parse::<i32>().is_ok_and(|o| o > 0);
        out.push(if raised && force_turbo {
            s.warn(
                "over_voltage with force_turbo=1 sets the SoC's warranty bit for good and keeps \
                 the cores at full clock and voltage even when idle",
            )
        } else if raised {
            s.because("raised core voltage: more heat, earlier throttling")
        } else {
            s.ok()
        });
    } else if force_turbo {
        out.push(
            Setting::new("firmware", "config.txt", "force_turbo", "1")
                .from(path)
                .because("the cores never clock down: more idle power and heat"),
        );
    }
    for key in ["arm_freq", "gpu_mem", "total_mem"] {
        if let Some((sec, _, v)) = get(key) {
            out.push(
                Setting::new("firmware", subject(sec), key, v)
                    .from(path)
                    .because(match key {
                        "arm_freq" => "the ARM clock set by hand (overclocking or underclocking)",
                        "gpu_mem" => "memory taken from Linux for the GPU",
                        _ => "memory Linux may use, limited by hand",
                    }),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_txt_sections() {
        let s = parse_config_txt(
            "# comment\narm_64bit=1\n[pi4]\narm_boost=1 # boost\n\n[all]\nover_voltage=2\n",
        );
        assert_eq!(
            s,
            [
                ("all".into(), "arm_64bit".into(), "1".into()),
                ("pi4".into(), "arm_boost".into(), "1".into()),
                ("all".into(), "over_voltage".into(), "2".into()),
            ]
        );
        assert!(parse_config_txt("garbage\n[\n=\n").len() <= 1);
    }
}
