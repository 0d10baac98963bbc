//! The bottleneck model of one direction of the emulated link, with no I/O and no clock
//! of its own: every call takes `now` in nanoseconds, so the model runs as well on the
//! TUN event loop as on a simulated clock in unit tests.
//!
//! A packet entering the direction goes through, in order (as on a real bottleneck):
//!   1. i.i.d. random loss (probability `loss`); a packet that the I/O layer names (a
//!      loss key: which flow, which bytes, which transmission of them) is lost by a hash
//!      of the key and the seed, so that copies of the link running side by side lose
//!      the same transmissions of the same flows and their flows can be compared pair by
//!      pair (`offer_keyed`); others draw from the direction's random stream,
//!   2. a drop-tail buffer of `buffer_bytes` (bytes waiting for or in transmission),
//!      with, optionally, RED or CoDel before it (aqm.rs), dropping or (ECN) marking,
//!   3. the link: a constant rate, or the delivery opportunities of a mahimahi trace,
//!   4. a fixed one-way propagation delay, plus optional jitter (uniform, never
//!      reordering: a packet is never delivered before the one ahead of it),
//!   5. optionally, aggregation: deliveries held to the next multiple of N ms, so that
//!      they arrive in bursts as over Wi-Fi (A-MPDU) or LTE (ACKs of a subframe).
//!
//! Because the link is FIFO and the delay constant, a packet's departure and delivery
//! times are known the moment it is accepted; the model computes them then and keeps
//! the packets in one FIFO ordered by delivery time.

use super::aqm::{Aqm, AqmState, Decision};
use std::collections::VecDeque;

pub const NS_PER_SEC: u64 = 1_000_000_000;
pub const NS_PER_MS: u64 = 1_000_000;
/// One mahimahi delivery opportunity carries one MTU-sized packet (traces/README).
pub const TRACE_OPPORTUNITY_BYTES: u64 = 1500;

/// How fast the bottleneck drains.
#[derive(Clone, Debug)]
pub enum LinkRate {
    /// Bits per second.
    Constant { bits_per_sec: u64 },
    /// Delivery opportunities in ms since the start of the trace, sorted; the trace
    /// repeats with a period equal to its last timestamp (as mahimahi does).
    Trace(Trace),
}

#[derive(Clone, Debug)]
pub struct Trace {
    pub opportunities_ms: Vec<u64>,
    pub period_ms: u64,
}

impl Trace {
    /// Parses the mahimahi format: one non-negative integer millisecond per line,
    /// non-decreasing, at least one line, last timestamp > 0.
    pub fn parse(text: &str) -> Result<Trace, String> {
        let mut opportunities_ms = Vec::new();
        let mut previous = 0u64;
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let ms: u64 = line
                .parse()
                .map_err(|_| format!("line {}: '{}' is not a whole number of milliseconds", i + 1, line))?;
            if ms < previous {
                return Err(format!("line {}: timestamp {} goes back in time (after {})", i + 1, ms, previous));
            }
            previous = ms;
            opportunities_ms.push(ms);
        }
        let period_ms = *opportunities_ms.last().ok_or("the trace has no delivery opportunities")?;
        if period_ms == 0 {
            return Err("the trace's last timestamp must be > 0 ms (it sets the period)".into());
        }
        Ok(Trace { opportunities_ms, period_ms })
    }

    /// Average capacity in bits per second over one period.
    pub fn average_bits_per_sec(&self) -> f64 {
        self.opportunities_ms.len() as f64 * TRACE_OPPORTUNITY_BYTES as f64 * 8.0 * 1000.0
            / self.period_ms as f64
    }

    fn len(&self) -> u64 {
        self.opportunities_ms.len() as u64
    }

    /// Time in ns of the global opportunity number `k` (counting across repetitions).
    fn time_ns(&self, k: u64) -> u64 {
        let cycle = k / self.len();
        let within = self.opportunities_ms[(k % self.len()) as usize];
        (cycle * self.period_ms + within) * NS_PER_MS
    }

    /// The first global opportunity at or after `t_ns`.
    fn first_at_or_after(&self, t_ns: u64) -> u64 {
        let t_ms = t_ns.div_ceil(NS_PER_MS);
        let cycle = t_ms / self.period_ms;
        let within = t_ms % self.period_ms;
        if within == 0 && cycle > 0 {
            // The previous cycle's last opportunities (at ms == period) fall exactly here.
            let last = self.opportunities_ms.partition_point(|&ms| ms < self.period_ms) as u64;
            return (cycle - 1) * self.len() + last;
        }
        let idx = self.opportunities_ms.partition_point(|&ms| ms < within) as u64;
        // idx == len is the next cycle's first opportunity: the arithmetic says so.
        cycle * self.len() + idx
    }
}

#[derive(Clone, Debug)]
pub struct DirectionConfig {
    pub rate: LinkRate,
    pub delay_ns: u64,
    pub buffer_bytes: u64,
    /// Probability in [0, 1) that a packet is lost before the buffer.
    pub loss: f64,
    pub seed: u64,
    /// Deliveries held to the next multiple of this many ns of the link's clock (0: none).
    pub aggregation_ns: u64,
    pub aqm: Aqm,
    /// The discipline marks ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// Each packet's delay grows by a uniform draw in [0, jitter_ns] (order kept).
    pub jitter_ns: u64,
}

/// What happened to a packet offered to the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// `ce`: the discipline marked it Congestion Experienced.
    Accepted { depart_ns: u64, deliver_ns: u64, ce: bool },
    DroppedLoss,
    DroppedBuffer,
    /// Dropped by RED or CoDel.
    DroppedAqm,
}

#[derive(Clone, Copy, Debug)]
struct InFlight<P> {
    payload: P,
    len: u32,
    arrive_ns: u64,
    depart_ns: u64,
    deliver_ns: u64,
}

/// A packet handed back by `pop_due`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery<P> {
    pub payload: P,
    pub len: u32,
    pub arrive_ns: u64,
    pub depart_ns: u64,
    pub deliver_ns: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirectionCounters {
    pub offered: u64,
    pub accepted: u64,
    pub delivered: u64,
    pub delivered_bytes: u64,
    pub dropped_loss: u64,
    pub dropped_buffer: u64,
    pub dropped_aqm: u64,
    pub marked_ce: u64,
}

impl DirectionCounters {
    /// The counters of two copies of a link, summed.
    pub fn plus(self, o: DirectionCounters) -> DirectionCounters {
        DirectionCounters {
            offered: self.offered + o.offered,
            accepted: self.accepted + o.accepted,
            delivered: self.delivered + o.delivered,
            delivered_bytes: self.delivered_bytes + o.delivered_bytes,
            dropped_loss: self.dropped_loss + o.dropped_loss,
            dropped_buffer: self.dropped_buffer + o.dropped_buffer,
            dropped_aqm: self.dropped_aqm + o.dropped_aqm,
            marked_ce: self.marked_ce + o.marked_ce,
        }
    }
}

/// One direction of the link. `P` is whatever the I/O layer needs to find the packet
/// again (a buffer index); the model never looks inside it.
pub struct Direction<P> {
    config: DirectionConfig,
    /// Packets accepted and not yet delivered, in order of departure and of delivery.
    fifo: VecDeque<InFlight<P>>,
    /// Index into `fifo` of the first packet that has not left the buffer by the last
    /// `now` seen; the ones before it are on the wire (propagation delay).
    first_queued: usize,
    queued_bytes: u64,
    /// Constant rate: when the link finishes its current transmission.
    link_free_ns: u64,
    /// Trace: the global number of the opportunity being filled and the bytes still
    /// free in it.
    trace_opportunity: Option<u64>,
    trace_bytes_left: u64,
    rng: SplitMix64,
    /// A constant rate's fraction in force, in thousandths (`set_rate_permille`).
    rate_permille: u32,
    aqm: AqmState,
    /// Its own stream, so that jitter draws do not move the loss draws.
    jitter_rng: SplitMix64,
    last_depart_ns: u64,
    last_deliver_ns: u64,
    pub counters: DirectionCounters,
}

impl<P: Copy> Direction<P> {
    pub fn new(config: DirectionConfig) -> Self {
        let rng = SplitMix64::new(config.seed);
        let aqm = AqmState::new(config.aqm.clone(), config.ecn, config.seed);
        let jitter_rng = SplitMix64::new(config.seed ^ 0x71_77E4);
        Direction {
            aqm,
            jitter_rng,
            last_depart_ns: 0,
            last_deliver_ns: 0,
            config,
            fifo: VecDeque::new(),
            first_queued: 0,
            queued_bytes: 0,
            link_free_ns: 0,
            trace_opportunity: None,
            trace_bytes_left: 0,
            rng,
            rate_permille: 1000,
            counters: DirectionCounters::default(),
        }
    }

    /// A constant rate runs at `permille` thousandths of its configured rate for the
    /// packets offered from now on (1..=1000); a trace ignores it.
    pub fn set_rate_permille(&mut self, permille: u32) {
        self.rate_permille = permille.clamp(1, 1000);
    }

    /// Bytes in the buffer (waiting for or in transmission) at `now`.
    pub fn queued_bytes(&mut self, now_ns: u64) -> u64 {
        self.retire_departed(now_ns);
        self.queued_bytes
    }

    /// Offers a packet of `len` bytes arriving at `now_ns`.
    pub fn offer(&mut self, now_ns: u64, len: u32, payload: P) -> Verdict {
        self.offer_keyed(now_ns, len, payload, None, false)
    }

    /// Offers a packet whose random loss, if it has a key, is decided by the key and the
    /// seed alone: the same key is lost (or not) on every copy of the link. `ect`: the
    /// packet is ECN-capable (the discipline may mark it instead of dropping it).
    pub fn offer_keyed(&mut self, now_ns: u64, len: u32, payload: P, loss_key: Option<u64>, ect: bool) -> Verdict {
        self.counters.offered += 1;
        let lost = self.config.loss > 0.0
            && match loss_key {
                Some(key) => unit_interval(mix64(self.config.seed ^ mix64(key))) < self.config.loss,
                None => self.rng.next_f64() < self.config.loss,
            };
        if lost {
            self.counters.dropped_loss += 1;
            return Verdict::DroppedLoss;
        }
        self.retire_departed(now_ns);
        if self.queued_bytes + len as u64 > self.config.buffer_bytes {
            self.counters.dropped_buffer += 1;
            return Verdict::DroppedBuffer;
        }
        if self.queued_bytes == 0 {
            self.aqm.queue_emptied(self.last_depart_ns);
        }
        let link_before = (self.link_free_ns, self.trace_opportunity, self.trace_bytes_left);
        let depart_ns = self.schedule_departure(now_ns, len as u64);
        let ce = match self.aqm.decide(now_ns, depart_ns, self.queued_bytes, self.tx_ns_per_mtu(), ect) {
            Decision::Pass => false,
            Decision::Mark => true,
            Decision::Drop => {
                // It never takes the link: the packets after it leave as if it never came.
                (self.link_free_ns, self.trace_opportunity, self.trace_bytes_left) = link_before;
                self.counters.dropped_aqm += 1;
                return Verdict::DroppedAqm;
            }
        };
        let jitter_ns = match self.config.jitter_ns {
            0 => 0,
            j => (self.jitter_rng.next_f64() * (j + 1) as f64) as u64,
        };
        // Rounding up keeps deliveries in departure order, and so does never delivering
        // before the packet ahead: the FIFO stays sorted.
        let deliver_ns = match self.config.aggregation_ns {
            0 => depart_ns + self.config.delay_ns + jitter_ns,
            a => (depart_ns + self.config.delay_ns + jitter_ns).div_ceil(a) * a,
        }
        .max(self.last_deliver_ns);
        self.last_depart_ns = depart_ns;
        self.last_deliver_ns = deliver_ns;
        self.queued_bytes += len as u64;
        self.fifo.push_back(InFlight { payload, len, arrive_ns: now_ns, depart_ns, deliver_ns });
        self.counters.accepted += 1;
        self.counters.marked_ce += u64::from(ce);
        Verdict::Accepted { depart_ns, deliver_ns, ce }
    }

    /// How long an MTU takes on the link (a trace: at its average rate).
    fn tx_ns_per_mtu(&self) -> u64 {
        let bits_per_sec = match &self.config.rate {
            LinkRate::Constant { bits_per_sec } => *bits_per_sec as f64 * self.rate_permille as f64 / 1000.0,
            LinkRate::Trace(t) => t.average_bits_per_sec(),
        };
        (1500.0 * 8.0 * NS_PER_SEC as f64 / bits_per_sec.max(1.0)) as u64
    }

    /// When the next packet is due for delivery, if any.
    pub fn next_delivery_ns(&self) -> Option<u64> {
        self.fifo.front().map(|p| p.deliver_ns)
    }

    /// Removes and returns the first packet if it is due at `now_ns`.
    pub fn pop_due(&mut self, now_ns: u64) -> Option<Delivery<P>> {
        if self.fifo.front()?.deliver_ns > now_ns {
            return None;
        }
        self.retire_departed(now_ns);
        let p = self.fifo.pop_front()?;
        // A due packet has departed (deliver >= depart), so it was already retired.
        debug_assert!(self.first_queued > 0);
        self.first_queued -= 1;
        self.counters.delivered += 1;
        self.counters.delivered_bytes += p.len as u64;
        Some(Delivery {
            payload: p.payload,
            len: p.len,
            arrive_ns: p.arrive_ns,
            depart_ns: p.depart_ns,
            deliver_ns: p.deliver_ns,
        })
    }

    /// Catches the buffer occupancy up to `now`: packets whose departure time has
    /// passed have left the buffer.
    fn retire_departed(&mut self, now_ns: u64) {
        while let Some(p) = self.fifo.get(self.first_queued) {
            if p.depart_ns > now_ns {
                break;
            }
            self.queued_bytes -= p.len as u64;
            self.first_queued += 1;
        }
    }

    fn schedule_departure(&mut self, now_ns: u64, len: u64) -> u64 {
        match &self.config.rate {
            LinkRate::Constant { bits_per_sec } => {
                let start = self.link_free_ns.max(now_ns);
                // u128: len * 8e9 overflows nothing, but keep the division exact.
                let bits_per_sec = *bits_per_sec as u128 * self.rate_permille as u128 / 1000;
                let tx_ns = ((len as u128 * 8 * NS_PER_SEC as u128).div_ceil(bits_per_sec.max(1))) as u64;
                self.link_free_ns = start + tx_ns;
                self.link_free_ns
            }
            LinkRate::Trace(trace) => {
                // Room left in the current opportunity is usable only if that opportunity
                // is not in the past; once the link idled past it, it is lost.
                let reusable = self
                    .trace_opportunity
                    .filter(|&k| self.trace_bytes_left > 0 && trace.time_ns(k) >= now_ns);
                if reusable.is_none() {
                    let mut next = trace.first_at_or_after(now_ns);
                    if let Some(k) = self.trace_opportunity {
                        next = next.max(k + 1);
                    }
                    self.trace_opportunity = Some(next);
                    self.trace_bytes_left = TRACE_OPPORTUNITY_BYTES;
                }
                let mut k = self.trace_opportunity.expect("set just above");
                let mut remaining = len;
                while remaining > self.trace_bytes_left {
                    remaining -= self.trace_bytes_left;
                    k += 1;
                    self.trace_bytes_left = TRACE_OPPORTUNITY_BYTES;
                }
                self.trace_bytes_left -= remaining;
                self.trace_opportunity = Some(k);
                trace.time_ns(k)
            }
        }
    }
}

/// A constant delay outside the bottleneck (one client's own access path, so that flows
/// sharing the bottleneck have different round-trip times): packets come out in the
/// order they went in, `delay_ns` after they were due at its entrance.
pub struct DelayLine<P> {
    delay_ns: u64,
    queue: VecDeque<(u64, P)>,
}

impl<P> DelayLine<P> {
    pub fn new(delay_ns: u64) -> DelayLine<P> {
        DelayLine { delay_ns, queue: VecDeque::new() }
    }

    /// A packet due at the entrance at `due_ns` (non-decreasing from call to call).
    pub fn push(&mut self, due_ns: u64, payload: P) {
        let out = (due_ns + self.delay_ns).max(self.queue.back().map_or(0, |b| b.0));
        self.queue.push_back((out, payload));
    }

    pub fn next_due_ns(&self) -> Option<u64> {
        self.queue.front().map(|p| p.0)
    }

    pub fn pop_due(&mut self, now_ns: u64) -> Option<(u64, P)> {
        if self.queue.front()?.0 > now_ns {
            return None;
        }
        self.queue.pop_front()
    }
}

/// SplitMix64's output function: a 64-bit mix in which every input bit moves every output bit.
pub fn mix64(x: u64) -> u64 {
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The top 53 bits of x as a number in [0, 1).
fn unit_interval(x: u64) -> f64 {
    (x >> 11) as f64 / (1u64 << 53) as f64
}

/// A small, seedable PRNG (SplitMix64) so that loss patterns repeat run to run.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.0)
    }
    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        unit_interval(self.next_u64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = NS_PER_MS;
    const US: u64 = 1_000;

    fn constant(mbit: u64, delay_ms: u64, buffer: u64) -> Direction<u32> {
        Direction::new(DirectionConfig {
            rate: LinkRate::Constant { bits_per_sec: mbit * 1_000_000 },
            delay_ns: delay_ms * MS,
            buffer_bytes: buffer,
            loss: 0.0,
            seed: 1,
            aggregation_ns: 0,
            aqm: Aqm::DropTail,
            ecn: false,
            jitter_ns: 0,
        })
    }

    fn traced(text: &str, delay_ms: u64, buffer: u64) -> Direction<u32> {
        Direction::new(DirectionConfig {
            rate: LinkRate::Trace(Trace::parse(text).unwrap()),
            delay_ns: delay_ms * MS,
            buffer_bytes: buffer,
            loss: 0.0,
            seed: 1,
            aggregation_ns: 0,
            aqm: Aqm::DropTail,
            ecn: false,
            jitter_ns: 0,
        })
    }

    fn accepted(v: Verdict) -> (u64, u64) {
        match v {
            Verdict::Accepted { depart_ns, deliver_ns, .. } => (depart_ns, deliver_ns),
            other => panic!("expected acceptance, got {other:?}"),
        }
    }

    #[test]
    fn constant_rate_serialises_back_to_back_packets() {
        // 1500 B at 100 Mbit/s = 120 us per packet.
        let mut d = constant(100, 25, 1_000_000);
        let (dep1, del1) = accepted(d.offer(0, 1500, 1));
        let (dep2, _) = accepted(d.offer(0, 1500, 2));
        let (dep3, _) = accepted(d.offer(10 * US, 1500, 3));
        assert_eq!(dep1, 120 * US);
        assert_eq!(del1, 120 * US + 25 * MS);
        assert_eq!(dep2, 240 * US);
        assert_eq!(dep3, 360 * US);
    }

    #[test]
    fn a_rate_change_applies_to_packets_offered_after_it() {
        let mut d = constant(100, 0, 1_000_000);
        let (dep1, _) = accepted(d.offer(0, 1500, 1));
        d.set_rate_permille(200);
        let (dep2, _) = accepted(d.offer(0, 1500, 2));
        assert_eq!((dep1, dep2), (120 * US, 120 * US + 600 * US));
        d.set_rate_permille(1000);
        let (dep3, _) = accepted(d.offer(0, 1500, 3));
        assert_eq!(dep3, dep2 + 120 * US);
    }

    #[test]
    fn idle_link_starts_at_arrival() {
        let mut d = constant(100, 0, 1_000_000);
        accepted(d.offer(0, 1500, 1));
        let (dep, _) = accepted(d.offer(5 * MS, 1500, 2));
        assert_eq!(dep, 5 * MS + 120 * US);
    }

    #[test]
    fn delivered_rate_matches_configured_rate() {
        // Offer far more than the link carries; count what is delivered in 1 s.
        let mut d = constant(10, 5, 64 * 1500);
        let mut delivered_bytes = 0u64;
        let mut t = 0;
        while t < NS_PER_SEC {
            let _ = d.offer(t, 1500, 0);
            while let Some(p) = d.pop_due(t) {
                delivered_bytes += p.len as u64;
            }
            t += 100 * US;
        }
        // 10 Mbit/s for 1 s minus the 5 ms delay before the first delivery.
        let expected = 10_000_000 / 8 * 995 / 1000;
        let err = (delivered_bytes as f64 - expected as f64).abs() / expected as f64;
        assert!(err < 0.01, "delivered {delivered_bytes} B, expected about {expected} B");
    }

    #[test]
    fn drop_tail_counts_bytes_waiting_and_in_transmission() {
        let mut d = constant(12, 0, 3000); // 1 ms per 1500 B packet
        accepted(d.offer(0, 1500, 1));
        accepted(d.offer(0, 1500, 2));
        assert_eq!(d.offer(0, 1500, 3), Verdict::DroppedBuffer);
        assert_eq!(d.offer(0, 100, 4), Verdict::DroppedBuffer);
        assert_eq!(d.queued_bytes(0), 3000);
        // After the first packet left (t = 1 ms) there is room for one more.
        assert_eq!(d.queued_bytes(MS), 1500);
        accepted(d.offer(MS, 1500, 5));
        assert_eq!(d.offer(MS, 1500, 6), Verdict::DroppedBuffer);
        assert_eq!(d.counters.dropped_buffer, 3);
        assert_eq!(d.counters.accepted, 3);
    }

    #[test]
    fn fifo_delivers_in_order_and_only_when_due() {
        let mut d = constant(100, 10, 1_000_000);
        for i in 0..5 {
            accepted(d.offer(i * US, 1000, i as u32));
        }
        assert_eq!(d.pop_due(10 * MS), None);
        let first = d.next_delivery_ns().unwrap();
        let mut got = vec![];
        while let Some(p) = d.pop_due(20 * MS) {
            assert!(p.deliver_ns >= first);
            got.push(p.payload);
        }
        assert_eq!(got, vec![0, 1, 2, 3, 4]);
        assert_eq!(d.next_delivery_ns(), None);
        assert_eq!(d.counters.delivered, 5);
    }

    #[test]
    fn random_loss_rate_and_repeatability() {
        let run = |seed| {
            let mut d: Direction<u32> = Direction::new(DirectionConfig {
                rate: LinkRate::Constant { bits_per_sec: 1_000_000_000_000 },
                delay_ns: 0,
                buffer_bytes: u64::MAX / 2,
                loss: 0.01,
                seed,
                aggregation_ns: 0,
                aqm: Aqm::DropTail,
                ecn: false,
                jitter_ns: 0,
            });
            let mut pattern = vec![];
            for i in 0..200_000u64 {
                pattern.push(d.offer(i * 1000, 100, 0) == Verdict::DroppedLoss);
            }
            (d.counters.dropped_loss, pattern)
        };
        let (lost, p1) = run(7);
        let (_, p2) = run(7);
        let (_, p3) = run(8);
        assert!((1800..2200).contains(&lost), "lost {lost} of 200000 at 1 %");
        assert_eq!(p1, p2, "same seed, same losses");
        assert_ne!(p1, p3, "another seed, other losses");
    }

    #[test]
    fn keyed_loss_is_the_same_on_every_copy_whatever_else_it_carries() {
        let copy = || {
            Direction::<u32>::new(DirectionConfig {
                rate: LinkRate::Constant { bits_per_sec: 1_000_000_000_000 },
                delay_ns: 0,
                buffer_bytes: u64::MAX / 2,
                loss: 0.01,
                seed: 7,
                aggregation_ns: 0,
                aqm: Aqm::DropTail,
                ecn: false,
                jitter_ns: 0,
            })
        };
        let (mut a, mut b) = (copy(), copy());
        let (mut lost_a, mut lost_b) = (vec![], vec![]);
        for key in 0..200_000u64 {
            // Copy b also carries unkeyed packets (other traffic, in another order):
            // they draw from its stream and leave the keyed decisions alone.
            if key % 3 == 0 {
                let _ = b.offer(key * 1000, 100, 0);
            }
            lost_a.push(a.offer_keyed(key * 1000, 100, 0, Some(key), false) == Verdict::DroppedLoss);
            lost_b.push(b.offer_keyed(key * 1000 + 17, 100, 0, Some(key), false) == Verdict::DroppedLoss);
        }
        assert_eq!(lost_a, lost_b, "the same keys are lost on both copies");
        let n = lost_a.iter().filter(|l| **l).count();
        assert!((1800..2200).contains(&n), "lost {n} of 200000 at 1 %");
        // Neighbouring keys are independent: losses in a row come as often as i.i.d. ones.
        let pairs = lost_a.windows(2).filter(|w| w[0] && w[1]).count();
        assert!(pairs < 60, "{pairs} losses in a row (i.i.d.: about 20)");
        // Another seed, other losses.
        let mut c = copy();
        c.config.seed = 8;
        let lost_c: Vec<bool> = (0..200_000u64).map(|k| c.offer_keyed(k * 1000, 100, 0, Some(k), false) == Verdict::DroppedLoss).collect();
        assert_ne!(lost_a, lost_c);
    }

    #[test]
    fn trace_parse_rejects_malformed_input() {
        assert!(Trace::parse("").is_err());
        assert!(Trace::parse("0\n0\n").is_err());
        assert!(Trace::parse("1\nx\n").unwrap_err().contains("line 2"));
        assert!(Trace::parse("5\n3\n").unwrap_err().contains("back in time"));
        assert!(Trace::parse("-1\n").is_err());
        let t = Trace::parse("1\n1\n2\n\n").unwrap();
        assert_eq!(t.opportunities_ms, vec![1, 1, 2]);
        assert_eq!(t.period_ms, 2);
    }

    #[test]
    fn trace_one_packet_per_ms_is_12_mbit() {
        // The traces/README example: a file holding "1" is a 12 Mbit/s link.
        let t = Trace::parse("1\n").unwrap();
        assert_eq!(t.average_bits_per_sec(), 12_000_000.0);
        let mut d = traced("1\n", 0, 1_000_000);
        let deps: Vec<u64> = (0..4).map(|i| accepted(d.offer(0, 1500, i)).0).collect();
        assert_eq!(deps, vec![MS, 2 * MS, 3 * MS, 4 * MS]);
    }

    #[test]
    fn trace_small_packets_share_an_opportunity() {
        let mut d = traced("1\n", 0, 1_000_000);
        // Three 500 B packets fit one 1500 B opportunity; the fourth needs the next.
        let deps: Vec<u64> = (0..4).map(|i| accepted(d.offer(0, 500, i)).0).collect();
        assert_eq!(deps, vec![MS, MS, MS, 2 * MS]);
    }

    #[test]
    fn trace_idle_link_wastes_past_opportunities_and_wraps() {
        // Opportunities at 2 and 3 ms of a 3 ms period: 2, 3, 5, 6, 8, 9, ...
        let mut d = traced("2\n3\n", 0, 1_000_000);
        assert_eq!(accepted(d.offer(0, 1500, 0)).0, 2 * MS);
        // Arrives at 2.5 ms: the next opportunity is at 3 ms.
        assert_eq!(accepted(d.offer(2 * MS + 500 * US, 1500, 1)).0, 3 * MS);
        // Arrives at 3.1 ms (idle link): waits for the next period's first, at 5 ms.
        assert_eq!(accepted(d.offer(3 * MS + 100 * US, 1500, 2)).0, 5 * MS);
        assert_eq!(accepted(d.offer(3 * MS + 100 * US, 1500, 3)).0, 6 * MS);
        assert_eq!(accepted(d.offer(3 * MS + 100 * US, 1500, 4)).0, 8 * MS);
    }

    #[test]
    fn trace_leftover_room_in_a_past_opportunity_is_not_reused() {
        let mut d = traced("1\n", 0, 1_000_000);
        assert_eq!(accepted(d.offer(0, 500, 0)).0, MS);
        // The 1 ms opportunity had 1000 B left but it is in the past at 1.5 ms.
        assert_eq!(accepted(d.offer(MS + 500 * US, 500, 1)).0, 2 * MS);
    }

    #[test]
    fn trace_delivered_rate_matches_trace_average() {
        // A bursty synthetic trace: 5 opportunities in ms 1, none in 2..9, 3 at 10.
        let text = "1\n1\n1\n1\n1\n10\n10\n10\n";
        let trace = Trace::parse(text).unwrap();
        let mut d = traced(text, 0, 10_000_000);
        let mut bytes = 0u64;
        let mut t = 0;
        let horizon = 100 * trace.period_ms * MS;
        while t < horizon {
            let _ = d.offer(t, 1500, 0);
            let _ = d.offer(t, 1500, 0);
            while let Some(p) = d.pop_due(t) {
                bytes += p.len as u64;
            }
            t += 100 * US;
        }
        let rate = bytes as f64 * 8.0 / (horizon as f64 / NS_PER_SEC as f64);
        let err = (rate - trace.average_bits_per_sec()).abs() / trace.average_bits_per_sec();
        assert!(err < 0.02, "rate {rate}, trace average {}", trace.average_bits_per_sec());
    }

    #[test]
    fn rate_arithmetic_is_exact_at_10_gbit_and_long_runs() {
        let mut d = Direction::<u32>::new(DirectionConfig {
            rate: LinkRate::Constant { bits_per_sec: 10_000_000_000 },
            delay_ns: NS_PER_SEC,
            buffer_bytes: u64::MAX / 2,
            loss: 0.0,
            seed: 0,
            aggregation_ns: 0,
            aqm: Aqm::DropTail,
            ecn: false,
            jitter_ns: 0,
        });
        let mut last = 0;
        for i in 0..100_000u64 {
            last = accepted(d.offer(i, 1500, 0)).0;
        }
        assert_eq!(last, 100_000 * 1200); // 1.2 us per packet
    }

    #[test]
    fn aggregation_delivers_in_bursts_at_multiples_of_the_period_in_order() {
        // 10 Mbit/s: a 1500-byte packet every 1.2 ms; 10 ms one way; 4 ms aggregation.
        let mut d = Direction::<u32>::new(DirectionConfig {
            rate: LinkRate::Constant { bits_per_sec: 10_000_000 },
            delay_ns: 10 * MS,
            buffer_bytes: 1_000_000,
            loss: 0.0,
            seed: 0,
            aggregation_ns: 4 * MS,
            aqm: Aqm::DropTail,
            ecn: false,
            jitter_ns: 0,
        });
        let mut delivers = vec![];
        for i in 0..10u32 {
            let (depart, deliver) = accepted(d.offer(0, 1500, i));
            assert_eq!(deliver % (4 * MS), 0, "on the period");
            assert!(deliver >= depart + 10 * MS && deliver < depart + 14 * MS, "held less than one period");
            delivers.push(deliver);
        }
        assert!(delivers.windows(2).all(|w| w[0] <= w[1]), "in order: {delivers:?}");
        // Departures every 1.2 ms, +10 ms: 11.2, 12.4 ... 22 ms -> bursts at 12, 16, 20, 24 ms
        // (16.0 is on the period: it goes with the burst at 16).
        assert_eq!(delivers, [12, 16, 16, 16, 16, 20, 20, 20, 24, 24].map(|m| m * MS));
        let mut got = vec![];
        while let Some(p) = d.pop_due(16 * MS) {
            got.push(p.payload);
        }
        assert_eq!(got, [0, 1, 2, 3, 4], "a burst is released whole at its time");
    }

    fn with_aqm(aqm: Aqm, ecn: bool, jitter_ns: u64) -> Direction<u32> {
        Direction::new(DirectionConfig {
            rate: LinkRate::Constant { bits_per_sec: 10_000_000 },
            delay_ns: 10 * MS,
            buffer_bytes: 10_000_000,
            loss: 0.0,
            seed: 3,
            aggregation_ns: 0,
            aqm,
            ecn,
            jitter_ns,
        })
    }

    #[test]
    fn an_aqm_drop_takes_no_link_time_and_a_mark_keeps_the_packet() {
        // CoDel on a standing 1.2 s queue (10 Mbit/s, 1000 packets at once).
        let mut dropping = with_aqm(Aqm::codel(), false, 0);
        let mut marking = with_aqm(Aqm::codel(), true, 0);
        let (mut departs, mut ce) = (vec![], 0);
        for i in 0..1000u32 {
            let now = i as u64 * 100 * US;
            match dropping.offer_keyed(now, 1500, i, None, true) {
                Verdict::Accepted { depart_ns, .. } => departs.push(depart_ns),
                Verdict::DroppedAqm => {}
                v => panic!("{v:?}"),
            }
            if let Verdict::Accepted { ce: true, .. } = marking.offer_keyed(now, 1500, i, None, true) {
                ce += 1;
            }
        }
        let drops = dropping.counters.dropped_aqm;
        assert!(drops > 0 && drops == 1000 - departs.len() as u64);
        // Back to back with no gap where the dropped packets would have gone.
        assert!(departs.windows(2).all(|w| w[1] - w[0] == 1200 * US), "departures spaced by one packet's time");
        assert_eq!((marking.counters.dropped_aqm, marking.counters.marked_ce), (0, ce));
        assert!(ce > 0);
        // Not ECN-capable: the marking direction drops.
        let mut not_ect = with_aqm(Aqm::codel(), true, 0);
        for i in 0..1000u32 {
            let _ = not_ect.offer_keyed(i as u64 * 100 * US, 1500, i, None, false);
        }
        assert!(not_ect.counters.dropped_aqm > 0 && not_ect.counters.marked_ce == 0);
    }

    #[test]
    fn red_holds_the_average_queue_between_its_thresholds_where_drop_tail_fills_up() {
        // 5 % overload for 60 s into a 1 MB buffer (10 Mbit/s: 800 ms of queue when full).
        // RED's min/max for it are 166 667 / 500 000 bytes: 133 / 400 ms.
        let run = |aqm: Aqm| {
            let mut d = with_aqm(aqm, false, 0);
            let (mut sum, mut n) = (0u64, 0u64);
            let gap_ns = 1_200_000 * 100 / 105;
            for i in 0..52_500u64 {
                let now = i * gap_ns;
                if let Verdict::Accepted { depart_ns, .. } = d.offer(now, 1500, 0) {
                    if i > 40_000 {
                        sum += depart_ns - now;
                        n += 1;
                    }
                }
                while d.pop_due(now).is_some() {}
            }
            sum / n / MS
        };
        let tail = run(Aqm::DropTail);
        let red = run(Aqm::red_for(1_000_000));
        assert!(tail > 750, "drop-tail mean queue {tail} ms");
        assert!((133..400).contains(&red), "RED mean queue {red} ms");
    }

    #[test]
    fn jitter_is_bounded_and_never_reorders() {
        let mut d = with_aqm(Aqm::DropTail, false, 5 * MS);
        let mut last = 0;
        let mut extra = vec![];
        for i in 0..5000u32 {
            let now = i as u64 * 2 * MS;
            let (depart, deliver) = accepted(d.offer(now, 1500, i));
            assert!(deliver >= last);
            last = deliver;
            extra.push(deliver - depart - 10 * MS);
        }
        assert!(extra.iter().all(|&e| e <= 5 * MS));
        let mean = extra.iter().sum::<u64>() as f64 / extra.len() as f64;
        assert!((2.2e6..2.8e6).contains(&mean), "mean jitter {mean}");
    }

    #[test]
    fn a_delay_line_adds_its_delay_in_order() {
        let mut l = DelayLine::new(30 * MS);
        l.push(MS, 'a');
        l.push(2 * MS, 'b');
        assert_eq!(l.next_due_ns(), Some(31 * MS));
        assert_eq!(l.pop_due(30 * MS), None);
        assert_eq!(l.pop_due(31 * MS), Some((31 * MS, 'a')));
        assert_eq!(l.pop_due(40 * MS), Some((32 * MS, 'b')));
        assert_eq!(l.pop_due(40 * MS), None);
    }
}
