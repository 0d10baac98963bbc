// SPDX-License-Identifier: GPL-2.0
/* Receive-window override (Stateful-TCP §III-C) as a tc ingress program.
 *
 * A stateful start sends one cached BDP in its first RTT, but a Linux receiver
 * advertises only ~64 KB at first, which would cap it. The congestion control cannot
 * write tp->snd_wnd, so this program, on the server's ingress, raises the window
 * field of incoming ACKs of the flows the controllers put in hs_rwnd to the grant
 * stored there (a raw window field, the peer's scale applies; stateful.h sizes it for
 * the jump), fixing the TCP checksum. A larger window passes as it is; a zero or
 * shrinking one ends the grant (lib/rwnd_grant.h): the receiver is falling behind.
 * A bare duplicate ACK without SACK ends it too, counted: the receiver discarded a
 * segment past its window (lib/rwnd_grant.h, hs_rwnd_grant_watch). Every packet,
 * rewritten or not, goes on to the device's next filter (TC_ACT_UNSPEC): an
 * operator's own rules after ours still decide its fate. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "path_table.h"
#include "lib/rwnd_grant.h"

char _license[] SEC("license") = "GPL";

extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;

#define ETH_HLEN 14
#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD
#define IPPROTO_TCP 6
#define TCP_WINDOW_OFF 14
#define TCP_CSUM_OFF 16
#define TC_ACT_UNSPEC (-1)  /* let classification go on: an operator's own filters after ours still run */

/* Counts of rewritten ACKs, for `headstart status` and the tests. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} hs_rwnd_rewrites SEC(".maps");

/* 1 if the TCP options (`len` bytes at `off`, 1..40) hold a SACK block
 * (hs_options_have_sack). The length is rebuilt as 1 + (len - 1) % 64 behind a
 * compiler barrier, so that the verifier sees it bounded away from zero for the copy. */
static __always_inline int has_sack(struct __sk_buff *skb, __u32 off, __u32 len)
{
	__u8 opt[64] = {};
	__u32 n = ((len - 1) & 63) + 1;

	asm volatile("" : "+r"(n));
	if (n != len || n > HS_TCP_MAX_OPTIONS || bpf_skb_load_bytes(skb, off, opt, n))
		return 0;
	return hs_options_have_sack(opt, n);
}

static __always_inline int open_window(struct __sk_buff *skb, __u32 l3)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct hs_flow_key key = {};
	struct sk_buff *kskb = bpf_cast_to_kern_ctx(skb);
	__u8 *ip = data + l3;
	__u32 l4, ip_len;

	/* The device's namespace is the socket's: the controller keyed the grant by it. */
	if (kskb->dev)
		key.netns_ino = kskb->dev->nd_net.net->ns.inum;

	if ((void *)(ip + 1) > end)
		return TC_ACT_UNSPEC;
	if ((ip[0] >> 4) == 4) {
		struct iphdr *h = (void *)ip;

		if ((void *)(h + 1) > end || h->protocol != IPPROTO_TCP)
			return TC_ACT_UNSPEC;
		key.peer[10] = key.peer[11] = 0xff;
		key.local[10] = key.local[11] = 0xff;
		__builtin_memcpy(&key.peer[12], &h->saddr, 4);
		__builtin_memcpy(&key.local[12], &h->daddr, 4);
		l4 = l3 + h->ihl * 4;
		ip_len = bpf_ntohs(h->tot_len) - h->ihl * 4;
	} else if ((ip[0] >> 4) == 6) {
		struct ipv6hdr *h = (void *)ip;

		if ((void *)(h + 1) > end || h->nexthdr != IPPROTO_TCP)
			return TC_ACT_UNSPEC;
		__builtin_memcpy(key.peer, &h->saddr, 16);
		__builtin_memcpy(key.local, &h->daddr, 16);
		l4 = l3 + sizeof(*h);
		ip_len = bpf_ntohs(h->payload_len);
	} else {
		return TC_ACT_UNSPEC;
	}
	if (l4 > 256)   /* needed for the verifier's bound check */
		return TC_ACT_UNSPEC;
	struct tcphdr *tcp = data + l4;
	if ((void *)(tcp + 1) > end || !tcp->ack)
		return TC_ACT_UNSPEC;
	key.peer_port = bpf_ntohs(tcp->source);
	key.local_port = bpf_ntohs(tcp->dest);
	struct hs_rwnd_grant *grant = bpf_map_lookup_elem(&hs_rwnd, &key);
	if (!grant)
		return TC_ACT_UNSPEC;
	__u16 old = tcp->window;
	__u16 win = bpf_ntohs(old);
	__u32 hdr = tcp->doff * 4;
	struct hs_ack_seen seen = {
		.ack = bpf_ntohl(tcp->ack_seq),
		.win = win,
		.bare = ip_len == hdr && !tcp->syn && !tcp->fin && !tcp->rst,
	};
	if (!hs_rwnd_ack_plausible(grant, seen.ack))
		return TC_ACT_UNSPEC;
	/* The options matter only to a bare duplicate: most ACKs move on, unparsed. */
	if (hs_rwnd_grant_bare_dup(grant, seen.ack, seen.bare) && hdr > sizeof(*tcp))
		seen.sack = has_sack(skb, l4 + sizeof(*tcp), hdr - sizeof(*tcp));
	hs_rwnd_grant_watch(grant, &seen);
	__u16 want = hs_rwnd_grant_apply(grant, win);
	if (want == win)
		return TC_ACT_UNSPEC;
	__u16 new = bpf_htons(want);
	bpf_l4_csum_replace(skb, l4 + TCP_CSUM_OFF, old, new, sizeof(new));
	bpf_skb_store_bytes(skb, l4 + TCP_WINDOW_OFF, &new, sizeof(new), 0);
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&hs_rwnd_rewrites, &zero);
	if (n)
		*n += 1;
	return TC_ACT_UNSPEC;
}

/* Devices with an Ethernet header (veth, physical NICs). */
SEC("tc")
int hs_rwnd_ether(struct __sk_buff *skb)
{
	return open_window(skb, ETH_HLEN);
}

/* Devices that carry bare IP packets (TUN, as in the lab). */
SEC("tc")
int hs_rwnd_rawip(struct __sk_buff *skb)
{
	return open_window(skb, 0);
}
