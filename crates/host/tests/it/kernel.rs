//! `kernel::report` on the fixture roots of real boards, and agreement with sbc-bench's own
//! vendor-kernel verdicts in the result logs that carry one.

use jiff::civil::{date, Date};
use std::io::Write;
use truebench_host::kernel::{self, KernelContext, OriginKind, Releases, SupportStatus};
use truebench_host::{Host, Inventory};

const TODAY: Date = date(2026, 11, 25);

fn report_with(root: &std::path::Path, log: Option<&[String]>) -> kernel::KernelReport {
    let host = Host::new(root);
    let inv = Inventory::probe(&host);
    let releases = Releases::builtin();
    kernel::report(
        &host,
        &inv,
        &KernelContext {
            releases: &releases,
            today: TODAY,
            kernel_log: log,
        },
    )
}

fn report(name: &str) -> kernel::KernelReport {
    let dir = truebench_fixtures::root(name);
    report_with(dir.path(), Some(&[]))
}

#[test]
fn vendor_kernel_on_the_rock_5b() {
    let r = report("rk3588-rock5b");
    assert_eq!(r.release.as_deref(), Some("5.10.110-rockchip-rk3588"));
    assert_eq!(r.origin.kind, OriginKind::Bsp);
    assert_eq!(r.origin.vendor.as_deref(), Some("Rockchip"));
    assert_eq!(r.support.series.as_deref(), Some("5.10"));
    assert_eq!(r.support.status, SupportStatus::Maintained);
    assert_eq!(r.support.eol.as_deref(), Some("2026-12-31"));
    assert_eq!(r.support.revisions_behind, Some(265 - 110));
    assert_eq!(r.build.date.as_deref(), Some("2023-02-17"));
    assert!(
        r.notes[0].contains("Rockchip's vendor/BSP kernel"),
        "{:?}",
        r.notes
    );
    // A BSP's version string says nothing about its fixes: no "N revisions behind" advice.
    assert!(
        !r.notes.iter().any(|n| n.contains("revisions behind")),
        "{:?}",
        r.notes
    );
    assert_eq!(r.support.releases_behind, Some(9 + 1 + 19 + 1 + 2));
    assert_eq!(r.support.years_behind, Some(5.7));
}

#[test]
fn allwinner_bsp_on_an_ended_series() {
    let r = report("h616-opizero2");
    assert_eq!(
        (r.origin.kind, r.origin.vendor.as_deref()),
        (OriginKind::Bsp, Some("Allwinner"))
    );
    assert_eq!(r.support.status, SupportStatus::Ended);
    assert!(
        r.support.summary.contains("2023-01-07"),
        "{}",
        r.support.summary
    );
    assert_eq!(r.build.flags, ["SMP", "PREEMPT"]);
    assert_eq!(r.config.preemption.as_deref(), Some("full"));
    assert_eq!(
        r.config.preemption_source.as_deref(),
        Some("the flags in /proc/version")
    );
    assert!(
        r.missing.iter().any(|m| m.what == "kernel config"),
        "{:?}",
        r.missing
    );
}

#[test]
fn raspberry_pi_kernels() {
    let r = report("rpi4b");
    assert_eq!(r.origin.kind, OriginKind::RaspberryPi);
    assert_eq!(r.support.status, SupportStatus::Maintained);
    assert_eq!(r.support.revisions_behind, Some(265 - 63));
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("202 stable revisions behind 5.10.265")),
        "{:?}",
        r.notes
    );
    let r = report("rpi5");
    assert_eq!(r.origin.kind, OriginKind::RaspberryPi);
    assert_eq!(r.upstream.as_deref(), Some("6.6.20"));
    assert_eq!(r.support.eol.as_deref(), Some("2027-12-31"));
}

#[test]
fn distribution_and_community_kernels() {
    let r = report("x86-amd-desktop");
    assert_eq!(
        (r.origin.kind, r.origin.vendor.as_deref()),
        (OriginKind::Distribution, Some("Debian"))
    );
    // Debian's release says 6.1.0; the package version in /proc/version says what it is.
    assert_eq!(r.upstream.as_deref(), Some("6.1.55"));
    assert_eq!(
        r.upstream_source.as_deref(),
        Some("the package version in proc/version")
    );
    assert_eq!(r.config.preemption.as_deref(), Some("dynamic"));
    assert!(r.notes[0].contains("A Debian kernel"), "{:?}", r.notes);
    let r = report("x86-intel-laptop");
    assert_eq!(r.origin.vendor.as_deref(), Some("Ubuntu"));
    assert_eq!(r.support.status, SupportStatus::Maintained);
    let r = report("s922x-odroidn2");
    assert_eq!(r.origin.kind, OriginKind::Community);
    assert_eq!(r.origin.vendor.as_deref(), Some("Armbian"));
}

#[test]
fn empty_root_is_unknown_not_an_error() {
    let r = report("empty");
    assert_eq!(r.release, None);
    assert_eq!(r.support.status, SupportStatus::Unknown);
    assert_eq!(r.origin.kind, OriginKind::Undecided);
    assert!(r.missing.iter().any(|m| m.what == "build"));
}

/// A root with only the files `kernel` reads.
fn tiny_root(release: &str, version: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("proc/sys/kernel");
    std::fs::create_dir_all(&k).unwrap();
    std::fs::write(k.join("osrelease"), format!("{release}\n")).unwrap();
    std::fs::write(dir.path().join("proc/version"), format!("{version}\n")).unwrap();
    dir
}

#[test]
fn config_from_proc_config_gz_then_boot() {
    let dir = tiny_root(
        "6.12.30",
        "Linux version 6.12.30 (me@box) (gcc 12.2.0) #1 SMP PREEMPT Mon Jun 2 10:00:00 UTC 2025",
    );
    std::fs::create_dir_all(dir.path().join("boot")).unwrap();
    std::fs::write(
        dir.path().join("boot/config-6.12.30"),
        "CONFIG_HZ=300\nCONFIG_PREEMPT_VOLUNTARY=y\nCONFIG_CPU_FREQ=y\n# CONFIG_CPU_FREQ_STAT is not set\n",
    )
    .unwrap();
    let r = report_with(dir.path(), None);
    assert_eq!(r.config.source.as_deref(), Some("/boot/config-6.12.30"));
    assert_eq!(
        (r.config.hz, r.config.preemption.as_deref()),
        (Some(300), Some("voluntary"))
    );
    assert!(
        r.notes.iter().any(|n| n.contains("CONFIG_CPU_FREQ_STAT")),
        "{:?}",
        r.notes
    );
    assert_eq!(r.origin.kind, OriginKind::Mainline);
    assert_eq!(r.support.revisions_behind, Some(104 - 30));

    // /proc/config.gz wins over /boot.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"CONFIG_HZ=1000\nCONFIG_PREEMPT_RT=y\n")
        .unwrap();
    std::fs::write(dir.path().join("proc/config.gz"), gz.finish().unwrap()).unwrap();
    let r = report_with(dir.path(), None);
    assert_eq!(r.config.source.as_deref(), Some("/proc/config.gz"));
    assert_eq!(
        (r.config.hz, r.config.preemption.as_deref()),
        (Some(1000), Some("rt"))
    );

    // A corrupt config.gz is said, and /boot is used instead.
    std::fs::write(dir.path().join("proc/config.gz"), b"\x1f\x8bnot gzip").unwrap();
    let r = report_with(dir.path(), None);
    assert_eq!(r.config.source.as_deref(), Some("/boot/config-6.12.30"));
}

#[test]
fn statuses_against_the_list() {
    let cases = [
        // An old non-LTS series the list does not have.
        ("4.17.0", SupportStatus::NotListed),
        ("6.0.19", SupportStatus::Ended),
        // Not LTS, listed without an end, released in June: most likely over by November.
        ("7.1.9", SupportStatus::ProbablyEnded),
        ("7.2.0", SupportStatus::Maintained),
        ("7.3.1", SupportStatus::NewerThanList),
        ("6.17.0-rc3", SupportStatus::NotApplicable),
    ];
    for (release, want) in cases {
        let dir = tiny_root(release, "Linux version x (a@b) (gcc 1) #1 SMP");
        let r = report_with(dir.path(), None);
        assert_eq!(r.support.status, want, "{release}: {}", r.support.summary);
    }
    // The list is three months old on TODAY: no staleness note; a year later there is one.
    let dir = tiny_root("6.6.1", "Linux version 6.6.1");
    let host = Host::new(dir.path());
    let inv = Inventory::probe(&host);
    let releases = Releases::builtin();
    let later = KernelContext {
        releases: &releases,
        today: date(2027, 9, 1),
        kernel_log: None,
    };
    let r = kernel::report(&host, &inv, &later);
    assert!(
        r.notes.iter().any(|n| n.contains("--releases FILE")),
        "{:?}",
        r.notes
    );
    assert!(report_with(dir.path(), None)
        .notes
        .iter()
        .all(|n| !n.contains("--releases")));
}

/// The SoC name sbc-bench printed, without its chip-id parenthesis.
fn soc_of(log: &str) -> Option<String> {
    let line = log.lines().find(|l| l.starts_with("SoC guess: "))?;
    let name = line.trim_start_matches("SoC guess: ");
    Some(name.split(" (").next().unwrap_or(name).trim().to_string())
}

fn kernel_of(log: &str) -> Option<String> {
    let line = log
        .lines()
        .find(|l| l.trim_start().starts_with("Kernel: "))?;
    let k = line.trim_start().trim_start_matches("Kernel: ");
    Some(k.split('/').next()?.trim().to_string())
}

/// sbc-bench ≥ 0.9.x says "This device runs a(n) VENDOR vendor/BSP kernel." where it
/// recognises one. Every such verdict in the logs must be ours too, with the same vendor.
#[test]
fn agrees_with_sbc_bench_on_every_vendor_kernel_it_named() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (name, log) in truebench_fixtures::sbc_bench::logs() {
        let Some(line) = log.lines().find(|l| l.contains(" vendor/BSP kernel.")) else {
            continue;
        };
        let said = line
            .split(" runs a")
            .nth(1)
            .map(|s| s.trim_start_matches("n ").trim_start_matches(' '))
            .and_then(|s| s.split(" vendor/BSP").next())
            .unwrap_or_default()
            .to_string();
        let (Some(release), soc) = (kernel_of(&log), soc_of(&log)) else {
            failures.push(format!("{name}: no kernel line"));
            continue;
        };
        let v = kernel::KernelVersion::parse(&release).unwrap();
        // The log's lines include its dmesg section, which the PVTM rules look for.
        let lines: Vec<String> = log.lines().map(str::to_string).collect();
        let o = kernel::origin::classify(&kernel::origin::OriginInput {
            release: &release,
            version: &v,
            soc: soc.as_deref(),
            kernel_log: Some(&lines),
        });
        checked += 1;
        if o.kind != OriginKind::Bsp || o.vendor.as_deref() != Some(said.as_str()) {
            failures.push(format!(
                "{name}: {release} on {soc:?}: sbc-bench says {said}, truebench {:?} {:?}",
                o.kind, o.vendor
            ));
        }
    }
    assert!(checked >= 17, "only {checked} logs with a verdict");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn endoflife_md() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/kernel/linux-kernel.md")
}

/// The built-in list was transcribed from endoflife.date's file: every series both have
/// must agree in every field.
#[test]
fn builtin_list_agrees_with_endoflife_date() {
    let md = Releases::from_file(&endoflife_md()).unwrap();
    let builtin = Releases::builtin();
    let mut shared = 0;
    for s in &md.series {
        let Some(b) = builtin.find(s.major, s.minor) else {
            panic!(
                "{} is in linux-kernel.md but not in the built-in list",
                s.name()
            );
        };
        assert_eq!(b, s, "{}", s.name());
        shared += 1;
    }
    assert!(shared >= 30, "{shared}");
    assert_eq!(md.as_of, Some(date(2026, 8, 19)), "newest date in the file");
}
