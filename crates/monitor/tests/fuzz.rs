//! `serve` answers whoever connects: request heads as real scrapers send them (Prometheus,
//! curl, a browser), broken and hostile, must give a response kind, never a panic — and the
//! whole connection handler, given them as bytes over a socket in any pieces, an HTTP
//! response or a closed connection, never a hang, and it goes on serving.

use proptest::prelude::*;
use truebench_fixtures::fuzz::{config, mutated};
use truebench_monitor::exporter::http::{parse_request, Request};

fn heads() -> Vec<Vec<u8>> {
    truebench_fixtures::fuzz::seeds_of(&[
        "GET /metrics HTTP/1.1\r\nHost: board1:9102\r\nUser-Agent: Prometheus/2.45.0\r\nAccept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\nAccept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n",
        "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9102\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n",
        "HEAD /metrics?x=1 HTTP/1.0\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: localhost\r\nAccept: text/html,application/xhtml+xml\r\nConnection: keep-alive\r\n\r\n",
        "POST /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\n",
    ])
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_request_of_any_shape(b in mutated(heads())) {
        let r = parse_request(&b);
        // Only a well-formed GET or HEAD of /metrics is served.
        if matches!(r, Request::Metrics { .. }) {
            let t = String::from_utf8_lossy(&b);
            prop_assert!(t.starts_with("GET /metrics") || t.starts_with("HEAD /metrics"), "{t:?}");
        }
    }
}

/// One server for every case: the whole connection handler (`serve`: the event loop, reading
/// in pieces, timeouts, the response) on the recorded ROCK 5B root, alive for the test binary.
fn server() -> u16 {
    use std::sync::OnceLock;
    static PORT: OnceLock<u16> = OnceLock::new();
    *PORT.get_or_init(|| {
        let root = truebench_fixtures::root("rk3588-rock5b");
        // The server's thread never ends, so its root is never dropped.
        truebench_fixtures::remove_at_exit(root.path());
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let host = truebench_host::Host::new(root.path());
            let inv = truebench_host::Inventory::probe(&host);
            let exporter = truebench_monitor::exporter::http::CachedExporter::new(
                truebench_monitor::exporter::Exporter::new(&host, &inv),
                std::time::Duration::from_millis(100),
            );
            let opts = truebench_monitor::exporter::http::ServeOptions {
                header_timeout: std::time::Duration::from_millis(500),
                ..Default::default()
            };
            let stop = std::sync::atomic::AtomicBool::new(false);
            truebench_monitor::exporter::http::serve(listener, &exporter, &opts, &stop).unwrap();
            drop(root);
        });
        port
    })
}

/// Send `bytes` in `pieces` writes, close the writing side, read the answer to its end.
fn exchange(port: u16, bytes: &[u8], pieces: usize) -> Vec<u8> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let step = bytes.len().div_ceil(pieces.max(1)).max(1);
    for chunk in bytes.chunks(step) {
        // The server may answer (and close) before the rest is sent: not an error.
        if s.write_all(chunk).is_err() {
            break;
        }
    }
    let _ = s.shutdown(std::net::Shutdown::Write);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    out
}

proptest! {
    #![proptest_config(config())]

    /// Any bytes, in any pieces: an HTTP/1.1 response with a status code or a closed
    /// connection — never a hang, and the server goes on answering.
    #[test]
    fn a_connection_of_any_bytes(b in mutated(heads()), pieces in 1usize..4) {
        let port = server();
        let out = exchange(port, &b, pieces);
        if !out.is_empty() {
            let head = String::from_utf8_lossy(&out[..out.len().min(12)]).into_owned();
            prop_assert!(
                head.starts_with("HTTP/1.1 ") && head[9..].chars().take(3).all(|c| c.is_ascii_digit()),
                "{head:?}"
            );
        }
        let ok = exchange(port, b"GET /metrics HTTP/1.1\r\n\r\n", 1);
        prop_assert!(ok.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&ok));
    }
}
