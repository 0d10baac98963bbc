/* The host harness's stand-in for vmlinux.h: the kernel types the controllers read,
 * with the fields they use and the layout's one rule that matters to them (a
 * tcp_sock begins with its inet_connection_sock, which begins with its sock). */
#ifndef HS_HOST_VMLINUX_H
#define HS_HOST_VMLINUX_H

#include <stdint.h>
#include <stddef.h>

typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef int32_t __s32;
typedef int64_t __s64;
typedef __u16 __be16;
typedef __u32 __be32;

typedef struct { __u32 val; } kuid_t;

struct in6_addr {
	union {
		__u8 u6_addr8[16];
		__be16 u6_addr16[8];
		__be32 u6_addr32[4];
	} in6_u;
};

struct netns_ipv4 {
	__u8 sysctl_tcp_min_tso_segs;
	__u8 sysctl_tcp_slow_start_after_idle;
};

enum { NET_NS_INIT_INO = 4026531833U };

struct ns_common {
	unsigned int inum;
};

struct net {
	struct ns_common ns;
	struct netns_ipv4 ipv4;
	__u64 net_cookie;
};

typedef struct { struct net *net; } possible_net_t;

struct sock_common {
	__be32 skc_daddr;
	__be32 skc_rcv_saddr;
	__be16 skc_dport;
	__u16 skc_num;
	unsigned short skc_family;
	struct in6_addr skc_v6_daddr;
	struct in6_addr skc_v6_rcv_saddr;
	possible_net_t skc_net;
};

enum sk_pacing { SK_PACING_NONE = 0, SK_PACING_NEEDED = 1, SK_PACING_FQ = 2 };

struct sock {
	struct sock_common __sk_common;
	kuid_t sk_uid;
	unsigned long sk_pacing_rate;
	unsigned long sk_max_pacing_rate;
	__u32 sk_pacing_status;
};

struct inet_sock {
	struct sock sk;
};

struct inet_connection_sock {
	struct inet_sock icsk_inet;
	__u8 icsk_ca_state;
	__u8 icsk_ca_initialized;
	__u32 icsk_rto;
	__u64 icsk_ca_priv[13];
};

enum tcp_chrono { TCP_CHRONO_UNSPEC, TCP_CHRONO_BUSY, TCP_CHRONO_RWND_LIMITED, TCP_CHRONO_SNDBUF_LIMITED, __TCP_CHRONO_MAX };

struct tcp_options_received {
	__u8 snd_wscale;
	__u8 sack_ok;
};

struct tcp_sock {
	struct inet_connection_sock inet_conn;
	__u32 snd_cwnd, snd_ssthresh, prior_cwnd, max_packets_out, snd_cwnd_clamp;
	__u32 srtt_us, mss_cache;
	__u32 snd_una, snd_nxt, write_seq, high_seq, snd_wnd, max_window;
	__u32 packets_out, sacked_out, lost_out, retrans_out, total_retrans;
	__u32 segs_out, data_segs_out, delivered;
	__u32 rate_delivered, rate_interval_us;
	__u64 bytes_acked, tcp_mstamp;
	__u32 lsndtime;             /* jiffies of the last transmission */
	void *fastopen_rsk;         /* a TCP Fast Open child until its handshake completes */
	unsigned long chrono_stat[3];
	__u32 chrono_start;
	__u8 chrono_type;
	__u8 is_cwnd_limited;
	struct tcp_options_received rx_opt;
};

enum {
	TCP_CA_Open = 0,
	TCP_CA_Disorder = 1,
	TCP_CA_CWR = 2,
	TCP_CA_Recovery = 3,
	TCP_CA_Loss = 4,
};

enum tcp_ca_event {
	CA_EVENT_TX_START,
	CA_EVENT_CWND_RESTART,
	CA_EVENT_COMPLETE_CWR,
	CA_EVENT_LOSS,
	CA_EVENT_ECN_NO_CE,
	CA_EVENT_ECN_IS_CE,
};

struct ack_sample {
	__u32 pkts_acked;
	__s32 rtt_us;
	__u32 in_flight;
};

struct rate_sample {
	__u64 prior_mstamp;
	__u32 prior_delivered;
	__s32 delivered;
	long interval_us;
	long rtt_us;
	int losses;
	__u32 acked_sacked;
	__u32 prior_in_flight;
	__u8 is_app_limited;
};

/* The kernel's cubic state (net/ipv4/tcp_cubic.c), the fields in its order. */
struct bictcp {
	__u32 cnt, last_max_cwnd, last_cwnd, last_time, bic_origin_point, bic_K, delay_min, epoch_start, ack_cnt,
		tcp_cwnd;
	__u16 unused;
	__u8 sample_cnt, found;
	__u32 round_start, end_seq, last_ack, curr_rtt;
};

struct tcp_congestion_ops {
	void *ssthresh, *cong_avoid, *set_state, *cwnd_event, *in_ack_event, *pkts_acked, *min_tso_segs,
		*cong_control, *undo_cwnd, *sndbuf_expand, *get_info, *init, *release;
	char name[16];
	unsigned int flags;
};

#endif
