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
 * with a 30 ms stall this cut the discards by only 14-17 % (BENCHMARKS.md, Issue 11). */
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
		return win;
	}
	if (win > g->peak)
		g->peak = win;
	return win >= g->field ? win : g->field;
}

#endif
