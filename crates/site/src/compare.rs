//! `compare.html#ids=3,7`: the results picked in the index side by side. The page is a shell
//! the script fills from the results' data: each figure with its difference to the first
//! result (as `truebench compare` computes it), and every reason the comparison is unfair —
//! each result's own (`truebench_store::fairness`) and the facts that differ between them,
//! by the same rule as `compare`.

use crate::esc;

pub fn page(title: &str) -> String {
    let mut o = crate::head(&format!("{title} — compare"), "");
    o.push_str(&crate::nav("", title, ""));
    o.push_str(&format!(
        "<header><div class=\"title\"><h1>Compare</h1><span class=\"badge\" id=\"fair-badge\" hidden></span></div><p class=\"sub\" id=\"compare-sub\">Pick two to four results in <a href=\"index.html\">the index</a> and choose “Compare selected”. The first is the reference; every other shows its difference to it.</p></header>\
<section id=\"fairness\" class=\"headline\" hidden><h2 id=\"fair-title\"></h2><ul id=\"fair-list\"></ul></section>\
<section id=\"figures\" hidden><h2>Figures</h2><div class=\"scroll\"><table id=\"compare-table\" class=\"num\"><caption class=\"vh\">{}</caption><thead></thead><tbody></tbody></table></div></section>\
<noscript><section><p>The compare page needs JavaScript (it reads the results from assets/data.js). Each result's page has its figures; <code>truebench compare ID ID</code> prints the same comparison.</p></section></noscript>",
        esc("Each figure per result, with its difference to the first")
    ));
    o.push_str(&crate::foot("", true));
    o
}
