//! The page's tables, made readable everywhere:
//! * columns with nothing to show are dropped: a column whose every body cell is a dash
//!   ("-", "–") or empty says only that nothing was measured, which the page says once
//!   elsewhere (a VM has no clock to reach, an import has no per-core load);
//! * each body cell is labelled with its column's header (`data-label`), so that on a phone
//!   the stylesheet shows every row as a small card of "header: value" lines (`stack`)
//!   instead of a table wider than the screen.
//!
//! Works on the page's own tables (no nesting, no `colspan`); a table it cannot read is left
//! as it is.

/// The page with every dash-only column removed from its tables.
pub fn drop_dash_columns(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(start) = rest.find("<table") {
        let Some(len) = rest[start..].find("</table>") else {
            break;
        };
        let end = start + len + "</table>".len();
        out.push_str(&rest[..start]);
        let table = &rest[start..end];
        out.push_str(&one_table(table).unwrap_or_else(|| table.to_string()));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The cells of a row: (start, end) byte ranges of each `<td…>…</td>` / `<th…>…</th>`.
fn cells(row: &str) -> Option<Vec<(usize, usize)>> {
    let mut v = Vec::new();
    let mut i = 0;
    while let Some(off) = row[i..].find("<t") {
        let s = i + off;
        let tag = match row.get(s + 1..s + 3) {
            Some("td") => "</td>",
            Some("th") => "</th>",
            _ => {
                i = s + 2;
                continue;
            }
        };
        // `<table` or `<tbody` would start with "<ta"/"<tb": not cells; nested: give up.
        let e = s + row[s..].find(tag)? + tag.len();
        if row[s..e].contains("colspan") || row[s + 3..e - tag.len()].contains("<td") {
            return None;
        }
        v.push((s, e));
        i = e;
    }
    Some(v)
}

/// The text of a cell without its tags.
fn text(cell: &str) -> String {
    let mut t = String::new();
    let mut inside = false;
    for c in cell.chars() {
        match c {
            '<' => inside = true,
            '>' => inside = false,
            c if !inside => t.push(c),
            _ => {}
        }
    }
    t.trim().to_string()
}

fn one_table(table: &str) -> Option<String> {
    // Rows as byte ranges.
    let mut rows: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while let Some(off) = table[i..].find("<tr") {
        let s = i + off;
        let e = s + table[s..].find("</tr>")? + "</tr>".len();
        rows.push((s, e));
        i = e;
    }
    let parsed: Vec<Vec<(usize, usize)>> = rows
        .iter()
        .map(|&(s, e)| cells(&table[s..e]))
        .collect::<Option<_>>()?;
    let n = parsed.first()?.len();
    if n < 2 || parsed.iter().any(|c| c.len() != n) {
        return None;
    }
    // Body rows: those with <td> cells.
    let body: Vec<usize> = (0..rows.len())
        .filter(|&r| {
            let (s, _) = rows[r];
            parsed[r]
                .first()
                .is_some_and(|c| table[s + c.0..].starts_with("<td"))
        })
        .collect();
    if body.is_empty() {
        return None;
    }
    let dash = |t: &str| t.is_empty() || t == "-" || t == "–";
    let drop: Vec<usize> = (0..n)
        .filter(|&col| {
            body.iter().all(|&r| {
                let (s, _) = rows[r];
                let (a, b) = parsed[r][col];
                dash(&text(&table[s + a..s + b]))
            })
        })
        .collect();
    // Keep at least two columns.
    let drop = if n - drop.len() < 2 { Vec::new() } else { drop };
    // The header row's texts label the body cells.
    let header = (0..rows.len()).find(|r| !body.contains(r));
    let labels: Vec<String> = match header {
        Some(h) => parsed[h]
            .iter()
            .map(|&(a, b)| text(&table[rows[h].0 + a..rows[h].0 + b]))
            .collect(),
        None => vec![String::new(); n],
    };
    let mut out = String::with_capacity(table.len() + 64 * body.len());
    // `<table` → `<table data-stack` (the stylesheet stacks it on narrow screens).
    out.push_str("<table data-stack");
    let mut last = "<table".len();
    for (r, &(s, _)) in rows.iter().enumerate() {
        for (col, &(a, b)) in parsed[r].iter().enumerate() {
            if drop.contains(&col) {
                out.push_str(&table[last..s + a]);
                last = s + b;
            } else if body.contains(&r) && !labels[col].is_empty() {
                // `<td` → `<td data-label="…"`
                out.push_str(&table[last..s + a + 3]);
                out.push_str(" data-label=\"");
                out.push_str(&labels[col].replace('&', "&amp;").replace('"', "&quot;"));
                out.push('"');
                last = s + a + 3;
            }
        }
    }
    out.push_str(&table[last..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::drop_dash_columns;

    #[test]
    fn dash_only_columns_go_and_the_rest_stays() {
        let t = "<p>x</p><table><thead><tr><th>Test</th><th>Clock (MHz)</th><th>MB/s</th></tr></thead><tbody><tr><td>seq</td><td>-</td><td>1350</td></tr><tr><td>rand</td><td class=\"num\">–</td><td>67</td></tr></tbody></table><p>y</p>";
        let d = drop_dash_columns(t);
        assert_eq!(
            d,
            "<p>x</p><table data-stack><thead><tr><th>Test</th><th>MB/s</th></tr></thead><tbody><tr><td data-label=\"Test\">seq</td><td data-label=\"MB/s\">1350</td></tr><tr><td data-label=\"Test\">rand</td><td data-label=\"MB/s\">67</td></tr></tbody></table><p>y</p>"
        );
        // One real value keeps the column (and every cell is labelled).
        let t2 = t.replace("<td>-</td>", "<td>1800</td>");
        let d2 = drop_dash_columns(&t2);
        assert!(
            d2.contains("<td data-label=\"Clock (MHz)\">1800</td>"),
            "{d2}"
        );
        // colspan: left alone.
        let t3 = t.replace("<td>seq</td>", "<td colspan=\"1\">seq</td>");
        assert_eq!(drop_dash_columns(&t3), t3);
    }
}
