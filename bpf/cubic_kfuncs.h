/* The kernel's Cubic, as kfuncs: every controller here that is Cubic underneath calls
 * these (s_cubic, suss, the lab's comparison starts), so that with its own additions
 * off it is exactly the kernel's. */
#ifndef HS_CUBIC_KFUNCS_H
#define HS_CUBIC_KFUNCS_H

extern void cubictcp_init(struct sock *sk) __ksym;
extern __u32 cubictcp_recalc_ssthresh(struct sock *sk) __ksym;
extern void cubictcp_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern void cubictcp_state(struct sock *sk, __u8 new_state) __ksym;
extern void cubictcp_cwnd_event(struct sock *sk, enum tcp_ca_event event) __ksym;
extern void cubictcp_acked(struct sock *sk, const struct ack_sample *sample) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

#endif
