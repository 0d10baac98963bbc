/* Holding a pacing rate the kernel would otherwise recompute: for controllers
 * without cong_control, tcp_update_pacing_rate() rewrites sk_pacing_rate on every
 * ACK (2 x cwnd / srtt in slow start) and once before the first ACK; it never goes
 * above sk_max_pacing_rate, which only setsockopt may write. */
#ifndef HS_PACING_H
#define HS_PACING_H

#define HS_SOL_SOCKET 1
#define HS_SO_MAX_PACING_RATE 47

/* SO_MAX_PACING_RATE takes an int from BPF; ~0U means unlimited. */
static __always_inline void hs_set_max_pacing(struct sock *sk, __u64 rate)
{
	int v = rate >= 0xffffffffULL ? ~0U : (__u32)rate;

	bpf_setsockopt(sk, HS_SOL_SOCKET, HS_SO_MAX_PACING_RATE, &v, sizeof(v));
}

#endif
