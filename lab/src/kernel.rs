//! The lab's own kernel side (lab/bpf/, embedded here and not in the server binary):
//! the papers' comparison starts, the receivers' discard tracer and synthetic store
//! events. They use headstart's pinned maps, so headstart's controllers load first.

use anyhow::{Context, Result};
use headstart::bpf::abi::{self, Record};
use headstart::bpf::object::{self, Aligned};
use headstart::bpf::{load_object, pin_path, pinned_map, DEFAULT_TABLE_ENTRIES, PIN_DIR};
use headstart::bpf_object;
use std::path::Path;

const LAB_DISCARDS_OBJECT: &Aligned<[u8]> = bpf_object!("lab_discards");
const LAB_STORE_EVENTS_OBJECT: &Aligned<[u8]> = bpf_object!("lab_store_events");
const LAB_STARTS_OBJECT: &Aligned<[u8]> = bpf_object!("lab_starts");

/// The papers' comparison starts (lab/bpf/lab_starts.bpf.c): the lab's, never the service's.
pub const LAB_CONTROLLERS: &[&str] = &["cubic_ss", "jump_start", "cache", "cache_plus"];

pub fn is_lab_controller(cc: &str) -> bool {
    LAB_CONTROLLERS.contains(&cc)
}

/// The lab's comparison controllers, registered while this lives (nothing pinned:
/// they go when it drops, or with the process).
pub struct LabControllers {
    // Field order is drop order: the registrations before their object.
    _links: Vec<libbpf_rs::Link>,
    _obj: libbpf_rs::Object,
}

impl LabControllers {
    /// Needs headstart's pinned maps (Cache+ writes the window override's): load it first.
    pub fn register() -> Result<LabControllers> {
        use libbpf_rs::MapCore;
        pinned_map("hs_rwnd").context("the lab's comparison controllers need headstart loaded")?;
        let mut obj = load_object("lab_starts", LAB_STARTS_OBJECT, DEFAULT_TABLE_ENTRIES)?;
        let mut links = Vec::new();
        for name in LAB_CONTROLLERS {
            let mut m = obj.maps_mut().find(|m| m.name() == *name).with_context(|| format!("lab_starts has no {name}"))?;
            links.push(m.attach_struct_ops().map_err(|e| anyhow::anyhow!("registering {name}: {e} (is another lab run using it?)"))?);
        }
        Ok(LabControllers { _links: links, _obj: obj })
    }
}

/// What the lab traces per flow (lab/bpf/lab_discards.bpf.c), taken once it ended.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowTrace {
    /// Segments the receiver discarded beyond its window, by the kernel's reason: a
    /// run's TcpExt BeyondWindow, traced to its flows (all but one run seen matched it).
    pub discards: abi::LabDiscards,
    /// Segments the sender retransmitted (its RetransSegs), whoever sent: nginx's TCP_INFO
    /// is out of the lab's reach.
    pub retrans: u64,
}

/// The lab's per-flow tracer of retransmissions and receivers' discards.
/// Counts while it lives; pins nothing.
pub struct FlowTracer {
    // Field order is drop order: the programs' links before their object.
    _links: Vec<libbpf_rs::Link>,
    obj: libbpf_rs::Object,
}

impl FlowTracer {
    pub fn attach() -> Result<FlowTracer> {
        let obj = object::open_and_load("lab_discards", LAB_DISCARDS_OBJECT, Path::new(PIN_DIR), &[])?;
        let mut links = Vec::new();
        for name in ["lab_count_beyond_window", "lab_count_retransmits"] {
            let prog = obj.progs_mut().find(|p| p.name() == name).with_context(|| format!("lab_discards has no {name}"))?;
            links.push(prog.attach().map_err(|e| anyhow::anyhow!("attaching {name}: {e}"))?);
        }
        Ok(FlowTracer { _links: links, obj })
    }

    /// What the flows from `sender_port` to the receiver ports `receiver_ports` did
    /// (curl's parallel connections take a range), summed; the counts are removed
    /// (ports are not reused within a run, but across runs). One lookup a port: the maps
    /// also hold every other TCP flow of the machine's.
    pub fn take(&self, receiver_ports: std::ops::Range<u16>, sender_port: u16) -> FlowTrace {
        let mut sum = FlowTrace::default();
        for receiver in receiver_ports {
            self.take_key(((receiver as u32) << 16 | sender_port as u32).to_ne_bytes(), &mut sum);
        }
        sum
    }

    /// What any flow from `sender_port` did (a browser's connections, whose ports the
    /// lab does not choose), summed; the counts are removed.
    pub fn take_sent_from(&self, sender_port: u16) -> FlowTrace {
        use libbpf_rs::MapCore;
        let mut sum = FlowTrace::default();
        let mut keys = Vec::new();
        for map in self.obj.maps().filter(|m| m.name() == "lab_beyond_window" || m.name() == "lab_retransmits") {
            keys.extend(map.keys().filter(|k| u32::from_ne_bytes(k[..4].try_into().unwrap_or_default()) & 0xffff == u32::from(sender_port)));
        }
        keys.sort();
        keys.dedup();
        for key in keys {
            self.take_key(key[..4].try_into().unwrap_or_default(), &mut sum);
        }
        sum
    }

    /// One flow's counts (key: the receiver's port << 16 | the sender's), added to `sum`
    /// and removed.
    fn take_key(&self, key: [u8; 4], sum: &mut FlowTrace) {
        use libbpf_rs::{MapCore, MapFlags};
        for m in self.obj.maps() {
            let discards = m.name() == "lab_beyond_window";
            if !discards && m.name() != "lab_retransmits" {
                continue;
            }
            let Some(v) = m.lookup(&key, MapFlags::ANY).ok().flatten() else { continue };
            if discards {
                let d = abi::LabDiscards::from_bytes(&v).unwrap_or_default();
                sum.discards.beyond_edge += d.beyond_edge;
                sum.discards.unread += d.unread;
            } else {
                sum.retrans += u64::from_ne_bytes(v[..8].try_into().unwrap_or_default());
            }
            let _ = m.delete(&key);
        }
    }
}


/// The lab's synthetic store events (lab/bpf/lab_store_events.bpf.c): the fleet agent's
/// load in its benchmark, written into the controllers' ring as flows would.
pub struct StoreEventSource {
    obj: libbpf_rs::Object,
}

impl StoreEventSource {
    pub fn load() -> Result<StoreEventSource> {
        anyhow::ensure!(pin_path("hs_stores").exists(), "no store ring: load headstart's controllers first");
        Ok(StoreEventSource { obj: load_object("lab_store_events", LAB_STORE_EVENTS_OBJECT, DEFAULT_TABLE_ENTRIES)? })
    }

    /// Writes `n` (at most 8192) events for peers `first..` modulo `peers`; how many
    /// the ring took.
    pub fn write(&mut self, n: u32, peers: u32, first: u32) -> Result<u32> {
        let mut ctx = [0u8; 16];
        ctx[0..4].copy_from_slice(&n.min(8192).to_ne_bytes());
        ctx[4..8].copy_from_slice(&peers.to_ne_bytes());
        ctx[8..12].copy_from_slice(&first.to_ne_bytes());
        object::run_syscall(&mut self.obj, "lab_store_events", &mut ctx)?;
        Ok(u32::from_ne_bytes(ctx[12..16].try_into().unwrap()))
    }
}

