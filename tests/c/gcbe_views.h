/* Views of the GCBE state the tests read and the controllers do not: the paper's own
 * reading (Eq. 8, the maximum of the last L cycles; headstart stores a median, lib/gcbe.h
 * gcbe_flow_estimate), ACKs without send times, and the saturated cycles' median. */
#ifndef GCBE_VIEWS_H
#define GCBE_VIEWS_H

#include "../../bpf/lib/gcbe.h"

static inline __u64 gcbe_best(const struct gcbe *g)
{
	__u64 best = 0;

	for (__u32 i = 0; i < GCBE_SAMPLES && i < g->nsamples; i++)
		if (g->samples[i] > best)
			best = g->samples[i];
	return best;
}

static inline __u64 gcbe_on_ack(struct gcbe *g, __u64 now_us, __u64 acked, __u64 cycle_us)
{
	return gcbe_on_ack_sent(g, now_us, acked, 0, cycle_us);
}

static inline void gcbe_push(struct gcbe *g, __u64 estimate)
{
	gcbe_push_both(g, estimate, 0, estimate, 0);
}

static inline __u64 gcbe_cycle_estimate(const struct gcbe *g)
{
	return gcbe_cycle_estimate_idle(g, 0, 1);
}

static inline __u64 gcbe_saturated_median(const struct gcbe *g)
{
	return gcbe_median_of(g, g->samples, g->saturated);
}

#endif
