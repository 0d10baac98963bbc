/* What a peer's connections delivered together (RFC 9040's ensemble). A flow that
 * shares the path with its siblings measures its share: six connections of a page
 * each read a sixth of the link, and an entry made of such reads stays a sixth
 * (s_bbr, whose paced flows never see the link's rate: 25 of 96 Mbit/s after five
 * pages). Each flow adds what it delivered to its peer's sum (hs_open); while it has
 * siblings in flight it reads the sum's growth over windows of two round trips, less
 * what the others may not have added yet at the window's start, and keeps the
 * fastest window. That is what the peer's flows delivered over the path, never more.
 * Units: bytes, microseconds. */
#ifndef HS_ENSEMBLE_H
#define HS_ENSEMBLE_H

#include "types.h"

struct hs_ensemble {
	__u64 reported;             /* this flow's delivered bytes last added to the peer's sum */
	__u64 from_sum;             /* the peer's sum when the window began */
	__u64 from_us;              /* when (0: no window: the flow is alone) */
	__u64 max_Bps;              /* the fastest window so far */
};

/* A flow reports at most this many packets' worth late, so a window's start may miss
 * that much of each sibling's. */
#define HS_ENSEMBLE_REPORT_PKTS 8

/* This flow's delivered bytes not yet in its peer's sum. */
HS_INLINE __u64 hs_ensemble_unreported(const struct hs_ensemble *e, __u64 delivered)
{
	return delivered > e->reported ? delivered - e->reported : 0;
}

/* A report while siblings are in flight: the peer's sum now. A window at least
 * window_us long closes, read as (growth - slack) / time, and the next begins. */
HS_INLINE void hs_ensemble_sample(struct hs_ensemble *e, __u64 sum, __u64 now_us, __u64 window_us, __u64 slack)
{
	__u64 span, grown, Bps;

	if (!e->from_us || now_us < e->from_us || sum < e->from_sum) {
		e->from_sum = sum;
		e->from_us = now_us;
		return;
	}
	span = now_us - e->from_us;
	if (!span || span < window_us)
		return;
	grown = sum - e->from_sum;
	Bps = grown > slack ? (grown - slack) * 1000000 / span : 0;
	if (Bps > e->max_Bps)
		e->max_Bps = Bps;
	e->from_sum = sum;
	e->from_us = now_us;
}

/* A report with no sibling in flight: the flow reads the path itself; no window. */
HS_INLINE void hs_ensemble_alone(struct hs_ensemble *e)
{
	e->from_us = 0;
}

#endif
