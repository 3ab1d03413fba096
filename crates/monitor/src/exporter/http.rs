//! The HTTP side of the exporter: a cached scrape body shared by connections, and a small
//! `poll(2)` server (see the module above for the design).

use super::Exporter;
use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::io::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The last body rendered: when, in which format (OpenMetrics or not), and the bytes.
type Cached = Option<(Instant, bool, Arc<Vec<u8>>)>;

/// An exporter shared by connections, re-reading the machine at most once per `max_age`.
pub struct CachedExporter {
    inner: Mutex<(Exporter, Cached)>,
    max_age: Duration,
}

impl CachedExporter {
    pub fn new(e: Exporter, max_age: Duration) -> Self {
        CachedExporter {
            inner: Mutex::new((e, None)),
            max_age,
        }
    }

    /// The current body in the asked format (cached per format for `max_age`).
    pub fn body(&self, om: bool) -> Arc<Vec<u8>> {
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((t, f, b)) = &g.1 {
            if *f == om && t.elapsed() < self.max_age {
                return Arc::clone(b);
            }
        }
        let b = Arc::new(g.0.scrape(om).into_bytes());
        g.1 = Some((Instant::now(), om, Arc::clone(&b)));
        b
    }
}

#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub max_conns: usize,
    pub max_request: usize,
    pub header_timeout: Duration,
    pub write_timeout: Duration,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            max_conns: 256,
            max_request: 8 * 1024,
            header_timeout: Duration::from_secs(5),
            write_timeout: Duration::from_secs(10),
        }
    }
}

enum State {
    Reading,
    Writing {
        head: Vec<u8>,
        body: Option<Arc<Vec<u8>>>,
        off: usize,
    },
}

struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    state: State,
    accepted: Instant,
    deadline: Instant,
}

/// What a request head asks for.
#[derive(Debug, PartialEq)]
pub enum Request {
    Metrics { openmetrics: bool, head_only: bool },
    NotFound,
    BadMethod,
    Bad,
}

/// Parse an HTTP/1.x request head (up to the blank line).
pub fn parse_request(head: &[u8]) -> Request {
    let text = String::from_utf8_lossy(head);
    let mut lines = text.split("\r\n");
    let Some(first) = lines.next() else {
        return Request::Bad;
    };
    let mut parts = first.split(' ');
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Request::Bad;
    };
    if !version.starts_with("HTTP/1.") {
        return Request::Bad;
    }
    let head_only = match method {
        "GET" => false,
        "HEAD" => true,
        _ => return Request::BadMethod,
    };
    let path = target.split('?').next().unwrap_or("");
    if path != "/metrics" {
        return Request::NotFound;
    }
    let openmetrics = lines.any(|l| {
        l.split_once(':').is_some_and(|(k, v)| {
            k.trim().eq_ignore_ascii_case("accept") && v.contains("application/openmetrics-text")
        })
    });
    Request::Metrics {
        openmetrics,
        head_only,
    }
}

fn response(code: &str, ctype: &str, len: usize) -> Vec<u8> {
    format!(
        "HTTP/1.1 {code}\r\nContent-Type: {ctype}\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n"
    )
    .into_bytes()
}

fn simple(code: &str, text: &str) -> State {
    let mut head = response(code, "text/plain; charset=utf-8", text.len());
    head.extend_from_slice(text.as_bytes());
    State::Writing {
        head,
        body: None,
        off: 0,
    }
}

/// Serve `/metrics` on `listener` until `stop` is set (checked at least every 250 ms).
pub fn serve(
    listener: TcpListener,
    exporter: &CachedExporter,
    opts: &ServeOptions,
    stop: &AtomicBool,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let mut conns: Vec<Conn> = Vec::new();
    let mut fds: Vec<libc::pollfd> = Vec::new();
    while !stop.load(Ordering::SeqCst) {
        fds.clear();
        fds.push(libc::pollfd {
            fd: listener.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        });
        for c in &conns {
            fds.push(libc::pollfd {
                fd: c.stream.as_raw_fd(),
                events: match c.state {
                    State::Reading => libc::POLLIN,
                    State::Writing { .. } => libc::POLLOUT,
                },
                revents: 0,
            });
        }
        let now = Instant::now();
        let wait = conns
            .iter()
            .map(|c| c.deadline.saturating_duration_since(now))
            .min()
            .unwrap_or(Duration::from_millis(250))
            .min(Duration::from_millis(250));
        // SAFETY: fds is a valid array of pollfd of the given length.
        let n = unsafe {
            libc::poll(
                fds.as_mut_ptr(),
                fds.len() as libc::nfds_t,
                wait.as_millis() as libc::c_int + 1,
            )
        };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        let now = Instant::now();
        let mut close = vec![false; conns.len()];
        for (i, c) in conns.iter_mut().enumerate() {
            let re = fds[i + 1].revents;
            if now >= c.deadline {
                close[i] = true;
                continue;
            }
            if re == 0 {
                continue;
            }
            if re & (libc::POLLERR | libc::POLLNVAL) != 0 {
                close[i] = true;
                continue;
            }
            close[i] = step(c, exporter, opts);
        }
        let mut i = 0;
        conns.retain(|_| {
            i += 1;
            !close[i - 1]
        });
        if fds[0].revents & libc::POLLIN != 0 {
            loop {
                match listener.accept() {
                    Ok((stream, _)) => {
                        if stream.set_nonblocking(true).is_err() {
                            continue;
                        }
                        if conns.len() >= opts.max_conns {
                            // Make room: drop the oldest connection still sending its request.
                            match conns
                                .iter()
                                .enumerate()
                                .filter(|(_, c)| matches!(c.state, State::Reading))
                                .min_by_key(|(_, c)| c.accepted)
                                .map(|(i, _)| i)
                            {
                                Some(i) => {
                                    conns.swap_remove(i);
                                }
                                None => continue,
                            }
                        }
                        let now = Instant::now();
                        conns.push(Conn {
                            stream,
                            buf: Vec::new(),
                            state: State::Reading,
                            accepted: now,
                            deadline: now + opts.header_timeout,
                        });
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    // EMFILE and friends: leave the rest in the backlog for the next round.
                    Err(_) => break,
                }
            }
        }
    }
    Ok(())
}

/// Advance one connection; true = close it.
fn step(c: &mut Conn, exporter: &CachedExporter, opts: &ServeOptions) -> bool {
    match &mut c.state {
        State::Reading => {
            let mut chunk = [0u8; 2048];
            loop {
                match c.stream.read(&mut chunk) {
                    Ok(0) => return true,
                    Ok(k) => {
                        c.buf.extend_from_slice(&chunk[..k]);
                        if let Some(end) = find_head_end(&c.buf) {
                            let req = parse_request(&c.buf[..end]);
                            c.buf = Vec::new();
                            c.state = match req {
                                Request::Metrics {
                                    openmetrics,
                                    head_only,
                                } => {
                                    let body = exporter.body(openmetrics);
                                    let ctype = if openmetrics {
                                        "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                    } else {
                                        "text/plain; version=0.0.4; charset=utf-8"
                                    };
                                    State::Writing {
                                        head: response("200 OK", ctype, body.len()),
                                        body: (!head_only).then_some(body),
                                        off: 0,
                                    }
                                }
                                Request::NotFound => {
                                    simple("404 Not Found", "Not found: try /metrics\n")
                                }
                                Request::BadMethod => {
                                    simple("405 Method Not Allowed", "GET or HEAD only\n")
                                }
                                Request::Bad => simple("400 Bad Request", "Bad request\n"),
                            };
                            c.deadline = Instant::now() + opts.write_timeout;
                            return step(c, exporter, opts);
                        }
                        if c.buf.len() > opts.max_request {
                            c.state = simple(
                                "431 Request Header Fields Too Large",
                                "Request too large\n",
                            );
                            c.deadline = Instant::now() + opts.write_timeout;
                            return step(c, exporter, opts);
                        }
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => return false,
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    Err(_) => return true,
                }
            }
        }
        State::Writing { head, body, off } => loop {
            let total = head.len() + body.as_ref().map_or(0, |b| b.len());
            if *off >= total {
                let _ = c.stream.shutdown(std::net::Shutdown::Write);
                return true;
            }
            let r = if *off < head.len() {
                c.stream.write(&head[*off..])
            } else {
                let b = body.as_ref().map_or(&[][..], |b| &b[..]);
                c.stream.write(&b[*off - head.len()..])
            };
            match r {
                Ok(0) => return true,
                Ok(k) => *off += k,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return false,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => return true,
            }
        },
    }
}

pub(super) fn find_head_end(b: &[u8]) -> Option<usize> {
    b.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}
