//! Persistent connections with think time: one HTTP/1.1 connection to the lab's nginx
//! (over TLS 1.3 for keepalive-https) fetches a response, stays open and idle, then
//! fetches another, the one measured (a restart after idle; issue 44).

use super::client::{connect_from, ClientFlow};
use headstart::sys::Interrupt;
use anyhow::{bail, Context, Result};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, ClientConnection, DigitallySignedStruct, SignatureScheme, StreamOwned};
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a connection reads and writes through: the socket, or TLS over it.
trait Conn: Read + Write + Send {}
impl<T: Read + Write + Send> Conn for T {}

/// An open keep-alive connection.
pub struct KeepAlive {
    stream: Box<dyn Conn>,
    local: SocketAddr,
    host: String,
}

impl KeepAlive {
    /// Connects from `local` (in the calling thread's namespace; the socket keeps it)
    /// and fetches `path`, `size` bytes: the connection's first response.
    /// With `tls`, TLS 1.3 first (its handshake is part of the first response's time).
    pub fn open(server: SocketAddr, local: SocketAddr, tls: bool, path: &str, size: u64, timeout: Duration, interrupt: &Interrupt) -> Result<(KeepAlive, ClientFlow)> {
        let (tcp, start, handshake) = connect_from(local, server)?;
        tcp.set_read_timeout(Some(Duration::from_millis(200)))?;
        let stream: Box<dyn Conn> = if tls { Box::new(StreamOwned::new(tls_client(server)?, tcp)) } else { Box::new(tcp) };
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

/// A TLS 1.3 client for the lab's nginx, whose certificate is a throwaway self-signed
/// one: not verified (as the lab's curl -k), the handshake's signatures still checked.
fn tls_client(server: SocketAddr) -> Result<ClientConnection> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(LabCertificate(provider)))
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(ClientConnection::new(Arc::new(config), ServerName::IpAddress(server.ip().into()))?)
}

/// Accepts the lab server's certificate, whatever it is.
#[derive(Debug)]
struct LabCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for LabCertificate {
    fn verify_server_cert(&self, _: &CertificateDer<'_>, _: &[CertificateDer<'_>], _: &ServerName<'_>, _: &[u8], _: UnixTime) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(&self, message: &[u8], cert: &CertificateDer<'_>, dss: &DigitallySignedStruct) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn verify_tls13_signature(&self, message: &[u8], cert: &CertificateDer<'_>, dss: &DigitallySignedStruct) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
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
