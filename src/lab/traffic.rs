//! Real TCP traffic through the emulated link. The server, in the server namespace,
//! listens on one port per congestion control (SERVER_PORT + i), with TCP_CONGESTION
//! set on the listener, so that each accepted connection runs its controller from the
//! handshake on, as under a system-wide or per-route setting (a controller's `init`
//! then runs before the request arrives, and the receive-window override already
//! applies to the request's ACK). It reads a one-line request `<bytes> <congestion
//! control>`, sends that many bytes and closes its side; once the client has read
//! everything and closed, the server records TCP_INFO (all data is acked then).
//! The client measures the flow completion time from just before connect() (the SYN)
//! to the arrival of the last byte.

use crate::lab::emulator::stats::FlowKey;
use crate::sys::{self, Interrupt};
use anyhow::{bail, Context, Result};
use serde::Serialize;
use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Write};
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

pub const SERVER_PORT: u16 = 5001;
const REQUEST_MAX: usize = 128;

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

#[derive(Clone, Copy, Debug, Default)]
pub struct CwndSample {
    /// Milliseconds since the server accepted the connection.
    pub t_ms: f64,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub pacing_bps: u64,
}

/// The cwnd at which slow start ended: the first finite ssthresh of the series
/// (HyStart and loss both set ssthresh from cwnd when they end slow start).
pub fn slow_start_exit(series: &[CwndSample]) -> Option<u32> {
    series.iter().map(|s| s.ssthresh).find(|&s| s < i32::MAX as u32)
}

/// The part of `struct tcp_info` (uapi/linux/tcp.h) the lab reads, by byte offset.
pub struct TcpInfo([u8; 256]);

impl TcpInfo {
    pub fn get(fd: i32) -> Result<TcpInfo> {
        let mut buf = [0u8; 256];
        let mut len = buf.len() as libc::socklen_t;
        // SAFETY: getsockopt writes at most `len` bytes into buf.
        let rc = unsafe { libc::getsockopt(fd, libc::IPPROTO_TCP, libc::TCP_INFO, buf.as_mut_ptr() as *mut _, &mut len) };
        if rc != 0 {
            bail!("TCP_INFO: {}", std::io::Error::last_os_error());
        }
        Ok(TcpInfo(buf))
    }
    fn u32_at(&self, off: usize) -> u32 {
        u32::from_ne_bytes(self.0[off..off + 4].try_into().unwrap())
    }
    fn u64_at(&self, off: usize) -> u64 {
        u64::from_ne_bytes(self.0[off..off + 8].try_into().unwrap())
    }
    pub fn snd_mss(&self) -> u32 { self.u32_at(16) }
    pub fn rtt_us(&self) -> u32 { self.u32_at(68) }
    pub fn snd_ssthresh(&self) -> u32 { self.u32_at(76) }
    pub fn snd_cwnd(&self) -> u32 { self.u32_at(80) }
    pub fn total_retrans(&self) -> u32 { self.u32_at(100) }
    pub fn pacing_rate_bytes(&self) -> u64 { self.u64_at(104) }
    pub fn min_rtt_us(&self) -> u32 { self.u32_at(148) }
    pub fn delivery_rate_bytes(&self) -> u64 { self.u64_at(160) }
    pub fn bytes_sent(&self) -> u64 { self.u64_at(200) }
    pub fn bytes_retrans(&self) -> u64 { self.u64_at(208) }
    pub fn rwnd_limited_us(&self) -> u64 { self.u64_at(176) }
    pub fn sndbuf_limited_us(&self) -> u64 { self.u64_at(184) }
}

fn current_congestion(fd: i32) -> Option<String> {
    let mut name = [0u8; 16];
    let mut len = name.len() as libc::socklen_t;
    // SAFETY: getsockopt writes at most len bytes.
    let rc = unsafe { libc::getsockopt(fd, libc::IPPROTO_TCP, libc::TCP_CONGESTION, name.as_mut_ptr() as *mut _, &mut len) };
    (rc == 0).then(|| String::from_utf8_lossy(&name[..len as usize]).trim_end_matches('\0').to_string())
}

/// BBR's bandwidth estimate from TCP_CC_INFO (struct tcp_bbr_info: bw_lo, bw_hi in
/// bytes/s), for BBR and the controllers built on it; None for others.
fn bbr_bandwidth(fd: i32) -> Option<u64> {
    if !current_congestion(fd)?.contains("bbr") {
        return None;
    }
    let mut info = [0u32; 5];
    let mut len = std::mem::size_of_val(&info) as libc::socklen_t;
    const TCP_CC_INFO: i32 = 26;
    // SAFETY: getsockopt writes at most len bytes into info.
    let rc = unsafe { libc::getsockopt(fd, libc::IPPROTO_TCP, TCP_CC_INFO, info.as_mut_ptr() as *mut _, &mut len) };
    if rc != 0 || (len as usize) < 8 {
        return None;
    }
    Some(((info[1] as u64) << 32 | info[0] as u64) * 8)
}

pub fn set_congestion(fd: i32, cc: &str) -> Result<()> {
    // SAFETY: setsockopt reads cc.len() bytes from the string.
    let rc = unsafe { libc::setsockopt(fd, libc::IPPROTO_TCP, libc::TCP_CONGESTION, cc.as_ptr() as *const _, cc.len() as _) };
    if rc != 0 {
        bail!("TCP_CONGESTION {cc}: {}", std::io::Error::last_os_error());
    }
    Ok(())
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
    /// Listens on SERVER_PORT + i for `ccs[i]`.
    pub fn start(ns: &File, ccs: &[String], sample_interval: Option<Duration>, cpu: Option<usize>) -> Result<Server> {
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
                    let l = TcpListener::bind(("::", SERVER_PORT + i as u16)).context("binding the traffic server")?;
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
                let mut idle = true;
                for listener in &listeners {
                    if let Ok((stream, peer)) = listener.accept() {
                        idle = false;
                        let r3 = r2.clone();
                        let _ = std::thread::Builder::new()
                            .name("serve".into())
                            .spawn(move || serve_one(stream, peer, r3, sample_interval, cpu));
                    }
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

/// One flow as the client saw it.
#[derive(Clone, Debug)]
pub struct ClientFlow {
    pub local: SocketAddr,
    pub start: Instant,
    pub fct: Duration,
    pub bytes: u64,
}

/// Runs one flow from inside the client namespace of the calling thread: connect,
/// request `size` bytes with congestion control `cc`, read to EOF.
pub fn client_flow(server: SocketAddr, local: SocketAddr, size: u64, cc: &str, timeout: Duration, interrupt: &Interrupt) -> Result<ClientFlow> {
    let domain = if server.is_ipv6() { libc::AF_INET6 } else { libc::AF_INET };
    // SAFETY: a plain socket(2); ownership goes to TcpStream below after connect.
    let fd = unsafe { libc::socket(domain, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        bail!("socket: {}", std::io::Error::last_os_error());
    }
    // SAFETY: fd is ours; TcpStream closes it.
    let stream = unsafe { TcpStream::from_raw_fd(fd) };
    let one: libc::c_int = 1;
    // SAFETY: setsockopt with an int option value.
    unsafe { libc::setsockopt(fd, libc::SOL_SOCKET, libc::SO_REUSEADDR, &one as *const _ as *const _, 4) };
    bind_raw(fd, local).with_context(|| format!("binding client socket to {local}"))?;
    let start = Instant::now();
    connect_raw(fd, server).with_context(|| format!("connecting to {server}"))?;
    let mut stream = stream;
    stream.write_all(format!("{size} {cc}\n").as_bytes())?;
    stream.set_read_timeout(Some(Duration::from_millis(200)))?;
    let mut buf = vec![0u8; 1 << 18];
    let mut got = 0u64;
    let mut last_byte = start;
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                got += n as u64;
                last_byte = Instant::now();
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                interrupt.check()?;
                if start.elapsed() > timeout {
                    bail!("flow of {size} bytes timed out after {:?} ({got} bytes received)", timeout);
                }
            }
            Err(e) => return Err(e).context("receiving"),
        }
    }
    if got != size {
        bail!("received {got} of {size} bytes (server error? unknown congestion control '{cc}'?)");
    }
    Ok(ClientFlow { local, start, fct: last_byte - start, bytes: got })
}

fn sockaddr(addr: SocketAddr) -> (libc::sockaddr_storage, libc::socklen_t) {
    // SAFETY: sockaddr_storage is plain data, large enough for both families.
    let mut ss: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let len = match addr {
        SocketAddr::V4(a) => {
            let sin = libc::sockaddr_in {
                sin_family: libc::AF_INET as _,
                sin_port: a.port().to_be(),
                sin_addr: libc::in_addr { s_addr: u32::from_ne_bytes(a.ip().octets()) },
                sin_zero: [0; 8],
            };
            // SAFETY: sockaddr_in fits in sockaddr_storage.
            unsafe { std::ptr::write(&mut ss as *mut _ as *mut libc::sockaddr_in, sin) };
            std::mem::size_of::<libc::sockaddr_in>()
        }
        SocketAddr::V6(a) => {
            let sin6 = libc::sockaddr_in6 {
                sin6_family: libc::AF_INET6 as _,
                sin6_port: a.port().to_be(),
                sin6_flowinfo: 0,
                sin6_addr: libc::in6_addr { s6_addr: a.ip().octets() },
                sin6_scope_id: 0,
            };
            // SAFETY: sockaddr_in6 fits in sockaddr_storage.
            unsafe { std::ptr::write(&mut ss as *mut _ as *mut libc::sockaddr_in6, sin6) };
            std::mem::size_of::<libc::sockaddr_in6>()
        }
    };
    (ss, len as libc::socklen_t)
}

fn bind_raw(fd: i32, addr: SocketAddr) -> std::io::Result<()> {
    let (ss, len) = sockaddr(addr);
    // SAFETY: ss holds a valid sockaddr of length len.
    if unsafe { libc::bind(fd, &ss as *const _ as *const libc::sockaddr, len) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

fn connect_raw(fd: i32, addr: SocketAddr) -> std::io::Result<()> {
    let (ss, len) = sockaddr(addr);
    loop {
        // SAFETY: ss holds a valid sockaddr of length len.
        if unsafe { libc::connect(fd, &ss as *const _ as *const libc::sockaddr, len) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// The HTTP mode: a real nginx in the server namespace serving files of the requested
/// sizes, fetched by a real curl in a client namespace. The congestion control and
/// initial window come from the server's route (`ip route ... congctl X initcwnd N`),
/// which Linux applies to passively opened connections too.
pub struct HttpServer {
    dir: std::path::PathBuf,
    child: std::process::Child,
    files: Mutex<std::collections::HashSet<u64>>,
}

pub const HTTP_PORT: u16 = 8080;

impl HttpServer {
    pub fn start(netns: &str, ns: &File) -> Result<HttpServer> {
        let dir = std::env::temp_dir().join(format!("headstart-http-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("www"))?;
        let conf = format!(
            "worker_processes 1;\nmaster_process off;\ndaemon off;\npid {d}/nginx.pid;\nerror_log {d}/error.log warn;\n\
             events {{ worker_connections 4096; }}\n\
             http {{\n  access_log off;\n  sendfile on;\n  tcp_nopush on;\n  keepalive_timeout 0;\n  default_type application/octet-stream;\n\
             client_body_temp_path {d}/body;\n\
             server {{ listen {p} reuseport; listen [::]:{p} reuseport; root {d}/www; }}\n}}\n",
            d = dir.display(),
            p = HTTP_PORT
        );
        std::fs::write(dir.join("nginx.conf"), conf)?;
        let mut cmd = std::process::Command::new("ip");
        cmd.args(["netns", "exec", netns, "nginx", "-p"])
            .arg(&dir)
            .arg("-e")
            .arg(dir.join("error.log"))
            .arg("-c")
            .arg(dir.join("nginx.conf"))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        die_with_parent(&mut cmd);
        let child = cmd.spawn().context("starting nginx (apt-get install nginx-light)")?;
        let mut server = HttpServer { dir, child, files: Mutex::new(Default::default()) };
        // Ready when it accepts a connection inside its namespace.
        let ready = sys::run_in_netns(ns, None, || {
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                if TcpStream::connect(("127.0.0.1", HTTP_PORT)).is_ok() {
                    return Ok(true);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok(false)
        })
        .unwrap_or(false);
        if !ready {
            let log = std::fs::read_to_string(server.dir.join("error.log")).unwrap_or_default();
            let _ = server.child.kill();
            bail!("nginx did not start: {}", log.lines().last().unwrap_or("no log"));
        }
        Ok(server)
    }

    /// Makes sure a (sparse) file of `size` bytes exists; returns its URL path.
    pub fn file_for(&self, size: u64) -> Result<String> {
        let name = format!("{size}.bin");
        let mut files = self.files.lock().unwrap();
        if files.insert(size) {
            File::create(self.dir.join("www").join(&name))?.set_len(size)?;
        }
        Ok(format!("/{name}"))
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Kills the child with SIGKILL if this process dies, even by SIGKILL.
fn die_with_parent(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: prctl is async-signal-safe; runs in the child between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
}

/// One HTTP GET with curl from inside `netns`, bound to `local`. FCT is curl's total
/// time less its name lookup (none for an address literal): from connect() to the
/// last byte.
pub fn curl_flow(netns: &str, server: SocketAddr, local: SocketAddr, path: &str, size: u64, timeout: Duration) -> Result<ClientFlow> {
    let host = match server.ip() {
        IpAddr::V6(a) => format!("[{a}]"),
        IpAddr::V4(a) => a.to_string(),
    };
    let url = format!("http://{host}:{}{path}", server.port());
    let start = Instant::now();
    let mut cmd = std::process::Command::new("ip");
    cmd.args(["netns", "exec", netns, "curl", "-s", "-S", "-o", "/dev/null", "--max-time"])
        .arg(format!("{}", timeout.as_secs().max(1)))
        .args(["--interface", &local.ip().to_string(), "--local-port", &local.port().to_string()])
        .args(["-w", "%{time_namelookup} %{time_total} %{size_download} %{http_code}", &url]);
    die_with_parent(&mut cmd);
    let out = cmd.output().context("running curl (apt-get install curl)")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let f: Vec<&str> = text.split_whitespace().collect();
    if !out.status.success() || f.len() != 4 {
        bail!("curl failed: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    let (lookup, total, got, code): (f64, f64, u64, &str) = (f[0].parse()?, f[1].parse()?, f[2].parse()?, f[3]);
    if code != "200" || got != size {
        bail!("HTTP {code}, {got} of {size} bytes");
    }
    Ok(ClientFlow { local, start, fct: Duration::from_secs_f64(total - lookup), bytes: got })
}
