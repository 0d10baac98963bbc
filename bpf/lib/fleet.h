/* Another server's entry for a peer, shared through the fleet agent (src/fleet.rs,
 * Redis): pure, for the apply program (bpf/fleet.bpf.c) and the host tests. An entry
 * from Redis is data from the network, as a peer's ACK timing is, and passes the rules
 * a flow's own store passes (lib/store.h): the believable bounds, the cap, at most a
 * 2x raise of an entry here, a confident entry's floor. So a compromised Redis can
 * write what a lying peer could (a new entry up to the cap, or 2x an existing one per
 * write), and every jump to it is still a Careful Resume that checks itself.
 * Newest wins: an entry here stored after the other server's is kept. Time crosses
 * hosts as an age (the agent turns the other server's wall clock into one); an age
 * past the entry lifetime (max_age_s) is refused. */
#ifndef HS_FLEET_H
#define HS_FLEET_H

#include "types.h"
#include "startup.h"
#include "store.h"
#include "tuned.h"
#include "../records.h"

/* old: the entry here (NULL: none); *out: the entry to write when APPLIED. */
HS_INLINE __u16 hs_fleet_merge(const struct hs_path *old, const struct hs_fleet_entry *in, __u64 now_ns,
			       __u32 max_age_s, __u64 cap_Bps, struct hs_path *out)
{
	__u64 stored = in->age_ns < now_ns ? now_ns - in->age_ns : 0;

	if (max_age_s && in->age_ns > (__u64)max_age_s * 1000000000ULL)
		return HS_FLEET_EXPIRED;
	if (old && old->stored_ns >= stored)
		return HS_FLEET_OLDER;
	if (!in->bw_bytes_per_s)
		return old ? HS_FLEET_DELETED : HS_FLEET_OLDER;
	if (in->bw_bytes_per_s > HS_PATH_MAX_BW_BYTES_PER_S || !in->min_rtt_us || in->min_rtt_us > HS_PATH_MAX_RTT_US)
		return HS_FLEET_INVALID;

	__builtin_memset(out, 0, sizeof(*out));
	if (old)
		*out = *old;
	out->bw_bytes_per_s = hs_rate_to_store(old ? old->bw_bytes_per_s : 0, in->bw_bytes_per_s, 0,
					       HS_STORE_MAX_RAISE_PCT, cap_Bps);
	if (old) {
		out->bw_bytes_per_s = hs_confident_floor(old->bw_bytes_per_s, out->bw_bytes_per_s, old->agreed,
							 HS_CONFIDENT_FLOOR_PCT);
		out->agreed = hs_agreed_after(old->agreed, old->bw_bytes_per_s, in->bw_bytes_per_s);
	}
	out->min_rtt_us = in->min_rtt_us;
	out->stored_ns = stored;
	out->flows = old ? old->flows + 1 : 1;
	out->source = HS_SOURCE_FLEET;
	/* The lossy mark as the other server's flows saw it; a changed mark counts clean
	 * segments from nothing. */
	if ((out->flags & HS_PATH_LOSSY) != (in->flags & HS_PATH_LOSSY))
		out->clean_segs = 0;
	out->flags = (out->flags & (__u16)~HS_PATH_LOSSY) | (in->flags & HS_PATH_LOSSY);
	return HS_FLEET_APPLIED;
}

#endif
