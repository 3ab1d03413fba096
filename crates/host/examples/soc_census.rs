//! SoC identification over every cpuinfo capture of the test data: one line per capture.
fn main() {
    let empty = tempfile::tempdir().expect("temp dir");
    for f in truebench_fixtures::cpuinfo_captures() {
        let host = truebench_host::Host::new(empty.path()).with_cpuinfo(Some(f.clone()));
        let inv = truebench_host::Inventory::probe(&host);
        let text = host.cpuinfo().unwrap_or_default();
        let hw = text
            .lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim() == "Hardware")
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_default();
        let file = f.file_name().unwrap_or_default().to_string_lossy();
        match inv.soc {
            Some(g) => println!(
                "{file}\t{hw}\t{:?}\t{}\t{}",
                g.basis,
                g.display(),
                g.evidence
            ),
            None => println!("{file}\t{hw}\tunknown\t-\t-"),
        }
    }
}
