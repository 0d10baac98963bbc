//! What the read commands report (`status`, `config`, `table get/list`): one struct
//! each, printed as text for people or as JSON (`--json`) for programs and tests.
//! The JSON field names are the schema; the README documents them.

use super::abi::{KnobSet, KnobValues, PathEntry};
use super::{table, Peer, CONTROLLERS, PIN_DIR};
use crate::sys;
use crate::units::fmt_rate;
use anyhow::Result;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::HashMap;

#[derive(Serialize)]
pub struct ControllerStatus {
    pub name: &'static str,
    pub loaded: bool,
    /// Registered by another headstart build (its programs are not this binary's):
    /// `headstart load` replaces them.
    pub other_build: bool,
    /// Counter name -> count (summed over CPUs), in records.h's order; empty when
    /// nothing is pinned.
    pub counters: Map<String, Value>,
}

#[derive(Serialize)]
pub struct TableStatus {
    pub entries: usize,
    pub capacity: u32,
    pub pin: String,
}

#[derive(Serialize)]
pub struct Status {
    pub default_cc: String,
    pub controllers: Vec<ControllerStatus>,
    /// None when nothing was ever loaded.
    pub table: Option<TableStatus>,
    pub knobs: Option<KnobsReport>,
    pub rwnd_rewrites: u64,
}

/// Knob name -> value as `headstart config` takes it, in the knob table's order.
#[derive(Serialize)]
#[serde(transparent)]
pub struct KnobsReport(pub Map<String, Value>);

impl KnobsReport {
    pub fn of<S: KnobSet>(k: &KnobValues<S>) -> KnobsReport {
        KnobsReport(k.iter().map(|(knob, v)| (knob.name.to_string(), Value::from(knob.format(v)))).collect())
    }

    /// One `name = value` line per knob, in the knob table's order.
    pub fn text<S: KnobSet>(k: &KnobValues<S>) -> String {
        k.iter().map(|(knob, v)| format!("{} = {}\n", knob.name, knob.format(v))).collect()
    }
}

#[derive(Serialize)]
pub struct EntryReport {
    pub peer: String,
    /// The network namespace whose flows use it (`ip netns` name, or `#cookie`); absent: the host's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub netns: Option<String>,
    pub bw_bytes_per_s: u64,
    pub min_rtt_us: u32,
    pub flows: u32,
    pub age_s: f64,
    pub source: &'static str,
    /// A storing flow lost packets with no queue in its RTT (random loss): jumps to it
    /// get no window override.
    pub lossy: bool,
    /// Lossy: segments sent without a retransmission since the mark (it clears at 10,000).
    pub clean_segs: u32,
    /// Its confidence: storing flows in a row whose estimate agreed with it (within 25 %).
    pub agreed: u32,
    /// Handshakes of flows that looked it up, and the share of recent ones (%, an EWMA)
    /// that found a queue at the bottleneck: jumps are cut by that share.
    pub handshakes: u32,
    pub busy_pct: f64,
    /// Unused (0): kept for the JSON's readers.
    pub resumers: u32,
    /// Jumps from its entries in a row that the rate test found too fast: two halve the next.
    pub overshoots: u32,
    /// Jumps whose receiver discarded data past its window, and the seconds since the
    /// last: the override is off for 10 s after it, doubled for each one before.
    pub overruns: u32,
    pub overrun_age_s: f64,
}

/// One prefix's aggregate (prefix fallback), as `table prefixes` shows it.
#[derive(Serialize)]
pub struct PrefixReport {
    /// The /24 (IPv4) or /48 (IPv6), e.g. 198.51.100.0/24.
    pub prefix: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub netns: Option<String>,
    /// Moving averages of the rates and min RTTs its peers' entries stored.
    pub bw_bytes_per_s: u64,
    pub min_rtt_us: u32,
    /// Different peers in a row that agreed with the average, and entries seen.
    pub agreed: u32,
    pub entries: u32,
    pub age_s: f64,
    pub lossy: bool,
    /// Whether a first contact from it starts (at start_bytes_per_s, inside Careful
    /// Resume): enough peers agree and it is no older than max_age_s.
    pub starts: bool,
    pub start_bytes_per_s: u64,
}

impl PrefixReport {
    pub fn of(p: &Peer, netns_names: &HashMap<u64, String>, a: &super::abi::PrefixAggregate, now_boot_ns: u64, max_age_s: u32) -> PrefixReport {
        let age_s = now_boot_ns.saturating_sub(a.updated_ns) as f64 / 1e9;
        let starts = a.agreed >= super::abi::PREFIX_AGREED && (max_age_s == 0 || age_s <= max_age_s as f64);
        PrefixReport {
            prefix: format!("{}/{}", p.addr, if p.addr.is_ipv4() { 24 } else { 48 }),
            netns: p.netns_name(netns_names),
            bw_bytes_per_s: a.bw_bytes_per_s,
            min_rtt_us: a.min_rtt_us,
            agreed: a.agreed,
            entries: a.entries,
            age_s,
            lossy: a.flags & super::abi::PATH_LOSSY != 0,
            starts,
            start_bytes_per_s: if starts { a.bw_bytes_per_s * super::abi::PREFIX_START_PCT / 100 } else { 0 },
        }
    }
}

/// `table prefixes` as text: one row per prefix, newest first.
pub fn write_prefixes_text(out: &mut impl std::io::Write, reports: &[PrefixReport]) -> Result<()> {
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    t.set_header(vec!["prefix", "bandwidth", "min RTT ms", "agreed", "entries", "age s", "first contacts start at"]);
    for r in reports {
        t.add_row(vec![
            match &r.netns {
                Some(n) => format!("{} ({n})", r.prefix),
                None => r.prefix.clone(),
            },
            fmt_rate(r.bw_bytes_per_s as f64 * 8.0),
            format!("{:.2}", r.min_rtt_us as f64 / 1e3),
            r.agreed.to_string(),
            r.entries.to_string(),
            format!("{:.1}", r.age_s),
            if r.starts { fmt_rate(r.start_bytes_per_s as f64 * 8.0) + if r.lossy { " (lossy)" } else { "" } } else { "-".into() },
        ]);
    }
    writeln!(out, "{t}")?;
    Ok(())
}

impl EntryReport {
    pub fn of(p: &Peer, netns_names: &HashMap<u64, String>, e: &PathEntry, now_boot_ns: u64) -> EntryReport {
        EntryReport {
            peer: p.addr.to_string(),
            netns: p.netns_name(netns_names),
            bw_bytes_per_s: e.bw_bytes_per_s,
            min_rtt_us: e.min_rtt_us,
            flows: e.flows,
            age_s: now_boot_ns.saturating_sub(e.stored_ns) as f64 / 1e9,
            source: table::source_name(e),
            lossy: e.flags & super::abi::PATH_LOSSY != 0,
            clean_segs: e.clean_segs,
            agreed: e.agreed,
            handshakes: e.handshakes,
            busy_pct: table::busy_pct(e.busy_share),
            resumers: 0,
            overshoots: e.overshoots,
            overruns: e.overruns,
            overrun_age_s: table::overrun_age_s(e, now_boot_ns),
        }
    }

    pub fn text(&self) -> String {
        format!(
            "{}{}: {} ({} B/s), min RTT {:.3} ms, {} flows ({} agreed in a row), busy {:.0} % of {} handshakes, {:.1} s old, from {}{}{}",
            self.peer,
            self.netns.as_ref().map(|n| format!(" (network namespace {n})")).unwrap_or_default(),
            fmt_rate(self.bw_bytes_per_s as f64 * 8.0),
            self.bw_bytes_per_s,
            self.min_rtt_us as f64 / 1e3,
            self.flows,
            self.agreed,
            self.busy_pct,
            self.handshakes,
            self.age_s,
            self.source,
            if self.lossy { format!(", lossy ({} segments clean since)", self.clean_segs) } else { String::new() },
            if self.overruns > 0 { format!(", receiver overran {} times (last {:.0} s ago)", self.overruns, self.overrun_age_s) } else { String::new() }
        )
    }
}

pub fn status() -> Result<Status> {
    sys::require_root()?;
    let controllers = CONTROLLERS
        .iter()
        .map(|c| ControllerStatus {
            name: c.name(),
            loaded: super::is_loaded(c.name()),
            other_build: super::is_loaded(c.name()) && !super::is_current(c.name()),
            counters: super::counters(c.abi)
                .map(|v| c.abi.counters.iter().map(|k| k.name.to_string()).zip(v.into_iter().map(Value::from)).collect())
                .unwrap_or_default(),
        })
        .collect();
    // No pinned table: nothing loaded yet. One this build cannot read is an error to
    // show, not "no table".
    let (table, knobs) = match super::pinned_map("hs_paths") {
        Ok(m) => {
            let m = super::readable_paths(m)?;
            (
                Some(TableStatus { entries: super::table_count()? as usize, capacity: m.max_entries, pin: format!("{PIN_DIR}/hs_paths") }),
                Some(KnobsReport::of(&super::read_knobs()?)),
            )
        }
        Err(_) => (None, None),
    };
    Ok(Status { default_cc: super::default_cc(), controllers, table, knobs, rwnd_rewrites: super::rwnd_rewrites() })
}

impl Status {
    pub fn text(&self) -> String {
        let mut s = format!("default congestion control: {}\n", self.default_cc);
        if let Some(mode) = self.knobs.as_ref().and_then(|k| k.0.get("mode")).and_then(Value::as_str) {
            s.push_str(&format!("mode: {mode}\n"));
        }
        for c in &self.controllers {
            s.push_str(&format!("{:<8} {}", c.name, if c.loaded { "loaded    " } else { "not loaded" }));
            if c.other_build {
                s.push_str(" (by another headstart build: `headstart load` replaces it)");
            }
            for (k, v) in c.counters.iter().filter(|(k, _)| !k.starts_with("shadow_ratio_")) {
                s.push_str(&format!("  {k} {v}"));
            }
            s.push('\n');
            // Shadow mode's histogram, once there is something in it.
            if c.counters.get("shadow_scored").and_then(Value::as_u64).unwrap_or(0) > 0 {
                let buckets: Vec<String> =
                    c.counters.iter().filter_map(|(k, v)| k.strip_prefix("shadow_ratio_").map(|b| format!("{} {v}", b.replace('_', " ")))).collect();
                s.push_str(&format!("{:<8} shadow: cached/measured  {}\n", c.name, buckets.join(" | ")));
            }
        }
        match &self.table {
            Some(t) => s.push_str(&format!("path table: {} of {} entries ({})\n", t.entries, t.capacity, t.pin)),
            None => s.push_str("path table: none (nothing loaded yet)\n"),
        }
        if let Some(k) = &self.knobs {
            let knobs: Vec<String> = k.0.iter().map(|(n, v)| format!("{n}={}", v.as_str().unwrap_or_default())).collect();
            s.push_str(&format!("knobs: {}\n", knobs.join(" ")));
        }
        s.push_str(&format!("receive-window rewrites: {}\n", self.rwnd_rewrites));
        s
    }
}

/// The whole table as text, newest first.
/// The table for a terminal: boxed up to TABLE_BOXED_MAX entries; past that, one
/// aligned line per entry written as it goes (a million boxed rows took 2.6 GB).
pub fn write_table_text(out: &mut impl std::io::Write, entries: &[(Peer, PathEntry)], netns_names: &HashMap<u64, String>, now_boot_ns: u64) -> Result<()> {
    const TABLE_BOXED_MAX: usize = 10_000;
    const HEADER: [&str; 8] = ["peer", "bandwidth", "min RTT ms", "BDP KB", "flows", "busy %", "age s", "source"];
    let cells = |p: &Peer, e: &PathEntry| {
        let r = EntryReport::of(p, netns_names, e, now_boot_ns);
        [
            match r.netns {
                Some(n) => format!("{} ({n})", r.peer),
                None => r.peer,
            },
            fmt_rate(r.bw_bytes_per_s as f64 * 8.0),
            format!("{:.2}", r.min_rtt_us as f64 / 1e3),
            format!("{:.0}", r.bw_bytes_per_s as f64 * r.min_rtt_us as f64 / 1e6 / 1024.0),
            r.flows.to_string(),
            format!("{:.0}", r.busy_pct),
            format!("{:.1}", r.age_s),
            r.source.to_string(),
        ]
    };
    if entries.len() <= TABLE_BOXED_MAX {
        let mut t = comfy_table::Table::new();
        t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
        t.set_header(HEADER.to_vec());
        for (a, e) in entries {
            t.add_row(cells(a, e).to_vec());
        }
        writeln!(out, "{t}")?;
    } else {
        let line = |c: &[String]| format!("{:<40} {:>14} {:>10} {:>8} {:>7} {:>6} {:>9} {}", c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]);
        writeln!(out, "{}", line(&HEADER.map(String::from)))?;
        for (a, e) in entries {
            writeln!(out, "{}", line(&cells(a, e)))?;
        }
    }
    writeln!(out, "{} entries", entries.len())?;
    Ok(())
}
