/* The stateful start shared by s_cubic and s_bbr (Stateful-TCP §IV-B, Stateful-BBR
 * §IV-B) inside Careful Resume's envelope (lib/resume.h, RFC 9959): at init look the
 * peer up and run Reconnaissance; on a go the flow is armed, and the receiver's window
 * opened (rwnd.bpf.c) so that the request that comes before a response already
 * carries the window the jump needs. The jump itself waits until the flow has more to
 * send than its window allows (RFC 9959 §4.3: "or later when the sender becomes
 * cwnd-limited"), seen where the kernel begins every transmission (tcp_write_xmit asks
 * the controller's min_tso_segs first): after the application's write, or an ACK. A
 * TLS handshake, its session tickets, or a connection waiting for its request, send
 * no more than IW, and the jump comes with the response. Then: a share of the cached BDP, paced over
 * the latest RTT; validate the jump, or retreat from it on the first congestion
 * signal; at release store the flow's estimate and log how its start went
 * (hs_outcomes). Each controller brings its own estimator and its own response to the
 * phases. */
#ifndef HS_STATEFUL_H
#define HS_STATEFUL_H

#include <bpf/bpf_core_read.h>
#include "lib/path_key.h"
#include "lib/ensemble.h"
#include "lib/restart.h"
#include "lib/resume.h"
#include "lib/rwnd_grant.h"
#include "lib/shadow.h"
#include "lib/store.h"
#include "lib/tuned.h"
#include "pacing.h"
#include "path_table.h"
#include "estimator.h"

/* The controller's side of the start (struct hs_policy): what differs between s_cubic
 * and s_bbr, in one place. */
struct hs_policy {
	__u8 cap_pacing;            /* the jump's rate is also a ceiling: the kernel recomputes the
				     * pacing rate of a controller without cong_control before the first ACK */
	__u8 shared_no_rwnd;        /* no window override beside a sibling while the peer's flows lost lately */
	__u32 min_saved_pkts;       /* no jump from a saved BDP below this (0: none; the lab may set s_cubic's, hs_lab_config) */
};

struct hs_start {
	__u64 saved_max_pacing;     /* sk_max_pacing_rate before the jump capped it */
	struct hs_policy pol;       /* the controller's (hs_begin) */
	__u32 cc;                   /* enum hs_cc_id: the controller's */
	struct hs_flow_key key;     /* kept from init: by release the local port is unhashed */
	struct hs_peer path;        /* the peer's hs_paths key, fixed at init (path_table.h, hs_peer_of) */
	struct hs_resume resume;    /* the Careful Resume phase machine */
	__u8 startup;               /* 1 while Unvalidated's pacing runs (until the first data ACK) */
	__u8 capped;                /* 1 if the jump capped sk_max_pacing_rate */
	__u8 rwnd_marked;           /* 1 while the window override lasts (key in hs_rwnd, its field set) */
	__u8 rwnd_watched;          /* 1 while key is in hs_rwnd: from the override to release */
	__u8 retreat_counted;       /* the retreat's cause was counted */
	__u8 shadow;                /* mode = shadow and Reconnaissance said jump: scored at release */
	__u8 loss_no_queue;         /* a congestion episode was random loss (lib/store.h, hs_episode_random) */
	__u8 no_queue_pending;      /* the latest episode began with no queue in the RTT: random unless it loses a run */
	__u8 no_queue_rising;       /* ... but with the smoothed RTT above half the queue threshold */
	__u8 path_lossy;            /* the entry the jump came from was marked HS_PATH_LOSSY */
	__u8 override_over;         /* the window override ended: override_rwnd_ms is set */
	__u8 untrusted;             /* the socket's owner uid is above trusted_uid_max: no lookup, no store */
	__u8 open_counted;          /* counted in hs_open until release */
	__u8 overrun_seen;          /* the tc program saw the receiver's dupACKs without SACK (kept past the grant) */
	__u8 rcv_overrun;           /* ... and the flow lost or retransmitted: the receiver discarded */
	__u8 overrun_first;         /* ... before any other congestion signal: its discards were the flow's loss */
	__u8 overrun_unanswered;    /* ... and no congestion signal has answered it yet */
	__u8 signalled;             /* the flow has had a congestion signal (hs_note_congestion) */
	__u8 armed;                 /* Reconnaissance said go: the jump waits for data beyond the window (hs_try_jump) */
	__u8 budget_waited;         /* the peer's budget was spent when it would have jumped: it waits, armed */
	__u8 shared;                /* the peer's other flows were open at its start or sent beside it: it measured a share */
	__u8 restarting;            /* armed by an idle restart (lib/restart.h): the jump reads restart_from */
	__u8 fast_open;             /* a TCP Fast Open child, started at the SYN: the kernel's, nothing written */
	__u8 from_prefix;           /* no entry: started from its prefix's (lib/prefix.h), a copy in restart_from */
	__u8 data_cut;              /* the jump in force is what the flow had to send, less than its share */
	__u8 follow_up;             /* a jump cut to its data validated: the next jumps are follow-ups (hs_follow_up) */
	__u8 rwnd_cut;              /* the follow-up in force is what the receiver's window allowed (hs_follow_up_cap) */
	__u8 overshot;              /* the rate test found the jump too fast for the path, and its entry was deleted */
	__u32 jump_seq;             /* snd_nxt at the jump: Unvalidated ends at the first ACK beyond it */
	__u32 armed_cwnd;           /* the jump as sized at init: the window opened and the send buffer for it */
	__u32 reported_out;         /* the packets in flight this flow last added to its peer's pkts_out */
	__u32 override_rwnd_ms;     /* receiver-window-limited ms when the override ended */
	__u32 outcome;              /* enum hs_counter deciding how the start went */
	__u32 start_cwnd;           /* the window the jump began with */
	__u32 restart_rtt_us;       /* a restart's RTT: the flow's min RTT before the idle */
	__u32 no_queue_retrans_at;  /* tp->total_retrans when that episode began */
	__u32 prior_overshoots;     /* the entry's overshoots when it was looked up */
	__u64 cached_Bps;           /* the entry's rate the start used (or would have) */
	struct hs_ensemble ensemble; /* what the peer's flows delivered beside it (lib/ensemble.h) */
	struct hs_path restart_from; /* a restart's memory (the flow's own estimate, or a copy of the peer's entry), or a prefix start's */
};

/* hs_outcomes: how the start goes, for the lab and `headstart flows`; written when it
 * is decided, when the resume ends and at release. */
static __always_inline void hs_log(enum hs_cc_id cc, const struct hs_start *st, __u32 released)
{
	if (st->fast_open)  /* its source may be spoofed: no entry of its own (hs_gatekeep) */
		return;
	struct hs_flow_outcome o = { .cc = cc, .outcome = st->outcome, .jump_cwnd = st->start_cwnd,
				     .pipe_pkts = st->resume.pipe_pkts, .phase = st->resume.phase, .released = released,
				     .cached_bw_bytes_per_s = st->cached_Bps,
				     .override_rwnd_limited_ms = st->override_over ? st->override_rwnd_ms : HS_OUTCOME_NONE,
				     .rcv_overrun = st->rcv_overrun };

	bpf_map_update_elem(&hs_outcomes, &st->key, &o, BPF_ANY);
}

static __always_inline struct tcp_sock *hs_tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

extern unsigned int CONFIG_HZ __kconfig __weak;

/* The flow's receiver-window-limited time so far in ms, as tcp_info's
 * tcpi_rwnd_limited counts it (the kernel's chrono, in jiffies); HS_OUTCOME_NONE if
 * the kernel's HZ is unknown. */
static __always_inline __u32 hs_rwnd_limited_ms(const struct tcp_sock *tp)
{
	__u32 jiffies = tp->chrono_stat[TCP_CHRONO_RWND_LIMITED - 1];

	if (BPF_CORE_READ_BITFIELD(tp, chrono_type) == TCP_CHRONO_RWND_LIMITED)
		jiffies += (__u32)bpf_jiffies64() - tp->chrono_start;
	if (!CONFIG_HZ)
		return HS_OUTCOME_NONE;
	return (__u32)((__u64)jiffies * 1000 / CONFIG_HZ);
}

/* The receiver overran (lib/rwnd_grant.h): counted once and noted in the peer's
 * entry (its next jumps go without the override for a while, hs_overrun_holds). If
 * no congestion signal came before, the one it causes is not taken for the path's: no
 * lossy mark, no discredited entry (the entry's estimate is of the path, which lost
 * nothing). After one, the discards followed the path's own hole (its edge stops
 * moving, lib/rwnd_grant.h), and the loss stays the path's. What the tc program saw
 * is kept from the grant (g) and taken only with a loss (`lost`: a congestion
 * signal, or a retransmission by then), which may come later: a receiver whose window
 * closed answers zero-window probes with the same bare dupACKs, and discarded nothing. */
static __always_inline void hs_take_overrun(enum hs_cc_id cc, struct hs_start *st, const struct hs_rwnd_grant *g, int lost)
{
	struct hs_path *p;

	if (g && g->overruns)
		st->overrun_seen = 1;
	if (!st->overrun_seen || !lost || st->rcv_overrun)
		return;
	st->rcv_overrun = 1;
	if (!st->signalled)
		st->overrun_first = st->overrun_unanswered = 1;
	hs_count(cc, HS_RWND_RECEIVER_OVERRUN);
	p = bpf_map_lookup_elem(&hs_paths, &st->path);
	if (p) {
		if (p->overruns != ~0U)
			p->overruns++;
		p->overrun_s = (__u32)(bpf_ktime_get_boot_ns() / 1000000000ULL);
	}
}

/* Ends the window override; how long the receiver's window held the flow back until
 * then is kept for the outcome (the override's job is that it did not). An override
 * the receiver's shrinking window ended before (the tc program) is counted, and so is
 * a receiver's overrun. */
static __always_inline void hs_unmark(const struct sock *sk, enum hs_cc_id cc, struct hs_start *st)
{
	if (st->rwnd_marked) {
		struct hs_rwnd_grant *g = bpf_map_lookup_elem(&hs_rwnd, &st->key);

		if (g && (g->flags & HS_GRANT_BEHIND))
			hs_count(cc, HS_RWND_RECEIVER_BEHIND);
		hs_take_overrun(cc, st, g, ((const struct tcp_sock *)sk)->total_retrans != 0);
		/* The grant stays, ended, until release: what the override let out may be
		 * discarded after it (the first ACK ends a rate-limited jump's override
		 * before the receiver's dupACKs come back), and the tc program watches on. */
		if (g)
			g->field = 0;
		st->rwnd_marked = 0;
		st->override_rwnd_ms = hs_rwnd_limited_ms((const struct tcp_sock *)sk);
		st->override_over = 1;
	}
}

/* The window field the tc program writes so that the jump and one round of growth
 * while Validating fit: twice the jump's bytes in the peer's window scale. The
 * largest field (0xffff) would let the sender run megabytes past the receiver's real
 * window; the jump alone left Validating receive-window limited (24 ms of a 1 MB
 * flow at 100 Mbit/s, 50 ms). On a SACK connection the tc program also looks for a
 * receiver's overrun (lib/rwnd_grant.h). */
static __always_inline __u16 hs_grant_field(const struct tcp_sock *tp, __u32 cwnd)
{
	__u64 bytes = 2ULL * cwnd * tp->mss_cache;
	__u64 field = (bytes >> tp->rx_opt.snd_wscale) + 1;

	return field > 0xffff ? 0xffff : (__u16)field;
}

static __always_inline void hs_mark_field(struct sock *sk, struct hs_start *st, __u16 field)
{
	struct tcp_sock *tp = hs_tcp_sk(sk);
	struct hs_rwnd_grant grant = { .field = field, .flags = tp->rx_opt.sack_ok ? HS_GRANT_SACK : 0 };

	if (!bpf_map_update_elem(&hs_rwnd, &st->key, &grant, BPF_ANY))
		st->rwnd_marked = st->rwnd_watched = 1;
}

static __always_inline void hs_mark(struct sock *sk, struct hs_start *st, __u32 cwnd)
{
	hs_mark_field(sk, st, hs_grant_field(hs_tcp_sk(sk), cwnd));
}

/* SUSS on a true miss (s_cubic, where rwnd_override was on at init): the receive
 * window for rounds above 2x, called on each ACK while SUSS decides and after it grows
 * cwnd. A Linux receiver's own window grows ~2x per RTT and caps a 4x round; the grant follows cwnd
 * (twice it, for the next round's clocked growth) up to HS_SUSS_RWND_LEAD times the
 * receiver's own window (its largest so far), and SUSS grows no further than that
 * (hs_suss_window's return). A jump's rules hold: the first sign of loss ends it
 * (hs_on_ca_state), so does the receiver falling behind or overrunning (the tc
 * program), and an ended grant stays ended for the flow. It opens when the next round
 * would not fit the receiver's window, and only for a receiver whose window is at its
 * largest (to a segment's rounding): a reader that stalls shrinks it from the first
 * round on, and what the override let past it was discarded. A grant the tc program
 * watches is raised in place: rewriting it would forget what it saw. Returns the
 * largest cwnd (packets) the window will cover: ~0U without an override to bound. */
static __always_inline __u32 hs_suss_window(struct sock *sk, struct hs_start *st)
{
	struct tcp_sock *tp = hs_tcp_sk(sk);
	struct hs_rwnd_grant *g = 0;
	__u32 own, lead, want;

	if (!tp->mss_cache)
		return ~0U;
	if (st->rwnd_watched) {
		g = st->rwnd_marked ? bpf_map_lookup_elem(&hs_rwnd, &st->key) : 0;
		if (!g || !g->field)
			return ~0U;  /* ended: the receiver's own window rules, and stops SUSS */
	}
	/* The receiver's own window: as the tc program saw it under the grant, or as the
	 * sender sees it where nothing raised it yet (no grant, or no tc program). */
	own = g && g->peak ? g->peak : tp->snd_wnd >> tp->rx_opt.snd_wscale;
	lead = own * HS_SUSS_RWND_LEAD;
	want = hs_grant_field(tp, tp->snd_cwnd);
	if (want > lead)  /* hs_grant_field's is at most 0xffff already */
		want = lead;
	if (g) {
		if (want > g->field)
			g->field = want;
	} else if (want > own && (__u64)tp->snd_wnd + tp->mss_cache >= tp->max_window) {
		hs_mark_field(sk, st, want);
	}
	return (__u32)(((__u64)lead << tp->rx_opt.snd_wscale) / tp->mss_cache);
}

/* Counts the flow in its peer's hs_open; *others gets what this flow found there:
 * how many other flows were open (of them, armed and starting), and when one of the
 * peer's flows last lost. */
static __always_inline void hs_open_enter(struct hs_start *st, struct hs_open_flows *others)
{
	struct hs_open_flows one = { .open = 1 }, *n = bpf_map_lookup_elem(&hs_open, &st->path);

	others->open = 0;
	others->pkts_out = 0;
	others->last_loss_ns = 0;
	others->armed = 0;
	others->starting = 0;
	if (!n) {
		if (!bpf_map_update_elem(&hs_open, &st->path, &one, BPF_NOEXIST)) {
			st->open_counted = 1;
			return;
		}
		n = bpf_map_lookup_elem(&hs_open, &st->path);  /* a concurrent flow created it */
		if (!n)
			return;
	}
	st->open_counted = 1;
	others->last_loss_ns = n->last_loss_ns;
	others->pkts_out = n->pkts_out;
	others->armed = n->armed;
	others->starting = n->starting;
	others->open = __sync_fetch_and_add(&n->open, 1);
}

/* *v less k, never below 0, in one atomic step. A check and a subtract apart let two
 * CPUs pass the check together and wrap the count to ~2^32 after an LRU evict-and-
 * recreate had left it below what the peer's flows still subtract; every later jump to
 * that peer would then have found its budget taken. Bounded retries: a count that
 * keeps changing under us is left as it is (others are moving it anyway). */
static __always_inline void hs_sub_floor(__u32 *v, __u32 k)
{
	for (int i = 0; i < 8; i++) {
		__u32 old = *(volatile __u32 *)v, new = old > k ? old - k : 0;

		if (__sync_val_compare_and_swap(v, old, new) == old)
			return;
	}
}

/* One of the peer's counts of its flows (armed, or starting) up or down by one. */
static __always_inline void hs_open_count(const struct hs_start *st, int starting, int up)
{
	struct hs_open_flows *n;
	__u32 *count;

	if (!st->open_counted)
		return;
	n = bpf_map_lookup_elem(&hs_open, &st->path);
	if (!n)
		return;
	count = starting ? &n->starting : &n->armed;
	if (up)
		__sync_fetch_and_add(count, 1);
	else
		hs_sub_floor(count, 1);
}

/* Armed or not, in the peer's count of flows waiting for data to jump with: the
 * budget's sharers are the flow that jumps, those, and the ones in their jump's first
 * round (hs_set_startup). */
static __always_inline void hs_set_armed(struct hs_start *st, __u8 armed)
{
	if (st->armed == armed)
		return;
	st->armed = armed;
	hs_open_count(st, 0, armed);
}

/* In the jump's first round (Unvalidated, paced) or not, counted in the peer's
 * `starting`: a sibling that jumps or grows its jump meanwhile shares the budget with
 * it evenly. Counted by the room alone (what each reported in flight), the first of
 * six HTTPS connections grew its 16 KB first jump into all its response wanted as
 * nginx wrote, and the last found no room: it slow-started from IW beside them. */
static __always_inline void hs_set_startup(struct hs_start *st, __u8 startup)
{
	if (st->startup == startup)
		return;
	st->startup = startup;
	hs_open_count(st, 1, startup);
}

/* What the flow would have in flight if its window allowed: what is in flight and
 * what the application wrote and the sender has not sent yet. */
static __always_inline __u32 hs_packets_wanted(const struct tcp_sock *tp)
{
	__u32 unsent = tp->write_seq - tp->snd_nxt;
	__u32 mss = tp->mss_cache ? tp->mss_cache : 1;

	return hs_packets_in_flight(tp) + (unsent + mss - 1) / mss;
}

/* pkts_out less k; below 0 (the LRU entry was evicted and made again) it is 0, not 2^32. */
static __always_inline void hs_pkts_out_sub(struct hs_open_flows *n, __u32 k)
{
	hs_sub_floor(&n->pkts_out, k);
}

/* The flow's packets in flight, into its peer's pkts_out (s_cubic's room rule reads it): on a
 * change of at least 8 packets or an eighth, so that not every ACK writes the map; and
 * what it delivered, into its peer's sum, every HS_ENSEMBLE_REPORT_PKTS packets. Others'
 * packets in flight beside its own make it a flow that measured a share (hs_store), also
 * when they came after its start: marked at its start alone, a page's connections that
 * were first to jump then carried objects beside five others, and an s_bbr page lowered
 * the entry from 97 to 32 Mbit/s. While it has such siblings it reads what they all
 * delivered (lib/ensemble.h), over windows of two min RTTs (0: not known yet). */
static __always_inline void hs_open_report(struct hs_start *st, const struct tcp_sock *tp, __u32 in_flight, __u32 min_rtt_us)
{
	__u32 was = st->reported_out, d = in_flight > was ? in_flight - was : was - in_flight;
	/* SACKed bytes count when SACKed (as GCBE counts them): cumulatively acked only once
	 * a hole was filled, a loss recovery's bytes came in one window (136 Mbit/s read off 100). */
	__u64 delivered = hs_delivered_bytes(tp);
	__u64 unreported = hs_ensemble_unreported(&st->ensemble, delivered);
	int out_due = d && (d >= 8 || d * 8 >= was);
	struct hs_open_flows *n;

	if (!st->open_counted || (!out_due && unreported < (__u64)HS_ENSEMBLE_REPORT_PKTS * tp->mss_cache))
		return;
	n = bpf_map_lookup_elem(&hs_open, &st->path);
	if (!n)
		return;
	if (out_due) {
		if (in_flight < was)
			hs_pkts_out_sub(n, was - in_flight);
		else
			__sync_fetch_and_add(&n->pkts_out, in_flight - was);
		st->reported_out = in_flight;
	}
	if (unreported) {
		__sync_fetch_and_add(&n->delivered, unreported);
		st->ensemble.reported = delivered;
	}
	if (n->pkts_out > st->reported_out) {
		st->shared = 1;
		if (min_rtt_us)
			hs_ensemble_sample(&st->ensemble, n->delivered, tp->tcp_mstamp, 2 * (__u64)min_rtt_us,
					   (__u64)(n->open > 1 ? n->open - 1 : 0) * HS_ENSEMBLE_REPORT_PKTS * tp->mss_cache);
	} else {
		hs_ensemble_alone(&st->ensemble);
	}
}

/* A loss episode (Recovery, or an RTO) of one of the peer's flows: its time. */
static __always_inline void hs_open_note_loss(const struct hs_start *st)
{
	struct hs_open_flows *n;

	if (!st->open_counted)
		return;
	n = bpf_map_lookup_elem(&hs_open, &st->path);
	if (n)
		n->last_loss_ns = bpf_ktime_get_boot_ns();
}

static __always_inline void hs_open_leave(struct hs_start *st)
{
	struct hs_open_flows *n;

	if (!st->open_counted)
		return;
	st->open_counted = 0;
	n = bpf_map_lookup_elem(&hs_open, &st->path);
	if (n && st->reported_out)
		hs_pkts_out_sub(n, st->reported_out);
	st->reported_out = 0;
	if (n)
		hs_sub_floor(&n->open, 1);
}

static __always_inline void hs_end_pacing(struct sock *sk, struct hs_start *st)
{
	if (st->capped) {
		hs_set_max_pacing(sk, st->saved_max_pacing);
		st->capped = 0;
	}
	hs_set_startup(st, 0);
}

/* A jump cut to what the flow had to send (an HTML page, a first small response on a
 * persistent connection) validated what it sent, not the entry: the flow is armed
 * again, and its next write beyond its window jumps into the rest of the peer's budget,
 * after Reconnaissance on its latest RTT and inside the same checks, with no window
 * override (a browser's reader falls behind one: RESULTS, page loads). Before, such a
 * page's objects slow-started from the HTML's window. Armed until a congestion signal
 * (hs_note_congestion) or an idle restart, which decides instead. */
static __always_inline void hs_follow_up(struct hs_start *st)
{
	st->follow_up = 1;
	st->budget_waited = 0;
	hs_set_armed(st, 1);
}

/* The resume is over by `event`: a jump cut to its data that sent it all, without a
 * congestion signal, arms a follow-up; "rate limited" counts too (s_bbr's HTML jumps of
 * 11-12 packets, acked two at a time, left fewer than IW in flight at their first ACK:
 * every HTTP/2 page load's, so s_bbr never followed up). */
static __always_inline void hs_resume_ended(struct hs_start *st, __u32 event)
{
	if ((event == HS_VALIDATED || event == HS_RATE_LIMITED) && st->data_cut && !st->rwnd_cut && !st->signalled)
		hs_follow_up(st);
	else
		st->follow_up = 0;
}

/* The resume is over (validated, rate limited, or a retreat): counted as `why`, the
 * window override ended, a follow-up armed or not (hs_resume_ended). */
static __always_inline void hs_resume_over(const struct sock *sk, enum hs_cc_id cc, struct hs_start *st, __u32 why)
{
	hs_count(cc, why);
	st->outcome = why;
	hs_unmark(sk, cc, st);
	hs_log(cc, st, 0);
	hs_resume_ended(st, why);
}


/* Which knobs say no to a start before the table is read: an untrusted socket (the
 * kernel's own, table untouched), mode off. Returns the outcome, or 0 to go on. */
static __always_inline __u32 hs_gatekeep(const struct sock *sk, struct hs_start *st, const struct hs_config *cfg)
{
	/* A TCP Fast Open child runs init at the SYN (tcp_fastopen_create_child), before
	 * any handshake: with cookie-less TFO a spoofed source would reach its peer's
	 * budget, busy share and entry, and fill the outcomes. It is the kernel's, as an
	 * untrusted flow is, and logs no outcome. */
	if (((const struct tcp_sock *)sk)->fastopen_rsk) {
		st->untrusted = st->fast_open = 1;
		return HS_FAST_OPEN;
	}
	/* The controllers are in tcp_allowed_congestion_control (and are every socket's
	 * if one is the default), so a local user's own flows would write entries for any
	 * address it reaches, delete entries by retreating, and read a peer's
	 * cached rate back through its cwnd. sk_uid is the creator's fsuid; an accepted
	 * socket's is its listener's until accept() makes it the accepting process's, so at
	 * init it names whoever opened the listening port, and at a late start
	 * (late_init.h) whoever accepted the connection. */
	if (sk->sk_uid.val > cfg->trusted_uid_max) {
		st->untrusted = 1;
		return HS_UNTRUSTED;
	}
	hs_peer_of(sk, cfg, &st->path);
	return cfg->mode == HS_MODE_OFF ? HS_OFF : 0;
}

/* Reconnaissance (RFC 9959 §4.2) on the peer's entry: the outcome counter of a refusal,
 * or HS_JUMPS with *in filled for the jump. Every handshake that looks the entry up,
 * jump or not, says how busy the bottleneck is (lib/resume.h: jumps that yield);
 * concurrent flows may lose an update to each other: one sample of many. */
static __always_inline __u32 hs_recon(const struct tcp_sock *tp, struct hs_start *st, struct hs_path *p,
				      const struct hs_config *cfg, const struct hs_lab_config *lab,
				      const struct hs_policy *pol, const struct hs_open_flows *others,
				      struct hs_recon_in *in, int handshake)
{
	in->now_ns = bpf_ktime_get_boot_ns();
	in->stored_ns = p->stored_ns;
	st->prior_overshoots = p->overshoots;
	in->sibling_pkts = handshake ? 0 : others->pkts_out;  /* the budget is the jump's to check */
	in->max_age_s = cfg->max_age_s;
	in->saved_rtt_us = (__u32)((__u64)p->min_rtt_us * lab->rtt_scale_pct / 100);
	/* The handshake's RTT sample, or the latest at the jump; a restart's is the flow's
	 * min RTT: its smoothed RTT is as old as the idle, and holds the queue the flow
	 * itself built, drained since (restarts paced over it went out at half the rate). */
	in->cur_rtt_us = st->restarting ? st->restart_rtt_us : tp->srtt_us >> 3;
	in->rtt_match = HS_RTT_MATCH;
	st->cached_Bps = hs_scale_bw(p->bw_bytes_per_s, lab->bw_scale_pct);
	in->saved_bdp_pkts = hs_bdp_packets(st->cached_Bps, in->saved_rtt_us, tp->mss_cache);
	in->min_saved_pkts = pol->min_saved_pkts ? lab->min_jump_pkts : 0;
	if (handshake) {
		p->busy_share = hs_busy_share_after(p->busy_share, hs_bottleneck_busy(in->cur_rtt_us, in->saved_rtt_us));
		if (p->handshakes != ~0U)
			p->handshakes++;
	}
	switch (hs_reconnaissance(in)) {
	case HS_RECON_JUMP:
		return HS_JUMPS;
	case HS_RECON_EXPIRED:
		bpf_map_delete_elem(&hs_paths, &st->path);
		return HS_EXPIRED;
	case HS_RECON_NO_RTT:
		return HS_REJECT_NO_RTT;
	case HS_RECON_RTT_SHORTER:
		return HS_REJECT_RTT_SHORTER;
	case HS_RECON_RTT_LONGER:
		return HS_REJECT_RTT_LONGER;
	case HS_RECON_SMALL:
		return HS_REJECT_SMALL;
	default:
		return HS_REJECT_SIBLINGS;
	}
}

/* A peer with no entry whose prefix's entries agree: the start entry they give
 * (lib/prefix.h), copied into the flow, or NULL. */
static __always_inline struct hs_path *hs_prefix_source(struct hs_start *st, const struct hs_config *cfg)
{
	struct hs_peer k;
	__u32 host;
	struct hs_prefix *a = hs_prefix_of(&st->path, &k, &host);

	if (!hs_prefix_start(a, bpf_ktime_get_boot_ns(), cfg->max_age_s, &st->restart_from))
		return NULL;
	st->from_prefix = 1;
	return &st->restart_from;
}

/* The peer's other open flows past their start: neither armed nor in their jump's
 * first round (running on, or idle). The others start with this one and share its
 * budget: together within the saved BDP. */
static __always_inline __u32 hs_settled_siblings(const struct hs_open_flows *others)
{
	__u32 starting = others->armed + others->starting;

	return others->open > starting ? others->open - starting : 0;
}

/* The window override for a jump, or the one reason it is refused (an enum
 * hs_counter; 0: allowed): a path marked lossy (a hole in the jump makes the receiver
 * discard all past its real window), a receiver that overran lately
 * (hs_overrun_holds), a busy bottleneck (lib/resume.h: a jump there is likely to
 * overflow it), and for s_bbr a settled sibling flow while the peer's flows lost
 * lately (lib/resume.h, hs_shared_refuses_override). Siblings that start with the jump
 * (a page's six connections) do not count: refused beside them after an earlier
 * page's loss, each 1 MB page's six jumps stayed in their receivers' opening windows
 * (269 ms against one connection's 243). Asked at init (the window opens for the
 * request) and again at the jump, where a refusal is counted. */
static __always_inline __u32 hs_override_refusal(const struct hs_policy *pol, const struct hs_path *p,
						 const struct hs_recon_in *in, const struct hs_open_flows *others)
{
	if (p->flags & HS_PATH_LOSSY)
		return HS_LOSSY_NO_RWND;
	if (hs_overrun_holds(p->overruns, p->overrun_s, (__u32)(in->now_ns / 1000000000ULL)))
		return HS_OVERRUN_NO_RWND;
	if (hs_bottleneck_too_busy_for_override(in->cur_rtt_us, in->saved_rtt_us, p->busy_share))
		return HS_BUSY_NO_RWND;
	if (pol->shared_no_rwnd && hs_settled_siblings(others) && hs_shared_refuses_override(others->last_loss_ns, in->now_ns))
		return HS_SHARED_NO_RWND;
	return 0;
}

/* A follow-up goes without the window override: no more than twice the receiver's
 * window (a Linux receiver's first 64 KB after a page's HTML, which doubles in the
 * jump's round: what slow start would have by then), paced at the entry's rate, and
 * then the kernel's slow start, as after a jump cut to its data. Sized to the entry, a
 * 10x entry's follow-up kept a window of 1,000 packets that the receiver's growth let
 * out untested: 145 drops per 4 MB where cubic had none (twice the window: 0; once:
 * 0, and a 256 KB response a round trip later). */
static __always_inline void hs_follow_up_cap(const struct tcp_sock *tp, struct hs_jump *j)
{
	__u32 rwnd = 2 * (tp->snd_wnd / (tp->mss_cache ? tp->mss_cache : 1));

	j->rwnd_cut = j->cwnd > rwnd;
	if (j->rwnd_cut) {
		j->cwnd = rwnd > HS_INIT_CWND ? rwnd : HS_INIT_CWND;
		j->data_cut = 1;
	}
}

/* The jump's size: the entry's BDP, cut by its busy share, capped by the knobs, by
 * the room the peer's other flows leave of its budget (lib/resume.h), by an even share
 * of it among `sharers` (hs_sharers), and by what this flow has to send (`need` packets; 0: no cap). The even
 * share: six browser connections of 700 KB each, the first taking the whole BDP, left
 * the other five to slow-start beside it from IW: the page took 794 ms against kernel
 * cubic's 711. Shared among every open connection instead, a flow right after another
 * whose socket had not closed yet jumped to half (make demo: Ω 0.92 from 0.99). Its pacing rate is the one of the jump
 * before that last cap: a 256 KB response under a 431-packet BDP goes out at the
 * path's rate, not spread over a whole RTT (Ω 0.81 instead of 0.95 when it was).
 * *cut: 1 if the entry's busy share cut it (hs_yielded_jump). */
static __always_inline struct hs_jump hs_size_jump(const struct tcp_sock *tp, const struct hs_start *st,
						   const struct hs_config *cfg, const struct hs_path *p,
						   const struct hs_recon_in *in, __u32 sharers, __u32 need, int *cut)
{
	__u32 max_cwnd = cfg->max_start_cwnd;
	struct hs_jump j;

	if (in->sibling_pkts) {
		__u32 room = hs_room_pkts(in->saved_bdp_pkts, in->sibling_pkts);

		if (room < max_cwnd)
			max_cwnd = room;
	}
	if (sharers > 1 && in->saved_bdp_pkts / sharers < max_cwnd)
		max_cwnd = hs_max_u32((__u32)(in->saved_bdp_pkts / sharers), hs_room_min_pkts(in->min_saved_pkts));
	j = hs_yielded_jump(st->cached_Bps, in->saved_rtt_us, in->cur_rtt_us, tp->mss_cache, HS_JUMP_PCT, p->busy_share,
			    in->min_saved_pkts, max_cwnd, (__u64)cfg->max_start_rate_mbps * 125000, cut);
	/* Cut to its data, the jump keeps its share's pace: its packets leave in part of
	 * the RTT, as a static initcwnd's would. Paced at the cut window per RTT beside
	 * siblings, a browser's objects of 11-45 packets each took the whole RTT to leave. */
	j.data_cut = need && need < j.cwnd;
	if (j.data_cut)
		j.cwnd = need > HS_INIT_CWND ? need : HS_INIT_CWND;
	if (st->follow_up)
		hs_follow_up_cap(tp, &j);
	return j;
}

/* The jump's window and rate in force: cwnd, Unvalidated's record of them, the
 * flow's share of the peer's budget, the pacing rate (and its ceiling where capped).
 * Made by the jump and by each growth of it (hs_extend_jump). */
static __always_inline void hs_set_jump(struct sock *sk, struct hs_start *st, const struct hs_jump *j)
{
	hs_tcp_sk(sk)->snd_cwnd = j->cwnd;
	st->start_cwnd = st->resume.jump_cwnd = j->cwnd;
	st->data_cut = j->data_cut;
	st->rwnd_cut = j->rwnd_cut;
	st->resume.jump_Bps = j->pacing_Bps;
	hs_open_report(st, hs_tcp_sk(sk), j->cwnd, 0);  /* in flight within the RTT: a flow starting beside it counts it */
	sk->sk_pacing_rate = j->pacing_Bps;
	if (st->capped)
		hs_set_max_pacing(sk, j->pacing_Bps);
}

/* The jump `j` (hs_size_jump), over the latest RTT; the window override kept if still
 * allowed, else ended with its reason counted. */
static __always_inline void hs_apply_jump(struct sock *sk, enum hs_cc_id cc, struct hs_start *st,
					  const struct hs_config *cfg, const struct hs_policy *pol, const struct hs_path *p,
					  const struct hs_recon_in *in, const struct hs_open_flows *others,
					  const struct hs_jump *j)
{
	struct tcp_sock *tp = hs_tcp_sk(sk);
	__u32 refused = cfg->rwnd_override ? hs_override_refusal(pol, p, in, others) : 0;

	hs_resume_jump(&st->resume, j, tp->delivered);
	st->jump_seq = tp->snd_nxt;
	sk->sk_pacing_status = SK_PACING_NEEDED;
	if (pol->cap_pacing) {
		st->saved_max_pacing = sk->sk_max_pacing_rate;
		st->capped = 1;
	}
	hs_set_jump(sk, st, j);
	hs_set_startup(st, 1);
	st->path_lossy = !!(p->flags & HS_PATH_LOSSY);
	/* The override lasts until the jump is validated or the first sign of loss (hs_unmark). */
	if (st->restarting || st->follow_up) {
		/* a restart's receiver has its window from what the flow delivered; a
		 * follow-up's reader is a page's browser, which fell behind its override */
	} else if (refused) {
		hs_count(cc, refused);
		hs_unmark(sk, cc, st);
	} else if (cfg->rwnd_override) {
		if (pol->shared_no_rwnd && hs_settled_siblings(others))
			hs_count(cc, HS_SHARED_QUIET_RWND);
		hs_mark(sk, st, j->cwnd);
	}
}

/* init: count the flow, then reconnaissance -> armed (mode on: the window opened now
 * unless refused, the jump at hs_try_jump) or a note of what the jump would have been
 * (shadow). Returns the outcome (HS_ARMED when armed). */
static __always_inline __u32 hs_decide(struct sock *sk, enum hs_cc_id cc, struct hs_start *st,
				       const struct hs_config *cfg, const struct hs_lab_config *lab, const struct hs_policy *pol)
{
	struct hs_open_flows others;
	struct hs_recon_in in = {};
	struct hs_path *p;
	__u32 outcome;
	int cut;

	hs_flow_key_of(sk, &st->key);
	outcome = hs_gatekeep(sk, st, cfg);
	if (outcome)
		return outcome;
	hs_open_enter(st, &others);
	st->shared = others.open > 0;
	p = bpf_map_lookup_elem(&hs_paths, &st->path);
	if (!p && cfg->prefix_fallback)
		p = hs_prefix_source(st, cfg);
	if (!p || !lab->startup)
		return HS_MISSES;
	hs_count(cc, st->from_prefix ? HS_PREFIX_HITS : HS_HITS);
	outcome = hs_recon(hs_tcp_sk(sk), st, p, cfg, lab, pol, &others, &in, 1);
	if (outcome != HS_JUMPS) {
		st->cached_Bps = 0;  /* the outcome names a rate only for a start made (or shadowed) */
		return outcome;
	}
	if (cfg->mode == HS_MODE_SHADOW) {  /* a shadow start sends nothing of the entry's */
		st->shadow = 1;
		return HS_SHADOW_WOULD_JUMP;
	}
	hs_set_armed(st, 1);
	st->armed_cwnd = hs_size_jump(hs_tcp_sk(sk), st, cfg, p, &in, 1, 0, &cut).cwnd;
	if (cfg->rwnd_override && !hs_override_refusal(pol, p, &in, &others))
		hs_mark(sk, st, st->armed_cwnd);
	return HS_ARMED;
}

/* The peer's other open flows, this one left out. */
static __always_inline void hs_others(const struct hs_start *st, struct hs_open_flows *others)
{
	struct hs_open_flows *n = bpf_map_lookup_elem(&hs_open, &st->path);

	if (n) {
		others->open = n->open > 0 ? n->open - 1 : 0;
		others->pkts_out = n->pkts_out > st->reported_out ? n->pkts_out - st->reported_out : 0;
		others->last_loss_ns = n->last_loss_ns;
		others->armed = n->armed > st->armed ? n->armed - st->armed : 0;
		others->starting = n->starting > st->startup ? n->starting - st->startup : 0;
	}
}

/* The budget's sharers at a jump: this flow, the peer's flows armed (waiting for data)
 * and those in their jump's first round. */
static __always_inline __u32 hs_sharers(const struct hs_open_flows *others)
{
	return others->armed + others->starting + 1;
}

/* The memory a jump is made from: a restart's (lib/restart.h), else the peer's entry. */
static __always_inline struct hs_path *hs_jump_source(struct hs_start *st)
{
	if (st->restarting || st->from_prefix)
		return &st->restart_from;
	return bpf_map_lookup_elem(&hs_paths, &st->path);
}

/* A jump sized to what the flow had to send, whose application wrote more before the
 * jump's first ACK (a TLS server writes a response 16 KB record at a time): the jump
 * grows into what the budget has left, up to the size armed at init, paced alike. */
static __always_inline void hs_extend_jump(struct sock *sk, struct hs_start *st, const struct hs_policy *pol)
{
	struct tcp_sock *tp = hs_tcp_sk(sk);
	__u32 wanted = hs_packets_wanted(tp);
	struct hs_open_flows others = {};
	struct hs_recon_in in = {};
	struct hs_config cfg;
	struct hs_lab_config lab;
	struct hs_path *p;
	struct hs_jump j;
	int cut;

	if (wanted <= tp->snd_cwnd)
		return;
	cfg = hs_get_config();
	p = hs_jump_source(st);
	if (cfg.mode != HS_MODE_ON || !p)
		return;
	lab = hs_get_lab_config();
	hs_others(st, &others);
	if (hs_recon(tp, st, p, &cfg, &lab, pol, &others, &in, 0) != HS_JUMPS)
		return;
	j = hs_size_jump(tp, st, &cfg, p, &in, hs_sharers(&others), wanted, &cut);
	if (j.cwnd <= tp->snd_cwnd)
		return;
	hs_set_jump(sk, st, &j);
	if (st->rwnd_marked)
		hs_mark(sk, st, j.cwnd);
}

/* An armed flow that has more to send than its window: Reconnaissance again with the
 * latest RTT sample, the entry as it is now and the room the peer's other flows leave
 * of its budget, then the jump (no more than the flow has to send: the others' share
 * stays theirs); or the reason there is none, counted, and the window override ended.
 * A jump made grows with its application's writes (hs_extend_jump). Returns 1 on a
 * jump. Two of the peer's flows jumping at the same instant on two CPUs may both read
 * the budget before either reports: a race of microseconds, against the lease's
 * refusals. */
HS_SUBPROG int hs_try_jump(struct tcp_sock *tp __arg_trusted, struct hs_start *st __arg_nonnull)
{
	struct sock *sk = (struct sock *)tp;
	enum hs_cc_id cc = st->cc;
	const struct hs_policy *pol = &st->pol;
	struct hs_config cfg;
	struct hs_lab_config lab;
	struct hs_open_flows others = {};
	struct hs_recon_in in = {};
	struct hs_jump j = {};
	struct hs_path *p;
	__u32 outcome, wanted, limit;
	int cut = 0;

	if (st->startup && st->resume.phase == HS_PHASE_UNVALIDATED && tp->snd_cwnd < st->armed_cwnd) {
		hs_extend_jump(sk, st, pol);
		return 0;
	}
	/* A restart jumps for a write of more than IW, whatever window the idle left
	 * (the kernel's restart, or the old window with the sysctl at 0, or BBR's). */
	limit = st->restarting && !st->follow_up && tp->snd_cwnd > HS_INIT_CWND ? HS_INIT_CWND : tp->snd_cwnd;
	wanted = hs_packets_wanted(tp);
	if (!st->armed || wanted <= limit)
		return 0;
	hs_set_armed(st, 0);
	cfg = hs_get_config();
	lab = hs_get_lab_config();
	p = hs_jump_source(st);
	hs_others(st, &others);
	if (others.open)
		st->shared = 1;
	if (cfg.mode != HS_MODE_ON)
		outcome = HS_OFF;
	else if (!p)
		outcome = HS_MISSES;  /* deleted since init (a retreat, an operator) */
	else
		outcome = hs_recon(tp, st, p, &cfg, &lab, pol, &others, &in, 0);
	if (outcome == HS_JUMPS) {
		j = hs_size_jump(tp, st, &cfg, p, &in, hs_sharers(&others), wanted, &cut);
		if (j.cwnd <= limit)
			outcome = HS_REJECT_SIBLINGS;  /* what is left is no more than it has */
	}
	/* A follow-up refused (or no larger than the window the flow grew: the siblings'
	 * outcome above) ends quietly: the flow goes on as the kernel's. */
	if (st->follow_up && outcome != HS_JUMPS) {
		st->follow_up = 0;
		return 0;
	}
	/* A restart that Reconnaissance refuses ends quietly: the counters say how flows
	 * start; the flow goes on from IW, as after the kernel's restart. */
	if (st->restarting && outcome != HS_JUMPS && outcome != HS_REJECT_SIBLINGS) {
		st->restarting = 0;
		return 0;
	}
	if (outcome == HS_REJECT_SIBLINGS) {
		/* The peer's other flows hold the budget: this one goes on as the kernel's and
		 * jumps when they leave room (a browser's connections whose responses end
		 * within a round trip or two). Counted once. */
		hs_set_armed(st, 1);
		if (!st->budget_waited && !st->restarting) {
			st->budget_waited = 1;
			hs_count(cc, outcome);
			st->outcome = outcome;
			hs_log(cc, st, 0);
		}
		return 0;
	}
	if (outcome != HS_JUMPS) {
		st->cached_Bps = 0;
		hs_unmark(sk, cc, st);
		hs_count(cc, outcome);
		st->outcome = outcome;
		hs_log(cc, st, 0);
		return 0;
	}
	if (cut)
		hs_count(cc, HS_YIELDED_JUMPS);
	hs_apply_jump(sk, cc, st, &cfg, pol, p, &in, &others, &j);
	st->outcome = st->follow_up ? HS_FOLLOW_UPS : st->restarting ? HS_RESTARTS : HS_JUMPS;
	hs_count(cc, st->outcome);
	hs_log(cc, st, 0);
	return 1;
}

/* An idle restart is due (lib/restart.h): the first transmission after an idle past
 * the RTO, of a flow neither armed nor resuming, that has data to send. */
static __always_inline int hs_restart_due(const struct sock *sk, const struct hs_start *st)
{
	const struct tcp_sock *tp = (const struct tcp_sock *)sk;

	if ((st->armed && !st->follow_up) || st->startup || st->untrusted || hs_resume_active(&st->resume) ||
	    st->resume.phase == HS_PHASE_RETREAT || tp->write_seq == tp->snd_nxt)
		return 0;
	return hs_idle_past_rto(tp->packets_out, (__u32)bpf_jiffies64(), tp->lsndtime,
				((const struct inet_connection_sock *)sk)->icsk_rto);
}

/* The restart itself: from the flow's own estimate (own_Bps over own_rtt_us) or the
 * peer's newer entry, whichever hs_restart_source picks, if Reconnaissance on the
 * flow's min RTT lets it jump; then armed as at init (the jump at hs_try_jump, for a
 * write of more than IW). No window override: the receiver's window has grown with
 * what the flow delivered. Returns 1 if armed. */
HS_SUBPROG int hs_restart_after_idle(struct tcp_sock *tp __arg_trusted, struct hs_start *st __arg_nonnull,
				     __u64 own_Bps, __u32 own_rtt_us)
{
	const struct hs_policy *pol = &st->pol;
	struct hs_config cfg = hs_get_config();
	struct hs_lab_config lab = hs_get_lab_config();
	struct hs_open_flows alone = {};
	struct hs_recon_in in = {};
	struct hs_path *p, *from = &st->restart_from;
	__u64 now_ns = bpf_ktime_get_boot_ns(), own_until_ns;
	enum hs_restart_from source;
	int own_ok, cut;

	if (st->follow_up) {  /* the idle's restart decides instead */
		st->follow_up = 0;
		hs_set_armed(st, 0);
	}
	if (cfg.version != HS_CONFIG_VERSION || cfg.mode != HS_MODE_ON || !lab.startup || !CONFIG_HZ || !own_rtt_us)
		return 0;
	p = bpf_map_lookup_elem(&hs_paths, &st->path);
	own_until_ns = hs_last_sent_ns(now_ns, (__u32)bpf_jiffies64(), tp->lsndtime, CONFIG_HZ);
	own_ok = hs_worth_storing(own_Bps, own_rtt_us, tp->mss_cache);
	source = hs_restart_source(own_ok, own_until_ns, p && hs_rtt_check(p->min_rtt_us, own_rtt_us, HS_RTT_MATCH) == HS_RECON_JUMP,
				   p ? p->stored_ns : 0);
	if (source == HS_RESTART_NONE)
		return 0;
	if (source == HS_RESTART_TABLE && p) {
		__builtin_memcpy(from, p, sizeof(*from));
	} else {
		__builtin_memset(from, 0, sizeof(*from));
		from->bw_bytes_per_s = own_Bps;
		from->min_rtt_us = own_rtt_us;
		from->stored_ns = own_until_ns;
		if (p) {  /* what the peer's flows saw of the path stays in force */
			from->flags = p->flags;
			from->busy_share = p->busy_share;
			from->overruns = p->overruns;
			from->overrun_s = p->overrun_s;
		}
	}
	/* Sized alone: the peer's other flows are weighed at the jump. */
	st->restarting = 1;
	st->from_prefix = 0;  /* restart_from is the restart's now */
	st->restart_rtt_us = own_rtt_us;
	if (hs_recon(tp, st, from, &cfg, &lab, pol, &alone, &in, 0) != HS_JUMPS) {
		st->restarting = 0;
		return 0;
	}
	__builtin_memset(&st->resume, 0, sizeof(st->resume));
	st->budget_waited = 0;
	st->armed_cwnd = hs_size_jump(tp, st, &cfg, from, &in, 1, 0, &cut).cwnd;
	hs_set_armed(st, 1);
	return 1;
}

/* An ACK: a restart still armed was not needed (the write after the idle fit in IW,
 * or the peer's other flows held the budget): it ends, and the flow goes on as the
 * kernel's. */
static __always_inline void hs_restart_on_ack(struct hs_start *st)
{
	if (st->restarting && st->armed && !st->follow_up) {
		hs_set_armed(st, 0);
		st->restarting = 0;
	}
}

/* What the kernel's tcp_tso_segs() takes when the controller has no min_tso_segs:
 * the controllers that add the hook for hs_try_jump keep the operator's sysctl. */
static __always_inline __u32 hs_sysctl_min_tso_segs(const struct sock *sk)
{
	struct net *net = sk->__sk_common.skc_net.net;

	return net ? net->ipv4.sysctl_tcp_min_tso_segs : 2;
}

/* sndbuf_expand's factor: the kernel sizes the send buffer right after init
 * (tcp_init_buffer_space: factor × max(cwnd, IW) × per-packet memory, at most
 * tcp_wmem[2]) and as ACKs free it. An armed flow's buffer holds its jump, as it did
 * when the jump was made at init: sized for IW, a TLS server's response filled 60 of
 * a 318-packet jump (100 Mbit/s, 50 ms) and ended it rate limited. `factor` is the
 * controller's own (the kernel's 2 without the hook). */
static __always_inline __u32 hs_sndbuf_factor(const struct sock *sk, const struct hs_start *st, __u32 factor)
{
	__u32 cwnd = ((const struct tcp_sock *)sk)->snd_cwnd;
	__u32 base = cwnd > HS_INIT_CWND ? cwnd : HS_INIT_CWND;

	if (st && st->armed && st->armed_cwnd > base)
		return factor * ((st->armed_cwnd + base - 1) / base);
	return factor;
}

/* Unvalidated ends at the first ACK of data sent since the jump (a jump made with
 * older data in flight waits for its own). */
static __always_inline int hs_jump_acked(const struct hs_start *st, const struct tcp_sock *tp)
{
	return st->startup && hs_seq_before(st->jump_seq, tp->snd_una);
}

/* The start at init: decided, counted, logged. */
static __always_inline void hs_begin(struct sock *sk, enum hs_cc_id cc, struct hs_start *st, const struct hs_config *cfg,
				     const struct hs_lab_config *lab, const struct hs_policy *pol)
{
	st->cc = cc;
	st->pol = *pol;
	hs_count(cc, HS_FLOWS);
	st->outcome = hs_decide(sk, cc, st, cfg, lab, pol);
	hs_count(cc, st->outcome);
	hs_log(cc, st, 0);
}

/* The first ACK of data ends Unvalidated. Returns the cwnd to go on with (0: the
 * resume is not Unvalidated any more, e.g. it already retreated). */
static __always_inline __u32 hs_first_ack(struct sock *sk, enum hs_cc_id cc, struct hs_start *st, __u32 in_flight)
{
	struct tcp_sock *tp = hs_tcp_sk(sk);
	__u32 event, cwnd;

	hs_end_pacing(sk, st);
	cwnd = hs_resume_first_ack(&st->resume, in_flight, tp->snd_nxt, tp->delivered, tp->tcp_mstamp,
				   tp->write_seq != tp->snd_nxt, &event);
	if (event != HS_RESUME_NONE)
		hs_resume_over(sk, cc, st, event);
	return cwnd;
}

/* Every ACK after the first: PipeSize, and the end of Validating. */
static __always_inline void hs_after_ack(struct sock *sk, enum hs_cc_id cc, struct hs_start *st)
{
	struct tcp_sock *tp = hs_tcp_sk(sk);
	__u32 event = hs_resume_on_ack(&st->resume, tp->snd_una, tp->delivered);

	if (event != HS_RESUME_NONE)
		hs_resume_over(sk, cc, st, event);
}

/* The entry that led to a retreat is deleted (RFC 9959 §4.5); kept where the
 * receiver's overrun was the loss, or came before any (the rate test then read the
 * receiver): the path did not fail it (hs_take_overrun). 1 if it went. */
static __always_inline int hs_discredit_entry(struct hs_start *st)
{
	struct hs_prefix *a;
	struct hs_peer k;
	__u32 host;

	if (st->overrun_first || (st->overrun_seen && !st->signalled))
		return 0;
	if (st->from_prefix) {  /* the prefix is not one path: its first contacts are the kernel's again */
		a = hs_prefix_of(&st->path, &k, &host);
		if (a)
			a->agreed = 0;
		return 1;
	}
	if (!bpf_map_delete_elem(&hs_paths, &st->path))
		hs_store_event(&st->path, NULL, bpf_ktime_get_boot_ns());
	return 1;
}

/* Validating's rate test (resume.h). On an overshoot: Safe Retreat at once, with
 * cwnd = ssthresh = what the path delivers per min RTT; returns 1. */
static __always_inline int hs_rate_check(struct sock *sk, enum hs_cc_id cc, struct hs_start *st, __u32 min_rtt_us, __u32 rtt_us)
{
	struct tcp_sock *tp = hs_tcp_sk(sk);
	__u32 cwnd;

	/* A follow-up cut to the receiver's window is held back by the receiver, not paced
	 * into the path: it delivers less than the entry's rate by the receiver's doing, and
	 * its delayed ACKs read as a queue (s_bbr, 16 KB then 4 MB over TLS: 3 of 5 retreated
	 * to BBR's 20 Mbit/s, 0.94 s against bbr's 0.58). It holds no more than slow start
	 * would; loss still retreats. Skipped for every receiver-limited jump, 10x entries'
	 * jumps without the override validated (8 of 10 s_bbr's over TLS, against 2 of 10). */
	if (st->rwnd_cut)
		return 0;
	if (!hs_resume_rate_check(&st->resume, tp->tcp_mstamp, tp->delivered, tp->mss_cache, tp->srtt_us >> 3, min_rtt_us,
				  rtt_us, HS_RATE_RETREAT_PCT, &cwnd))
		return 0;
	hs_resume_over(sk, cc, st, HS_RETREAT_RATE);
	st->retreat_counted = 1;
	/* a queue and a rate below the pace: an overshoot (a loss retreat may be random loss) */
	st->overshot = hs_discredit_entry(st);
	tp->snd_cwnd = cwnd;
	tp->snd_ssthresh = cwnd;
	return 1;
}

/* ssthresh asked (loss, ECN-CE, RTO) while Unvalidated or Validating: Safe Retreat.
 * Returns 1 with the retreat's ssthresh and PipeSize; the entry that led here is
 * deleted. The cause is counted by hs_on_ca_state, which the kernel calls right after. */
static __always_inline int hs_retreat(struct sock *sk, enum hs_cc_id cc, struct hs_start *st, __u32 *ssthresh, __u32 *pipe)
{
	struct tcp_sock *tp = hs_tcp_sk(sk);
	__u32 cap;

	if (!hs_resume_retreat(&st->resume, HS_RETREAT_BETA_PCT, tp->snd_nxt, tp->delivered, ssthresh, &cap))
		return 0;
	*pipe = st->resume.pipe_pkts;
	if (st->startup) {  /* before the first ACK (an RTO): pacing off, no cwnd restored */
		sk->sk_pacing_status = SK_PACING_NONE;
		hs_end_pacing(sk, st);
	}
	hs_unmark(sk, cc, st);
	hs_discredit_entry(st);
	if (tp->snd_cwnd > cap)
		tp->snd_cwnd = cap;
	return 1;
}

/* The episode that began with no queue (if any), ended by the next signal or the
 * flow's end: random loss unless it retransmitted a run with the RTT rising
 * (hs_episode_random). */
static __always_inline int hs_no_queue_episode_random(const struct hs_start *st, __u32 total_retrans)
{
	return st->no_queue_pending && hs_episode_random(total_retrans - st->no_queue_retrans_at, st->no_queue_rising);
}

/* ssthresh, on every congestion signal of the flow (resuming or not): an episode that
 * begins with no queue in the smoothed RTT (a queue shows before an overflow) is
 * random loss unless it lost a run as the RTT began to rise, and marks the path lossy
 * when the flow stores (hs_mark_after). One that lost a run is counted
 * (no_queue_overflows). One that begins while an earlier episode's retransmissions
 * are still out is that episode's tail, not new loss: an RTO in the repair of an
 * s_bbr 8 MB flow's overflow (278 retransmissions out, the queue drained to 2 ms)
 * marked the path lossy, and the peer's next jumps went without the window override
 * for 12 s (RESULTS: the HTTPS sweep on a fresh machine). */
static __always_inline void hs_note_congestion(struct sock *sk, enum hs_cc_id cc, struct hs_start *st, __u32 min_rtt_us)
{
	struct tcp_sock *tp = hs_tcp_sk(sk);

	if (st->no_queue_pending) {
		if (hs_no_queue_episode_random(st, tp->total_retrans))
			st->loss_no_queue = 1;
		else
			hs_count(cc, HS_NO_QUEUE_OVERFLOWS);
		st->no_queue_pending = 0;
	}
	hs_take_overrun(cc, st, st->rwnd_watched ? bpf_map_lookup_elem(&hs_rwnd, &st->key) : 0, 1);
	st->signalled = 1;
	hs_set_armed(st, 0);  /* a loss before the jump: the path is not the entry's idle one */
	if (st->overrun_unanswered) {  /* the receiver's discards, not the path's loss */
		st->overrun_unanswered = 0;
		return;
	}
	if (min_rtt_us && min_rtt_us != ~0U && !tp->retrans_out && !hs_queue_seen(tp->srtt_us >> 3, min_rtt_us)) {
		st->no_queue_pending = 1;
		st->no_queue_rising = hs_queue_rising(tp->srtt_us >> 3, min_rtt_us);
		st->no_queue_retrans_at = tp->total_retrans;
	}
}

/* set_state: the first sign of loss (Disorder: a dupACK or SACK) ends the window
 * override, whatever the mode: from then on the receiver holds data out of order,
 * and anything sent beyond its real window would be discarded. A retreat just begun
 * is counted by its cause; an RTO ends the retreat, or a resume no retreat answered
 * (hs_resume_rto). */
static __always_inline void hs_on_ca_state(struct sock *sk, enum hs_cc_id cc, struct hs_start *st, __u8 new_state)
{
	__u32 why;

	if (new_state >= TCP_CA_Disorder)
		hs_unmark(sk, cc, st);
	if (new_state == TCP_CA_Recovery || new_state == TCP_CA_Loss)
		hs_open_note_loss(st);
	if (st->resume.phase == HS_PHASE_RETREAT && !st->retreat_counted) {
		if (new_state == TCP_CA_Recovery)
			why = HS_RETREAT_LOSS;
		else if (new_state == TCP_CA_CWR)
			why = HS_RETREAT_ECN;
		else if (new_state == TCP_CA_Loss)
			why = HS_RETREAT_RTO;
		else
			return;
		hs_count(cc, why);
		st->outcome = why;
		st->retreat_counted = 1;
		hs_log(cc, st, 0);
	}
	if (new_state == TCP_CA_Loss && hs_resume_rto(&st->resume)) {
		/* An RTO that no retreat answered: the resume is over all the same, with
		 * the kernel's response; the entry stays. */
		if (st->startup) {
			sk->sk_pacing_status = SK_PACING_NONE;
			hs_end_pacing(sk, st);
		}
		hs_resume_over(sk, cc, st, HS_RETREAT_RTO);
		st->retreat_counted = 1;
	}
}

/* release: the override goes, and the start's outcome is logged. */
HS_SUBPROG int hs_finish(struct tcp_sock *tp __arg_trusted, struct hs_start *st __arg_nonnull)
{
	const struct sock *sk = (const struct sock *)tp;
	enum hs_cc_id cc = st->cc;

	if (st->outcome == HS_ARMED) {  /* (one that waited for the budget keeps that outcome) */
		st->outcome = HS_NO_JUMP_NEEDED;
		hs_count(cc, HS_NO_JUMP_NEEDED);
	}
	hs_set_armed(st, 0);
	hs_unmark(sk, cc, st);
	if (st->rwnd_watched) {
		hs_take_overrun(cc, st, bpf_map_lookup_elem(&hs_rwnd, &st->key),
				((const struct tcp_sock *)sk)->total_retrans != 0);
		bpf_map_delete_elem(&hs_rwnd, &st->key);
		st->rwnd_watched = 0;
	}
	hs_set_startup(st, 0);  /* released within the jump's first round: it leaves the count */
	hs_open_leave(st);
	hs_log(cc, st, 1);
	return 0;
}

/* Termination: store {bw, min RTT} for the peer unless the knobs or the rules say no.
 * short_flow_rule (S-BBR): a flow that acked fewer bytes than the cached BDP may
 * create an entry but not overwrite one. What is stored follows lib/store.h: capped,
 * raised at most HS_STORE_MAX_RAISE_PCT per flow, not lowered by more than an eighth by
 * a flow that lived in loss recovery, nor below HS_CONFIDENT_FLOOR_PCT of a confident one; a flow that sent no more than its jump
 * leaves the entry as it was (hs_flow_only_jumped); a flow of an untrusted socket
 * stores nothing. */
HS_SUBPROG int hs_store(struct tcp_sock *tp __arg_trusted, const struct hs_start *st __arg_nonnull, __u64 bw,
			 __u32 min_rtt_us, int short_flow_rule)
{
	enum hs_cc_id cc = st->cc;
	struct hs_config cfg = hs_get_config();
	struct hs_lab_config lab = hs_get_lab_config();
	struct hs_path *old, entry = {};
	struct hs_loss_mark mark;
	int inherited = 0;
	__u32 overshoots;

	/* untrusted: counted at init; it neither reads nor writes the table. No record
	 * written yet: the controllers are the kernel's own. */
	if (st->untrusted || cfg.version != HS_CONFIG_VERSION)
		return 0;
	/* Beside its siblings the flow measured its share; they delivered together what
	 * the path carries for the peer (lib/ensemble.h). */
	if (st->shared && st->ensemble.max_Bps > bw)
		bw = st->ensemble.max_Bps;
	/* Shadow mode's score: the entry against this flow's own estimate, where the
	 * estimate is one the flow would have been allowed to store. */
	if (st->shadow && hs_worth_storing(bw, min_rtt_us, tp->mss_cache) &&
	    (!short_flow_rule || hs_bbr_may_overwrite(tp->bytes_acked, st->cached_Bps, min_rtt_us))) {
		hs_count(cc, HS_SHADOW_SCORED);
		hs_count(cc, HS_SHADOW_RATIO_0 + hs_shadow_bucket(st->cached_Bps, bw));
	}

	if (!lab.store) {
		hs_count(cc, HS_SKIPPED);
		return 0;
	}
	if (!hs_worth_storing(bw, min_rtt_us, tp->mss_cache)) {
		hs_count(cc, HS_DISCARDS);
		return 0;
	}
	old = bpf_map_lookup_elem(&hs_paths, &st->path);
	if (old && (lab.freeze ||
		    (short_flow_rule && !hs_bbr_may_overwrite(tp->bytes_acked, old->bw_bytes_per_s, old->min_rtt_us)))) {
		hs_count(cc, HS_SKIPPED);
		return 0;
	}
	/* Overshoots in a row: the second halves the peer's next jumps (hs_overshot_share). */
	overshoots = hs_overshoots_after(st->prior_overshoots, st->overshot, st->outcome == HS_VALIDATED);
	if (old && (st->overshot || st->outcome == HS_VALIDATED)) {
		old->overshoots = overshoots;
		old->busy_share = hs_overshot_share(old->busy_share, overshoots);
	}
	/* A prefix start that only jumped measured the half rate it was paced at. Validated,
	 * its peer's entry is the prefix's average, twice what it proved (a store's bounded
	 * raise; a session's next connections jumped at half from its own reading, median
	 * FCT 143-151 ms against the fleet's 135-137); else none. */
	if ((old || st->from_prefix) &&
	    hs_flow_only_jumped(st->resume.jump_cwnd, st->outcome >= HS_RETREAT_LOSS && st->outcome <= HS_RETREAT_RATE,
				tp->data_segs_out)) {
		if (old || st->outcome != HS_VALIDATED) {
			hs_count(cc, HS_STORE_JUMP_ONLY);
			return 0;
		}
		inherited = 1;
		bw = st->restart_from.bw_bytes_per_s * 100 / HS_PREFIX_START_PCT;
	}
	/* A flow that shared the path with the peer's other connections measured its share:
	 * it may raise the entry, not lower it. Six browser connections of 174 KB each stored
	 * a sixth of the link each, and the next page's jumps fell below the smallest
	 * (reject_small, 12 of 36 starts). */
	if (old && st->shared && bw < old->bw_bytes_per_s) {
		hs_count(cc, HS_SKIPPED);
		return 0;
	}
	entry.bw_bytes_per_s = hs_rate_to_store(old ? old->bw_bytes_per_s : 0, bw,
						hs_flow_lossy(tp->total_retrans, tp->segs_out),
						HS_STORE_MAX_RAISE_PCT, (__u64)cfg.store_cap_mbps * 125000);
	if (old) {
		entry.bw_bytes_per_s = hs_confident_floor(old->bw_bytes_per_s, entry.bw_bytes_per_s, old->agreed,
							  HS_CONFIDENT_FLOOR_PCT);
		entry.agreed = hs_agreed_after(old->agreed, old->bw_bytes_per_s, bw);
	}
	entry.min_rtt_us = min_rtt_us;
	entry.stored_ns = bpf_ktime_get_boot_ns();
	entry.flows = old ? old->flows + 1 : 1;
	entry.source = cc;
	mark.flags = old ? old->flags : 0;
	mark.clean_segs = old ? old->clean_segs : 0;
	mark = hs_mark_after(mark, st->loss_no_queue || hs_no_queue_episode_random(st, tp->total_retrans),
			     tp->total_retrans, tp->segs_out);
	entry.flags = mark.flags;
	entry.clean_segs = mark.clean_segs;
	if (st->overshot && !old) {  /* a new entry carries the count (an old one took it above) */
		entry.overshoots = overshoots;
		entry.busy_share = hs_overshot_share(0, overshoots);
	}
	if (old) {
		hs_write_stored(old, &entry);  /* in place: a replace from the snapshot above lost others' writes */
	} else if (bpf_map_update_elem(&hs_paths, &st->path, &entry, BPF_NOEXIST)) {
		/* a new entry; one a concurrent flow made first wins (its estimate is as new) */
		hs_count(cc, HS_SKIPPED);
		return 0;
	}
	hs_count(cc, HS_STORES);
	hs_store_event(&st->path, &entry, entry.stored_ns);
	if (!inherited)  /* the prefix's own average is no new voice */
		hs_prefix_note(&st->path, &entry);
	return 0;
}

#endif
