//! JUnit XML as Jenkins' and GitLab's readers take it: one `<testsuite>` per result, a
//! `<testcase>` per case (`classname` = `truebench.KIND.SET`), a `<failure>` with the
//! finding's message, a `<skipped>` with the reason, and each score as a `<property>` (and a
//! passed case of its own, so GitLab, which shows no properties, lists it too).

use std::fmt::Write;

use truebench_model::Document;

use crate::cases::{cases, Case, Verdict};

/// XML text and attribute escaping; characters XML 1.0 cannot hold at all (control
/// characters a tool's output may carry) become U+FFFD.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            '\t' | '\n' | '\r' => o.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => o.push('\u{FFFD}'),
            c => o.push(c),
        }
    }
    o
}

fn number(v: f64) -> String {
    // Integral figures without a fraction, others as Rust prints them (shortest exact).
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// One `<testsuite>` element for `doc`, indented by two spaces.
fn suite(doc: &Document, id: &str) -> (String, [usize; 3]) {
    let e = &doc.envelope;
    let kind = doc.kind();
    let all = cases(doc);
    let failures = all.iter().filter(|c| c.verdict == Verdict::Fail).count();
    let skipped = all.iter().filter(|c| c.verdict == Verdict::Skip).count();
    let mut o = String::new();
    let host = e.hostname.as_deref().unwrap_or("unknown");
    let _ = writeln!(
        o,
        "  <testsuite name=\"{}\" id=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\" time=\"{:.3}\" timestamp=\"{}\" hostname=\"{}\">",
        esc(&format!("truebench {kind} on {host}")),
        esc(id),
        all.len(),
        e.duration_s.max(0.0),
        // JUnit's timestamp has no zone: the UTC text without its `Z`.
        esc(e.started.utc.trim_end_matches('Z')),
        esc(host),
    );
    let _ = writeln!(o, "    <properties>");
    let mut prop = |name: &str, value: &str| {
        let _ = writeln!(
            o,
            "      <property name=\"{}\" value=\"{}\"/>",
            esc(name),
            esc(value)
        );
    };
    prop("truebench.version", &e.truebench_version);
    prop("truebench.kind", kind);
    prop("truebench.id", id);
    if let Some(s) = &e.inventory.soc {
        prop("soc", &s.name);
    }
    if let Some(d) = &e.inventory.device {
        prop("device", d);
    }
    if let Some(k) = &e.inventory.kernel.release {
        prop("kernel", k);
    }
    for c in all.iter().filter(|c| c.set == "scores") {
        if let Some((v, unit)) = &c.measurement {
            let value = match unit {
                Some(u) => format!("{} {u}", number(*v)),
                None => number(*v),
            };
            prop(&format!("score.{}", c.name), &value);
        }
    }
    let _ = writeln!(o, "    </properties>");
    for c in &all {
        case(&mut o, kind, c);
    }
    let _ = writeln!(o, "  </testsuite>");
    (o, [all.len(), failures, skipped])
}

fn case(o: &mut String, kind: &str, c: &Case) {
    let name = match &c.measurement {
        Some((v, Some(u))) => format!("{} = {} {u}", c.name, number(*v)),
        Some((v, None)) => format!("{} = {}", c.name, number(*v)),
        None => c.name.clone(),
    };
    let _ = write!(
        o,
        "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
        esc(&format!("truebench.{kind}.{}", c.set)),
        esc(&name),
        c.seconds.unwrap_or(0.0)
    );
    let body = c.evidence.join("\n");
    match c.verdict {
        Verdict::Pass if c.message.is_none() => {
            let _ = writeln!(o, "/>");
            return;
        }
        Verdict::Pass => {
            let _ = writeln!(o, ">");
            let mut out = c.message.clone().unwrap_or_default();
            if !body.is_empty() {
                out = format!("{out}\n{body}");
            }
            let _ = writeln!(o, "      <system-out>{}</system-out>", esc(&out));
        }
        Verdict::Fail => {
            let _ = writeln!(o, ">");
            let _ = writeln!(
                o,
                "      <failure message=\"{}\" type=\"{}\">{}</failure>",
                esc(c.message.as_deref().unwrap_or("failed")),
                esc(&c.set),
                esc(&body)
            );
        }
        Verdict::Skip => {
            let _ = writeln!(o, ">");
            let _ = writeln!(
                o,
                "      <skipped message=\"{}\"/>",
                esc(c.message.as_deref().unwrap_or("not checked"))
            );
        }
    }
    let _ = writeln!(o, "    </testcase>");
}

/// A JUnit XML file holding one suite per result: `(id, document)` pairs, `id` being how
/// the history knows the result.
pub fn junit<'a>(docs: impl IntoIterator<Item = (&'a str, &'a Document)>) -> String {
    let mut body = String::new();
    let mut totals = [0usize; 3];
    let mut time = 0.0;
    for (id, doc) in docs {
        let (s, n) = suite(doc, id);
        body.push_str(&s);
        for (t, x) in totals.iter_mut().zip(n) {
            *t += x;
        }
        time += doc.envelope.duration_s.max(0.0);
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"truebench\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{time:.3}\">\n{body}</testsuites>\n",
        totals[0], totals[1], totals[2]
    )
}
