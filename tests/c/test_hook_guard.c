/* Host tests of the missed-hook guard (bpf/lib/hook_guard.h): the call sequences the
 * kernel makes on its congestion-state changes, with and without the skip measured on
 * this kernel (Recovery entered, ssthresh holding a stale stack word, neither program
 * run). The two traces below are the ones recorded in the lab (BENCHMARKS.md at 3c45a21). */
#include "../../bpf/lib/hook_guard.h"
#include "check.h"

/* tcp_enter_recovery / tcp_enter_cwr as the kernel runs them when nothing is skipped:
 * high_seq = snd_nxt, ssthresh asked, then set_state. */
static void reduction(struct hs_hook_guard *g, __u32 *high_seq, __u32 snd_nxt, __u8 state)
{
	*high_seq = snd_nxt;
	hs_guard_ssthresh(g, *high_seq);
	hs_guard_told(g, state);
}

static void test_kernel_sequences_are_not_misses(void)
{
	struct hs_hook_guard g;
	__u32 high_seq = 0;

	hs_guard_init(&g, HS_CA_OPEN, high_seq);
	CHECK(!hs_guard_missed(&g, HS_CA_OPEN, high_seq), "a new flow");
	hs_guard_told(&g, HS_CA_DISORDER);
	CHECK(!hs_guard_missed(&g, HS_CA_DISORDER, high_seq), "Disorder is no congestion state");
	reduction(&g, &high_seq, 14480, HS_CA_RECOVERY);
	CHECK(!hs_guard_missed(&g, HS_CA_RECOVERY, high_seq), "Recovery entered with both hooks");
	hs_guard_told(&g, HS_CA_OPEN);
	CHECK(!hs_guard_missed(&g, HS_CA_OPEN, high_seq), "Recovery over");

	/* ECN: CWR with its own ssthresh, then a loss in it: Recovery without a new
	 * ssthresh (the reduction goes on), high_seq unchanged. */
	reduction(&g, &high_seq, 28960, HS_CA_CWR);
	CHECK(!hs_guard_missed(&g, HS_CA_CWR, high_seq), "CWR entered with both hooks");
	hs_guard_told(&g, HS_CA_RECOVERY);
	CHECK(!hs_guard_missed(&g, HS_CA_RECOVERY, high_seq), "CWR became Recovery: same reduction");

	/* RTO: tcp_enter_loss asks ssthresh before it moves high_seq, then set_state. */
	hs_guard_ssthresh(&g, high_seq);
	high_seq = 43440;
	hs_guard_told(&g, HS_CA_LOSS);
	CHECK(!hs_guard_missed(&g, HS_CA_LOSS, high_seq), "Loss: high_seq moves after ssthresh, not a miss");
	/* ... and an RTO in Recovery, where the kernel asks no new ssthresh. */
	hs_guard_told(&g, HS_CA_OPEN);
	reduction(&g, &high_seq, 57920, HS_CA_RECOVERY);
	high_seq = 60000;
	hs_guard_told(&g, HS_CA_LOSS);
	CHECK(!hs_guard_missed(&g, HS_CA_LOSS, high_seq), "Loss from Recovery without ssthresh");

	/* A controller set on a running connection starts from its state. */
	hs_guard_init(&g, HS_CA_RECOVERY, 777);
	CHECK(!hs_guard_missed(&g, HS_CA_RECOVERY, 777), "set in Recovery");
}

static void test_the_recorded_skips(void)
{
	struct hs_hook_guard g;
	__u32 high_seq = 0;

	/* Lab trace 1: ssthresh 49 and set_state(Recovery), Open, Disorder; then the next
	 * ACK found Recovery with ssthresh 0x81104110 and no hook run in between. */
	hs_guard_init(&g, HS_CA_OPEN, high_seq);
	hs_guard_told(&g, HS_CA_DISORDER);
	reduction(&g, &high_seq, 100000, HS_CA_RECOVERY);
	hs_guard_told(&g, HS_CA_OPEN);
	hs_guard_told(&g, HS_CA_DISORDER);
	high_seq = 150000;  /* the kernel's tcp_init_cwnd_reduction, ssthresh skipped */
	CHECK(hs_guard_missed(&g, HS_CA_RECOVERY, high_seq), "Recovery that set_state never reported");
	/* The replay reports it: nothing more is missed. */
	hs_guard_ssthresh(&g, high_seq);
	hs_guard_told(&g, HS_CA_RECOVERY);
	CHECK(!hs_guard_missed(&g, HS_CA_RECOVERY, high_seq), "replayed once, not twice");

	/* Only ssthresh skipped: the state was reported, the reduction was not. */
	hs_guard_told(&g, HS_CA_OPEN);
	high_seq = 200000;
	hs_guard_told(&g, HS_CA_RECOVERY);
	CHECK(hs_guard_missed(&g, HS_CA_RECOVERY, high_seq), "a Recovery whose ssthresh never ran");
	/* Loss that set_state never reported. */
	hs_guard_ssthresh(&g, high_seq);
	hs_guard_told(&g, HS_CA_OPEN);
	CHECK(hs_guard_missed(&g, HS_CA_LOSS, high_seq), "an unreported Loss");
	CHECK(hs_guard_missed(&g, HS_CA_CWR, high_seq), "an unreported CWR");
	CHECK(!hs_guard_missed(&g, HS_CA_DISORDER, high_seq + 1), "Disorder is never a miss");
}

int main(void)
{
	test_kernel_sequences_are_not_misses();
	test_the_recorded_skips();
	return check_report();
}
