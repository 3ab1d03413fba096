//! The score a wrapped command printed (`monitor --per-cluster -- CMD`): a `--score REGEX`
//! capture, else the known formats of the tools people run per core type — 7-zip's
//! benchmark, `openssl speed`, sysbench and stress-ng. Pure: text in, score out.

use regex::Regex;
pub use truebench_model::monitor::CommandScore as Score;

/// A `--score` pattern: the last match's first capture group (the whole match without
/// one) is the score; a number with a thousands separator or a unit after it is read.
#[derive(Debug, Clone)]
pub struct ScorePattern(Regex);

impl ScorePattern {
    pub fn new(pattern: &str) -> Result<ScorePattern, String> {
        Regex::new(pattern)
            .map(ScorePattern)
            .map_err(|e| format!("--score {pattern}: not a regular expression: {e}"))
    }

    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

/// The score in `text`: the pattern's when given (None when it matches no number), else the
/// first known format that matches.
pub fn score(text: &str, pattern: Option<&ScorePattern>) -> Option<Score> {
    if let Some(p) = pattern {
        let m = p.0.captures_iter(text).last()?;
        let s = m.get(1).or_else(|| m.get(0))?.as_str();
        return Some(Score {
            value: number(s)?,
            unit: String::new(),
            source: format!("--score {}", p.as_str()),
        });
    }
    sevenzip(text)
        .or_else(|| stress_ng(text))
        .or_else(|| sysbench(text))
        .or_else(|| openssl(text))
}

/// The first number in `s` (`1,234.5 MIPS` → 1234.5).
fn number(s: &str) -> Option<f64> {
    let t: String = s
        .trim()
        .trim_start_matches(|c: char| !(c.is_ascii_digit() || c == '-' || c == '.'))
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '-' | 'e' | 'E'))
        .filter(|c| *c != ',')
        .collect();
    t.parse().ok().filter(|v: &f64| v.is_finite())
}

/// 7-zip's `b` benchmark: the last `Tot:` line's last column is the total rating (MIPS).
fn sevenzip(text: &str) -> Option<Score> {
    let line = text
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with("Tot:"))?;
    let value: f64 = line.split_whitespace().last()?.parse().ok()?;
    Some(Score {
        value,
        unit: "MIPS".into(),
        source: "7-zip Tot: rating".into(),
    })
}

/// `openssl speed -evp …`: the last result line's last column (the largest block size),
/// `1234.56k` in kB/s.
fn openssl(text: &str) -> Option<Score> {
    let line = text.lines().rev().find(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        f.len() >= 3
            && f.iter().rev().take(2).all(|x| {
                x.strip_suffix('k')
                    .is_some_and(|n| n.parse::<f64>().is_ok())
            })
    })?;
    let last = line.split_whitespace().last()?.strip_suffix('k')?;
    Some(Score {
        value: last.parse().ok()?,
        unit: "kB/s".into(),
        source: format!(
            "openssl speed {} (largest block)",
            line.split_whitespace().next().unwrap_or("")
        ),
    })
}

/// sysbench: `events per second: 1234.56` (cpu, threads), else the memory test's
/// `(12345.67 MiB/sec)`.
fn sysbench(text: &str) -> Option<Score> {
    if let Some(l) = text
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with("events per second:"))
    {
        return Some(Score {
            value: number(l.split(':').nth(1)?)?,
            unit: "events/s".into(),
            source: "sysbench events per second".into(),
        });
    }
    let l = text
        .lines()
        .rev()
        .find(|l| l.contains("MiB transferred") && l.contains("MiB/sec"))?;
    let inner = l.rsplit('(').next()?;
    Some(Score {
        value: number(inner)?,
        unit: "MiB/s".into(),
        source: "sysbench memory transferred".into(),
    })
}

/// stress-ng's metrics (`--metrics-brief`): `stress-ng: metrc: [pid] cpu  12345  10.00
/// 19.97  0.01  1234.46  617.95` — bogo ops/s over real time, summed over the stressors.
fn stress_ng(text: &str) -> Option<Score> {
    let mut total = 0.0;
    let mut names = Vec::new();
    for l in text.lines() {
        let Some(rest) = l
            .strip_prefix("stress-ng: metrc:")
            .or_else(|| l.strip_prefix("stress-ng: info:"))
        else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        // [pid] name bogo-ops real usr sys ops/s(real) …
        if f.len() < 7 || !f[0].starts_with('[') || f[1].parse::<f64>().is_ok() {
            continue;
        }
        let nums: Option<Vec<f64>> = f[2..7].iter().map(|x| x.parse().ok()).collect();
        if let Some(n) = nums {
            total += n[4];
            names.push(f[1].to_string());
        }
    }
    (!names.is_empty()).then(|| Score {
        value: total,
        unit: "bogo ops/s".into(),
        source: format!("stress-ng {} bogo ops/s (real time)", names.join("+")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_formats() {
        let zip = "RAM size:    7940 MB,  # CPU hardware threads:   8\n\
                   Avr:             393   2991  11745             388   3041  11795\n\
                   Tot:             391   3016  11770\n";
        let s = score(zip, None).unwrap();
        assert_eq!((s.value, s.unit.as_str()), (11770.0, "MIPS"));

        let ossl = "The 'numbers' are in 1000s of bytes per second processed.\n\
                    type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes  16384 bytes\n\
                    aes-256-cbc     375462.33k   845541.06k  1144320.43k  1223426.39k  1254739.97k  1253310.46k\n";
        let s = score(ossl, None).unwrap();
        assert_eq!((s.value, s.unit.as_str()), (1253310.46, "kB/s"));
        assert!(s.source.contains("aes-256-cbc"));

        let sb = "CPU speed:\n    events per second:  1432.80\n\nGeneral statistics:\n";
        assert_eq!(score(sb, None).unwrap().value, 1432.8);
        let sbm = "102400.00 MiB transferred (10238.45 MiB/sec)\n";
        let s = score(sbm, None).unwrap();
        assert_eq!((s.value, s.unit.as_str()), (10238.45, "MiB/s"));

        let ng = "stress-ng: info:  [4242] dispatching hogs: 4 cpu\n\
                  stress-ng: metrc: [4242] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s CPU used per\n\
                  stress-ng: metrc: [4242]                           (secs)    (secs)    (secs)   (real time) (usr+sys time) instance (%)\n\
                  stress-ng: metrc: [4242] cpu               12345     10.00     39.90      0.02      1234.50        309.25        99.80\n";
        let s = score(ng, None).unwrap();
        assert_eq!((s.value, s.unit.as_str()), (1234.5, "bogo ops/s"));
        assert!(score("nothing to see\n", None).is_none());
    }

    #[test]
    fn a_pattern_takes_the_last_match_and_its_group() {
        let p = ScorePattern::new(r"score: ([\d,.]+)").unwrap();
        let s = score("score: 10\nscore: 1,234.5 pts\n", Some(&p)).unwrap();
        assert_eq!(s.value, 1234.5);
        assert_eq!(s.source, r"--score score: ([\d,.]+)");
        // A pattern that matches no number gives none, not a known format's score.
        let p = ScorePattern::new(r"score: (\w+)").unwrap();
        assert!(score("score: high\nTot: 1 2 3\n", Some(&p)).is_none());
        assert!(ScorePattern::new("(").unwrap_err().contains("--score ("));
    }
}
