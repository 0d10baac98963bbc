/* Host tests of Careful Resume's phase machine (bpf/lib/resume.h) with crafted ACK
 * sequences on a virtual clock: the jump, validation, Safe Retreat in each phase, an
 * RTO in the first RTT, RTT mismatches both ways, an expired entry, a second flow to
 * the same entry (or to the same peer), and a sender with less data than the jump.
 * Packets are counted from 0 and sequence numbers are packet numbers × MSS. */
#include <string.h>
#include "../../bpf/lib/resume.h"
#include "../../bpf/lib/store.h"
#include "check.h"

#define MSS 1448U
#define SEC 1000000000ULL

#define T0 1000000ULL  /* the first ACK's time, us */

/* A jump of `cwnd` packets paced over 50 ms, begun with `delivered` packets delivered. */
static void jump(struct hs_resume *r, __u32 cwnd, __u32 delivered)
{
	struct hs_jump j = { .cwnd = cwnd, .pacing_Bps = (__u64)cwnd * MSS * 1000000 / 50000 };

	hs_resume_jump(r, &j, delivered);
}

static struct hs_recon_in recon(__u32 saved_rtt_us, __u32 cur_rtt_us)
{
	struct hs_recon_in in = { .now_ns = 100 * SEC, .stored_ns = 90 * SEC, .max_age_s = 3600,
				  .saved_rtt_us = saved_rtt_us, .cur_rtt_us = cur_rtt_us, .rtt_match = 2 };
	return in;
}

static void test_reconnaissance(void)
{
	struct hs_recon_in in = recon(50000, 52000);

	CHECK(hs_reconnaissance(&in) == HS_RECON_JUMP, "fresh entry, same path");
	in = recon(50000, 20000);  /* an entry whose RTT is 2.5x this path's */
	CHECK(hs_reconnaissance(&in) == HS_RECON_RTT_SHORTER, "0.4x path RTT");
	in = recon(50000, 600000);  /* 12x */
	CHECK(hs_reconnaissance(&in) == HS_RECON_RTT_LONGER, "12x path RTT");
	in = recon(50000, 25000);
	CHECK(hs_reconnaissance(&in) == HS_RECON_JUMP, "exactly saved/2 is still the path");
	in = recon(50000, 100001);
	CHECK(hs_reconnaissance(&in) == HS_RECON_RTT_LONGER, "just past 2x");
	in = recon(50000, 0);
	CHECK(hs_reconnaissance(&in) == HS_RECON_NO_RTT, "no handshake sample");
	in = recon(50000, 50000);
	in.stored_ns = in.now_ns - 3601 * SEC;
	CHECK(hs_reconnaissance(&in) == HS_RECON_EXPIRED, "older than max_age_s");
	in.max_age_s = 0;
	CHECK(hs_reconnaissance(&in) == HS_RECON_JUMP, "max_age_s 0: any age");
	/* The floor on the saved BDP (knob min_jump_pkts, 4 x IW by default). */
	in = recon(50000, 50000);
	in.min_saved_pkts = 40;
	in.saved_bdp_pkts = hs_bdp_packets(1200000, 50000, MSS);  /* 9.6 Mbit/s x 50 ms: 41 packets */
	CHECK(hs_reconnaissance(&in) == HS_RECON_JUMP, "41 packets saved: a jump (%llu)", (unsigned long long)in.saved_bdp_pkts);
	in.saved_bdp_pkts = hs_bdp_packets(1100000, 50000, MSS);  /* 37 packets */
	CHECK(hs_reconnaissance(&in) == HS_RECON_SMALL, "37 packets saved: the kernel's start");
	in.min_saved_pkts = 0;
	CHECK(hs_reconnaissance(&in) == HS_RECON_JUMP, "min_saved_pkts 0: any size");
	/* An RTT mismatch is named as such whatever the size. */
	in = recon(50000, 600000);
	in.min_saved_pkts = 40;
	CHECK(hs_reconnaissance(&in) == HS_RECON_RTT_LONGER, "the path test comes first");
	/* The peer's budget: the room its other flows' packets in flight leave of the saved
	 * BDP, against min_saved_pkts (at least IW). */
	static const struct {
		__u64 bdp;
		__u32 min_saved, siblings;
		enum hs_recon want;
		const char *why;
	} room[] = {
		{ 431, 40, 392, HS_RECON_SIBLINGS, "392 in flight beside it leave 39 < min_saved_pkts" },
		{ 431, 40, 391, HS_RECON_JUMP, "391: a jump into the 40 left" },
		{ 431, 40, 107, HS_RECON_JUMP, "107 (a quarter, which the room rule refused): a jump into 324" },
		{ 431, 40, 5000, HS_RECON_SIBLINGS, "more in flight than the BDP" },
		{ 431, 40, 0, HS_RECON_JUMP, "nothing in flight beside it (or the rule off): a jump" },
		{ 100, 40, 61, HS_RECON_SIBLINGS, "61 beside 100 leave 39" },
		{ 100, 40, 39, HS_RECON_JUMP, "39 beside 100: a jump into 61" },
		{ 60, 40, 25, HS_RECON_SIBLINGS, "25 beside 60 leave 35 < min_saved_pkts" },
		{ 30, 0, 21, HS_RECON_SIBLINGS, "without min_saved_pkts the least room is IW: 9 left" },
		{ 30, 0, 20, HS_RECON_JUMP, "20 in flight beside 30: a jump into 10" },
		{ 15, 0, 9, HS_RECON_SIBLINGS, "9 beside a 15-packet BDP leave 6 < IW" },
	};
	for (unsigned i = 0; i < sizeof(room) / sizeof(room[0]); i++) {
		in = recon(50000, 50000);
		in.saved_bdp_pkts = room[i].bdp;
		in.min_saved_pkts = room[i].min_saved;
		in.sibling_pkts = room[i].siblings;
		CHECK(hs_reconnaissance(&in) == room[i].want, "%s", room[i].why);
	}
	in = recon(50000, 600000);
	in.sibling_pkts = 3000;
	CHECK(hs_reconnaissance(&in) == HS_RECON_RTT_LONGER, "a path change is named first");
}

static void test_jump_size(void)
{
	/* 100 Mbit/s x 50 ms = 431 packets. */
	struct hs_jump j = hs_jump_size(12500000, 50000, 50000, MSS, 100, 1000, 125000000);

	CHECK(j.cwnd == 431, "full BDP %u", j.cwnd);
	CHECK(j.pacing_Bps == 431ULL * MSS * 1000000 / 50000, "paced over the current RTT");
	j = hs_jump_size(12500000, 50000, 50000, MSS, 50, 1000, 125000000);
	CHECK(j.cwnd == 215, "jump_pct 50: %u", j.cwnd);
	/* A 10x entry (1 Gbit/s): 4310 packets, capped at max_start_cwnd. */
	j = hs_jump_size(125000000, 50000, 50000, MSS, 100, 1000, 125000000);
	CHECK(j.cwnd == 1000, "capped at 1000: %u", j.cwnd);
	/* The rate cap: 100 Mbit/s allows 431 packets per 50 ms. */
	j = hs_jump_size(125000000, 50000, 50000, MSS, 100, 100000, 12500000);
	CHECK(j.cwnd == 431 && j.pacing_Bps <= 12500000, "rate cap shrinks the window: %u", j.cwnd);
	/* A longer current RTT paces slower (the RFC's rule), same window. */
	j = hs_jump_size(12500000, 50000, 90000, MSS, 100, 1000, 125000000);
	CHECK(j.cwnd == 431 && j.pacing_Bps < 12500000, "paced over 90 ms");
	j = hs_jump_size(100000, 10000, 10000, MSS, 100, 1000, 125000000);
	CHECK(j.cwnd == HS_INIT_CWND, "never below IW");
	j = hs_jump_size(12500000, 50000, 0, MSS, 100, 1000, 125000000);
	CHECK(j.cwnd == HS_INIT_CWND && j.pacing_Bps == 0, "no RTT, no jump");
}

static void test_validated_resume(void)
{
	struct hs_resume r;
	__u32 ev, cwnd;

	jump(&r, 431, 1);
	CHECK(r.phase == HS_PHASE_UNVALIDATED && hs_resume_active(&r), "Unvalidated");
	/* First ACK: 429 of the jump in flight, 2 delivered, snd_nxt at packet 431. */
	cwnd = hs_resume_first_ack(&r, 429, 431 * MSS, 3, T0, 0, &ev);
	CHECK(ev == HS_RESUME_NONE && r.phase == HS_PHASE_VALIDATING, "Validating");
	CHECK(cwnd == 429 && r.last_unvalidated_seq == 431 * MSS, "cwnd = in flight");
	/* ACKs up to packet 430: still validating; PipeSize grows. */
	CHECK(hs_resume_on_ack(&r, 400 * MSS, 401) == HS_RESUME_NONE, "not yet");
	CHECK(r.pipe_pkts == 400, "PipeSize %u", r.pipe_pkts);
	CHECK(hs_resume_on_ack(&r, 431 * MSS, 432) == HS_VALIDATED, "validated");
	CHECK(r.phase == HS_PHASE_NORMAL && !hs_resume_active(&r), "Normal");
	CHECK(hs_resume_on_ack(&r, 500 * MSS, 501) == HS_RESUME_NONE, "counted once");
	__u32 s, cap;
	CHECK(!hs_resume_retreat(&r, 50, 600 * MSS, 560, &s, &cap), "no retreat after validation: Cubic's own response");
}

static void test_loss_while_validating(void)
{
	/* A 10x entry: the jump of 1000 overshoots a pipe of ~862 (BDP + buffer). The loss
	 * is found when ~860 packets were delivered. */
	struct hs_resume r;
	__u32 ev, s = 0, cap = 0;

	jump(&r, 1000, 0);
	hs_resume_first_ack(&r, 998, 1000 * MSS, 2, T0, 0, &ev);
	hs_resume_on_ack(&r, 700 * MSS, 700);
	CHECK(hs_resume_retreat(&r, 50, 1100 * MSS, 860, &s, &cap), "Safe Retreat");
	CHECK(r.phase == HS_PHASE_RETREAT && hs_resume_holds_growth(&r), "no growth in the retreat");
	CHECK(s == 430 && cap == 430, "ssthresh = PipeSize x 0.5 = %u, cwnd cap = PipeSize / 2 = %u", s, cap);
	CHECK(!hs_resume_retreat(&r, 50, 1100 * MSS, 870, &s, &cap), "one retreat per flow");
	/* The retreat ends when the last unvalidated packet (999) is acknowledged. */
	CHECK(hs_resume_on_ack(&r, 990 * MSS, 900) == HS_RESUME_NONE && r.phase == HS_PHASE_RETREAT, "holding");
	CHECK(r.pipe_pkts == 860 && r.exit_ssthresh == 0, "PipeSize reported as at the retreat; no exit yet");
	hs_resume_on_ack(&r, 1000 * MSS, 910);
	CHECK(r.phase == HS_PHASE_NORMAL && !hs_resume_holds_growth(&r), "growth allowed again");
	CHECK(r.exit_ssthresh == 455, "at the exit, ssthresh = PipeSize (910 by now) x 0.5 = %u", r.exit_ssthresh);
}

static void test_random_loss_early_in_the_jump(void)
{
	/* A right-sized jump of 100 on a lossy path: the 4th packet is lost and the loss is
	 * found when 3 were delivered. PipeSize 3 would give ssthresh 1 and cwnd 1; the
	 * kernel's slow start from IW, with the same 3 delivered, would keep (10 + 3) x
	 * beta: that is the floor. Once the rest of the jump is delivered (96 more) the
	 * exit's ssthresh is beta of what it delivered, as the RFC has it. */
	struct hs_resume r;
	__u32 ev, s = 0, cap = 0;

	jump(&r, 100, 0);
	hs_resume_first_ack(&r, 99, 100 * MSS, 1, T0, 0, &ev);
	CHECK(hs_resume_retreat(&r, 50, 100 * MSS, 3, &s, &cap) && s == 6 && cap == 6, "retreat at PipeSize 3: %u %u", s, cap);
	CHECK(hs_resume_on_ack(&r, 3 * MSS, 60) == HS_RESUME_NONE && r.exit_ssthresh == 0, "the hole holds snd_una");
	hs_resume_on_ack(&r, 100 * MSS, 99);
	CHECK(r.phase == HS_PHASE_NORMAL && r.exit_ssthresh == 49 && r.pipe_pkts == 3, "exit ssthresh %u, reported PipeSize %u",
	      r.exit_ssthresh, r.pipe_pkts);
	/* beta 70 (Cubic's): 69; at the retreat (10 + 3) x 0.7 = 9. */
	jump(&r, 100, 0);
	hs_resume_first_ack(&r, 99, 100 * MSS, 1, T0, 0, &ev);
	hs_resume_retreat(&r, 70, 100 * MSS, 3, &s, &cap);
	CHECK(s == 9 && cap == 9, "beta 70 floor: %u %u", s, cap);
	hs_resume_on_ack(&r, 100 * MSS, 99);
	CHECK(r.exit_ssthresh == 69, "beta 70: %u", r.exit_ssthresh);
	/* A retreat before the first ACK that delivers nothing more: the kernel's IW x beta. */
	jump(&r, 431, 5);
	hs_resume_retreat(&r, 50, 431 * MSS, 5, &s, &cap);
	hs_resume_on_ack(&r, 431 * MSS, 5);
	CHECK(r.exit_ssthresh == 5, "nothing delivered: %u", r.exit_ssthresh);
	/* The floor stops at 2 IW x beta: 14 with 20 delivered, where PipeSize x 0.7 is 14
	 * too; with 12 delivered PipeSize gives 8 and the floor 14. */
	jump(&r, 100, 0);
	hs_resume_first_ack(&r, 99, 100 * MSS, 1, T0, 0, &ev);
	hs_resume_retreat(&r, 70, 100 * MSS, 12, &s, &cap);
	CHECK(s == 14 && cap == 14, "12 delivered: %u %u", s, cap);
	CHECK(hs_kernel_floor(20, 70) == 14 && hs_kernel_floor(500, 70) == 14 && hs_kernel_floor(0, 10) == 2,
	      "floor %u %u %u", hs_kernel_floor(20, 70), hs_kernel_floor(500, 70), hs_kernel_floor(0, 10));
}

static void test_loss_while_unvalidated_and_rto_in_the_first_rtt(void)
{
	struct hs_resume r;
	__u32 ev, s = 0, cap = 0;

	/* RTO before any ACK: PipeSize 0, so the retreat is to the kernel's IW x beta, and
	 * the jump's packets (up to snd_nxt) are the unvalidated ones. */
	jump(&r, 431, 5);
	CHECK(hs_resume_retreat(&r, 50, 431 * MSS, 5, &s, &cap), "retreat from Unvalidated");
	CHECK(s == 5 && cap == 5 && r.last_unvalidated_seq == 431 * MSS, "ssthresh %u cap %u", s, cap);
	/* The first ACK after the RTO must not restore the jump's window. */
	CHECK(hs_resume_first_ack(&r, 400, 431 * MSS, 6, T0, 0, &ev) == 0 && ev == HS_RESUME_NONE, "nothing restored");
	CHECK(r.phase == HS_PHASE_RETREAT, "still retreating (until set_state reports the RTO: test_an_rto_ends_the_retreat)");
}

static void test_an_rto_ends_the_retreat(void)
{
	/* A jump of 422 into a receiver that stopped reading: 66 delivered, the rest
	 * discarded beyond its window (no SACK), found by an RTO. The retreat must not
	 * hold cwnd at one packet until the jump's last packet is acknowledged: the kernel
	 * retransmits that tail in slow start, from the retreat's ssthresh. */
	struct hs_resume r;
	__u32 ev, s = 0, cap = 0;

	jump(&r, 422, 0);
	hs_resume_first_ack(&r, 420, 422 * MSS, 2, T0, 0, &ev);
	hs_resume_on_ack(&r, 66 * MSS, 66);
	CHECK(hs_resume_retreat(&r, 50, 423 * MSS, 66, &s, &cap) && s == 33, "retreat, ssthresh %u", s);
	CHECK(hs_resume_holds_growth(&r), "a retreat holds growth");
	CHECK(!hs_resume_rto(&r), "a retreat's RTO reports nothing more to count");
	CHECK(r.phase == HS_PHASE_NORMAL && !hs_resume_holds_growth(&r), "the RTO ended it: growth as the kernel's");
	CHECK(hs_resume_on_ack(&r, 67 * MSS, 67) == HS_RESUME_NONE && r.exit_ssthresh == 0, "no exit ssthresh later");
	hs_resume_on_ack(&r, 422 * MSS, 422);
	CHECK(r.exit_ssthresh == 0 && r.phase == HS_PHASE_NORMAL, "nor when the jump's last packet is acknowledged");
	CHECK(!hs_resume_retreat(&r, 50, 500 * MSS, 430, &s, &cap), "and no second retreat");

	/* An RTO before any ACK of the jump ends it too; outside a retreat it changes nothing. */
	jump(&r, 431, 5);
	hs_resume_retreat(&r, 50, 431 * MSS, 5, &s, &cap);
	hs_resume_rto(&r);
	CHECK(r.phase == HS_PHASE_NORMAL, "first-RTT RTO: over");
	CHECK(hs_resume_first_ack(&r, 400, 431 * MSS, 6, T0, 0, &ev) == 0 && ev == HS_RESUME_NONE, "the first ACK restores nothing");
	jump(&r, 100, 0);
	hs_resume_first_ack(&r, 99, 100 * MSS, 1, T0, 0, &ev);
	CHECK(hs_resume_rto(&r) && r.phase == HS_PHASE_NORMAL, "Validating with no retreat (retreat_on=queue): the RTO ends it, reported");
	CHECK(!hs_resume_rto(&r) && r.phase == HS_PHASE_NORMAL, "nothing more to end");
	jump(&r, 100, 0);
	CHECK(hs_resume_rto(&r) && r.phase == HS_PHASE_NORMAL, "Unvalidated: ended too");
	CHECK(hs_resume_first_ack(&r, 10, 100 * MSS, 1, T0, 0, &ev) == 0, "and the first ACK after it restores nothing");
}

static void test_sender_with_less_data_than_the_jump(void)
{
	/* A 16 KB response under a 431-packet jump: 11 packets sent, 9 in flight at the
	 * first ACK: the jump was not used, the resume ends "rate limited". */
	struct hs_resume r;
	__u32 ev, cwnd;

	jump(&r, 431, 0);
	cwnd = hs_resume_first_ack(&r, 9, 11 * MSS, 2, T0, 0, &ev);
	CHECK(ev == HS_RATE_LIMITED && r.phase == HS_PHASE_NORMAL, "rate limited");
	CHECK(cwnd == 11, "cwnd = PipeSize + in flight = %u", cwnd);
	/* 181 packets (256 KB) under the same jump: less than half used. */
	jump(&r, 431, 0);
	cwnd = hs_resume_first_ack(&r, 179, 181 * MSS, 2, T0, 0, &ev);
	CHECK(ev == HS_RATE_LIMITED && cwnd == 181, "256 KB: rate limited, cwnd %u", cwnd);
	/* 300 packets: used. */
	jump(&r, 431, 0);
	hs_resume_first_ack(&r, 298, 300 * MSS, 2, T0, 0, &ev);
	CHECK(ev == HS_RESUME_NONE && r.phase == HS_PHASE_VALIDATING, "more than half used: validating");
	/* 150 packets sent, more written: the pacing held it, not the application. */
	jump(&r, 431, 0);
	cwnd = hs_resume_first_ack(&r, 148, 150 * MSS, 2, T0, 1, &ev);
	CHECK(ev == HS_RESUME_NONE && r.phase == HS_PHASE_VALIDATING, "still sending: validating");
	CHECK(cwnd == 429, "what is left of the jump's window: %u", cwnd);
}

static void test_rate_check(void)
{
	struct hs_resume r;
	__u32 ev, cwnd = 0;

	/* A 10x entry capped at 1000 packets: paced at 232 Mbit/s, delivered at the
	 * path's 100 Mbit/s (8.6 packets per ms). After a quarter RTT: retreat, cwnd =
	 * the path's BDP at the min RTT (50 ms). */
	jump(&r, 1000, 0);
	hs_resume_first_ack(&r, 998, 1000 * MSS, 2, T0, 0, &ev);
	CHECK(!hs_resume_rate_check(&r, T0 + 5000, 2 + 43, MSS, 50000, 50000, 62000, 75, &cwnd), "too early to tell");
	CHECK(!r.rate_checked, "not run yet");
	/* Slow, but this ACK shows no queue: ACK timing, tested again later. */
	CHECK(!hs_resume_rate_check(&r, T0 + 12500, 2 + 108, MSS, 50000, 50000, 50500, 75, &cwnd), "no queue, no verdict");
	CHECK(!r.rate_checked && r.phase == HS_PHASE_VALIDATING, "still testing");
	CHECK(hs_resume_rate_check(&r, T0 + 13000, 2 + 112, MSS, 50000, 50000, 62000, 75, &cwnd), "overshoot found");
	CHECK(r.phase == HS_PHASE_RETREAT && hs_resume_holds_growth(&r), "Safe Retreat before any loss");
	CHECK(cwnd >= 420 && cwnd <= 440, "cwnd = the delivered rate x min RTT = %u", cwnd);
	__u32 s, cap;
	CHECK(!hs_resume_retreat(&r, 50, 1100 * MSS, 300, &s, &cap), "the jump's losses do not retreat again");

	/* A right entry: delivered as fast as paced, with no queue. The test runs once
	 * and passes. */
	jump(&r, 431, 0);
	hs_resume_first_ack(&r, 429, 431 * MSS, 2, T0, 0, &ev);
	CHECK(!hs_resume_rate_check(&r, T0 + 12500, 2 + 108, MSS, 50000, 50000, 50100, 75, &cwnd), "right entry passes");
	CHECK(r.rate_checked && r.phase == HS_PHASE_VALIDATING, "checked, still validating");
	CHECK(!hs_resume_rate_check(&r, T0 + 20000, 2 + 110, MSS, 50000, 50000, 90000, 75, &cwnd), "once");
	/* The same pass with a queue in this ACK's RTT is trusted from half the RTT on. */
	jump(&r, 431, 0);
	hs_resume_first_ack(&r, 429, 431 * MSS, 2, T0, 0, &ev);
	CHECK(!hs_resume_rate_check(&r, T0 + 12500, 2 + 108, MSS, 50000, 50000, 62000, 75, &cwnd), "passes, with a queue");
	CHECK(!r.rate_checked && r.phase == HS_PHASE_VALIDATING, "a quarter RTT with a queue: not yet trusted");
	CHECK(!hs_resume_rate_check(&r, T0 + 25000, 2 + 216, MSS, 50000, 50000, 62000, 75, &cwnd), "still passes");
	CHECK(r.rate_checked && r.phase == HS_PHASE_VALIDATING, "checked at half the RTT, still validating");

	/* A 2x entry (paced at 200 Mbit/s, 17.2 packets per ms) whose first ACK came 7 ms
	 * late with the ACKs behind it: at a quarter RTT the path's 8.6 packets per ms
	 * over 19.5 ms read as 12.5 ms, 77 % of the paced rate, while the RTT shows the
	 * queue the overshoot builds. The test goes on, and at half the RTT (8.6 x 32 ms
	 * over 25 ms: 64 %) the overshoot shows. */
	jump(&r, 862, 0);
	hs_resume_first_ack(&r, 860, 862 * MSS, 2, T0, 0, &ev);
	CHECK(!hs_resume_rate_check(&r, T0 + 12500, 2 + 168, MSS, 50000, 50000, 62000, 75, &cwnd), "a compressed start passes");
	CHECK(!r.rate_checked, "not trusted before half the RTT");
	CHECK(hs_resume_rate_check(&r, T0 + 25000, 2 + 275, MSS, 50000, 50000, 70000, 75, &cwnd), "the overshoot shows by half the RTT");
	CHECK(r.phase == HS_PHASE_RETREAT, "Safe Retreat before any loss");

	/* Knob 0: no rate test. */
	jump(&r, 1000, 0);
	hs_resume_first_ack(&r, 998, 1000 * MSS, 2, T0, 0, &ev);
	CHECK(!hs_resume_rate_check(&r, T0 + 12500, 2 + 108, MSS, 50000, 50000, 62000, 0, &cwnd), "off");
}

static void test_probe(void)
{
	__u32 cnt = 0, cwnd = 100;

	/* 1.5x per RTT: 100 ACKed packets add 50. */
	for (int i = 0; i < 100; i++)
		cwnd = hs_probe_grow(cwnd, 1, 50, &cnt);
	CHECK(cwnd == 150, "1.5x: %u", cwnd);
	cwnd = hs_probe_grow(cwnd, 3, 50, &cnt);
	CHECK(cwnd == 151 && cnt == 50, "half packets carried: %u %u", cwnd, cnt);
	cnt = 0;
	cwnd = 100;
	for (int i = 0; i < 100; i++)
		cwnd = hs_probe_grow(cwnd, 1, 25, &cnt);
	CHECK(cwnd == 125, "1.25x: %u", cwnd);
	/* Linux HyStart's threshold, floor halved: 50 ms -> 6.25 ms; 10 ms -> 2 ms; 200 ms -> 16 ms. */
	CHECK(!hs_queue_seen(56000, 50000) && hs_queue_seen(56300, 50000), "6.25 ms at 50 ms");
	CHECK(!hs_queue_seen(12000, 10000) && hs_queue_seen(12001, 10000), "2 ms floor");
	CHECK(!hs_queue_seen(216000, 200000) && hs_queue_seen(216001, 200000), "16 ms ceiling");
	CHECK(!hs_queue_seen(0, 50000) && !hs_queue_seen(90000, 0), "no sample, no verdict");
	/* Rounds: two without a queue and the probe turns to slow start; a queue ends it. */
	struct hs_probe p;
	hs_probe_start(&p, 100 * MSS, 25, 0);
	CHECK(!hs_probe_on_ack(&p, 50000, 50000, 50 * MSS, 130 * MSS) && p.growth_pct == 25, "round 1");
	CHECK(!hs_probe_on_ack(&p, 50100, 50000, 100 * MSS, 150 * MSS) && p.clear_rounds == 1 && p.growth_pct == 25, "one clear round");
	CHECK(!hs_probe_on_ack(&p, 50200, 50000, 150 * MSS, 200 * MSS) && p.clear_rounds == 2 && p.growth_pct == 50, "two: doubled");
	CHECK(!hs_probe_on_ack(&p, 50200, 50000, 200 * MSS, 300 * MSS) && p.growth_pct == 50, "three: at most 1.5x per RTT");
	/* The queue is the smallest RTT of a block of eight consecutive samples: four
	 * gathered above; four more, one of them 50 ms, complete a block without a queue.
	 * The next eight, all 57-59 ms (6.25 ms is the threshold at 50 ms), end it. */
	CHECK(!hs_probe_on_ack(&p, 60000, 50000, 201 * MSS, 300 * MSS) && p.active, "one late sample is not a queue");
	CHECK(!hs_probe_on_ack(&p, 0, 50000, 202 * MSS, 300 * MSS) && p.block_samples == 5, "an ACK without a sample counts for nothing");
	CHECK(!hs_probe_on_ack(&p, 58000, 50000, 203 * MSS, 300 * MSS), "gathering");
	CHECK(!hs_probe_on_ack(&p, 57000, 50000, 204 * MSS, 300 * MSS), "gathering");
	CHECK(!hs_probe_on_ack(&p, 59000, 50000, 205 * MSS, 300 * MSS) && p.active && p.block_samples == 0,
	      "a block whose smallest is 50 ms: no queue");
	for (int i = 0; i < HS_PROBE_RTT_SAMPLES - 1; i++)
		CHECK(!hs_probe_on_ack(&p, 58000 + 1000 * (i & 1), 50000, (206 + i) * MSS, 300 * MSS) && p.active, "gathering %d", i);
	CHECK(hs_probe_on_ack(&p, 57000, 50000, 213 * MSS, 300 * MSS) && !p.active && p.queue_rtt_us == 57000,
	      "a block all above the threshold ends it, with its smallest RTT: %u", p.queue_rtt_us);
	CHECK(!hs_probe_on_ack(&p, 90000, 50000, 214 * MSS, 300 * MSS), "ended once");
	/* ACK jitter, as over LTE: one sample in eight late by 40 ms, the others clean,
	 * over many rounds: the probe never ends. */
	hs_probe_start(&p, 100 * MSS, 25, 0);
	for (__u32 i = 0; i < 400; i++)
		CHECK(!hs_probe_on_ack(&p, i % 8 == 3 ? 90000 : 50500, 50000, (50 + i) * MSS, (150 + i) * MSS), "jitter %u", i);
	CHECK(p.active, "jitter alone does not end the probe");

	/* Never slower than slow start from IW: 2x IW by the end of the jump's round, 4x
	 * IW by the end of the next; above that, the probe's own growth. */
	hs_probe_start(&p, 100 * MSS, 25, 0);
	CHECK(hs_probe_growth(&p, HS_INIT_CWND) == 100 && hs_probe_growth(&p, 2 * HS_INIT_CWND - 1) == 100, "round 0 below 2 IW: slow start");
	CHECK(hs_probe_growth(&p, 2 * HS_INIT_CWND) == 25, "round 0 at 2 IW: the probe");
	hs_probe_on_ack(&p, 50000, 50000, 100 * MSS, 130 * MSS);
	CHECK(hs_probe_growth(&p, 3 * HS_INIT_CWND) == 100 && hs_probe_growth(&p, 4 * HS_INIT_CWND) == 25, "round 1: up to 4 IW");
	cnt = 0;
	cwnd = 12;  /* a jump of 12 (an entry far too low): the first round doubles from IW */
	hs_probe_start(&p, 100 * MSS, 25, 0);
	for (int i = 0; i < 12; i++)
		cwnd = hs_probe_grow(cwnd, 1, hs_probe_growth(&p, cwnd), &cnt);
	CHECK(cwnd == 2 * HS_INIT_CWND + 1, "12 acked from 12: slow start to 2 IW (8), then the probe (4 x 25 %%): %u", cwnd);
	p.clear_rounds = 40;
	CHECK(hs_probe_growth(&p, 5) == 25, "the floor stops growing with the shift (no overflow)");
	/* A jump of 80 the receiver held to 45: the floor (160 by the fourth round) stops
	 * at the jump's window; below it, it still applies. */
	hs_probe_start(&p, 100 * MSS, 25, 0);
	p.floor_cap = 80;
	p.clear_rounds = 3;
	CHECK(hs_probe_growth(&p, 79) == 100 && hs_probe_growth(&p, 80) == 25 && hs_probe_growth(&p, 150) == 25,
	      "a held jump: slow start's floor up to the jump, the probe above");
	p.clear_rounds = 0;
	CHECK(hs_probe_growth(&p, 45) == 25, "below the jump, the floor as it is (2 IW in round 0)");
	/* A probe that begins after a rate test's retreat, one round into the flow: the
	 * floor is where slow start from IW would be by then (4 IW, then 8 IW). */
	hs_probe_start(&p, 100 * MSS, 25, 1);
	CHECK(hs_probe_growth(&p, 4 * HS_INIT_CWND - 1) == 100 && hs_probe_growth(&p, 4 * HS_INIT_CWND) == 25,
	      "later probe, round 0: up to 4 IW");
	hs_probe_on_ack(&p, 50000, 50000, 100 * MSS, 130 * MSS);
	CHECK(hs_probe_growth(&p, 8 * HS_INIT_CWND - 1) == 100 && hs_probe_growth(&p, 8 * HS_INIT_CWND) == 25,
	      "later probe, round 1: up to 8 IW");
	/* The drain answers the probe's queue: the first congestion signal for data sent
	 * before it is that event's, once; one for data sent after it is a new event. */
	hs_probe_start(&p, 100 * MSS, 25, 0);
	CHECK(!hs_probe_drain_answers(&p, 50 * MSS), "no drain, nothing answered");
	hs_probe_drained(&p, 300 * MSS, 130);
	CHECK(hs_probe_drain_answers(&p, 250 * MSS) == 130, "a hole sent before the drain: the probe's peak");
	CHECK(!hs_probe_drain_answers(&p, 260 * MSS), "once only");
	hs_probe_drained(&p, 300 * MSS, 130);
	CHECK(!hs_probe_drain_answers(&p, 300 * MSS) && !p.drain_peak, "sent at or after the drain: a new event, and the drain is spent");
	hs_probe_drained(&p, 0x10, 130);
	CHECK(hs_probe_drain_answers(&p, 0xfffffff0U) == 130, "sequence wrap");
	/* Its ssthresh: beta of the peak (130 -> 91), not beta of the drained 111 (77);
	 * never above cwnd now, never below Cubic's own. */
	CHECK(hs_drained_event_ssthresh(77, 111, 130, 70) == 91, "beta of the peak: %u", hs_drained_event_ssthresh(77, 111, 130, 70));
	CHECK(hs_drained_event_ssthresh(60, 86, 200, 70) == 86, "no more than cwnd now");
	CHECK(hs_drained_event_ssthresh(95, 136, 130, 70) == 95, "Cubic's own where that is more");
	/* Growth only while cwnd limits: below twice the most packets in flight. */
	CHECK(hs_probe_may_grow(100, 51) && !hs_probe_may_grow(100, 50) && !hs_probe_may_grow(100, 0), "cwnd-limited rule");
	CHECK(hs_probe_may_grow(0xffffffffU, 0x80000000U), "no overflow in 2 x max_packets_out");
	/* Draining: 600 packets at 75 ms over a 50 ms path hold 200 in the queue. */
	CHECK(hs_drained_cwnd(600, 50000, 75000, 100, 0, 0) == 400, "drained %u", hs_drained_cwnd(600, 50000, 75000, 100, 0, 0));
	CHECK(hs_drained_cwnd(600, 50000, 75000, 50, 0, 0) == 500, "half the queue: %u", hs_drained_cwnd(600, 50000, 75000, 50, 0, 0));
	CHECK(hs_drained_cwnd(600, 50000, 75000, 0, 0, 0) == 600, "none of it");
	CHECK(hs_drained_cwnd(600, 50000, 40000, 100, 0, 0) == 600, "an RTT below the minimum drains nothing");
	CHECK(hs_drained_cwnd(12, 50000, 500000, 100, 0, 0) == HS_INIT_CWND, "never below IW");
	CHECK(hs_drained_cwnd(6, 50000, 500000, 100, 0, 0) == 6, "nor above a cwnd already below IW");
	/* The probe's lagging RTT reads 104 of an 85-packet pipe (10 ms, 0.5 BDP): the
	 * delivery rate's pipe is taken, not below the jump, never above the RTT's. */
	CHECK(hs_drained_cwnd(125, 10200, 12250, 50, 85, 80) == 105, "rate pipe: %u", hs_drained_cwnd(125, 10200, 12250, 50, 85, 80));
	CHECK(hs_drained_cwnd(125, 10200, 12250, 50, 40, 80) == 103, "a lull's rate: not below the jump: %u",
	      hs_drained_cwnd(125, 10200, 12250, 50, 40, 80));
	CHECK(hs_drained_cwnd(125, 10200, 12250, 50, 40, 110) == hs_drained_cwnd(125, 10200, 12250, 50, 0, 0),
	      "a jump above the RTT's pipe: the RTT's");
	CHECK(hs_drained_cwnd(125, 10200, 12250, 50, 200, 80) == hs_drained_cwnd(125, 10200, 12250, 50, 0, 0),
	      "a rate pipe above the RTT's: the RTT's");
	CHECK(hs_rate_pipe(85, 10200, 10200) == 85 && hs_rate_pipe(0, 10200, 10200) == 0 && hs_rate_pipe(85, 0, 10200) == 0,
	      "rate pipe");
	CHECK(hs_rate_pipe(0xffffffffU, 1, 0xffffffffU) == 0xffffffffU, "rate pipe saturates");
}

static void test_store_rules(void)
{
	const __u64 truth = 12500000, cap = 1250000000;  /* 100 Mbit/s path, 10 Gbit/s cap */

	CHECK(hs_rate_to_store(0, truth, 0, 200, cap) == truth, "a new entry takes the estimate");
	CHECK(hs_rate_to_store(0, 100 * cap, 0, 200, cap) == cap, "never above the cap");
	/* A lying peer (compressed ACKs reading 100x): at most 2x per flow. */
	CHECK(hs_rate_to_store(truth, 100 * truth, 0, 200, cap) == 2 * truth, "raise bounded to 2x");
	__u64 e = truth;
	for (int i = 0; i < 3; i++)
		e = hs_rate_to_store(e, 100 * truth, 0, 200, cap);
	CHECK(e == 8 * truth, "three lying flows: 8x, not 100x (%llu)", (unsigned long long)e);
	CHECK(hs_rate_to_store(truth, 2 * truth, 0, 200, cap) == 2 * truth, "exactly 2x passes");
	CHECK(hs_rate_to_store(truth, 100 * truth, 0, 0, cap) == 100 * truth, "max_raise_pct 0: unbounded");
	/* An honest lower estimate replaces the entry; a lossy one only decays it. */
	CHECK(hs_rate_to_store(truth, truth / 4, 0, 200, cap) == truth / 4, "honest flow lowers");
	CHECK(hs_rate_to_store(truth, truth / 4, 1, 200, cap) == truth - truth / 8, "lossy flow: decay by 1/8");
	CHECK(hs_rate_to_store(truth, truth - truth / 16, 1, 200, cap) == truth - truth / 16, "lossy, within 1/8: as measured");
	CHECK(hs_rate_to_store(truth, 2 * truth, 1, 200, cap) == 2 * truth, "a lossy flow may still raise");
	/* A 100x-poisoned entry and honest flows: Careful Resume deletes it on the first
	 * retreat (then the flow's own estimate is stored); without a retreat, honest
	 * loss-free flows bring it down at once. */
	CHECK(hs_rate_to_store(100 * truth, truth, 0, 200, cap) == truth, "honest flow corrects a poisoned entry");
	CHECK(hs_flow_lossy(11, 1000) && !hs_flow_lossy(10, 1000) && !hs_flow_lossy(0, 0), "lossy: over 1 %%");
	/* The lossy mark: set by a loss with no queue, cleared once HS_LOSS_CLEAR_SEGS went
	 * out clean in a row, in one flow or several; any retransmission restarts the count. */
	{
		struct hs_loss_mark none = { 0, 0 }, m;
		struct hs_loss_mark marked = { HS_PATH_LOSSY, 0 };

		m = hs_mark_after(none, 1, 1, 45);
		CHECK(m.flags == HS_PATH_LOSSY && m.clean_segs == 0, "a loss with no queue marks");
		m = hs_mark_after(none, 0, 30, 1000);
		CHECK(m.flags == 0 && m.clean_segs == 0, "losses with a queue (overshoot) do not");
		m = hs_mark_after(none, 0, 0, 5000);
		CHECK(m.flags == 0 && m.clean_segs == 0, "no mark: nothing counted");
		m = hs_mark_after(marked, 0, 0, HS_LOSS_CLEAR_SEGS - 1);
		CHECK(m.flags == HS_PATH_LOSSY && m.clean_segs == HS_LOSS_CLEAR_SEGS - 1, "a clean flow short of the count keeps the mark");
		m = hs_mark_after(m, 0, 0, 1);
		CHECK(m.flags == 0 && m.clean_segs == 0, "the last clean segment clears it");
		m = hs_mark_after(marked, 0, 0, HS_LOSS_CLEAR_SEGS);
		CHECK(m.flags == 0, "one flow of the whole count clears it");
		m = hs_mark_after(marked, 0, 0, 1000);
		m = hs_mark_after(m, 0, 12, 100000);
		CHECK(m.flags == HS_PATH_LOSSY && m.clean_segs == 0, "retransmissions (an overflow, or loss behind a queue) restart the count");
		m = hs_mark_after(marked, 0, 0, 1000);
		m = hs_mark_after(m, 1, 1, 100000);
		CHECK(m.flags == HS_PATH_LOSSY && m.clean_segs == 0, "a random loss restarts the count");
		{
			/* 1,000-segment flows at 0.1 % loss: the old rule cleared on the first
			 * clean one (37 %); now nine clean in a row keep the mark, the tenth clears. */
			int i, cleared_at = 0;

			m = marked;
			for (i = 1; i <= 10 && !cleared_at; i++) {
				m = hs_mark_after(m, 0, 0, 1000);
				if (!(m.flags & HS_PATH_LOSSY))
					cleared_at = i;
			}
			CHECK(cleared_at == HS_LOSS_CLEAR_SEGS / 1000, "1,000-segment clean flows clear after %d", cleared_at);
		}
		m = hs_mark_after((struct hs_loss_mark){ HS_PATH_LOSSY, 0xfffffff0U }, 0, 0, 0x100);
		CHECK(m.flags == 0, "the count saturates, it does not wrap");
		m = hs_mark_after((struct hs_loss_mark){ 0x80 | HS_PATH_LOSSY, 0 }, 0, 0, 100000);
		CHECK(m.flags == 0x80, "other bits kept when clearing");
		m = hs_mark_after((struct hs_loss_mark){ 0x80, 0 }, 1, 0, 0);
		CHECK(m.flags == (0x80 | HS_PATH_LOSSY), "other bits kept when marking");
	}
	/* Confidence: flows in a row within 25 %; a confident entry is lowered by one flow to
	 * no less than the floor; not before it is confident, nor with the floor at 0. */
	CHECK(hs_agreed_after(0, 0, truth) == 0, "a new entry: no agreement yet");
	CHECK(hs_agreed_after(0, truth, truth * 125 / 100) == 1 && hs_agreed_after(1, truth, truth * 75 / 100) == 2, "+-25 %% agrees");
	CHECK(hs_agreed_after(5, truth, truth * 126 / 100) == 0 && hs_agreed_after(5, truth, truth * 74 / 100) == 0, "beyond: start over");
	CHECK(hs_agreed_after(1, truth, 1ULL << 60) == 0, "huge estimates: no overflow, no agreement");
	CHECK(hs_confident_floor(truth, truth / 10, HS_CONFIDENT_AGREED, 50) == truth / 2, "confident: lowered to half at most");
	CHECK(hs_confident_floor(truth, truth / 10, HS_CONFIDENT_AGREED - 1, 50) == truth / 10, "not yet confident: as stored");
	CHECK(hs_confident_floor(truth, truth / 10, 9, 0) == truth / 10, "floor 0: off");
	CHECK(hs_confident_floor(truth, 3 * truth, 9, 50) == 3 * truth, "raising is not its business");
	{
		/* A path that really slowed to a tenth: a confident entry gets there in two flows. */
		__u64 e = truth;
		__u32 agreed = HS_CONFIDENT_AGREED, n = 0;
		while (e > truth / 10 + truth / 100 && n < 10) {
			__u64 next = hs_confident_floor(e, hs_rate_to_store(e, truth / 10, 0, 200, cap), agreed, 50);
			agreed = hs_agreed_after(agreed, e, truth / 10);
			e = next;
			n++;
		}
		CHECK(n == 2, "a real slowdown is stored after %u flows (2: halved, then no longer confident)", n);
	}
	/* A flow that sent no more than its jump measured only the entry's pacing rate and
	 * leaves the entry; one packet more, a retreat, or no jump: it stores. */
	CHECK(hs_flow_only_jumped(85, 0, 23) && hs_flow_only_jumped(85, 0, 85), "all data in the jump: entry left");
	CHECK(!hs_flow_only_jumped(85, 0, 86), "beyond the jump: stores");
	CHECK(!hs_flow_only_jumped(85, 1, 23), "a retreat: stores what it measured");
	CHECK(!hs_flow_only_jumped(0, 0, 5), "no jump: stores");
	/* An episode with no queue in the RTT: random loss if it retransmitted fewer than a
	 * run (one, or a spurious one undone), or if the RTT had not begun to rise; an
	 * overflow if it lost a run as the RTT rose. */
	CHECK(hs_episode_random(0, 1) && hs_episode_random(1, 1) && hs_episode_random(HS_OVERFLOW_RUN - 1, 1), "few losses: random");
	CHECK(!hs_episode_random(HS_OVERFLOW_RUN, 1) && !hs_episode_random(46, 1), "a run as the RTT rose: an overflow");
	CHECK(hs_episode_random(46, 0), "a run with a flat RTT (random loss of 1 %%): random");
	/* Rising: above half the queue threshold (2 ms at 10 ms: 1 ms). */
	CHECK(hs_queue_rising(11800, 10300) && !hs_queue_seen(11800, 10300), "1.5 ms on a 10 ms path: rising, no queue");
	CHECK(!hs_queue_rising(11200, 10300), "0.9 ms: flat");
	CHECK(!hs_queue_rising(0, 10300) && !hs_queue_rising(11800, 0), "no samples: flat");
}

static void test_random_loss_floor(void)
{
	/* The lab case: a loss ~250 packets in; slow start from IW would be at 260. */
	CHECK(hs_random_loss_floor(250, HS_CUBIC_BETA_PCT) == 182, "beta x (IW + delivered): %u", hs_random_loss_floor(250, 70));
	CHECK(hs_random_loss_floor(0, 70) == 7, "no packet delivered: beta x IW");
	CHECK(hs_random_loss_floor(0xffffffffU, 70) == HS_MAX_START_CWND, "capped, no overflow");
	CHECK(hs_random_loss_floor(100, 150) == 110, "beta above 100 %% is 100 %%");
}

/* Jumps that yield: the handshake test, the entry's busy share over handshakes, and
 * the jump's share that follows from it. */
static void test_jumps_yield(void)
{
	__u32 share = 0, i, busy = 0;

	/* Busy: a quarter of the queue threshold over the min RTT (1.56 ms at 50 ms), at
	 * least 1 ms (10 ms path: a quarter would be 0.5 ms). */
	CHECK(hs_bottleneck_busy(51600, 50000) && !hs_bottleneck_busy(51500, 50000), "50 ms: 1.6 ms busy, 1.5 ms not");
	CHECK(hs_bottleneck_busy(11001, 10000) && !hs_bottleneck_busy(10900, 10000), "10 ms: the 1 ms floor");
	CHECK(!hs_bottleneck_busy(0, 50000) && !hs_bottleneck_busy(90000, 0), "no samples: not busy");
	/* A path its flows have to themselves: the share stays 0 and the jump whole. */
	for (i = 0; i < 100; i++)
		share = hs_busy_share_after(share, 0);
	CHECK(share == 0 && hs_yielded_jump_pct(100, share) == 100, "idle path: whole jump (%u)", share);
	/* One busy handshake moves it by 1/8. */
	share = hs_busy_share_after(0, 1);
	CHECK(share == HS_BUSY_SHARE_ONE / 8, "one busy handshake: 1/8 (%u)", share);
	CHECK(hs_yielded_jump_pct(100, share) == 87, "jump 87 %% (%u)", hs_yielded_jump_pct(100, share));
	/* A bottleneck found busy in one handshake of three settles near a third. */
	for (share = 0, i = 0; i < 300; i++)
		share = hs_busy_share_after(share, i % 3 == 0);
	CHECK(share > HS_BUSY_SHARE_ONE / 5 && share < HS_BUSY_SHARE_ONE / 2, "a third busy: share %u", share);
	busy = hs_yielded_jump_pct(100, share);
	CHECK(busy > 50 && busy < 80, "a third busy: jump %u %%", busy);
	/* ... and a path that empties forgets it within a few dozen handshakes. */
	for (i = 0; i < 30; i++)
		share = hs_busy_share_after(share, 0);
	CHECK(hs_yielded_jump_pct(100, share) >= 99, "quiet again: jump %u %%", hs_yielded_jump_pct(100, share));
	/* Never below half, whatever the share (a corrupt one above 1 included). */
	for (share = 0, i = 0; i < 100; i++)
		share = hs_busy_share_after(share, 1);
	CHECK(share <= HS_BUSY_SHARE_ONE && share > HS_BUSY_SHARE_ONE * 9 / 10, "always busy: share -> 1 (%u)", share);
	CHECK(hs_yielded_jump_pct(100, share) == 50 && hs_yielded_jump_pct(100, ~0U) == 50, "at most to half");
	CHECK(hs_busy_share_after(~0U, 1) == HS_BUSY_SHARE_ONE, "a corrupt share is read as 1");
	CHECK(hs_yielded_jump_pct(60, HS_BUSY_SHARE_ONE / 4) == 45, "of jump_pct: 60 x 3/4");
	/* The window override is refused into a busy bottleneck: a queue rising in this
	 * handshake (3.1 ms at 50 ms), or a busy one (1.6 ms) at an entry busy in half its
	 * handshakes. */
	CHECK(hs_bottleneck_too_busy_for_override(53200, 50000, 0), "3.2 ms of queue in the handshake: none");
	CHECK(!hs_bottleneck_too_busy_for_override(53000, 50000, 0), "3.0 ms, share 0: override");
	CHECK(hs_bottleneck_too_busy_for_override(52000, 50000, HS_BUSY_SHARE_ONE / 2), "2 ms at an entry busy half the time: none");
	CHECK(!hs_bottleneck_too_busy_for_override(52000, 50000, HS_BUSY_SHARE_ONE / 2 - 1), "2 ms, share under half: override");
	CHECK(!hs_bottleneck_too_busy_for_override(51000, 50000, HS_BUSY_SHARE_ONE), "a clean handshake, whatever the share: override");
	CHECK(!hs_bottleneck_too_busy_for_override(0, 0, ~0U), "no samples: override");
}

/* rwnd_shared: the override beside other open flows to the peer, by mode and by how
 * long ago one of the peer's flows last lost (boot clock, ns). */
static void test_shared_override(void)
{
	__u64 now = 100ULL * 1000000000ULL, s = 1000000000ULL;

	CHECK(!hs_shared_refuses_override(0, now), "given: the peer never lost");
	CHECK(hs_shared_refuses_override(now - s, now), "refused: a loss 1 s ago");
	CHECK(hs_shared_refuses_override(now - HS_QUIET_NS + 1, now), "refused just inside 10 s");
	CHECK(!hs_shared_refuses_override(now - HS_QUIET_NS, now), "given 10 s after the loss");
	CHECK(hs_shared_refuses_override(now + 1000, now), "a loss stamped after now was read is recent");
}

/* The room the peer's other flows leave of its budget. */
static void test_room_rule(void)
{
	CHECK(hs_room_pkts(431, 400) == 31 && hs_room_pkts(431, 431) == 0 && hs_room_pkts(431, 5000) == 0, "room: BDP less in flight, not below 0");
	CHECK(hs_room_pkts(0x1ffffffffULL, 1) == 0xffffffffU, "a huge BDP: the room saturates");
	CHECK(hs_room_min_pkts(40) == 40 && hs_room_min_pkts(0) == HS_INIT_CWND, "the least room: min_saved_pkts, at least IW");
}

/* The jump a busy share leaves: cut, but not below min_pkts unless the whole is. */
static void test_yielded_jump_floor(void)
{
	/* 12.5 MB/s x 50 ms / 1448 B = 431 packets whole; always busy: half. */
	__u64 bw = 12500000;
	struct hs_jump whole = hs_jump_size(bw, 50000, 50000, 1448, 100, 1000, 0), j;
	int cut = -1;

	j = hs_yielded_jump(bw, 50000, 50000, 1448, 100, HS_BUSY_SHARE_ONE, 40, 1000, 0, &cut);
	CHECK(whole.cwnd == 431 && j.cwnd == 215 && cut == 1, "half of 431: %u (cut %d)", j.cwnd, cut);
	CHECK(j.pacing_Bps * 2 <= whole.pacing_Bps + 2 * 1448, "paced at half the rate too");
	j = hs_yielded_jump(bw, 50000, 50000, 1448, 100, 0, 40, 1000, 0, &cut);
	CHECK(j.cwnd == whole.cwnd && j.pacing_Bps == whole.pacing_Bps && cut == 0, "no share: the whole jump");
	/* T-Mobile's 16.7 Mbit/s x 50 ms: 72 packets whole; half would be 36: the floor. */
	j = hs_yielded_jump(2087500, 50000, 50000, 1448, 100, HS_BUSY_SHARE_ONE, 40, 1000, 0, &cut);
	CHECK(j.cwnd == 40 && cut == 1, "not below min_pkts: %u", j.cwnd);
	/* A whole jump below the floor is not raised to it; s_bbr has no floor. */
	j = hs_yielded_jump(1000000, 50000, 50000, 1448, 100, HS_BUSY_SHARE_ONE, 40, 1000, 0, &cut);
	CHECK(j.cwnd == 34 && cut == 0, "whole 34 stays: %u", j.cwnd);
	j = hs_yielded_jump(2087500, 50000, 50000, 1448, 100, HS_BUSY_SHARE_ONE, 0, 1000, 0, &cut);
	CHECK(j.cwnd == 36 && cut == 1, "no floor: half, %u", j.cwnd);
	/* The caps still hold: max_cwnd below the floor. */
	j = hs_yielded_jump(2087500, 50000, 50000, 1448, 100, HS_BUSY_SHARE_ONE, 40, 20, 0, &cut);
	CHECK(j.cwnd == 20 && cut == 0, "max_cwnd 20: %u", j.cwnd);
}

int main(void)
{
	test_jumps_yield();
	test_shared_override();
	test_room_rule();
	test_yielded_jump_floor();
	test_random_loss_floor();
	test_store_rules();
	test_rate_check();
	test_probe();
	test_reconnaissance();
	test_jump_size();
	test_validated_resume();
	test_loss_while_validating();
	test_random_loss_early_in_the_jump();
	test_loss_while_unvalidated_and_rto_in_the_first_rtt();
	test_an_rto_ends_the_retreat();
	test_sender_with_less_data_than_the_jump();
	return check_report();
}
