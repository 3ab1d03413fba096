//! TCP throughput between two truebench processes: one way in either direction or full
//! duplex (both at once, the case the Arndale measurements found CPU-bound), with parallel
//! streams. The kernel of `truebench net`, compared with iperf3 in `bench/`.
//!
//! Protocol: each stream is one TCP connection; the client sends a 16-byte header (magic,
//! direction, duration) and then data flows for the duration. Bytes are counted where they
//! are known for sure without a trailer: what the client wrote (upload, as iperf3's sender
//! figure; the difference to the receiver is at most the socket buffers, a fraction of a per
//! cent over seconds at these rates) and what the client read (download, receiver-side).
//! Before the tests a client may ask the server where it runs ([`hello`]).

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

pub mod hello;
pub use hello::Identity;

const MAGIC: &[u8; 6] = b"TBNET1";
const HEADER: usize = 16;
/// Bytes per write or read call (iperf3's TCP default is 128 KiB).
pub const BUFFER: usize = 128 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error("{addr}: cannot resolve or parse the address: {source}")]
    Address {
        addr: String,
        source: std::io::Error,
    },
    #[error("{addr}: cannot connect: {source}")]
    Connect {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("{addr}: cannot listen: {source}")]
    Listen {
        addr: String,
        source: std::io::Error,
    },
    #[error("{addr}: the transfer failed: {source}")]
    Transfer {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

/// Which way data flows, seen from the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Client → server.
    Upload,
    /// Server → client.
    Download,
    /// Both at once on every stream.
    Duplex,
}

impl Direction {
    fn code(self) -> u8 {
        match self {
            Direction::Upload => 0,
            Direction::Download => 1,
            Direction::Duplex => 2,
        }
    }
    fn from_code(c: u8) -> Option<Direction> {
        match c {
            0 => Some(Direction::Upload),
            1 => Some(Direction::Download),
            2 => Some(Direction::Duplex),
            _ => None,
        }
    }
    fn client_sends(self) -> bool {
        self != Direction::Download
    }
    fn server_sends(self) -> bool {
        self != Direction::Upload
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct NetOptions {
    pub streams: u32,
    pub duration: Duration,
    pub direction: Direction,
    /// Send with sendfile(2) from a memory file instead of write(2) from a buffer: the data is
    /// not copied from user space (iperf3 `-Z`). The receiving side still copies.
    pub zerocopy: bool,
}

/// What one client run moved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NetResult {
    pub direction: Direction,
    pub streams: u32,
    /// Seconds the data flowed.
    pub seconds: f64,
    pub sent_bytes: u64,
    pub received_bytes: u64,
    /// Bits per second (10^6 bits = 1 Mbit/s, as iperf3).
    pub sent_bps: f64,
    pub received_bps: f64,
    /// Every stream sent with sendfile(2) (asked with `zerocopy`, and the kernel allowed it).
    #[serde(default)]
    pub zerocopy: bool,
}

/// Resolve `addr` (`host:port`, `[v6]:port`).
pub fn resolve(addr: &str) -> Result<SocketAddr, NetError> {
    addr.to_socket_addrs()
        .and_then(|mut a| {
            a.next()
                .ok_or_else(|| std::io::Error::new(ErrorKind::NotFound, "no address"))
        })
        .map_err(|source| NetError::Address {
            addr: addr.into(),
            source,
        })
}

/// A listening server; stops (and joins its threads) when dropped.
pub struct Server {
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl Server {
    /// Listen on `addr` (port 0: any free port; see [`Server::addr`]); a client that asks
    /// is told this process's pid only.
    pub fn start(addr: &str) -> Result<Server, NetError> {
        Server::start_as(addr, Identity::this_process())
    }

    /// [`Server::start`], telling a client that asks who this process is (`me`).
    pub fn start_as(addr: &str, me: Identity) -> Result<Server, NetError> {
        let l = TcpListener::bind(addr).map_err(|source| NetError::Listen {
            addr: addr.into(),
            source,
        })?;
        let local = l.local_addr().map_err(|source| NetError::Listen {
            addr: addr.into(),
            source,
        })?;
        // Non-blocking accept polled with the stop flag: no thread stays blocked in accept.
        l.set_nonblocking(true).map_err(|source| NetError::Listen {
            addr: addr.into(),
            source,
        })?;
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let accept = std::thread::Builder::new()
            .name("tb-net-accept".into())
            .spawn(move || accept_loop(&l, &s, &Arc::new(me)))
            .ok();
        Ok(Server {
            addr: local,
            stop,
            accept,
        })
    }

    /// Serve until `stop` is raised.
    pub fn wait(mut self, stop: &AtomicBool) {
        while !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(100));
        }
        self.halt();
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.accept.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.halt();
    }
}

fn accept_loop(l: &TcpListener, stop: &Arc<AtomicBool>, me: &Arc<Identity>) {
    let mut conns: Vec<JoinHandle<()>> = Vec::new();
    while !stop.load(Ordering::SeqCst) {
        match l.accept() {
            Ok((c, _)) => {
                let (s, me) = (stop.clone(), me.clone());
                if let Ok(t) = std::thread::Builder::new()
                    .name("tb-net-conn".into())
                    .spawn(move || {
                        let _ = serve_one(c, &s, &me);
                    })
                {
                    conns.push(t);
                }
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
        conns.retain(|t| !t.is_finished());
    }
    for t in conns {
        let _ = t.join();
    }
}

/// One stream on the server: read the header, then sink and/or source data (or say who
/// this server is).
fn serve_one(mut c: TcpStream, stop: &Arc<AtomicBool>, me: &Identity) -> std::io::Result<()> {
    c.set_nonblocking(false)?;

    c.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut h = [0u8; HEADER];
    c.read_exact(&mut h)?;
    if &h[..6] == MAGIC && h[6] == hello::HELLO {
        return hello::answer(c, me);
    }
    // Anything else (a port scanner, another protocol) is closed at once.
    let (Some(dir), true) = (Direction::from_code(h[6]), &h[..6] == MAGIC) else {
        return Ok(());
    };
    let ms = u32::from_le_bytes([h[7], h[8], h[9], h[10]]) as u64;
    let dur = Duration::from_millis(ms);
    let zerocopy = h[11] & 1 == 1;
    c.set_read_timeout(Some(Duration::from_millis(200)))?;
    if dir == Direction::Duplex {
        // Both ways on this thread, as the client does: no second thread per connection.
        let sent = pump_both(
            &mut c,
            dur,
            dur + Duration::from_secs(10),
            stop,
            None,
            None,
            zerocopy,
        );
        return sent.map(|_| ());
    }
    let writer = dir.server_sends().then(|| {
        let mut w = c.try_clone();
        let s = stop.clone();
        std::thread::spawn(move || {
            if let Ok(w) = w.as_mut() {
                let _ = pump_out(w, dur, &s, None, zerocopy);
                let _ = w.shutdown(Shutdown::Write);
            }
        })
    });
    if dir.client_sends() {
        // Until the client closes its side (plus a margin for a peer that vanished).
        let _ = pump_in(&mut c, dur + Duration::from_secs(10), stop, None);
    }
    if let Some(w) = writer {
        let _ = w.join();
    }
    Ok(())
}

/// One transfer buffer starting on a page boundary, as iperf3's (an mmap of a temporary
/// file): the kernel then copies whole pages to and from the socket's page fragments. A heap
/// buffer of this size is an mmap of its own that starts 16 bytes into its first page.
struct PageBuf {
    bytes: Vec<u8>,
    start: usize,
}

impl PageBuf {
    const PAGE: usize = 4096;

    fn new(fill: u8) -> PageBuf {
        let bytes = vec![fill; BUFFER + Self::PAGE];
        let start = bytes.as_ptr().align_offset(Self::PAGE).min(Self::PAGE);
        PageBuf { bytes, start }
    }

    fn get(&mut self) -> &mut [u8] {
        &mut self.bytes[self.start..self.start + BUFFER]
    }
}

/// The payload for sendfile(2): one buffer's worth in a memory file (no disk behind it).
fn payload_file() -> std::io::Result<std::fs::File> {
    let fd = rustix::fs::memfd_create("truebench-net", rustix::fs::MemfdFlags::CLOEXEC)?;
    let mut f = std::fs::File::from(fd);
    f.write_all(&vec![0x5au8; BUFFER])?;
    Ok(f)
}

/// Write for `dur` (or until `stop`), counting into `count`; with `zerocopy`, by sendfile(2)
/// from a memory file where the kernel allows it, on a nonblocking socket waiting in poll(2)
/// while it is full, as iperf3 -Z does: between two namespaces over veth a blocking sendfile
/// moved 2 % less (BENCHMARKS.md). Returns whether sendfile carried it all.
fn pump_out(
    w: &mut TcpStream,
    dur: Duration,
    stop: &AtomicBool,
    count: Option<&AtomicU64>,
    zerocopy: bool,
) -> std::io::Result<bool> {
    let mut page = PageBuf::new(0x5a);
    let buf = page.get();
    let mut file = if zerocopy { payload_file().ok() } else { None };
    // O_NONBLOCK belongs to the socket, which clones share: only for this loop, and only
    // while no other thread reads it (duplex has its own loop).
    let nonblocking = file.is_some();
    if nonblocking {
        w.set_nonblocking(true)?;
    }
    let end = Instant::now() + dur;
    let mut result = Ok(());
    while Instant::now() < end && !stop.load(Ordering::Relaxed) {
        match send_once(w, &mut file, buf) {
            Ok(n) => {
                if let Some(c) = count {
                    c.fetch_add(n as u64, Ordering::Relaxed);
                }
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                if let Err(e) = poll_socket(w, libc::POLLOUT) {
                    result = Err(e);
                    break;
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    if nonblocking {
        w.set_nonblocking(false)?;
    }
    result.map(|()| file.is_some())
}

/// One poll(2) on `c` for `events`, waiting at most 200 ms (the callers then check their clock
/// and stop flag): the events that came; none on a timeout or an interrupted call.
fn poll_socket(c: &TcpStream, events: libc::c_short) -> std::io::Result<libc::c_short> {
    use std::os::fd::AsRawFd;
    let mut pfd = libc::pollfd {
        fd: c.as_raw_fd(),
        events,
        revents: 0,
    };
    // SAFETY: one valid pollfd for the duration of the call.
    if unsafe { libc::poll(&mut pfd, 1, 200) } < 0 {
        let e = std::io::Error::last_os_error();
        return if e.kind() == ErrorKind::Interrupted {
            Ok(0)
        } else {
            Err(e)
        };
    }
    Ok(pfd.revents)
}

/// Let the kernel wake the reader of `s` only once a whole buffer has arrived (or the stream
/// ended, or the window is about to close: Linux checks both), not for every segment that
/// comes (SO_RCVLOWAT). On a fast path the sending side is the bottleneck and pays for each
/// wake-up of the receiving thread on the other CPU, a cross-CPU interrupt — a VM's most
/// expensive kind; iperf3's receiver is woken per arrival. Linux raises the socket's receive
/// buffer to hold twice this and clamps the advertised window to it until autotuning grows the
/// buffer (the first round trips of a long path may carry less). A failure is harmless: reads
/// then wake per arrival.
fn wake_per_buffer(s: &TcpStream) {
    use std::os::fd::AsRawFd;
    let v = BUFFER as libc::c_int;
    // SAFETY: setsockopt on an open socket, with a c_int value and its size.
    unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVLOWAT,
            (&v as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        );
    }
}

/// One send on `w`: by sendfile(2) from the memory file while there is one, else a write of
/// `buf`. A socket or file the kernel cannot sendfile drops the file: plain writes from then.
fn send_once(
    w: &TcpStream,
    file: &mut Option<std::fs::File>,
    buf: &[u8],
) -> std::io::Result<usize> {
    if let Some(f) = file.as_ref() {
        let mut off = 0u64;
        match rustix::fs::sendfile(w, f, Some(&mut off), BUFFER) {
            Ok(n) => return Ok(n),
            Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {
                *file = None;
            }
            Err(e) => return Err(e.into()),
        }
    }
    (&*w).write(buf)
}

/// Read until EOF, `limit` or `stop`, counting into `count`.
fn pump_in(
    r: &mut TcpStream,
    limit: Duration,
    stop: &AtomicBool,
    count: Option<&AtomicU64>,
) -> std::io::Result<()> {
    let mut page = PageBuf::new(0);
    let buf = page.get();
    wake_per_buffer(r);
    let end = Instant::now() + limit;
    while Instant::now() < end && !stop.load(Ordering::Relaxed) {
        match r.read(buf) {
            Ok(0) => return Ok(()),
            Ok(n) => {
                if let Some(c) = count {
                    c.fetch_add(n as u64, Ordering::Relaxed);
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Wait for every transfer thread; their errors (a panic counts as one), in start order.
fn join_transfers(
    handles: Vec<std::thread::ScopedJoinHandle<'_, std::io::Result<()>>>,
) -> Vec<std::io::Error> {
    handles
        .into_iter()
        .filter_map(|h| match h.join() {
            Ok(r) => r.err(),
            Err(_) => Some(std::io::Error::other("a transfer thread panicked")),
        })
        .collect()
}

/// Run a client against `addr`: `opts.streams` connections started together.
pub fn run(addr: SocketAddr, opts: &NetOptions, stop: &AtomicBool) -> Result<NetResult, NetError> {
    let n = opts.streams.max(1) as usize;
    let mut conns = Vec::with_capacity(n);
    for _ in 0..n {
        let c = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
            .map_err(|source| NetError::Connect { addr, source })?;
        // No TCP_NODELAY: bulk data, as iperf3 by default.
        conns.push(c);
    }
    let ms = opts.duration.as_millis().min(u32::MAX as u128) as u32;
    let mut h = [0u8; HEADER];
    h[..6].copy_from_slice(MAGIC);
    h[6] = opts.direction.code();
    h[7..11].copy_from_slice(&ms.to_le_bytes());
    h[11] = u8::from(opts.zerocopy);
    let transfer = |source| NetError::Transfer { addr, source };
    for c in &mut conns {
        c.write_all(&h).map_err(transfer)?;
        c.set_read_timeout(Some(Duration::from_millis(200)))
            .map_err(transfer)?;
    }
    let (sent, received) = (AtomicU64::new(0), AtomicU64::new(0));
    let copied = AtomicBool::new(false);
    let dir = opts.direction;
    let dur = opts.duration;
    if dir == Direction::Duplex {
        return duplex(addr, conns, opts, stop);
    }
    // One sending or one receiving thread per stream, all started together.
    let mut writers = Vec::new();
    if dir.client_sends() {
        for c in &conns {
            writers.push(c.try_clone().map_err(transfer)?);
        }
    }
    let parties = writers.len() + if dir.server_sends() { conns.len() } else { 0 };
    let barrier = Barrier::new(parties);
    let t0 = Instant::now();
    let errors: Vec<std::io::Error> = std::thread::scope(|s| {
        let mut handles = Vec::new();
        for w in &mut writers {
            let (sent, barrier, copied) = (&sent, &barrier, &copied);
            handles.push(s.spawn(move || -> std::io::Result<()> {
                barrier.wait();
                if !pump_out(w, dur, stop, Some(sent), opts.zerocopy)? {
                    copied.store(true, Ordering::Relaxed);
                }
                w.shutdown(Shutdown::Write)
            }));
        }
        if dir.server_sends() {
            for c in &mut conns {
                let (received, barrier) = (&received, &barrier);
                handles.push(s.spawn(move || -> std::io::Result<()> {
                    barrier.wait();
                    pump_in(c, dur + Duration::from_secs(10), stop, Some(received))
                }));
            }
        }
        join_transfers(handles)
    });
    if let Some(e) = errors.into_iter().next() {
        return Err(transfer(e));
    }
    let zerocopy = opts.zerocopy && dir.client_sends() && !copied.load(Ordering::Relaxed);
    Ok(NetResult::new(
        dir,
        n,
        opts.duration,
        t0,
        sent,
        received,
        zerocopy,
    ))
}

impl NetResult {
    /// What `streams` streams moved since `t0` for at most `duration`, as rates.
    fn new(
        direction: Direction,
        streams: usize,
        duration: Duration,
        t0: Instant,
        sent: AtomicU64,
        received: AtomicU64,
        zerocopy: bool,
    ) -> NetResult {
        let seconds = duration
            .as_secs_f64()
            .min(t0.elapsed().as_secs_f64())
            .max(1e-9);
        let (sent, received) = (sent.into_inner(), received.into_inner());
        NetResult {
            direction,
            streams: streams as u32,
            seconds,
            sent_bytes: sent,
            received_bytes: received,
            sent_bps: sent as f64 * 8.0 / seconds,
            received_bps: received as f64 * 8.0 / seconds,
            zerocopy,
        }
    }
}

/// Full duplex: one thread per stream sends and receives on its connection, waiting for
/// either with poll(2) — as iperf3 `--bidir` does in one thread per side. Two threads per
/// stream (a sender and a receiver on each end) meant four busy threads per stream where a
/// small machine has two CPUs, and the switches between them cost throughput.
fn duplex(
    addr: SocketAddr,
    mut conns: Vec<TcpStream>,
    opts: &NetOptions,
    stop: &AtomicBool,
) -> Result<NetResult, NetError> {
    let transfer = |source| NetError::Transfer { addr, source };
    let (sent, received) = (AtomicU64::new(0), AtomicU64::new(0));
    let copied = AtomicBool::new(false);
    let barrier = Barrier::new(conns.len());
    let dur = opts.duration;
    let t0 = Instant::now();
    let errors: Vec<std::io::Error> = std::thread::scope(|s| {
        let handles: Vec<_> = conns
            .iter_mut()
            .map(|c| {
                let (sent, received, barrier, copied) = (&sent, &received, &barrier, &copied);
                s.spawn(move || -> std::io::Result<()> {
                    barrier.wait();
                    let limit = dur + Duration::from_secs(10);
                    let zc = pump_both(
                        c,
                        dur,
                        limit,
                        stop,
                        Some(sent),
                        Some(received),
                        opts.zerocopy,
                    )?;
                    if !zc {
                        copied.store(true, Ordering::Relaxed);
                    }
                    Ok(())
                })
            })
            .collect();
        join_transfers(handles)
    });
    if let Some(e) = errors.into_iter().next() {
        return Err(transfer(e));
    }
    let zerocopy = opts.zerocopy && !copied.load(Ordering::Relaxed);
    let streams = conns.len();
    Ok(NetResult::new(
        Direction::Duplex,
        streams,
        dur,
        t0,
        sent,
        received,
        zerocopy,
    ))
}

/// Send for `dur` and receive until the peer closes (or `limit`, or `stop`) on one
/// connection from one thread: nonblocking, poll(2) for whichever side can go on. Shuts its
/// sending side when done, so the peer sees EOF. Returns whether sendfile carried it all.
fn pump_both(
    c: &mut TcpStream,
    dur: Duration,
    limit: Duration,
    stop: &AtomicBool,
    sent: Option<&AtomicU64>,
    received: Option<&AtomicU64>,
    zerocopy: bool,
) -> std::io::Result<bool> {
    c.set_nonblocking(true)?;
    // poll(2) then reports the socket readable only for a whole buffer as well.
    wake_per_buffer(c);
    let mut out = PageBuf::new(0x5a);
    let mut inb = PageBuf::new(0);
    let mut file = if zerocopy { payload_file().ok() } else { None };
    let start = Instant::now();
    let (send_end, recv_end) = (start + dur, start + limit);
    let (mut sending, mut receiving) = (true, true);
    while sending || receiving {
        let now = Instant::now();
        if stop.load(Ordering::Relaxed) || now >= recv_end {
            break;
        }
        if sending && now >= send_end {
            sending = false;
            let _ = c.shutdown(Shutdown::Write);
            continue;
        }
        // Only what is still wanted: a socket at EOF stays readable, and asking for that would
        // spin while waiting for room to send.
        let revents = poll_socket(
            c,
            (if receiving { libc::POLLIN } else { 0 }) | (if sending { libc::POLLOUT } else { 0 }),
        )?;
        if receiving && revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0 {
            match c.read(inb.get()) {
                Ok(0) => receiving = false,
                Ok(k) => {
                    if let Some(r) = received {
                        r.fetch_add(k as u64, Ordering::Relaxed);
                    }
                }
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {}
                Err(e) => return Err(e),
            }
        }
        if sending && revents & libc::POLLOUT != 0 {
            match send_once(c, &mut file, out.get()) {
                Ok(k) => {
                    if let Some(s) = sent {
                        s.fetch_add(k as u64, Ordering::Relaxed);
                    }
                }
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {}
                Err(e) => return Err(e),
            }
        }
    }
    if sending {
        let _ = c.shutdown(Shutdown::Write);
    }
    Ok(file.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(dir: Direction, streams: u32) -> NetResult {
        let server = Server::start("127.0.0.1:0").unwrap();
        let stop = AtomicBool::new(false);
        run(
            server.addr,
            &NetOptions {
                streams,
                duration: Duration::from_millis(400),
                direction: dir,
                zerocopy: false,
            },
            &stop,
        )
        .unwrap()
    }

    #[test]
    fn loopback_moves_data_the_way_asked() {
        let up = go(Direction::Upload, 2);
        assert!(up.sent_bytes > 10 * BUFFER as u64, "{up:?}");
        assert_eq!(up.received_bytes, 0);
        let down = go(Direction::Download, 1);
        assert!(down.received_bytes > 10 * BUFFER as u64, "{down:?}");
        assert_eq!(down.sent_bytes, 0);
        let both = go(Direction::Duplex, 2);
        assert!(both.sent_bytes > 0 && both.received_bytes > 0, "{both:?}");
        assert!((both.seconds - 0.4).abs() < 0.2, "{both:?}");
    }

    #[test]
    fn zero_copy_sends_by_sendfile_both_ways() {
        let server = Server::start("127.0.0.1:0").unwrap();
        let stop = AtomicBool::new(false);
        for direction in [Direction::Upload, Direction::Duplex] {
            let r = run(
                server.addr,
                &NetOptions {
                    streams: 1,
                    duration: Duration::from_millis(300),
                    direction,
                    zerocopy: true,
                },
                &stop,
            )
            .unwrap();
            assert!(r.zerocopy, "{r:?}");
            assert!(r.sent_bytes > 10 * BUFFER as u64, "{r:?}");
            if direction == Direction::Duplex {
                // The server sent by sendfile too: the client received its bytes.
                assert!(r.received_bytes > 10 * BUFFER as u64, "{r:?}");
            }
        }
        // Asked for plain writes: said so.
        assert!(!go(Direction::Upload, 1).zerocopy);
    }

    /// The reader asks to be woken per buffer, and less than a buffer still arrives: at the
    /// read timeout while the stream is open, at its end when it closes.
    #[test]
    fn a_reader_wakes_per_buffer_and_still_gets_a_short_stream() {
        use std::os::fd::AsRawFd;
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut w = TcpStream::connect(l.local_addr().unwrap()).unwrap();
        let (mut r, _) = l.accept().unwrap();
        r.set_read_timeout(Some(Duration::from_millis(50))).unwrap();
        wake_per_buffer(&r);
        let (mut v, mut len): (libc::c_int, libc::socklen_t) = (0, 4);
        // SAFETY: getsockopt into a c_int of the given size.
        let rc = unsafe {
            libc::getsockopt(
                r.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_RCVLOWAT,
                (&mut v as *mut libc::c_int).cast(),
                &mut len,
            )
        };
        assert_eq!((rc, v), (0, BUFFER as libc::c_int));
        let count = Arc::new(AtomicU64::new(0));
        let seen = count.clone();
        // The writer keeps the stream open until the reader has counted the short piece (or
        // 10 s passed), then sends the rest and closes it.
        let writer = std::thread::spawn(move || {
            w.write_all(&[7u8; 1000]).unwrap();
            let t = Instant::now();
            while seen.load(Ordering::Relaxed) < 1000 && t.elapsed() < Duration::from_secs(10) {
                std::thread::sleep(Duration::from_millis(5));
            }
            let while_open = seen.load(Ordering::Relaxed);
            w.write_all(&[7u8; 24]).unwrap();
            while_open
        });
        let stop = AtomicBool::new(false);
        let t = Instant::now();
        pump_in(&mut r, Duration::from_secs(20), &stop, Some(&count)).unwrap();
        assert_eq!(
            writer.join().unwrap(),
            1000,
            "the short piece waited for the stream's end"
        );
        assert_eq!(count.load(Ordering::Relaxed), 1024);
        assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
    }

    #[test]
    fn the_server_ignores_strangers_and_names_bad_addresses() {
        let server = Server::start("127.0.0.1:0").unwrap();
        let mut c = TcpStream::connect(server.addr).unwrap();
        c.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
        let mut b = Vec::new();
        c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        // Closed without an answer (a reset: the request was left unread).
        match c.read_to_end(&mut b) {
            Ok(n) => assert_eq!(n, 0),
            Err(e) => assert_eq!(e.kind(), ErrorKind::ConnectionReset, "{e}"),
        }
        let e = resolve("no-such-host.invalid:5201")
            .unwrap_err()
            .to_string();
        assert!(e.contains("no-such-host.invalid:5201"), "{e}");
        let e = Server::start("127.0.0.1:99999").err().unwrap().to_string();
        assert!(e.contains("127.0.0.1:99999"), "{e}");
    }

    #[test]
    fn nobody_listening_is_a_clear_error() {
        let free = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let e = run(
            free,
            &NetOptions {
                streams: 1,
                duration: Duration::from_millis(100),
                direction: Direction::Upload,
                zerocopy: false,
            },
            &AtomicBool::new(false),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("cannot connect"), "{e}");
    }
}
