/* What a finished flow may write into its peer's entry (issue "Trustworthy path
 * state"), pure, so that host tests can pin the rules at their edges
 * (tests/c/test_resume.c). The table is written by remote peers' ACK timing and read
 * by every later flow to that address, so no one flow decides an entry alone:
 *  - an absolute cap (cap_Bps): no entry above what the server could ever send;
 *  - a bounded raise: one flow lifts an entry by at most max_raise_pct (200: 2×), so
 *    a lying or aggregated-ACK flow needs many flows to inflate it, and a Careful
 *    Resume retreat (which deletes the entry) undoes it at once;
 *  - a lossy flow (more than 1 % of its segments retransmitted: it spent its life in
 *    loss recovery, where rate estimates read low) may not replace a higher entry
 *    with its low estimate: the entry decays by an eighth instead, so that a path that
 *    really slowed down still gets there (and a Careful Resume retreat still deletes).
 * Units: bytes per second, segments. */
#ifndef HS_STORE_H
#define HS_STORE_H

#include "types.h"
#include "../records.h"

#define HS_LOSSY_RETRANS_PCT 1    /* above 1 % of segments retransmitted: a lossy flow */
#define HS_LOSSY_DECAY_SHIFT 3    /* a lossy flow lowers a higher entry by 1/8 at most */
#define HS_LOSS_CLEAR_SEGS 10000  /* segments sent clean in a row (no flow retransmitting) clear HS_PATH_LOSSY */
#define HS_AGREE_PCT 25           /* a flow's estimate within +-25 % of the entry agrees with it */
#define HS_CONFIDENT_AGREED 2     /* two agreeing flows in a row after the first: a confident entry */

HS_INLINE int hs_flow_lossy(__u32 retrans_segs, __u32 sent_segs)
{
	return (__u64)retrans_segs * 100 > (__u64)sent_segs * HS_LOSSY_RETRANS_PCT;
}

/* A congestion episode that began with no queue in the smoothed RTT is random loss
 * unless it lost a run while the smoothed RTT had begun to rise (rising): a queue that
 * a burst (a probe, slow start) builds within one RTT outruns the smoothed RTT, and its
 * overflow drops a run of the burst. On a 10 ms path with a 5 ms buffer, 1 of 25
 * overflows read as no queue (1.5 ms of the 2 ms threshold), and the path stayed marked
 * lossy (every later jump without the window override: Omega 0.93 against 0.96). Both
 * conditions: random loss of 1 % also loses several packets of one window, and on the
 * 5G link at 1 % the run alone let jumps keep the override (221 segments discarded). */
#define HS_OVERFLOW_RUN 4

HS_INLINE int hs_episode_random(__u32 episode_retrans, int rising)
{
	return episode_retrans < HS_OVERFLOW_RUN || !rising;
}

/* The lossy mark after a flow: a loss with no queue in the RTT marks the path lossy
 * (random loss: a jump's hole there would make the receiver discard what lies past
 * its real window). Flows without a retransmission add the segments they sent; the
 * mark clears once HS_LOSS_CLEAR_SEGS have gone out clean in a row, in one flow or
 * several. Any retransmitting flow starts the count over: with a deep buffer, random
 * loss often comes with a queue in the RTT, and reads as an overflow. A single clean
 * flow says little: at 0.1 % loss a 1,000-segment flow passes clean 37 % of the time;
 * on the 5G link such flows cleared the mark in every run, and the jumps that then
 * had the window override back met holes (receivers discarded up to 0.11 % of
 * segments). 10,000 clean segments in a row happen at 0.1 % loss with probability
 * e^-10 (4.5e-5), at 0.01 % with e^-1 (37 %). */
struct hs_loss_mark {
	__u16 flags;                /* HS_PATH_* */
	__u32 clean_segs;           /* segments sent clean in a row since the mark or the last retransmission */
};

HS_INLINE struct hs_loss_mark hs_mark_after(struct hs_loss_mark old, int loss_no_queue, __u32 retrans_segs,
					   __u32 sent_segs)
{
	struct hs_loss_mark m = old;

	if (loss_no_queue) {
		m.flags |= HS_PATH_LOSSY;
		m.clean_segs = 0;
		return m;
	}
	if (!(m.flags & HS_PATH_LOSSY)) {
		m.clean_segs = 0;
		return m;
	}
	if (retrans_segs) {
		m.clean_segs = 0;
		return m;
	}
	m.clean_segs = m.clean_segs + sent_segs < m.clean_segs ? 0xffffffffU : m.clean_segs + sent_segs;
	if (m.clean_segs >= HS_LOSS_CLEAR_SEGS) {
		m.flags &= (__u16)~HS_PATH_LOSSY;
		m.clean_segs = 0;
	}
	return m;
}

/* The entry's confidence after a flow: storing flows in a row whose estimate agreed
 * with the entry (within HS_AGREE_PCT); one that did not starts the count over. */
HS_INLINE __u32 hs_agreed_after(__u32 agreed, __u64 old_Bps, __u64 new_Bps)
{
	if (!old_Bps || old_Bps >= (1ULL << 50) || new_Bps >= (1ULL << 50))
		return 0;
	if (new_Bps * 100 < old_Bps * (100 - HS_AGREE_PCT) || new_Bps * 100 > old_Bps * (100 + HS_AGREE_PCT))
		return 0;
	return agreed < 0xffffffffU ? agreed + 1 : agreed;
}

/* A confident entry (HS_CONFIDENT_AGREED flows in a row agreed on it) is lowered by one
 * flow to no less than floor_pct of it (0: no floor): one flow that read low for its
 * own reasons (application-limited, ACK aggregation, loss recovery that the lossy rule
 * does not catch) does not undo what several agreed on; a path that really slowed
 * gets there in a few flows, and a jump on a rate still too high retreats and
 * deletes the entry. */
HS_INLINE __u64 hs_confident_floor(__u64 old_Bps, __u64 to_store, __u32 agreed, __u32 floor_pct)
{
	__u64 floor;

	if (!floor_pct || agreed < HS_CONFIDENT_AGREED || old_Bps >= (1ULL << 50))
		return to_store;
	floor = old_Bps * floor_pct / 100;
	return to_store < floor ? floor : to_store;
}

/* A flow whose data all went out in its jump, and that did not retreat, was paced at
 * its entry's rate from its first packet to its last: its ACKs show that rate, not the
 * path's capacity, and its cycles read the pacing rate, or above it where a cycle of a
 * few ACKs has its longest gap removed (warm 16-32 KB flows on a 96.5 Mbit/s path at
 * 10 ms stored 100-141 Mbit/s, and the next jump overshot). It leaves its entry as it
 * was: the literature saves only rounds that were not application-limited. */
HS_INLINE int hs_flow_only_jumped(__u32 jump_cwnd, int retreated, __u32 data_segs_out)
{
	return jump_cwnd && !retreated && data_segs_out <= jump_cwnd;
}

/* The rate to store, given the entry's (0: none) and this flow's estimate. */
HS_INLINE __u64 hs_rate_to_store(__u64 old_Bps, __u64 new_Bps, int lossy, __u32 max_raise_pct, __u64 cap_Bps)
{
	__u64 floor, limit;

	if (cap_Bps && new_Bps > cap_Bps)
		new_Bps = cap_Bps;
	if (!old_Bps)
		return new_Bps;
	/* Entries stay below 2^40 B/s (the tool refuses more) and pct below 2^10. */
	limit = old_Bps < (1ULL << 50) ? old_Bps * max_raise_pct / 100 : old_Bps;
	if (max_raise_pct && new_Bps > limit)
		new_Bps = limit;
	if (lossy && new_Bps < old_Bps) {
		floor = old_Bps - (old_Bps >> HS_LOSSY_DECAY_SHIFT);
		if (new_Bps < floor)
			new_Bps = floor;
	}
	return new_Bps;
}

#endif
