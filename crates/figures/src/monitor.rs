//! The figures of a `monitor` result.

use crate::{Figures, Metric};
use truebench_model::{MonitorBody, View};

type MonitorView<'a> = View<'a, MonitorBody>;

/// `sh -c 'make -j4'`: each argument quoted only when the shell would split it.
pub fn command_line(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

impl Figures for MonitorBody {
    fn headline(r: MonitorView<'_>) -> Vec<crate::Headline> {
        use crate::headline::{fig, Headline};
        let b = r.body;
        let ended = match (b.exit_code, b.signal, &b.error) {
            (_, _, Some(e)) => format!("did not run: {e}"),
            (_, Some(s), _) => format!("killed by signal {s}"),
            (Some(c), _, _) => format!("exit {c}"),
            _ => "still running when stopped".into(),
        };
        let mut out = vec![Headline::new(command_line(&b.command), ended)
            .note(format!("{} s", fig(b.duration_s)))];
        for c in &b.clusters {
            if let Some(s) = &c.score {
                out.push(Headline::new(c.label.clone(), format!("{} {}", fig(s.value), s.unit)));
            }
        }
        if let Some(t) = r.envelope.timeline.samples.iter().filter_map(|s| s.soc_temp_c).reduce(f64::max) {
            out.push(Headline::new("Hottest", format!("{t:.1} °C")));
        }
        out
    }

    fn label(r: MonitorView<'_>) -> String {
        command_line(&r.body.command)
    }

    fn metrics(r: MonitorView<'_>) -> Vec<Metric> {
        let mut out = vec![Metric::number("duration_s", r.body.duration_s, Some("s"))];
        if let Some(c) = r.body.exit_code {
            out.push(Metric::number("exit_code", c as f64, None));
        }
        for (i, c) in r.body.clusters.iter().enumerate() {
            out.push(Metric::number(
                format!("cluster{i}_duration_s"),
                c.duration_s,
                Some("s"),
            ));
            if let Some(s) = &c.score {
                let unit = (!s.unit.is_empty()).then_some(s.unit.as_str());
                out.push(Metric::number(format!("cluster{i}_score"), s.value, unit));
            }
        }
        if let Some(x) = r.body.score_ratio {
            out.push(Metric::number("score_ratio", x, None));
        }
        out
    }
}
