/* The composed start on the host: s_cubic.bpf.c itself (stateful.h, the estimator,
 * the hook bodies) compiled against the harness in host/ and driven on a virtual
 * clock (host/host_kernel.h). What needs the kernel (the verifier, registration, a
 * real flow's counters) stays in tests/bpf_e2e.rs. */
#include "../../bpf/s_cubic.bpf.c"
#include "host/host_kernel.h"
#include "check.h"

#define PEER 0x0a000002U
#define RTT_US 50000U
#define BW_100M 12500000ULL  /* 100 Mbit/s in bytes per second */
#define BDP_100M_50MS 431U   /* its BDP in 1448-byte packets */

static const struct tcp_congestion_ops *ops = &s_cubic;

static struct hs_config knobs(void)
{
	struct hs_config c = { .version = HS_CONFIG_VERSION, .mode = HS_MODE_ON, .rwnd_override = 1, .max_age_s = 3600,
			       .max_start_cwnd = 1000, .max_start_rate_mbps = 1000, .store_cap_mbps = 10000,
			       .trusted_uid_max = 999, .ipv6_prefix_len = 64 };
	return c;
}

static void set_knobs(struct hs_config c)
{
	__u32 zero = 0;

	bpf_map_update_elem(&hs_config, &zero, &c, BPF_ANY);
}

/* A fresh machine with the shipped knobs, at 1000 s of uptime. */
static void fresh(void)
{
	host_maps_reset();
	host_now_ns = 1000ULL * 1000000000ULL;
	set_knobs(knobs());
}

static __u64 counter(__u32 what)
{
	__u32 idx = HS_CC_S_CUBIC * HS_COUNTERS_PER_CC + what;
	__u64 *v = bpf_map_lookup_elem(&hs_counters, &idx);

	return v ? *v : 0;
}

static struct hs_peer peer_key(__u32 ip)
{
	struct hs_peer a = {};
	__u32 be = htonl(ip);

	a.bytes[10] = a.bytes[11] = 0xff;
	memcpy(&a.bytes[12], &be, 4);
	return a;
}

static struct hs_path *entry_in(__u32 ip, __u64 netns)
{
	struct hs_peer a = peer_key(ip);

	a.netns = netns;
	return bpf_map_lookup_elem(&hs_paths, &a);
}

static struct hs_path *entry(__u32 ip)
{
	struct hs_peer a = peer_key(ip);

	return bpf_map_lookup_elem(&hs_paths, &a);
}

/* An entry as a previous flow would have left it, stored `age_s` ago. */
static void seed(__u32 ip, __u64 bw_Bps, __u32 min_rtt_us, __u64 age_s)
{
	struct hs_peer a = peer_key(ip);
	struct hs_path p = { .bw_bytes_per_s = bw_Bps, .min_rtt_us = min_rtt_us, .flows = 1,
			     .stored_ns = host_now_ns - age_s * 1000000000ULL };

	bpf_map_update_elem(&hs_paths, &a, &p, BPF_ANY);
}

static struct s_cubic_flow *flow_of(struct host_conn *c)
{
	return bpf_sk_storage_get(&s_cubic_flows, host_sk(c), 0, 0);
}

static struct hs_rwnd_grant *grant_of(struct host_conn *c)
{
	return bpf_map_lookup_elem(&hs_rwnd, &flow_of(c)->start.key);
}

static struct host_conn a, b;

static __u64 suss_counter(__u32 what)
{
	__u32 idx = HS_CC_SUSS * HS_COUNTERS_PER_CC + what;
	__u64 *v = bpf_map_lookup_elem(&hs_counters, &idx);

	return v ? *v : 0;
}

static void set_lab(struct hs_lab_config l)
{
	__u32 zero = 0;

	bpf_map_update_elem(&hs_lab_config, &zero, &l, BPF_ANY);
}

/* Acknowledges everything, two packets an ACK; *max_field gets the largest grant field
 * seen on the way, *max_growth_pct the most cwnd grew from one round trip to the next,
 * in percent. */
static void ack_all_watching(struct host_conn *c, __u32 *max_field, __u32 *max_growth_pct)
{
	__u32 round_end = c->tp.snd_nxt, round_cwnd = c->tp.snd_cwnd;

	*max_field = *max_growth_pct = 0;
	for (int guard = 0; c->count && guard < 1000000; guard++) {
		struct hs_rwnd_grant *g;

		host_ack(c, 2);
		g = grant_of(c);
		if (g && g->field > *max_field)
			*max_field = g->field;
		if (!hs_seq_before(c->tp.snd_una, round_end) && c->tp.snd_ssthresh == HOST_INFINITE_SSTHRESH) {
			if (c->tp.snd_cwnd * 100 / round_cwnd > *max_growth_pct)
				*max_growth_pct = c->tp.snd_cwnd * 100 / round_cwnd;
			round_end = c->tp.snd_nxt;
			round_cwnd = c->tp.snd_cwnd;
		}
	}
}

/* A first contact (no entry, no prefix): SUSS's slow start from IW, rounds above 2x,
 * paced, with the receiver's window opened for them (a Linux receiver's own grows ~2x
 * per round trip), never past HS_SUSS_RWND_LEAD times the receiver's own. */
static void test_cold_flow_grows_as_suss_with_the_window_open(void)
{
	__u32 max_field, growth;

	fresh();
	host_open(&a, ops, PEER, 50001, RTT_US);
	CHECK(a.tp.snd_cwnd == HOST_IW, "cwnd %u", a.tp.snd_cwnd);
	host_write(&a, 4000000);
	CHECK(a.tp.packets_out == HOST_IW, "IW in the first round: sent %u", a.tp.packets_out);
	CHECK(counter(HS_MISSES) == 1 && counter(HS_JUMPS) == 0, "misses %llu", (unsigned long long)counter(HS_MISSES));
	CHECK(counter(HS_SUSS_STARTS) == 1 && !grant_of(&a), "SUSS started, no window opened before a round above 2x");
	ack_all_watching(&a, &max_field, &growth);
	CHECK(suss_counter(HS_SUSS_ACCELERATED_ROUNDS) >= 2 && suss_counter(HS_SUSS_RWND_STOPS) == 0,
	      "accelerated rounds %llu past the receiver's 64 KB, receiver stops %llu",
	      (unsigned long long)suss_counter(HS_SUSS_ACCELERATED_ROUNDS), (unsigned long long)suss_counter(HS_SUSS_RWND_STOPS));
	CHECK(growth >= 300, "a round grew %u %%", growth);
	CHECK(max_field >= hs_grant_field(&a.tp, 4 * HOST_IW), "the window opened for a 4x round: field %u", max_field);
	CHECK(grant_of(&a) && max_field <= HS_SUSS_RWND_LEAD * grant_of(&a)->peak, "the grant %u within %u x the receiver's own %u",
	      max_field, HS_SUSS_RWND_LEAD, grant_of(&a) ? grant_of(&a)->peak : 0);
	CHECK(host_sk(&a)->sk_pacing_status == SK_PACING_NONE, "pacing off after SUSS");
	host_close(&a);
	CHECK(!grant_of(&a), "the grant goes at release");
	CHECK(counter(HS_STORES) == 1, "stores %llu", (unsigned long long)counter(HS_STORES));
	CHECK(entry(PEER) && entry(PEER)->min_rtt_us >= RTT_US, "an entry with the path's RTT");
	CHECK(entry(PEER) && entry(PEER)->bw_bytes_per_s >= BW_100M * 80 / 100 && entry(PEER)->bw_bytes_per_s <= BW_100M * 105 / 100,
	      "the bottleneck's rate stored: %llu", entry(PEER) ? (unsigned long long)entry(PEER)->bw_bytes_per_s : 0ULL);
}

/* A first contact over TLS: the handshake flight and the wait for the request are
 * app-limited rounds; SUSS's rounds start with the response, its first burst round 1,
 * and accelerate as they do for a sender that writes at once. The packets the session
 * ticket's ACK releases a round trip after that burst are no part of its train, nor is
 * the delayed ACK of its odd last segment. */
static void test_cold_tls_exchange_starts_suss_with_the_response(void)
{
	__u32 max_field, growth, first_seq;

	fresh();
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 4000);
	host_ack_all(&a);
	host_idle(RTT_US);
	host_write(&a, 600);  /* the session ticket, in flight when the response is written */
	host_idle(RTT_US / 10);
	CHECK(counter(HS_SUSS_STARTS) == 0, "no SUSS start for the handshake flight and the ticket");
	first_seq = a.tp.snd_nxt;
	host_write(&a, 2000000);
	CHECK(counter(HS_SUSS_STARTS) == 1 && flow_of(&a)->suss.round.round_first_seq == first_seq,
	      "SUSS starts at the response: round 1 from %u (the response's first byte %u)",
	      flow_of(&a)->suss.round.round_first_seq, first_seq);
	host_ack(&a, 1);  /* the ticket's ACK frees room a round trip after the response's burst */
	for (int i = 0; i < 4; i++)
		host_ack(&a, 2);
	host_idle(41000);
	host_ack(&a, 1);  /* the burst's ninth, alone, at the receiver's delayed-ACK timer */
	ack_all_watching(&a, &max_field, &growth);
	CHECK(suss_counter(HS_SUSS_ACCELERATED_ROUNDS) >= 2, "accelerated rounds %llu",
	      (unsigned long long)suss_counter(HS_SUSS_ACCELERATED_ROUNDS));
	CHECK(growth >= 300, "a round grew %u %%", growth);
	host_close(&a);
}

/* With the `suss` knob off, or the override off, the miss is the kernel's slow start
 * (2x per round), or SUSS without the window opened, until the receiver's 64 KB. */
static void test_cold_flow_without_suss_or_the_override(void)
{
	struct hs_lab_config lab = HS_LAB_DEFAULTS;
	struct hs_config c = knobs();
	__u32 max_field, growth;

	fresh();
	lab.suss = 0;
	set_lab(lab);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 4000000);
	ack_all_watching(&a, &max_field, &growth);
	CHECK(counter(HS_SUSS_STARTS) == 0 && suss_counter(HS_SUSS_ACCELERATED_ROUNDS) == 0 && !max_field, "no SUSS, no window opened");
	CHECK(growth <= 200, "the kernel's slow start: %u %%", growth);
	host_close(&a);

	fresh();
	c.rwnd_override = 0;
	set_knobs(c);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 4000000);
	ack_all_watching(&a, &max_field, &growth);
	CHECK(suss_counter(HS_SUSS_ACCELERATED_ROUNDS) >= 1 && !max_field && !grant_of(&a), "SUSS without the override: %llu",
	      (unsigned long long)suss_counter(HS_SUSS_ACCELERATED_ROUNDS));
	CHECK(suss_counter(HS_SUSS_RWND_STOPS) == 1, "stopped by the receiver's 64 KB: %llu",
	      (unsigned long long)suss_counter(HS_SUSS_RWND_STOPS));
	host_close(&a);
}

/* The override for SUSS ends at the first sign of loss, and when the receiver falls
 * behind (the tc program), which also stops SUSS; an ended grant is not opened again. */
static void test_suss_window_ends_as_a_jumps_does(void)
{
	struct s_cubic_flow *f;

	fresh();
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 4000000);
	for (int i = 0; i < 200 && !(grant_of(&a) && grant_of(&a)->field); i++)
		host_ack(&a, 2);
	CHECK(grant_of(&a) && grant_of(&a)->field, "opened by a round above 2x");
	host_lose(&a);
	CHECK(grant_of(&a) && !grant_of(&a)->field, "a loss ends it");
	f = flow_of(&a);
	a.tp.snd_cwnd = 1000;
	hs_suss_window(host_sk(&a), &f->start);
	CHECK(!grant_of(&a)->field, "and it stays ended");
	host_close(&a);

	fresh();
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 4000000);
	for (int i = 0; i < 200 && !(grant_of(&a) && grant_of(&a)->field); i++)
		host_ack(&a, 2);
	host_ack(&a, 2);    /* the tc program sees the receiver's window under the grant */
	a.rcv_stalled = 1;
	a.rcv_field = 100;  /* the reader falls behind: its window shrinks, the tc program ends the grant */
	host_ack(&a, 2);
	CHECK(grant_of(&a) && !grant_of(&a)->field, "ended by the shrinking window");
	CHECK(suss_counter(HS_SUSS_RWND_STOPS) == 1 && !flow_of(&a)->suss.round.active, "and SUSS stopped: %llu",
	      (unsigned long long)suss_counter(HS_SUSS_RWND_STOPS));
	f = flow_of(&a);
	hs_suss_window(host_sk(&a), &f->start);
	CHECK(!grant_of(&a)->field, "an ended grant is not reopened");
	host_ack_all(&a);
	host_close(&a);
	CHECK(counter(HS_RWND_RECEIVER_BEHIND) == 1, "counted: %llu", (unsigned long long)counter(HS_RWND_RECEIVER_BEHIND));

	/* A reader already behind in the first round (its window below its largest): no
	 * window opened; SUSS stops when cwnd passes the receiver's window. */
	fresh();
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 4000000);
	a.rcv_stalled = 1;
	a.rcv_field = 450;
	for (int i = 0; i < 200; i++)
		host_ack(&a, 2);
	CHECK(!grant_of(&a), "no window opened for a receiver behind");
	CHECK(suss_counter(HS_SUSS_RWND_STOPS) == 1, "SUSS stopped at its window: %llu",
	      (unsigned long long)suss_counter(HS_SUSS_RWND_STOPS));
	host_ack_all(&a);
	host_close(&a);
}

static void test_warm_flow_jumps_to_the_saved_bdp(void)
{
	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 2000000);
	CHECK(counter(HS_JUMPS) == 1, "jumps %llu", (unsigned long long)counter(HS_JUMPS));
	CHECK(a.tp.packets_out >= BDP_100M_50MS - 1 && a.tp.packets_out <= BDP_100M_50MS + 1, "sent %u in the first RTT",
	      a.tp.packets_out);
	CHECK(host_sk(&a)->sk_pacing_rate >= BW_100M * 98 / 100 && host_sk(&a)->sk_pacing_rate <= BW_100M * 102 / 100,
	      "paced at the entry's rate: %lu", host_sk(&a)->sk_pacing_rate);
	CHECK(grant_of(&a) && grant_of(&a)->field, "the receiver's window opened");
	host_ack_all(&a);
	CHECK(counter(HS_VALIDATED) == 1, "validated %llu", (unsigned long long)counter(HS_VALIDATED));
	CHECK(!grant_of(&a) || !grant_of(&a)->field, "the override ends with validation");
	host_close(&a);
	CHECK(!grant_of(&a), "the grant goes at release");
}

static void test_loss_in_unvalidated_retreats_and_deletes_the_entry(void)
{
	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 2000000);
	host_lose(&a);
	CHECK(counter(HS_RETREAT_LOSS) == 1, "retreats on loss %llu", (unsigned long long)counter(HS_RETREAT_LOSS));
	CHECK(a.tp.snd_ssthresh >= HOST_IW * HS_RETREAT_BETA_PCT / 100 && a.tp.snd_ssthresh < BDP_100M_50MS,
	      "ssthresh %u: PipeSize x beta, not below the kernel's floor", a.tp.snd_ssthresh);
	CHECK(!entry(PEER), "the entry that led here is deleted");
	CHECK(!grant_of(&a) || !grant_of(&a)->field, "no window override after a loss");
	host_ack_all(&a);
	host_close(&a);
	CHECK(entry(PEER) && entry(PEER)->overshoots == 0, "a loss may be random: no overshoot counted (%u)",
	      entry(PEER) ? entry(PEER)->overshoots : 0);
}

/* Every estimate twice the path's rate (the lab's bw_scale_pct 200, S-Cubic Fig. 17's
 * +100 %): each jump overshoots and the rate test retreats; the entry goes, and the
 * flow stores a fresh one with the count of overshoots in a row. The second leaves the
 * peer's next jump at about half its BDP (a busy share of 1/2, 7/16 after one clean
 * handshake: 56 %); the jump that then validates clears the count. */
static void test_overshoots_in_a_row_halve_the_peers_next_jump(void)
{
	struct hs_lab_config lab = HS_LAB_DEFAULTS;
	struct host_conn *flows[2] = { &a, &b };
	__u32 bdp, jump;

	fresh();
	lab.bw_scale_pct = 200;
	set_lab(lab);
	seed(PEER, BW_100M, RTT_US, 10);
	for (int i = 0; i < 2; i++) {
		host_open(flows[i], ops, PEER, 50001 + i, RTT_US);
		host_write(flows[i], 4000000);
		CHECK(flow_of(flows[i])->start.start_cwnd >= 2 * BDP_100M_50MS - 2, "jump %d whole: %u", i,
		      flow_of(flows[i])->start.start_cwnd);
		host_ack_all(flows[i]);
		CHECK(counter(HS_RETREAT_RATE) == (__u64)i + 1, "the rate test retreats: %llu",
		      (unsigned long long)counter(HS_RETREAT_RATE));
		host_close(flows[i]);
		CHECK(entry(PEER) && entry(PEER)->overshoots == (__u32)i + 1, "overshoots in a row: %u",
		      entry(PEER) ? entry(PEER)->overshoots : 0);
		CHECK(entry(PEER)->busy_share == (i ? HS_BUSY_SHARE_ONE / 2 : 0), "busy share %u after %d", entry(PEER)->busy_share,
		      i + 1);
	}
	bdp = (__u32)hs_bdp_packets(entry(PEER)->bw_bytes_per_s * 2, entry(PEER)->min_rtt_us, HOST_MSS);
	host_open(&a, ops, PEER, 50003, RTT_US);
	host_write(&a, 4000000);
	jump = flow_of(&a)->start.start_cwnd;
	CHECK(counter(HS_JUMPS) == 3 && jump * 100 >= bdp * 50 && jump * 100 <= bdp * 60, "the next jump %u of a %u BDP", jump,
	      bdp);
	host_ack_all(&a);
	CHECK(counter(HS_VALIDATED) == 1, "it validates: %llu", (unsigned long long)counter(HS_VALIDATED));
	host_close(&a);
	CHECK(entry(PEER) && entry(PEER)->overshoots == 0 && entry(PEER)->busy_share == HS_BUSY_SHARE_ONE * 7 / 16,
	      "a validated jump clears the count (%u) and adds nothing to the share (%u)", entry(PEER) ? entry(PEER)->overshoots : 0,
	      entry(PEER) ? entry(PEER)->busy_share : 0);
}

static void test_rto_in_the_first_rtt_retreats(void)
{
	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 2000000);
	host_rto(&a);
	CHECK(counter(HS_RETREAT_RTO) == 1, "retreats on RTO %llu", (unsigned long long)counter(HS_RETREAT_RTO));
	CHECK(host_sk(&a)->sk_pacing_status == SK_PACING_NONE, "pacing off");
	CHECK(host_sk(&a)->sk_max_pacing_rate == ~0UL, "the pacing cap given back");
	CHECK(a.tp.snd_cwnd <= 2, "cwnd %u: the kernel's RTO response", a.tp.snd_cwnd);
	CHECK(!entry(PEER), "entry deleted");
	host_ack_all(&a);
	host_close(&a);
}

static void test_rtt_mismatch_refuses_both_ways(void)
{
	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US * 2 + 1000);
	host_write(&a, 1000000);
	CHECK(counter(HS_REJECT_RTT_LONGER) == 1 && a.tp.packets_out == HOST_IW, "longer: refused, IW");
	host_close(&a);
	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US / 2 - 1000);
	host_write(&a, 1000000);
	CHECK(counter(HS_REJECT_RTT_SHORTER) == 1 && a.tp.packets_out == HOST_IW, "shorter: refused, IW");
	host_close(&a);
}

static void test_expired_entry_is_deleted_not_used(void)
{
	fresh();
	seed(PEER, BW_100M, RTT_US, 3601);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 1000000);
	CHECK(counter(HS_EXPIRED) == 1 && a.tp.packets_out == HOST_IW, "expired: IW");
	CHECK(!entry(PEER), "deleted");
	host_close(&a);
}

static void test_mode_off_and_untrusted_are_the_kernels(void)
{
	struct hs_config off = knobs();

	fresh();
	off.mode = HS_MODE_OFF;
	set_knobs(off);
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 1000000);
	CHECK(counter(HS_OFF) == 1 && a.tp.packets_out == HOST_IW, "off: IW");
	CHECK(!grant_of(&a), "off: no override");
	host_close(&a);
	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open_with_uid(&a, ops, PEER, 50001, RTT_US, 1000);
	host_write(&a, 1000000);
	CHECK(counter(HS_UNTRUSTED) == 1 && a.tp.packets_out == HOST_IW, "untrusted: IW");
	host_ack_all(&a);
	host_close(&a);
	CHECK(entry(PEER)->flows == 1, "untrusted: the entry untouched");
}

/* A knob record the tool is writing (seq odd: path_table.h, HS_COPY_WHOLE) is not
 * taken: the flow is the kernel's, as with mode off. A whole one (seq even again) is.
 * The torn copy itself needs a controller on one CPU copying while the tool's map
 * update runs on another; the test gives the reader the state such a copy sees. */
static void test_a_knob_record_being_written_is_not_taken(void)
{
	struct hs_config writing = knobs();

	fresh();
	writing.seq = 7;
	set_knobs(writing);
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 1000000);
	CHECK(counter(HS_OFF) == 1 && counter(HS_JUMPS) == 0 && a.tp.packets_out == HOST_IW, "a record in writing: the kernel's");
	host_ack_all(&a);
	host_close(&a);
	writing.seq = 8;
	set_knobs(writing);
	host_open(&b, ops, PEER, 50002, RTT_US);
	host_write(&b, 1000000);
	CHECK(counter(HS_JUMPS) == 1, "the record whole again: a jump");
	host_ack_all(&b);
	host_close(&b);
}

/* A response smaller than the saved BDP: the jump is what it has to send, and used. */
static void test_response_below_the_bdp_jumps_to_its_size(void)
{
	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 100000);   /* 70 packets, under a 431-packet BDP */
	CHECK(flow_of(&a)->start.start_cwnd == 70, "the jump is the response: %u", flow_of(&a)->start.start_cwnd);
	CHECK(host_sk(&a)->sk_pacing_rate >= BW_100M * 98 / 100 && host_sk(&a)->sk_pacing_rate <= BW_100M * 102 / 100,
	      "sent at the path's rate, not spread over the RTT: %lu", host_sk(&a)->sk_pacing_rate);
	host_ack_all(&a);
	CHECK(counter(HS_VALIDATED) == 1 && counter(HS_RATE_LIMITED) == 0, "validated");
	host_close(&a);
	CHECK(counter(HS_STORE_JUMP_ONLY) == 1, "a flow that sent no more than its jump leaves the entry");
}

/* A second connection while the first's jump holds the peer's whole budget: the
 * kernel's start, armed still; it jumps once the first has delivered. */
static void test_second_connection_waits_for_the_budget(void)
{
	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 2000000);
	host_open(&b, ops, PEER, 50002, RTT_US);
	host_write(&b, 2000000);
	CHECK(counter(HS_JUMPS) == 1 && counter(HS_REJECT_SIBLINGS) == 1, "one jump, one wait");
	CHECK(b.tp.packets_out == HOST_IW, "the second starts at IW: %u", b.tp.packets_out);
	host_ack_all(&a);
	host_close(&a);
	host_ack(&b, 2);
	CHECK(counter(HS_JUMPS) == 2 && flow_of(&b)->start.outcome == HS_JUMPS, "the second jumps when the budget is back");
	CHECK(b.tp.packets_out >= BDP_100M_50MS * 9 / 10, "into the whole of it: %u in flight", b.tp.packets_out);
	CHECK(counter(HS_REJECT_SIBLINGS) == 1, "its wait counted once");
	host_ack_all(&b);
	host_close(&b);
}

/* A flow right after another whose socket has not closed yet (all its data
 * delivered): that one is neither armed nor sending, and the new one jumps whole. */
static void test_an_idle_open_connection_takes_no_share(void)
{
	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 2000000);
	host_ack_all(&a);
	host_open(&b, ops, PEER, 50002, RTT_US);
	host_write(&b, 2000000);
	CHECK(b.tp.packets_out >= BDP_100M_50MS * 95 / 100, "the whole budget: %u", b.tp.packets_out);
	host_ack_all(&b);
	host_close(&b);
	host_close(&a);
}

/* A flow alone at its jump, then beside a sibling that came later (a page's first
 * connection, whose objects went beside five others): it measured a share, and may
 * raise its peer's entry, not lower it. */
static void test_a_flow_joined_later_measures_a_share(void)
{
	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 4000000);
	CHECK(flow_of(&a)->start.outcome == HS_JUMPS && !flow_of(&a)->start.shared, "alone at its jump");
	for (int i = 0; i < 2000 && !counter(HS_VALIDATED); i++)
		host_ack(&a, 2);
	CHECK(counter(HS_VALIDATED) == 1 && a.tp.write_seq - a.tp.snd_una > 2000000, "validated at the path's rate, half of it still to send");
	a.link_Bps = BW_100M / 4;  /* from here on it gets a quarter of the path */
	host_open(&b, ops, PEER, 50002, RTT_US);
	host_write(&b, 2000000);
	host_ack(&b, 2);
	host_ack_all(&a);
	CHECK(flow_of(&a)->start.shared, "a sibling's packets in flight beside its own: a share");
	host_close(&a);
	CHECK(entry(PEER) && entry(PEER)->bw_bytes_per_s == BW_100M, "the entry not lowered: %llu",
	      entry(PEER) ? (unsigned long long)entry(PEER)->bw_bytes_per_s : 0ULL);
	host_ack_all(&b);
	host_close(&b);
}

/* Acknowledges the connections' packets in the order the ACKs arrive, two a time,
 * until all are delivered. */
static void ack_all_in_time(struct host_conn *conns, int n)
{
	for (int guard = 0; guard < 10000000; guard++) {
		struct host_conn *next = 0;

		for (int i = 0; i < n; i++)
			if (conns[i].count && (!next || conns[i].out[conns[i].head].acked_us < next->out[next->head].acked_us))
				next = &conns[i];
		if (!next)
			return;
		host_ack(next, 2);
	}
}

/* A first contact's six connections, each given a sixth of the path: each measures
 * its share, and together they store what the path carried for the peer (RFC 9040's
 * ensemble), not a sixth of it (the code before stored 16.7 Mbit/s). Alone, a flow
 * stores its own reading. */
static void test_six_connections_store_what_they_carried_together(void)
{
	static struct host_conn conns[6];
	__u64 bw;

	fresh();
	for (int i = 0; i < 6; i++) {
		host_open(&conns[i], ops, PEER, 50001 + i, RTT_US);
		conns[i].link_Bps = BW_100M / 6;
		host_write(&conns[i], 3000000);
	}
	ack_all_in_time(conns, 6);
	for (int i = 0; i < 6; i++) {
		CHECK(flow_of(&conns[i])->start.shared, "connection %d measured a share", i);
		host_close(&conns[i]);
	}
	bw = entry(PEER) ? entry(PEER)->bw_bytes_per_s : 0;
	CHECK(bw >= BW_100M * 85 / 100 && bw <= BW_100M, "what the six carried together: %llu of %llu", (unsigned long long)bw,
	      (unsigned long long)BW_100M);

	fresh();
	host_open(&a, ops, PEER, 50001, RTT_US);
	a.link_Bps = BW_100M / 6;
	host_write(&a, 3000000);
	host_ack_all(&a);
	host_close(&a);
	bw = entry(PEER) ? entry(PEER)->bw_bytes_per_s : 0;
	CHECK(bw <= BW_100M / 6 * 102 / 100 && bw >= BW_100M / 6 * 85 / 100, "alone: its own reading, %llu", (unsigned long long)bw);
}

/* A browser's six connections, each fetching 70 packets at once: each jumps to what
 * it has to send, at most an even share of the budget among the peer's open
 * connections, all within it; a seventh finds too little left. A preconnect that
 * sends nothing holds none of it. */
static void test_six_connections_draw_on_one_budget(void)
{
	static struct host_conn conns[8];
	__u32 sum = 0;

	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&conns[7], ops, PEER, 50100, RTT_US);  /* the preconnect */
	for (int i = 0; i < 7; i++) {
		host_open(&conns[i], ops, PEER, 50001 + i, RTT_US);
		host_write(&conns[i], 70 * HOST_MSS);
	}
	for (int i = 0; i < 6; i++) {
		CHECK(flow_of(&conns[i])->start.outcome == HS_JUMPS, "connection %d jumped", i);
		CHECK(conns[i].tp.packets_out >= BDP_100M_50MS / (i + 2) || conns[i].tp.packets_out == 70,
		      "connection %d: its 70 packets, or an even share of the budget among the %d open: %u", i, i + 2,
		      conns[i].tp.packets_out);
		sum += flow_of(&conns[i])->start.start_cwnd;
	}
	CHECK(sum <= BDP_100M_50MS, "together within the saved BDP: %u", sum);
	for (int i = 1; i < 6; i++) {
		/* cut to its 70 packets or not, paced at its even share per RTT: the cut
		 * ones' packets leave in part of the RTT */
		__u64 share = (__u64)(BDP_100M_50MS / (i + 2)) * HOST_MSS * 1000000 / RTT_US;

		CHECK(host_sk(&conns[i])->sk_pacing_rate >= share * 98 / 100 && host_sk(&conns[i])->sk_pacing_rate <= share * 102 / 100,
		      "connection %d paced at its share of the budget per RTT: %lu", i, host_sk(&conns[i])->sk_pacing_rate);
	}
	CHECK(flow_of(&conns[6])->start.outcome == HS_REJECT_SIBLINGS && conns[6].tp.packets_out == HOST_IW,
	      "the seventh: the kernel's start, waiting for room");
	for (int i = 0; i < 8; i++) {
		host_ack_all(&conns[i]);
		host_close(&conns[i]);
	}
	CHECK(counter(HS_NO_JUMP_NEEDED) == 1, "the preconnect needed none");
}

/* Six HTTPS connections at once (curl --parallel, a browser's): each response of 115
 * packets written 16 KB record by record, the six interleaved as nginx serves them.
 * Each jump starts with its first record and grows with the next ones, but only to an
 * even share of the budget while its siblings are armed or in their first round: the
 * first to grow once took all it wanted, and the last found no room and slow-started
 * from IW. After their first round the six probe from their shares (slow start in all
 * six at once overflowed a 1-BDP buffer) and send the rest. */
static void test_six_tls_connections_share_as_they_write(void)
{
	static struct host_conn conns[6];
	__u32 sum = 0, share = BDP_100M_50MS / 6;

	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	for (int i = 0; i < 6; i++) {
		host_open(&conns[i], ops, PEER, 50001 + i, RTT_US);
		host_write(&conns[i], 300);  /* the session tickets: within IW */
	}
	for (int r = 0; r < 11; r++)
		for (int i = 0; i < 6; i++)
			host_write(&conns[i], 16384 + 22);
	for (int i = 0; i < 6; i++) {
		CHECK(flow_of(&conns[i])->start.outcome == HS_JUMPS, "connection %d jumped", i);
		CHECK(conns[i].tp.snd_cwnd + 1 >= share && conns[i].tp.snd_cwnd <= share + 1,
		      "connection %d: an even share (%u): %u", i, share, conns[i].tp.snd_cwnd);
		sum += conns[i].tp.packets_out;
	}
	CHECK(sum <= BDP_100M_50MS, "together within the saved BDP: %u", sum);
	for (int i = 0; i < 6; i++)
		host_ack(&conns[i], 2);
	for (int i = 0; i < 6; i++)
		CHECK(flow_of(&conns[i])->probe.active, "connection %d probes from its share", i);
	for (int busy = 1, guard = 0; busy && guard < 100000; guard++) {  /* their ACKs interleaved, as they come */
		busy = 0;
		for (int i = 0; i < 6; i++) {
			host_ack(&conns[i], 2);
			busy |= conns[i].count != 0;
		}
	}
	for (int i = 0; i < 6; i++)
		host_close(&conns[i]);
	CHECK(counter(HS_VALIDATED) == 6 && counter(HS_REJECT_SIBLINGS) == 0, "six validated, none waited: %llu",
	      (unsigned long long)counter(HS_REJECT_SIBLINGS));
	{
		struct hs_peer k = peer_key(PEER);
		struct hs_open_flows *n = bpf_map_lookup_elem(&hs_open, &k);

		CHECK(!n || (n->open == 0 && n->armed == 0 && n->starting == 0), "all counted out at release");
	}
}

/* s_bbr's rule against the window override beside the peer's other flows after a
 * loss of theirs (its policy's shared_no_rwnd, asked here directly): a settled
 * sibling (past its start) refuses it; siblings that start with the jump (armed, or in
 * their first round: a page's six connections, within one budget) do not. */
static void test_siblings_starting_together_keep_the_override(void)
{
	const struct hs_policy bbr_like = { .shared_no_rwnd = 1 };
	struct hs_recon_in in = { .now_ns = 1000ULL * 1000000000ULL, .cur_rtt_us = RTT_US, .saved_rtt_us = RTT_US };
	struct hs_open_flows page = { .open = 5, .armed = 3, .starting = 2, .last_loss_ns = in.now_ns - 1000000000ULL };
	struct hs_open_flows settled = page;

	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	settled.starting = 1;  /* one of the five runs on past its start */
	CHECK(hs_override_refusal(&bbr_like, entry(PEER), &in, &page) == 0, "five siblings starting with it: the override");
	CHECK(hs_override_refusal(&bbr_like, entry(PEER), &in, &settled) == HS_SHARED_NO_RWND, "a settled sibling after a loss: none");
	settled.last_loss_ns = in.now_ns - 60ULL * 1000000000ULL;
	CHECK(hs_override_refusal(&bbr_like, entry(PEER), &in, &settled) == 0, "a settled sibling, no loss lately: the override");
}

static void test_override_refusals_have_one_reason_each(void)
{
	struct hs_path *p;

	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	entry(PEER)->flags = HS_PATH_LOSSY;
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 2000000);
	CHECK(counter(HS_JUMPS) == 1 && counter(HS_LOSSY_NO_RWND) == 1 && !grant_of(&a), "lossy: a jump, no override");
	host_close(&a);

	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	p = entry(PEER);
	p->overruns = 1;
	p->overrun_s = (__u32)(host_now_ns / 1000000000ULL) - 5;
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 2000000);
	CHECK(counter(HS_OVERRUN_NO_RWND) == 1 && !grant_of(&a), "a recent overrun: no override");
	host_close(&a);

	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	entry(PEER)->busy_share = HS_BUSY_SHARE_ONE;
	host_open(&a, ops, PEER, 50001, RTT_US * 3 / 2);  /* a queue in the handshake */
	host_write(&a, 2000000);
	CHECK(counter(HS_BUSY_NO_RWND) == 1 && !grant_of(&a), "a busy bottleneck: no override");
	CHECK(counter(HS_LOSSY_NO_RWND) + counter(HS_OVERRUN_NO_RWND) == 0, "one reason");
	host_close(&a);
}

/* A TLS 1.3 server: its handshake flight (a few KB, within IW), a round trip for the
 * client's Finished and request, then the response. The jump waits for the response,
 * with the window opened at init so that the request already carries it. */
static void test_tls_exchange_jumps_when_the_response_comes(void)
{
	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	CHECK(counter(HS_ARMED) == 1 && counter(HS_JUMPS) == 0, "armed at init, no jump yet");
	CHECK(grant_of(&a) && grant_of(&a)->field, "the window opened at init");
	CHECK(((__u32 (*)(struct sock *))ops->sndbuf_expand)(host_sk(&a)) * HOST_IW >= 2 * BDP_100M_50MS * 95 / 100,
	      "the send buffer sized for the jump");
	host_write(&a, 4000);
	CHECK(counter(HS_JUMPS) == 0 && a.tp.snd_cwnd == HOST_IW, "no jump for the handshake flight: cwnd %u", a.tp.snd_cwnd);
	host_ack_all(&a);
	host_idle(RTT_US);
	host_write(&a, 2000000);
	CHECK(counter(HS_JUMPS) == 1, "the response jumps");
	CHECK(a.tp.packets_out >= BDP_100M_50MS - 1 && a.tp.packets_out <= BDP_100M_50MS + 1, "sent %u", a.tp.packets_out);
	host_ack_all(&a);
	CHECK(counter(HS_VALIDATED) == 1 && counter(HS_RATE_LIMITED) == 0, "validated, not rate limited");
	host_close(&a);
	CHECK(counter(HS_NO_JUMP_NEEDED) == 0, "a flow that jumped is not counted as needing none");
}

/* A TLS server's session tickets go out first (within IW), the response follows while
 * they are in flight (no CA_EVENT_TX_START): the jump comes at the response's write,
 * and only an ACK of data sent after it ends Unvalidated. */
static void test_app_limited_then_cwnd_limited_jumps_at_the_write(void)
{
	struct s_cubic_flow *f;

	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 8 * HOST_MSS);
	CHECK(counter(HS_JUMPS) == 0 && a.tp.packets_out == 8, "app limited: sent %u, no jump", a.tp.packets_out);
	host_write(&a, 400 * HOST_MSS);
	f = flow_of(&a);
	CHECK(counter(HS_JUMPS) == 1 && a.tx_starts == 1, "the jump at the write, no second TX_START");
	CHECK(a.tp.packets_out > 300, "the jump's data sent: %u", a.tp.packets_out);
	host_ack(&a, 8);  /* the data from before the jump */
	CHECK(f->start.resume.phase == HS_PHASE_UNVALIDATED, "still Unvalidated: phase %u", f->start.resume.phase);
	host_ack(&a, 2);
	CHECK(f->start.resume.phase == HS_PHASE_VALIDATING, "Validating at the jump's first ACK: phase %u", f->start.resume.phase);
	host_ack_all(&a);
	CHECK(counter(HS_VALIDATED) == 1, "validated");
	host_close(&a);
}

/* A TLS server writes its response 16 KB record at a time: the jump made at the first
 * record grows with each one written before its first ACK, up to the saved BDP. */
static void test_response_in_records_grows_its_jump(void)
{
	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 500);  /* a session ticket */
	for (int i = 0; i < 64; i++)
		host_write(&a, 16384 + 22);
	CHECK(counter(HS_JUMPS) == 1, "one jump");
	CHECK(a.tp.snd_cwnd >= BDP_100M_50MS - 1 && a.tp.snd_cwnd <= BDP_100M_50MS + 1, "grown to the BDP: %u", a.tp.snd_cwnd);
	CHECK(a.tp.packets_out == a.tp.snd_cwnd, "all of it sent in the first RTT: %u", a.tp.packets_out);
	CHECK(host_sk(&a)->sk_pacing_rate >= BW_100M * 98 / 100 && host_sk(&a)->sk_pacing_rate <= BW_100M * 102 / 100,
	      "paced at the entry's rate: %lu", host_sk(&a)->sk_pacing_rate);
	host_ack_all(&a);
	CHECK(counter(HS_VALIDATED) == 1, "validated");
	host_close(&a);
}

/* A browser's preconnect: opened, never used. It takes nothing: no lease, no window
 * left open, counted as needing no jump. */
static void test_preconnect_that_never_sends_takes_nothing(void)
{
	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	{
		struct hs_peer k = peer_key(PEER);
		struct hs_open_flows *n = bpf_map_lookup_elem(&hs_open, &k);

		CHECK(n && n->open == 1 && n->armed == 1 && n->pkts_out == 0, "counted open and armed, holding no budget");
	}
	host_idle(5000000);
	host_close(&a);
	CHECK(counter(HS_NO_JUMP_NEEDED) == 1 && counter(HS_JUMPS) == 0, "no jump needed");
	{
		struct hs_peer k = peer_key(PEER);
		struct hs_open_flows *n = bpf_map_lookup_elem(&hs_open, &k);

		CHECK(!n || (n->open == 0 && n->armed == 0), "counted out at release");
	}
	CHECK(!grant_of(&a), "no window override left");
	CHECK(entry(PEER) && entry(PEER)->flows == 1, "the entry as it was");
}

/* A page over HTTP/2: the HTML (12 KB, a little past IW) takes the jump, cut to its
 * size; the page's objects, written a round trip later, jump again (a follow-up), paced
 * at the entry's rate, without the window override: twice the receiver's window (the
 * harness's sender is not held by it), then the kernel's slow start. Before, they slow-started from the HTML's
 * window. With a receiver's window above the entry's BDP the follow-up is the BDP's. */
static void test_html_jumps_and_the_objects_follow_up(void)
{
	__u32 rwnd, before;

	for (int wide = 0; wide <= 1; wide++) {
		fresh();
		seed(PEER, BW_100M, RTT_US, 10);
		host_open(&a, ops, PEER, 50001, RTT_US);
		if (wide)
			a.rcv_field = 0xffff;  /* 8 MB in the window scale of 7 */
		host_write(&a, 12 * HOST_MSS);
		CHECK(counter(HS_JUMPS) == 1 && a.tp.packets_out == 12, "the HTML in one round: %u", a.tp.packets_out);
		host_ack_all(&a);
		CHECK(counter(HS_VALIDATED) == 1 && !flow_of(&a)->probe.active, "validated, no probe");
		CHECK(flow_of(&a)->start.armed && !grant_of(&a)->field, "armed again, the window override over");
		host_idle(RTT_US);
		rwnd = a.tp.snd_wnd / HOST_MSS;
		host_write(&a, 1500000);
		CHECK(counter(HS_FOLLOW_UPS) == 1 && counter(HS_JUMPS) == 1, "one follow-up: %llu", (unsigned long long)counter(HS_FOLLOW_UPS));
		if (wide)
			CHECK(a.tp.snd_cwnd >= BDP_100M_50MS - 1 && a.tp.snd_cwnd <= BDP_100M_50MS + 1 && a.tp.packets_out == a.tp.snd_cwnd,
			      "a wide receiver: the entry's BDP in the first round: %u of %u", a.tp.packets_out, a.tp.snd_cwnd);
		else
			CHECK(a.tp.snd_cwnd == 2 * rwnd && rwnd > 2 * 12 && 2 * rwnd < BDP_100M_50MS && a.tp.packets_out == a.tp.snd_cwnd,
			      "twice the receiver's window in the first round: %u of %u (window %u)", a.tp.packets_out, a.tp.snd_cwnd, rwnd);
		CHECK(host_sk(&a)->sk_pacing_rate >= BW_100M * 98 / 100 && host_sk(&a)->sk_pacing_rate <= BW_100M * 102 / 100,
		      "paced at the entry's rate: %lu", host_sk(&a)->sk_pacing_rate);
		CHECK(!grant_of(&a)->field, "no window override for a follow-up");
		before = a.tp.packets_out;
		for (__u32 i = 0; i < before; i += 2)  /* one round of ACKs, two packets each */
			host_ack(&a, 2);
		CHECK(counter(HS_VALIDATED) == 2 && !flow_of(&a)->start.armed, "validated, not armed again: %llu",
		      (unsigned long long)counter(HS_VALIDATED));
		if (!wide)
			CHECK(a.tp.snd_cwnd >= 2 * before - 4 && !flow_of(&a)->probe.active, "then the kernel's slow start (2x a round, but the first ACK's): %u to %u", before,
			      a.tp.snd_cwnd);
		host_close(&a);
	}
}

/* The resume's end decides: a jump cut to its data arms a follow-up whether it ended
 * validated or rate limited (s_bbr's first-ACK count of an 11-12 packet HTML jump);
 * not one cut to the receiver's window, nor after a congestion signal, nor a retreat. */
static void test_which_ends_arm_a_follow_up(void)
{
	static const struct { __u32 event; __u8 data_cut, rwnd_cut, signalled, arms; } cases[] = {
		{ HS_VALIDATED, 1, 0, 0, 1 }, { HS_RATE_LIMITED, 1, 0, 0, 1 }, { HS_VALIDATED, 0, 0, 0, 0 },
		{ HS_VALIDATED, 1, 1, 0, 0 }, { HS_RATE_LIMITED, 1, 0, 1, 0 }, { HS_RETREAT_RATE, 1, 0, 0, 0 },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hs_start *st;

		fresh();
		seed(PEER, BW_100M, RTT_US, 10);
		host_open(&a, ops, PEER, 50001, RTT_US);
		st = &flow_of(&a)->start;
		hs_set_armed(st, 0);
		st->data_cut = cases[i].data_cut;
		st->rwnd_cut = cases[i].rwnd_cut;
		st->signalled = cases[i].signalled;
		st->follow_up = 1;  /* a follow-up in force: cleared unless armed again */
		hs_resume_ended(st, cases[i].event);
		CHECK(st->armed == cases[i].arms && st->follow_up == cases[i].arms, "case %u: armed %u, follow-up %u", i, st->armed,
		      st->follow_up);
		host_close(&a);
	}
}

/* No follow-up where the flow has seen a congestion signal since, where its RTT has
 * moved away from the entry's (Reconnaissance refuses it, quietly: the kernel's slow
 * start goes on), or after an idle past the RTO (the restart decides instead). */
static void test_a_follow_up_needs_the_path_as_the_entry_saw_it(void)
{
	__u32 before;

	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 30 * HOST_MSS);
	host_ack(&a, 2);
	host_lose(&a);
	host_ack_all(&a);
	host_idle(RTT_US);
	host_write(&a, 3000000);
	CHECK(counter(HS_FOLLOW_UPS) == 0 && !flow_of(&a)->start.armed, "a loss since: no follow-up");
	host_close(&a);

	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	a.path_rtt_us = 3 * RTT_US;  /* the path changed after the handshake */
	host_write(&a, 30 * HOST_MSS);
	CHECK(counter(HS_JUMPS) == 1 && flow_of(&a)->start.start_cwnd == 30, "a jump of the response: %u", flow_of(&a)->start.start_cwnd);
	host_ack_all(&a);
	CHECK(counter(HS_VALIDATED) == 1 && flow_of(&a)->start.armed, "validated, armed for a follow-up");
	host_write(&a, 3000000);  /* at once: an idle here would pass the RTO (a restart's case, below) */
	CHECK(counter(HS_FOLLOW_UPS) == 0 && counter(HS_REJECT_RTT_LONGER) == 0 && !flow_of(&a)->start.armed,
	      "an RTT far above the entry's: refused quietly (srtt %u us)", a.tp.srtt_us >> 3);
	before = a.tp.packets_out;
	host_ack(&a, before);  /* one round trip */
	CHECK(a.tp.snd_cwnd >= 2 * before - 1, "the kernel's slow start: %u to %u", before, a.tp.snd_cwnd);
	host_close(&a);

	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 30 * HOST_MSS);
	host_ack_all(&a);
	host_idle(2000000);
	host_write(&a, 3000000);
	CHECK(counter(HS_FOLLOW_UPS) == 0 && counter(HS_RESTARTS) == 1, "after 2 s idle: a restart (%llu), no follow-up",
	      (unsigned long long)counter(HS_RESTARTS));
	host_close(&a);
}

/* The peer's hs_open entry evicted (LRU) and made again by a new flow while an older
 * one is in flight: the older one leaving takes its packets and itself off counts that
 * never held them, and they stop at 0 (they wrapped to ~2^32 once: every later jump to
 * the peer found its budget taken). */
static void test_an_evicted_open_count_never_wraps(void)
{
	struct hs_peer k = peer_key(PEER);
	struct hs_open_flows *n;

	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 2000000);  /* the jump: hundreds of packets reported in flight */
	bpf_map_delete_elem(&hs_open, &k);
	host_open(&b, ops, PEER, 50002, RTT_US);
	host_close(&a);
	n = bpf_map_lookup_elem(&hs_open, &k);
	/* (open undercounts by one until b leaves: the entry cannot tell whose count it was) */
	CHECK(n && n->open <= 1 && n->pkts_out == 0 && n->armed == 1, "open %u, pkts_out %u, armed %u", n ? n->open : 0,
	      n ? n->pkts_out : 0, n ? n->armed : 0);
	host_write(&b, 2000000);
	CHECK(counter(HS_JUMPS) == 2, "the new flow still jumps");
	host_close(&b);
}

/* A response within IW on a warm path: exactly the kernel's start. */
static void test_small_response_is_the_kernels(void)
{
	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 9 * HOST_MSS);
	CHECK(a.tp.snd_cwnd == HOST_IW && host_sk(&a)->sk_pacing_status == SK_PACING_NONE, "IW, unpaced");
	host_ack_all(&a);
	host_close(&a);
	CHECK(((__u32 (*)(struct sock *))ops->sndbuf_expand)(host_sk(&a)) == 2, "the kernel's send buffer once disarmed");
	CHECK(counter(HS_NO_JUMP_NEEDED) == 1 && counter(HS_JUMPS) == 0 && counter(HS_RATE_LIMITED) == 0, "no jump");
}

/* A persistent connection: a cold 2 MB response (the kernel's start), then an idle
 * of 1 s, past the RTO. */
static void serve_then_idle(struct host_conn *c)
{
	host_open(c, ops, PEER, 50001, RTT_US);
	host_write(c, 2000000);
	host_ack_all(c);
	host_idle(1000000);
}

/* Idle then a burst: the response after the idle resumes at the flow's own rate,
 * paced, and is validated; with the start off it is the kernel's restart from IW. */
static void test_idle_then_a_burst_resumes_at_the_flows_rate(void)
{
	struct s_cubic_flow *f;
	__u32 cwnd;

	fresh();
	serve_then_idle(&a);
	CHECK(counter(HS_MISSES) == 1 && counter(HS_RESTARTS) == 0, "a cold first response");
	host_write(&a, 2000000);
	f = flow_of(&a);
	CHECK(counter(HS_RESTARTS) == 1 && counter(HS_JUMPS) == 0, "restarts %llu", (unsigned long long)counter(HS_RESTARTS));
	CHECK(a.tp.packets_out >= BDP_100M_50MS * 80 / 100 && a.tp.packets_out <= BDP_100M_50MS * 106 / 100,
	      "its own BDP in the first RTT: %u", a.tp.packets_out);
	CHECK(host_sk(&a)->sk_pacing_status == SK_PACING_NEEDED && host_sk(&a)->sk_pacing_rate <= BW_100M * 106 / 100 &&
	      host_sk(&a)->sk_pacing_rate >= BW_100M * 80 / 100, "paced at its own rate: %lu", host_sk(&a)->sk_pacing_rate);
	CHECK(!grant_of(&a) || !grant_of(&a)->field, "no window override at a restart");
	CHECK(f->start.resume.phase == HS_PHASE_UNVALIDATED, "Unvalidated: phase %u", f->start.resume.phase);
	host_ack_all(&a);
	CHECK(counter(HS_VALIDATED) == 1, "validated %llu", (unsigned long long)counter(HS_VALIDATED));
	host_close(&a);

	fresh();
	set_knobs((struct hs_config){ .version = HS_CONFIG_VERSION, .mode = HS_MODE_OFF });
	serve_then_idle(&a);
	cwnd = a.tp.snd_cwnd;
	host_write(&a, 2000000);
	CHECK(a.tp.packets_out <= cwnd >> 3 && a.tp.packets_out > HOST_IW && counter(HS_RESTARTS) == 0,
	      "off: the kernel's restart (halved per RTO idle, 3-4 times) sent %u of %u", a.tp.packets_out, cwnd);
	host_ack_all(&a);
	host_close(&a);
}

/* tcp_slow_start_after_idle = 0: the kernel keeps the old window (here thousands of
 * packets: the harness's path never loses) and sends it at once; the careful restart
 * sends the flow's BDP, paced, as with the sysctl at 1. */
static void test_restart_without_the_sysctl_is_the_same_restart(void)
{
	fresh();
	init_net.ipv4.sysctl_tcp_slow_start_after_idle = 0;
	serve_then_idle(&a);
	CHECK(a.tp.snd_cwnd > 2 * BDP_100M_50MS, "the old window: %u", a.tp.snd_cwnd);
	host_write(&a, 2000000);
	CHECK(counter(HS_RESTARTS) == 1 && a.tp.packets_out <= BDP_100M_50MS * 106 / 100 &&
	      a.tp.packets_out >= BDP_100M_50MS * 80 / 100, "its BDP, not the old window: sent %u", a.tp.packets_out);
	host_ack_all(&a);
	host_close(&a);

	fresh();
	init_net.ipv4.sysctl_tcp_slow_start_after_idle = 0;
	set_knobs((struct hs_config){ .version = HS_CONFIG_VERSION, .mode = HS_MODE_OFF });
	serve_then_idle(&a);
	host_write(&a, 2000000);
	CHECK(a.tp.packets_out > 2 * BDP_100M_50MS, "off: the kernel's old window at once, sent %u", a.tp.packets_out);
	host_ack_all(&a);
	host_close(&a);
	init_net.ipv4.sysctl_tcp_slow_start_after_idle = 1;
}

/* The path's rate fell to a fifth during the idle: the restart's jump is delivered
 * at that rate, and the rate test retreats to what the path delivers. */
static void test_restart_into_a_slower_path_retreats(void)
{
	fresh();
	serve_then_idle(&a);
	a.link_Bps /= 5;
	host_write(&a, 2000000);
	CHECK(counter(HS_RESTARTS) == 1, "restarted");
	host_ack_all(&a);
	CHECK(counter(HS_RETREAT_RATE) == 1 && counter(HS_VALIDATED) == 0, "the rate test retreats: %llu",
	      (unsigned long long)counter(HS_RETREAT_RATE));
	host_close(&a);
}

/* Idle shorter than the RTO, or a write that fits in IW after it: no restart, and an
 * unused one ends at the next ACK (it holds no share of the peer's budget). */
static void test_short_idle_or_small_write_restarts_nothing(void)
{
	struct s_cubic_flow *f;
	__u32 cwnd;

	fresh();
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 2000000);
	host_ack_all(&a);
	cwnd = a.tp.snd_cwnd;
	host_idle(100000);
	host_write(&a, 2000000);
	CHECK(counter(HS_RESTARTS) == 0 && cwnd > 2 * BDP_100M_50MS && a.tp.packets_out > 2 * BDP_100M_50MS,
	      "idle below the RTO: the window goes on, sent %u of %u", a.tp.packets_out, cwnd);
	host_ack_all(&a);
	host_idle(1000000);
	host_write(&a, 5 * HOST_MSS);
	f = flow_of(&a);
	CHECK(counter(HS_RESTARTS) == 0 && a.tp.packets_out == 5 && f->start.armed, "a small write: sent as is, armed");
	host_ack_all(&a);
	CHECK(!f->start.armed && !f->start.restarting, "the unused restart ends at the ACK");
	host_write(&a, 2000000);
	CHECK(counter(HS_RESTARTS) == 0, "no restart without an idle");
	host_ack_all(&a);
	host_close(&a);
}

/* The peer's entry stored after this flow last sent (another connection measured the
 * path since) and fitting its RTT: the restart takes the entry's rate. */
static void test_restart_takes_a_newer_entry(void)
{
	fresh();
	serve_then_idle(&a);
	seed(PEER, BW_100M / 2, RTT_US, 0);
	host_write(&a, 2000000);
	CHECK(counter(HS_RESTARTS) == 1 && a.tp.packets_out >= BDP_100M_50MS / 2 - 2 && a.tp.packets_out <= BDP_100M_50MS / 2 + 2,
	      "the entry's BDP: sent %u", a.tp.packets_out);
	host_ack_all(&a);
	host_close(&a);

	fresh();
	seed(PEER, BW_100M / 2, RTT_US, 0);
	host_idle(5000000);
	serve_then_idle(&a);  /* its own estimate is newer than the entry */
	host_write(&a, 2000000);
	CHECK(counter(HS_RESTARTS) == 1 && a.tp.packets_out >= BDP_100M_50MS * 80 / 100, "its own: sent %u", a.tp.packets_out);
	host_ack_all(&a);
	host_close(&a);
}

/* A TCP Fast Open child: init runs at the SYN, its source unproven. The kernel's start,
 * and nothing of the peer's read or written: no hit, no open count, no busy share or
 * handshake, no outcome, no store. */
static void test_a_fast_open_flow_touches_nothing(void)
{
	struct hs_peer key = peer_key(PEER);
	struct hs_path before;

	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	before = *entry(PEER);
	host_next_fastopen_rsk = &a;
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_next_fastopen_rsk = 0;
	CHECK(counter(HS_FAST_OPEN) == 1 && counter(HS_HITS) == 0 && counter(HS_MISSES) == 0, "fast_open %llu",
	      (unsigned long long)counter(HS_FAST_OPEN));
	CHECK(!bpf_map_lookup_elem(&hs_open, &key), "not counted among the peer's open flows");
	CHECK(!bpf_map_lookup_elem(&hs_outcomes, &flow_of(&a)->start.key), "no outcome logged");
	host_write(&a, 2000000);
	CHECK(a.tp.packets_out == HOST_IW && counter(HS_JUMPS) == 0, "the kernel's IW: sent %u", a.tp.packets_out);
	host_ack_all(&a);
	host_idle(1000000);
	host_write(&a, 2000000);
	CHECK(counter(HS_RESTARTS) == 0, "no restart either");
	host_ack_all(&a);
	host_close(&a);
	CHECK(counter(HS_STORES) == 0 && entry(PEER) && !memcmp(entry(PEER), &before, sizeof(before)), "the entry as it was");
	CHECK(!bpf_map_lookup_elem(&hs_outcomes, &flow_of(&a)->start.key), "no outcome at release");
}

/* A container's flows (another network namespace) neither read nor write the host's
 * entry for the same address: their own entry, under their namespace's cookie. With
 * one_table every namespace uses the host's. */
static void test_namespaces_keep_their_own_entries(void)
{
	struct net container = { .ns = { .inum = 4026532500U }, .ipv4 = init_net.ipv4, .net_cookie = 42 };
	struct hs_config one = knobs();
	struct hs_path host_before;

	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_before = *entry(PEER);
	host_net = &container;
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_net = &init_net;
	CHECK(flow_of(&a)->start.key.netns_ino == container.ns.inum, "the flow's key (window grant, outcome) names its namespace");
	host_write(&a, 1000000);
	CHECK(counter(HS_MISSES) == 1 && counter(HS_JUMPS) == 0 && a.tp.packets_out == HOST_IW, "the container misses: IW");
	host_ack_all(&a);
	host_close(&a);
	CHECK(entry_in(PEER, 42) && entry_in(PEER, 42)->flows == 1, "the container's store is its own entry");
	CHECK(!memcmp(entry(PEER), &host_before, sizeof(host_before)), "the host's entry as it was");
	fresh();
	one.one_table = 1;
	set_knobs(one);
	seed(PEER, BW_100M, RTT_US, 10);
	host_net = &container;
	host_open(&b, ops, PEER, 50002, RTT_US);
	host_net = &init_net;
	host_write(&b, 2000000);
	CHECK(counter(HS_JUMPS) == 1, "one_table: the container jumps from the host's entry");
	host_ack_all(&b);
	host_close(&b);
	CHECK(!entry_in(PEER, 42) && entry(PEER)->flows == 2, "one_table: it stores into the host's entry");
}

/* A spurious loss in a retreat: the kernel's undo (tcp_undo_cwnd_reduction) puts back
 * the ssthresh from before the loss, infinite in a jump's first rounds, while the
 * retreat goes on; the next loss must not answer with it, or PRR grows cwnd toward
 * 2^31 (the soak of 2026-11-28: the kernel's WARN in tcp_snd_cwnd_set at 2,183,276,773). */
static void test_a_loss_after_an_undo_in_a_retreat_keeps_a_finite_ssthresh(void)
{
	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 4000000);
	host_lose(&a);
	CHECK(flow_of(&a)->start.resume.phase == HS_PHASE_RETREAT, "the loss in Unvalidated retreats");
	a.tp.snd_cwnd = ((host_ssthresh_fn)ops->undo_cwnd)(host_sk(&a));
	a.tp.snd_ssthresh = HOST_INFINITE_SSTHRESH;  /* prior_ssthresh, before the jump's loss */
	host_set_state(&a, TCP_CA_Open);
	host_lose(&a);
	CHECK(a.tp.snd_ssthresh <= BDP_100M_50MS, "a second loss in the retreat: ssthresh %u, not infinite", a.tp.snd_ssthresh);
	host_ack_all(&a);
	host_close(&a);
}

/* A warm flow that delivered its first 2 MB and is sending 2 MB more. */
static void open_and_deliver(void)
{
	fresh();
	seed(PEER, BW_100M, RTT_US, 10);
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 2000000);
	host_ack_all(&a);
	host_write(&a, 2000000);
	host_ack(&a, 2);
}

/* The lossy mark: a loss that begins with no queue in the RTT marks the path lossy when
 * the flow stores. An RTO while an earlier episode's retransmissions are still out is
 * that episode's tail (an overflow's repair, the queue drained by then), not new loss:
 * no mark (an s_bbr 8 MB flow's such RTO refused the peer's override for 12 s). */
static void test_only_a_fresh_loss_without_a_queue_marks_the_path_lossy(void)
{
	open_and_deliver();
	a.tp.srtt_us = (RTT_US + 100) << 3;
	host_lose(&a);
	host_ack_all(&a);
	host_close(&a);
	CHECK(entry(PEER) && (entry(PEER)->flags & HS_PATH_LOSSY), "a loss with no queue: the path is marked lossy");

	open_and_deliver();
	a.tp.srtt_us = (RTT_US + 20000) << 3;
	host_lose(&a);
	a.tp.srtt_us = (RTT_US + 100) << 3;
	host_rto(&a);
	host_ack_all(&a);
	host_close(&a);
	CHECK(entry(PEER) && !(entry(PEER)->flags & HS_PATH_LOSSY), "an RTO in an overflow's repair: no mark (flags %u)",
	      entry(PEER) ? entry(PEER)->flags : 0);

	open_and_deliver();
	a.tp.srtt_us = (RTT_US + 20000) << 3;
	host_lose(&a);
	host_ack_all(&a);
	host_write(&a, 1000000);
	host_ack(&a, 2);
	a.tp.srtt_us = (RTT_US + 100) << 3;
	host_rto(&a);
	host_ack_all(&a);
	host_close(&a);
	CHECK(entry(PEER) && (entry(PEER)->flags & HS_PATH_LOSSY), "an RTO after the repair ended, no queue: marked");
}

static const struct hs_store_event *ring_event(int i)
{
	return i < host_ring_count ? (const struct hs_store_event *)host_ring[i] : NULL;
}

/* The fleet agent hears of every store and of every entry a retreat deleted, with the
 * flow's namespace; a flow that stores nothing says nothing. */
static void test_stores_and_deletes_reach_the_fleet_ring(void)
{
	struct hs_peer key = peer_key(PEER);

	fresh();
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 1000000);
	host_ack_all(&a);
	host_close(&a);
	CHECK(host_ring_count == 1, "one event for one store: %d", host_ring_count);
	CHECK(ring_event(0) && !memcmp(&ring_event(0)->peer, &key, sizeof(key)), "the peer's key");
	CHECK(ring_event(0) && ring_event(0)->bw_bytes_per_s == entry(PEER)->bw_bytes_per_s &&
	      ring_event(0)->min_rtt_us == entry(PEER)->min_rtt_us && ring_event(0)->stored_ns == entry(PEER)->stored_ns,
	      "the entry as stored");
	host_open(&b, ops, PEER, 50002, RTT_US);
	host_write(&b, 4000000);
	host_lose(&b);
	CHECK(!entry(PEER) && host_ring_count == 2, "the retreat's delete: %d events", host_ring_count);
	CHECK(ring_event(1) && ring_event(1)->bw_bytes_per_s == 0 && ring_event(1)->stored_ns == host_now_ns, "a delete, now");
	host_ack_all(&b);
	host_close(&b);
	fresh();
	host_open(&a, ops, PEER, 50001, RTT_US);
	host_write(&a, 3000);
	host_ack_all(&a);
	host_close(&a);
	CHECK(host_ring_count == 0, "a flow too small to store: no event (%d)", host_ring_count);
}

/* A flow from `ip` that stores: its path's rate (link_Bps) and RTT. */
static void flow_from(__u32 ip, __u16 port, __u64 link_Bps, __u32 rtt_us)
{
	struct host_conn c;

	host_open(&c, ops, ip, port, rtt_us);
	c.link_Bps = link_Bps;
	host_write(&c, 2000000);
	host_ack_all(&c);
	host_close(&c);
}

static struct hs_prefix *prefix_of(__u32 ip)
{
	struct hs_peer p = peer_key(ip), k;
	__u32 host;

	return hs_prefix_of(&p, &k, &host);
}

/* Prefix fallback (lib/prefix.h): a first contact from a /24 whose peers' entries agree
 * starts from half of their rate; off, or where they disagree, it is the kernel's; a
 * retreat takes the agreement away; one peer storing again does not agree with itself. */
static void test_a_first_contact_starts_from_its_agreeing_prefix(void)
{
	struct hs_config k = knobs();
	__u64 before;

	fresh();
	k.prefix_fallback = 1;
	set_knobs(k);
	for (int i = 0; i < 4; i++)
		flow_from(PEER, 50100 + i, BW_100M, RTT_US);
	CHECK(prefix_of(PEER) && prefix_of(PEER)->agreed == 0, "one peer four times: no agreement (%u)", prefix_of(PEER) ? prefix_of(PEER)->agreed : 99);
	for (__u32 i = 1; i <= 3; i++)
		flow_from(PEER + i, 50200 + i, BW_100M, RTT_US);
	CHECK(prefix_of(PEER)->agreed >= HS_PREFIX_AGREED, "four peers agree: %u", prefix_of(PEER)->agreed);
	before = counter(HS_MISSES);
	host_open(&a, ops, PEER + 9, 50001, RTT_US);
	host_write(&a, 2000000);
	CHECK(counter(HS_PREFIX_HITS) == 1 && counter(HS_MISSES) == before, "a first contact: a prefix start, not a miss");
	CHECK(a.tp.packets_out >= BDP_100M_50MS / 2 - 40 && a.tp.packets_out <= BDP_100M_50MS / 2 + 2, "half the prefix's BDP: %u", a.tp.packets_out);
	host_ack_all(&a);
	host_close(&a);
	CHECK(entry(PEER + 9) != NULL, "it sent more than its jump: it stores its own entry");
	/* One that sent no more than its jump measured its pacing (half the prefix's rate):
	 * validated, its entry is the prefix's average, and the prefix hears nothing new. */
	{
		struct hs_prefix before_p = *prefix_of(PEER);

		host_open(&b, ops, PEER + 11, 50005, RTT_US);
		host_write(&b, 100000);
		host_ack_all(&b);
		host_close(&b);
		CHECK(counter(HS_PREFIX_HITS) == 2 && entry(PEER + 11) &&
		      entry(PEER + 11)->bw_bytes_per_s == before_p.bw_bytes_per_s / 2 * 100 / HS_PREFIX_START_PCT,
		      "a validated prefix start that only jumped: the prefix's average (%llu, prefix %llu)",
		      entry(PEER + 11) ? (unsigned long long)entry(PEER + 11)->bw_bytes_per_s : 0ULL, (unsigned long long)before_p.bw_bytes_per_s);
		CHECK(prefix_of(PEER)->entries == before_p.entries, "not counted as a voice of the prefix");
	}
	/* A retreat of a prefix start: the prefix no longer agrees. */
	host_open(&b, ops, PEER + 10, 50002, RTT_US);
	host_write(&b, 4000000);
	host_lose(&b);
	CHECK(prefix_of(PEER)->agreed == 0, "the retreat took the agreement away");
	host_ack_all(&b);
	host_close(&b);
	/* Off: the kernel's. */
	fresh();
	for (__u32 i = 0; i < 5; i++)
		flow_from(PEER + i, 50300 + i, BW_100M, RTT_US);
	host_open(&a, ops, PEER + 20, 50003, RTT_US);
	host_write(&a, 2000000);
	CHECK(counter(HS_PREFIX_HITS) == 0 && a.tp.packets_out == HOST_IW, "prefix_fallback off: IW");
	host_ack_all(&a);
	host_close(&a);
	/* Paths 10x apart within the /24: never agreeing. */
	fresh();
	set_knobs(k);
	for (__u32 i = 0; i < 6; i++)
		flow_from(PEER + i, 50400 + i, i % 2 ? BW_100M : BW_100M / 10, RTT_US);
	CHECK(prefix_of(PEER)->agreed == 0, "paths 10x apart do not agree");
	host_open(&a, ops, PEER + 30, 50004, RTT_US);
	host_write(&a, 2000000);
	CHECK(counter(HS_PREFIX_HITS) == 0 && a.tp.packets_out == HOST_IW, "their first contacts are the kernel's");
	host_ack_all(&a);
	host_close(&a);
}

int main(void)
{
	test_cold_flow_grows_as_suss_with_the_window_open();
	test_cold_tls_exchange_starts_suss_with_the_response();
	test_cold_flow_without_suss_or_the_override();
	test_suss_window_ends_as_a_jumps_does();
	test_warm_flow_jumps_to_the_saved_bdp();
	test_loss_in_unvalidated_retreats_and_deletes_the_entry();
	test_overshoots_in_a_row_halve_the_peers_next_jump();
	test_rto_in_the_first_rtt_retreats();
	test_rtt_mismatch_refuses_both_ways();
	test_expired_entry_is_deleted_not_used();
	test_mode_off_and_untrusted_are_the_kernels();
	test_a_knob_record_being_written_is_not_taken();
	test_response_below_the_bdp_jumps_to_its_size();
	test_second_connection_waits_for_the_budget();
	test_six_connections_draw_on_one_budget();
	test_six_tls_connections_share_as_they_write();
	test_siblings_starting_together_keep_the_override();
	test_an_idle_open_connection_takes_no_share();
	test_a_flow_joined_later_measures_a_share();
	test_six_connections_store_what_they_carried_together();
	test_override_refusals_have_one_reason_each();
	test_tls_exchange_jumps_when_the_response_comes();
	test_app_limited_then_cwnd_limited_jumps_at_the_write();
	test_response_in_records_grows_its_jump();
	test_preconnect_that_never_sends_takes_nothing();
	test_small_response_is_the_kernels();
	test_html_jumps_and_the_objects_follow_up();
	test_a_follow_up_needs_the_path_as_the_entry_saw_it();
	test_which_ends_arm_a_follow_up();
	test_an_evicted_open_count_never_wraps();
	test_idle_then_a_burst_resumes_at_the_flows_rate();
	test_restart_without_the_sysctl_is_the_same_restart();
	test_restart_into_a_slower_path_retreats();
	test_short_idle_or_small_write_restarts_nothing();
	test_restart_takes_a_newer_entry();
	test_a_fast_open_flow_touches_nothing();
	test_namespaces_keep_their_own_entries();
	test_a_loss_after_an_undo_in_a_retreat_keeps_a_finite_ssthresh();
	test_only_a_fresh_loss_without_a_queue_marks_the_path_lossy();
	test_stores_and_deletes_reach_the_fleet_ring();
	test_a_first_contact_starts_from_its_agreeing_prefix();
	return check_report();
}
