//! `serve` answers whoever connects: request heads as real scrapers send them (Prometheus,
//! curl, a browser), broken and hostile, must give a response kind, never a panic.

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
