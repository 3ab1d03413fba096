//! What `smartctl --json -H -A -i DEV` says about a drive's health (pure: the caller runs the
//! tool). NVMe: the critical warning, spare, wear, media errors; ATA: the attributes that mean
//! dying media (reallocated, pending, uncorrectable sectors) or a bad cable (CRC errors).

use super::{Setting, Severity};

/// One Setting summing up the drive, or why SMART could not be read.
pub fn smart_setting(disk: &str, json: &str) -> Setting {
    let s = Setting::new("storage", disk, "SMART", String::new())
        .from(format!("smartctl -H -A -i /dev/{disk}"));
    let v: serde_json::Value = match serde_json::from_str(json) {
        Ok(v) => v,
        Err(e) => {
            return Setting {
                value: "unreadable".into(),
                ..s.because(format!("smartctl printed no JSON: {e}"))
            }
        }
    };
    if v.get("smart_status").is_none() {
        let why = v
            .pointer("/smartctl/messages")
            .and_then(|m| m.as_array())
            .map(|m| {
                m.iter()
                    .filter_map(|x| x.get("string").and_then(|s| s.as_str()))
                    .collect::<Vec<_>>()
                    .join("; ")
            })
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| "no SMART status (the bridge or driver does not pass it)".into());
        return Setting {
            value: "not available".into(),
            ..s.because(why)
        };
    }
    let passed = v.pointer("/smart_status/passed").and_then(|p| p.as_bool());
    let mut facts = vec![match passed {
        Some(true) => "PASSED".to_string(),
        Some(false) => "FAILED".to_string(),
        None => "status unknown".to_string(),
    }];
    if let Some(h) = v.pointer("/power_on_time/hours").and_then(|h| h.as_u64()) {
        facts.push(format!("{h} h on"));
    }
    if let Some(t) = v.pointer("/temperature/current").and_then(|t| t.as_i64()) {
        facts.push(format!("{t} °C"));
    }
    let mut problems = Vec::new();
    if passed == Some(false) {
        problems.push("the drive itself reports that it is failing".to_string());
    }
    if let Some(n) = v.get("nvme_smart_health_information_log") {
        let get = |k: &str| n.get(k).and_then(|x| x.as_u64());
        if let Some(u) = get("percentage_used") {
            facts.push(format!("{u} % worn"));
            if u >= 90 {
                problems.push(format!("{u} % of its rated endurance used"));
            }
        }
        if let Some(w) = get("critical_warning").filter(|w| *w != 0) {
            problems.push(format!("critical warning 0x{w:x}"));
        }
        if let Some(m) = get("media_errors").filter(|m| *m > 0) {
            problems.push(format!("{m} media errors"));
        }
        if let (Some(a), Some(t)) = (get("available_spare"), get("available_spare_threshold")) {
            if a <= t {
                problems.push(format!("spare {a} % at or below its threshold {t} %"));
            }
        }
    }
    if let Some(table) = v
        .pointer("/ata_smart_attributes/table")
        .and_then(|t| t.as_array())
    {
        for a in table {
            let id = a.get("id").and_then(|x| x.as_u64()).unwrap_or(0);
            let raw = a
                .pointer("/raw/value")
                .and_then(|x| x.as_u64())
                .unwrap_or(0);
            if raw == 0 {
                continue;
            }
            match id {
                5 => problems.push(format!("{raw} reallocated sectors")),
                197 => problems.push(format!("{raw} sectors pending reallocation")),
                198 => problems.push(format!("{raw} uncorrectable sectors")),
                199 => problems.push(format!(
                    "{raw} interface CRC errors (a bad cable, connector or USB bridge: retries cost throughput)"
                )),
                _ => {}
            }
        }
    }
    let value = facts.join(", ");
    if problems.is_empty() {
        Setting {
            value,
            severity: Severity::Ok,
            ..s
        }
    } else {
        Setting {
            value,
            ..s.warn(problems.join("; "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(name: &str) -> String {
        let p = format!(
            "{}/../../tests/data/smartctl/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
    }

    // Real drives' smartctl output from smartctl_exporter's test data (tests/data/smartctl).
    #[test]
    fn a_healthy_nvme_drive() {
        let s = smart_setting("nvme0n1", &data("KXG60ZNV512G_TOSHIBA_2.json"));
        assert_eq!(
            (s.value.as_str(), s.severity),
            ("PASSED, 12173 h on, 37 °C, 1 % worn", Severity::Ok)
        );
    }

    #[test]
    fn reallocated_sectors_and_crc_errors() {
        let s = smart_setting("sda", &data("ST3500418AS_12.json"));
        assert_eq!(s.severity, Severity::Warn);
        assert!(
            s.why
                .as_deref()
                .unwrap()
                .contains("304 reallocated sectors"),
            "{s:?}"
        );
        let s = smart_setting("sdb", &data("HGST_HUS724020ALE640_28.json"));
        assert!(
            s.why
                .as_deref()
                .unwrap()
                .contains("12 interface CRC errors"),
            "{s:?}"
        );
    }

    #[test]
    fn no_smart_through_this_device() {
        // What smartctl 7.3 prints here for a virtio disk.
        let j = r#"{"json_format_version":[1,0],"smartctl":{"version":[7,3],"messages":[{"string":"/dev/vda: Unable to detect device type","severity":"error"}],"exit_status":1}}"#;
        let s = smart_setting("vda", j);
        assert_eq!(s.value, "not available");
        assert_eq!(
            s.why.as_deref(),
            Some("/dev/vda: Unable to detect device type")
        );
        assert_eq!(smart_setting("vda", "garbage").value, "unreadable");
    }
}
