//! SoC identification over the test data's real machines: every cpuinfo capture and every
//! sysfs dump, one line each (file, cpuinfo Hardware, basis, answer, evidence), then the
//! counts per basis — named, one chip by a layout unique among all sources, a layout of
//! several chips, the vendor only, unknown.
//!
//! `cargo run -p truebench-host --example soc_census`

use truebench_host::soc::{SocBasis, SocGuess};
use truebench_host::{Host, Inventory};

#[derive(Default)]
struct Counts {
    named: usize,
    unique: usize,
    layout: usize,
    vendor: usize,
    unknown: usize,
}

impl Counts {
    fn add(&mut self, g: Option<&SocGuess>) {
        match g.and_then(|g| g.basis.map(|b| (b, g.candidates.is_empty()))) {
            Some((SocBasis::Named { .. }, _)) => self.named += 1,
            Some((SocBasis::Layout, true)) => self.unique += 1,
            Some((SocBasis::Layout, false)) => self.layout += 1,
            Some((SocBasis::Vendor, _)) => self.vendor += 1,
            Some((SocBasis::Reported, _)) | None => self.unknown += 1,
        }
    }

    fn line(&self, what: &str) -> String {
        format!(
            "{what}: {} named, {} one chip by a layout unique among all sources (vendor agreeing), {} layouts of several chips (or of one without vendor evidence), {} vendor only, {} unknown",
            self.named, self.unique, self.layout, self.vendor, self.unknown
        )
    }
}

fn hardware(host: &Host) -> String {
    host.cpuinfo()
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim() == "Hardware")
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_default()
}

fn print(file: &str, hw: &str, g: Option<&SocGuess>) {
    match g {
        Some(g) => println!(
            "{file}\t{hw}\t{:?}\t{}\t{}",
            g.basis,
            g.display(),
            g.evidence
        ),
        None => println!("{file}\t{hw}\tunknown\t-\t-"),
    }
}

fn main() {
    let empty = tempfile::tempdir().expect("temp dir");
    let mut captures = Counts::default();
    for f in truebench_fixtures::cpuinfo_captures() {
        let host = Host::new(empty.path()).with_cpuinfo(Some(f.clone()));
        let inv = Inventory::probe(&host);
        let file = f.file_name().unwrap_or_default().to_string_lossy();
        print(&file, &hardware(&host), inv.soc.as_ref());
        captures.add(inv.soc.as_ref());
    }
    let mut dumps = Counts::default();
    for name in truebench_fixtures::sysfs_dump_names() {
        let dir = truebench_fixtures::sysfs_dump(&name);
        let host = Host::new(dir.path().join(&name));
        let inv = Inventory::probe(&host);
        print(
            &format!("sysfs dump {name}"),
            &hardware(&host),
            inv.soc.as_ref(),
        );
        dumps.add(inv.soc.as_ref());
    }
    println!("{}", captures.line("cpuinfo captures"));
    println!("{}", dumps.line("sysfs dumps"));
}
