/* The state every headstart controller shares, pinned under /sys/fs/bpf/headstart/
 * so that it outlives any one load of the programs:
 *   hs_paths     per-peer path table: full 128-bit peer address -> {bw, min RTT, ...}
 *   hs_config    research knobs, one record, written by `headstart config`
 *   hs_counters  per-controller event counters (per CPU)
 *   hs_rwnd      flows whose incoming ACKs the tc program may open the window of
 * The record layouts are mirrored in src/bpf/maps.rs; keep them in step. */
#ifndef HS_PATH_TABLE_H
#define HS_PATH_TABLE_H

#include <bpf/bpf_endian.h>


#define HS_PATHS_DEFAULT_ENTRIES (1 << 20)

struct hs_addr {
	__u8 bytes[16];             /* IPv6, or IPv4 mapped as ::ffff:a.b.c.d */
};

struct hs_path {
	__u64 bw_Bps;               /* estimated bottleneck bandwidth, bytes/s */
	__u64 stored_ns;            /* CLOCK_BOOTTIME when stored */
	__u32 min_rtt_us;           /* minimum RTT seen by the storing flow */
	__u32 flows;                /* flows that stored into this entry */
	__u32 source;               /* HS_CC_* of the controller that stored it */
	__u32 reserved;
};

enum hs_cc_id { HS_CC_S_CUBIC = 0, HS_CC_S_BBR = 1, HS_CC_SUSS = 2, HS_CC_COUNT = 3 };

enum hs_counter {
	HS_FLOWS = 0,      /* flows that started with this controller */
	HS_HITS,           /* ... and found their peer in the table (stateful start) */
	HS_MISSES,         /* ... and did not */
	HS_COLLISIONS,     /* ... found an entry for another peer: impossible with full keys */
	HS_STORES,         /* flows that stored an estimate at termination */
	HS_DISCARDS,       /* flows whose estimate was not worth storing (BDP <= IW) */
	HS_SKIPPED,        /* flows that did not store by rule (frozen, short S-BBR flow) */
	HS_EXPIRED,        /* hits ignored because the entry was older than max_age */
	HS_COUNTERS_PER_CC = 8,
};

struct hs_config {
	__u32 startup;              /* 1: stateful start on a hit */
	__u32 store;                /* 1: store the estimate at termination */
	__u32 freeze;               /* 1: never overwrite an existing entry (S-Cubic*) */
	__u32 bw_scale_pct;         /* cached bw x pct/100 at startup (100 = as measured) */
	__u32 rwnd_override;        /* open stateful flows' window: 1 until the first data ACK, 2 (default) until the first sign of loss */
	__u32 max_age_s;            /* ignore entries older than this (0 = forever) */
	__u32 suss;                 /* 1: SUSS acceleration on (suss controller) */
	__u32 suss_k_max;           /* SUSS's k_max (Appendix A): G up to 2^(k+1); 0 = 1 */
	__u32 gcbe_median;          /* 1 (default): store the median of the last L GCBE estimates; 0: their max (eq. 8) */
	__u32 no_ss_after_start;    /* 1 (default): ssthresh = cwnd when the startup ends; 0: slow start goes on (the paper) */
	__u32 gcbe_min_span_us;     /* GCBE noise floor (gcbe.h); written as value + 1 so 0 means "default" */
	__u32 bbr_plateau_rtts;     /* s_bbr: STARTUP ends this many RTTs after a hit unless bw grows 25 % (startup.h); value + 1, 0 = default */
};

struct hs_flow_key {
	__u8 peer[16];
	__u8 local[16];
	__u16 peer_port;            /* host byte order */
	__u16 local_port;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, HS_PATHS_DEFAULT_ENTRIES);
	__type(key, struct hs_addr);
	__type(value, struct hs_path);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} hs_paths SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hs_config);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} hs_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, HS_CC_COUNT * HS_COUNTERS_PER_CC);
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} hs_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct hs_flow_key);
	__type(value, __u32);       /* the window field to advertise at least, peer's scale */
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} hs_rwnd SEC(".maps");

/* Defaults while hs_config has never been written: everything on, nothing scaled. */
static __always_inline struct hs_config hs_get_config(void)
{
	struct hs_config def = { .startup = 1, .store = 1, .bw_scale_pct = 100, .rwnd_override = 2, .suss = 1,
				 .suss_k_max = 1, .gcbe_median = 1, .no_ss_after_start = 1 };
	__u32 zero = 0;
	struct hs_config *c = bpf_map_lookup_elem(&hs_config, &zero);

	/* An all-zero record is the never-written array slot. */
	if (!c || c->bw_scale_pct == 0)
		return def;
	return *c;
}

static __always_inline void hs_count(enum hs_cc_id cc, enum hs_counter what)
{
	__u32 idx = cc * HS_COUNTERS_PER_CC + what;
	__u64 *v = bpf_map_lookup_elem(&hs_counters, &idx);

	/* Atomic even per CPU: a softirq-context hook can interrupt a process-context one. */
	if (v)
		__sync_fetch_and_add(v, 1);
}

#define HS_AF_INET 2
#define HS_AF_INET6 10

/* Direct loads from the socket (a trusted BTF pointer in struct_ops programs). */
static __always_inline void hs_copy_in6(__u8 out[16], const __u32 *w)
{
	__u32 w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];

	__builtin_memcpy(out, &w0, 4);
	__builtin_memcpy(out + 4, &w1, 4);
	__builtin_memcpy(out + 8, &w2, 4);
	__builtin_memcpy(out + 12, &w3, 4);
}

/* The peer's full address, IPv4 mapped into IPv6 (a dual-stack socket already holds
 * IPv4 peers that way). */
static __always_inline void hs_peer_addr(const struct sock *sk, struct hs_addr *a)
{
	__builtin_memset(a, 0, sizeof(*a));
	if (sk->__sk_common.skc_family == HS_AF_INET6) {
		hs_copy_in6(a->bytes, sk->__sk_common.skc_v6_daddr.in6_u.u6_addr32);
	} else {
		__u32 v4 = sk->__sk_common.skc_daddr;
		a->bytes[10] = 0xff;
		a->bytes[11] = 0xff;
		__builtin_memcpy(&a->bytes[12], &v4, 4);
	}
}

static __always_inline void hs_local_addr(const struct sock *sk, __u8 out[16])
{
	__builtin_memset(out, 0, 16);
	if (sk->__sk_common.skc_family == HS_AF_INET6) {
		hs_copy_in6(out, sk->__sk_common.skc_v6_rcv_saddr.in6_u.u6_addr32);
	} else {
		__u32 v4 = sk->__sk_common.skc_rcv_saddr;
		out[10] = 0xff;
		out[11] = 0xff;
		__builtin_memcpy(&out[12], &v4, 4);
	}
}

static __always_inline void hs_flow_key_of(const struct sock *sk, struct hs_flow_key *k)
{
	struct hs_addr peer;

	__builtin_memset(k, 0, sizeof(*k));
	hs_peer_addr(sk, &peer);
	__builtin_memcpy(k->peer, peer.bytes, 16);
	hs_local_addr(sk, k->local);
	k->peer_port = bpf_ntohs(sk->__sk_common.skc_dport);
	k->local_port = sk->__sk_common.skc_num;
}

#endif
