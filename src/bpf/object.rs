//! A small safe layer over the vendored libbpf (libbpf-sys): open an embedded BPF
//! object, pin its shared maps by name, load it, attach struct_ops and tc programs,
//! and use pinned maps by path. libbpf's own messages are captured, so that a
//! verifier rejection reaches the user as one line with the reason.

use anyhow::{bail, Context, Result};
use libbpf_sys as sys;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};
use std::path::Path;
use std::sync::Mutex;

static LIBBPF_LOG: Mutex<String> = Mutex::new(String::new());

unsafe extern "C" {
    fn vsnprintf(buf: *mut c_char, n: usize, fmt: *const c_char, ap: *mut sys::__va_list_tag) -> c_int;
}

unsafe extern "C" fn capture_log(level: sys::libbpf_print_level, fmt: *const c_char, ap: *mut sys::__va_list_tag) -> c_int {
    if level == sys::LIBBPF_DEBUG && std::env::var_os("HEADSTART_BPF_DEBUG").is_none() {
        return 0;
    }
    let mut buf = vec![0 as c_char; 1 << 16];
    // SAFETY: libbpf hands a valid format and va_list; the buffer bounds the output.
    let n = unsafe { vsnprintf(buf.as_mut_ptr(), buf.len(), fmt, ap) };
    if n > 0 {
        // SAFETY: vsnprintf NUL-terminates within the buffer.
        let s = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy();
        if std::env::var_os("HEADSTART_BPF_DEBUG").is_some() {
            eprint!("libbpf: {s}");
        }
        if let Ok(mut log) = LIBBPF_LOG.lock() {
            if log.len() < 64 * 1024 {
                log.push_str(&s);
            }
        }
    }
    0
}

fn install_log() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: registering a print callback with the right signature.
        unsafe { sys::libbpf_set_print(Some(capture_log)) };
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

fn errno_str(rc: c_int) -> String {
    std::io::Error::from_raw_os_error(rc.abs()).to_string()
}

fn cstring(p: &Path) -> Result<CString> {
    CString::new(p.as_os_str().as_encoded_bytes()).context("path contains NUL")
}

pub struct Object {
    ptr: *mut sys::bpf_object,
    // libbpf keeps pointers into the buffer and the option strings until close; the
    // buffer is u64-aligned because libelf reads ELF structures from it in place.
    _buf: Vec<u64>,
    _name: CString,
    _pin_root: CString,
}

impl Object {
    /// Opens `bytes` (an ELF BPF object); maps marked LIBBPF_PIN_BY_NAME pin under
    /// `pin_root` (and are reused from there if already pinned).
    pub fn open(name: &str, bytes: &[u8], pin_root: &Path) -> Result<Object> {
        install_log();
        let mut buf = vec![0u64; bytes.len().div_ceil(8)];
        // SAFETY: buf has at least bytes.len() bytes.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf.as_mut_ptr() as *mut u8, bytes.len()) };
        let name_c = CString::new(name)?;
        let pin_c = cstring(pin_root)?;
        let opts = sys::bpf_object_open_opts {
            sz: std::mem::size_of::<sys::bpf_object_open_opts>() as _,
            object_name: name_c.as_ptr(),
            pin_root_path: pin_c.as_ptr(),
            ..Default::default()
        };
        // SAFETY: buf outlives the object (kept in the struct); opts is valid for the call.
        let ptr = unsafe { sys::bpf_object__open_mem(buf.as_ptr() as *const c_void, bytes.len() as _, &opts) };
        if ptr.is_null() {
            bail!("cannot open BPF object {name}{}", log_reason());
        }
        Ok(Object { ptr, _buf: buf, _name: name_c, _pin_root: pin_c })
    }

    fn maps(&self) -> Vec<*mut sys::bpf_map> {
        let mut out = Vec::new();
        let mut m = std::ptr::null_mut();
        loop {
            // SAFETY: iterating the object's maps.
            m = unsafe { sys::bpf_object__next_map(self.ptr, m) };
            if m.is_null() {
                return out;
            }
            out.push(m);
        }
    }

    fn map(&self, name: &str) -> Result<*mut sys::bpf_map> {
        for m in self.maps() {
            // SAFETY: bpf_map__name returns a NUL-terminated string owned by libbpf.
            if unsafe { CStr::from_ptr(sys::bpf_map__name(m)) }.to_str() == Ok(name) {
                return Ok(m);
            }
        }
        bail!("BPF object has no map {name}")
    }

    pub fn set_max_entries(&mut self, map: &str, n: u32) -> Result<()> {
        let m = self.map(map)?;
        // SAFETY: valid map of an opened, not yet loaded object.
        let rc = unsafe { sys::bpf_map__set_max_entries(m, n) };
        if rc != 0 {
            bail!("setting {map} size: {}", errno_str(rc));
        }
        Ok(())
    }

    pub fn load(&mut self) -> Result<()> {
        // SAFETY: loading an opened object.
        let rc = unsafe { sys::bpf_object__load(self.ptr) };
        if rc != 0 {
            bail!("the kernel refused the BPF programs: {}{}", errno_str(rc), log_reason());
        }
        Ok(())
    }

    /// Registers the struct_ops map `map` (a congestion control) and pins the link at
    /// `pin`: the registration then outlives this process until the pin is removed.
    pub fn attach_struct_ops_pinned(&mut self, map: &str, pin: &Path) -> Result<()> {
        let m = self.map(map)?;
        // SAFETY: m is a struct_ops map of a loaded object.
        let link = unsafe { sys::bpf_map__attach_struct_ops(m) };
        if link.is_null() {
            bail!("registering {map}: {}{}", std::io::Error::last_os_error(), log_reason());
        }
        let pin_c = cstring(pin)?;
        // SAFETY: link is valid; pin_c is a path.
        let rc = unsafe { sys::bpf_link__pin(link, pin_c.as_ptr()) };
        // The pin holds the registration; our handle goes either way.
        // SAFETY: disconnect then destroy only releases our reference.
        unsafe {
            if rc == 0 {
                sys::bpf_link__disconnect(link);
            }
            sys::bpf_link__destroy(link);
        }
        if rc != 0 {
            bail!("pinning {map} at {}: {}", pin.display(), errno_str(rc));
        }
        Ok(())
    }

    pub fn program_fd(&self, name: &str) -> Result<c_int> {
        let c = CString::new(name)?;
        // SAFETY: looking up a program by name in our object.
        let p = unsafe { sys::bpf_object__find_program_by_name(self.ptr, c.as_ptr()) };
        if p.is_null() {
            bail!("BPF object has no program {name}");
        }
        // SAFETY: p is a program of a loaded object.
        Ok(unsafe { sys::bpf_program__fd(p) })
    }
}

// SAFETY: a libbpf object is plain heap data; we never use it from two threads at once.
unsafe impl Send for Object {}

impl Drop for Object {
    fn drop(&mut self) {
        // SAFETY: closing the object we opened; pinned maps and links stay.
        unsafe { sys::bpf_object__close(self.ptr) };
    }
}

/// A pinned map used from userspace by its path.
pub struct PinnedMap {
    fd: c_int,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    pub percpu: bool,
}

impl PinnedMap {
    pub fn open(path: &Path) -> Result<PinnedMap> {
        let c = cstring(path)?;
        // SAFETY: bpf_obj_get on a path string.
        let fd = unsafe { sys::bpf_obj_get(c.as_ptr()) };
        if fd < 0 {
            bail!("{} is not there ({}): is headstart loaded? (`headstart load`)", path.display(), std::io::Error::last_os_error());
        }
        let mut info = sys::bpf_map_info::default();
        let mut len = std::mem::size_of::<sys::bpf_map_info>() as u32;
        // SAFETY: info is a bpf_map_info of the size we pass.
        let rc = unsafe { sys::bpf_map_get_info_by_fd(fd, &mut info, &mut len) };
        if rc != 0 {
            // SAFETY: closing our fd.
            unsafe { libc::close(fd) };
            bail!("{}: not a BPF map", path.display());
        }
        let percpu = matches!(info.type_, sys::BPF_MAP_TYPE_PERCPU_ARRAY | sys::BPF_MAP_TYPE_PERCPU_HASH | sys::BPF_MAP_TYPE_LRU_PERCPU_HASH);
        Ok(PinnedMap { fd, key_size: info.key_size, value_size: info.value_size, max_entries: info.max_entries, percpu })
    }

    fn check(&self, key: &[u8], value_len: usize) -> Result<()> {
        anyhow::ensure!(key.len() == self.key_size as usize, "key size {} != map's {}", key.len(), self.key_size);
        let want = if self.percpu { self.value_size as usize * possible_cpus() } else { self.value_size as usize };
        anyhow::ensure!(value_len == want, "value size {value_len} != map's {want}");
        Ok(())
    }

    /// The value buffer size lookups need (all CPUs' values for per-CPU maps; each
    /// per-CPU value is padded to 8 bytes, which our u64 counters already are).
    pub fn value_buf(&self) -> Vec<u8> {
        let n = if self.percpu { possible_cpus() } else { 1 };
        vec![0; self.value_size as usize * n]
    }

    pub fn lookup(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let mut v = self.value_buf();
        self.check(key, v.len())?;
        // SAFETY: key and value buffers have the map's sizes.
        let rc = unsafe { sys::bpf_map_lookup_elem(self.fd, key.as_ptr() as *const c_void, v.as_mut_ptr() as *mut c_void) };
        if rc != 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::ENOENT) {
                return Ok(None);
            }
            bail!("map lookup: {e}");
        }
        Ok(Some(v))
    }

    pub fn update(&self, key: &[u8], value: &[u8]) -> Result<()> {
        self.check(key, value.len())?;
        // SAFETY: key and value buffers have the map's sizes.
        let rc = unsafe { sys::bpf_map_update_elem(self.fd, key.as_ptr() as *const c_void, value.as_ptr() as *const c_void, 0) };
        if rc != 0 {
            bail!("map update: {}", std::io::Error::last_os_error());
        }
        Ok(())
    }

    /// Deletes `key`; Ok(false) if it was not there.
    pub fn delete(&self, key: &[u8]) -> Result<bool> {
        anyhow::ensure!(key.len() == self.key_size as usize, "key size");
        // SAFETY: key buffer has the map's key size.
        let rc = unsafe { sys::bpf_map_delete_elem(self.fd, key.as_ptr() as *const c_void) };
        if rc != 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::ENOENT) {
                return Ok(false);
            }
            bail!("map delete: {e}");
        }
        Ok(true)
    }

    pub fn keys(&self) -> Result<Vec<Vec<u8>>> {
        let mut keys = Vec::new();
        let mut next = vec![0u8; self.key_size as usize];
        let mut prev: Option<Vec<u8>> = None;
        loop {
            let prev_ptr = prev.as_ref().map_or(std::ptr::null(), |p| p.as_ptr() as *const c_void);
            // SAFETY: prev (or NULL for the first key) and next have the key size.
            let rc = unsafe { sys::bpf_map_get_next_key(self.fd, prev_ptr, next.as_mut_ptr() as *mut c_void) };
            if rc != 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() == Some(libc::ENOENT) {
                    return Ok(keys);
                }
                bail!("map iteration: {e}");
            }
            keys.push(next.clone());
            prev = Some(next.clone());
            if keys.len() > self.max_entries as usize + 1 {
                bail!("map iteration did not end");
            }
        }
    }
}

impl Drop for PinnedMap {
    fn drop(&mut self) {
        // SAFETY: closing our fd.
        unsafe { libc::close(self.fd) };
    }
}

pub fn possible_cpus() -> usize {
    // SAFETY: a libbpf query with no arguments.
    let n = unsafe { sys::libbpf_num_possible_cpus() };
    if n > 0 { n as usize } else { 1 }
}

/// Attaches program `prog_fd` to the tc ingress hook of `ifindex` (creating the clsact
/// qdisc if needed). Runs in the calling thread's network namespace.
pub fn tc_attach_ingress(ifindex: i32, prog_fd: c_int) -> Result<()> {
    let mut hook = sys::bpf_tc_hook { sz: std::mem::size_of::<sys::bpf_tc_hook>() as _, ifindex, attach_point: sys::BPF_TC_INGRESS, ..Default::default() };
    // SAFETY: hook is a valid, sized bpf_tc_hook.
    let rc = unsafe { sys::bpf_tc_hook_create(&mut hook) };
    if rc != 0 && rc != -libc::EEXIST {
        bail!("creating the tc ingress hook: {}", errno_str(rc));
    }
    let mut opts = sys::bpf_tc_opts {
        sz: std::mem::size_of::<sys::bpf_tc_opts>() as _,
        prog_fd,
        handle: TC_HANDLE,
        priority: TC_PRIORITY,
        flags: sys::BPF_TC_F_REPLACE,
        ..Default::default()
    };
    // SAFETY: hook and opts are valid and sized.
    let rc = unsafe { sys::bpf_tc_attach(&hook, &mut opts) };
    if rc != 0 {
        bail!("attaching the receive-window program: {}{}", errno_str(rc), log_reason());
    }
    Ok(())
}

/// Removes our tc ingress filter from `ifindex`; Ok(false) if it was not there.
pub fn tc_detach_ingress(ifindex: i32) -> Result<bool> {
    let hook = sys::bpf_tc_hook { sz: std::mem::size_of::<sys::bpf_tc_hook>() as _, ifindex, attach_point: sys::BPF_TC_INGRESS, ..Default::default() };
    let opts = sys::bpf_tc_opts { sz: std::mem::size_of::<sys::bpf_tc_opts>() as _, handle: TC_HANDLE, priority: TC_PRIORITY, ..Default::default() };
    // SAFETY: hook and opts are valid and sized.
    let rc = unsafe { sys::bpf_tc_detach(&hook, &opts) };
    if rc == -libc::ENOENT || rc == -libc::EINVAL {
        return Ok(false);
    }
    if rc != 0 {
        bail!("detaching: {}", errno_str(rc));
    }
    Ok(true)
}

const TC_HANDLE: u32 = 0x4853; // "HS"
const TC_PRIORITY: u32 = 1;
