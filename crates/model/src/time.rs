//! Moments in result documents. Calendar arithmetic is `jiff`'s; this module only fixes the
//! text form every document uses (RFC 3339, UTC, milliseconds).

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// A moment: Unix milliseconds and the same as RFC 3339 UTC text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Stamp {
    /// Milliseconds since the Unix epoch.
    pub unix_ms: i64,
    /// The same moment as RFC 3339 UTC text (`2026-07-01T12:34:56.789Z`).
    pub utc: String,
}

impl Stamp {
    /// The moment `unix_ms` with its text.
    pub fn from_unix_ms(unix_ms: i64) -> Stamp {
        Stamp {
            unix_ms,
            utc: rfc3339_utc(unix_ms),
        }
    }

    /// This moment on the wall clock.
    pub fn now() -> Stamp {
        Stamp::from_unix_ms(Timestamp::now().as_millisecond())
    }
}

/// `2026-07-01T12:34:56.789Z`; the Unix epoch for a moment outside jiff's range (±9999 years),
/// which no clock or log produces.
pub fn rfc3339_utc(unix_ms: i64) -> String {
    let ts = Timestamp::from_millisecond(unix_ms).unwrap_or(Timestamp::UNIX_EPOCH);
    ts.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// Unix seconds of a calendar date and time in UTC; None for a date that does not exist.
pub fn unix_s_utc(year: i16, month: i8, day: i8, hour: i8, minute: i8, second: i8) -> Option<i64> {
    let dt = jiff::civil::DateTime::new(year, month, day, hour, minute, second, 0).ok()?;
    dt.to_zoned(jiff::tz::TimeZone::UTC)
        .ok()
        .map(|z| z.timestamp().as_second())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_from_unix_ms() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_utc(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339_utc(1_782_909_296_789), "2026-07-01T12:34:56.789Z");
        assert_eq!(rfc3339_utc(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn calendar_dates() {
        assert_eq!(unix_s_utc(2000, 2, 29, 0, 0, 0), Some(951_782_400));
        assert_eq!(unix_s_utc(2001, 2, 29, 0, 0, 0), None);
        assert_eq!(unix_s_utc(1970, 1, 1, 0, 0, 0), Some(0));
    }
}
