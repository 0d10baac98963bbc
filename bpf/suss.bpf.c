// SPDX-License-Identifier: GPL-2.0
/* suss: Cubic whose slow start grows 4x instead of 2x per round while HyStart's own
 * signals predict that growth continues (SUSS, SIGCOMM 2024, §3-5).
 *
 * The round logic is a pure state machine, lib/suss_round.h (its diagram is there),
 * tested on a virtual clock on the host; suss_start.h feeds it from the socket and
 * applies what it returns (cwnd, ssthresh, the pacing period, the kernel HyStart's
 * `found` flag, the counters), as s_cubic does on a true miss. This controller is
 * the paper's alone, for comparison: no table, no window override.
 *
 * Congestion avoidance, and slow start outside SUSS, are the kernel's Cubic (kfuncs).
 * Differences from the paper:
 *  1. No guard interval: a congestion control has no timer, so the red data is
 *     released at the last blue ACK and spread by the kernel's internal pacing.
 *  2. When the scaled ACK train already says stop, slow start ends at once
 *     (ssthresh = cwnd) rather than at a computed cap.
 * With the `suss` knob off, every hook is the kernel's Cubic, with the missed-hook guard
 * that s_cubic has (lib/hook_guard.h). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "suss_start.h"
#include "lib/hook_guard.h"
#include "late_init.h"
#include "cubic_kfuncs.h"

char _license[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct hs_suss);
} suss_flows SEC(".maps");

/* Every suss flow's missed-hook guard (lib/hook_guard.h), apart from suss_flows, which
 * exists only while SUSS runs. */
struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct hs_hook_guard);
} suss_guards SEC(".maps");

/* init's work; also run late, at the first transmission, for a flow whose init the
 * kernel skipped (late_init.h). */
static __always_inline void start_flow(struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct hs_hook_guard *g;
	struct hs_suss *f;
	struct hs_config cfg = hs_get_config();
	struct hs_lab_config lab = hs_get_lab_config();

	cubictcp_init(sk);
	hs_count(HS_CC_SUSS, HS_SUSS_FLOWS);
	g = bpf_sk_storage_get(&suss_guards, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (g)
		hs_guard_init(g, ((struct inet_connection_sock *)sk)->icsk_ca_state, tp->high_seq);
	if (!lab.suss || cfg.mode != HS_MODE_ON)
		return;
	f = bpf_sk_storage_get(&suss_flows, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!f)
		return;
	f->on = 0;
	hs_suss_begin(sk, f, &cfg, &lab);
}

SEC("struct_ops")
void BPF_PROG(suss_init, struct sock *sk)
{
	start_flow(sk);
}

/* ssthresh on a congestion signal: SUSS stops, Cubic's. */
static __always_inline __u32 congestion_ssthresh(struct sock *sk, struct hs_suss *f)
{
	if (f)
		hs_suss_on_ssthresh(sk, f);
	return cubictcp_recalc_ssthresh(sk);
}

static __always_inline void on_state(struct sock *sk, struct hs_suss *f, __u8 new_state)
{
	if (f)
		hs_suss_on_state(sk, f, new_state);
	cubictcp_state(sk, new_state);
}

/* The kernel entered CWR, Recovery or Loss without running ssthresh and set_state:
 * replayed as s_cubic does (s_cubic.bpf.c, repair_missed_hooks). Returns the guard. */
static __always_inline struct hs_hook_guard *repair_missed_hooks(struct sock *sk, struct hs_suss *f)
{
	struct hs_hook_guard *g = bpf_sk_storage_get(&suss_guards, sk, 0, 0);
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	__u8 state = ((struct inet_connection_sock *)sk)->icsk_ca_state;
	__u32 cwnd = tp->snd_cwnd;

	if (!g || !hs_guard_missed(g, state, tp->high_seq))
		return g;
	hs_count(HS_CC_SUSS, HS_SUSS_HOOKS_MISSED);
	if (tp->prior_cwnd)
		tp->snd_cwnd = tp->prior_cwnd;
	tp->snd_ssthresh = congestion_ssthresh(sk, f);
	hs_guard_ssthresh(g, tp->high_seq);
	if (tp->snd_cwnd > cwnd)
		tp->snd_cwnd = cwnd;
	on_state(sk, f, state);
	hs_guard_told(g, state);
	return g;
}

SEC("struct_ops")
void BPF_PROG(suss_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct hs_suss *f = bpf_sk_storage_get(&suss_flows, sk, 0, 0);

	repair_missed_hooks(sk, f);
	cubictcp_acked(sk, sample);
	if (f)
		hs_suss_on_ack((struct tcp_sock *)sk, f, sample->rtt_us, ~0U);
}

SEC("struct_ops")
void BPF_PROG(suss_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct hs_suss *f = bpf_sk_storage_get(&suss_flows, sk, 0, 0);

	repair_missed_hooks(sk, f);
	if (f && hs_suss_holds_growth(sk, f, ack))
		return;
	cubictcp_cong_avoid(sk, ack, acked);
}
SEC("struct_ops")
void BPF_PROG(suss_set_state, struct sock *sk, __u8 new_state)
{
	struct hs_suss *f = bpf_sk_storage_get(&suss_flows, sk, 0, 0);
	struct hs_hook_guard *g = repair_missed_hooks(sk, f);

	on_state(sk, f, new_state);
	if (g)
		hs_guard_told(g, new_state);
}

SEC("struct_ops")
__u32 BPF_PROG(suss_ssthresh, struct sock *sk)
{
	struct hs_suss *f = bpf_sk_storage_get(&suss_flows, sk, 0, 0);
	struct hs_hook_guard *g = repair_missed_hooks(sk, f);

	if (g)
		hs_guard_ssthresh(g, ((struct tcp_sock *)sk)->high_seq);
	return congestion_ssthresh(sk, f);
}

SEC("struct_ops")
void BPF_PROG(suss_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	/* Every init of suss creates its guard (unless out of memory). */
	if (event == CA_EVENT_TX_START && hs_init_was_skipped(sk, bpf_sk_storage_get(&suss_guards, sk, 0, 0))) {
		hs_count(HS_CC_SUSS, HS_SUSS_INITS_LATE);
		start_flow(sk);
	}
	cubictcp_cwnd_event(sk, event);
}

SEC("struct_ops")
__u32 BPF_PROG(suss_undo_cwnd, struct sock *sk)
{
	repair_missed_hooks(sk, bpf_sk_storage_get(&suss_flows, sk, 0, 0));
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops suss = {
	.init = (void *)suss_init,
	.ssthresh = (void *)suss_ssthresh,
	.cong_avoid = (void *)suss_cong_avoid,
	.set_state = (void *)suss_set_state,
	.undo_cwnd = (void *)suss_undo_cwnd,
	.cwnd_event = (void *)suss_cwnd_event,
	.pkts_acked = (void *)suss_acked,
	.name = "suss",
};
