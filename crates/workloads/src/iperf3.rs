//! Driving `iperf3 -J` as the client of an existing iperf3 server, for boards that have only
//! iperf3 on the other side: the same [`NetResult`] as the built-in transfer.
//!
//! Directions map to iperf3's options: upload = default (client sends), download = `-R`,
//! duplex = `--bidir` (iperf3 ≥ 3.7). Figures from the JSON's `end` object: what the client
//! sent (`sum_sent`, upload), what it received (`sum_received` with `-R`, and
//! `sum_received_bidir_reverse` with `--bidir`).

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::net::{Direction, NetOptions, NetResult};
use crate::tool::{run_tool, RunSpec, ToolOutput};

#[derive(Debug, thiserror::Error)]
pub enum Iperf3Error {
    #[error(transparent)]
    Tool(#[from] crate::tool::ToolError),
    #[error("iperf3 to {server}: {message}")]
    Failed { server: String, message: String },
    #[error("iperf3 to {server}: its JSON output cannot be read: {message}")]
    Output { server: String, message: String },
}

/// The arguments of one client run.
pub fn args(host: &str, port: u16, opts: &NetOptions) -> Vec<String> {
    let secs = opts.duration.as_secs_f64().ceil().max(1.0) as u64;
    let mut a = vec![
        "-c".into(),
        host.into(),
        "-p".into(),
        port.to_string(),
        "-J".into(),
        "-t".into(),
        secs.to_string(),
        "-P".into(),
        opts.streams.max(1).to_string(),
    ];
    match opts.direction {
        Direction::Upload => {}
        Direction::Download => a.push("-R".into()),
        Direction::Duplex => a.push("--bidir".into()),
    }
    if opts.zerocopy {
        a.push("-Z".into());
    }
    a
}

/// Run the client; `Ok` with the figures, or why not (iperf3's own `error` text included).
pub fn run(
    program: &Path,
    host: &str,
    port: u16,
    opts: &NetOptions,
    stop: &AtomicBool,
) -> Result<(NetResult, ToolOutput), Iperf3Error> {
    let out = run_tool(
        program,
        &args(host, port, opts),
        RunSpec {
            timeout: Some(opts.duration + Duration::from_secs(30)),
            stop: Some(stop),
            ..Default::default()
        },
    )?;
    let server = format!("{host}:{port}");
    match parse(&out.stdout, opts.direction) {
        Ok(Ok(r)) => Ok((
            NetResult {
                zerocopy: opts.zerocopy,
                ..r
            },
            out,
        )),
        Ok(Err(message)) => Err(Iperf3Error::Failed { server, message }),
        Err(_) if out.stdout.trim().is_empty() => Err(Iperf3Error::Failed {
            server,
            message: format!(
                "no output (exit {:?}){}",
                out.exit_code,
                if out.stderr.trim().is_empty() {
                    String::new()
                } else {
                    format!("; stderr: {}", out.stderr.trim())
                }
            ),
        }),
        Err(message) => Err(Iperf3Error::Output { server, message }),
    }
}

/// Parse iperf3's JSON: `Err` when it is not iperf3 JSON; `Ok(Err)` with iperf3's `error`
/// text when the test failed.
pub fn parse(json: &str, direction: Direction) -> Result<Result<NetResult, String>, String> {
    let v: serde_json::Value = serde_json::from_str(json).map_err(|e| e.to_string())?;
    if let Some(e) = v.get("error").and_then(|e| e.as_str()) {
        return Ok(Err(e.to_string()));
    }
    let end = v.get("end").ok_or("no `end` object")?;
    let sum = |name: &str| -> Option<(f64, f64)> {
        let s = end.get(name)?;
        Some((
            s.get("bytes")?.as_f64()?,
            s.get("bits_per_second")?.as_f64()?,
        ))
    };
    let seconds = end
        .get("sum_sent")
        .and_then(|s| s.get("seconds"))
        .and_then(|s| s.as_f64())
        .ok_or("no `end.sum_sent.seconds`")?;
    let streams = v
        .get("start")
        .and_then(|s| s.get("test_start"))
        .and_then(|t| t.get("num_streams"))
        .and_then(|n| n.as_u64())
        .unwrap_or(1) as u32;
    let need = |name: &str| sum(name).ok_or_else(|| format!("no `end.{name}`"));
    let ((sent_bytes, sent_bps), (received_bytes, received_bps)) = match direction {
        Direction::Upload => (need("sum_sent")?, (0.0, 0.0)),
        // With -R the server sends: the client's received figure is the receiver side.
        Direction::Download => ((0.0, 0.0), need("sum_received")?),
        Direction::Duplex => (need("sum_sent")?, need("sum_received_bidir_reverse")?),
    };
    Ok(Ok(NetResult {
        direction,
        streams,
        seconds,
        sent_bytes: sent_bytes as u64,
        received_bytes: received_bytes as u64,
        sent_bps,
        received_bps,
        zerocopy: false,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIDIR: &str = r#"{"start":{"test_start":{"num_streams":2}},
        "end":{"sum_sent":{"seconds":3.0,"bytes":3000000000,"bits_per_second":8.0e9},
               "sum_received":{"seconds":3.0,"bytes":2990000000,"bits_per_second":7.97e9},
               "sum_sent_bidir_reverse":{"seconds":3.0,"bytes":1500000000,"bits_per_second":4.0e9},
               "sum_received_bidir_reverse":{"seconds":3.0,"bytes":1490000000,"bits_per_second":3.97e9}}}"#;

    #[test]
    fn directions_read_the_right_sums() {
        let d = parse(BIDIR, Direction::Duplex).unwrap().unwrap();
        assert_eq!((d.sent_bps, d.received_bps), (8.0e9, 3.97e9));
        assert_eq!((d.streams, d.seconds), (2, 3.0));
        let u = parse(BIDIR, Direction::Upload).unwrap().unwrap();
        assert_eq!((u.sent_bytes, u.received_bytes), (3_000_000_000, 0));
        let r = parse(BIDIR, Direction::Download).unwrap().unwrap();
        assert_eq!((r.sent_bps, r.received_bps), (0.0, 7.97e9));
    }

    #[test]
    fn failures_say_what_iperf3_said() {
        let e = parse(
            r#"{"start":{},"end":{},"error":"unable to connect to server: Connection refused"}"#,
            Direction::Upload,
        )
        .unwrap()
        .unwrap_err();
        assert!(e.contains("Connection refused"), "{e}");
        assert!(parse("not json", Direction::Upload).is_err());
        let e = parse(r#"{"end":{}}"#, Direction::Upload).unwrap_err();
        assert!(e.contains("sum_sent"), "{e}");
    }

    #[test]
    fn arguments_follow_the_direction() {
        let o = |direction| NetOptions {
            streams: 4,
            duration: Duration::from_millis(2500),
            direction,
            zerocopy: false,
        };
        let a = args("10.0.0.2", 5201, &o(Direction::Duplex)).join(" ");
        assert_eq!(a, "-c 10.0.0.2 -p 5201 -J -t 3 -P 4 --bidir");
        assert!(args("h", 1, &o(Direction::Download)).contains(&"-R".to_string()));
        assert!(!args("h", 1, &o(Direction::Upload)).contains(&"-R".to_string()));
        let z = NetOptions {
            zerocopy: true,
            ..o(Direction::Upload)
        };
        assert!(args("h", 1, &z).contains(&"-Z".to_string()));
    }
}
