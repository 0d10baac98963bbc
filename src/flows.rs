//! `headstart flows`: the live TCP flows of headstart's controllers, what `ss` shows
//! of them (cwnd, RTT, delivery rate) beside what only headstart knows (hs_outcomes:
//! hit or miss, the Careful Resume phase, the start window, the cached rate).

use crate::bpf::{self, abi, table};
use anyhow::{Context, Result};
use serde::Serialize;
use std::net::{IpAddr, SocketAddr};

#[derive(Debug, Serialize)]
pub struct FlowReport {
    pub local: String,
    pub peer: String,
    pub cc: String,
    /// How the start went (a counter name: misses, jumps, validated, retreat_loss, shadow_would_jump, off ...);
    /// None if the flow began before the controllers' outcome log (or it was evicted).
    pub start: Option<&'static str>,
    /// Careful Resume phase: none, unvalidated, validating, normal, retreat.
    pub phase: Option<&'static str>,
    /// The jump's window in packets (0: no jump).
    pub start_cwnd: Option<u32>,
    /// The entry's rate the start used (shadow mode: would have used).
    pub cached_bw_bytes_per_s: Option<u64>,
    /// The receiver discarded what the window override let past its real window.
    pub receiver_overrun: Option<bool>,
    /// The kernel's latest delivery-rate sample.
    pub delivery_rate_bytes_per_s: Option<u64>,
    pub cwnd: Option<u32>,
    pub srtt_us: Option<u64>,
    pub min_rtt_us: Option<u64>,
    pub bytes_acked: Option<u64>,
}

/// One socket as `ss -tinH state established` prints it (two lines).
#[derive(Debug, Default, PartialEq)]
struct SsSocket {
    local: Option<SocketAddr>,
    peer: Option<SocketAddr>,
    cc: String,
    cwnd: Option<u32>,
    srtt_us: Option<u64>,
    min_rtt_us: Option<u64>,
    delivery_bps: Option<u64>,
    bytes_acked: Option<u64>,
}

fn parse_endpoint(s: &str) -> Option<SocketAddr> {
    let (host, port) = s.rsplit_once(':')?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let host = host.split('%').next()?; // fe80::1%eth0
    Some(SocketAddr::new(host.parse().ok()?, port.parse().ok()?))
}

/// "12.5Mbps", "830Kbps", "27111024bps" in bits per second.
fn parse_ss_rate(s: &str) -> Option<u64> {
    let num = s.strip_suffix("bps")?;
    let (digits, mult) = match num.chars().last()? {
        'K' => (&num[..num.len() - 1], 1e3),
        'M' => (&num[..num.len() - 1], 1e6),
        'G' => (&num[..num.len() - 1], 1e9),
        'T' => (&num[..num.len() - 1], 1e12),
        _ => (num, 1.0),
    };
    digits.parse::<f64>().ok().map(|v| (v * mult) as u64)
}

fn ms_to_us(s: &str) -> Option<u64> {
    s.parse::<f64>().ok().map(|ms| (ms * 1000.0).round() as u64)
}

fn parse_ss(text: &str) -> Vec<SsSocket> {
    let mut out: Vec<SsSocket> = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            continue;
        }
        if !line.starts_with(char::is_whitespace) {
            // recv-q send-q local peer [process]
            let f: Vec<&str> = line.split_whitespace().collect();
            let at = f.iter().position(|t| parse_endpoint(t).is_some());
            out.push(SsSocket { local: at.and_then(|i| parse_endpoint(f[i])), peer: at.and_then(|i| f.get(i + 1)).and_then(|t| parse_endpoint(t)), ..Default::default() });
            continue;
        }
        let Some(sock) = out.last_mut() else { continue };
        let toks: Vec<&str> = line.split_whitespace().collect();
        for (i, t) in toks.iter().enumerate() {
            if i == 0 && !t.contains(':') {
                sock.cc = t.to_string();
            } else if let Some(v) = t.strip_prefix("cwnd:") {
                sock.cwnd = v.parse().ok();
            } else if let Some(v) = t.strip_prefix("rtt:") {
                sock.srtt_us = v.split('/').next().and_then(ms_to_us);
            } else if let Some(v) = t.strip_prefix("minrtt:") {
                sock.min_rtt_us = ms_to_us(v);
            } else if let Some(v) = t.strip_prefix("bytes_acked:") {
                sock.bytes_acked = v.parse().ok();
            } else if *t == "delivery_rate" {
                sock.delivery_bps = toks.get(i + 1).and_then(|r| parse_ss_rate(r));
            }
        }
    }
    out
}

/// The live flows of headstart's controllers in network namespace `netns` (by name),
/// or here.
pub fn flows(netns: Option<&str>) -> Result<Vec<FlowReport>> {
    crate::sys::require_root()?;
    let args = ["-tinH", "state", "established"];
    let text = match netns {
        Some(ns) => {
            anyhow::ensure!(!ns.is_empty() && !ns.contains('/'), "'{ns}' is not a namespace name");
            crate::sys::run("ip", &[&["netns", "exec", ns, "ss"][..], &args[..]].concat())
        }
        None => crate::sys::run("ss", &args),
    }
    .context("listing sockets with ss (Debian package iproute2)")?;
    let outcomes = bpf::pinned_map("hs_outcomes").ok();
    let netns_ino = crate::sys::netns_ino(netns)?;
    let mut out = Vec::new();
    for s in parse_ss(&text) {
        let (Some(local), Some(peer)) = (s.local, s.peer) else { continue };
        if !bpf::is_ours(&s.cc) {
            continue;
        }
        let key = abi::FlowKey { peer: table::addr_to_key(peer.ip()), local: table::addr_to_key(local.ip()), peer_port: peer.port(), local_port: local.port(), netns_ino };
        let o: Option<abi::FlowOutcome> = outcomes.as_ref().and_then(|m| m.get::<abi::FlowKey, abi::FlowOutcome>(&key).ok().flatten()).filter(|o| o.released == 0);
        out.push(FlowReport {
            local: show(local),
            peer: show(peer),
            start: o.map(|o| bpf::outcome_name(&o)),
            phase: o.map(|o| abi::PHASES.get(o.phase as usize).copied().unwrap_or("?")),
            start_cwnd: o.map(|o| o.jump_cwnd),
            cached_bw_bytes_per_s: o.map(|o| o.cached_bw_bytes_per_s).filter(|b| *b > 0),
            receiver_overrun: o.map(|o| o.rcv_overrun != 0),
            delivery_rate_bytes_per_s: s.delivery_bps.map(|b| b / 8),
            cwnd: s.cwnd,
            srtt_us: s.srtt_us,
            min_rtt_us: s.min_rtt_us,
            bytes_acked: s.bytes_acked,
            cc: s.cc,
        });
    }
    Ok(out)
}

/// An endpoint with IPv4-mapped addresses shown as IPv4 (the table's convention).
fn show(a: SocketAddr) -> String {
    let ip = table::key_to_addr(&table::addr_to_key(a.ip()));
    match ip {
        IpAddr::V4(v4) => format!("{v4}:{}", a.port()),
        IpAddr::V6(v6) => format!("[{v6}]:{}", a.port()),
    }
}

pub fn text(flows: &[FlowReport]) -> String {
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    t.set_header(vec!["peer", "local", "cc", "start", "phase", "start cwnd", "cached", "receiver overrun", "delivery rate", "cwnd", "srtt ms"]);
    let rate = |b: Option<u64>| b.map(|b| crate::units::fmt_rate(b as f64 * 8.0)).unwrap_or_else(|| "-".into());
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    for f in flows {
        t.add_row(vec![
            f.peer.clone(),
            f.local.clone(),
            f.cc.clone(),
            opt(f.start.map(str::to_string)),
            opt(f.phase.map(str::to_string)),
            opt(f.start_cwnd.map(|c| c.to_string())),
            rate(f.cached_bw_bytes_per_s),
            opt(f.receiver_overrun.map(|o| if o { "yes" } else { "no" }.to_string())),
            rate(f.delivery_rate_bytes_per_s),
            opt(f.cwnd.map(|c| c.to_string())),
            opt(f.srtt_us.map(|r| format!("{:.2}", r as f64 / 1e3))),
        ]);
    }
    format!("{t}\n{} headstart flows", flows.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ss_output_is_parsed() {
        let text = "0      0      10.77.0.1:5201 10.77.1.1:40000\n\t s_cubic wscale:7,7 rto:204 rtt:20.5/1.2 mss:1448 cwnd:433 bytes_acked:1048577 delivery_rate 95.2Mbps pacing_rate 120Mbps minrtt:20.1\n\
0 0 [fd77::1]:80 [fd77::1:1]:5555\n\t cubic wscale:7,7 rtt:0.05/0.02 cwnd:10 delivery_rate 27111024bps\n\
0 0 [::ffff:10.0.0.1]:80 [::ffff:10.0.0.2]:9\n\t bbr cwnd:20 delivery_rate 830Kbps\n";
        let s = parse_ss(text);
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].cc, "s_cubic");
        assert_eq!(s[0].local, Some("10.77.0.1:5201".parse().unwrap()));
        assert_eq!(s[0].peer, Some("10.77.1.1:40000".parse().unwrap()));
        assert_eq!((s[0].cwnd, s[0].srtt_us, s[0].min_rtt_us, s[0].bytes_acked), (Some(433), Some(20_500), Some(20_100), Some(1_048_577)));
        assert_eq!(s[0].delivery_bps, Some(95_200_000));
        assert_eq!(s[1].peer, Some("[fd77::1:1]:5555".parse().unwrap()));
        assert_eq!(s[1].delivery_bps, Some(27_111_024));
        assert_eq!(s[2].delivery_bps, Some(830_000));
        assert_eq!(show(s[2].peer.unwrap()), "10.0.0.2:9");
        assert!(parse_ss("garbage\n\t more garbage\n").iter().all(|s| s.local.is_none()));
    }
}
