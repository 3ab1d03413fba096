//! What the kinds that run tests × repeats × cpufreq settings (`net`, `io`) share: how the
//! tests ran ([`Sweep`], flattened into the body), the part of a test row that is not the
//! kind's figures ([`TestRun`]: test, setting, repeat, per-core load, CPU-bound verdict, clock
//! reached), the part of a per-test summary that is not its medians ([`TestSummary`]), and
//! what shared code reads of a row ([`SweepRow`]). Each is flattened: the JSON keeps every
//! field where the kind's own row, summary or body has it.

use serde::{Deserialize, Serialize};

use crate::PhaseStatus;

/// How a sweeping kind's tests ran: their length, repeats, the CPU-bound threshold, the
/// settings swept and the conclusions across them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Sweep {
    /// Seconds each test reads or moves data.
    pub duration_s: f64,
    /// Runs of each test per setting (`--repeat`).
    pub repeat: u32,
    /// A core at or above this busy share during a test is the limit (`CPU-bound`), %.
    pub cpu_bound_pct: f64,
    /// The settings swept (`as is`, `max`, `governor:ondemand`, `opp:1800 MHz`…); `as is`
    /// alone without `--sweep`.
    #[serde(default)]
    pub settings: Vec<String>,
    /// Why the sweep did not run (no cpufreq, no right to change settings); None when it
    /// ran or was not asked for.
    #[serde(default)]
    pub sweep_note: Option<String>,
    /// Conclusions across settings ("The governor does not raise the clock for I/O" …).
    #[serde(default)]
    pub verdicts: Vec<String>,
}

/// What every test row of a sweeping kind holds besides its evidence and its figures: which
/// test of which repeat under which setting, and what it cost the CPU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TestRun {
    /// The test (`upload`, `download`, `duplex`; `cached`, `sequential`, `random`).
    pub test: String,
    /// The machine setting it ran under (`as is`; the sweep's `max`, `governor:ondemand`…).
    pub setting: String,
    /// 1-based repeat number.
    pub repeat: u32,
    /// Per-core load on this side during the test (empty when `/proc/stat` was unreadable).
    pub cores: Vec<CoreLoad>,
    /// The saturated core, when one was.
    pub cpu_bound: Option<CpuBound>,
    /// The clock reached per policy while it ran: `(policy, MHz)`, time-weighted mean of
    /// the time_in_state deltas (empty without cpufreq statistics).
    #[serde(default)]
    pub reached_mhz: Vec<(String, f64)>,
}

/// What every per-test summary of a sweeping kind holds besides its medians.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TestSummary {
    /// The test (as a row's `test`).
    pub test: String,
    /// The machine setting (as a row's `setting`).
    pub setting: String,
    /// Repeats that completed and are valid: what the medians are of.
    pub runs: u32,
    /// (max − min) / median of the headline figure (MB/s, Mbit/s) of those repeats, %; None
    /// with fewer than two.
    pub spread_pct: Option<f64>,
    /// Repeats whose test was CPU-bound.
    pub cpu_bound_runs: u32,
}

/// One CPU's time during a test, % of the wall time (from `/proc/stat`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CoreLoad {
    /// The CPU.
    pub cpu: u32,
    /// Everything but idle, iowait and steal.
    pub busy_pct: f64,
    /// softirq + hardirq: the network stack's receive and transmit work.
    pub softirq_pct: f64,
    /// user + nice + system: the processes (the transfer's own threads and anything else).
    pub process_pct: f64,
}

/// The verdict "CPU-bound": a core at or above `cpu_bound_pct` of the body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CpuBound {
    /// The busiest CPU.
    pub cpu: u32,
    /// Its busy share, % of the wall time.
    pub busy_pct: f64,
    /// `softirq` when softirq + irq time is the larger share of the busy time, else `process`.
    pub by: String,
}

/// How a row's test ended, as shared code reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ended<'a> {
    /// The phase of the envelope holding the row's evidence.
    pub phase: &'a str,
    /// How the test ended.
    pub status: PhaseStatus,
    /// Why it failed or was interrupted.
    pub reason: Option<&'a str>,
    /// Findings of its phase.
    pub marks: &'a [String],
    /// Why its figures are not valid.
    pub invalid: Option<&'a str>,
}

impl Ended<'_> {
    /// Completed and valid: a repeat the medians are of.
    pub fn counts(&self) -> bool {
        self.status == PhaseStatus::Ok && self.invalid.is_none()
    }
}

/// A test row of a sweeping kind: its shared part, how it ended, its marks. What the suites'
/// driver, the summaries and the renderers' shared tables read and write of it.
pub trait SweepRow {
    /// The part every sweeping kind's row has.
    fn run(&self) -> &TestRun;
    /// How the test ended.
    fn ended(&self) -> Ended<'_>;
    /// The figure its summary's median and spread are of (MB/s, Mbit/s).
    fn headline(&self) -> Option<f64>;
    /// Set the findings of its phase and why they make its figures not valid.
    fn mark(&mut self, marks: Vec<String>, invalid: Option<String>);
}

/// A per-test summary of a sweeping kind.
pub trait SweepSummary {
    /// The part every sweeping kind's summary has.
    fn summary(&self) -> &TestSummary;
    /// The median of the rows' [`SweepRow::headline`].
    fn median(&self) -> Option<f64>;
}

/// The body of a sweeping kind: how its tests ran, its rows and its summaries.
pub trait SweepBody {
    /// Its row type.
    type Row: SweepRow;
    /// Its per-test summary type.
    type Summary: SweepSummary;
    /// How the tests ran.
    fn sweep(&self) -> &Sweep;
    /// One row per test, setting and repeat, in the order they ran.
    fn rows(&self) -> &[Self::Row];
    /// The rows, to mark them.
    fn rows_mut(&mut self) -> &mut [Self::Row];
    /// Per test and setting.
    fn tests(&self) -> &[Self::Summary];

    /// The rows of `summary`'s test and setting.
    fn rows_of<'a>(&'a self, summary: &'a TestSummary) -> impl Iterator<Item = &'a Self::Row> {
        self.rows()
            .iter()
            .filter(|r| r.run().test == summary.test && r.run().setting == summary.setting)
    }
}

/// The sweeping kind traits for a body with `sweep`, `rows` and `tests`, its row — with a
/// `run: TestRun` and the fields `phase`, `status`, `reason`, `marks`, `invalid` — and its
/// summary (`summary: TestSummary`). `headline` and `median` name the figure and its median.
macro_rules! sweep_kind {
    ($body:ty, $row:ty, $summary:ty, |$r:ident| $headline:expr, $median:ident) => {
        impl $crate::sweep::SweepRow for $row {
            fn run(&self) -> &$crate::sweep::TestRun {
                &self.run
            }
            fn ended(&self) -> $crate::sweep::Ended<'_> {
                $crate::sweep::Ended {
                    phase: &self.phase,
                    status: self.status,
                    reason: self.reason.as_deref(),
                    marks: &self.marks,
                    invalid: self.invalid.as_deref(),
                }
            }
            fn headline(&self) -> Option<f64> {
                let $r = self;
                $headline
            }
            fn mark(&mut self, marks: Vec<String>, invalid: Option<String>) {
                self.marks = marks;
                self.invalid = invalid;
            }
        }

        impl $crate::sweep::SweepSummary for $summary {
            fn summary(&self) -> &$crate::sweep::TestSummary {
                &self.summary
            }
            fn median(&self) -> Option<f64> {
                self.$median
            }
        }

        impl $crate::sweep::SweepBody for $body {
            type Row = $row;
            type Summary = $summary;
            fn sweep(&self) -> &$crate::sweep::Sweep {
                &self.sweep
            }
            fn rows(&self) -> &[$row] {
                &self.rows
            }
            fn rows_mut(&mut self) -> &mut [$row] {
                &mut self.rows
            }
            fn tests(&self) -> &[$summary] {
                &self.tests
            }
        }
    };
}
pub(crate) use sweep_kind;
