//! `truebench measure …` (hidden): run one measurement kernel or tool adapter alone and print
//! its result — for the bench/ scripts that compare each kernel with its peer tool, and for
//! experiments. `truebench run` calls the same library functions.

use crate::cli::MachineArgs;
use anyhow::Context;
use clap::{Args, Subcommand};
use serde::Serialize;
use truebench_workloads::{aes, lzma, memory, openssl, pin, sevenzip, stress};

#[derive(Args, Debug)]
pub struct MeasureArgs {
    #[command(flatten)]
    pub machine: MachineArgs,
    /// Print the full result as JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub kernel: Kernel,
}

#[derive(Subcommand, Debug)]
pub enum Kernel {
    /// Memory bandwidth (memcpy, memset, read) and latency, pinned to one CPU.
    Memory {
        #[arg(long, value_name = "N")]
        cpu: Option<u32>,
        /// A few seconds instead of the standard run.
        #[arg(long)]
        quick: bool,
        /// Bandwidth buffer in MiB (default: from the cache sizes and MemAvailable).
        #[arg(long, value_name = "MIB")]
        buffer_mib: Option<u64>,
        /// Bandwidth only.
        #[arg(long)]
        no_latency: bool,
        /// Skip tinymembench's `standard memcpy`/`standard memset` (libc, 32 MiB: the
        /// measure sbc-bench's Results.md rows hold).
        #[arg(long)]
        no_standard: bool,
        /// Largest latency buffer in MiB.
        #[arg(long, value_name = "MIB")]
        latency_max_mib: Option<u64>,
        /// Minimum duration of one bandwidth sample (standard 0.5, tinymembench's).
        #[arg(long, value_name = "S")]
        sample_seconds: Option<f64>,
    },
    /// Built-in AES table (openssl speed units), pinned to one CPU.
    Aes {
        #[arg(long, value_name = "N")]
        cpu: Option<u32>,
        /// Seconds per cipher and chunk size.
        #[arg(long, value_name = "S", default_value_t = 1.0)]
        seconds: f64,
    },
    /// `openssl speed -elapsed -evp` for the four ciphers, pinned to one CPU.
    Openssl {
        #[arg(long, value_name = "N")]
        cpu: Option<u32>,
        /// `-seconds N` per chunk size where supported.
        #[arg(long, value_name = "S", default_value_t = 1)]
        seconds: u32,
    },
    /// `7z b`: single-threaded pinned with --cpu, otherwise on all CPUs.
    Sevenzip {
        #[arg(long, value_name = "N")]
        cpu: Option<u32>,
        /// `-mdN` (log2 of the dictionary); default: chosen from MemAvailable.
        #[arg(long, value_name = "LOG2")]
        md: Option<u32>,
        /// `7z b N`.
        #[arg(long, value_name = "N")]
        iterations: Option<u32>,
    },
    /// Built-in LZMA benchmark (liblzma; MB/s, not 7-zip MIPS).
    Lzma {
        /// One pinned worker per CPU (comma-separated); default: one unpinned worker.
        #[arg(long, value_name = "LIST", value_delimiter = ',')]
        cpus: Vec<u32>,
        /// Seconds compressing, then decompressing.
        #[arg(long, value_name = "S", default_value_t = 5.0)]
        seconds: f64,
        /// log2 of the dictionary.
        #[arg(long, value_name = "LOG2", default_value_t = 22)]
        dict: u32,
        /// Input size in MiB.
        #[arg(long, value_name = "MIB", default_value_t = 4)]
        data_mib: usize,
    },
    /// Built-in SIMD stress load with a score per interval.
    Stress {
        /// CPUs to load (comma-separated); default: every CPU allowed.
        #[arg(long, value_name = "LIST", value_delimiter = ',')]
        cpus: Vec<u32>,
        #[arg(long, value_name = "S", default_value_t = 30.0)]
        seconds: f64,
        #[arg(long, value_name = "S", default_value_t = 5.0)]
        interval: f64,
    },
    /// One periodic task of the interactivity engine (cyclictest's measurement with
    /// --work-us 0): wake-up latency at absolute times, and the engine's own CPU per period.
    Periodic {
        /// Period in µs (cyclictest -i).
        #[arg(long, value_name = "US", default_value_t = 1000)]
        interval_us: u64,
        /// Work per period in µs (wall time); 0 = wake up only.
        #[arg(long, value_name = "US", default_value_t = 0)]
        work_us: u64,
        /// SCHED_FIFO priority (cyclictest -p); 0 = SCHED_OTHER.
        #[arg(long, value_name = "N", default_value_t = 0)]
        priority: i32,
        /// Pin to this CPU (cyclictest -a).
        #[arg(long, value_name = "N")]
        cpu: Option<u32>,
        #[arg(long, value_name = "S", default_value_t = 10.0)]
        seconds: f64,
        /// Lock memory (cyclictest -m).
        #[arg(long)]
        mlock: bool,
        /// Do not hold /dev/cpu_dma_latency at 0 µs (cyclictest holds it unless
        /// --laptop; without it deep idle states add tens of µs to each wake-up).
        #[arg(long)]
        no_pm_qos: bool,
    },
    /// How exact the periodic engine's loops-per-ms calibration is: calibrate, then ask for
    /// --work-ms of work --repeat times (after a --pause-ms sleep each) and compare the CPU
    /// and wall time it took with what was asked.
    Calibration {
        /// Pin to this CPU.
        #[arg(long, value_name = "N")]
        cpu: Option<u32>,
        #[arg(long, value_name = "MS", default_value_t = 10.0, value_parser = crate::values::POSITIVE_MS)]
        work_ms: f64,
        #[arg(long, value_name = "N", default_value_t = 50, value_parser = crate::values::AT_LEAST_ONE)]
        repeat: u64,
        #[arg(long, value_name = "MS", default_value_t = 10)]
        pause_ms: u64,
    },
    /// TCP throughput (the kernel of `truebench net`): `--server ADDR` serves until Ctrl-C;
    /// `--connect ADDR` runs one test against such a server.
    Net {
        #[arg(long, value_name = "ADDR", conflicts_with = "connect")]
        server: Option<String>,
        #[arg(long, value_name = "ADDR")]
        connect: Option<String>,
        /// upload (client → server), download or duplex (both at once).
        #[arg(long, default_value = "upload", value_parser = crate::net::direction)]
        direction: truebench_workloads::net::Direction,
        /// Parallel streams (iperf3 -P).
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = crate::values::AT_LEAST_ONE)]
        parallel: u64,
        #[arg(long, value_name = "S", default_value_t = 10.0, value_parser = crate::values::POSITIVE_SECONDS)]
        seconds: f64,
        /// Send with sendfile(2) (iperf3 -Z).
        #[arg(long)]
        zerocopy: bool,
    },
    /// Storage reads (the kernel of `truebench io`): cached, sequential O_DIRECT and 4 KiB
    /// random O_DIRECT reads of a file or block device, never writing to it.
    Io {
        /// File or block device to read (only its first --size MiB).
        #[arg(long, value_name = "PATH")]
        path: std::path::PathBuf,
        /// cached, sequential or random.
        #[arg(long, default_value = "sequential", value_parser = crate::io::io_test)]
        test: truebench_workloads::io::IoTest,
        #[arg(long, value_name = "MIB")]
        size: Option<u64>,
        #[arg(long, value_name = "S", default_value_t = 3.0, value_parser = crate::values::POSITIVE_SECONDS)]
        seconds: f64,
    },
    /// `stockfish bench` back to back.
    Stockfish {
        #[arg(long, value_name = "LIST", value_delimiter = ',')]
        cpus: Vec<u32>,
        #[arg(long, value_name = "S", default_value_t = 30.0)]
        seconds: f64,
        #[arg(long, default_value_t = 16)]
        depth: u32,
    },
}

fn emit<T: Serialize>(
    json: bool,
    value: &T,
    text: impl FnOnce(&T) -> String,
) -> anyhow::Result<i32> {
    if json {
        outln!("{}", serde_json::to_string_pretty(value)?)?;
    } else {
        out!("{}", text(value))?;
    }
    Ok(0)
}

fn cpus_or_all(cpus: Vec<u32>) -> Vec<u32> {
    if cpus.is_empty() {
        pin::current_affinity()
    } else {
        cpus
    }
}

pub fn run(args: MeasureArgs) -> anyhow::Result<i32> {
    let host = args.machine.host()?;
    let json = args.json;
    match args.kernel {
        Kernel::Memory {
            cpu,
            quick,
            buffer_mib,
            no_latency,
            no_standard,
            latency_max_mib,
            sample_seconds,
        } => {
            let mut opts = if quick {
                memory::MemoryOptions::quick()
            } else {
                memory::MemoryOptions::standard()
            };
            opts.cpu = cpu;
            if let Some(m) = buffer_mib {
                opts.buffer_bytes = Some(m << 20);
            }
            if let Some(m) = latency_max_mib {
                opts.latency_max_bytes = Some(m << 20);
            }
            opts.latency &= !no_latency;
            opts.standard &= !no_standard;
            if let Some(s) = sample_seconds {
                opts.sample_seconds = s;
            }
            let r = memory::measure(&host, &opts).context("memory kernel")?;
            emit(json, &r, |r| {
                let mut s = format!(
                    "buffer: {} MiB ({}), {:.1} s\n",
                    r.buffer.bytes >> 20,
                    r.buffer.reason,
                    r.seconds
                );
                for b in &r.bandwidth {
                    s.push_str(&format!("{}  [{}]\n", b.summary_line(), b.implementation));
                }
                for b in &r.standard {
                    s.push_str(&b.standard_line());
                    s.push('\n');
                }
                if let Some(l) = &r.latency {
                    s.push_str(&l.table());
                }
                s
            })
        }
        Kernel::Aes { cpu, seconds } => {
            let opts = aes::AesOptions {
                cpu,
                seconds,
                ..aes::AesOptions::standard()
            };
            let r = aes::measure_builtin(&opts).context("built-in AES")?;
            let cap = aes::cpu_aes_capability(&host, cpu.unwrap_or(0));
            emit(json, &r, |r| {
                format!(
                    "{}\nAES instructions: cpu {} / used by built-in: {}\n{}",
                    r.implementation,
                    match cap.cpu_has_aes {
                        Some(true) => "yes",
                        Some(false) => "no",
                        None => "unknown",
                    },
                    if r.uses_aes_instructions { "yes" } else { "no" },
                    r.table.text()
                )
            })
        }
        Kernel::Openssl { cpu, seconds } => {
            let opts = openssl::OpensslOptions {
                cpu,
                seconds: Some(seconds),
                ..openssl::OpensslOptions::standard()
            };
            let r = openssl::measure(&opts, None)?;
            emit(json, &r, |r| {
                format!("{}\n{}", r.version_line, r.table.text())
            })
        }
        Kernel::Sevenzip {
            cpu,
            md,
            iterations,
        } => {
            let mut opts = match cpu {
                Some(c) => sevenzip::SevenZipOptions::single(c),
                None => sevenzip::SevenZipOptions::all(),
            };
            opts.dict_log2 = md;
            opts.iterations = iterations;
            let avail = truebench_host::Inventory::probe(&host)
                .memory
                .available_kb
                .map(|kb| kb * 1024);
            let allowed = pin::current_affinity().len() as u32;
            let r = sevenzip::run(&opts, avail, allowed, None)?;
            emit(json, &r, |r| {
                let mut s = format!(
                    "{}\ndictionary: {}\n",
                    r.output.command_line(),
                    r.dictionary.reason
                );
                s.push_str(&r.output.stdout);
                s
            })
        }
        Kernel::Lzma {
            cpus,
            seconds,
            dict,
            data_mib,
        } => {
            let opts = lzma::LzmaBenchOptions {
                cpus: (!cpus.is_empty()).then_some(cpus),
                seconds,
                dict_log2: dict,
                data_bytes: data_mib << 20,
                ..lzma::LzmaBenchOptions::standard()
            };
            let r = lzma::measure(&opts, None)?;
            emit(json, &r, |r| {
                format!(
                    "{}\ncompress: {:.0} KiB/s  decompress: {:.0} KiB/s\n",
                    r.summary_line(),
                    r.compress_kib_s,
                    r.decompress_kib_s
                )
            })
        }
        Kernel::Stress {
            cpus,
            seconds,
            interval,
        } => {
            let opts = stress::StressOptions {
                cpus: cpus_or_all(cpus),
                seconds,
                interval_seconds: interval,
            };
            let r = stress::run_builtin(&opts, None, |iv| {
                if !json {
                    errln!("{:7.1} s  {:.2} GFLOP/s", iv.end_s, iv.score);
                }
            })?;
            emit(json, &r, |r| {
                format!("{} ({})\n", r.series_text(), r.implementation)
            })
        }
        Kernel::Io {
            path,
            test,
            size,
            seconds,
        } => {
            use truebench_workloads::io;
            let t = test;
            let whole = io::size_of(&path)?;
            let bytes = size.map_or(whole, |m| (m << 20).min(whole));
            let stop = truebench_tuning::graceful_interrupts();
            let r = io::run(&path, bytes, t, seconds, &stop)?;
            emit(json, &r, |r| {
                format!(
                    "{}: {:.1} MB/s, {:.0} IOPS, {} KiB blocks{}, {} I/Os in {:.2} s, CPU {} µs per I/O{}\n",
                    r.test.name(),
                    r.mb_s,
                    r.iops,
                    r.block_bytes / 1024,
                    if r.direct { ", O_DIRECT" } else { "" },
                    r.ios,
                    r.seconds,
                    r.cpu_us_per_io.map_or("-".into(), |c| format!("{c:.1}")),
                    r.latency_p50_us
                        .map(|p| format!(
                            ", latency p50 {p:.0} µs p99 {:.0} µs",
                            r.latency_p99_us.unwrap_or(0.0)
                        ))
                        .unwrap_or_default()
                )
            })
        }
        Kernel::Net {
            server,
            connect,
            direction,
            parallel,
            seconds,
            zerocopy,
        } => {
            use truebench_workloads::net::{self, NetOptions};
            if let Some(addr) = server {
                let srv = net::Server::start(&addr)?;
                errln!(
                    "truebench: serving TCP throughput tests on {} (Ctrl-C ends)",
                    srv.addr
                );
                srv.wait(&truebench_tuning::graceful_interrupts());
                return Ok(0);
            }
            let Some(addr) = connect else {
                anyhow::bail!("measure net: give --server ADDR or --connect ADDR");
            };
            let r = net::run(
                net::resolve(&addr)?,
                &NetOptions {
                    streams: parallel as u32,
                    duration: std::time::Duration::from_secs_f64(seconds),
                    direction,
                    zerocopy,
                },
                &truebench_tuning::graceful_interrupts(),
            )?;
            emit(json, &r, |r| {
                format!(
                    "sent {:.1} Mbit/s, received {:.1} Mbit/s over {:.1} s, {} stream(s)\n",
                    r.sent_bps / 1e6,
                    r.received_bps / 1e6,
                    r.seconds,
                    r.streams
                )
            })
        }
        Kernel::Calibration {
            cpu,
            work_ms,
            repeat,
            pause_ms,
        } => {
            use truebench_workloads::periodic::burn;
            let repeat = repeat as u32;
            let (cal, ratios) = truebench_workloads::pin::run_pinned(cpu, move || {
                let cal = burn::calibrate(cpu, std::time::Duration::from_secs(1));
                let pause = std::time::Duration::from_millis(pause_ms);
                let r = burn::accuracy(cal.loops_per_ms, work_ms, repeat, pause);
                (cal, r)
            })
            .map_err(|e| anyhow::anyhow!("--cpu: {e}"))?;
            let pick = |f: fn(&(f64, f64)) -> f64, q: f64| {
                let mut v: Vec<f64> = ratios.iter().map(f).collect();
                v.sort_by(f64::total_cmp);
                v[((v.len() - 1) as f64 * q).round() as usize]
            };
            #[derive(Serialize)]
            struct Out {
                loops_per_ms: u64,
                calibration_drift_pct: f64,
                work_ms: f64,
                repeat: u32,
                cpu_ratio_p10: f64,
                cpu_ratio_median: f64,
                cpu_ratio_p90: f64,
                wall_ratio_median: f64,
            }
            let r = Out {
                loops_per_ms: cal.loops_per_ms,
                calibration_drift_pct: cal.drift_pct,
                work_ms,
                repeat,
                cpu_ratio_p10: pick(|x| x.0, 0.1),
                cpu_ratio_median: pick(|x| x.0, 0.5),
                cpu_ratio_p90: pick(|x| x.0, 0.9),
                wall_ratio_median: pick(|x| x.1, 0.5),
            };
            emit(json, &r, |r| {
                format!(
                    "{} loops per ms (drift {:.2} %); {} × {} ms asked: CPU time / asked p10 {:.4}, median {:.4}, p90 {:.4}; wall / asked median {:.4}\n",
                    r.loops_per_ms,
                    r.calibration_drift_pct,
                    r.repeat,
                    r.work_ms,
                    r.cpu_ratio_p10,
                    r.cpu_ratio_median,
                    r.cpu_ratio_p90,
                    r.wall_ratio_median
                )
            })
        }
        Kernel::Periodic {
            interval_us,
            work_us,
            priority,
            cpu,
            seconds,
            mlock,
            no_pm_qos,
        } => {
            use truebench_workloads::periodic::{self, Pattern, Policy, TaskSpec, WorkKind};
            // A relation of two values, which no parser of one can hold.
            anyhow::ensure!(
                work_us < interval_us,
                "the period (--interval-us {interval_us}) must be longer than the work (--work-us {work_us})"
            );
            let spec = TaskSpec {
                name: "periodic".into(),
                pattern: Pattern::Periodic {
                    run_ns: work_us * 1000,
                    period_ns: interval_us * 1000,
                },
                work: WorkKind::Wall,
                policy: if priority > 0 {
                    Policy::Fifo { priority }
                } else {
                    Policy::default()
                },
                cpus: cpu.map(|c| vec![c]),
                late: truebench_workloads::periodic::Late::Drop,
            };
            let locked = mlock && periodic::sched::lock_memory().is_ok();
            let qos = (!no_pm_qos)
                .then(periodic::sched::hold_low_latency)
                .and_then(Result::ok);
            let stop = truebench_tuning::graceful_interrupts();
            let o = std::thread::spawn(move || {
                periodic::run_task(
                    &spec,
                    std::time::Duration::from_secs_f64(seconds),
                    &stop,
                    None,
                )
            })
            .join()
            .map_err(|_| anyhow::anyhow!("the periodic task panicked"))?;
            #[derive(Serialize)]
            struct Out {
                latency: periodic::LatencySummary,
                policy: String,
                policy_refused: Option<String>,
                memory_locked: bool,
                pm_qos_held: bool,
                periods: u64,
                overhead_us_per_period: f64,
            }
            let r = Out {
                latency: o.stats.summary(),
                policy: o.policy.to_string(),
                policy_refused: o.policy_refused.clone(),
                memory_locked: locked,
                pm_qos_held: qos.is_some(),
                periods: o.periods,
                overhead_us_per_period: o.overhead_ns_per_period() / 1000.0,
            };
            emit(json, &r, |r| {
                format!(
                    "{} periods, {}: latency min/avg/max via p50 {:.0} / avg {:.2} / max {:.0} µs, p99 {:.0} µs, SD {:.2} µs; engine CPU {:.2} µs per period{}\n",
                    r.periods,
                    r.policy,
                    r.latency.p50_us,
                    r.latency.mean_us,
                    r.latency.max_us,
                    r.latency.p99_us,
                    r.latency.sd_us,
                    r.overhead_us_per_period,
                    r.policy_refused
                        .as_ref()
                        .map(|e| format!(" (asked class refused: {e})"))
                        .unwrap_or_default()
                )
            })
        }
        Kernel::Stockfish {
            cpus,
            seconds,
            depth,
        } => {
            let cpus = cpus_or_all(cpus);
            let opts = stress::StockfishOptions {
                threads: cpus.len() as u32,
                cpus: Some(cpus),
                depth,
                seconds,
                ..stress::StockfishOptions::standard(1)
            };
            let r = stress::run_stockfish(&opts, None)?;
            emit(json, &r, |r| {
                let v: Vec<String> = r.series().iter().map(u64::to_string).collect();
                format!(
                    "{}\nNodes/second: {}\n",
                    r.version_line.as_deref().unwrap_or("stockfish"),
                    v.join(",")
                )
            })
        }
    }
}
