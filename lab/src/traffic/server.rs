//! The traffic server (the lab's sender): one listener per congestion control.

use crate::emulator::stats::FlowKey;
use headstart::sys::{self};
use anyhow::{bail, ensure, Context, Result};
use serde::Serialize;
use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use super::tcp_info::*;

pub const SERVER_PORT: u16 = 5001;
pub(super) const REQUEST_MAX: usize = 128;

/// What the server saw of one flow (TCP_INFO once the client closed).
#[derive(Clone, Debug, Default, Serialize)]
pub struct ServerFlowInfo {
    pub cc: String,
    pub bytes_sent: u64,
    pub retransmits: u32,
    pub bytes_retrans: u64,
    pub final_cwnd: u32,
    pub final_ssthresh: u32,
    pub delivery_rate_bps: u64,
    pub min_rtt_us: u32,
    pub srtt_us: u32,
    pub mss: u32,
    /// Time the sender was limited by the receive window / by its send buffer.
    pub rwnd_limited_us: u64,
    pub sndbuf_limited_us: u64,
    /// The controller's own bandwidth estimate (TCP_CC_INFO; BBR's max filter), bit/s.
    pub cc_bw_bps: Option<u64>,
    pub error: Option<String>,
    /// cwnd over time, when sampling is on.
    #[serde(skip)]
    pub series: Vec<CwndSample>,
}

type Results = Arc<(Mutex<HashMap<FlowKey, ServerFlowInfo>>, Condvar)>;

/// The traffic server, listening on [::]:SERVER_PORT (IPv4 too) in a namespace.
pub struct Server {
    results: Results,
    stop: Arc<std::sync::atomic::AtomicBool>,
    handle: Option<std::thread::JoinHandle<()>>,
    pub sample_interval: Option<Duration>,
}

impl Server {
    /// Listens on SERVER_PORT + i for `ccs[i]`, with listening sockets owned by `uid`
    /// (None: this process's).
    pub fn start(ns: &File, ccs: &[String], sample_interval: Option<Duration>, cpu: Option<usize>, uid: Option<u32>) -> Result<Server> {
        let ccs = ccs.to_vec();
        let ns = ns.try_clone()?;
        let results: Results = Arc::new((Mutex::new(HashMap::new()), Condvar::new()));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (tx, rx) = std::sync::mpsc::channel();
        let (r2, s2) = (results.clone(), stop.clone());
        let handle = std::thread::Builder::new().name("server".into()).spawn(move || {
            let listeners = (|| -> Result<Vec<TcpListener>> {
                sys::enter_netns(&ns)?;
                if let Some(c) = cpu {
                    sys::pin_to_cpu(c)?;
                }
                let mut ls = Vec::new();
                for (i, cc) in ccs.iter().enumerate() {
                    let l = bind_as(uid, SERVER_PORT + i as u16).context("binding the traffic server")?;
                    // A deep accept queue: with the default 128, ~0.3 % of 10,000 flows
                    // arriving at 450/s never ran their controller's init (overflow,
                    // answered with SYN cookies).
                    // SAFETY: listen(2) again on our listening socket only resizes its queue.
                    unsafe { libc::listen(l.as_raw_fd(), 4096) };
                    set_congestion(l.as_raw_fd(), cc)?;
                    l.set_nonblocking(true)?;
                    ls.push(l);
                }
                Ok(ls)
            })();
            let listeners = match listeners {
                Ok(l) => {
                    let _ = tx.send(Ok(()));
                    l
                }
                Err(e) => {
                    let _ = tx.send(Err(format!("{e:#}")));
                    return;
                }
            };
            while !s2.load(std::sync::atomic::Ordering::Relaxed) {
                // One pass over the listeners under the uid (three setfsuid calls a pass,
                // not a listener); the serving threads start after it, as root.
                let accepted: Vec<_> = as_fsuid(uid, || listeners.iter().filter_map(|l| l.accept().ok()).collect()).unwrap_or_default();
                let idle = accepted.is_empty();
                for (stream, peer) in accepted {
                    let r3 = r2.clone();
                    let _ = std::thread::Builder::new()
                        .name("serve".into())
                        .spawn(move || serve_one(stream, peer, r3, sample_interval, cpu));
                }
                if idle {
                    std::thread::sleep(Duration::from_micros(200));
                }
            }
        })?;
        match rx.recv() {
            Ok(Ok(())) => Ok(Server { results, stop, handle: Some(handle), sample_interval }),
            Ok(Err(e)) => bail!("traffic server failed to start: {e}"),
            Err(_) => bail!("traffic server died while starting"),
        }
    }

    /// Waits for the server's record of the flow whose client end is `key`.
    pub fn take_result(&self, key: FlowKey, timeout: Duration) -> Option<ServerFlowInfo> {
        let (lock, cv) = &*self.results;
        let deadline = Instant::now() + timeout;
        let mut map = lock.lock().unwrap();
        loop {
            if let Some(r) = map.remove(&key) {
                return Some(r);
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            map = cv.wait_timeout(map, left).unwrap().0;
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Runs `f` with this thread's filesystem uid set to `uid` (None: as it is). A socket
/// belongs to its creator's fsuid (sk_uid); an accepted one to its listener's until
/// accept(2) grafts it, then to the accepting thread's. So a server run by that user
/// both binds and accepts under it: a controller that reads the uid after accept (a
/// late start, bpf/late_init.h) sees the same owner as one that read it before. The
/// lab's server is root otherwise, and setfsuid changes only the calling thread, for
/// the call.
fn as_fsuid<T>(uid: Option<u32>, f: impl FnOnce() -> T) -> Result<T> {
    let Some(uid) = uid else { return Ok(f()) };
    // SAFETY: setfsuid(2) only sets this thread's filesystem uid; it returns the old one.
    let before = unsafe { libc::setfsuid(uid) } as u32;
    // setfsuid reports no error: read the uid back (a second call returns it).
    // SAFETY: as above; u32::MAX is no uid, so this call changes nothing.
    let now = unsafe { libc::setfsuid(u32::MAX) } as u32;
    let out = f();
    // SAFETY: as above; back to the uid this thread had.
    unsafe { libc::setfsuid(before) };
    ensure!(now == uid, "could not act as uid {uid} (setfsuid: the uid is still {now})");
    Ok(out)
}

/// A listener on [::]:port owned by `uid` (as_fsuid).
fn bind_as(uid: Option<u32>, port: u16) -> Result<TcpListener> {
    as_fsuid(uid, || TcpListener::bind(("::", port)))?.with_context(|| format!("the server's sockets as uid {uid:?}"))
}

fn serve_one(mut stream: TcpStream, peer: SocketAddr, results: Results, sample: Option<Duration>, cpu: Option<usize>) {
    if let Some(c) = cpu {
        let _ = sys::pin_to_cpu(c);
    }
    let peer_ip = match peer.ip() {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    };
    let key = FlowKey::new(peer_ip, peer.port());
    let info = serve_flow(&mut stream, sample).unwrap_or_else(|e| ServerFlowInfo { error: Some(format!("{e:#}")), ..Default::default() });
    // Close before publishing: the controller's `release` (which stores the path
    // estimate) runs in close(), and the lab reads the table as soon as it sees this.
    drop(stream);
    let (lock, cv) = &*results;
    lock.lock().unwrap().insert(key, info);
    cv.notify_all();
}

/// A flow the other way: read `size` bytes, answer one byte, wait for the client to close.
fn take_upload(stream: &mut TcpStream, size: u64) -> Result<ServerFlowInfo> {
    let mut buf = vec![0u8; 1 << 16];
    let mut got = 0u64;
    while got < size {
        let n = stream.read(&mut buf)?;
        if n == 0 {
            bail!("the client stopped after {got} of {size} bytes");
        }
        got += n as u64;
    }
    stream.write_all(b"k")?;
    stream.shutdown(Shutdown::Write)?;
    let mut sink = [0u8; 64];
    while stream.read(&mut sink)? > 0 {}
    let ti = TcpInfo::get(stream.as_raw_fd())?;
    Ok(ServerFlowInfo { cc: current_congestion(stream.as_raw_fd()).unwrap_or_default(), min_rtt_us: ti.min_rtt_us(), srtt_us: ti.rtt_us(), mss: ti.snd_mss(), ..Default::default() })
}

fn serve_flow(stream: &mut TcpStream, sample: Option<Duration>) -> Result<ServerFlowInfo> {
    let _ = stream.set_nonblocking(false);
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut req = Vec::with_capacity(REQUEST_MAX);
    let mut byte = [0u8; 1];
    while !req.ends_with(b"\n") {
        if req.len() >= REQUEST_MAX || stream.read(&mut byte)? == 0 {
            bail!("malformed request");
        }
        req.push(byte[0]);
    }
    let text = String::from_utf8_lossy(&req);
    let mut words = text.split_whitespace();
    let size: u64 = words.next().and_then(|w| w.parse().ok()).context("request without a size")?;
    let cc = words.next().context("request without a congestion control")?.to_string();
    let fd = stream.as_raw_fd();
    // Inherited from the listener; set it only if a client asked another port.
    if current_congestion(fd).as_deref() != Some(cc.as_str()) {
        set_congestion(fd, &cc)?;
    }
    if words.next() == Some("up") {
        return take_upload(stream, size);
    }
    let started = Instant::now();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = sample.map(|every| {
        let done = done.clone();
        // SAFETY: the duplicate fd is owned by the File and closed when the sampler ends.
        let dup = unsafe { File::from_raw_fd(libc::dup(fd)) };
        std::thread::spawn(move || {
            let mut series = Vec::new();
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                if let Ok(ti) = TcpInfo::get(dup.as_raw_fd()) {
                    series.push(CwndSample {
                        t_ms: started.elapsed().as_secs_f64() * 1e3,
                        cwnd: ti.snd_cwnd(),
                        ssthresh: ti.snd_ssthresh(),
                        pacing_bps: ti.pacing_rate_bytes().saturating_mul(8),
                    });
                }
                std::thread::sleep(every);
            }
            series
        })
    });
    static ZEROS: [u8; 1 << 16] = [0; 1 << 16];
    let mut left = size;
    while left > 0 {
        let n = left.min(ZEROS.len() as u64) as usize;
        stream.write_all(&ZEROS[..n])?;
        left -= n as u64;
    }
    stream.shutdown(Shutdown::Write)?;
    // The client closes after the last byte: then everything we sent is acked.
    let mut sink = [0u8; 64];
    while stream.read(&mut sink)? > 0 {}
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let ti = TcpInfo::get(fd)?;
    let cc_bw_bps = bbr_bandwidth(fd);
    let series = sampler.map(|h| h.join().unwrap_or_default()).unwrap_or_default();
    // The controller the socket ran, asked once more at the end: one flow labelled
    // s_bbr in 150 (2026-11-23) queued and finished like cubic and left no entry, and
    // nothing in its row could say which controller had run it.
    let ran = current_congestion(fd).unwrap_or_default();
    if ran != cc {
        bail!("the flow asked for {cc} but ran {ran}");
    }
    Ok(ServerFlowInfo {
        cc,
        bytes_sent: ti.bytes_sent(),
        retransmits: ti.total_retrans(),
        bytes_retrans: ti.bytes_retrans(),
        final_cwnd: ti.snd_cwnd(),
        final_ssthresh: ti.snd_ssthresh(),
        delivery_rate_bps: ti.delivery_rate_bytes() * 8,
        min_rtt_us: ti.min_rtt_us(),
        srtt_us: ti.rtt_us(),
        mss: ti.snd_mss(),
        cc_bw_bps,
        rwnd_limited_us: ti.rwnd_limited_us(),
        sndbuf_limited_us: ti.sndbuf_limited_us(),
        error: None,
        series,
    })
}
