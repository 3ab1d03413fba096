//! `truebench io`: real reads of a scratch file on this machine's disk (removed afterwards,
//! also on Ctrl-C), an existing file that is only read, clear errors, the sweep on a fixture
//! root, report and compare.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use common::{json, measured, BIN};

fn truebench(tmp: &Path) -> Command {
    let mut c = common::truebench(tmp);
    c.arg("io");
    c
}

/// A directory on disk (tmpfs refuses O_DIRECT): /var/tmp, which the FHS keeps on disk.
fn disk_dir() -> tempfile::TempDir {
    tempfile::tempdir_in("/var/tmp").unwrap()
}

#[test]
fn a_scratch_file_is_read_three_ways_and_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let disk = disk_dir();
    let scratch: PathBuf = disk.path().join("scratch");
    let out = truebench(tmp.path())
        .arg("--file")
        .arg(&scratch)
        .args([
            "--size",
            "16",
            "--duration",
            "0.3",
            "--repeat",
            "2",
            "--json",
            "--no-store",
        ])
        .output()
        .unwrap();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!scratch.exists(), "the scratch file is removed");
    let doc = json(&out);
    assert_eq!(doc["kind"], "io");
    assert_eq!(doc["body"]["target_kind"], "scratch file");
    assert_eq!(doc["body"]["size_bytes"], 16 << 20);
    let rows = doc["body"]["rows"].as_array().unwrap();
    let tests: Vec<&str> = rows.iter().map(|r| r["test"].as_str().unwrap()).collect();
    assert_eq!(
        tests,
        [
            "cached",
            "sequential",
            "random",
            "random",
            "sequential",
            "cached"
        ]
    );
    for r in rows {
        assert_eq!(r["status"], "ok", "{r}");
        assert!(r["mb_s"].as_f64().unwrap() > 0.0 && r["iops"].as_f64().unwrap() > 0.0);
        assert_eq!(r["direct"], r["test"] != "cached", "{r}");
        assert!(!r["cores"].as_array().unwrap().is_empty(), "{r}");
    }
    // The random test has latency percentiles; block sizes are hdparm's and fio's.
    let random = rows.iter().find(|r| r["test"] == "random").unwrap();
    assert!(
        random["latency_p99_us"].as_f64().unwrap() >= random["latency_p50_us"].as_f64().unwrap()
    );
    assert_eq!(random["block_bytes"], 4096);
    // What holds /var/tmp was found (a disk here; the VM's is virtio).
    let st = &doc["body"]["storage"];
    assert!(st["device"].as_str().unwrap().starts_with("/dev/"), "{st}");
    // Report and compare.
    let result = tmp.path().join("io.json");
    std::fs::write(&result, &out.stdout).unwrap();
    let html = tmp.path().join("io.html");
    let r = Command::new(BIN)
        .arg("report")
        .arg(&result)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .contains("Storage reads"));
    let c = Command::new(BIN)
        .arg("compare")
        .arg(&result)
        .arg(&result)
        .output()
        .unwrap();
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    assert!(String::from_utf8_lossy(&c.stdout).contains("random: IOPS"));
}

#[test]
fn an_existing_file_is_only_read() {
    let tmp = tempfile::tempdir().unwrap();
    let disk = disk_dir();
    let f = disk.path().join("data");
    let content: Vec<u8> = (0..(8u32 << 20)).map(|i| (i % 251) as u8).collect();
    std::fs::write(&f, &content).unwrap();
    let out = truebench(tmp.path())
        .arg("--file")
        .arg(&f)
        .args([
            "--tests",
            "sequential,random",
            "--duration",
            "0.2",
            "--repeat",
            "1",
        ])
        .args(["--no-store"])
        .output()
        .unwrap();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("(file, 8 MiB read)"), "{text}");
    assert_eq!(std::fs::read(&f).unwrap(), content, "never written");
}

#[test]
fn bad_targets_and_values_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let disk = disk_dir();
    let small = disk.path().join("small");
    std::fs::write(&small, [1u8; 100]).unwrap();
    for (args, code, what) in [
        (
            vec!["--device".to_string(), "/etc/hostname".into()],
            2,
            "not a block device".to_string(),
        ),
        (
            vec!["--file".to_string(), "/proc".into()],
            2,
            "not a regular file".into(),
        ),
        (
            vec![
                "--file".into(),
                small.display().to_string(),
                "--tests".into(),
                "sideways".into(),
            ],
            2,
            "--tests sideways".into(),
        ),
        (
            vec![
                "--file".into(),
                small.display().to_string(),
                "--duration".into(),
                "0".into(),
            ],
            2,
            "--duration 0".into(),
        ),
        (
            vec!["--file".into(), "/no/such/dir/x".into()],
            2,
            "/no/such/dir/x".into(),
        ),
    ] {
        let o = truebench(tmp.path())
            .args(&args)
            .arg("--no-store")
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {e}");
        assert!(e.contains(&what), "{args:?}: {e}");
    }
    // Too small to test: the test fails with the reason, exit 1.
    let o = truebench(tmp.path())
        .arg("--file")
        .arg(&small)
        .args([
            "--tests",
            "sequential",
            "--duration",
            "0.2",
            "--repeat",
            "1",
            "--json",
            "--no-store",
        ])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let doc = json(&o);
    assert!(doc["body"]["rows"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("too small"));
}

#[test]
fn ctrl_c_removes_the_scratch_file_and_keeps_what_completed() {
    let tmp = tempfile::tempdir().unwrap();
    let disk = disk_dir();
    let scratch = disk.path().join("scratch");
    let child = truebench(tmp.path())
        .arg("--file")
        .arg(&scratch)
        .args([
            "--size",
            "16",
            "--tests",
            "cached,random",
            "--duration",
            "30",
            "--repeat",
            "1",
        ])
        .args(["--json", "--no-store"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !scratch.exists() {
        assert!(t0.elapsed() < Duration::from_secs(30), "no scratch file");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(1500));
    crate::common::signal("-INT", child.id());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!scratch.exists(), "removed after Ctrl-C");
    let doc = json(&out);
    assert_eq!(doc["envelope"]["complete"], false);
    assert_eq!(doc["body"]["rows"][0]["status"], "interrupted");
}

/// The sweep writes into a recorded ROCK 5B's tree while the reads really run, and restores.
#[test]
fn the_sweep_runs_on_a_fixture_root() {
    let tmp = tempfile::tempdir().unwrap();
    let disk = disk_dir();
    let root = truebench_fixtures::root("rk3588-rock5b");
    let gov = |p: u32| {
        std::fs::read_to_string(root.path().join(format!(
            "sys/devices/system/cpu/cpufreq/policy{p}/scaling_governor"
        )))
        .unwrap()
    };
    let before = gov(0);
    let out = truebench(tmp.path())
        .arg("--root")
        .arg(root.path())
        .arg("--file")
        .arg(disk.path().join("scratch"))
        .args([
            "--size",
            "8",
            "--tests",
            "random",
            "--duration",
            "0.2",
            "--repeat",
            "1",
        ])
        .args(["--sweep", "max,min", "--json", "--no-store"])
        .output()
        .unwrap();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let doc = json(&out);
    let settings: Vec<&str> = doc["body"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["setting"].as_str().unwrap())
        .collect();
    assert_eq!(settings, ["as is", "max", "min"]);
    let changes = doc["envelope"]["tuning"]["changes"].to_string();
    assert!(
        changes.contains("performance") && changes.contains("powersave"),
        "{changes}"
    );
    assert_eq!(gov(0), before);
}

#[test]
fn kill_9_leaves_a_scratch_file_the_next_run_removes() {
    let tmp = tempfile::tempdir().unwrap();
    let disk = disk_dir();
    let scratch = disk.path().join("scratch");
    let mut child = truebench(tmp.path())
        .arg("--file")
        .arg(&scratch)
        .args([
            "--size",
            "8",
            "--tests",
            "random",
            "--duration",
            "30",
            "--repeat",
            "1",
        ])
        .args(["--no-store"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !scratch.exists() {
        assert!(t0.elapsed() < Duration::from_secs(30), "no scratch file");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(800));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(scratch.exists(), "kill -9 cannot clean up");
    let out = truebench(tmp.path())
        .arg("--file")
        .arg(&scratch)
        .args([
            "--size",
            "8",
            "--tests",
            "random",
            "--duration",
            "0.2",
            "--repeat",
            "1",
        ])
        .args(["--no-store"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(measured(&out), "{err}");
    assert!(err.contains("left by a killed run"), "{err}");
    // It ran on a new scratch file of its own and removed it too.
    assert!(String::from_utf8_lossy(&out.stdout).contains("scratch file"));
    assert!(!scratch.exists());
}

/// A loop device over a file, detached on drop.
struct Loop {
    dev: String,
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

/// A block device read as an unprivileged user: the error names the device and the right it
/// needs; as root the same device is read (O_DIRECT on a loop device with direct I/O).
#[test]
fn a_block_device_needs_the_right_and_is_read_with_it() {
    let tmp = tempfile::tempdir().unwrap();
    let disk = disk_dir();
    let img = disk.path().join("img");
    std::fs::write(&img, vec![7u8; 16 << 20]).unwrap();
    if euid() != 0 {
        truebench_fixtures::skip!("attaching a loop device needs root");
    }
    let o = Command::new("losetup")
        .args(["--direct-io=on", "-f", "--show"])
        .arg(&img)
        .output();
    let dev = match o {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().to_string(),
        Ok(o) => truebench_fixtures::skip!(
            "losetup cannot attach a loop device here: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        ),
        Err(e) => truebench_fixtures::skip!("losetup is not installed: {e}"),
    };
    let lp = Loop { dev };
    std::fs::set_permissions(
        tmp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    )
    .unwrap();
    let lock = tmp.path().join("lock");
    std::fs::create_dir_all(&lock).unwrap();
    std::fs::set_permissions(&lock, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN])
        .args([
            "io",
            "--device",
            &lp.dev,
            "--tests",
            "random",
            "--duration",
            "0.2",
        ])
        .args(["--repeat", "1", "--no-store"])
        .env("TMPDIR", &lock)
        .env("TRUEBENCH_LOCK_DIR", &lock)
        .env("XDG_DATA_HOME", tmp.path().join("data"))
        .env("XDG_CACHE_HOME", tmp.path().join("cache"))
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{e}");
    assert!(e.contains(&lp.dev) && e.contains("needs root"), "{e}");
    let out = truebench(tmp.path())
        .args([
            "--device",
            &lp.dev,
            "--tests",
            "sequential,random",
            "--duration",
            "0.2",
        ])
        .args(["--repeat", "1", "--json", "--no-store"])
        .output()
        .unwrap();
    assert!(measured(&out), "{}", String::from_utf8_lossy(&out.stderr));
    let doc = json(&out);
    assert_eq!(doc["body"]["target_kind"], "block device");
    assert_eq!(doc["body"]["size_bytes"], 16 << 20);
    for r in doc["body"]["rows"].as_array().unwrap() {
        assert_eq!(
            (r["status"].as_str(), r["direct"].as_bool()),
            (Some("ok"), Some(true)),
            "{r}"
        );
    }
    // Never written: the image still holds its bytes.
    drop(lp);
    assert!(std::fs::read(&img).unwrap().iter().all(|&b| b == 7));
}

/// The effective uid (`Uid:` of /proc/self/status: real, effective, saved, fs).
fn euid() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(u32::MAX)
}
