/* Shadow mode's score (`headstart config mode=shadow`): how far the entry a start
 * would have used was from the rate the flow then measured itself, as a histogram of
 * cached / measured. Pure, tested on the host (tests/c/test_algorithms.c). */
#ifndef HS_SHADOW_H
#define HS_SHADOW_H

#include "types.h"

#define HS_SHADOW_BUCKETS 9

/* The bucket (0 .. HS_SHADOW_BUCKETS - 1) of cached / measured: < 0.25, < 0.5, < 0.8,
 * < 0.91, <= 1.1, <= 1.25, <= 2, <= 4, > 4. "Right" (within 10 %) is bucket 4. */
HS_INLINE __u32 hs_shadow_bucket(__u64 cached_Bps, __u64 measured_Bps)
{
	/* Rates stay below 2^40 B/s (the tool and the store cap refuse more). */
	__u64 c = cached_Bps * 100;

	if (!measured_Bps)
		return HS_SHADOW_BUCKETS - 1;
	if (c < measured_Bps * 25)
		return 0;
	if (c < measured_Bps * 50)
		return 1;
	if (c < measured_Bps * 80)
		return 2;
	if (c < measured_Bps * 91)
		return 3;
	if (c <= measured_Bps * 110)
		return 4;
	if (c <= measured_Bps * 125)
		return 5;
	if (c <= measured_Bps * 200)
		return 6;
	if (c <= measured_Bps * 400)
		return 7;
	return 8;
}

#endif
