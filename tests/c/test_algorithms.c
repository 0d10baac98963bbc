/* Host unit tests of the algorithm headers that are compiled into the BPF programs.
 * They feed crafted ACK sequences and check the arithmetic against the papers. */
#include <stdio.h>
#include <string.h>
#include "gcbe_views.h"
#include "../../bpf/lib/startup.h"
#include "../../bpf/lib/suss.h"
#include "../../bpf/lib/shadow.h"
#include "../../bpf/lib/ensemble.h"
#include "check.h"

static int near(double got, double want, double rel)
{
	double d = got > want ? got - want : want - got;
	return d <= rel * want;
}

/* 100 Mbit/s, 1500-byte packets: one every 120 us; a delayed ACK every 2 packets
 * (2 x 1448 payload bytes every 240 us): 12.07 MB/s of payload. */
#define ACK_BYTES 2896ULL
#define ACK_GAP_US 240ULL
#define PAYLOAD_BPS (ACK_BYTES * 1000000ULL / ACK_GAP_US)

static void test_cwnd_limited_rounds(void)
{
	/* (min_span_us stays 0 in these tests: the paper's estimator, no noise floor.) */
	/* Slow start on a 50 ms path: round r brings 5 * 2^r ACKs back to back, then the
	 * sender idles until the next round. Plain bytes/time would see ~1-2 % of the
	 * link in round 1; GCBE must see all of it. */
	struct gcbe g;
	__u64 t = 50000, closed = 0;

	memset(&g, 0, sizeof(g));
	for (int round = 0; round < 4; round++) {
		__u64 start = 50000ULL * (round + 1);
		int acks = 5 << round;
		for (int i = 0; i < acks; i++) {
			t = start + i * ACK_GAP_US;
			__u64 est = gcbe_on_ack(&g, t, ACK_BYTES, 50000);
			if (est) {
				closed++;
				CHECK(near((double)est, (double)PAYLOAD_BPS, 0.001),
				      "round %d estimate %llu vs %llu", round, (unsigned long long)est,
				      (unsigned long long)PAYLOAD_BPS);
			}
		}
	}
	CHECK(closed == 3, "%llu cycles closed, expected 3 (at the first ACK of rounds 1-3)",
	      (unsigned long long)closed);
	CHECK(near((double)gcbe_best(&g), (double)PAYLOAD_BPS, 0.001), "best");
}

static void test_no_gap_at_all(void)
{
	/* A flow whose cwnd exceeds the BDP: ACKs evenly spaced, no idle gap. Dropping
	 * one interval (the "largest", all equal) still gives the exact rate. */
	struct gcbe g;
	int samples = 0;

	memset(&g, 0, sizeof(g));
	for (__u64 t = 0; t <= 200000; t += ACK_GAP_US)
		if (gcbe_on_ack(&g, 1000 + t, ACK_BYTES, 50000))
			samples++;
	CHECK(samples == 3 || samples == 4, "%d samples over 200 ms of 50 ms cycles", samples);
	CHECK(gcbe_best(&g) == PAYLOAD_BPS, "exact rate, got %llu", (unsigned long long)gcbe_best(&g));
}

static void test_one_ack_cycles_do_not_close(void)
{
	/* One ACK per RTT (a trickle): a cycle needs more than 3 ACKs to close. */
	struct gcbe g;

	memset(&g, 0, sizeof(g));
	for (int i = 0; i < 3; i++)
		CHECK(gcbe_on_ack(&g, 1000 + i * 100000ULL, 1448, 50000) == 0, "ack %d", i);
	CHECK(g.nsamples == 0, "no estimate from 3 ACKs");
	/* The fourth ACK closes it: intervals 100 ms, 100 ms, 100 ms minus the largest. */
	__u64 est = gcbe_on_ack(&g, 1000 + 300000ULL, 1448, 50000);
	CHECK(est == 2 * 1448ULL * 1000000 / 200000, "trickle estimate %llu", (unsigned long long)est);
}

static void test_short_flow_partial_cycle(void)
{
	/* A 4 KB flow: the handshake's ACK then two data ACKs 240 us apart, well inside
	 * one RTT. The partial cycle at termination still measures the bottleneck. */
	struct gcbe g;

	memset(&g, 0, sizeof(g));
	gcbe_on_ack(&g, 1000, 0, 50000);          /* opens the cycle */
	gcbe_on_ack(&g, 51000, ACK_BYTES, 50000); /* after the idle first RTT: the gap */
	gcbe_on_ack(&g, 51000 + ACK_GAP_US, 1200, 50000);
	CHECK(g.nsamples == 0, "no complete cycle");
	gcbe_finish(&g);
	CHECK(gcbe_best(&g) == 1200ULL * 1000000 / ACK_GAP_US, "partial estimate %llu",
	      (unsigned long long)gcbe_best(&g));
	/* With the noise floor, 240 us of ACKs are too short to say anything. */
	memset(&g, 0, sizeof(g));
	g.min_span_us = 1000;  /* the knob gcbe_min_span_us's default */
	gcbe_on_ack(&g, 1000, 0, 50000);
	gcbe_on_ack(&g, 51000, ACK_BYTES, 50000);
	gcbe_on_ack(&g, 51000 + ACK_GAP_US, 1200, 50000);
	gcbe_finish(&g);
	CHECK(gcbe_best(&g) == 0, "below the floor: no estimate");
	/* Two ACKs only: nothing can be said. */
	memset(&g, 0, sizeof(g));
	gcbe_on_ack(&g, 1000, 0, 50000);
	gcbe_on_ack(&g, 2000, 1448, 50000);
	gcbe_finish(&g);
	CHECK(gcbe_best(&g) == 0, "two ACKs give no estimate");
}

static void test_ring_keeps_last_five(void)
{
	struct gcbe g;

	memset(&g, 0, sizeof(g));
	gcbe_push(&g, 900);          /* an old, high estimate ... */
	for (int i = 1; i <= 5; i++) /* ... is forgotten after five newer ones */
		gcbe_push(&g, 100 + i);
	CHECK(gcbe_best(&g) == 105, "best of the last five, got %llu", (unsigned long long)gcbe_best(&g));
	gcbe_push(&g, 300);
	CHECK(gcbe_best(&g) == 300, "newest max");
	CHECK(g.nsamples == 7, "count");
	/* last five: 102 103 104 105 300 -> median 104, where the max is the outlier */
	CHECK(gcbe_median(&g) == 104, "median %llu", (unsigned long long)gcbe_median(&g));
	memset(&g, 0, sizeof(g));
	CHECK(gcbe_median(&g) == 0, "no samples");
	gcbe_push(&g, 7);
	CHECK(gcbe_median(&g) == 7, "one sample");
	gcbe_push(&g, 3);
	CHECK(gcbe_median(&g) == 3, "two samples: the lower");
}

static void test_large_numbers(void)
{
	/* 10 Gbit/s and a 1 s RTT: 1.25e9 B/s x 1e6 us must not overflow. */
	__u64 bw = 1250000000ULL;
	CHECK(hs_bdp_packets(bw, 1000000, 1448) == 863259, "BDP %llu", (unsigned long long)hs_bdp_packets(bw, 1000000, 1448));
	/* A GCBE cycle of one second at 10 Gbit/s. */
	struct gcbe g;
	memset(&g, 0, sizeof(g));
	gcbe_on_ack(&g, 0, 0, 1000000);
	__u64 est = 0;
	for (__u64 t = 1; t <= 1000000 && !est; t++)
		est = gcbe_on_ack(&g, t, 1250, 1000000);
	CHECK(est == bw, "10 Gbit/s estimate %llu", (unsigned long long)est);
	CHECK(hs_scale_bw(~0ULL >> 1, 200) > (~0ULL >> 2), "scaling huge values does not wrap");
}

static void test_startup_rules(void)
{
	CHECK(hs_startup_exit_cwnd(3) == 10 && hs_startup_exit_cwnd(400) == 400, "eq. 3");
	CHECK(!hs_worth_storing(12500000, 1000, 1448), "BDP 8 packets is not worth storing");
	CHECK(hs_worth_storing(12500000, 50000, 1448), "431 packets is");
	CHECK(!hs_worth_storing(0, 50000, 1448) && !hs_worth_storing(12500000, 0, 1448), "zeros");
	CHECK(!hs_worth_storing(12500000, 11000000, 1448), "an 11 s min RTT (ACKs held back) is not a path");
	CHECK(hs_worth_storing(12500000, HS_PATH_MAX_RTT_US, 1448), "10 s is the last believable one");
	CHECK(!hs_worth_storing(HS_PATH_MAX_BW_BYTES_PER_S + 1, 50000, 1448), "nor is a rate past the tool's bound");
	CHECK(hs_scale_bw(1000, 20) == 200 && hs_scale_bw(1000, 200) == 2000, "scale");
	/* S-BBR: a 100 KB flow may not overwrite a 625 KB BDP entry; a 1 MB one may. */
	CHECK(!hs_bbr_may_overwrite(100000, 12500000, 50000), "short flow");
	CHECK(hs_bbr_may_overwrite(1 << 20, 12500000, 50000), "long flow");
	/* BBR units: 180 Mbit/s = 22.5 MB/s = 15.54 packets/us of 1448 B, x 2^24. */
	__u32 units = hs_bbr_bw_from_Bps(22500000, 1448);
	CHECK(units == (__u32)((22500000ULL << 24) / 1448000000ULL), "to BBR units %u", units);
	__u64 back = hs_bbr_bw_to_Bps(units, 1448);
	/* one unit is 1448e6 / 2^24 = 86 B/s: the round trip loses less than that */
	CHECK(back <= 22500000 && back > 22500000 - 87, "round trip %llu", (unsigned long long)back);
	CHECK(hs_bbr_bw_from_Bps(1ULL << 45, 1448) == ~0U && hs_bbr_bw_from_Bps(1000, 0) == 0, "saturates");
}

static void test_suss_worked_example(void)
{
	/* Fig. 5-6: iw = 10 packets, minRTT 100 ms on a path where a train of n packets
	 * takes n x 0.5 ms at the bottleneck, no queueing yet. */
	const __u32 iw = 10, min_rtt = 100000;
	__u32 cwnd_prev = iw, blue_prev = iw;     /* round 1: all of iw is blue */
	__u32 cwnd = iw, blue = iw;
	__u32 g[5] = {0};

	for (__u32 round = 2; round <= 4; round++) {
		/* The blue ACKs of round i return over blue_prev x 0.5 ms; eq. 9 scales that
		 * to the whole train: 5 ms, 20 ms, then 80 ms (16 iw), past minRTT/4. */
		__u64 dt_blue = blue_prev * 500ULL;
		__u32 gi = suss_growth_factor(dt_blue, cwnd_prev, blue_prev, min_rtt, min_rtt, 1, 1);
		g[round] = gi;
		blue = 2 * blue_prev;                    /* S^B_i = iw x 2^(i-1) */
		cwnd = gi * cwnd_prev;
		if (round == 2)
			CHECK(cwnd == 4 * iw, "cwnd_2 = 4 iw, got %u", cwnd);
		if (round == 3)
			CHECK(cwnd == 16 * iw, "cwnd_3 = 16 iw, got %u", cwnd);
		cwnd_prev = cwnd;
		blue_prev = blue;
	}
	CHECK(g[2] == 4 && g[3] == 4 && g[4] == 2, "G2 G3 G4 = %u %u %u, expected 4 4 2", g[2], g[3], g[4]);
	/* Round 2's pacing period: 2 iw of red in half a minRTT at cwnd_2 / minRTT (eq. 11). */
	CHECK(suss_pacing_rate(40, 1448, 100000) == 40ULL * 1448 * 10, "eq. 11 rate");
}

static void test_suss_conditions(void)
{
	/* Condition 1 alone: a train at exactly minRTT/4 still quadruples, one past does not. */
	CHECK(suss_growth_factor(25000, 10, 10, 100000, 100000, 1, 1) == 4, "at minRTT/4");
	CHECK(suss_growth_factor(25001, 10, 10, 100000, 100000, 1, 1) == 2, "past minRTT/4");
	/* Eq. 9 scales the blue part to the whole train: half blue doubles it. */
	CHECK(suss_growth_factor(15000, 20, 10, 100000, 100000, 1, 1) == 2, "scaled train 30 ms");
	/* Condition 2: 105 ms observed, +5 ms per round, stays under 112.5 ms: ok; 110 not. */
	CHECK(suss_delay_ok(105000, 100000, 1), "105 + 5 <= 112.5");
	CHECK(!suss_delay_ok(110000, 100000, 1), "110 + 10 > 112.5");
	CHECK(suss_delay_ok(110000, 100000, 4), "110 + 2.5 <= 112.5 when the rise took 4 rounds");
	CHECK(suss_growth_factor(1000, 10, 10, 100000, 110000, 1, 1) == 2, "delay says stop");
	/* Appendix A: k_max = 2 allows G = 8 when the train is within minRTT/8. */
	CHECK(suss_growth_factor(12000, 10, 10, 100000, 100000, 1, 2) == 8, "G = 8");
	CHECK(suss_growth_factor(12000, 10, 10, 100000, 100000, 1, 1) == 4, "k_max 1 caps at 4");
	CHECK(suss_growth_factor(1000, 10, 0, 100000, 100000, 1, 1) == 2, "no blue data: no prediction");
	CHECK(suss_growth_factor(1000, 10, 10, 0, 0, 1, 1) == 2, "no min RTT yet");
}

/* ACK aggregation: the ACKs of a busy link, each held to the next multiple of
 * agg_us and released 10 us apart within a burst, over `busy_us` from t0. */
static __u64 aggregated(struct gcbe *g, __u64 t0, __u64 busy_us, __u64 agg_us)
{
	__u64 est = 0, last_release = 0, in_burst = 0;

	for (__u64 t = t0; t < t0 + busy_us; t += ACK_GAP_US) {
		__u64 release = (t + agg_us - 1) / agg_us * agg_us;
		in_burst = release == last_release ? in_burst + 1 : 0;
		last_release = release;
		__u64 e = gcbe_on_ack(g, release + in_burst * 10, ACK_BYTES, 50000);
		if (e)
			est = e;
	}
	return est;
}

static void test_ack_bursts(void)
{
	struct gcbe g;
	__u64 agg;

	/* A link busy for 300 ms, ACKs in 4, 8 and 16 ms bursts: arrivals give the rate. */
	for (agg = 4000; agg <= 16000; agg *= 2) {
		memset(&g, 0, sizeof(g));
		g.merge_us = 500;
		aggregated(&g, 100000, 300000, agg);
		gcbe_finish(&g);
		CHECK(near((double)gcbe_median(&g), (double)PAYLOAD_BPS, 0.03), "busy link, %llu us bursts: %llu vs %llu",
		      (unsigned long long)agg, (unsigned long long)gcbe_median(&g), (unsigned long long)PAYLOAD_BPS);
	}
	/* Without merging, the same 16 ms bursts read as single ACKs: the first burst's
	 * bytes are counted and one 16 ms interval dropped, well above the rate. */
	memset(&g, 0, sizeof(g));
	aggregated(&g, 100000, 300000, 16000);
	gcbe_finish(&g);
	CHECK(gcbe_median(&g) > PAYLOAD_BPS * 11 / 10, "unmerged bursts overestimate: %llu", (unsigned long long)gcbe_median(&g));

	/* Slow start in 4 ms bursts: rounds of 5 * 2^r ACKs, 50 ms apart. The partial
	 * burst before each idle gap goes with the gap: within 5 % of the rate. */
	memset(&g, 0, sizeof(g));
	g.merge_us = 500;
	for (int round = 0; round < 6; round++)
		aggregated(&g, 50000ULL * (round + 1), (5ULL << round) * ACK_GAP_US, 4000);
	gcbe_finish(&g);
	CHECK(near((double)gcbe_best(&g), (double)PAYLOAD_BPS, 0.05), "slow start in bursts: %llu vs %llu",
	      (unsigned long long)gcbe_best(&g), (unsigned long long)PAYLOAD_BPS);
	/* merge_us with no aggregation: the cwnd-limited rounds of the first test, same rate. */
	memset(&g, 0, sizeof(g));
	g.merge_us = 500;
	for (int round = 0; round < 4; round++)
		for (int i = 0; i < (5 << round); i++)
			gcbe_on_ack(&g, 50000ULL * (round + 1) + i * ACK_GAP_US, ACK_BYTES, 50000);
	gcbe_finish(&g);
	CHECK(near((double)gcbe_best(&g), (double)PAYLOAD_BPS, 0.05), "merging unaggregated ACKs: %llu vs %llu",
	      (unsigned long long)gcbe_best(&g), (unsigned long long)PAYLOAD_BPS);

	/* Compressed ACKs: a busy link whose ACKs come back in pairs 10 us apart (each
	 * second ACK held back). The cycle's maximum, which the median was adopted
	 * against, stays at the rate once ACKs are merged into arrivals. */
	memset(&g, 0, sizeof(g));
	g.merge_us = 500;
	for (__u64 i = 0; i < 2000; i++) {
		__u64 t = 1000 + i * ACK_GAP_US;
		gcbe_on_ack(&g, (i & 1) ? t + ACK_GAP_US - 10 : t, ACK_BYTES, 50000);
	}
	gcbe_finish(&g);
	CHECK(near((double)gcbe_best(&g), (double)PAYLOAD_BPS, 0.03), "compressed pairs, merged: %llu vs %llu",
	      (unsigned long long)gcbe_best(&g), (unsigned long long)PAYLOAD_BPS);
}

/* Slow start whose every round goes out in two parts 10 ms apart: the first released by
 * a late ACK of earlier data (after a TLS exchange, the client's delayed ACK of the
 * server's session tickets), the second by the round's ACKs. Each cycle then holds two
 * idle stretches; eq. 7 removes only the longer, so the paper's estimator reads the
 * 10 ms one as busy time. Per-packet ACKs on 100 Mbit/s (1448 bytes every 120 us),
 * 50 ms path; each part's first packet finds the path empty. */
#define PKT_US 120ULL
static void two_part_rounds(struct gcbe *g, __u64 second_part_queue_us)
{
	__u64 t = 1000000;

	memset(g, 0, sizeof(*g));
	for (int r = 1; r <= 5; r++) {
		__u64 a = 1ULL << r, b = 3ULL << r;

		for (__u64 k = 0; k < a; k++)
			gcbe_on_ack_sent(g, t + 50000 + (k + 1) * PKT_US, 1448, t, 50000);
		for (__u64 k = 0; k < b; k++)
			gcbe_on_ack_sent(g, t + 10000 + 50000 + second_part_queue_us + (k + 1) * PKT_US, 1448, t + 10000, 50000);
		t += 50000 + 10000 + b * PKT_US;
	}
	gcbe_finish(g);
}

static void test_a_round_in_two_parts(void)
{
	const __u64 link = 1448 * 1000000ULL / PKT_US;
	struct gcbe g;
	__u64 plain;

	two_part_rounds(&g, 0);
	plain = gcbe_median_of(&g, g.plain, ~0U);
	CHECK(plain < link * 60 / 100, "the paper's estimator reads the 10 ms as busy: %llu of %llu", (unsigned long long)plain,
	      (unsigned long long)link);
	CHECK(near((double)gcbe_median(&g), (double)link, 0.02), "with both idle stretches removed: %llu of %llu",
	      (unsigned long long)gcbe_median(&g), (unsigned long long)link);
	/* The second part's first packet queued 5 ms behind other traffic: the link was not
	 * idle, and nothing more is removed. */
	two_part_rounds(&g, 5000);
	CHECK(gcbe_median(&g) == gcbe_median_of(&g, g.plain, ~0U), "a queue: as the paper has it (%llu vs %llu)",
	      (unsigned long long)gcbe_median(&g), (unsigned long long)gcbe_median_of(&g, g.plain, ~0U));
	/* A busy ACK clock has no idle stretch at all. */
	memset(&g, 0, sizeof(g));
	for (__u64 i = 0; i < 2000; i++)
		gcbe_on_ack_sent(&g, 1000000 + i * PKT_US, 1448, 1000000 + i * PKT_US - 50000 - (i % 7) * 30, 50000);
	gcbe_finish(&g);
	CHECK(g.nsamples > 3 && gcbe_median(&g) == gcbe_median_of(&g, g.plain, ~0U), "busy: as the paper has it");
}

/* The send-rate bound: a cycle's estimate is never above the rate its data was sent at. */
static void test_send_rate_bound(void)
{
	struct gcbe g, plain;
	__u64 est;

	/* Honest slow start: round r's data went out while round r-1's ACKs came back,
	 * two packets per ACK (twice the link's rate), then the sender paused; the ACKs
	 * pause one round later. With the pauses removed on both sides the send rate is
	 * 2x the ACK rate: the bound leaves the estimate exactly as ACK timing alone. */
	memset(&g, 0, sizeof(g));
	memset(&plain, 0, sizeof(plain));
	for (int round = 0; round < 5; round++)
		for (int i = 0; i < (5 << round); i++) {
			__u64 t = 50000ULL * (round + 1) + i * ACK_GAP_US;
			__u64 sent = 50000ULL * round + 1000 + i * ACK_GAP_US / 2;
			gcbe_on_ack_sent(&g, t, ACK_BYTES, sent, 50000);
			gcbe_on_ack(&plain, t, ACK_BYTES, 50000);
		}
	gcbe_finish(&g);
	gcbe_finish(&plain);
	CHECK(gcbe_best(&g) == gcbe_best(&plain) && near((double)gcbe_best(&g), (double)PAYLOAD_BPS, 0.001),
	      "slow start: %llu vs ACK timing alone %llu", (unsigned long long)gcbe_best(&g), (unsigned long long)gcbe_best(&plain));

	/* A receiver that compresses its ACKs: the data went out paced at a tenth of the
	 * ACK rate (one ACK's worth every 2.4 ms) for 300 ms, and every ACK comes back 240 us
	 * after the previous one, as if a 10x faster path had carried it. ACK timing alone
	 * believes it; the send times do not. */
	memset(&g, 0, sizeof(g));
	memset(&plain, 0, sizeof(plain));
	for (__u64 i = 0; i < 125; i++) {
		__u64 sent = 1000 + i * 10 * ACK_GAP_US;
		__u64 t = 300000 + i * ACK_GAP_US;
		gcbe_on_ack_sent(&g, t, ACK_BYTES, sent, 50000);
		gcbe_on_ack(&plain, t, ACK_BYTES, 50000);
	}
	gcbe_finish(&g);
	gcbe_finish(&plain);
	CHECK(near((double)gcbe_best(&plain), (double)PAYLOAD_BPS, 0.01), "ACK timing alone reads the fake rate: %llu",
	      (unsigned long long)gcbe_best(&plain));
	CHECK(gcbe_best(&g) <= PAYLOAD_BPS / 10 + PAYLOAD_BPS / 100, "bounded by the send rate: %llu vs %llu",
	      (unsigned long long)gcbe_best(&g), (unsigned long long)(PAYLOAD_BPS / 10));

	/* The same with ACKs merged into bursts (merge_us): the burst's latest send time. */
	memset(&g, 0, sizeof(g));
	g.merge_us = 500;
	for (__u64 i = 0; i < 125; i++)
		gcbe_on_ack_sent(&g, 300000 + (i / 20) * 5000 + (i % 20) * 10, ACK_BYTES, 1000 + i * 10 * ACK_GAP_US, 50000);
	gcbe_finish(&g);
	CHECK(gcbe_best(&g) && gcbe_best(&g) <= PAYLOAD_BPS / 10 + PAYLOAD_BPS / 100, "bursts, bounded: %llu",
	      (unsigned long long)gcbe_best(&g));

	/* Send times unknown (every RTT sample refused) or all data sent at once: no bound. */
	memset(&g, 0, sizeof(g));
	CHECK(gcbe_send_bound(&g, 1) == ~0ULL, "empty cycle: no bound");
	gcbe_on_ack_sent(&g, 1000, 0, 500, 50000);
	gcbe_on_ack_sent(&g, 1240, ACK_BYTES, 500, 50000);
	gcbe_on_ack_sent(&g, 1480, ACK_BYTES, 500, 50000);
	CHECK(gcbe_send_bound(&g, 1) == ~0ULL, "sent together: no bound");
	est = gcbe_cycle_estimate(&g);
	CHECK(near((double)est, (double)PAYLOAD_BPS, 0.001), "and the ACK rate stands: %llu", (unsigned long long)est);
	/* Reordering: an older send time later in the cycle neither moves it back nor
	 * makes a pause. */
	gcbe_on_ack_sent(&g, 1720, ACK_BYTES, 400, 50000);
	CHECK(g.sent_last_us == 500 && g.sent_max_gap_us == 0, "older send time ignored");
}

/* A paced sender (BBR's STARTUP): rounds paced at 1/8, 1/4, 1/2 of the bottleneck
 * come back at the pacing rate; rounds paced at 1.5x queue and come back at the
 * bottleneck's. The plain median of the last five cycles mixes the two (C/2); the
 * median of the cycles that saturated the bottleneck is C. A sender that never paced
 * above the bottleneck saturated nothing: 0, and its caller keeps its own estimate. */
static void test_paced_startup_saturation(void)
{
	const __u64 below[] = { 8, 4, 2 };  /* ACK spacing in units of the bottleneck's */
	struct gcbe g;
	__u32 round = 0;

	memset(&g, 0, sizeof(g));
	for (; round < 3; round++) {
		__u64 gap = ACK_GAP_US * below[round];
		for (__u64 i = 0; i < 40000 / gap; i++) {
			__u64 sent = 100000ULL * round + i * gap;
			gcbe_on_ack_sent(&g, sent + 50000, ACK_BYTES, sent, 50000);
		}
	}
	CHECK(gcbe_saturated_median(&g) == 0, "paced below the bottleneck: nothing saturated");
	CHECK(g.nsamples >= 2 && gcbe_median(&g) < PAYLOAD_BPS / 3, "and the plain median reads the pacing: %llu",
	      (unsigned long long)gcbe_median(&g));
	for (; round < 5; round++)
		for (__u64 i = 0; i < 100; i++) {
			__u64 sent = 100000ULL * round + i * ACK_GAP_US * 2 / 3;
			gcbe_on_ack_sent(&g, 100000ULL * round + 50000 + i * ACK_GAP_US, ACK_BYTES, sent, 50000);
		}
	gcbe_finish(&g);
	CHECK(g.nsamples == 5, "five cycles: %u", g.nsamples);
	CHECK(near((double)gcbe_median(&g), (double)PAYLOAD_BPS / 2, 0.03), "plain median: %llu",
	      (unsigned long long)gcbe_median(&g));
	CHECK(near((double)gcbe_saturated_median(&g), (double)PAYLOAD_BPS, 0.03), "saturated cycles' median: %llu vs %llu",
	      (unsigned long long)gcbe_saturated_median(&g), (unsigned long long)PAYLOAD_BPS);
	/* The ring forgets: five more cycles below the bottleneck clear every flag. */
	for (round = 5; round < 10; round++)
		for (__u64 i = 0; i < 40; i++) {
			__u64 sent = 100000ULL * round + i * ACK_GAP_US * 4;
			gcbe_on_ack_sent(&g, sent + 50000, ACK_BYTES, sent, 50000);
		}
	gcbe_finish(&g);
	CHECK(gcbe_saturated_median(&g) == 0, "old saturated cycles left the ring: %llu", (unsigned long long)gcbe_saturated_median(&g));
}

/* Shadow mode's histogram at its edges: cached / measured. */
static void test_shadow_buckets(void)
{
	const __u64 m = 12500000; /* 100 Mbit/s measured */

	CHECK(hs_shadow_bucket(m, m) == 4, "exact is right");
	CHECK(hs_shadow_bucket(m * 110 / 100, m) == 4 && hs_shadow_bucket(m * 110 / 100 + 1, m) == 5, "+10 %% edge");
	CHECK(hs_shadow_bucket(m * 91 / 100, m) == 4 && hs_shadow_bucket(m * 91 / 100 - 1, m) == 3, "-9 %% edge");
	CHECK(hs_shadow_bucket(m / 4 - 1, m) == 0 && hs_shadow_bucket(m / 4, m) == 1, "0.25 edge");
	CHECK(hs_shadow_bucket(m * 2, m) == 6 && hs_shadow_bucket(m * 2 + 1, m) == 7, "2x edge");
	CHECK(hs_shadow_bucket(m * 4, m) == 7 && hs_shadow_bucket(m * 10, m) == 8, "10x: the open bucket");
	CHECK(hs_shadow_bucket(1ULL << 40, 1) == 8 && hs_shadow_bucket(1, 1ULL << 40) == 0, "extremes, no overflow");
	CHECK(hs_shadow_bucket(m, 0) == HS_SHADOW_BUCKETS - 1, "nothing measured: the open bucket");
}

/* The ensemble's reading (lib/ensemble.h): the peer's delivered sum over windows of
 * at least the given length, less the slack; a report alone ends the window. */
static void test_ensemble_windows(void)
{
	struct hs_ensemble e = {};

	hs_ensemble_sample(&e, 1000, 100000, 100000, 0);
	CHECK(e.max_Bps == 0 && e.from_us == 100000, "the first report opens a window");
	hs_ensemble_sample(&e, 600000, 150000, 100000, 0);
	CHECK(e.max_Bps == 0 && e.from_sum == 1000, "half a window: nothing read yet");
	hs_ensemble_sample(&e, 1251000, 200000, 100000, 0);
	CHECK(e.max_Bps == 12500000, "1.25 MB in 100 ms: 12.5 MB/s, read %llu", (unsigned long long)e.max_Bps);
	hs_ensemble_sample(&e, 1876000, 300000, 100000, 125000);
	CHECK(e.max_Bps == 12500000, "a slower window (less its slack: 5 MB/s) keeps the fastest");
	hs_ensemble_alone(&e);
	hs_ensemble_sample(&e, 9000000, 310000, 100000, 0);
	CHECK(e.max_Bps == 12500000 && e.from_sum == 9000000, "alone between: a new window, what came meanwhile not read");
	hs_ensemble_sample(&e, 9000100, 200000, 100000, 0);
	CHECK(e.max_Bps == 12500000 && e.from_us == 200000, "a clock that went back opens a new window");
	CHECK(hs_ensemble_unreported(&e, 5) == 5 && (e.reported = 9, hs_ensemble_unreported(&e, 5) == 0), "unreported bytes");
}

int main(void)
{
	test_ensemble_windows();
	test_suss_worked_example();
	test_suss_conditions();
	test_shadow_buckets();
	test_ack_bursts();
	test_send_rate_bound();
	test_a_round_in_two_parts();
	test_paced_startup_saturation();
	test_cwnd_limited_rounds();
	test_no_gap_at_all();
	test_one_ack_cycles_do_not_close();
	test_short_flow_partial_cycle();
	test_ring_keeps_last_five();
	test_large_numbers();
	test_startup_rules();
	return check_report();
}
