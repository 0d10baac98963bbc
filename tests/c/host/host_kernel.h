/* Host harness: the kernel's side of one TCP sender, on a virtual clock, calling a
 * congestion control's hooks in the order net/ipv4/tcp_input.c and tcp_output.c do
 * (in the style of quiche's test sender). A test drives it with verbs:
 *
 *   host_open(c, ops, peer, port, rtt)  handshake done: srtt from it, cwnd IW, init
 *   host_write(c, bytes)                the application writes; after an idle
 *                                       past the RTO the kernel's restart first
 *                                       (sysctl tcp_slow_start_after_idle, host_net);
 *                                       the sender sends what cwnd allows
 *                                       (min_tso_segs first, as tcp_write_xmit;
 *                                       CA_EVENT_TX_START when nothing was in flight)
 *   host_ack(c, n)                      the n oldest packets are acknowledged, when
 *                                       the path brings their ACK back: half the RTT
 *                                       out, a FIFO bottleneck of link_Bps with room
 *                                       for everything, half the RTT back
 *   host_lose(c)                        three dupACKs: the oldest packet is lost
 *                                       (Disorder, then ssthresh and Recovery)
 *   host_rto(c)                         the retransmission timer fires (ssthresh,
 *                                       CA_EVENT_LOSS, Loss, cwnd 1)
 *   host_idle(us)                       time passes
 *   host_close(c)                       release
 *
 * Included after the controller's source: it defines the kernel functions the
 * controller calls (cubic's kfuncs: the kernel's slow start and reduction; its
 * congestion avoidance is Reno's additive increase here, which no check of the
 * start depends on). Not modelled: pacing delays (the rate is checked, not timed),
 * the receiver's window, SACK scoreboards, HyStart. */
#ifndef HS_HOST_KERNEL_H
#define HS_HOST_KERNEL_H

#include <stdio.h>

unsigned int CONFIG_HZ = 1000;
static struct net init_net = { .ns = { .inum = NET_NS_INIT_INO }, .ipv4 = { .sysctl_tcp_min_tso_segs = 2, .sysctl_tcp_slow_start_after_idle = 1 },
			       .net_cookie = 1 };
/* The namespace host_open's connections are in (a test may point it at another). */
static struct net *host_net = &init_net;

#define HOST_MSS 1448U
#define HOST_IW 10U
#define HOST_INFINITE_SSTHRESH 0x7fffffffU
#define HOST_MAX_OUT 16384

struct host_pkt {
	__u32 end_seq, len;
	__u64 sent_us, acked_us;
	__u32 delivered_at_send;
	__u64 delivered_us_at_send;
};

struct host_conn {
	struct tcp_sock tp;
	const struct tcp_congestion_ops *ops;
	__u32 path_rtt_us;          /* the path's RTT without a queue */
	__u64 link_Bps;             /* its bottleneck (host_open: 100 Mbit/s) */
	__u64 link_free_ns;         /* when the bottleneck has sent all it holds */
	struct host_pkt out[HOST_MAX_OUT];
	__u32 head, count;          /* packets outstanding, oldest first */
	__u64 delivered_us;         /* when tp->delivered last grew */
	int tx_starts;              /* CA_EVENT_TX_START given */
	__u16 rcv_field;            /* the window field the receiver writes (host_open: ~64 KB) */
	int rcv_stalled;            /* its reader stopped: the field stays as set */
};

static inline __u64 host_now_us(void)
{
	return host_now_ns / 1000;
}

static inline void host_idle(__u64 us)
{
	host_now_ns += us * 1000;
}

static inline struct sock *host_sk(struct host_conn *c)
{
	return (struct sock *)&c->tp;
}

static inline __u32 host_in_flight(const struct tcp_sock *tp)
{
	return tp->packets_out - (tp->sacked_out + tp->lost_out) + tp->retrans_out;
}

/* tcp_is_cwnd_limited(): in slow start, while cwnd < 2 × the most sent. */
static inline int host_is_cwnd_limited(const struct tcp_sock *tp)
{
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return tp->is_cwnd_limited;
}

/* ---- the kernel's cubic, as the kfuncs the controller calls ---- */
static inline struct bictcp *host_cubic(struct sock *sk)
{
	return (struct bictcp *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

void cubictcp_init(struct sock *sk)
{
	memset(host_cubic(sk), 0, sizeof(struct bictcp));
}

/* tcp_cubic.c: fast convergence, then beta = 717/1024. */
__u32 cubictcp_recalc_ssthresh(struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct bictcp *ca = host_cubic(sk);
	__u32 w = tp->snd_cwnd * 717 / 1024;

	ca->epoch_start = 0;
	if (tp->snd_cwnd < ca->last_max_cwnd)
		ca->last_max_cwnd = (tp->snd_cwnd * (1024 + 717)) / (2 * 1024);
	else
		ca->last_max_cwnd = tp->snd_cwnd;
	return w > 2 ? w : 2;
}

/* tcp_slow_start() then, past ssthresh, one packet per window acknowledged. */
void cubictcp_cong_avoid(struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct bictcp *ca = host_cubic(sk);

	(void)ack;
	if (!host_is_cwnd_limited(tp))
		return;
	if (tp->snd_cwnd < tp->snd_ssthresh) {
		__u32 cwnd = tp->snd_cwnd + acked;

		if (cwnd > tp->snd_ssthresh)
			cwnd = tp->snd_ssthresh;
		acked -= cwnd - tp->snd_cwnd;
		tp->snd_cwnd = cwnd;
		if (!acked)
			return;
	}
	ca->ack_cnt += acked;
	if (ca->ack_cnt >= tp->snd_cwnd) {
		ca->ack_cnt -= tp->snd_cwnd;
		tp->snd_cwnd++;
	}
}

void cubictcp_state(struct sock *sk, __u8 new_state)
{
	if (new_state == TCP_CA_Loss)
		cubictcp_init(sk);
}

void cubictcp_cwnd_event(struct sock *sk, enum tcp_ca_event event)
{
	(void)sk;
	(void)event;
}

void cubictcp_acked(struct sock *sk, const struct ack_sample *sample)
{
	struct bictcp *ca = host_cubic(sk);

	if (sample->rtt_us > 0 && (!ca->delay_min || (__u32)sample->rtt_us < ca->delay_min))
		ca->delay_min = sample->rtt_us;
}

__u32 tcp_reno_undo_cwnd(struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;

	return tp->snd_cwnd > tp->prior_cwnd ? tp->snd_cwnd : tp->prior_cwnd;
}

/* ---- the sender ---- */
typedef void (*host_init_fn)(struct sock *);
typedef __u32 (*host_ssthresh_fn)(struct sock *);
typedef void (*host_cong_avoid_fn)(struct sock *, __u32, __u32);
typedef void (*host_set_state_fn)(struct sock *, __u8);
typedef void (*host_cwnd_event_fn)(struct sock *, enum tcp_ca_event);
typedef void (*host_pkts_acked_fn)(struct sock *, const struct ack_sample *);
typedef __u32 (*host_min_tso_segs_fn)(struct sock *);

static inline void host_set_state(struct host_conn *c, __u8 state)
{
	((host_set_state_fn)c->ops->set_state)(host_sk(c), state);
	c->tp.inet_conn.icsk_ca_state = state;
}

static inline void host_event(struct host_conn *c, enum tcp_ca_event ev)
{
	if (ev == CA_EVENT_TX_START)
		c->tx_starts++;
	((host_cwnd_event_fn)c->ops->cwnd_event)(host_sk(c), ev);
}

/* tcp_update_pacing_rate() for a controller without cong_control: 200 % of cwnd
 * per srtt in slow start's first half, 120 % after, at most sk_max_pacing_rate. */
static inline void host_update_pacing_rate(struct host_conn *c)
{
	struct tcp_sock *tp = &c->tp;
	struct sock *sk = host_sk(c);
	__u64 rate = (__u64)HOST_MSS * 8 * 1000000ULL * 100;
	__u32 w = tp->snd_cwnd > tp->packets_out ? tp->snd_cwnd : tp->packets_out;

	if (c->ops->cong_control || !tp->srtt_us)
		return;
	rate *= tp->snd_cwnd < tp->snd_ssthresh / 2 ? 200 : 120;
	rate = rate / 100 * w / tp->srtt_us / 100;
	sk->sk_pacing_rate = rate < sk->sk_max_pacing_rate ? rate : sk->sk_max_pacing_rate;
}

/* tcp_write_xmit(): what cwnd allows of what the application wrote, after
 * tcp_tso_segs() asked the controller's min_tso_segs. */
static inline void host_push(struct host_conn *c)
{
	struct tcp_sock *tp = &c->tp;

	if (tp->write_seq == tp->snd_nxt)  /* tcp_push_pending_frames(): nothing to send */
		return;
	if (c->ops->min_tso_segs)
		((host_min_tso_segs_fn)c->ops->min_tso_segs)(host_sk(c));

	while (tp->write_seq != tp->snd_nxt && host_in_flight(tp) < tp->snd_cwnd && c->count < HOST_MAX_OUT) {
		__u32 len = tp->write_seq - tp->snd_nxt;
		struct host_pkt *p = &c->out[(c->head + c->count) % HOST_MAX_OUT];

		if (len > HOST_MSS)
			len = HOST_MSS;
		if (host_in_flight(tp) == 0)  /* tcp_event_data_sent(), before snd_nxt moves */
			host_event(c, CA_EVENT_TX_START);
		tp->snd_nxt += len;
		tp->lsndtime = (__u32)bpf_jiffies64();
		p->end_seq = tp->snd_nxt;
		p->len = len;
		p->sent_us = host_now_us();
		if (c->link_free_ns < host_now_ns + c->path_rtt_us * 500ULL)
			c->link_free_ns = host_now_ns + c->path_rtt_us * 500ULL;
		c->link_free_ns += len * 1000000000ULL / c->link_Bps;
		p->acked_us = c->link_free_ns / 1000 + c->path_rtt_us / 2;
		p->delivered_at_send = tp->delivered;
		p->delivered_us_at_send = c->delivered_us;
		c->count++;
		tp->packets_out++;
		tp->segs_out++;
		tp->data_segs_out++;
	}
	if (tp->packets_out > tp->max_packets_out)
		tp->max_packets_out = tp->packets_out;
	tp->is_cwnd_limited = host_in_flight(tp) >= tp->snd_cwnd;
}

/* Set before host_open for a TCP Fast Open child (init runs at its SYN). */
static void *host_next_fastopen_rsk;

static inline void host_open_with_uid(struct host_conn *c, const struct tcp_congestion_ops *ops, __u32 peer_ip,
				      __u16 local_port, __u32 rtt_us, __u32 uid)
{
	struct tcp_sock *tp = &c->tp;
	struct sock *sk = host_sk(c);

	memset(c, 0, sizeof(*c));
	c->ops = ops;
	c->path_rtt_us = rtt_us;
	c->link_Bps = 12500000;
	sk->__sk_common.skc_family = 2;
	sk->__sk_common.skc_daddr = htonl(peer_ip);
	sk->__sk_common.skc_rcv_saddr = htonl(0x0a000001);
	sk->__sk_common.skc_dport = htons(40000);
	sk->__sk_common.skc_num = local_port;
	sk->__sk_common.skc_net.net = host_net;
	sk->sk_uid.val = uid;
	sk->sk_max_pacing_rate = ~0UL;
	tp->mss_cache = HOST_MSS;
	tp->snd_cwnd = HOST_IW;
	tp->snd_ssthresh = HOST_INFINITE_SSTHRESH;
	tp->snd_cwnd_clamp = ~0U;
	tp->srtt_us = rtt_us << 3;
	tp->snd_una = tp->snd_nxt = tp->write_seq = tp->high_seq = 1;
	c->rcv_field = 65535 >> 7;
	tp->snd_wnd = tp->max_window = (__u32)c->rcv_field << 7;
	tp->rx_opt.sack_ok = 1;
	tp->rx_opt.snd_wscale = 7;
	tp->tcp_mstamp = host_now_us();
	tp->lsndtime = (__u32)bpf_jiffies64();
	tp->fastopen_rsk = host_next_fastopen_rsk;
	/* the kernel's RTO after a handshake's RTT sample: srtt + max(4 x rttvar, 200 ms), in jiffies */
	tp->inet_conn.icsk_rto = (rtt_us + 200000) / 1000;
	((host_init_fn)ops->init)(sk);
	c->tp.inet_conn.icsk_ca_initialized = 1;
	host_update_pacing_rate(c);
}

static inline void host_open(struct host_conn *c, const struct tcp_congestion_ops *ops, __u32 peer_ip, __u16 local_port,
			     __u32 rtt_us)
{
	host_open_with_uid(c, ops, peer_ip, local_port, rtt_us, 0);
}

/* tcp_cwnd_restart(): CA_EVENT_CWND_RESTART, ssthresh kept at 3/4 of cwnd at least,
 * cwnd halved per RTO idle, down to min(IW, cwnd). */
static inline void host_cwnd_restart(struct host_conn *c, __s32 idle_jiffies)
{
	struct tcp_sock *tp = &c->tp;
	__u32 restart = tp->snd_cwnd < HOST_IW ? tp->snd_cwnd : HOST_IW, cwnd = tp->snd_cwnd;
	__u32 three_quarters = (tp->snd_cwnd >> 1) + (tp->snd_cwnd >> 2);

	host_event(c, CA_EVENT_CWND_RESTART);
	if (tp->snd_ssthresh < three_quarters)
		tp->snd_ssthresh = three_quarters;
	while ((idle_jiffies -= (__s32)tp->inet_conn.icsk_rto) > 0 && cwnd > restart)
		cwnd >>= 1;
	tp->snd_cwnd = cwnd > restart ? cwnd : restart;
}

/* tcp_sendmsg(): tcp_slow_start_after_idle_check() as the new data is queued, then
 * tcp_push(). */
static inline void host_write(struct host_conn *c, __u32 bytes)
{
	__s32 idle = (__s32)((__u32)bpf_jiffies64() - c->tp.lsndtime);

	if (host_sk(c)->__sk_common.skc_net.net->ipv4.sysctl_tcp_slow_start_after_idle && !c->tp.packets_out && !c->ops->cong_control &&
	    idle > (__s32)c->tp.inet_conn.icsk_rto)
		host_cwnd_restart(c, idle);
	c->tp.write_seq += bytes;
	host_push(c);
}

static inline __u32 host_unsent(const struct host_conn *c)
{
	return c->tp.write_seq - c->tp.snd_nxt;
}

/* The n oldest outstanding packets are acknowledged together, no earlier than one
 * path RTT after the newest of them was sent. Then the kernel's ACK path: RTT and
 * rate samples, pkts_acked, the state machine's exits, cong_avoid (or the cwnd
 * reduction), the pacing rate, and the sender. */
/* The window field of an ACK as the sender reads it: the receiver's, through the
 * window override's decision (rwnd.bpf.c: lib/rwnd_grant.h) when the flow has a grant. */
static inline __u16 host_ack_window(struct host_conn *c)
{
	struct hs_flow_key k = {};
	struct hs_rwnd_grant *g;

	hs_flow_key_of(host_sk(c), &k);
	g = bpf_map_lookup_elem(&hs_rwnd, &k);
	return g ? hs_rwnd_grant_apply(g, c->rcv_field) : c->rcv_field;
}

static inline void host_ack(struct host_conn *c, __u32 n)
{
	struct tcp_sock *tp = &c->tp;
	struct sock *sk = host_sk(c);
	__u8 state = tp->inet_conn.icsk_ca_state;
	struct ack_sample sample = { .pkts_acked = n, .in_flight = host_in_flight(tp) };
	const struct host_pkt *last;
	__u64 bytes = 0, arrival;
	__s32 rtt;

	if (n > c->count)
		n = c->count;
	if (!n)
		return;
	last = &c->out[(c->head + n - 1) % HOST_MAX_OUT];
	arrival = last->acked_us;
	if (arrival > host_now_us())
		host_now_ns = arrival * 1000;
	for (__u32 i = 0; i < n; i++)
		bytes += c->out[(c->head + i) % HOST_MAX_OUT].len;
	rtt = (__s32)(host_now_us() - last->sent_us);
	tp->tcp_mstamp = host_now_us();
	tp->snd_una = last->end_seq;
	tp->bytes_acked += bytes;
	tp->delivered += n;
	c->delivered_us = host_now_us();
	tp->rate_delivered = tp->delivered - last->delivered_at_send;
	tp->rate_interval_us = (__u32)(host_now_us() - last->delivered_us_at_send);
	tp->packets_out -= n;
	tp->lost_out = tp->retrans_out = 0;  /* a loss is always of the oldest: acked by now */
	c->head = (c->head + n) % HOST_MAX_OUT;
	c->count -= n;
	tp->srtt_us += rtt - (tp->srtt_us >> 3);
	/* A reader that keeps up: the window grows by what arrived (tcp_grow_window), so
	 * about 2x per round trip at slow start's pace. */
	if (!c->rcv_stalled && c->rcv_field < 0xffff)
		c->rcv_field = c->rcv_field + ((bytes >> tp->rx_opt.snd_wscale) < 0xffffU - c->rcv_field ? (bytes >> tp->rx_opt.snd_wscale) : 0xffffU - c->rcv_field);
	tp->snd_wnd = (__u32)host_ack_window(c) << tp->rx_opt.snd_wscale;  /* tcp_ack_update_window(), before pkts_acked */
	if (tp->snd_wnd > tp->max_window)
		tp->max_window = tp->snd_wnd;
	sample.rtt_us = rtt;
	((host_pkts_acked_fn)c->ops->pkts_acked)(sk, &sample);
	if (state >= TCP_CA_CWR && !hs_seq_before(tp->snd_una, tp->high_seq)) {
		/* Recovery or Loss is over: tcp_end_cwnd_reduction(), then Open. */
		if (state != TCP_CA_Loss && tp->snd_cwnd > tp->snd_ssthresh)
			tp->snd_cwnd = tp->snd_ssthresh;
		if (state != TCP_CA_Loss && tp->snd_cwnd < tp->snd_ssthresh)
			tp->snd_cwnd = tp->snd_ssthresh;
		host_set_state(c, TCP_CA_Open);
		if (state != TCP_CA_Loss)
			host_event(c, CA_EVENT_COMPLETE_CWR);
		state = TCP_CA_Open;
	}
	if (state == TCP_CA_Recovery || state == TCP_CA_CWR) {
		/* PRR, in short: down to ssthresh, no lower than what is in flight. */
		__u32 floor = host_in_flight(tp) > tp->snd_ssthresh ? host_in_flight(tp) : tp->snd_ssthresh;

		if (tp->snd_cwnd > floor)
			tp->snd_cwnd = floor;
	} else {
		((host_cong_avoid_fn)c->ops->cong_avoid)(sk, tp->snd_una, n);
	}
	host_update_pacing_rate(c);
	host_push(c);
}

/* Acknowledges everything outstanding, two packets an ACK (a delayed-ACK
 * receiver), until the application's data is all delivered. */
static inline void host_ack_all(struct host_conn *c)
{
	for (int guard = 0; c->count && guard < 1000000; guard++)
		host_ack(c, 2);
}

/* Three dupACKs for the oldest packet: Disorder, then tcp_enter_recovery()
 * (high_seq, prior_cwnd, ssthresh, Recovery) and its retransmission. */
static inline void host_lose(struct host_conn *c)
{
	struct tcp_sock *tp = &c->tp;

	if (!c->count)
		return;
	if (tp->inet_conn.icsk_ca_state == TCP_CA_Open)
		host_set_state(c, TCP_CA_Disorder);
	tp->high_seq = tp->snd_nxt;
	tp->prior_cwnd = tp->snd_cwnd;
	tp->snd_ssthresh = ((host_ssthresh_fn)c->ops->ssthresh)(host_sk(c));
	host_set_state(c, TCP_CA_Recovery);
	tp->lost_out = 1;
	tp->retrans_out = 1;
	tp->total_retrans++;
	tp->segs_out++;
}

/* tcp_enter_loss(): ssthresh, CA_EVENT_LOSS, cwnd = in flight + 1 with all marked
 * lost, high_seq, Loss; then the retransmission of the oldest. */
static inline void host_rto(struct host_conn *c)
{
	struct tcp_sock *tp = &c->tp;
	__u64 rto_at = c->count ? c->out[c->head].sent_us + 200000 + c->path_rtt_us : host_now_us();

	c->link_free_ns = 0;  /* what the path held is lost */

	if (rto_at > host_now_us())
		host_now_ns = rto_at * 1000;
	tp->prior_cwnd = tp->snd_cwnd;
	tp->snd_ssthresh = ((host_ssthresh_fn)c->ops->ssthresh)(host_sk(c));
	host_event(c, CA_EVENT_LOSS);
	tp->lost_out = tp->packets_out;
	tp->retrans_out = 0;
	tp->snd_cwnd = host_in_flight(tp) + 1;
	tp->high_seq = tp->snd_nxt;
	host_set_state(c, TCP_CA_Loss);
	tp->retrans_out = 1;
	tp->total_retrans++;
	tp->segs_out++;
}

static inline void host_close(struct host_conn *c)
{
	((host_init_fn)c->ops->release)(host_sk(c));
}

#endif
