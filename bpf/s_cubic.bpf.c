// SPDX-License-Identifier: GPL-2.0
/* s_cubic: Cubic with a stateful start (Stateful-TCP, IEEE Access 2020, §IV) inside
 * Careful Resume's envelope (RFC 9959; lib/resume.h has the phase diagram).
 *
 * A flow to a peer seen before starts as if it continued the previous flow:
 *
 *   handshake done ──► init: look the peer up in hs_paths, Reconnaissance
 *        │  rejected: Cubic's own slow start (IW 10), exactly the kernel's
 *        │  a true miss (no entry, no agreeing prefix): SUSS's slow start from IW 10
 *        │      once it has more to send than cwnd (suss_start.h), the receive window
 *        │      opened for each round above 2x
 *        │  go: armed, the receive window opened as far as the jump needs
 *        ▼
 *   more to send than cwnd (at a transmission; stateful.h) ──► Reconnaissance again
 *        │  on the latest RTT, then the jump (Unvalidated): cwnd = the cached BDP
 *        │  (capped), paced over that RTT; never more than IW to send: the kernel's
 *        ▼
 *   first ACK of the jump's data ──► Validating: pacing off, cwnd = max(in flight, IW) (eq. 3);
 *        │        a quarter RTT on, the rate test; growth probes until a queue
 *        │        shows in the RTT
 *        ▼
 *   every ACK ──► Cubic (kernel kfuncs) + GCBE bandwidth estimate (lib/gcbe.h, at
 *        │        most the rate its data was sent at);
 *        │        the last jump packet acked: Normal (validated)
 *        │  loss/ECN/RTO/rate test before that: Safe Retreat — ssthresh =
 *        │        PipeSize × β (the rate test: the delivered rate × min RTT), Cubic's
 *        │        W_max likewise (not the jump), no growth until the jump is acked,
 *        │        then (loss, ECN) ssthresh from all the jump delivered (rate test:
 *        │        the probe from the measured BDP); the entry
 *        │        deleted
 *        ▼
 *   idle past the RTO, then more to send than IW ──► a careful restart (lib/restart.h):
 *        the jump again, from the flow's own estimate or the peer's newer entry
 *
 *   release ──► store {median of the last 5 GCBE estimates, min RTT} unless BDP <= IW
 *
 * Everything that is Cubic is the kernel's cubic, called through its kfuncs; its
 * state (struct bictcp) fills the start of icsk_ca_priv, so ours lives in socket
 * storage. Differences from the paper:
 *  1. Startup ends at the first ACK that acknowledges data (the paper's "first
 *     ACK"); the authors' code waited for in-flight > 5 or 10 ACKs.
 *  2. Table keys are the full peer address (128 bits), not a hash slot: there are no
 *     collisions, only LRU evictions.
 *  3. Bytes delivered per ACK are the cumulative bytes acked plus the SACKed bytes
 *     outstanding (bytes_acked + sacked_out x MSS): the paper's "highest SACKed
 *     sequence" in spirit. Counting tp->delivered packets instead made the FIN, acked
 *     microseconds after the last data, look like a full MSS: 1 Gbit/s "estimates"
 *     of a 100 Mbit/s path from 4 KB flows.
 *  4. The first RTT's rate is also set as SO_MAX_PACING_RATE: the kernel recomputes
 *     a Cubic flow's pacing rate (2 x cwnd / srtt in slow start) before the first
 *     ACK, which doubled the startup rate and the queue until capped.
 *  5. What follows the jump is a probe that grows 1.25x, then 1.5x, per RTT until the
 *     RTT shows a queue (lib/resume.h), not the paper's slow start, which doubled on
 *     from one BDP and overflowed a 1-BDP buffer (see end_startup). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>
#include "stateful.h"
#include "estimator.h"
#include "suss_start.h"
#include "lib/hook_guard.h"
#include "late_init.h"
#include "cubic_kfuncs.h"

char _license[] SEC("license") = "GPL";

struct s_cubic_flow {
	struct hs_start start;      /* the stateful start (stateful.h) */
	__u32 min_rtt_us;           /* smallest RTT sample of this flow */
	struct hs_probe probe;      /* after a jump: growing until a queue shows */
	struct hs_hook_guard guard; /* hooks the kernel skipped (lib/hook_guard.h) */
	__u8 congested;             /* a congestion signal came (the loss floor: the first only) */
	__u32 loss_floor;           /* hs_random_loss_floor's ssthresh, applied when the recovery is over */
	struct hs_estimator estimator; /* GCBE, stored at release; set apart (hs_estimator_init) */
	struct hs_suss suss;        /* a true miss: SUSS's slow start (suss_start.h); last, set apart */
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct s_cubic_flow);
} s_cubic_flows SEC(".maps");

/* Cubic's pacing rate is recomputed by the kernel before the first ACK: capped. A
 * sibling flow to the peer leaves the override on: refusing it turned validated jumps
 * (then the probe) into rate-limited ones (then slow start), and beside a cubic client
 * at 512 KB, 63 % its median rose +2.9 % against -1.0 % (RESULTS: neighbours). The
 * room rule and the smallest jump: lib/resume.h, lib/tuned.h. */
static const struct hs_policy s_cubic_policy = {
	.cap_pacing = 1, .shared_no_rwnd = 0, .min_saved_pkts = HS_MIN_JUMP_PKTS,
};

/* init's work; also run late, at the first transmission, for a flow whose init the
 * kernel skipped (late_init.h). */
static __always_inline void start_flow(struct sock *sk)
{
	struct s_cubic_flow *flow;
	struct hs_config cfg = hs_get_config();
	struct hs_lab_config lab = hs_get_lab_config();

	cubictcp_init(sk);
	flow = bpf_sk_storage_get(&s_cubic_flows, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!flow) {  /* no memory for our state: the flow is plain Cubic */
		hs_count(HS_CC_S_CUBIC, HS_FLOWS);
		return;
	}
	/* All but the estimator's and SUSS's state, which hs_estimator_init and
	 * hs_suss_begin set: clang writes out no memset this long for BPF. */
	__builtin_memset(flow, 0, __builtin_offsetof(struct s_cubic_flow, estimator));
	flow->suss.on = flow->suss.armed = 0;
	hs_guard_init(&flow->guard, ((struct inet_connection_sock *)sk)->icsk_ca_state, hs_tcp_sk(sk)->high_seq);
	hs_estimator_init(&flow->estimator, hs_tcp_sk(sk), &lab, 0);
	hs_begin(sk, HS_CC_S_CUBIC, &flow->start, &cfg, &lab, &s_cubic_policy);
	if (flow->start.outcome == HS_MISSES && lab.startup) {
		flow->suss.armed = 1;
		flow->suss.window = cfg.rwnd_override;  /* decided at init, as a jump's override */
	}
}

/* A true miss starts SUSS's rounds when it first has more to send than its window, as
 * an armed jump does (stateful.h, hs_try_jump): over TLS the rounds before are the
 * handshake's flight and the wait for the request, app-limited, whose short ACK trains
 * SUSS took for the path's. Started at init, 4 of 6 cold 1 MB HTTPS flows at 100 ms
 * handed over to the kernel's doubling at their first decision (Cubic's FCT to the ms). */
static __always_inline void suss_when_data(struct sock *sk, struct s_cubic_flow *flow)
{
	struct tcp_sock *tp = hs_tcp_sk(sk);
	struct hs_config cfg;
	struct hs_lab_config lab;

	if (!flow->suss.armed || hs_packets_wanted(tp) <= tp->snd_cwnd)
		return;
	flow->suss.armed = 0;
	cfg = hs_get_config();
	lab = hs_get_lab_config();
	if (hs_suss_begin(sk, &flow->suss, &cfg, &lab))
		hs_count(HS_CC_S_CUBIC, HS_SUSS_STARTS);
}

SEC("struct_ops")
void BPF_PROG(s_cubic_init, struct sock *sk)
{
	start_flow(sk);
}

/* ssthresh on a congestion signal (or on the replay of one the kernel skipped): Cubic's,
 * except during a resume: Safe Retreat, whose plateau (W_max) is what the path
 * delivered, not the jump that overshot it; and losses of the jump's own packets after
 * a retreat are not answered twice. */
static __always_inline __u32 congestion_ssthresh(struct sock *sk, struct s_cubic_flow *flow)
{
	__u32 ssthresh = cubictcp_recalc_ssthresh(sk);
	struct tcp_sock *tp = hs_tcp_sk(sk);
	int first = !flow->congested, probing = flow->probe.active;
	__u32 drained_peak = hs_probe_drain_answers(&flow->probe, tp->snd_una);
	__u32 retreat, pipe;

	hs_suss_on_ssthresh(sk, &flow->suss);
	hs_guard_ssthresh(&flow->guard, tp->high_seq);
	hs_note_congestion(sk, HS_CC_S_CUBIC, &flow->start, flow->min_rtt_us);
	flow->congested = 1;
	flow->loss_floor = 0;
	flow->probe.active = 0;
	flow->start.resume.exit_ssthresh = 0;  /* a new congestion signal outranks a retreat's exit */
	if (flow->start.resume.phase == HS_PHASE_RETREAT) {
		/* A second signal in the retreat keeps the retreat's ssthresh. The kernel's
		 * undo of a spurious loss puts back the one from before it (infinite in a
		 * jump's first rounds): never answer with that, PRR would grow cwnd toward
		 * 2^31; Cubic's own answer then. */
		retreat = tp->snd_ssthresh < HS_INFINITE_SSTHRESH ? tp->snd_ssthresh : ssthresh;
		hs_cubic_of(sk)->last_max_cwnd = retreat;
		return retreat;
	}
	if (!hs_resume_active(&flow->start.resume)) {
		/* The probe's drain was this event's response (hs_probe_drain_answers). */
		if (drained_peak) {
			hs_count(HS_CC_S_CUBIC, HS_PROBE_DRAIN_ANSWERED);
			hs_cubic_of(sk)->last_max_cwnd = drained_peak;
			return hs_drained_event_ssthresh(ssthresh, tp->snd_cwnd, drained_peak, HS_CUBIC_BETA_PCT);
		}
		/* a random first loss while probing (lib/resume.h, hs_random_loss_floor) */
		if (first && probing && !hs_queue_seen(tp->srtt_us >> 3, flow->min_rtt_us))
			flow->loss_floor = hs_random_loss_floor(tp->delivered, HS_CUBIC_BETA_PCT);
		return ssthresh;
	}
	if (!hs_retreat(sk, HS_CC_S_CUBIC, &flow->start, &retreat, &pipe))
		return ssthresh;
	hs_cubic_of(sk)->last_max_cwnd = pipe;
	return retreat;
}

static __always_inline void tell_state(struct sock *sk, struct s_cubic_flow *flow, __u8 new_state)
{
	hs_guard_told(&flow->guard, new_state);
	hs_suss_on_state(sk, &flow->suss, new_state);
	hs_on_ca_state(sk, HS_CC_S_CUBIC, &flow->start, new_state);
	cubictcp_state(sk, new_state);
}

/* The kernel entered CWR, Recovery or Loss without running ssthresh and set_state
 * (lib/hook_guard.h): both are replayed as the kernel would have run them, with the
 * window the flow had then (prior_cwnd), and cwnd comes back from what the stale
 * ssthresh let PRR set (up to 2 x 10^9). Runs first in every hook, before the kernel
 * acts on the ACK at hand. */
static __always_inline void repair_missed_hooks(struct sock *sk, struct s_cubic_flow *flow)
{
	struct tcp_sock *tp = hs_tcp_sk(sk);
	__u8 state = ((struct inet_connection_sock *)sk)->icsk_ca_state;
	__u32 cwnd = tp->snd_cwnd;

	if (!hs_guard_missed(&flow->guard, state, tp->high_seq))
		return;
	hs_count(HS_CC_S_CUBIC, HS_HOOKS_MISSED);
	if (tp->prior_cwnd)
		tp->snd_cwnd = tp->prior_cwnd;
	/* In a retreat ssthresh stays the retreat's, which the stale word replaced. */
	if (flow->start.resume.phase == HS_PHASE_RETREAT)
		tp->snd_ssthresh = hs_retreat_ssthresh(flow->start.resume.pipe_pkts, flow->start.resume.beta_pct);
	tp->snd_ssthresh = congestion_ssthresh(sk, flow);
	if (tp->snd_cwnd > cwnd)
		tp->snd_cwnd = cwnd;
	tell_state(sk, flow, state);
}

/* Eq. 3, at the first ACK of a stateful start: pacing off, cwnd = max(in flight, IW),
 * Validating begins, and the probe grows 1.25x, then 1.5x, per RTT (never slower than
 * slow start from IW would be) until a queue shows in the RTT (lib/resume.h): a low
 * entry costs a few RTTs, a right one a small queue. Congestion avoidance goes on from
 * there with HS_PROBE_DRAIN_PCT of that queue given up. Measured and not kept (RESULTS:
 * after a jump): the paper's slow start from the BDP overflowed a 1-BDP buffer, and a
 * shallow one on lossy paths (10 Mbit/s, 0.5 BDP, 0.1 %: 5x cubic's retransmissions);
 * holding at the jump's window left a 20 % entry at twice cubic's FCT. */
static __always_inline void end_startup(struct sock *sk, struct s_cubic_flow *flow)
{
	struct tcp_sock *tp = hs_tcp_sk(sk);
	__u32 cwnd;

	sk->sk_pacing_status = SK_PACING_NONE;
	cwnd = hs_first_ack(sk, HS_CC_S_CUBIC, &flow->start, hs_startup_exit_cwnd(hs_packets_in_flight(tp)));
	if (!cwnd)
		return;
	tp->snd_cwnd = cwnd;
	/* A jump cut to what the flow had to send (a small response, or an HTML page
	 * before its objects) tested its data, not the path: the kernel's slow start and
	 * HyStart go on from it, for what the application writes next. A jump of the
	 * entry, or of the flow's share of it beside the peer's other flows (which hold
	 * the rest: slow start in six of them at once overflowed the buffer), probes. */
	if (flow->start.resume.phase == HS_PHASE_VALIDATING && !flow->start.data_cut) {
		hs_probe_start(&flow->probe, tp->snd_nxt, HS_PROBE_GROWTH_PCT, 0);
		if (cwnd < flow->start.start_cwnd)
			flow->probe.floor_cap = flow->start.start_cwnd;
		hs_cubic_of(sk)->found = 1;  /* the kernel's HyStart stays out */
	}
}

/* Every ACK after the first: Validating's end and rate test, and the probe's exit. */
static __always_inline void after_ack(struct sock *sk, struct s_cubic_flow *flow, __u32 rtt_us)
{
	struct tcp_sock *tp = hs_tcp_sk(sk);

	hs_after_ack(sk, HS_CC_S_CUBIC, &flow->start);
	if (flow->start.resume.phase == HS_PHASE_VALIDATING) {
		if (hs_rate_check(sk, HS_CC_S_CUBIC, &flow->start, flow->min_rtt_us, rtt_us)) {
			flow->probe.active = 0;
			hs_cubic_of(sk)->last_max_cwnd = tp->snd_cwnd;
			return;
		}
	}
	if (hs_probe_on_ack(&flow->probe, rtt_us, flow->min_rtt_us, tp->snd_una, tp->snd_nxt) == HS_PROBE_QUEUE) {
		hs_count(HS_CC_S_CUBIC, HS_PROBE_QUEUE_EXITS);
		hs_probe_drained(&flow->probe, tp->snd_nxt, tp->snd_cwnd);
		tp->snd_cwnd = hs_drained_cwnd(tp->snd_cwnd, flow->min_rtt_us, flow->probe.queue_rtt_us, HS_PROBE_DRAIN_PCT,
					       hs_rate_pipe(tp->rate_delivered, tp->rate_interval_us, flow->min_rtt_us),
					       flow->start.resume.jump_cwnd);
		tp->snd_ssthresh = tp->snd_cwnd;
	}
}

/* SUSS on a true miss: while it decides, the receive window is opened for its rounds
 * and their growth bounded by what that window covers (hs_suss_window). Once SUSS is
 * done the grant is no longer raised; it lasts until the first sign of loss, an idle
 * restart or release, as the receiver's own window overtakes it. */
static __always_inline void suss_after_ack(struct sock *sk, struct s_cubic_flow *flow, const struct ack_sample *sample)
{
	__u32 cap = ~0U;

	if (!flow->suss.on)
		return;
	if (flow->suss.window && flow->suss.round.active)
		cap = hs_suss_window(sk, &flow->start);
	if (hs_suss_on_ack(hs_tcp_sk(sk), &flow->suss, sample->rtt_us, cap) && flow->suss.window)
		hs_suss_window(sk, &flow->start);
}

SEC("struct_ops")
void BPF_PROG(s_cubic_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = hs_tcp_sk(sk);
	struct s_cubic_flow *flow;

	flow = bpf_sk_storage_get(&s_cubic_flows, sk, 0, 0);
	if (flow)
		repair_missed_hooks(sk, flow);
	cubictcp_acked(sk, sample);
	if (!flow)
		return;
	suss_after_ack(sk, flow, sample);
	if (sample->rtt_us > 0 && (!flow->min_rtt_us || (__u32)sample->rtt_us < flow->min_rtt_us))
		flow->min_rtt_us = sample->rtt_us;
	hs_restart_on_ack(&flow->start);
	if (hs_jump_acked(&flow->start, tp))
		end_startup(sk, flow);
	else if (!flow->start.startup)
		after_ack(sk, flow, sample->rtt_us > 0 ? (__u32)sample->rtt_us : 0);
	hs_estimator_on_ack(&flow->estimator, tp, sample->rtt_us);
	hs_open_report(&flow->start, tp, hs_packets_in_flight(tp), flow->min_rtt_us);
}

SEC("struct_ops")
void BPF_PROG(s_cubic_release, struct sock *sk)
{
	struct s_cubic_flow *flow;

	flow = bpf_sk_storage_get(&s_cubic_flows, sk, 0, 0);
	if (!flow)
		return;
	hs_finish(hs_tcp_sk(sk), &flow->start);
	hs_store(hs_tcp_sk(sk), &flow->start, hs_estimator_finish(&flow->estimator, 0), flow->min_rtt_us, 0);
}

/* Cubic's response to congestion, except during a resume (congestion_ssthresh). */
SEC("struct_ops")
__u32 BPF_PROG(s_cubic_ssthresh, struct sock *sk)
{
	struct s_cubic_flow *flow = bpf_sk_storage_get(&s_cubic_flows, sk, 0, 0);

	if (!flow)
		return cubictcp_recalc_ssthresh(sk);
	repair_missed_hooks(sk, flow);
	return congestion_ssthresh(sk, flow);
}

/* A rate test's retreat is over: the jump's queue has drained and cwnd is what the
 * path delivered per min RTT a quarter RTT into Validating. On a link whose rate
 * swings (the LTE traces) that reading may be a dip, not the path: growth goes on from
 * there as after a validated jump (the probe). Measured and not kept (RESULTS: after a
 * jump): congestion avoidance from the reading, and the kernel's slow start. */
static __always_inline void after_rate_retreat(struct sock *sk, struct s_cubic_flow *flow)
{
	struct tcp_sock *tp = hs_tcp_sk(sk);

	tp->snd_ssthresh = HS_INFINITE_SSTHRESH;  /* slow start again */
	/* The jump's round and Validating's are behind it. */
	hs_probe_start(&flow->probe, tp->snd_nxt, HS_PROBE_GROWTH_PCT, 1);
	hs_cubic_of(sk)->found = 1;
}

SEC("struct_ops")
void BPF_PROG(s_cubic_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct s_cubic_flow *flow = bpf_sk_storage_get(&s_cubic_flows, sk, 0, 0);
	struct tcp_sock *tp = hs_tcp_sk(sk);

	if (flow) {
		repair_missed_hooks(sk, flow);
		/* Unvalidated holds the jump; Safe Retreat: no growth until the last jump
		 * packet is acknowledged. */
		if (flow->start.resume.phase == HS_PHASE_UNVALIDATED || hs_resume_holds_growth(&flow->start.resume))
			return;
		/* Then ssthresh from all the jump delivered (lib/resume.h), applied once the
		 * recovery is over (cong_avoid does not run while Recovery/CWR shrink cwnd),
		 * so that cwnd climbs to it by slow start rather than in one burst at
		 * recovery's end. Not after an RTO, nor after the rate test (its cwnd is the
		 * measured BDP). */
		if (flow->start.resume.exit_ssthresh) {
			if ((flow->start.outcome == HS_RETREAT_LOSS || flow->start.outcome == HS_RETREAT_ECN) &&
			    tp->snd_ssthresh < flow->start.resume.exit_ssthresh)
				tp->snd_ssthresh = flow->start.resume.exit_ssthresh;
			else if (flow->start.outcome == HS_RETREAT_RATE)
				after_rate_retreat(sk, flow);
			flow->start.resume.exit_ssthresh = 0;
		}
		/* The loss floor, like the retreat's exit: after the recovery, so that
		 * cwnd climbs to it by slow start, not in one burst at its end. */
		if (flow->loss_floor) {
			if (tp->snd_ssthresh < flow->loss_floor)
				tp->snd_ssthresh = flow->loss_floor;
			flow->loss_floor = 0;
		}
		if (flow->probe.active && tp->snd_cwnd < tp->snd_ssthresh) {
			if (!hs_probe_may_grow(tp->snd_cwnd, tp->max_packets_out))
				return;
			tp->snd_cwnd = hs_probe_grow(tp->snd_cwnd, acked, hs_probe_growth(&flow->probe, tp->snd_cwnd),
						     &flow->probe.cnt);
			return;
		}
		if (hs_suss_holds_growth(sk, &flow->suss, ack))
			return;
	}
	cubictcp_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
void BPF_PROG(s_cubic_set_state, struct sock *sk, __u8 new_state)
{
	struct s_cubic_flow *flow = bpf_sk_storage_get(&s_cubic_flows, sk, 0, 0);

	if (!flow) {
		cubictcp_state(sk, new_state);
		return;
	}
	repair_missed_hooks(sk, flow);
	tell_state(sk, flow, new_state);
}

SEC("struct_ops")
void BPF_PROG(s_cubic_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	if (event == CA_EVENT_TX_START && hs_init_was_skipped(sk, bpf_sk_storage_get(&s_cubic_flows, sk, 0, 0))) {
		hs_count(HS_CC_S_CUBIC, HS_INITS_LATE);
		start_flow(sk);
	}
	cubictcp_cwnd_event(sk, event);
}

/* Cubic has no sndbuf_expand: the kernel's factor 2, enough for an armed jump. */
SEC("struct_ops")
__u32 BPF_PROG(s_cubic_sndbuf_expand, struct sock *sk)
{
	struct s_cubic_flow *flow = bpf_sk_storage_get(&s_cubic_flows, sk, 0, 0);

	return hs_sndbuf_factor(sk, flow ? &flow->start : 0, 2);
}

/* After an idle past the RTO (lib/restart.h): armed again from the flow's own GCBE
 * estimate so far (its cycles closed by the idle) or the peer's newer entry; the probe,
 * the loss floor of the flow's last resume, a SUSS start still deciding and its window are over. */
static __always_inline void restart_after_idle(struct sock *sk, struct s_cubic_flow *flow)
{
	__u64 own = hs_estimator_restart(&flow->estimator, 0);

	if (hs_restart_after_idle(hs_tcp_sk(sk), &flow->start, own, flow->min_rtt_us)) {
		flow->probe.active = 0;
		flow->loss_floor = 0;
		flow->suss.armed = 0;
		hs_suss_on_ssthresh(sk, &flow->suss);
		hs_unmark(sk, HS_CC_S_CUBIC, &flow->start);  /* SUSS's window, if it had one */
	}
}

/* The start of every transmission (tcp_write_xmit): an armed flow with more to send
 * than its window jumps here, before its first packet of the response leaves.
 * Cubic has no min_tso_segs of its own: the kernel's sysctl, as without the hook. */
SEC("struct_ops")
__u32 BPF_PROG(s_cubic_min_tso_segs, struct sock *sk)
{
	struct s_cubic_flow *flow = bpf_sk_storage_get(&s_cubic_flows, sk, 0, 0);

	if (flow) {
		if (hs_restart_due(sk, &flow->start))
			restart_after_idle(sk, flow);
		hs_try_jump(hs_tcp_sk(sk), &flow->start);
		suss_when_data(sk, flow);
	}
	return hs_sysctl_min_tso_segs(sk);
}

SEC("struct_ops")
__u32 BPF_PROG(s_cubic_undo_cwnd, struct sock *sk)
{
	struct s_cubic_flow *flow = bpf_sk_storage_get(&s_cubic_flows, sk, 0, 0);

	if (flow)
		repair_missed_hooks(sk, flow);
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops s_cubic = {
	.init = (void *)s_cubic_init,
	.ssthresh = (void *)s_cubic_ssthresh,
	.cong_avoid = (void *)s_cubic_cong_avoid,
	.set_state = (void *)s_cubic_set_state,
	.undo_cwnd = (void *)s_cubic_undo_cwnd,
	.cwnd_event = (void *)s_cubic_cwnd_event,
	.pkts_acked = (void *)s_cubic_acked,
	.min_tso_segs = (void *)s_cubic_min_tso_segs,
	.sndbuf_expand = (void *)s_cubic_sndbuf_expand,
	.release = (void *)s_cubic_release,
	.name = "s_cubic",
};
