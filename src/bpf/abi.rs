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
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
        pub resumers: u32,
        pub agreed: u32,
        pub clean_segs: u32,
        pub handshakes: u32,
        pub busy_share: u32,
        pub overruns: u32,
        pub overrun_s: u32,
    }
}

c_record! {
    /// struct hs_addr: the key of hs_paths.
    pub struct PeerKey = "hs_addr" {
        pub bytes: [u8; 16],
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
    }
}

c_record! {
    /// struct hs_flow_key: the key of hs_rwnd and hs_outcomes.
    pub struct FlowKey = "hs_flow_key" {
        pub peer: [u8; 16],
        pub local: [u8; 16],
        pub peer_port: u16,
        pub local_port: u16,
        pub pad: u32,
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
    /// struct hs_lab_discards: one flow's segments its receiver discarded beyond its
    /// window, by the kernel's reason (lab_beyond_window, the lab's instrument).
    pub struct LabDiscards = "hs_lab_discards" {
        pub beyond_edge: u64,
        pub unread: u64,
    }
}

/// Who wrote an entry: the controllers by id (enum hs_cc_id), then the user.
pub const SOURCES: &[&str] = &["s_cubic", "s_bbr", "suss", "user"];
/// HS_SOURCE_USER.
pub const SOURCE_USER: u16 = 3;
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

macro_rules! counters {
    ($($name:literal = $c:literal),* $(,)?) => { &[$(Counter { name: $name, c_name: $c }),*] };
}

/// enum hs_counter: s_cubic and s_bbr, with Careful Resume's phases and reasons.
pub const STATEFUL_COUNTERS: &[Counter] = counters![
    "flows" = "HS_FLOWS", "hits" = "HS_HITS", "misses" = "HS_MISSES", "stores" = "HS_STORES",
    "discards" = "HS_DISCARDS", "skipped" = "HS_SKIPPED", "expired" = "HS_EXPIRED",
    "reject_no_rtt" = "HS_REJECT_NO_RTT", "reject_rtt_shorter" = "HS_REJECT_RTT_SHORTER",
    "reject_rtt_longer" = "HS_REJECT_RTT_LONGER", "reject_busy" = "HS_REJECT_BUSY",
    "jumps" = "HS_JUMPS", "rate_limited" = "HS_RATE_LIMITED", "validated" = "HS_VALIDATED",
    "retreat_loss" = "HS_RETREAT_LOSS", "retreat_ecn" = "HS_RETREAT_ECN", "retreat_rto" = "HS_RETREAT_RTO",
    "retreat_rate" = "HS_RETREAT_RATE", "loss_no_queue" = "HS_LOSS_NO_QUEUE",
    "off" = "HS_OFF", "shadow_would_jump" = "HS_SHADOW_WOULD_JUMP", "shadow_scored" = "HS_SHADOW_SCORED",
    "shadow_ratio_lt_0.25" = "HS_SHADOW_RATIO_0", "shadow_ratio_lt_0.5" = "HS_SHADOW_RATIO_0 + 1",
    "shadow_ratio_lt_0.8" = "HS_SHADOW_RATIO_0 + 2", "shadow_ratio_lt_0.91" = "HS_SHADOW_RATIO_0 + 3",
    "shadow_ratio_le_1.1" = "HS_SHADOW_RATIO_0 + 4", "shadow_ratio_le_1.25" = "HS_SHADOW_RATIO_0 + 5",
    "shadow_ratio_le_2" = "HS_SHADOW_RATIO_0 + 6", "shadow_ratio_le_4" = "HS_SHADOW_RATIO_0 + 7",
    "shadow_ratio_gt_4" = "HS_SHADOW_RATIO_0 + 8", "shared_jumps" = "HS_SHARED_JUMPS",
    "lossy_no_rwnd" = "HS_LOSSY_NO_RWND", "probe_queue_exits" = "HS_PROBE_QUEUE_EXITS",
    "probe_handovers" = "HS_PROBE_HANDOVERS", "hooks_missed" = "HS_HOOKS_MISSED",
    "reject_small" = "HS_REJECT_SMALL", "rwnd_receiver_behind" = "HS_RWND_RECEIVER_BEHIND",
    "store_jump_only" = "HS_STORE_JUMP_ONLY", "no_queue_overflows" = "HS_NO_QUEUE_OVERFLOWS",
    "probe_drain_answered" = "HS_PROBE_DRAIN_ANSWERED", "untrusted" = "HS_UNTRUSTED",
    "busy_no_rwnd" = "HS_BUSY_NO_RWND", "yielded_jumps" = "HS_YIELDED_JUMPS",
    "shared_no_rwnd" = "HS_SHARED_NO_RWND", "shared_quiet_rwnd" = "HS_SHARED_QUIET_RWND",
    "reject_siblings" = "HS_REJECT_SIBLINGS", "inits_late" = "HS_INITS_LATE",
    "rwnd_receiver_overrun" = "HS_RWND_RECEIVER_OVERRUN", "overrun_no_rwnd" = "HS_OVERRUN_NO_RWND",
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
// Knobs: struct hs_config is `written` followed by one u32 per knob, in this order.

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

/// Every knob: the one place its kind, range, default and documentation live. The
/// C field of the same name in struct hs_config holds it (checked by the layout test).
/// enum hs_after_jump: what follows a jump (knobs after_jump and after_jump_lossy).
const AFTER_JUMP: &[(&str, u32)] = &[("slow_start", 0), ("hold", 1), ("probe", 2), ("probe_then_slow_start", 3)];
/// enum hs_rwnd_shared (knob rwnd_shared): off and on keep the values of the switch it was.
const RWND_SHARED: &[(&str, u32)] = &[("off", 0), ("on", 1), ("quiet", 2)];
/// enum hs_concurrency (knob concurrency).
const CONCURRENCY: &[(&str, u32)] = &[("lease", 0), ("split", 1)];
/// enum hs_jump_room (knob jump_room).
const JUMP_ROOM: &[(&str, u32)] = &[("off", 0), ("s_cubic", 1), ("on", 2)];

pub const KNOBS: &[Knob] = &[
    Knob { name: "startup", kind: KnobKind::Switch, default: ON, doc: "stateful start on a table hit (s_cubic, s_bbr)" },
    Knob { name: "store", kind: KnobKind::Switch, default: ON, doc: "store each flow's estimate at its end" },
    Knob { name: "freeze", kind: KnobKind::Switch, default: OFF, doc: "never overwrite an entry (the paper's S-Cubic*)" },
    Knob {
        name: "bw_scale_pct",
        kind: KnobKind::Number { min: 1, max: 1000, unit: "%" },
        default: 100,
        doc: "cached bandwidth x pct/100 at the start: the estimation-error experiment",
    },
    Knob {
        name: "rwnd_override",
        kind: KnobKind::Choice(&[("off", 0), ("on", 1), ("resume", 2)]),
        default: 2,
        doc: "open the receiver's window as far as a jump needs: on = until the first data ACK, resume = until the jump is validated or the first sign of loss",
    },
    Knob {
        name: "max_age_s",
        kind: KnobKind::Number { min: 0, max: u32::MAX, unit: "s" },
        default: 3600,
        doc: "Reconnaissance: older entries are deleted, not used (0 = any age; 3600 is Chromium's limit for resumption data)",
    },
    Knob { name: "suss", kind: KnobKind::Switch, default: ON, doc: "SUSS's accelerated rounds (suss)" },
    Knob { name: "suss_k_max", kind: KnobKind::Number { min: 1, max: 4, unit: "" }, default: 1, doc: "SUSS Appendix A: growth up to 2^(k+1) per round" },
    Knob { name: "gcbe_median", kind: KnobKind::Switch, default: ON, doc: "store the median of the last 5 GCBE estimates; off = their max (eq. 8)" },
    Knob {
        name: "after_jump",
        kind: KnobKind::Choice(AFTER_JUMP),
        default: 2,
        doc: "s_cubic after a jump: slow start goes on (the paper), holds at the jump's window, probes (1.25x, then 1.5x per RTT, never slower than slow start from IW) until the smallest of 8 consecutive RTT samples shows a queue, or probes and, from its second round on, lets slow start go on once a round shows no queue and came back at least 1.12x as fast as the round before (probe_then_slow_start)",
    },
    Knob {
        name: "gcbe_min_span_us",
        kind: KnobKind::Number { min: 0, max: 1_000_000, unit: "us" },
        default: 1000,
        doc: "GCBE's noise floor: shorter cycles say nothing (0 = the paper)",
    },
    Knob {
        name: "bbr_plateau_rtts",
        kind: KnobKind::Number { min: 0, max: 2, unit: "RTTs" },
        default: 0,
        doc: "s_bbr: once a jump is validated, the rate measured so far counts as STARTUP's plateau; STARTUP ends this many rounds later unless it grows 25 % (0 = off)",
    },
    Knob {
        name: "max_start_cwnd",
        kind: KnobKind::Number { min: 10, max: 1_000_000, unit: "packets" },
        default: 1000,
        doc: "cap on a jump's window (Careful Resume's max_jump)",
    },
    Knob {
        name: "max_start_rate_mbps",
        kind: KnobKind::Number { min: 1, max: 1_000_000, unit: "Mbit/s" },
        default: 1000,
        doc: "cap on a jump's pacing rate (the window shrinks to what it sends in one RTT)",
    },
    Knob { name: "jump_pct", kind: KnobKind::Number { min: 1, max: 100, unit: "%" }, default: 100, doc: "share of the cached BDP a flow jumps to (the RFC: at most 50; the papers: 100)" },
    Knob {
        name: "rtt_match",
        kind: KnobKind::Number { min: 1, max: 100, unit: "x" },
        default: 2,
        doc: "no jump unless the handshake RTT is within [saved / f, saved x f]",
    },
    Knob {
        name: "retreat_beta_pct",
        kind: KnobKind::Number { min: 10, max: 100, unit: "%" },
        default: 70,
        doc: "Safe Retreat: ssthresh = PipeSize x beta (RFC 9959: 50..100; 70 is Cubic's own decrease)",
    },
    Knob {
        name: "retreat_entry",
        kind: KnobKind::Choice(&[("delete", 0), ("decay", 1)]),
        default: 0,
        doc: "Safe Retreat: delete the entry that led to it, or halve its rate",
    },
    Knob {
        name: "rate_retreat_pct",
        kind: KnobKind::Number { min: 0, max: 100, unit: "%" },
        default: 75,
        doc: "Safe Retreat when the jump is delivered below this share of its pacing rate (0 = off)",
    },
    Knob {
        name: "rtt_scale_pct",
        kind: KnobKind::Number { min: 10, max: 2000, unit: "%" },
        default: 100,
        doc: "cached min RTT x pct/100 at the start: the RTT-mismatch experiment",
    },
    Knob {
        name: "probe_growth_pct",
        kind: KnobKind::Number { min: 1, max: 50, unit: "%" },
        default: 25,
        doc: "after_jump = probe: cwnd first grows by this share of each ACK (25: 1.25x per RTT; doubling to 50 after two rounds without a queue)",
    },
    Knob {
        name: "store_max_raise_pct",
        kind: KnobKind::Number { min: 0, max: 1000, unit: "%" },
        default: 200,
        doc: "one flow raises an entry to at most this share of it (0 = unbounded)",
    },
    Knob {
        name: "store_cap_mbps",
        kind: KnobKind::Number { min: 0, max: 1_000_000, unit: "Mbit/s" },
        default: 10_000,
        doc: "no entry above this rate (0 = no cap); set it to the server's link speed",
    },
    Knob {
        name: "store_lossy_keep",
        kind: KnobKind::Switch,
        default: ON,
        doc: "a flow that retransmitted over 1 % lowers a higher entry by at most 1/8",
    },
    Knob {
        name: "retreat_on",
        kind: KnobKind::Choice(&[("any_loss", 0), ("queue", 1)]),
        default: 0,
        doc: "Safe Retreat on any loss while resuming (the RFC), or only when the RTT shows a queue",
    },
    Knob {
        name: "mode",
        kind: KnobKind::Choice(&[("on", 0), ("off", 1), ("shadow", 2)]),
        default: 0,
        doc: "on; off (`headstart off`): no jump, no SUSS acceleration, every flow the kernel's Cubic/BBR; shadow: look up, record what a start would have done and its error, start as the kernel",
    },
    Knob {
        name: "gcbe_merge_us",
        kind: KnobKind::Number { min: 0, max: 100_000, unit: "us" },
        default: 0,
        doc: "GCBE: ACKs within this of a burst's first (or within a quarter of it of the one before, up to 4x it) are one arrival (ACK aggregation over Wi-Fi/LTE; 0 = off)",
    },
    Knob {
        name: "concurrency",
        kind: KnobKind::Choice(CONCURRENCY),
        default: 0,
        doc: "flows to one peer resuming at once: lease = one at a time, the others start as the kernel (counted reject_busy); split = all, the saved rate split among those resuming (counted shared_jumps)",
    },
    Knob {
        name: "s_bbr_gcbe",
        kind: KnobKind::Switch,
        default: ON,
        doc: "s_bbr stores the higher of BBR's estimate and GCBE's (BBR's alone reads low after a flow that ends in STARTUP); off = BBR's (the paper)",
    },
    Knob {
        name: "rwnd_lossy",
        kind: KnobKind::Switch,
        default: OFF,
        doc: "open the receiver's window also for jumps to paths marked lossy (a loss with no queue): a hole in the jump makes the receiver discard what lies past its real window; off = such jumps stay within it",
    },
    Knob {
        name: "store_confident_floor_pct",
        kind: KnobKind::Number { min: 0, max: 100, unit: "%" },
        default: 50,
        doc: "an entry that 3 flows in a row agreed on (within 25 %) is lowered by one flow to no less than this % of it (0 = no floor)",
    },
    Knob {
        name: "after_rate_retreat",
        kind: KnobKind::Choice(&[("avoid", 0), ("probe", 1), ("slow_start", 2)]),
        default: 1,
        doc: "s_cubic once a rate test's retreat is over: congestion avoidance from the delivered rate x min RTT, the probe from there (after a dip of a varying link the flow grows back), or the kernel's slow start and HyStart from there (overshoots a 1-BDP buffer)",
    },
    Knob {
        name: "probe_drain_pct",
        kind: KnobKind::Number { min: 0, max: 100, unit: "%" },
        default: 50,
        doc: "after_jump = probe: when the RTT shows a queue, cwnd gives up this share of it (the queue: cwnd less the lower of cwnd x min RTT / RTT and delivery rate x min RTT, the latter not below the jump; 100 with the RTT alone, on varying links, read from the RTT's swings, left flows below cubic's window; 0: none, which overflows shallow buffers)",
    },
    Knob {
        name: "after_jump_lossy",
        kind: KnobKind::Choice(AFTER_JUMP),
        default: 2,
        doc: "s_cubic after a jump to a path marked lossy (a loss with no queue): as after_jump; slow_start at once overflows a shallow buffer (0.5 BDP: 5x cubic's retransmissions), and probe_then_slow_start, after a low entry, a 1-BDP one (20 % entry, 0.1 % loss: 343 retransmissions vs cubic's 13)",
    },
    Knob {
        name: "probe_loss_floor",
        kind: KnobKind::Switch,
        default: ON,
        doc: "s_cubic: the flow's first loss while probing after a jump, with no queue in the RTT, leaves ssthresh no lower than the kernel's slow start from IW would after the same packets (beta x (IW + delivered)): from a low jump the probe grows less per packet than slow start, and random loss then left it in congestion avoidance far below cubic (20 % entry, 0.1 % loss, paired: jumped flows 1.13x cubic's FCT off, 0.99x on)",
    },
    Knob {
        name: "min_jump_pkts",
        kind: KnobKind::Number { min: 0, max: 1_000_000, unit: "packets" },
        default: 40,
        doc: "s_cubic: no jump from a saved BDP below this many packets (reject_small; RFC 9959 saves nothing below 4 x IW): on the LTE traces s_cubic's jumps below 40 packets lost 8-17 % of cubic's throughput in every cell, larger ones gained; 0: any size",
    },
    Knob {
        name: "gcbe_aggregation",
        kind: KnobKind::Switch,
        default: ON,
        doc: "GCBE also reads the ACKs as bursts (500 us); where they come on a grid of >= 2 ms (Wi-Fi, LTE uplinks), a flow stores the higher of its estimate and the rate of its busy aggregation intervals (the estimate alone read 15-36 % low with 8-16 ms of ACK aggregation); off = the estimate alone",
    },
    Knob {
        name: "trusted_uid_max",
        kind: KnobKind::Number { min: 0, max: u32::MAX, unit: "uid" },
        default: 999,
        doc: "s_cubic, s_bbr: only sockets owned by a uid up to this (an accepted socket: its listener's owner; one whose init the kernel skipped, started late: the accepting process's) use the path table; a higher uid's flow is the kernel's controller and neither reads, leases, deletes nor writes an entry (counted untrusted): a local user who selects the controllers cannot fill, poison or read the table (999: root and system accounts, Debian's policy; raise it to the server's uid if that is higher; 4294967295: everyone)",
    },
    Knob {
        name: "ipv6_prefix_len",
        kind: KnobKind::Number { min: 32, max: 128, unit: "bits" },
        default: 64,
        doc: "the path table keys an IPv6 peer by its first this many bits (IPv4 and NAT64 64:ff9b::/96 peers: whole): 64, the subnet one access link serves, as NAT serves one IPv4 address, so a client's rotating privacy addresses share their history and one holder of a /64 is one entry, not enough to evict the table; 128: whole addresses",
    },
    Knob {
        name: "rwnd_busy",
        kind: KnobKind::Switch,
        default: OFF,
        doc: "open the receiver's window also for jumps into a busy bottleneck (a handshake RTT that showed a queue over the saved min RTT, or a smaller one at an entry whose handshakes found one in at least half of them), where the jump is likely to overflow the buffer and a hole makes the receiver discard what lies past its real window; off = such jumps stay within it (counted busy_no_rwnd)",
    },
    Knob {
        name: "jump_yield",
        kind: KnobKind::Switch,
        default: ON,
        doc: "cut each jump by its entry's busy share: the share of recent handshakes to the peer (an EWMA) that found a queue at the bottleneck, the time others fill it; at most to half, and (s_cubic) not below min_jump_pkts: beside a cubic client at 63 % load, whole jumps made its flows leave slow start early (HyStart's delay test) and its mean FCT rise up to 9 % (median +6.2 % over 8 seeds; with the cut +0.2 %); a path the peer's flows have to themselves keeps the whole jump (counted yielded_jumps); off = jump_pct of the saved BDP whatever the share",
    },
    Knob {
        name: "rwnd_shared",
        kind: KnobKind::Choice(RWND_SHARED),
        default: 2,
        doc: "s_bbr: the receiver's window opened for a jump made while another flow to the same peer is open (s_cubic's or s_bbr's, jumped or not), which shares the peer's bottleneck: off = never, such jumps stay within the receiver's real window (counted shared_no_rwnd); quiet = only while no flow to the peer has lost a packet for 10 s (counted shared_quiet_rwnd; refused, shared_no_rwnd), since a jump into a buffer that overflows is likely to lose one, and a hole makes the receiver discard what lies past its real window (beside a bbr client at 63 % load every discard traced to its flow came from a jump beside an open sibling: 0.13-0.39 % in up to 2 of 8 seeds, none in 31 of 32 with off); on = always. On the 180 Mbit/s, 10 MB-buffer link, where nothing is lost and nothing was discarded either way, off cost s_bbr at 1 MB: 1.60-1.79x against 1.76-1.82x with on, and 1.70-1.71x against quiet's 1.77-1.78x in one session (BENCHMARKS.md). s_cubic keeps the override: without it its jumps end rate-limited and slow-start (beside a cubic client at 512 KB the neighbour's median rose +2.9 % against -1.0 %), and most of its receivers' discards came from jumps with no sibling open",
    },
    Knob {
        name: "jump_room",
        kind: KnobKind::Choice(JUMP_ROOM),
        default: 1,
        doc: "which controllers jump only while the peer's other open flows (s_cubic's and s_bbr's, resuming or not) have fewer than a quarter of the saved BDP (at least min_jump_pkts, and IW) packets in flight, and then at most into what they leave of the saved BDP (refused: counted reject_siblings; an idle keep-alive connection has nothing in flight): off, s_cubic, or on (both). A jump beside the peer's busy flows sums with their windows at its bottleneck: beside a cubic client at 63 % load, 1 MB mean, the s_cubic flows started while its client's own flows were open took 96-99 % of its buffer drops and the cubic client's mean FCT rose a median +11 % (+5.0 % with the rule, on the 5 % line; with 200 flows a run, worst seed +9.7 % off, +3.9 % with it); the quarter, not min_jump_pkts alone, keeps jumps beside siblings in loss recovery on a deep lossy link (5G-like, 0.1 %: s_cubic 1.22x cubic, 1.16x with min_jump_pkts, 1.33x off); s_bbr's jumps beside its siblings kept bbr's neighbour within 5 %, and none beside them cost 0.2x of s_bbr's gain on the 5G-like link (BENCHMARKS.md, Issue 11)",
    },
    Knob {
        name: "rwnd_overrun",
        kind: KnobKind::Switch,
        default: ON,
        doc: "tell a receiver's overrun from the path's loss: bare duplicate ACKs without SACK while the window override lasts (the receiver discarded past its window, e.g. its application stalled) are counted (rwnd_receiver_overrun), keep the peer's jumps without the override for 10 s, doubled per overrun up to 2,560 s (overrun_no_rwnd), and, before any other congestion signal of the flow, make its loss the receiver's: no lossy mark, no discredited entry (a 30 ms stall: 766 discards in 3 flows against 863 in 5, the peer not marked lossy; BENCHMARKS.md, Issue 11); off = such a loss reads as the path's",
    },
];

/// HS_BUSY_SHARE_ONE (bpf/lib/resume.h): hs_path.busy_share of a bottleneck every handshake found busy.
pub const BUSY_SHARE_ONE: u32 = 65536;
/// HS_CONFIG_WRITTEN.
pub const CONFIG_WRITTEN: u32 = 0x4853_4331;
/// HS_OUTCOME_NONE: a hs_flow_outcome field with no value.
pub const OUTCOME_NONE: u32 = u32::MAX;

pub fn knob(name: &str) -> Result<(usize, &'static Knob)> {
    KNOBS.iter().enumerate().find(|(_, k)| k.name == name).with_context(|| {
        format!("unknown knob '{name}' (knobs: {})", KNOBS.iter().map(|k| k.name).collect::<Vec<_>>().join(", "))
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

/// The knob values, in KNOBS order: the body of struct hs_config.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Knobs([u32; KNOBS.len()]);

impl Default for Knobs {
    fn default() -> Self {
        let mut v = [0; KNOBS.len()];
        for (i, k) in KNOBS.iter().enumerate() {
            v[i] = k.default;
        }
        Knobs(v)
    }
}

impl Knobs {
    pub const RECORD_SIZE: usize = 4 * (1 + KNOBS.len());

    pub fn get(&self, name: &str) -> Result<u32> {
        Ok(self.0[knob(name)?.0])
    }

    /// Applies `KEY=VALUE`; on error nothing changes.
    pub fn set(&mut self, assignment: &str) -> Result<()> {
        let (k, v) = assignment.split_once('=').with_context(|| format!("'{assignment}': expected KEY=VALUE"))?;
        let (i, knob) = knob(k.trim())?;
        self.0[i] = knob.parse(v)?;
        Ok(())
    }

    /// (name, value as written) in table order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static Knob, u32)> + '_ {
        KNOBS.iter().zip(self.0.iter().copied())
    }

    /// The hs_config record. Values were checked on the way in.
    pub fn to_record(&self) -> Vec<u8> {
        std::iter::once(CONFIG_WRITTEN).chain(self.0.iter().copied()).flat_map(u32::to_ne_bytes).collect()
    }

    /// Reads an hs_config record: None if it was never written by the tool.
    pub fn from_record(b: &[u8]) -> Result<Option<Knobs>> {
        ensure!(b.len() == Self::RECORD_SIZE, "knob record of {} bytes, expected {}", b.len(), Self::RECORD_SIZE);
        let word = |i: usize| u32::from_ne_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
        if word(0) != CONFIG_WRITTEN {
            return Ok(None);
        }
        let mut v = [0; KNOBS.len()];
        for (i, k) in KNOBS.iter().enumerate() {
            v[i] = word(i + 1);
            k.check(v[i]).context("the pinned knob record is corrupt")?;
        }
        Ok(Some(Knobs(v)))
    }

    /// Reads the shorter hs_config record of an older headstart (knobs are only ever
    /// appended): the knobs it has, the newer ones at their defaults. None if it was
    /// never written.
    pub fn from_older_record(b: &[u8]) -> Result<Option<Knobs>> {
        ensure!(b.len() % 4 == 0 && (4..Self::RECORD_SIZE).contains(&b.len()), "knob record of {} bytes is not an older one", b.len());
        let mut full = Knobs::default().to_record();
        full[4..b.len()].copy_from_slice(&b[4..]);
        full[..4].copy_from_slice(&b[..4]);
        Self::from_record(&full)
    }
}

/// The knob table as Markdown, for the README (a unit test keeps them equal).
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
        s.push_str(&format!("  {:<18} {} (default {}): {}\n", k.name, k.values(), k.format(k.default), k.doc));
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
        let mut c = String::from("#include <stdio.h>\n#include <stddef.h>\n#include \"records.h\"\n#include \"lib/shadow.h\"\n#include \"lib/path_key.h\"\n#include \"lib/resume.h\"\n#define P(name, v) printf(\"%s %llu\\n\", name, (unsigned long long)(v))\nint main(void) {\n");
        c.push_str(extra_c);
        for (cname, fields) in [(PathEntry::C_NAME, PathEntry::FIELDS), (PeerKey::C_NAME, PeerKey::FIELDS), (FlowKey::C_NAME, FlowKey::FIELDS), (FlowOutcome::C_NAME, FlowOutcome::FIELDS), (OpenFlows::C_NAME, OpenFlows::FIELDS), (RwndGrant::C_NAME, RwndGrant::FIELDS), (LabDiscards::C_NAME, LabDiscards::FIELDS)] {
            c.push_str(&format!("P(\"{cname}.size\", sizeof(struct {cname}));\n"));
            for (f, _, _) in fields.iter() {
                c.push_str(&format!("P(\"{cname}.{f}.offset\", offsetof(struct {cname}, {f}));\n"));
                c.push_str(&format!("P(\"{cname}.{f}.size\", sizeof(((struct {cname} *)0)->{f}));\n"));
            }
        }
        c.push_str("P(\"hs_config.size\", sizeof(struct hs_config));\nP(\"hs_config.written.offset\", offsetof(struct hs_config, written));\nP(\"HS_CONFIG_WRITTEN\", HS_CONFIG_WRITTEN);\nP(\"HS_OUTCOME_NONE\", HS_OUTCOME_NONE);\nP(\"HS_BUSY_SHARE_ONE\", HS_BUSY_SHARE_ONE);\n");
        for k in KNOBS {
            c.push_str(&format!("P(\"knob.{0}\", offsetof(struct hs_config, {0}));\n", k.name));
        }
        for (name, _) in AFTER_JUMP {
            c.push_str(&format!("P(\"after_jump.{name}\", HS_AFTER_{});\n", name.to_uppercase()));
        }
        for (name, _) in RWND_SHARED {
            c.push_str(&format!("P(\"rwnd_shared.{name}\", HS_RWND_SHARED_{});\n", name.to_uppercase()));
        }
        for (name, _) in CONCURRENCY {
            c.push_str(&format!("P(\"concurrency.{name}\", HS_CONCURRENCY_{});\n", name.to_uppercase()));
        }
        for (name, _) in JUMP_ROOM {
            c.push_str(&format!("P(\"jump_room.{name}\", HS_JUMP_ROOM_{});\n", name.to_uppercase()));
        }
        c.push_str("P(\"HS_COUNTERS_PER_CC\", HS_COUNTERS_PER_CC);\nP(\"HS_CC_COUNT\", HS_CC_COUNT);\nP(\"HS_SOURCE_USER\", HS_SOURCE_USER);\n");
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

        let dir = std::env::temp_dir().join(format!("headstart-layout-{}-{}", std::process::id(), extra_c.len()));
        std::fs::create_dir_all(&dir).unwrap();
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
        ] {
            want(format!("{cname}.size"), size as u64);
            for (f, off, sz) in fields.iter() {
                want(format!("{cname}.{f}.offset"), *off as u64);
                want(format!("{cname}.{f}.size"), *sz as u64);
            }
        }
        want("hs_config.size".into(), Knobs::RECORD_SIZE as u64);
        want("hs_config.written.offset".into(), 0);
        want("HS_CONFIG_WRITTEN".into(), CONFIG_WRITTEN as u64);
        want("HS_OUTCOME_NONE".into(), OUTCOME_NONE as u64);
        want("HS_BUSY_SHARE_ONE".into(), BUSY_SHARE_ONE as u64);
        for (i, k) in KNOBS.iter().enumerate() {
            want(format!("knob.{}", k.name), 4 * (i as u64 + 1));
        }
        for (name, value) in AFTER_JUMP {
            want(format!("after_jump.{name}"), *value as u64);
        }
        for (name, value) in RWND_SHARED {
            want(format!("rwnd_shared.{name}"), *value as u64);
        }
        for (name, value) in CONCURRENCY {
            want(format!("concurrency.{name}"), *value as u64);
        }
        for (name, value) in JUMP_ROOM {
            want(format!("jump_room.{name}"), *value as u64);
        }
        want("HS_COUNTERS_PER_CC".into(), COUNTERS_PER_CC as u64);
        want("HS_CC_COUNT".into(), CONTROLLER_ABI.len() as u64);
        want("HS_SOURCE_USER".into(), SOURCE_USER as u64);
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
        k.set("bw_scale_pct=20").unwrap();
        k.set("freeze=on").unwrap();
        k.set("rwnd_override=on").unwrap();
        assert_eq!((k.get("bw_scale_pct").unwrap(), k.get("freeze").unwrap(), k.get("rwnd_override").unwrap()), (20, 1, 1));
        let before = k.clone();
        for bad in ["freeze=maybe", "bw_scale_pct=0", "bw_scale_pct=1001", "nosuch=1", "startup", "rwnd_override=3", "suss_k_max=5", "bbr_plateau_rtts=3", "max_start_cwnd=9"] {
            assert!(k.set(bad).is_err(), "{bad} must be refused");
        }
        assert_eq!(k, before, "a refused value changes nothing");
        assert_eq!(Knobs::from_record(&k.to_record()).unwrap(), Some(k.clone()));
        assert_eq!(k.to_record().len(), Knobs::RECORD_SIZE);
        assert_eq!(Knobs::from_record(&vec![0; Knobs::RECORD_SIZE]).unwrap(), None, "never written");
        // An older headstart's shorter record: its knobs kept, the newer at their defaults.
        let mut older = Knobs::default();
        older.set("bw_scale_pct=20").unwrap();
        let last = KNOBS.last().unwrap();
        let mut rec = older.to_record();
        rec[Knobs::RECORD_SIZE - 4..].copy_from_slice(&(last.default + 1).to_ne_bytes());
        let carried = Knobs::from_older_record(&rec[..Knobs::RECORD_SIZE - 4]).unwrap().unwrap();
        assert_eq!(carried.get("bw_scale_pct").unwrap(), 20);
        assert_eq!(carried.get(last.name).unwrap(), last.default, "a knob the older record lacks: its default");
        assert_eq!(Knobs::from_older_record(&vec![0; 8]).unwrap(), None, "never written");
        assert!(Knobs::from_older_record(&rec).is_err() && Knobs::from_older_record(&rec[..6]).is_err(), "not shorter, or not whole knobs");
        let mut corrupt = k.to_record();
        let slot = 4 * (1 + knob("bw_scale_pct").unwrap().0);
        corrupt[slot..slot + 4].copy_from_slice(&0u32.to_ne_bytes());
        assert!(Knobs::from_record(&corrupt).is_err());
        for knob in KNOBS {
            assert_eq!(knob.parse(&knob.format(knob.default)).unwrap(), knob.default, "{} round-trips", knob.name);
        }
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
