//! cpuidle: the driver and governor, every idle state of each group of CPUs (exit latency,
//! target residency, switches), and what the states say about the measurement: a deep state
//! disabled, CPUs offered no power-down state, a deep state never entered since boot.

use super::Setting;
use crate::cpuidle::{self, CpuIdle, IdleGroup, IdleState, CPUIDLE_DIR, DEEP_EXIT_US};
use crate::parse::cpulist;
use crate::{Host, Inventory};

const AREA: &str = "cpuidle";

/// Drivers that offer only shallow states by design: a guest's polling driver, and no driver.
fn shallow_by_design(driver: Option<&str>) -> bool {
    matches!(driver, Some("haltpoll" | "none") | None)
}

fn subject(g: &IdleGroup) -> String {
    format!("cpu{}", cpulist::format(&g.cpus))
}

fn us(v: Option<u64>) -> String {
    v.map_or_else(|| "?".into(), |v| format!("{v} µs"))
}

/// `exit 1300 µs, residency 6700 µs`.
fn figures(s: &IdleState) -> String {
    let mut v = format!("exit {}", us(s.exit_latency_us));
    if s.target_residency_us.is_some() {
        v.push_str(&format!(", residency {}", us(s.target_residency_us)));
    }
    if s.disabled == Some(true) {
        v.push_str(", disabled");
    }
    v
}

pub fn review(host: &Host, inv: &Inventory, out: &mut Vec<Setting>) {
    let Some(ci) = &inv.cpuidle else {
        if inv.online_cpus().next().is_some() {
            out.push(
                Setting::new(AREA, "all CPUs", "driver", "none")
                    .from(CPUIDLE_DIR)
                    .because(
                        "No cpuidle (CONFIG_CPU_IDLE off or no driver): idle CPUs run the \
                         architecture's default wait; which idle states were used cannot be \
                         recorded",
                    ),
            );
        }
        return;
    };
    let driver = ci.driver.as_deref();
    let set = Setting::new(AREA, "all CPUs", "driver", driver.unwrap_or("unknown"))
        .from(format!("{CPUIDLE_DIR}/current_driver"));
    out.push(if ci.groups.is_empty() {
        set.because(
            "cpuidle is built but no CPU has idle states: idle CPUs run the architecture's \
             default wait, and which states were used cannot be recorded",
        )
    } else {
        set
    });
    if let Some(g) = &ci.governor {
        out.push(
            Setting::new(AREA, "all CPUs", "governor", g)
                .from(format!("{CPUIDLE_DIR}/current_governor_ro")),
        );
    }
    for g in &ci.groups {
        states(host, ci, g, out);
    }
    if !ci.cpus_without.is_empty() && !ci.groups.is_empty() {
        out.push(
            Setting::new(
                AREA,
                format!("cpu{}", cpulist::format(&ci.cpus_without)),
                "states",
                "none",
            )
            .from(format!(
                "{}/cpu{}/cpuidle",
                cpuidle::CPU_DIR,
                ci.cpus_without[0]
            ))
            .warn(
                "these online CPUs offer no idle state while others do: they only wait in the \
                 architecture's default way",
            ),
        );
    }
}

fn states(host: &Host, ci: &CpuIdle, g: &IdleGroup, out: &mut Vec<Setting>) {
    let subj = subject(g);
    let first = g.cpus[0];
    for s in &g.states {
        let dir = cpuidle::state_dir(first, s.index as usize);
        let name = format!("state{} {}", s.index, s.name);
        let set = Setting::new(AREA, &subj, &name, figures(s));
        out.push(if s.disabled == Some(true) && s.is_deep() {
            if s.disabled_by_default == Some(true) {
                set.from(format!("{dir}/default_status")).because(format!(
                    "the driver disables {} by default: these CPUs never enter it",
                    s.name
                ))
            } else {
                set.from(format!("{dir}/disable")).warn(format!(
                    "{} is disabled (disable = 1): these CPUs never enter it, so idle power is \
                     higher and wake-ups faster than the driver intends; results are not \
                     comparable with a machine that uses it",
                    s.name
                ))
            }
        } else if s.is_deep() && s.disabled != Some(true) && never_entered(host, g, s) {
            let mut set = set.from(format!("{dir}/usage"));
            set.value.push_str(", usage 0 since boot");
            set.because(format!(
                "not entered since boot on any of these CPUs (usage 0): its power saving and \
                 its {} exit latency never applied",
                us(s.exit_latency_us)
            ))
        } else {
            set.from(dir)
        });
    }
    if g.states.iter().any(|s| s.is_deep()) {
        return;
    }
    // No power-down state offered: say what the other CPUs have, if any.
    let names: Vec<&str> = g.states.iter().map(|s| s.name.as_str()).collect();
    let deeper: Vec<String> = ci
        .groups
        .iter()
        .filter(|o| o.driver == g.driver)
        .filter_map(|o| {
            let d = o.states.iter().rev().find(|s| s.is_deep())?;
            Some(format!(
                "cpu{} {} {} ({})",
                cpulist::format(&o.cpus),
                if o.cpus.len() == 1 { "offers" } else { "offer" },
                d.name,
                us(d.exit_latency_us)
            ))
        })
        .collect();
    let driver = g.driver.as_deref().or(ci.driver.as_deref());
    let set = Setting::new(AREA, &subj, "deep idle state", "none")
        .from(format!("{}/cpu{first}/cpuidle", cpuidle::CPU_DIR));
    let what = format!(
        "only {} offered: no state with an exit latency of {DEEP_EXIT_US} µs or more, so idle \
         CPUs only stop their clock and idle power is higher",
        names.join(", ")
    );
    out.push(if !deeper.is_empty() {
        set.warn(format!("{what}, while {}", deeper.join("; ")))
    } else if shallow_by_design(driver) {
        set.because(format!(
            "{what} ({} offers no deeper state)",
            driver.unwrap_or("no driver")
        ))
    } else {
        set.warn(format!(
            "{what}; {} describes none deeper for these CPUs (device tree idle-states or the \
             firmware's tables)",
            driver.unwrap_or("the driver")
        ))
    });
}

/// `usage` of state `s` is 0 on every CPU of the group (unreadable counts as not known, so
/// not "never").
fn never_entered(host: &Host, g: &IdleGroup, s: &IdleState) -> bool {
    g.cpus.iter().all(|&c| {
        host.read_u64(format!("{}/usage", cpuidle::state_dir(c, s.index as usize))) == Some(0)
    })
}
