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

int main(void)
{
	test_a_receiver_that_keeps_up_gets_the_grant();
	test_a_shrinking_window_ends_the_grant_for_good();
	test_a_zero_window_ends_the_grant();
	test_edges();
	return check_report();
}
