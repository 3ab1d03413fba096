//! `soc/<name>.html`: every result of one SoC — each headline score across boards, and what
//! explains the spread, from the evidence each result carries: the clock reached, throttling,
//! the kernel, the memory installed, the tool versions, validity.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use truebench_stats::{median, rank_correlation};

use crate::charts::{dots, Dot};
use crate::{esc, Row};

/// The chip a SoC name names, for grouping: sbc-bench's guesses carry chip ids, revisions and
/// remarks (`Rockchip RK3588 (35880000 / 35 88 12 fe …)`, `Amlogic Meson G12B (A311D)
/// Revision 29:b (10:2)`, `Ampere Altra / guessing impossible since running in kvm`, `Allwinner
/// A64 or https://…`): those go. None for a guess that names no chip.
pub fn chip(name: &str) -> Option<String> {
    let lower = name.to_lowercase();
    if lower.starts_with("not able to guess") || lower.trim().is_empty() {
        return None;
    }
    let mut s = name.to_string();
    let cut = |s: &mut String, at: &[&str]| {
        for c in at {
            if let Some(i) = s.find(c) {
                s.truncate(i);
            }
        }
    };
    cut(&mut s, &[" Revision ", " RevA", " detected", " or http"]);
    // Parenthesised chip ids and serials: `(SID: 1623…)`, `(35880000 / 35 88 …)`, `(10:2)`;
    // not a part name such as `(A311D)`.
    let mut out = String::new();
    let mut rest = s.as_str();
    while let Some(open) = rest.find('(') {
        let Some(close) = rest[open..].find(')').map(|c| open + c) else {
            break;
        };
        let inner = &rest[open + 1..close];
        let id = inner.starts_with("SID")
            || (inner
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c == ' ' || c == '/' || c == ':')
                && (inner.len() >= 8 || inner.contains(':')));
        out.push_str(&rest[..open]);
        if !id {
            out.push_str(&rest[open..=close]);
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    cut(&mut out, &[" / ", " guess"]);
    let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    (!out.is_empty()).then_some(out)
}

/// Variants of one chip that share its page: the same die in another package or stepping.
/// A result naming a variant is listed on its chip's page, the variant noted beside it.
const VARIANTS: &[(&str, &str)] = &[
    ("RK3588S2", "Rockchip RK3588"),
    ("RK3588S", "Rockchip RK3588"),
    ("RK3588", "Rockchip RK3588"),
    ("BCM2711B0", "BCM2711"),
    ("BCM2711C0", "BCM2711"),
    ("BCM2837B0", "BCM2837"),
];

/// The page a chip's results go on: its own, or its chip's for a variant
/// (`Rockchip RK3588s2` → `Rockchip RK3588`). Part numbers are compared case-insensitively,
/// as whole words.
pub fn family(chip: &str) -> String {
    let words: Vec<String> = chip
        .split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::to_ascii_uppercase)
        .collect();
    VARIANTS
        .iter()
        .find(|(part, _)| words.iter().any(|w| w == part))
        .map_or_else(|| chip.to_string(), |(_, page)| page.to_string())
}

/// What makes two spellings of a chip one: case, and a trailing parenthesised remark
/// (`Amlogic S905 (GXBB)` = `Amlogic S905`).
pub fn chip_key(chip: &str) -> String {
    let t = chip.trim();
    let t = match t.rfind(" (") {
        Some(i) if t.ends_with(')') && i > 0 => &t[..i],
        _ => t,
    };
    t.to_lowercase()
}

/// The run scores charted: (key, title, unit, value).
type Score = (
    &'static str,
    &'static str,
    &'static str,
    fn(&Row) -> Option<u64>,
);
const SCORES: [Score; 5] = [
    ("multi", "7-zip multi", "MIPS", |r| r.multi),
    ("single", "7-zip single", "MIPS", |r| r.single),
    ("aes", "AES-256 16 KiB", "kB/s", |r| r.aes),
    ("memcpy", "memcpy", "MB/s", |r| r.memcpy),
    ("memset", "memset", "MB/s", |r| r.memset),
];

/// The first number of a clock cell: `2400/1800 MHz` → 2400, `~2290` → 2290.
pub fn clock_mhz(clock: &str) -> Option<f64> {
    let digits: String = clock
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok().filter(|v: &f64| *v > 0.0)
}

/// `6.1` → 6001: kernel series in order.
pub fn kernel_number(k: &str) -> Option<f64> {
    let mut it = k.split('.');
    let major: f64 = it.next()?.trim().parse().ok()?;
    let minor: f64 = it
        .next()
        .and_then(|m| {
            m.chars()
                .take_while(|c| c.is_ascii_digit())
                .collect::<String>()
                .parse()
                .ok()
        })
        .unwrap_or(0.0);
    Some(major * 1000.0 + minor)
}

fn fig(v: f64) -> String {
    truebench_figures::headline::fig(v)
}

/// A number of a result that may go with a score (its clock, kernel, memory).
type Numeric = fn(&Row) -> Option<f64>;
/// The group a result falls in for a score (`throttled`, its 7-zip version); None: none.
type Grouping = fn(&Row, &str) -> Option<String>;

/// What explains one score's spread: a sentence per factor that goes with it.
pub fn explain(score: fn(&Row) -> Option<u64>, key: &str, rows: &[&Row]) -> Vec<String> {
    let with: Vec<(&Row, f64)> = rows
        .iter()
        .filter_map(|r| score(r).map(|v| (*r, v as f64)))
        .collect();
    let mut o = Vec::new();
    if with.len() < 3 {
        return o;
    }
    // Numbers that go with the score.
    let numeric: [(&str, &str, Numeric); 3] = [
        ("clock reached", "higher clocks", |r| clock_mhz(&r.clock)),
        ("kernel", "newer kernels", |r| kernel_number(&r.kernel)),
        ("memory installed", "more memory", |r| {
            r.memory_mib.map(|m| m as f64)
        }),
    ];
    for (name, more, f) in numeric {
        let pairs: Vec<(f64, f64)> = with
            .iter()
            .filter_map(|(r, v)| f(r).map(|x| (x, *v)))
            .collect();
        // Below five results a rank correlation says little.
        if pairs.len() < 5 {
            continue;
        }
        if let Some(rho) = rank_correlation(&pairs) {
            if rho.abs() >= 0.6 {
                o.push(format!(
                    "{name}: results with {more} score {} (rank correlation {rho:+.2} over {} results)",
                    if rho > 0.0 { "higher" } else { "lower" },
                    pairs.len()
                ));
            }
        }
    }
    // Groups: the median of each.
    let grouped: Vec<(&str, Grouping)> = vec![
        ("throttling", |r, _| {
            Some(
                if r.throttled {
                    "throttled"
                } else {
                    "not throttled"
                }
                .to_string(),
            )
        }),
        ("validity", |r, _| {
            Some(if r.valid { "valid" } else { "not valid" }.to_string())
        }),
        ("7-zip version", |r, key| {
            (key == "multi" || key == "single")
                .then(|| r.sevenzip_version.clone())
                .flatten()
        }),
        ("OpenSSL version", |r, key| {
            (key == "aes")
                .then(|| {
                    r.openssl_version
                        .as_deref()
                        .map(|v| v.split('.').take(2).collect::<Vec<_>>().join("."))
                })
                .flatten()
        }),
    ];
    for (name, f) in grouped {
        let mut g: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for (r, v) in &with {
            if let Some(k) = f(r, key) {
                g.entry(k).or_default().push(*v);
            }
        }
        if g.len() < 2 {
            continue;
        }
        let meds: Vec<(String, f64, usize)> = g
            .into_iter()
            .filter_map(|(k, v)| median(&v).map(|m| (k, m, v.len())))
            .collect();
        let lo = meds.iter().map(|m| m.1).fold(f64::INFINITY, f64::min);
        let hi = meds.iter().map(|m| m.1).fold(0.0, f64::max);
        if lo > 0.0 && hi / lo >= 1.05 {
            o.push(format!(
                "{name}: {}",
                meds.iter()
                    .map(|(k, m, n)| format!("{k} median {} ({n})", fig(*m)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    o
}

/// Results beyond which a SoC's page summarises per board instead of a dot and a table row
/// per result (a page of every result of a chip a fleet runs on would not open on a phone).
pub const LIST_MAX: usize = 500;

/// Boards charted on a summarised page (the ones with the most results); the table lists all.
pub const BOARDS_CHARTED: usize = 60;

/// Regressions listed on a SoC's page (the newest); the rest are counted.
pub const REGRESSIONS_LISTED: usize = 50;

/// One board's results of a score: count, median, range.
struct Board<'a> {
    device: &'a str,
    results: usize,
    valid: usize,
    /// Per score (as [`SCORES`]): (results with it, median, lowest, highest).
    scores: Vec<Option<(usize, f64, f64, f64)>>,
}

fn boards<'a>(rows: &[&'a Row]) -> Vec<Board<'a>> {
    let mut by: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        by.entry(r.device.as_str()).or_default().push(r);
    }
    let mut out: Vec<Board<'a>> = by
        .into_iter()
        .map(|(device, rs)| Board {
            device,
            results: rs.len(),
            valid: rs.iter().filter(|r| r.valid).count(),
            scores: SCORES
                .iter()
                .map(|(_, _, _, f)| {
                    let v: Vec<f64> = rs.iter().filter_map(|r| f(r).map(|x| x as f64)).collect();
                    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
                    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    median(&v).map(|m| (v.len(), m, lo, hi))
                })
                .collect(),
        })
        .collect();
    out.sort_by(|a, b| b.results.cmp(&a.results).then(a.device.cmp(b.device)));
    out
}

/// The summary of a SoC with more than [`LIST_MAX`] results: per board its count, median and
/// range of each score, and a chart of the boards' medians.
fn summary(o: &mut String, soc: &str, rows: &[&Row]) {
    let boards = boards(rows);
    let _ = write!(
        o,
        "<section><h2>Scores across boards</h2><p class=\"muted\" id=\"summarised\">{} results: more than {LIST_MAX}, so summarised per board — one dot per board at its median (the {} boards with the most results; every board in the table below). Each board's results are in <a href=\"../index.html#soc={}\">the index</a>.</p><div class=\"dots\">",
        rows.len(),
        boards.len().min(BOARDS_CHARTED),
        esc(&crate::row::url_part(soc))
    );
    let labels: Vec<String> = boards
        .iter()
        .map(|b| format!("{} ({})", b.device, b.results))
        .collect();
    for (n, (key, name, unit, _)) in SCORES.iter().enumerate() {
        let mut d: Vec<Dot<'_>> = boards
            .iter()
            .zip(&labels)
            .take(BOARDS_CHARTED)
            .filter_map(|(b, label)| {
                b.scores[n].map(|(_, m, _, _)| Dot {
                    label,
                    value: m,
                    href: format!(
                        "../index.html#q={}&soc={}",
                        crate::row::url_part(b.device),
                        crate::row::url_part(soc)
                    ),
                    valid: b.valid * 2 >= b.results,
                })
            })
            .collect();
        if !d.is_empty() {
            o.push_str(&dots(&format!("c-{key}"), name, unit, &mut d));
        }
    }
    o.push_str("</div></section>");
    o.push_str("<section><h2>Boards</h2><div class=\"scroll\"><table data-stack id=\"boards\"><thead><tr><th scope=\"col\">Board</th><th scope=\"col\" class=\"num\">Results</th><th scope=\"col\" class=\"num\">Valid</th>");
    for (_, name, unit, _) in SCORES {
        let _ = write!(
            o,
            "<th scope=\"col\" class=\"num\">{} <small>median (range) {}</small></th>",
            esc(name),
            esc(unit)
        );
    }
    o.push_str("</tr></thead><tbody>");
    for b in &boards {
        let _ = write!(
            o,
            "<tr><td data-label=\"Board\"><a href=\"../index.html#q={}&amp;soc={}\">{}</a></td><td data-label=\"Results\" class=\"num\">{}</td><td data-label=\"Valid\" class=\"num\">{}</td>",
            esc(&crate::row::url_part(b.device)),
            esc(&crate::row::url_part(soc)),
            esc(b.device),
            b.results,
            b.valid
        );
        for ((_, name, _, _), s) in SCORES.iter().zip(&b.scores) {
            let text = match s {
                Some((_, m, lo, hi)) if lo < hi => {
                    format!("{} ({}–{})", fig(*m), fig(*lo), fig(*hi))
                }
                Some((_, m, _, _)) => fig(*m),
                None => "-".into(),
            };
            let _ = write!(
                o,
                "<td data-label=\"{}\" class=\"num\">{text}</td>",
                esc(name)
            );
        }
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table></div></section>");
}

pub fn page(title: &str, soc: &str, rows: &[&Row]) -> String {
    let mut o = crate::head(&format!("{soc} — {title}"), "../");
    o.push_str(&crate::nav("../", title, ""));
    let mut devices: Vec<&str> = rows.iter().map(|r| r.device.as_str()).collect();
    devices.sort();
    devices.dedup();
    let mut cores: Vec<&str> = rows
        .iter()
        .map(|r| r.cores.as_str())
        .filter(|c| !c.is_empty())
        .collect();
    cores.sort();
    cores.dedup();
    // The variants its results name, with their counts.
    let mut variants: Vec<(&str, usize)> = Vec::new();
    for v in rows.iter().filter_map(|r| r.soc_variant.as_deref()) {
        match variants.iter_mut().find(|(x, _)| x.eq_ignore_ascii_case(v)) {
            Some(e) => e.1 += 1,
            None => variants.push((v, 1)),
        }
    }
    let variants = if variants.is_empty() {
        String::new()
    } else {
        format!(
            " Variants as the results name them: {}.",
            variants
                .iter()
                .map(|(v, n)| format!("{} ({n})", esc(v)))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let _ = write!(
        o,
        "<header><div class=\"title\"><h1>{}</h1></div><p class=\"sub\">{} result{} on {} device{}{}. <a href=\"../index.html#soc={}\">In the index</a>{variants}</p></header>",
        esc(soc),
        rows.len(),
        if rows.len() == 1 { "" } else { "s" },
        devices.len(),
        if devices.len() == 1 { "" } else { "s" },
        if cores.is_empty() {
            String::new()
        } else {
            format!(" · {}", esc(&cores.join("; ")))
        },
        esc(&crate::row::url_part(soc))
    );
    // A mark for every result that moved against its machine's previous one.
    let mut moved: Vec<&Row> = rows
        .iter()
        .copied()
        .filter(|r| !r.regressions.is_empty())
        .collect();
    moved.sort_by_key(|r| std::cmp::Reverse((r.unix_ms, r.id)));
    if !moved.is_empty() {
        let _ = write!(
            o,
            "<section class=\"regress\"><h2>Regressions and improvements</h2><p class=\"muted\">Figures beyond the noise band against the same machine's previous result, and what differs{}.</p><ul>",
            if moved.len() > REGRESSIONS_LISTED {
                format!(": the newest {REGRESSIONS_LISTED} of {} results that moved", moved.len())
            } else {
                String::new()
            }
        );
        for r in moved.into_iter().take(REGRESSIONS_LISTED) {
            for m in &r.regressions {
                let _ = write!(
                    o,
                    "<li><a href=\"../{}\">#{}</a> {} ({}): {}</li>",
                    esc(&r.href),
                    r.id,
                    esc(&r.device),
                    esc(&r.date),
                    esc(m)
                );
            }
        }
        o.push_str("</ul></section>");
    }
    let runs: Vec<&Row> = rows.iter().copied().filter(|r| r.kind == "run").collect();
    let summarised = rows.len() > LIST_MAX;
    if summarised {
        summary(&mut o, soc, rows);
    }
    if !summarised && !runs.is_empty() {
        o.push_str("<section><h2>Scores across boards</h2><p class=\"muted\">One dot per result (red: not valid), the dashed line at the median. A dot leads to its result.</p><div class=\"dots\">");
        for (key, name, unit, f) in SCORES {
            let mut d: Vec<Dot<'_>> = runs
                .iter()
                .filter_map(|r| {
                    f(r).map(|v| Dot {
                        label: &r.label,
                        value: v as f64,
                        href: format!("../{}", r.href),
                        valid: r.valid,
                    })
                })
                .collect();
            if d.is_empty() {
                continue;
            }
            o.push_str(&dots(&format!("c-{key}"), name, unit, &mut d));
        }
        o.push_str("</div></section>");
    }
    if !runs.is_empty() {
        o.push_str("<section><h2>What explains the spread</h2>");
        let mut any = false;
        for (key, name, unit, f) in SCORES {
            let values: Vec<f64> = runs.iter().filter_map(|r| f(r).map(|v| v as f64)).collect();
            if values.len() < 2 {
                continue;
            }
            let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = values.iter().copied().fold(0.0, f64::max);
            any = true;
            let _ = write!(
                o,
                "<h3>{} <small class=\"muted\">{} – {} {}{}</small></h3>",
                esc(name),
                fig(lo),
                fig(hi),
                esc(unit),
                if lo > 0.0 {
                    format!(", {:.2}×", hi / lo)
                } else {
                    String::new()
                }
            );
            let why = if lo > 0.0 && hi / lo < 1.05 {
                o.push_str(
                    "<p class=\"muted\">The results agree within 5 %: no spread to explain.</p>",
                );
                continue;
            } else {
                explain(f, key, &runs)
            };
            if why.is_empty() && values.len() < 5 {
                let _ = write!(o, "<p class=\"muted\">Too few results ({}) to tell what goes with the score; each one's evidence is in the table below.</p>", values.len());
            } else if why.is_empty() {
                o.push_str("<p class=\"muted\">Nothing recorded goes with it: clocks, kernels, memory, tool versions and validity are alike or do not follow the score.</p>");
            } else {
                o.push_str("<ul class=\"plain\">");
                for w in why {
                    let _ = write!(o, "<li>{}</li>", esc(&w));
                }
                o.push_str("</ul>");
            }
        }
        if !any {
            o.push_str("<p class=\"muted\">One result per score: no spread to explain.</p>");
        }
        o.push_str("</section>");
    }
    if summarised {
        o.push_str(&crate::foot("../", false));
        return o;
    }
    // The evidence per result.
    o.push_str("<section><h2>Results</h2><div class=\"scroll\"><table data-stack><thead><tr><th scope=\"col\">Result</th><th scope=\"col\">Kind</th><th scope=\"col\">Clock reached</th><th scope=\"col\">Kernel</th><th scope=\"col\">Memory</th><th scope=\"col\">7-zip</th><th scope=\"col\">OpenSSL</th><th scope=\"col\">Headline</th><th scope=\"col\">Validity</th></tr></thead><tbody>");
    for r in rows {
        let _ = write!(
            o,
            "<tr><td data-label=\"Result\"><a href=\"../{}\">{}</a></td><td data-label=\"Kind\">{}</td><td data-label=\"Clock reached\">{}{}</td><td data-label=\"Kernel\">{}</td><td data-label=\"Memory\">{}</td><td data-label=\"7-zip\">{}</td><td data-label=\"OpenSSL\">{}</td><td data-label=\"Headline\">{}</td><td data-label=\"Validity\" class=\"{}\">{}</td></tr>",
            esc(&r.href),
            esc(&r.label),
            esc(&r.kind),
            esc(&r.clock),
            if r.throttled { " (throttled)" } else { "" },
            esc(&r.kernel),
            r.memory_mib.map(|m| format!("{} MiB", fig(m as f64))).unwrap_or_else(|| "-".into()),
            esc(r.sevenzip_version.as_deref().unwrap_or("-")),
            esc(r.openssl_version.as_deref().unwrap_or("-")),
            esc(&r.headline),
            if r.valid { "" } else { "bad" },
            esc(&r.validity)
        );
    }
    o.push_str("</tbody></table></div></section>");
    o.push_str(&crate::foot("../", false));
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chips_without_ids_and_remarks() {
        for (guess, chip_name) in [
            (
                "Rockchip RK3588 (35880000 / 35 88 12 fe 21 41  32 34 43 42 00 00 00 00)",
                Some("Rockchip RK3588"),
            ),
            ("Rockchip RK3566 (35662000)", Some("Rockchip RK3566")),
            ("Allwinner A10 (SID: 16236782)", Some("Allwinner A10")),
            (
                "Amlogic Meson G12B (A311D) Revision 29:b (10:2)",
                Some("Amlogic Meson G12B (A311D)"),
            ),
            (
                "Amlogic Meson8m2 (S812) RevA (1d - 0:74E) detected",
                Some("Amlogic Meson8m2 (S812)"),
            ),
            (
                "Ampere Altra / guessing impossible since running in kvm",
                Some("Ampere Altra"),
            ),
            (
                "Allwinner A64 or https://tinyurl.com/yyf3d7fg",
                Some("Allwinner A64"),
            ),
            (
                "Rockchip RK3588/RK3588S or Unisoc UMS9620",
                Some("Rockchip RK3588/RK3588S or Unisoc UMS9620"),
            ),
            (
                "Not able to guess since these CPU cores are offline: 1-2",
                None,
            ),
            ("BCM2712", Some("BCM2712")),
            ("(((", Some("(((")),
        ] {
            assert_eq!(chip(guess).as_deref(), chip_name, "{guess}");
        }
    }

    #[test]
    fn clocks_and_kernels_as_numbers() {
        assert_eq!(clock_mhz("2400/1800 MHz"), Some(2400.0));
        assert_eq!(clock_mhz("~2290"), Some(2290.0));
        assert_eq!(clock_mhz("no cpufreq support"), None);
        assert_eq!(kernel_number("6.1"), Some(6001.0));
        assert_eq!(kernel_number("4.19"), Some(4019.0));
        assert!(kernel_number("5.10") > kernel_number("5.4"));
        assert_eq!(kernel_number("-"), None);
    }
}
