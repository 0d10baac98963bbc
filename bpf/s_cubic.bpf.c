// SPDX-License-Identifier: GPL-2.0
/* s_cubic: Cubic with a stateful start (Stateful-TCP, IEEE Access 2020, §IV).
 *
 * A flow to a peer seen before starts as if it continued the previous flow:
 *
 *   handshake done ──► init: look the peer up in hs_paths
 *        │  miss: Cubic's own slow start (IW 10), exactly the kernel's
 *        │  hit:  cwnd = cached bw × cached min RTT (packets), paced at cached bw,
 *        │        receive window opened by the tc program (rwnd.bpf.c)
 *        ▼
 *   first ACK ──► startup over: pacing off, cwnd = max(in flight, IW)  (eq. 3);
 *        │        ssthresh untouched, so slow start + HyStart carry on
 *        ▼
 *   every ACK ──► Cubic (kernel kfuncs) + GCBE bandwidth estimate (lib/gcbe.h)
 *        ▼
 *   release ──► store {max of last 5 GCBE estimates, min RTT} unless BDP <= IW
 *
 * Everything that is Cubic is the kernel's cubic, called through its kfuncs; its
 * state (struct bictcp) fills the start of icsk_ca_priv, so ours lives in socket
 * storage. Differences from the paper:
 *  1. Startup ends at the first ACK that acknowledges data (the paper's "first
 *     ACK"); the authors' code waited for in-flight > 5 or 10 ACKs.
 *  2. Table keys are the full peer address (128 bits), not a hash slot: there are no
 *     collisions, only LRU evictions.
 *  3. Bytes acknowledged per ACK are counted from tp->delivered (SACKed included). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "lib/gcbe.h"
#include "lib/startup.h"
#include "path_table.h"

char _license[] SEC("license") = "GPL";

extern void cubictcp_init(struct sock *sk) __ksym;
extern __u32 cubictcp_recalc_ssthresh(struct sock *sk) __ksym;
extern void cubictcp_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern void cubictcp_state(struct sock *sk, __u8 new_state) __ksym;
extern void cubictcp_cwnd_event(struct sock *sk, enum tcp_ca_event event) __ksym;
extern void cubictcp_acked(struct sock *sk, const struct ack_sample *sample) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

#define SOL_SOCKET 1
#define SO_MAX_PACING_RATE 47

struct s_cubic_flow {
	struct gcbe gcbe;           /* the bandwidth estimator */
	__u64 saved_max_pacing;     /* sk_max_pacing_rate before the startup capped it */
	__u64 last_delivered;       /* tp->delivered at the previous ACK */
	__u32 min_rtt_us;           /* smallest RTT sample of this flow */
	__u8 startup;               /* 1 during the paced first RTT of a stateful start */
	__u8 stateful;              /* 1 if the flow started from the table */
	__u8 rwnd_marked;           /* 1 if the flow is in hs_rwnd, under rwnd_key */
	__u8 pad;
	/* Kept from init: by release the local port is already unhashed (zero). */
	struct hs_flow_key rwnd_key;
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct s_cubic_flow);
} s_cubic_flows SEC(".maps");

static __always_inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline __u32 packets_in_flight(const struct tcp_sock *tp)
{
	return tp->packets_out - (tp->sacked_out + tp->lost_out) + tp->retrans_out;
}

/* SO_MAX_PACING_RATE takes an int from BPF; ~0U means unlimited. */
static __always_inline void set_max_pacing(struct sock *sk, __u64 rate)
{
	int v = rate >= 0xffffffffULL ? ~0U : (__u32)rate;

	bpf_setsockopt(sk, SOL_SOCKET, SO_MAX_PACING_RATE, &v, sizeof(v));
}

/* On a hit: the first RTT at the cached rate, with a window of one cached BDP. */
static __always_inline void start_from_table(struct sock *sk, struct s_cubic_flow *flow,
					     const struct hs_path *path, const struct hs_config *cfg)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 bw = hs_scale_bw(path->bw_Bps, cfg->bw_scale_pct);

	tp->snd_cwnd = hs_start_cwnd(bw, path->min_rtt_us, tp->mss_cache);
	sk->sk_pacing_rate = bw;
	sk->sk_pacing_status = SK_PACING_NEEDED;
	/* The kernel recomputes the pacing rate (2 x cwnd / srtt in slow start) before
	 * the first ACK; capping it is the only way to keep the first RTT at bw. */
	flow->saved_max_pacing = sk->sk_max_pacing_rate;
	set_max_pacing(sk, bw);
	flow->startup = 1;
	flow->stateful = 1;
	if (cfg->rwnd_override) {
		__u32 one = 1;

		hs_flow_key_of(sk, &flow->rwnd_key);
		if (!bpf_map_update_elem(&hs_rwnd, &flow->rwnd_key, &one, BPF_ANY))
			flow->rwnd_marked = 1;
	}
}

SEC("struct_ops")
void BPF_PROG(s_cubic_init, struct sock *sk)
{
	struct s_cubic_flow *flow;
	struct hs_config cfg;
	struct hs_path *path;
	struct hs_addr peer;

	cubictcp_init(sk);
	hs_count(HS_CC_S_CUBIC, HS_FLOWS);
	flow = bpf_sk_storage_get(&s_cubic_flows, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!flow)  /* no memory for our state: the flow is plain Cubic */
		return;
	__builtin_memset(flow, 0, sizeof(*flow));
	flow->last_delivered = tcp_sk(sk)->delivered;

	cfg = hs_get_config();
	hs_peer_addr(sk, &peer);
	path = bpf_map_lookup_elem(&hs_paths, &peer);
	if (!path) {
		hs_count(HS_CC_S_CUBIC, HS_MISSES);
		return;
	}
	if (cfg.max_age_s && bpf_ktime_get_boot_ns() - path->stored_ns > cfg.max_age_s * 1000000000ULL) {
		hs_count(HS_CC_S_CUBIC, HS_EXPIRED);
		hs_count(HS_CC_S_CUBIC, HS_MISSES);
		return;
	}
	hs_count(HS_CC_S_CUBIC, HS_HITS);
	if (cfg.startup)
		start_from_table(sk, flow, path, &cfg);
}

/* Eq. 3, at the first ACK of a stateful start. */
static __always_inline void end_startup(struct sock *sk, struct s_cubic_flow *flow)
{
	struct tcp_sock *tp = tcp_sk(sk);

	tp->snd_cwnd = hs_startup_exit_cwnd(packets_in_flight(tp));
	sk->sk_pacing_status = SK_PACING_NONE;
	set_max_pacing(sk, flow->saved_max_pacing);
	flow->startup = 0;
}

SEC("struct_ops")
void BPF_PROG(s_cubic_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct s_cubic_flow *flow;
	__u64 delivered;

	cubictcp_acked(sk, sample);
	flow = bpf_sk_storage_get(&s_cubic_flows, sk, 0, 0);
	if (!flow)
		return;
	if (sample->rtt_us > 0 && (!flow->min_rtt_us || (__u32)sample->rtt_us < flow->min_rtt_us))
		flow->min_rtt_us = sample->rtt_us;
	if (flow->startup)
		end_startup(sk, flow);
	delivered = tp->delivered;
	gcbe_on_ack(&flow->gcbe, tp->tcp_mstamp, (delivered - flow->last_delivered) * tp->mss_cache,
		    tp->srtt_us >> 3);
	flow->last_delivered = delivered;
}

SEC("struct_ops")
void BPF_PROG(s_cubic_release, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct s_cubic_flow *flow;
	struct hs_path *old, entry = {};
	struct hs_config cfg;
	struct hs_addr peer;
	__u64 bw;

	flow = bpf_sk_storage_get(&s_cubic_flows, sk, 0, 0);
	if (!flow)
		return;
	if (flow->rwnd_marked) {
		bpf_map_delete_elem(&hs_rwnd, &flow->rwnd_key);
		flow->rwnd_marked = 0;
	}
	cfg = hs_get_config();
	gcbe_finish(&flow->gcbe);
	bw = gcbe_best(&flow->gcbe);
	if (!cfg.store) {
		hs_count(HS_CC_S_CUBIC, HS_SKIPPED);
		return;
	}
	if (!hs_worth_storing(bw, flow->min_rtt_us, tp->mss_cache)) {
		hs_count(HS_CC_S_CUBIC, HS_DISCARDS);
		return;
	}
	hs_peer_addr(sk, &peer);
	old = bpf_map_lookup_elem(&hs_paths, &peer);
	if (old && cfg.freeze) {
		hs_count(HS_CC_S_CUBIC, HS_SKIPPED);
		return;
	}
	entry.bw_Bps = bw;
	entry.min_rtt_us = flow->min_rtt_us;
	entry.stored_ns = bpf_ktime_get_boot_ns();
	entry.flows = old ? old->flows + 1 : 1;
	entry.source = HS_CC_S_CUBIC;
	bpf_map_update_elem(&hs_paths, &peer, &entry, BPF_ANY);
	hs_count(HS_CC_S_CUBIC, HS_STORES);
}

SEC("struct_ops")
__u32 BPF_PROG(s_cubic_ssthresh, struct sock *sk)
{
	return cubictcp_recalc_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(s_cubic_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	cubictcp_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
void BPF_PROG(s_cubic_set_state, struct sock *sk, __u8 new_state)
{
	cubictcp_state(sk, new_state);
}

SEC("struct_ops")
void BPF_PROG(s_cubic_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	cubictcp_cwnd_event(sk, event);
}

SEC("struct_ops")
__u32 BPF_PROG(s_cubic_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops s_cubic = {
	.init = (void *)s_cubic_init,
	.ssthresh = (void *)s_cubic_ssthresh,
	.cong_avoid = (void *)s_cubic_cong_avoid,
	.set_state = (void *)s_cubic_set_state,
	.undo_cwnd = (void *)s_cubic_undo_cwnd,
	.cwnd_event = (void *)s_cubic_cwnd_event,
	.pkts_acked = (void *)s_cubic_acked,
	.release = (void *)s_cubic_release,
	.name = "s_cubic",
};
