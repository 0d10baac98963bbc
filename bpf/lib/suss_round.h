/* SUSS's per-round state machine (SUSS, SIGCOMM 2024, §3-5), pure: the suss
 * controller (suss.bpf.c) reads the socket into a struct suss_ack, calls these
 * functions and applies what they return; host tests drive them on a virtual clock
 * (tests/c/test_algorithms.c).
 *
 *  round i starts when the first packet of round i-1 is acked
 *   │  clocking period: blue ACKs (the previous round's ACK-clocked data) each send
 *   │  twice what they ack, as slow start does; red ACKs (paced data) grow nothing
 *   ▼
 *  last blue ACK: dt_blue measured; G_i = suss_growth_factor() (suss.h, eqs. 6-9)
 *   │  G_i > 2: cwnd_i = G_i x cwnd_{i-1}; the extra (red) data is paced at
 *   │           cwnd_i / minRTT (eq. 11) until the next round starts
 *   │  G_i = 2: SUSS is done; the kernel's slow start and HyStart carry on
 *   ▼
 *  first cwnd reduction (CWR, Recovery, Loss), or the receiver's window below cwnd:
 *  SUSS off for good
 *
 * While SUSS decides, the kernel's HyStart is held off and the modified HyStart of
 * Fig. 8 runs here: the ACK train is measured on blue ACKs and scaled to the whole
 * train (eq. 9); the delay test is Linux's (clamp(minRTT/8, 4, 16) ms over the
 * round's first 8 samples). Units: microseconds, packets, sequence numbers. */
#ifndef HS_SUSS_ROUND_H
#define HS_SUSS_ROUND_H

#include "suss.h"
#include "../records.h"

#define SUSS_HYSTART_MIN_SAMPLES 8        /* tcp_cubic.c */
#define SUSS_HYSTART_DELAY_MIN_US 4000U   /* 4 ms */
#define SUSS_HYSTART_DELAY_MAX_US 16000U  /* 16 ms */
#define SUSS_HYSTART_LOW_WINDOW 16        /* no exit below this cwnd (tcp_cubic.c) */
#define SUSS_HYSTART_ACK_DELTA_US 2000U   /* ACKs further apart are no train (tcp_cubic.c) ... */
#define SUSS_TRAIN_GAP_FACTOR 4           /* ... unless the round's ACKs all come that far apart */

struct suss_state {
	__u64 round_start_us;   /* t_i^s */
	__u32 round;            /* i; round 1 is the initial window */
	__u32 round_first_seq;  /* snd_nxt when round i started: its first packet */
	__u32 blue_end_seq;     /* the previous round's blue data ends here */
	__u32 blue_prev;        /* S^B_{i-1}, packets */
	__u32 train_prev;       /* cwnd_{i-1}: packets sent in round i-1 */
	__u32 blue_now;         /* S^B_i: packets sent before this round's decision */
	__u32 mo_rtt_us;        /* min RTT over this round's first samples */
	__u32 samples;          /* RTT samples this round */
	__u32 min_rtt_us;       /* min RTT of the flow's ACK-clocked (blue) data */
	__u32 min_rtt_round;    /* round in which min_rtt_us was last lowered */
	__u32 k_max;
	__u8 active;            /* SUSS still deciding rounds */
	__u8 decided;           /* G_i computed in this round */
	__u8 pacing;            /* a pacing period is running */
	__u8 release_hystart;   /* give HyStart back to the kernel at the next round */
	__u8 train_broken;      /* a gap among this round's blue ACKs: no ACK train */
	__u8 pad[3];
	__u64 last_ack_us;      /* this round's last ACK */
	__u32 acks;             /* this round's ACKs so far */
	__u32 burst;            /* round 1: packets its window let out at the start (0: no limit) */
	__u32 last_una;         /* snd_una after this round's last ACK */
	__u32 pad2;
};

/* What one ACK needs of the socket. */
struct suss_ack {
	__u64 now_us;           /* tp->tcp_mstamp */
	__u32 snd_una, snd_nxt;
	__u32 mss;
	__u32 cwnd, cwnd_clamp;
	__u32 rtt_us;           /* this ACK's RTT sample, 0 if none */
	__u8 rwnd_limited;      /* the receiver's window is below cwnd (snd_wnd < cwnd x mss) */
};

/* What the controller must do after an event; several may be set. */
enum suss_act {
	SUSS_END_PACING = 1,        /* pacing off, the saved pacing cap back */
	SUSS_RELEASE_HYSTART = 2,   /* the kernel's HyStart may run again */
	SUSS_EXIT_SLOW_START = 4,   /* ssthresh = cwnd, HyStart marked done */
	SUSS_GROW = 8,              /* cwnd = .cwnd, pace at .pacing_Bps (eq. 11) */
};
#define SUSS_NO_COUNT 0xffffffffU

struct suss_out {
	__u32 act;                  /* enum suss_act bits */
	__u32 cwnd;
	__u64 pacing_Bps;
	__u32 count;                /* an enum hs_suss_counter to count, or SUSS_NO_COUNT */
};

/* burst: the packets the window lets out now, less what older data holds (0: no
 * limit). Round 1 is that burst: packets sent before its first ACK because older data's
 * ACKs freed room (a TLS server's session ticket, acked a round trip after the
 * response's first burst went out) are ACK-clocked a round later, and counted in its
 * train they made it span a round trip: the growth factor read 2 (HTTPS, cold 1 MB at
 * 100 ms: 4 of 6 flows Cubic's FCT to the ms). */
HS_INLINE void suss_start(struct suss_state *s, __u32 snd_nxt, __u64 now_us, __u32 k_max, __u32 burst)
{
	__builtin_memset(s, 0, sizeof(*s));
	s->burst = burst;
	s->active = 1;
	s->round = 1;
	s->round_first_seq = snd_nxt;
	s->round_start_us = s->last_ack_us = now_us;
	s->mo_rtt_us = ~0U;
	s->k_max = k_max;
}

HS_INLINE int suss_seq_after(__u32 a, __u32 b)
{
	return (__s32)(a - b) > 0;
}

HS_INLINE struct suss_out suss_nothing(void)
{
	struct suss_out o = { .act = 0, .count = SUSS_NO_COUNT };

	return o;
}

HS_INLINE void suss_end_pacing(struct suss_state *s, struct suss_out *o)
{
	if (s->pacing) {
		s->pacing = 0;
		o->act |= SUSS_END_PACING;
	}
}

/* Slow start ends here (either HyStart test): SUSS is done and HyStart stays off. */
HS_INLINE void suss_exit(struct suss_state *s, struct suss_out *o, __u32 counter)
{
	s->active = 0;
	s->release_hystart = 0;
	o->act |= SUSS_EXIT_SLOW_START;
	o->count = counter;
}

/* Round i+1 starts when the first packet of round i is acked. */
HS_INLINE void suss_maybe_new_round(struct suss_state *s, const struct suss_ack *a, struct suss_out *o)
{
	__u32 mss = a->mss ? a->mss : 1;
	__u32 sent;

	if (!suss_seq_after(a->snd_una, s->round_first_seq))
		return;
	suss_end_pacing(s, o);
	sent = (a->snd_nxt - s->round_first_seq) / mss;
	if (s->round == 1 && s->burst && sent > s->burst)
		sent = s->burst;
	s->train_prev = sent ? sent : 1;
	/* Round 1 (the initial window) is all blue, and so is a round never decided. */
	s->blue_prev = s->decided && s->blue_now ? s->blue_now : s->train_prev;
	s->blue_end_seq = s->round_first_seq + s->blue_prev * mss;
	s->round_first_seq = a->snd_nxt;
	s->round_start_us = s->last_ack_us = a->now_us;
	s->last_una = a->snd_una;
	s->train_broken = 0;
	s->acks = 0;
	s->round++;
	s->decided = 0;
	s->blue_now = 0;
	s->mo_rtt_us = ~0U;
	s->samples = 0;
	if (s->release_hystart) {
		s->release_hystart = 0;
		o->act |= SUSS_RELEASE_HYSTART;
	}
}

/* Modified HyStart, delay test (Linux's threshold) on the round's first samples.
 * 1 if slow start must end. */
HS_INLINE int suss_delay_exit(struct suss_state *s, const struct suss_ack *a)
{
	__u32 eta;

	if (!a->rtt_us)
		return 0;
	if (!s->min_rtt_us || a->rtt_us < s->min_rtt_us) {
		s->min_rtt_us = a->rtt_us;
		s->min_rtt_round = s->round;
	}
	if (s->samples >= SUSS_HYSTART_MIN_SAMPLES)
		return 0;
	s->samples++;
	if (a->rtt_us < s->mo_rtt_us)
		s->mo_rtt_us = a->rtt_us;
	if (s->samples < SUSS_HYSTART_MIN_SAMPLES || a->cwnd < SUSS_HYSTART_LOW_WINDOW)
		return 0;
	eta = s->min_rtt_us >> 3;
	eta = eta < SUSS_HYSTART_DELAY_MIN_US ? SUSS_HYSTART_DELAY_MIN_US : eta;
	eta = eta > SUSS_HYSTART_DELAY_MAX_US ? SUSS_HYSTART_DELAY_MAX_US : eta;
	return s->mo_rtt_us > s->min_rtt_us + eta;
}

/* A gap in the round's ACK train: more than the kernel HyStart's ACK delta (2 ms) and
 * more than SUSS_TRAIN_GAP_FACTOR times the round's mean spacing so far. ACKs a link
 * releases in bursts (Wi-Fi, LTE uplinks) come with such gaps; a slow link spaces all
 * its ACKs evenly, 2.4 ms apart at 10 Mbit/s, and that is a train (the absolute 2 ms
 * alone took the train exit from a 10 Mbit/s path with a 0.5-BDP buffer: 5-7x cubic's
 * retransmissions; RESULTS.md, SUSS on a miss). */
HS_INLINE int suss_train_gap(const struct suss_state *s, __u64 now_us)
{
	__u64 gap = now_us - s->last_ack_us;

	if (gap <= SUSS_HYSTART_ACK_DELTA_US)
		return 0;
	if (s->acks < 2)
		return 0;  /* no spacing to compare with yet */
	return gap * (s->acks - 1) > SUSS_TRAIN_GAP_FACTOR * (s->last_ack_us - s->round_start_us);
}

/* The last blue ACK of round i, dt_blue after the round's first: predict the next
 * round and size this one (eq. 1). */
HS_INLINE void suss_decide(struct suss_state *s, const struct suss_ack *a, __u64 dt_blue, struct suss_out *o)
{
	__u32 mss = a->mss ? a->mss : 1;
	__u32 r = s->round > s->min_rtt_round ? s->round - s->min_rtt_round : 1;
	__u32 g, target;

	s->decided = 1;
	s->blue_now = (a->snd_nxt - s->round_first_seq) / mss;
	/* Modified HyStart, ACK train on blue ACKs scaled to the train (Fig. 8), when they
	 * came close together: ACKs a link releases in bursts (Wi-Fi, LTE uplinks) span
	 * the round with gaps, and read as a train ended slow start at a third of the BDP
	 * behind 16 ms of ACK aggregation (RESULTS.md, SUSS on a miss). G is still computed
	 * on the whole span (the paper's "proximity between successive ACKs"). */
	if (a->cwnd >= SUSS_HYSTART_LOW_WINDOW && !s->train_broken &&
	    suss_train_us(dt_blue, s->train_prev, s->blue_prev) * 2 > s->min_rtt_us) {
		suss_exit(s, o, HS_SUSS_TRAIN_EXITS);
		return;
	}
	g = suss_growth_factor(dt_blue, s->train_prev, s->blue_prev, s->min_rtt_us, s->mo_rtt_us, r, s->k_max);
	if (g <= 2) {
		/* SUSS stops deciding; the kernel's HyStart resumes at the next round
		 * boundary, so that it never measures the tail of a paced (red) train. */
		s->active = 0;
		s->release_hystart = 1;
		o->count = HS_SUSS_NORMAL_ROUNDS;
		return;
	}
	target = g * s->train_prev;
	if (target > a->cwnd_clamp)
		target = a->cwnd_clamp;
	if (target <= a->cwnd)
		return;
	/* Pacing period: the red data at cwnd_i / minRTT (eq. 11). */
	s->pacing = 1;
	o->act |= SUSS_GROW;
	o->cwnd = target;
	o->pacing_Bps = suss_pacing_rate(target, mss, s->min_rtt_us);
	o->count = HS_SUSS_ACCELERATED_ROUNDS;
}

/* Every ACK (pkts_acked), after the kernel's Cubic saw it. */
HS_INLINE struct suss_out suss_on_ack(struct suss_state *s, const struct suss_ack *a)
{
	struct suss_out o = suss_nothing();
	__u32 mss = a->mss ? a->mss : 1;
	__u64 end_us = a->now_us;
	int last_blue;

	suss_maybe_new_round(s, a, &o);
	if (!s->active)
		return o;
	/* The receiver's window below cwnd: from here the sender goes out as that window
	 * moves on, so ACK trains measure the receiver, not the path (a reader that
	 * stalls stretches them, and the spacing lasts into the rounds after), and data
	 * past the window could not go anyway. SUSS is done; the kernel's slow start and
	 * HyStart, whose train counts only ACKs that come close together, carry on.
	 * Deciding on: a stalled reader ended slow start at cwnd 52 by the train test
	 * (1.41 s for 1 MB at 100 ms against cubic's 0.83; RESULTS.md). */
	if (a->rwnd_limited) {
		suss_end_pacing(s, &o);
		s->active = 0;
		s->release_hystart = 1;
		o.count = HS_SUSS_RWND_STOPS;
		return o;
	}
	/* The delay test reads ACK-clocked (blue) data alone, as the kernel's HyStart reads
	 * a slow start that has no other: paced (red) data leaves at any time, and behind
	 * ACKs released every 16 ms its RTTs ran up to 16 ms under the clocked data's,
	 * which then read as a queue and ended slow start at a third of the BDP. */
	if ((s->round == 1 || !suss_seq_after(a->snd_una, s->blue_end_seq)) && suss_delay_exit(s, a)) {
		suss_exit(s, &o, HS_SUSS_DELAY_EXITS);
		return o;
	}
	last_blue = s->round >= 2 && !s->decided && !suss_seq_after(s->blue_end_seq, a->snd_una);
	if (!s->decided && suss_train_gap(s, a->now_us)) {
		/* The last blue ACK, for one segment, after a gap: the receiver's delayed ACK
		 * of a round's odd last segment (Linux ACKs every second segment at once, a
		 * lone one at its delayed-ACK timer, 40 ms), not the path: the train ended at
		 * the ACK before. Counted in, it read 2 in 5 of 8 cold HTTPS flows. */
		if (last_blue && a->snd_una - s->last_una <= mss)
			end_us = s->last_ack_us;
		else
			s->train_broken = 1;
	}
	s->acks++;
	s->last_ack_us = a->now_us;
	s->last_una = a->snd_una;
	if (last_blue)
		suss_decide(s, a, end_us - s->round_start_us, &o);
	return o;
}

/* cong_avoid: 1 if this ACK must not grow cwnd. ACKs of paced (red) data grow
 * nothing: the round's size was set at once. */
HS_INLINE int suss_holds_growth(const struct suss_state *s, __u32 ack_seq, __u32 cwnd, __u32 ssthresh)
{
	return s->active && s->round >= 2 && cwnd < ssthresh && suss_seq_after(ack_seq, s->blue_end_seq) &&
	       s->blue_prev < s->train_prev;
}

/* A cwnd reduction (set_state to CWR, Recovery or Loss) ends SUSS for good (authors'
 * code, Fig. 7); HyStart comes back at the next round. */
HS_INLINE struct suss_out suss_on_reduction(struct suss_state *s)
{
	struct suss_out o = suss_nothing();

	suss_end_pacing(s, &o);
	if (s->active) {
		s->active = 0;
		s->release_hystart = 1;
		o.count = HS_SUSS_LOSS_STOPS;
	}
	return o;
}

/* ssthresh is being recomputed (a loss): SUSS off and HyStart with it. */
HS_INLINE struct suss_out suss_on_ssthresh(struct suss_state *s)
{
	struct suss_out o = suss_nothing();

	suss_end_pacing(s, &o);
	s->active = 0;
	s->release_hystart = 0;
	return o;
}

#endif
