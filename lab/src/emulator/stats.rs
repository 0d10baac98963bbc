//! What the emulator reports: its own accuracy (lateness against the model's
//! schedule), what the model dropped, what was lost outside the model, and per-flow
//! bottleneck statistics.

use super::model::{DirectionCounters, LinkRate};
use super::runner::EmulatorSpec;
use serde::Serialize;
use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};

/// A histogram of microsecond values: 1 us resolution below 1 ms, 100 us up to 1 s.
#[derive(Clone, Debug)]
pub struct Histogram {
    counts: Vec<u64>,
    pub total: u64,
    pub max: u64,
    sum: u128,
}

const FINE_LIMIT_US: u64 = 1000;
const COARSE_STEP_US: u64 = 100;
const COARSE_LIMIT_US: u64 = 1_000_000;

impl Default for Histogram {
    fn default() -> Self {
        let buckets = FINE_LIMIT_US + (COARSE_LIMIT_US - FINE_LIMIT_US) / COARSE_STEP_US + 1;
        Histogram { counts: vec![0; buckets as usize], total: 0, max: 0, sum: 0 }
    }
}

impl Histogram {
    pub fn record(&mut self, us: u64) {
        let b = if us < FINE_LIMIT_US {
            us
        } else {
            (FINE_LIMIT_US + (us.min(COARSE_LIMIT_US) - FINE_LIMIT_US) / COARSE_STEP_US).min(self.counts.len() as u64 - 1)
        };
        self.counts[b as usize] += 1;
        self.total += 1;
        self.max = self.max.max(us);
        self.sum += us as u128;
    }

    fn bucket_value(b: usize) -> u64 {
        let b = b as u64;
        if b < FINE_LIMIT_US { b } else { FINE_LIMIT_US + (b - FINE_LIMIT_US) * COARSE_STEP_US }
    }

    /// The value below which a fraction `q` of the samples lie (bucket lower bound).
    pub fn percentile(&self, q: f64) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Self::bucket_value(b) as f64;
            }
        }
        self.max as f64
    }

    pub fn mean(&self) -> f64 {
        if self.total == 0 { 0.0 } else { self.sum as f64 / self.total as f64 }
    }

    pub fn count_at_least(&self, us: u64) -> u64 {
        let from = if us < FINE_LIMIT_US { us } else { FINE_LIMIT_US + (us - FINE_LIMIT_US) / COARSE_STEP_US };
        self.counts[from as usize..].iter().sum()
    }
}

/// A flow named by its client end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlowKey {
    pub addr: [u8; 16],
    pub port: u16,
}

impl FlowKey {
    pub fn new(addr: IpAddr, port: u16) -> FlowKey {
        FlowKey { addr: super::runner::key16(addr), port }
    }
    pub fn ip(&self) -> IpAddr {
        let v6 = Ipv6Addr::from(self.addr);
        match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(v6),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct FlowStats {
    /// When the client's SYN reached the emulator (emulator clock, ns).
    pub first_ns: Option<u64>,
    /// The lab's label when that SYN came (`Emulator::label_new_flows`; 0: none).
    pub label: u64,
    pub last_ns: u64,
    pub down_packets: u64,
    pub down_bytes: u64,
    pub down_dropped_buffer: u64,
    pub down_dropped_loss: u64,
    /// Of those, pure ACKs (no data, SYN or FIN): whether a server sends one (or
    /// piggybacks it on data) depends on timing, so twin flows may differ by them.
    pub down_dropped_loss_acks: u64,
    /// Dropped by RED or CoDel, and marked CE instead of dropped.
    pub down_dropped_aqm: u64,
    pub down_marked_ce: u64,
    pub up_packets: u64,
    pub up_dropped: u64,
    /// Time in the bottleneck (buffer wait + own transmission), summed over packets.
    pub queue_delay_sum_ns: u64,
    pub queue_delay_max_ns: u64,
    /// The latest any of its packets (data or ACK) was delivered against the model's
    /// schedule: a preempted emulator holds a flow's packets, then writes them at once.
    pub late_max_ns: u64,
    /// Delivered downlink bytes per bin of `series_bin_ns`, from the emulator's start.
    pub series: Vec<u64>,
    /// With `EmulatorSpec::packet_series`: (delivery ns, time in the bottleneck µs) of
    /// every data packet, in order (S-Cubic Fig. 9).
    pub packets: Vec<(u64, u32)>,
    /// When each retransmitted data segment reached the bottleneck (emulator ns).
    pub retransmissions_ns: Vec<u64>,
}

impl FlowStats {
    /// Adds another connection's counts (one outcome of several connections).
    pub fn add(&mut self, o: &FlowStats) {
        self.first_ns = match (self.first_ns, o.first_ns) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.last_ns = self.last_ns.max(o.last_ns);
        self.down_packets += o.down_packets;
        self.down_bytes += o.down_bytes;
        self.down_dropped_buffer += o.down_dropped_buffer;
        self.down_dropped_loss += o.down_dropped_loss;
        self.down_dropped_loss_acks += o.down_dropped_loss_acks;
        self.down_dropped_aqm += o.down_dropped_aqm;
        self.down_marked_ce += o.down_marked_ce;
        self.up_packets += o.up_packets;
        self.up_dropped += o.up_dropped;
        self.queue_delay_sum_ns += o.queue_delay_sum_ns;
        self.queue_delay_max_ns = self.queue_delay_max_ns.max(o.queue_delay_max_ns);
        self.late_max_ns = self.late_max_ns.max(o.late_max_ns);
        if self.series.len() < o.series.len() {
            self.series.resize(o.series.len(), 0);
        }
        for (a, b) in self.series.iter_mut().zip(&o.series) {
            *a += b;
        }
        self.packets.extend_from_slice(&o.packets);
        self.packets.sort_unstable();
        self.retransmissions_ns.extend_from_slice(&o.retransmissions_ns);
        self.retransmissions_ns.sort_unstable();
    }

    pub fn mean_queue_delay_ms(&self) -> f64 {
        if self.down_packets == 0 { 0.0 } else { self.queue_delay_sum_ns as f64 / self.down_packets as f64 / 1e6 }
    }
}

/// Drops that happened outside the model, read from the kernel around the run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ExternalDrops {
    /// Packets the kernel dropped because a TUN queue towards the emulator was full.
    pub tun_tx_dropped: u64,
    /// Packets the kernel dropped when the emulator wrote them (TUN rx_dropped).
    pub tun_rx_dropped: u64,
    /// /proc/net/softnet_stat "dropped" (backlog full), all CPUs, during the run.
    pub softnet_dropped: u64,
}

#[derive(Clone, Debug)]
pub struct EmulatorReport {
    pub rate_down: String,
    pub elapsed_ns: u64,
    pub down: DirectionCounters,
    pub up: DirectionCounters,
    pub lateness_us: Histogram,
    /// The uplink's deliveries alone (ACKs), to tell which direction ran late.
    pub up_lateness_us: Histogram,
    pub down_queue_delay_us: Histogram,
    /// Times the emulator thread was preempted (nonvoluntary context switches): another
    /// task on its core, the first suspect of a late delivery.
    pub preemptions: u64,
    /// Time the hypervisor took the emulator's core away (steal) over the run, ms.
    pub steal_ms: u64,
    pub flows: HashMap<FlowKey, FlowStats>,
    pub unroutable: u64,
    pub write_errors: u64,
    pub pool_slots: u64,
    pub pool_locked: bool,
    pub pool_grown: u64,
    pub pool_exhausted: u64,
    pub external: ExternalDrops,
    /// The server's kernel TCP counters over the run (non-zero TcpExt fields).
    pub server_tcpext: std::collections::BTreeMap<String, u64>,
    /// The same for the clients (receiver-side drops show here: TCPRcvQDrop, ...).
    pub client_tcpext: std::collections::BTreeMap<String, u64>,
}

/// Which of the emulator's flows (client ends) one outcome of the lab was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Connections {
    /// `count` consecutive ports from the key's (curl's parallel connections take a range).
    Ports { key: FlowKey, count: u16 },
    /// Every flow labelled so (`Emulator::label_new_flows`): a page load's, whose ports
    /// the browser picks. Page loads run one at a time.
    Labelled(u64),
}

impl Connections {
    /// Its flows among the emulator's, their counts added; None if it saw none of them.
    pub fn stats_in(self, flows: &HashMap<FlowKey, FlowStats>) -> Option<FlowStats> {
        let mut sum: Option<FlowStats> = None;
        let mut add = |st: &FlowStats| sum.get_or_insert_with(FlowStats::default).add(st);
        match self {
            Connections::Ports { key, count } => {
                for port in key.port..key.port.saturating_add(count.max(1)) {
                    if let Some(st) = flows.get(&FlowKey { port, ..key }) {
                        add(st);
                    }
                }
            }
            Connections::Labelled(0) => {}
            Connections::Labelled(label) => flows.values().filter(|st| st.label == label).for_each(add),
        }
        sum
    }
}

impl EmulatorReport {
    pub fn new(spec: &EmulatorSpec) -> Self {
        let rate_down = match &spec.down.rate {
            LinkRate::Constant { bits_per_sec } => headstart::units::fmt_rate(*bits_per_sec as f64),
            LinkRate::Trace(t) => format!("trace avg {}", headstart::units::fmt_rate(t.average_bits_per_sec())),
        };
        EmulatorReport {
            rate_down,
            elapsed_ns: 0,
            down: Default::default(),
            up: Default::default(),
            lateness_us: Histogram::default(),
            up_lateness_us: Histogram::default(),
            down_queue_delay_us: Histogram::default(),
            preemptions: 0,
            steal_ms: 0,
            flows: HashMap::new(),
            unroutable: 0,
            write_errors: 0,
            pool_slots: 0,
            pool_locked: false,
            pool_grown: 0,
            pool_exhausted: 0,
            external: ExternalDrops::default(),
            server_tcpext: Default::default(),
            client_tcpext: Default::default(),
        }
    }

    pub fn summary(&self) -> AccuracySummary {
        let l = &self.lateness_us;
        let p99 = l.percentile(0.99) / 1000.0;
        let mut s = AccuracySummary {
            packets: l.total,
            lateness_p50_ms: l.percentile(0.50) / 1000.0,
            lateness_p99_ms: p99,
            lateness_p999_ms: l.percentile(0.999) / 1000.0,
            lateness_max_ms: l.max as f64 / 1000.0,
            late_over_1ms: l.count_at_least(1000),
            up_lateness_p99_ms: self.up_lateness_us.percentile(0.99) / 1000.0,
            preemptions: self.preemptions,
            steal_ms: self.steal_ms,
            down_delivered: self.down.delivered,
            down_dropped_buffer: self.down.dropped_buffer,
            down_dropped_loss: self.down.dropped_loss,
            up_delivered: self.up.delivered,
            up_dropped_buffer: self.up.dropped_buffer,
            up_dropped_loss: self.up.dropped_loss,
            queue_delay_mean_ms: self.down_queue_delay_us.mean() / 1000.0,
            queue_delay_p99_ms: self.down_queue_delay_us.percentile(0.99) / 1000.0,
            external: self.external.clone(),
            write_errors: self.write_errors,
            unroutable: self.unroutable,
            pool_grown: self.pool_grown,
            pool_exhausted: self.pool_exhausted,
            trustworthy: false,
            warnings: Vec::new(),
        };
        if p99 > LATENESS_P99_LIMIT_MS {
            s.warnings.push(format!("p99 lateness {p99:.2} ms exceeds {LATENESS_P99_LIMIT_MS} ms"));
        }
        let outside = s.lost_outside_model();
        if outside > 0 {
            s.warnings.push(format!("{outside} packets lost outside the model (TUN queue, backlog or write errors)"));
        }
        if !self.pool_locked {
            s.warnings.push("packet pool could not be locked in memory".into());
        }
        s.trustworthy = s.warnings.is_empty();
        s
    }
}

/// A run whose p99 lateness exceeds this is flagged (the VM's own timer noise is
/// ~0.7 ms at p99; the prototype measured 0.1-1.5 ms).
pub const LATENESS_P99_LIMIT_MS: f64 = 1.5;

#[derive(Clone, Debug, Serialize)]
pub struct AccuracySummary {
    pub packets: u64,
    pub lateness_p50_ms: f64,
    pub lateness_p99_ms: f64,
    pub lateness_p999_ms: f64,
    pub lateness_max_ms: f64,
    pub late_over_1ms: u64,
    pub up_lateness_p99_ms: f64,
    pub preemptions: u64,
    pub steal_ms: u64,
    pub down_delivered: u64,
    pub down_dropped_buffer: u64,
    pub down_dropped_loss: u64,
    pub up_delivered: u64,
    pub up_dropped_buffer: u64,
    pub up_dropped_loss: u64,
    pub queue_delay_mean_ms: f64,
    pub queue_delay_p99_ms: f64,
    pub external: ExternalDrops,
    pub write_errors: u64,
    pub unroutable: u64,
    pub pool_grown: u64,
    pub pool_exhausted: u64,
    pub trustworthy: bool,
    pub warnings: Vec<String>,
}

impl AccuracySummary {
    /// Packets lost outside the emulated link: the TUN queue, the backlog, write errors.
    pub fn lost_outside_model(&self) -> u64 {
        self.external.tun_tx_dropped + self.external.tun_rx_dropped + self.external.softnet_dropped + self.write_errors
    }

    pub fn one_line(&self) -> String {
        format!(
            "emulator: {} pkts, lateness p50 {:.3} ms p99 {:.3} ms max {:.2} ms ({} preemptions, {} ms stolen); model drops: buffer {} loss {} (down), {} {} (up); outside model: tun {} backlog {}{}",
            self.packets,
            self.lateness_p50_ms,
            self.lateness_p99_ms,
            self.lateness_max_ms,
            self.preemptions,
            self.steal_ms,
            self.down_dropped_buffer,
            self.down_dropped_loss,
            self.up_dropped_buffer,
            self.up_dropped_loss,
            self.external.tun_tx_dropped + self.external.tun_rx_dropped,
            self.external.softnet_dropped,
            if self.trustworthy { String::new() } else { format!("  !! {}", self.warnings.join("; ")) }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_percentiles() {
        let mut h = Histogram::default();
        for us in 0..1000 {
            h.record(us);
        }
        assert_eq!(h.percentile(0.5), 499.0);
        assert_eq!(h.percentile(0.99), 989.0);
        h.record(250_000);
        assert_eq!(h.max, 250_000);
        assert_eq!(h.percentile(1.0), 250_000.0);
        assert_eq!(h.count_at_least(1000), 1);
        let mut big = Histogram::default();
        big.record(5_000_000); // beyond the last bucket: clamped, max kept exact
        assert_eq!(big.max, 5_000_000);
        assert_eq!(big.total, 1);
    }

    #[test]
    fn an_outcomes_connections_are_added_up() {
        let at = |port| FlowKey::new("10.77.1.1".parse().unwrap(), port);
        let flow = |label, drops, queue_ns, max_ns| FlowStats {
            label,
            down_packets: 10,
            down_dropped_buffer: drops,
            queue_delay_sum_ns: queue_ns,
            queue_delay_max_ns: max_ns,
            series: vec![1, 2],
            first_ns: Some(label * 100 + drops),
            ..Default::default()
        };
        let flows: HashMap<FlowKey, FlowStats> = [
            (at(40000), flow(0, 1, 10_000_000, 3)),
            (at(40001), flow(0, 2, 30_000_000, 9)),
            (at(40002), flow(0, 4, 0, 1)),
            (at(50000), flow(7, 8, 0, 0)),
            (at(50417), flow(7, 16, 0, 0)),
            (at(50500), flow(8, 32, 0, 0)),
        ]
        .into();
        let two = Connections::Ports { key: at(40000), count: 2 }.stats_in(&flows).unwrap();
        assert_eq!((two.down_dropped_buffer, two.down_packets, two.queue_delay_max_ns), (3, 20, 9));
        assert_eq!(two.mean_queue_delay_ms(), 2.0);
        assert_eq!((two.series, two.first_ns), (vec![2, 4], Some(1)));
        assert_eq!(Connections::Ports { key: at(40002), count: 1 }.stats_in(&flows).unwrap().down_dropped_buffer, 4);
        // A page's connections, wherever the browser put them; another load's apart.
        assert_eq!(Connections::Labelled(7).stats_in(&flows).unwrap().down_dropped_buffer, 24);
        assert!(Connections::Labelled(9).stats_in(&flows).is_none());
        assert!(Connections::Labelled(0).stats_in(&flows).is_none(), "0 labels nothing");
        assert!(Connections::Ports { key: at(40003), count: 1 }.stats_in(&flows).is_none());
    }
}
