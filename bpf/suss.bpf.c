// SPDX-License-Identifier: GPL-2.0
/* suss: Cubic whose slow start grows 4x instead of 2x per round while HyStart's own
 * signals predict that growth continues (SUSS, SIGCOMM 2024, §3-5).
 *
 *  round i starts when the first packet of round i-1 is acked
 *   │  clocking period: blue ACKs (the previous round's ACK-clocked data) each send
 *   │  twice what they ack, as slow start does; red ACKs (paced data) grow nothing
 *   ▼
 *  last blue ACK: dt_blue measured; G_i = suss_growth_factor() (lib/suss.h, eqs. 6-9)
 *   │  G_i > 2: cwnd_i = G_i x cwnd_{i-1}; the extra (red) data is paced at
 *   │           cwnd_i / minRTT (eq. 11) until the next round starts
 *   │  G_i = 2: SUSS is done; the kernel's slow start and HyStart carry on
 *   ▼
 *  first cwnd reduction (CWR, Recovery, Loss): SUSS off for good
 *
 * Congestion avoidance, and slow start outside SUSS, are the kernel's Cubic (kfuncs).
 * While SUSS runs, the kernel's HyStart is held off (struct bictcp's `found`) and the
 * modified HyStart of Fig. 8 runs here: the ACK train is measured on blue ACKs and
 * scaled to the whole train (eq. 9); the delay test is Linux's (clamp(minRTT/8, 4, 16)
 * ms over the round's first 8 samples). Differences from the paper:
 *  1. No guard interval: a congestion control has no timer, so the red data is
 *     released at the last blue ACK and spread by the kernel's internal pacing.
 *  2. When the scaled ACK train already says stop, slow start ends at once
 *     (ssthresh = cwnd) rather than at a computed cap.
 * With the `suss` knob off, every hook is the kernel's Cubic. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "lib/suss.h"
#include "pacing.h"
#include "path_table.h"

char _license[] SEC("license") = "GPL";

extern void cubictcp_init(struct sock *sk) __ksym;
extern __u32 cubictcp_recalc_ssthresh(struct sock *sk) __ksym;
extern void cubictcp_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern void cubictcp_state(struct sock *sk, __u8 new_state) __ksym;
extern void cubictcp_cwnd_event(struct sock *sk, enum tcp_ca_event event) __ksym;
extern void cubictcp_acked(struct sock *sk, const struct ack_sample *sample) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

#define HYSTART_MIN_SAMPLES 8         /* tcp_cubic.c */
#define HYSTART_DELAY_MIN_US 4000U    /* 4 ms */
#define HYSTART_DELAY_MAX_US 16000U   /* 16 ms */
#define HYSTART_LOW_WINDOW 16         /* no exit below this cwnd (tcp_cubic.c) */

struct suss_flow {
	__u64 round_start_us;   /* t_i^s */
	__u64 saved_max_pacing; /* sk_max_pacing_rate before a pacing period capped it */
	__u32 round;            /* i; round 1 is the initial window */
	__u32 round_first_seq;  /* snd_nxt when round i started: its first packet */
	__u32 blue_end_seq;     /* the previous round's blue data ends here */
	__u32 blue_prev;        /* S^B_{i-1}, packets */
	__u32 train_prev;       /* cwnd_{i-1}: packets sent in round i-1 */
	__u32 blue_now;         /* S^B_i so far: packets sent before this round's decision */
	__u32 mo_rtt_us;        /* min RTT over this round's first samples */
	__u32 samples;          /* RTT samples this round */
	__u32 min_rtt_us;       /* min RTT of the flow */
	__u32 min_rtt_round;    /* round in which min_rtt_us was last lowered */
	__u32 k_max;
	__u8 active;            /* SUSS still deciding rounds */
	__u8 decided;           /* G_i computed in this round */
	__u8 pacing;            /* a pacing period is running */
	__u8 release_hystart;   /* give HyStart back to the kernel at the next round */
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct suss_flow);
} suss_flows SEC(".maps");

static __always_inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline struct bictcp *cubic_of(struct sock *sk)
{
	return (struct bictcp *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static __always_inline int seq_after(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

static __always_inline void end_pacing(struct sock *sk, struct suss_flow *f)
{
	if (!f->pacing)
		return;
	sk->sk_pacing_status = SK_PACING_NONE;
	hs_set_max_pacing(sk, f->saved_max_pacing);
	f->pacing = 0;
}

/* SUSS stops deciding; the kernel's HyStart resumes at the next round boundary, so
 * that it never measures the tail of a paced (red) train. */
static __always_inline void deactivate(struct sock *sk, struct suss_flow *f)
{
	if (!f->active)
		return;
	f->active = 0;
	f->release_hystart = 1;
}

static __always_inline void exit_slow_start(struct sock *sk, struct suss_flow *f)
{
	struct tcp_sock *tp = tcp_sk(sk);

	tp->snd_ssthresh = tp->snd_cwnd;
	cubic_of(sk)->found = 1;
	f->release_hystart = 0;
	f->active = 0;
}

SEC("struct_ops")
void BPF_PROG(suss_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct suss_flow *f;
	struct hs_config cfg;

	cubictcp_init(sk);
	hs_count(HS_CC_SUSS, HS_SUSS_FLOWS);
	cfg = hs_get_config();
	if (!cfg.suss)
		return;
	f = bpf_sk_storage_get(&suss_flows, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!f)
		return;
	__builtin_memset(f, 0, sizeof(*f));
	f->active = 1;
	f->round = 1;
	f->round_first_seq = tp->snd_nxt;
	f->round_start_us = tp->tcp_mstamp;
	f->mo_rtt_us = ~0U;
	f->k_max = cfg.suss_k_max;
	cubic_of(sk)->found = 1;  /* the kernel's HyStart waits while SUSS decides */
}

/* Round i+1 starts when the first packet of round i is acked. */
static __always_inline void maybe_new_round(struct sock *sk, struct suss_flow *f)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 mss = tp->mss_cache ? tp->mss_cache : 1;
	__u32 sent;

	if (!seq_after(tp->snd_una, f->round_first_seq))
		return;
	end_pacing(sk, f);
	sent = (tp->snd_nxt - f->round_first_seq) / mss;
	f->train_prev = sent ? sent : 1;
	/* Round 1 (the initial window) is all blue, and so is a round never decided. */
	f->blue_prev = f->decided && f->blue_now ? f->blue_now : f->train_prev;
	f->blue_end_seq = f->round_first_seq + f->blue_prev * mss;
	f->round_first_seq = tp->snd_nxt;
	f->round_start_us = tp->tcp_mstamp;
	f->round++;
	f->decided = 0;
	f->blue_now = 0;
	f->mo_rtt_us = ~0U;
	f->samples = 0;
	if (f->release_hystart) {
		cubic_of(sk)->found = 0;
		f->release_hystart = 0;
	}
}

/* The last blue ACK of round i: predict the next round and size this one (eq. 1). */
static __always_inline void decide(struct sock *sk, struct suss_flow *f)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 mss = tp->mss_cache ? tp->mss_cache : 1;
	__u64 dt_blue = tp->tcp_mstamp - f->round_start_us;
	__u32 r = f->round > f->min_rtt_round ? f->round - f->min_rtt_round : 1;
	__u32 g, target;

	f->decided = 1;
	f->blue_now = (tp->snd_nxt - f->round_first_seq) / mss;
	/* Modified HyStart, ACK train on blue ACKs scaled to the train (Fig. 8). */
	if (tp->snd_cwnd >= HYSTART_LOW_WINDOW &&
	    suss_train_us(dt_blue, f->train_prev, f->blue_prev) * 2 > f->min_rtt_us) {
		exit_slow_start(sk, f);
		return;
	}
	g = suss_growth_factor(dt_blue, f->train_prev, f->blue_prev, f->min_rtt_us, f->mo_rtt_us, r, f->k_max);
	if (g <= 2) {
		hs_count(HS_CC_SUSS, HS_SUSS_NORMAL_ROUNDS);
		deactivate(sk, f);
		return;
	}
	target = g * f->train_prev;
	if (target > tp->snd_cwnd_clamp)
		target = tp->snd_cwnd_clamp;
	if (target <= tp->snd_cwnd)
		return;
	hs_count(HS_CC_SUSS, HS_SUSS_ACCELERATED_ROUNDS);
	tp->snd_cwnd = target;
	/* Pacing period: the red data at cwnd_i / minRTT (eq. 11). The kernel would
	 * recompute the rate on every ACK; the cap holds it. */
	f->saved_max_pacing = sk->sk_max_pacing_rate;
	sk->sk_pacing_rate = suss_pacing_rate(target, mss, f->min_rtt_us);
	sk->sk_pacing_status = SK_PACING_NEEDED;
	hs_set_max_pacing(sk, sk->sk_pacing_rate);
	f->pacing = 1;
}

SEC("struct_ops")
void BPF_PROG(suss_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct suss_flow *f;
	__u32 rtt;

	cubictcp_acked(sk, sample);
	f = bpf_sk_storage_get(&suss_flows, sk, 0, 0);
	if (!f)
		return;
	maybe_new_round(sk, f);
	if (!f->active)
		return;
	if (sample->rtt_us > 0) {
		rtt = sample->rtt_us;
		if (!f->min_rtt_us || rtt < f->min_rtt_us) {
			f->min_rtt_us = rtt;
			f->min_rtt_round = f->round;
		}
		if (f->samples < HYSTART_MIN_SAMPLES) {
			f->samples++;
			if (rtt < f->mo_rtt_us)
				f->mo_rtt_us = rtt;
			/* Modified HyStart, delay test: Linux's threshold. */
			if (f->samples == HYSTART_MIN_SAMPLES && tp->snd_cwnd >= HYSTART_LOW_WINDOW) {
				__u32 eta = f->min_rtt_us >> 3;

				eta = eta < HYSTART_DELAY_MIN_US ? HYSTART_DELAY_MIN_US : eta;
				eta = eta > HYSTART_DELAY_MAX_US ? HYSTART_DELAY_MAX_US : eta;
				if (f->mo_rtt_us > f->min_rtt_us + eta) {
					exit_slow_start(sk, f);
					return;
				}
			}
		}
	}
	if (f->round >= 2 && !f->decided && !seq_after(f->blue_end_seq, tp->snd_una))
		decide(sk, f);
}

SEC("struct_ops")
void BPF_PROG(suss_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct suss_flow *f = bpf_sk_storage_get(&suss_flows, sk, 0, 0);

	/* ACKs of paced (red) data grow nothing: the round's size was set at once. */
	if (f && f->active && f->round >= 2 && tp->snd_cwnd < tp->snd_ssthresh &&
	    seq_after(ack, f->blue_end_seq) && f->blue_prev < f->train_prev)
		return;
	cubictcp_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
void BPF_PROG(suss_set_state, struct sock *sk, __u8 new_state)
{
	struct suss_flow *f = bpf_sk_storage_get(&suss_flows, sk, 0, 0);

	/* The first cwnd reduction ends SUSS for good (authors' code, Fig. 7). */
	if (f && new_state != TCP_CA_Open && new_state != TCP_CA_Disorder) {
		end_pacing(sk, f);
		if (f->active)
			deactivate(sk, f);
	}
	cubictcp_state(sk, new_state);
}

SEC("struct_ops")
__u32 BPF_PROG(suss_ssthresh, struct sock *sk)
{
	struct suss_flow *f = bpf_sk_storage_get(&suss_flows, sk, 0, 0);

	if (f) {
		end_pacing(sk, f);
		f->active = 0;
		f->release_hystart = 0;
	}
	return cubictcp_recalc_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(suss_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	cubictcp_cwnd_event(sk, event);
}

SEC("struct_ops")
__u32 BPF_PROG(suss_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops suss = {
	.init = (void *)suss_init,
	.ssthresh = (void *)suss_ssthresh,
	.cong_avoid = (void *)suss_cong_avoid,
	.set_state = (void *)suss_set_state,
	.undo_cwnd = (void *)suss_undo_cwnd,
	.cwnd_event = (void *)suss_cwnd_event,
	.pkts_acked = (void *)suss_acked,
	.name = "suss",
};
