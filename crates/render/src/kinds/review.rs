//! The `review` kind (sbc-bench -r/-R): the settings grouped by area with what each costs,
//! what tuning changed, what changed while monitoring, the findings. Text for the terminal,
//! Markdown for a published review, HTML sections for the report.

use std::fmt::Write;

use truebench_host::review::{Setting, Severity, AREAS};
use truebench_monitor_core::detect::render_findings;
use truebench_model::finding::FindingKind;

use super::monitor::command_line;
use super::{Figures, Render};
use truebench_figures::review::warnings;
use crate::report::svg::esc;
use crate::text::{detailed_log_for, header_for};
use truebench_model::review::SettingChange;
use truebench_model::{ReviewBody, View};

type ReviewView<'a> = View<'a, ReviewBody>;

fn mark(s: Severity) -> &'static str {
    match s {
        Severity::Ok => "ok  ",
        Severity::Info => "info",
        Severity::Warn => "WARN",
    }
}

fn by_area(settings: &[Setting]) -> Vec<(&'static str, Vec<&Setting>)> {
    AREAS
        .iter()
        .map(|a| {
            (
                *a,
                settings.iter().filter(|s| s.area == *a).collect::<Vec<_>>(),
            )
        })
        .filter(|(_, v)| !v.is_empty())
        .collect()
}

fn change_line(c: &SettingChange) -> String {
    format!(
        "{} {}: {} → {}",
        c.subject,
        c.name,
        c.before.as_deref().unwrap_or("(absent)"),
        c.after.as_deref().unwrap_or("(gone)")
    )
}

fn what_was_monitored(b: &ReviewBody) -> Option<String> {
    if b.monitored_s <= 0.0 && b.command.is_empty() {
        return None;
    }
    let t = crate::text::human_duration(b.monitored_s);
    Some(if b.command.is_empty() {
        format!("monitored for {t}")
    } else {
        let end = match (b.exit_code, b.signal, &b.error) {
            (_, _, Some(e)) => format!("could not start: {e}"),
            (Some(c), _, _) => format!("exit code {c}"),
            (None, Some(s), _) => format!("killed by signal {s}"),
            _ => "ending unknown".into(),
        };
        format!("`{}` monitored for {t} ({end})", command_line(&b.command))
    })
}

impl Render for ReviewBody {
    fn summary(r: ReviewView<'_>) -> String {
        let b = r.body;
        let mut o = String::new();
        for (area, list) in by_area(&b.settings) {
            let _ = writeln!(o, "{area}:");
            for s in list {
                let _ = writeln!(
                    o,
                    "  {} {} {}: {}",
                    mark(s.severity),
                    s.subject,
                    s.name,
                    s.value
                );
                // Warnings say what to do; "not available"-like values say why not.
                let unknown = matches!(
                    s.value.as_str(),
                    "not available" | "not read" | "unreadable"
                );
                if let (Some(why), true) = (&s.why, s.severity == Severity::Warn || unknown) {
                    let _ = writeln!(o, "         {why}");
                }
            }
        }
        if let Some(k) = &b.kernel {
            let _ = writeln!(o, "kernel:\n  {}", k.support.summary);
            for n in &k.notes {
                let _ = writeln!(o, "  {n}");
            }
        }
        if b.tuned {
            let _ = writeln!(o, "\nTuned for performance (restored afterwards):");
            if b.tuning_changes.is_empty() {
                let _ = writeln!(o, "  nothing needed a change");
            }
            for c in &b.tuning_changes {
                let _ = writeln!(o, "  {}", change_line(c));
            }
        } else if r.envelope.tuning.reason.is_some() {
            let _ = writeln!(
                o,
                "\nNot tuned: {}",
                crate::text::tuning_reason(&r.envelope.tuning)
            );
        }
        if let Some(what) = what_was_monitored(b) {
            let _ = writeln!(o, "\nWhile {what}:");
            if b.status_changes.is_empty() && b.kernel_errors.is_empty() {
                let _ = writeln!(
                    o,
                    "  no setting changed by itself and the kernel logged no error"
                );
            }
            for c in &b.status_changes {
                let _ = writeln!(o, "  changed: {}", change_line(c));
            }
            for l in &b.kernel_errors {
                let _ = writeln!(o, "  kernel: {l}");
            }
            let found: Vec<_> = r
                .envelope
                .findings
                .iter()
                .filter(|f| f.kind != FindingKind::NotChecked)
                .cloned()
                .collect();
            if found.is_empty() {
                let _ = writeln!(
                    o,
                    "  no throttling, killed cores, swapping or other finding"
                );
            } else {
                o.push_str(&render_findings(&found));
            }
        }
        let w = warnings(b);
        let _ = writeln!(
            o,
            "\n{} settings read, {w} {} performance or hide{} a problem.",
            b.settings.len(),
            if w == 1 { "costs" } else { "cost" },
            if w == 1 { "s" } else { "" }
        );
        o
    }

    fn detailed_log(r: ReviewView<'_>) -> String {
        detailed_log_for(
            r.envelope,
            &header_for(r.envelope, "review"),
            &Self::summary(r),
        )
    }

    fn html_sections(r: ReviewView<'_>) -> (String, String) {
        let b = r.body;
        let mut head = String::from("<section><h2>Settings</h2>");
        for (area, list) in by_area(&b.settings) {
            let _ = write!(
                head,
                "<h3>{}</h3><table><thead><tr><th></th><th>Of</th><th>Setting</th><th>Value</th><th>Why it matters</th></tr></thead><tbody>",
                esc(area)
            );
            for s in list {
                let _ = write!(
                    head,
                    "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}<br><small><code>{}</code></small></td></tr>",
                    match s.severity {
                        Severity::Warn => "warn",
                        _ => "",
                    },
                    mark(s.severity).trim(),
                    esc(&s.subject),
                    esc(&s.name),
                    esc(&s.value),
                    esc(s.why.as_deref().unwrap_or("")),
                    esc(&source_shown(&s.source))
                );
            }
            head.push_str("</tbody></table>");
        }
        head.push_str("</section>");
        let mut details = String::new();
        // The kernel report `truebench kernel` prints: version, build, origin, support.
        if let Some(k) = &b.kernel {
            let _ = write!(
                details,
                "<section><h2>Kernel</h2><pre class=\"wrap\">{}</pre></section>",
                esc(crate::kernel::render(k).trim_end())
            );
        }
        if b.tuned || what_was_monitored(b).is_some() {
            details.push_str("<section><h2>Changes</h2><ul>");
            for c in &b.tuning_changes {
                let _ = write!(details, "<li>tuned: {}</li>", esc(&change_line(c)));
            }
            for c in &b.status_changes {
                let _ = write!(
                    details,
                    "<li>changed by itself: {}</li>",
                    esc(&change_line(c))
                );
            }
            for l in &b.kernel_errors {
                let _ = write!(details, "<li>kernel: <code>{}</code></li>", esc(l));
            }
            details.push_str("</ul></section>");
        }
        (head, details)
    }

    fn html_fact(r: ReviewView<'_>) -> (&'static str, String) {
        ("Review", Self::label(r))
    }

    /// A published review's settings part, in sbc-bench's review style.
    fn markdown(r: ReviewView<'_>) -> String {
        let b = r.body;
        let mut o = String::new();
        let device = r
            .envelope
            .inventory
            .device
            .clone()
            .unwrap_or_else(|| "Unknown device".into());
        let _ = writeln!(o, "# {device}\n");
        let _ = writeln!(
            o,
            "Reviewed with truebench {} on {}.\n",
            r.envelope.truebench_version, r.envelope.started.utc
        );
        for (area, list) in by_area(&b.settings) {
            let _ = writeln!(o, "### {area}\n");
            for s in list {
                let flag = if s.severity == Severity::Warn {
                    "**⚠** "
                } else {
                    ""
                };
                let _ = write!(
                    o,
                    "  * {flag}{} {}: `{}`",
                    s.subject.replace('|', "\\|"),
                    s.name,
                    s.value
                );
                match (&s.why, s.severity) {
                    (Some(w), Severity::Warn) => {
                        let _ = writeln!(o, " — {w}");
                    }
                    _ => o.push('\n'),
                }
            }
            o.push('\n');
        }
        if let Some(k) = &b.kernel {
            let _ = writeln!(
                o,
                "### Kernel info\n\n  * Kernel {}\n  * {}\n",
                k.release.as_deref().unwrap_or("unknown"),
                k.support.summary
            );
            for n in &k.notes {
                let _ = writeln!(o, "{n}\n");
            }
        }
        if b.tuned && !b.tuning_changes.is_empty() {
            let _ = writeln!(o, "### Tuned for the review\n");
            for c in &b.tuning_changes {
                let _ = writeln!(o, "  * {}", change_line(c));
            }
            o.push('\n');
        }
        if let Some(what) = what_was_monitored(b) {
            let _ = writeln!(o, "### While {what}\n");
            for c in &b.status_changes {
                let _ = writeln!(o, "  * changed: {}", change_line(c));
            }
            for l in &b.kernel_errors {
                let _ = writeln!(o, "  * kernel: `{l}`");
            }
            for f in &r.envelope.findings {
                if f.kind != FindingKind::NotChecked {
                    let _ = writeln!(o, "  * {}", f.message);
                }
            }
            o.push('\n');
        }
        o
    }
}

/// Where a setting's value came from: a file of the tree (shown from the root, `/sys/…`) or
/// a command's output (`smartctl -a /dev/sda`), shown as the command.
fn source_shown(source: &str) -> String {
    let file = ["sys/", "proc/", "dev/", "etc/", "boot/", "run/", "var/", "usr/", "lib/"]
        .iter()
        .any(|p| source.starts_with(p));
    if file {
        format!("/{source}")
    } else {
        source.to_string()
    }
}

#[cfg(test)]
mod source_tests {
    #[test]
    fn files_from_the_root_and_commands_as_commands() {
        // A file relative to the root is shown from the root; a command as it was run.
        let rel = "sys/block/sda/queue/scheduler";
        assert_eq!(super::source_shown(rel), format!("/{rel}"));
        let cmd = "smartctl -a /dev/sda";
        assert_eq!(super::source_shown(cmd), cmd);
    }
}
