//! AES per cluster (openssl speed, else the built-in kernel) and on all cores at once (extensive).

use super::*;
use truebench_model::phase;

impl<M: Measurements + ?Sized> Run<'_, M> {
    pub(super) fn aes_capability(&self, cpu: u32) -> (Option<bool>, Option<String>) {
        let c = aes::cpu_aes_capability(self.host, cpu);
        (c.cpu_has_aes, c.kind)
    }

    pub(super) fn phase_aes(&mut self) {
        let groups = self.groups.clone();
        let cpus = groups.iter().map(|g| g.first).collect();
        self.phase(
            phase::AES,
            "AES (openssl speed -elapsed -evp), pinned to the first CPU of each cluster",
            Some(1),
            cpus,
            |r| {
                let mut out = Outcome::default();
                let (has, kind) = r.aes_capability(groups[0].first);
                let mut scores = m::AesScores {
                    source: m::AesSourceKind::Openssl,
                    version: None,
                    has_aes_instructions: has,
                    aes_instructions: kind,
                    parallel: false,
                    sizes: Vec::new(),
                    tables: Vec::new(),
                };
                let mut details = Vec::new();
                let mut use_builtin = false;
                let n = groups.len() as u32;
                for (i, g) in groups.iter().enumerate() {
                    if use_builtin {
                        break;
                    }
                    r.progress
                        .step(i as u32, n, format!("openssl on cpu{} ({} of {n})", g.first, i + 1));
                    let opts = OpensslOptions {
                        seconds: Some(r.opts.openssl_seconds),
                        ciphers: r.opts.aes_ciphers.clone(),
                        progress: r.progress.clone(),
                        ..OpensslOptions::standard()
                    }
                    .on_cpu(g.first);
                    match r.m.openssl(&opts, &r.stop) {
                        Ok(res) => {
                            r.s.tool(
                                "openssl",
                                Some(res.version_line.clone()),
                                Some(res.program.clone()),
                            );
                            scores.version = Some(res.version_line.clone());
                            push_openssl(&mut scores, &mut out.raw, g, &res);
                            details.push(to_json(&res));
                        }
                        Err(KernelError::NotInstalled(why)) => {
                            r.s.note(format!(
                                "{why}: AES measured with the built-in kernel (not comparable with sbc-bench's OpenSSL scores)"
                            ));
                            use_builtin = true;
                        }
                        Err(KernelError::Interrupted) => break,
                        Err(e) => {
                            out.fail(format!("cpu{}: {e}", g.first));
                        }
                    }
                }
                if use_builtin {
                    scores.source = m::AesSourceKind::Builtin;
                    let opts = AesOptions {
                        seconds: r.opts.builtin_aes_seconds,
                        ciphers: r.opts.aes_ciphers.clone(),
                        ..AesOptions::standard()
                    };
                    for g in &groups {
                        match r.m.builtin_aes(&opts, &[g.first], &r.stop) {
                            Ok(res) => {
                                for one in &res {
                                    r.s.tool("built-in aes", Some(one.implementation.clone()), None);
                                    scores.version = Some(one.implementation.clone());
                                    push_builtin(&mut scores, &mut out.raw, g, one);
                                    details.push(to_json(one));
                                }
                            }
                            Err(KernelError::Interrupted) => break,
                            Err(e) => {
                                out.fail(format!("cpu{}: {e}", g.first));
                            }
                        }
                    }
                }
                if !scores.tables.is_empty() {
                    out.scores = Some(Scores::Aes(scores));
                }
                out.details = serde_json::Value::Array(details);
                out
            },
        );
    }

    pub(super) fn phase_aes_parallel(&mut self) {
        let cpus = all_cpus(&self.groups);
        let n = cpus.len() as u32;
        self.phase(
            phase::AES_PARALLEL,
            "AES on all cores in parallel (openssl speed -multi)",
            Some(n),
            cpus.clone(),
            |r| {
                let mut out = Outcome::default();
                let (has, kind) = r.aes_capability(cpus[0]);
                let mut scores = m::AesScores {
                    source: m::AesSourceKind::Openssl,
                    version: None,
                    has_aes_instructions: has,
                    aes_instructions: kind,
                    parallel: true,
                    sizes: Vec::new(),
                    tables: Vec::new(),
                };
                let all = Group {
                    cluster: None,
                    cpus: cpus.clone(),
                    first: cpus[0],
                    core_type: None,
                    policy_dir: None,
                };
                r.progress.step(0, 1, format!("openssl -multi {n}"));
                let opts = OpensslOptions {
                    seconds: Some(r.opts.openssl_seconds),
                    ciphers: r.opts.aes_ciphers.clone(),
                    multi: Some(n),
                    cpus: Some(cpus.clone()),
                    progress: r.progress.clone(),
                    ..OpensslOptions::standard()
                };
                match r.m.openssl(&opts, &r.stop) {
                    Ok(res) => {
                        scores.version = Some(res.version_line.clone());
                        push_openssl(&mut scores, &mut out.raw, &all, &res);
                        out.details = to_json(&res);
                    }
                    Err(KernelError::NotInstalled(_)) => {
                        scores.source = m::AesSourceKind::Builtin;
                        let opts = AesOptions {
                            seconds: r.opts.builtin_aes_seconds,
                            ciphers: r.opts.aes_ciphers.clone(),
                            ..AesOptions::standard()
                        };
                        match r.m.builtin_aes(&opts, &cpus, &r.stop) {
                            Ok(res) if !res.is_empty() => {
                                let sum = sum_tables(&res);
                                scores.version = Some(res[0].implementation.clone());
                                push_builtin(&mut scores, &mut out.raw, &all, &sum);
                                out.details = to_json(&res);
                            }
                            Ok(_) | Err(KernelError::Interrupted) => {}
                            Err(e) => return Outcome::failed(e.to_string()),
                        }
                    }
                    Err(KernelError::Interrupted) => {}
                    Err(e) => return Outcome::failed(e.to_string()),
                }
                if !scores.tables.is_empty() {
                    out.scores = Some(Scores::Aes(scores));
                }
                out
            },
        );
    }
}

pub(super) fn table_rows(t: &aes::AesTable) -> Vec<m::AesRow> {
    t.rows
        .iter()
        .map(|r| m::AesRow {
            cipher: r.cipher.map_or(r.name.clone(), |c| c.name().to_string()),
            k: r.k.clone(),
        })
        .collect()
}

pub(super) fn push_openssl(
    scores: &mut m::AesScores,
    raw: &mut Vec<m::RawOutput>,
    g: &Group,
    res: &OpensslResult,
) {
    if scores.sizes.is_empty() {
        scores.sizes = res.table.sizes.iter().map(|&s| s as u32).collect();
    }
    for run in &res.runs {
        raw.push(m::RawOutput {
            label: format!("openssl speed {} on cpu{}", run.cipher.name(), g.first),
            command: run.output.command_line(),
            text: format!("{}{}", run.output.stdout, run.output.stderr),
        });
    }
    scores.tables.push(m::AesTable {
        cluster: g.cluster,
        cpus: if g.cluster.is_none() {
            g.cpus.clone()
        } else {
            vec![g.first]
        },
        core_type: g.core_type.clone(),
        rows: table_rows(&res.table),
    });
}

pub(super) fn push_builtin(
    scores: &mut m::AesScores,
    raw: &mut Vec<m::RawOutput>,
    g: &Group,
    res: &BuiltinAesResult,
) {
    if scores.sizes.is_empty() {
        scores.sizes = res.table.sizes.iter().map(|&s| s as u32).collect();
    }
    raw.push(m::RawOutput {
        label: format!("built-in AES on cpu{}", g.first),
        command: format!(
            "{} (AES instructions used: {})",
            res.implementation,
            if res.uses_aes_instructions {
                "yes"
            } else {
                "no"
            }
        ),
        text: res.table.text(),
    });
    scores.tables.push(m::AesTable {
        cluster: g.cluster,
        cpus: if g.cluster.is_none() {
            g.cpus.clone()
        } else {
            vec![g.first]
        },
        core_type: g.core_type.clone(),
        rows: table_rows(&res.table),
    });
}

/// Built-in results measured at the same time on several CPUs, summed (the all-cores figure).
pub(super) fn sum_tables(res: &[BuiltinAesResult]) -> BuiltinAesResult {
    let mut sum = res[0].clone();
    for other in &res[1..] {
        for (row, orow) in sum.table.rows.iter_mut().zip(&other.table.rows) {
            for (v, o) in row.k.iter_mut().zip(&orow.k) {
                *v += o;
            }
        }
    }
    sum
}

// -------------------------------------------------------------------------------------
// the real measurements
