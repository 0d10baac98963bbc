// SPDX-License-Identifier: GPL-2.0
/* s_bbr: BBR with a stateful start (Stateful-BBR, IWQoS 2021, §IV-B) inside
 * Careful Resume's envelope (RFC 9959 and its BBR variant; lib/resume.h).
 *
 *   handshake done ──► init: BBR's own init, then look the peer up, Reconnaissance
 *        │  miss or rejected: BBR's STARTUP exactly as the kernel runs it
 *        │  go: armed, the receive window opened as far as the jump needs
 *        ▼
 *   more to send than cwnd (at a transmission; stateful.h) ──► the jump: cwnd =
 *        │        the cached BDP (capped), paced over the latest RTT
 *        ▼
 *   first ACK of the jump's data ──► Validating; every ACK: the kernel's bbr_main. BBR is still in
 *        │        STARTUP, where it never lowers the pacing rate nor shrinks cwnd
 *        │        below target, so the jump acts as a floor (the authors' code)
 *        │  the last jump packet acked: Normal
 *        │  loss/ECN/RTO before that: Safe Retreat — BBR goes to DRAIN (its
 *        │        estimate, not the cached rate, sets the pace), the entry deleted
 *        ▼
 *   idle past the RTO, then more to send than IW ──► a careful restart (lib/restart.h),
 *        BBR out of STARTUP into PROBE_BW at the rate it validates
 *
 *   release ──► store {bw, BBR's min RTT}, bw the higher of BBR's max-filtered
 *               estimate and GCBE's (estimator.h; BBR's alone, the paper's, read low
 *               after a flow that ended in STARTUP), unless the BDP <= IW, or an entry exists and this flow
 *               acked less than the cached BDP (short flows underestimate: the paper's
 *               new rule)
 *
 * BBR's state (struct bbr) fills all of icsk_ca_priv; ours is in socket storage.
 * Differences from the paper: full 128-bit peer keys (the authors hashed IPv6 by its
 * lower 64 bits); no get_info (the kernel exports no kfunc for it), so TCP_CC_INFO
 * reports nothing for s_bbr. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>
#include "stateful.h"
#include "estimator.h"
#include "late_init.h"

char _license[] SEC("license") = "GPL";

extern void bbr_init(struct sock *sk) __ksym;
extern void bbr_main(struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs) __ksym;
extern __u32 bbr_sndbuf_expand(struct sock *sk) __ksym;
extern __u32 bbr_undo_cwnd(struct sock *sk) __ksym;
extern void bbr_cwnd_event(struct sock *sk, enum tcp_ca_event event) __ksym;
extern __u32 bbr_ssthresh(struct sock *sk) __ksym;
extern __u32 bbr_min_tso_segs(struct sock *sk) __ksym;
extern void bbr_set_state(struct sock *sk, __u8 new_state) __ksym;

#define TCP_CONG_NON_RESTRICTED 0x1  /* include/net/tcp.h: any user may select it */

struct s_bbr_flow {
	struct hs_start start;      /* the stateful start (stateful.h) */
	__u64 startup_pacing;       /* a restart from STARTUP: BBR's pacing rate then (restart_after_idle) */
	struct hs_estimator estimator; /* GCBE beside BBR's own; last, set apart (hs_estimator_init) */
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct s_bbr_flow);
} s_bbr_flows SEC(".maps");

static __always_inline struct bbr *bbr_of(struct sock *sk)
{
	return (struct bbr *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

/* BBR's bandwidth estimate (bbr_bw() in tcp_bbr.c) in bytes per second. */
static __always_inline __u64 bbr_bw_bytes_per_sec(struct sock *sk)
{
	struct bbr *bbr = bbr_of(sk);
	__u64 bw = bbr->lt_use_bw ? bbr->lt_bw : bbr->bw.s[0].v;

	return hs_bbr_bw_to_Bps(bw, hs_tcp_sk(sk)->mss_cache);
}

#define BBR_STARTUP 0   /* enum bbr_mode in tcp_bbr.c */
#define BBR_DRAIN 1
#define BBR_PROBE_BW 2
#define BBR_UNIT 256    /* gains' 1.0 */
#define BBR_CRUISE_LAST 7  /* PROBE_BW's last phase of gain 1.0: the probe up (1.25) comes next (bbr_pacing_gain[]) */

/* BBR's max bandwidth filter set to one rate (BBR's units), the long-term policer's
 * estimate out of use: the model starts over from it. */
static __always_inline void bbr_set_max_bw(struct bbr *bbr, __u32 units)
{
	for (int i = 0; i < 3; i++) {
		bbr->bw.s[i].t = bbr->rtt_cnt;
		bbr->bw.s[i].v = units;
	}
	bbr->lt_use_bw = 0;
}

/* Safe Retreat, the RFC's BBR variant: congestion while resuming ends STARTUP and the
 * floors with it; DRAIN empties the queue the jump built, at BBR's own estimate
 * (samples are min(send rate, ACK rate), so the jump cannot inflate it). After a
 * restart the estimate is from before the idle, which the rate test has just found
 * too high: BBR's max filter is set to the rate delivered (cwnd, the test's BDP, per
 * min RTT), or DRAIN and PROBE_BW would go on at the old rate for ten rounds. */
static __always_inline void s_bbr_drain(struct sock *sk, const struct hs_start *st)
{
	struct bbr *bbr = bbr_of(sk);
	struct tcp_sock *tp = hs_tcp_sk(sk);

	bbr->full_bw_reached = 1;
	bbr->mode = BBR_DRAIN;
	if (st->restarting && bbr->min_rtt_us && bbr->min_rtt_us != ~0U)
		bbr_set_max_bw(bbr, hs_bbr_bw_from_Bps((__u64)tp->snd_cwnd * tp->mss_cache * HS_USEC_PER_SEC / bbr->min_rtt_us,
						       tp->mss_cache));
}

/* BBR owns its pacing rate (cong_control): nothing recomputes it before the first
 * ACK, so no cap. No room rule and no floor on the saved BDP: s_bbr's jumps beside its
 * siblings kept bbr's neighbour within 5 %, and its jumps below 40 packets gained on
 * the LTE traces, where s_cubic's lost. No window override while a sibling flow to the
 * peer is open and the peer's flows lost a packet lately: beside a bbr client at 63 %
 * load, every discard of s_bbr's receivers traced to its flow came from a jump beside
 * an open sibling (RESULTS: neighbours). */
static const struct hs_policy s_bbr_policy = {
	.cap_pacing = 0, .shared_no_rwnd = 1, .min_saved_pkts = 0,
};

/* init's work; also run late, at the first transmission, for a flow whose init the
 * kernel skipped (late_init.h). */
static __always_inline void start_flow(struct sock *sk)
{
	struct s_bbr_flow *flow;
	struct hs_config cfg = hs_get_config();
	struct hs_lab_config lab = hs_get_lab_config();

	bbr_init(sk);
	flow = bpf_sk_storage_get(&s_bbr_flows, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!flow) {  /* no memory for our state: the flow is plain BBR */
		hs_count(HS_CC_S_BBR, HS_FLOWS);
		return;
	}
	__builtin_memset(flow, 0, __builtin_offsetof(struct s_bbr_flow, estimator));  /* clang: no longer memset */
	hs_estimator_init(&flow->estimator, hs_tcp_sk(sk), &lab, 1);
	hs_begin(sk, HS_CC_S_BBR, &flow->start, &cfg, &lab, &s_bbr_policy);
}

SEC("struct_ops")
void BPF_PROG(s_bbr_init, struct sock *sk)
{
	start_flow(sk);
}

/* After an idle past the RTO (lib/restart.h): armed again from the higher of BBR's
 * estimate and GCBE's, as at release; BBR's max filter starts from that rate. BBR
 * itself resumes at its old window and pace, unchecked: a response that ended in
 * STARTUP left gains of 2.89, and the next one after the idle lost ~20 segments per
 * MB into a 1-BDP buffer (RESULTS: keep-alive). From STARTUP the estimate is a lower
 * bound (a paced 256 KB response read 45 of 100 Mbit/s): the jump keeps STARTUP's
 * pace where that is faster (restart_pace), its window the estimate's BDP, which
 * bounds the queue; paced at the estimate, a 256 KB response took 95 ms against bbr's
 * 87. At the jump's first ACK BBR leaves STARTUP (restart_cruise). */
static __always_inline void restart_after_idle(struct sock *sk, struct s_bbr_flow *flow)
{
	struct bbr *bbr = bbr_of(sk);
	struct tcp_sock *tp = hs_tcp_sk(sk);
	__u64 bw = bbr_bw_bytes_per_sec(sk), gcbe = hs_estimator_restart(&flow->estimator, 1);
	__u32 min_rtt = bbr->min_rtt_us == ~0U ? 0 : bbr->min_rtt_us, units;

	if (gcbe > bw)
		bw = gcbe;
	flow->startup_pacing = bbr->mode == BBR_STARTUP ? sk->sk_pacing_rate : 0;
	if (!hs_restart_after_idle(hs_tcp_sk(sk), &flow->start, bw, min_rtt))
		return;
	units = hs_bbr_bw_from_Bps(flow->start.cached_Bps, tp->mss_cache);  /* the restart's rate (hs_recon) */
	if (units > bbr->bw.s[0].v)
		bbr_set_max_bw(bbr, units);
}

/* While a restart's jump is Unvalidated (it grows with the application's writes,
 * each resetting the pace to the estimate's): STARTUP's pace, where faster. */
static __always_inline void restart_pace(struct sock *sk, const struct s_bbr_flow *flow)
{
	if (flow->start.restarting && flow->start.startup && flow->startup_pacing > sk->sk_pacing_rate)
		sk->sk_pacing_rate = flow->startup_pacing;
}

/* At a restart's first ACK: BBR goes on in PROBE_BW, cruising, from the rate the
 * restart validates (from DRAIN, the one its retreat measured), not in STARTUP, whose
 * 2.89x gains would overflow the path the jump has just filled. Its probe up comes a
 * round later: from the middle of the cycle an estimate 1-4 % low cruised to the end
 * of a 4 MB response (+0.7 % on bbr's FCT over TLS; +0.1 % now). */
static __always_inline void restart_cruise(struct sock *sk)
{
	struct bbr *bbr = bbr_of(sk);

	if (bbr->mode != BBR_STARTUP)
		return;
	bbr->full_bw_reached = 1;
	bbr->mode = BBR_PROBE_BW;
	bbr->pacing_gain = BBR_UNIT;
	bbr->cwnd_gain = 2 * BBR_UNIT;
	bbr->cycle_idx = BBR_CRUISE_LAST;
	bbr->cycle_mstamp = hs_tcp_sk(sk)->delivered_mstamp;
}

SEC("struct_ops")
void BPF_PROG(s_bbr_main, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	struct s_bbr_flow *flow = bpf_sk_storage_get(&s_bbr_flows, sk, 0, 0);
	struct tcp_sock *tp = hs_tcp_sk(sk);

	/* Called once before init (zeroed state) during the handshake: flow is NULL then. */
	if (flow && rs->acked_sacked > 0) {
		if (hs_jump_acked(&flow->start, tp)) {
			hs_first_ack(sk, HS_CC_S_BBR, &flow->start, tp->packets_out);
			if (flow->start.restarting)
				restart_cruise(sk);
		} else if (flow->start.startup) {
			;  /* acknowledges data from before the jump */
		} else if (flow->start.resume.phase != HS_PHASE_VALIDATING) {
			hs_after_ack(sk, HS_CC_S_BBR, &flow->start);  /* a retreat's end */
		} else {
			/* Validating: its end, or the rate test. */
			hs_after_ack(sk, HS_CC_S_BBR, &flow->start);
			if (flow->start.resume.phase != HS_PHASE_NORMAL &&
			    hs_rate_check(sk, HS_CC_S_BBR, &flow->start, bbr_of(sk)->min_rtt_us, rs->rtt_us > 0 ? (__u32)rs->rtt_us : 0))
				s_bbr_drain(sk, &flow->start);
		}
		hs_restart_on_ack(&flow->start);
	}
	bbr_main(sk, ack, flag, rs);
}

SEC("struct_ops")
void BPF_PROG(s_bbr_release, struct sock *sk)
{
	struct s_bbr_flow *flow = bpf_sk_storage_get(&s_bbr_flows, sk, 0, 0);
	__u64 bw, gcbe;
	__u32 min_rtt;

	if (!flow)
		return;
	hs_finish(hs_tcp_sk(sk), &flow->start);
	min_rtt = bbr_of(sk)->min_rtt_us;
	if (min_rtt == ~0U)
		min_rtt = 0;
	bw = bbr_bw_bytes_per_sec(sk);
	gcbe = hs_estimator_finish(&flow->estimator, 1);
	if (gcbe > bw)
		bw = gcbe;
	hs_store(hs_tcp_sk(sk), &flow->start, bw, min_rtt, 1);
}

/* Not BBR's (it has no pkts_acked): every ACK also feeds GCBE. */
SEC("struct_ops")
void BPF_PROG(s_bbr_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct s_bbr_flow *flow = bpf_sk_storage_get(&s_bbr_flows, sk, 0, 0);

	if (!flow)
		return;
	hs_estimator_on_ack(&flow->estimator, hs_tcp_sk(sk), sample->rtt_us);
	hs_open_report(&flow->start, hs_tcp_sk(sk), hs_packets_in_flight(hs_tcp_sk(sk)),
		       bbr_of(sk)->min_rtt_us == ~0U ? 0 : bbr_of(sk)->min_rtt_us);
}

SEC("struct_ops")
__u32 BPF_PROG(s_bbr_sndbuf_expand, struct sock *sk)
{
	struct s_bbr_flow *flow = bpf_sk_storage_get(&s_bbr_flows, sk, 0, 0);

	return hs_sndbuf_factor(sk, flow ? &flow->start : 0, bbr_sndbuf_expand(sk));
}

SEC("struct_ops")
__u32 BPF_PROG(s_bbr_undo_cwnd, struct sock *sk)
{
	return bbr_undo_cwnd(sk);
}

SEC("struct_ops")
void BPF_PROG(s_bbr_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	if (event == CA_EVENT_TX_START && hs_init_was_skipped(sk, bpf_sk_storage_get(&s_bbr_flows, sk, 0, 0))) {
		hs_count(HS_CC_S_BBR, HS_INITS_LATE);
		start_flow(sk);
	}
	bbr_cwnd_event(sk, event);
}

SEC("struct_ops")
__u32 BPF_PROG(s_bbr_ssthresh, struct sock *sk)
{
	__u32 ssthresh = bbr_ssthresh(sk);
	struct s_bbr_flow *flow = bpf_sk_storage_get(&s_bbr_flows, sk, 0, 0);
	__u32 retreat, pipe;

	if (!flow)
		return ssthresh;
	hs_note_congestion(sk, HS_CC_S_BBR, &flow->start, bbr_of(sk)->min_rtt_us);
	if (!hs_resume_active(&flow->start.resume))
		return ssthresh;
	/* BBR does not use ssthresh to size cwnd; the retreat's cwnd cap and DRAIN do. */
	if (hs_retreat(sk, HS_CC_S_BBR, &flow->start, &retreat, &pipe))
		s_bbr_drain(sk, &flow->start);
	return ssthresh;
}

/* The start of every transmission (tcp_write_xmit): an armed flow with more to send
 * than its window jumps here, before its first packet of the response leaves. */
SEC("struct_ops")
__u32 BPF_PROG(s_bbr_min_tso_segs, struct sock *sk)
{
	struct s_bbr_flow *flow = bpf_sk_storage_get(&s_bbr_flows, sk, 0, 0);

	if (flow) {
		if (hs_restart_due(sk, &flow->start))
			restart_after_idle(sk, flow);
		hs_try_jump(hs_tcp_sk(sk), &flow->start);
		restart_pace(sk, flow);
	}
	return bbr_min_tso_segs(sk);
}

SEC("struct_ops")
void BPF_PROG(s_bbr_set_state, struct sock *sk, __u8 new_state)
{
	struct s_bbr_flow *flow = bpf_sk_storage_get(&s_bbr_flows, sk, 0, 0);

	if (flow)
		hs_on_ca_state(sk, HS_CC_S_BBR, &flow->start, new_state);
	bbr_set_state(sk, new_state);
}

SEC(".struct_ops.link")
struct tcp_congestion_ops s_bbr = {
	.flags = TCP_CONG_NON_RESTRICTED,
	.init = (void *)s_bbr_init,
	.cong_control = (void *)s_bbr_main,
	.sndbuf_expand = (void *)s_bbr_sndbuf_expand,
	.undo_cwnd = (void *)s_bbr_undo_cwnd,
	.cwnd_event = (void *)s_bbr_cwnd_event,
	.ssthresh = (void *)s_bbr_ssthresh,
	.min_tso_segs = (void *)s_bbr_min_tso_segs,
	.set_state = (void *)s_bbr_set_state,
	.pkts_acked = (void *)s_bbr_acked,
	.release = (void *)s_bbr_release,
	.name = "s_bbr",
};
