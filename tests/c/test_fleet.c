/* The fleet apply program (bpf/fleet.bpf.c, the rules of lib/fleet.h) on the host: what
 * another server's entry, read from Redis, may do to this host's table. */
#include "../../bpf/fleet.bpf.c"
#include "check.h"

#define S 1000000000ULL
#define BW_100M 12500000ULL

static struct hs_peer peer = { .bytes = { [10] = 0xff, [11] = 0xff, [12] = 10, [13] = 0, [14] = 0, [15] = 2 } };

static void fresh(__u32 cap_mbps)
{
	struct hs_config c = { .version = HS_CONFIG_VERSION, .max_age_s = 3600, .store_cap_mbps = cap_mbps };
	__u32 zero = 0;

	host_maps_reset();
	host_now_ns = 10000 * S;
	bpf_map_update_elem(&hs_config, &zero, &c, BPF_ANY);
}

static void seed(__u64 bw, __u32 rtt_us, __u64 age_s, __u32 agreed)
{
	struct hs_path p = { .bw_bytes_per_s = bw, .min_rtt_us = rtt_us, .flows = 3, .agreed = agreed, .handshakes = 7,
			     .stored_ns = host_now_ns - age_s * S };

	bpf_map_update_elem(&hs_paths, &peer, &p, BPF_ANY);
}

static struct hs_path *here(void)
{
	return bpf_map_lookup_elem(&hs_paths, &peer);
}

static __u16 apply(__u64 bw, __u32 rtt_us, __u64 age_s, __u16 flags)
{
	struct hs_fleet_entry e = { .peer = peer, .bw_bytes_per_s = bw, .min_rtt_us = rtt_us, .age_ns = age_s * S, .flags = flags };

	hs_fleet_apply(&e);
	return e.verdict;
}

static void test_a_new_peer_takes_the_other_servers_entry(void)
{
	fresh(10000);
	CHECK(apply(BW_100M, 50000, 2, 0) == HS_FLEET_APPLIED, "applied");
	CHECK(here() && here()->bw_bytes_per_s == BW_100M && here()->min_rtt_us == 50000, "the entry as sent");
	CHECK(here()->source == HS_SOURCE_FLEET && here()->flows == 1, "marked as the fleet's");
	CHECK(here()->stored_ns == host_now_ns - 2 * S, "its age kept: stored 2 s ago here too");
}

static void test_newest_wins(void)
{
	fresh(10000);
	seed(BW_100M, 50000, 5, 0);
	CHECK(apply(BW_100M * 3 / 2, 40000, 10, 0) == HS_FLEET_OLDER, "an older entry leaves the newer one here");
	CHECK(here()->bw_bytes_per_s == BW_100M && here()->min_rtt_us == 50000, "unchanged");
	CHECK(apply(BW_100M * 3 / 2, 40000, 1, 0) == HS_FLEET_APPLIED, "a newer one is taken");
	CHECK(here()->bw_bytes_per_s == BW_100M * 3 / 2 && here()->min_rtt_us == 40000 && here()->flows == 4, "the newer estimate");
	CHECK(here()->handshakes == 7, "what this host's flows counted stays");
}

static void test_a_poisoned_entry_is_bounded_as_a_lying_peers(void)
{
	fresh(1000);
	seed(BW_100M, 50000, 60, 0);
	CHECK(apply(BW_100M * 100, 50000, 0, 0) == HS_FLEET_APPLIED, "applied, bounded");
	CHECK(here()->bw_bytes_per_s == BW_100M * HS_STORE_MAX_RAISE_PCT / 100, "100x raises an entry 2x: %llu",
	      (unsigned long long)here()->bw_bytes_per_s);
	fresh(1000);
	CHECK(apply(BW_100M * 100, 50000, 0, 0) == HS_FLEET_APPLIED && here()->bw_bytes_per_s == 1000ULL * 125000,
	      "a new entry at most the cap: %llu", (unsigned long long)here()->bw_bytes_per_s);
	fresh(0);
	CHECK(apply(HS_PATH_MAX_BW_BYTES_PER_S + 1, 50000, 0, 0) == HS_FLEET_INVALID && !here(), "beyond the bounds: refused");
	CHECK(apply(BW_100M, HS_PATH_MAX_RTT_US + 1, 0, 0) == HS_FLEET_INVALID && !here(), "a min RTT of seconds: refused");
	CHECK(apply(BW_100M, 0, 0, 0) == HS_FLEET_INVALID && !here(), "no RTT: refused");
}

static void test_a_confident_entry_keeps_its_floor(void)
{
	fresh(10000);
	seed(BW_100M, 50000, 60, HS_CONFIDENT_AGREED);
	CHECK(apply(BW_100M / 10, 50000, 0, 0) == HS_FLEET_APPLIED, "applied");
	CHECK(here()->bw_bytes_per_s == BW_100M * HS_CONFIDENT_FLOOR_PCT / 100, "lowered to the floor only: %llu",
	      (unsigned long long)here()->bw_bytes_per_s);
	CHECK(here()->agreed == 0, "a disagreeing estimate restarts the count");
}

static void test_expired_and_future_ages(void)
{
	fresh(10000);
	CHECK(apply(BW_100M, 50000, 3601, 0) == HS_FLEET_EXPIRED && !here(), "past the lifetime: refused");
	CHECK(apply(BW_100M, 50000, 0, 0) == HS_FLEET_APPLIED && here()->stored_ns == host_now_ns, "age 0: stored now");
}

static void test_a_delete_newer_than_the_entry_deletes_it(void)
{
	fresh(10000);
	seed(BW_100M, 50000, 5, 0);
	CHECK(apply(0, 0, 10, 0) == HS_FLEET_OLDER && here(), "a delete older than the entry here: kept");
	CHECK(apply(0, 0, 1, 0) == HS_FLEET_DELETED && !here(), "a newer delete: deleted");
	CHECK(apply(0, 0, 1, 0) == HS_FLEET_OLDER, "nothing to delete");
}

static void test_the_lossy_mark_follows_the_other_server(void)
{
	fresh(10000);
	seed(BW_100M, 50000, 5, 0);
	here()->clean_segs = 500;
	CHECK(apply(BW_100M, 50000, 1, HS_PATH_LOSSY) == HS_FLEET_APPLIED && (here()->flags & HS_PATH_LOSSY), "marked lossy");
	CHECK(here()->clean_segs == 0, "a new mark counts from nothing");
	CHECK(apply(BW_100M, 50000, 0, 0) == HS_FLEET_APPLIED && !(here()->flags & HS_PATH_LOSSY), "cleared there: cleared");
}

static void test_namespaces_are_apart(void)
{
	struct hs_fleet_entry e = { .peer = peer, .bw_bytes_per_s = BW_100M, .min_rtt_us = 50000 };

	fresh(10000);
	e.peer.netns = 42;
	hs_fleet_apply(&e);
	CHECK(e.verdict == HS_FLEET_APPLIED && !here(), "into namespace 42's table, not the host's");
	CHECK(bpf_map_lookup_elem(&hs_paths, &e.peer) != NULL, "namespace 42 has it");
}

static void test_the_fleets_entries_teach_the_prefix(void)
{
	struct hs_fleet_entry e = { .peer = peer, .bw_bytes_per_s = BW_100M, .min_rtt_us = 50000 };
	struct hs_peer k = peer;
	struct hs_prefix *a;

	fresh(10000);
	for (int i = 0; i < 4; i++) {
		e.peer.bytes[15] = (__u8)(2 + i);
		hs_fleet_apply(&e);
	}
	hs_prefix_key(k.bytes);
	a = bpf_map_lookup_elem(&hs_prefixes, &k);
	CHECK(a && a->entries == 4 && a->agreed == 3, "four peers' entries from the fleet: the /24 agrees");
}

int main(void)
{
	test_a_new_peer_takes_the_other_servers_entry();
	test_newest_wins();
	test_a_poisoned_entry_is_bounded_as_a_lying_peers();
	test_a_confident_entry_keeps_its_floor();
	test_expired_and_future_ages();
	test_a_delete_newer_than_the_entry_deletes_it();
	test_the_lossy_mark_follows_the_other_server();
	test_namespaces_are_apart();
	test_the_fleets_entries_teach_the_prefix();
	return check_report();
}
