//! Shared set-up of the run suite tests: the ROCK 5B root, a scripted clock probe and
//! scripted measurements (`Fake`), and the checks every result passes.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tempfile::TempDir;
use truebench_host::{Host, Inventory};
use truebench_model::{Mode, RunResult};
use truebench_suites::clocks::{ClockProbe, LoadHandle};
use truebench_suites::progress::Event;
use truebench_suites::run::{run, KernelError, Measurements, RunError, RunOptions, StressOutcome};
use truebench_workloads::aes::{AesOptions, AesRow, AesTable, BuiltinAesResult, Cipher};
use truebench_workloads::clock::{ClockError, ClockMeasurement, Method};
use truebench_workloads::lzma::{LzmaBenchOptions, LzmaBenchResult};
use truebench_workloads::memory::{
    Bandwidth, BandwidthTest, BufferChoice, Latency, LatencyPoint, MemoryOptions, MemoryResult,
};
use truebench_workloads::openssl::{OpensslOptions, OpensslResult, OpensslRun};
use truebench_workloads::sevenzip::{parse_bench, DictChoice, SevenZipOptions, SevenZipRun};
use truebench_workloads::stress::{StressInterval, StressResult};
use truebench_workloads::tool::ToolOutput;

pub const CPU: &str = "sys/devices/system/cpu";

/// Real `7zz b -mmt1` output (7-Zip 26.02 on this project's 2-core x86 VM).
pub const SEVENZIP_OUTPUT: &str = "
7-Zip (z) 26.02 (x64) : Copyright (c) 1999-2026 Igor Pavlov : 2026-06-25
 64-bit locale=C.UTF-8 Threads:2 OPEN_MAX:20000

RAM size:   24105 MB (LP),  # CPU hardware threads:   1 / 2 : 1
RAM usage:    437 MB (LP),  # Benchmark threads:      1

                       Compressing  |                  Decompressing
Dict     Speed Usage    R/U Rating  |      Speed Usage    R/U Rating
         KiB/s     %   MIPS   MIPS  |      KiB/s     %   MIPS   MIPS

22:       3470    99   3410   3376  |      47522    99   4098   4057
23:       3158    99   3235   3219  |      45913    98   4045   3974
24:       3288    99   3573   3536  |      45057   100   3961   3956
25:       2848   100   3263   3252  |      43813   100   3917   3900
----------------------------------  | ------------------------------
Avr:      3191    99   3370   3346  |      45576    99   4005   3972
Tot:              99   3688   3659
";

pub fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    // In place (same inode): the sampler keeps files open, as on a live machine.
    fs::write(p, text).unwrap();
}

pub fn read(root: &Path, rel: &str) -> String {
    fs::read_to_string(root.join(rel)).unwrap()
}

/// Every file below `root` except tuning's own journal directory.
pub fn settings(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    truebench_fixtures::tree_bytes(root, &["var/lib/truebench"])
}

/// The ROCK 5B root, idle (load 0.00), with a GPU devfreq device and a PCIe ASPM policy to
/// tune, and an empty kernel log.
pub fn rock5b() -> TempDir {
    let d = truebench_fixtures::root("rk3588-rock5b");
    let r = d.path();
    put(r, "proc/loadavg", "0.00 0.00 0.00 1/246 1893\n");
    put(
        r,
        "sys/class/devfreq/fb000000.gpu/governor",
        "simple_ondemand\n",
    );
    put(
        r,
        "sys/class/devfreq/fb000000.gpu/available_governors",
        "dmc_ondemand userspace powersave performance simple_ondemand\n",
    );
    put(
        r,
        "sys/module/pcie_aspm/parameters/policy",
        "[default] performance powersave powersupersave \n",
    );
    put(r, "dev/kmsg", "");
    put(
        r,
        "proc/1/stat",
        "1 (systemd) S 0 1 1 0 -1 4194560 0 0 0 0 50 30 0 0 20 0 1 0 5 0 0\n",
    );
    d
}

/// Measures "the clock" as the policy's scaling_max_freq: what a well-behaved board does.
pub struct Probe {
    pub root: PathBuf,
}

impl Probe {
    pub fn mhz(&self, cpu: u32) -> f64 {
        let policy = match cpu {
            0..=3 => 0,
            4 | 5 => 4,
            _ => 6,
        };
        let khz: f64 = read(
            &self.root,
            &format!("{CPU}/cpufreq/policy{policy}/scaling_max_freq"),
        )
        .trim()
        .parse()
        .unwrap();
        khz / 1000.0 - 3.0
    }
}

impl ClockProbe for Probe {
    fn measure(&mut self, _host: &Host, cpu: u32) -> Result<ClockMeasurement, ClockError> {
        let mhz = self.mhz(cpu);
        Ok(ClockMeasurement {
            cpu,
            mhz,
            samples_mhz: vec![mhz + 0.2, mhz, mhz - 0.1],
            effective_mhz: mhz,
            trials: 30,
            rejected: 0,
            disturbed: false,
            steal_ms: None,
            run_delay_ms: None,
            realtime: false,
            pinned: true,
            method: Method::native(),
            iterations: 1000,
            duration_ms: 1.0,
        })
    }

    fn measure_many(
        &mut self,
        host: &Host,
        cpus: &[u32],
    ) -> Vec<Result<ClockMeasurement, ClockError>> {
        cpus.iter().map(|&c| self.measure(host, c)).collect()
    }

    fn start_load(&mut self, _cpus: &[u32]) -> LoadHandle {
        LoadHandle::none()
    }
}

type Script = Box<dyn FnMut(&Path, &AtomicBool)>;

/// Canned results; `scripts` run inside the named kernel call ("memory", "aes", "single",
/// "multi", "stress"), while the sampler watches.
pub struct Fake {
    pub root: PathBuf,
    pub probe: Probe,
    pub openssl: bool,
    pub sevenzip: bool,
    pub scripts: BTreeMap<&'static str, Script>,
    pub calls: Vec<String>,
}

impl Fake {
    pub fn new(root: &Path) -> Fake {
        Fake {
            root: root.to_path_buf(),
            probe: Probe {
                root: root.to_path_buf(),
            },
            openssl: true,
            sevenzip: true,
            scripts: BTreeMap::new(),
            calls: Vec::new(),
        }
    }

    pub fn script(mut self, at: &'static str, f: impl FnMut(&Path, &AtomicBool) + 'static) -> Fake {
        self.scripts.insert(at, Box::new(f));
        self
    }

    pub fn call(&mut self, what: &str, stop: &AtomicBool) -> Result<(), KernelError> {
        self.calls.push(what.to_string());
        let key = what.split(' ').next().unwrap().to_string();
        if let Some(s) = self.scripts.get_mut(key.as_str()) {
            s(&self.root, stop);
        }
        if stop.load(Ordering::SeqCst) {
            return Err(KernelError::Interrupted);
        }
        Ok(())
    }
}

pub fn output(command: &str, stdout: &str, cpus: Option<Vec<u32>>) -> ToolOutput {
    ToolOutput {
        command: command.split(' ').map(String::from).collect(),
        cpus,
        exit_code: Some(0),
        stdout: stdout.into(),
        stderr: String::new(),
        seconds: 0.1,
        timed_out: false,
        stopped: false,
    }
}

pub fn aes_table(ciphers: &[Cipher], scale: f64) -> AesTable {
    AesTable {
        sizes: vec![16, 64, 256, 1024, 8192, 16384],
        rows: ciphers
            .iter()
            .map(|&c| AesRow {
                name: c.name().into(),
                cipher: Some(c),
                k: [1.0, 2.0, 3.0, 4.0, 5.0, 5.5]
                    .iter()
                    .map(|f| f * 100_000.0 * scale)
                    .collect(),
            })
            .collect(),
    }
}

impl Measurements for Fake {
    fn clock_probe(&mut self) -> &mut dyn ClockProbe {
        &mut self.probe
    }

    fn memory(
        &mut self,
        _host: &Host,
        opts: &MemoryOptions,
        stop: &AtomicBool,
    ) -> Result<MemoryResult, KernelError> {
        let cpu = opts.cpu.unwrap();
        self.call(&format!("memory cpu{cpu}"), stop)?;
        // The big cores are faster.
        let f = if cpu >= 4 { 2.0 } else { 1.0 };
        let bw = |test, mb_s: f64| Bandwidth {
            test,
            mb_s,
            spread_pct: 0.4,
            samples_mb_s: vec![mb_s, mb_s * 0.996, mb_s * 0.998],
            bytes: 64 << 20,
            implementation: "libc".into(),
            pilots: vec![],
        };
        Ok(MemoryResult {
            cpu: Some(cpu),
            caches: vec![],
            buffer: BufferChoice {
                bytes: 64 << 20,
                llc_bytes: None,
                mem_available_bytes: None,
                reason: "test".into(),
            },
            bandwidth_hugepages: true,
            bandwidth: vec![
                bw(BandwidthTest::Memcpy, 5000.0 * f),
                bw(BandwidthTest::Memset, 12000.0 * f),
                bw(BandwidthTest::Read, 9000.0 * f),
            ],
            // tinymembench's measure is slower than the best method, as on real machines.
            standard: vec![
                Bandwidth {
                    implementation: "standard memcpy".into(),
                    ..bw(BandwidthTest::Memcpy, 3000.0 * f)
                },
                Bandwidth {
                    implementation: "standard memset".into(),
                    ..bw(BandwidthTest::Memset, 8000.0 * f)
                },
            ],
            latency: Some(Latency {
                line_bytes: 64,
                thp_enabled: None,
                points: vec![
                    LatencyPoint {
                        bytes: 4096,
                        ns: 1.5,
                        ns_hugepages: None,
                    },
                    LatencyPoint {
                        bytes: 128 << 20,
                        ns: 110.0 / f,
                        ns_hugepages: None,
                    },
                ],
            }),
            options: opts.clone(),
            seconds: 0.1,
        })
    }

    fn openssl(
        &mut self,
        opts: &OpensslOptions,
        stop: &AtomicBool,
    ) -> Result<OpensslResult, KernelError> {
        if !self.openssl {
            return Err(KernelError::NotInstalled("openssl is not installed".into()));
        }
        self.call(
            &format!("aes cpu{:?} multi {:?}", opts.cpu, opts.multi),
            stop,
        )?;
        let scale = if opts.cpu.is_some_and(|c| c >= 4) {
            2.0
        } else {
            1.0
        };
        let table = aes_table(&opts.ciphers, scale);
        Ok(OpensslResult {
            program: "/usr/bin/openssl".into(),
            version_line: "OpenSSL 3.0.19 27 Jan 2026".into(),
            version: Some("3.0.19".into()),
            cpu: opts.cpu,
            seconds_option: opts.seconds,
            runs: opts
                .ciphers
                .iter()
                .map(|&c| OpensslRun {
                    cipher: c,
                    output: output(
                        &format!("/usr/bin/openssl speed -elapsed -evp {}", c.name()),
                        &table.text(),
                        opts.cpu.map(|c| vec![c]),
                    ),
                    table: Some(aes_table(&[c], scale)),
                })
                .collect(),
            table,
        })
    }

    fn builtin_aes(
        &mut self,
        opts: &AesOptions,
        cpus: &[u32],
        stop: &AtomicBool,
    ) -> Result<Vec<BuiltinAesResult>, KernelError> {
        self.call(&format!("aes builtin {cpus:?}"), stop)?;
        Ok(cpus
            .iter()
            .map(|&c| BuiltinAesResult {
                cpu: Some(c),
                table: aes_table(&opts.ciphers, 1.0),
                cells: vec![],
                uses_aes_instructions: true,
                implementation: "RustCrypto aes 0.8".into(),
                seconds: 0.1,
            })
            .collect())
    }

    fn sevenzip(
        &mut self,
        opts: &SevenZipOptions,
        _mem: Option<u64>,
        _allowed: u32,
        stop: &AtomicBool,
    ) -> Result<SevenZipRun, KernelError> {
        if !self.sevenzip {
            return Err(KernelError::NotInstalled("7-zip is not installed".into()));
        }
        let kind = if opts.threads == Some(1) {
            "single"
        } else {
            "multi"
        };
        self.call(&format!("{kind} {:?}", opts.cpus), stop)?;
        Ok(SevenZipRun {
            program: "/usr/bin/7zz".into(),
            dictionary: DictChoice {
                dict_log2: 25,
                passed: false,
                threads: opts.threads.unwrap_or(8),
                estimated_mib: 435,
                mem_available_mib: Some(15000),
                reason: "default dictionary".into(),
            },
            output: output("/usr/bin/7zz b", SEVENZIP_OUTPUT, opts.cpus.clone()),
            bench: Some(parse_bench(SEVENZIP_OUTPUT).unwrap()),
        })
    }

    fn lzma(
        &mut self,
        opts: &LzmaBenchOptions,
        stop: &AtomicBool,
    ) -> Result<LzmaBenchResult, KernelError> {
        self.call(&format!("lzma {:?}", opts.cpus), stop)?;
        let n = opts.cpus.as_ref().map_or(1, |c| c.len()) as f64;
        Ok(LzmaBenchResult {
            options: opts.clone(),
            implementation: "liblzma 5.8.1".into(),
            compress_mb_s: 3.0 * n,
            decompress_mb_s: 45.0 * n,
            compress_kib_s: 2929.0 * n,
            decompress_kib_s: 43945.0 * n,
            ratio: 3.1,
            compressed_bytes: 1000,
            round_trip_ok: true,
            workers: vec![],
            stopped: false,
            seconds: 0.1,
        })
    }

    fn stress(
        &mut self,
        cpus: &[u32],
        _seconds: f64,
        _interval: f64,
        stop: &AtomicBool,
    ) -> Result<StressOutcome, KernelError> {
        self.call("stress", stop)?;
        let scores = [40.0, 40.0, 36.0, 30.0];
        Ok(StressOutcome::Builtin(StressResult {
            cpus: cpus.to_vec(),
            implementation: "neon".into(),
            unit: "GFLOP/s".into(),
            intervals: scores
                .iter()
                .enumerate()
                .map(|(i, &s)| StressInterval {
                    start_s: i as f64,
                    end_s: i as f64 + 1.0,
                    score: s,
                    per_cpu: vec![],
                })
                .collect(),
            stopped: false,
            seconds: 4.0,
        }))
    }
}

pub fn opts(mode: Mode) -> RunOptions {
    let mut o = RunOptions::new(mode);
    o.sample_interval = Duration::from_millis(40);
    o.idle.timeout = Duration::from_millis(300);
    o.idle.window = Duration::from_millis(100);
    o.idle.poll = Duration::from_millis(20);
    o.hot_settle = Duration::from_millis(10);
    o
}

pub fn go(
    root: &Path,
    o: &RunOptions,
    fake: &mut Fake,
    stop: Arc<AtomicBool>,
) -> (Result<RunResult, RunError>, Vec<Event>) {
    let host = Host::new(root);
    let inv = Inventory::probe(&host);
    let mut events = Vec::new();
    let r = run(&host, &inv, o, fake, stop, &mut |e| events.push(e));
    (r, events)
}

pub fn names(r: &RunResult) -> Vec<&str> {
    r.envelope.phases.iter().map(|p| p.name.as_str()).collect()
}

/// The document validates against docs/schema/result.schema.json and survives a round trip.
pub fn check_document(r: &RunResult) {
    let v = serde_json::to_value(r).unwrap();
    let errors = truebench_fixtures::schema::validate_result(&v);
    assert!(
        errors.is_empty(),
        "schema violations:\n{}",
        errors.join("\n")
    );
    let back = truebench_model::migrate_run(v).unwrap();
    assert_eq!(&back, r);
}
