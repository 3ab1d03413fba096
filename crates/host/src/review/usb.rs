//! USB devices negotiated below what they support (a USB 3 device on a USB 2 port or cable).

use super::Setting;
use crate::Host;

const USB: &str = "sys/bus/usb/devices";

pub fn review(host: &Host, out: &mut Vec<Setting>) {
    for dev in host.list(USB) {
        // Devices are `1-1`, `2-1.3`; `usb1` is a root hub, `1-1:1.0` an interface.
        if !dev.contains('-') || dev.contains(':') {
            continue;
        }
        let d = format!("{USB}/{dev}");
        let (Some(speed), Some(version)) = (
            host.read_trimmed(format!("{d}/speed")),
            host.read_trimmed(format!("{d}/version")),
        ) else {
            continue;
        };
        let Ok(mbit) = speed.parse::<f64>() else {
            continue;
        };
        let major = version
            .split('.')
            .next()
            .and_then(|v| v.trim().parse::<u32>().ok());
        let name = [
            host.read_trimmed(format!("{d}/manufacturer")),
            host.read_trimmed(format!("{d}/product")),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
        let ids = format!(
            "{}:{}",
            host.read_trimmed(format!("{d}/idVendor"))
                .unwrap_or_default(),
            host.read_trimmed(format!("{d}/idProduct"))
                .unwrap_or_default()
        );
        let subject = if name.is_empty() {
            format!("{dev} ({ids})")
        } else {
            format!("{dev} ({name}, {ids})")
        };
        let s = Setting::new(
            "usb",
            subject,
            "speed",
            format!("{speed} Mbit/s, USB {}", version.trim()),
        )
        .from(format!("{d}/speed"));
        out.push(if major.is_some_and(|m| m >= 3) && mbit <= 480.0 {
            s.warn(
                "a USB 3 device connected at USB 2 speed: a USB 2 port, hub or cable in between \
                 (or a bad USB 3 contact) limits it to about 40 MB/s",
            )
        } else {
            s.ok()
        });
    }
}
