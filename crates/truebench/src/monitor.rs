//! `truebench monitor`: sbc-bench's `-m` monitoring lines, or — with a command — the evidence
//! around a run of it (sbc-bench's `ExecuteCommand` with `-R`).

use crate::frame::{Frame, MeasureArgs, Say, Show};
use std::io::Write;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::Duration;
use truebench_host::{Host, Inventory};
use truebench_model::timeline::json_line;
use truebench_model::timeline::{ExtraSample, Sample};
use truebench_monitor::profile::{self, Part};
use truebench_monitor::sampler::{SampleLoop, SamplerConfig};
use truebench_monitor_core::render::{Layout, Table};
use truebench_suites::command::{self, CommandOptions};

#[derive(clap::Args, Debug)]
#[command(after_help = crate::exit::HELP)]
// sbc-bench users type `-m 5` as `--interval 5`: the shared flag takes that name too.
#[command(mut_arg("sample_interval", |a| a.visible_alias("interval")))]
pub struct MonitorArgs {
    #[command(flatten)]
    pub measure: MeasureArgs,
    /// Print one JSON object per sample on stdout instead of the table, and nothing else.
    #[arg(long, conflicts_with = "json")]
    pub json_lines: bool,
    /// Threads the command is expected to keep busy (1 for a single-threaded benchmark):
    /// enables the background-activity check, which needs to know what the command uses.
    #[arg(long, value_name = "N")]
    pub threads: Option<u32>,
    /// Read kernel-log lines from FILE (dmesg text or kmsg records) instead of /dev/kmsg.
    #[arg(long, value_name = "FILE")]
    pub kernel_log: Option<PathBuf>,
    /// Run the command once per type of CPU core, pinned to it (sbc-bench -G/-P): scores and
    /// evidence per core type.
    #[arg(long)]
    pub per_cluster: bool,
    /// With --per-cluster: take the other CPUs offline during each run (journaled, restored;
    /// needs root). cpu0 usually cannot go offline and stays.
    #[arg(long, requires = "per_cluster")]
    pub offline: bool,
    /// With --per-cluster: where the command prints its score — a regular expression whose
    /// first group (or whole match) is the number, the last match wins. Without it, the
    /// outputs of 7-zip (`7zz b`), openssl speed, sysbench and stress-ng --metrics are read.
    #[arg(long, value_name = "REGEX", requires = "per_cluster")]
    pub score: Option<String>,
    /// Command to run while monitoring; its exit code becomes truebench's. Without it, the
    /// environment variable ExecuteCommand (a shell command line) is run with `sh -c`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

pub fn run(args: MonitorArgs) -> anyhow::Result<i32> {
    if args.offline {
        crate::cli::tuning_allowed("--offline takes CPUs offline", &args.measure.tuning)?;
    }
    let frame = args.measure.open()?;
    let interval = args.measure.sample.or(Duration::from_secs(5));
    let command: Vec<String> = if !args.command.is_empty() {
        args.command.clone()
    } else {
        match std::env::var("ExecuteCommand") {
            Ok(c) if !c.trim().is_empty() => vec!["sh".into(), "-c".into(), c],
            _ => Vec::new(),
        }
    };
    if command.is_empty() {
        if args.measure.output.machine() {
            return Err(anyhow::anyhow!(
                "--json and --format print the result of a monitored command (monitor --json -- CMD); to watch, use --json-lines"
            ));
        }
        // Watching measures nothing: no lock, so it can watch a measurement.
        let meter = frame.meter_without_lock()?;
        watch(&frame.host, &frame.inv, interval, args.json_lines, meter)
    } else {
        with_command(frame, interval, &args, &command)
    }
}

/// The hardware header sbc-bench's monitor mode prints before the first line.
pub fn hardware_header(host: &Host, inv: &Inventory) -> String {
    let mut o = crate::info::identity(inv);
    o.push('\n');
    o.push_str(&crate::info::topology_table(inv));
    o.push('\n');
    o.push_str(&thermal_source(host, inv));
    o.push('\n');
    o
}

/// `Thermal source: /sys/devices/virtual/thermal/thermal_zone0/ (cpu0-thermal)`: the
/// sensor's directory with the sys/class link resolved, as sbc-bench prints it.
pub fn thermal_source(host: &Host, inv: &Inventory) -> String {
    match &inv.thermal.chosen {
        Some(c) => {
            let dir = c.path.rsplit_once('/').map_or(c.path.as_str(), |(d, _)| d);
            let dir = resolve_link(host, dir);
            format!("Thermal source: /{dir}/ ({})\n", c.name)
        }
        None => "Thermal source: none found\n".into(),
    }
}

/// `sys/class/thermal/thermal_zone0` → `sys/devices/virtual/thermal/thermal_zone0` when it is
/// a relative link (sysfs class entries are); anything else is returned unchanged.
fn resolve_link(host: &Host, rel: &str) -> String {
    let Some(target) = host.read_link(rel) else {
        return rel.to_string();
    };
    if target.is_absolute() {
        return rel.to_string();
    }
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    parts.pop();
    for c in target.components() {
        match c {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(n) => parts.push(n.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    parts.join("/")
}

/// Write `bytes` to stdout; Break when stdout is gone (`truebench monitor | head`), which
/// ends monitoring like Ctrl-C.
#[link_section = "truebench_tick"]
fn print(bytes: &[u8]) -> ControlFlow<()> {
    match crate::out::write_direct(bytes) {
        Ok(()) => ControlFlow::Continue(()),
        Err(_) => ControlFlow::Break(()),
    }
}

/// Monitor until Ctrl-C (or SIGTERM/SIGHUP). Samples are taken and printed on this thread,
/// one wake-up each: the signal thread of truebench-tuning turns the first signal into a
/// flag (`graceful_interrupts`) the loop looks at every sample (and every 250 ms while
/// waiting for a longer interval).
fn watch(
    host: &Host,
    inv: &Inventory,
    interval: Duration,
    json: bool,
    meter: Option<std::sync::Arc<truebench_suites::meter::Meter>>,
) -> anyhow::Result<i32> {
    let cfg = SamplerConfig {
        interval,
        keep_samples: false,
        stop: Some(truebench_tuning::graceful_interrupts()),
        meter: meter.map(|m| m as std::sync::Arc<dyn truebench_monitor::reader::ExternalPower>),
        ..Default::default()
    };
    let lp = SampleLoop::new(host, inv, cfg);
    // `print` writes past std's buffer: anything still in it goes first.
    if crate::out::stdout().flush().is_err() {
        return Ok(0);
    }
    if json {
        let mut buf = Vec::with_capacity(1024);
        lp.run(Some(move |s: &Sample, x: &ExtraSample| {
            print_json_line(&mut buf, s, x)
        }));
        // Only in a build with the `tick-profile` feature (bench/tick_phases.sh).
        if let Some(r) = profile::report() {
            errln!("{r}");
        }
    } else {
        // The layout depends on whether the Pi firmware answers, which the loop found out.
        let _ = print(hardware_header(host, inv).as_bytes());
        let mut table = Table::new(Layout::new(inv, lp.rpi()));
        lp.run(Some(move |s: &Sample, _: &ExtraSample| {
            print(table.next(s).as_bytes())
        }));
    }
    Ok(0)
}

/// One `--json-lines` line, written at once. In the sampler's tick section with the rest of a
/// tick's code (after 100 ms asleep each line of code a tick runs may be cold).
#[link_section = "truebench_tick"]
fn print_json_line(buf: &mut Vec<u8>, s: &Sample, x: &ExtraSample) -> ControlFlow<()> {
    let t = profile::start();
    json_line(buf, s, x);
    buf.push(b'\n');
    profile::end(Part::Format, t);
    let t = profile::start();
    let flow = print(buf);
    profile::end(Part::Write, t);
    flow
}

/// An argument as a shell would need it typed (for display only).
fn shell_quote(a: &str) -> String {
    let plain = !a.is_empty()
        && a.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

fn with_command(
    mut frame: Frame,
    interval: Duration,
    args: &MonitorArgs,
    command: &[String],
) -> anyhow::Result<i32> {
    // A monitored command is a measurement: one at a time, refused before anything starts.
    let meter = frame.lock()?;
    let (host, inv) = (&frame.host, &frame.inv);
    let cmdline = command
        .iter()
        .map(|a| shell_quote(a))
        .collect::<Vec<_>>()
        .join(" ");
    if !args.json_lines && !args.measure.output.machine() {
        out!("{}", hardware_header(host, inv))?;
        outln!("Running: {cmdline}\n")?;
        let _ = crate::out::stdout().flush();
    }
    // Ctrl-C reaches the child through the terminal's process group; the first one only sets
    // this flag for us, so the report is still printed.
    let interrupted = truebench_tuning::graceful_interrupts();
    // --json-lines: each sample's line as it is taken, one write(2), whatever stdout is (a
    // pipe or a file as well as a terminal); the closing sample goes with the summary.
    let streamed = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let each_sample = args.json_lines.then(|| {
        let n = streamed.clone();
        truebench_suites::session::EachSample(std::sync::Arc::new(move |s, x| {
            let mut line = Vec::with_capacity(1024);
            json_line(&mut line, s, x);
            line.push(b'\n');
            // A reader gone is noticed when the summary is written.
            let _ = crate::out::write_direct(&line);
            n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }))
    });
    let opts = CommandOptions {
        interval,
        threads: args.threads,
        kernel_log: args.kernel_log.clone(),
        per_cluster: args.per_cluster.then_some(args.offline),
        meter,
        score: args
            .score
            .as_deref()
            .map(truebench_suites::score::ScorePattern::new)
            .transpose()
            .map_err(anyhow::Error::msg)?,
        each_sample,
    };
    // The command writes to the same terminal: plain lines, no bar redrawn beneath it. With
    // --json-lines stderr stays for errors.
    let mut progress = crate::progress::Progress::lines(args.measure.output.quiet || args.json_lines);
    let result = command::run(host, inv, command, &opts, interrupted, &mut |e| {
        progress.event(e)
    });
    drop(progress);
    let result = result?;
    if let Some(e) = &result.body.error {
        errln!("truebench: cannot start {}: {e}", command[0]);
        // As a shell: 127 when there is no such command, 126 when it cannot be executed.
        return Ok(result
            .body
            .start_failure
            .map_or(126, |f| f.shell_code()));
    }
    // With --json-lines, stdout is the samples' stream and stderr stays for errors.
    let say = if args.json_lines {
        Say::Never
    } else {
        Say::UnlessQuiet
    };
    let code = match (result.body.exit_code, result.body.signal) {
        (Some(c), _) => c,
        (None, Some(sig)) => 128 + sig,
        (None, None) => 1,
    };
    let doc = result.into_document();
    // Kept in a temporary file when the history cannot take it; the exit code stays the
    // command's own, as documented.
    let id = frame.store_or_keep(&doc, say).id();
    let mut out = crate::out::stdout();
    if args.json_lines {
        let tl = &doc.envelope.timeline;
        let mut line = Vec::new();
        let none = ExtraSample::default();
        let written = streamed.load(std::sync::atomic::Ordering::SeqCst);
        for (i, s) in tl.samples.iter().enumerate().skip(written) {
            line.clear();
            json_line(&mut line, s, tl.extra.get(i).unwrap_or(&none));
            line.push(b'\n');
            out.write_all(&line)?;
        }
        let summary = serde_json::json!({
            "kind": "monitor",
            "command": command,
            "exit_code": code,
            "header": tl.header,
            "extra_header": tl.extra_header,
            "phases": tl.phases,
            "energy": tl.energy,
            "findings": doc.envelope.findings,
            "valid": doc.envelope.valid,
        });
        writeln!(out, "{summary}")?;
        out.flush()?;
    } else {
        drop(out);
        frame.print(&doc, id, Show::Summary)?;
    }
    // A monitored command's code is its own, as from a shell.
    Ok(code)
}
