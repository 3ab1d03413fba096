//! The `net` kind (`truebench net --connect`): TCP throughput one way in each direction and
//! full duplex, with the CPU load it cost on this side — per core, split into softirq/irq and
//! process time — and the verdict "CPU-bound" when one core was saturated (the Arndale
//! low-level measurements on an Exynos 5250: full-duplex TCP lost its speed to one busy core). Each test of
//! each repeat is one phase of the envelope, so its clocks, temperatures and findings are
//! that phase's.

use serde::{Deserialize, Serialize};

use crate::evidence::{words, NotOne, RowEvidence};

words! {
    /// A test of `net`: the direction data flows.
    pub enum NetTest("net test") {
        /// This side sends.
        Upload => "upload",
        /// This side receives.
        Download => "download",
        /// Both at once.
        Duplex => "duplex",
    }
}

words! {
    /// What answered on the other side.
    pub enum PeerKind("peer kind") {
        /// A `truebench net --server`.
        Truebench => "truebench",
        /// truebench's own server in this process (`--loopback`).
        Loopback => "truebench (in-process)",
        /// An iperf3 server, driven through `iperf3 -J`.
        Iperf3 => "iperf3",
    }
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

impl SweepTest for NetTest {
    const PREFIX: &'static str = "net";
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

/// The phase of a `net` test.
pub type NetPhase = TestPhase<NetTest>;

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

/// Body of a `net` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NetBody {
    /// The address tested against (`host:port`).
    pub peer: String,
    /// `truebench` (a `truebench net --server`), `truebench (in-process)` (`--loopback`) or
    /// `iperf3` (an iperf3 server, driven through `iperf3 -J`).
    pub peer_kind: PeerKind,
    /// Seconds each test moves data.
    pub duration_s: f64,
    /// Parallel TCP streams per test, started together.
    pub streams: u32,
    /// Data sent with sendfile(2), not copied from user space (`--zerocopy`, iperf3 `-Z`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub zerocopy: bool,
    /// Runs of each test per setting (`--repeat`).
    pub repeat: u32,
    /// A core at or above this busy share during a test is the limit (`CPU-bound`), %.
    pub cpu_bound_pct: f64,
    /// One row per test and repeat, in the order they ran.
    pub rows: Vec<NetRow>,
    /// Per test and setting: the median over the repeats and the spread.
    pub tests: Vec<NetTestSummary>,
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

/// One test (direction) of one repeat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NetRow {
    /// `upload` (this side sends), `download` (this side receives) or `duplex` (both at once).
    pub test: NetTest,
    /// The machine setting it ran under (`as is`; the sweep's `max`, `governor:ondemand`…).
    pub setting: String,
    /// 1-based.
    pub repeat: u32,
    /// Its phase, how it ended, the findings of its time.
    #[serde(flatten)]
    pub evidence: RowEvidence<NetPhase>,
    /// Seconds the data flowed.
    pub seconds: f64,
    /// Mbit/s this side sent and received (10^6 bits, as iperf3); None for a direction the
    /// test does not use.
    pub sent_mbit_s: Option<f64>,
    /// Mbit/s this side received; None for a direction the test does not use.
    pub received_mbit_s: Option<f64>,
    /// Per-core load on this side during the transfer.
    pub cores: Vec<CoreLoad>,
    /// The saturated core, when one was.
    pub cpu_bound: Option<CpuBound>,
    /// The clock reached per policy while it ran: `(policy, MHz)`, time-weighted mean of
    /// the time_in_state deltas (empty without cpufreq statistics).
    #[serde(default)]
    pub reached_mhz: Vec<(String, f64)>,
}

impl NetRow {
    /// Sent plus received (both directions of a duplex test).
    pub fn total_mbit_s(&self) -> Option<f64> {
        match (self.sent_mbit_s, self.received_mbit_s) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        }
    }
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

/// The verdict "CPU-bound": a core at or above `NetBody::cpu_bound_pct`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CpuBound {
    /// The busiest CPU.
    pub cpu: u32,
    /// Its busy share, % of the wall time.
    pub busy_pct: f64,
    /// `softirq` when softirq + irq time is the larger share of the busy time, else `process`.
    pub by: BusyBy,
}

/// A test's figures over its repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NetTestSummary {
    /// `upload`, `download` or `duplex`.
    pub test: NetTest,
    /// The machine setting (as `NetRow::setting`).
    pub setting: String,
    /// Repeats that completed and are valid: what the median is of.
    pub runs: u32,
    /// Median of sent + received over those repeats, Mbit/s; None without one.
    pub median_mbit_s: Option<f64>,
    /// (max − min) / median of those repeats, %; None with fewer than two.
    pub spread_pct: Option<f64>,
    /// Repeats whose test was CPU-bound.
    pub cpu_bound_runs: u32,
}
