//! The workloads of the papers, run on a live lab: sequential sweeps over flow sizes,
//! Poisson arrivals of Pareto-sized flows, and competing long flows.

use crate::emulator::model::SplitMix64;
use crate::emulator::stats::{AccuracySummary, Connections, FlowStats};
use crate::experiment::{CcSpec, CompetingFlow, Experiment, Workload};
use crate::testbed::{FlowOutcome, Testbed, TestbedSpec};
use crate::metrics::{jain_index, FlowRow};
use headstart::sys::Interrupt;
use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Everything a run produced.
pub struct RunResult {
    pub rows: Vec<FlowRow>,
    pub accuracy: AccuracySummary,
    pub server_tcpext: std::collections::BTreeMap<String, u64>,
    pub client_tcpext: std::collections::BTreeMap<String, u64>,
    /// Competing workload: (bin start s, per-flow Mbit/s by row index, Jain's index).
    pub throughput_series: Vec<(f64, Vec<f64>, f64)>,
    /// Sampled (ms, cwnd, pacing bit/s) of measured flows, by row index.
    pub cwnd_series: HashMap<usize, Vec<crate::traffic::CwndSample>>,
    /// With `packet_series`, by row index: (s since the start, ms in the bottleneck)
    /// of every data packet, and the times (s) its retransmissions reached it.
    pub packets: Vec<(usize, Vec<(f64, f64)>)>,
    pub retransmissions: Vec<(usize, Vec<f64>)>,
    pub elapsed: Duration,
}

pub(crate) fn progress(total: u64, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(total);
    pb.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} flows  ETA {eta}  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb
}

/// A warm sweep's primer: at least this big, so that it stores an entry.
const PRIMER_MIN_BYTES: u64 = 1 << 20;

/// The primer's size: the sweep's largest, at least PRIMER_MIN_BYTES.
fn primer_bytes(sizes: &[u64]) -> u64 {
    sizes.iter().copied().max().unwrap_or(0).max(PRIMER_MIN_BYTES)
}
/// Its loss ordinal, apart from the points' (`Emulator::name_next_flow`).
const PRIMER_ORDINAL: u64 = 1 << 40;

/// Pause between sequential flows: the buffer drains and the last ACKs land.
fn settle_time(exp: &Experiment) -> Duration {
    let drain = exp.link.buffer_bytes as f64 * 8.0 / exp.link.capacity_bps;
    Duration::from_secs_f64((2.0 * exp.link.rtt_ns as f64 / 1e9 + drain + 0.01).min(2.0))
}

/// The testbed an experiment needs: this is where workload variants become
/// namespaces, link copies, server ports and timeouts.
pub fn testbed_spec(exp: &Experiment) -> TestbedSpec {
    let (down, up) = exp.link.directions(exp.seed);
    let mut server_ccs: Vec<String> = Vec::new();
    for c in exp.workload.ccs() {
        if !server_ccs.contains(&c.kernel) {
            server_ccs.push(c.kernel.clone());
        }
    }
    // Generous: a flow may take 20x its ideal time plus 30 s before it counts as hung.
    let biggest = match &exp.workload {
        Workload::Sweep { sizes, warm: true, keep_table: false, .. } => primer_bytes(sizes) as f64,
        Workload::Sweep { sizes, .. } => *sizes.iter().max().unwrap_or(&0) as f64,
        Workload::Poisson { mean_size, .. } => *mean_size as f64 * 100.0,
        Workload::Competing { flows, .. } => flows.iter().map(|f| f.size).max().unwrap_or(0) as f64 * flows.len() as f64,
        Workload::Fleet(f) => f.mean_size as f64 * 100.0,
    };
    TestbedSpec {
        clients: exp.workload.clients(),
        peers_per_client: match &exp.workload {
            Workload::Poisson { peers_per_client, .. } => *peers_per_client,
            Workload::Fleet(f) => (f.sessions as usize).div_ceil(f.clients),
            _ => 0,
        },
        client_initrwnd: exp.client_initrwnd,
        reader_stall: Duration::from_nanos(exp.reader_stall_ns),
        reader_stall_every: exp.reader_stall_every,
        server_uid: exp.server_uid,
        down,
        up,
        series_bin_ns: match &exp.workload {
            Workload::Competing { bin_ns, .. } => Some(*bin_ns),
            _ => None,
        },
        client_extra_delay_ns: (0..exp.workload.clients())
            .map(|c| if exp.link.client_extra_ns.is_empty() { 0 } else { exp.link.client_extra_ns[c % exp.link.client_extra_ns.len()] })
            .collect(),
        packet_series: exp.packet_series,
        ecn: exp.link.ecn,
        client_link: exp.workload.client_links(),
        rwnd_override: exp.rwnd_override && server_ccs.iter().any(|c| headstart::bpf::is_ours(c) || c == "cache_plus"),
        server_ccs,
        sample: exp.sample_ns.map(Duration::from_nanos),
        http: exp.http,
        tls: exp.tls,
        page: exp.page,
        connections: exp.connections,
        keep_alive: exp.keep_alive,
        flow_timeout: Duration::from_secs_f64(30.0 + 20.0 * biggest * 8.0 / exp.link.capacity_bps.max(1e5)),
        backends: 0,
        affinity: false,
    }
}

pub fn run(exp: &Experiment, interrupt: Interrupt, quiet: bool) -> Result<RunResult> {
    let lab = Testbed::up(testbed_spec(exp), interrupt)?;
    let started = lab.origin;
    let mut rows = Vec::new();
    let mut connections = Vec::new();
    let mut cwnd_series = HashMap::new();
    let mut push = |rows: &mut Vec<FlowRow>, connections: &mut Vec<Connections>, o: FlowOutcome, role: &str, rep: u32, ipv6: bool| {
        if let Some(s) = o.server.as_ref().filter(|s| !s.series.is_empty() && role == "measured") {
            cwnd_series.insert(rows.len(), s.series.clone());
        }
        connections.push(o.connections);
        rows.push(FlowRow::from_outcome(exp, &o, role, rep, ipv6, started));
    };
    let mut competing_meta = None;
    match &exp.workload {
        Workload::Sweep { cc, sizes, reps, warm, warm_size, keep_table, ipv6 } => {
            let per_point = if *warm { 2 } else { 1 };
            // The lab's peer is the same address in every run: an entry left by an
            // earlier run (another link, its loss mark) decided this run's first
            // warm-ups (a lossy mark from a lossy run took the window override away on
            // a clean path: 1 MB Ω 0.58 instead of 0.99). So the sweep forgets the peer
            // and, if warm, primes the table with one flow big enough to store (the
            // first of headstart's controllers; the smallest warm-ups store nothing).
            let primer = (*warm && !*keep_table).then(|| cc.iter().find(|c| headstart::bpf::is_ours(&c.kernel))).flatten();
            let pb = progress((cc.len() * sizes.len() * *reps as usize * per_point + usize::from(primer.is_some())) as u64, quiet);
            let settle = settle_time(exp);
            if !*keep_table {
                lab.forget_peers(0)?;
            }
            if let Some(c) = primer {
                pb.set_message(format!("{} primer", c.label));
                lab.name_next_flow(PRIMER_ORDINAL);
                let o = lab.flow(0, 0, c, primer_bytes(sizes), *ipv6)?;
                push(&mut rows, &mut connections, o, "primer", 0, *ipv6);
                pb.inc(1);
                std::thread::sleep(settle);
            }
            for rep in 0..*reps {
                for (point, &size) in sizes.iter().enumerate() {
                    // Each controller's flows at a point get the same ordinals, so
                    // that random loss takes the same transmissions from each of them.
                    let ordinal = (u64::from(rep) * sizes.len() as u64 + point as u64) * 2;
                    // The congestion controls take turns at each point, so that slow
                    // drifts of the machine hit them all alike.
                    for c in cc {
                        pb.set_message(format!("{} {}", c.label, headstart::units::fmt_size(size)));
                        if !*warm {
                            // A cold start: no history for this peer, unless the table
                            // is to be kept (then each flow meets what the last left).
                            if !*keep_table {
                                lab.forget_peers(0)?;
                            }
                        } else {
                            lab.name_next_flow(ordinal);
                            let o = lab.flow(0, 0, c, warm_size.unwrap_or(size), *ipv6)?;
                            push(&mut rows, &mut connections, o, "warmup", rep, *ipv6);
                            pb.inc(1);
                            std::thread::sleep(settle);
                        }
                        lab.name_next_flow(ordinal + 1);
                        let o = lab.flow(0, 0, c, size, *ipv6)?;
                        push(&mut rows, &mut connections, o, "measured", rep, *ipv6);
                        pb.inc(1);
                        std::thread::sleep(settle);
                    }
                }
            }
            pb.finish_and_clear();
        }
        Workload::Poisson { cc, mean_size, alpha, utilization, flows, clients, seed, warm, peers_per_client, parallel, mixed } => {
            let schedule = poisson_schedule(*mean_size, *alpha, *utilization, *flows, exp.link.capacity_bps, *seed);
            let pb = progress((cc.len() * (*flows as usize + if *warm { *clients } else { 0 })) as u64, quiet);
            // One controller's whole sequence on clients first..first+clients: an empty
            // history, the warm-up flows, then the schedule.
            let sequence = |c: &CcSpec, first: usize| -> Result<Vec<(FlowOutcome, &'static str)>> {
                for client in first..first + *clients {
                    lab.forget_peers(client)?; // each controller starts from an empty history
                    lab.route_client(client, c)?;
                }
                let mut out = Vec::new();
                if *warm {
                    for client in first..first + *clients {
                        out.push((lab.flow(client, 0, c, (*mean_size).max(256 * 1024), false)?, "warmup"));
                        pb.inc(1);
                    }
                    std::thread::sleep(settle_time(exp));
                }
                for o in run_concurrent(&lab, &schedule, |i| (first + i % clients, (i / clients) % peers_per_client, c), &pb)? {
                    out.push((o, "measured"));
                }
                Ok(out)
            };
            let per_cc: Vec<Vec<(FlowOutcome, &str)>> = if *mixed {
                // Controller k owns clients k * clients ..; flow i goes to controller
                // i mod n, and within it to its clients and peers in turn.
                pb.set_message(format!("{} sharing the link", cc.iter().map(|c| c.label.as_str()).collect::<Vec<_>>().join(", ")));
                let n = cc.len();
                let mut out = Vec::new();
                for client in 0..n * *clients {
                    lab.forget_peers(client)?;
                    lab.route_client(client, &cc[client / *clients])?;
                }
                if *warm {
                    for client in 0..n * *clients {
                        out.push((lab.flow(client, 0, &cc[client / *clients], (*mean_size).max(256 * 1024), false)?, "warmup"));
                        pb.inc(1);
                    }
                    std::thread::sleep(settle_time(exp));
                }
                let pick = |i: usize| {
                    let (k, j) = (i % n, i / n);
                    (k * clients + j % clients, (j / clients) % peers_per_client, &cc[k])
                };
                for o in run_concurrent(&lab, &schedule, pick, &pb)? {
                    out.push((o, "measured"));
                }
                vec![out]
            } else if *parallel {
                pb.set_message(format!("{} side by side", cc.iter().map(|c| c.label.as_str()).collect::<Vec<_>>().join(", ")));
                let sequence = &sequence;
                std::thread::scope(|s| {
                    let handles: Vec<_> = cc.iter().enumerate().map(|(k, c)| s.spawn(move || sequence(c, k * *clients))).collect();
                    handles.into_iter().map(|h| h.join().map_err(|_| anyhow::anyhow!("controller thread panicked"))?).collect::<Result<Vec<_>>>()
                })?
            } else {
                let mut all = Vec::new();
                for c in cc {
                    pb.set_message(c.label.clone());
                    all.push(sequence(c, 0)?);
                    std::thread::sleep(settle_time(exp) * 2);
                }
                all
            };
            for (o, role) in per_cc.into_iter().flatten() {
                push(&mut rows, &mut connections, o, role, 0, false);
            }
            pb.finish_and_clear();
        }
        Workload::Fleet(_) => anyhow::bail!("a fleet workload runs through lab::fleet"),
        Workload::Competing { cc, flows, bin_ns } => {
            // Every run from an empty history: an entry an earlier run left for these
            // addresses (another link, another experiment) would decide its starts.
            for client in 0..exp.workload.clients() {
                lab.forget_peers(client)?;
            }
            let pb = progress(flows.len() as u64, quiet);
            let outcomes = run_competing(&lab, flows, cc, &pb)?;
            for (o, f) in outcomes.into_iter().zip(flows) {
                push(&mut rows, &mut connections, o, if f.reverse { "reverse" } else { "measured" }, 0, false);
            }
            pb.finish_and_clear();
            competing_meta = Some(*bin_ns);
        }
    }
    let report = lab.down()?;
    // Each outcome's connections, their counts added (a page's, curl's parallel ones).
    let stats: Vec<Option<FlowStats>> = connections.iter().map(|&c| c.stats_in(&report.flows)).collect();
    let mut throughput_series = Vec::new();
    for (row, st) in rows.iter_mut().zip(&stats) {
        if let Some(st) = st {
            row.queue_delay_mean_ms = Some(st.mean_queue_delay_ms());
            row.queue_delay_max_ms = Some(st.queue_delay_max_ns as f64 / 1e6);
            row.emulator_late_max_ms = Some(st.late_max_ns as f64 / 1e6);
            row.drops_buffer = Some(st.down_dropped_buffer);
            row.drops_loss = Some(st.down_dropped_loss);
            row.drops_loss_acks = Some(st.down_dropped_loss_acks);
            row.drops_aqm = Some(st.down_dropped_aqm);
            row.marked_ce = Some(st.down_marked_ce);
        }
    }
    let (mut packets, mut retransmissions) = (Vec::new(), Vec::new());
    if exp.packet_series {
        for (i, st) in stats.iter().enumerate() {
            if let Some(st) = st {
                packets.push((i, st.packets.iter().map(|&(t, q)| (t as f64 / 1e9, q as f64 / 1e3)).collect()));
                retransmissions.push((i, st.retransmissions_ns.iter().map(|&t| t as f64 / 1e9).collect()));
            }
        }
    }
    if let Some(bin_ns) = competing_meta {
        let series: Vec<&Vec<u64>> = stats.iter().map(|s| s.as_ref().map_or(&EMPTY, |s| &s.series)).collect();
        let bins = series.iter().map(|s| s.len()).max().unwrap_or(0);
        let bin_s = bin_ns as f64 / 1e9;
        for b in 0..bins {
            let mbps: Vec<f64> = series.iter().map(|s| s.get(b).copied().unwrap_or(0) as f64 * 8.0 / bin_s / 1e6).collect();
            // Jain's index over the flows that are running in this bin.
            let active: Vec<f64> = mbps
                .iter()
                .zip(&rows)
                .filter(|(_, r)| {
                    let t = b as f64 * bin_s;
                    let start = r.start_s;
                    let end = start + r.fct_s.unwrap_or(0.0);
                    t >= start && t + bin_s <= end
                })
                .map(|(m, _)| *m)
                .collect();
            let j = if active.is_empty() { f64::NAN } else { jain_index(&active) };
            throughput_series.push((b as f64 * bin_s, mbps, j));
        }
    }
    Ok(RunResult { rows, accuracy: report.summary(), server_tcpext: report.server_tcpext.clone(), client_tcpext: report.client_tcpext.clone(), throughput_series, cwnd_series, packets, retransmissions, elapsed: started.elapsed() })
}

static EMPTY: Vec<u64> = Vec::new();

/// Arrival times (s) and sizes (bytes): Poisson arrivals at the rate that loads the
/// link to `utilization` with Pareto(alpha) sizes of mean `mean_size`.
pub fn poisson_schedule(mean_size: u64, alpha: f64, utilization: f64, flows: u32, capacity_bps: f64, seed: u64) -> Vec<(f64, u64)> {
    let mut rng = SplitMix64::new(seed ^ 0xA11CE);
    let lambda = utilization * capacity_bps / (mean_size as f64 * 8.0); // flows per second
    let x_m = mean_size as f64 * (alpha - 1.0) / alpha; // Pareto scale for that mean
    let mut t = 0.0;
    (0..flows)
        .map(|_| {
            let u = 1.0 - rng.next_f64(); // (0, 1]
            t += -u.ln() / lambda;
            let v = 1.0 - rng.next_f64();
            // Cap the tail at 1000x the mean so one flow cannot outlast the run.
            let size = (x_m / v.powf(1.0 / alpha)).min(mean_size as f64 * 1000.0);
            (t, size.round().max(1.0) as u64)
        })
        .collect()
}

/// Runs the schedule's flows at their arrival times; `pick(i)` says which client, peer
/// address and controller flow i uses.
fn run_concurrent<'a>(lab: &Testbed, schedule: &[(f64, u64)], pick: impl Fn(usize) -> (usize, usize, &'a CcSpec) + Sync, pb: &ProgressBar) -> Result<Vec<FlowOutcome>> {
    let t0 = Instant::now();
    let pick = &pick;
    std::thread::scope(|s| {
        let mut handles = Vec::new();
        for (i, &(at, size)) in schedule.iter().enumerate() {
            wait_until(t0 + Duration::from_secs_f64(at), &lab.interrupt)?;
            handles.push(s.spawn(move || {
                let (client, peer, cc) = pick(i);
                let r = lab.flow(client, peer, cc, size, false);
                pb.inc(1);
                r
            }));
        }
        handles.into_iter().map(|h| h.join().map_err(|_| anyhow::anyhow!("flow thread panicked"))?).collect()
    })
}

/// Sleeps until `due`, waking every 20 ms to honour an interrupt.
pub(crate) fn wait_until(due: Instant, interrupt: &Interrupt) -> Result<()> {
    while let Some(left) = due.checked_duration_since(Instant::now()) {
        interrupt.check()?;
        std::thread::sleep(left.min(Duration::from_millis(20)));
    }
    Ok(())
}

fn run_competing(lab: &Testbed, flows: &[CompetingFlow], cc: &[CcSpec], pb: &ProgressBar) -> Result<Vec<FlowOutcome>> {
    let t0 = Instant::now();
    std::thread::scope(|s| {
        let handles: Vec<_> = flows
            .iter()
            .map(|f| {
                s.spawn(move || {
                    wait_until(t0 + Duration::from_nanos(f.start_ns), &lab.interrupt)?;
                    let r = if f.reverse { lab.upload(f.client, f.size) } else { lab.flow(f.client, 0, &cc[f.cc], f.size, false) };
                    pb.inc(1);
                    r
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().map_err(|_| anyhow::anyhow!("flow thread panicked"))?).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisson_schedule_hits_mean_and_load() {
        let s = poisson_schedule(64 * 1024, 2.5, 0.27, 20_000, 100e6, 3);
        let mean = s.iter().map(|x| x.1 as f64).sum::<f64>() / s.len() as f64;
        assert!((mean / 65536.0 - 1.0).abs() < 0.08, "mean size {mean}");
        let duration = s.last().unwrap().0;
        let load = s.iter().map(|x| x.1 as f64 * 8.0).sum::<f64>() / duration / 100e6;
        assert!((load - 0.27).abs() < 0.03, "offered load {load}");
        assert!(s.windows(2).all(|w| w[0].0 <= w[1].0));
        assert_eq!(s, poisson_schedule(64 * 1024, 2.5, 0.27, 20_000, 100e6, 3));
    }
}
