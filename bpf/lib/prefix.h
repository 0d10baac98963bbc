/* Prefix fallback: a first contact (no entry for its address) from a /24 (IPv4) or a
 * /48 (IPv6) whose other peers' entries agree starts from what they agree on, halved
 * (issue 46; mvfst takes a client's cwnd hint only from the same /24 or /48, Baidu's
 * SmartIW groups flows by subnet). Pure, for the controllers and the host tests.
 * The aggregate follows the entries stored for the prefix's peers, here or through the
 * fleet: a moving average of their rates and min RTTs, and how many different peers in
 * a row agreed with it (hs_prefix_agrees). A prefix whose peers' paths
 * differ never agrees, and its first contacts are the kernel's. A start from it is a
 * Careful Resume like any other (the RTT check, pacing, the rate test, Safe Retreat);
 * a retreat takes the prefix's agreement away. */
#ifndef HS_PREFIX_H
#define HS_PREFIX_H

#include "types.h"
#include "store.h"
#include "../records.h"

#define HS_PREFIX_AGREED 3        /* entries in a row that agree: the prefix is one path */
#define HS_PREFIX_START_PCT 50    /* a first contact starts from half of what they agree on */
#define HS_PREFIX_EWMA_SHIFT 2    /* the aggregate moves a quarter of the way to each entry */

/* The prefix an address (IPv6, or IPv4 mapped) belongs to, in place; returns the host
 * part cut off, folded to 32 bits (which peer of the prefix it was). */
HS_INLINE __u32 hs_prefix_key(__u8 b[16])
{
	__u32 host = 0;
	int i, v4_mapped = 1;

	for (i = 0; i < 10; i++)
		if (b[i])
			v4_mapped = 0;
	if (v4_mapped && b[10] == 0xff && b[11] == 0xff) {
		host = b[15] + 1;     /* /24 */
		b[15] = 0;
		return host;
	}
	for (i = 6; i < 16; i++) {
		host = host * 31 + b[i];
		b[i] = 0;             /* /48 */
	}
	return host + 1;
}

/* A rate agrees with the prefix's average within a factor of HS_PREFIX_AGREE_FACTOR:
 * short flows sharing a bottleneck store 40-100 % of its rate (the lab's Poisson runs at
 * 100 Mbit/s: 15-128 Mbit/s, most 40-98), a path 10x away never does. The min RTT must
 * agree within HS_AGREE_PCT (the jump's RTT check is 2x). */
#define HS_PREFIX_AGREE_FACTOR 2

HS_INLINE int hs_prefix_agrees(__u64 avg_Bps, __u64 Bps)
{
	return avg_Bps && avg_Bps < (1ULL << 50) && Bps < (1ULL << 50) && Bps * HS_PREFIX_AGREE_FACTOR >= avg_Bps &&
	       Bps <= avg_Bps * HS_PREFIX_AGREE_FACTOR;
}

HS_INLINE __u64 hs_ewma(__u64 avg, __u64 sample)
{
	return avg - (avg >> HS_PREFIX_EWMA_SHIFT) + (sample >> HS_PREFIX_EWMA_SHIFT);
}

/* The aggregate after peer `host` (hs_prefix_key) of the prefix stored {bw, min RTT}.
 * Agreement counts different peers: the same one again moves the average only. */
HS_INLINE struct hs_prefix hs_prefix_after(const struct hs_prefix *old, __u32 host, __u64 bw_Bps, __u32 min_rtt_us,
					   __u16 flags, __u64 now_ns)
{
	struct hs_prefix a = {};

	a.updated_ns = now_ns;
	a.flags = flags & HS_PATH_LOSSY;
	a.last_peer = host;
	if (!old || !old->entries) {
		a.bw_bytes_per_s = bw_Bps;
		a.min_rtt_us = min_rtt_us;
		a.entries = 1;
		return a;
	}
	a.agreed = hs_prefix_agrees(old->bw_bytes_per_s, bw_Bps) && hs_agreed_after(0, old->min_rtt_us, min_rtt_us)
			   ? old->agreed + (old->agreed < 0xffffffffU) : 0;
	if (host == old->last_peer && a.agreed)
		a.agreed = old->agreed;  /* the same peer again: no new voice */
	a.bw_bytes_per_s = hs_ewma(old->bw_bytes_per_s, bw_Bps);
	a.min_rtt_us = (__u32)hs_ewma(old->min_rtt_us, min_rtt_us);
	a.entries = old->entries < 0xffffffffU ? old->entries + 1 : old->entries;
	return a;
}

/* The entry a first contact starts from, if the prefix's peers agree and their
 * aggregate is not older than max_age_s (0: any age); 1 if so. */
HS_INLINE int hs_prefix_start(const struct hs_prefix *a, __u64 now_ns, __u32 max_age_s, struct hs_path *out)
{
	if (!a || a->agreed < HS_PREFIX_AGREED)
		return 0;
	if (max_age_s && now_ns - a->updated_ns > (__u64)max_age_s * 1000000000ULL)
		return 0;
	__builtin_memset(out, 0, sizeof(*out));
	out->bw_bytes_per_s = a->bw_bytes_per_s * HS_PREFIX_START_PCT / 100;
	out->min_rtt_us = a->min_rtt_us;
	out->stored_ns = a->updated_ns;
	out->flags = a->flags;
	return 1;
}

#endif
