//! The traffic client (the lab's receiver): one flow, timed from the SYN.

use headstart::sys::Interrupt;
use anyhow::{bail, Context, Result};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::FromRawFd;
use std::time::{Duration, Instant};

/// One flow as the client saw it.
#[derive(Clone, Debug)]
pub struct ClientFlow {
    pub local: SocketAddr,
    pub start: Instant,
    pub fct: Duration,
    /// connect() to its return: the handshake, with any SYN or SYN-ACK retransmitted
    /// (the server's socket, and its controller, start only at its end).
    pub handshake: Duration,
    pub bytes: u64,
}

/// Runs one flow from inside the client namespace of the calling thread: connect,
/// request `size` bytes with congestion control `cc`, read to EOF. `stall`: once the
/// first data arrives, stop reading for this long (an application that falls behind).
pub fn client_flow(server: SocketAddr, local: SocketAddr, size: u64, cc: &str, timeout: Duration, stall: Duration, interrupt: &Interrupt) -> Result<ClientFlow> {
    let (mut stream, start, handshake) = connect_from(local, server)?;
    stream.write_all(format!("{size} {cc}\n").as_bytes())?;
    stream.set_read_timeout(Some(Duration::from_millis(200)))?;
    let mut buf = vec![0u8; 1 << 18];
    let mut got = 0u64;
    let mut last_byte = start;
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if got == 0 && !stall.is_zero() {
                    std::thread::sleep(stall);
                }
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
    Ok(ClientFlow { local, start, fct: last_byte - start, handshake, bytes: got })
}

/// A flow the other way, from inside the client namespace: connect, ask the server to
/// take `size` bytes (`cc` names the server's port's controller, as a request does),
/// send them, and wait for its one-byte receipt. The FCT runs to the receipt.
pub fn client_upload(server: SocketAddr, local: SocketAddr, size: u64, cc: &str, timeout: Duration, interrupt: &Interrupt) -> Result<ClientFlow> {
    let (mut stream, start, handshake) = connect_from(local, server)?;
    stream.write_all(format!("{size} {cc} up\n").as_bytes())?;
    stream.set_write_timeout(Some(Duration::from_millis(200)))?;
    static ZEROS: [u8; 1 << 16] = [0; 1 << 16];
    let mut left = size;
    while left > 0 {
        let n = left.min(ZEROS.len() as u64) as usize;
        match stream.write(&ZEROS[..n]) {
            Ok(w) => left -= w as u64,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                interrupt.check()?;
                if start.elapsed() > timeout {
                    bail!("upload of {size} bytes timed out after {timeout:?}");
                }
            }
            Err(e) => return Err(e).context("sending"),
        }
    }
    stream.set_read_timeout(Some(timeout.saturating_sub(start.elapsed()).max(Duration::from_millis(1))))?;
    let mut receipt = [0u8; 1];
    stream.read_exact(&mut receipt).context("waiting for the server's receipt")?;
    Ok(ClientFlow { local, start, fct: start.elapsed(), handshake, bytes: size })
}

/// A TCP connection from `local` to `server`, made in the calling thread's namespace:
/// the stream, when connect() began and how long it took.
pub(super) fn connect_from(local: SocketAddr, server: SocketAddr) -> Result<(TcpStream, Instant, Duration)> {
    let domain = if server.is_ipv6() { libc::AF_INET6 } else { libc::AF_INET };
    // SAFETY: a plain socket(2); ownership goes to TcpStream right after.
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
    Ok((stream, start, start.elapsed()))
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
