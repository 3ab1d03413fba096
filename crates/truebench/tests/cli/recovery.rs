//! Any truebench command puts back the settings a killed run left changed on its root,
//! before doing its own work, and says so on stderr.

use std::fs;
use std::path::PathBuf;
use std::process::Command;

use truebench_host::Host;
use truebench_tuning::{testing, Tuning};

const GOV: &str = "sys/devices/system/cpu/cpufreq/policy0/scaling_governor";

/// A minimal root (one cpufreq policy, as on a single-cluster board), removed on drop.
struct Root(PathBuf);

impl Root {
    fn new(tag: &str) -> Root {
        let p = std::env::temp_dir().join(format!("truebench-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&p);
        let pol = p.join("sys/devices/system/cpu/cpufreq/policy0");
        fs::create_dir_all(&pol).unwrap();
        fs::write(pol.join("scaling_governor"), "schedutil\n").unwrap();
        fs::write(pol.join("related_cpus"), "0\n").unwrap();
        fs::write(pol.join("scaling_max_freq"), "1800000\n").unwrap();
        Root(p)
    }
}

impl Drop for Root {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn info(root: &Root) -> (String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_truebench"))
        .args(["info", "--root"])
        .arg(&root.0)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn a_command_restores_what_a_killed_run_left_changed() {
    let root = Root::new("recovery");
    let host = Host::new(&root.0);
    let mut t = Tuning::begin(&host).unwrap();
    t.write(GOV, "performance").unwrap();
    t.write(
        "sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq",
        "408000",
    )
    .unwrap();
    // Dies like SIGKILL: no restore, the journal stays.
    testing::kill(t);
    assert_eq!(fs::read_to_string(root.0.join(GOV)).unwrap(), "performance");

    let (err, code) = info(&root);
    assert_eq!(code, 0, "{err}");
    let me = std::process::id();
    assert!(
        err.contains(&format!(
            "restored 2 setting(s) left changed by a killed truebench run (pid {me})"
        )),
        "{err}"
    );
    assert!(err.contains(&format!("/{GOV}")), "{err}");
    assert_eq!(fs::read_to_string(root.0.join(GOV)).unwrap(), "schedutil\n");
    assert!(!root.0.join("var/lib/truebench/tuning.journal").exists());

    // Nothing left: the next command is silent about it.
    let (err, _) = info(&root);
    assert!(!err.contains("restored"), "{err}");
}

#[test]
fn a_command_leaves_a_running_session_alone() {
    let root = Root::new("recovery-live");
    let host = Host::new(&root.0);
    let mut t = Tuning::begin(&host).unwrap();
    t.write(GOV, "performance").unwrap();
    let (err, code) = info(&root);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("restored"), "{err}");
    assert_eq!(fs::read_to_string(root.0.join(GOV)).unwrap(), "performance");
    drop(t);
    assert_eq!(fs::read_to_string(root.0.join(GOV)).unwrap(), "schedutil\n");
}
