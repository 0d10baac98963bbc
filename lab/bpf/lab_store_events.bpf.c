/* The lab's load for the fleet agent's benchmark, not part of the service: store events
 * written into the controllers' ring (hs_stores) as flows would write them, without
 * the flows (50,000 a second is more than this machine's TCP can finish). Run through
 * BPF_PROG_RUN: `n` events for peers 10.200.0.0 + (first + i) % peers, rates that move
 * by a few percent from one event of a peer to the next (below the agent's change
 * threshold), every `new_every`-th a new peer. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "path_table.h"  /* hs_stores, as the controllers define it */

char _license[] SEC("license") = "GPL";

struct lab_store_load {
	__u32 n;                    /* events to write, at most 8192 */
	__u32 peers;                /* distinct peers they cycle through */
	__u32 first;                /* the first one's index */
	__u32 written;              /* out: how many the ring took */
};

struct lab_store_step {
	struct lab_store_load *load;
	__u64 now;
	__u32 written;
};

static long lab_store_one(__u32 i, struct lab_store_step *step)
{
	struct hs_store_event ev = {};
	__u32 peers = step->load->peers ? step->load->peers : 1;
	__u32 id = (step->load->first + i) % peers;

	ev.peer.bytes[10] = ev.peer.bytes[11] = 0xff;
	ev.peer.bytes[12] = 10;
	ev.peer.bytes[13] = 200;
	ev.peer.bytes[14] = (id >> 8) & 0xff;
	ev.peer.bytes[15] = id & 0xff;
	ev.bw_bytes_per_s = 12500000 + (__u64)((step->load->first + i) % 7) * 100000;
	ev.min_rtt_us = 50000;
	ev.stored_ns = step->now;
	if (!bpf_ringbuf_output(&hs_stores, &ev, sizeof(ev), BPF_RB_NO_WAKEUP))
		step->written++;
	return 0;
}

SEC("syscall")
int lab_store_events(struct lab_store_load *load)
{
	struct lab_store_step step = { .load = load, .now = bpf_ktime_get_boot_ns() };
	__u32 n = load->n;

	bpf_loop(n < 8192 ? n : 8192, lab_store_one, &step, 0);
	load->written = step.written;
	return 0;
}
