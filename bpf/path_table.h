/* The state every headstart controller shares, pinned under /sys/fs/bpf/headstart/
 * so that it outlives any one load of the programs:
 *   hs_paths     per-peer path table: peer address (IPv6: its prefix) -> {bw, min RTT, ...}
 *   hs_config    the operator's knobs, one record, written by `headstart config`
 *   hs_lab_config  what only experiments set, one record, written by the lab
 *   hs_counters  per-controller event counters (per CPU)
 *   hs_rwnd      flows whose incoming ACKs the tc program may open the window of
 *   hs_outcomes  how each flow's start went (Careful Resume's phases), by flow
 *   hs_open      per peer, the flows open now (s_cubic, s_bbr: init to release), their
 *                packets in flight, and the last loss
 *   hs_stores    a ring of the flows' changes to hs_paths, for the fleet agent
 *   hs_prefixes  per /24 or /48 of peers, what their entries agree on (prefix fallback)
 * The records themselves are defined in records.h, the one contract with the tool. */
#ifndef HS_PATH_TABLE_H
#define HS_PATH_TABLE_H

#include <bpf/bpf_endian.h>
#include "records.h"
#include "lib/path_key.h"
#include "lib/prefix.h"


#define HS_PATHS_DEFAULT_ENTRIES (1 << 20)

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, HS_PATHS_DEFAULT_ENTRIES);
	__type(key, struct hs_peer);
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
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hs_lab_config);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} hs_lab_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, HS_CC_COUNT * HS_COUNTERS_PER_CC + 1);  /* + the version slot */
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} hs_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct hs_flow_key);
	__type(value, struct hs_rwnd_grant);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} hs_rwnd SEC(".maps");

/* How each flow's start went (stateful.h, hs_finish), for the lab and the tool. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct hs_flow_key);
	__type(value, struct hs_flow_outcome);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} hs_outcomes SEC(".maps");

/* A peer's flows share its bottleneck: a jump while another is open is one into a
 * busy bottleneck, whether or not that flow jumped, and their packets in flight show
 * how busy (jump_room); where the peer's flows lost packets
 * lately, its buffer overflows (stateful.h, hs_open_enter). An entry evicted under
 * load undercounts: the flow then jumps and gets the override as before. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct hs_peer);
	__type(value, struct hs_open_flows);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} hs_open SEC(".maps");

/* The flows' stores and deletes, for the fleet agent (src/fleet.rs) to share with the
 * other servers: a ring it drains on its own clock, so that sharing costs a flow one
 * copy and never a wait or a wakeup. A full ring (no agent, or one behind) drops the
 * event; the agent counts what the kernel dropped. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} hs_stores SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct hs_peer);
	__type(value, struct hs_prefix);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} hs_prefixes SEC(".maps");

/* An entry stored for a peer (by its flow, or from the fleet) moves its prefix's
 * aggregate. Two flows of one prefix at once may lose an update: one sample of many. */
/* The aggregate of the peer's prefix (NULL: none yet); *k its key, *host which peer of
 * the prefix it is (lib/prefix.h, hs_prefix_key). */
static __always_inline struct hs_prefix *hs_prefix_of(const struct hs_peer *peer, struct hs_peer *k, __u32 *host)
{
	*k = *peer;
	*host = hs_prefix_key(k->bytes);
	return bpf_map_lookup_elem(&hs_prefixes, k);
}

static __always_inline void hs_prefix_note(const struct hs_peer *peer, const struct hs_path *e)
{
	struct hs_peer k;
	struct hs_prefix *old, now;
	__u32 host;

	old = hs_prefix_of(peer, &k, &host);
	now = hs_prefix_after(old, host, e->bw_bytes_per_s, e->min_rtt_us, e->flags, e->stored_ns);
	if (old)
		*old = now;
	else
		bpf_map_update_elem(&hs_prefixes, &k, &now, BPF_ANY);
}

/* p NULL: the peer's entry was deleted. */
static __always_inline void hs_store_event(const struct hs_peer *peer, const struct hs_path *p, __u64 now_ns)
{
	struct hs_store_event ev = { .peer = *peer, .stored_ns = now_ns };

	if (p) {
		ev.bw_bytes_per_s = p->bw_bytes_per_s;
		ev.stored_ns = p->stored_ns;
		ev.min_rtt_us = p->min_rtt_us;
		ev.flags = p->flags;
		ev.source = p->source;
	}
	bpf_ringbuf_output(&hs_stores, &ev, sizeof(ev), BPF_RB_NO_WAKEUP);
}

/* Writes what a store decides into an existing entry, in place: what the peer's other
 * flows write into it meanwhile (its handshakes and busy share, a receiver's overrun)
 * stays theirs. A reader between two of these writes may take the new rate with the
 * old min RTT: two measurements of one peer. */
static __always_inline void hs_write_stored(struct hs_path *dst, const struct hs_path *src)
{
	dst->bw_bytes_per_s = src->bw_bytes_per_s;
	dst->min_rtt_us = src->min_rtt_us;
	dst->stored_ns = src->stored_ns;
	dst->flows = src->flows;
	dst->agreed = src->agreed;
	dst->flags = src->flags;
	dst->clean_segs = src->clean_segs;
	dst->source = src->source;
}

/* Copies the knob record *c into out; 1 if the copy is whole. The tool writes a
 * record in three map updates, each changing either seq or the knobs, never both:
 * seq made odd, the knobs, seq made even again (abi.rs write_steps). A copy that
 * overlapped the knobs' update began with seq odd, or ended with it changed: a torn
 * copy never passes. The loads stay in program order (x86's TSO; the barriers keep the
 * compiler's). A few retries: a write takes microseconds. */
#define HS_COPY_WHOLE(c, out)                                                      \
	({                                                                         \
		int whole_ = 0;                                                    \
		for (int try_ = 0; try_ < 4 && !whole_; try_++) {                  \
			__u32 seq_ = *(volatile __u32 *)&(c)->seq;                 \
			__asm__ __volatile__("" ::: "memory");                       \
			out = *(c);                                                \
			__asm__ __volatile__("" ::: "memory");                       \
			whole_ = !(seq_ & 1) && seq_ == *(volatile __u32 *)&(c)->seq; \
		}                                                                  \
		whole_;                                                            \
	})

/* The knobs, decoded nowhere else: the record holds every value as is. Never
 * written (no `headstart load` yet), or caught in a write: mode off, i.e. no stateful
 * start, no SUSS round above 2x, no window override: every controller is the
 * kernel's own. */
static __always_inline struct hs_config hs_get_config(void)
{
	struct hs_config off = { .mode = HS_MODE_OFF }, cfg;
	__u32 zero = 0;
	struct hs_config *c = bpf_map_lookup_elem(&hs_config, &zero);

	if (!c || !HS_COPY_WHOLE(c, cfg) || cfg.version != HS_CONFIG_VERSION)
		return off;
	return cfg;
}

/* The experiments' record; never written by the lab (or caught in a write): the
 * product as shipped. */
static __always_inline struct hs_lab_config hs_get_lab_config(void)
{
	struct hs_lab_config shipped = HS_LAB_DEFAULTS, lab;
	__u32 zero = 0;
	struct hs_lab_config *c = bpf_map_lookup_elem(&hs_lab_config, &zero);

	if (!c || !HS_COPY_WHOLE(c, lab) || lab.version != HS_LAB_CONFIG_VERSION)
		return shipped;
	return lab;
}

static __always_inline void hs_count(enum hs_cc_id cc, __u32 what)
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

/* One end's full address, IPv4 mapped into IPv6 as ::ffff:a.b.c.d (a dual-stack
 * socket already holds IPv4 peers that way): the one place the table's key is made. */
static __always_inline void hs_addr_of(const struct sock *sk, int peer, __u8 out[16])
{
	__builtin_memset(out, 0, 16);
	if (sk->__sk_common.skc_family == HS_AF_INET6) {
		hs_copy_in6(out, peer ? sk->__sk_common.skc_v6_daddr.in6_u.u6_addr32
				      : sk->__sk_common.skc_v6_rcv_saddr.in6_u.u6_addr32);
	} else {
		__u32 v4 = peer ? sk->__sk_common.skc_daddr : sk->__sk_common.skc_rcv_saddr;

		out[10] = 0xff;
		out[11] = 0xff;
		__builtin_memcpy(&out[12], &v4, 4);
	}
}

/* The flow's table key: its peer's address cut to the key (lib/path_key.h) and its
 * network namespace (struct hs_peer: 0 for the host's, or for all with one_table).
 * init_net is not in the kernel's BTF (no ksym); this kernel gives it a fixed inode
 * number, NET_NS_INIT_INO, which the tool checks the same way (sys.rs, netns_key). */
static __always_inline void hs_peer_of(const struct sock *sk, const struct hs_config *cfg, struct hs_peer *p)
{
	const struct net *net = sk->__sk_common.skc_net.net;

	hs_addr_of(sk, 1, p->bytes);
	hs_path_key(p->bytes, cfg->ipv6_prefix_len);
	p->netns = cfg->one_table || net->ns.inum == NET_NS_INIT_INO ? 0 : net->net_cookie;
}

/* Packets in flight as tcp_packets_in_flight() counts them. */
static __always_inline __u32 hs_packets_in_flight(const struct tcp_sock *tp)
{
	return tp->packets_out - (tp->sacked_out + tp->lost_out) + tp->retrans_out;
}

static __always_inline void hs_flow_key_of(const struct sock *sk, struct hs_flow_key *k)
{
	__builtin_memset(k, 0, sizeof(*k));
	hs_addr_of(sk, 1, k->peer);
	hs_addr_of(sk, 0, k->local);
	k->peer_port = bpf_ntohs(sk->__sk_common.skc_dport);
	k->local_port = sk->__sk_common.skc_num;
	k->netns_ino = sk->__sk_common.skc_net.net->ns.inum;
}

#endif
