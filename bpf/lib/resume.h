/* Careful Resume for TCP (RFC 9959, written for QUIC; ../shared/docs/algorithms.md
 * §6): the safety envelope around a stateful start, as a pure phase machine. The
 * controllers (stateful.h) read the socket, call these functions and apply what they
 * return; host tests drive them with crafted ACK sequences (tests/c/test_resume.c).
 *
 *   handshake done ── Reconnaissance (hs_reconnaissance): entry fresh? handshake RTT
 *        │            close to the saved one? nobody else resuming from it?
 *        │  no: plain kernel start (counted by reason)
 *        ▼  yes
 *   Unvalidated ── cwnd = jump (a share of the saved BDP, capped), paced over the
 *        │         current RTT; PipeSize counts what gets delivered from here on
 *        │  first ACK of data (rate limited: flight < IW → Normal)
 *        ▼
 *   Validating ── the kernel's growth; ends when the last packet sent while
 *        │        Unvalidated is acknowledged
 *        ▼
 *   Normal (validated)
 *
 *   loss, ECN-CE or RTO while Unvalidated or Validating ──► Safe Retreat:
 *        ssthresh = PipeSize × β, cwnd ≤ PipeSize / 2 and no growth until the last
 *        unvalidated packet is acknowledged; the entry is deleted (or decayed)
 *
 * Differences from the RFC, each for a measured reason (BENCHMARKS.md, Issue 11):
 *  1. TCP's handshake is the Reconnaissance round: the server has its RTT sample
 *     when the controller's init runs, so the jump follows the handshake instead of
 *     the acknowledgement of an IW (the papers' timing, one RTT earlier).
 *  2. The RTT test is symmetric (cur within [saved / f, saved × f], f = rtt_match,
 *     default 2): the RFC accepts up to 10× longer, but a saved BDP measured on a
 *     path a fifth as long is no measure of this one.
 * Units: packets, microseconds, nanoseconds (clock), bytes per second. */
#ifndef HS_RESUME_H
#define HS_RESUME_H

#include "startup.h"
#include "../records.h"

/* Reconnaissance: why a flow did or did not jump (counted per controller). */
enum hs_recon {
	HS_RECON_JUMP = 0,
	HS_RECON_EXPIRED,           /* older than max_age_s: the entry is deleted */
	HS_RECON_NO_RTT,            /* no handshake RTT sample to compare */
	HS_RECON_RTT_SHORTER,       /* cur RTT < saved / rtt_match: a different path */
	HS_RECON_RTT_LONGER,        /* cur RTT > saved × rtt_match */
	HS_RECON_BUSY,              /* another flow is resuming from this entry */
};

struct hs_recon_in {
	__u64 now_ns, stored_ns;    /* CLOCK_BOOTTIME */
	__u64 busy_until_ns;        /* the entry's resume lease (0: free) */
	__u32 max_age_s;            /* 0: any age */
	__u32 saved_rtt_us, cur_rtt_us;
	__u32 rtt_match;            /* factor, >= 1 */
};

HS_INLINE enum hs_recon hs_reconnaissance(const struct hs_recon_in *in)
{
	__u64 f = in->rtt_match ? in->rtt_match : 1;

	if (in->max_age_s && in->now_ns - in->stored_ns > (__u64)in->max_age_s * 1000000000ULL)
		return HS_RECON_EXPIRED;
	if (!in->cur_rtt_us || !in->saved_rtt_us)
		return HS_RECON_NO_RTT;
	if ((__u64)in->cur_rtt_us * f < in->saved_rtt_us)
		return HS_RECON_RTT_SHORTER;
	if (in->cur_rtt_us > (__u64)in->saved_rtt_us * f)
		return HS_RECON_RTT_LONGER;
	if (in->busy_until_ns > in->now_ns)
		return HS_RECON_BUSY;
	return HS_RECON_JUMP;
}

/* How long a resumer holds its entry: the jump and its validation take about two
 * current RTTs; a lease, not a lock, so a flow that dies early frees it anyway. */
HS_INLINE __u64 hs_resume_lease_ns(__u32 cur_rtt_us)
{
	return 4ULL * cur_rtt_us * 1000 + 100000000ULL;  /* 4 RTT + 100 ms */
}

struct hs_jump {
	__u32 cwnd;                 /* packets */
	__u64 pacing_Bps;
};

/* Unvalidated's window and rate: jump_pct of the saved BDP (bw × saved RTT), at
 * least IW, at most max_cwnd packets; paced so that it spans the current RTT, at
 * most max_rate_Bps (which then shrinks the window to what that rate sends in one
 * current RTT). */
HS_INLINE struct hs_jump hs_jump_size(__u64 bw_Bps, __u32 saved_rtt_us, __u32 cur_rtt_us, __u32 mss, __u32 jump_pct,
				      __u32 max_cwnd, __u64 max_rate_Bps)
{
	struct hs_jump j = { .cwnd = HS_INIT_CWND, .pacing_Bps = 0 };
	__u64 cwnd = hs_bdp_packets(bw_Bps, saved_rtt_us, mss) * jump_pct / 100;

	if (!mss || !cur_rtt_us)
		return j;
	if (max_cwnd > HS_MAX_START_CWND)
		max_cwnd = HS_MAX_START_CWND;
	if (cwnd > max_cwnd)
		cwnd = max_cwnd;
	if (max_rate_Bps && cwnd * mss * HS_USEC_PER_SEC / cur_rtt_us > max_rate_Bps)
		cwnd = max_rate_Bps * cur_rtt_us / HS_USEC_PER_SEC / mss;
	if (cwnd < HS_INIT_CWND)
		cwnd = HS_INIT_CWND;
	j.cwnd = (__u32)cwnd;
	j.pacing_Bps = cwnd * mss * HS_USEC_PER_SEC / cur_rtt_us;
	return j;
}

/* Events the controller counts (records.h: HS_RESUME_*), or HS_RESUME_NONE. */
#define HS_RESUME_NONE 0xffffffffU

struct hs_resume {
	__u8 phase;                 /* enum hs_phase (records.h) */
	__u8 retreat_kind;          /* what caused the retreat (enum hs_retreat_kind) */
	__u8 pad[2];
	__u32 jump_cwnd;            /* Unvalidated's window */
	__u32 delivered_at_jump;    /* tp->delivered when the jump began */
	__u32 pipe_pkts;            /* PipeSize: delivered since the jump */
	__u32 last_unvalidated_seq; /* snd_nxt when Unvalidated ended */
	__u32 pad2;
};

HS_INLINE void hs_resume_jump(struct hs_resume *r, __u32 jump_cwnd, __u32 delivered)
{
	__builtin_memset(r, 0, sizeof(*r));
	r->phase = HS_PHASE_UNVALIDATED;
	r->jump_cwnd = jump_cwnd;
	r->delivered_at_jump = delivered;
}

HS_INLINE int hs_resume_active(const struct hs_resume *r)
{
	return r->phase == HS_PHASE_UNVALIDATED || r->phase == HS_PHASE_VALIDATING;
}

HS_INLINE int hs_seq_before(__u32 a, __u32 b)
{
	return (__s32)(a - b) < 0;
}

/* The first ACK of data: Unvalidated ends. Returns the cwnd to continue with (eq. 3
 * of Stateful-TCP: max(in flight, IW)); *event says whether the resume goes on to
 * Validating or ended "rate limited" (the sender did not use the jump). */
HS_INLINE __u32 hs_resume_first_ack(struct hs_resume *r, __u32 in_flight, __u32 snd_nxt, __u32 delivered, __u32 *event)
{
	*event = HS_RESUME_NONE;
	if (r->phase != HS_PHASE_UNVALIDATED)
		return 0;
	r->pipe_pkts = delivered - r->delivered_at_jump;
	r->last_unvalidated_seq = snd_nxt;
	if (in_flight < HS_INIT_CWND) {
		r->phase = HS_PHASE_NORMAL;
		*event = HS_RATE_LIMITED;
		return r->pipe_pkts + in_flight > HS_INIT_CWND ? r->pipe_pkts + in_flight : HS_INIT_CWND;
	}
	r->phase = HS_PHASE_VALIDATING;
	return in_flight;
}

/* Every ACK: PipeSize grows with what is delivered; Validating (or a retreat) ends
 * when the last unvalidated packet is acknowledged. Returns the event to count. */
HS_INLINE __u32 hs_resume_on_ack(struct hs_resume *r, __u32 snd_una, __u32 delivered)
{
	if (!hs_resume_active(r) && r->phase != HS_PHASE_RETREAT)
		return HS_RESUME_NONE;
	if (r->phase != HS_PHASE_RETREAT)
		r->pipe_pkts = delivered - r->delivered_at_jump;
	if (r->phase == HS_PHASE_UNVALIDATED || hs_seq_before(snd_una, r->last_unvalidated_seq))
		return HS_RESUME_NONE;
	if (r->phase == HS_PHASE_VALIDATING) {
		r->phase = HS_PHASE_NORMAL;
		return HS_VALIDATED;
	}
	r->phase = HS_PHASE_NORMAL;  /* the retreat is over: growth may resume */
	return HS_RESUME_NONE;
}

/* ssthresh asked (loss, ECN, RTO) while Unvalidated or Validating: Safe Retreat.
 * Returns 1 and the retreat's ssthresh (PipeSize × beta_pct / 100, at least 2) and
 * cwnd cap (PipeSize / 2, at least 2); 0 if no resume is in flight. `snd_nxt`
 * bounds the retreat if it comes before the first ACK (an RTO in the first RTT). */
HS_INLINE int hs_resume_retreat(struct hs_resume *r, __u32 beta_pct, __u32 snd_nxt, __u32 delivered, __u32 *ssthresh,
				__u32 *cwnd_cap)
{
	__u64 s;

	if (!hs_resume_active(r))
		return 0;
	if (r->phase == HS_PHASE_UNVALIDATED)
		r->last_unvalidated_seq = snd_nxt;
	r->pipe_pkts = delivered - r->delivered_at_jump;
	r->phase = HS_PHASE_RETREAT;
	s = (__u64)r->pipe_pkts * beta_pct / 100;
	*ssthresh = s > 2 ? (__u32)s : 2;
	*cwnd_cap = r->pipe_pkts / 2 > 2 ? r->pipe_pkts / 2 : 2;
	return 1;
}

/* In a retreat, cwnd must not grow until the last unvalidated packet is acked. */
HS_INLINE int hs_resume_holds_growth(const struct hs_resume *r)
{
	return r->phase == HS_PHASE_RETREAT;
}

#endif
