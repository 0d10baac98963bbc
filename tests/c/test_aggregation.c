/* Host tests of GCBE under ACK aggregation (bpf/lib/gcbe.h, busy interiors) and over TLS: ACK trains
 * recorded in the lab (tests/c/data, bench/ack_trains.sh) replayed through the two views
 * a flow runs, and crafted grids at the rules' edges. Run from tests/c. */
#include <stdio.h>
#include <string.h>
#include "gcbe_views.h"
#include "../../bpf/lib/tuned.h"
#include "check.h"

/* 100 Mbit/s of 1500-byte packets carrying 1448 bytes: 12.07 MB/s of payload. */
#define LINK_PAYLOAD_BPS (12500000ULL * 1448 / 1500)
#define MIN_SPAN_US HS_GCBE_MIN_SPAN_US

static int within(__u64 got, __u64 want, __u64 pct)
{
	__u64 d = got > want ? got - want : want - got;
	return d * 100 <= want * pct;
}

static double mbit(__u64 bps)
{
	return bps * 8 / 1e6;
}

struct views {
	struct gcbe acks, bursts;
};

static void views_init(struct views *v)
{
	memset(v, 0, sizeof(*v));
	v->acks.min_span_us = MIN_SPAN_US;
	v->bursts.min_span_us = MIN_SPAN_US;
	v->bursts.merge_us = GCBE_AGG_MERGE_US;
}

static void views_ack(struct views *v, __u64 t, __u64 acked, __u64 sent, __u64 srtt)
{
	gcbe_on_ack_sent(&v->acks, t, acked, sent, srtt);
	gcbe_on_ack_sent(&v->bursts, t, acked, sent, srtt);
}

/* Replays a recorded train: the estimate of the ACKs alone (*alone) and what the flow
 * stores (the return value); *aggregated: the bursts' own median (0: no grid seen);
 * *restart (if given): what a restart after idle reads. paced: read as s_bbr does
 * (gcbe_flow_estimate's paced). */
static __u64 replay_as(const char *name, int paced, __u64 *alone, __u64 *aggregated, __u64 *grid_peak, __u64 *restart)
{
	char path[256], line[256];
	struct views v, only;
	unsigned long long t, acked, sent, srtt;
	FILE *f;

	snprintf(path, sizeof(path), "data/%s.acks", name);
	f = fopen(path, "r");
	CHECK(f != NULL, "open %s (run from tests/c)", path);
	if (!f)
		return 0;
	views_init(&v);
	views_init(&only);
	only.bursts.merge_us = 0;
	v.acks.runs = only.acks.runs = paced;  /* as hs_estimator_init: a paced sender's ACK view */
	v.acks.run_min_bytes = only.acks.run_min_bytes = GCBE_RUN_MIN_SEGS * 1448;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%llu %llu %llu %llu", &t, &acked, &sent, &srtt) != 4)
			continue;
		views_ack(&v, t, acked, sent, srtt);
		views_ack(&only, t, acked, sent, srtt);
	}
	fclose(f);
	*alone = gcbe_flow_estimate(&only.acks, &only.bursts, paced);
	__u64 stored = gcbe_flow_estimate(&v.acks, &v.bursts, paced);
	if (restart)
		*restart = gcbe_flow_estimate_idle(&v.acks, &v.bursts, paced, 1);
	*aggregated = gcbe_aggregated_median(&v.bursts, paced);
	if (grid_peak)
		*grid_peak = v.bursts.grid_peak;
	return stored;
}

static __u64 replay(const char *name, __u64 *alone, __u64 *aggregated)
{
	return replay_as(name, 0, alone, aggregated, 0, 0);
}

/* A recorded train read as a restart after idle reads it (s_cubic's). */
static __u64 replay_restart(const char *name)
{
	__u64 alone, aggregated, restart = 0;

	replay_as(name, 0, &alone, &aggregated, 0, &restart);
	return restart;
}

static void test_recorded_trains(void)
{
	static const char *const grids[] = {"s_cubic-up16ms", "s_cubic-up8ms", "s_cubic-down4ms"};
	static const char *const plain[] = {"s_cubic-none", "s_cubic-up1ms"};
	static const char *const traces[] = {"s_cubic-tmobile-a", "s_cubic-tmobile-b"};
	__u64 alone, agg, stored;

	/* 8-16 ms of ACK aggregation, 4 ms of data aggregation: slow start's first rounds
	 * come back as one burst each, and the ACKs alone read 19-34 % low; the busy
	 * interiors put the flow within 2 % of the link. */
	for (unsigned i = 0; i < sizeof(grids) / sizeof(grids[0]); i++) {
		stored = replay(grids[i], &alone, &agg);
		CHECK(!within(alone, LINK_PAYLOAD_BPS, 18), "%s: the ACKs alone read %.1f Mbit/s (expected > 18 %% low)", grids[i],
		      mbit(alone));
		CHECK(within(stored, LINK_PAYLOAD_BPS, 3), "%s: stored %.1f Mbit/s, the link's payload rate %.1f", grids[i],
		      mbit(stored), mbit(LINK_PAYLOAD_BPS));
		/* A restart's reading too: on a grid its idle stretches are not removed (the
		 * 16 ms grid read 128 Mbit/s with them removed). */
		CHECK(replay_restart(grids[i]) == stored, "%s: a restart reads %.1f", grids[i], mbit(replay_restart(grids[i])));
	}
	/* No grid (or one of 1 ms): no aggregated cycle; the flow stores what it did. */
	for (unsigned i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		stored = replay(plain[i], &alone, &agg);
		CHECK(agg == 0 && stored == alone, "%s: aggregated %.1f, stored %.1f vs %.1f", plain[i], mbit(agg), mbit(stored),
		      mbit(alone));
		CHECK(within(stored, LINK_PAYLOAD_BPS, 3), "%s: %.1f Mbit/s", plain[i], mbit(stored));
	}
	/* An LTE trace delivers in 1 ms frames whose size swings: what a flow stores there
	 * does not change (the burst view's interiors, where it sees any, read no higher). */
	for (unsigned i = 0; i < sizeof(traces) / sizeof(traces[0]); i++) {
		stored = replay(traces[i], &alone, &agg);
		CHECK(stored == alone, "%s: stored %.1f vs the ACKs alone %.1f (aggregated %.1f)", traces[i], mbit(stored),
		      mbit(alone), mbit(agg));
	}
}

/* A keep-alive TLS connection's first response (64 KB, cold): the handshake's flights
 * and the session tickets go first, and the client's delayed ACK of the tickets
 * releases two packets of the response 10 ms before the rest of each round. The
 * paper's estimator reads 16 Mbit/s of the 100 (what the connection's restart after idle
 * jumped from before: RESULTS, keep-alive over TLS); a restart's reading, every idle
 * stretch removed, is within 5 % of the link. What the flow stores stays the paper's. */
static void test_recorded_tls_train(void)
{
	__u64 alone, agg, stored = replay("s_cubic-tls-64k", &alone, &agg), restart = replay_restart("s_cubic-tls-64k");

	CHECK(alone < LINK_PAYLOAD_BPS / 4 && stored == alone, "the paper's estimator: %.1f Mbit/s, stored %.1f", mbit(alone),
	      mbit(stored));
	CHECK(agg == 0 && within(restart, LINK_PAYLOAD_BPS, 5), "a restart's reading %.1f Mbit/s, the link's payload rate %.1f",
	      mbit(restart), mbit(LINK_PAYLOAD_BPS));
}

/* s_bbr over TLS, the same exchange: BBR paces its first response, only the initial
 * window goes out at once, and that burst shares a cycle with paced packets: no cycle
 * saturates, and the restart jumped from BBR's own 6 Mbit/s (RESULTS, keep-alive over
 * TLS). The burst's ACKs, spaced by the bottleneck's queue, are a queued run: a
 * restart reads the link's rate from it; what the flow stores is unchanged. */
static void test_recorded_paced_tls_train(void)
{
	__u64 alone, agg, restart = 0, stored = replay_as("s_bbr-tls-64k", 1, &alone, &agg, 0, &restart);

	CHECK(stored == 0 && alone == 0, "no cycle saturated: stored %.1f Mbit/s", mbit(stored));
	CHECK(within(restart, LINK_PAYLOAD_BPS, 8), "a restart's reading %.1f Mbit/s, the link's payload rate %.1f", mbit(restart),
	      mbit(LINK_PAYLOAD_BPS));
}

/* s_bbr's keep-alive connection on the 5G-like link (180 Mbit/s, 20 ms), its first
 * 64 KB response: BBR paced it at its start's 17 Mbit/s but for the initial window,
 * whose ACKs came 53-84 us apart, the link's spacing, over 385 us in all: a restart reads
 * the link from that run (the restart had jumped from 21 Mbit/s: 44.6 ms against bbr's
 * 34.7 for the next 64 KB, RESULTS). */
static void test_recorded_fast_link_burst(void)
{
	__u64 alone, agg, restart = 0, link = LINK_PAYLOAD_BPS * 18 / 10;

	replay_as("s_bbr-5g-64k", 1, &alone, &agg, 0, &restart);
	CHECK(within(restart, link, 8), "a restart's reading %.1f Mbit/s, the link's payload rate %.1f", mbit(restart), mbit(link));
}

/* The same link over TLS: BBR paced the response at 16.5 Mbit/s, and the receiver
 * acked the initial window two segments at a time, 114, 118 and 129 us apart. With the
 * first of those left out (the anchor's) and four intervals needed, the restart jumped
 * from the pacing rate (53 ms for the next 64 KB against bbr's 35, RESULTS). */
static void test_recorded_fast_link_tls_burst(void)
{
	__u64 alone, agg, restart = 0, link = LINK_PAYLOAD_BPS * 18 / 10;

	replay_as("s_bbr-5g-tls-64k", 1, &alone, &agg, 0, &restart);
	CHECK(within(restart, link, 12), "a restart's reading %.1f Mbit/s, the link's payload rate %.1f", mbit(restart), mbit(link));
}

/* The same link in 2 of 10 plain and 1 of 12 TLS flows: the initial window's ACKs came
 * at the link's spacing but now and then two at once (plain: 74 then 9 us, 62 then 6;
 * TLS, acked two segments at a time: 180, 20, 152), and each such pair broke the run:
 * what was left spanned under GCBE_RUN_MIN_US, or too few intervals, and the restart
 * read the pacing rate (22.5 and 48.7 Mbit/s; 44.6 and 51.6 ms against 23.4-23.6 for
 * the others). A pair is one arrival with the ACK before it now: the burst's ACKs read
 * the link, a little high (their timing jitters by tens of us over half a millisecond). */
static void test_recorded_fast_link_paired_acks(void)
{
	static const char *const trains[] = {"s_bbr-5g-64k-paired", "s_bbr-5g-tls-64k-paired"};
	__u64 alone, agg, restart, link = LINK_PAYLOAD_BPS * 18 / 10;

	for (unsigned i = 0; i < sizeof(trains) / sizeof(trains[0]); i++) {
		restart = 0;
		replay_as(trains[i], 1, &alone, &agg, 0, &restart);
		CHECK(restart >= link * 9 / 10 && restart <= link * 6 / 5, "%s: a restart's reading %.1f Mbit/s, the link's payload rate %.1f",
		      trains[i], mbit(restart), mbit(link));
	}
}

/* A view that tracks queued runs (or not), as hs_estimator_init makes s_bbr's (s_cubic's). */
static void runs_view(struct gcbe *g, __u32 runs)
{
	memset(g, 0, sizeof(*g));
	g->runs = runs;
	g->run_min_bytes = GCBE_RUN_MIN_SEGS * 1448;
}

/* Queued runs on made-up trains: a burst's ACKs at the bottleneck's spacing read its
 * rate; the same spacing from a paced sender (sent as fast as acked) is no run; ACKs
 * released together (2-3 us apart, as in a recorded retreat) amid normal ones count
 * nothing (the normal ones after them are a run of their own), nor does a run too
 * short, nor a view that does not track runs. */
static void test_queued_runs(void)
{
	struct gcbe g;
	__u64 t, i;

	for (int runs = 1; runs >= 0; runs--) {
		runs_view(&g, runs);
		gcbe_on_ack_sent(&g, 1000, 1448, 500, 50000);
		for (t = 10000, i = 0; i < 10; i++, t += 120)
			gcbe_on_ack_sent(&g, t, 1448, 5000 + i, 50000);
		gcbe_on_ack_sent(&g, t + 5000, 1448, 10000, 50000);  /* paced on: ends the run */
		if (runs)
			CHECK(g.run_count == 1 && within(gcbe_queued_rate(&g), 1448ULL * 1000000 / 120, 1),
			      "a burst at 120 us per packet: %.1f Mbit/s", mbit(gcbe_queued_rate(&g)));
		else
			CHECK(g.run_count == 0, "a view that does not track runs (s_cubic's) counts none: %u", g.run_count);
	}

	runs_view(&g, 1);
	gcbe_on_ack_sent(&g, 1000, 1448, 500, 50000);
	for (t = 10000, i = 0; i < 20; i++, t += 120)
		gcbe_on_ack_sent(&g, t, 1448, t - 5000, 50000);
	gcbe_finish(&g);
	CHECK(g.run_count == 0, "a paced sender: %.1f Mbit/s", mbit(gcbe_queued_rate(&g)));

	runs_view(&g, 1);
	gcbe_on_ack_sent(&g, 1000, 1448, 500, 50000);
	for (t = 10000, i = 0; i < 12; i++, t += 2 + (i & 1))
		gcbe_on_ack_sent(&g, t, 1448, 5000 + i, 50000);
	for (i = 0; i < 5; i++, t += 100 + 20 * i)
		gcbe_on_ack_sent(&g, t, 1448, 5012 + i, 50000);
	gcbe_finish(&g);
	CHECK(g.run_count == 1 && gcbe_queued_rate(&g) >= 1448ULL * 1000000 / 180 && gcbe_queued_rate(&g) <= 1448ULL * 1000000 / 100,
	      "ACKs released together count nothing, the normal ones after them are a run at their spacing: %.1f Mbit/s",
	      mbit(gcbe_queued_rate(&g)));

	/* One ACK held back and released with the next (230 then 10 us, amid 120 us ones):
	 * one arrival with it, the run goes on at the link's rate; at the run's end (the
	 * next ACK paced) the held one is left out. */
	for (int tail = 0; tail <= 1; tail++) {
		__u64 held = tail ? 8 : 3;

		runs_view(&g, 1);
		gcbe_on_ack_sent(&g, 1000, 1448, 500, 50000);
		for (t = 10000, i = 0; i < 10; i++, t += 120)
			gcbe_on_ack_sent(&g, i == held ? t + 110 : t, 1448, 5000 + i, 50000);
		gcbe_on_ack_sent(&g, t + 5000, 1448, 10000, 50000);
		CHECK(g.run_count == 1 && within(gcbe_queued_rate(&g), 1448ULL * 1000000 / 120, tail ? 12 : 2) &&
			      gcbe_queued_rate(&g) <= 1448ULL * 1000000 / 120,
		      "a pair %s: one run, %.1f Mbit/s", tail ? "at its end" : "inside it", mbit(gcbe_queued_rate(&g)));
	}

	/* Three intervals after the anchor: a run if they acknowledged GCBE_RUN_MIN_SEGS segments. */
	for (__u64 per_ack = 1448; per_ack <= 2896; per_ack += 1448) {
		runs_view(&g, 1);
		gcbe_on_ack_sent(&g, 1000, 1448, 500, 50000);
		for (t = 10000, i = 0; i < 4; i++, t += 120)
			gcbe_on_ack_sent(&g, t, per_ack, 5000 + i, 50000);
		gcbe_on_ack_sent(&g, t + 5000, 1448, 10000, 50000);
		CHECK(g.run_count == (per_ack > 1448), "3 intervals of %llu B: %u runs", (unsigned long long)per_ack, g.run_count);
	}
}

/* Warm s_cubic flows that jumped: the jump's cycle is paced at the entry's rate, so it
 * reads that rate and does not saturate the link; the cycle after it does. The flow
 * stores the link's rate: the lower median of the two lowered a 10 ms path's entry by
 * 1 % per flow, and every later jump with it (BENCHMARKS.md at 3c45a21, Issue 11). */
static void test_recorded_jump_trains(void)
{
	static const char *const jumps[] = {"s_cubic-jump10ms-a", "s_cubic-jump10ms-b"};
	__u64 alone, agg, stored;

	for (unsigned i = 0; i < sizeof(jumps) / sizeof(jumps[0]); i++) {
		stored = replay(jumps[i], &alone, &agg);
		CHECK(within(stored, LINK_PAYLOAD_BPS, 2), "%s: stored %.1f Mbit/s, the link's payload rate %.1f", jumps[i],
		      mbit(stored), mbit(LINK_PAYLOAD_BPS));
	}
}

/* s_bbr's cold 1 MB flows: BBR's STARTUP paces a smooth ramp that reaches the link's
 * rate only in its last grid intervals (BENCHMARKS.md at 3c45a21, Issue 12), so every cycle reads
 * the ramp and none saturates the link; the fastest interval on the grid is the link's
 * rate within 20 % (16 ms: the last full release went out at 78 Mbit/s). */
static void test_recorded_paced_trains(void)
{
	static const char *const grids[] = {"s_bbr-up16ms", "s_bbr-up8ms", "s_bbr-up4ms", "s_bbr-down4ms"};
	static const char *const no_grid[] = {"s_bbr-none", "s_bbr-tmobile"};
	__u64 alone, agg, stored, peak;

	for (unsigned i = 0; i < sizeof(grids) / sizeof(grids[0]); i++) {
		stored = replay_as(grids[i], 1, &alone, &agg, &peak, 0);
		CHECK(alone < LINK_PAYLOAD_BPS * 80 / 100 && agg < LINK_PAYLOAD_BPS * 80 / 100,
		      "%s: the cycles alone read %.1f, their interiors %.1f (expected > 20 %% low)", grids[i], mbit(alone),
		      mbit(agg));
		CHECK(within(stored, LINK_PAYLOAD_BPS, 20) && stored == peak, "%s: stored %.1f Mbit/s (grid peak %.1f), the link %.1f",
		      grids[i], mbit(stored), mbit(peak), mbit(LINK_PAYLOAD_BPS));
	}
	/* No grid: per-ACK clocks and the LTE trace's frames give no grid peak, and the flow
	 * stores what the cycles say. */
	for (unsigned i = 0; i < sizeof(no_grid) / sizeof(no_grid[0]); i++) {
		stored = replay_as(no_grid[i], 1, &alone, &agg, &peak, 0);
		CHECK(peak == 0 && stored == alone, "%s: grid peak %.1f, stored %.1f vs %.1f", no_grid[i], mbit(peak), mbit(stored),
		      mbit(alone));
	}
}

/* One release at t of `bytes`, ACKs 5 us apart of at most 2896 bytes each, their data
 * sent evenly over the send_us before `sent`. */
static void release(struct views *v, __u64 t, __u64 bytes, __u64 sent, __u64 send_us)
{
	__u64 total = bytes;

	for (__u64 j = 0; bytes; j++) {
		__u64 a = bytes < 2896 ? bytes : 2896;

		bytes -= a;
		views_ack(v, t + 5 * j, a, sent - bytes * send_us / total, 50000);
	}
}

/* A link of `rate` bytes/s busy over [from, to) whose deliveries are released on a grid
 * of `grid` us (release()); data sent `send_ratio_pct` % as fast as it was delivered,
 * one RTT (50 ms) before. */
static void grid_stretch(struct views *v, __u64 from, __u64 to, __u64 grid, __u64 rate, __u64 send_ratio_pct)
{
	for (__u64 tick = (from / grid + 1) * grid; tick < to + grid; tick += grid) {
		__u64 lo = tick - grid > from ? tick - grid : from, hi = tick < to ? tick : to;
		__u64 bytes = hi > lo ? (hi - lo) * rate / 1000000 : 0;
		__u64 done = (lo - from) * rate / 1000000;
		__u64 send_us = bytes * 1000000 / rate * 100 / send_ratio_pct;

		if (bytes)
			release(v, tick, bytes, from - 50000 + (done + bytes) * 1000000 / rate * 100 / send_ratio_pct, send_us);
	}
}

static void test_grid_edges(void)
{
	struct views v;
	__u64 rate = LINK_PAYLOAD_BPS;

	/* Rounds 50 ms apart, each a busy stretch of 30 ms on an 8 ms grid that starts
	 * mid-window: the first and last releases of each stretch are partial and unlike
	 * their neighbours; the full ones in between give the rate. Sent at 2x (slow start). */
	views_init(&v);
	for (int r = 0; r < 6; r++)
		grid_stretch(&v, 1000000 + r * 50000ULL + 3000, 1000000 + r * 50000ULL + 33000, 8000, rate, 200);
	__u64 stored = gcbe_flow_estimate(&v.acks, &v.bursts, 0);
	CHECK(within(gcbe_aggregated_median(&v.bursts, 0), rate, 1), "8 ms grid: interiors %.1f vs %.1f",
	      mbit(gcbe_aggregated_median(&v.bursts, 0)), mbit(rate));
	CHECK(within(stored, rate, 1), "8 ms grid: stored %.1f", mbit(stored));

	/* Stretches of 12 ms on a 16 ms grid: at most two partial releases a round, no
	 * interior: nothing aggregated to go by. */
	views_init(&v);
	for (int r = 0; r < 6; r++)
		grid_stretch(&v, 1000000 + r * 64000ULL + 5000, 1000000 + r * 64000ULL + 17000, 16000, rate, 200);
	gcbe_flow_estimate(&v.acks, &v.bursts, 0);
	CHECK(gcbe_aggregated_median(&v.bursts, 0) == 0, "partial releases only: %.1f",
	      mbit(gcbe_aggregated_median(&v.bursts, 0)));

	/* One release per round on a 16 ms grid, 64 ms apart, growing 2x: alike intervals,
	 * but each the whole round (more than half the cycle): not a busy stretch. */
	views_init(&v);
	for (int r = 0; r < 6; r++)
		grid_stretch(&v, 1000000 + r * 64000ULL + 1000, 1000000 + r * 64000ULL + 1000 + (200ULL << r), 16000, rate, 200);
	gcbe_flow_estimate(&v.acks, &v.bursts, 0);
	CHECK(gcbe_aggregated_median(&v.bursts, 0) == 0, "one release a round: %.1f", mbit(gcbe_aggregated_median(&v.bursts, 0)));

	/* A busy link on a 1 ms grid (radio frames): not aggregated. */
	views_init(&v);
	grid_stretch(&v, 1000000, 1300000, 1000, rate, 200);
	gcbe_flow_estimate(&v.acks, &v.bursts, 0);
	CHECK(gcbe_aggregated_median(&v.bursts, 0) == 0, "1 ms grid: %.1f", mbit(gcbe_aggregated_median(&v.bursts, 0)));
	CHECK(within(gcbe_median(&v.acks), rate, 2), "1 ms grid, the ACKs alone: %.1f", mbit(gcbe_median(&v.acks)));
}

/* A paced ramp on an 8 ms grid: ten releases from a tenth of the link to all of it,
 * their data sent as fast as it was delivered, then two at the link's rate sent 20 %
 * faster (the queue begins). late_us: the link holds the eleventh release that long. */
static void paced_ramp(struct views *v, __u64 rate, __u64 late_us)
{
	__u64 t = 1000000, sent = t - 50000, full = rate * 8000 / 1000000;

	for (int k = 1; k <= 10; k++) {
		t += 8000;
		sent += 8000;
		release(v, t, full * k / 10, sent, 8000);
	}
	for (int k = 11; k <= 12; k++) {
		t += 8000;
		sent += 8000 * 100 / 120;
		release(v, t + (k == 11 ? late_us : 0), full, sent, 8000 * 100 / 120);
	}
}

static void test_paced_ramp(void)
{
	struct views v;
	__u64 rate = LINK_PAYLOAD_BPS, stored;

	views_init(&v);
	paced_ramp(&v, rate, 0);
	stored = gcbe_flow_estimate(&v.acks, &v.bursts, 1);
	CHECK(within(stored, rate, 2) && within(v.bursts.grid_peak, rate, 2), "paced ramp: stored %.1f, peak %.1f, the link %.1f",
	      mbit(stored), mbit(v.bursts.grid_peak), mbit(rate));
	CHECK(gcbe_saturated_median(&v.acks) < rate * 80 / 100, "paced ramp: the saturated cycles alone read %.1f",
	      mbit(gcbe_saturated_median(&v.acks)));
	/* Unpaced (s_cubic), the flow keeps its cycles' reading: the grid peak is s_bbr's. */
	views_init(&v);
	paced_ramp(&v, rate, 0);
	CHECK(gcbe_flow_estimate(&v.acks, &v.bursts, 0) < rate * 95 / 100, "unpaced: the peak is not used");

	/* The eleventh release 1 ms late: the twelfth comes 7 ms after it with 8 ms of bytes
	 * (+14 %); it is off the grid (7 after 9 ms), so the peak stays the link's. */
	views_init(&v);
	paced_ramp(&v, rate, 1000);
	stored = gcbe_flow_estimate(&v.acks, &v.bursts, 1);
	CHECK(stored <= rate * 102 / 100, "a late release: stored %.1f, the link %.1f", mbit(stored), mbit(rate));

	/* Arrivals 5, 5, 7 ms apart over and over (a radio's frames after outages), each
	 * with twice the link's bytes: two alike in a row, never three; no grid peak. */
	views_init(&v);
	for (__u64 i = 0, t = 1000000; i < 60; i++) {
		t += i % 3 == 2 ? 7000 : 5000;
		views_ack(&v, t, 2 * rate * 5000 / 1000000, t - 50000, 50000);
	}
	gcbe_flow_estimate(&v.acks, &v.bursts, 1);
	CHECK(v.bursts.grid_peak == 0, "5, 5, 7 ms: peak %.1f", mbit(v.bursts.grid_peak));

	/* Frames 1 ms apart, then three alike 5 ms gaps each ending in twice the link's
	 * bytes, every 50 ms: a cycle with frames is no grid, whatever three arrivals do. */
	views_init(&v);
	for (__u64 r = 0; r < 8; r++) {
		__u64 t = 1000000 + r * 50000;

		for (int f = 0; f < 30; f++, t += 1000)
			views_ack(&v, t, 1448, t - 50000, 50000);
		t -= 1000;  /* the last frame */
		for (int k = 0; k < 3; k++) {
			t += 5000;
			views_ack(&v, t, 2 * rate * 5000 / 1000000, t - 50000, 50000);
		}
	}
	gcbe_flow_estimate(&v.acks, &v.bursts, 1);
	CHECK(v.bursts.grid_peak == 0, "frames, then three alike gaps: peak %.1f", mbit(v.bursts.grid_peak));
}

static void test_grid_bounds(void)
{
	struct views v;
	__u64 rate = LINK_PAYLOAD_BPS, stored;

	/* ACKs on an 8 ms grid claiming twice what was sent (a receiver acknowledging data
	 * early, or compressing): the interiors are bounded by the send rate. */
	views_init(&v);
	grid_stretch(&v, 1000000, 1300000, 8000, 2 * rate, 50);
	stored = gcbe_flow_estimate(&v.acks, &v.bursts, 0);
	CHECK(gcbe_aggregated_median(&v.bursts, 0) <= rate * 101 / 100, "claimed 2x, sent 1x: interiors %.1f",
	      mbit(gcbe_aggregated_median(&v.bursts, 0)));
	CHECK(stored <= rate * 101 / 100, "claimed 2x, sent 1x: stored %.1f", mbit(stored));

	/* A paced sender below the bottleneck (sent as fast as delivered): its releases are
	 * alike but only say how fast it chose to send. Paced, it keeps no interior. */
	views_init(&v);
	grid_stretch(&v, 1000000, 1300000, 8000, rate / 3, 100);
	gcbe_finish(&v.bursts);
	CHECK(gcbe_aggregated_median(&v.bursts, 0) > 0, "unpaced reading of a steady stream");
	CHECK(gcbe_aggregated_median(&v.bursts, 1) == 0, "paced below the link: %.1f", mbit(gcbe_aggregated_median(&v.bursts, 1)));

	/* Paced and claiming twice what was sent: the grid peak is the send rate. */
	views_init(&v);
	grid_stretch(&v, 1000000, 1300000, 8000, 2 * rate, 50);
	stored = gcbe_flow_estimate(&v.acks, &v.bursts, 1);
	CHECK(stored <= rate * 101 / 100 && v.bursts.grid_peak <= rate * 101 / 100, "paced, claimed 2x: stored %.1f, peak %.1f",
	      mbit(stored), mbit(v.bursts.grid_peak));

	/* gcbe_aggregation off (bursts.merge_us 0): the ACKs alone, whatever the grid. */
	views_init(&v);
	v.bursts.merge_us = 0;
	for (int r = 0; r < 6; r++)
		grid_stretch(&v, 1000000 + r * 50000ULL + 3000, 1000000 + r * 50000ULL + 33000, 8000, rate, 200);
	stored = gcbe_flow_estimate(&v.acks, &v.bursts, 0);
	CHECK(stored == gcbe_median(&v.acks) && gcbe_aggregated_median(&v.bursts, 0) == 0, "off: %.1f", mbit(stored));
}

int main(void)
{
	test_recorded_trains();
	test_recorded_jump_trains();
	test_recorded_tls_train();
	test_recorded_paced_tls_train();
	test_recorded_fast_link_burst();
	test_recorded_fast_link_tls_burst();
	test_recorded_fast_link_paired_acks();
	test_queued_runs();
	test_recorded_paced_trains();
	test_grid_edges();
	test_paced_ramp();
	test_grid_bounds();
	return check_report();
}
