//! The kernel log written while truebench runs, as the detectors read it: dmesg lines, or
//! why there are none. Reading it from the machine is `truebench_monitor::kmsg`'s.

use serde::{Deserialize, Serialize};

/// Kernel-log lines collected since `start`, or why they could not be.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum KernelLog {
    Lines(Vec<String>),
    Unavailable(String),
}

impl KernelLog {
    pub fn lines(&self) -> &[String] {
        match self {
            KernelLog::Lines(l) => l,
            KernelLog::Unavailable(_) => &[],
        }
    }
}

/// One line of a kernel-log file: a kmsg record becomes a dmesg line, a kmsg continuation
/// (` KEY=value`) is dropped, anything else is kept as it is.
pub fn log_line(line: &str) -> Option<String> {
    if line.trim().is_empty() || line.starts_with(' ') {
        return None;
    }
    Some(kmsg_record_to_dmesg(line).unwrap_or_else(|| line.trim_end().to_string()))
}

/// `6,1234,2877094811,-;message` (+ continuation lines) → `[ 2877.094811] message`.
/// None when `record` is not a kmsg record.
pub fn kmsg_record_to_dmesg(record: &str) -> Option<String> {
    let (head, rest) = record.split_once(';')?;
    let f: Vec<&str> = head.split(',').collect();
    if f.len() < 3
        || !f[..3]
            .iter()
            .all(|x| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let usec: u64 = f[2].parse().ok()?;
    // The message ends at the first newline; what follows are ` KEY=value` dictionary lines.
    let msg = rest.split('\n').next().unwrap_or("").trim_end();
    Some(format!(
        "[{:5}.{:06}] {msg}",
        usec / 1_000_000,
        usec % 1_000_000
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_become_dmesg_lines() {
        assert_eq!(
            kmsg_record_to_dmesg("6,339,2877094811,-;CPU1: shutdown\n").as_deref(),
            Some("[ 2877.094811] CPU1: shutdown")
        );
        assert_eq!(
            kmsg_record_to_dmesg(
                "4,1,5000,-,caller=T1;psci: CPU3 killed (polled 0 ms)\n SUBSYSTEM=cpu\n"
            )
            .as_deref(),
            Some("[    0.005000] psci: CPU3 killed (polled 0 ms)")
        );
        assert_eq!(
            kmsg_record_to_dmesg("3,2,123456789012,-;x").as_deref(),
            Some("[123456.789012] x")
        );
        assert!(kmsg_record_to_dmesg("[ 1.0] not a record; really").is_none());
        assert!(kmsg_record_to_dmesg("a,b,c;x").is_none());
    }

    #[test]
    fn json_shape() {
        let j = serde_json::to_string(&KernelLog::Unavailable("x".into())).unwrap();
        assert_eq!(j, r#"{"unavailable":"x"}"#);
    }
}
