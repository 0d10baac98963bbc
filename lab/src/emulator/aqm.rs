//! Active queue management for the bottleneck model: RED (Floyd & Jacobson 1993, as the
//! HyStart paper's router ran it) and CoDel (RFC 8289, as mahimahi and Linux run it).
//! Each decides, for one packet about to join the queue, whether it passes, is dropped,
//! or (ECN-capable, the direction marking) passes with Congestion Experienced set.
//!
//! The model knows a packet's departure the moment it is accepted (the link is FIFO),
//! so CoDel's dequeue-time test runs at enqueue on the sojourn the packet will have: the
//! same decisions in the same order, taken earlier. One simplification: CoDel's "queue
//! at most one MTU" exemption is read from the backlog at arrival, not at departure.

use super::model::SplitMix64;

/// Which queue discipline a direction runs before its drop-tail limit.
#[derive(Clone, Debug, PartialEq)]
pub enum Aqm {
    DropTail,
    /// Thresholds on the average backlog in bytes; `weight` is the EWMA gain per packet.
    Red { min_bytes: u64, max_bytes: u64, max_p: f64, weight: f64 },
    Codel { target_ns: u64, interval_ns: u64 },
}

impl Aqm {
    /// RED as Floyd recommends for a buffer: min = buffer/6 (at least 5 packets),
    /// max = 3 × min, max_p = 0.1, weight 0.002.
    pub fn red_for(buffer_bytes: u64) -> Aqm {
        let min_bytes = (buffer_bytes / 6).max(5 * 1500);
        Aqm::Red { min_bytes, max_bytes: 3 * min_bytes, max_p: 0.1, weight: 0.002 }
    }
    /// CoDel's constants (RFC 8289 §4.2): 5 ms target, 100 ms interval.
    pub fn codel() -> Aqm {
        Aqm::Codel { target_ns: 5_000_000, interval_ns: 100_000_000 }
    }
}

/// What the discipline does with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Pass,
    Drop,
    Mark,
}

/// A congestion signal: marked if the packet can carry it and the direction marks,
/// dropped otherwise.
fn signal(ect: bool, ecn: bool) -> Decision {
    if ect && ecn {
        Decision::Mark
    } else {
        Decision::Drop
    }
}

/// The state of one direction's discipline.
pub struct AqmState {
    aqm: Aqm,
    ecn: bool,
    rng: SplitMix64,
    // RED
    avg_bytes: f64,
    count: i64,
    idle_since_ns: Option<u64>,
    // CoDel
    first_above_ns: u64,
    dropping: bool,
    drop_next_ns: u64,
    codel_count: u32,
    last_count: u32,
}

const MTU: u64 = 1500;

impl AqmState {
    pub fn new(aqm: Aqm, ecn: bool, seed: u64) -> AqmState {
        AqmState {
            aqm,
            ecn,
            rng: SplitMix64::new(seed ^ 0xA9_3D),
            avg_bytes: 0.0,
            count: -1,
            idle_since_ns: None,
            first_above_ns: 0,
            dropping: false,
            drop_next_ns: 0,
            codel_count: 0,
            last_count: 0,
        }
    }

    /// RED's decision for a packet arriving at `now_ns` on a backlog of `queued_bytes`;
    /// `tx_ns_per_mtu` ages the average over an idle period (as if small packets had
    /// passed through an empty queue).
    fn red(&mut self, now_ns: u64, queued_bytes: u64, tx_ns_per_mtu: u64, ect: bool) -> Decision {
        let Aqm::Red { min_bytes, max_bytes, max_p, weight } = self.aqm else { return Decision::Pass };
        match self.idle_since_ns.take() {
            Some(since) if queued_bytes == 0 => {
                let m = (now_ns.saturating_sub(since) / tx_ns_per_mtu.max(1)) as i32;
                self.avg_bytes *= (1.0 - weight).powi(m.min(100_000));
            }
            _ => self.avg_bytes = (1.0 - weight) * self.avg_bytes + weight * queued_bytes as f64,
        }
        if self.avg_bytes < min_bytes as f64 {
            self.count = -1;
            return Decision::Pass;
        }
        if self.avg_bytes >= max_bytes as f64 {
            self.count = 0;
            return signal(ect, self.ecn);
        }
        self.count += 1;
        let pb = max_p * (self.avg_bytes - min_bytes as f64) / (max_bytes - min_bytes) as f64;
        // Spread the signals out: pa grows with the packets since the last one.
        let pa = if self.count as f64 * pb >= 1.0 { 1.0 } else { pb / (1.0 - self.count as f64 * pb) };
        if self.rng.next_f64() < pa {
            self.count = 0;
            return signal(ect, self.ecn);
        }
        Decision::Pass
    }

    /// The queue went empty at `now_ns` (RED ages its average from then).
    pub fn queue_emptied(&mut self, now_ns: u64) {
        if matches!(self.aqm, Aqm::Red { .. }) && self.idle_since_ns.is_none() {
            self.idle_since_ns = Some(now_ns);
        }
    }

    /// CoDel's control law: the next signal `interval / sqrt(count)` after `t`.
    fn control_law(&self, t: u64, interval_ns: u64) -> u64 {
        t + (interval_ns as f64 / (self.codel_count.max(1) as f64).sqrt()) as u64
    }

    /// CoDel's decision for a packet that leaves the queue at `dequeue_ns` having waited
    /// `sojourn_ns`, with `backlog_bytes` behind it.
    fn codel(&mut self, dequeue_ns: u64, sojourn_ns: u64, backlog_bytes: u64, ect: bool) -> Decision {
        let Aqm::Codel { target_ns, interval_ns } = self.aqm else { return Decision::Pass };
        let now = dequeue_ns;
        let ok_to_drop = if sojourn_ns < target_ns || backlog_bytes <= MTU {
            self.first_above_ns = 0;
            false
        } else if self.first_above_ns == 0 {
            self.first_above_ns = now + interval_ns;
            false
        } else {
            now >= self.first_above_ns
        };
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
                return Decision::Pass;
            }
            if now >= self.drop_next_ns {
                self.codel_count += 1;
                self.drop_next_ns = self.control_law(self.drop_next_ns, interval_ns);
                return signal(ect, self.ecn);
            }
            return Decision::Pass;
        }
        if ok_to_drop {
            self.dropping = true;
            // Re-entering soon after the last episode: start near the rate that worked.
            let delta = self.codel_count.saturating_sub(self.last_count);
            self.codel_count = if delta > 1 && now.saturating_sub(self.drop_next_ns) < 16 * interval_ns { delta } else { 1 };
            self.drop_next_ns = self.control_law(now, interval_ns);
            self.last_count = self.codel_count;
            return signal(ect, self.ecn);
        }
        Decision::Pass
    }

    /// The decision for one packet: it arrives at `now_ns` on `queued_bytes` of backlog
    /// and, if let in, would leave at `depart_ns`.
    pub fn decide(&mut self, now_ns: u64, depart_ns: u64, queued_bytes: u64, tx_ns_per_mtu: u64, ect: bool) -> Decision {
        match self.aqm {
            Aqm::DropTail => Decision::Pass,
            Aqm::Red { .. } => self.red(now_ns, queued_bytes, tx_ns_per_mtu, ect),
            Aqm::Codel { .. } => self.codel(depart_ns, depart_ns.saturating_sub(now_ns), queued_bytes, ect),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn red_passes_below_min_and_signals_above_max() {
        let mut s = AqmState::new(Aqm::Red { min_bytes: 15_000, max_bytes: 45_000, max_p: 0.1, weight: 1.0 }, false, 1);
        assert_eq!(s.decide(0, 0, 10_000, 120_000, true), Decision::Pass);
        assert_eq!(s.decide(1, 1, 50_000, 120_000, true), Decision::Drop);
        let mut marking = AqmState::new(Aqm::Red { min_bytes: 15_000, max_bytes: 45_000, max_p: 0.1, weight: 1.0 }, true, 1);
        assert_eq!(marking.decide(1, 1, 50_000, 120_000, true), Decision::Mark);
        // A packet that cannot carry the mark is dropped instead.
        assert_eq!(marking.decide(2, 2, 50_000, 120_000, false), Decision::Drop);
    }

    #[test]
    fn red_signals_at_about_the_linear_probability_between_thresholds() {
        // avg pinned at the middle: pb = max_p / 2 = 0.05, and the count spreading makes
        // the signals uniform with mean spacing ~ 1/(2 pb) ... 1/pb packets.
        let mut s = AqmState::new(Aqm::Red { min_bytes: 15_000, max_bytes: 45_000, max_p: 0.1, weight: 1.0 }, false, 7);
        let n = 100_000;
        let drops = (0..n).filter(|&i| s.decide(i, i, 30_000, 120_000, true) == Decision::Drop).count();
        let rate = drops as f64 / n as f64;
        assert!((0.05..0.11).contains(&rate), "signal rate {rate}");
    }

    #[test]
    fn red_average_follows_slowly_and_decays_over_idle() {
        let mut s = AqmState::new(Aqm::red_for(600_000), false, 1);
        // A burst to a full buffer does not move a 0.002-gain average past min at once.
        for i in 0..50 {
            assert_eq!(s.decide(i, i, 600_000, 120_000, true), Decision::Pass);
        }
        for i in 0..5000 {
            s.decide(i, i, 600_000, 120_000, true);
        }
        assert!(s.avg_bytes > 500_000.0);
        s.queue_emptied(10 * MS);
        s.decide(1000 * MS, 1000 * MS, 0, 120_000, true);
        assert!(s.avg_bytes < 1.0, "avg after a second idle: {}", s.avg_bytes);
    }

    #[test]
    fn codel_waits_an_interval_above_target_then_signals_faster_and_faster() {
        let mut s = AqmState::new(Aqm::codel(), false, 1);
        let backlog = 100_000;
        // Below target: never.
        for t in 0..300 {
            assert_eq!(s.decide(t * MS, t * MS + 4 * MS, backlog, 120_000, false), Decision::Pass);
        }
        // Above target from 300 ms on: the first drop one interval later.
        let mut drops = Vec::new();
        for t in 300..1300 {
            let now = t * MS;
            if s.decide(now - 10 * MS, now, backlog, 120_000, false) == Decision::Drop {
                drops.push(t);
            }
        }
        assert_eq!(drops[0], 400, "first drop one interval after the sojourn rose: {drops:?}");
        // Then at interval/sqrt(n): 100, 70.7, 57.7, 50 ms ... apart.
        let gaps: Vec<u64> = drops.windows(2).map(|w| w[1] - w[0]).collect();
        assert_eq!(&gaps[..4], &[100, 71, 58, 50], "{drops:?}");
        // Back below target: it stops at once.
        assert_eq!(s.decide(1300 * MS, 1300 * MS + MS, backlog, 120_000, false), Decision::Pass);
        assert!(!s.dropping);
    }

    #[test]
    fn codel_does_not_signal_on_a_backlog_of_one_packet_and_marks_with_ecn() {
        let mut s = AqmState::new(Aqm::codel(), true, 1);
        for t in 0..500 {
            assert_eq!(s.decide(t * MS, t * MS + 20 * MS, 1500, 120_000, true), Decision::Pass);
        }
        let marks = (500..1000).filter(|&t| s.decide(t * MS, t * MS + 20 * MS, 50_000, 120_000, true) == Decision::Mark).count();
        assert!(marks >= 3, "{marks}");
    }
}
