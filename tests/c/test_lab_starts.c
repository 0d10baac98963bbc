/* The papers' comparison starts (lab/bpf/lab_starts.bpf.c, lab only) on the host harness:
 * what each does at a connection's start and end. The reproductions that use them
 * (s-cubic-fig3, fig4; the HyStart IDs) measure the rest on the lab's real flows. */
#include "../../lab/bpf/lab_starts.bpf.c"  /* its headers: -I bpf/ (tests/bpf_algorithms.rs) */
/* What the harness's ACK path calls that these controllers do not include. */
#include "../../bpf/lib/rwnd_grant.h"
#include "../../bpf/lib/resume.h"
#include "host/host_kernel.h"
#include "check.h"

#define PEER 0x0a000002U
#define OTHER_PEER 0x0a000003U
#define RTT_US 100000U

static struct lab_start *start_of(struct host_conn *c)
{
	return bpf_sk_storage_get(&lab_starts, host_sk(c), 0, 0);
}

static struct hs_rwnd_grant *grant_of(struct host_conn *c)
{
	struct hs_flow_key key;

	hs_flow_key_of(host_sk(c), &key);
	return bpf_map_lookup_elem(&hs_rwnd, &key);
}

/* A connection that sends `packets` and has them all acknowledged. */
static void grow(struct host_conn *c, __u32 packets)
{
	host_write(c, packets * HOST_MSS);
	while (c->count)
		host_ack(c, c->count);
}

static void test_cubic_ss_turns_hystart_off_for_its_flow(void)
{
	static struct host_conn c;

	host_maps_reset();
	host_open(&c, &cubic_ss, PEER, 5000, RTT_US);
	CHECK(host_cubic(host_sk(&c))->found == 0, "HyStart still armed before the first ACK");
	grow(&c, 10);
	CHECK(host_cubic(host_sk(&c))->found == 1, "found %u: HyStart would still end slow start", host_cubic(host_sk(&c))->found);
	CHECK(c.tp.snd_cwnd == 20, "cwnd %u: standard slow start doubles", c.tp.snd_cwnd);
}

static void test_jump_start_opens_at_the_advertised_window_paced_for_one_rtt(void)
{
	static struct host_conn c;
	__u32 awnd = 65535 >> 7 << 7;  /* the window host_open's receiver advertises */

	host_maps_reset();
	host_open(&c, &jump_start, PEER, 5000, RTT_US);
	CHECK(c.tp.snd_cwnd == awnd / HOST_MSS, "cwnd %u, the window is %u packets", c.tp.snd_cwnd, awnd / HOST_MSS);
	CHECK(host_sk(&c)->sk_pacing_status == SK_PACING_NEEDED, "not paced");
	CHECK(host_sk(&c)->sk_max_pacing_rate == (__u64)awnd * 1000000 / RTT_US, "rate %lu B/s: the window over the handshake's RTT",
	      host_sk(&c)->sk_max_pacing_rate);
	host_write(&c, 100 * HOST_MSS);
	host_ack(&c, 1);
	CHECK(start_of(&c) && start_of(&c)->pacing == 0, "pacing still on after the first ACK");
	CHECK(host_sk(&c)->sk_pacing_status == SK_PACING_NONE, "pacing status kept");
	CHECK(host_sk(&c)->sk_max_pacing_rate == ~0UL, "rate cap %lu kept", host_sk(&c)->sk_max_pacing_rate);
}

static void test_jump_start_keeps_the_initial_window_when_the_receiver_offers_less(void)
{
	static struct host_conn c;

	host_maps_reset();
	host_open(&c, &jump_start, PEER, 5000, RTT_US);
	/* host_open's receiver offers 45 packets; a clamp of 8 keeps the jump below it. */
	c.tp.snd_cwnd_clamp = 8;
	c.tp.snd_cwnd = HOST_IW;
	host_maps_reset();
	js_init(host_sk(&c));
	CHECK(c.tp.snd_cwnd == 8, "cwnd %u: the clamp holds the jump", c.tp.snd_cwnd);

	c.tp.snd_cwnd_clamp = ~0U;
	c.tp.snd_cwnd = HOST_IW;
	c.tp.snd_wnd = 5 * HOST_MSS;
	host_maps_reset();
	js_init(host_sk(&c));
	CHECK(c.tp.snd_cwnd == HOST_IW, "cwnd %u: a window under IW is no jump", c.tp.snd_cwnd);
	CHECK(!start_of(&c), "a flow without a jump keeps no state");
}

static void test_cache_starts_the_next_connection_at_the_last_cwnd(void)
{
	static struct host_conn a, b, other;
	__u32 last;

	host_maps_reset();
	host_open(&a, &cache, PEER, 5000, RTT_US);
	CHECK(a.tp.snd_cwnd == HOST_IW, "cwnd %u: nothing cached yet", a.tp.snd_cwnd);
	grow(&a, 70);
	last = a.tp.snd_cwnd;
	CHECK(last > 4 * HOST_IW, "cwnd %u after 70 packets", last);
	host_close(&a);

	host_open(&b, &cache, PEER, 5001, RTT_US);
	CHECK(b.tp.snd_cwnd == last, "cwnd %u, the last connection ended at %u", b.tp.snd_cwnd, last);
	CHECK(!grant_of(&b), "cache leaves the receiver's window alone");
	CHECK(host_sk(&b)->sk_pacing_status == SK_PACING_NONE, "cache sends its window at once");

	host_open(&other, &cache, OTHER_PEER, 5002, RTT_US);
	CHECK(other.tp.snd_cwnd == HOST_IW, "cwnd %u: another peer has nothing cached", other.tp.snd_cwnd);
}

static void test_cache_plus_suppresses_the_receivers_window_until_release(void)
{
	static struct host_conn a, b;
	struct hs_rwnd_grant *g;

	host_maps_reset();
	host_open(&a, &cache_plus, PEER, 5000, RTT_US);
	CHECK(!grant_of(&a), "no cached window, no grant");
	grow(&a, 70);
	host_close(&a);

	host_open(&b, &cache_plus, PEER, 5001, RTT_US);
	g = grant_of(&b);
	CHECK(g && g->field == 0xffff, "the largest window field granted");
	CHECK(g && (g->flags & HS_GRANT_SACK), "SACK recorded for the grant");
	host_close(&b);
	CHECK(!grant_of(&b), "the grant outlives the connection");
}

int main(void)
{
	test_cubic_ss_turns_hystart_off_for_its_flow();
	test_jump_start_opens_at_the_advertised_window_paced_for_one_rtt();
	test_jump_start_keeps_the_initial_window_when_the_receiver_offers_less();
	test_cache_starts_the_next_connection_at_the_last_cwnd();
	test_cache_plus_suppresses_the_receivers_window_until_release();
	return check_report();
}
