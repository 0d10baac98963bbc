/* SUSS on a socket: the round state machine (lib/suss_round.h) fed from the socket and
 * its decisions applied to it. The suss controller runs it on every flow; s_cubic on a
 * true miss (no entry, no agreeing prefix), where it also opens the receiver's window
 * for the accelerated rounds (stateful.h, hs_suss_window). */
#ifndef HS_SUSS_START_H
#define HS_SUSS_START_H

#include "lib/suss_round.h"
#include "pacing.h"
#include "path_table.h"

struct hs_suss {
	struct suss_state round;    /* the round state machine */
	__u64 saved_max_pacing;     /* sk_max_pacing_rate before a pacing period capped it */
	__u8 on;                    /* SUSS started on this flow (its state is live) */
	__u8 window;                /* s_cubic: the override opens for its rounds (rwnd_override at init) */
	__u8 armed;                 /* s_cubic: a true miss; the rounds start when it first has more to send than cwnd */
};

static __always_inline struct bictcp *hs_cubic_of(struct sock *sk)
{
	return (struct bictcp *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

/* At init (suss), or when a true miss first has more to send than its window
 * (s_cubic): the first round starts; the kernel's HyStart waits while SUSS decides.
 * Off with the `suss` knob or outside mode on: the kernel's (f->on stays as the
 * caller set it, 0). Returns f->on. */
static __always_inline int hs_suss_begin(struct sock *sk, struct hs_suss *f, const struct hs_config *cfg,
					 const struct hs_lab_config *lab)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	__u32 in_flight = hs_packets_in_flight(tp);

	if (!lab->suss || cfg->mode != HS_MODE_ON)
		return 0;
	suss_start(&f->round, tp->snd_nxt, tp->tcp_mstamp, lab->suss_k_max,
		   tp->snd_cwnd > in_flight ? tp->snd_cwnd - in_flight : 1);
	f->saved_max_pacing = 0;
	f->on = 1;
	hs_cubic_of(sk)->found = 1;
	return 1;
}

/* Carries out what the state machine decided. Returns the cwnd of an accelerated
 * round (0: none). */
static __always_inline __u32 hs_suss_apply(struct sock *sk, struct hs_suss *f, const struct suss_out *o)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;

	if (o->act & SUSS_END_PACING) {
		sk->sk_pacing_status = SK_PACING_NONE;
		hs_set_max_pacing(sk, f->saved_max_pacing);
	}
	if (o->act & SUSS_RELEASE_HYSTART)
		hs_cubic_of(sk)->found = 0;
	if (o->act & SUSS_EXIT_SLOW_START) {
		tp->snd_ssthresh = tp->snd_cwnd;
		hs_cubic_of(sk)->found = 1;
	}
	if (o->count != SUSS_NO_COUNT)
		hs_count(HS_CC_SUSS, o->count);
	if (!(o->act & SUSS_GROW))
		return 0;
	tp->snd_cwnd = o->cwnd;
	/* The kernel would recompute the rate on every ACK; the cap holds it. */
	f->saved_max_pacing = sk->sk_max_pacing_rate;
	sk->sk_pacing_rate = o->pacing_Bps;
	sk->sk_pacing_status = SK_PACING_NEEDED;
	hs_set_max_pacing(sk, o->pacing_Bps);
	return o->cwnd;
}

/* pkts_acked, after the kernel's Cubic saw the ACK; no round grows cwnd past
 * `cwnd_cap` (packets). Returns as hs_suss_apply. */
HS_SUBPROG __u32 hs_suss_on_ack(struct tcp_sock *tp __arg_trusted, struct hs_suss *f __arg_nonnull, __s32 rtt_us,
				__u32 cwnd_cap)
{
	struct suss_out o;

	if (!f->on)
		return 0;
	struct suss_ack a = {
		.now_us = tp->tcp_mstamp,
		.snd_una = tp->snd_una,
		.snd_nxt = tp->snd_nxt,
		.mss = tp->mss_cache,
		.cwnd = tp->snd_cwnd,
		.cwnd_clamp = tp->snd_cwnd_clamp < cwnd_cap ? tp->snd_cwnd_clamp : cwnd_cap,
		.rtt_us = rtt_us > 0 ? (__u32)rtt_us : 0,
		.rwnd_limited = tp->snd_wnd < (__u64)tp->snd_cwnd * tp->mss_cache,
	};
	o = suss_on_ack(&f->round, &a);
	return hs_suss_apply((struct sock *)tp, f, &o);
}

/* cong_avoid: 1 if this ACK must not grow cwnd (it acks paced, red, data). */
static __always_inline int hs_suss_holds_growth(struct sock *sk, const struct hs_suss *f, __u32 ack)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;

	return f->on && suss_holds_growth(&f->round, ack, tp->snd_cwnd, tp->snd_ssthresh);
}

/* ssthresh on a congestion signal: SUSS stops, and HyStart with it. */
static __always_inline void hs_suss_on_ssthresh(struct sock *sk, struct hs_suss *f)
{
	struct suss_out o;

	if (!f->on)
		return;
	o = suss_on_ssthresh(&f->round);
	hs_suss_apply(sk, f, &o);
}

/* set_state: a cwnd reduction (CWR, Recovery, Loss) ends SUSS for good. */
static __always_inline void hs_suss_on_state(struct sock *sk, struct hs_suss *f, __u8 new_state)
{
	struct suss_out o;

	if (!f->on || new_state == TCP_CA_Open || new_state == TCP_CA_Disorder)
		return;
	o = suss_on_reduction(&f->round);
	hs_suss_apply(sk, f, &o);
}

#endif
