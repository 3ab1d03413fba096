//! The site over every corpus log imported: one page per chip the results name (variants on
//! their chip's page, noted), every result that names no chip listed under "unidentified"
//! with its answer and cores — none dropped — and a log that names its chip on that chip's
//! page, whatever sbc-bench guessed from its cores.

use truebench_fixtures::sbc_bench as corpus;
mod common;

use common::stored;
use truebench_site::{build, Options};

fn page(site: &truebench_site::Site, path: &str) -> String {
    String::from_utf8(
        site.files
            .get(path)
            .unwrap_or_else(|| panic!("no {path}"))
            .clone(),
    )
    .unwrap()
}

#[test]
fn every_result_is_on_its_chips_page_or_listed_as_unidentified() {
    let logs = corpus::logs();
    let results = stored(&logs);
    let site = build(&results, &Options::default());
    let index = page(&site, "index.html");
    let soc_pages: Vec<&String> = site
        .files
        .keys()
        .filter(|k| k.starts_with("soc/"))
        .collect();
    // Every result: on exactly one SoC page, or in the index's unidentified list.
    let (mut on_pages, mut unidentified) = (0, 0);
    for s in &results {
        let href = format!("href=\"../r/{}.html\"", s.entry.id);
        let pages = soc_pages
            .iter()
            .filter(|p| page(&site, p).contains(&href))
            .count();
        let listed = index.contains(&format!("<li><a href=\"r/{}.html\">", s.entry.id));
        assert!(pages <= 1, "result {} on {pages} SoC pages", s.entry.id);
        assert!(
            pages == 1 || listed,
            "result {} ({}) on no SoC page and not listed as unidentified",
            s.entry.id,
            logs[s.entry.id as usize - 1].0
        );
        if pages == 1 {
            on_pages += 1;
        } else {
            unidentified += 1;
        }
    }
    eprintln!(
        "site over {} imported logs: {on_pages} on {} SoC pages, {unidentified} listed as unidentified",
        results.len(),
        soc_pages.len()
    );
    // RK3588 and its variants share one page; no page of a variant or of a layout.
    assert!(site.files.contains_key("soc/rockchip-rk3588.html"));
    for k in &soc_pages {
        assert!(
            !k.contains("rk3588s") && !k.contains("layout") && !k.contains("one-of"),
            "{k}"
        );
    }
    let rk = page(&site, "soc/rockchip-rk3588.html");
    assert!(
        rk.contains("Variants as the results name them"),
        "variants noted"
    );
    // The UMS9620 phone (sbc-bench guessed RK3588/RK3588s) is on its own chip's page.
    let ums = logs
        .iter()
        .position(|(_, t)| t.lines().next().is_some_and(|l| l.contains("UMS9620")))
        .unwrap();
    let href = format!("href=\"../r/{}.html\"", ums + 1);
    assert!(!rk.contains(&href), "the UMS9620 phone on the RK3588 page");
    let ums_page = soc_pages
        .iter()
        .find(|p| p.contains("ums9620"))
        .expect("a UMS9620 page");
    assert!(page(&site, ums_page).contains(&href));
    // The x86 laptop: its processor is its SoC, each CPU one of its cores.
    assert!(
        index.contains("32× AMD RYZEN AI MAX+ 395"),
        "the Ryzen's cores named by it"
    );
    assert!(site
        .files
        .keys()
        .any(|k| k.starts_with("soc/amd-ryzen-ai-max-395")));
}
