//! The real measurements: every kernel and tool adapter, pinned to CPUs this machine has.

use super::*;

/// The real kernels and tools. On a recorded root (`--root DIR`) the machine's CPU numbers
/// are mapped onto the CPUs this process may run on.
pub struct LiveMeasurements {
    probe: KernelProbe,
    live: bool,
    allowed: Vec<u32>,
}

impl LiveMeasurements {
    pub fn new(host: &Host) -> LiveMeasurements {
        LiveMeasurements {
            probe: KernelProbe::new(Default::default()),
            live: host.is_live(),
            allowed: truebench_workloads::pin::current_affinity(),
        }
    }

    fn cpu(&self, cpu: u32) -> u32 {
        if self.live || self.allowed.is_empty() {
            cpu
        } else {
            self.allowed[cpu as usize % self.allowed.len()]
        }
    }

    fn cpus(&self, cpus: &[u32]) -> Vec<u32> {
        let mut v: Vec<u32> = cpus.iter().map(|&c| self.cpu(c)).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// Run `f` on its own thread and wait for it — or, when `stop` is set first, leave it behind
/// (kernels without a stop flag: the process is about to end anyway).
fn detached<T: Send + 'static>(
    stop: &AtomicBool,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, KernelError> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("truebench-kernel".into())
        .spawn(move || {
            let _ = tx.send(f());
        })
        .map_err(|e| KernelError::Failed(format!("cannot start a thread: {e}")))?;
    loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(v) => return Ok(v),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                if stop.load(Ordering::SeqCst) {
                    return Err(KernelError::Interrupted);
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(KernelError::Failed(
                    "the measurement thread panicked".into(),
                ))
            }
        }
    }
}

impl Measurements for LiveMeasurements {
    fn clock_probe(&mut self) -> &mut dyn ClockProbe {
        &mut self.probe
    }

    fn memory(
        &mut self,
        host: &Host,
        opts: &MemoryOptions,
        stop: &AtomicBool,
    ) -> Result<MemoryResult, KernelError> {
        let mut o = opts.clone();
        o.cpu = o.cpu.map(|c| self.cpu(c));
        let h = host.clone();
        let mut res = detached(stop, move || memory::measure(&h, &o))?
            .map_err(|e| KernelError::Failed(e.to_string()))?;
        res.cpu = opts.cpu;
        Ok(res)
    }

    fn openssl(
        &mut self,
        opts: &OpensslOptions,
        stop: &AtomicBool,
    ) -> Result<OpensslResult, KernelError> {
        let mut o = opts.clone();
        o.cpu = o.cpu.map(|c| self.cpu(c));
        o.cpus = o.cpus.as_deref().map(|c| self.cpus(c));
        if let (Some(m), Some(c)) = (o.multi, &o.cpus) {
            o.multi = Some(m.min(c.len() as u32).max(1));
        }
        match openssl::measure(&o, Some(stop)) {
            Ok(r) if stop.load(Ordering::SeqCst) && r.table.rows.is_empty() => {
                Err(KernelError::Interrupted)
            }
            Ok(r) => Ok(r),
            Err(openssl::OpensslError::NotInstalled) => {
                Err(KernelError::NotInstalled("openssl is not installed".into()))
            }
            Err(e) => Err(KernelError::Failed(e.to_string())),
        }
    }

    fn builtin_aes(
        &mut self,
        opts: &AesOptions,
        cpus: &[u32],
        stop: &AtomicBool,
    ) -> Result<Vec<BuiltinAesResult>, KernelError> {
        let jobs: Vec<AesOptions> = cpus
            .iter()
            .map(|&c| opts.clone().on_cpu(self.cpu(c)))
            .collect();
        let res = detached(stop, move || {
            std::thread::scope(|s| {
                let hs: Vec<_> = jobs
                    .iter()
                    .map(|o| s.spawn(move || aes::measure_builtin(o)))
                    .collect();
                hs.into_iter()
                    .map(|h| {
                        h.join()
                            .map_err(|_| "panicked".to_string())
                            .and_then(|r| r.map_err(|e| e.to_string()))
                    })
                    .collect::<Result<Vec<_>, String>>()
            })
        })?
        .map_err(KernelError::Failed)?;
        Ok(res
            .into_iter()
            .zip(cpus)
            .map(|(mut r, &c)| {
                r.cpu = Some(c);
                r
            })
            .collect())
    }

    fn sevenzip(
        &mut self,
        opts: &SevenZipOptions,
        mem_available_bytes: Option<u64>,
        allowed_cpus: u32,
        stop: &AtomicBool,
    ) -> Result<SevenZipRun, KernelError> {
        let mut o = opts.clone();
        o.cpus = o.cpus.as_deref().map(|c| self.cpus(c));
        if !self.live {
            if let (Some(t), Some(c)) = (o.threads, &o.cpus) {
                o.threads = Some(t.min(c.len() as u32));
            }
        }
        let allowed = if self.live {
            allowed_cpus
        } else {
            self.allowed.len().max(1) as u32
        };
        match sevenzip::run(&o, mem_available_bytes, allowed, Some(stop)) {
            Ok(r) if r.output.stopped => Err(KernelError::Interrupted),
            Ok(r) => Ok(r),
            Err(sevenzip::SevenZipError::NotInstalled) => Err(KernelError::NotInstalled(
                "7-zip is not installed (`apt install 7zip` adds 7zz)".into(),
            )),
            Err(e) => Err(KernelError::Failed(e.to_string())),
        }
    }

    fn lzma(
        &mut self,
        opts: &LzmaBenchOptions,
        stop: &AtomicBool,
    ) -> Result<LzmaBenchResult, KernelError> {
        let mut o = opts.clone();
        o.cpus = o.cpus.as_deref().map(|c| self.cpus(c));
        match lzma::measure(&o, Some(stop)) {
            Ok(r) if r.stopped => Err(KernelError::Interrupted),
            Ok(r) => Ok(r),
            Err(e) => Err(KernelError::Failed(e.to_string())),
        }
    }

    fn stress(
        &mut self,
        cpus: &[u32],
        seconds: f64,
        interval: f64,
        stop: &AtomicBool,
    ) -> Result<StressOutcome, KernelError> {
        let real = self.cpus(cpus);
        if let Some(p) = stress::find_stockfish() {
            let opts = StockfishOptions {
                threads: real.len() as u32,
                cpus: Some(real),
                seconds,
                ..StockfishOptions::standard(1)
            };
            return stress::run_stockfish_with(&p, &opts, Some(stop))
                .map(StressOutcome::Stockfish)
                .map_err(|e| KernelError::Failed(e.to_string()));
        }
        let opts = StressOptions {
            cpus: real,
            seconds,
            interval_seconds: interval,
        };
        stress::run_builtin(&opts, Some(stop), |_| {})
            .map(StressOutcome::Builtin)
            .map_err(|e| KernelError::Failed(e.to_string()))
    }
}
