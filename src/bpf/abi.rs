//! The tool's side of the contract in bpf/records.h: `#[repr(C)]` mirrors of the
//! shared records, the knob table, the counter names and the controller ids. The
//! layout test at the bottom compiles a small C program against records.h and checks
//! every size, offset and enum value named here, so a field moved on either side
//! fails `make test` instead of being silently misread.

use anyhow::{bail, ensure, Context, Result};

/// A record shared with the BPF side: plain old data with no padding (checked at
/// compile time by `c_record!`), so its bytes are exactly the C struct's.
///
/// # Safety
/// Implement only through `c_record!`, which proves the type has no padding and is
/// made of integers and integer arrays, for which every bit pattern is valid.
pub unsafe trait Record: Copy + Default {
    fn as_bytes(&self) -> &[u8] {
        // SAFETY: Record types have no padding (c_record! asserts it).
        unsafe { std::slice::from_raw_parts(self as *const Self as *const u8, std::mem::size_of::<Self>()) }
    }

    fn from_bytes(b: &[u8]) -> Result<Self> {
        ensure!(b.len() == std::mem::size_of::<Self>(), "record of {} bytes, expected {}", b.len(), std::mem::size_of::<Self>());
        // SAFETY: the length matches and every bit pattern is a valid value.
        Ok(unsafe { std::ptr::read_unaligned(b.as_ptr() as *const Self) })
    }
}

/// Declares a `#[repr(C)]` mirror of a C struct in records.h; field names are the C
/// names. `FIELDS` lists (name, offset, size) for the layout test.
macro_rules! c_record {
    ($(#[$m:meta])* pub struct $name:ident = $c:literal { $($(#[$fm:meta])* pub $field:ident: $ty:ty,)* }) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name { $($(#[$fm])* pub $field: $ty,)* }
        impl $name {
            pub const C_NAME: &'static str = $c;
            pub const FIELDS: &'static [(&'static str, usize, usize)] =
                &[$((stringify!($field), std::mem::offset_of!($name, $field), std::mem::size_of::<$ty>()),)*];
        }
        const _: () = assert!(0 $(+ std::mem::size_of::<$ty>())* == std::mem::size_of::<$name>(), concat!($c, " has padding"));
        // SAFETY: no padding (asserted above); integer fields only.
        unsafe impl Record for $name {}
    };
}

c_record! {
    /// struct hs_path: one peer's entry in hs_paths.
    pub struct PathEntry = "hs_path" {
        pub bw_bytes_per_s: u64,
        pub stored_ns: u64,
        pub busy_until_ns: u64,
        pub min_rtt_us: u32,
        pub flows: u32,
        pub source: u16,
        pub flags: u16,
        pub overshoots: u32,
        pub agreed: u32,
        pub clean_segs: u32,
        pub handshakes: u32,
        pub busy_share: u32,
        pub overruns: u32,
        pub overrun_s: u32,
    }
}

c_record! {
    /// struct hs_peer: the key of hs_paths and hs_open (netns 0: the host's namespace).
    pub struct PeerKey = "hs_peer" {
        pub bytes: [u8; 16],
        pub netns: u64,
    }
}

c_record! {
    /// struct hs_flow_outcome: how one flow's start went (hs_outcomes).
    pub struct FlowOutcome = "hs_flow_outcome" {
        pub cc: u32,
        pub outcome: u32,
        pub jump_cwnd: u32,
        pub pipe_pkts: u32,
        pub phase: u32,
        pub released: u32,
        pub cached_bw_bytes_per_s: u64,
        pub override_rwnd_limited_ms: u32,
        pub rcv_overrun: u32,
    }
}

c_record! {
    /// struct hs_open_flows: a peer's open flows and its flows' last loss (hs_open).
    pub struct OpenFlows = "hs_open_flows" {
        pub open: u32,
        pub pkts_out: u32,
        pub last_loss_ns: u64,
        pub armed: u32,
        pub starting: u32,
        pub delivered: u64,
    }
}

c_record! {
    /// struct hs_flow_key: the key of hs_rwnd and hs_outcomes.
    pub struct FlowKey = "hs_flow_key" {
        pub peer: [u8; 16],
        pub local: [u8; 16],
        pub peer_port: u16,
        pub local_port: u16,
        pub netns_ino: u32,
    }
}

c_record! {
    /// struct hs_rwnd_grant: one flow's receive-window override (hs_rwnd), the tc
    /// program's state. The tool only checks its size at load.
    pub struct RwndGrant = "hs_rwnd_grant" {
        pub field: u16,
        pub peak: u16,
        pub last_ack: u32,
        pub last_win: u16,
        pub flags: u8,
        pub overruns: u8,
    }
}

c_record! {
    /// struct hs_prefix: what the entries of one /24 or /48's peers agree on (the value
    /// of hs_prefixes, key a PeerKey cut to the prefix: prefix fallback).
    pub struct PrefixAggregate = "hs_prefix" {
        pub bw_bytes_per_s: u64,
        pub updated_ns: u64,
        pub min_rtt_us: u32,
        pub agreed: u32,
        pub entries: u32,
        pub last_peer: u32,
        pub flags: u16,
        pub pad: u16,
        pub pad2: u32,
    }
}

/// Different peers in a row that agree before a prefix starts first contacts, and the
/// share of its rate they start from (lib/prefix.h).
pub const PREFIX_AGREED: u32 = 3;
pub const PREFIX_START_PCT: u64 = 50;

c_record! {
    /// struct hs_lab_discards: one flow's segments its receiver discarded beyond its
    /// window, by the kernel's reason (lab_beyond_window, the lab's instrument).
    pub struct LabDiscards = "hs_lab_discards" {
        pub beyond_edge: u64,
        pub unread: u64,
    }
}

c_record! {
    /// struct hs_store_event: one change a flow made to its peer's entry (the hs_stores
    /// ring, read by the fleet agent). bw_bytes_per_s 0: deleted.
    pub struct StoreEvent = "hs_store_event" {
        pub peer: PeerKey,
        pub bw_bytes_per_s: u64,
        pub stored_ns: u64,
        pub min_rtt_us: u32,
        pub flags: u16,
        pub source: u16,
    }
}

c_record! {
    /// struct hs_fleet_entry: the fleet apply program's context, another server's entry
    /// for one peer; the program writes `verdict` (FLEET_APPLIED ...).
    pub struct FleetEntry = "hs_fleet_entry" {
        pub peer: PeerKey,
        pub bw_bytes_per_s: u64,
        pub age_ns: u64,
        pub min_rtt_us: u32,
        pub flags: u16,
        pub verdict: u16,
    }
}

/// enum hs_fleet_verdict: what the apply program did with an entry (EXPIRED and INVALID
/// follow: refused).
pub const FLEET_APPLIED: u16 = 1;
pub const FLEET_DELETED: u16 = 2;
pub const FLEET_OLDER: u16 = 3;
pub const FLEET_INVALID: u16 = 5;

/// Who wrote an entry: the controllers by id (enum hs_cc_id), the user, the fleet.
pub const SOURCES: &[&str] = &["s_cubic", "s_bbr", "suss", "user", "fleet"];
/// HS_SOURCE_USER.
pub const SOURCE_USER: u16 = 3;
/// HS_SOURCE_FLEET: another server's store, applied by the fleet agent.
pub const SOURCE_FLEET: u16 = 4;
/// HS_PATH_LOSSY: a storing flow lost packets with no queue in its RTT.
pub const PATH_LOSSY: u16 = 0x1;

/// One named counter slot of a controller's block in hs_counters.
pub struct Counter {
    pub name: &'static str,
    /// Its enum constant in records.h.
    pub c_name: &'static str,
}

/// HS_COUNTERS_PER_CC.
pub const COUNTERS_PER_CC: usize = 64;
/// HS_COUNTERS_VERSION, in the slot after the controllers' blocks.
pub const COUNTERS_VERSION: u64 = 8;
/// The slot that holds it.
pub const COUNTERS_VERSION_SLOT: u32 = (3 * COUNTERS_PER_CC) as u32;

/// The counter layouts of earlier releases, by version: each controller's counter
/// names in slot order. Version 1 had no version slot.
pub const COUNTER_HISTORY: &[(u64, CounterLayout)] = &[(
    1,
    CounterLayout::Names(&[
        "flows", "hits", "misses", "stores", "discards", "skipped", "expired", "reject_no_rtt", "reject_rtt_shorter", "reject_rtt_longer",
        "reject_busy", "jumps", "rate_limited", "validated", "retreat_loss", "retreat_ecn", "retreat_rto", "retreat_rate", "loss_no_queue",
        "off", "shadow_would_jump", "shadow_scored", "shadow_ratio_lt_0.25", "shadow_ratio_lt_0.5", "shadow_ratio_lt_0.8",
        "shadow_ratio_lt_0.91", "shadow_ratio_le_1.1", "shadow_ratio_le_1.25", "shadow_ratio_le_2", "shadow_ratio_le_4",
        "shadow_ratio_gt_4", "shared_jumps", "lossy_no_rwnd", "probe_queue_exits", "probe_handovers", "hooks_missed", "reject_small",
        "rwnd_receiver_behind", "store_jump_only", "no_queue_overflows", "probe_drain_answered", "untrusted", "busy_no_rwnd",
        "yielded_jumps", "shared_no_rwnd", "shared_quiet_rwnd", "reject_siblings", "inits_late", "rwnd_receiver_overrun",
        "overrun_no_rwnd",
    ]),
), (
    2,
    CounterLayout::Names(&[
        "flows", "hits", "misses", "stores", "discards", "skipped", "expired", "reject_no_rtt", "reject_rtt_shorter", "reject_rtt_longer",
        "reject_busy", "jumps", "rate_limited", "validated", "retreat_loss", "retreat_ecn", "retreat_rto", "retreat_rate",
        "off", "shadow_would_jump", "shadow_scored", "shadow_ratio_lt_0.25", "shadow_ratio_lt_0.5", "shadow_ratio_lt_0.8",
        "shadow_ratio_lt_0.91", "shadow_ratio_le_1.1", "shadow_ratio_le_1.25", "shadow_ratio_le_2", "shadow_ratio_le_4",
        "shadow_ratio_gt_4", "lossy_no_rwnd", "probe_queue_exits", "hooks_missed", "reject_small",
        "rwnd_receiver_behind", "store_jump_only", "no_queue_overflows", "probe_drain_answered", "untrusted", "busy_no_rwnd",
        "yielded_jumps", "shared_no_rwnd", "shared_quiet_rwnd", "reject_siblings", "inits_late", "rwnd_receiver_overrun",
        "overrun_no_rwnd", "armed", "no_jump_needed",
    ]),
), (
    // Appended to since: each later layout is today's first counters.
    3,
    CounterLayout::TodaysFirst(48), // ... "armed", "no_jump_needed"
), (
    4,
    CounterLayout::TodaysFirst(49), // ... "restarts"
), (
    5,
    CounterLayout::TodaysFirst(50), // ... "fast_open"
), (
    6,
    CounterLayout::TodaysFirst(51), // ... "prefix_hits"
), (
    7,
    CounterLayout::TodaysFirst(52), // ... "suss_starts"
)];

/// An earlier release's stateful counter layout: its names whole, or (for releases
/// that only appended) how many of today's come first.
pub enum CounterLayout {
    Names(&'static [&'static str]),
    TodaysFirst(usize),
}

impl CounterLayout {
    pub fn names(&self) -> Vec<&'static str> {
        match self {
            CounterLayout::Names(n) => n.to_vec(),
            CounterLayout::TodaysFirst(k) => STATEFUL_COUNTERS.iter().take(*k).map(|c| c.name).collect(),
        }
    }
}

macro_rules! counters {
    ($($name:literal = $c:literal),* $(,)?) => { &[$(Counter { name: $name, c_name: $c }),*] };
}

/// enum hs_counter: s_cubic and s_bbr, with Careful Resume's phases and reasons.
pub const STATEFUL_COUNTERS: &[Counter] = counters![
    "flows" = "HS_FLOWS", "hits" = "HS_HITS", "misses" = "HS_MISSES", "stores" = "HS_STORES",
    "discards" = "HS_DISCARDS", "skipped" = "HS_SKIPPED", "expired" = "HS_EXPIRED",
    "reject_no_rtt" = "HS_REJECT_NO_RTT", "reject_rtt_shorter" = "HS_REJECT_RTT_SHORTER",
    "reject_rtt_longer" = "HS_REJECT_RTT_LONGER",
    "jumps" = "HS_JUMPS", "rate_limited" = "HS_RATE_LIMITED", "validated" = "HS_VALIDATED",
    "retreat_loss" = "HS_RETREAT_LOSS", "retreat_ecn" = "HS_RETREAT_ECN", "retreat_rto" = "HS_RETREAT_RTO",
    "retreat_rate" = "HS_RETREAT_RATE",
    "off" = "HS_OFF", "shadow_would_jump" = "HS_SHADOW_WOULD_JUMP", "shadow_scored" = "HS_SHADOW_SCORED",
    "shadow_ratio_lt_0.25" = "HS_SHADOW_RATIO_0", "shadow_ratio_lt_0.5" = "HS_SHADOW_RATIO_0 + 1",
    "shadow_ratio_lt_0.8" = "HS_SHADOW_RATIO_0 + 2", "shadow_ratio_lt_0.91" = "HS_SHADOW_RATIO_0 + 3",
    "shadow_ratio_le_1.1" = "HS_SHADOW_RATIO_0 + 4", "shadow_ratio_le_1.25" = "HS_SHADOW_RATIO_0 + 5",
    "shadow_ratio_le_2" = "HS_SHADOW_RATIO_0 + 6", "shadow_ratio_le_4" = "HS_SHADOW_RATIO_0 + 7",
    "shadow_ratio_gt_4" = "HS_SHADOW_RATIO_0 + 8",
    "lossy_no_rwnd" = "HS_LOSSY_NO_RWND", "probe_queue_exits" = "HS_PROBE_QUEUE_EXITS",
    "hooks_missed" = "HS_HOOKS_MISSED",
    "reject_small" = "HS_REJECT_SMALL", "rwnd_receiver_behind" = "HS_RWND_RECEIVER_BEHIND",
    "store_jump_only" = "HS_STORE_JUMP_ONLY", "no_queue_overflows" = "HS_NO_QUEUE_OVERFLOWS",
    "probe_drain_answered" = "HS_PROBE_DRAIN_ANSWERED", "untrusted" = "HS_UNTRUSTED",
    "busy_no_rwnd" = "HS_BUSY_NO_RWND", "yielded_jumps" = "HS_YIELDED_JUMPS",
    "shared_no_rwnd" = "HS_SHARED_NO_RWND", "shared_quiet_rwnd" = "HS_SHARED_QUIET_RWND",
    "reject_siblings" = "HS_REJECT_SIBLINGS", "inits_late" = "HS_INITS_LATE",
    "rwnd_receiver_overrun" = "HS_RWND_RECEIVER_OVERRUN", "overrun_no_rwnd" = "HS_OVERRUN_NO_RWND",
    "armed" = "HS_ARMED", "no_jump_needed" = "HS_NO_JUMP_NEEDED", "restarts" = "HS_RESTARTS",
    "fast_open" = "HS_FAST_OPEN", "prefix_hits" = "HS_PREFIX_HITS", "suss_starts" = "HS_SUSS_STARTS",
    "follow_ups" = "HS_FOLLOW_UPS",
];

/// Shadow mode's histogram (bpf/lib/shadow.h): the counter of its first bucket and
/// each bucket's upper bound on cached / measured (the last is open).
pub const SHADOW_FIRST_BUCKET: &str = "shadow_ratio_lt_0.25";
pub const SHADOW_BUCKET_EDGES: [f64; 8] = [0.25, 0.5, 0.8, 0.91, 1.1, 1.25, 2.0, 4.0];

/// enum hs_phase, by value.
pub const PHASES: &[&str] = &["none", "unvalidated", "validating", "normal", "retreat"];

/// enum hs_suss_counter.
pub const SUSS_COUNTERS: &[Counter] = counters![
    "flows" = "HS_SUSS_FLOWS", "accelerated_rounds" = "HS_SUSS_ACCELERATED_ROUNDS",
    "normal_rounds" = "HS_SUSS_NORMAL_ROUNDS", "train_exits" = "HS_SUSS_TRAIN_EXITS",
    "delay_exits" = "HS_SUSS_DELAY_EXITS", "loss_stops" = "HS_SUSS_LOSS_STOPS",
    "hooks_missed" = "HS_SUSS_HOOKS_MISSED", "inits_late" = "HS_SUSS_INITS_LATE",
    "rwnd_stops" = "HS_SUSS_RWND_STOPS",
];

/// A congestion control of ours: its name (the struct_ops map and the kernel's name
/// for it), its id (enum hs_cc_id) and the meaning of its counter slots.
pub struct ControllerAbi {
    pub name: &'static str,
    pub id: u32,
    pub c_id: &'static str,
    pub counters: &'static [Counter],
}

pub const CONTROLLER_ABI: &[ControllerAbi] = &[
    ControllerAbi { name: "s_cubic", id: 0, c_id: "HS_CC_S_CUBIC", counters: STATEFUL_COUNTERS },
    ControllerAbi { name: "s_bbr", id: 1, c_id: "HS_CC_S_BBR", counters: STATEFUL_COUNTERS },
    ControllerAbi { name: "suss", id: 2, c_id: "HS_CC_SUSS", counters: SUSS_COUNTERS },
];

// ---------------------------------------------------------------------------------
// Knobs: struct hs_config (the operator's) and struct hs_lab_config (experiments'),
// each a version word followed by one u32 per knob, in table order.

/// How a knob's value is written and read.
pub enum KnobKind {
    /// 0/1: on/off, true/false, yes/no.
    Switch,
    /// Named values.
    Choice(&'static [(&'static str, u32)]),
    /// A whole number in a range, with its unit.
    Number { min: u32, max: u32, unit: &'static str },
}

pub struct Knob {
    pub name: &'static str,
    pub kind: KnobKind,
    pub default: u32,
    pub doc: &'static str,
}

const ON: u32 = 1;
const OFF: u32 = 0;

/// The operator's knobs: the one place each one's kind, range, default and one-line
/// doc live. The C field of the same name in struct hs_config holds it (checked by the
/// layout test). Every other choice is decided (bpf/lib/tuned.h, RESULTS.md).
pub const KNOBS: &[Knob] = &[
    Knob {
        name: "mode",
        kind: KnobKind::Choice(&[("on", 0), ("off", 1), ("shadow", 2)]),
        default: 0,
        doc: "on; off: every flow is the kernel's Cubic/BBR (entries still stored); shadow: record what a start would have done, start as the kernel",
    },
    Knob { name: "rwnd_override", kind: KnobKind::Switch, default: ON, doc: "open the receiver's window as far as a jump needs, until it is validated (needs `headstart attach`)" },
    Knob { name: "max_age_s", kind: KnobKind::Number { min: 0, max: u32::MAX, unit: "s" }, default: 3600, doc: "entries older than this are deleted, not used (0 = any age)" },
    Knob { name: "max_start_cwnd", kind: KnobKind::Number { min: 10, max: 1_000_000, unit: "packets" }, default: 1000, doc: "cap on a jump's window" },
    Knob { name: "max_start_rate_mbps", kind: KnobKind::Number { min: 1, max: 1_000_000, unit: "Mbit/s" }, default: 1000, doc: "cap on a jump's pacing rate" },
    Knob { name: "store_cap_mbps", kind: KnobKind::Number { min: 0, max: 1_000_000, unit: "Mbit/s" }, default: 10_000, doc: "no entry above this rate: the server's link speed (0 = no cap)" },
    Knob { name: "trusted_uid_max", kind: KnobKind::Number { min: 0, max: u32::MAX, unit: "uid" }, default: 999, doc: "only sockets of a uid up to this use the path table; others are the kernel's own" },
    Knob { name: "ipv6_prefix_len", kind: KnobKind::Number { min: 32, max: 128, unit: "bits" }, default: 64, doc: "the table keys an IPv6 peer by this many leading bits (64: one access link)" },
    Knob { name: "one_table", kind: KnobKind::Switch, default: OFF, doc: "every network namespace (container) uses the host's entries; off: each its own, as Linux's tcp_metrics" },
    Knob { name: "prefix_fallback", kind: KnobKind::Switch, default: OFF, doc: "a peer with no entry starts from half of what its /24 or /48's entries agree on" },
];

/// What only experiments set (struct hs_lab_config): the lab writes it for a run and
/// puts it back; `headstart config` neither shows nor writes it.
pub const LAB_KNOBS: &[Knob] = &[
    Knob { name: "startup", kind: KnobKind::Switch, default: ON, doc: "stateful start on a table hit (off: A/B runs without it)" },
    Knob { name: "store", kind: KnobKind::Switch, default: ON, doc: "flows store their estimate at their end" },
    Knob { name: "freeze", kind: KnobKind::Switch, default: OFF, doc: "never overwrite an entry (the paper's S-Cubic*)" },
    Knob { name: "bw_scale_pct", kind: KnobKind::Number { min: 1, max: 1000, unit: "%" }, default: 100, doc: "cached rate x pct/100 at the start: the estimation-error experiment" },
    Knob { name: "rtt_scale_pct", kind: KnobKind::Number { min: 10, max: 2000, unit: "%" }, default: 100, doc: "cached min RTT x pct/100 at the start: the RTT-mismatch experiment" },
    Knob { name: "suss", kind: KnobKind::Switch, default: ON, doc: "SUSS's accelerated rounds (suss, s_cubic's first contacts)" },
    Knob { name: "suss_k_max", kind: KnobKind::Number { min: 1, max: 4, unit: "" }, default: 1, doc: "SUSS Appendix A: growth up to 2^(k+1) per round" },
    Knob { name: "gcbe_min_span_us", kind: KnobKind::Number { min: 0, max: 1_000_000, unit: "us" }, default: 1000, doc: "GCBE's noise floor (0: table tests whose short flows must all store)" },
    Knob { name: "min_jump_pkts", kind: KnobKind::Number { min: 0, max: 1_000_000, unit: "packets" }, default: 40, doc: "s_cubic's smallest jump (0: every entry is jumped to)" },
];

/// One of the two knob records.
pub trait KnobSet: 'static {
    const TABLE: &'static [Knob];
    /// The record's version word (HS_CONFIG_VERSION, HS_LAB_CONFIG_VERSION).
    const VERSION: u32;
    /// Which record, for messages.
    const WHAT: &'static str;
    /// Its pinned map.
    const MAP: &'static str;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operator;
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lab;

/// HS_CONFIG_VERSION: "HSC5".
pub const CONFIG_VERSION: u32 = 0x4853_4335;
/// HS_LAB_CONFIG_VERSION: "HSL2".
pub const LAB_CONFIG_VERSION: u32 = 0x4853_4c32;

impl KnobSet for Operator {
    const TABLE: &'static [Knob] = KNOBS;
    const VERSION: u32 = CONFIG_VERSION;
    const WHAT: &'static str = "knob";
    const MAP: &'static str = "hs_config";
}

impl KnobSet for Lab {
    const TABLE: &'static [Knob] = LAB_KNOBS;
    const VERSION: u32 = LAB_CONFIG_VERSION;
    const WHAT: &'static str = "lab knob";
    const MAP: &'static str = "hs_lab_config";
}

/// Knobs added after HSC1 (which every later record's history names start from).
#[cfg(test)]
const KNOBS_SINCE_HSC1: &[&str] = &["one_table", "prefix_fallback"];

/// The knob records of earlier releases, by version word: their knobs' names in record
/// order. A record of one of them is carried over by name (KnobValues::carried_from):
/// what this release still has keeps its value, the rest is dropped and said.
pub const KNOB_HISTORY: &[(u32, &[&str])] = &[
    (
        0x4853_4334, // "HSC4": today's knobs but prefix_fallback
        &["seq", "mode", "rwnd_override", "max_age_s", "max_start_cwnd", "max_start_rate_mbps", "store_cap_mbps", "trusted_uid_max", "ipv6_prefix_len", "one_table"],
    ),
    (
        0x4853_4333, // "HSC3": the seq word and today's knobs but one_table
        &["seq", "mode", "rwnd_override", "max_age_s", "max_start_cwnd", "max_start_rate_mbps", "store_cap_mbps", "trusted_uid_max", "ipv6_prefix_len"],
    ),
    (
        0x4853_4332, // "HSC2": today's knobs, without the seq word
        &["mode", "rwnd_override", "max_age_s", "max_start_cwnd", "max_start_rate_mbps", "store_cap_mbps", "trusted_uid_max", "ipv6_prefix_len"],
    ),
    (
    0x4853_4331, // "HSC1": 44 knobs, only ever appended to (a shorter record is a prefix)
    &[
        "startup", "store", "freeze", "bw_scale_pct", "rwnd_override", "max_age_s", "suss", "suss_k_max", "gcbe_median", "after_jump",
        "gcbe_min_span_us", "bbr_plateau_rtts", "max_start_cwnd", "max_start_rate_mbps", "jump_pct", "rtt_match", "retreat_beta_pct",
        "retreat_entry", "rate_retreat_pct", "rtt_scale_pct", "probe_growth_pct", "store_max_raise_pct", "store_cap_mbps",
        "store_lossy_keep", "retreat_on", "mode", "gcbe_merge_us", "concurrency", "s_bbr_gcbe", "rwnd_lossy",
        "store_confident_floor_pct", "after_rate_retreat", "probe_drain_pct", "after_jump_lossy", "probe_loss_floor", "min_jump_pkts",
        "gcbe_aggregation", "trusted_uid_max", "ipv6_prefix_len", "rwnd_busy", "jump_yield", "rwnd_shared", "jump_room", "rwnd_overrun",
    ],
    ),
];

/// A value of an older release's knob in this release's terms: rwnd_override was
/// off/on(until the first ACK)/resume, and is off/on (resume's meaning) now.
fn translate_old(name: &str, value: u32) -> u32 {
    match name {
        "rwnd_override" => u32::from(value != 0),
        _ => value,
    }
}

/// HS_BUSY_SHARE_ONE (bpf/lib/resume.h): hs_path.busy_share of a bottleneck every handshake found busy.
pub const BUSY_SHARE_ONE: u32 = 65536;
/// HS_OUTCOME_NONE: a hs_flow_outcome field with no value.
pub const OUTCOME_NONE: u32 = u32::MAX;

/// The operator's knob of that name.
pub fn knob(name: &str) -> Result<(usize, &'static Knob)> {
    find_knob::<Operator>(name)
}

fn find_knob<S: KnobSet>(name: &str) -> Result<(usize, &'static Knob)> {
    S::TABLE.iter().enumerate().find(|(_, k)| k.name == name).with_context(|| {
        format!("unknown {} '{name}' ({}s: {})", S::WHAT, S::WHAT, S::TABLE.iter().map(|k| k.name).collect::<Vec<_>>().join(", "))
    })
}

impl Knob {
    /// Parses a value as written by a user (or by `format`).
    pub fn parse(&self, text: &str) -> Result<u32> {
        let v = text.trim();
        let value = match &self.kind {
            KnobKind::Switch => match v {
                "1" | "on" | "true" | "yes" => 1,
                "0" | "off" | "false" | "no" => 0,
                _ => bail!("{} takes on/off, not '{v}'", self.name),
            },
            KnobKind::Choice(choices) => match choices.iter().find(|(n, _)| *n == v) {
                Some((_, x)) => *x,
                None => v.parse().ok().filter(|x| choices.iter().any(|(_, c)| c == x)).with_context(|| {
                    format!("{} takes {}, not '{v}'", self.name, choices.iter().map(|(n, _)| *n).collect::<Vec<_>>().join("/"))
                })?,
            },
            KnobKind::Number { .. } => v.parse().with_context(|| format!("{} takes a whole number, not '{v}'", self.name))?,
        };
        self.check(value)?;
        Ok(value)
    }

    pub fn check(&self, value: u32) -> Result<()> {
        match &self.kind {
            KnobKind::Switch => ensure!(value <= 1, "{} must be on or off", self.name),
            KnobKind::Choice(choices) => ensure!(choices.iter().any(|(_, c)| *c == value), "{}: {value} is not a known value", self.name),
            KnobKind::Number { min, max, unit } => {
                ensure!((*min..=*max).contains(&value), "{} must be {min}..{max}{}{}", self.name, if unit.is_empty() { "" } else { " " }, unit)
            }
        }
        Ok(())
    }

    /// The value as `parse` reads it back.
    pub fn format(&self, value: u32) -> String {
        match &self.kind {
            KnobKind::Switch => (if value != 0 { "on" } else { "off" }).to_string(),
            KnobKind::Choice(choices) => choices.iter().find(|(_, c)| *c == value).map(|(n, _)| n.to_string()).unwrap_or_else(|| value.to_string()),
            KnobKind::Number { .. } => value.to_string(),
        }
    }

    /// What values it takes, for help texts and the README.
    pub fn values(&self) -> String {
        match &self.kind {
            KnobKind::Switch => "on/off".to_string(),
            KnobKind::Choice(choices) => choices.iter().map(|(n, _)| *n).collect::<Vec<_>>().join("/"),
            KnobKind::Number { min, max, unit } => format!("{min}..{max}{}{unit}", if unit.is_empty() { "" } else { " " }),
        }
    }
}

/// The values of one knob record, in table order.
pub struct KnobValues<S: KnobSet> {
    values: Vec<u32>,
    _set: std::marker::PhantomData<S>,
}

/// The operator's knobs (struct hs_config).
pub type Knobs = KnobValues<Operator>;
/// The experiments' knobs (struct hs_lab_config).
pub type LabKnobs = KnobValues<Lab>;

impl<S: KnobSet> Clone for KnobValues<S> {
    fn clone(&self) -> Self {
        KnobValues { values: self.values.clone(), _set: std::marker::PhantomData }
    }
}
impl<S: KnobSet> PartialEq for KnobValues<S> {
    fn eq(&self, other: &Self) -> bool {
        self.values == other.values
    }
}
impl<S: KnobSet> Eq for KnobValues<S> {}
impl<S: KnobSet> std::fmt::Debug for KnobValues<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter().map(|(k, v)| (k.name, k.format(v)))).finish()
    }
}

impl<S: KnobSet> Default for KnobValues<S> {
    fn default() -> Self {
        KnobValues { values: S::TABLE.iter().map(|k| k.default).collect(), _set: std::marker::PhantomData }
    }
}

impl<S: KnobSet> KnobValues<S> {
    /// The version word, the seq word (records.h), one word per knob.
    pub const RECORD_SIZE: usize = 4 * (2 + S::TABLE.len());

    pub fn get(&self, name: &str) -> Result<u32> {
        Ok(self.values[find_knob::<S>(name)?.0])
    }

    /// Whether `name` is a knob of this record.
    pub fn has(name: &str) -> bool {
        S::TABLE.iter().any(|k| k.name == name)
    }

    /// Applies `KEY=VALUE`; on error nothing changes.
    pub fn set(&mut self, assignment: &str) -> Result<()> {
        let (k, v) = assignment.split_once('=').with_context(|| format!("'{assignment}': expected KEY=VALUE"))?;
        let (i, knob) = find_knob::<S>(k.trim())?;
        self.values[i] = knob.parse(v)?;
        Ok(())
    }

    /// (knob, value) in table order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static Knob, u32)> + '_ {
        S::TABLE.iter().zip(self.values.iter().copied())
    }

    /// The record with seq word `seq`. Values were checked on the way in.
    pub fn to_record(&self, seq: u32) -> Vec<u8> {
        [S::VERSION, seq].into_iter().chain(self.values.iter().copied()).flat_map(u32::to_ne_bytes).collect()
    }

    /// The map updates that replace record `current` (as read from the map; None: not
    /// there) with this one, each changing either the seq word or the knobs: seq made
    /// odd, the knobs with it odd, seq made even. A controller copying the record
    /// during the knobs' update sees seq odd or changed and does not take its copy
    /// (path_table.h, HS_COPY_WHOLE).
    pub fn write_steps(&self, current: Option<&[u8]>) -> Vec<Vec<u8>> {
        let current = current.filter(|c| c.len() == Self::RECORD_SIZE).map(<[u8]>::to_vec).unwrap_or_else(|| vec![0; Self::RECORD_SIZE]);
        let seq = u32::from_ne_bytes(current[4..8].try_into().unwrap()) & !1;
        let mut first = current;
        first[4..8].copy_from_slice(&(seq | 1).to_ne_bytes());
        vec![first, self.to_record(seq | 1), self.to_record(seq.wrapping_add(2))]
    }

    /// Reads a record of this release: None if it was never written.
    pub fn from_record(b: &[u8]) -> Result<Option<Self>> {
        ensure!(b.len() == Self::RECORD_SIZE, "{} record of {} bytes, expected {}", S::WHAT, b.len(), Self::RECORD_SIZE);
        let word = |i: usize| u32::from_ne_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
        if word(0) != S::VERSION {
            return Ok(None);
        }
        let mut k = Self::default();
        for (i, knob) in S::TABLE.iter().enumerate() {
            k.values[i] = word(i + 2);
            knob.check(k.values[i]).with_context(|| format!("the pinned {} record is corrupt", S::WHAT))?;
        }
        Ok(Some(k))
    }
}

impl<S: KnobSet> KnobValues<S> {
    /// After a run that wrote `set` over `previous`: puts back, in self (the record as
    /// it is now), each knob the run changed and nobody changed since (an operator's
    /// `headstart off` during a lab run stays). Returns whether anything changed.
    pub fn put_back(&mut self, previous: &Self, set: &Self) -> bool {
        let mut changed = false;
        for i in 0..self.values.len() {
            if set.values[i] != previous.values[i] && self.values[i] == set.values[i] {
                self.values[i] = previous.values[i];
                changed = true;
            }
        }
        changed
    }
}

/// KEY=VALUE assignments split into the operator's knobs and the lab's, each checked
/// against its table; a name in neither is refused.
pub fn split_assignments(assignments: &[String]) -> Result<(Vec<String>, Vec<String>)> {
    let (mut ops, mut lab) = (Vec::new(), Vec::new());
    let (mut check_ops, mut check_lab) = (Knobs::default(), LabKnobs::default());
    for a in assignments {
        let name = a.split_once('=').map(|(k, _)| k.trim()).with_context(|| format!("'{a}': expected KEY=VALUE"))?;
        if LabKnobs::has(name) {
            check_lab.set(a)?;
            lab.push(a.clone());
        } else if Knobs::has(name) {
            check_ops.set(a)?;
            ops.push(a.clone());
        } else {
            let all: Vec<&str> = KNOBS.iter().chain(LAB_KNOBS).map(|k| k.name).collect();
            bail!("unknown knob '{name}' (knobs: {})", all.join(", "));
        }
    }
    Ok((ops, lab))
}

impl Knobs {
    /// Reads an earlier release's knob record (KNOB_HISTORY) by name: the knobs this
    /// release has keep their values (translated where their meaning changed; a value
    /// out of today's range falls back to the default), the others are returned as
    /// dropped. None if the record was never written.
    pub fn carried_from(b: &[u8]) -> Result<Option<(Knobs, Vec<String>)>> {
        ensure!(b.len().is_multiple_of(4) && b.len() >= 4, "knob record of {} bytes", b.len());
        let word = |i: usize| u32::from_ne_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
        if word(0) == 0 {
            return Ok(None);
        }
        let (_, names) = KNOB_HISTORY.iter().find(|(v, _)| *v == word(0)).with_context(|| format!("knob record version {:#x} is not one this release knows", word(0)))?;
        ensure!(b.len() / 4 - 1 <= names.len(), "knob record of {} bytes is longer than its version's", b.len());
        let mut k = Knobs::default();
        let mut dropped = Vec::new();
        for (i, name) in names.iter().enumerate().take(b.len() / 4 - 1) {
            if *name == "seq" {
                continue;
            }
            match find_knob::<Operator>(name) {
                Ok((at, knob)) => {
                    let v = translate_old(name, word(i + 1));
                    if knob.check(v).is_ok() {
                        k.values[at] = v;
                    }
                }
                Err(_) => dropped.push(name.to_string()),
            }
        }
        Ok(Some((k, dropped)))
    }
}

/// A knob table as Markdown, for the README (a unit test keeps them equal).
pub fn knobs_markdown() -> String {
    let mut s = String::from("| knob | values | default | what it does |\n|---|---|---|---|\n");
    for k in KNOBS {
        s.push_str(&format!("| `{}` | {} | {} | {} |\n", k.name, k.values(), k.format(k.default), k.doc));
    }
    s
}

/// The knob table as plain text, for `headstart config --help`.
pub fn knobs_help() -> String {
    let mut s = String::from("Knobs (KEY=VALUE):\n");
    for k in KNOBS {
        s.push_str(&format!("  {:<20} {} (default {}): {}\n", k.name, k.values(), k.format(k.default), k.doc));
    }
    s
}

/// The lab's knob table as plain text, for `headstart lab knobs --help`.
pub fn lab_knobs_help() -> String {
    let mut s = String::from("Lab knobs (KEY=VALUE), for experiments only:\n");
    for k in LAB_KNOBS {
        s.push_str(&format!("  {:<14} {} (default {}): {}\n", k.name, k.values(), k.format(k.default), k.doc));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::process::Command;

    /// Compiles a C program that prints every size, offset and constant the tool
    /// relies on, as the C compiler sees records.h, and returns them by name.
    fn c_layout(extra_c: &str) -> BTreeMap<String, u64> {
        let mut c = String::from("#include <stdio.h>\n#include <stddef.h>\n#include \"records.h\"\n#include \"lib/shadow.h\"\n#include \"lib/path_key.h\"\n#include \"lib/resume.h\"\n#include \"lib/startup.h\"\n#include \"lib/prefix.h\"\n#define P(name, v) printf(\"%s %llu\\n\", name, (unsigned long long)(v))\nint main(void) {\n");
        c.push_str(extra_c);
        for (cname, fields) in [(PathEntry::C_NAME, PathEntry::FIELDS), (PeerKey::C_NAME, PeerKey::FIELDS), (FlowKey::C_NAME, FlowKey::FIELDS), (FlowOutcome::C_NAME, FlowOutcome::FIELDS), (OpenFlows::C_NAME, OpenFlows::FIELDS), (RwndGrant::C_NAME, RwndGrant::FIELDS), (LabDiscards::C_NAME, LabDiscards::FIELDS), (PrefixAggregate::C_NAME, PrefixAggregate::FIELDS), (StoreEvent::C_NAME, StoreEvent::FIELDS), (FleetEntry::C_NAME, FleetEntry::FIELDS)] {
            c.push_str(&format!("P(\"{cname}.size\", sizeof(struct {cname}));\n"));
            for (f, _, _) in fields.iter() {
                c.push_str(&format!("P(\"{cname}.{f}.offset\", offsetof(struct {cname}, {f}));\n"));
                c.push_str(&format!("P(\"{cname}.{f}.size\", sizeof(((struct {cname} *)0)->{f}));\n"));
            }
        }
        c.push_str("P(\"hs_config.size\", sizeof(struct hs_config));\nP(\"hs_config.version.offset\", offsetof(struct hs_config, version));\nP(\"hs_config.seq.offset\", offsetof(struct hs_config, seq));\nP(\"hs_lab_config.seq.offset\", offsetof(struct hs_lab_config, seq));\nP(\"HS_CONFIG_VERSION\", HS_CONFIG_VERSION);\nP(\"hs_lab_config.size\", sizeof(struct hs_lab_config));\nP(\"HS_LAB_CONFIG_VERSION\", HS_LAB_CONFIG_VERSION);\nP(\"HS_COUNTERS_VERSION\", HS_COUNTERS_VERSION);\nP(\"HS_OUTCOME_NONE\", HS_OUTCOME_NONE);\nP(\"HS_BUSY_SHARE_ONE\", HS_BUSY_SHARE_ONE);\nP(\"HS_PATH_MAX_RTT_US\", HS_PATH_MAX_RTT_US);\nP(\"HS_PATH_MAX_BW_BYTES_PER_S\", HS_PATH_MAX_BW_BYTES_PER_S);\nP(\"HS_PREFIX_AGREED\", HS_PREFIX_AGREED);\nP(\"HS_PREFIX_START_PCT\", HS_PREFIX_START_PCT);\n");
        for k in KNOBS {
            c.push_str(&format!("P(\"knob.{0}\", offsetof(struct hs_config, {0}));\n", k.name));
        }
        for k in LAB_KNOBS {
            c.push_str(&format!("P(\"lab_knob.{0}\", offsetof(struct hs_lab_config, {0}));\n", k.name));
        }
        // The lab record's defaults as the controllers take them when it was never written.
        c.push_str("{ struct hs_lab_config d = HS_LAB_DEFAULTS;\n");
        for k in LAB_KNOBS {
            c.push_str(&format!("P(\"lab_default.{0}\", d.{0});\n", k.name));
        }
        c.push_str("}\n");
        c.push_str("P(\"HS_COUNTERS_PER_CC\", HS_COUNTERS_PER_CC);\nP(\"HS_CC_COUNT\", HS_CC_COUNT);\nP(\"HS_SOURCE_USER\", HS_SOURCE_USER);\nP(\"HS_SOURCE_FLEET\", HS_SOURCE_FLEET);\nP(\"HS_FLEET_APPLIED\", HS_FLEET_APPLIED);\nP(\"HS_FLEET_DELETED\", HS_FLEET_DELETED);\nP(\"HS_FLEET_OLDER\", HS_FLEET_OLDER);\nP(\"HS_FLEET_INVALID\", HS_FLEET_INVALID);\n");
        for cc in CONTROLLER_ABI {
            c.push_str(&format!("P(\"{0}\", {0});\n", cc.c_id));
            for ctr in cc.counters {
                c.push_str(&format!("P(\"{0}\", {0});\n", ctr.c_name));
            }
        }
        for (i, e) in SHADOW_BUCKET_EDGES.iter().enumerate() {
            let at = (e * 1e6).round() as u64;
            c.push_str(&format!("P(\"shadow.below.{i}\", hs_shadow_bucket({}ULL, 1000000ULL));\nP(\"shadow.above.{i}\", hs_shadow_bucket({}ULL, 1000000ULL));\n", at - 1, at + 1));
        }
        c.push_str("P(\"HS_SHADOW_BUCKETS\", HS_SHADOW_BUCKETS);\n");
        c.push_str("P(\"HS_STATEFUL_COUNTERS\", HS_STATEFUL_COUNTERS);\nP(\"HS_SUSS_COUNTERS\", HS_SUSS_COUNTERS);\nreturn 0; }\n");

        let dir = crate::sys::private_temp_dir("headstart-layout").unwrap();
        let (src, bin) = (dir.join("layout.c"), dir.join("layout"));
        std::fs::write(&src, c).unwrap();
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let out = Command::new(cc)
            .args(["-std=c11", "-Wall", "-Werror", "-I", concat!(env!("CARGO_MANIFEST_DIR"), "/bpf"), "-o"])
            .arg(&bin)
            .arg(&src)
            .output()
            .expect("run the C compiler");
        assert!(out.status.success(), "records.h and the tool disagree on a name:\n{}", String::from_utf8_lossy(&out.stderr));
        let run = Command::new(&bin).output().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        String::from_utf8_lossy(&run.stdout)
            .lines()
            .map(|l| {
                let (k, v) = l.rsplit_once(' ').unwrap();
                (k.to_string(), v.parse().unwrap())
            })
            .collect()
    }

    /// The tool cuts a peer to its table key (table get/set/forget, restore, the lab)
    /// exactly as the controllers do: bpf/lib/path_key.h against table::path_key.
    #[test]
    fn the_tool_keys_peers_as_the_controllers_do() {
        let addrs = ["2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff", "fd77:0:1:0::1", "10.77.1.1", "::ffff:192.0.2.1", "64:ff9b::192.0.2.1", "64:ff9b:1::1", "::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"];
        let prefixes = [0u32, 31, 32, 33, 48, 56, 60, 64, 65, 96, 127, 128, 129];
        let mut c = String::from("unsigned char b[16]; unsigned long long hi, lo; int i;\n");
        for (ai, a) in addrs.iter().enumerate() {
            let bytes = super::super::table::addr_to_key(a.parse().unwrap());
            let init: Vec<String> = bytes.iter().map(|x| x.to_string()).collect();
            for p in prefixes {
                c.push_str(&format!(
                    "{{ unsigned char in[16] = {{{}}}; for (i = 0; i < 16; i++) b[i] = in[i]; hs_path_key(b, {p}); hi = lo = 0; for (i = 0; i < 8; i++) {{ hi = hi << 8 | b[i]; lo = lo << 8 | b[i + 8]; }} P(\"key.{ai}.{p}.hi\", hi); P(\"key.{ai}.{p}.lo\", lo); }}\n",
                    init.join(",")
                ));
            }
        }
        let got = c_layout(&c);
        for (ai, a) in addrs.iter().enumerate() {
            for p in prefixes {
                let k = super::super::table::path_key(a.parse().unwrap(), p);
                let (hi, lo) = (u64::from_be_bytes(k[..8].try_into().unwrap()), u64::from_be_bytes(k[8..].try_into().unwrap()));
                assert_eq!((got[&format!("key.{ai}.{p}.hi")], got[&format!("key.{ai}.{p}.lo")]), (hi, lo), "{a} cut to /{p}");
            }
        }
    }

    #[test]
    fn layout_matches_the_c_headers() {
        let c = c_layout("");
        let mut wrong = Vec::new();
        let mut want = |key: String, rust: u64| {
            if c.get(&key) != Some(&rust) {
                wrong.push(format!("{key}: C {:?}, Rust {rust}", c.get(&key)));
            }
        };
        for (cname, fields, size) in [
            (PathEntry::C_NAME, PathEntry::FIELDS, std::mem::size_of::<PathEntry>()),
            (PeerKey::C_NAME, PeerKey::FIELDS, std::mem::size_of::<PeerKey>()),
            (FlowKey::C_NAME, FlowKey::FIELDS, std::mem::size_of::<FlowKey>()),
            (FlowOutcome::C_NAME, FlowOutcome::FIELDS, std::mem::size_of::<FlowOutcome>()),
            (OpenFlows::C_NAME, OpenFlows::FIELDS, std::mem::size_of::<OpenFlows>()),
            (RwndGrant::C_NAME, RwndGrant::FIELDS, std::mem::size_of::<RwndGrant>()),
            (LabDiscards::C_NAME, LabDiscards::FIELDS, std::mem::size_of::<LabDiscards>()),
            (PrefixAggregate::C_NAME, PrefixAggregate::FIELDS, std::mem::size_of::<PrefixAggregate>()),
            (StoreEvent::C_NAME, StoreEvent::FIELDS, std::mem::size_of::<StoreEvent>()),
            (FleetEntry::C_NAME, FleetEntry::FIELDS, std::mem::size_of::<FleetEntry>()),
        ] {
            want(format!("{cname}.size"), size as u64);
            for (f, off, sz) in fields.iter() {
                want(format!("{cname}.{f}.offset"), *off as u64);
                want(format!("{cname}.{f}.size"), *sz as u64);
            }
        }
        want("hs_config.size".into(), Knobs::RECORD_SIZE as u64);
        want("hs_config.version.offset".into(), 0);
        want("hs_config.seq.offset".into(), 4);
        want("hs_lab_config.seq.offset".into(), 4);
        want("HS_CONFIG_VERSION".into(), CONFIG_VERSION as u64);
        want("hs_lab_config.size".into(), LabKnobs::RECORD_SIZE as u64);
        want("HS_LAB_CONFIG_VERSION".into(), LAB_CONFIG_VERSION as u64);
        want("HS_COUNTERS_VERSION".into(), COUNTERS_VERSION);
        assert_eq!(COUNTERS_VERSION_SLOT as usize, CONTROLLER_ABI.len() * COUNTERS_PER_CC, "the version slot follows the blocks");
        want("HS_OUTCOME_NONE".into(), OUTCOME_NONE as u64);
        want("HS_BUSY_SHARE_ONE".into(), BUSY_SHARE_ONE as u64);
        want("HS_PATH_MAX_RTT_US".into(), super::super::table::MAX_RTT_US as u64);
        want("HS_PATH_MAX_BW_BYTES_PER_S".into(), super::super::table::MAX_BW_BYTES_PER_S);
        want("HS_PREFIX_AGREED".into(), PREFIX_AGREED as u64);
        want("HS_PREFIX_START_PCT".into(), PREFIX_START_PCT);
        for (i, k) in KNOBS.iter().enumerate() {
            want(format!("knob.{}", k.name), 4 * (i as u64 + 2));
        }
        for (i, k) in LAB_KNOBS.iter().enumerate() {
            want(format!("lab_knob.{}", k.name), 4 * (i as u64 + 2));
            want(format!("lab_default.{}", k.name), k.default as u64);
        }
        want("HS_COUNTERS_PER_CC".into(), COUNTERS_PER_CC as u64);
        want("HS_CC_COUNT".into(), CONTROLLER_ABI.len() as u64);
        want("HS_SOURCE_USER".into(), SOURCE_USER as u64);
        want("HS_SOURCE_FLEET".into(), SOURCE_FLEET as u64);
        want("HS_FLEET_APPLIED".into(), FLEET_APPLIED as u64);
        want("HS_FLEET_DELETED".into(), FLEET_DELETED as u64);
        want("HS_FLEET_OLDER".into(), FLEET_OLDER as u64);
        want("HS_FLEET_INVALID".into(), FLEET_INVALID as u64);
        for cc in CONTROLLER_ABI {
            want(cc.c_id.to_string(), cc.id as u64);
            assert_eq!(SOURCES[cc.id as usize], cc.name, "SOURCES follows enum hs_cc_id");
            for (i, ctr) in cc.counters.iter().enumerate() {
                want(ctr.c_name.to_string(), i as u64);
            }
        }
        // Shadow mode's histogram: the tool's bucket bounds are the BPF function's.
        want("HS_SHADOW_BUCKETS".into(), SHADOW_BUCKET_EDGES.len() as u64 + 1);
        for i in 0..SHADOW_BUCKET_EDGES.len() {
            want(format!("shadow.below.{i}"), i as u64);
            want(format!("shadow.above.{i}"), i as u64 + 1);
        }
        let first = STATEFUL_COUNTERS.iter().position(|c| c.name == SHADOW_FIRST_BUCKET).unwrap();
        assert_eq!(STATEFUL_COUNTERS[first].c_name, "HS_SHADOW_RATIO_0");
        want("HS_STATEFUL_COUNTERS".into(), STATEFUL_COUNTERS.len() as u64);
        want("HS_SUSS_COUNTERS".into(), SUSS_COUNTERS.len() as u64);
        assert!(wrong.is_empty(), "records.h and src/bpf/abi.rs disagree:\n{}", wrong.join("\n"));
    }

    #[test]
    fn knobs_parse_check_and_round_trip() {
        let mut k = Knobs::default();
        k.set("max_age_s=600").unwrap();
        k.set("rwnd_override=off").unwrap();
        k.set("mode=shadow").unwrap();
        assert_eq!((k.get("max_age_s").unwrap(), k.get("rwnd_override").unwrap(), k.get("mode").unwrap()), (600, 0, 2));
        let before = k.clone();
        for bad in ["mode=maybe", "max_start_cwnd=9", "ipv6_prefix_len=129", "nosuch=1", "mode", "rwnd_override=2", "bw_scale_pct=20"] {
            assert!(k.set(bad).is_err(), "{bad} must be refused");
        }
        assert_eq!(k, before, "a refused value changes nothing");
        assert_eq!(Knobs::from_record(&k.to_record(6)).unwrap(), Some(k.clone()));
        assert_eq!(k.to_record(6).len(), Knobs::RECORD_SIZE);
        assert_eq!(Knobs::from_record(&[0; Knobs::RECORD_SIZE]).unwrap(), None, "never written");
        let mut corrupt = k.to_record(6);
        let slot = 4 * (2 + knob("ipv6_prefix_len").unwrap().0);
        corrupt[slot..slot + 4].copy_from_slice(&0u32.to_ne_bytes());
        assert!(Knobs::from_record(&corrupt).is_err());
        for knob in KNOBS.iter().chain(LAB_KNOBS) {
            assert_eq!(knob.parse(&knob.format(knob.default)).unwrap(), knob.default, "{} round-trips", knob.name);
        }
        // The lab's record is its own: its knobs are not the operator's and back.
        let mut lab = LabKnobs::default();
        lab.set("bw_scale_pct=20").unwrap();
        assert!(lab.set("mode=off").is_err() && LabKnobs::from_record(&lab.to_record(0)).unwrap() == Some(lab.clone()));
        assert!(!matches!(Knobs::from_record(&lab.to_record(0)), Ok(Some(_))), "a lab record is never taken for a knob record");
    }

    /// An earlier release's 44-knob record ("HSC1", and any shorter prefix of it): the
    /// knobs this release keeps carry their values over by name; the rest are named as
    /// dropped; rwnd_override's "resume" and "on" both mean on now.
    #[test]
    fn an_older_releases_knob_record_is_carried_over_by_name() {
        let (version, names) = KNOB_HISTORY.iter().find(|(v, _)| *v == 0x4853_4331).copied().unwrap(); // "HSC1"
        let mut rec = version.to_ne_bytes().to_vec();
        for name in names.iter() {
            let v = match *name {
                "max_age_s" => 900,
                "rwnd_override" => 2,
                "mode" => 2,
                "ipv6_prefix_len" => 56,
                "bw_scale_pct" | "jump_pct" => 100,
                "max_start_cwnd" => 5, // below today's range: the default instead
                _ => 1,
            };
            rec.extend_from_slice(&u32::to_ne_bytes(v));
        }
        let (k, dropped) = Knobs::carried_from(&rec).unwrap().unwrap();
        assert_eq!(k.get("max_age_s").unwrap(), 900);
        assert_eq!(k.get("rwnd_override").unwrap(), 1);
        assert_eq!(k.get("mode").unwrap(), 2);
        assert_eq!(k.get("ipv6_prefix_len").unwrap(), 56);
        assert_eq!(k.get("max_start_cwnd").unwrap(), knob("max_start_cwnd").unwrap().1.default, "out of range: the default");
        assert_eq!(dropped.len(), names.len() - (KNOBS.len() - KNOBS_SINCE_HSC1.len()), "{dropped:?}");
        assert!(dropped.iter().any(|d| d == "after_jump") && !dropped.iter().any(|d| d == "mode"));
        // A record of an older 1.x release: a prefix (six knobs): max_age_s is its sixth.
        let (k, _) = Knobs::carried_from(&rec[..4 * 7]).unwrap().unwrap();
        assert_eq!((k.get("max_age_s").unwrap(), k.get("mode").unwrap()), (900, 0), "knobs it lacked: defaults");
        assert_eq!(Knobs::carried_from(&[0; 8]).unwrap(), None, "never written");
        assert!(Knobs::carried_from(&[7, 7, 7, 7, 0, 0, 0, 0]).is_err(), "an unknown version");
        let mut long = rec.clone();
        long.extend_from_slice(&[0; 4]);
        assert!(Knobs::carried_from(&long).is_err() && Knobs::carried_from(&rec[..6]).is_err(), "longer than its version, or not whole knobs");
        // Every name the history keeps is either a knob today or dropped: none is misspelt.
        assert!(names.iter().filter(|n| Knobs::has(n)).count() == KNOBS.len() - KNOBS_SINCE_HSC1.len(), "every knob today but the newer ones was in HSC1");
        assert!(KNOBS_SINCE_HSC1.iter().all(|n| Knobs::has(n) && !names.contains(n)));
    }

    /// The record before the seq word ("HSC2": the version and the knobs but
    /// one_table) and the one before one_table ("HSC3": with the seq word) carry every
    /// value over; one_table starts at its default.
    #[test]
    fn the_records_before_one_table_are_carried_over_whole() {
        let mut k = Knobs::default();
        k.set("max_age_s=600").unwrap();
        k.set("mode=shadow").unwrap();
        k.set("ipv6_prefix_len=48").unwrap();
        let old_knobs: Vec<u8> = k.iter().filter(|(knob, _)| !KNOBS_SINCE_HSC1.contains(&knob.name)).flat_map(|(_, v)| v.to_ne_bytes()).collect();
        let mut hsc2 = 0x4853_4332u32.to_ne_bytes().to_vec();
        hsc2.extend(&old_knobs);
        assert_eq!(Knobs::carried_from(&hsc2).unwrap(), Some((k.clone(), vec![])));
        let mut hsc3 = 0x4853_4333u32.to_ne_bytes().to_vec();
        hsc3.extend(6u32.to_ne_bytes()); // its seq word
        hsc3.extend(&old_knobs);
        assert_eq!(Knobs::carried_from(&hsc3).unwrap(), Some((k.clone(), vec![])));
        // "HSC4": one_table kept, prefix_fallback at its default.
        k.set("one_table=on").unwrap();
        let mut hsc4 = 0x4853_4334u32.to_ne_bytes().to_vec();
        hsc4.extend(8u32.to_ne_bytes());
        hsc4.extend(k.iter().filter(|(knob, _)| knob.name != "prefix_fallback").flat_map(|(_, v)| v.to_ne_bytes()));
        assert_eq!(Knobs::carried_from(&hsc4).unwrap(), Some((k, vec![])));
    }

    /// A write is three map updates, each changing either the seq word or the knobs:
    /// the knobs change only while seq is odd, and seq ends even and new, so a copy the
    /// controllers take during the write is never taken for whole (HS_COPY_WHOLE).
    #[test]
    fn a_knob_write_changes_the_knobs_only_while_seq_is_odd() {
        let seq = |r: &[u8]| u32::from_ne_bytes(r[4..8].try_into().unwrap());
        let knobs = |r: &[u8]| r[8..].to_vec();
        let mut a = Knobs::default();
        a.set("max_age_s=600").unwrap();
        let mut b = a.clone();
        b.set("mode=off").unwrap();
        for (current, start) in [(None, 0u32), (Some(a.to_record(4)), 4), (Some(a.to_record(5)), 4), (Some(a.to_record(u32::MAX - 1)), u32::MAX - 1)] {
            let steps = b.write_steps(current.as_deref());
            let mut prev = current.clone().unwrap_or_else(|| vec![0; Knobs::RECORD_SIZE]);
            assert_eq!(steps.len(), 3);
            for step in &steps {
                assert_eq!(step.len(), Knobs::RECORD_SIZE);
                let (seq_changed, knobs_changed) = (seq(step) != seq(&prev), knobs(step) != knobs(&prev) || step[..4] != prev[..4]);
                assert!(!(seq_changed && knobs_changed), "one step changes seq or the knobs, not both");
                assert!(!knobs_changed || seq(step) % 2 == 1, "the knobs change under an odd seq");
                prev = step.clone();
            }
            assert_eq!(seq(&steps[0]), start | 1);
            assert_eq!(seq(&steps[2]), start.wrapping_add(2), "even again, and new");
            assert_eq!(Knobs::from_record(&steps[2]).unwrap(), Some(b.clone()));
        }
    }

    /// The counter history names each old layout whole, and the last one every counter
    /// of today's but those added since, so a carry-over by name misses nothing it
    /// could keep.
    #[test]
    fn the_counter_history_covers_todays_counters() {
        assert_eq!(COUNTER_HISTORY[0].1.names().len(), 50, "the 44-knob release had 50 stateful counters");
        let (v, last) = &COUNTER_HISTORY[COUNTER_HISTORY.len() - 1];
        assert_eq!(*v, COUNTERS_VERSION - 1, "the layout before today's is in the history");
        let last = last.names();
        let added: Vec<&str> = STATEFUL_COUNTERS.iter().map(|c| c.name).filter(|n| !last.contains(n)).collect();
        assert_eq!(added, ["follow_ups"], "v8 added follow_ups and nothing else");
        // v3 was v2 without reject_busy; v4 v3 with restarts.
        let v2 = COUNTER_HISTORY[1].1.names();
        let v3 = COUNTER_HISTORY[2].1.names();
        assert_eq!(v3, v2.iter().copied().filter(|n| *n != "reject_busy").collect::<Vec<_>>());
        assert_eq!(COUNTER_HISTORY[3].1.names(), [v3, vec!["restarts"]].concat());
    }

    #[test]
    fn the_readme_lists_every_knob_as_the_table_says() {
        let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
        assert!(readme.contains(&knobs_markdown()), "README.md's knob table is not `headstart config --markdown`:\n{}", knobs_markdown());
    }

    #[test]
    fn records_round_trip_through_bytes() {
        let e = PathEntry { bw_bytes_per_s: 12_500_000, stored_ns: 77, min_rtt_us: 50_000, flows: 3, ..Default::default() };
        assert_eq!(PathEntry::from_bytes(e.as_bytes()).unwrap(), e);
        assert!(PathEntry::from_bytes(&[0; 31]).is_err());
    }
}
