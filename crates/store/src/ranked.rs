//! A result's standing among the stored results of its group (`compare`, `report`), counted
//! from the tallies the database keeps beside its `standing` table (`counts.rs`) — a few
//! index ranges per figure, whatever the group's size — no document read but those of
//! results an older truebench stored, and the memory constant.

use std::collections::HashMap;

use truebench_model::Document;

use crate::standing::{self, Counted, Standing};
use crate::{query, Db, Store, StoreError};

/// Figures ranked in one statement: 2 parameters each.
const CHUNK: usize = 200;

impl Store {
    /// `doc`'s [`standing`](standing::standing) among the stored results of its group: the
    /// same figures as ranking it among every stored document, `doc`'s own stored copies
    /// left out; the group's results stored by a truebench older than the table are read
    /// and ranked by their documents.
    pub fn standing(&self, doc: &Document) -> Result<Vec<Standing>, StoreError> {
        let (Some(grp), Some(soc)) = (standing::group_key(doc), standing::group_soc(doc)) else {
            return Ok(Vec::new());
        };
        let d = self.dialect();
        let e = &doc.envelope;
        // The copies of `doc` itself in the group, whose figures are taken off the counts.
        let copies = self.key_values(query::same_result_sql(
            d,
            &grp,
            doc.kind(),
            e.started.unix_ms,
            e.hostname.as_deref(),
            e.inventory.device.as_deref(),
        ))?;
        let older: Vec<Vec<truebench_figures::Metric>> = self
            .ids(query::ungrouped_sql(d, doc.kind(), soc))?
            .into_iter()
            .filter_map(|id| self.get(id).ok().flatten())
            .filter_map(|other| standing::group_figures(doc, &other))
            .collect();
        // Every ranked figure's counts at once (in chunks that keep a statement's parameters
        // well inside both back ends' limits), then taken as `standing_counted` asks.
        let figures = standing::ranked_figures(doc);
        let pairs: Vec<(String, f64)> = figures.iter().map(|f| (f.key.clone(), f.value)).collect();
        let mut counted: HashMap<(String, u64), [i64; 3]> = HashMap::new();
        for chunk in pairs.chunks(CHUNK) {
            for (k, v, c) in self.rank_rows(query::ranks_sql(d, &grp, chunk))? {
                counted.insert((k, v.to_bits()), c);
            }
        }
        standing::standing_counted(doc, figures, |key, v| {
            let [of, below, equal] = counted
                .get(&(key.to_string(), v.to_bits()))
                .copied()
                .unwrap_or_default();
            let mut c = Counted {
                of: usize::try_from(of).unwrap_or(0),
                below: usize::try_from(below).unwrap_or(0),
                equal: usize::try_from(equal).unwrap_or(0),
            };
            for (_, x) in copies.iter().filter(|(k, _)| k == key) {
                let Some(x) = *x else { continue };
                c.of = c.of.saturating_sub(1);
                if x < v {
                    c.below = c.below.saturating_sub(1);
                }
                if x == v {
                    c.equal = c.equal.saturating_sub(1);
                }
            }
            for o in &older {
                if let Some(x) = o
                    .iter()
                    .find(|m| m.key == key)
                    .and_then(|m| m.value)
                    .filter(|x| x.is_finite())
                {
                    c.of += 1;
                    c.below += usize::from(x < v);
                    c.equal += usize::from(x == v);
                }
            }
            Ok(c)
        })
    }

    fn rank_rows(
        &self,
        q: (String, Vec<query::Param>),
    ) -> Result<Vec<(String, f64, [i64; 3])>, StoreError> {
        match &self.db {
            Db::Sqlite(s) => s.rank_rows(q),
            Db::Postgres(p) => p.rank_rows(q),
        }
    }

    fn key_values(
        &self,
        q: (String, Vec<query::Param>),
    ) -> Result<Vec<(String, Option<f64>)>, StoreError> {
        match &self.db {
            Db::Sqlite(s) => s.key_values(q),
            Db::Postgres(p) => p.key_values(q),
        }
    }
}
