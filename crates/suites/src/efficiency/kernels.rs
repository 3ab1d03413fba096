//! What `truebench efficiency` measures at each OPP: the real clock (the clock kernel) and a
//! fixed piece of work on the cluster's CPUs — 7-zip's benchmark when installed, else the
//! built-in LZMA kernel. Behind [`EfficiencyKernels`] so the walk is tested with scripted
//! kernels on fixture roots.

use std::sync::atomic::AtomicBool;

use truebench_host::Host;
use truebench_model::efficiency::WorkSource;
use truebench_workloads::clock::{self, ClockOptions};
use truebench_workloads::lzma::{self, LzmaBenchOptions};
use truebench_workloads::sevenzip::{self, SevenZipOptions};

use crate::clocks::{ClockProbe, KernelProbe};

/// One run's score.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkScore {
    pub score: f64,
    pub unit: String,
    /// The command or kernel with its settings.
    pub detail: String,
    /// (name, version, path) for the envelope's tools.
    pub tool: (String, Option<String>, Option<String>),
    /// Which work it was.
    pub source: WorkSource,
}

pub trait EfficiencyKernels {
    /// The clock of `cpu` now, MHz (None: not measurable).
    fn clock(&mut self, host: &Host, cpu: u32) -> Option<f64>;
    /// The work on `cpus` (all at once); Err names what failed.
    fn work(&mut self, host: &Host, cpus: &[u32], stop: &AtomicBool) -> Result<WorkScore, String>;
}

/// 7-zip's benchmark with a fixed dictionary (the same work at every OPP), one pass.
const DICT_LOG2: u32 = 22;

pub struct LiveKernels {
    probe: KernelProbe,
    sevenzip: bool,
}

impl LiveKernels {
    /// 7-zip when it is `wanted` and installed, else the built-in LZMA kernel.
    pub fn new(wanted: WorkSource) -> LiveKernels {
        LiveKernels {
            probe: KernelProbe::new(ClockOptions::default()),
            sevenzip: wanted == WorkSource::SevenZip && sevenzip::find().is_some(),
        }
    }

    pub fn uses_7zip(&self) -> bool {
        self.sevenzip
    }

    /// A recorded root's CPU numbers are not this machine's: map them onto the CPUs this
    /// process may use.
    fn real_cpus(host: &Host, cpus: &[u32]) -> Vec<u32> {
        if host.is_live() {
            return cpus.to_vec();
        }
        let allowed = clock::allowed_cpus();
        if allowed.is_empty() {
            return cpus.to_vec();
        }
        let mut v: Vec<u32> = (0..cpus.len().min(allowed.len()))
            .map(|i| allowed[i])
            .collect();
        v.dedup();
        v
    }
}

impl EfficiencyKernels for LiveKernels {
    fn clock(&mut self, host: &Host, cpu: u32) -> Option<f64> {
        self.probe.measure(host, cpu).ok().map(|m| m.mhz)
    }

    fn work(&mut self, host: &Host, cpus: &[u32], stop: &AtomicBool) -> Result<WorkScore, String> {
        let real = Self::real_cpus(host, cpus);
        if self.sevenzip {
            let mut o = SevenZipOptions::cluster(real.clone());
            o.iterations = Some(1);
            o.dict_log2 = Some(DICT_LOG2);
            let r = sevenzip::run(&o, None, real.len() as u32, Some(stop))
                .map_err(|e| e.to_string())?;
            if r.output.stopped {
                return Err("interrupted".into());
            }
            let b = r
                .bench
                .as_ref()
                .ok_or_else(|| format!("{}: no result in its output", r.output.command_line()))?;
            let mips = b
                .total_mips()
                .ok_or_else(|| format!("{}: no total rating", r.output.command_line()))?;
            return Ok(WorkScore {
                score: mips as f64,
                unit: "MIPS".into(),
                detail: format!(
                    "{} (one pass, pinned to the cluster)",
                    r.output.command_line()
                ),
                tool: ("7-zip".into(), b.version.clone(), Some(r.program.clone())),
                source: WorkSource::SevenZip,
            });
        }
        let mut o = LzmaBenchOptions::quick();
        o.cpus = Some(real.clone());
        let r = lzma::measure(&o, Some(stop)).map_err(|e| format!("built-in LZMA: {e}"))?;
        if r.stopped {
            return Err("interrupted".into());
        }
        Ok(WorkScore {
            score: r.compress_mb_s,
            unit: "MB/s".into(),
            detail: format!(
                "built-in LZMA compression ({}), {} threads pinned to the cluster, {:.1} s",
                r.implementation,
                real.len(),
                o.seconds
            ),
            tool: ("built-in lzma".into(), Some(r.implementation.clone()), None),
            source: WorkSource::Lzma,
        })
    }
}
