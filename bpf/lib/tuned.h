/* The tuned numbers of the stateful start, one place, each with its principle and the
 * RESULTS.md row that chose it. They were knobs until a measurement settled them;
 * what an operator really chooses stays a knob (records.h, struct hs_config). */
#ifndef HS_TUNED_H
#define HS_TUNED_H

/* A jump takes the whole saved BDP (the papers; RFC 9959 allows up to half): validation
 * and the rate test catch a wrong entry within one RTT (RESULTS: error sweep). */
#define HS_JUMP_PCT 100
/* The handshake RTT must lie within [saved / 2, saved x 2]: a wider window let jumps
 * onto another path's entry (RESULTS: RTT mismatch). */
#define HS_RTT_MATCH 2
/* Safe Retreat's beta is Cubic's own decrease (0.7; RFC 9959 allows 0.5-1). */
#define HS_RETREAT_BETA_PCT 70
/* A jump delivered below 3/4 of its pacing rate, with a queue, overshot the path
 * (RESULTS: error sweep, 10x entry). */
#define HS_RATE_RETREAT_PCT 75
/* After a validated jump s_cubic probes at 1.25x per RTT, 1.5x after two rounds
 * without a queue: a low entry costs a few RTTs, a right one a small queue. */
#define HS_PROBE_GROWTH_PCT 25
/* ... and gives up half the queue it found: on the LTE traces the RTT's swings read
 * as queues, and draining all of it left flows below cubic's window (RESULTS: LTE). */
#define HS_PROBE_DRAIN_PCT 50
/* One flow raises an entry at most 2x: a lying or lucky flow cannot set the next
 * flow's first RTT (RESULTS: lying peers). */
#define HS_STORE_MAX_RAISE_PCT 200
/* An entry three flows agreed on is lowered by one flow to no less than half of it. */
#define HS_CONFIDENT_FLOOR_PCT 50
/* s_cubic makes no jump from a saved BDP below 40 packets: smaller jumps lost 8-17 %
 * of cubic's throughput on the LTE traces (RESULTS: LTE, min jump). */
#define HS_MIN_JUMP_PKTS 40
/* GCBE's noise floor: a cycle shorter than 1 ms of ACKs says nothing (ACK timing). */
#define HS_GCBE_MIN_SPAN_US 1000
/* SUSS on a miss opens the receiver's window to at most 4x its own: after a random
 * loss the receiver's window stops at the hole and what was sent past it is discarded.
 * 2x cut FCT 14-21 % against cubic (short of SUSS's > 20 %) and still let 55-169
 * discards through in 15 lossy flows; 4x and no bound cut FCT 21-30 %, with 8-259
 * discards (RESULTS: SUSS on a miss). */
#define HS_SUSS_RWND_LEAD 4

#endif
