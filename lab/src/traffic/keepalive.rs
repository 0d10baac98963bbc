//! Persistent connections with think time: one HTTP/1.1 connection to the lab's nginx
//! fetches a response, stays open and idle, then fetches another, the one measured
//! (a restart after idle; issue 44).

use super::client::{connect_from, ClientFlow};
use headstart::sys::Interrupt;
use anyhow::{bail, Context, Result};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// An open keep-alive connection.
pub struct KeepAlive {
    stream: TcpStream,
    local: SocketAddr,
    host: String,
}

impl KeepAlive {
    /// Connects from `local` (in the calling thread's namespace; the socket keeps it)
    /// and fetches `path`, `size` bytes: the connection's first response.
    pub fn open(server: SocketAddr, local: SocketAddr, path: &str, size: u64, timeout: Duration, interrupt: &Interrupt) -> Result<(KeepAlive, ClientFlow)> {
        let (stream, start, handshake) = connect_from(local, server)?;
        stream.set_read_timeout(Some(Duration::from_millis(200)))?;
        let mut conn = KeepAlive { stream, local, host: server.to_string() };
        let mut first = conn.get(path, size, timeout, interrupt).context("the first response")?;
        first.fct += first.start - start;
        first.start = start;
        first.handshake = handshake;
        Ok((conn, first))
    }

    /// One GET of `path` on the open connection: FCT from the request's write to the
    /// response's last byte.
    pub fn get(&mut self, path: &str, size: u64, timeout: Duration, interrupt: &Interrupt) -> Result<ClientFlow> {
        let start = Instant::now();
        self.stream.write_all(format!("GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: keep-alive\r\n\r\n", self.host).as_bytes())?;
        let mut buf = vec![0u8; 1 << 18];
        let mut head: Vec<u8> = Vec::new();
        let mut body_len: Option<u64> = None;
        let mut got = 0u64;
        let mut last_byte = start;
        while body_len.is_none_or(|want| got < want) {
            let n = match self.stream.read(&mut buf) {
                Ok(0) => bail!("the server closed the connection ({got} body bytes received)"),
                Ok(n) => n,
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                    interrupt.check()?;
                    if start.elapsed() > timeout {
                        bail!("response of {size} bytes timed out after {timeout:?} ({got} received)");
                    }
                    continue;
                }
                Err(e) => return Err(e).context("receiving"),
            };
            last_byte = Instant::now();
            if body_len.is_some() {
                got += n as u64;
                continue;
            }
            head.extend_from_slice(&buf[..n]);
            // One read may bring the header and much of the body.
            match head.windows(4).position(|w| w == b"\r\n\r\n") {
                Some(end) => {
                    body_len = Some(content_length(&String::from_utf8_lossy(&head[..end]))?);
                    got = (head.len() - end - 4) as u64;
                }
                None if head.len() > 16384 => bail!("no end of the response's header in 16 KB"),
                None => {}
            }
        }
        if got != size {
            bail!("received {got} of {size} bytes");
        }
        Ok(ClientFlow { local: self.local, start, fct: last_byte - start, handshake: Duration::ZERO, bytes: got })
    }
}

/// A 200 response's Content-Length.
fn content_length(header: &str) -> Result<u64> {
    let status = header.lines().next().unwrap_or("");
    if status.split_whitespace().nth(1) != Some("200") {
        bail!("the server answered '{status}'");
    }
    header
        .lines()
        .find_map(|l| l.split_once(':').filter(|(k, _)| k.trim().eq_ignore_ascii_case("content-length")).map(|(_, v)| v.trim().to_string()))
        .context("no Content-Length in the response")?
        .parse()
        .context("a Content-Length that is not a number")
}

#[cfg(test)]
mod tests {
    use super::content_length;

    #[test]
    fn reads_content_length_of_a_200_only() {
        assert_eq!(content_length("HTTP/1.1 200 OK\r\nServer: nginx\r\ncontent-length: 65536\r\n").unwrap(), 65536);
        assert!(content_length("HTTP/1.1 404 Not Found\r\nContent-Length: 10").is_err());
        assert!(content_length("HTTP/1.1 200 OK\r\nServer: nginx").is_err());
    }
}
