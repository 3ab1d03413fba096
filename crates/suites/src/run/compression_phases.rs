//! 7-zip (or the built-in LZMA) single-threaded per cluster, on all cores, and per cluster (extensive).

use super::*;
use truebench_model::phase;

impl<M: Measurements + ?Sized> Run<'_, M> {
    pub(super) fn mem_available(&self) -> Option<u64> {
        self.host
            .meminfo()
            .ok()
            .and_then(|m| m.mem_available_kb)
            .map(|kb| kb * 1024)
    }

    /// One 7-zip run, or None when 7-zip is missing (`missing` is then set).
    pub(super) fn sevenzip_once(
        &mut self,
        opts: SevenZipOptions,
        label: String,
        out: &mut Outcome,
        missing: &mut bool,
    ) -> Option<SevenZipRun> {
        let mut opts = opts;
        opts.iterations = self.opts.sevenzip_iterations;
        if opts.dict_log2.is_none() {
            opts.dict_log2 = self.opts.sevenzip_dict_log2;
        }
        let allowed = all_cpus(&self.groups).len() as u32;
        let avail = self.mem_available();
        match self.m.sevenzip(&opts, avail, allowed, &self.stop) {
            Ok(run) => {
                let version = run.bench.as_ref().and_then(|b| b.version.clone());
                self.s.tool("7-zip", version, Some(run.program.clone()));
                out.raw.push(m::RawOutput {
                    label: format!("{label} (dictionary: {})", run.dictionary.reason),
                    command: run.output.command_line(),
                    text: format!("{}{}", run.output.stdout, run.output.stderr),
                });
                if run.bench.is_none() && !run.output.stopped {
                    out.fail(format!(
                        "`{}` printed no result (exit {:?}{})",
                        run.output.command_line(),
                        run.output.exit_code,
                        if run.output.timed_out {
                            ", timed out"
                        } else {
                            ""
                        }
                    ));
                }
                Some(run)
            }
            Err(KernelError::NotInstalled(why)) => {
                *missing = true;
                if !self.s.notes().iter().any(|n| n.starts_with(&why)) {
                    self.s.note(format!(
                        "{why}: the built-in LZMA benchmark ran instead; its MB/s are not 7-zip MIPS"
                    ));
                }
                None
            }
            Err(KernelError::Interrupted) => None,
            Err(e) => {
                out.fail(e.to_string());
                None
            }
        }
    }

    pub(super) fn lzma_once(
        &mut self,
        cpus: Vec<u32>,
        kind: m::RunKind,
        cluster: Option<usize>,
        label: String,
        out: &mut Outcome,
    ) -> Option<m::CompressionRun> {
        let opts = LzmaBenchOptions {
            cpus: Some(cpus.clone()),
            ..self.opts.lzma.clone()
        };
        match self.m.lzma(&opts, &self.stop) {
            Ok(res) => {
                self.s
                    .tool("built-in lzma", Some(res.implementation.clone()), None);
                out.raw.push(m::RawOutput {
                    label,
                    command: format!(
                        "built-in LZMA benchmark: {} MiB of generated data, dictionary 2^{}, preset {}, {} s each way, CPUs {:?}",
                        opts.data_bytes >> 20,
                        opts.dict_log2,
                        opts.preset,
                        opts.seconds,
                        cpus
                    ),
                    text: res.summary_line(),
                });
                if let serde_json::Value::Array(a) = &mut out.details {
                    a.push(to_json(&res));
                }
                Some(m::CompressionRun {
                    kind,
                    cluster,
                    threads: cpus.len() as u32,
                    cpus,
                    dict_log2: Some(opts.dict_log2),
                    dictionary_reason: None,
                    compress_mips: None,
                    decompress_mips: None,
                    total_mips: None,
                    compress_mb_s: Some(res.compress_mb_s),
                    decompress_mb_s: Some(res.decompress_mb_s),
                    ratio: Some(res.ratio),
                })
            }
            Err(KernelError::Interrupted) => None,
            Err(e) => {
                out.fail(e.to_string());
                None
            }
        }
    }

    /// Runs of one compression phase: 7-zip when installed, the built-in LZMA otherwise.
    pub(super) fn compression(
        &mut self,
        jobs: Vec<(m::RunKind, Option<usize>, Vec<u32>, String)>,
    ) -> Outcome {
        let mut out = Outcome {
            details: serde_json::Value::Array(Vec::new()),
            ..Default::default()
        };
        let mut runs = Vec::new();
        let mut missing = false;
        let mut version = None;
        let mut program = None;
        let n = jobs.len() as u32;
        for (i, (kind, cluster, cpus, label)) in jobs.clone().into_iter().enumerate() {
            if self.stopped() {
                break;
            }
            self.progress
                .step(i as u32, n, format!("7-zip run {} of {n}", i + 1));
            let mut opts = match kind {
                m::RunKind::Single => SevenZipOptions::single(cpus[0]),
                m::RunKind::Multi => SevenZipOptions::all(),
                m::RunKind::Cluster => SevenZipOptions::cluster(cpus.clone()),
            };
            opts.progress = self.progress.clone();
            let Some(run) = self.sevenzip_once(opts, label, &mut out, &mut missing) else {
                if missing {
                    break;
                }
                continue;
            };
            version = run
                .bench
                .as_ref()
                .and_then(|b| b.version.clone())
                .or(version);
            program = Some(run.program.clone());
            if let serde_json::Value::Array(a) = &mut out.details {
                a.push(to_json(&run));
            }
            let b = run.bench.as_ref();
            runs.push(m::CompressionRun {
                kind,
                cluster,
                threads: b.and_then(|b| b.threads).unwrap_or(run.dictionary.threads),
                cpus,
                dict_log2: Some(run.dictionary.dict_log2),
                dictionary_reason: Some(run.dictionary.reason.clone()),
                compress_mips: b.and_then(|b| b.compress_mips()),
                decompress_mips: b.and_then(|b| b.decompress_mips()),
                total_mips: b.and_then(|b| b.total_mips()),
                compress_mb_s: None,
                decompress_mb_s: None,
                ratio: None,
            });
        }
        let tool = if missing {
            for (i, (kind, cluster, cpus, label)) in jobs.into_iter().enumerate() {
                if self.stopped() {
                    break;
                }
                self.progress
                    .step(i as u32, n, format!("built-in LZMA run {} of {n}", i + 1));
                if let Some(run) = self.lzma_once(cpus, kind, cluster, label, &mut out) {
                    runs.push(run);
                }
            }
            version = Some(lzma::liblzma_version());
            program = None;
            m::CompressionTool::BuiltinLzma
        } else {
            m::CompressionTool::SevenZip
        };
        if !runs.is_empty() {
            out.scores = Some(Scores::Compression(m::CompressionScores {
                tool,
                version,
                program,
                runs,
            }));
        }
        out
    }

    pub(super) fn phase_compression_single(&mut self) {
        let groups = self.groups.clone();
        let cpus = groups.iter().map(|g| g.first).collect();
        self.phase(
            phase::COMPRESSION_SINGLE,
            "7-zip single-threaded, pinned to the first CPU of each cluster",
            Some(1),
            cpus,
            |r| {
                let jobs = groups
                    .iter()
                    .map(|g| {
                        (
                            m::RunKind::Single,
                            g.cluster,
                            vec![g.first],
                            format!("single-threaded on cpu{}{}", g.first, core(&g.core_type)),
                        )
                    })
                    .collect();
                r.compression(jobs)
            },
        );
    }

    pub(super) fn phase_compression_multi(&mut self) {
        let cpus = all_cpus(&self.groups);
        let n = cpus.len() as u32;
        let runs = self.opts.multi_runs.max(1);
        self.phase(
            phase::COMPRESSION_MULTI,
            &format!("7-zip on all cores, {runs} consecutive run(s)"),
            Some(n),
            cpus.clone(),
            |r| {
                let jobs = (1..=runs)
                    .map(|i| {
                        (
                            m::RunKind::Multi,
                            None,
                            cpus.clone(),
                            format!("all cores, run {i} of {runs}"),
                        )
                    })
                    .collect();
                r.compression(jobs)
            },
        );
    }

    pub(super) fn phase_compression_cluster(&mut self) {
        let groups = self.groups.clone();
        if groups.len() < 2 {
            self.phase(
                phase::COMPRESSION_CLUSTER,
                "7-zip per cluster with all its cores",
                None,
                Vec::new(),
                |_| Outcome::skipped("one cluster: the all-core run already covers it"),
            );
            return;
        }
        for g in groups {
            let title = format!(
                "7-zip on the cores of cluster {}{}",
                g.cluster.map_or("?".into(), |c| c.to_string()),
                core(&g.core_type)
            );
            let n = g.cpus.len() as u32;
            self.phase(
                phase::COMPRESSION_CLUSTER,
                &title,
                Some(n),
                g.cpus.clone(),
                |r| {
                    r.compression(vec![(
                        m::RunKind::Cluster,
                        g.cluster,
                        g.cpus.clone(),
                        format!("cluster {} (cpus {:?})", g.cluster.unwrap_or(0), g.cpus),
                    )])
                },
            );
            if self.stopped() {
                return;
            }
        }
    }
}
