//! Board models → their device tree's compatible entries (`data/boards.tsv`), for where the
//! device tree is not at hand but its model is: an sbc-bench log's device line, the kernel
//! log's `Machine model:` line.

use std::sync::OnceLock;

const TABLE: &str = include_str!("../../data/boards.tsv");

/// (model in lower case, compatible entries).
type Board = (String, Vec<String>);

/// Parse the table: `model<TAB>compatible entries, space-separated`.
pub(super) fn parse(text: &str) -> Result<Vec<Board>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (model, compat) = line
            .split_once('\t')
            .filter(|(m, c)| !m.trim().is_empty() && !c.trim().is_empty() && !c.contains('\t'))
            .ok_or_else(|| {
                format!(
                    "data/boards.tsv line {}: expected model<TAB>compatible",
                    i + 1
                )
            })?;
        let compat: Vec<String> = compat.split(' ').map(str::to_string).collect();
        if compat.iter().any(|e| !e.contains(',')) {
            return Err(format!(
                "data/boards.tsv line {}: a compatible entry without its vendor",
                i + 1
            ));
        }
        out.push((model.trim().to_lowercase(), compat));
    }
    Ok(out)
}

fn table() -> &'static [Board] {
    static T: OnceLock<Vec<Board>> = OnceLock::new();
    // The unit test `boards_table_parses` keeps the table clean.
    T.get_or_init(|| parse(TABLE).unwrap_or_default())
}

/// The compatible entries of the board a model names: the board named exactly, else every
/// board whose model starts with it as whole words (`Pine64 RockPro64` → its v2.0 and v2.1)
/// when they all end in the same SoC entry.
pub(super) fn compatible_of(model: &str) -> Option<&'static [String]> {
    let m = model.trim().to_lowercase();
    if m.len() < 4 {
        return None;
    }
    let t = table();
    if let Some((_, c)) = t.iter().find(|(k, _)| *k == m) {
        return Some(c);
    }
    let mut found = t
        .iter()
        .filter(|(k, _)| k.strip_prefix(&m).is_some_and(|rest| rest.starts_with(' ')));
    let first = found.next()?;
    found
        .all(|(_, c)| c.last() == first.1.last())
        .then_some(first.1.as_slice())
}
