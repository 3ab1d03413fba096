//! The headline of a result: the few figures a user came for, first on its page, in its text
//! summary and on its history line — each marked when the row it comes from is not valid.

use std::fmt::Write as _;

/// One figure of a headline.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Headline {
    /// What it is: `Upload`, `Video under Burn`, `cpu4-7 best OPP`.
    pub label: String,
    /// The figure with its unit: `941 Mbit/s`, `7.8 % deadlines met`.
    pub value: String,
    /// One line of context: `CPU-bound: cpu1 99 % (softirq)`, `3 runs, spread 2 %`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Why the figure is not valid (`throttling`); None when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
    /// The best of its kind on this page (governors, OPPs).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub best: bool,
}

impl Headline {
    pub fn new(label: impl Into<String>, value: impl Into<String>) -> Headline {
        Headline {
            label: label.into(),
            value: value.into(),
            ..Default::default()
        }
    }

    pub fn note(mut self, note: impl Into<String>) -> Headline {
        let n = note.into();
        if !n.is_empty() {
            self.note = Some(n);
        }
        self
    }

    pub fn invalid(mut self, why: Option<&str>) -> Headline {
        self.invalid = why.map(str::to_string);
        self
    }

    pub fn best(mut self, best: bool) -> Headline {
        self.best = best;
        self
    }
}

/// `941` / `16 060` / `23.8` / `1.25`: a figure with the digits that matter, thousands set
/// apart by a thin space from 10 000 on.
pub fn fig(v: f64) -> String {
    let a = v.abs();
    if a >= 10_000.0 {
        let digits = format!("{:.0}", a);
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push('\u{2009}');
            }
            out.push(c);
        }
        if v < 0.0 {
            out.insert(0, '-');
        }
        out
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// The headline as text lines (`  Upload: 941 Mbit/s — CPU-bound … [invalid: throttling]`).
pub fn text(h: &[Headline]) -> String {
    let mut o = String::new();
    for x in h {
        let _ = write!(o, "  {}: {}", x.label, x.value);
        if x.best {
            o.push_str(" (best)");
        }
        if let Some(n) = &x.note {
            let _ = write!(o, " — {n}");
        }
        if let Some(i) = &x.invalid {
            let _ = write!(o, " [invalid: {i}]");
        }
        o.push('\n');
    }
    o
}

/// The headline on one line, for `history`: `Upload 941 Mbit/s · Download 903 Mbit/s`.
pub fn one_line(h: &[Headline]) -> String {
    h.iter()
        .map(|x| {
            format!(
                "{} {}{}{}",
                x.label,
                x.value,
                if x.best { " (best)" } else { "" },
                if x.invalid.is_some() {
                    " (invalid)"
                } else {
                    ""
                }
            )
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

#[cfg(test)]
mod tests {
    use super::fig;

    #[test]
    fn figures_read_at_a_glance() {
        assert_eq!(fig(941.2), "941");
        assert_eq!(fig(16060.0), "16\u{2009}060");
        assert_eq!(fig(1247490.0), "1\u{2009}247\u{2009}490");
        assert_eq!(fig(-23283.0), "-23\u{2009}283");
        assert_eq!(fig(23.84), "23.8");
        assert_eq!(fig(1.254), "1.25");
    }
}
