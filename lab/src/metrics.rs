//! Per-flow rows and the metrics of the papers.
//!
//! FCT efficiency (Stateful-TCP §V): Ω = T_min / FCT, where
//!   T_min = 2·d_min + S_wire / C
//! d_min is the configured round-trip propagation delay; 1.5·d_min covers the
//! handshake and the request, 0.5·d_min the last byte's one-way trip; over HTTPS one
//! d_min more, TLS 1.3's handshake (the client's Finished goes with the request); for
//! a browser's page one more, the requests for the objects the HTML names (S is then
//! the page's bytes, the HTML and every object); for a keep-alive response on an open
//! connection one d_min less (the request's trip and the response's, no handshake),
//! and C the link's rate during it. S_wire is the
//! flow's bytes as they cross the bottleneck: S plus, for each of its ⌈S/MSS⌉
//! segments, the TCP/IP header bytes (MTU 1500 − MSS: 52 B for IPv4 with timestamps,
//! 72 B for IPv6). C is the bottleneck rate (a trace's average rate for a trace link).

use crate::experiment::Experiment;
use crate::testbed::FlowOutcome;
use serde::{Deserialize, Serialize};

const MTU: u64 = 1500;

/// Every field of one flow and of the run it belongs to (so a row stands alone).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FlowRow {
    pub experiment: String,
    pub workload: String,
    /// "measured", "warmup" for the flow right before it to the same peer, or "primer"
    /// for a warm sweep's first flow, which fills the path table it starts from.
    pub role: String,
    pub cc: String,
    pub cc_kernel: String,
    pub initcwnd: Option<u32>,
    pub size: u64,
    pub rep: u32,
    pub client: usize,
    /// The client-side address of the flow (the peer, from the server's view).
    pub peer: String,
    pub ipv6: bool,
    pub port: u16,
    /// Seconds since the workload started.
    pub start_s: f64,
    pub fct_s: Option<f64>,
    /// The client's connect(), in the FCT: one RTT, or a second more for each SYN or
    /// SYN-ACK lost (the server's controller starts only at its end).
    #[serde(default)]
    pub handshake_ms: Option<f64>,
    pub t_min_s: f64,
    pub omega: Option<f64>,
    pub throughput_mbps: Option<f64>,
    pub retrans: Option<u32>,
    /// A page load: the connections the browser opened (the server's passive opens).
    #[serde(default)]
    pub connections: Option<u32>,
    pub bytes_retrans: Option<u64>,
    pub final_cwnd: Option<u32>,
    pub final_ssthresh: Option<u32>,
    /// cwnd when slow start ended (from the sampled series; needs --sample).
    pub ss_exit_cwnd: Option<u32>,
    pub delivery_rate_mbps: Option<f64>,
    pub min_rtt_ms: Option<f64>,
    pub srtt_ms: Option<f64>,
    /// Time the sender was held back by the receiver's window / its own send buffer.
    pub rwnd_limited_ms: Option<f64>,
    /// Of that, the time until the stateful start's window override ended (s_cubic,
    /// s_bbr; only flows that had one): the override's job is to keep it 0.
    pub override_rwnd_limited_ms: Option<f64>,
    pub sndbuf_limited_ms: Option<f64>,
    pub mss: u32,
    /// The path table's bandwidth for this peer after the flow (headstart controllers).
    pub table_bw_mbps: Option<f64>,
    pub table_min_rtt_ms: Option<f64>,
    /// The controller's own bandwidth estimate at the end (BBR: TCP_CC_INFO).
    pub cc_bw_mbps: Option<f64>,
    /// How the start went (s_cubic, s_bbr): misses, reject_*, validated, rate_limited,
    /// retreat_* (the counters of `headstart status`), with the jump and PipeSize.
    pub resume: Option<String>,
    pub jump_cwnd: Option<u32>,
    /// The rate the start (or an idle restart) jumped from: the entry's, or the
    /// connection's own estimate (Mbit/s).
    pub jump_rate_mbps: Option<f64>,
    pub pipe_pkts: Option<u32>,
    /// The sender saw its receiver discard what the window override let past the real
    /// window (bare duplicate ACKs, and a loss): `rwnd_receiver_overrun`, per flow.
    #[serde(default)]
    pub rwnd_overrun: Option<bool>,
    pub queue_delay_mean_ms: Option<f64>,
    pub queue_delay_max_ms: Option<f64>,
    /// The latest the emulator delivered any of the flow's packets, data or ACK, against
    /// its schedule: a few ms (the emulator preempted) compress what follows, one of the
    /// ACK stalls that GCBE misreads (BENCHMARKS.md at 3c45a21, Issue 12).
    #[serde(default)]
    pub emulator_late_max_ms: Option<f64>,
    pub drops_buffer: Option<u64>,
    pub drops_loss: Option<u64>,
    /// Of the random losses, the server's pure ACKs (no data, SYN or FIN).
    #[serde(default)]
    pub drops_loss_acks: Option<u64>,
    /// Dropped by the bottleneck's RED or CoDel, and marked CE by it.
    #[serde(default)]
    pub drops_aqm: Option<u64>,
    #[serde(default)]
    pub marked_ce: Option<u64>,
    /// Segments the client dropped as beyond its window, counted per flow by the lab
    /// (lab/bpf/lab_discards.bpf.c; their sum is the run's TcpExt BeyondWindow in all but
    /// one run seen): what a window override costs when a jump meets a loss.
    #[serde(default)]
    pub beyond_window: Option<u64>,
    /// Of those, the segments that began inside the client's window and ended past it
    /// while its receive queue held unread data (the kernel's TCP_INVALID_END_SEQUENCE;
    /// the rest began past the edge): a flow's first discard without a hole is one, the
    /// data having run past a receiver whose application had not read all it had.
    #[serde(default)]
    pub beyond_window_unread: Option<u64>,
    pub link_capacity_mbps: f64,
    pub link_rtt_ms: f64,
    pub link_buffer_bytes: u64,
    pub link_loss: f64,
    pub link_trace: Option<String>,
    pub error: Option<String>,
}

/// Ideal flow completion time on an empty path (see the module comment).
pub fn t_min_s(size: u64, mss: u32, rtt_s: f64, capacity_bps: f64) -> f64 {
    let mss = mss.clamp(536, 1460) as u64;
    let segments = size.div_ceil(mss);
    let wire = size + segments * (MTU - mss);
    2.0 * rtt_s + wire as f64 * 8.0 / capacity_bps
}

pub fn jain_index(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    if sq == 0.0 { 1.0 } else { sum * sum / (n * sq) }
}

pub fn median(xs: &mut [f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = xs.len();
    if n % 2 == 1 { xs[n / 2] } else { (xs[n / 2 - 1] + xs[n / 2]) / 2.0 }
}

pub fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() { f64::NAN } else { xs.iter().sum::<f64>() / xs.len() as f64 }
}

impl FlowRow {
    pub fn from_outcome(exp: &Experiment, o: &FlowOutcome, role: &str, rep: u32, ipv6: bool, run_start: std::time::Instant) -> FlowRow {
        let link = &exp.link;
        let srv = o.server.as_ref();
        let mss = srv.map(|s| s.mss).filter(|&m| m > 0).unwrap_or(if ipv6 { 1428 } else { 1448 });
        let rtt_s = link.rtt_ns as f64 / 1e9;
        // TLS: one round trip more. A page: one more, the requests for the objects the
        // HTML names. A keep-alive response: one less and no TLS's (no handshake on an
        // open connection), at the rate the link has then.
        let capacity = link.capacity_bps * exp.keep_alive.map_or(1.0, |k| k.rate);
        let t_min = match exp.keep_alive {
            Some(_) => t_min_s(o.size, mss, rtt_s, capacity) - rtt_s,
            None => t_min_s(o.size, mss, rtt_s, capacity) + if exp.tls { rtt_s } else { 0.0 } + if exp.page.is_some() { rtt_s } else { 0.0 },
        };
        let page = o.page.as_ref();
        let (fct, start, handshake, mut error) = match &o.client_flow {
            Ok(c) => (Some(c.fct.as_secs_f64()), c.start.saturating_duration_since(run_start).as_secs_f64(), Some(c.handshake.as_secs_f64() * 1e3), None),
            Err(e) => (None, 0.0, None, Some(e.clone())),
        };
        if error.is_none() {
            error = srv.and_then(|s| s.error.clone());
        }
        FlowRow {
            experiment: exp.name.clone(),
            workload: exp.workload.kind().into(),
            role: role.into(),
            cc: o.cc.label.clone(),
            cc_kernel: o.cc.kernel.clone(),
            initcwnd: o.cc.initcwnd,
            size: o.size,
            rep,
            client: o.client,
            peer: o.key.ip().to_string(),
            ipv6,
            port: o.key.port,
            start_s: start,
            fct_s: fct,
            handshake_ms: handshake,
            t_min_s: t_min,
            omega: fct.map(|f| (t_min / f).min(1.0)),
            throughput_mbps: fct.map(|f| o.size as f64 * 8.0 / f / 1e6),
            retrans: srv.map(|s| s.retransmits).or(page.map(|p| p.retrans as u32)).or(o.trace.map(|t| t.retrans as u32)),
            connections: page.map(|p| p.connections as u32),
            bytes_retrans: srv.map(|s| s.bytes_retrans),
            final_cwnd: srv.map(|s| s.final_cwnd),
            final_ssthresh: srv.map(|s| s.final_ssthresh),
            ss_exit_cwnd: srv.and_then(|s| crate::traffic::slow_start_exit(&s.series)),
            delivery_rate_mbps: srv.map(|s| s.delivery_rate_bps as f64 / 1e6),
            min_rtt_ms: srv.map(|s| s.min_rtt_us as f64 / 1e3),
            srtt_ms: srv.map(|s| s.srtt_us as f64 / 1e3),
            rwnd_limited_ms: srv.map(|s| s.rwnd_limited_us as f64 / 1e3),
            override_rwnd_limited_ms: o.resume.as_ref().map(|r| r.override_rwnd_limited_ms).filter(|&ms| ms != headstart::bpf::abi::OUTCOME_NONE).map(f64::from),
            sndbuf_limited_ms: srv.map(|s| s.sndbuf_limited_us as f64 / 1e3),
            mss,
            table_bw_mbps: o.table_after.map(|t| t.0 as f64 * 8.0 / 1e6),
            table_min_rtt_ms: o.table_after.map(|t| t.1 as f64 / 1e3),
            cc_bw_mbps: srv.and_then(|s| s.cc_bw_bps).map(|b| b as f64 / 1e6),
            resume: o.resume.as_ref().map(|r| headstart::bpf::outcome_name(r).to_string()).or(page.and_then(|p| p.starts.clone())),
            jump_cwnd: o.resume.as_ref().map(|r| r.jump_cwnd),
            jump_rate_mbps: o.resume.as_ref().map(|r| r.cached_bw_bytes_per_s).filter(|&b| b > 0).map(|b| b as f64 * 8.0 / 1e6),
            pipe_pkts: o.resume.as_ref().map(|r| r.pipe_pkts),
            rwnd_overrun: o.resume.as_ref().map(|r| r.rcv_overrun != 0),
            queue_delay_mean_ms: None,
            queue_delay_max_ms: None,
            emulator_late_max_ms: None,
            drops_buffer: None,
            drops_loss: None,
            drops_loss_acks: None,
            drops_aqm: None,
            marked_ce: None,
            beyond_window: o.trace.map(|t| t.discards.beyond_edge + t.discards.unread),
            beyond_window_unread: o.trace.map(|t| t.discards.unread),
            link_capacity_mbps: link.capacity_bps / 1e6,
            link_rtt_ms: rtt_s * 1e3,
            link_buffer_bytes: link.buffer_bytes,
            link_loss: link.loss,
            link_trace: link.text.trace.as_ref().map(|p| p.display().to_string()),
            error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_min_counts_handshake_and_headers() {
        // 8 KB at 100 Mbit/s, 50 ms: 2 RTT + (8192 + 6*52) B * 8 / 1e8.
        let t = t_min_s(8192, 1448, 0.05, 100e6);
        assert!((t - (0.1 + (8192.0 + 6.0 * 52.0) * 8.0 / 100e6)).abs() < 1e-12);
        // One full segment is exactly one MTU on the wire.
        assert!((t_min_s(1448, 1448, 0.0, 12e6) - 0.001).abs() < 1e-12);
    }

    #[test]
    fn jain() {
        assert!((jain_index(&[1.0, 1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&mut []).is_nan());
    }
}
