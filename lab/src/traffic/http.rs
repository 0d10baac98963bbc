//! The HTTP mode: nginx and curl, over TLS 1.3 for HTTPS.

use headstart::sys::{self};
use anyhow::{bail, Context, Result};
use std::fs::File;
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use super::client::ClientFlow;

/// The HTTP mode: a real nginx in the server namespace serving files of the requested
/// sizes, fetched by a real curl in a client namespace. The congestion control and
/// initial window come from the server's route (`ip route ... congctl X initcwnd N`),
/// which Linux applies to passively opened connections too.
pub struct HttpServer {
    dir: std::path::PathBuf,
    tls: bool,
    /// Pages for a browser (HTTPS, keep-alive, the page's load report logged), over
    /// HTTP/2 or HTTP/1.1; None: files for curl.
    page: Option<PageProtocol>,
    /// Connections per flow (curl --parallel), each fetching 1/N of its bytes.
    pub connections: u32,
    child: std::process::Child,
    files: Mutex<std::collections::HashSet<u64>>,
}

pub const HTTP_PORT: u16 = 8080;

/// What a browser speaks to the lab's nginx in the page mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageProtocol {
    Http1,
    Http2,
}

impl HttpServer {
    /// `cpu`: the core nginx runs on, away from the emulator's (its TLS work delayed
    /// the emulator's packets by milliseconds, which handshakes read as a queue).
    /// `keep_alive`: connections stay open between requests (a browser's always do).
    pub fn start(netns: &str, ns: &File, tls: bool, page: Option<PageProtocol>, keep_alive: bool, connections: u32, cpu: Option<usize>) -> Result<HttpServer> {
        anyhow::ensure!(page.is_none() || tls, "the page mode is HTTPS");
        let dir = sys::private_temp_dir("headstart-http")?;
        std::fs::create_dir_all(dir.join("www"))?;
        let listen_opts = if tls {
            self_signed_certificate(&dir)?;
            // A P-256 certificate, TLS 1.3 only: the handshake a current browser gets.
            let h2 = if page == Some(PageProtocol::Http2) { " http2" } else { "" };
            format!(" ssl{h2}; ssl_protocols TLSv1.3; ssl_certificate {d}/cert.pem; ssl_certificate_key {d}/key.pem", d = dir.display())
        } else {
            String::new()
        };
        // curl: one GET per connection. A browser keeps its connections for the page's
        // objects, and its page reports its load time to /plt, logged for the lab.
        let page_conf = match (page, keep_alive) {
            (None, false) => "  keepalive_timeout 0;\n".to_string(),
            (None, true) => "  keepalive_timeout 120s;\n  keepalive_requests 10000;\n".to_string(),
            (Some(_), _) => "  keepalive_timeout 60s;\n  keepalive_requests 10000;\n  types { text/html html; text/css css; application/javascript js; image/png png; }\n  log_format page_report '$request_uri';\n".to_string(),
        };
        let report_location = match page {
            None => String::new(),
            Some(_) => format!(" location = /plt {{ access_log {d}/page-reports.log page_report; return 204; }}", d = dir.display()),
        };
        let conf = format!(
            "worker_processes 1;\nmaster_process off;\ndaemon off;\npid {d}/nginx.pid;\nerror_log {d}/error.log warn;\n\
             events {{ worker_connections 4096; }}\n\
             http {{\n  access_log off;\n  sendfile on;\n  tcp_nopush on;\n{k}  default_type application/octet-stream;\n\
             client_body_temp_path {d}/body;\n\
             server {{ listen {p} reuseport{t}; listen [::]:{p} reuseport{t}; root {d}/www;{r} }}\n}}\n",
            d = dir.display(),
            p = HTTP_PORT,
            t = listen_opts,
            k = page_conf,
            r = report_location
        );
        std::fs::write(dir.join("nginx.conf"), conf)?;
        let mut cmd = command_on(cpu, "ip");
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
        let mut server = HttpServer { dir, tls, page, connections: connections.max(1), child, files: Mutex::new(Default::default()) };
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

    /// The URL scheme flows fetch with.
    pub fn scheme(&self) -> &'static str {
        if self.tls { "https" } else { "http" }
    }

    pub fn tls(&self) -> bool {
        self.tls
    }

    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    pub fn page_protocol(&self) -> Option<PageProtocol> {
        self.page
    }

    /// Makes sure the lab's page of `size` bytes exists (browser::PageLayout); returns
    /// its URL path.
    pub fn page_for(&self, size: u64) -> Result<String> {
        let mut files = self.files.lock().unwrap();
        if files.insert(size) {
            super::browser::PageLayout::of_size(size).write(&self.dir.join("www").join(format!("page-{size}")))?;
        }
        Ok(format!("/page-{size}/index.html"))
    }

    /// What pages reported of their loads so far (one logged query per line).
    pub fn page_reports(&self) -> Result<String> {
        match std::fs::read_to_string(self.dir.join("page-reports.log")) {
            Ok(t) => Ok(t),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
            Err(e) => Err(e.into()),
        }
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

/// A throwaway key and certificate for the lab's nginx (curl does not verify it).
fn self_signed_certificate(dir: &std::path::Path) -> Result<()> {
    let out = std::process::Command::new("openssl")
        .args(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=headstart-lab"])
        .arg("-keyout")
        .arg(dir.join("key.pem"))
        .arg("-out")
        .arg(dir.join("cert.pem"))
        .stdin(std::process::Stdio::null())
        .output()
        .context("running openssl (apt-get install openssl)")?;
    if !out.status.success() {
        bail!("openssl could not make the lab's certificate: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(())
}

/// `program`, run on one core (taskset) or wherever the scheduler puts it.
pub(super) fn command_on(cpu: Option<usize>, program: &str) -> std::process::Command {
    let Some(c) = cpu else { return std::process::Command::new(program) };
    let mut cmd = std::process::Command::new("taskset");
    cmd.args(["-c", &c.to_string(), program]);
    cmd
}

/// Kills the child with SIGKILL if this process dies, even by SIGKILL.
pub(super) fn die_with_parent(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: prctl is async-signal-safe; runs in the child between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
}

/// One HTTP GET with curl from inside `netns`, bound to `local` (HTTPS: TLS 1.3,
/// HTTP/1.1, the certificate not verified). FCT is curl's total time less its name
/// lookup (none for an address literal): from connect() to the last byte, the TLS
/// handshake included. With N connections, N GETs of `path` (1/N of `size`) at once,
/// each on its own connection from local ports local..local+N-1, as a browser
/// fetches a page's objects: FCT is the slowest one's.
#[allow(clippy::too_many_arguments)]
pub fn curl_flow(netns: &str, http: &HttpServer, server: SocketAddr, local: SocketAddr, path: &str, size: u64, timeout: Duration, cpu: Option<usize>) -> Result<ClientFlow> {
    let (scheme, n) = (http.scheme(), http.connections.max(1));
    let host = match server.ip() {
        IpAddr::V6(a) => format!("[{a}]"),
        IpAddr::V4(a) => a.to_string(),
    };
    let url = format!("{scheme}://{host}:{}{path}", server.port());
    let ports = if n == 1 { local.port().to_string() } else { format!("{}-{}", local.port(), local.port() + n as u16 - 1) };
    let start = Instant::now();
    let mut cmd = command_on(cpu, "ip");
    cmd.args(["netns", "exec", netns, "curl", "-s", "-S", "--http1.1"]);
    if n > 1 {
        cmd.args(["--parallel", "--parallel-immediate", "--parallel-max", &n.to_string()]);
    }
    if scheme == "https" {
        cmd.args(["-k", "--tlsv1.3"]);
    }
    cmd.arg("--max-time")
        .arg(format!("{}", timeout.as_secs().max(1)))
        .args(["--interface", &local.ip().to_string(), "--local-port", &ports])
        .args(["-w", "%{time_namelookup} %{time_connect} %{time_total} %{size_download} %{http_code}\\n"]);
    for _ in 0..n {
        cmd.args(["-o", "/dev/null", &url]);
    }
    die_with_parent(&mut cmd);
    let out = cmd.output().context("running curl (apt-get install curl)")?;
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split_whitespace().collect()).collect();
    if !out.status.success() || lines.len() != n as usize || lines.iter().any(|f| f.len() != 5) {
        bail!("curl failed: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    let (mut fct, mut handshake, mut got) = (0.0f64, 0.0f64, 0u64);
    for f in &lines {
        let (lookup, connect, total, bytes, code): (f64, f64, f64, u64, &str) = (f[0].parse()?, f[1].parse()?, f[2].parse()?, f[3].parse()?, f[4]);
        if code != "200" {
            bail!("HTTP {code}");
        }
        fct = fct.max(total - lookup);
        handshake = handshake.max((connect - lookup).max(0.0));
        got += bytes;
    }
    let want = size / u64::from(n) * u64::from(n);
    if got != want {
        bail!("{got} of {want} bytes");
    }
    Ok(ClientFlow { local, start, fct: Duration::from_secs_f64(fct), handshake: Duration::from_secs_f64(handshake), bytes: got })
}
