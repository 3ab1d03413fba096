//! `truebench measure …` (hidden): one measurement kernel alone, as the bench/ scripts call
//! it. `kernel` is not a command (it is kept for sbc-bench's `-k`, kernel information).

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_truebench");

#[test]
fn measure_runs_one_kernel_alone() {
    let out = Command::new(BIN)
        .args(["measure", "aes", "--seconds", "0.01", "--json"])
        .env("TRUEBENCH_LOCK_DIR", truebench_fixtures::lock_dir())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["table"]["rows"].as_array().unwrap().len(), 4, "{v}");
    assert!(v["implementation"].as_str().unwrap().contains("aes"), "{v}");

    // The text form the bench scripts parse (`bench/aes_vs_openssl.sh`).
    let out = Command::new(BIN)
        .args(["measure", "aes", "--seconds", "0.01"])
        .env("TRUEBENCH_LOCK_DIR", truebench_fixtures::lock_dir())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("AES instructions: cpu "), "{text}");
    assert!(text.contains("aes-256-cbc"), "{text}");
}

/// `measure` (once called `kernel`) is hidden; `kernel` is now the kernel report (sbc-bench -k)
/// and takes no measurement kernel names.
#[test]
fn measure_is_hidden_and_kernel_is_the_kernel_report() {
    let out = Command::new(BIN).arg("--help").output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    let commands: Vec<&str> = help
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(commands.contains(&"clocks"), "{help}");
    assert!(!commands.contains(&"measure"), "{help}");
    assert!(commands.contains(&"kernel"), "{help}");

    let out = Command::new(BIN)
        .args(["kernel", "aes", "--seconds", "0.01"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unexpected argument 'aes'"), "{stderr}");
    assert!(out.stdout.is_empty());
}
