//! Inline SVG charts drawn by hand: line charts (linear or log₂ x axis) and horizontal bar
//! charts. Every mark carries a `<title>`, which browsers show as a tooltip on hover — no
//! JavaScript. Line charts scale with the page (`viewBox`, width 100 %, at most 1.25× their
//! drawn size); bar charts keep their natural size.

use std::fmt::Write;

/// Text for HTML/SVG content and attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            _ => o.push(c),
        }
    }
    o
}

/// Colours for clusters, in cluster order (colour-blind safe, Okabe–Ito based).
pub const CLUSTER_COLOURS: [&str; 6] = [
    "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00",
];
pub const TEMP_COLOUR: &str = "#d1495b";
pub const CPU_COLOUR: &str = "#4a5568";
pub const SYS_COLOUR: &str = "#e69f00";

pub fn cluster_colour(i: usize) -> &'static str {
    CLUSTER_COLOURS[i % CLUSTER_COLOURS.len()]
}

/// A "nice" tick step (1, 2 or 5 × 10ⁿ) giving about `n` ticks over `span`.
pub fn nice_step(span: f64, n: usize) -> f64 {
    if !(span.is_finite() && span > 0.0) {
        return 1.0;
    }
    let raw = span / n.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let nice = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

fn fmt_num(v: f64) -> String {
    if v.abs() >= 10_000.0 {
        let s = format!("{:.0}", v);
        // thin grouping for readability: 1 247 490
        let neg = s.starts_with('-');
        let digits: Vec<char> = s.trim_start_matches('-').chars().collect();
        let mut out = String::new();
        for (i, c) in digits.iter().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push('\u{2009}');
            }
            out.push(*c);
        }
        if neg {
            format!("-{out}")
        } else {
            out
        }
    } else if v.fract().abs() < 1e-9 || v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        let t = format!("{v:.1}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        let t = format!("{v:.2}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Public number formatting shared with the HTML tables.
pub fn num(v: f64) -> String {
    fmt_num(v)
}

/// `4K`, `16M`, `1G` for byte sizes on a log₂ axis.
pub fn bytes_label(b: f64) -> String {
    let b = b.round() as u64;
    if b >= 1 << 30 && b % (1 << 30) == 0 {
        format!("{}G", b >> 30)
    } else if b >= 1 << 20 && b % (1 << 20) == 0 {
        format!("{}M", b >> 20)
    } else if b >= 1 << 10 && b % (1 << 10) == 0 {
        format!("{}K", b >> 10)
    } else {
        format!("{b}")
    }
}

#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub colour: String,
    /// `(x, y)`; `None` breaks the line.
    pub points: Vec<(f64, Option<f64>)>,
    pub dashed: bool,
    /// Fill under the line.
    pub area: bool,
    /// Dots on each point (for sparse data).
    pub markers: bool,
    /// Unit for the tooltips (`MHz`).
    pub unit: String,
}

impl Series {
    pub fn new(name: &str, colour: &str, unit: &str, points: Vec<(f64, Option<f64>)>) -> Series {
        Series {
            name: name.into(),
            colour: colour.into(),
            points,
            dashed: false,
            area: false,
            markers: false,
            unit: unit.into(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.points.iter().all(|p| p.1.is_none())
    }
}

#[derive(Debug, Clone, Default)]
pub struct LineChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// x on a log₂ scale (byte sizes).
    pub x_log2: bool,
    /// Force the y range to include these.
    pub y_min: Option<f64>,
    pub y_max: Option<f64>,
    /// Shaded x ranges with labels (phases).
    pub bands: Vec<(f64, f64, String)>,
    /// Draw y = x (advertised vs measured).
    pub diagonal: bool,
    pub width: f64,
    pub height: f64,
}

const ML: f64 = 58.0;
const MR: f64 = 14.0;
const MT: f64 = 30.0;
const MB: f64 = 40.0;

impl LineChart {
    pub fn new(title: &str, x_label: &str, y_label: &str) -> LineChart {
        LineChart {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            width: 640.0,
            height: 250.0,
            ..Default::default()
        }
    }

    /// True when some series has a reading to draw.
    pub fn has_data(&self) -> bool {
        self.series.iter().any(|s| !s.is_empty())
    }

    /// The chart, or one line saying what was not measured when no series has data.
    pub fn render(&self) -> String {
        let series: Vec<&Series> = self.series.iter().filter(|s| !s.is_empty()).collect();
        if series.is_empty() {
            return format!(
                "<p class=\"muted nodata\">{}: not measured.</p>",
                esc(&self.title)
            );
        }
        let tx = |x: f64| if self.x_log2 { x.max(1e-9).log2() } else { x };
        let xs: Vec<f64> = series
            .iter()
            .flat_map(|s| s.points.iter().filter(|p| p.1.is_some()).map(|p| tx(p.0)))
            .collect();
        let ys: Vec<f64> = series
            .iter()
            .flat_map(|s| s.points.iter().filter_map(|p| p.1))
            .chain(self.y_min)
            .chain(self.y_max)
            .collect();
        let (mut x0, mut x1) = (
            xs.iter().copied().fold(f64::INFINITY, f64::min),
            xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        );
        if self.diagonal {
            x0 = x0.min(ys.iter().copied().fold(f64::INFINITY, f64::min));
            x1 = x1.max(ys.iter().copied().fold(f64::NEG_INFINITY, f64::max));
        }
        if x1 <= x0 {
            x0 -= 0.5;
            x1 += 0.5;
        }
        let (mut y0, mut y1) = (
            ys.iter().copied().fold(f64::INFINITY, f64::min),
            ys.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        );
        if self.diagonal {
            y0 = y0.min(x0);
            y1 = y1.max(x1);
        }
        // A nearly flat line (2300 vs 2301 MHz) gets a span of at least 5 % of its level, so
        // the ticks do not repeat one rounded number and the flatness shows.
        let min_span = (y0.abs().max(y1.abs()) * 0.05).max(1e-9);
        if y1 - y0 < min_span {
            let mid = (y0 + y1) / 2.0;
            let pad = if mid == 0.0 { 1.0 } else { min_span / 2.0 };
            y0 = mid - pad;
            y1 = mid + pad;
        }
        let ystep = nice_step(y1 - y0, 4);
        y0 = (y0 / ystep).floor() * ystep;
        y1 = (y1 / ystep).ceil() * ystep;
        let (w, h) = (self.width, self.height);
        let pw = w - ML - MR;
        let ph = h - MT - MB;
        let sx = |x: f64| ML + (tx(x) - x0) / (x1 - x0) * pw;
        let sxt = |t: f64| ML + (t - x0) / (x1 - x0) * pw;
        let sy = |y: f64| MT + (1.0 - (y - y0) / (y1 - y0)) * ph;
        let mut o = String::from("<figure class=\"fig\">");
        let _ = write!(
            o,
            // Scaled with the card, but not beyond a quarter over its drawn size: its text
            // stays near the page's.
            "<svg class=\"chart\" viewBox=\"0 0 {w} {h}\" style=\"max-width:{:.0}px\" role=\"img\" aria-label=\"{}\">",
            w * 1.25,
            esc(&self.title)
        );
        let _ = write!(
            o,
            "<text x=\"{ML}\" y=\"18\" class=\"ct\">{}</text>",
            esc(&self.title)
        );
        // bands
        for (i, (a, b, label)) in self.bands.iter().enumerate() {
            let (xa, xb) = (sx(*a).max(ML), sx(*b).min(ML + pw));
            if xb <= xa {
                continue;
            }
            let _ = write!(
                o,
                "<rect x=\"{xa:.1}\" y=\"{MT}\" width=\"{:.1}\" height=\"{ph}\" class=\"band{}\"><title>{}</title></rect>",
                xb - xa,
                i % 2,
                esc(label)
            );
            if xb - xa > 46.0 {
                let text: String = label.chars().take(((xb - xa) / 6.5) as usize).collect();
                let _ = write!(
                    o,
                    "<text x=\"{:.1}\" y=\"{:.1}\" class=\"bl\">{}</text>",
                    xa + 3.0,
                    MT + 11.0,
                    esc(&text)
                );
            }
        }
        // y grid and ticks
        let mut y = y0;
        while y <= y1 + ystep * 0.01 {
            let py = sy(y);
            let _ = write!(
                o,
                "<line x1=\"{ML}\" x2=\"{:.1}\" y1=\"{py:.1}\" y2=\"{py:.1}\" class=\"grid\"/><text x=\"{:.1}\" y=\"{:.1}\" class=\"tk\" text-anchor=\"end\">{}</text>",
                ML + pw,
                ML - 6.0,
                py + 4.0,
                fmt_num(y)
            );
            y += ystep;
        }
        // x ticks
        if self.x_log2 {
            let mut e = x0.ceil() as i64;
            let step = if x1 - x0 > 14.0 { 2 } else { 1 };
            if e % step != 0 {
                e += 1;
            }
            while (e as f64) <= x1 + 1e-9 {
                let px = sxt(e as f64);
                let _ = write!(
                    o,
                    "<line x1=\"{px:.1}\" x2=\"{px:.1}\" y1=\"{MT}\" y2=\"{:.1}\" class=\"grid\"/><text x=\"{px:.1}\" y=\"{:.1}\" class=\"tk\" text-anchor=\"middle\">{}</text>",
                    MT + ph,
                    MT + ph + 15.0,
                    bytes_label(2f64.powi(e as i32))
                );
                e += step;
            }
        } else {
            let xstep = nice_step(x1 - x0, 6);
            let mut x = (x0 / xstep).ceil() * xstep;
            while x <= x1 + xstep * 0.01 {
                let px = sxt(x);
                let _ = write!(
                    o,
                    "<line x1=\"{px:.1}\" x2=\"{px:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" class=\"axis\"/><text x=\"{px:.1}\" y=\"{:.1}\" class=\"tk\" text-anchor=\"middle\">{}</text>",
                    MT + ph,
                    MT + ph + 4.0,
                    MT + ph + 15.0,
                    fmt_num(x)
                );
                x += xstep;
            }
        }
        // axes and labels
        let _ = write!(
            o,
            "<line x1=\"{ML}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" class=\"axis\"/>",
            ML + pw,
            MT + ph,
            MT + ph
        );
        let _ = write!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"al\" text-anchor=\"middle\">{}</text>",
            ML + pw / 2.0,
            h - 6.0,
            esc(&self.x_label)
        );
        let _ = write!(
            o,
            "<text transform=\"translate(13 {:.1}) rotate(-90)\" class=\"al\" text-anchor=\"middle\">{}</text>",
            MT + ph / 2.0,
            esc(&self.y_label)
        );
        if self.diagonal {
            let a = x0.max(y0);
            let b = x1.min(y1);
            let _ = write!(
                o,
                "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" class=\"diag\"><title>measured = advertised</title></line>",
                sxt(a),
                sy(a),
                sxt(b),
                sy(b)
            );
        }
        // series
        for s in &series {
            let mut segs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
            for &(x, y) in &s.points {
                match y {
                    Some(y) => segs.last_mut().unwrap().push((sx(x), sy(y))),
                    None => {
                        if !segs.last().unwrap().is_empty() {
                            segs.push(Vec::new());
                        }
                    }
                }
            }
            let dash = if s.dashed {
                " stroke-dasharray=\"5 4\""
            } else {
                ""
            };
            for seg in segs.iter().filter(|s| !s.is_empty()) {
                if s.area && seg.len() > 1 {
                    let mut d = format!("M{:.1} {:.1}", seg[0].0, MT + ph);
                    for p in seg {
                        let _ = write!(d, " L{:.1} {:.1}", p.0, p.1);
                    }
                    let _ = write!(d, " L{:.1} {:.1} Z", seg[seg.len() - 1].0, MT + ph);
                    let _ = write!(
                        o,
                        "<path d=\"{d}\" fill=\"{}\" fill-opacity=\"0.14\" stroke=\"none\"/>",
                        s.colour
                    );
                }
                // Two points make no trend: dots only (drawn below), no line.
                if seg.len() <= 2 {
                    continue;
                }
                let pts: Vec<String> = seg
                    .iter()
                    .map(|p| format!("{:.1},{:.1}", p.0, p.1))
                    .collect();
                let _ = write!(
                    o,
                    "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" stroke-linejoin=\"round\"{dash}/>",
                    pts.join(" "),
                    s.colour
                );
            }
            // markers (always for isolated points) with tooltips
            let many = s.points.len() > 120;
            for (i, &(x, y)) in s.points.iter().enumerate() {
                let Some(y) = y else { continue };
                let isolated = (i == 0 || s.points[i - 1].1.is_none())
                    && (i + 1 == s.points.len() || s.points[i + 1].1.is_none());
                let valid = s.points.iter().filter(|p| p.1.is_some()).count();
                let r = if s.markers || isolated || valid <= 2 {
                    3.2
                } else if many {
                    0.0
                } else {
                    2.0
                };
                let xt = if self.x_log2 {
                    bytes_label(x)
                } else {
                    fmt_num(x)
                };
                let _ = write!(
                    o,
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{r}\" fill=\"{}\"{}><title>{}: {} {} at {} {}</title></circle>",
                    sx(x),
                    sy(y),
                    if s.markers && s.dashed { "white" } else { s.colour.as_str() },
                    if s.markers && s.dashed {
                        format!(" stroke=\"{}\" stroke-width=\"1.6\"", s.colour)
                    } else {
                        String::new()
                    },
                    esc(&s.name),
                    fmt_num(y),
                    esc(&s.unit),
                    xt,
                    esc(self.x_label.split(" (").nth(1).map_or("", |u| u.trim_end_matches(')')))
                );
            }
        }
        o.push_str("</svg>");
        // legend (HTML, wraps on narrow screens)
        if series.len() > 1 || !series[0].name.is_empty() {
            o.push_str("<div class=\"legend\">");
            for s in &series {
                let _ = write!(
                    o,
                    "<span><i style=\"background:{}{}\"></i>{}</span>",
                    s.colour,
                    if s.dashed { ";opacity:.55" } else { "" },
                    esc(&s.name)
                );
            }
            o.push_str("</div>");
        }
        o.push_str("</figure>");
        o
    }
}

/// One bar of a horizontal bar chart.
#[derive(Debug, Clone)]
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub colour: String,
    /// Text after the bar (`959.76 s (98.9 %)`).
    pub text: String,
}

/// Horizontal bars, one per row, scaled to the largest value.
pub fn bars(title: &str, rows: &[Bar]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let row_h = 19.0;
    let lw = 74.0;
    // Room after the bar for its text (`p50 175 / p99 205 / p99.9 320`).
    let tw = rows
        .iter()
        .map(|r| r.text.chars().count() as f64 * 7.0 + 8.0)
        .fold(112.0, f64::max);
    let w = (lw + 200.0 + tw).max(360.0);
    let h = 28.0 + rows.len() as f64 * row_h + 6.0;
    let max = rows.iter().map(|r| r.value).fold(0.0, f64::max).max(1e-9);
    let mut o = format!(
        // Drawn at its natural size (text at the page's size), narrower on a phone.
        "<figure class=\"fig\"><svg class=\"chart natural\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h}\" role=\"img\" aria-label=\"{}\"><text x=\"4\" y=\"18\" class=\"ct\">{}</text>",
        esc(title),
        esc(title)
    );
    for (i, r) in rows.iter().enumerate() {
        let y = 28.0 + i as f64 * row_h;
        let bw = ((r.value / max) * (w - lw - tw - 8.0)).max(if r.value > 0.0 { 1.5 } else { 0.0 });
        let _ = write!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"tk\" text-anchor=\"end\">{}</text><rect x=\"{lw}\" y=\"{:.1}\" width=\"{bw:.1}\" height=\"{:.1}\" rx=\"2\" fill=\"{}\"><title>{}: {}</title></rect><text x=\"{:.1}\" y=\"{:.1}\" class=\"tk\">{}</text>",
            lw - 6.0,
            y + 14.0,
            esc(&r.label),
            y + 3.0,
            row_h - 6.0,
            r.colour,
            esc(&r.label),
            esc(&r.text),
            lw + bw + 6.0,
            y + 14.0,
            esc(&r.text)
        );
    }
    o.push_str("</svg></figure>");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_and_labels() {
        assert_eq!(nice_step(100.0, 4), 50.0);
        assert_eq!(nice_step(7.0, 4), 2.0);
        assert_eq!(nice_step(0.0, 4), 1.0);
        assert_eq!(bytes_label(4096.0), "4K");
        assert_eq!(bytes_label(64.0 * 1048576.0), "64M");
        assert_eq!(fmt_num(1247490.0), "1\u{2009}247\u{2009}490");
        assert_eq!(esc("<a href=\"x\">&"), "&lt;a href=&quot;x&quot;&gt;&amp;");
    }

    #[test]
    fn empty_chart_is_a_placeholder_and_gaps_break_lines() {
        let mut c = LineChart::new("Clock", "time (s)", "MHz");
        assert!(c.render().contains("Clock: not measured."));
        assert!(!c.render().contains("<figure"));
        c.series.push(Series::new(
            "cpu0",
            "#000",
            "MHz",
            vec![
                (0.0, Some(1.0)),
                (1.0, Some(2.0)),
                (2.0, None),
                (3.0, Some(2.0)),
                (4.0, Some(1.0)),
            ],
        ));
        let s = c.render();
        // Two segments of two points each: dots, no lines (two points make no trend).
        assert_eq!(s.matches("<polyline").count(), 0, "{s}");
        c.series[0].points.push((5.0, Some(3.0)));
        assert_eq!(c.render().matches("<polyline").count(), 1);
        assert!(s.contains("<title>cpu0: 2 MHz at 1 s</title>"));
    }
}
