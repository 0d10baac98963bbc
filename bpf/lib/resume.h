/* Careful Resume for TCP (RFC 9959, written for QUIC; ../shared/docs/algorithms.md
 * §6): the safety envelope around a stateful start, as a pure phase machine. The
 * controllers (stateful.h) read the socket, call these functions and apply what they
 * return; host tests drive them with crafted ACK sequences (tests/c/test_resume.c).
 *
 *   handshake done ── Reconnaissance (hs_reconnaissance): entry fresh? handshake RTT
 *        │            close to the saved one? (again with the latest RTT at the jump,
 *        │            and: does the peer's budget have room?)
 *        │  no: plain kernel start (counted by reason)
 *        ▼  yes
 *   Unvalidated ── cwnd = jump (a share of the saved BDP, cut by the entry's busy
 *        │         share, capped), paced over the current RTT; PipeSize counts
 *        │         what gets delivered from here on
 *        │  first ACK of data (rate limited: flight < IW → Normal)
 *        ▼
 *   Validating ── the kernel's growth; ends when the last packet sent while
 *        │        Unvalidated is acknowledged
 *        ▼
 *   Normal (validated)
 *
 *   loss, ECN-CE or RTO while Unvalidated or Validating ──► Safe Retreat:
 *        ssthresh = PipeSize × β, cwnd ≤ PipeSize / 2 (neither below what the
 *        kernel's own start would keep after the same loss) and no growth until the
 *        last unvalidated packet is acknowledged, then (loss, ECN) ssthresh =
 *        PipeSize × β again with what the jump delivered by then; the entry is
 *        deleted (or decayed)
 *   the jump's data delivered far slower than it was paced (Validating's first
 *   quarter RTT) ──► Safe Retreat before any loss: cwnd = the delivered rate × min
 *        RTT, the queue the jump built drains instead of overflowing
 *
 * Differences from the RFC, each for a measured reason (BENCHMARKS.md at 3c45a21, Issue 11):
 *  1. TCP's handshake is the Reconnaissance round: the server has its RTT sample
 *     when the controller's init runs, so the jump follows the handshake instead of
 *     the acknowledgement of an IW (the papers' timing, one RTT earlier).
 *  2. The RTT test is symmetric (cur within [saved / f, saved × f], f = rtt_match,
 *     default 2): the RFC accepts up to 10× longer, but a saved BDP measured on a
 *     path a fifth as long is no measure of this one.
 *  3. A rate test (hs_resume_rate_check): a jump that the path delivers at less
 *     than rate_retreat_pct of its pacing rate retreats without waiting for the
 *     loss it will cause. In TCP the losses of an overshoot reach the receiver as
 *     holes, and what the sender then keeps sending beyond the receiver's real
 *     window is discarded (TcpExt BeyondWindow).
 *  4. Safe Retreat's window and ssthresh never go below what the kernel's slow
 *     start from IW would keep after the same loss (hs_kernel_floor): the RFC's
 *     PipeSize / 2 of a loss among the jump's first packets is 2-6 packets.
 *  5. The RFC saves nothing below 4 × IW; here every flow stores (the table's rules
 *     weigh it) and Reconnaissance refuses a jump from a saved BDP below
 *     min_saved_pkts (HS_MIN_JUMP_PKTS, s_cubic; lib/tuned.h): a jump of 1-4 IW gains at most an
 *     RTT or two, and on the LTE traces s_cubic's jumps below 40 packets lost 8-17 %
 *     of cubic's throughput in every cell while larger ones gained (BENCHMARKS.md at 3c45a21).
 *  6. The RFC recommends jumping to half the saved window; here the jump is the whole
 *     of it (the papers'), cut towards half by the share of recent handshakes that
 *     found the bottleneck busy (hs_yielded_jump): three quarters on every path took
 *     an idle 50 ms path's Ω from 0.993 to 0.957, and whole jumps on every path slowed
 *     a cubic client beside them at 63 % load by a median 6 % (BENCHMARKS.md at 3c45a21, Issue 11).
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
	HS_RECON_SMALL,             /* the saved BDP is below min_saved_pkts: no jump worth its risk */
	HS_RECON_SIBLINGS,          /* the peer's other flows hold the budget: less than hs_room_min_pkts of it is left */
};

struct hs_recon_in {
	__u64 now_ns, stored_ns;    /* CLOCK_BOOTTIME */
	__u32 max_age_s;            /* 0: any age */
	__u32 saved_rtt_us, cur_rtt_us;
	__u32 rtt_match;            /* factor, >= 1 */
	__u64 saved_bdp_pkts;       /* the entry's rate × saved_rtt_us, in packets */
	__u32 min_saved_pkts;       /* 0: any size */
	__u32 sibling_pkts;         /* the peer's other flows' packets in flight */
};

/* The peer's budget (RFC 9040's ensemble sharing): the saved BDP is what all of the
 * peer's open connections may have in flight together when one of them jumps. A
 * connection that becomes cwnd-limited jumps into what the others leave, no more than
 * it has to send; an idle one (a preconnect, a keep-alive between responses) holds
 * nothing. It replaces one resumer per entry (a lease), which refused 37 of a
 * browser's 64 connections to a page's server, and s_cubic's rule that refused a jump
 * beside siblings with a quarter of the BDP in flight. A jump beside them sums with
 * their windows at the peer's bottleneck: within the budget the sum is the saved BDP,
 * what one flow would have taken.
 *
 * The least room worth a jump: min_saved_pkts, at least IW. */
HS_INLINE __u32 hs_room_min_pkts(__u32 min_saved_pkts)
{
	return min_saved_pkts > HS_INIT_CWND ? min_saved_pkts : HS_INIT_CWND;
}

/* The room the peer's other flows leave of the saved BDP (0 if none). */
HS_INLINE __u32 hs_room_pkts(__u64 saved_bdp_pkts, __u32 sibling_pkts)
{
	__u64 room = saved_bdp_pkts > sibling_pkts ? saved_bdp_pkts - sibling_pkts : 0;

	return room > 0xffffffffULL ? 0xffffffffU : (__u32)room;
}

/* Whether the current RTT is the saved path's: within rtt_match (a factor, >= 1)
 * either way; HS_RECON_JUMP if so, else the reason. */
HS_INLINE enum hs_recon hs_rtt_check(__u32 saved_rtt_us, __u32 cur_rtt_us, __u32 rtt_match)
{
	__u64 f = rtt_match ? rtt_match : 1;

	if (!cur_rtt_us || !saved_rtt_us)
		return HS_RECON_NO_RTT;
	if ((__u64)cur_rtt_us * f < saved_rtt_us)
		return HS_RECON_RTT_SHORTER;
	if (cur_rtt_us > (__u64)saved_rtt_us * f)
		return HS_RECON_RTT_LONGER;
	return HS_RECON_JUMP;
}

HS_INLINE enum hs_recon hs_reconnaissance(const struct hs_recon_in *in)
{
	enum hs_recon rtt = hs_rtt_check(in->saved_rtt_us, in->cur_rtt_us, in->rtt_match);

	if (in->max_age_s && in->now_ns - in->stored_ns > (__u64)in->max_age_s * 1000000000ULL)
		return HS_RECON_EXPIRED;
	if (rtt != HS_RECON_JUMP)
		return rtt;
	if (in->saved_bdp_pkts < in->min_saved_pkts)
		return HS_RECON_SMALL;
	if (in->sibling_pkts && hs_room_pkts(in->saved_bdp_pkts, in->sibling_pkts) < hs_room_min_pkts(in->min_saved_pkts))
		return HS_RECON_SIBLINGS;
	return HS_RECON_JUMP;
}

struct hs_jump {
	__u32 cwnd;                 /* packets */
	__u32 data_cut;             /* 1: no more than the flow had to send (stateful.h hs_size_jump) */
	__u32 rwnd_cut;             /* 1: a follow-up cut to twice the receiver's window (stateful.h hs_follow_up_cap) */
	__u32 pad;
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
	__u64 jump_Bps;             /* the jump's pacing rate */
	__u64 first_ack_us;         /* when Validating began */
	__u8 phase;                 /* enum hs_phase (records.h) */
	__u8 rate_checked;          /* the rate test ran */
	__u8 beta_pct;              /* Safe Retreat's beta, for its exit */
	__u8 pad;
	__u32 jump_cwnd;            /* Unvalidated's window */
	__u32 delivered_at_jump;    /* tp->delivered when the jump began */
	__u32 delivered_at_first_ack;
	__u32 pipe_pkts;            /* PipeSize: delivered since the jump */
	__u32 last_unvalidated_seq; /* snd_nxt when Unvalidated ended */
	__u32 exit_ssthresh;        /* set when a retreat ends: PipeSize then × beta */
};

HS_INLINE void hs_resume_jump(struct hs_resume *r, const struct hs_jump *j, __u32 delivered)
{
	__builtin_memset(r, 0, sizeof(*r));
	r->phase = HS_PHASE_UNVALIDATED;
	r->jump_cwnd = j->cwnd;
	r->jump_Bps = j->pacing_Bps;
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
 * Validating or ended "rate limited": the sender did not use the jump (it sent less
 * than half of it, a short response), so the path carried nothing worth validating
 * and cwnd is what was used. A sender with data still unsent (`sending`) was held by
 * the jump's pacing, not by its application: paced over an RTT inflated by a queue
 * that drained since (a flow right behind a bulk one), a 4 MB response had sent half
 * of its jump when the first ACK came. It goes on to Validating with what is left of
 * the jump's window. */
HS_INLINE __u32 hs_resume_first_ack(struct hs_resume *r, __u32 in_flight, __u32 snd_nxt, __u32 delivered, __u64 now_us,
				     int sending, __u32 *event)
{
	*event = HS_RESUME_NONE;
	if (r->phase != HS_PHASE_UNVALIDATED)
		return 0;
	r->pipe_pkts = delivered - r->delivered_at_jump;
	r->last_unvalidated_seq = snd_nxt;
	r->first_ack_us = now_us;
	r->delivered_at_first_ack = delivered;
	if (sending) {
		__u32 left = r->jump_cwnd > r->pipe_pkts ? r->jump_cwnd - r->pipe_pkts : 0;

		r->phase = HS_PHASE_VALIDATING;
		return in_flight > left ? in_flight : left;
	}
	if (in_flight < HS_INIT_CWND || (r->pipe_pkts + in_flight) * 2 < r->jump_cwnd) {
		r->phase = HS_PHASE_NORMAL;
		*event = HS_RATE_LIMITED;
		return r->pipe_pkts + in_flight > HS_INIT_CWND ? r->pipe_pkts + in_flight : HS_INIT_CWND;
	}
	r->phase = HS_PHASE_VALIDATING;
	return in_flight;
}

HS_INLINE __u32 hs_max_u32(__u32 a, __u32 b)
{
	return a > b ? a : b;
}

/* A beta in percent, at most 100: what the knobs allow, and what keeps the products
 * below their inputs. */
HS_INLINE __u32 hs_beta_pct(__u32 beta_pct)
{
	return beta_pct <= 100 ? beta_pct : 100;
}

/* Never below the kernel's own start (difference 4): a Safe Retreat comes within the
 * jump's first rounds of ACKs, when the kernel's slow start from IW, had it delivered
 * the same packets, would hold IW + delivered (at most 2 IW a round in) and keep beta
 * of it after the same loss. PipeSize / 2 of a random loss among the jump's first
 * packets is 2-6 packets (T-Mobile trace, 1 % loss): slower than the kernel, not
 * safer. The jump's queue still drains: nothing new is sent until the flight falls
 * below the floor. Its effect on that trace was within the runs' spread (BENCHMARKS.md at 3c45a21). */
HS_INLINE __u32 hs_kernel_floor(__u32 delivered_pkts, __u32 beta_pct)
{
	__u32 w = delivered_pkts < HS_INIT_CWND ? HS_INIT_CWND + delivered_pkts : 2 * HS_INIT_CWND;
	__u32 f = w * hs_beta_pct(beta_pct) / 100;

	return f > 2 ? f : 2;
}

/* Safe Retreat's ssthresh from a PipeSize: PipeSize × beta (beta ≤ 100, so it fits),
 * never below the kernel's floor. At the retreat and again at its end. */
HS_INLINE __u32 hs_retreat_ssthresh(__u32 pipe_pkts, __u32 beta_pct)
{
	__u32 beta = hs_beta_pct(beta_pct);

	return hs_max_u32((__u32)((__u64)pipe_pkts * beta / 100), hs_kernel_floor(pipe_pkts, beta));
}

/* Every ACK: PipeSize grows with what is delivered; Validating (or a retreat) ends
 * when the last unvalidated packet is acknowledged. Returns the event to count.
 * A retreat's end sets exit_ssthresh: the RFC's ssthresh = PipeSize × β where PipeSize
 * has gone on counting what the jump delivered during the retreat (pipe_pkts keeps
 * its value at the retreat, which is what the outcome reports). Measured
 * (BENCHMARKS.md at 3c45a21, Issue 12): taken at the retreat instead, a random loss among the
 * jump's first packets left PipeSize at 3-20 packets, ssthresh at 2-10, and the flow
 * in congestion avoidance from there: on the T-Mobile trace at 1 % loss those flows
 * took 1.5x cubic's time. */
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
	r->exit_ssthresh = hs_retreat_ssthresh(delivered - r->delivered_at_jump, r->beta_pct);
	r->phase = HS_PHASE_NORMAL;  /* the retreat is over: growth may resume */
	return HS_RESUME_NONE;
}

/* ssthresh asked (loss, ECN, RTO) while Unvalidated or Validating: Safe Retreat.
 * Returns 1 and the retreat's ssthresh (PipeSize × beta_pct / 100) and cwnd cap
 * (PipeSize / 2), neither below hs_kernel_floor; 0 if no resume is in flight. `snd_nxt`
 * bounds the retreat if it comes before the first ACK (an RTO in the first RTT). */
HS_INLINE int hs_resume_retreat(struct hs_resume *r, __u32 beta_pct, __u32 snd_nxt, __u32 delivered, __u32 *ssthresh,
				__u32 *cwnd_cap)
{
	if (!hs_resume_active(r))
		return 0;
	if (r->phase == HS_PHASE_UNVALIDATED)
		r->last_unvalidated_seq = snd_nxt;
	r->pipe_pkts = delivered - r->delivered_at_jump;
	r->phase = HS_PHASE_RETREAT;
	r->beta_pct = (__u8)hs_beta_pct(beta_pct);
	*ssthresh = hs_retreat_ssthresh(r->pipe_pkts, r->beta_pct);
	*cwnd_cap = hs_max_u32(r->pipe_pkts / 2, hs_kernel_floor(r->pipe_pkts, r->beta_pct));
	return 1;
}

/* Whether an RTT sample shows a queue: Linux HyStart's delay threshold, clamp(min
 * RTT / 8, 4, 16) ms, with the floor halved to 2 ms: a 10 ms path with a half-BDP
 * buffer (5 ms) overflowed before 4 ms of queue showed. A false alarm only makes the
 * probe stop early. */
#define HS_QUEUE_DELAY_MIN_US 2000U
#define HS_QUEUE_DELAY_MAX_US 16000U

HS_INLINE __u32 hs_queue_eta(__u32 min_rtt_us)
{
	__u32 eta = min_rtt_us >> 3;

	eta = eta < HS_QUEUE_DELAY_MIN_US ? HS_QUEUE_DELAY_MIN_US : eta;
	return eta > HS_QUEUE_DELAY_MAX_US ? HS_QUEUE_DELAY_MAX_US : eta;
}

HS_INLINE int hs_queue_seen(__u32 rtt_us, __u32 min_rtt_us)
{
	if (!rtt_us || !min_rtt_us)
		return 0;
	return rtt_us > min_rtt_us + hs_queue_eta(min_rtt_us);
}

/* Half that threshold: a queue the smoothed RTT has begun to show (1.5 ms on a 10 ms
 * path as a probe's burst overflowed a 5 ms buffer). */
HS_INLINE int hs_queue_rising(__u32 rtt_us, __u32 min_rtt_us)
{
	if (!rtt_us || !min_rtt_us)
		return 0;
	return rtt_us > min_rtt_us + hs_queue_eta(min_rtt_us) / 2;
}

/* Jumps that yield to a busy bottleneck. A jump paced at the saved
 * rate fills the bottleneck by itself: every packet of another flow then waits, and a
 * Cubic flow starting beside it reads the queue as its own slow start's end (HyStart's
 * delay test, 6.25 ms at 50 ms) and leaves slow start at a few dozen packets. Measured
 * (BENCHMARKS.md at 3c45a21, Issue 11): beside such jumps a cubic client's mean FCT rose by a
 * median 6.2 % (up to 9.3 %) at 63 % load, and its slowest flows had left slow start at
 * 22-49 packets where alone they reached 89-642. No single handshake warns of it: most harmful
 * jumps saw no queue in theirs. The entry keeps, over the handshakes of the flows
 * that looked it up, the share that found the bottleneck queueing (an EWMA, gain 1/8),
 * which on a queue that stands only when the link is full is the share of time
 * others fill it; the jump is cut by that share, to at most half (RFC 9959's
 * recommended jump). A path its flows have to themselves keeps the whole jump. */
#define HS_BUSY_QUEUE_MIN_US 1000U
#define HS_BUSY_SHARE_ONE 65536U     /* busy_share's unit: 1 = every handshake */

/* A handshake RTT over the saved min RTT by a quarter of hs_queue_seen's threshold (at
 * least 1 ms): packets wait at the bottleneck (1.6 ms at 50 ms, 1 ms at 10-32 ms). */
HS_INLINE int hs_bottleneck_busy(__u32 rtt_us, __u32 min_rtt_us)
{
	__u32 t = hs_queue_eta(min_rtt_us) / 4;

	if (!rtt_us || !min_rtt_us)
		return 0;
	if (t < HS_BUSY_QUEUE_MIN_US)
		t = HS_BUSY_QUEUE_MIN_US;
	return rtt_us > min_rtt_us + t;
}

/* The entry's busy share after one more handshake. */
HS_INLINE __u32 hs_busy_share_after(__u32 share, int busy)
{
	if (share > HS_BUSY_SHARE_ONE)
		share = HS_BUSY_SHARE_ONE;
	return (__u32)(((__u64)share * 7 + (busy ? HS_BUSY_SHARE_ONE : 0)) / 8);
}

/* Overshoots: a jump the rate test found too fast for the path (a queue, and a
 * delivery rate under retreat_pct of the pace) deletes its entry, and the flow then
 * stores a fresh one; its count of them in a row goes with it. The second in a row
 * leaves a busy share of at least a half: the next jumps are RFC 9959's half of the
 * saved window, growing back to the whole by 7/8 per clean handshake. The deletion
 * alone forgets: where every estimate reads high (S-Cubic Fig. 17's +100 %) each fresh
 * entry jumped twice the BDP again, and at 27 % load the lab's s_cubic lost 1,340-1,656
 * packets at the bottleneck per 40 flows (cubic 0). One overshoot is not enough: at
 * the right estimate one jump in eight meets another flow and retreats, and halving
 * after each took that run's FCT up 9 %. A validated jump clears the count; a loss
 * retreat (random loss, perhaps) leaves it. */
#define HS_OVERSHOOTS_TO_HALVE 2

HS_INLINE __u32 hs_overshoots_after(__u32 prior, int overshot, int validated)
{
	if (overshot)
		return prior != ~0U ? prior + 1 : prior;
	return validated ? 0 : prior;
}

HS_INLINE __u32 hs_overshot_share(__u32 share, __u32 overshoots)
{
	if (overshoots < HS_OVERSHOOTS_TO_HALVE || share > HS_BUSY_SHARE_ONE / 2)
		return share;
	return HS_BUSY_SHARE_ONE / 2;
}

/* jump_pct cut by the busy share: jump_pct x (1 - share), at least jump_pct / 2. */
HS_INLINE __u32 hs_yielded_jump_pct(__u32 jump_pct, __u32 share)
{
	__u32 keep;

	if (share > HS_BUSY_SHARE_ONE / 2)
		share = HS_BUSY_SHARE_ONE / 2;
	keep = HS_BUSY_SHARE_ONE - share;
	return (__u32)((__u64)jump_pct * keep / HS_BUSY_SHARE_ONE);
}

/* The jump cut by the busy share, but not below min_pkts (s_cubic's min_jump_pkts)
 * unless the whole jump is smaller: on the T-Mobile trace, whose handshakes nearly all
 * queue, jumps cut to 22-47 packets took s_cubic from 1.19x cubic's throughput to
 * 0.89x, as jumps that small did before min_jump_pkts (BENCHMARKS.md at 3c45a21, Issue 11).
 * *cut: 1 if the result is smaller than the whole jump. Arguments as hs_jump_size's. */
HS_INLINE struct hs_jump hs_yielded_jump(__u64 bw_Bps, __u32 saved_rtt_us, __u32 cur_rtt_us, __u32 mss, __u32 jump_pct,
					 __u32 share, __u32 min_pkts, __u32 max_cwnd, __u64 max_rate_Bps, int *cut)
{
	struct hs_jump whole = hs_jump_size(bw_Bps, saved_rtt_us, cur_rtt_us, mss, jump_pct, max_cwnd, max_rate_Bps);
	struct hs_jump y = hs_jump_size(bw_Bps, saved_rtt_us, cur_rtt_us, mss, hs_yielded_jump_pct(jump_pct, share), max_cwnd,
					max_rate_Bps);

	if (y.cwnd < min_pkts)
		y = hs_jump_size(bw_Bps, saved_rtt_us, cur_rtt_us, mss, jump_pct, min_pkts < max_cwnd ? min_pkts : max_cwnd,
				 max_rate_Bps);
	*cut = y.cwnd < whole.cwnd;
	return *cut ? y : whole;
}

/* The window override is refused into a busy bottleneck: a jump
 * there is likely to overflow the buffer, and a hole in a jump sent past the receiver's
 * real window makes it discard all that lies beyond. Busy is this handshake's RTT
 * showing a rising queue (hs_queue_rising), or a smaller one (hs_bottleneck_busy) at an
 * entry whose handshakes found the bottleneck queueing in at least half of them. Beside
 * a bbr client at 63 % load, the jump whose hole made receivers discard 94-115 segments
 * had such a handshake (1.6-3.1 ms over the min at 50 ms) at such an entry
 * (BENCHMARKS.md at 3c45a21, Issue 11). A small queue alone is often a link's own scheduling
 * delay (LTE), and a busy share alone would refuse the override after a clean handshake. */
HS_INLINE int hs_bottleneck_too_busy_for_override(__u32 rtt_us, __u32 min_rtt_us, __u32 busy_share)
{
	return hs_queue_rising(rtt_us, min_rtt_us) || (busy_share >= HS_BUSY_SHARE_ONE / 2 && hs_bottleneck_busy(rtt_us, min_rtt_us));
}

/* s_bbr's window override for a jump made while other flows to the peer are open,
 * which share its bottleneck: 1 to refuse it, when one of the peer's flows lost a
 * packet within HS_QUIET_NS of now (a buffer that overflowed lately, where a jump
 * beside others is likely to lose one too). A loss stamped after `now` was read is
 * recent. Refusing beside any open sibling cost s_bbr up to 0.2x of its gain behind a
 * deep buffer, where nothing is lost; whether the open flows themselves had lost was
 * too late a sign: beside a bbr client two of 16 seeds discarded, each from a jump
 * beside a sibling that lost only after it (RESULTS: neighbours). */
HS_INLINE int hs_shared_refuses_override(__u64 last_loss_ns, __u64 now_ns)
{
	return last_loss_ns && now_ns < last_loss_ns + HS_QUIET_NS;
}

/* The rate test, on each ACK of Validating until it passes: from a quarter of the
 * current RTT on (at least 4 ms and 16 packets, so that delayed and coalesced ACKs
 * average out), the rate at which the jump's data arrive is compared with the rate
 * it was paced at. Below retreat_pct of it, with this ACK's RTT showing the queue
 * that an overshoot must build, the jump overshot the path: Safe Retreat now, and 1
 * with *cwnd = what the path delivers in one min RTT (at least IW). A low rate
 * without a queue is ACK timing, not the path (measured: on a 10 ms path a 2.5 ms
 * window of ACKs retreated from right entries, 2 flows in 44), and is tested again.
 * A pass with this ACK's RTT showing a queue ends the test only from half the RTT
 * on: a first ACK held back ~7 ms and released with those behind it reads a 2x
 * entry's quarter-RTT rate as 77 % of the paced one (the likely way 1 jump in 60
 * behind a 200 % entry got through and overflowed the buffer; none in 360 since). An
 * overshoot builds a queue by then; a right entry paced at the path's rate does not. */
HS_INLINE int hs_resume_rate_check(struct hs_resume *r, __u64 now_us, __u32 delivered, __u32 mss, __u32 cur_rtt_us,
				   __u32 min_rtt_us, __u32 rtt_us, __u32 retreat_pct, __u32 *cwnd)
{
	__u64 span = now_us - r->first_ack_us, need = cur_rtt_us / 4, pass_need = cur_rtt_us / 2, rate, bdp;
	__u32 pkts = delivered - r->delivered_at_first_ack;

	if (r->phase != HS_PHASE_VALIDATING || r->rate_checked || !retreat_pct)
		return 0;
	if (need < 4000)
		need = 4000;
	if (pass_need < need)
		pass_need = need;
	if (span < need || pkts < 16)
		return 0;
	rate = (__u64)pkts * mss * HS_USEC_PER_SEC / span;
	if (rate * 100 >= r->jump_Bps * retreat_pct) {
		if (span >= pass_need || !hs_queue_seen(rtt_us, min_rtt_us))
			r->rate_checked = 1;
		return 0;
	}
	if (!hs_queue_seen(rtt_us, min_rtt_us))
		return 0;
	r->rate_checked = 1;
	r->pipe_pkts = delivered - r->delivered_at_jump;
	r->phase = HS_PHASE_RETREAT;
	bdp = rate * min_rtt_us / HS_USEC_PER_SEC / (mss ? mss : 1);
	*cwnd = bdp > HS_INIT_CWND ? (__u32)bdp : HS_INIT_CWND;
	return 1;
}

/* After a jump the path carried at full rate, the cached BDP may still be low: s_cubic
 * keeps growing, by growth_pct % of what each ACK acknowledges
 * (25: 1.25× per RTT, HyStart++'s conservative slow start), until the RTT shows a
 * queue (hs_queue_seen), then gives up a share of that queue (probe_drain_pct,
 * hs_drained_cwnd) and leaves the rest to congestion avoidance. The kernel's HyStart is
 * held off meanwhile: its ACK-train test would read the paced jump's spread-out ACKs
 * as a full pipe.
 *
 * Two rules keep the probe from doing worse than the kernel's slow start would have:
 *  - never slower: while cwnd is below what slow start from IW would reach by the
 *    end of this round (IW × 2^(round+1), the jump's ACKs being round 0), the probe
 *    grows as slow start does (one packet per packet acked). A low entry (a path
 *    measured in loss recovery, a trace whose rate varies) otherwise left the flow
 *    at 1.25× per RTT where Cubic doubled: on the T-Mobile trace at 1 % loss the
 *    validated resumes took 1.5× cubic's time (BENCHMARKS.md at 3c45a21, Issue 12);
 *  - the queue is read from the smallest RTT of each block of HS_PROBE_RTT_SAMPLES
 *    consecutive samples, not from any one sample: over LTE and Wi-Fi single ACKs
 *    come back late by tens of milliseconds (scheduling, aggregation) with no queue
 *    behind them, and one such sample ended the probe and drained cwnd by that RTT
 *    (Verizon trace: validated resumes left with ssthresh 10-14 where Cubic had 90).
 *    Linux HyStart reads only a round's first eight samples; measured here, that
 *    saw the probe's queue a round late (a 20 % entry on the default path: 155
 *    retransmissions per flow, none with blocks). */
#define HS_PROBE_RTT_SAMPLES 8

/* cwnd after `acked` more packets while probing; *cnt carries the fraction (in
 * hundredths of a packet). */
HS_INLINE __u32 hs_probe_grow(__u32 cwnd, __u32 acked, __u32 growth_pct, __u32 *cnt)
{
	*cnt += acked * growth_pct;
	cwnd += *cnt / 100;
	*cnt %= 100;
	return cwnd;
}

/* The probe grows cwnd only while cwnd limits the flow, by the kernel's slow-start rule
 * (tcp_is_cwnd_limited: cwnd below twice the most packets in flight of the last
 * window). A flow held by the receiver's window or the application builds no queue and
 * no loss, so nothing else ended the growth: cwnd grew 1.5x per RTT for the flow's
 * life, wrapped past 2^32 in long flows (final cwnds of 10^6 to 2 x 10^9 packets in the
 * trace runs), and a window opening later let the whole of it out at once. */
HS_INLINE int hs_probe_may_grow(__u32 cwnd, __u32 max_packets_out)
{
	return (__u64)cwnd < 2 * (__u64)max_packets_out;
}

/* The probe over rounds: it begins at growth_pct; once two whole rounds passed with
 * no queue in the RTT (the first round's own overshoot shows only in the
 * second), the cached BDP was low and the growth doubles, to at most
 * HS_PROBE_MAX_GROWTH_PCT, until the queue shows. Measured (BENCHMARKS.md at 3c45a21, Issue 11):
 * a constant 25 % left a 20 % entry 8 % slower than cubic; a constant 50 % queued
 * 3.6 ms above cubic behind a right entry; doubling on to slow start's 100 %
 * overshot (14 retransmissions per flow behind a 20 % entry, none for cubic). */
#define HS_PROBE_MAX_GROWTH_PCT 50
struct hs_probe {
	__u32 round_end_seq;        /* snd_nxt when the round began */
	__u32 growth_pct;           /* cwnd grows by this share of each ACK */
	__u32 cnt;                  /* hundredths of a packet owed */
	__u32 block_min_rtt_us;     /* smallest RTT of the block being gathered */
	__u32 queue_rtt_us;         /* the RTT that ended the probe (for the drain) */
	__u8 active;
	__u8 clear_rounds;          /* rounds ended without a queue */
	__u8 block_samples;         /* RTT samples in the block */
	__u8 rounds_before;         /* rounds of ACKs the flow had before the probe began */
	__u32 floor_cap;            /* the jump's window, if the jump did not all go out: no slow-start floor above it (0: none) */
	__u32 drain_seq;            /* snd_nxt when the probe drained (hs_probe_drained) */
	__u32 drain_peak;           /* cwnd before the drain; 0 once a congestion signal came */
};

/* Measured and not kept: slow start handed back once a probe round showed room
 * (no queue, 1.12x the previous round's rate); after a low entry the kernel's slow
 * start from the handover overflowed a 1-BDP buffer at 100 Mbit/s, 50 ms (20 % entry:
 * 1,025 retransmissions vs cubic's 62), which the probe does not (RESULTS: after a jump). */
enum hs_probe_event { HS_PROBE_GOING = 0, HS_PROBE_QUEUE = 1 };

/* rounds_before: 0 when the probe follows the jump's first ACK; more when it begins
 * later (after a rate test's retreat), so that slow start from IW, the floor, is
 * where it would be by then. */
HS_INLINE void hs_probe_start(struct hs_probe *p, __u32 snd_nxt, __u32 growth_pct, __u8 rounds_before)
{
	__builtin_memset(p, 0, sizeof(*p));
	p->active = 1;
	p->round_end_seq = snd_nxt;
	p->growth_pct = growth_pct;
	p->rounds_before = rounds_before;
}

/* The growth for the next ACK: slow start's while cwnd is below where slow start
 * from IW would be at the end of this round, else the probe's. Where a jump did not
 * all go out (the receiver's first window held it: a path marked lossy gets no window
 * override), the floor stops at the jump's window (floor_cap): the entry says the
 * path holds that much, and slow start's doubling on from there reached the buffer's
 * end a round before the RTT could show the queue. Measured at 10 ms, 0.5 BDP, on a
 * path marked lossy: jumps of 80 held to 45, then the floor's doubling to 172 in a
 * 129-packet pipe and buffer, 29-54 drops per 0.5-4 MB flow (cubic 11-17). */
HS_INLINE __u32 hs_probe_growth(const struct hs_probe *p, __u32 cwnd)
{
	__u32 shift = p->clear_rounds + 1u + p->rounds_before;

	if (p->floor_cap && cwnd >= p->floor_cap)
		return p->growth_pct;
	if (shift < 16 && cwnd < ((__u32)HS_INIT_CWND << shift))
		return 100;
	return p->growth_pct;
}

/* Whether the block of RTT samples gathered so far shows a queue; if so the probe is
 * over, with that block's smallest RTT in queue_rtt_us. */
HS_INLINE int hs_probe_block_ends_it(struct hs_probe *p, __u32 min_rtt_us)
{
	if (!hs_queue_seen(p->block_min_rtt_us, min_rtt_us))
		return 0;
	p->queue_rtt_us = p->block_min_rtt_us;
	p->active = 0;
	return 1;
}

/* Every ACK while probing: HS_PROBE_QUEUE if the RTT shows a queue (the probe is over;
 * the RTT that showed it is in queue_rtt_us). rtt_us 0: no sample on this ACK. */
HS_INLINE int hs_probe_on_ack(struct hs_probe *p, __u32 rtt_us, __u32 min_rtt_us, __u32 snd_una, __u32 snd_nxt)
{
	if (!p->active)
		return HS_PROBE_GOING;
	if (rtt_us) {
		if (!p->block_samples || rtt_us < p->block_min_rtt_us)
			p->block_min_rtt_us = rtt_us;
		if (++p->block_samples == HS_PROBE_RTT_SAMPLES) {
			p->block_samples = 0;
			if (hs_probe_block_ends_it(p, min_rtt_us))
				return HS_PROBE_QUEUE;
		}
	}
	if (!hs_seq_before(snd_una, p->round_end_seq)) {
		p->round_end_seq = snd_nxt;
		if (p->clear_rounds < 255)
			p->clear_rounds++;
		if (p->clear_rounds >= 2 && p->growth_pct < HS_PROBE_MAX_GROWTH_PCT)
			p->growth_pct = p->growth_pct * 2 > HS_PROBE_MAX_GROWTH_PCT ? HS_PROBE_MAX_GROWTH_PCT : p->growth_pct * 2;
	}
	return HS_PROBE_GOING;
}

/* The window without drain_pct % of the queue, at least IW (or cwnd, if that is
 * less). The queue is cwnd minus the pipe, and the pipe is read two ways: cwnd × min
 * RTT / RTT, and the delivery rate × min RTT (rate_pipe, 0: none). The RTT the probe
 * ended on is the smallest of a block of samples sent up to a round before: it lags
 * the window, so its pipe reads high (10 ms path, 0.5 BDP buffer: 104 packets of an
 * 85-packet pipe, and congestion avoidance from there overflowed the 43-packet buffer
 * with 1-2 drops that cost the flow 4 %). Once a queue shows, the delivery rate is the
 * bottleneck's: the lower of the two is taken, but never below floor (the validated
 * jump's window, so that a rate sample taken in a lull cannot drain below what the
 * path carried). */
HS_INLINE __u32 hs_drained_cwnd(__u32 cwnd, __u32 min_rtt_us, __u32 rtt_us, __u32 drain_pct, __u32 rate_pipe,
				__u32 floor)
{
	__u64 empty = rtt_us > min_rtt_us ? (__u64)cwnd * min_rtt_us / rtt_us : cwnd;
	__u64 c;

	if (rate_pipe && rate_pipe < empty)
		empty = rate_pipe > floor ? rate_pipe : (floor < empty ? floor : empty);
	c = cwnd - (cwnd - empty) * (drain_pct > 100 ? 100 : drain_pct) / 100;
	if (c >= HS_INIT_CWND)
		return (__u32)c;
	return cwnd < HS_INIT_CWND ? cwnd : HS_INIT_CWND;
}

/* The drain answered the queue the probe built. Data sent before it went into that
 * queue: a loss (or a CE mark) of it is the same congestion event, and Cubic's beta
 * on top of the drain took cwnd below the pipe. Measured at 10 ms, 0.5 BDP: half the
 * 2-4 MB flows lost one packet of the probe's last round after the drain, were left
 * with ssthresh 77-79 on an 86-packet pipe, and took 8 % longer than those whose first
 * loss came later in congestion avoidance (ssthresh 92-93). One response per event
 * (RFC 6582): the larger cut of the two, the drain or beta from the window the probe
 * reached; taking the drain alone (112 there) queued 0.35 ms more than cubic's cut. */
HS_INLINE void hs_probe_drained(struct hs_probe *p, __u32 snd_nxt, __u32 peak_cwnd)
{
	p->drain_seq = snd_nxt;
	p->drain_peak = peak_cwnd;
}

/* At the first congestion signal after the drain: the window the probe reached if the
 * signal is the drained event's (the first unacknowledged data went out before the
 * drain), else 0. Once only. */
HS_INLINE __u32 hs_probe_drain_answers(struct hs_probe *p, __u32 snd_una)
{
	__u32 peak = p->drain_peak && hs_seq_before(snd_una, p->drain_seq) ? p->drain_peak : 0;

	p->drain_peak = 0;
	return peak;
}

/* ssthresh for the drained event's signal: Cubic's own (beta of cwnd now), or beta of
 * the window the probe reached if that is more, but no more than cwnd now. */
HS_INLINE __u32 hs_drained_event_ssthresh(__u32 ssthresh, __u32 cwnd, __u32 peak_cwnd, __u32 beta_pct)
{
	__u64 from_peak = (__u64)peak_cwnd * beta_pct / 100;

	if (from_peak > cwnd)
		from_peak = cwnd;
	return from_peak > ssthresh ? (__u32)from_peak : ssthresh;
}

/* The pipe a delivery rate sample implies: delivered packets over interval_us, times
 * min RTT (0: no sample). */
HS_INLINE __u32 hs_rate_pipe(__u32 delivered, __u32 interval_us, __u32 min_rtt_us)
{
	__u64 pipe;

	if (!delivered || !interval_us || !min_rtt_us)
		return 0;
	pipe = (__u64)delivered * min_rtt_us / interval_us;
	return pipe > 0xffffffffULL ? 0xffffffffU : (__u32)pipe;
}

/* The loss floor: the ssthresh the kernel's slow start from IW would keep after
 * a loss that came with `delivered_pkts` packets delivered (cwnd IW + delivered, no
 * earlier loss), times beta. A random loss strikes after a number of packets, not
 * RTTs; from a low jump the probe grows 0.25-0.5 per packet delivered where slow start
 * grows 1, so the first loss found s_cubic's window far below cubic's under the same
 * losses (20 % entry, 0.1 % loss: ssthresh 76 against cubic's 353; BENCHMARKS.md at 3c45a21). */
#define HS_CUBIC_BETA_PCT 70      /* the kernel Cubic's beta, 717/1024 */
HS_INLINE __u32 hs_random_loss_floor(__u32 delivered_pkts, __u32 beta_pct)
{
	__u64 w = (__u64)HS_INIT_CWND + delivered_pkts;
	__u64 f = w * hs_beta_pct(beta_pct) / 100;

	return f > HS_MAX_START_CWND ? HS_MAX_START_CWND : (__u32)f;
}

/* In a retreat, cwnd must not grow until the last unvalidated packet is acked. */
HS_INLINE int hs_resume_holds_growth(const struct hs_resume *r)
{
	return r->phase == HS_PHASE_RETREAT;
}

/* A retransmission timeout ends the resume (RFC 9959: "an RTO ends the resume"): the
 * retreat's ssthresh stays, and from then on the kernel's own response runs (cwnd 1,
 * slow start up to ssthresh). Holding growth until the last unvalidated packet is
 * acknowledged is for a retreat that recovers with SACK; after an RTO that lost the
 * jump's tail without SACK (a receiver that discarded it beyond its window) cwnd stayed
 * at one packet and the tail went out one packet per RTT: a 1 MB flow took 19 s
 * against cubic's 0.4 s (BENCHMARKS.md at 3c45a21, Issue 11). A resume still Unvalidated or
 * Validating ends too (retreat_on=queue answers a loss or an RTO with no queue as the
 * kernel would, without a retreat): returns 1 then, for the caller to count. */
HS_INLINE int hs_resume_rto(struct hs_resume *r)
{
	int in_flight = hs_resume_active(r);

	if (in_flight || r->phase == HS_PHASE_RETREAT) {
		r->phase = HS_PHASE_NORMAL;
		r->exit_ssthresh = 0;
	}
	return in_flight;
}

#endif
