/* Host tests of SUSS's round state machine (bpf/lib/suss_round.h) on a virtual
 * clock. A small test sender (in the spirit of quiche's test_sender.rs) plays the
 * kernel's part: it sends while the window allows (the extra data of an accelerated
 * round at the pacing rate), grows cwnd by one per ACK in slow start unless SUSS
 * holds it, and carries out the actions the machine returns. The path is one
 * bottleneck serving a packet every `gap_us`, behind `rtt_us` of propagation delay. */
#include <string.h>
#include "../../bpf/lib/suss_round.h"
#include "check.h"

#define MSS 1448U
#define MAX_PKTS 20000

struct sim {
	struct suss_state s;
	__u64 now_us;
	__u32 rtt_us, gap_us, extra_delay_us, extra_from_round;
	__u32 cwnd, ssthresh, clamp;
	__u32 rwnd;                      /* the receiver's window in packets (0: none) */
	__u32 aggr_us;                   /* ACKs released together every aggr_us (0: as they come) */
	__u32 sent, acked;               /* packets */
	__u64 send_at[MAX_PKTS];         /* when packet k left the sender */
	__u64 ack_at[MAX_PKTS];          /* when its ACK reaches the sender */
	__u64 link_free_us;              /* the bottleneck is busy until then */
	int pacing;
	__u64 pacing_Bps, next_paced_us;
	int hystart_found;               /* the kernel's HyStart flag the machine drives */
	__u32 counts[HS_SUSS_COUNTERS];
	__u32 grows, grow_cwnd[16], grow_from[16], grow_train[16];
	__u64 grow_rate[16];
	__u32 exit_round, exit_cwnd;
	__u32 round_start_cwnd[32];      /* cwnd when round i began (before that ACK's growth) */
};

static void sim_init(struct sim *m, __u32 rtt_us, __u32 gap_us, __u32 k_max)
{
	memset(m, 0, sizeof(*m));
	m->rtt_us = rtt_us;
	m->gap_us = gap_us;
	m->cwnd = 10;
	m->ssthresh = ~0U;
	m->clamp = 100000;
	m->extra_from_round = ~0U;
	suss_start(&m->s, 0, 0, k_max, 0);
	m->hystart_found = 1;
}

static void transmit_one(struct sim *m, __u64 t)
{
	__u32 k = m->sent++;
	__u64 start = t > m->link_free_us ? t : m->link_free_us;

	m->send_at[k] = t;
	m->link_free_us = start + m->gap_us;
	m->ack_at[k] = m->link_free_us + m->rtt_us + (m->s.round >= m->extra_from_round ? m->extra_delay_us : 0);
	if (m->aggr_us)
		m->ack_at[k] = (m->ack_at[k] + m->aggr_us - 1) / m->aggr_us * m->aggr_us;
}

/* Sends what the window allows now: back to back, or one packet at the pacing rate. */
static void send_allowed(struct sim *m)
{
	while (m->sent - m->acked < m->cwnd && (!m->rwnd || m->sent - m->acked < m->rwnd) && m->sent < MAX_PKTS) {
		if (m->pacing) {
			if (m->next_paced_us > m->now_us)
				return;
			m->next_paced_us = (m->next_paced_us > m->now_us ? m->next_paced_us : m->now_us) +
					   (__u64)MSS * 1000000 / m->pacing_Bps;
		}
		transmit_one(m, m->now_us);
	}
}

static void apply(struct sim *m, const struct suss_out *o)
{
	if (o->act & SUSS_END_PACING)
		m->pacing = 0;
	if (o->act & SUSS_RELEASE_HYSTART)
		m->hystart_found = 0;
	if (o->act & SUSS_EXIT_SLOW_START) {
		m->ssthresh = m->cwnd;
		m->hystart_found = 1;
		m->exit_round = m->s.round;
		m->exit_cwnd = m->cwnd;
	}
	if (o->act & SUSS_GROW) {
		if (m->grows < 16) {
			m->grow_from[m->grows] = m->cwnd;
			m->grow_cwnd[m->grows] = o->cwnd;
			m->grow_train[m->grows] = m->s.train_prev;
			m->grow_rate[m->grows] = o->pacing_Bps;
		}
		m->grows++;
		m->cwnd = o->cwnd;
		m->pacing = 1;
		m->pacing_Bps = o->pacing_Bps;
		m->next_paced_us = m->now_us;
	}
	if (o->count != SUSS_NO_COUNT)
		m->counts[o->count]++;
}

/* Runs the flow until `until_us` or `max_acks` ACKs, whichever comes first. */
static void run(struct sim *m, __u64 until_us, __u32 max_acks)
{
	send_allowed(m);
	while (m->acked < m->sent && m->acked < max_acks) {
		__u64 t = m->ack_at[m->acked];

		/* Paced sends due before this ACK go first. */
		while (m->pacing && m->next_paced_us < t && m->sent - m->acked < m->cwnd) {
			m->now_us = m->next_paced_us;
			send_allowed(m);
		}
		if (t > until_us)
			return;
		m->now_us = t;
		m->acked++;
		struct suss_ack a = {
			.now_us = t, .snd_una = m->acked * MSS, .snd_nxt = m->sent * MSS, .mss = MSS,
			.cwnd = m->cwnd, .cwnd_clamp = m->clamp, .rtt_us = (__u32)(t - m->send_at[m->acked - 1]),
			.rwnd_limited = m->rwnd && m->rwnd < m->cwnd,
		};
		__u32 round = m->s.round;
		struct suss_out o = suss_on_ack(&m->s, &a);
		apply(m, &o);
		if (m->s.round != round && m->s.round < 32)
			m->round_start_cwnd[m->s.round] = m->cwnd;
		/* cong_avoid: slow start grows by one per ACK unless SUSS holds it. */
		if (!suss_holds_growth(&m->s, m->acked * MSS, m->cwnd, m->ssthresh) && m->cwnd < m->ssthresh)
			m->cwnd++;
		send_allowed(m);
	}
}

static void test_fast_path_grows_4x_until_the_train_says_stop(void)
{
	/* 100 ms, a packet every 100 us (~116 Mbit/s): BDP 1000 packets. The IW's
	 * train is 1 ms, far under minRTT/4: round 2 is accelerated. */
	struct sim m;

	sim_init(&m, 100000, 100, 1);
	run(&m, 2000000, MAX_PKTS);
	CHECK(m.counts[HS_SUSS_ACCELERATED_ROUNDS] >= 2, "%u accelerated rounds", m.counts[HS_SUSS_ACCELERATED_ROUNDS]);
	CHECK(m.grows >= 2 && m.grow_cwnd[0] == 4 * 10, "round 2: cwnd_2 = 4 x cwnd_1 = 40, got %u", m.grow_cwnd[0]);
	for (__u32 i = 0; i < m.grows && i < 16; i++) {
		CHECK(m.grow_cwnd[i] == 4 * m.grow_train[i], "G = 4 x the previous round's %u, got %u", m.grow_train[i],
		      m.grow_cwnd[i]);
		/* Eq. 11: the red data at cwnd_i / minRTT. */
		CHECK(m.grow_rate[i] == (__u64)m.grow_cwnd[i] * MSS * 1000000 / m.s.min_rtt_us, "pacing rate");
	}
	/* Blue ACKs grow cwnd as slow start does; red ACKs (after the decision, until the
	 * next round) grow nothing: round 4 begins at round 3's target, plus the one
	 * ACK that decided it. */
	CHECK(m.grows >= 2 && m.grow_from[1] > m.grow_cwnd[0], "blue ACKs grew round 3");
	CHECK(m.grows >= 2 && m.round_start_cwnd[4] == m.grow_cwnd[1] + 1, "round 4 starts at cwnd %u, target %u",
	      m.round_start_cwnd[4], m.grow_cwnd[1]);
	CHECK(m.counts[HS_SUSS_TRAIN_EXITS] + m.counts[HS_SUSS_DELAY_EXITS] + m.counts[HS_SUSS_NORMAL_ROUNDS] == 1,
	      "SUSS ends once");
	CHECK(m.counts[HS_SUSS_DELAY_EXITS] == 0, "no queue on this path, no delay exit");
	CHECK(!m.s.active, "SUSS done");
	/* Plain slow start needs 7 rounds to pass 640 packets (10 x 2^6); SUSS got there
	 * by round 5. */
	CHECK(m.exit_round && m.exit_round <= 5 && m.exit_cwnd >= 640, "slow start left in round %u at cwnd %u",
	      m.exit_round, m.exit_cwnd);
}

static void test_slow_path_hands_over_to_hystart(void)
{
	/* A packet every 5 ms: the IW's train is 45 ms > minRTT/4 = 25 ms: G = 2. */
	struct sim m;

	sim_init(&m, 100000, 5000, 1);
	run(&m, 400000, MAX_PKTS);
	CHECK(m.counts[HS_SUSS_NORMAL_ROUNDS] == 1, "decided at G = 2 once, got %u", m.counts[HS_SUSS_NORMAL_ROUNDS]);
	CHECK(m.counts[HS_SUSS_ACCELERATED_ROUNDS] == 0 && m.grows == 0, "never accelerated");
	CHECK(!m.s.active, "SUSS done");
	CHECK(m.hystart_found == 0, "the kernel's HyStart is released at the next round");
}

static void test_rising_delay_ends_slow_start(void)
{
	/* A fast path where a standing queue of 30 ms appears from round 3 on (another
	 * flow, say): moRTT exceeds minRTT + clamp(minRTT/8, 4, 16) ms = 112.5 ms. */
	struct sim m;

	sim_init(&m, 100000, 100, 1);
	m.extra_delay_us = 30000;
	m.extra_from_round = 3;
	run(&m, 2000000, MAX_PKTS);
	CHECK(m.counts[HS_SUSS_DELAY_EXITS] == 1, "delay exit counted, got %u", m.counts[HS_SUSS_DELAY_EXITS]);
	CHECK(m.ssthresh == m.exit_cwnd && m.hystart_found == 1, "ssthresh = cwnd, HyStart marked done");
	CHECK(m.counts[HS_SUSS_TRAIN_EXITS] == 0, "the delay test fired first");
}

/* A receiver whose window stays at 44 packets (a Linux receiver's opening 64 KB, its
 * reader stalled): once cwnd passes it the sender goes out as the ACKs come back, and
 * each round's ACK train spans the round trip. That train measures the receiver, not
 * the path: SUSS stops at once, with no exit of slow start, and gives the kernel's
 * HyStart back at the next round. Decided on, the train test ended slow start there. */
static void test_the_receivers_window_below_cwnd_ends_suss_not_slow_start(void)
{
	struct sim m;

	sim_init(&m, 100000, 100, 1);
	m.rwnd = 44;
	run(&m, 800000, MAX_PKTS);
	CHECK(m.counts[HS_SUSS_RWND_STOPS] == 1 && !m.s.active, "SUSS stopped by the receiver: %u",
	      m.counts[HS_SUSS_RWND_STOPS]);
	CHECK(m.exit_round == 0 && m.ssthresh == ~0U, "slow start goes on: exit round %u at cwnd %u", m.exit_round,
	      m.exit_cwnd);
	CHECK(m.grows == 1 && m.grow_cwnd[0] == 40, "only round 2, below the window, grew 4x: %u", m.grows);
	CHECK(m.hystart_found == 0 && !m.pacing, "HyStart back, no pacing");
}

/* ACKs released every 8 ms (Wi-Fi, LTE uplinks) on a 30 ms path of 300 packets: a
 * round's blue ACKs arrive in bursts with gaps between them, which is no ACK train
 * (the kernel's HyStart counts only ACKs within 2 ms of each other). Read as a train,
 * it ended slow start at cwnd 198; SUSS hands over to HyStart instead. */
static void test_aggregated_acks_are_no_train(void)
{
	struct sim m;

	sim_init(&m, 30000, 100, 1);
	m.aggr_us = 8000;
	run(&m, 2000000, MAX_PKTS);
	CHECK(m.counts[HS_SUSS_TRAIN_EXITS] == 0 && m.ssthresh == ~0U, "no train exit behind aggregation: round %u at cwnd %u",
	      m.exit_round, m.exit_cwnd);
	CHECK(m.counts[HS_SUSS_NORMAL_ROUNDS] == 1 && m.counts[HS_SUSS_ACCELERATED_ROUNDS] >= 1 && !m.s.active,
	      "accelerated, then handed over: %u", m.counts[HS_SUSS_ACCELERATED_ROUNDS]);
}

/* A slow link spaces its ACKs evenly, 2.5 ms apart here (over the kernel HyStart's
 * 2 ms delta): that is an ACK train, and it ends slow start near the BDP (40 packets
 * at 100 ms) before the queue overflows. */
static void test_evenly_spaced_slow_acks_are_a_train(void)
{
	struct sim m;

	sim_init(&m, 100000, 2500, 1);
	run(&m, 2000000, MAX_PKTS);
	CHECK(m.counts[HS_SUSS_TRAIN_EXITS] == 1 && m.exit_cwnd <= 2 * 40, "train exit at cwnd %u (round %u)", m.exit_cwnd,
	      m.exit_round);
}

static void test_k_max_2_allows_8x(void)
{
	/* Appendix A: with k_max = 2 and a train within minRTT/8, G = 8. */
	struct sim m;

	sim_init(&m, 100000, 100, 2);
	run(&m, 2000000, MAX_PKTS);
	CHECK(m.grows >= 1 && m.grow_cwnd[0] == 80, "round 2: 8 x 10, got %u", m.grow_cwnd[0]);
}

static void test_a_cwnd_reduction_stops_suss_for_good(void)
{
	/* Interrupt an accelerated round: the pacing period ends, SUSS never decides
	 * again, and HyStart returns at the next round. */
	struct sim m;

	sim_init(&m, 100000, 100, 1);
	run(&m, 2000000, 10);  /* the IW's last ACK decides round 2: its red data is being paced */
	CHECK(m.pacing && m.s.active, "accelerated round under way");
	struct suss_out o = suss_on_reduction(&m.s);
	apply(&m, &o);
	CHECK(o.act & SUSS_END_PACING, "pacing period ended");
	CHECK(m.counts[HS_SUSS_LOSS_STOPS] == 1, "loss stop counted");
	__u32 grows = m.grows;
	m.ssthresh = m.cwnd / 2 + 1;  /* what the kernel's Cubic would do */
	m.cwnd = m.ssthresh;
	run(&m, 2000000, MAX_PKTS);
	CHECK(m.grows == grows, "no acceleration after a reduction");
	CHECK(m.counts[HS_SUSS_LOSS_STOPS] == 1, "counted once");
	CHECK(m.hystart_found == 0, "HyStart back");
	/* A second reduction, SUSS already off: nothing to count. */
	o = suss_on_reduction(&m.s);
	CHECK(o.count == SUSS_NO_COUNT && !(o.act & SUSS_END_PACING), "idempotent");
}

static void test_ssthresh_recalculation_turns_suss_off(void)
{
	struct sim m;

	sim_init(&m, 100000, 100, 1);
	run(&m, 2000000, 10);
	struct suss_out o = suss_on_ssthresh(&m.s);
	CHECK((o.act & SUSS_END_PACING) && !m.s.active && !m.s.release_hystart, "off, HyStart stays with the loss");
}

int main(void)
{
	test_fast_path_grows_4x_until_the_train_says_stop();
	test_slow_path_hands_over_to_hystart();
	test_rising_delay_ends_slow_start();
	test_the_receivers_window_below_cwnd_ends_suss_not_slow_start();
	test_aggregated_acks_are_no_train();
	test_evenly_spaced_slow_acks_are_a_train();
	test_k_max_2_allows_8x();
	test_a_cwnd_reduction_stops_suss_for_good();
	test_ssthresh_recalculation_turns_suss_off();
	return check_report();
}
