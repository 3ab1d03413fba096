//! "Who are you": a client asks a server where it runs before the tests, so that a server on
//! the client's own machine can be counted as part of the measurement rather than as another
//! process's load.
//!
//! The question is a stream header with the direction code [`HELLO`] and no data after it;
//! the server answers with one line and closes:
//! `TBNET1 peer pid=PID start=TICKS boot=BOOT_ID comm=NAME\n` (fields it does not know left
//! out; `comm` last, as a name may hold spaces). A server older than the question closes the
//! connection without a word, as for any unknown header: the client then knows nothing about
//! it and judges as before. An older client never asks.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use super::{HEADER, MAGIC};

/// The direction code of the question (the transfers use 0–2).
pub(super) const HELLO: u8 = 3;
/// The answer's first word.
const ANSWER: &str = "TBNET1 peer";
/// An answer is a short line: anything longer is not one.
const MAX_ANSWER: usize = 512;

/// Where a server process runs, as far as it knows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    /// Its pid, in its own pid namespace.
    pub pid: u32,
    /// `starttime` of its `/proc/PID/stat` (ticks after boot): tells it from a reused pid, or
    /// from another pid namespace's process of the same number.
    pub start: Option<u64>,
    /// `/proc/sys/kernel/random/boot_id`: the same machine, booted once.
    pub boot_id: Option<String>,
    /// Its process name (`comm`).
    pub comm: Option<String>,
}

impl Identity {
    /// This process's pid alone; the caller adds what it reads of it through its `Host`.
    pub fn this_process() -> Identity {
        Identity {
            pid: std::process::id(),
            ..Default::default()
        }
    }

    fn line(&self) -> String {
        let mut s = format!("{ANSWER} pid={}", self.pid);
        if let Some(t) = self.start {
            s.push_str(&format!(" start={t}"));
        }
        // A value with a space or a line break would end its field early: left out.
        if let Some(b) = self
            .boot_id
            .as_deref()
            .filter(|b| !b.contains(char::is_whitespace))
        {
            s.push_str(&format!(" boot={b}"));
        }
        if let Some(c) = self.comm.as_deref().filter(|c| !c.contains('\n')) {
            s.push_str(&format!(" comm={c}"));
        }
        s.push('\n');
        s
    }

    /// The answer line (without its line break), or None when it is not one.
    fn parse(line: &str) -> Option<Identity> {
        let rest = line.strip_prefix(ANSWER)?.strip_prefix(' ')?;
        let (fields, comm) = match rest.split_once(" comm=") {
            Some((f, c)) => (f, Some(c.to_string())),
            None => (rest, None),
        };
        let mut id = Identity {
            comm,
            ..Default::default()
        };
        let mut pid = None;
        for f in fields.split(' ') {
            match f.split_once('=') {
                Some(("pid", v)) => pid = v.parse().ok(),
                Some(("start", v)) => id.start = v.parse().ok(),
                Some(("boot", v)) => id.boot_id = Some(v.to_string()),
                // A later server may say more.
                _ => {}
            }
        }
        id.pid = pid?;
        Some(id)
    }
}

/// Answer a client's question on `c` (its header already read).
pub(super) fn answer(mut c: TcpStream, me: &Identity) -> std::io::Result<()> {
    c.write_all(me.line().as_bytes())
}

/// Ask the server at `addr` who it is; None when it cannot be reached in `timeout`, does not
/// answer (an older truebench server), or answers something else.
pub fn ask(addr: SocketAddr, timeout: Duration) -> Option<Identity> {
    let mut c = TcpStream::connect_timeout(&addr, timeout).ok()?;
    let mut h = [0u8; HEADER];
    h[..6].copy_from_slice(MAGIC);
    h[6] = HELLO;
    c.write_all(&h).ok()?;
    let end = Instant::now() + timeout;
    let mut got = Vec::new();
    let mut buf = [0u8; 128];
    while !got.contains(&b'\n') && got.len() < MAX_ANSWER {
        let left = end.checked_duration_since(Instant::now())?;
        c.set_read_timeout(Some(left.max(Duration::from_millis(1))))
            .ok()?;
        match c.read(&mut buf) {
            Ok(0) => return None,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    let text = std::str::from_utf8(&got).ok()?;
    Identity::parse(text.split('\n').next()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_reads_back_and_strangers_are_not_answers() {
        let id = Identity {
            pid: 4242,
            start: Some(987_654),
            boot_id: Some("0b1c5e2a-8f00-4c1e-9a51-3f6f3c2b7d10".into()),
            comm: Some("true bench".into()),
        };
        let line = id.line();
        assert_eq!(Identity::parse(line.trim_end()), Some(id));
        // Only the pid known; a field a later server adds is passed over.
        let bare = Identity::parse("TBNET1 peer pid=7 mood=good").unwrap();
        assert_eq!((bare.pid, bare.start, bare.comm), (7, None, None));
        for bad in [
            "",
            "TBNET1 peer",
            "TBNET1 peer start=5",
            "HTTP/1.0 400",
            "TBNET1 peerpid=1",
        ] {
            assert_eq!(Identity::parse(bad), None, "{bad}");
        }
        // A boot id that would break the line is left out, not sent.
        let odd = Identity {
            pid: 1,
            boot_id: Some("a b".into()),
            ..Default::default()
        };
        assert_eq!(
            Identity::parse(odd.line().trim_end()).unwrap().boot_id,
            None
        );
    }

    #[test]
    fn a_server_says_who_it_is_and_an_older_one_nothing() {
        let me = Identity {
            pid: 99,
            start: Some(5),
            boot_id: Some("b00t".into()),
            comm: Some("truebench".into()),
        };
        let server = super::super::Server::start_as("127.0.0.1:0", me.clone()).unwrap();
        let wait = Duration::from_secs(20);
        assert_eq!(ask(server.addr, wait), Some(me));
        // Asked, it still serves transfers.
        let moved = super::super::run(
            server.addr,
            &super::super::NetOptions {
                streams: 1,
                duration: Duration::from_millis(200),
                direction: super::super::Direction::Upload,
                zerocopy: false,
            },
            &std::sync::atomic::AtomicBool::new(false),
        )
        .unwrap();
        assert!(moved.sent_bytes > 0, "{moved:?}");
        // A server from before the question reads the header, finds no direction it knows
        // and closes.
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let old = std::thread::spawn(move || {
            let (mut c, _) = l.accept().unwrap();
            let mut h = [0u8; HEADER];
            c.read_exact(&mut h).unwrap();
            h
        });
        assert_eq!(ask(addr, wait), None);
        assert_eq!(&old.join().unwrap()[..7], b"TBNET1\x03");
        // Nobody there.
        assert_eq!(ask(addr, wait), None);
    }
}
