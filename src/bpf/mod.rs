//! The kernel side from userspace: register headstart's congestion controls, manage
//! the pinned per-peer path table and knobs, attach the receive-window program.
//!
//! Everything lives under /sys/fs/bpf/headstart/: the shared maps (pinned by name by
//! the BPF objects themselves) and one link per registered congestion control
//! (`<name>.link`). Removing a link unregisters its controller; the maps stay, so the
//! table survives `unload` and `load`.

pub mod abi;
pub mod object;
pub mod status;
pub mod table;

use crate::sys;
use abi::{ControllerAbi, Knobs, PathEntry, PeerKey, Record, CONTROLLER_ABI};
pub use table::Peer;
use anyhow::{bail, Context, Result};
use object::{Aligned, PinnedMap};
pub use object::{prog_stats, ProgStats};
use std::net::IpAddr;
use std::path::{Path, PathBuf};

pub const PIN_DIR: &str = "/sys/fs/bpf/headstart";
const BPF_FS_MAGIC: i64 = 0xcafe4a11;

/// A congestion control of ours: its contract (abi.rs) and its BPF object.
pub struct Controller {
    pub abi: &'static ControllerAbi,
    object: &'static Aligned<[u8]>,
}

/// A BPF object its crate's build script compiled into OUT_DIR (the caller's: the lab
/// embeds its own programs with it too), embedded aligned.
#[macro_export]
macro_rules! bpf_object {
    ($name:literal) => {
        &$crate::bpf::object::Aligned(*include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".bpf.o")))
    };
}

pub const CONTROLLERS: &[Controller] = &[
    Controller { abi: &CONTROLLER_ABI[0], object: bpf_object!("s_cubic") },
    Controller { abi: &CONTROLLER_ABI[1], object: bpf_object!("s_bbr") },
    Controller { abi: &CONTROLLER_ABI[2], object: bpf_object!("suss") },
];

const RWND_OBJECT: &Aligned<[u8]> = bpf_object!("rwnd");
const MAP_COUNT_OBJECT: &Aligned<[u8]> = bpf_object!("map_count");
const FLEET_OBJECT: &Aligned<[u8]> = bpf_object!("fleet");

impl Controller {
    pub fn name(&self) -> &'static str {
        self.abi.name
    }
}

pub const DEFAULT_TABLE_ENTRIES: u32 = 1 << 20;

/// Kernel memory per path table entry: an LRU hash preallocates every element (144 B
/// each on this kernel: `bpftool map show` reports 150,995,840 B for 2^20 entries).
const TABLE_BYTES_PER_ENTRY: u64 = 144;

/// A new table of `entries` must fit in half the memory available (`mem_available`
/// bytes): 2^26 entries preallocate 9.7 GB, and a machine that cannot spare it would
/// rather refuse than start swapping or fail its allocation halfway.
pub fn check_table_fits(entries: u32, mem_available: u64) -> Result<()> {
    let need = u64::from(entries) * TABLE_BYTES_PER_ENTRY;
    anyhow::ensure!(
        need <= mem_available / 2,
        "a path table of {entries} entries needs {} MB of kernel memory, more than half of the {} MB available",
        need >> 20,
        mem_available >> 20
    );
    Ok(())
}

/// MemAvailable from /proc/meminfo, in bytes.
fn mem_available() -> Result<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").context("reading /proc/meminfo")?;
    let kb = text
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .context("/proc/meminfo has no MemAvailable")?;
    Ok(kb * 1024)
}

pub fn controller(name: &str) -> Result<&'static Controller> {
    CONTROLLERS
        .iter()
        .find(|c| c.name() == name)
        .with_context(|| format!("unknown headstart controller '{name}' (known: {})", names().join(", ")))
}

/// Whether a congestion control name is one of ours.
pub fn is_ours(cc: &str) -> bool {
    CONTROLLERS.iter().any(|c| c.name() == cc)
}

pub fn names() -> Vec<&'static str> {
    CONTROLLERS.iter().map(|c| c.name()).collect()
}

pub fn pin_path(name: &str) -> PathBuf {
    Path::new(PIN_DIR).join(name)
}

fn link_path(cc: &str) -> PathBuf {
    pin_path(&format!("hs_link_{cc}"))
}

const BPFFS_ROOT: &std::ffi::CStr = c"/sys/fs/bpf";

/// Whether the BPF filesystem is mounted at /sys/fs/bpf.
pub fn bpffs_mounted() -> bool {
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: statfs on a constant path into our struct.
    unsafe { libc::statfs(BPFFS_ROOT.as_ptr(), &mut st) == 0 && st.f_type as i64 == BPF_FS_MAGIC }
}

/// Mounts bpffs at /sys/fs/bpf if nothing is mounted there, and makes our folder.
fn ensure_pin_dir() -> Result<()> {
    let root = BPFFS_ROOT;
    if !bpffs_mounted() {
        // SAFETY: mount(2) with constant strings.
        let rc = unsafe { libc::mount(c"bpf".as_ptr(), root.as_ptr(), c"bpf".as_ptr(), 0, std::ptr::null()) };
        if rc != 0 {
            bail!("cannot mount the BPF filesystem on /sys/fs/bpf: {}", std::io::Error::last_os_error());
        }
    }
    match std::fs::symlink_metadata(PIN_DIR) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            use std::os::unix::fs::DirBuilderExt;
            std::fs::DirBuilder::new().mode(0o700).create(PIN_DIR).with_context(|| format!("creating {PIN_DIR}"))?;
        }
        _ => trusted_pin_dir()?,
    }
    Ok(())
}

/// The pin directory may hold our state only if nobody but root could have put
/// anything there: a bpffs root is world-writable (sticky), so a local user who made
/// /sys/fs/bpf/headstart first could plant maps or unlink root's pins.
pub fn trusted_pin_dir() -> Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let md = std::fs::symlink_metadata(PIN_DIR).with_context(|| format!("{PIN_DIR} is not there: is headstart loaded? (`headstart up` or `headstart load`)"))?;
    anyhow::ensure!(md.file_type().is_dir(), "{PIN_DIR} is not a directory (a symlink or a file planted there?): refusing to use it");
    anyhow::ensure!(md.uid() == 0, "{PIN_DIR} is owned by uid {}, not root: refusing to use it (remove it as root if it is not yours)", md.uid());
    anyhow::ensure!(md.permissions().mode() & 0o022 == 0, "{PIN_DIR} is writable by group or others (mode {:o}): refusing to use it", md.permissions().mode() & 0o7777);
    Ok(())
}

/// A pinned map of ours, from a directory checked first (trusted_pin_dir).
pub fn pinned_map(name: &str) -> Result<PinnedMap> {
    trusted_pin_dir()?;
    PinnedMap::open(&pin_path(name))
}

/// Opens and loads one of our BPF objects with its shared maps pinned under PIN_DIR.
/// An existing path table keeps its size (libbpf reuses a pinned map only if it
/// matches); a new one gets `table_entries`.
pub fn load_object(name: &str, elf: &'static Aligned<[u8]>, table_entries: u32) -> Result<libbpf_rs::Object> {
    let size = pinned_map("hs_paths").map(|m| m.max_entries).unwrap_or(table_entries);
    object::open_and_load(name, elf, Path::new(PIN_DIR), &[("hs_paths", size)])
}

/// What an older headstart left in pinned maps whose records changed: the table's
/// entries (an old hs_path is a prefix of today's: new fields zero), the knobs (by
/// name, abi::KNOB_HISTORY) and the counters (by name, abi::COUNTER_HISTORY), read
/// before the old pins go and written into the new maps.
#[derive(Default)]
struct Carried {
    paths: Vec<(Peer, PathEntry)>,
    paths_capacity: Option<u32>,
    knobs: Option<Knobs>,
    counters: Vec<(usize, &'static str, u64)>,
}

/// Where the carried table is also saved (a `table restore` file) until it is back in
/// the kernel: a load that fails halfway does not lose it.
const UPGRADE_BACKUP: &str = "/run/headstart/table-before-upgrade.json";

/// Pinned maps whose records no longer match this build's contract (a table or knob
/// record written by an older headstart) cannot be reused by libbpf: with no
/// controller registered they are removed, and said so. An older table and knob
/// record are carried over (Carried); other stale maps (counters, flow outcomes)
/// start empty.
fn drop_stale_pins() -> Result<Carried> {
    let expect: [(&str, u32, u32); 6] = [
        ("hs_paths", std::mem::size_of::<PeerKey>() as u32, std::mem::size_of::<PathEntry>() as u32),
        ("hs_open", std::mem::size_of::<PeerKey>() as u32, std::mem::size_of::<abi::OpenFlows>() as u32),
        ("hs_config", 4, Knobs::RECORD_SIZE as u32),
        ("hs_lab_config", 4, abi::LabKnobs::RECORD_SIZE as u32),
        ("hs_rwnd", std::mem::size_of::<abi::FlowKey>() as u32, std::mem::size_of::<abi::RwndGrant>() as u32),
        ("hs_outcomes", std::mem::size_of::<abi::FlowKey>() as u32, std::mem::size_of::<abi::FlowOutcome>() as u32),
    ];
    let mut stale = Vec::new();
    let mut older = Vec::new();
    for (name, key, value) in expect {
        if let Ok(m) = pinned_map(name) {
            if m.key_size() != key || m.value_size() != value {
                stale.push(name);
                // An older table: shorter records, or keys without a namespace (16 bytes: the host's).
                let older_table = name == "hs_paths" && m.value_size() <= value && (m.key_size() == key || m.key_size() == 16);
                if (m.key_size() == key && name == "hs_config") || older_table {
                    older.push((name, m));
                }
            }
        }
    }
    let mut old_counters = None;
    if let Ok(m) = pinned_map("hs_counters") {
        if counters_version(&m) != Some(abi::COUNTERS_VERSION) {
            stale.push("hs_counters");
            old_counters = Some(m);
        }
    }
    if stale.is_empty() {
        return Ok(Carried::default());
    }
    let registered: Vec<&str> = CONTROLLERS.iter().map(|c| c.name()).filter(|n| link_path(n).exists()).collect();
    anyhow::ensure!(
        registered.is_empty(),
        "pinned {} under {PIN_DIR} come from another headstart version while {} run from it: `headstart unload` first",
        stale.join(", "),
        registered.join(", ")
    );
    // Everything read and the table saved before anything is removed.
    let mut carried = Carried::default();
    for (name, m) in &older {
        if *name == "hs_paths" {
            carried.paths = read_entries(m, true).context("reading the older path table")?;
            carried.paths_capacity = Some(m.max_entries);
            std::fs::create_dir_all(BUILD_STAMP_DIR).with_context(|| format!("creating {BUILD_STAMP_DIR}"))?;
            write_saved_table(Path::new(UPGRADE_BACKUP), &carried.paths)?;
        } else if let Some(v) = m.lookup(&0u32.to_ne_bytes())? {
            // An unreadable record is not worth refusing the upgrade: the defaults, said.
            match Knobs::carried_from(&v) {
                Ok(Some((k, dropped))) => {
                    if !dropped.is_empty() {
                        eprintln!("headstart: knobs this release no longer has, not carried over: {}", dropped.join(", "));
                    }
                    carried.knobs = Some(k);
                }
                Ok(None) => {}
                Err(e) => eprintln!("headstart: the older knob record is not readable ({e:#}): the knobs start at their defaults"),
            }
        }
    }
    if let Some(m) = &old_counters {
        carried.counters = read_old_counters(m);
    }
    for name in &stale {
        std::fs::remove_file(pin_path(name)).with_context(|| format!("removing the stale {name}"))?;
    }
    let kept: Vec<&str> = older.iter().map(|(n, _)| *n).collect();
    let dropped: Vec<&str> = stale.iter().copied().filter(|n| !kept.contains(n)).collect();
    if !kept.is_empty() {
        eprintln!("headstart: {} written by an older headstart carried over to this version's records", kept.join(", "));
    }
    if !dropped.is_empty() {
        eprintln!("headstart: {} written by another headstart version removed (records changed)", dropped.join(", "));
    }
    Ok(carried)
}

/// Writes what drop_stale_pins carried into the maps the first object just made.
fn put_carried(carried: &mut Carried) -> Result<()> {
    if !carried.paths.is_empty() {
        let m = paths_map()?;
        for (peer, e) in carried.paths.drain(..) {
            m.put(&peer.key(), &e)?;
        }
        let _ = std::fs::remove_file(UPGRADE_BACKUP);
    }
    if let Some(k) = carried.knobs.take() {
        write_knobs(&k)?;
    }
    stamp_counters()?;
    if !carried.counters.is_empty() {
        let m = pinned_map("hs_counters")?;
        for (cc, name, value) in carried.counters.drain(..) {
            let Some(i) = CONTROLLER_ABI[cc].counters.iter().position(|c| c.name == name) else { continue };
            m.percpu_set_first((cc * abi::COUNTERS_PER_CC + i) as u32, value)?;
        }
    }
    Ok(())
}

/// The layout version in a counters map's version slot; Some(1) for the first
/// release's map, which had none (one slot fewer); None if unknown.
fn counters_version(m: &PinnedMap) -> Option<u64> {
    let blocks = (CONTROLLER_ABI.len() * abi::COUNTERS_PER_CC) as u32;
    if m.max_entries == blocks {
        return Some(1);
    }
    if m.max_entries != blocks + 1 {
        return None;
    }
    m.percpu_sum(abi::COUNTERS_VERSION_SLOT).ok()
}

/// The counters of an older release's map, by controller and name (empty if its
/// layout is not one this release knows: they start at zero).
fn read_old_counters(m: &PinnedMap) -> Vec<(usize, &'static str, u64)> {
    let Some(version) = counters_version(m) else { return Vec::new() };
    let Some((_, names)) = abi::COUNTER_HISTORY.iter().find(|(v, _)| *v == version) else { return Vec::new() };
    let mut out = Vec::new();
    for (cc, c) in CONTROLLER_ABI.iter().enumerate() {
        // The history names the stateful controllers' layout; suss's is unchanged.
        let layout: Vec<&'static str> = if c.counters.len() == abi::STATEFUL_COUNTERS.len() { names.names() } else { c.counters.iter().map(|k| k.name).collect() };
        for (i, name) in layout.into_iter().enumerate() {
            if let Ok(v) = m.percpu_sum((cc * abi::COUNTERS_PER_CC + i) as u32) {
                if v > 0 {
                    out.push((cc, name, v));
                }
            }
        }
    }
    out
}

/// Writes this release's counters version into its slot (once per new map).
fn stamp_counters() -> Result<()> {
    let m = pinned_map("hs_counters")?;
    if m.percpu_sum(abi::COUNTERS_VERSION_SLOT)? != abi::COUNTERS_VERSION {
        m.percpu_set_first(abi::COUNTERS_VERSION_SLOT, abi::COUNTERS_VERSION)?;
    }
    Ok(())
}

pub fn available_ccs() -> Result<Vec<String>> {
    Ok(std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control")
        .context("reading tcp_available_congestion_control")?
        .split_whitespace()
        .map(str::to_string)
        .collect())
}

pub fn is_loaded(name: &str) -> bool {
    link_path(name).exists() && available_ccs().map(|a| a.iter().any(|n| n == name)).unwrap_or(false)
}

/// Which build registered each controller: a stamp per controller, written when it is
/// registered. bpffs holds no plain files; /run, like the registrations, does not
/// outlive a reboot.
const BUILD_STAMP_DIR: &str = "/run/headstart";

fn build_stamp_path(cc: &str) -> PathBuf {
    Path::new(BUILD_STAMP_DIR).join(format!("{cc}.build"))
}

/// This binary's build of a controller: FNV-1a of its embedded BPF object.
fn build_id(c: &Controller) -> String {
    let hash = c.object.0.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3));
    format!("{hash:016x}")
}

fn write_build_stamp(c: &Controller) -> Result<()> {
    std::fs::create_dir_all(BUILD_STAMP_DIR).with_context(|| format!("creating {BUILD_STAMP_DIR}"))?;
    std::fs::write(build_stamp_path(c.name()), build_id(c)).with_context(|| format!("writing {}", build_stamp_path(c.name()).display()))
}

/// Registered, and by this build (not by an older binary, whose programs a lab run
/// would otherwise measure).
pub fn is_current(name: &str) -> bool {
    let Ok(c) = controller(name) else { return false };
    is_loaded(name) && std::fs::read_to_string(build_stamp_path(name)).map(|s| s.trim() == build_id(c)).unwrap_or(false)
}

const ALLOWED: &str = "/proc/sys/net/ipv4/tcp_allowed_congestion_control";
const DEFAULT_CC: &str = "/proc/sys/net/ipv4/tcp_congestion_control";

fn set_allowed(add: &[&str], remove: &[&str]) -> Result<()> {
    let cur = std::fs::read_to_string(ALLOWED).context(ALLOWED)?;
    let mut list: Vec<String> = cur.split_whitespace().filter(|n| !remove.contains(n)).map(str::to_string).collect();
    for a in add {
        if !list.iter().any(|n| n == a) {
            list.push(a.to_string());
        }
    }
    std::fs::write(ALLOWED, list.join(" ")).context("writing tcp_allowed_congestion_control")
}

/// Registers the named controllers (all when `names` is empty). Idempotent.
/// Returns the names it registered now.
pub fn load(requested: &[String], table_entries: u32) -> Result<Vec<String>> {
    sys::require_root()?;
    let wanted: Vec<&Controller> = if requested.is_empty() {
        CONTROLLERS.iter().collect()
    } else {
        requested.iter().map(|n| controller(n)).collect::<Result<_>>()?
    };
    anyhow::ensure!((1024..=1 << 26).contains(&table_entries), "table size must be between 1024 and 67108864 entries");
    if !pin_path("hs_paths").exists() {
        check_table_fits(table_entries, mem_available()?)?;
    }
    ensure_pin_dir()?;
    let mut carried = drop_stale_pins()?;
    let table_entries = carried.paths_capacity.unwrap_or(table_entries);
    let mut loaded = Vec::new();
    for c in wanted {
        if is_current(c.name()) {
            continue;
        }
        let mut obj = load_object(c.name(), c.object, table_entries).with_context(|| format!("loading {}", c.name()))?;
        if is_loaded(c.name()) {
            // Registered by another build: its programs are replaced in place.
            object::update_struct_ops_pinned(&mut obj, c.name(), &link_path(c.name()))?;
            write_build_stamp(c)?;
            eprintln!("headstart: {} was registered by another headstart build: its programs are replaced by this build's", c.name());
            loaded.push(c.name().to_string());
            continue;
        }
        // A link pin without a registered controller is a leftover: replace it.
        let _ = std::fs::remove_file(link_path(c.name()));
        put_carried(&mut carried).with_context(|| format!("carrying the older table over (it is saved in {UPGRADE_BACKUP})"))?;
        // The knobs before the first flow: a never-written record means "kernel's own".
        if config_map()?.lookup(&0u32.to_ne_bytes())?.map(|v| Knobs::from_record(&v)).transpose()?.flatten().is_none() {
            write_knobs(&Knobs::default())?;
        }
        stamp_counters()?;
        object::attach_struct_ops_pinned(&mut obj, c.name(), &link_path(c.name()))?;
        write_build_stamp(c)?;
        loaded.push(c.name().to_string());
    }
    let all: Vec<&str> = CONTROLLERS.iter().map(|c| c.name()).filter(|n| is_loaded(n)).collect();
    set_allowed(&all, &[])?;
    Ok(loaded)
}

/// Every network namespace's default congestion control that names one of ours is
/// reset to `fallback_cc` first (new sockets would keep getting it); then the controllers are
/// removed from the allowed list and unregistered. With `purge`, the maps (the path
/// table) go too. Flows already using a controller keep it until they close.
pub fn unload(purge: bool, fallback_cc: &str) -> Result<Vec<String>> {
    sys::require_root()?;
    // Every removal below goes through the pin directory: one planted as a symlink
    // (or not root's) would point them at someone else's files.
    if pins_exist() {
        trusted_pin_dir()?;
    }
    let ours: Vec<&str> = names();
    if let Ok(def) = std::fs::read_to_string(DEFAULT_CC) {
        if ours.contains(&def.trim()) {
            std::fs::write(DEFAULT_CC, fallback_cc).context("resetting the default congestion control")?;
        }
    }
    if let Ok(entries) = std::fs::read_dir(sys::NETNS_DIR) {
        for e in entries.flatten() {
            let ns = e.file_name().to_string_lossy().into_owned();
            if let Ok(def) = sys::run("ip", &["netns", "exec", &ns, "sysctl", "-n", "net.ipv4.tcp_congestion_control"]) {
                if ours.contains(&def.trim()) {
                    sys::run("ip", &["netns", "exec", &ns, "sysctl", "-qw", "net.ipv4.tcp_congestion_control=cubic"])?;
                }
            }
        }
    }
    set_allowed(&[], &ours)?;
    let mut removed = Vec::new();
    for c in CONTROLLERS {
        if std::fs::remove_file(link_path(c.name())).is_ok() {
            removed.push(c.name().to_string());
        }
        let _ = std::fs::remove_file(build_stamp_path(c.name()));
    }
    let _ = std::fs::remove_dir(BUILD_STAMP_DIR);
    if purge {
        if let Ok(entries) = std::fs::read_dir(PIN_DIR) {
            for e in entries.flatten() {
                let _ = std::fs::remove_file(e.path());
            }
        }
        let _ = std::fs::remove_dir(PIN_DIR);
    }
    Ok(removed)
}

/// Unregisters the named controllers and takes them off the allowed list (what a failed
/// `up` registered); the default congestion control must not be one of them.
pub fn unregister(names: &[String]) -> Result<()> {
    let gone: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
    set_allowed(&[], &gone)?;
    for n in &gone {
        std::fs::remove_file(link_path(n)).with_context(|| format!("unregistering {n}"))?;
        let _ = std::fs::remove_file(build_stamp_path(n));
    }
    Ok(())
}

/// Whether the pin directory exists (something of headstart's is in bpffs).
pub fn pins_exist() -> bool {
    std::fs::symlink_metadata(PIN_DIR).is_ok()
}

/// Makes the path table hold exactly `entries` again (a failed `up` after its restore).
pub fn table_put_back(entries: &[(Peer, PathEntry)]) -> Result<()> {
    put_back(&paths_map()?, entries)
}

/// Empties `m` and writes `entries` into it: a rollback, so it goes on past a failed
/// write and returns the first error at the end.
fn put_back(m: &PinnedMap, entries: &[(Peer, PathEntry)]) -> Result<()> {
    let mut first = Ok(());
    for k in m.keys() {
        if let Err(e) = m.delete(&k) {
            first = first.and(Err(e));
        }
    }
    for (p, e) in entries {
        if let Err(e) = m.put(&p.key(), e) {
            first = first.and(Err(e));
        }
    }
    first
}

pub fn paths_map() -> Result<PinnedMap> {
    readable_paths(pinned_map("hs_paths")?)
}

/// The pinned path table, if this build can read it: one an older headstart loaded has
/// shorter records, which `load` carries over.
pub fn readable_paths(m: PinnedMap) -> Result<PinnedMap> {
    anyhow::ensure!(
        m.value_size() as usize == std::mem::size_of::<PathEntry>() && m.key_size() as usize == std::mem::size_of::<PeerKey>(),
        "the path table was loaded by another headstart version ({}-byte keys and {}-byte records, this one's are {} and {}): `headstart load` carries it over",
        m.key_size(),
        m.value_size(),
        std::mem::size_of::<PeerKey>(),
        std::mem::size_of::<PathEntry>()
    );
    Ok(m)
}

fn config_map() -> Result<PinnedMap> {
    pinned_map("hs_config")
}

/// A knob record as the controllers see it (the defaults if never written).
pub fn read_knob_record<S: abi::KnobSet>() -> Result<abi::KnobValues<S>> {
    let v = pinned_map(S::MAP)?.lookup(&0u32.to_ne_bytes())?.with_context(|| format!("{} has no record", S::MAP))?;
    Ok(abi::KnobValues::<S>::from_record(&v)?.unwrap_or_default())
}

/// Writes a knob record so that the controllers never take a half-written one for
/// whole (abi.rs, write_steps).
pub fn write_knob_record<S: abi::KnobSet>(k: &abi::KnobValues<S>) -> Result<()> {
    let m = pinned_map(S::MAP)?;
    let key = 0u32.to_ne_bytes();
    for step in k.write_steps(m.lookup(&key)?.as_deref()) {
        m.update(&key, &step)?;
    }
    Ok(())
}

/// The operator's knobs as the controllers see them.
pub fn read_knobs() -> Result<Knobs> {
    read_knob_record()
}

pub fn write_knobs(k: &Knobs) -> Result<()> {
    write_knob_record(k)
}

/// A controller's counters summed over CPUs, in the order of its abi counters.
pub fn counters(cc: &ControllerAbi) -> Result<Vec<u64>> {
    let m = pinned_map("hs_counters")?;
    (0..cc.counters.len()).map(|i| m.percpu_sum((cc.id as usize * abi::COUNTERS_PER_CC + i) as u32)).collect()
}

pub fn rwnd_rewrites() -> u64 {
    pinned_map("hs_rwnd_rewrites").and_then(|m| m.percpu_sum(0)).unwrap_or(0)
}

pub fn default_cc() -> String {
    std::fs::read_to_string(DEFAULT_CC).map(|s| s.trim().to_string()).unwrap_or_default()
}

/// ipv6_prefix_len as the controllers read it now (its default where no knob record
/// can be read: then there is no table either).
fn live_prefix_len() -> u32 {
    read_knobs().and_then(|k| k.get("ipv6_prefix_len")).unwrap_or_else(|_| abi::knob("ipv6_prefix_len").map(|(_, k)| k.default).unwrap_or(128))
}

/// max_age_s as the controllers read it now (0, any age, where no knob record can be read).
pub fn live_max_age_s() -> u32 {
    read_knobs().and_then(|k| k.get("max_age_s")).unwrap_or(0)
}

/// one_table as the controllers read it now (off where no knob record can be read).
fn live_one_table() -> bool {
    read_knobs().and_then(|k| k.get("one_table")).unwrap_or(0) != 0
}

/// The table entry a peer uses from network namespace `netns` (by its `ip netns`
/// name; None: the host's): its address, an IPv6 one cut to the live ipv6_prefix_len
/// (bpf/lib/path_key.h), and the namespace's key, 0 for all with one_table on (path_table.h,
/// hs_peer_of).
pub fn table_peer(addr: IpAddr, netns: Option<&str>) -> Result<Peer> {
    let netns = match netns {
        Some(n) => {
            let key = sys::netns_key(n)?;
            if live_one_table() { 0 } else { key }
        }
        None => 0,
    };
    Ok(Peer { addr: table::key_to_addr(&table::path_key(addr, live_prefix_len())), netns })
}

fn path_key(addr: IpAddr, prefix_len: u32) -> PeerKey {
    PeerKey { bytes: table::path_key(addr, prefix_len), netns: 0 }
}

/// How a flow's start went (hs_outcomes), by its two ends as the server sees them and
/// the server's network namespace (sys::netns_ino).
pub fn flow_outcome(server: std::net::SocketAddr, client: std::net::SocketAddr, netns_ino: u32) -> Option<abi::FlowOutcome> {
    let key = abi::FlowKey {
        peer: table::addr_to_key(client.ip()),
        local: table::addr_to_key(server.ip()),
        peer_port: client.port(),
        local_port: server.port(),
        netns_ino,
    };
    pinned_map("hs_outcomes").ok()?.get(&key).ok()?
}

/// Forgets the start outcomes of every flow to `locals` (a lab server's addresses);
/// the number forgotten. A lab run numbers its client ports from the same first port,
/// so a flow whose controller wrote no outcome of its own would otherwise be reported
/// with an earlier run's flow of the same addresses and ports. 0 if headstart is not
/// loaded.
pub fn forget_outcomes_to(locals: &[IpAddr]) -> Result<usize> {
    let Ok(m) = pinned_map("hs_outcomes") else { return Ok(0) };
    let locals: Vec<[u8; 16]> = locals.iter().map(|a| table::addr_to_key(*a)).collect();
    let mut n = 0;
    for k in m.keys() {
        let key = abi::FlowKey::from_bytes(&k)?;
        if locals.contains(&key.local) && m.delete(&k)? {
            n += 1;
        }
    }
    Ok(n)
}

/// The name of a flow outcome (an enum hs_counter of the stateful controllers).
pub fn outcome_name(o: &abi::FlowOutcome) -> &'static str {
    abi::STATEFUL_COUNTERS.get(o.outcome as usize).map(|c| c.name).unwrap_or("?")
}

/// Path table entries, newest first.
pub fn table_entries() -> Result<Vec<(Peer, PathEntry)>> {
    let mut out = read_entries(&paths_map()?, false)?;
    out.sort_by_key(|e| std::cmp::Reverse(e.1.stored_ns));
    Ok(out)
}

/// Every entry of a path table; `older`: its records are an older headstart's, a
/// prefix of this one's (the fields it lacks read as zero).
fn read_entries(m: &PinnedMap, older: bool) -> Result<Vec<(Peer, PathEntry)>> {
    let mut out = Vec::new();
    m.for_each(|k, v| {
        let mut v = v.to_vec();
        if older {
            v.resize(std::mem::size_of::<PathEntry>(), 0);
        }
        out.push((Peer::from_key(k), PathEntry::from_bytes(&v)?));
        Ok(())
    })?;
    Ok(out)
}

/// The path table's entry count, as the kernel keeps it (bpf/map_count.bpf.c): no walk
/// of the table, whatever its size.
pub fn table_count() -> Result<u64> {
    let id = paths_map()?.id()?;
    let obj = object::open_and_load("map_count", MAP_COUNT_OBJECT, Path::new(PIN_DIR), &[])?;
    let prog = obj.progs_mut().find(|p| p.name() == "hs_map_count").context("map_count has no program")?;
    let link = prog.attach().map_err(|e| anyhow::anyhow!("attaching the map counter: {e}"))?;
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut libbpf_rs::Iter::new(&link).context("the map counter")?, &mut out).context("reading the map counter")?;
    out.chunks_exact(16)
        .find(|r| u32::from_ne_bytes(r[0..4].try_into().unwrap()) == id)
        .map(|r| i64::from_ne_bytes(r[8..16].try_into().unwrap()).max(0) as u64)
        .context("the map counter did not see the path table")
}

/// The fleet agent's way into the table: bpf/fleet.bpf.c's apply program on the live
/// maps, which merges another server's entry under the store rules (bpf/lib/fleet.h).
pub struct FleetApply {
    obj: libbpf_rs::Object,
}

impl FleetApply {
    /// Needs the controllers of this build loaded (their table and their store ring):
    /// libbpf would otherwise make and pin maps of its own.
    pub fn load() -> Result<FleetApply> {
        paths_map().context("headstart is not up (no path table)")?;
        anyhow::ensure!(pin_path("hs_stores").exists(), "the loaded controllers have no store ring (an older headstart): `headstart up` loads this one's");
        Ok(FleetApply { obj: load_object("fleet", FLEET_OBJECT, DEFAULT_TABLE_ENTRIES)? })
    }

    /// The verdict (abi::FLEET_APPLIED ...).
    pub fn apply(&mut self, e: &abi::FleetEntry) -> Result<u16> {
        Ok(self.run("hs_fleet_apply", *e)? as u16)
    }

    /// The entry in the table for `peer` teaches its prefix (hs_prefix_learn); false if
    /// there is none.
    pub fn learn_prefix(&mut self, peer: &PeerKey) -> Result<bool> {
        Ok(self.run("hs_prefix_learn", abi::FleetEntry { peer: *peer, ..Default::default() })? == 1)
    }

    /// Runs one of fleet.bpf.c's syscall programs on `ctx`.
    fn run(&mut self, program: &str, mut ctx: abi::FleetEntry) -> Result<u32> {
        // SAFETY: FleetEntry is a plain record without padding (abi.rs); the kernel reads
        // and writes back exactly its size.
        let bytes = unsafe { std::slice::from_raw_parts_mut(&mut ctx as *mut abi::FleetEntry as *mut u8, std::mem::size_of::<abi::FleetEntry>()) };
        object::run_syscall(&mut self.obj, program, bytes)
    }
}

/// The controllers' store ring (hs_stores), for the fleet agent to drain.
pub fn store_ring() -> Result<libbpf_rs::MapHandle> {
    trusted_pin_dir()?;
    libbpf_rs::MapHandle::from_pinned_path(pin_path("hs_stores")).map_err(|e| anyhow::anyhow!("opening the store ring: {e} (is headstart up?)"))
}

/// The entry of a peer (table_peer).
pub fn table_get(peer: Peer) -> Result<Option<PathEntry>> {
    paths_map()?.get(&peer.key())
}

pub fn table_set(peer: Peer, e: &PathEntry) -> Result<()> {
    table::validate_entry(e)?;
    paths_map()?.put(&peer.key(), e)
}

pub fn table_forget(peer: Peer) -> Result<bool> {
    paths_map()?.delete(peer.key().as_bytes())
}

/// Forgets many of the host namespace's peers (every namespace's with one_table)
/// through one open map; returns how many were there.
pub fn table_forget_all(addrs: impl IntoIterator<Item = IpAddr>) -> Result<usize> {
    let m = paths_map()?;
    let prefix_len = live_prefix_len();
    let mut n = 0;
    for a in addrs {
        n += usize::from(m.delete(path_key(a, prefix_len).as_bytes())?);
    }
    Ok(n)
}

/// Forgets the prefix aggregates (hs_prefixes, prefix fallback) of every prefix that
/// `within` says yes to (by its key's 16 address bytes); how many.
pub fn prefixes_forget(within: impl Fn(&[u8; 16]) -> bool) -> Result<usize> {
    let Ok(m) = pinned_map("hs_prefixes") else { return Ok(0) };
    let mut n = 0;
    for k in m.keys() {
        let Some(addr) = k.get(..16).and_then(|b| <[u8; 16]>::try_from(b).ok()) else { continue };
        if within(&addr) {
            n += usize::from(m.delete(&k)?);
        }
    }
    Ok(n)
}

/// Prefix fallback's aggregates (hs_prefixes), by prefix: the key's address is the
/// prefix (its host part zero), its namespace the flows'. Loaded without prefix
/// fallback's map (an older release's controllers): none.
pub fn prefix_aggregates() -> Result<Vec<(Peer, abi::PrefixAggregate)>> {
    trusted_pin_dir()?; // not loaded: the error `table list` gives
    let Ok(m) = pinned_map("hs_prefixes") else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    for k in m.keys() {
        if let Some(v) = m.lookup(&k)? {
            out.push((Peer::from_key(&k), abi::PrefixAggregate::from_bytes(&v)?));
        }
    }
    out.sort_by_key(|(_, a)| std::cmp::Reverse(a.updated_ns));
    Ok(out)
}

/// Every entry, and what they taught prefix fallback (hs_prefixes): a flushed table
/// starts no first contact from its old peers' agreement.
pub fn table_flush() -> Result<usize> {
    let m = paths_map()?;
    let mut n = 0;
    for k in m.keys() {
        if m.delete(&k)? {
            n += 1;
        }
    }
    prefixes_forget(|_| true)?;
    Ok(n)
}

/// Attaches the receive-window override to the ingress of `dev`, inside network
/// namespace `netns` (by name) or the current one.
pub fn attach_rwnd(dev: &str, netns: Option<&str>) -> Result<()> {
    sys::require_root()?;
    ensure_pin_dir()?;
    drop_stale_pins()?;
    let obj = load_object("rwnd", RWND_OBJECT, DEFAULT_TABLE_ENTRIES).context("loading the receive-window program")?;
    let dev = dev.to_string();
    sys::in_netns(netns, move || {
        let ifindex = ifindex(&dev)?;
        // TUN devices carry bare IP packets (ARPHRD_NONE); others have Ethernet headers.
        let prog = if device_type(&dev)? == ARPHRD_NONE { "hs_rwnd_rawip" } else { "hs_rwnd_ether" };
        object::tc_attach_ingress(&obj, prog, ifindex)
    })
}

pub fn detach_rwnd(dev: &str, netns: Option<&str>) -> Result<bool> {
    sys::require_root()?;
    let dev = dev.to_string();
    sys::in_netns(netns, move || object::tc_detach_ingress(ifindex(&dev)?))
}

/// Whether the receive-window override is on the ingress of `dev` (this namespace).
pub fn rwnd_attached(dev: &str) -> Result<bool> {
    object::tc_ingress_attached(ifindex(dev)?)
}

/// Refuses a name that is not a network device of this namespace.
pub fn check_device(dev: &str) -> Result<()> {
    ifindex(dev).map(|_| ())
}

const ARPHRD_NONE: u32 = 0xfffe;

fn ifindex(dev: &str) -> Result<i32> {
    let c = std::ffi::CString::new(dev)?;
    // SAFETY: if_nametoindex on a NUL-terminated name.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if i == 0 {
        bail!("no network device '{dev}' here");
    }
    Ok(i as i32)
}

/// The device's ARPHRD type, asked with SIOCGIFHWADDR (sysfs would show the host's).
fn device_type(dev: &str) -> Result<u32> {
    // SAFETY: a throwaway datagram socket for the ioctl.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    anyhow::ensure!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    for (i, b) in dev.bytes().take(libc::IFNAMSIZ - 1).enumerate() {
        req.ifr_name[i] = b as libc::c_char;
    }
    // SAFETY: SIOCGIFHWADDR fills the ifreq we own.
    let rc = unsafe { libc::ioctl(fd, libc::SIOCGIFHWADDR, &mut req) };
    // SAFETY: closing our fd.
    unsafe { libc::close(fd) };
    anyhow::ensure!(rc == 0, "SIOCGIFHWADDR {dev}: {}", std::io::Error::last_os_error());
    // SAFETY: the kernel filled ifru_hwaddr.
    Ok(unsafe { req.ifr_ifru.ifru_hwaddr.sa_family } as u32)
}

/// What a save wrote.
#[derive(Debug, Default, serde::Serialize)]
pub struct SaveReport {
    pub saved: usize,
    /// Entries of namespaces without an `ip netns` name: not saved (their cookie is
    /// meaningless after the namespace, or the machine, goes).
    pub unnamed_netns: usize,
}

/// Writes the table to `file` (JSON, see table::SavedTable).
pub fn table_save(file: &Path) -> Result<SaveReport> {
    write_saved_table(file, &table_entries()?)
}

fn write_saved_table(file: &Path, entries: &[(Peer, PathEntry)]) -> Result<SaveReport> {
    let names = if entries.iter().any(|(p, _)| p.netns != 0) { sys::named_netns() } else { Default::default() };
    let names = &names;
    let saveable = move |p: &Peer| p.netns == 0 || names.contains_key(&p.netns);
    let saved = entries.iter().filter(|(p, _)| saveable(p)).count();
    let report = SaveReport { saved, unnamed_netns: entries.len() - saved };
    let now = sys::boot_ns();
    let saved = table::SavedTableOut {
        format: table::SAVE_FORMAT,
        version: table::SAVE_VERSION,
        saved_unix_s: sys::unix_s(),
        entries: table::EntriesOut(Box::new(move || {
            Box::new(entries.iter().filter(move |(p, _)| saveable(p)).map(move |(p, e)| table::SavedEntry {
                peer: p.addr.to_string(),
                netns: p.netns_name(names),
                bw_bytes_per_s: e.bw_bytes_per_s,
                min_rtt_us: e.min_rtt_us,
                flows: e.flows,
                age_s: now.saturating_sub(e.stored_ns) as f64 / 1e9,
                source: table::source_name(e).to_string(),
                lossy: e.flags & abi::PATH_LOSSY != 0,
                clean_segs: e.clean_segs,
                agreed: e.agreed,
                handshakes: e.handshakes,
                busy_pct: table::busy_pct(e.busy_share),
                overruns: e.overruns,
                overrun_age_s: table::overrun_age_s(e, now),
            }))
        })),
    };
    // The file lists client addresses: owner-only, written whole or not at all; each
    // entry as it is formatted.
    sys::write_private_atomically_with(file, |w| serde_json::to_writer_pretty(w, &saved).map_err(std::io::Error::from))?;
    Ok(report)
}

/// What a restore did.
#[derive(Debug, Default, serde::Serialize)]
pub struct RestoreReport {
    /// Entries written from the file.
    pub restored: usize,
    /// Saved entries older than max_age_s by the wall clock: dropped.
    pub expired: usize,
    /// Saved entries for which the live table held a newer one (merge): the live one kept.
    pub newer_live: usize,
    /// Live entries removed because the file replaces the table.
    pub removed: usize,
    /// Saved entries whose IPv6 peers share one prefix (ipv6_prefix_len) with a newer
    /// saved entry: that one kept (a file saved with longer keys).
    pub folded: usize,
    /// Records that failed validation, each with its reason: set aside (BadRecords::Drop).
    pub dropped: Vec<String>,
    /// Saved entries of a network namespace no `ip netns` name finds now: left out.
    pub missing_netns: usize,
    /// Restored entries that taught their prefix (prefix fallback's aggregates, rebuilt
    /// oldest first as the stores once made them); None: they could not be rebuilt
    /// (the fleet program did not run: controllers older than this tool loaded): a
    /// merge leaves the aggregates as they were, a replacing restore what it could not
    /// forget of them.
    pub prefixes_taught: Option<usize>,
}

/// What a restore does with a record that fails validation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadRecords {
    /// The whole file is refused (an operator's `table restore`).
    Refuse,
    /// The record is set aside and reported; the others are restored (`up` at boot: one
    /// record an ACK-holding peer left must not keep the service down).
    Drop,
}

/// Loads a saved table, all or nothing. Every record is validated (a bad one refuses the
/// file or is set aside, as `bad` says), aged by the wall
/// clock since the save (older than the knob max_age_s: dropped), and the result
/// checked to fit, before the first write; if the kernel then holds fewer entries than
/// written (the LRU evicted some), or a write fails, the table is put back as it was.
/// `merge`: entries of the live table not in the file stay, and a live entry newer
/// than the saved one wins; otherwise the file replaces the table.
pub fn table_restore(file: &Path, merge: bool, bad: BadRecords) -> Result<RestoreReport> {
    let saved = table::SavedTable::read(file, sys::TABLE_FILE_LIMIT).with_context(|| format!("{} refused, table unchanged", file.display()))?;
    table_restore_parsed(file, saved, merge, bad)
}

/// table_restore of a file already read (`up` validates it before changing anything).
pub fn table_restore_parsed(file: &Path, saved: table::ParsedTable, merge: bool, bad: BadRecords) -> Result<RestoreReport> {
    if bad == BadRecords::Refuse {
        if let Some(first) = saved.dropped.first() {
            anyhow::bail!("{} refused, table unchanged: {first}{}", file.display(), if saved.dropped.len() > 1 { format!(" (and {} more bad records)", saved.dropped.len() - 1) } else { String::new() });
        }
    }
    let max_age_s = live_max_age_s();
    let since_save_s = sys::unix_s().saturating_sub(saved.saved_unix_s) as f64;
    let m = paths_map()?;
    let live = table_entries()?;
    // Live entries by key: a merge looks every saved peer up (tables hold up to 2^26).
    let live_stored: std::collections::HashMap<PeerKey, u64> = live.iter().map(|(p, e)| (p.key(), e.stored_ns)).collect();
    // Namespace names as the file gives them, to their keys now (with one_table: all the host's).
    let one_table = live_one_table();
    let mut netns_keys: std::collections::HashMap<String, Option<u64>> = std::collections::HashMap::new();
    let now = sys::boot_ns();
    let prefix_len = live_prefix_len();
    let mut report = RestoreReport { dropped: saved.dropped, ..Default::default() };
    // By key: saved peers that share an IPv6 prefix are one entry, the newest.
    let mut writes: std::collections::HashMap<PeerKey, PathEntry> = std::collections::HashMap::with_capacity(saved.records.len());
    for table::SavedRecord { peer: addr, netns, entry: mut e, age_s, overrun_age_s } in saved.records {
        let netns = match netns {
            None => 0,
            Some(n) => match *netns_keys.entry(n.clone()).or_insert_with(|| sys::netns_key(&n).ok()) {
                Some(k) => if one_table { 0 } else { k },
                None => {
                    report.missing_netns += 1;
                    continue;
                }
            },
        };
        let age_s = age_s + since_save_s;
        if max_age_s > 0 && age_s > max_age_s as f64 {
            report.expired += 1;
            continue;
        }
        // An entry older than the uptime is stamped at boot (BOOTTIME cannot go lower).
        e.stored_ns = now.saturating_sub((age_s * 1e9) as u64);
        if e.overruns > 0 {
            e.overrun_s = (now / 1_000_000_000).saturating_sub((overrun_age_s + since_save_s) as u64).min(u32::MAX as u64) as u32;
        }
        let key = PeerKey { netns, ..path_key(addr, prefix_len) };
        if merge && live_stored.get(&key).is_some_and(|&ns| ns > e.stored_ns) {
            report.newer_live += 1;
            continue;
        }
        match writes.entry(key) {
            std::collections::hash_map::Entry::Occupied(mut o) => {
                report.folded += 1;
                if e.stored_ns > o.get().stored_ns {
                    o.insert(e);
                }
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(e);
            }
        }
    }
    let overwritten = writes.keys().filter(|k| live_stored.contains_key(*k)).count();
    let kept_live = if merge { live.len() - overwritten } else { 0 };
    report.removed = if merge { 0 } else { live.len() };
    let expected = kept_live + writes.len();
    anyhow::ensure!(
        expected <= m.max_entries as usize,
        "{}: {} entries do not fit a table of {}; table unchanged",
        file.display(),
        expected,
        m.max_entries
    );
    // From here on the table changes: signals wait until it is whole again.
    let _quiet = sys::SignalsDeferred::new()?;
    let apply = || -> Result<()> {
        if !merge {
            let keys: Vec<u8> = live.iter().flat_map(|(p, _)| p.key().as_bytes().to_vec()).collect();
            m.delete_batch(&keys)?;
        }
        let (mut keys, mut values) = (Vec::with_capacity(writes.len() * std::mem::size_of::<PeerKey>()), Vec::with_capacity(writes.len() * std::mem::size_of::<PathEntry>()));
        for (k, e) in &writes {
            keys.extend_from_slice(k.as_bytes());
            values.extend_from_slice(e.as_bytes());
        }
        m.update_batch(&keys, &values)?;
        let now_count = m.count()?;
        anyhow::ensure!(now_count == expected, "the kernel's table holds {now_count} entries after the restore, not {expected} (its LRU evicted some: a larger --table-size is needed)");
        Ok(())
    };
    if let Err(e) = apply() {
        // Roll back: the table as it was before the restore.
        let _ = put_back(&m, &live);
        return Err(e.context(format!("{} not restored, table put back as it was", file.display())));
    }
    report.restored = writes.len();
    // The prefixes follow the table: a replaced table's are forgotten, the restored
    // entries teach theirs again. The table is whole already and stays: what it
    // taught is derived, and a failure here is reported, not an error after the change.
    let rebuild = || -> Result<usize> {
        if !merge {
            prefixes_forget(|_| true)?;
        }
        relearn_prefixes(&writes)
    };
    report.prefixes_taught = rebuild().ok();
    Ok(report)
}

/// The restored entries teach their prefixes, oldest first as their stores once did;
/// how many taught.
fn relearn_prefixes(writes: &std::collections::HashMap<PeerKey, PathEntry>) -> Result<usize> {
    let mut learn = FleetApply::load()?;
    let mut order: Vec<(&PeerKey, u64)> = writes.iter().map(|(k, e)| (k, e.stored_ns)).collect();
    order.sort_by_key(|(_, ns)| *ns);
    let mut n = 0;
    for (k, _) in order {
        n += usize::from(learn.learn_prefix(k)?);
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table's preallocation against the memory there is: the default fits a
    /// small machine; 2^26 entries (9.7 GB) is refused on a machine with 16 GB
    /// available and taken on one with 24.
    #[test]
    fn a_table_that_does_not_fit_the_machine_is_refused() {
        const GB: u64 = 1 << 30;
        assert!(check_table_fits(DEFAULT_TABLE_ENTRIES, GB).is_ok(), "151 MB of a 1 GB machine");
        let err = check_table_fits(1 << 26, 16 * GB).unwrap_err().to_string();
        assert!(err.contains("9216 MB") && err.contains("16384 MB available"), "{err}");
        assert!(check_table_fits(1 << 26, 24 * GB).is_ok());
        assert!(check_table_fits(1 << 20, 0).is_err(), "no memory at all");
    }
}
