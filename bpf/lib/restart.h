/* A careful restart after idle (issue 44, item 3). Linux restarts a connection that
 * has been idle for longer than its RTO with its window halved per RTO of idle, down
 * to the initial window (tcp_slow_start_after_idle = 1, the default: a keep-alive
 * response after a pause of seconds slow-starts again), or, with the sysctl at 0 as
 * many CDNs run, at its old window with no check at all: a burst at line rate into
 * whatever the path became.
 *
 * headstart's controllers do neither: the first transmission after such an idle
 * resumes at a rate the flow can justify, inside Careful Resume's checks, exactly as
 * a new flow's jump does (stateful.h): Unvalidated (paced over the latest RTT), the
 * rate test a quarter RTT into Validating, Safe Retreat on a loss. The rate is the
 * flow's own estimate (its GCBE cycles so far), or the path table's entry for the
 * peer when that was stored after this flow last sent and its RTT fits this flow's.
 * Whatever the sysctl: a write of more than IW packets jumps (the window the idle
 * left, IW after the kernel's restart or the old one without it, is replaced by the
 * jump's); a smaller one goes out with that window, as without headstart, and the
 * restart lasts only until its first ACK.
 * Units: jiffies (the kernel's idle test), nanoseconds (CLOCK_BOOTTIME). */
#ifndef HS_RESTART_H
#define HS_RESTART_H

#include "types.h"

/* tcp_slow_start_after_idle_check(): nothing in flight, and the last transmission
 * (lsndtime) more than an RTO ago. */
HS_INLINE int hs_idle_past_rto(__u32 packets_out, __u32 now_jiffies, __u32 lsndtime, __u32 rto_jiffies)
{
	return !packets_out && (__s32)(now_jiffies - lsndtime) > (__s32)rto_jiffies;
}

/* When the flow last sent, on CLOCK_BOOTTIME: now less the idle time. */
HS_INLINE __u64 hs_last_sent_ns(__u64 now_ns, __u32 now_jiffies, __u32 lsndtime, __u32 hz)
{
	__u64 idle_ns = hz ? (__u64)(__u32)(now_jiffies - lsndtime) * 1000000000ULL / hz : 0;

	return idle_ns < now_ns ? now_ns - idle_ns : 0;
}

enum hs_restart_from {
	HS_RESTART_NONE = 0,        /* nothing to resume from: the kernel's restart */
	HS_RESTART_OWN,             /* the flow's own estimate */
	HS_RESTART_TABLE,           /* the peer's entry, newer than what the flow knows */
};

/* Which memory a restart resumes from: the table's entry if one fits the flow's RTT
 * (table_fits: resume.h's hs_rtt_check) and was stored after the flow last sent (it knows more of the path
 * now), else the flow's own estimate if it has one worth a jump (own_ok). */
HS_INLINE enum hs_restart_from hs_restart_source(int own_ok, __u64 own_until_ns, int table_fits, __u64 table_stored_ns)
{
	if (table_fits && (!own_ok || table_stored_ns > own_until_ns))
		return HS_RESTART_TABLE;
	return own_ok ? HS_RESTART_OWN : HS_RESTART_NONE;
}

#endif
