// SPDX-License-Identifier: GPL-2.0
/* The papers' comparison starts, for the lab only (`headstart lab reproduce`): never
 * registered by `headstart load`, gone when the lab run that loaded them ends.
 *
 *   cubic_ss    the kernel's Cubic with HyStart off for this flow alone (standard slow
 *               start; the HyStart paper's "SS"): the module parameter is global.
 *   jump_start  Jump-Start (Liu et al., PFLDNet 2007, as S-Cubic §II-B ran it): the
 *               initial cwnd is the peer's advertised window, paced at window/RTT
 *               (both from the handshake) until the first ACK.
 *   cache       TCP-Cache (S-Cubic §II-B): the initial cwnd is the last cwnd of the
 *               previous connection to the same address, sent at once; the receiver's
 *               window still applies.
 *   cache_plus  TCP-Cache+ (S-Cubic §II-C): the same with the receiver's window
 *               suppressed, through the lab's window override (hs_rwnd).
 *
 * Everything else is the kernel's Cubic through its kfuncs. Needs headstart loaded
 * (its pinned maps): the lab loads it first. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "path_table.h"
#include "pacing.h"
#include "cubic_kfuncs.h"

char _license[] SEC("license") = "GPL";

/* Per address, the cwnd its last connection ended with (cache, cache_plus). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct hs_peer);
	__type(value, __u32);
} lab_cached_cwnd SEC(".maps");

/* Per flow: Jump-Start's pacing is on; Cache+ holds a window grant. */
struct lab_start {
	__u8 pacing;
	__u8 granted;
	struct hs_flow_key key;
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct lab_start);
} lab_starts SEC(".maps");

static __always_inline struct tcp_sock *tcp_of(struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline void peer_of(const struct sock *sk, struct hs_peer *p)
{
	__builtin_memset(p, 0, sizeof(*p));
	hs_addr_of(sk, 1, p->bytes);
}

static __always_inline __u32 clamp_cwnd(struct tcp_sock *tp, __u32 cwnd)
{
	return cwnd < tp->snd_cwnd_clamp ? cwnd : tp->snd_cwnd_clamp;
}

/* ---- cubic_ss ---- */

static __always_inline struct bictcp *cubic_of(struct sock *sk)
{
	return (struct bictcp *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

SEC("struct_ops")
void BPF_PROG(ss_acked, struct sock *sk, const struct ack_sample *sample)
{
	/* HyStart runs only while `found` is 0; Cubic's own resets clear it. */
	cubic_of(sk)->found = 1;
	cubictcp_acked(sk, sample);
}

/* ---- jump_start ---- */

SEC("struct_ops")
void BPF_PROG(js_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_of(sk);
	struct lab_start *s;
	__u32 srtt_us = tp->srtt_us >> 3;
	__u32 mss = tp->mss_cache ? tp->mss_cache : 1;
	__u32 awnd = tp->snd_wnd / mss;

	cubictcp_init(sk);
	if (awnd <= tp->snd_cwnd || !srtt_us)
		return;
	s = bpf_sk_storage_get(&lab_starts, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!s)
		return;
	tp->snd_cwnd = clamp_cwnd(tp, awnd);
	s->pacing = 1;
	sk->sk_pacing_status = SK_PACING_NEEDED;
	hs_set_max_pacing(sk, (__u64)tp->snd_wnd * 1000000 / srtt_us);
}

SEC("struct_ops")
void BPF_PROG(js_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct lab_start *s = bpf_sk_storage_get(&lab_starts, sk, 0, 0);

	if (s && s->pacing) {
		s->pacing = 0;
		sk->sk_pacing_status = SK_PACING_NONE;
		hs_set_max_pacing(sk, ~0ULL);
	}
	cubictcp_acked(sk, sample);
}

/* ---- cache, cache_plus ---- */

static __always_inline void cache_init(struct sock *sk, int plus)
{
	struct tcp_sock *tp = tcp_of(sk);
	struct hs_peer peer;
	struct lab_start *s;
	__u32 *cached;

	cubictcp_init(sk);
	peer_of(sk, &peer);
	cached = bpf_map_lookup_elem(&lab_cached_cwnd, &peer);
	if (!cached || *cached <= tp->snd_cwnd)
		return;
	tp->snd_cwnd = clamp_cwnd(tp, *cached);
	if (!plus)
		return;
	s = bpf_sk_storage_get(&lab_starts, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!s)
		return;
	/* The largest window field: the receiver's window no longer limits (a zero or
	 * shrinking window still ends the grant, lib/rwnd_grant.h). */
	struct hs_rwnd_grant grant = { .field = 0xffff, .flags = tp->rx_opt.sack_ok ? HS_GRANT_SACK : 0 };

	hs_flow_key_of(sk, &s->key);
	if (!bpf_map_update_elem(&hs_rwnd, &s->key, &grant, BPF_ANY))
		s->granted = 1;
}

SEC("struct_ops")
void BPF_PROG(cache_init_hook, struct sock *sk)
{
	cache_init(sk, 0);
}

SEC("struct_ops")
void BPF_PROG(cache_plus_init, struct sock *sk)
{
	cache_init(sk, 1);
}

SEC("struct_ops")
void BPF_PROG(cache_release, struct sock *sk)
{
	struct tcp_sock *tp = tcp_of(sk);
	struct lab_start *s = bpf_sk_storage_get(&lab_starts, sk, 0, 0);
	struct hs_peer peer;
	__u32 cwnd = tp->snd_cwnd;

	if (s && s->granted)
		bpf_map_delete_elem(&hs_rwnd, &s->key);
	peer_of(sk, &peer);
	bpf_map_update_elem(&lab_cached_cwnd, &peer, &cwnd, BPF_ANY);
}

/* ---- the kernel's Cubic, shared by all four ---- */

SEC("struct_ops")
void BPF_PROG(lab_init, struct sock *sk)
{
	cubictcp_init(sk);
}

SEC("struct_ops")
__u32 BPF_PROG(lab_ssthresh, struct sock *sk)
{
	return cubictcp_recalc_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(lab_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	cubictcp_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
void BPF_PROG(lab_set_state, struct sock *sk, __u8 new_state)
{
	cubictcp_state(sk, new_state);
}

SEC("struct_ops")
void BPF_PROG(lab_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	cubictcp_cwnd_event(sk, event);
}

SEC("struct_ops")
void BPF_PROG(lab_acked, struct sock *sk, const struct ack_sample *sample)
{
	cubictcp_acked(sk, sample);
}

SEC("struct_ops")
__u32 BPF_PROG(lab_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops cubic_ss = {
	.init = (void *)lab_init,
	.ssthresh = (void *)lab_ssthresh,
	.cong_avoid = (void *)lab_cong_avoid,
	.set_state = (void *)lab_set_state,
	.undo_cwnd = (void *)lab_undo_cwnd,
	.cwnd_event = (void *)lab_cwnd_event,
	.pkts_acked = (void *)ss_acked,
	.name = "cubic_ss",
};

SEC(".struct_ops.link")
struct tcp_congestion_ops jump_start = {
	.init = (void *)js_init,
	.ssthresh = (void *)lab_ssthresh,
	.cong_avoid = (void *)lab_cong_avoid,
	.set_state = (void *)lab_set_state,
	.undo_cwnd = (void *)lab_undo_cwnd,
	.cwnd_event = (void *)lab_cwnd_event,
	.pkts_acked = (void *)js_acked,
	.name = "jump_start",
};

SEC(".struct_ops.link")
struct tcp_congestion_ops cache = {
	.init = (void *)cache_init_hook,
	.ssthresh = (void *)lab_ssthresh,
	.cong_avoid = (void *)lab_cong_avoid,
	.set_state = (void *)lab_set_state,
	.undo_cwnd = (void *)lab_undo_cwnd,
	.cwnd_event = (void *)lab_cwnd_event,
	.pkts_acked = (void *)lab_acked,
	.release = (void *)cache_release,
	.name = "cache",
};

SEC(".struct_ops.link")
struct tcp_congestion_ops cache_plus = {
	.init = (void *)cache_plus_init,
	.ssthresh = (void *)lab_ssthresh,
	.cong_avoid = (void *)lab_cong_avoid,
	.set_state = (void *)lab_set_state,
	.undo_cwnd = (void *)lab_undo_cwnd,
	.cwnd_event = (void *)lab_cwnd_event,
	.pkts_acked = (void *)lab_acked,
	.release = (void *)cache_release,
	.name = "cache_plus",
};
