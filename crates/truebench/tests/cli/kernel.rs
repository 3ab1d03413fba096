//! `truebench kernel` end to end: fixture roots of real boards, a release list given by the
//! user in each format, bad input, and the live machine.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_truebench");

fn kernel(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .arg("kernel")
        .args(args)
        .env("TRUEBENCH_LOCK_DIR", truebench_fixtures::lock_dir())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn data(rel: &str) -> String {
    format!("{}/../../tests/data/{rel}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn rock_5b_root_text() {
    let dir = truebench_fixtures::root("rk3588-rock5b");
    let root = dir.path().to_str().unwrap();
    let (code, out, err) = kernel(&["--root", root, "--today", "2026-11-25"]);
    assert_eq!(code, 0, "{err}");
    for want in [
        "Kernel 5.10.110-rockchip-rk3588 (aarch64",
        "Built:     2023-02-17 by root@armbian with aarch64-linux-gnu-gcc",
        "Origin: Rockchip vendor/BSP kernel",
        "5.10 LTS is maintained by kernel.org until 2026-12-31 (projected).",
        "Mainline is at 7.2, released 2026-08-16: 5.10 is 32 mainline releases and 5.7 years behind.",
        "This is Rockchip's vendor/BSP kernel",
        "kernel config:",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
    // A vendor kernel's revision number says nothing about its fixes: not counted.
    assert!(!out.contains("stable revisions behind"), "{out}");
}

#[test]
fn json_document() {
    let dir = truebench_fixtures::root("x86-amd-desktop");
    let root = dir.path().to_str().unwrap();
    let (code, out, err) = kernel(&["--root", root, "--json", "--today", "2026-11-25"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["origin"]["kind"], "distribution");
    assert_eq!(v["origin"]["vendor"], "Debian");
    assert_eq!(v["upstream"], "6.1.55");
    assert_eq!(v["support"]["status"], "maintained");
    assert_eq!(v["support"]["eol"], "2027-12-31");
}

#[test]
fn a_release_list_from_the_user_in_each_format() {
    let dir = truebench_fixtures::root("h616-opizero2");
    let root = dir.path().to_str().unwrap();
    let md = data("kernel/linux-kernel.md");
    let (code, out, err) = kernel(&["--root", root, "--releases", &md, "--today", "2026-11-25"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!("Support ({md} as of 2026-08-19")),
        "{out}"
    );
    assert!(
        out.contains("4.9 LTS reached its end of life on 2023-01-07 with 4.9.337"),
        "{out}"
    );

    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("linux.json");
    std::fs::write(
        &json,
        r#"[{"cycle":"4.9","releaseDate":"2016-12-11","eol":"2023-01-07","latest":"4.9.337",
            "latestReleaseDate":"2023-01-07","lts":true},
           {"cycle":"8.0","releaseDate":"2027-02-14","eol":false,"latest":"8.0.3",
            "latestReleaseDate":"2027-03-01","lts":false}]"#,
    )
    .unwrap();
    let (code, out, err) = kernel(&["--root", root, "--releases", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Mainline is at 8.0, released 2027-02-14"),
        "{out}"
    );
}

#[test]
fn bad_input_names_the_file_or_value() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("list.tsv");
    std::fs::write(&bad, "6.6\tlts\n").unwrap();
    let (code, _, err) = kernel(&["--releases", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("{}:1: expected 6", bad.display())),
        "{err}"
    );
    let (code, _, err) = kernel(&["--releases", "/nonexistent/list.tsv"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/list.tsv"), "{err}");
    let (code, _, err) = kernel(&["--today", "2026-13-01"]);
    assert_eq!(code, 2);
    assert!(err.contains("--today 2026-13-01: expected a date"), "{err}");
    let (code, _, err) = kernel(&["--kernel-log", "/nonexistent/dmesg.txt"]);
    assert_eq!(code, 2);
    assert!(err.contains("--kernel-log /nonexistent/dmesg.txt"), "{err}");
}

/// RK3568 on 5.10.160 is Rockchip's BSP only when its kernel log has the BSP's PVTM lines
/// (as in the sbc-bench log 4L4u.txt); without a readable log truebench says it cannot tell.
#[test]
fn the_kernel_log_decides_where_the_version_cannot() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("proc/sys/kernel")).unwrap();
    std::fs::create_dir_all(p.join("proc/device-tree")).unwrap();
    std::fs::write(p.join("proc/sys/kernel/osrelease"), "5.10.160\n").unwrap();
    std::fs::write(
        p.join("proc/device-tree/compatible"),
        "radxa,rock3a\0rockchip,rk3568\0",
    )
    .unwrap();
    let (code, out, err) = kernel(&["--root", p.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Origin: undecided (perhaps Rockchip's vendor kernel)"),
        "{out}"
    );
    assert!(out.contains("kernel log: /dev/kmsg: not present"), "{out}");
    let log = p.join("dmesg.txt");
    std::fs::write(&log, "[    2.1] cpu cpu0: pvtm = 87350, from nvmem\n").unwrap();
    let (code, out, _) = kernel(&[
        "--root",
        p.to_str().unwrap(),
        "--kernel-log",
        log.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("Origin: Rockchip vendor/BSP kernel"), "{out}");
    assert!(
        out.contains("kernel log: \"[    2.1] cpu cpu0: pvtm = 87350"),
        "{out}"
    );
}

#[test]
fn live_machine() {
    let (code, out, err) = kernel(&["--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    assert_eq!(v["release"], release.trim());
    assert_ne!(v["support"]["status"], "unknown", "{v}");
}
