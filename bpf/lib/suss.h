/* SUSS arithmetic (SUSS: Speeding Up Slow Start, SIGCOMM 2024, §3-4, Appendix A),
 * pure, so that host tests can replay the paper's examples.
 *
 * In round i the blue part of the ACK train (ACKs of the previous round's ACK-clocked
 * packets) arrives over dt_blue. Scaled to the whole train (eq. 9):
 *     dt_train = cwnd_prev / blue_prev * dt_blue
 * Growth continues next round if the train stays within minRTT/2 (eq. 6, HyStart's
 * first condition one round ahead) and the delay extrapolated one round ahead stays
 * within HyStart's 1.125 x minRTT (eqs. 7-8). Appendix A: the largest k <= k_max
 * with dt_train <= minRTT / 2^(k+1) gives G = 2^(k+1); no k gives G = 2.
 * Units: microseconds, packets. */
#ifndef HS_SUSS_H
#define HS_SUSS_H

#include "types.h"

#define SUSS_K_MAX_LIMIT 4

/* Eq. 9: the whole train's length from its blue part. */
HS_INLINE __u64 suss_train_us(__u64 dt_blue_us, __u32 cwnd_prev, __u32 blue_prev)
{
	if (!blue_prev)
		return ~0ULL;
	return dt_blue_us * cwnd_prev / blue_prev;
}

/* Eq. 8: moRTT_i + (moRTT_i - minRTT) / r <= 1.125 minRTT, r >= 1 the rounds since
 * minRTT was last lowered. Integer form: 8 * r * moRTT + 8 * (moRTT - minRTT)
 * <= 9 * r * minRTT. */
HS_INLINE int suss_delay_ok(__u32 mo_rtt_us, __u32 min_rtt_us, __u32 r)
{
	__u64 mo = mo_rtt_us, mn = min_rtt_us;

	if (!r)
		r = 1;
	if (mo < mn)
		mo = mn;
	return 8 * r * mo + 8 * (mo - mn) <= 9 * r * mn;
}

/* The growth factor G_i for the next round (Algorithm 1, Appendix A). */
HS_INLINE __u32 suss_growth_factor(__u64 dt_blue_us, __u32 cwnd_prev, __u32 blue_prev, __u32 min_rtt_us,
				   __u32 mo_rtt_us, __u32 r, __u32 k_max)
{
	__u64 train = suss_train_us(dt_blue_us, cwnd_prev, blue_prev);
	__u32 g = 2;

	if (!min_rtt_us || !suss_delay_ok(mo_rtt_us, min_rtt_us, r))
		return 2;
	if (k_max > SUSS_K_MAX_LIMIT)
		k_max = SUSS_K_MAX_LIMIT;
	for (__u32 k = 1; k <= SUSS_K_MAX_LIMIT; k++) {
		if (k > k_max)
			break;
		/* dt_train <= minRTT / 2^(k+1) */
		if ((train << (k + 1)) <= min_rtt_us)
			g = 2U << k;
	}
	return g;
}

/* Eq. 11: the pacing period's rate, cwnd_i / minRTT, in bytes per second. */
HS_INLINE __u64 suss_pacing_rate(__u32 cwnd_pkts, __u32 mss, __u32 min_rtt_us)
{
	if (!min_rtt_us)
		return 0;
	return (__u64)cwnd_pkts * mss * HS_USEC_PER_SEC / min_rtt_us;
}

#endif
