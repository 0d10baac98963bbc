/* Missed hooks: the kernel sometimes moves a BPF congestion control's flow into
 * Recovery without running the controller's ssthresh and set_state programs.
 *
 * Measured on this kernel (6.18, BPF struct_ops; BENCHMARKS.md at 3c45a21, Issue 12, "Missed
 * hooks"): about one loss episode in a few thousand enters Recovery with neither
 * program having run (a trace of every call in the programs themselves shows none
 * between the last Disorder and the ACK that finds Recovery), and ssthresh holds a
 * stale kernel stack word (0x81104110, the low half of a return address of the SRSO
 * return thunk, or another leftover). The kernel then sizes cwnd from it: PRR lets a
 * burst of up to the receiver's window out at once, and Recovery's end sets cwnd =
 * ssthresh (10^5 to 2 x 10^9 packets). The kernel's own Cubic never does this; the
 * programs' recursion-miss counters stay 0, so the cause is below them.
 *
 * The tell-tale is exact: the socket is in a congestion state (CWR, Recovery, Loss)
 * that set_state never reported, or in a reduction (CWR, Recovery) whose start
 * (tp->high_seq, set just before the kernel asks ssthresh) is not the one ssthresh
 * last saw. The controller then replays what the kernel skipped, from the window the
 * flow had when it was skipped (tp->prior_cwnd), before the kernel acts on the ACK. */
#ifndef HS_HOOK_GUARD_H
#define HS_HOOK_GUARD_H

#include "types.h"

/* The kernel's enum tcp_ca_state, restated for host builds. */
#define HS_CA_OPEN 0
#define HS_CA_DISORDER 1
#define HS_CA_CWR 2
#define HS_CA_RECOVERY 3
#define HS_CA_LOSS 4

struct hs_hook_guard {
	__u32 reduction_seq;        /* tp->high_seq when ssthresh last ran */
	__u8 told_state;            /* the last state set_state was given */
	__u8 pad[3];
};

/* init: the state the flow starts in (Open, or the current one when the controller
 * is set on a running connection). */
HS_INLINE void hs_guard_init(struct hs_hook_guard *g, __u8 ca_state, __u32 high_seq)
{
	g->told_state = ca_state;
	g->reduction_seq = high_seq;
}

/* ssthresh ran: a reduction (or a loss) begins here. */
HS_INLINE void hs_guard_ssthresh(struct hs_hook_guard *g, __u32 high_seq)
{
	g->reduction_seq = high_seq;
}

/* set_state ran. */
HS_INLINE void hs_guard_told(struct hs_hook_guard *g, __u8 new_state)
{
	g->told_state = new_state;
}

/* Whether the kernel skipped this flow's ssthresh (and set_state) for the congestion
 * state it is in now. A CWR that becomes Recovery keeps its reduction (no new
 * ssthresh), and so its high_seq: that is not a miss. */
HS_INLINE int hs_guard_missed(const struct hs_hook_guard *g, __u8 ca_state, __u32 high_seq)
{
	if (ca_state < HS_CA_CWR)
		return 0;
	if (g->told_state != ca_state)
		return 1;
	return ca_state != HS_CA_LOSS && high_seq != g->reduction_seq;
}

#endif
