/* Stateful start decisions (Stateful-TCP §IV-B, Stateful-BBR §IV-B), as pure
 * arithmetic so that host tests can pin them down.
 * Units: bandwidth in bytes per second, RTT in microseconds, windows in packets. */
#ifndef HS_STARTUP_H
#define HS_STARTUP_H

#include "types.h"

#define HS_INIT_CWND 10           /* Linux's initial window, and the floor of eq. 3 */
#define HS_INFINITE_SSTHRESH 0x7fffffffU /* TCP_INFINITE_SSTHRESH: no slow-start threshold */
#define HS_MAX_START_CWND 1000000U /* no start window beyond this, whatever the table says */

/* Bandwidth-delay product in packets of `mss` bytes, rounded down. Overflow-safe for
 * any bw below 2^44 B/s (140 Tbit/s) and RTT below 2^20 us (1 s). */
HS_INLINE __u64 hs_bdp_packets(__u64 bw_Bps, __u32 rtt_us, __u32 mss)
{
	if (!mss)
		return 0;
	return bw_Bps * rtt_us / HS_USEC_PER_SEC / mss;
}

/* Eq. 3: when the first ACK ends the startup, cwnd = max(packets in flight, IW). */
HS_INLINE __u32 hs_startup_exit_cwnd(__u32 in_flight)
{
	return in_flight > HS_INIT_CWND ? in_flight : HS_INIT_CWND;
}

/* The bounds of a believable estimate (the tool refuses the same, src/bpf/table.rs):
 * a peer that holds its ACKs back shows a min RTT of seconds, not a path to start on. */
#define HS_PATH_MAX_BW_BYTES_PER_S (1ULL << 40)
#define HS_PATH_MAX_RTT_US 10000000U

/* Termination rule: keep an estimate only if it is believable and its BDP beats the
 * initial window. */
HS_INLINE int hs_worth_storing(__u64 bw_Bps, __u32 rtt_us, __u32 mss)
{
	if (!bw_Bps || !rtt_us || bw_Bps > HS_PATH_MAX_BW_BYTES_PER_S || rtt_us > HS_PATH_MAX_RTT_US)
		return 0;
	return hs_bdp_packets(bw_Bps, rtt_us, mss) > HS_INIT_CWND;
}

/* The estimation-error experiment (Stateful-TCP §V-E): the cached bandwidth scaled
 * by pct/100 (20 = -80 %, 200 = +100 %). */
HS_INLINE __u64 hs_scale_bw(__u64 bw_Bps, __u32 pct)
{
	if (bw_Bps > (1ULL << 50))  /* absurd input: do not let the product wrap */
		return bw_Bps / 100 * pct;
	return bw_Bps * pct / 100;
}

/* Stateful-BBR's store rule: a flow shorter than the cached BDP underestimates,
 * so it may create an entry but not overwrite one. */
HS_INLINE int hs_bbr_may_overwrite(__u64 flow_bytes, __u64 cached_bw_Bps, __u32 cached_rtt_us)
{
	__u64 cached_bdp_bytes = cached_bw_Bps * cached_rtt_us / HS_USEC_PER_SEC;

	return flow_bytes >= cached_bdp_bytes;
}

/* BBR's bandwidth unit (tcp_bbr.c): packets per microsecond, scaled by 2^24. */
#define HS_BBR_BW_SCALE 24

HS_INLINE __u64 hs_bbr_bw_to_Bps(__u64 bw_units, __u32 mss)
{
	return (bw_units * mss * HS_USEC_PER_SEC) >> HS_BBR_BW_SCALE;
}

/* The inverse, saturated to BBR's 32-bit full_bw field. */
HS_INLINE __u32 hs_bbr_bw_from_Bps(__u64 bw_Bps, __u32 mss)
{
	__u64 units;

	if (!mss)
		return 0;
	if (bw_Bps >= (1ULL << 39))  /* 4.4 Tbit/s: beyond any 32-bit BBR rate anyway */
		return ~0U;
	units = (bw_Bps << HS_BBR_BW_SCALE) / ((__u64)mss * HS_USEC_PER_SEC);
	return units > ~0U ? ~0U : (__u32)units;
}

#endif
