//! The frame every measuring command runs in, so the contract between them is held by code:
//! the same flags ([`MeasureArgs`], flattened into each), the same start (the machine, then
//! the measurement lock, then the meter — nothing the command starts exists before the lock
//! is held) and the same end ([`Frame::finish`]: stored once, printed with the kind's
//! headline, the exit code from the one table).

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use truebench_host::{Host, Inventory};
use truebench_model::Document;
use truebench_suites::lock::MeasurementLock;
use truebench_suites::meter::Meter;

use crate::cli::MachineArgs;
use crate::keep::StoreArgs;
use crate::meter_args::MeterArgs;
use crate::progress::Progress;

/// The flags every measuring command takes, with the same meaning and the same help.
#[derive(Args, Debug, Clone)]
pub struct MeasureArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
    #[command(flatten)]
    pub power: MeterArgs,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub sample: SampleArgs,
    #[command(flatten)]
    pub tuning: TuningArgs,
}

/// Where the result goes and what else is said.
#[derive(Args, Debug, Clone, Default)]
pub struct OutputArgs {
    /// Print the result document as JSON on stdout instead of text.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// Print the result in this format on stdout instead of text, for the engine that
    /// reads it (the result is stored as usual).
    #[arg(long, value_name = "FORMAT", value_parser = crate::farm::parser())]
    pub format: Option<crate::farm::OutFormat>,
    /// Also write the result's metrics to DIR/truebench_KIND.prom (replaced by rename, so
    /// node_exporter's textfile collector, `--collector.textfile.directory=DIR`, never reads
    /// half a file).
    #[arg(long, value_name = "DIR", value_parser = crate::values::DIRECTORY)]
    pub textfile: Option<std::path::PathBuf>,
    /// No progress or messages on stderr (errors and warnings still); without it, progress
    /// goes to stderr with --json too.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

impl OutputArgs {
    /// Stdout carries a document for a program (`--json` or `--format`), not text.
    pub fn machine(&self) -> bool {
        self.json || self.format.is_some()
    }
}

/// The monitoring's resolution.
#[derive(Args, Debug, Clone, Default)]
pub struct SampleArgs {
    /// Seconds between monitoring samples (0.01 to 3600) — clocks, load, temperatures,
    /// power: the resolution of the evidence (default: the command's own, 1 s for most; 5 s
    /// for `monitor`, 0.5 s for `run --quick`, 0.25 s for `clocks`).
    #[arg(
        long,
        value_name = "S",
        value_parser = crate::values::SAMPLE_INTERVAL,
        // `-1` is a value to refuse with its reason, not an unknown flag.
        allow_negative_numbers = true
    )]
    pub sample_interval: Option<f64>,
}

impl SampleArgs {
    /// The interval asked for, or the command's `default`.
    pub fn or(&self, default: Duration) -> Duration {
        self.sample_interval
            .map_or(default, Duration::from_secs_f64)
    }
}

/// Whether settings may be changed.
#[derive(Args, Debug, Clone, Default)]
pub struct TuningArgs {
    /// Change no setting (governors, OPP limits, devfreq, ASPM, CPUs offline): measure the
    /// machine as it is (sbc-bench's NOTUNING, which is taken too).
    #[arg(long)]
    pub no_tuning: bool,
    /// The old spelling of --no-tuning.
    #[arg(long, hide = true)]
    pub no_tune: bool,
}

impl TuningArgs {
    /// Why no setting may be changed, None when they may: the flag or NOTUNING (set and not
    /// empty, as sbc-bench reads it).
    pub fn forbidden(&self) -> Option<&'static str> {
        if self.no_tuning || self.no_tune {
            Some("--no-tuning was given")
        } else if crate::cli::notuning_env() {
            Some("NOTUNING is set")
        } else {
            None
        }
    }

    /// Settings may be changed.
    pub fn allowed(&self) -> bool {
        self.forbidden().is_none()
    }
}

/// The idle gate of the commands that wait for a quiet machine before measuring.
#[derive(Args, Debug, Clone, Default)]
pub struct IdleArgs {
    /// Longest wait for an idle machine (and for the start temperature where the command
    /// waits for one), seconds, 0 to 86400 (default 300; `thermal` with --cool-to or
    /// --heat-to: 900). Not idle by then: the measurement goes on and its verdict says the
    /// start is unknown.
    #[arg(long, alias = "wait-timeout", value_name = "S", value_parser = crate::values::TIMEOUT, allow_negative_numbers = true)]
    pub idle_timeout: Option<f64>,
    /// Start after one look at the machine, idle or not (the verdict says so).
    #[arg(long)]
    pub force: bool,
}

impl IdleArgs {
    /// The wait asked for, or `default` seconds.
    pub fn timeout_or(&self, default: f64) -> Duration {
        Duration::from_secs_f64(self.idle_timeout.unwrap_or(default))
    }
}

/// How the result is shown on stdout besides `--json`.
pub enum Show {
    /// The kind's summary after its headline.
    Summary,
    /// The summary, then this line (where the full results are).
    SummaryThen(String),
    /// This text instead of the summary (`run --row`, `review --markdown`).
    Text(String),
}

/// When the history's "stored as #N" is said (a failure to store is always said).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Say {
    /// Also under `--quiet`: where the result is when nothing else kept it.
    Always,
    /// Unless `--quiet`.
    UnlessQuiet,
    /// Never: stderr is not for messages (the monitor's `--json-lines` stream).
    Never,
}

/// A measuring command between its start and its end: the machine it reads, the lock once
/// taken, the meter once started.
pub struct Frame {
    pub host: Host,
    pub inv: Inventory,
    args: MeasureArgs,
    lock: Option<MeasurementLock>,
}

impl MeasureArgs {
    /// Open the machine (finishing the restore a killed run left behind) and identify it;
    /// nothing is started yet.
    pub fn open(&self) -> anyhow::Result<Frame> {
        let host = self.machine.host()?;
        let inv = Inventory::probe(&host);
        Ok(Frame {
            host,
            inv,
            args: self.clone(),
            lock: None,
        })
    }

    /// Settings may be changed (neither --no-tuning nor NOTUNING).
    pub fn tune(&self) -> bool {
        self.tuning.allowed()
    }

    /// The progress on stderr as `--quiet` and `--json` want it.
    pub fn progress(&self) -> Progress {
        Progress::for_command(self.output.quiet, self.output.machine())
    }

    /// Say `text` on stderr unless `--quiet`.
    pub fn say(&self, text: &str) {
        if !self.output.quiet {
            errln!("truebench: {text}");
        }
    }
}

impl Frame {
    /// Take the machine's measurement lock (refused with `BUSY` while another measurement
    /// runs), then start the external meter: the only way a measuring command starts it, so
    /// a refused command never ran the meter. Returns the meter.
    pub fn lock(&mut self) -> anyhow::Result<Option<Arc<Meter>>> {
        if self.lock.is_none() {
            self.lock = Some(crate::exit::lock()?);
        }
        self.args.power.start(self.args.output.quiet)
    }

    /// The meter of a command that only watches and measures nothing (the plain `monitor`):
    /// it runs beside a measurement, so it takes no lock.
    pub fn meter_without_lock(&self) -> anyhow::Result<Option<Arc<Meter>>> {
        self.args.power.start(self.args.output.quiet)
    }

    /// Refuse a recorded `--root`: this command runs its work on the machine itself, which a
    /// recorded tree is not (`why` says so in the command's words).
    pub fn require_live(&self, why: &str) -> anyhow::Result<()> {
        if self.host.is_live() {
            return Ok(());
        }
        Err(anyhow::anyhow!(
            "--root {}: {why}",
            self.host.root().display()
        ))
    }

    /// The flags the frame was opened with.
    pub fn args(&self) -> &MeasureArgs {
        &self.args
    }

    /// Store the result in the history unless `--no-store`, said on stderr as `say` wants.
    /// Returns the history id.
    pub fn store(&self, doc: &Document, say: Say) -> crate::keep::Stored {
        crate::keep::store(doc, &self.args.store, self.quiet(say))
    }

    /// [`Frame::store`], and where the history could not take it, the result kept in a file
    /// of the temporary directory (named on stderr).
    pub fn store_or_keep(&self, doc: &Document, say: Say) -> crate::keep::Stored {
        crate::keep::store_or_keep(doc, &self.args.store, self.quiet(say))
    }

    fn quiet(&self, say: Say) -> bool {
        match say {
            Say::Always => false,
            Say::UnlessQuiet => self.args.output.quiet,
            Say::Never => true,
        }
    }

    /// Print the result: the document with `--json`, a farm format with `--format`, else as
    /// `show` says. `id` is the result's number in the history, where it was stored.
    pub fn print(&self, doc: &Document, id: Option<i64>, show: Show) -> anyhow::Result<()> {
        use crate::farm::OutFormat;
        let mut out = crate::out::stdout();
        if let Some(dir) = &self.args.output.textfile {
            let path = crate::farm::textfile(dir, id, doc)?;
            if !self.args.output.quiet {
                errln!("truebench: metrics written to {}", path.display());
            }
        }
        let format = match (self.args.output.json, self.args.output.format) {
            (true, _) => Some(OutFormat::Json),
            (false, f) => f,
        };
        if let Some(OutFormat::Farm(f)) = format {
            write!(out, "{}", crate::farm::render(f, id, doc))?;
        } else if format == Some(OutFormat::Json) {
            writeln!(out, "{}", serde_json::to_string_pretty(doc)?)?;
        } else {
            match show {
                Show::Summary => write!(out, "{}", truebench_render::kinds::summary(doc))?,
                Show::SummaryThen(line) => {
                    write!(out, "{}", truebench_render::kinds::summary(doc))?;
                    writeln!(out, "\n{line}")?;
                }
                Show::Text(t) => write!(out, "{t}")?,
            }
        }
        out.flush()?;
        Ok(())
    }

    /// The one way a measuring command ends: stored, printed, and the exit code from the
    /// table (interrupted, failed, invalid, valid — decided from the document).
    pub fn finish(self, doc: impl Into<Document>, show: Show) -> anyhow::Result<i32> {
        let doc = doc.into();
        let stored = self.store_or_keep(&doc, Say::UnlessQuiet);
        self.print(&doc, stored.id(), show)?;
        // A result that could not be stored where asked is an I/O error (it was kept).
        Ok(if stored == crate::keep::Stored::Failed {
            crate::exit::ERROR
        } else {
            crate::exit::of(&doc)
        })
    }
}

/// `v` without repeats, in first-seen order (a list flag naming a value twice).
pub fn dedup<T: PartialEq + Copy>(v: &mut Vec<T>) {
    let mut seen = Vec::new();
    v.retain(|x| {
        let new = !seen.contains(x);
        seen.push(*x);
        new
    });
}
