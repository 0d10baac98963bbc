/* The bandwidth a flow leaves for the next one: GCBE (lib/gcbe.h) fed from the
 * socket on every ACK. s_cubic stores it; s_bbr stores the higher of it and BBR's own
 * estimate, because BBR's max-filtered delivery rate of a flow that ends in STARTUP
 * reads low (-16 % after one 1 MB flow at 100 Mbit/s, 50 ms; -35 % with 16 ms ACK
 * aggregation: RESULTS, aggregation). */
#ifndef HS_ESTIMATOR_H
#define HS_ESTIMATOR_H

#include "lib/gcbe.h"
#include "lib/tuned.h"

struct hs_estimator {
	struct gcbe gcbe;
	struct gcbe bursts;         /* the same ACKs as bursts on a grid (GCBE_AGG_MERGE_US) */
	__u64 last_delivered;       /* hs_delivered_bytes() at the previous ACK */
};

/* Bytes that reached the receiver: cumulatively acked plus SACKed (why not
 * tp->delivered: s_cubic.bpf.c, difference 3). */
static __always_inline __u64 hs_delivered_bytes(const struct tcp_sock *tp)
{
	return tp->bytes_acked + (__u64)tp->sacked_out * tp->mss_cache;
}

/* Each ACK is its own arrival in the primary view; the burst view merges ACKs within
 * GCBE_AGG_MERGE_US. Measured and not kept (RESULTS: aggregation): merging in the
 * primary view, and storing the primary view alone (15-36 % low behind 8-16 ms of
 * aggregation). */
static __always_inline void hs_estimator_init(struct hs_estimator *e, const struct tcp_sock *tp,
					      const struct hs_lab_config *lab, int paced)
{
	/* One view at a time, kept apart from the caller's memset by compiler barriers:
	 * clang merges adjacent memsets and writes out none this long for BPF. */
	__asm__ __volatile__("" ::: "memory");
	__builtin_memset(&e->gcbe, 0, sizeof(e->gcbe));
	__asm__ __volatile__("" ::: "memory");
	__builtin_memset(&e->bursts, 0, sizeof(e->bursts));
	__asm__ __volatile__("" ::: "memory");
	e->last_delivered = hs_delivered_bytes(tp);
	e->gcbe.min_span_us = lab->gcbe_min_span_us;
	e->gcbe.merge_us = 0;
	e->gcbe.runs = paced;  /* only a paced sender's restart reads them (hs_estimator_restart) */
	e->gcbe.run_min_bytes = GCBE_RUN_MIN_SEGS * tp->mss_cache;
	e->bursts.min_span_us = lab->gcbe_min_span_us;
	e->bursts.merge_us = GCBE_AGG_MERGE_US;
}

/* One ACK (pkts_acked): its RTT sample is measured to the newest data it covers, so
 * ACK time minus the sample is when that data was sent. */
HS_SUBPROG int hs_estimator_on_ack(struct hs_estimator *e __arg_nonnull, struct tcp_sock *tp __arg_trusted, __s32 rtt_us)
{
	__u64 delivered = hs_delivered_bytes(tp);
	__u64 sent_us = rtt_us > 0 && tp->tcp_mstamp > (__u64)rtt_us ? tp->tcp_mstamp - rtt_us : 0;
	__u64 acked = delivered > e->last_delivered ? delivered - e->last_delivered : 0;

	gcbe_on_ack_sent(&e->gcbe, tp->tcp_mstamp, acked, sent_us, tp->srtt_us >> 3);
	gcbe_on_ack_sent(&e->bursts, tp->tcp_mstamp, acked, sent_us, tp->srtt_us >> 3);
	e->last_delivered = delivered;
	return 0;
}

/* At release: the median of the last cycles (the paper's maximum kept single
 * compressed-ACK cycles: RESULTS, aggregation), the unfinished one included; of a paced sender's (s_bbr), only the
 * cycles that saturated the bottleneck (the others read its pacing rate). Where the
 * burst view saw ACKs aggregated on a grid, the higher of that and its busy interiors'
 * rate: there the cycles above read slow start's idle time (-15..-25 % at 8-16 ms); a
 * paced sender's, also the fastest release on the grid (BBR's ramp: -21..-35 %). */
HS_SUBPROG __u64 hs_estimator_finish(struct hs_estimator *e __arg_nonnull, int paced)
{
	return gcbe_flow_estimate(&e->gcbe, &e->bursts, paced);
}

/* For a restart after idle: the same, with each cycle's idle stretches removed (lib/gcbe.h):
 * over TLS the paper's reading of a keep-alive connection's first 64 KB was 16 Mbit/s of
 * 100, and its restart took 78 ms against 56 with slow_start_after_idle=0 (RESULTS).
 * A paced sender's (s_bbr) also reads its queued runs: its initial window's burst. */
HS_SUBPROG __u64 hs_estimator_restart(struct hs_estimator *e __arg_nonnull, int paced)
{
	return gcbe_flow_estimate_idle(&e->gcbe, &e->bursts, paced, 1);
}

#endif
