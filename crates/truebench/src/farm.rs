//! Results in the formats farm engines read (`--format`, `--textfile`, `export --format`):
//! choosing the format, writing it, and LAVA's signals inside a LAVA job.

use std::path::{Path, PathBuf};

use anyhow::Context;
use truebench_formats::{Format, Signals};
use truebench_model::Document;

/// What `--format` names: the JSON document or one of the farm formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutFormat {
    /// The result document itself (as `--json`).
    Json,
    /// A farm format.
    Farm(Format),
}

/// The names `--format` takes, with what each is.
pub fn parser() -> impl clap::builder::TypedValueParser<Value = OutFormat> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let mut values = vec![PossibleValue::new("json").help("the result document (as --json)")];
    for (f, name) in Format::ALL {
        values.push(PossibleValue::new(name).help(match f {
            Format::Junit => "JUnit XML: a test case per verdict, condition and phase; scores as properties (Jenkins, GitLab)",
            Format::Lava => "LAVA test-shell signals, one test set per phase (the dispatcher's lines inside a LAVA job, plain lines outside)",
            Format::Kcidb => "KernelCI KCIDB v5 JSON: the kernel as checkout and build, a test per case and score",
            Format::Prom => "Prometheus text, the metric names `serve` uses (node_exporter's textfile collector)",
        }));
    }
    PossibleValuesParser::new(values).map(|s: String| {
        Format::ALL
            .iter()
            .find(|(_, n)| *n == s)
            .map_or(OutFormat::Json, |(f, _)| OutFormat::Farm(*f))
    })
}

/// LAVA's signals inside a LAVA test shell, plain lines elsewhere.
pub fn signals() -> Signals {
    Signals::from_env(|k| std::env::var(k).ok())
}

/// `doc` (known to the history as `id`, or by its start when it was not stored) in `f`.
pub fn render(f: Format, id: Option<i64>, doc: &Document) -> String {
    let id = id.map_or_else(|| doc.envelope.started.utc.clone(), |i| i.to_string());
    f.render(&[(id, doc)], signals())
}

/// Write `text` as `dir/name` by rename, so a reader (node_exporter's textfile collector)
/// never sees half a file. `replace` decides whether an existing file of that name is
/// replaced (the latest result of a kind) or kept (an export never overwrites).
pub fn write_atomic(dir: &Path, name: &str, text: &str, replace: bool) -> anyhow::Result<PathBuf> {
    let path = dir.join(name);
    let r = if replace {
        crate::files::replace(&path, text.as_bytes())
    } else {
        crate::files::create_atomic(&path, text.as_bytes())
    };
    r.with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}

/// `--textfile DIR`: the result's metrics as `DIR/truebench_KIND.prom`, replacing the
/// previous result of the kind, for node_exporter's textfile collector.
pub fn textfile(dir: &Path, id: Option<i64>, doc: &Document) -> anyhow::Result<PathBuf> {
    let id = id.map_or_else(|| doc.envelope.started.utc.clone(), |i| i.to_string());
    let text = truebench_formats::textfile([(id.as_str(), doc)]);
    write_atomic(dir, &format!("truebench_{}.prom", doc.kind()), &text, true)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    /// Shell words of one command, up to the first operator (`>`, `|`, `;`, `&&`, `||`):
    /// quotes removed, variables left as written (a flag's value is a value either way).
    fn words(cmd: &str) -> Vec<String> {
        let (mut out, mut cur, mut quote, mut any) = (Vec::new(), String::new(), None, false);
        for c in cmd.chars() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), c) => cur.push(c),
                (None, '\'' | '"') => {
                    quote = Some(c);
                    any = true;
                }
                (None, c) if c.is_whitespace() => {
                    if any || !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                        any = false;
                    }
                }
                (None, '>' | '|' | ';' | '&') => break,
                (None, c) => cur.push(c),
            }
        }
        if any || !cur.is_empty() {
            out.push(cur);
        }
        out
    }

    /// Every truebench command in the files of docs/farms: `truebench …` or
    /// `/usr/local/bin/truebench …` where a command stands.
    fn commands() -> Vec<(String, Vec<String>)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/farms");
        // A command's place: a line, a YAML list item, a Jenkins `sh '…'`, an `ExecStart=`.
        let re = regex::Regex::new(
            r"^\s*(?:-\s+)?(?:sh\s+')?(?:ExecStart=)?(?:/usr/local/bin/)?truebench\s+([a-z][a-z-]*(?:\s[^'\n]*)?)(?:'|$)",
        )
        .unwrap();
        let mut out = Vec::new();
        let mut stack = vec![dir];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                let text = std::fs::read_to_string(&p).unwrap();
                for line in text.lines().filter(|l| {
                    let t = l.trim_start();
                    !t.starts_with('#') && !t.starts_with("//")
                }) {
                    for c in re.captures_iter(line) {
                        let mut w = vec!["truebench".to_string()];
                        w.extend(words(&c[1]));
                        out.push((p.display().to_string(), w));
                    }
                }
            }
        }
        out
    }

    #[test]
    fn every_command_in_the_farm_examples_parses() {
        let cmds = commands();
        // info and run in the LAVA definition, GitLab, Jenkins; run in the systemd unit.
        assert!(cmds.len() >= 7, "{cmds:?}");
        for (file, argv) in &cmds {
            if let Err(e) = crate::cli::Cli::try_parse_from(argv) {
                panic!("{file}: {argv:?}: {e}");
            }
        }
        let formats: Vec<&str> = cmds
            .iter()
            .filter_map(|(_, a)| {
                a.iter()
                    .position(|w| w == "--format")
                    .map(|i| a[i + 1].as_str())
            })
            .collect();
        for f in ["lava", "junit"] {
            assert!(
                formats.contains(&f),
                "no example uses --format {f}: {formats:?}"
            );
        }
        assert!(cmds
            .iter()
            .any(|(_, a)| a.iter().any(|w| w == "--textfile")));
        assert_eq!(
            words(r#"run --db "$X" --format junit > t.xml || test"#),
            ["run", "--db", "$X", "--format", "junit"]
        );
    }
}
