/* Host unit tests of the algorithm headers that are compiled into the BPF programs.
 * They feed crafted ACK sequences and check the arithmetic against the papers. */
#include <stdio.h>
#include <string.h>
#include "../../bpf/lib/gcbe.h"
#include "../../bpf/lib/startup.h"

static int passed, failed;

#define CHECK(cond, ...)                                            \
	do {                                                        \
		if (cond) {                                         \
			passed++;                                   \
		} else {                                            \
			failed++;                                   \
			printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			printf(__VA_ARGS__);                        \
			printf("\n");                               \
		}                                                   \
	} while (0)

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
}

static void test_large_numbers(void)
{
	/* 10 Gbit/s and a 1 s RTT: 1.25e9 B/s x 1e6 us must not overflow. */
	__u64 bw = 1250000000ULL;
	CHECK(hs_bdp_packets(bw, 1000000, 1448) == 863259, "BDP %llu", (unsigned long long)hs_bdp_packets(bw, 1000000, 1448));
	CHECK(hs_start_cwnd(bw, 1000000, 1448) == 863259, "start cwnd");
	CHECK(hs_start_cwnd(bw * 100, 1000000, 1448) == HS_MAX_START_CWND, "capped");
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
	/* 100 Mbit/s x 50 ms = 625,000 B = 431 packets of 1448 B. */
	CHECK(hs_start_cwnd(12500000, 50000, 1448) == 431, "BDP cwnd %u", hs_start_cwnd(12500000, 50000, 1448));
	CHECK(hs_start_cwnd(100000, 10000, 1448) == HS_INIT_CWND, "tiny path starts at IW");
	CHECK(hs_start_cwnd(12500000, 50000, 0) == HS_INIT_CWND, "no MSS: IW");
	CHECK(hs_startup_exit_cwnd(3) == 10 && hs_startup_exit_cwnd(400) == 400, "eq. 3");
	CHECK(!hs_worth_storing(12500000, 1000, 1448), "BDP 8 packets is not worth storing");
	CHECK(hs_worth_storing(12500000, 50000, 1448), "431 packets is");
	CHECK(!hs_worth_storing(0, 50000, 1448) && !hs_worth_storing(12500000, 0, 1448), "zeros");
	CHECK(hs_scale_bw(1000, 20) == 200 && hs_scale_bw(1000, 200) == 2000, "scale");
	/* S-BBR: a 100 KB flow may not overwrite a 625 KB BDP entry; a 1 MB one may. */
	CHECK(!hs_bbr_may_overwrite(100000, 12500000, 50000), "short flow");
	CHECK(hs_bbr_may_overwrite(1 << 20, 12500000, 50000), "long flow");
}

int main(void)
{
	test_cwnd_limited_rounds();
	test_no_gap_at_all();
	test_one_ack_cycles_do_not_close();
	test_short_flow_partial_cycle();
	test_ring_keeps_last_five();
	test_large_numbers();
	test_startup_rules();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
