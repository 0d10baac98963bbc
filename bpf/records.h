/* The contract between the kernel side and the headstart tool: every record that
 * crosses the bpffs boundary, defined once. Compiled into the BPF programs and,
 * unchanged, into the host layout test (src/bpf/abi.rs), which checks that the
 * tool's #[repr(C)] mirrors, knob table and counter names agree with these
 * definitions field by field. Sizes and offsets are also asserted here, so that a
 * change to a record is a deliberate one. Units are in the field names. */
#ifndef HS_RECORDS_H
#define HS_RECORDS_H

#include "lib/types.h"
#include "lib/tuned.h"

/* The key of hs_paths and hs_open: a peer (IPv6, or IPv4 mapped as ::ffff:a.b.c.d; an
 * IPv6 peer cut to its first ipv6_prefix_len bits, lib/path_key.h) as one network
 * namespace sees it. netns is the namespace's cookie, 0 for the host's (init_net), and
 * 0 for every namespace when the knob one_table is on: containers neither read nor
 * write each other's entries, as Linux's own tcp_metrics are kept per namespace. */
struct hs_peer {
	__u8 bytes[16];
	__u64 netns;
};
_Static_assert(sizeof(struct hs_peer) == 24, "hs_peer is 24 bytes (was the 16-byte address alone)");

/* hs_prefixes value (key: struct hs_peer with a /24 or /48, lib/prefix.h): what the
 * entries of one prefix's peers agree on, for its first contacts. */
struct hs_prefix {
	__u64 bw_bytes_per_s;       /* moving average of the rates its peers' entries stored */
	__u64 updated_ns;           /* CLOCK_BOOTTIME of the last */
	__u32 min_rtt_us;           /* moving average of their min RTTs */
	__u32 agreed;               /* entries in a row within HS_AGREE_PCT of the average (rate and RTT) */
	__u32 entries;              /* entries seen (saturating) */
	__u32 last_peer;            /* the host part of the last entry's peer: one peer storing again does not agree with itself */
	__u16 flags;                /* HS_PATH_LOSSY of the last */
	__u16 pad;
	__u32 pad2;
};
_Static_assert(sizeof(struct hs_prefix) == 40, "hs_prefix is 40 bytes");

/* hs_paths value: what one peer's last flows left for the next one. */
struct hs_path {
	__u64 bw_bytes_per_s;       /* estimated bottleneck bandwidth */
	__u64 stored_ns;            /* CLOCK_BOOTTIME when stored */
	__u64 busy_until_ns;        /* unused, 0: was one resumer's lease, before the peer's budget (lib/resume.h) */
	__u32 min_rtt_us;           /* minimum RTT seen by the storing flow */
	__u32 flows;                /* flows that stored into this entry */
	__u16 source;               /* enum hs_cc_id of the storer, or HS_SOURCE_USER */
	__u16 flags;                /* HS_PATH_*: what the storing flows saw */
	__u32 overshoots;           /* rate-test retreats in a row from the peer's entries (lib/resume.h, hs_overshoots_after); was an unused count */
	/* Fields are only ever appended: an older record is a prefix of this one, and
	 * `headstart load` carries an older table over (zeros for the new fields). */
	__u32 agreed;               /* storing flows in a row whose estimate agreed with the entry (lib/store.h) */
	__u32 clean_segs;           /* HS_PATH_LOSSY: segments sent clean in a row since (lib/store.h) */
	__u32 handshakes;           /* handshakes of flows that looked the entry up (saturating) */
	__u32 busy_share;           /* EWMA of those that found the bottleneck queueing, HS_BUSY_SHARE_ONE = all (lib/resume.h) */
	__u32 overruns;             /* jumps whose receiver discarded what the window override let past its window (saturating) */
	__u32 overrun_s;            /* CLOCK_BOOTTIME seconds of the last (lib/rwnd_grant.h, hs_overrun_holds) */
};
_Static_assert(sizeof(struct hs_path) == 64, "hs_path is 64 bytes");
_Static_assert(__builtin_offsetof(struct hs_path, min_rtt_us) == 24, "hs_path layout");
_Static_assert(__builtin_offsetof(struct hs_path, flags) == 34, "hs_path layout");

/* hs_path.flags. LOSSY: a storing flow lost packets with no queue in its RTT (random
 * loss, not its own overshoot); HS_LOSS_CLEAR_SEGS segments sent clean in a row, by
 * one flow or several, clear it (lib/store.h). A jump to a lossy path gets no window
 * override. */
#define HS_PATH_LOSSY 0x1

/* Who wrote an entry: a controller (enum hs_cc_id), `headstart table set/restore`, or
 * another server of the fleet (its store, through the fleet agent: lib/fleet.h). */
enum hs_cc_id { HS_CC_S_CUBIC = 0, HS_CC_S_BBR = 1, HS_CC_SUSS = 2, HS_CC_COUNT = 3 };
#define HS_SOURCE_USER 3
#define HS_SOURCE_FLEET 4

/* hs_stores record: one change a flow made to its peer's entry, for the fleet agent
 * (src/fleet.rs) to share. bw_bytes_per_s 0: the entry was deleted (a retreat found
 * it wrong). */
struct hs_store_event {
	struct hs_peer peer;
	__u64 bw_bytes_per_s;
	__u64 stored_ns;            /* CLOCK_BOOTTIME of the change */
	__u32 min_rtt_us;
	__u16 flags;                /* HS_PATH_* */
	__u16 source;               /* enum hs_cc_id */
};
_Static_assert(sizeof(struct hs_store_event) == 48, "hs_store_event is 48 bytes");

/* The fleet apply program's context (bpf/fleet.bpf.c): another server's entry for one
 * peer, as the agent read it from Redis; the program writes its verdict back.
 * bw_bytes_per_s 0: that server deleted its entry. */
struct hs_fleet_entry {
	struct hs_peer peer;        /* netns: the namespace whose table takes it */
	__u64 bw_bytes_per_s;
	__u64 age_ns;               /* how long before now the other server stored it */
	__u32 min_rtt_us;
	__u16 flags;                /* HS_PATH_* */
	__u16 verdict;              /* out: enum hs_fleet_verdict */
};
_Static_assert(sizeof(struct hs_fleet_entry) == 48, "hs_fleet_entry is 48 bytes");

/* What became of a fleet entry (lib/fleet.h). */
enum hs_fleet_verdict {
	HS_FLEET_APPLIED = 1,       /* stored, under the store rules */
	HS_FLEET_DELETED = 2,       /* a delete newer than the entry here: deleted */
	HS_FLEET_OLDER = 3,         /* the entry here is as new or newer: left as it is */
	HS_FLEET_EXPIRED = 4,       /* older than max_age_s */
	HS_FLEET_INVALID = 5,       /* outside a believable estimate's bounds */
};

/* hs_counters: HS_COUNTERS_PER_CC per-CPU u64 slots per controller, indexed
 * cc * HS_COUNTERS_PER_CC + counter, with room for more, then one slot where the tool
 * writes HS_COUNTERS_VERSION at load: a release whose counters have other names or
 * places carries them over by name (abi.rs, COUNTER_HISTORY). */
#define HS_COUNTERS_PER_CC 64
#define HS_COUNTERS_VERSION 8       /* 1: the 44-knob release's layout, which had no version slot; 2: with reject_busy; 3: without restarts; 4: without fast_open; 5: without prefix_hits; 6: without suss_starts; 7: without follow_ups */

/* s_cubic and s_bbr (the stateful start and its Careful Resume phases). */
enum hs_counter {
	HS_FLOWS = 0,               /* flows that started with this controller */
	HS_HITS,                    /* ... found their peer in the table */
	HS_MISSES,                  /* ... did not (or startup is off) */
	HS_STORES,                  /* flows that stored an estimate at termination */
	HS_DISCARDS,                /* flows whose estimate was not worth storing (BDP <= IW) */
	HS_SKIPPED,                 /* flows that did not store by rule (store off, frozen, short S-BBR flow, a lower estimate of a flow beside the peer's others) */
	HS_EXPIRED,                 /* Reconnaissance: entry older than max_age_s (deleted) */
	HS_REJECT_NO_RTT,           /* Reconnaissance: no handshake RTT to check */
	HS_REJECT_RTT_SHORTER,      /* Reconnaissance: this path's RTT far shorter than saved */
	HS_REJECT_RTT_LONGER,       /* Reconnaissance: far longer */
	HS_JUMPS,                   /* Unvalidated entered: the jump */
	HS_RATE_LIMITED,            /* the sender did not use the jump: resume over */
	HS_VALIDATED,               /* Validating ended without congestion: Normal */
	HS_RETREAT_LOSS,            /* Safe Retreat on a loss (Recovery) */
	HS_RETREAT_ECN,             /* ... on ECN-CE (CWR) */
	HS_RETREAT_RTO,             /* ... on a retransmission timeout (Loss) */
	HS_RETREAT_RATE,            /* ... on the jump delivered far slower than paced */
	HS_OFF,                     /* flows started as the kernel's because mode = off */
	HS_SHADOW_WOULD_JUMP,       /* mode = shadow: Reconnaissance said jump; the flow started as the kernel's */
	HS_SHADOW_SCORED,           /* ... and its own estimate at release was compared with the cached one */
	HS_SHADOW_RATIO_0,          /* cached / measured < 0.25 (HS_SHADOW_BUCKETS buckets, lib/shadow.h) */
	HS_SHADOW_RATIO_LAST = HS_SHADOW_RATIO_0 + 8,
	HS_LOSSY_NO_RWND,           /* jumps to a lossy path without the window override (rwnd_lossy off) */
	HS_PROBE_QUEUE_EXITS,       /* s_cubic's probe after a jump ended by a queue in the RTT */
	HS_HOOKS_MISSED,            /* the kernel entered CWR/Recovery/Loss without running ssthresh and set_state: replayed (lib/hook_guard.h) */
	HS_REJECT_SMALL,            /* Reconnaissance: the saved BDP is below min_jump_pkts */
	HS_RWND_RECEIVER_BEHIND,    /* window overrides ended early: the receiver's own window shrank (lib/rwnd_grant.h) */
	HS_STORE_JUMP_ONLY,         /* flows that sent no more than their jump (paced at the entry's rate): entry left as it was (lib/store.h) */
	HS_NO_QUEUE_OVERFLOWS,      /* loss episodes that began with no queue in the RTT, rising, and lost a run: overflows, the path not marked lossy */
	HS_PROBE_DRAIN_ANSWERED,    /* s_cubic: a loss of data sent before the probe's drain, answered with beta of the probe's peak (lib/resume.h) */
	HS_UNTRUSTED,               /* flows whose socket's owner uid is above trusted_uid_max: the kernel's own, table untouched */
	HS_BUSY_NO_RWND,            /* jumps into a busy bottleneck (a queue in the handshake RTT; a smaller one at an entry busy in half its handshakes), made without the window override */
	HS_YIELDED_JUMPS,           /* jumps cut by the entry's busy share (jump_yield) */
	HS_SHARED_NO_RWND,          /* jumps made while another flow to the peer was open, without the window override */
	HS_SHARED_QUIET_RWND,       /* ... with it: no flow to the peer had lost a packet for HS_QUIET_NS (rwnd_shared = quiet) */
	HS_REJECT_SIBLINGS,         /* Reconnaissance: the peer's other open flows hold its budget, less than min_jump_pkts (at least IW) of the saved BDP left */
	HS_INITS_LATE,              /* flows whose init the kernel skipped, started at their first transmission (late_init.h) */
	HS_RWND_RECEIVER_OVERRUN,   /* window overrides whose receiver discarded data past its window (dupACKs without SACK, lib/rwnd_grant.h) */
	HS_OVERRUN_NO_RWND,         /* jumps without the window override: the peer's receiver overran lately (hs_overrun_holds) */
	HS_ARMED,                   /* Reconnaissance said go at init: the jump waits until the flow has more to send than its window */
	HS_NO_JUMP_NEEDED,          /* ... and it never had (or lost first): the kernel's start, nothing taken from the entry */
	HS_RESTARTS,                /* careful restarts after an idle past the RTO (lib/restart.h): Unvalidated entered again */
	HS_FAST_OPEN,               /* TCP Fast Open flows (init at the SYN, the source unproven): the kernel's, table untouched */
	HS_PREFIX_HITS,             /* ... no entry of their own, but their /24 or /48's peers agree: started from that (lib/prefix.h) */
	HS_SUSS_STARTS,             /* s_cubic: first contacts (no entry, no prefix) started as SUSS (at their first write beyond cwnd); their rounds are counted in suss's block */
	HS_FOLLOW_UPS,              /* jumps after a jump cut to the flow's data validated (an HTML page, then its objects): Unvalidated entered again */
	HS_STATEFUL_COUNTERS,
};

/* A flow's Careful Resume phase. NONE: no resume (miss, rejected, or off). */
enum hs_phase { HS_PHASE_NONE = 0, HS_PHASE_UNVALIDATED, HS_PHASE_VALIDATING, HS_PHASE_NORMAL, HS_PHASE_RETREAT };

/* hs_outcomes value, keyed by the flow (struct hs_flow_key): how each flow's start
 * went, written at init, when the resume ends and at release, for the lab's rows and
 * `headstart flows`. */
struct hs_flow_outcome {
	__u32 cc;                   /* enum hs_cc_id */
	__u32 outcome;              /* the deciding enum hs_counter: HS_MISSES, HS_REJECT_*, HS_ARMED, HS_VALIDATED, HS_RETREAT_* ... */
	__u32 jump_cwnd;            /* packets (0: no jump) */
	__u32 pipe_pkts;            /* PipeSize when the resume ended */
	__u32 phase;                /* enum hs_phase when written */
	__u32 released;             /* 1 once the flow is closed */
	__u64 cached_bw_bytes_per_s; /* the entry's rate the start used (or, in shadow mode, would have) */
	__u32 override_rwnd_limited_ms; /* receiver-window-limited time (tcpi_rwnd_limited) from the
					 * start to the end of the window override; HS_OUTCOME_NONE: no override
					 * (or not over yet), or the kernel's HZ unknown */
	__u32 rcv_overrun;          /* 1: the receiver discarded what the override let past its real
				     * window (its bare dupACKs, and a loss: stateful.h hs_take_overrun) */
};
_Static_assert(sizeof(struct hs_flow_outcome) == 40, "hs_flow_outcome is 40 bytes");
#define HS_OUTCOME_NONE 0xffffffffU

/* SUSS's slow-start rounds: the suss controller's, and s_cubic's first contacts'. */
enum hs_suss_counter {
	HS_SUSS_FLOWS = 0,          /* flows that started with suss */
	HS_SUSS_ACCELERATED_ROUNDS, /* rounds grown by G > 2 (paced extra data) */
	HS_SUSS_NORMAL_ROUNDS,      /* rounds decided at G = 2: SUSS hands over to HyStart */
	HS_SUSS_TRAIN_EXITS,        /* slow start ended by the scaled ACK-train test */
	HS_SUSS_DELAY_EXITS,        /* slow start ended by the delay test */
	HS_SUSS_LOSS_STOPS,         /* SUSS stopped by a cwnd reduction while still deciding */
	HS_SUSS_HOOKS_MISSED,       /* as HS_HOOKS_MISSED */
	HS_SUSS_INITS_LATE,         /* as HS_INITS_LATE */
	HS_SUSS_RWND_STOPS,         /* SUSS stopped while deciding: the receiver's window fell below cwnd */
	HS_SUSS_COUNTERS,
};
_Static_assert(HS_STATEFUL_COUNTERS <= HS_COUNTERS_PER_CC, "stateful counters fit their block");
_Static_assert(HS_SUSS_COUNTERS <= HS_COUNTERS_PER_CC, "suss counters fit their block");

/* hs_config: the operator's knobs, one record written whole by `headstart load`
 * (defaults), `config`, `up`, `on`/`off`/`shadow`. Every knob is a __u32 holding its
 * value as is; the tool's knob table (src/bpf/abi.rs) gives each its kind, range,
 * default and one-line doc, in this order. `version` names the layout: a record whose
 * version is not HS_CONFIG_VERSION was never written by this release (the controllers
 * then run as the kernel's own, hs_get_config), and the tool carries an older
 * release's record over by knob name (abi.rs, KNOB_HISTORY), so a release may drop a
 * knob. `seq` makes a copy taken during a write detectable (path_table.h,
 * HS_COPY_WHOLE): a map update is one memcpy, which a controller on another CPU can
 * read half done. */
#define HS_CONFIG_VERSION 0x48534335U  /* "HSC5"; "HSC4" had no prefix_fallback, "HSC3" no one_table, "HSC2" no seq, "HSC1" was the 44-knob record */
struct hs_config {
	__u32 version;
	__u32 seq;                  /* even: whole; odd: the tool is writing the knobs (abi.rs write_steps) */
	__u32 mode;                 /* enum hs_mode: the operator's switch */
	__u32 rwnd_override;        /* 1: open the receiver's window as far as a jump needs (rwnd.bpf.c) */
	__u32 max_age_s;            /* Reconnaissance: older entries are deleted, not used (0: any age) */
	__u32 max_start_cwnd;       /* cap on a jump's window, packets (Careful Resume's max_jump) */
	__u32 max_start_rate_mbps;  /* cap on a jump's pacing rate */
	__u32 store_cap_mbps;       /* no entry above this rate (0: no cap) */
	__u32 trusted_uid_max;      /* flows of sockets owned by a higher uid neither read nor write the table */
	__u32 ipv6_prefix_len;      /* hs_paths keys an IPv6 peer by this many leading bits (lib/path_key.h) */
	__u32 one_table;            /* 1: every network namespace uses the host's entries (struct hs_peer) */
	__u32 prefix_fallback;      /* 1: a first contact starts from its /24 or /48's agreeing entries (lib/prefix.h) */
};
_Static_assert(sizeof(struct hs_config) == 12 * 4, "hs_config: one u32 per knob after `version` and `seq`");

/* hs_lab_config: what only experiments set (the lab writes it for a run and puts it
 * back; `headstart config` neither shows nor writes it). Never written: every value
 * at its identity (HS_LAB_DEFAULTS), i.e. the product as shipped. */
#define HS_LAB_CONFIG_VERSION 0x48534c32U  /* "HSL2"; "HSL1" had no seq */
struct hs_lab_config {
	__u32 version;
	__u32 seq;                  /* as hs_config's */
	__u32 startup;              /* 0: no stateful start on a hit (A/B runs) */
	__u32 store;                /* 0: no flow stores its estimate */
	__u32 freeze;               /* 1: never overwrite an entry (the paper's S-Cubic*) */
	__u32 bw_scale_pct;         /* cached rate x pct/100 at the start: the estimation-error experiment */
	__u32 rtt_scale_pct;        /* cached min RTT x pct/100 at the start: the RTT-mismatch experiment */
	__u32 suss;                 /* 0: no SUSS round above 2x (suss, s_cubic's first contacts) */
	__u32 suss_k_max;           /* SUSS Appendix A: growth up to 2^(k+1) per round */
	__u32 gcbe_min_span_us;     /* GCBE's noise floor (lib/tuned.h); 0 for table tests whose short flows must all store */
	__u32 min_jump_pkts;        /* s_cubic's smallest jump (lib/tuned.h); 0 for tests whose subject needs every entry jumped to */
};
_Static_assert(sizeof(struct hs_lab_config) == 11 * 4, "hs_lab_config: one u32 per knob after `version` and `seq`");
#define HS_LAB_DEFAULTS { .version = HS_LAB_CONFIG_VERSION, .startup = 1, .store = 1, .freeze = 0, \
			  .bw_scale_pct = 100, .rtt_scale_pct = 100, .suss = 1, .suss_k_max = 1, \
			  .gcbe_min_span_us = HS_GCBE_MIN_SPAN_US, .min_jump_pkts = HS_MIN_JUMP_PKTS }

/* on: the accelerations run. off (`headstart off`): no jump, no SUSS round above 2x, no
 * window override: every flow is the kernel's Cubic/BBR (entries are still stored).
 * shadow: look up and record what a start would have done, start as the kernel. */
enum hs_mode { HS_MODE_ON = 0, HS_MODE_OFF = 1, HS_MODE_SHADOW = 2 };
/* s_bbr's window override for a jump made while another flow to the peer is open is
 * refused while one of the peer's flows lost a packet within this (lib/resume.h). */
#define HS_QUIET_NS (10ULL * 1000000000ULL)

/* hs_open value: a peer's s_cubic and s_bbr flows open now (init to release), their
 * packets in flight (the sum of what each last reported, stateful.h hs_open_report),
 * and when one of its flows last entered Recovery or Loss (boot clock; 0: never). */
struct hs_open_flows {
	__u32 open;
	__u32 pkts_out;
	__u64 last_loss_ns;
	__u32 armed;                /* of them, armed: waiting for data to jump with (stateful.h) */
	__u32 starting;             /* of them, in their jump's first round (Unvalidated, paced) */
	__u64 delivered;            /* bytes its flows delivered, as each last reported (lib/ensemble.h) */
};
_Static_assert(sizeof(struct hs_open_flows) == 32, "hs_open_flows is 32 bytes (was a __u32 count, then 16, then 24 bytes)");

/* hs_rwnd value: one flow's receive-window override, written by the controller at the
 * jump and kept up to date by the tc program on every ACK (lib/rwnd_grant.h). Window
 * fields are as the ACK carries them (the peer's scale applies). */
struct hs_rwnd_grant {
	__u16 field;                /* advertise at least this; 0: ended (the receiver fell behind or overran) */
	__u16 peak;                 /* the largest window the receiver itself advertised */
	__u32 last_ack;             /* the highest acknowledgment number seen (HS_GRANT_ACKED) */
	__u16 last_win;             /* the window field of that ACK, as the receiver wrote it */
	__u8 flags;                 /* HS_GRANT_* */
	__u8 overruns;              /* dupACKs without SACK seen: segments the receiver discarded (saturating) */
};
_Static_assert(sizeof(struct hs_rwnd_grant) == 12, "hs_rwnd_grant is 12 bytes");
#define HS_GRANT_SACK 0x1           /* watch for overruns: the peer negotiated SACK (a dupACK without a SACK block is no hole) */
#define HS_GRANT_ACKED 0x2          /* last_ack and last_win hold an ACK */
#define HS_GRANT_BEHIND 0x4         /* ended by the receiver's shrinking window */

/* lab_beyond_window value (bpf/lab_discards.bpf.c, the lab's instrument, not the
 * service's): one flow's segments that its receiver discarded as beyond its window,
 * by the kernel's reason (tcp_sequence() in tcp_input.c). */
struct hs_lab_discards {
	__u64 beyond_edge;          /* TCP_INVALID_SEQUENCE: began past the window's right edge (beyond a hole, or behind an earlier discard) */
	__u64 unread;               /* TCP_INVALID_END_SEQUENCE: began inside, ended past the edge while the receive queue held unread data */
};
_Static_assert(sizeof(struct hs_lab_discards) == 16, "hs_lab_discards is 16 bytes");

/* hs_rwnd key: one flow, as the tc program sees it on an incoming ACK. */
struct hs_flow_key {
	__u8 peer[16];
	__u8 local[16];
	__u16 peer_port;            /* host byte order */
	__u16 local_port;
	__u32 netns_ino;            /* the flow's network namespace (its inode number): one 4-tuple in two namespaces is two flows */
};
_Static_assert(sizeof(struct hs_flow_key) == 40, "hs_flow_key is 40 bytes");
_Static_assert(__builtin_offsetof(struct hs_flow_key, peer_port) == 32, "hs_flow_key layout");

#endif
