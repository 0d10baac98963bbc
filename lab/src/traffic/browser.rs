//! The page mode: headless Chromium (Debian's) loading pages of many objects from the
//! lab's nginx over HTTPS, HTTP/1.1 or HTTP/2, one fresh browser (no cache, no
//! history) per load. The page load time is the page's own navigation timing
//! (loadEventStart: from the navigation's start, through the handshakes, to the
//! moment every object has arrived), which the page reports to the server when it
//! has loaded; the server logs it and the lab reads it there.

use super::http::{command_on, die_with_parent, HttpServer};
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

/// The lab's pages, by total size (every byte the browser fetches: the HTML and its
/// objects). A page of S bytes has 20 objects at 0.5 MB or less, 100 at 5 MB or more,
/// and in between one more per 56 KB; of them 2 style sheets and 3 scripts in the
/// head (a browser waits for these before it renders), the rest images in the body.
/// Object sizes vary over a fixed spread (1 to 8 units), the same every run.
#[derive(Clone, Debug, PartialEq)]
pub struct PageLayout {
    pub html_bytes: u64,
    pub styles: Vec<u64>,
    pub scripts: Vec<u64>,
    pub images: Vec<u64>,
}

const HTML_BYTES: u64 = 12 * 1024;

/// A valid 1x1 RGB PNG (IHDR, IDAT, IEND).
const PNG_1X1: [u8; 69] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00,
    0x00, 0x00, 0x90, 0x77, 0x53, 0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x68, 0x68, 0x68, 0x00, 0x00, 0x03, 0x04, 0x01, 0x81,
    0x75, 0x2e, 0x01, 0xbc, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

impl PageLayout {
    pub fn of_size(total: u64) -> PageLayout {
        let mb = total as f64 / 1e6;
        let objects = (20.0 + (mb - 0.5) * 80.0 / 4.5).round().clamp(20.0, 100.0) as usize;
        let html_bytes = HTML_BYTES.min(total / 4);
        let rest = total - html_bytes;
        // Weights 1..8 in a scrambled but fixed order; the last object takes the remainder.
        let weights: Vec<u64> = (0..objects).map(|i| 1 + (i as u64 * 5 + 3) % 8).collect();
        let sum: u64 = weights.iter().sum();
        let mut sizes: Vec<u64> = weights.iter().map(|w| rest * w / sum).collect();
        let given: u64 = sizes.iter().sum();
        *sizes.last_mut().unwrap() += rest - given;
        let images = sizes.split_off(5);
        let scripts = sizes.split_off(2);
        PageLayout { html_bytes, styles: sizes, scripts, images }
    }

    pub fn objects(&self) -> usize {
        self.styles.len() + self.scripts.len() + self.images.len()
    }

    pub fn total(&self) -> u64 {
        self.html_bytes + self.styles.iter().chain(&self.scripts).chain(&self.images).sum::<u64>()
    }

    /// Writes the page under `dir` (index.html, s*.css, j*.js, i*.png). Style sheets and
    /// scripts are comments (valid, nothing to run); images a valid 1x1 PNG padded with
    /// zeros after its end to their size. (Zeros alone do not decode, and the browser
    /// stops fetching an image that fails to: over HTTP/1.1 by closing the connection.)
    pub fn write(&self, dir: &std::path::Path) -> Result<()> {
        std::fs::create_dir_all(dir)?;
        let filler = |path: std::path::PathBuf, open: &str, close: &str, size: u64| -> Result<()> {
            let mut f = std::fs::File::create(path)?;
            let body = size.saturating_sub((open.len() + close.len()) as u64) as usize;
            f.write_all(open.as_bytes())?;
            f.write_all(&vec![b'x'; body])?;
            f.write_all(close.as_bytes())?;
            Ok(())
        };
        let mut head = String::new();
        for (i, &s) in self.styles.iter().enumerate() {
            filler(dir.join(format!("s{i}.css")), "/*", "*/", s)?;
            head.push_str(&format!("<link rel=\"stylesheet\" href=\"s{i}.css\">\n"));
        }
        for (i, &s) in self.scripts.iter().enumerate() {
            filler(dir.join(format!("j{i}.js")), "/*", "*/", s)?;
            head.push_str(&format!("<script src=\"j{i}.js\"></script>\n"));
        }
        let mut body = String::new();
        for (i, &s) in self.images.iter().enumerate() {
            let mut f = std::fs::File::create(dir.join(format!("i{i}.png")))?;
            f.write_all(&PNG_1X1)?;
            f.set_len(s.max(PNG_1X1.len() as u64))?;
            body.push_str(&format!("<img src=\"i{i}.png\" width=\"64\" height=\"64\">\n"));
        }
        // At the load event the page reports its own timing to /plt (the query names the load).
        let report = "<script>addEventListener('load', () => setTimeout(() => {\n\
            const n = performance.getEntriesByType('navigation')[0];\n\
            const r = performance.getEntriesByType('resource');\n\
            const bytes = r.reduce((sum, e) => sum + e.encodedBodySize, n.encodedBodySize);\n\
            fetch('/plt?' + location.search.slice(1) + '&ms=' + n.loadEventStart.toFixed(2) + '&objects=' + r.length\n\
              + '&bytes=' + bytes + '&proto=' + n.nextHopProtocol + '&connect_ms=' + (n.connectEnd - n.connectStart).toFixed(2), {keepalive: true});\n\
            }, 0));</script>\n";
        let mut html = format!("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>headstart lab page</title>\n{report}{head}</head>\n<body>\n{body}");
        let pad = (self.html_bytes as usize).saturating_sub(html.len() + "</body></html>\n".len() + 7);
        html.push_str(&format!("<!--{}-->", "p".repeat(pad)));
        html.push_str("</body></html>\n");
        std::fs::write(dir.join("index.html"), html)?;
        Ok(())
    }
}

/// One page load as the page measured it.
#[derive(Clone, Debug)]
pub struct PageLoad {
    pub start: Instant,
    /// loadEventStart: navigation start to every object loaded.
    pub load_time: Duration,
    /// The HTML's connection: TCP and TLS handshakes.
    pub connect: Duration,
    /// Objects the browser fetched (the HTML not counted).
    pub objects: u32,
    /// Body bytes the browser received, the HTML's and every object's.
    pub bytes: u64,
    /// The HTML's protocol as the browser negotiated it (h2, http/1.1).
    pub protocol: String,
}

/// Loads `path` from `server` with a fresh headless Chromium inside `netns`, on core
/// `cpu` if given; `load_id` names this load in the server's report log.
pub fn page_load(netns: &str, http: &HttpServer, server: SocketAddr, path: &str, load_id: u64, timeout: Duration, cpu: Option<usize>) -> Result<PageLoad> {
    let host = match server.ip() {
        IpAddr::V6(a) => format!("[{a}]"),
        IpAddr::V4(a) => a.to_string(),
    };
    let url = format!("https://{host}:{}{path}?load={load_id}", server.port());
    let profile = http.dir().join(format!("browser-{load_id}"));
    let mut cmd = command_on(cpu, "ip");
    cmd.args(["netns", "exec", netns, "chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-breakpad", "--disable-crash-reporter"])
        .args(["--ignore-certificate-errors", "--no-first-run", "--no-default-browser-check", "--disable-background-networking"])
        .args(["--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-default-apps", "--mute-audio"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(&url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // Its own process group, so that every process the browser starts goes with it.
    use std::os::unix::process::CommandExt;
    // SAFETY: setsid is async-signal-safe; it runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::setsid();
            Ok(())
        });
    }
    die_with_parent(&mut cmd);
    let start = Instant::now();
    let child = cmd.spawn().context("starting chromium (apt-get install chromium)")?;
    let browser = Browser { pgid: child.id() as i32, child };
    let needle = format!("load={load_id}&");
    let deadline = start + timeout;
    let line = loop {
        if let Some(l) = http.page_reports()?.lines().find(|l| l.contains(&needle)) {
            break l.to_string();
        }
        if Instant::now() > deadline {
            bail!("the page did not load within {} s", timeout.as_secs());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(browser);
    let _ = std::fs::remove_dir_all(&profile);
    parse_report(&line, start)
}

/// The page's report, as nginx logged its query: load=N&ms=..&objects=..&bytes=..&proto=..&connect_ms=..
fn parse_report(line: &str, start: Instant) -> Result<PageLoad> {
    let query = line.trim().split_once('?').map(|(_, q)| q).unwrap_or(line.trim());
    let field = |k: &str| query.split('&').find_map(|kv| kv.strip_prefix(k).and_then(|v| v.strip_prefix('='))).with_context(|| format!("the page's report has no {k}: {line}"));
    let ms: f64 = field("ms")?.parse()?;
    let connect_ms: f64 = field("connect_ms")?.parse()?;
    if !(ms.is_finite() && ms > 0.0 && connect_ms.is_finite() && connect_ms >= 0.0) {
        bail!("the page reported no load time: {line}");
    }
    Ok(PageLoad {
        start,
        load_time: Duration::from_secs_f64(ms / 1e3),
        connect: Duration::from_secs_f64(connect_ms / 1e3),
        objects: field("objects")?.parse()?,
        bytes: field("bytes")?.parse()?,
        protocol: field("proto")?.to_string(),
    })
}

/// A running browser: killed with every process it started when dropped.
struct Browser {
    child: std::process::Child,
    pgid: i32,
}

impl Drop for Browser {
    fn drop(&mut self) {
        // SAFETY: signals to the process group this browser leads.
        unsafe { libc::kill(-self.pgid, libc::SIGKILL) };
        let _ = self.child.wait();
        // Its other processes exit a moment later; the next load must not share the core with them.
        let deadline = Instant::now() + Duration::from_secs(5);
        // SAFETY: signal 0 only asks whether the group still has a process.
        while unsafe { libc::kill(-self.pgid, 0) } == 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_have_the_documented_shape() {
        for (size, objects) in [(500_000, 20), (2_000_000, 47), (5_000_000, 100), (100_000, 20), (20_000_000, 100)] {
            let p = PageLayout::of_size(size);
            assert_eq!((p.objects(), p.total()), (objects, size), "{size}");
            assert_eq!((p.styles.len(), p.scripts.len()), (2, 3));
            let (min, max) = (p.images.iter().min().unwrap(), p.images.iter().max().unwrap());
            assert!(*max >= 4 * *min, "sizes spread: {min}..{max}");
        }
    }

    #[test]
    fn the_report_is_read_back() {
        let l = parse_report("/plt?load=7&ms=812.40&objects=47&bytes=2097152&proto=h2&connect_ms=101.20\n", Instant::now()).unwrap();
        assert_eq!((l.load_time, l.objects, l.bytes, l.protocol.as_str()), (Duration::from_micros(812_400), 47, 2_097_152, "h2"));
        assert!(parse_report("/plt?load=7&ms=0&objects=1&bytes=1&proto=h2&connect_ms=1", Instant::now()).is_err());
        assert!(parse_report("/plt?load=7", Instant::now()).is_err());
    }

    #[test]
    fn a_page_file_is_as_big_as_its_layout_says() {
        let dir = headstart::sys::private_temp_dir("headstart-page-test").unwrap().join("page");
        let p = PageLayout::of_size(600_000);
        p.write(&dir).unwrap();
        let on_disk: u64 = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.metadata().unwrap().len()).sum();
        let _ = std::fs::remove_dir_all(dir.parent().unwrap());
        assert_eq!(on_disk, p.total());
    }
}
