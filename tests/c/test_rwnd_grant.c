/* Host tests of the receive-window override's decision (bpf/lib/rwnd_grant.h): the
 * window fields a Linux receiver writes while it keeps up, and while its application
 * falls behind. Fields are raw (wscale 7: 128-byte units; 64 KB = 512). */
#include "../../bpf/lib/rwnd_grant.h"
#include "check.h"

static struct hs_rwnd_grant granted(__u16 field)
{
	struct hs_rwnd_grant g = { .field = field, .peak = 0 };

	return g;
}

static void test_a_receiver_that_keeps_up_gets_the_grant(void)
{
	struct hs_rwnd_grant g = granted(8000);
	/* Opening at 64 KB, growing as data arrives, with the dips of a reader that
	 * wakes a little late (a few segments unread). */
	__u16 wins[] = { 501, 512, 540, 580, 566, 620, 700, 690, 800, 1000, 1500 };

	for (unsigned i = 0; i < sizeof(wins) / sizeof(wins[0]); i++)
		CHECK(hs_rwnd_grant_apply(&g, wins[i]) == 8000, "ack %u (window %u) raised to the grant", i, wins[i]);
	CHECK(g.field == 8000 && g.peak == 1500, "grant kept, peak %u", g.peak);
	CHECK(hs_rwnd_grant_apply(&g, 9000) == 9000, "a larger window passes as it is");
	CHECK(hs_rwnd_grant_apply(&g, 6800) == 8000, "within a quarter of its peak (9000): still raised");
}

static void test_a_shrinking_window_ends_the_grant_for_good(void)
{
	struct hs_rwnd_grant g = granted(8000);

	CHECK(hs_rwnd_grant_apply(&g, 512) == 8000, "opening window raised");
	CHECK(hs_rwnd_grant_apply(&g, 800) == 8000, "grown window raised");
	CHECK(hs_rwnd_grant_apply(&g, 601) == 8000, "601 of a peak of 800: above three quarters");
	CHECK(hs_rwnd_grant_apply(&g, 599) == 599, "599 of 800: the reader fell behind, its own window");
	CHECK(g.field == 0, "the grant is over");
	CHECK(hs_rwnd_grant_apply(&g, 2000) == 2000, "the reader caught up: its own window, not raised again");
	CHECK(hs_rwnd_grant_apply(&g, 100) == 100, "and never after");
}

static void test_a_zero_window_ends_the_grant(void)
{
	struct hs_rwnd_grant g = granted(8000);

	CHECK(hs_rwnd_grant_apply(&g, 0) == 0, "the first ACK closed: left closed");
	CHECK(g.field == 0, "a zero window ends the grant");
	CHECK(hs_rwnd_grant_apply(&g, 512) == 512, "the reopened window is the receiver's own");

	g = granted(8000);
	hs_rwnd_grant_apply(&g, 512);
	CHECK(hs_rwnd_grant_apply(&g, 0) == 0 && g.field == 0, "a zero window after data ends it too");
}

static void test_edges(void)
{
	struct hs_rwnd_grant g = granted(0xffff);

	CHECK(hs_rwnd_grant_apply(&g, 0xffff) == 0xffff && g.peak == 0xffff, "the largest field");
	CHECK(hs_rwnd_grant_apply(&g, 49152) == 0xffff, "exactly three quarters of 65535 rounds up: raised");
	CHECK(hs_rwnd_grant_apply(&g, 49151) == 49151 && g.field == 0, "one below: ended (no overflow in the products)");

	g = granted(40);
	CHECK(hs_rwnd_grant_apply(&g, 63) == 63, "a receiver already above a small grant passes as it is");
	CHECK(hs_rwnd_grant_apply(&g, 50) == 50, "50 of 63 is above three quarters: its own window, above the grant");
	CHECK(hs_rwnd_grant_apply(&g, 30) == 30 && g.field == 0, "30 of 63: ended");
}

/* A bare ACK (no payload, no SYN/FIN/RST) of `ack` with window `win`; `sack`: with a
 * SACK option. */
static void ack_of(struct hs_rwnd_grant *g, __u32 ack, __u16 win, int sack)
{
	struct hs_ack_seen a = { .ack = ack, .win = win, .bare = 1, .sack = (__u8)sack };

	hs_rwnd_grant_watch(g, &a);
}

static struct hs_rwnd_grant granted_sack(__u16 field)
{
	struct hs_rwnd_grant g = granted(field);

	g.flags = HS_GRANT_SACK;
	return g;
}

static void test_a_dupack_without_sack_is_the_receivers_overrun(void)
{
	struct hs_rwnd_grant g = granted_sack(8000);

	ack_of(&g, 1000, 512, 0);
	ack_of(&g, 3896, 530, 0);
	CHECK(g.overruns == 0 && g.field == 8000, "ACKs that advance: no overrun");
	ack_of(&g, 3896, 8, 0);
	CHECK(g.overruns == 1 && g.field == 0, "the same ACK again, no SACK: a segment discarded, the grant ends");
	CHECK(hs_rwnd_grant_apply(&g, 8) == 8, "and the receiver's own window goes on");
	for (int i = 0; i < 300; i++)
		ack_of(&g, 3896, 8, 0);
	CHECK(g.overruns == 0xff, "counted up to 255, no wrap: %u", g.overruns);
}

static void test_what_a_path_loss_or_a_window_update_looks_like_is_no_overrun(void)
{
	struct hs_rwnd_grant g = granted_sack(8000);

	ack_of(&g, 5000, 600, 0);
	ack_of(&g, 5000, 600, 1);
	ack_of(&g, 5000, 600, 1);
	CHECK(g.overruns == 0 && g.field == 8000, "dupACKs with SACK blocks: a hole in the path, not the receiver");
	ack_of(&g, 5000, 900, 0);
	CHECK(g.overruns == 0, "the same ACK with a larger window: a window update");
	ack_of(&g, 4000, 100, 0);
	ack_of(&g, 5000, 900, 0);
	CHECK(g.overruns == 1, "an older ACK is skipped, and does not hide the next duplicate");

	struct hs_ack_seen data = { .ack = 7000, .win = 900, .bare = 0, .sack = 0 };
	g = granted_sack(8000);
	ack_of(&g, 7000, 900, 0);
	hs_rwnd_grant_watch(&g, &data);
	CHECK(g.overruns == 0, "a segment with payload (or SYN/FIN/RST) and the same ACK is not a dupACK");

	g = granted(8000);  /* no SACK negotiated */
	ack_of(&g, 7000, 900, 0);
	ack_of(&g, 7000, 900, 0);
	CHECK(g.overruns == 0 && g.field == 8000, "without SACK every dupACK lacks a block: nothing told apart");

	g = granted_sack(8000);
	ack_of(&g, 0xfffffff0u, 900, 0);
	ack_of(&g, 0x10, 900, 0);
	ack_of(&g, 0x10, 900, 0);
	CHECK(g.overruns == 1, "sequence numbers wrap: 0x10 is after 0xfffffff0");
}

static void test_the_overrun_backoff(void)
{
	CHECK(!hs_overrun_holds(0, 0, 5), "no overrun: never");
	CHECK(hs_overrun_holds(1, 100, 109) && !hs_overrun_holds(1, 100, 110), "one: 10 s");
	CHECK(hs_overrun_holds(2, 100, 119) && !hs_overrun_holds(2, 100, 120), "two: 20 s");
	CHECK(hs_overrun_backoff_s(9) == 2560 && hs_overrun_backoff_s(100) == 2560 && hs_overrun_backoff_s(0xffffffffu) == 2560,
	      "doubling stops at 2^8 x 10 s");
}

static void test_the_sack_option_is_found_kind_by_kind(void)
{
	/* NOP NOP TS(10): an ACK with timestamps only; a TS value holding 5s. */
	__u8 ts[64] = { 1, 1, 8, 10, 5, 5, 5, 5, 5, 5, 5, 5 };
	/* NOP NOP TS(10) NOP NOP SACK(10): a dupACK with one block. */
	__u8 sack[64] = { 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2, 1, 1, 5, 10, 0, 0, 0, 9, 0, 0, 0, 19 };
	__u8 bad[64] = { 8, 0, 5, 10 };
	__u8 eol[64] = { 0, 5, 10 };

	CHECK(!hs_options_have_sack(ts, 12), "timestamps only: no SACK, though their bytes hold 5s");
	CHECK(hs_options_have_sack(sack, 24), "timestamps, then a SACK block");
	CHECK(!hs_options_have_sack(sack, 12), "the SACK past the options' length is not read");
	CHECK(!hs_options_have_sack(bad, 4), "a zero length stops the walk (no endless loop)");
	CHECK(!hs_options_have_sack(eol, 3), "nothing after the end-of-options");
	CHECK(!hs_options_have_sack(sack, 0) && !hs_options_have_sack(sack, 1), "no room for an option");
}

/* Issue 45 item 13: a forged zero-window ACK with the flow's 4-tuple but a number
 * it could only guess does not end the grant; one at the real number would, as the
 * receiver's own would. */
static void test_a_forged_zero_window_ack_is_not_believed(void)
{
	struct hs_rwnd_grant g = granted(8000);
	struct hs_ack_seen real = { .ack = 1000000, .win = 512, .bare = 1 };

	CHECK(hs_rwnd_ack_plausible(&g, 12345), "before any ACK: any number");
	hs_rwnd_grant_watch(&g, &real);
	CHECK(hs_rwnd_grant_apply(&g, 512) == 8000, "raised");
	CHECK(!hs_rwnd_ack_plausible(&g, 1000000 + 0x80000000U), "half the sequence space away: not this flow's");
	CHECK(!hs_rwnd_ack_plausible(&g, 999999), "older than the last: not believed");
	CHECK(hs_rwnd_ack_plausible(&g, 1000000) && hs_rwnd_ack_plausible(&g, 1000000 + 2000000), "the last, and 2 MB on");
	CHECK(g.field == 8000, "the grant stands");
}

int main(void)
{
	test_a_forged_zero_window_ack_is_not_believed();
	test_the_sack_option_is_found_kind_by_kind();
	test_a_dupack_without_sack_is_the_receivers_overrun();
	test_what_a_path_loss_or_a_window_update_looks_like_is_no_overrun();
	test_the_overrun_backoff();
	test_a_receiver_that_keeps_up_gets_the_grant();
	test_a_shrinking_window_ends_the_grant_for_good();
	test_a_zero_window_ends_the_grant();
	test_edges();
	return check_report();
}
