//! `truebench review` end to end on fixture roots of real boards: the report (text, Markdown,
//! JSON), -R tuning that writes into the recorded tree and restores it — after --exec, after
//! --duration and after Ctrl-C — and bad input.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;
use common::{json, measured, BIN};

fn truebench(tmp: &Path) -> Command {
    let mut c = common::truebench(tmp);
    c.arg("review");
    c
}

fn tree(root: &Path) -> std::collections::BTreeMap<std::path::PathBuf, Vec<u8>> {
    truebench_fixtures::tree_bytes(root, &["var/lib/truebench"])
}

#[test]
fn report_of_the_tv_box_as_text_markdown_and_json() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("s905x3-x96maxplus");
    let before = tree(root.path());
    let run = |extra: &[&str]| {
        truebench(tmp.path())
            .arg("--root")
            .arg(root.path())
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&["--no-store"]);
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    for want in [
        "WARN policy0 (cpu0-cpu3) ondemand io_is_busy: 0",
        "eMMC reads 29 → 44 MB/s",
        "WARN 1-1 (ASMedia ASM1153E, 174c:55aa) speed: 480 Mbit/s, USB 3.20",
        "kernel:\n",
        "Not tuned: review reports the settings as found (-R tunes)",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    let out = run(&["--markdown", "--no-store"]);
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.starts_with("# AMedia X96 Max+\n"), "{md}");
    assert!(
        md.contains("### storage\n") && md.contains("**⚠** 1-1"),
        "{md}"
    );
    assert!(
        md.contains("### Kernel info\n\n  * Kernel 5.15.25-flippy-70+"),
        "{md}"
    );
    let out = run(&["--json"]);
    let doc = json(&out);
    assert_eq!(doc["kind"], "review");
    assert_eq!(doc["body"]["tuned"], false);
    assert_eq!(doc["body"]["kernel"]["origin"]["kind"], "community");
    assert!(doc["body"]["settings"].as_array().unwrap().len() > 10);
    // Stored in the history under its kind.
    let h = Command::new(BIN)
        .env("XDG_DATA_HOME", tmp.path().join("data"))
        .args(["history", "--kind", "review"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&h.stdout).contains("review"),
        "{h:?}"
    );
    assert_eq!(tree(root.path()), before, "reporting changes nothing");
}

/// -R on the recorded ROCK 5B: governors, devfreq and ASPM go to performance while the
/// command runs, the command sees them, and everything is back afterwards.
#[test]
fn tune_run_a_command_and_restore() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let before = tree(root.path());
    let dmc = root.path().join("sys/class/devfreq/dmc/governor");
    let seen = tmp.path().join("seen");
    let script = format!("cat {} > {}", dmc.display(), seen.display());
    let out = truebench(tmp.path())
        .arg("--root")
        .arg(root.path())
        .args([
            "-R",
            "--json",
            "--no-store",
            "--interval",
            "0.2",
            "--exec",
            "sh",
            "-c",
            &script,
        ])
        .output()
        .unwrap();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(&seen).unwrap().trim(),
        "performance"
    );
    let doc = json(&out);
    assert_eq!(doc["body"]["tuned"], true);
    assert_eq!(doc["body"]["exit_code"], 0);
    let changes = doc["body"]["tuning_changes"].to_string();
    for want in ["dmc_ondemand / 528 MHz", "performance", "ASPM policy"] {
        assert!(changes.contains(want), "{want}: {changes}");
    }
    assert_eq!(tree(root.path()), before, "every setting restored");
}

#[test]
fn ctrl_c_ends_the_monitoring_and_restores() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let before = tree(root.path());
    let gov = root
        .path()
        .join("sys/devices/system/cpu/cpufreq/policy0/scaling_governor");
    let child = truebench(tmp.path())
        .arg("--root")
        .arg(root.path())
        .args(["-R", "--json", "--no-store", "--interval", "0.2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while std::fs::read_to_string(&gov).unwrap().trim() != "performance" {
        assert!(t0.elapsed() < Duration::from_secs(30), "never tuned");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(600));
    crate::common::signal("-INT", child.id());
    let out = child.wait_with_output().unwrap();
    let doc = json(&out);
    assert_eq!(doc["body"]["tuned"], true);
    assert!(
        doc["body"]["monitored_s"].as_f64().unwrap() > 0.3,
        "{}",
        doc["body"]
    );
    assert_eq!(tree(root.path()), before, "restored after Ctrl-C");
}

#[test]
fn a_duration_and_bad_values() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rpi4b");
    let out = truebench(tmp.path())
        .arg("--root")
        .arg(root.path())
        .args(["--duration", "0.5", "--interval", "0.1", "--no-store"])
        .output()
        .unwrap();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("While monitored for"), "{text}");
    for (args, want) in [
        (
            vec!["--duration", "0"],
            "--duration 0: expected seconds above 0",
        ),
        (
            vec!["--interval=-1"],
            // One rule for the sampling interval on every command.
            "--interval -1: expected seconds between 0.01 and 3600",
        ),
        (vec!["--releases", "/nonexistent/list"], "/nonexistent/list"),
    ] {
        let out = truebench(tmp.path())
            .args(&args)
            .arg("--no-store")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let out = truebench(tmp.path())
        .args(["--no-store", "--exec", "/nonexistent/cmd"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(127));
}

/// Here: the VM's own settings, and SMART asked of every disk (or said why not).
#[test]
fn live_machine_report() {
    let tmp = tempfile::tempdir().unwrap();
    let out = truebench(tmp.path())
        .args(["--json", "--no-store"])
        .output()
        .unwrap();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let doc = json(&out);
    let settings = doc["body"]["settings"].as_array().unwrap();
    let smart: Vec<&Value> = settings.iter().filter(|s| s["name"] == "SMART").collect();
    let disks = std::fs::read_dir("/sys/block")
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|d| {
            !["loop", "ram", "zram", "dm-", "md", "sr", "nbd", "mmcblk"]
                .iter()
                .any(|p| d.starts_with(p))
        })
        .filter(|d| {
            std::fs::read_to_string(format!("/sys/block/{d}/size"))
                .map(|s| s.trim() != "0")
                .unwrap_or(false)
        })
        .count();
    if disks > 0 {
        assert!(!smart.is_empty(), "{settings:?}");
        for s in smart {
            let v = s["value"].as_str().unwrap();
            assert!(
                v == "not available"
                    || v == "not read"
                    || v.starts_with("PASSED")
                    || v.starts_with("FAILED"),
                "{s}"
            );
        }
    }
}

/// The stored document renders as an HTML page with the settings table.
#[test]
fn html_report_of_a_review() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let out = truebench(tmp.path())
        .arg("--root")
        .arg(root.path())
        .args(["--json", "--no-store"])
        .output()
        .unwrap();
    assert!(measured(&out));
    let doc = tmp.path().join("review.json");
    std::fs::write(&doc, &out.stdout).unwrap();
    let html = tmp.path().join("review.html");
    let r = Command::new(BIN)
        .env("XDG_DATA_HOME", tmp.path().join("data"))
        .arg("report")
        .arg(&doc)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<h2>Settings</h2>"), "no settings section");
    assert!(page.contains("USB storage, usb-storage, NS1066"));
    assert!(page.contains("<tr class=\"warn\">"));
}

/// While the command runs, the NVMe link trains down and the kernel logs a USB reset (both
/// done by the command to the recorded tree): the review reports both.
#[test]
fn what_changed_while_monitoring() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let r = root.path();
    std::fs::create_dir_all(r.join("dev")).unwrap();
    std::fs::write(r.join("dev/kmsg"), "[    1.0] Booting Linux\n").unwrap();
    let link = r.join("sys/bus/pci/devices/0000:01:00.0/current_link_speed");
    let script = format!(
        "sleep 0.3; echo '[  100.0] usb 8-1: reset SuperSpeed USB device number 2 using xhci-hcd' >> {}; \
         echo '2.5 GT/s PCIe' > {}; sleep 0.3",
        r.join("dev/kmsg").display(),
        link.display()
    );
    let out = truebench(tmp.path())
        .arg("--root")
        .arg(r)
        .args([
            "--json",
            "--no-store",
            "--interval",
            "0.1",
            "--exec",
            "sh",
            "-c",
            &script,
        ])
        .output()
        .unwrap();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let doc = json(&out);
    let changes = doc["body"]["status_changes"].as_array().unwrap();
    assert!(
        changes.iter().any(|c| c["name"] == "link"
            && c["before"] == "8.0 GT/s PCIe x4"
            && c["after"] == "2.5 GT/s PCIe x4"),
        "{changes:?}"
    );
    let errors = doc["body"]["kernel_errors"].to_string();
    assert!(errors.contains("usb 8-1: reset SuperSpeed"), "{errors}");
    assert!(!errors.contains("Booting"), "{errors}");
}

/// -R with --duration: the plan, the monitoring as step 1 of 1 and its result on stderr;
/// nothing with --quiet.
#[test]
fn tuned_monitoring_is_a_step_on_stderr_and_quiet_says_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let before = tree(root.path());
    let run = |extra: &[&str]| {
        truebench(tmp.path())
            .arg("--root")
            .arg(root.path())
            .args(["-R", "--duration", "1", "--interval", "0.2", "--no-store"])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = run(&[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(measured(&out), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines[..2],
        [
            "truebench: settings tuned to performance; monitoring for 1 s (Ctrl-C ends earlier)…",
            "truebench: [1/1] monitoring (about 1.0 s)",
        ],
        "{err}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("truebench: [1/1] monitoring: ok, ") && l.ends_with(" s")),
        "{err}"
    );
    assert_eq!(tree(root.path()), before, "every setting restored");
    let quiet = run(&["--quiet"]);
    assert!(measured(&quiet));
    assert_eq!(String::from_utf8_lossy(&quiet.stderr), "");
}
