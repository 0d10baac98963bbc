/* The receive-window override's decision on one incoming ACK (rwnd.bpf.c): the window
 * field the ACK goes on with. Pure, tested on the host (tests/c/test_rwnd_grant.c).
 *
 * The override lets a jump past a Linux receiver's opening window (~64 KB) on the bet
 * that the receiver takes data as fast as it comes: then its window's right edge moves
 * on with every segment, and in-order data never lands beyond it. A receiving
 * application that falls behind loses that bet: its buffer fills, and the window it
 * advertises shrinks toward zero. Raised anyway, each ACK, and each reopening after a
 * zero window, let the sender put more in flight than the buffer had room for, and the
 * receiver discarded it (TcpExt BeyondWindow). So a receiver whose own window falls
 * below HS_RWND_SHRINK_PCT % of the largest it advertised, or to zero, ends the
 * override for the rest of the flow: from then on its own window rules, as for the
 * kernel's controllers. A receiver that keeps up holds a few segments unread at most,
 * far above that line. What the jump sent before the first ACK cannot be taken back:
 * with a 30 ms stall this cut the discards by only 14-17 % (BENCHMARKS.md at 3c45a21, Issue 11).
 *
 * The discards themselves show on the wire: a Linux receiver answers each segment it
 * drops beyond its window with a duplicate ACK, and with no data held out of order
 * that ACK carries no SACK block. A path's loss never looks like that on a SACK
 * connection: what arrives after a hole is held, and SACKed. So such a dupACK while
 * the override lasts is the receiver's overrun, not the path's loss
 * (hs_rwnd_grant_watch): the grant ends, and the controller neither marks the path
 * lossy nor discredits its entry for it; instead the peer's next jumps go without the
 * override for a while (hs_overrun_holds). */
#ifndef HS_RWND_GRANT_H
#define HS_RWND_GRANT_H

#include "types.h"
#include "../records.h"

#define HS_RWND_SHRINK_PCT 75

/* `win`: the window field the receiver wrote. Returns the field to send on (`win`
 * itself, or the grant's when that is larger); ends the grant (field = 0) as above. */
HS_INLINE __u16 hs_rwnd_grant_apply(struct hs_rwnd_grant *g, __u16 win)
{
	if (!g->field)
		return win;
	if (!win || (__u32)win * 100 < (__u32)g->peak * HS_RWND_SHRINK_PCT) {
		g->field = 0;
		g->flags |= HS_GRANT_BEHIND;
		return win;
	}
	if (win > g->peak)
		g->peak = win;
	return win >= g->field ? win : g->field;
}

#define HS_TCPOPT_EOL 0
#define HS_TCPOPT_NOP 1
#define HS_TCPOPT_SACK 5
#define HS_TCP_MAX_OPTIONS 40

/* 1 if TCP options `opt` (`len` bytes, at most HS_TCP_MAX_OPTIONS; the buffer holds
 * 64) carry a SACK option (a D-SACK too). Walks kind by kind: a 5 inside another
 * option's data (a timestamp's) is no SACK. A malformed length stops the walk. */
HS_INLINE int hs_options_have_sack(const __u8 *opt, __u32 len)
{
	__u32 i = 0;

	for (int k = 0; k < HS_TCP_MAX_OPTIONS && i + 1 < len; k++) {
		__u8 kind = opt[i & 63];

		if (kind == HS_TCPOPT_EOL)
			return 0;
		if (kind == HS_TCPOPT_NOP) {
			i++;
			continue;
		}
		if (kind == HS_TCPOPT_SACK)
			return 1;
		if (opt[(i + 1) & 63] < 2)
			return 0;
		i += opt[(i + 1) & 63];
	}
	return 0;
}

/* One incoming ACK of a flow with a grant, as the tc program read it. */
struct hs_ack_seen {
	__u32 ack;                  /* acknowledgment number */
	__u16 win;                  /* the window field the receiver wrote */
	__u8 bare;                  /* no payload and no SYN, FIN or RST */
	__u8 sack;                  /* carries a SACK option (a D-SACK too) */
};

/* A bare ACK of `ack` that repeats the last one on a watched (SACK) connection: only
 * its options can still tell a hole (SACK) from an overrun. The tc program parses the
 * options of these alone. */
HS_INLINE int hs_rwnd_grant_bare_dup(const struct hs_rwnd_grant *g, __u32 ack, __u8 bare)
{
	return (g->flags & (HS_GRANT_SACK | HS_GRANT_ACKED)) == (HS_GRANT_SACK | HS_GRANT_ACKED) && bare && ack == g->last_ack;
}

/* Before hs_rwnd_grant_apply, on every ACK while the grant exists (also once ended):
 * a bare duplicate ACK without SACK, not opening the window (that would be a window
 * update), on a SACK connection, counts an overrun and ends the grant. */
HS_INLINE void hs_rwnd_grant_watch(struct hs_rwnd_grant *g, const struct hs_ack_seen *a)
{
	if (g->flags & HS_GRANT_ACKED) {
		if ((__s32)(a->ack - g->last_ack) < 0)
			return;  /* reordered: an older ACK says nothing new */
		if (hs_rwnd_grant_bare_dup(g, a->ack, a->bare) && !a->sack && a->win <= g->last_win) {
			if (g->overruns < 0xff)
				g->overruns++;
			g->field = 0;
		}
	}
	g->last_ack = a->ack;
	g->last_win = a->win;
	g->flags |= HS_GRANT_ACKED;
}

/* An ACK the grant acts on acknowledges no less than the last one seen and less than
 * HS_RWND_ACK_SPAN beyond it (before the first, any). The tc program sees ACKs before
 * the stack checks them: a forged bare ACK with a zero window and the flow's 4-tuple
 * ended the grant whatever its number. The stack drops such an ACK; here it passes
 * unchanged and changes nothing. (A legitimate ACK that far ahead would need 256 MB
 * acknowledged at once; it too passes as the receiver wrote it.) */
#define HS_RWND_ACK_SPAN (1U << 28)

HS_INLINE int hs_rwnd_ack_plausible(const struct hs_rwnd_grant *g, __u32 ack)
{
	return !(g->flags & HS_GRANT_ACKED) || ack - g->last_ack < HS_RWND_ACK_SPAN;
}

/* A peer whose receiver overran: its jumps go without the override for
 * HS_OVERRUN_BACKOFF_S after the last overrun, doubled for each one before it (up to
 * 2^HS_OVERRUN_BACKOFF_MAX_SHIFT times), as a circuit breaker would. A stall is
 * usually passing (a busy application, a core stolen), so the override comes back;
 * a receiver that keeps stalling gets it ever more rarely. The path's own loss
 * (HS_PATH_LOSSY) is not involved. */
#define HS_OVERRUN_BACKOFF_S 10
#define HS_OVERRUN_BACKOFF_MAX_SHIFT 8

HS_INLINE __u32 hs_overrun_backoff_s(__u32 overruns)
{
	__u32 shift = overruns ? overruns - 1 : 0;

	return HS_OVERRUN_BACKOFF_S << (shift < HS_OVERRUN_BACKOFF_MAX_SHIFT ? shift : HS_OVERRUN_BACKOFF_MAX_SHIFT);
}

/* 1 while the last overrun (at overrun_s, boot seconds) is within its backoff. */
HS_INLINE int hs_overrun_holds(__u32 overruns, __u32 overrun_s, __u32 now_s)
{
	return overruns && now_s - overrun_s < hs_overrun_backoff_s(overruns);
}

#endif
