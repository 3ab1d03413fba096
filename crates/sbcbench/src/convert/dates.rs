//! Dates of sbc-bench logs: the `date -R` text of the log header. The calendar arithmetic is
//! `truebench_model::unix_s_utc` (jiff); this only reads the tokens sbc-bench's logs hold,
//! leniently (no weekday, no offset).

/// `Mon, 13 Mar 2023 18:03:30 +0100` → (Unix seconds, offset seconds east of UTC).
pub fn rfc2822(s: &str) -> Option<(i64, i64)> {
    let s = s.split_once(", ").map_or(s, |(_, rest)| rest);
    let t: Vec<&str> = s.split_whitespace().collect();
    if t.len() < 4 {
        return None;
    }
    let day: i8 = t[0].parse().ok()?;
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| *m == t[1])? as i8 + 1;
    let year: i16 = t[2].parse().ok()?;
    let secs = crate::import::util::clock_seconds(t[3])? as i64;
    let offset = t
        .get(4)
        .and_then(|o| {
            let sign = match o.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let v: i64 = o.get(1..5)?.parse().ok()?;
            Some(sign * ((v / 100) * 3600 + (v % 100) * 60))
        })
        .unwrap_or(0);
    let midnight = truebench_model::unix_s_utc(year, month, day, 0, 0, 0)?;
    Some((midnight + secs - offset, offset))
}
