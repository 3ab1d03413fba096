//! The site marks a result that moved against its machine's previous one — on its page and
//! on its SoC's page — and says on each result's page where it stands among the site's
//! results of its SoC and tool versions (real logs: the ThunderX server "bigboy" run three
//! times, five Raspberry Pi 5 runs).

mod common;

use truebench_site::{build, Options};

fn page(site: &truebench_site::Site, path: &str) -> String {
    String::from_utf8(site.files[path].clone()).unwrap()
}

#[test]
fn regressions_are_marked_and_standing_is_said() {
    let results = common::stored_named(&[
        "3N5c.txt",
        "3Owk.txt",
        "3Owv.txt",
        "1ULtUe.txt",
        "4JAv.txt",
        "8acvqG.txt",
        "Au3jaA.txt",
        "frdzAn.txt",
    ]);
    let site = build(&results, &Options::default());
    // #2 moved against #1 (7-zip multi +7.9 %, with more memory and another kernel).
    let r2 = page(&site, "r/2.html");
    assert!(
        r2.contains("Against the same machine's previous result:"),
        "no mark"
    );
    assert!(r2.contains("7-zip multi: improvement of +7.9 % against #1"));
    // #3 did not move: no mark.
    assert!(!page(&site, "r/3.html").contains("Against the same machine's previous result:"));
    // The SoC page of the ThunderX results lists it.
    let soc_page = site
        .files
        .iter()
        .filter(|(p, _)| p.starts_with("soc/"))
        .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
        .find(|t| t.contains("Regressions and improvements"))
        .expect("a SoC page marks the moved result");
    assert!(
        soc_page.contains("href=\"../r/2.html\">#2</a>"),
        "the mark links the result"
    );
    // A Raspberry Pi 5 result's page says where it stands among the five: from its SoC's
    // standing file, which holds every result's lines of that SoC.
    let r4 = page(&site, "r/4.html");
    assert!(
        r4.contains("id=\"tb-standing\" data-id=\"4\""),
        "no standing section"
    );
    assert!(
        !r4.contains("percentile of"),
        "the page does not hold the standing, which changes with every new result"
    );
    let file = r4
        .split("<script src=\"../")
        .nth(2)
        .and_then(|s| s.split('"').next())
        .expect("the standing file's script");
    assert!(file.starts_with("assets/standing/"), "{file}");
    let standing = page(&site, file);
    let mine = standing
        .split("\"4\":[")
        .nth(1)
        .and_then(|s| s.split(']').next())
        .expect("result 4's lines");
    assert!(
        mine.contains("percentile of 5 "),
        "among the five Pi 5 results: {mine}"
    );

    // In a browser, the page shows them.
    let Some(chrome) = truebench_fixtures::chromium::chromium() else {
        truebench_fixtures::skip!("no chromium to open a result page");
    };
    let dir = tempfile::tempdir().unwrap();
    truebench_site::write::write(&site, dir.path()).unwrap();
    let shown = truebench_fixtures::chromium::render(
        &chrome,
        &dir.path().join("r/4.html"),
        &["--dump-dom"],
    );
    let section = shown
        .dom
        .split("id=\"tb-standing\"")
        .nth(1)
        .and_then(|s| s.split("</div>").next())
        .expect("the standing section");
    assert!(
        section.contains("<li>") && section.contains("percentile of 5 "),
        "{section}\nconsole: {:?}",
        shown.console
    );
    assert!(shown.hosts.is_empty(), "{:?}", shown.hosts);
}
