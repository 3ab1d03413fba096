//! Test helper for the end-to-end signal and crash tests (and a manual check on a real
//! board): begins a Tuning on `--root`, changes every cluster's governor and clock range
//! (and any `--write REL=VALUE`), prints `READY pid=N journal=PATH`, then sleeps until it is
//! signalled or killed.
//!
//! ```text
//! tuning-hold --root DIR [--governor G] [--min-khz K] [--max-khz K] [--write REL=VALUE]...
//! tuning-hold --root DIR --recover      restore a journal left by a killed run, print it
//! --graceful: stop by itself on the first signal; --graceful-stuck: ask for that, never stop
//! ```

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use truebench_host::{Host, Inventory};
use truebench_tuning::{graceful_interrupts, install_handlers, recover, Tuning};

struct Args {
    root: String,
    recover: bool,
    governor: Option<String>,
    min_khz: Option<u64>,
    max_khz: Option<u64>,
    writes: Vec<(String, String)>,
    /// 0: plain; 1: stop by itself on the first signal; 2: ask for that but never look.
    graceful: u8,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        root: String::new(),
        recover: false,
        governor: None,
        min_khz: None,
        max_khz: None,
        writes: Vec::new(),
        graceful: 0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        let khz = |v: String| v.parse::<u64>().map_err(|_| format!("{v}: not a number"));
        match flag.as_str() {
            "--root" => a.root = val()?,
            "--recover" => a.recover = true,
            "--graceful" => a.graceful = 1,
            "--graceful-stuck" => a.graceful = 2,
            "--governor" => a.governor = Some(val()?),
            "--min-khz" => a.min_khz = Some(khz(val()?)?),
            "--max-khz" => a.max_khz = Some(khz(val()?)?),
            "--write" => {
                let v = val()?;
                let (r, x) = v.split_once('=').ok_or("--write needs REL=VALUE")?;
                a.writes.push((r.into(), x.into()));
            }
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    if a.root.is_empty() {
        return Err("--root DIR is required".into());
    }
    Ok(a)
}

fn run(a: Args) -> Result<(), String> {
    let host = Host::new(&a.root);
    if a.recover {
        match recover(&host).map_err(|e| e.to_string())? {
            Some(r) => print!("RECOVERED {} from pid {:?}\n{r}", r.restored.len(), r.pid),
            None => println!("NOTHING"),
        }
        return Ok(());
    }
    install_handlers();
    let stop = (a.graceful > 0).then(graceful_interrupts);
    let mut t = Tuning::begin(&host).map_err(|e| e.to_string())?;
    let inv = Inventory::probe(&host);
    for c in inv.clusters.iter().filter(|c| !c.policies.is_empty()) {
        if let Some(g) = &a.governor {
            t.set_governor(c, g).map_err(|e| e.to_string())?;
        }
        if a.min_khz.is_some() || a.max_khz.is_some() {
            let lo = a.min_khz.or(c.opps_khz.first().copied()).unwrap_or(0);
            let hi = a.max_khz.or(c.opps_khz.last().copied()).unwrap_or(lo);
            t.set_range_khz(c, lo, hi).map_err(|e| e.to_string())?;
        }
    }
    for (rel, v) in &a.writes {
        t.write(rel, v).map_err(|e| e.to_string())?;
    }
    println!(
        "READY pid={} journal={}",
        std::process::id(),
        t.journal_path().display()
    );
    let _ = std::io::stdout().flush();
    loop {
        std::thread::sleep(std::time::Duration::from_millis(10));
        if a.graceful == 1 && stop.as_ref().is_some_and(|f| f.load(Ordering::SeqCst)) {
            let r = t.restore().map_err(|e| e.to_string())?;
            println!("STOPPED restored={}", r.restored.len());
            return Ok(());
        }
    }
}

fn main() -> ExitCode {
    match parse().and_then(run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tuning-hold: {e}");
            ExitCode::from(1)
        }
    }
}
