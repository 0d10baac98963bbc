/* The lab's instrument, not part of the service: counts, per TCP flow, the segments a
 * sender retransmitted (its TCP_INFO is out of the lab's reach when nginx sends) and
 * the segments a receiver discarded as beyond its window (the client's TcpExt BeyondWindow), so that a
 * run's discards can be traced to the flows whose jumps caused them. This kernel drops
 * them with one of two reasons, counted apart (struct hs_lab_discards):
 * TCP_INVALID_SEQUENCE, a segment that begins past the right edge (beyond a hole:
 * measured, 399 of 399 in a lab run; or behind an earlier discard), and
 * TCP_INVALID_END_SEQUENCE, one that begins inside and ends past it while the receive
 * queue holds unread data (with an empty queue it is accepted). A flow's first discard
 * without a hole is of the second kind: the data ran past a receiver whose application
 * had not read all it had. Keyed by the ports as the receiver sees them; the lab's
 * client ports are unique within a run. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>
#include "records.h"

char _license[] SEC("license") = "GPL";

/* key: the receiver's port << 16 | the sender's port (host order) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct hs_lab_discards);
} lab_beyond_window SEC(".maps");

SEC("tp_btf/kfree_skb")
int BPF_PROG(lab_count_beyond_window, struct sk_buff *skb, void *location, enum skb_drop_reason reason)
{
	struct hs_lab_discards first = {}, *n;
	struct tcphdr th;
	int unread;
	__u32 key;

	if (reason != SKB_DROP_REASON_TCP_INVALID_SEQUENCE && reason != SKB_DROP_REASON_TCP_INVALID_END_SEQUENCE)
		return 0;
	if (bpf_probe_read_kernel(&th, sizeof(th), skb->head + skb->transport_header))
		return 0;
	unread = reason == SKB_DROP_REASON_TCP_INVALID_END_SEQUENCE;
	key = (__u32)bpf_ntohs(th.dest) << 16 | bpf_ntohs(th.source);
	n = bpf_map_lookup_elem(&lab_beyond_window, &key);
	if (!n) {
		if (unread)
			first.unread = 1;
		else
			first.beyond_edge = 1;
		if (!bpf_map_update_elem(&lab_beyond_window, &key, &first, BPF_NOEXIST))
			return 0;
		/* another CPU created it in between */
		if (!(n = bpf_map_lookup_elem(&lab_beyond_window, &key)))
			return 0;
	}
	if (unread)
		__sync_fetch_and_add(&n->unread, 1);
	else
		__sync_fetch_and_add(&n->beyond_edge, 1);
	return 0;
}

/* key as above: the receiver's port << 16 | the sender's port; value: segments */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u64);
} lab_retransmits SEC(".maps");

/* Fired for each retransmission the kernel sent (not for one it failed to send), as it
 * adds the skb's segments to RetransSegs. */
SEC("tp_btf/tcp_retransmit_skb")
int BPF_PROG(lab_count_retransmits, const struct sock *sk, const struct sk_buff *skb)
{
	const struct tcp_skb_cb *cb = (const struct tcp_skb_cb *)skb->cb;
	__u64 segs = cb->tcp_gso_segs ? cb->tcp_gso_segs : 1, *n;
	__u32 key = (__u32)bpf_ntohs(sk->__sk_common.skc_dport) << 16 | sk->__sk_common.skc_num;

	n = bpf_map_lookup_elem(&lab_retransmits, &key);
	if (n) {
		__sync_fetch_and_add(n, segs);
		return 0;
	}
	if (bpf_map_update_elem(&lab_retransmits, &key, &segs, BPF_NOEXIST) && (n = bpf_map_lookup_elem(&lab_retransmits, &key)))
		__sync_fetch_and_add(n, segs); /* another CPU created it in between */
	return 0;
}
