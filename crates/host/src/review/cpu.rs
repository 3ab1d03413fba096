//! cpufreq policies (governor, limits, ondemand's tunables), devfreq devices and GPU power
//! policies.

use super::{mhz, Setting};
use crate::parse::bracketed_choice;
use crate::{Host, Inventory};

const CPUFREQ: &str = "sys/devices/system/cpu/cpufreq";

pub fn cpufreq(host: &Host, inv: &Inventory, out: &mut Vec<Setting>) {
    if !inv.has_cpufreq() {
        out.push(
            Setting::new("cpufreq", "all CPUs", "driver", "none")
                .from(CPUFREQ)
                .because(
                    "No cpufreq driver: the clock is whatever firmware or the hypervisor sets; \
                     truebench measures it instead of reading it.",
                ),
        );
        return;
    }
    for c in &inv.clusters {
        let Some(dir) = &c.policy_dir else { continue };
        let subject = format!(
            "{} ({})",
            dir.rsplit('/').next().unwrap_or(dir),
            c.cpu_range()
        );
        let gov_file = format!("{dir}/scaling_governor");
        if let Some(g) = &c.governor {
            let choices = c.governors.join(" ");
            let s = Setting::new("cpufreq", &subject, "governor", g).from(&gov_file);
            // intel_pstate and amd-pstate in active mode have only `performance` and
            // `powersave`, and their powersave scales the clock like schedutil: the energy
            // preference says how eagerly.
            let pstate = c
                .driver
                .as_deref()
                .is_some_and(|d| d == "intel_pstate" || d.starts_with("amd-pstate"));
            out.push(match g.as_str() {
                "performance" => s.ok(),
                "powersave" if pstate => s.because(format!(
                    "{}'s powersave is its dynamic scaling, not the lowest clock",
                    c.driver.as_deref().unwrap_or_default()
                )),
                "powersave" => s.warn(format!(
                    "powersave keeps the lowest clock: every benchmark runs slow (available: \
                     {choices})"
                )),
                "userspace" => {
                    s.because("userspace: the clock is what a program set; benchmarks depend on it")
                }
                _ => s.because(format!(
                    "{g} raises the clock with CPU load; short or I/O-bound work may run below \
                     the top clock (available: {choices})"
                )),
            });
            if g == "ondemand" {
                ondemand(host, dir, &subject, out);
            }
        } else if let Err(e) = host.read(&gov_file) {
            // Said, not skipped: a governor that could not be read is not one that is fine.
            out.push(
                Setting::new("cpufreq", &subject, "governor", "unknown")
                    .from(&gov_file)
                    .because(format!("could not be read: {e}")),
            );
        }
        if let (Some(max), Some(smax)) = (c.max_mhz, c.scaling_max_mhz) {
            let s = Setting::new(
                "cpufreq",
                &subject,
                "scaling_max_freq",
                format!("{smax} MHz"),
            )
            .from(format!("{dir}/scaling_max_freq"));
            // Where the OPP rule found this cap, its warning says which OPPs it holds down
            // and who lowered it: one warning, not two for the same file.
            let judged = c
                .opp_limits
                .iter()
                .any(|l| matches!(l.limit, crate::opp::Limit::ScalingMax { .. }));
            out.push(if smax >= max {
                s.ok()
            } else if judged {
                s.because(format!(
                    "capped below the hardware's {max} MHz (cpuinfo_max_freq); the OPP limit \
                     below names the OPPs it holds down and who lowered it"
                ))
            } else {
                s.warn(format!(
                    "capped below the hardware's {max} MHz (cpuinfo_max_freq): a limit set by \
                     software or a thermal/power daemon"
                ))
            });
        }
        if let (Some(min), Some(smin)) = (c.min_mhz, c.scaling_min_mhz) {
            if smin > min {
                out.push(
                    Setting::new(
                        "cpufreq",
                        &subject,
                        "scaling_min_freq",
                        format!("{smin} MHz"),
                    )
                    .from(format!("{dir}/scaling_min_freq"))
                    .because(format!(
                        "raised above the hardware's {min} MHz: idle power is higher"
                    )),
                );
            }
        }
        let pstate_driver = c
            .driver
            .as_deref()
            .is_some_and(|d| d == "intel_pstate" || d.starts_with("amd-pstate"));
        if !c.time_in_state && pstate_driver {
            out.push(
                Setting::new("cpufreq", &subject, "stats/time_in_state", "not provided")
                    .from(format!("{dir}/stats/time_in_state"))
                    .because(
                        "this driver keeps no cpufreq statistics; throttling is judged from the \
                         measured clock instead",
                    ),
            );
        } else if !c.time_in_state {
            out.push(
                Setting::new("cpufreq", &subject, "stats/time_in_state", "missing")
                    .from(format!("{dir}/stats/time_in_state"))
                    .warn(
                        "no cpufreq statistics (CONFIG_CPU_FREQ_STAT): throttling shorter than \
                         a monitoring sample cannot be seen",
                    ),
            );
        }
    }
    let boost = format!("{CPUFREQ}/boost");
    if let Some(b) = host.read_trimmed(&boost) {
        let s = Setting::new("cpufreq", "all CPUs", "boost", &b).from(&boost);
        out.push(if b == "1" {
            s.ok()
        } else {
            s.warn("boost (turbo) clocks are disabled: the top OPPs are never used")
        });
    }
}

/// ondemand's tunables, per policy or global (`cpufreq/ondemand/`).
fn ondemand(host: &Host, dir: &str, subject: &str, out: &mut Vec<Setting>) {
    let base = [format!("{dir}/ondemand"), format!("{CPUFREQ}/ondemand")]
        .into_iter()
        .find(|d| host.is_dir(d));
    let Some(base) = base else { return };
    if let Some(v) = host.read_trimmed(format!("{base}/io_is_busy")) {
        let s = Setting::new("cpufreq", subject, "ondemand io_is_busy", &v)
            .from(format!("{base}/io_is_busy"));
        out.push(if v == "1" {
            s.ok()
        } else {
            s.warn(
                "ondemand does not count waiting for I/O as load, so storage and network \
                 transfers run at a low clock; set io_is_busy to 1 (sbc-bench's advice; the \
                 Arndale measurements: eMMC reads 29 → 44 MB/s at the top clock)",
            )
        });
    }
    if let Some(v) = host.read_trimmed(format!("{base}/up_threshold")) {
        let s = Setting::new(
            "cpufreq",
            subject,
            "ondemand up_threshold",
            format!("{v} %"),
        )
        .from(format!("{base}/up_threshold"));
        out.push(match v.parse::<u32>() {
            Ok(t) if t > 50 => s.because(format!(
                "the clock goes up only above {t} % load (Armbian and sbc-bench use 25)"
            )),
            _ => s.ok(),
        });
    }
    if let Some(v) = host.read_trimmed(format!("{base}/sampling_rate")) {
        let factor = host
            .read_trimmed(format!("{base}/sampling_down_factor"))
            .unwrap_or_else(|| "1".into());
        out.push(
            Setting::new(
                "cpufreq",
                subject,
                "ondemand sampling",
                format!("{v} µs, down factor {factor}"),
            )
            .from(format!("{base}/sampling_rate"))
            .because("how often load is sampled, and how many samples the clock stays up"),
        );
    }
}

pub fn devfreq(host: &Host, out: &mut Vec<Setting>) {
    for d in host.devfreq() {
        let Some(g) = &d.governor else { continue };
        let freq = |hz: Option<u64>| hz.map(|h| mhz(h / 1000)).unwrap_or_else(|| "?".into());
        let value = format!("{g} / {} (max {})", freq(d.cur_hz), freq(d.max_hz));
        let s = Setting::new("devfreq", &d.name, "governor", value)
            .from(format!("{}/governor", d.path));
        out.push(if g == "performance" {
            s.ok()
        } else if d.available_governors.iter().any(|a| a == "performance") {
            s.because(format!(
                "{g}: the {} clock follows load; memory bandwidth and latency benchmarks may \
                 run below its top clock (sbc-bench sets performance)",
                kind_of(&d.name)
            ))
        } else {
            s.because(format!("{g}, and no performance governor offered"))
        });
    }
}

fn kind_of(name: &str) -> &'static str {
    let n = name.to_ascii_lowercase();
    if n.contains("dmc") || n.contains("ddr") || n.contains("memory") || n.contains("bus") {
        "memory"
    } else if n.contains("gpu") || n.contains("mali") {
        "GPU"
    } else if n.contains("npu") {
        "NPU"
    } else {
        "device"
    }
}

/// Mali's `power_policy` (`[coarse_demand] always_on`), as sbc-bench lists it.
pub fn gpu(host: &Host, out: &mut Vec<Setting>) {
    for dev in host.list("sys/devices/platform") {
        let f = format!("sys/devices/platform/{dev}/power_policy");
        if let Some(text) = host.read_trimmed(&f) {
            let active = bracketed_choice(&text).unwrap_or(&text).to_string();
            out.push(
                Setting::new("gpu", &dev, "power_policy", active)
                    .from(&f)
                    .because(format!("choices: {text}")),
            );
        }
    }
}
