//! What the kinds that run tests × repeats × cpufreq settings (`net`, `io`) share: how the
//! tests ran ([`Sweep`], flattened into the body), the part of a test row that is not its
//! evidence or the kind's figures ([`TestRun`]: test, setting, repeat, per-core load,
//! CPU-bound verdict, clock reached), the part of a per-test summary that is not its medians
//! ([`TestSummary`]), a test's phase ([`TestPhase`]), and what shared code reads of a body,
//! row and summary ([`SweepBody`], [`SweepRow`], [`SweepSummary`]). Each part is flattened:
//! the JSON keeps every field where the kind's own row, summary or body has it.

use serde::{Deserialize, Serialize};

use crate::evidence::{words, NotOne, RowEvidence};

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
pub struct TestRun<T> {
    /// The test (`upload`, `download`, `duplex`; `cached`, `sequential`, `random`).
    pub test: T,
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
pub struct TestSummary<T> {
    /// The test (as a row's `test`).
    pub test: T,
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
    pub by: BusyBy,
}

words! {
    /// What kept a saturated core busy.
    pub enum BusyBy("busy share") {
        /// softirq + irq time was the larger share of the busy time.
        Softirq => "softirq",
        /// The processes' time (user + nice + system) was.
        Process => "process",
    }
}

/// A test of a kind that sweeps settings (`net`, `io`): its name is part of its phases'.
pub trait SweepTest: Copy + PartialEq + std::fmt::Display + std::str::FromStr {
    /// The kind's prefix of its phase names (`net`).
    const PREFIX: &'static str;
}

/// The phase of one test of one repeat under one setting: `net-upload-1`, with a swept
/// setting `net-opp-1800-MHz-upload-1`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TestPhase<T> {
    /// The setting's label with every character but letters and digits as `-`
    /// (`opp-1800-MHz`); None for the machine as it is.
    pub setting: Option<String>,
    /// The test.
    pub test: T,
    /// 1-based.
    pub repeat: u32,
}

impl<T: SweepTest> TestPhase<T> {
    /// The phase of `test`'s repeat `repeat` under the setting labelled `setting` (None:
    /// the machine as it is).
    pub fn new(setting: Option<&str>, test: T, repeat: u32) -> TestPhase<T> {
        let slug = |l: &str| -> String {
            l.chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect()
        };
        TestPhase {
            setting: setting.map(slug),
            test,
            repeat,
        }
    }
}

impl<T: SweepTest> std::fmt::Display for TestPhase<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(T::PREFIX)?;
        if let Some(s) = &self.setting {
            write!(f, "-{s}")?;
        }
        write!(f, "-{}-{}", self.test, self.repeat)
    }
}

impl<T: SweepTest> std::str::FromStr for TestPhase<T> {
    type Err = NotOne;
    fn from_str(s: &str) -> Result<TestPhase<T>, NotOne> {
        let not = || NotOne::new("test phase", s);
        let rest = s
            .strip_prefix(T::PREFIX)
            .and_then(|r| r.strip_prefix('-'))
            .ok_or_else(not)?;
        let (rest, repeat) = rest.rsplit_once('-').ok_or_else(not)?;
        let repeat = repeat.parse().map_err(|_| not())?;
        // Test names have no `-`: what is before the last one is the setting.
        let (setting, test) = match rest.rsplit_once('-') {
            Some((setting, test)) if !setting.is_empty() => (Some(setting.to_string()), test),
            Some(_) => return Err(not()),
            None => (None, rest),
        };
        Ok(TestPhase {
            setting,
            test: test.parse().map_err(|_| not())?,
            repeat,
        })
    }
}

impl<T: SweepTest> crate::evidence::PhaseId for TestPhase<T> {
    fn is(&self, name: &str) -> bool {
        name.parse::<TestPhase<T>>().is_ok_and(|p| p == *self)
    }
}

impl<T: SweepTest> Serialize for TestPhase<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de, T: SweepTest> Deserialize<'de> for TestPhase<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

impl<T> schemars::JsonSchema for TestPhase<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "TestPhase".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string", "description": "`KIND-TEST-REPEAT`, `KIND-SETTING-TEST-REPEAT`"})
    }
    fn inline_schema() -> bool {
        true
    }
}

/// A test row of a sweeping kind: its shared part, its evidence, its headline figure. What
/// the suites' driver, the summaries and the renderers' shared tables read of it.
pub trait SweepRow {
    /// The kind's test.
    type Test: SweepTest;
    /// The part every sweeping kind's row has.
    fn run(&self) -> &TestRun<Self::Test>;
    /// Its phase, how it ended, its marks.
    fn evidence(&self) -> &RowEvidence<TestPhase<Self::Test>>;
    /// The same, to mark it.
    fn evidence_mut(&mut self) -> &mut RowEvidence<TestPhase<Self::Test>>;
    /// The figure its summary's median and spread are of (MB/s, Mbit/s).
    fn headline(&self) -> Option<f64>;
}

/// A per-test summary of a sweeping kind.
pub trait SweepSummary {
    /// The kind's test.
    type Test: SweepTest;
    /// The part every sweeping kind's summary has.
    fn summary(&self) -> &TestSummary<Self::Test>;
    /// The stored median of the rows' [`SweepRow::headline`] (computed by `truebench_stats::median`
    /// when the summary was made; this only reads it).
    fn headline_median(&self) -> Option<f64>;
}

/// The body of a sweeping kind: how its tests ran, its rows and its summaries.
pub trait SweepBody {
    /// Its row type.
    type Row: SweepRow;
    /// Its per-test summary type.
    type Summary: SweepSummary<Test = <Self::Row as SweepRow>::Test>;
    /// How the tests ran.
    fn sweep(&self) -> &Sweep;
    /// One row per test, setting and repeat, in the order they ran.
    fn rows(&self) -> &[Self::Row];
    /// The rows, to mark them.
    fn rows_mut(&mut self) -> &mut [Self::Row];
    /// Per test and setting.
    fn tests(&self) -> &[Self::Summary];

    /// The rows of `summary`'s test and setting.
    fn rows_of<'a>(
        &'a self,
        summary: &'a TestSummary<<Self::Row as SweepRow>::Test>,
    ) -> impl Iterator<Item = &'a Self::Row> {
        self.rows()
            .iter()
            .filter(|r| r.run().test == summary.test && r.run().setting == summary.setting)
    }
}

/// The sweeping kind traits for a body with `sweep`, `rows` and `tests`, its row (with
/// `run: TestRun` and `evidence: RowEvidence`) and its summary (`summary: TestSummary`), of
/// the kind's test type. `headline` and `median` name the figure and its median.
macro_rules! sweep_kind {
    ($body:ty, $row:ty, $summary:ty, $test:ty, |$r:ident| $headline:expr, $median:ident) => {
        impl $crate::sweep::SweepRow for $row {
            type Test = $test;
            fn run(&self) -> &$crate::sweep::TestRun<$test> {
                &self.run
            }
            fn evidence(&self) -> &$crate::evidence::RowEvidence<$crate::sweep::TestPhase<$test>> {
                &self.evidence
            }
            fn evidence_mut(
                &mut self,
            ) -> &mut $crate::evidence::RowEvidence<$crate::sweep::TestPhase<$test>> {
                &mut self.evidence
            }
            fn headline(&self) -> Option<f64> {
                let $r = self;
                $headline
            }
        }

        impl $crate::sweep::SweepSummary for $summary {
            type Test = $test;
            fn summary(&self) -> &$crate::sweep::TestSummary<$test> {
                &self.summary
            }
            fn headline_median(&self) -> Option<f64> {
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
