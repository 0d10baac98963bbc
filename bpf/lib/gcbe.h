/* GCBE: gap-compensated bandwidth estimation (Stateful-TCP, IEEE Access 2020, §IV-C).
 *
 * A cycle i starts with an ACK at h_{i,0} = t_i and closes at the first ACK with
 * now - t_i >= d (the smoothed RTT, eq. 4) once it holds more than 3 ACKs; that
 * ACK also opens cycle i+1. With a_{i,j} the bytes ACK j acknowledged and z_i the
 * ACK after the longest inter-arrival gap (eq. 6), the cycle's estimate is (eq. 7)
 *
 *            sum_{k=1}^{n-1} a_{i,k}  -  a_{i,z}
 *   c_i = -------------------------------------------------
 *          (h_{i,n-1} - h_{i,0})  -  (h_{i,z} - h_{i,z-1})
 *
 * The first ACK's bytes are left out (its send time is unknown), and so are the
 * bytes and the time of the longest gap, which is where a cwnd-limited sender sat
 * idle. The flow's estimate is the maximum of the last L = 5 cycles (eq. 8); the
 * controllers store their median instead (gcbe_median, below).
 *
 * Differences from the paper, each for a stated reason:
 *  - At termination an unfinished cycle with at least 3 ACKs is also evaluated
 *    (gcbe_finish): a flow shorter than one RTT of ACKs (the paper's 4 KB point in
 *    Fig. 6) has no complete cycle but still two inter-ACK intervals to measure.
 *  - Streaming form: only n, sums, the current maximum gap and its bytes are kept,
 *    never the ACK list, so the state is fixed-size for BPF socket storage.
 *  - A noise floor (min_span_us, a knob, 0 = none): a cycle whose time after the
 *    gap is removed is shorter than this gives no estimate. Measured in the lab,
 *    the two ACK intervals of a 4 KB flow, ~100 us each, came back compressed by
 *    tens of microseconds of receiver and sender processing: "estimates" of 1.5 to
 *    10 times the bottleneck (BENCHMARKS.md at 3c45a21).
 *  - ACK bursts (merge_us, a knob, 0 = none): over Wi-Fi (A-MPDU) and LTE, ACKs come
 *    back in bursts; an ACK's time then says when its burst was released, not when its
 *    data crossed the bottleneck. ACKs within merge_us of the first ACK of a burst are
 *    one arrival (its bytes summed, its time the last ACK's), and the estimator runs
 *    on arrivals: the first arrival of a cycle is left out whole (its data crossed
 *    before the cycle began), the gap removed takes the whole arrival after it, and
 *    the arrival before the gap goes too, with its interval: the link went idle
 *    during it, so it holds less than its interval's worth (a partial burst).
 *    With no aggregation, merging ACKs a few tens of microseconds apart changes
 *    nothing but the grain. Measured in the lab with 4-16 ms aggregation: BENCHMARKS.md at 3c45a21.
 *    A burst longer than merge_us stays one arrival while its ACKs come within
 *    merge_us / 4 of each other, up to 4 x merge_us: a link that releases 16 ms of ACKs
 *    at once writes them out over a millisecond, and cut in two, the tail reads as an
 *    arrival of its own a fraction of a millisecond after the head.
 *  - Busy interiors (merge_us; estimator.h runs such a view beside the default one).
 *    Where ACKs come in bursts on a grid (every N >= 2 ms), an arrival is a whole
 *    N ms of the link's deliveries, and if the link was busy all that time, its bytes
 *    over its interval are the link's rate, whatever slow start's idle time was. It
 *    was busy all that time when the arrivals on both sides of it are like it
 *    (interval within 3/2, bytes within 2x): the first and last arrivals of a busy
 *    stretch are partial, and unlike their neighbours. A cycle is aggregated when
 *    none of its arrivals came closer than GCBE_AGG_GRID_MIN_US to the one before
 *    (plain ACK clocks and 1 ms radio frames are not a grid: a trace's deliveries then
 *    keep the estimator above) and its busy interior spans >= GCBE_ARRIVAL_MIN_US; its
 *    interior rate (never above the send rate) is kept beside its estimate.
 *    gcbe_aggregated_median gives their median. Measured: BENCHMARKS.md at 3c45a21, Issue 12.
 *  - A grid peak for paced senders (merge_us). BBR's STARTUP paces a smooth ramp: on a
 *    grid its releases track the pacing rate, no cycle saturates the link, and a 1 MB
 *    flow reaches the link's rate only in its last intervals. The fastest arrival on
 *    the grid (>= GCBE_ARRIVAL_MIN_US, it and the two before it within 1/8 of one
 *    another, in a cycle with no shorter arrival), at most the rate its data was sent
 *    at, is what the link carried then: gcbe_flow_estimate's paced reading takes it.
 *  - Never above the rate the same data was sent at (the bound the kernel's rate
 *    sample keeps: min(send rate, ACK rate)). Each ACK says when the newest data it
 *    acknowledges was sent (its time minus its RTT sample); a cycle's estimate is at
 *    most its bytes over the time they took to send, with the longest pause in
 *    sending (and the bytes sent in it) removed as eq. 7 removes the longest pause in
 *    the ACKs: a cwnd-limited sender pauses in both, one round apart, and without
 *    that a slow-start cycle's send rate reads far below the bottleneck. ACKs that
 *    come faster than their data went out (compressed by a receiver or a link)
 *    cannot raise the estimate above the send rate; a cycle without send times has
 *    no such bound.
 *  - Idle stretches besides the longest gap (the ACK view; gcbe_idle_time). A cycle
 *    may hold several: over TLS a slow-start round goes out in two parts 10 ms apart
 *    (the client's delayed ACK of the session tickets releases the first), and eq. 7,
 *    removing one, read a keep-alive connection's first 64 KB response at 16 Mbit/s
 *    of 100 (RESULTS, keep-alive over TLS). A gap whose ACK found the path empty (RTT
 *    within 1/32 of the flow's minimum) and which is >= 1 ms and 4x the gap before it
 *    is removed as far as the link had nothing to carry, with its ACK's bytes. Kept
 *    beside each such estimate: the paper's (plain[]). A restart after idle reads the
 *    former (gcbe_flow_estimate_idle), except where the burst view saw a grid, whose
 *    bursts' ACKs come together; what a flow stores stays the paper's.
 *  - Queued runs (the ACK view; gcbe_queued_run): ACKs of data sent faster than they
 *    came back, read as the bottleneck's rate; a paced sender's restart takes them.
 * Units: time in microseconds, bytes, bandwidth in bytes per second. */
#ifndef HS_GCBE_H
#define HS_GCBE_H

#include "types.h"

#define GCBE_SAMPLES 5            /* L, eq. 8 */
#define GCBE_MIN_CYCLE_ACKS 4     /* "more than 3 ACKs" before a cycle may close */
#define GCBE_MIN_FINISH_ACKS 3    /* a partial cycle needs two intervals, one kept */
#define GCBE_ARRIVAL_MIN_US 4000  /* merge_us: an arrival's own rate counts over >= 4 ms */
#define GCBE_SATURATED_PCT 110    /* sent >= 10 % faster than acked: the bottleneck set the ACK rate */
#define GCBE_AGG_GRID_MIN_US 2000 /* arrivals on a grid at least this coarse are aggregated */
#define GCBE_IDLE_MIN_US 1000     /* shorter ACK gaps are never idle stretches */
#define GCBE_IDLE_GAP_RATIO 4     /* an idle stretch: a gap at least 4x the one before it */
#define GCBE_EMPTY_PATH_FRAC 32   /* an RTT within 1/32 of the minimum found the path empty */
#define GCBE_RUN_MIN_ARRIVALS 4   /* a queued run: at least this many intervals (3 single segments: s_bbr-none.acks read 116 of 96.5) ... */
#define GCBE_RUN_FEW_ARRIVALS 3   /* ... or this many that acknowledged at least GCBE_RUN_MIN_SEGS segments */
#define GCBE_RUN_MIN_SEGS 4       /* (a receiver acking every other one: 3 intervals of 2 read the 5G-like link within 11 %) */
#define GCBE_RUN_MIN_US 300       /* ... spanning at least this (a 10-packet burst: ~1 ms at 100 Mbit/s, 0.6 at 180) */
#define GCBE_AGG_MERGE_US 500     /* the burst view's merge_us (estimator.h): a 100 Mbit/s ACK clock's
				   * gaps (240 us) merged change nothing, since only a grid counts */

struct gcbe {
	__u64 cycle_start_us;       /* h_{i,0} = t_i */
	__u64 last_ack_us;          /* h_{i,j-1}: the previous ACK of this cycle */
	__u64 bytes;                /* sum of a_{i,k} for k >= 1 */
	__u64 max_gap_us;           /* longest h_{i,j} - h_{i,j-1} so far */
	__u64 max_gap_bytes;        /* a_{i,z}: bytes of the ACK ending that gap */
	__u32 acks;                 /* n_i: ACKs in this cycle, the first included */
	__u32 nsamples;             /* cycle estimates taken over the flow */
	__u32 ring_next;            /* where the next estimate goes in samples[] */
	__u32 min_span_us;          /* noise floor: shorter cycles give no estimate */
	__u64 samples[GCBE_SAMPLES];/* ring of the last L estimates, bytes/s */
	__u32 merge_us;             /* ACKs within this of a burst's first are one arrival (0: none) */
	__u32 burst_open;           /* an arrival is being gathered */
	__u64 burst_first_us;       /* its first ACK */
	__u64 burst_last_us;        /* its last ACK: the arrival's time */
	__u64 burst_bytes;          /* its bytes */
	__u64 last_gap_us;          /* the previous arrival's interval and bytes (0: none counted) */
	__u64 last_bytes;
	__u64 pre_gap_us;           /* merge_us: the arrival before the longest gap, removed too */
	__u64 pre_gap_bytes;
	__u64 best_arrival;         /* merge_us: the fastest arrival of the cycle, bytes/s */
	__u64 sent_first_us;        /* send time of the data the cycle's first arrival acked (0: unknown) */
	__u64 sent_last_us;         /* the latest send time seen in the cycle */
	__u64 sent_max_gap_us;      /* the longest pause between send times in the cycle */
	__u64 sent_max_gap_bytes;   /* the bytes sent in it (acked by the arrival ending it) */
	__u64 burst_sent_us;        /* merge_us: the burst's latest send time (0: unknown) */
	__u32 saturated;            /* bit i: samples[i] came from a cycle that saturated the bottleneck */
	__u32 aggregated;           /* merge_us: bit i: samples[i]'s cycle was aggregated, with a busy interior */
	__u64 interior_rate[GCBE_SAMPLES]; /* that cycle's interior rate, bytes/s */
	__u64 prev_bytes;           /* merge_us: the arrival before last_bytes' (0: none known) */
	__u64 interior_bytes;       /* merge_us: this cycle's arrivals inside a busy stretch, and their time */
	__u64 interior_us;
	__u32 short_arrivals;       /* merge_us: arrivals closer than GCBE_AGG_GRID_MIN_US to the one before */
	__u32 pad;
	__u64 arrival_gap_us;       /* merge_us: the previous two arrivals' intervals, kept across cycles */
	__u64 arrival_gap2_us;
	__u64 cycle_peak;           /* merge_us: this cycle's fastest steady arrival (gcbe_on_arrival), bytes/s */
	__u64 grid_peak;            /* merge_us: the fastest of those in cycles on a grid, over the flow */
	__u64 min_rtt_us;           /* the flow's smallest RTT (now - sent), over every cycle (0: none) */
	__u64 idle_us;              /* this cycle's idle link time (gcbe_idle_time), and the bytes of */
	__u64 idle_bytes;           /* the ACKs ending it (their data crossed in that time, as eq. 7's a_z) */
	__u64 max_gap_idle_us;      /* the idle time inside the longest ACK gap, and its bytes; */
	__u64 max_gap_idle_bytes;
	__u64 sent_max_gap_idle_us; /* inside the longest pause in sending, and its bytes */
	__u64 sent_max_gap_idle_bytes;
	__u64 plain[GCBE_SAMPLES];  /* samples[] without the idle time removed (eq. 7 as the paper has it) */
	__u32 plain_saturated;      /* bit i: plain[i]'s cycle saturated the bottleneck */
	__u32 run_open;             /* a queued run (gcbe_queued_run) has its anchor */
	__u64 run_us;               /* its intervals after the anchor, their bytes and count */
	__u64 run_bytes;
	__u64 run_arrivals;
	__u64 held_gap_us;          /* an interval far shorter than the run's spacing, and its bytes: */
	__u64 held_bytes;           /* one arrival with the ACK before it if the spacing goes on */
	__u64 run_anchor_gap_us;    /* the anchor's interval and bytes: counted if the next is like it */
	__u64 run_anchor_bytes;
	__u64 run_rates[GCBE_SAMPLES]; /* the flow's last queued runs' rates, bytes/s (ring) */
	__u32 run_count;            /* queued runs counted over the flow */
	__u32 run_next;             /* where the next goes in run_rates[] */
	__u32 runs;                 /* 1: track queued runs (a paced sender's ACK view; only its restart reads them) */
	__u32 run_min_bytes;        /* GCBE_RUN_MIN_SEGS segments, in bytes (hs_estimator_init) */
};

/* The send-rate bound of the current cycle: its bytes over its send span, without the
 * longest pause and the bytes sent in it; ~0 when undefined (no send times, or all
 * sent at once). */
HS_INLINE __u64 gcbe_send_bound(const struct gcbe *g, int remove_idle)
{
	__u64 span, gap_us = g->sent_max_gap_us, gap_bytes = g->sent_max_gap_bytes;

	if (!g->sent_first_us || g->sent_last_us <= g->sent_first_us)
		return ~0ULL;
	span = g->sent_last_us - g->sent_first_us;
	if (remove_idle && span > gap_us + g->idle_us - g->sent_max_gap_idle_us &&
	    g->bytes > gap_bytes + g->idle_bytes - g->sent_max_gap_idle_bytes) {
		gap_us += g->idle_us - g->sent_max_gap_idle_us;
		gap_bytes += g->idle_bytes - g->sent_max_gap_idle_bytes;
	}
	if (span <= gap_us || g->bytes <= gap_bytes || g->bytes >= (1ULL << 44))
		return ~0ULL;
	return (g->bytes - gap_bytes) * HS_USEC_PER_SEC / (span - gap_us);
}

/* Eq. 7 for the current cycle, never above its send rate; 0 when it is undefined (no
 * time or no bytes left, and no arrival of its own to go by). *saturated (if given)
 * says whether the data went out at least GCBE_SATURATED_PCT of the rate the ACKs
 * came back at: then a queue, not the sender, spaced the ACKs, and the estimate is
 * the bottleneck's; otherwise (a paced or application-limited sender, or send times
 * unknown) it may only be the rate the sender chose. */
HS_INLINE __u64 gcbe_cycle_estimate_idle(const struct gcbe *g, __u32 *saturated, int remove_idle)
{
	__u64 idle = remove_idle ? g->idle_us - g->max_gap_idle_us : 0;
	__u64 idle_bytes = remove_idle ? g->idle_bytes - g->max_gap_idle_bytes : 0;
	__u64 span = g->last_ack_us - g->cycle_start_us;
	__u64 gap_us = g->max_gap_us, gap_bytes = g->max_gap_bytes;
	__u64 time_us, bytes, est, bound;

	if (g->merge_us) {
		gap_us += g->pre_gap_us;
		gap_bytes += g->pre_gap_bytes;
	}
	if (span > gap_us + idle && span - gap_us - idle >= g->min_span_us && g->bytes > gap_bytes + idle_bytes) {
		gap_us += idle;     /* never below the noise floor: then as the paper has it */
		gap_bytes += idle_bytes;
	}
	est = g->best_arrival;
	if (span > gap_us && g->bytes > gap_bytes && span - gap_us >= g->min_span_us) {
		time_us = span - gap_us;
		bytes = g->bytes - gap_bytes;
		/* bytes < 2^44 (16 TB) keeps bytes * 1e6 below 2^64. */
		bytes = bytes >= (1ULL << 44) ? bytes / time_us * HS_USEC_PER_SEC : bytes * HS_USEC_PER_SEC / time_us;
		/* In bursts, a whole aggregation interval of a busy link is the rate itself:
		 * slow start's short busy periods may hold one such interval and little else. */
		if (bytes > est)
			est = bytes;
	}
	bound = gcbe_send_bound(g, remove_idle);
	if (saturated)
		*saturated = est && bound != ~0ULL && bound / GCBE_SATURATED_PCT >= est / 100;
	return est < bound ? est : bound;
}

/* The current cycle's busy interior rate if the cycle was aggregated, else 0. */
HS_INLINE __u64 gcbe_cycle_interior_rate(const struct gcbe *g)
{
	__u64 rate, bound;

	if (!g->merge_us || g->short_arrivals || g->interior_us < GCBE_ARRIVAL_MIN_US || g->interior_bytes >= (1ULL << 44))
		return 0;
	rate = g->interior_bytes * HS_USEC_PER_SEC / g->interior_us;
	bound = gcbe_send_bound(g, 0);
	return rate < bound ? rate : bound;
}

/* a and b within num/den of each other (both ways); 0 is like nothing. */
HS_INLINE int gcbe_alike(__u64 a, __u64 b, __u64 num, __u64 den)
{
	return a && b && a < (1ULL << 44) && b < (1ULL << 44) && a * den <= b * num && b * den <= a * num;
}

/* Pushes an estimate; plain (with plain_saturated) is the same cycle's without the
 * idle time removed. */
HS_INLINE void gcbe_push_both(struct gcbe *g, __u64 estimate, __u32 saturated, __u64 plain, __u32 plain_saturated)
{
	__u32 i = g->ring_next;
	__u64 interior = gcbe_cycle_interior_rate(g);

	if (i >= GCBE_SAMPLES)      /* bounds the index for the BPF verifier */
		i = 0;
	g->plain[i] = plain;
	g->plain_saturated = plain_saturated ? g->plain_saturated | (1U << i) : g->plain_saturated & ~(1U << i);
	g->saturated = saturated ? g->saturated | (1U << i) : g->saturated & ~(1U << i);
	g->aggregated = interior ? g->aggregated | (1U << i) : g->aggregated & ~(1U << i);
	g->interior_rate[i] = interior;
	if (g->merge_us && !g->short_arrivals && g->cycle_peak > g->grid_peak)
		g->grid_peak = g->cycle_peak;
	g->samples[i] = estimate;
	g->ring_next = i + 1 < GCBE_SAMPLES ? i + 1 : 0;
	g->nsamples++;
}

/* Closes the current cycle: its estimate, with and without the idle time, pushed if
 * it has one; returns it. */
HS_INLINE __u64 gcbe_close_cycle(struct gcbe *g)
{
	__u32 saturated, plain_saturated;
	__u64 est = gcbe_cycle_estimate_idle(g, &saturated, 1), plain = est;

	plain_saturated = saturated;
	if (g->idle_us)
		plain = gcbe_cycle_estimate_idle(g, &plain_saturated, 0);
	if (est)
		gcbe_push_both(g, est, saturated, plain, plain_saturated);
	return est;
}

/* How much of the gap before an arrival the link sat idle because the sender had
 * sent nothing: its data left the sender at sent_us, one minimum RTT before it could
 * be acked on an empty path, so any part of the gap after the previous ACK and before
 * sent_us + min RTT had nothing of this flow's to carry. A cycle may hold several such
 * stretches besides the longest gap eq. 7 removes: a slow-start round sent in two
 * parts, the first released by a late (delayed) ACK of earlier data, as after a TLS
 * exchange. Every error here removes less, never more: an RTT sample is never below
 * the path's, and a held or delayed ACK only makes the previous ACK later. */
HS_INLINE __u64 gcbe_idle_time(const struct gcbe *g, __u64 now_us, __u64 gap_us, __u64 sent_us)
{
	__u64 ready;

	if (g->merge_us || !sent_us || !g->min_rtt_us || now_us - sent_us > g->min_rtt_us + g->min_rtt_us / GCBE_EMPTY_PATH_FRAC ||
	    gap_us < GCBE_IDLE_MIN_US || gap_us < GCBE_IDLE_GAP_RATIO * g->last_gap_us)
		return 0;
	ready = sent_us + g->min_rtt_us;      /* the earliest this data could be acked */
	if (ready <= g->last_ack_us || 2 * (ready - g->last_ack_us) < gap_us)
		return 0;   /* busy, or idle for less than half the gap: a busy ACK clock's jitter */
	return ready - g->last_ack_us < gap_us ? ready - g->last_ack_us : gap_us;
}

HS_INLINE void gcbe_open_cycle(struct gcbe *g, __u64 now_us, __u64 sent_us)
{
	g->cycle_start_us = now_us;
	g->sent_first_us = sent_us;
	g->sent_last_us = sent_us;
	g->sent_max_gap_us = 0;
	g->sent_max_gap_bytes = 0;
	g->last_ack_us = now_us;
	g->bytes = 0;
	g->max_gap_us = 0;
	g->max_gap_bytes = 0;
	g->last_gap_us = 0;
	g->last_bytes = 0;
	g->pre_gap_us = 0;
	g->pre_gap_bytes = 0;
	g->best_arrival = 0;
	g->prev_bytes = 0;
	g->interior_bytes = 0;
	g->interior_us = 0;
	g->short_arrivals = 0;
	g->cycle_peak = 0;
	g->idle_us = 0;
	g->idle_bytes = 0;
	g->max_gap_idle_us = 0;
	g->max_gap_idle_bytes = 0;
	g->sent_max_gap_idle_us = 0;
	g->sent_max_gap_idle_bytes = 0;
	g->acks = 1;
}

/* Queued runs (the ACK view). Arrivals whose data went out at least
 * GCBE_SATURATED_PCT faster than it came back were spaced by a queue: their bytes
 * over their intervals are the bottleneck's rate, whatever the cycle around them
 * held. A paced sender's cycles read its pacing rate, but its initial window goes
 * out at once: over TLS that burst shares a cycle with paced packets, no cycle
 * saturates, and s_bbr's keep-alive connection read its first 64 KB at 6 Mbit/s of
 * 100 (RESULTS). The run's first interval (after the burst's first ACK, often
 * compressed) anchors it, and counts only if the next is like it; an idle stretch, a
 * paced arrival or an interval unlike the run's mean (more than 3x apart: ACKs a link
 * or receiver released together, 2-3 us apart among 60-140 us ones, read 351 Mbit/s of
 * 100) ends it. One interval far shorter, followed by the run's spacing again, is an
 * ACK released with the one before it: the two are one arrival (the 5G-like link's
 * ACKs, 64 us apart, came in such pairs now and then, and a run broken at each read
 * the pacing rate, 22 Mbit/s of 174). A run of GCBE_RUN_MIN_ARRIVALS intervals (or
 * GCBE_RUN_FEW_ARRIVALS of GCBE_RUN_MIN_SEGS segments) over GCBE_RUN_MIN_US counts. */
HS_INLINE void gcbe_close_run(struct gcbe *g)
{
	if ((g->run_arrivals >= GCBE_RUN_MIN_ARRIVALS || (g->run_arrivals >= GCBE_RUN_FEW_ARRIVALS && g->run_bytes >= g->run_min_bytes)) &&
	    g->run_us >= GCBE_RUN_MIN_US && g->run_bytes < (1ULL << 44)) {
		__u32 i = g->run_next;

		if (i >= GCBE_SAMPLES)  /* bounds the index for the BPF verifier */
			i = 0;
		g->run_rates[i] = g->run_bytes * HS_USEC_PER_SEC / g->run_us;
		g->run_next = i + 1 < GCBE_SAMPLES ? i + 1 : 0;
		g->run_count++;
	}
	g->run_open = 0;
	g->held_gap_us = 0;
	g->run_us = 0;
	g->run_bytes = 0;
	g->run_arrivals = 0;
}

/* The run's spacing: its mean interval, or its anchor's before it has one. */
HS_INLINE __u64 gcbe_run_spacing(const struct gcbe *g)
{
	return g->run_arrivals ? g->run_us / g->run_arrivals : g->run_anchor_gap_us;
}

HS_INLINE void gcbe_open_run(struct gcbe *g, __u64 gap, __u64 acked)
{
	g->run_open = 1;
	g->run_anchor_gap_us = gap;
	g->run_anchor_bytes = acked;
}

/* The anchor's interval, the run's first arrival. */
HS_INLINE void gcbe_count_anchor(struct gcbe *g)
{
	g->run_us = g->run_anchor_gap_us;
	g->run_bytes = g->run_anchor_bytes;
	g->run_arrivals = 1;
}

HS_INLINE void gcbe_run_add(struct gcbe *g, __u64 gap, __u64 acked)
{
	g->run_us += gap;
	g->run_bytes += acked;
	g->run_arrivals++;
}

HS_INLINE void gcbe_queued_run(struct gcbe *g, __u64 gap, __u64 sent_gap, __u64 acked, __u64 sent_us, __u64 idle)
{
	if (!g->runs)
		return;
	if (!sent_us || !gap || idle || sent_gap * GCBE_SATURATED_PCT >= gap * 100) {
		gcbe_close_run(g);
		return;
	}
	if (!g->run_open) {
		gcbe_open_run(g, gap, acked);
		return;
	}
	if (!g->held_gap_us && gap * 3 < gcbe_run_spacing(g)) {
		g->held_gap_us = gap;  /* far closer than the run's spacing: decided by the next */
		g->held_bytes = acked;
		return;
	}
	if (g->held_gap_us) {
		__u64 held = g->held_gap_us, held_bytes = g->held_bytes;

		g->held_gap_us = 0;
		if (gcbe_alike(gap, gcbe_run_spacing(g), 3, 1)) {
			/* the spacing goes on: the held ACK was released with the one before it */
			if (!g->run_arrivals)
				gcbe_count_anchor(g);
			gcbe_run_add(g, held, held_bytes);
		} else {
			gcbe_close_run(g);  /* a new spacing: the held ACK anchors it */
			gcbe_open_run(g, held, held_bytes);
		}
	}
	if (g->run_arrivals && !gcbe_alike(gap, gcbe_run_spacing(g), 3, 1)) {
		gcbe_close_run(g);  /* not one queue's drain: ACKs released together, or a new burst */
		gcbe_open_run(g, gap, acked);
		return;
	}
	if (!g->run_arrivals && gcbe_alike(gap, g->run_anchor_gap_us, 3, 1))
		gcbe_count_anchor(g);
	gcbe_run_add(g, gap, acked);
}

/* One arrival (an ACK, or a burst of them) at now_us acknowledging `acked` bytes,
 * the newest of them sent at sent_us (0: unknown); cycle_us is the cycle length d.
 * Returns the estimate if it closed a cycle with a defined estimate, else 0. */
HS_INLINE __u64 gcbe_on_arrival(struct gcbe *g, __u64 now_us, __u64 acked, __u64 sent_us, __u64 cycle_us)
{
	__u64 gap, est, sent_gap = 0, idle, idle_bytes;

	if (!g->merge_us && sent_us && now_us > sent_us && (!g->min_rtt_us || now_us - sent_us < g->min_rtt_us))
		g->min_rtt_us = now_us - sent_us;
	if (g->acks == 0) {
		gcbe_open_cycle(g, now_us, sent_us);
		return 0;
	}
	/* Only a later send time moves the send span (reordered data, or an ACK without
	 * an RTT sample, carries none). */
	if (sent_us > g->sent_last_us) {
		if (g->sent_last_us)
			sent_gap = sent_us - g->sent_last_us;   /* how long this arrival's data took to send */
		if (sent_gap > g->sent_max_gap_us) {
			g->sent_max_gap_us = sent_gap;
			g->sent_max_gap_bytes = acked;
		}
		if (!g->sent_first_us)
			g->sent_first_us = sent_us;
		g->sent_last_us = sent_us;
	}
	if (now_us < g->last_ack_us)    /* clocks never go back; be safe if they do */
		now_us = g->last_ack_us;
	gap = now_us - g->last_ack_us;
	idle = gcbe_idle_time(g, now_us, gap, sent_us);
	idle_bytes = idle ? acked : 0;
	gcbe_queued_run(g, gap, sent_gap, acked, sent_us, idle);
	g->idle_us += idle;
	g->idle_bytes += idle_bytes;
	if (sent_gap && sent_gap == g->sent_max_gap_us && acked == g->sent_max_gap_bytes) {
		g->sent_max_gap_idle_us = idle;
		g->sent_max_gap_idle_bytes = idle_bytes;
	}
	if (gap > g->max_gap_us || g->acks == 1) {
		g->max_gap_idle_us = idle;
		g->max_gap_idle_bytes = idle_bytes;
		g->max_gap_us = gap;
		g->max_gap_bytes = acked;
		g->pre_gap_us = g->last_gap_us;     /* 0 when the previous is the first arrival */
		g->pre_gap_bytes = g->last_bytes;
	}
	if (g->merge_us) {
		/* The previous arrival, now that both its neighbours are known. */
		if (g->prev_bytes && gcbe_alike(g->last_gap_us, gap, 3, 2) && gcbe_alike(g->prev_bytes, g->last_bytes, 2, 1) &&
		    gcbe_alike(g->last_bytes, acked, 2, 1) && g->last_gap_us >= GCBE_AGG_GRID_MIN_US &&
		    2 * g->last_gap_us <= cycle_us) {
			g->interior_bytes += g->last_bytes;
			g->interior_us += g->last_gap_us;
		}
		if (gap < GCBE_AGG_GRID_MIN_US)
			g->short_arrivals++;
		g->prev_bytes = g->last_gap_us ? g->last_bytes : 0;
	}
	/* An arrival on a grid: >= GCBE_ARRIVAL_MIN_US long, and it and the two before it
	 * within 1/8 of one another (a release the link split, the first after an idle
	 * stretch, a radio's irregular frames are not). Its bytes are what the link carried
	 * in that interval: a floor under the link's rate, taken at most at the rate the
	 * same data was sent. */
	if (g->merge_us && gap >= GCBE_ARRIVAL_MIN_US && gcbe_alike(g->arrival_gap_us, gap, 9, 8) &&
	    gcbe_alike(g->arrival_gap2_us, gap, 9, 8) && gcbe_alike(g->arrival_gap2_us, g->arrival_gap_us, 9, 8) &&
	    sent_gap && acked < (1ULL << 44)) {
		__u64 rate = acked * HS_USEC_PER_SEC / (gap > sent_gap ? gap : sent_gap);

		if (rate > g->cycle_peak)
			g->cycle_peak = rate;
	}
	g->arrival_gap2_us = g->arrival_gap_us;
	g->arrival_gap_us = gap;
	g->last_gap_us = gap;
	g->last_bytes = acked;
	if (g->merge_us && gap >= GCBE_ARRIVAL_MIN_US && acked < (1ULL << 44) &&
	    acked * HS_USEC_PER_SEC / gap > g->best_arrival)
		g->best_arrival = acked * HS_USEC_PER_SEC / gap;
	g->bytes += acked;
	g->last_ack_us = now_us;
	g->acks++;
	if (now_us - g->cycle_start_us < cycle_us || g->acks < GCBE_MIN_CYCLE_ACKS)
		return 0;
	est = gcbe_close_cycle(g);
	gcbe_open_cycle(g, now_us, g->sent_last_us);  /* the closing ACK is h_{i+1,0} */
	return est;
}

/* One ACK at now_us acknowledging `acked` bytes, the newest of them sent at sent_us
 * (0: unknown, e.g. an RTT sample refused for a retransmission): an arrival of its
 * own, or part of the burst being gathered (merge_us). Returns what gcbe_on_arrival
 * returns for the arrival this ACK completed, else 0. */
HS_INLINE __u64 gcbe_on_ack_sent(struct gcbe *g, __u64 now_us, __u64 acked, __u64 sent_us, __u64 cycle_us)
{
	__u64 est = 0;

	if (!g->merge_us)
		return gcbe_on_arrival(g, now_us, acked, sent_us, cycle_us);
	if (g->burst_open && now_us >= g->burst_last_us &&
	    (now_us - g->burst_first_us <= g->merge_us ||
	     (now_us - g->burst_last_us <= g->merge_us / 4 && now_us - g->burst_first_us <= 4ULL * g->merge_us))) {
		g->burst_bytes += acked;
		g->burst_last_us = now_us;
		if (sent_us > g->burst_sent_us)
			g->burst_sent_us = sent_us;
		return 0;
	}
	if (g->burst_open)
		est = gcbe_on_arrival(g, g->burst_last_us, g->burst_bytes, g->burst_sent_us, cycle_us);
	g->burst_open = 1;
	g->burst_first_us = now_us;
	g->burst_last_us = now_us;
	g->burst_bytes = acked;
	g->burst_sent_us = sent_us;
	return est;
}

/* At termination: the burst being gathered is the last arrival; then the unfinished
 * cycle is evaluated if it can say anything. */
HS_INLINE void gcbe_finish(struct gcbe *g)
{
	if (g->burst_open) {
		gcbe_on_arrival(g, g->burst_last_us, g->burst_bytes, g->burst_sent_us, ~0ULL);
		g->burst_open = 0;
	}
	gcbe_close_run(g);
	if (g->acks < GCBE_MIN_FINISH_ACKS)
		return;
	gcbe_close_cycle(g);
	g->acks = 0;
}

/* The lower median of the first n (at most GCBE_SAMPLES) values whose mask bit is set. */
HS_INLINE __u64 gcbe_median_n(const __u64 *values, __u32 n, __u32 mask)
{
	__u64 v[GCBE_SAMPLES];
	__u32 m = 0;

	if (!n)
		return 0;
	for (__u32 i = 0; i < GCBE_SAMPLES; i++) {
		v[i] = ~0ULL;  /* unused slots sort last */
		if (i < n && (mask & (1U << i))) {
			v[i] = values[i];
			m++;
		}
	}
	if (!m)
		return 0;
	n = m;
	/* insertion sort of five values: bounded, verifier-friendly */
	for (__u32 i = 1; i < GCBE_SAMPLES; i++) {
		for (__u32 j = i; j > 0; j--) {
			if (v[j - 1] <= v[j])
				break;
			__u64 t = v[j - 1];
			v[j - 1] = v[j];
			v[j] = t;
		}
	}
	return v[(n - 1) / 2];
}

/* The median of the last L estimates (the lower middle for an even count). The
 * controllers store it instead of eq. 8's maximum: measured in the lab,
 * the maximum kept single compressed-ACK cycles (1 MB flows stored 105-209 Mbit/s of
 * a 100 Mbit/s link), the median stayed within 96-104 (BENCHMARKS.md at 3c45a21). */
HS_INLINE __u64 gcbe_median_of(const struct gcbe *g, const __u64 *values, __u32 mask)
{
	return gcbe_median_n(values, g->nsamples < GCBE_SAMPLES ? g->nsamples : GCBE_SAMPLES, mask);
}

HS_INLINE __u64 gcbe_median(const struct gcbe *g)
{
	return gcbe_median_of(g, g->samples, ~0U);
}

/* The median of the flow's last queued runs (0: none): one run's intervals scatter by
 * +-10 % around the link's (recorded trains: 88-108 Mbit/s of 96.5). */
HS_INLINE __u64 gcbe_queued_rate(const struct gcbe *g)
{
	return gcbe_median_n(g->run_rates, g->run_count < GCBE_SAMPLES ? g->run_count : GCBE_SAMPLES, ~0U);
}

/* The median interior rate of the last L cycles that were aggregated (merge_us), of a
 * paced sender only those that also saturated the bottleneck; 0 if none. Where ACKs
 * come in bursts of >= 8 ms, slow start's first rounds come back as one burst each and
 * the estimate above reads 15-25 % low (BENCHMARKS.md at 3c45a21, Issue 12). */
HS_INLINE __u64 gcbe_aggregated_median(const struct gcbe *g, int paced)
{
	return gcbe_median_of(g, g->interior_rate, paced ? g->aggregated & g->saturated : g->aggregated);
}

/* What a flow leaves at its end, from its ACKs read one by one (g) and as bursts
 * (bursts, merge_us 0: not run): g's median of the last cycles, or of the saturated
 * ones if that is higher (a paced sender's: of the saturated ones only); where the
 * bursts came on a grid, the higher of that and their busy interiors' rate, and for a
 * paced sender the grid peak. With idle (a restart after idle reads so) g's cycles
 * count with their idle stretches removed (gcbe_idle_time), except where the bursts
 * came on a grid: there the ACKs of a burst come together, so the time left after the
 * idle stretches is theirs, not the link's (a 16 ms grid then read 128 Mbit/s of 100).
 * Without idle, the paper's cycles: what a flow stores. Measured (RESULTS, pages
 * A/B): stored with the idle stretches removed, 5 MB HTTP/2 pages lost packets in 16
 * of 48 loads, against 0 of 24 with the paper's reading; why is not known. */
HS_INLINE __u64 gcbe_flow_estimate_idle(struct gcbe *g, struct gcbe *bursts, int paced, int idle)
{
	__u64 est, agg = 0, *values = g->samples;
	__u32 saturated;

	gcbe_finish(g);
	saturated = g->saturated;
	if (bursts->merge_us) {
		gcbe_finish(bursts);
		agg = gcbe_aggregated_median(bursts, paced);
		/* A paced sender (s_bbr's STARTUP) ramps up smoothly and may reach the link's
		 * rate only in its last grid intervals: its cycles read the ramp. */
		if (paced && bursts->grid_peak > agg)
			agg = bursts->grid_peak;
	}
	if (!idle || bursts->aggregated) {  /* (a burst view not run has no aggregated cycle) */
		values = g->plain;
		saturated = g->plain_saturated;
	}
	if (paced) {
		__u64 queued = idle ? gcbe_queued_rate(g) : 0;

		/* For a restart: its queued runs saw the bottleneck where no cycle did. */
		est = gcbe_median_of(g, values, saturated);
		if (queued > est)
			est = queued;
	} else {
		/* A cycle that saturated the bottleneck read its rate; one that did not read
		 * at most it: a Careful Resume jump's cycle reads the jump's own pacing rate,
		 * the entry's. The lower median of that and the saturated cycle after it
		 * lowered a 10 ms path's entry 1 % per warm 256 KB flow (BENCHMARKS.md at 3c45a21). */
		__u64 sat = gcbe_median_of(g, values, saturated);

		est = gcbe_median_of(g, values, ~0U);
		if (sat > est)
			est = sat;
	}
	return agg > est ? agg : est;
}

HS_INLINE __u64 gcbe_flow_estimate(struct gcbe *g, struct gcbe *bursts, int paced)
{
	return gcbe_flow_estimate_idle(g, bursts, paced, 0);
}

#endif
