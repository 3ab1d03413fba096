//! A power meter's output is whatever its logger prints: lines as real meters and scripts
//! print them, broken and hostile (`NaN`, 10^309, negative), give watts that are finite and
//! not negative, or nothing — never a panic, never garbage.

use proptest::prelude::*;
use truebench_fixtures::fuzz::{config, mutated_text};
use truebench_suites::meter::parse_watts;

fn lines() -> Vec<Vec<u8>> {
    truebench_fixtures::fuzz::seeds_of(&[
        "12.5",
        "12.5 W",
        "power=12500mW",
        "{\"watts\": 7.1, \"volts\": 5.08, \"amps\": 1.39}",
        "12:00:01 5.2 W",
        "2026-11-26T09:17:18Z,5.12,1.02,5.22W",
        "V=5.08 A=1.021 W=5.19",
        "0.000 kW",
        "4200 uW",
    ])
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_meter_line_of_any_shape(l in mutated_text(lines())) {
        if let Some(w) = parse_watts(&l) {
            prop_assert!(w.is_finite() && (0.0..=100_000.0).contains(&w), "{l:?} → {w}");
        }
    }
}
