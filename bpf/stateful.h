/* The stateful start shared by s_cubic and s_bbr (Stateful-TCP §IV-B, Stateful-BBR
 * §IV-B): look the peer up at init, start the first RTT at the cached rate with a
 * cached-BDP window, open the receiver's window for the flow (rwnd.bpf.c), and store
 * the flow's estimate at release. Each controller brings its own estimator and says
 * when the startup ends. */
#ifndef HS_STATEFUL_H
#define HS_STATEFUL_H

#include "lib/startup.h"
#include "pacing.h"
#include "path_table.h"

struct hs_start {
	__u64 saved_max_pacing;     /* sk_max_pacing_rate before the startup capped it */
	struct hs_flow_key rwnd_key;/* kept from init: by release the local port is unhashed */
	__u8 startup;               /* 1 during the paced first RTT of a stateful start */
	__u8 capped;                /* 1 if the startup capped sk_max_pacing_rate */
	__u8 rwnd_marked;           /* 1 if rwnd_key is in hs_rwnd */
	__u8 rwnd_whole_flow;       /* rwnd_override = 2: keep the override past the startup */
	__u8 pad[4];
	__u32 start_cwnd;           /* the window the startup began with (the cached BDP) */
	__u32 pad2;
};

static __always_inline struct tcp_sock *hs_tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

/* Counts the flow and looks its peer up. 1 and *out filled on a usable hit. */
static __always_inline int hs_lookup(struct sock *sk, enum hs_cc_id cc, const struct hs_config *cfg,
				     struct hs_path *out)
{
	struct hs_path *path;
	struct hs_addr peer;

	hs_peer_addr(sk, &peer);
	path = bpf_map_lookup_elem(&hs_paths, &peer);
	if (!path) {
		hs_count(cc, HS_MISSES);
		return 0;
	}
	if (cfg->max_age_s && bpf_ktime_get_boot_ns() - path->stored_ns > cfg->max_age_s * 1000000000ULL) {
		hs_count(cc, HS_EXPIRED);
		hs_count(cc, HS_MISSES);
		return 0;
	}
	hs_count(cc, HS_HITS);
	*out = *path;
	return 1;
}

/* The first RTT: cwnd = cached BDP, paced at the cached bandwidth (scaled by the
 * bw_scale_pct knob). With cap_pacing, the rate is also made a ceiling, for
 * controllers whose pacing rate the kernel recomputes before the first ACK. */
static __always_inline void hs_begin_startup(struct sock *sk, struct hs_start *st, const struct hs_path *path,
					     const struct hs_config *cfg, int cap_pacing)
{
	struct tcp_sock *tp = hs_tcp_sk(sk);
	__u64 bw = hs_scale_bw(path->bw_bytes_per_s, cfg->bw_scale_pct);

	tp->snd_cwnd = hs_start_cwnd(bw, path->min_rtt_us, tp->mss_cache, cfg->max_start_cwnd);
	st->start_cwnd = tp->snd_cwnd;
	sk->sk_pacing_rate = bw;
	sk->sk_pacing_status = SK_PACING_NEEDED;
	if (cap_pacing) {
		st->saved_max_pacing = sk->sk_max_pacing_rate;
		hs_set_max_pacing(sk, bw);
		st->capped = 1;
	}
	st->startup = 1;
	if (cfg->rwnd_override) {
		/* The window field the tc program writes (the peer's scale applies): the
		 * largest there is, until hs_unmark (first data ACK or first sign of loss,
		 * by rwnd_override). */
		__u32 field = 0xffff;

		hs_flow_key_of(sk, &st->rwnd_key);
		if (!bpf_map_update_elem(&hs_rwnd, &st->rwnd_key, &field, BPF_ANY))
			st->rwnd_marked = 1;
		st->rwnd_whole_flow = cfg->rwnd_override == HS_RWND_UNTIL_LOSS;
	}
}

/* With rwnd_override = 1 the override ends at the first ACK of data, and the
 * receiver's own window governs from then on; with 2 (the default, the paper's
 * "whole flow") it lasts until the first sign of loss (hs_on_ca_state). Kept for the
 * whole flow even through losses, it let the sender run past the
 * receiver's real window whenever a loss held rcv_nxt back: the receiver discarded
 * those segments (TcpExt BeyondWindow: 430 of 475 retransmissions in 60 S-BBR flows
 * at 180 Mbit/s with 0.1 % loss), and sending them again cost more than the window saved. */
static __always_inline void hs_unmark(struct hs_start *st);

static __always_inline void hs_end_startup(struct sock *sk, struct hs_start *st)
{
	if (!st->rwnd_whole_flow)
		hs_unmark(st);
	if (st->capped) {
		hs_set_max_pacing(sk, st->saved_max_pacing);
		st->capped = 0;
	}
	st->startup = 0;
}

/* At release: the flow leaves hs_rwnd. */
static __always_inline void hs_unmark(struct hs_start *st)
{
	if (st->rwnd_marked) {
		bpf_map_delete_elem(&hs_rwnd, &st->rwnd_key);
		st->rwnd_marked = 0;
	}
}

/* The first sign of loss (Disorder: a dupACK or SACK) ends the override, whatever
 * the mode: from then on the receiver holds data out of order, and anything sent
 * beyond its real window would be discarded (see hs_end_startup). */
static __always_inline void hs_on_ca_state(struct hs_start *st, __u8 new_state)
{
	if (new_state >= TCP_CA_Disorder)
		hs_unmark(st);
}

/* Termination: store {bw, min RTT} for the peer unless the knobs or the rules say no.
 * short_flow_rule (S-BBR): a flow that acked fewer bytes than the cached BDP may
 * create an entry but not overwrite one. */
static __always_inline void hs_store(struct sock *sk, enum hs_cc_id cc, const struct hs_config *cfg,
				     __u64 bw, __u32 min_rtt_us, int short_flow_rule)
{
	struct tcp_sock *tp = hs_tcp_sk(sk);
	struct hs_path *old, entry = {};
	struct hs_addr peer;

	if (!cfg->store) {
		hs_count(cc, HS_SKIPPED);
		return;
	}
	if (!hs_worth_storing(bw, min_rtt_us, tp->mss_cache)) {
		hs_count(cc, HS_DISCARDS);
		return;
	}
	hs_peer_addr(sk, &peer);
	old = bpf_map_lookup_elem(&hs_paths, &peer);
	if (old && (cfg->freeze ||
		    (short_flow_rule && !hs_bbr_may_overwrite(tp->bytes_acked, old->bw_bytes_per_s, old->min_rtt_us)))) {
		hs_count(cc, HS_SKIPPED);
		return;
	}
	entry.bw_bytes_per_s = bw;
	entry.min_rtt_us = min_rtt_us;
	entry.stored_ns = bpf_ktime_get_boot_ns();
	entry.flows = old ? old->flows + 1 : 1;
	entry.source = cc;
	bpf_map_update_elem(&hs_paths, &peer, &entry, BPF_ANY);
	hs_count(cc, HS_STORES);
}

#endif
