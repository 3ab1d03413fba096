//! Readable names for the stored figure keys, for `compare` and lists: `score_change_pct` →
//! "Score change", `cluster1_last_minute_mhz` → "cluster 1: clock, last minute",
//! `upload_performance_mbit_s` → "upload performance: throughput".

/// Whole keys with their own name.
const WHOLE: &[(&str, &str)] = &[
    ("sevenzip_multi", "7-zip multi"),
    ("sevenzip_single", "7-zip single"),
    ("aes", "AES-256-CBC (16 KiB)"),
    ("memcpy", "memcpy"),
    ("memset", "memset"),
    ("sevenzip_version", "7-Zip version"),
    ("openssl_version", "OpenSSL version"),
    ("score_first", "First score"),
    ("score_last", "Last score"),
    ("score_change_pct", "Score change"),
    ("temp_max_c", "Hottest"),
    ("duration_s", "Duration"),
    ("exit_code", "Exit code"),
    ("score_ratio", "Score ratio"),
    ("loops_per_ms", "Calibration (loops per ms)"),
    ("settings", "Settings"),
    ("settings_to_look_at", "Settings to look at"),
    ("status_changes", "Changed while it ran"),
    ("kernel_errors", "Kernel errors"),
    ("energy_idle_w", "Idle power"),
];

/// Suffixes (longest first where one ends another) and what they measure.
const SUFFIX: &[(&str, &str)] = &[
    ("_miss_ratio_spread_pp", "miss ratio spread"),
    ("_work_time_ratio_spread_pct", "work-time ratio spread"),
    ("_miss_ratio_pct", "missed"),
    ("_work_time_ratio", "work-time ratio"),
    ("_work_ms_per_j", "work per joule"),
    ("_deadlines_met_pct", "deadlines met"),
    ("_desired_cpu_pct", "CPU desired"),
    ("_frames_per_s", "frames per second"),
    ("_last_minute_mhz", "clock, last minute"),
    ("_first_loss_c", "first lost clock at"),
    ("_measured_mhz", "measured clock"),
    ("_deviation_pct", "deviation"),
    ("_best_per_watt", "best per watt"),
    ("_top_score", "score at the top OPP"),
    ("_spread_pct", "spread"),
    ("_best_mhz", "best OPP"),
    ("_duration_s", "duration"),
    ("_efficiency", "efficiency"),
    ("_energy_j", "energy"),
    ("_opp_mhz", "OPP"),
    ("_mbit_s", "throughput"),
    ("_mb_s", "throughput"),
    ("_mean_us", "mean latency"),
    ("_p99_us", "p99 latency"),
    ("_max_us", "max latency"),
    ("_sd_us", "latency SD"),
    ("_score", "score"),
    ("_iops", "IOPS"),
    ("_per_w", "per watt"),
    ("_w", "power"),
    ("_j", "energy"),
];

/// The readable name of a figure key; an unknown key is shown with spaces for underscores.
pub fn label_of(key: &str) -> String {
    if let Some((_, l)) = WHOLE.iter().find(|(k, _)| *k == key) {
        return l.to_string();
    }
    // The energy of a phase: `energy_load_w` → "energy, load: power".
    if let Some(rest) = key.strip_prefix("energy_") {
        return format!("energy, {}", label_of(rest));
    }
    let (stem, what) = SUFFIX
        .iter()
        .find_map(|(s, l)| key.strip_suffix(s).map(|stem| (stem, Some(*l))))
        .unwrap_or((key, None));
    // `cluster1` → `cluster 1`, `energy_7zip` → `energy 7zip`.
    let stem = stem.replace('_', " ");
    let stem = match stem.strip_prefix("cluster") {
        Some(n) if n.chars().next().is_some_and(|c| c.is_ascii_digit()) => {
            let (num, rest) = n.split_at(n.find(' ').unwrap_or(n.len()));
            format!("cluster {num}{rest}")
        }
        _ => stem,
    };
    match what {
        Some(w) if stem.is_empty() => w.to_string(),
        Some(w) => format!("{stem}: {w}"),
        None => stem,
    }
}

#[cfg(test)]
mod tests {
    use super::label_of;

    #[test]
    fn keys_read_as_words() {
        assert_eq!(label_of("score_change_pct"), "Score change");
        assert_eq!(
            label_of("cluster1_last_minute_mhz"),
            "cluster 1: clock, last minute"
        );
        assert_eq!(
            label_of("upload_performance_mbit_s"),
            "upload performance: throughput"
        );
        assert_eq!(
            label_of("schedutil_2_miss_ratio_pct"),
            "schedutil 2: missed"
        );
        assert_eq!(label_of("audio_Burn_p99_us"), "audio Burn: p99 latency");
        assert_eq!(label_of("energy_7zip_j"), "energy, 7zip: energy");
        assert_eq!(
            label_of("energy_load_runs_per_min_per_w"),
            "energy, load runs per min: per watt"
        );
        assert_eq!(label_of("something_new"), "something new");
    }
}
