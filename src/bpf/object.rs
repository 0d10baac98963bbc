//! BPF objects and pinned maps through libbpf-rs (on the vendored libbpf 1.7 of
//! libbpf-sys: Debian's 1.1 cannot load struct_ops here). What this adds: libbpf's
//! messages are captured, so that a verifier rejection reaches the user as one line
//! with the reason, and pinned maps are used through the records of abi.rs.

use super::abi::Record;
use anyhow::{bail, Context, Result};
use libbpf_rs::{ErrorKind, MapCore, MapFlags, MapHandle, Object, ObjectBuilder, PrintLevel, TcHookBuilder, TC_INGRESS};
use std::os::fd::AsFd;
use std::path::Path;
use std::sync::Mutex;

static LIBBPF_LOG: Mutex<String> = Mutex::new(String::new());

fn debug_wanted() -> bool {
    std::env::var_os("HEADSTART_BPF_DEBUG").is_some()
}

fn capture_log(level: PrintLevel, msg: String) {
    if debug_wanted() {
        eprint!("libbpf: {msg}");
    } else if matches!(level, PrintLevel::Debug) {
        return;
    }
    if let Ok(mut log) = LIBBPF_LOG.lock() {
        if log.len() < 64 * 1024 {
            log.push_str(&msg);
        }
    }
}

fn clear_log() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        libbpf_rs::set_print(Some((PrintLevel::Debug, capture_log)));
    });
    if let Ok(mut log) = LIBBPF_LOG.lock() {
        log.clear();
    }
}

/// The most telling line libbpf logged (a verifier or kernel reason), if any.
fn log_reason() -> String {
    let log = LIBBPF_LOG.lock().map(|l| l.clone()).unwrap_or_default();
    // A verifier rejection: its last line before the end marker says why.
    if let Some(end) = log.find("-- END PROG LOAD LOG --") {
        if let Some(reason) = log[..end].lines().rev().map(str::trim).find(|l| !l.is_empty() && !l.starts_with("processed") && !l.starts_with("verification time")) {
            return format!(" (verifier: {reason})");
        }
    }
    let lines: Vec<&str> = log.lines().filter(|l| !l.trim().is_empty()).collect();
    lines
        .iter()
        .rev()
        .find(|l| l.contains("failed") || l.contains("invalid") || l.contains("unknown") || l.contains("not supported"))
        .or(lines.last())
        .map(|l| format!(" ({})", l.trim()))
        .unwrap_or_default()
}

/// An embedded ELF object, 8-byte aligned: libelf reads its structures in place and
/// libbpf keeps pointers into it while the object is open.
#[repr(C, align(8))]
pub struct Aligned<B: ?Sized>(pub B);

/// Opens an embedded object whose LIBBPF_PIN_BY_NAME maps pin under (or are reused
/// from) `pin_root`, applies the map sizes given, and loads it into the kernel.
pub fn open_and_load(name: &str, elf: &'static Aligned<[u8]>, pin_root: &Path, sizes: &[(&str, u32)]) -> Result<Object> {
    clear_log();
    let mut open = ObjectBuilder::default()
        .name(name)
        .and_then(|b| b.pin_root_path(pin_root))
        .and_then(|b| b.open_memory(&elf.0))
        .map_err(|e| anyhow::anyhow!("cannot open BPF object {name}: {e}{}", log_reason()))?;
    for mut m in open.maps_mut() {
        if let Some((_, n)) = sizes.iter().find(|(map, _)| m.name() == *map) {
            m.set_max_entries(*n).with_context(|| format!("setting {} size", m.name().to_string_lossy()))?;
        }
    }
    open.load().map_err(|e| anyhow::anyhow!("the kernel refused the BPF programs of {name}: {e}{}", log_reason()))
}

/// Runs the syscall program `name` of `obj` once (BPF_PROG_RUN) on `ctx`, which the
/// kernel copies in and back; the program's return value.
pub fn run_syscall(obj: &mut Object, name: &str, ctx: &mut [u8]) -> Result<u32> {
    let prog = obj.progs_mut().find(|p| p.name() == name).with_context(|| format!("BPF object has no program {name}"))?;
    let input = libbpf_rs::ProgramInput { context_in: Some(ctx), ..Default::default() };
    let out = prog.test_run(input).map_err(|e| anyhow::anyhow!("running {name}: {e}"))?;
    Ok(out.return_value)
}

/// Registers the struct_ops map `map` (a congestion control) and pins its link at
/// `pin`: the registration then outlives this process until the pin is removed.
pub fn attach_struct_ops_pinned(obj: &mut Object, map: &str, pin: &Path) -> Result<()> {
    let mut m = obj.maps_mut().find(|m| m.name() == map).with_context(|| format!("BPF object has no map {map}"))?;
    let mut link = m.attach_struct_ops().map_err(|e| anyhow::anyhow!("registering {map}: {e}{}", log_reason()))?;
    link.pin(pin).with_context(|| format!("pinning {map} at {}", pin.display()))?;
    // The pin holds the registration now; dropping our handle must not detach it.
    link.disconnect();
    Ok(())
}

/// Replaces the programs behind the registered congestion control pinned at `pin`
/// with the struct_ops map `map` of `obj`, in place (a struct_ops link update): the
/// name stays registered throughout, flows already running keep the programs they
/// have, new flows get these. libbpf-rs has no wrapper for it: one call to libbpf.
pub fn update_struct_ops_pinned(obj: &mut Object, map: &str, pin: &Path) -> Result<()> {
    use libbpf_rs::AsRawLibbpf;
    use std::os::unix::ffi::OsStrExt;
    let m = obj.maps().find(|m| m.name() == map).with_context(|| format!("BPF object has no map {map}"))?;
    let path = std::ffi::CString::new(pin.as_os_str().as_bytes()).context("pin path")?;
    clear_log();
    // SAFETY: a NUL-terminated path; the returned link is checked, then only
    // disconnected (so that destroying our handle leaves the registration) and freed.
    unsafe {
        let link = libbpf_sys::bpf_link__open(path.as_ptr());
        if link.is_null() {
            bail!("opening the registration of {map} at {}: {}", pin.display(), std::io::Error::last_os_error());
        }
        let rc = libbpf_sys::bpf_link__update_map(link, m.as_libbpf_object().as_ptr());
        libbpf_sys::bpf_link__disconnect(link);
        libbpf_sys::bpf_link__destroy(link);
        if rc != 0 {
            bail!("replacing the programs of {map}: {}{}", std::io::Error::from_raw_os_error(-rc), log_reason());
        }
    }
    Ok(())
}

/// Attaches program `prog` of `obj` to the tc ingress hook of `ifindex` (creating the
/// clsact qdisc if needed). Runs in the calling thread's network namespace.
pub fn tc_attach_ingress(obj: &Object, prog: &str, ifindex: i32) -> Result<()> {
    let p = obj.progs().find(|p| p.name() == prog).with_context(|| format!("BPF object has no program {prog}"))?;
    clear_log();
    let mut hook = TcHookBuilder::new(p.as_fd()).ifindex(ifindex).replace(true).handle(TC_HANDLE).priority(TC_PRIORITY).hook(TC_INGRESS);
    hook.create().context("creating the tc ingress hook")?;
    hook.attach().map_err(|e| anyhow::anyhow!("attaching the receive-window program: {e}{}", log_reason()))?;
    Ok(())
}

/// Removes our tc ingress filter from `ifindex`; Ok(false) if it was not there.
/// (libbpf-rs builds a TcHook only around a program fd, which a detach does not
/// need, so this one call goes to libbpf directly.)
pub fn tc_detach_ingress(ifindex: i32) -> Result<bool> {
    use libbpf_sys as sys;
    clear_log(); // libbpf's netlink messages are captured, not printed
    let hook = sys::bpf_tc_hook { sz: std::mem::size_of::<sys::bpf_tc_hook>() as _, ifindex, attach_point: sys::BPF_TC_INGRESS, ..Default::default() };
    let opts = sys::bpf_tc_opts { sz: std::mem::size_of::<sys::bpf_tc_opts>() as _, handle: TC_HANDLE, priority: TC_PRIORITY, ..Default::default() };
    // SAFETY: hook and opts are valid, sized structs for the duration of the call.
    let rc = unsafe { sys::bpf_tc_detach(&hook, &opts) };
    match -rc {
        0 => Ok(true),
        libc::ENOENT | libc::EINVAL => Ok(false),
        e => bail!("detaching: {}", std::io::Error::from_raw_os_error(e)),
    }
}

/// Whether our tc ingress filter is on `ifindex`.
pub fn tc_ingress_attached(ifindex: i32) -> Result<bool> {
    use libbpf_sys as sys;
    clear_log();
    let hook = sys::bpf_tc_hook { sz: std::mem::size_of::<sys::bpf_tc_hook>() as _, ifindex, attach_point: sys::BPF_TC_INGRESS, ..Default::default() };
    let mut opts = sys::bpf_tc_opts { sz: std::mem::size_of::<sys::bpf_tc_opts>() as _, handle: TC_HANDLE, priority: TC_PRIORITY, ..Default::default() };
    // SAFETY: hook and opts are valid, sized structs for the duration of the call.
    let rc = unsafe { sys::bpf_tc_query(&hook, &mut opts) };
    match -rc {
        0 => Ok(true),
        libc::ENOENT | libc::EINVAL => Ok(false),
        e => bail!("querying tc ingress: {}", std::io::Error::from_raw_os_error(e)),
    }
}

const TC_HANDLE: u32 = 0x4853; // "HS"
const TC_PRIORITY: u32 = 1;

/// A pinned map used from userspace by its path, with fixed-size records.
pub struct PinnedMap {
    map: MapHandle,
    pub max_entries: u32,
}

fn not_found(e: &libbpf_rs::Error) -> bool {
    e.kind() == ErrorKind::NotFound
}

impl PinnedMap {
    pub fn open(path: &Path) -> Result<PinnedMap> {
        let map = MapHandle::from_pinned_path(path).map_err(|e| anyhow::anyhow!("{} is not there ({e}): is headstart loaded? (`headstart load`)", path.display()))?;
        Ok(PinnedMap { max_entries: map.max_entries(), map })
    }

    pub fn value_size(&self) -> u32 {
        self.map.value_size()
    }

    /// The map's id (bpf_map_info).
    pub fn id(&self) -> Result<u32> {
        Ok(libbpf_rs::MapInfo::new(self.map.as_fd()).context("map info")?.info.id)
    }

    pub fn key_size(&self) -> u32 {
        self.map.key_size()
    }

    pub fn lookup(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.map.lookup(key, MapFlags::ANY).context("map lookup")
    }

    pub fn get<K: Record, V: Record>(&self, key: &K) -> Result<Option<V>> {
        self.lookup(key.as_bytes())?.map(|v| V::from_bytes(&v)).transpose()
    }

    pub fn update(&self, key: &[u8], value: &[u8]) -> Result<()> {
        self.map.update(key, value, MapFlags::ANY).context("map update")
    }

    pub fn put<K: Record, V: Record>(&self, key: &K, value: &V) -> Result<()> {
        self.update(key.as_bytes(), value.as_bytes())
    }

    /// Deletes `key`; Ok(false) if it was not there.
    pub fn delete(&self, key: &[u8]) -> Result<bool> {
        match self.map.delete(key) {
            Ok(()) => Ok(true),
            Err(e) if not_found(&e) => Ok(false),
            Err(e) => Err(anyhow::Error::new(e).context("map delete")),
        }
    }

    pub fn keys(&self) -> Vec<Vec<u8>> {
        self.map.keys().collect()
    }

    /// The map's descriptor and the options every batch call here passes (none set).
    fn batch_call(&self) -> (std::os::fd::RawFd, libbpf_sys::bpf_map_batch_opts) {
        let opts = libbpf_sys::bpf_map_batch_opts { sz: std::mem::size_of::<libbpf_sys::bpf_map_batch_opts>() as _, elem_flags: 0, flags: 0 };
        (std::os::fd::AsRawFd::as_raw_fd(&self.map.as_fd()), opts)
    }

    /// Calls `f` with every (key, value), read 4,096 at a time (BPF_MAP_LOOKUP_BATCH):
    /// a million entries in ~250 system calls instead of two million, held a batch at
    /// a time. (libbpf-rs's batch iterator stops at the first batch shorter than asked,
    /// which a hash map returns whenever a bucket does not fit: 4,095 of a million.)
    pub fn for_each(&self, mut f: impl FnMut(&[u8], &[u8]) -> Result<()>) -> Result<()> {
        const BATCH: usize = 4096;
        let (ks, vs) = (self.key_size() as usize, self.value_size() as usize);
        let (mut keys, mut values) = (vec![0u8; ks * BATCH], vec![0u8; vs * BATCH]);
        // The position between calls: a hash map's bucket index (a u32).
        let (mut at, mut next) = ([0u8; 8], [0u8; 8]);
        let (fd, opts) = self.batch_call();
        for first in std::iter::once(true).chain(std::iter::repeat(false)) {
            let mut count = BATCH as u32;
            // SAFETY: the buffers hold BATCH keys and values of the map's sizes and
            // count says so; the position buffers are larger than a bucket index.
            let ret = unsafe {
                libbpf_sys::bpf_map_lookup_batch(
                    fd,
                    if first { std::ptr::null_mut() } else { at.as_mut_ptr().cast() },
                    next.as_mut_ptr().cast(),
                    keys.as_mut_ptr().cast(),
                    values.as_mut_ptr().cast(),
                    &mut count,
                    &opts,
                )
            };
            let n = (count as usize).min(BATCH);
            for i in 0..n {
                f(&keys[i * ks..(i + 1) * ks], &values[i * vs..(i + 1) * vs])?;
            }
            match ret {
                0 => at = next,
                r if r == -libc::ENOENT => return Ok(()), // the last batch
                r => return Err(std::io::Error::from_raw_os_error(-r)).context("batch lookup"),
            }
        }
        Ok(())
    }

    /// The entries there are now (one batched walk).
    pub fn count(&self) -> Result<usize> {
        let mut n = 0;
        self.for_each(|_, _| {
            n += 1;
            Ok(())
        })?;
        Ok(n)
    }

    /// Writes many entries, 4,096 per system call (BPF_MAP_UPDATE_BATCH): `keys` and
    /// `values` hold them back to back, in the map's record sizes.
    pub fn update_batch(&self, keys: &[u8], values: &[u8]) -> Result<()> {
        const BATCH: usize = 4096;
        let (ks, vs) = (self.key_size() as usize, self.value_size() as usize);
        anyhow::ensure!(keys.len().is_multiple_of(ks) && values.len().is_multiple_of(vs) && keys.len() / ks == values.len() / vs, "batch of mismatched records");
        let (fd, opts) = self.batch_call();
        for (k, v) in keys.chunks(ks * BATCH).zip(values.chunks(vs * BATCH)) {
            let mut count = (k.len() / ks) as u32;
            // SAFETY: the chunks hold `count` keys and values of the map's sizes.
            let ret = unsafe { libbpf_sys::bpf_map_update_batch(fd, k.as_ptr().cast(), v.as_ptr().cast(), &mut count, &opts) };
            if ret != 0 {
                return Err(std::io::Error::from_raw_os_error(-ret)).context("batch update");
            }
        }
        Ok(())
    }

    /// Deletes many entries, 4,096 per system call (BPF_MAP_DELETE_BATCH). A key no
    /// longer there (a flow deleted it, the LRU evicted it) is passed over, as `delete`
    /// does: the kernel stops at it and says how many it deleted before.
    pub fn delete_batch(&self, keys: &[u8]) -> Result<()> {
        const BATCH: usize = 4096;
        let ks = self.key_size() as usize;
        anyhow::ensure!(keys.len().is_multiple_of(ks), "batch of mismatched keys");
        let (fd, opts) = self.batch_call();
        let mut rest = keys;
        while !rest.is_empty() {
            let k = &rest[..rest.len().min(ks * BATCH)];
            let mut count = (k.len() / ks) as u32;
            // SAFETY: the slice holds `count` keys of the map's size.
            let ret = unsafe { libbpf_sys::bpf_map_delete_batch(fd, k.as_ptr().cast(), &mut count, &opts) };
            let done = match ret {
                0 => k.len() / ks,
                r if r == -libc::ENOENT => count as usize + 1, // the missing key, passed over
                r => return Err(std::io::Error::from_raw_os_error(-r)).context("batch delete"),
            };
            rest = &rest[(done * ks).min(rest.len())..];
        }
        Ok(())
    }

    /// Sets a per-CPU u64 slot to `value` on the first CPU and 0 on the others (so
    /// that its sum is `value`).
    pub fn percpu_set_first(&self, index: u32, value: u64) -> Result<()> {
        let cpus = libbpf_rs::num_possible_cpus().context("counting CPUs")?;
        let values: Vec<Vec<u8>> = (0..cpus).map(|c| if c == 0 { value.to_ne_bytes().to_vec() } else { vec![0; 8] }).collect();
        self.map.update_percpu(&index.to_ne_bytes(), &values, MapFlags::ANY).context("counter update")
    }

    /// A per-CPU u64 slot summed over CPUs (0 if absent).
    pub fn percpu_sum(&self, index: u32) -> Result<u64> {
        let per_cpu = self.map.lookup_percpu(&index.to_ne_bytes(), MapFlags::ANY).context("counter lookup")?.unwrap_or_default();
        Ok(per_cpu.iter().map(|v| u64::from_ne_bytes(v[..8].try_into().unwrap_or([0; 8]))).sum())
    }
}

/// Run-time statistics of a controller's programs (needs kernel.bpf_stats_enabled).
#[derive(Clone, Debug, Default)]
pub struct ProgStats {
    pub calls: u64,
    pub run_ns: u64,
    /// The per-ACK hook alone (pkts_acked or cong_control).
    pub ack_calls: u64,
    pub ack_run_ns: u64,
}

/// Sums the statistics of every loaded program named `<cc>_*`; None if there is none.
pub fn prog_stats(cc: &str) -> Option<ProgStats> {
    let prefix = format!("{cc}_");
    let mut st = ProgStats::default();
    let mut found = false;
    for info in libbpf_rs::query::ProgInfoIter::default() {
        let name = info.name.to_string_lossy();
        if !name.starts_with(&prefix) {
            continue;
        }
        found = true;
        st.calls += info.run_cnt;
        st.run_ns += info.run_time_ns;
        if name.ends_with("_acked") || name.ends_with("_main") {
            st.ack_calls += info.run_cnt;
            st.ack_run_ns += info.run_time_ns;
        }
    }
    found.then_some(st)
}
