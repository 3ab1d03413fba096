//! The SoC page's chart: one dot per result on a common scale, the median marked — inline
//! SVG like the reports', with a text alternative.

use std::fmt::Write as _;

use truebench_stats::median;

use crate::{clip, esc};

/// One result on a chart.
pub struct Dot<'a> {
    pub label: &'a str,
    pub value: f64,
    /// Relative to the SoC page.
    pub href: String,
    pub valid: bool,
}

/// A dot plot: a row per result (sorted by value), the scale from zero, the median as a
/// dashed line. `id` makes the title and description referable.
pub fn dots(id: &str, title: &str, unit: &str, dots: &mut [Dot<'_>]) -> String {
    dots.sort_by(|a, b| b.value.total_cmp(&a.value));
    let values: Vec<f64> = dots.iter().map(|d| d.value).collect();
    let Some(med) = median(&values) else {
        return String::new();
    };
    let max = values.iter().copied().fold(0.0_f64, f64::max).max(1e-9);
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let (left, right, top, row) = (210.0, 48.0, 34.0, 20.0);
    let width = 680.0;
    let height = top + row * dots.len() as f64 + 30.0;
    let step = truebench_render::report::svg::nice_step(max * 1.05, 4);
    let end = (max * 1.05 / step).ceil() * step;
    let x = |v: f64| left + (width - left - right) * (v / end);
    let fig = truebench_figures::headline::fig;
    let desc = format!(
        "{title}: {} result{}, from {} to {} {unit}, median {} {unit}",
        dots.len(),
        if dots.len() == 1 { "" } else { "s" },
        fig(min),
        fig(max),
        fig(med)
    );
    let mut o = format!(
        "<figure class=\"fig\"><svg class=\"chart\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-labelledby=\"{id}-t {id}-d\"><title id=\"{id}-t\">{}</title><desc id=\"{id}-d\">{}</desc>",
        esc(title),
        esc(&desc)
    );
    let _ = write!(
        o,
        "<text class=\"ct\" x=\"0\" y=\"18\">{} <tspan class=\"al\">({})</tspan></text>",
        esc(title),
        esc(unit)
    );
    // Grid: round steps from zero.
    let steps = (end / step).round() as u32;
    for i in 0..=steps {
        let v = step * f64::from(i);
        let gx = x(v);
        let _ = write!(
            o,
            "<line class=\"grid\" x1=\"{gx:.1}\" x2=\"{gx:.1}\" y1=\"{top}\" y2=\"{:.1}\"/><text class=\"tk\" x=\"{gx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            height - 26.0,
            height - 10.0,
            esc(&if i == 0 { "0".to_string() } else { fig(v) })
        );
    }
    for (i, d) in dots.iter().enumerate() {
        let y = top + row * i as f64 + row / 2.0;
        let colour = if d.valid { "#3b6ea8" } else { "#c0392b" };
        let _ = write!(
            o,
            "<a href=\"{}\"><text class=\"bl\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text><circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"5\" fill=\"{colour}\"{}><title>{}: {} {}{}</title></circle></a>",
            esc(&d.href),
            left - 8.0,
            y + 4.0,
            esc(&clip(d.label, 32)),
            x(d.value),
            if d.valid { "" } else { " fill-opacity=\"0.6\"" },
            esc(d.label),
            esc(&fig(d.value)),
            esc(unit),
            if d.valid { "" } else { " (not valid)" }
        );
    }
    let mx = x(med);
    let _ = write!(
        o,
        "<line class=\"diag\" x1=\"{mx:.1}\" x2=\"{mx:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/><text class=\"tk\" x=\"{mx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">median {}</text>",
        top - 4.0,
        height - 26.0,
        top - 6.0,
        esc(&fig(med))
    );
    o.push_str("</svg></figure>");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_names_every_result_and_the_median() {
        let mut d = vec![
            Dot {
                label: "Board <A>",
                value: 100.0,
                href: "../r/1.html".into(),
                valid: true,
            },
            Dot {
                label: "B",
                value: 300.0,
                href: "../r/2.html".into(),
                valid: false,
            },
            Dot {
                label: "C",
                value: 200.0,
                href: "../r/3.html".into(),
                valid: true,
            },
        ];
        let svg = dots("m", "7-zip multi", "MIPS", &mut d);
        assert!(svg.contains("Board &lt;A&gt;: 100 MIPS"), "{svg}");
        assert!(svg.contains("B: 300 MIPS (not valid)"));
        assert!(svg.contains("median 200"));
        assert!(svg.contains("3 results, from 100 to 300 MIPS, median 200 MIPS"));
        assert_eq!(svg.matches("<circle").count(), 3);
    }
}
