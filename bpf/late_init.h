/* Inits the kernel skipped: on this kernel (6.18, BPF struct_ops) a controller's init
 * program sometimes does not run for a new connection, while the kernel goes on as if
 * it had (icsk_ca_initialized set): the flow then runs on the controller's other hooks
 * with none of its state, as the kernel's controller, and stores nothing.
 *
 * Measured (BENCHMARKS.md at 3c45a21, Issue 11, "Inits the kernel skipped"): in 10,000-flow lab
 * runs the server's init and set_state programs each ran 1 to 27 times fewer than the
 * server accepted connections (TcpPassiveOpens 10,000), with no recursion misses;
 * release and cwnd_event ran for every flow. A tracing program on the
 * tcp_cong_state_set tracepoint, which the kernel passes just before set_state,
 * missed as many connections in the same run. The cause is below the programs, as for
 * the hooks lib/hook_guard.h replays.
 *
 * The first transmission (CA_EVENT_TX_START, from the sender's own write, in process
 * context) then finds no state of ours although the kernel says the controller is
 * initialized: the flow starts there. A flow whose init ran has its state; a Fast Open
 * sender transmitting before its handshake ends is not initialized yet (its init comes
 * after). */
#ifndef HS_LATE_INIT_H
#define HS_LATE_INIT_H

/* At CA_EVENT_TX_START: the flow's state (its socket storage) is missing although the
 * kernel has initialized the controller. */
static __always_inline int hs_init_was_skipped(struct sock *sk, const void *state)
{
	return !state && ((struct inet_connection_sock *)sk)->icsk_ca_initialized;
}

#endif
