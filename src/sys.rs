//! Thin wrappers over the system calls and commands the tool needs.

use anyhow::{bail, Context, Result};
use std::fs::File;
use std::os::fd::AsRawFd;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// CLOCK_MONOTONIC in nanoseconds: the emulator's and the traffic's common clock.
pub fn mono_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Moves the calling thread into the network namespace behind `ns` (only the network
/// namespace: the mount namespace, and so /sys/fs/bpf, stays the host's).
pub fn enter_netns(ns: &File) -> Result<()> {
    // SAFETY: setns on a valid fd; affects only the calling thread.
    let rc = unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) };
    if rc != 0 {
        bail!("setns: {}", std::io::Error::last_os_error());
    }
    Ok(())
}

/// Runs `f` to completion on a thread of its own inside the network namespace `ns`
/// (optionally pinned to `cpu`), and returns its result: the caller's namespace is
/// never changed.
pub fn run_in_netns<T: Send + 'static>(ns: &File, cpu: Option<usize>, f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    let ns = ns.try_clone()?;
    std::thread::spawn(move || {
        enter_netns(&ns)?;
        if let Some(c) = cpu {
            pin_to_cpu(c)?;
        }
        f()
    })
    .join()
    .map_err(|_| anyhow::anyhow!("namespace thread panicked"))?
}

/// `run_in_netns` for a namespace named as `ip netns` lists it, or here for None.
pub fn in_netns<T: Send + 'static>(name: Option<&str>, f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    match name {
        Some(n) => {
            let ns = File::open(std::path::Path::new(NETNS_DIR).join(n)).with_context(|| format!("no network namespace '{n}'"))?;
            run_in_netns(&ns, None, f)
        }
        None => f(),
    }
}

/// Where `ip netns` keeps its named network namespaces.
pub const NETNS_DIR: &str = "/var/run/netns";

/// SO_NETNS_COOKIE (asm-generic/socket.h): the network namespace's cookie, the key the
/// controllers give its flows' entries (bpf/records.h, struct hs_peer).
const SO_NETNS_COOKIE: libc::c_int = 71;

/// The cookie of the calling thread's network namespace.
fn own_netns_cookie() -> Result<u64> {
    // SAFETY: a throwaway datagram socket, closed below; getsockopt fills a u64 we own.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        anyhow::ensure!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
        let mut cookie = 0u64;
        let mut len = std::mem::size_of::<u64>() as libc::socklen_t;
        let rc = libc::getsockopt(fd, libc::SOL_SOCKET, SO_NETNS_COOKIE, (&mut cookie as *mut u64).cast(), &mut len);
        let err = std::io::Error::last_os_error();
        libc::close(fd);
        anyhow::ensure!(rc == 0, "SO_NETNS_COOKIE: {err}");
        Ok(cookie)
    }
}

/// The inode number this kernel gives the host's network namespace (init_net), fixed
/// (include/linux/proc_ns.h); the controllers tell the host's namespace by it too.
const NET_NS_INIT_INO: u64 = 0xEFFF_FFF9;

/// Refuses what cannot be an `ip netns` name (a path, ".", "..", longer than a file
/// name), before it is joined to NETNS_DIR or kept in a saved table.
pub fn check_netns_name(name: &str) -> Result<()> {
    anyhow::ensure!(!name.is_empty() && name.len() <= 255 && !name.contains('/') && name != "." && name != "..", "'{name}' is not a network namespace name");
    Ok(())
}

fn netns_path(name: &str) -> Result<std::path::PathBuf> {
    check_netns_name(name)?;
    Ok(std::path::Path::new(NETNS_DIR).join(name))
}

/// A network namespace's inode number (the flows' key in hs_rwnd and hs_outcomes), by
/// its `ip netns` name, or this process's.
pub fn netns_ino(name: Option<&str>) -> Result<u32> {
    let path = match name {
        Some(n) => netns_path(n)?,
        None => std::path::PathBuf::from("/proc/self/ns/net"),
    };
    let md = std::fs::metadata(&path).with_context(|| format!("no network namespace {}", path.display()))?;
    Ok(std::os::unix::fs::MetadataExt::ino(&md) as u32)
}

/// The path table's netns of a namespace named as `ip netns` names it: 0 for the
/// host's, its cookie for any other.
pub fn netns_key(name: &str) -> Result<u64> {
    let ino = std::fs::metadata(netns_path(name)?).map(|m| std::os::unix::fs::MetadataExt::ino(&m)).with_context(|| format!("no network namespace '{name}'"))?;
    if ino == NET_NS_INIT_INO {
        return Ok(0);
    }
    in_netns(Some(name), own_netns_cookie)
}

/// The named network namespaces (`ip netns`) by their table netns; unreadable ones are
/// left out. The host's is not among them (its netns is 0).
pub fn named_netns() -> std::collections::HashMap<u64, String> {
    let names = std::fs::read_dir(NETNS_DIR)
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect::<Vec<_>>())
        .unwrap_or_default();
    names.into_iter().filter_map(|n| netns_key(&n).ok().filter(|&k| k != 0).map(|k| (k, n))).collect()
}

/// Pins the calling thread to one CPU.
pub fn pin_to_cpu(cpu: usize) -> Result<()> {
    // SAFETY: cpu_set_t is plain data; sched_setaffinity(0) targets this thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            bail!("sched_setaffinity({cpu}): {}", std::io::Error::last_os_error());
        }
    }
    Ok(())
}

pub fn online_cpus() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Runs a command, failing with its stderr when it exits non-zero.
pub fn run(program: &str, args: &[&str]) -> Result<String> {
    let out = Command::new(program)
        .args(args)
        .output()
        .with_context(|| format!("cannot run {program}"))?;
    if !out.status.success() {
        bail!(
            "{} {} failed: {}",
            program,
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

pub fn require_root() -> Result<()> {
    if !is_root() {
        bail!("this command needs root (network namespaces, TUN devices, BPF): run it with sudo");
    }
    Ok(())
}

/// Set by SIGINT/SIGTERM; long loops poll it and unwind, so that Drop impls clean up.
#[derive(Clone)]
pub struct Interrupt(Arc<AtomicBool>);

impl Interrupt {
    pub fn install() -> Result<Interrupt> {
        let flag = Arc::new(AtomicBool::new(false));
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM, signal_hook::consts::SIGHUP] {
            signal_hook::flag::register(sig, flag.clone()).context("installing signal handler")?;
        }
        Ok(Interrupt(flag))
    }
    pub fn raised(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
    pub fn check(&self) -> Result<()> {
        if self.raised() {
            bail!("interrupted");
        }
        Ok(())
    }
    /// Sleeps for `d`, or less if interrupted (then an error).
    pub fn sleep(&self, d: std::time::Duration) -> Result<()> {
        let end = std::time::Instant::now() + d;
        loop {
            self.check()?;
            let left = end.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            std::thread::sleep(left.min(std::time::Duration::from_millis(100)));
        }
    }
}

/// CLOCK_BOOTTIME in nanoseconds: the clock the BPF side stamps table entries with.
pub fn boot_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Seconds since the Unix epoch (the wall clock, for anything written to disk).
pub fn unix_s() -> u64 {
    unix_ms() / 1000
}

/// Milliseconds since the Unix epoch (the fleet's entries carry their store time so).
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// Writes `data` to `file` whole or not at all, readable by the owner only: through a
/// temporary file created exclusively (O_EXCL, 0600) beside it — never a name someone
/// could have planted a symlink at — synced, then renamed over the target.
pub fn write_private_atomically(file: &std::path::Path, data: &[u8]) -> Result<()> {
    write_private_atomically_with(file, |w| w.write_all(data))
}

/// As write_private_atomically, the contents written by `write` as they are made (a
/// saved table of a million entries is not held whole in memory).
pub fn write_private_atomically_with(file: &std::path::Path, write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut write = Some(write);
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let base = file.file_name().with_context(|| format!("{} is not a file name", file.display()))?.to_string_lossy().into_owned();
    for attempt in 0..16u32 {
        let tmp = dir.join(format!(".{base}.{}.{}.{attempt}.tmp", std::process::id(), mono_ns() % 1_000_000_007));
        let mut f = match std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).custom_flags(libc::O_NOFOLLOW).open(&tmp) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(anyhow::Error::new(e).context(format!("cannot create a temporary file in {}", dir.display()))),
        };
        let mut out = std::io::BufWriter::new(&mut f);
        let contents = (write.take().expect("written once"))(&mut out).and_then(|_| out.flush());
        drop(out);
        let written = contents.and_then(|_| f.sync_all()).and_then(|_| std::fs::rename(&tmp, file));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(anyhow::Error::new(e).context(format!("cannot write {}", file.display())));
        }
        return Ok(());
    }
    bail!("cannot create a temporary file in {}", dir.display())
}

/// A new directory under the temporary folder, made with mkdtemp (0700, a random name
/// nobody could have planted a link at): `<tmp>/<prefix>-XXXXXX`.
pub fn private_temp_dir(prefix: &str) -> Result<std::path::PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let template = std::env::temp_dir().join(format!("{prefix}-XXXXXX"));
    let mut bytes = std::ffi::CString::new(template.into_os_string().into_vec())?.into_bytes_with_nul();
    // SAFETY: mkdtemp rewrites the XXXXXX of the NUL-terminated buffer we own.
    let p = unsafe { libc::mkdtemp(bytes.as_mut_ptr() as *mut libc::c_char) };
    if p.is_null() {
        bail!("cannot create a temporary directory: {}", std::io::Error::last_os_error());
    }
    bytes.pop();
    Ok(std::path::PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

/// The lock that serializes headstart's commands that change state (two `up`s, a
/// `save` during a `restore`): held while it lives, released on drop or exit.
pub struct CommandLock {
    _file: File,
}

pub const COMMAND_LOCK: &str = "/run/headstart.lock";

impl CommandLock {
    /// Waits up to 30 s for the other command to finish.
    pub fn acquire() -> Result<CommandLock> {
        use std::os::unix::fs::OpenOptionsExt;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(COMMAND_LOCK)
            .with_context(|| format!("cannot open {COMMAND_LOCK}"))?;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            // SAFETY: flock on a file descriptor we own.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
                return Ok(CommandLock { _file: file });
            }
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EWOULDBLOCK) {
                bail!("cannot lock {COMMAND_LOCK}: {e}");
            }
            if std::time::Instant::now() > deadline {
                bail!("another headstart command has held {COMMAND_LOCK} for 30 s; nothing changed");
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

/// Most a config or state file may hold.
pub const SMALL_FILE_LIMIT: u64 = 1 << 20;
/// Most a saved path table may hold: ~4 M entries of ~250 bytes.
pub const TABLE_FILE_LIMIT: u64 = 1 << 30;

/// The text of the regular file at `path`, at most `limit` bytes. A FIFO, device or
/// directory is refused before it is read (one could block forever, /dev/zero never
/// ends), as is a larger file. Errors keep io::ErrorKind::NotFound for a missing file.
pub fn read_regular_file(path: &std::path::Path, limit: u64) -> std::io::Result<String> {
    use std::io::{Error, ErrorKind, Read};
    let f = open_regular_file(path, limit)?;
    let too_big = || Error::new(ErrorKind::InvalidData, format!("larger than {} bytes", limit));
    let mut bytes = Vec::with_capacity(f.metadata()?.len() as usize);
    f.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_big()); // it grew while read
    }
    String::from_utf8(bytes).map_err(|_| Error::new(ErrorKind::InvalidData, "not UTF-8 text"))
}

/// The regular file at `path`, opened for reading if it is at most `limit` bytes now
/// (a reader should still stop at `limit`: it may grow). A FIFO, device or directory
/// is refused before anything is read.
pub fn open_regular_file(path: &std::path::Path, limit: u64) -> std::io::Result<File> {
    use std::io::{Error, ErrorKind};
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: opening a FIFO with no writer would block before fstat could refuse it.
    let f = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    let md = f.metadata()?;
    if !md.is_file() {
        return Err(Error::new(ErrorKind::InvalidInput, "not a regular file"));
    }
    if md.len() > limit {
        return Err(Error::new(ErrorKind::InvalidData, format!("larger than {} bytes", limit)));
    }
    Ok(f)
}

/// SIGINT, SIGTERM and SIGHUP held back while it lives (delivered when it drops):
/// for the few calls that must not be cut in half.
pub struct SignalsDeferred {
    old: libc::sigset_t,
}

impl SignalsDeferred {
    pub fn new() -> Result<SignalsDeferred> {
        // SAFETY: sigset_t is plain data, filled by sigemptyset/sigaddset; the mask is
        // changed for the calling thread only.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                libc::sigaddset(&mut set, s);
            }
            anyhow::ensure!(libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old) == 0, "cannot block signals");
            Ok(SignalsDeferred { old })
        }
    }
}

impl Drop for SignalsDeferred {
    fn drop(&mut self) {
        // SAFETY: puts back the mask saved by new().
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 45, item 12: the lab's nginx folder and the tests' scratch folders were
    /// `/tmp/<prefix>-<pid>`, which a local user could plant first (a symlink to a
    /// folder of theirs). A private one is new each time, owner-only, and never a name
    /// planted before it.
    #[test]
    fn a_private_temp_dir_is_new_owner_only_and_never_a_planted_name() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let planted = std::env::temp_dir().join(format!("headstart-planted-{}", std::process::id()));
        let _ = std::fs::remove_file(&planted);
        std::os::unix::fs::symlink("/", &planted).unwrap();
        let (a, b) = (private_temp_dir("headstart-planted").unwrap(), private_temp_dir("headstart-planted").unwrap());
        assert!(a != b && a != planted && b != planted, "{a:?} {b:?}");
        for d in [&a, &b] {
            let md = std::fs::symlink_metadata(d).unwrap();
            assert!(md.is_dir() && md.permissions().mode() & 0o777 == 0o700 && md.uid() == unsafe { libc::geteuid() }, "{d:?}");
            std::fs::remove_dir(d).unwrap();
        }
        std::fs::remove_file(&planted).unwrap();
    }
}
