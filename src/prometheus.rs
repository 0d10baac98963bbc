//! `headstart metrics`: the counters, the table and the operator's mode in the
//! Prometheus text format (0.0.4), for node_exporter's textfile collector:
//!   headstart metrics > /var/lib/node_exporter/textfile_collector/headstart.prom.$$ &&
//!   mv ... headstart.prom
//! Every counter slot of records.h maps to one family and label here (a unit test
//! keeps the mapping complete); units are in the names (bytes, seconds, entries).

use crate::bpf::{self, abi};
use anyhow::Result;
use std::fmt::Write;

/// A family: name, type, help.
struct Family {
    name: &'static str,
    kind: &'static str,
    help: &'static str,
}

const FAMILIES: &[Family] = &[
    Family { name: "headstart_flows_total", kind: "counter", help: "Flows started with a headstart congestion control." },
    Family { name: "headstart_table_lookups_total", kind: "counter", help: "Path table lookups at a flow's start, by result (hit, miss, prefix: no entry, started from its /24 or /48's)." },
    Family { name: "headstart_stores_total", kind: "counter", help: "Flow estimates at release, by what happened (stored, discarded: not worth storing, skipped: by rule, jump_only: the flow sent no more than its jump and left its entry as it was)." },
    Family { name: "headstart_reconnaissance_total", kind: "counter", help: "Careful Resume Reconnaissance decisions that refused a jump, by reason." },
    Family { name: "headstart_jumps_total", kind: "counter", help: "Careful Resume jumps (Unvalidated entered), made when the flow first had more to send than its window." },
    Family { name: "headstart_resume_ends_total", kind: "counter", help: "How resumes ended: validated, rate_limited, or Safe Retreat by cause (retreat_loss, retreat_ecn, retreat_rto, retreat_rate)." },
    Family { name: "headstart_off_flows_total", kind: "counter", help: "Flows started as the kernel's because mode=off." },
    Family { name: "headstart_rwnd_receiver_behind_total", kind: "counter", help: "Receive-window overrides ended early because the receiver's own window shrank (its application fell behind)." },
    Family { name: "headstart_rwnd_receiver_overruns_total", kind: "counter", help: "Receive-window overrides whose receiver discarded data past its window (duplicate ACKs without SACK); the peer's next jumps go without the override for a while (10 s, doubled per overrun)." },
    Family { name: "headstart_probe_drain_answered_total", kind: "counter", help: "s_cubic: losses of data sent before the probe's drain, answered as one congestion event with the drain (ssthresh = beta of the window the probe reached)." },
    Family { name: "headstart_no_queue_overflows_total", kind: "counter", help: "Loss episodes that began with no queue in the smoothed RTT, but with it rising, and lost a run of packets: read as overflows, so the path is not marked lossy." },
    Family { name: "headstart_yielded_jumps_total", kind: "counter", help: "Jumps cut by their entry's busy share: the share of recent handshakes that found the bottleneck queueing (jump_yield)." },
    Family { name: "headstart_rwnd_refused_total", kind: "counter", help: "Jumps made without the receive-window override, by the one reason (lossy: the path is marked lossy; overrun: the peer's receiver overran lately; busy: a queue at the bottleneck; shared: s_bbr beside the peer's other flows while they lost lately)." },
    Family { name: "headstart_shared_quiet_rwnd_total", kind: "counter", help: "s_bbr: jumps made beside the peer's other open flows with the receive-window override (none of them had lost a packet for 10 s)." },
    Family { name: "headstart_starts_armed_total", kind: "counter", help: "Flows that Reconnaissance let jump at init, by what came of it (armed: all of them; no_jump_needed: never had more to send than their window, or lost first)." },
    Family { name: "headstart_fast_open_flows_total", kind: "counter", help: "TCP Fast Open flows: their controller starts at the SYN, before the handshake proves the source, so they run as the kernel's controller and leave the path table alone." },
    Family { name: "headstart_restarts_total", kind: "counter", help: "Careful restarts: a persistent connection's first transmission after an idle past its RTO resumed at its own (or the peer's newer) rate, paced, inside Careful Resume's checks; how they ended is in headstart_resume_ends_total." },
    Family { name: "headstart_probe_ends_total", kind: "counter", help: "How s_cubic's probe after a jump ended: queue (the RTT showed one)." },
    Family { name: "headstart_hooks_missed_total", kind: "counter", help: "Loss episodes the kernel began without running the controller's ssthresh and set_state (ssthresh left a stale stack word); the controller replayed them at its next hook." },
    Family { name: "headstart_suss_starts_total", kind: "counter", help: "s_cubic's first contacts (no entry, no agreeing prefix) started as SUSS when they first had more to send than their window: slow start above 2x per round while HyStart's signals allow, the receiver's window opened for those rounds; their rounds and exits are in headstart_suss_rounds_total and headstart_suss_exits_total." },
    Family { name: "headstart_follow_ups_total", kind: "counter", help: "Follow-up jumps: a flow whose jump was cut to what it had to send (an HTML page) validated it, then wrote more than its window (the page's objects) and jumped again into the rest of the peer's budget, inside the same checks; how they ended is in headstart_resume_ends_total." },
    Family { name: "headstart_inits_late_total", kind: "counter", help: "Flows whose init program the kernel skipped (it went on as if the controller were initialized); the controller started them at their first transmission." },
    Family { name: "headstart_untrusted_flows_total", kind: "counter", help: "Flows of sockets owned by a uid above trusted_uid_max: run as the kernel's controller, the path table neither read nor written." },
    Family { name: "headstart_shadow_would_jump_total", kind: "counter", help: "mode=shadow: flows whose start would have jumped." },
    Family { name: "headstart_shadow_estimate_ratio", kind: "histogram", help: "mode=shadow: the cached rate over the rate the flow measured itself (1 = the entry was right)." },
    Family { name: "headstart_suss_rounds_total", kind: "counter", help: "SUSS slow-start rounds, by kind (accelerated: grown by more than 2x, normal)." },
    Family { name: "headstart_suss_exits_total", kind: "counter", help: "How SUSS flows left slow start or SUSS (train, delay, loss, receiver: its window fell below cwnd)." },
    Family { name: "headstart_controller_loaded", kind: "gauge", help: "1 if the congestion control is registered in the kernel." },
    Family { name: "headstart_table_entries", kind: "gauge", help: "Entries in the per-peer path table." },
    Family { name: "headstart_table_capacity_entries", kind: "gauge", help: "Capacity of the path table (LRU)." },
    Family { name: "headstart_rwnd_rewrites_total", kind: "counter", help: "ACKs whose receive window the tc override opened." },
    Family { name: "headstart_mode", kind: "gauge", help: "The operator's mode (on, off, shadow): 1 for the one in force." },
    Family { name: "headstart_fleet_published_total", kind: "counter", help: "Fleet agent: this server's entries written to Redis." },
    Family { name: "headstart_fleet_applied_total", kind: "counter", help: "Fleet agent: other servers' entries, by verdict (applied, deleted, older, refused)." },
    Family { name: "headstart_fleet_apply_waiting", kind: "gauge", help: "Fleet agent: other servers' entries waiting for the apply budget (10,000/s)." },
    Family { name: "headstart_fleet_errors_total", kind: "counter", help: "Fleet agent: Redis errors and failed applies." },
    Family { name: "headstart_fleet_lag_ms", kind: "gauge", help: "Fleet agent: from another server's store to its entry here, the last one." },
    Family { name: "headstart_fleet_connected", kind: "gauge", help: "Fleet agent: 1 while Redis is reachable and the status is fresh." },
];

/// Where a counter slot goes: its family and its extra label (None: no label).
fn slot(counter: &str) -> Option<(&'static str, Option<(&'static str, &'static str)>)> {
    let f = |name, label| Some((name, label));
    match counter {
        "flows" => f("headstart_flows_total", None),
        "hits" => f("headstart_table_lookups_total", Some(("result", "hit"))),
        "misses" => f("headstart_table_lookups_total", Some(("result", "miss"))),
        "prefix_hits" => f("headstart_table_lookups_total", Some(("result", "prefix"))),
        "stores" => f("headstart_stores_total", Some(("result", "stored"))),
        "discards" => f("headstart_stores_total", Some(("result", "discarded"))),
        "skipped" => f("headstart_stores_total", Some(("result", "skipped"))),
        "store_jump_only" => f("headstart_stores_total", Some(("result", "jump_only"))),
        "expired" => f("headstart_reconnaissance_total", Some(("reason", "expired"))),
        "reject_no_rtt" => f("headstart_reconnaissance_total", Some(("reason", "no_rtt"))),
        "reject_rtt_shorter" => f("headstart_reconnaissance_total", Some(("reason", "rtt_shorter"))),
        "reject_rtt_longer" => f("headstart_reconnaissance_total", Some(("reason", "rtt_longer"))),
        "reject_small" => f("headstart_reconnaissance_total", Some(("reason", "small"))),
        "reject_siblings" => f("headstart_reconnaissance_total", Some(("reason", "siblings"))),
        "jumps" => f("headstart_jumps_total", None),
        "rate_limited" => f("headstart_resume_ends_total", Some(("end", "rate_limited"))),
        "validated" => f("headstart_resume_ends_total", Some(("end", "validated"))),
        "retreat_loss" => f("headstart_resume_ends_total", Some(("end", "retreat_loss"))),
        "retreat_ecn" => f("headstart_resume_ends_total", Some(("end", "retreat_ecn"))),
        "retreat_rto" => f("headstart_resume_ends_total", Some(("end", "retreat_rto"))),
        "retreat_rate" => f("headstart_resume_ends_total", Some(("end", "retreat_rate"))),
        "off" => f("headstart_off_flows_total", None),
        "untrusted" => f("headstart_untrusted_flows_total", None),
        "shadow_would_jump" => f("headstart_shadow_would_jump_total", None),
        "lossy_no_rwnd" => f("headstart_rwnd_refused_total", Some(("reason", "lossy"))),
        "busy_no_rwnd" => f("headstart_rwnd_refused_total", Some(("reason", "busy"))),
        "shared_no_rwnd" => f("headstart_rwnd_refused_total", Some(("reason", "shared"))),
        "shared_quiet_rwnd" => f("headstart_shared_quiet_rwnd_total", None),
        "yielded_jumps" => f("headstart_yielded_jumps_total", None),
        "no_queue_overflows" => f("headstart_no_queue_overflows_total", None),
        "rwnd_receiver_behind" => f("headstart_rwnd_receiver_behind_total", None),
        "rwnd_receiver_overrun" => f("headstart_rwnd_receiver_overruns_total", None),
        "overrun_no_rwnd" => f("headstart_rwnd_refused_total", Some(("reason", "overrun"))),
        "armed" => f("headstart_starts_armed_total", Some(("result", "armed"))),
        "no_jump_needed" => f("headstart_starts_armed_total", Some(("result", "no_jump_needed"))),
        "restarts" => f("headstart_restarts_total", None),
        "fast_open" => f("headstart_fast_open_flows_total", None),
        "probe_queue_exits" => f("headstart_probe_ends_total", Some(("end", "queue"))),
        "probe_drain_answered" => f("headstart_probe_drain_answered_total", None),
        "hooks_missed" => f("headstart_hooks_missed_total", None),
        "inits_late" => f("headstart_inits_late_total", None),
        "suss_starts" => f("headstart_suss_starts_total", None),
        "follow_ups" => f("headstart_follow_ups_total", None),
        // suss
        "accelerated_rounds" => f("headstart_suss_rounds_total", Some(("kind", "accelerated"))),
        "normal_rounds" => f("headstart_suss_rounds_total", Some(("kind", "normal"))),
        "train_exits" => f("headstart_suss_exits_total", Some(("reason", "train"))),
        "delay_exits" => f("headstart_suss_exits_total", Some(("reason", "delay"))),
        "loss_stops" => f("headstart_suss_exits_total", Some(("reason", "loss"))),
        "rwnd_stops" => f("headstart_suss_exits_total", Some(("reason", "receiver"))),
        _ => None,
    }
}

/// The histogram's own slots (shadow_scored and the buckets), written by `histogram`.
fn is_histogram_slot(counter: &str) -> bool {
    counter == "shadow_scored" || counter.starts_with("shadow_ratio_")
}

/// The metrics text. Works with nothing loaded (controller_loaded 0, no table).
pub fn render() -> Result<String> {
    crate::sys::require_root()?;
    let mut samples: Vec<(&'static str, String)> = Vec::new();
    for c in bpf::CONTROLLERS {
        let cc = c.name();
        samples.push(("headstart_controller_loaded", format!("headstart_controller_loaded{{cc=\"{cc}\"}} {}", u8::from(bpf::is_loaded(cc)))));
        let Ok(values) = bpf::counters(c.abi) else { continue };
        for (counter, v) in c.abi.counters.iter().zip(&values) {
            if is_histogram_slot(counter.name) {
                continue;
            }
            if let Some((family, label)) = slot(counter.name) {
                let extra = label.map(|(k, v)| format!(",{k}=\"{v}\"")).unwrap_or_default();
                samples.push((family, format!("{family}{{cc=\"{cc}\"{extra}}} {v}")));
            }
        }
        if let Some(first) = c.abi.counters.iter().position(|k| k.name == abi::SHADOW_FIRST_BUCKET) {
            let buckets = &values[first..first + abi::SHADOW_BUCKET_EDGES.len() + 1];
            let mut cumulative = 0;
            for (edge, n) in abi::SHADOW_BUCKET_EDGES.iter().zip(buckets) {
                cumulative += n;
                samples.push(("headstart_shadow_estimate_ratio", format!("headstart_shadow_estimate_ratio_bucket{{cc=\"{cc}\",le=\"{edge}\"}} {cumulative}")));
            }
            cumulative += buckets[abi::SHADOW_BUCKET_EDGES.len()];
            samples.push(("headstart_shadow_estimate_ratio", format!("headstart_shadow_estimate_ratio_bucket{{cc=\"{cc}\",le=\"+Inf\"}} {cumulative}")));
            // No _sum: the kernel keeps counts per bucket, not the ratios themselves.
            samples.push(("headstart_shadow_estimate_ratio", format!("headstart_shadow_estimate_ratio_count{{cc=\"{cc}\"}} {cumulative}")));
        }
    }
    if let Ok(m) = bpf::paths_map() {
        // The kernel's count: a scrape never walks the table (a million entries).
        samples.push(("headstart_table_entries", format!("headstart_table_entries {}", bpf::table_count()?)));
        samples.push(("headstart_table_capacity_entries", format!("headstart_table_capacity_entries {}", m.max_entries)));
        samples.push(("headstart_rwnd_rewrites_total", format!("headstart_rwnd_rewrites_total {}", bpf::rwnd_rewrites())));
        if let Ok(k) = bpf::read_knobs() {
            let mode = k.get("mode")?;
            let (_, knob) = abi::knob("mode")?;
            if let abi::KnobKind::Choice(choices) = &knob.kind {
                for (name, v) in choices.iter() {
                    samples.push(("headstart_mode", format!("headstart_mode{{mode=\"{name}\"}} {}", u8::from(*v == mode))));
                }
            }
        }
    }
    if let Ok(st) = crate::fleet::FleetStatus::read(std::path::Path::new(crate::fleet::DEFAULT_STATUS_FILE)) {
        let fresh = crate::sys::unix_ms().saturating_sub(st.updated_unix_ms) < 5000;
        samples.push(("headstart_fleet_published_total", format!("headstart_fleet_published_total {}", st.published)));
        for (verdict, n) in [("applied", st.applied), ("deleted", st.deleted), ("older", st.older), ("refused", st.refused)] {
            samples.push(("headstart_fleet_applied_total", format!("headstart_fleet_applied_total{{verdict=\"{verdict}\"}} {n}")));
        }
        samples.push(("headstart_fleet_apply_waiting", format!("headstart_fleet_apply_waiting {}", st.apply_waiting)));
        samples.push(("headstart_fleet_errors_total", format!("headstart_fleet_errors_total {}", st.errors)));
        samples.push(("headstart_fleet_lag_ms", format!("headstart_fleet_lag_ms {}", st.lag_ms_last)));
        samples.push(("headstart_fleet_connected", format!("headstart_fleet_connected {}", u8::from(st.connected && fresh))));
    }
    let mut out = String::new();
    for f in FAMILIES {
        let lines: Vec<&String> = samples.iter().filter(|(n, _)| *n == f.name).map(|(_, l)| l).collect();
        if lines.is_empty() {
            continue;
        }
        let _ = writeln!(out, "# HELP {} {}", f.name, f.help);
        let _ = writeln!(out, "# TYPE {} {}", f.name, f.kind);
        for l in lines {
            let _ = writeln!(out, "{l}");
        }
    }
    Ok(out)
}

/// Every counter of `headstart status` with its metric and what it counts, as
/// Markdown: COUNTERS.md (a unit test keeps them equal), `headstart metrics --markdown`.
pub fn counters_markdown() -> String {
    let mut s = String::from(
        "# headstart's counters\n\nGenerated by `headstart metrics --markdown` from the tool's counter table (src/bpf/abi.rs) and\n\
         its metric families (src/prometheus.rs); a unit test keeps this file equal to it. `headstart status` shows\n\
         each counter by name, `headstart metrics` as the metric.\n",
    );
    for cc in abi::CONTROLLER_ABI {
        if cc.name == "s_bbr" {
            continue; // the same counters as s_cubic
        }
        let who = if cc.name == "s_cubic" { "s_cubic and s_bbr" } else { cc.name };
        let _ = write!(s, "\n## {who}\n\n| counter | metric | what it counts |\n|---|---|---|\n");
        for c in cc.counters {
            let (metric, help) = if is_histogram_slot(c.name) {
                ("headstart_shadow_estimate_ratio".to_string(), family_help("headstart_shadow_estimate_ratio"))
            } else {
                let (family, label) = slot(c.name).expect("every counter has a metric (a unit test)");
                let metric = match label {
                    Some((k, v)) => format!("{family}{{{k}=\"{v}\"}}"),
                    None => family.to_string(),
                };
                (metric, family_help(family))
            };
            let _ = writeln!(s, "| `{}` | `{metric}` | {help} |", c.name);
        }
    }
    s
}

fn family_help(name: &str) -> &'static str {
    FAMILIES.iter().find(|f| f.name == name).map_or("", |f| f.help)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_md_is_the_generated_table() {
        let file = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/COUNTERS.md")).unwrap();
        assert!(file == counters_markdown(), "COUNTERS.md is not `headstart metrics --markdown`:\n{}", counters_markdown());
    }

    #[test]
    fn every_counter_slot_has_a_metric() {
        for cc in abi::CONTROLLER_ABI {
            for c in cc.counters {
                assert!(is_histogram_slot(c.name) || slot(c.name).is_some(), "{}'s counter {} has no metric", cc.name, c.name);
                if let Some((family, _)) = slot(c.name) {
                    assert!(FAMILIES.iter().any(|f| f.name == family), "{family} is not declared");
                }
            }
        }
    }

    #[test]
    fn family_names_are_valid_and_counters_end_in_total() {
        for f in FAMILIES {
            assert!(f.name.chars().all(|c| c.is_ascii_lowercase() || c == '_'), "{}", f.name);
            assert_eq!(f.kind == "counter", f.name.ends_with("_total"), "{}", f.name);
        }
    }
}
