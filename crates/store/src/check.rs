//! `truebench history --check`: the database's own check, then every result against its
//! document — the stored text whole (its SHA-256 is the row's key), readable, and the columns
//! and figures `history` lists exactly those this truebench derives from it, its rows of the
//! `standing` table those its document gives (none: stored by a truebench older than the
//! table), and the tallies and list the database keeps beside that table (`counts.rs`) those
//! its rows give. A result stored halfway (a row without its figures, figures without their row, a
//! cut document) is named.

use crate::{digest, parse_document, Db, Entry, Filter, ListedRow, Prepared, Store, StoreError};

/// What [`Store::check`] found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Checked {
    /// Results checked.
    pub results: usize,
    /// One line per problem (empty: all sound).
    pub problems: Vec<String>,
}

impl Store {
    /// Check the whole history (see the module's note). An error only when it cannot be read.
    pub fn check(&self) -> Result<Checked, StoreError> {
        let mut out = Checked::default();
        let db = self.integrity_check()?;
        if db != "ok" {
            out.problems
                .extend(db.lines().map(|l| format!("database: {l}")));
        }
        // The lists the database keeps beside `standing` by its triggers.
        for (what, sql) in crate::counts::checks(self.dialect()) {
            let off = self.ids((sql, Vec::new()))?;
            if let Some(n) = off.first().filter(|n| **n > 0) {
                out.problems
                    .push(format!("database: {what} ({n} rows differ)"));
            }
        }
        let raw = match &self.db {
            Db::Sqlite(s) => s.raw()?,
            Db::Postgres(p) => p.raw()?,
        };
        let listed: std::collections::BTreeMap<i64, Entry> = self
            .list(&Filter::default())?
            .into_iter()
            .map(|e| (e.id, e))
            .collect();
        let mut standing: std::collections::BTreeMap<i64, Vec<crate::StandingRow>> =
            Default::default();
        let rows = match &self.db {
            Db::Sqlite(s) => s.standing_rows()?,
            Db::Postgres(p) => p.standing_rows()?,
        };
        for r in rows {
            standing.entry(r.0).or_default().push(r);
        }
        // In one order whatever the server's collation.
        for v in standing.values_mut() {
            v.sort_by(|a, b| a.2.cmp(&b.2));
        }
        let path = self.path().to_string();
        for (id, key, text) in raw {
            out.results += 1;
            let whole = key == digest(&text)
                || key.strip_prefix(&digest(&text)).is_some_and(|n| {
                    n.strip_prefix('-')
                        .is_some_and(|n| n.parse::<u32>().is_ok())
                });
            if !whole {
                out.problems.push(format!(
                    "#{id}: the stored document is not the one stored (its SHA-256 is not the row's key)"
                ));
                continue;
            }
            let doc = match parse_document(&path, id, &text) {
                Ok(d) => d,
                Err(e) => {
                    out.problems.push(format!("#{id}: {e}"));
                    continue;
                }
            };
            let Some(stored) = listed.get(&id) else {
                out.problems.push(format!("#{id}: not listed"));
                continue;
            };
            let row = Prepared::new(&path, &doc, Some(id))?;
            if let Some(stored) = standing.get(&id) {
                let (grp, figures) = &row.standing;
                let mut want: Vec<crate::StandingRow> =
                    vec![(id, grp.clone(), String::new(), None)];
                want.extend(
                    figures
                        .iter()
                        .map(|(k, v)| (id, grp.clone(), k.clone(), Some(*v))),
                );
                want.sort_by(|a, b| a.2.cmp(&b.2));
                if *stored != want {
                    out.problems.push(format!(
                        "#{id}: its standing rows (group and ranked figures) differ from what its document gives (stored by another truebench version?)"
                    ));
                }
            }
            let mut want = ListedRow {
                id,
                kind: row.kind.clone(),
                started_unix_ms: row.started_unix_ms,
                started_utc: row.started_utc.clone(),
                device: row.device.clone(),
                soc: row.soc.clone(),
                hostname: row.hostname.clone(),
                label: row.label.clone(),
                valid: row.valid,
                complete: row.complete,
                source: row.source.to_string(),
                source_name: row.source_name.clone(),
            }
            .into_entry();
            for m in &row.metrics {
                want.metrics
                    .insert(m.key.clone(), crate::metric_value(m.value, m.text.clone()));
            }
            if stored.metrics.is_empty() && !want.metrics.is_empty() {
                out.problems.push(format!(
                    "#{id}: a result without its figures ({} expected)",
                    want.metrics.len()
                ));
            } else if *stored != want {
                let missing: Vec<&str> = want
                    .metrics
                    .keys()
                    .filter(|k| !stored.metrics.contains_key(*k))
                    .map(String::as_str)
                    .collect();
                out.problems.push(format!(
                    "#{id}: its columns or figures differ from what its document gives{} (stored by another truebench version?)",
                    if missing.is_empty() {
                        String::new()
                    } else {
                        format!(" (missing: {})", missing.join(", "))
                    }
                ));
            }
        }
        Ok(out)
    }
}
