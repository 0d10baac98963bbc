//! The fleet experiment: servers behind a load balancer, their path tables each their
//! own or shared by the fleet agents through Redis, and clients in sessions of several
//! connections. One run per table mode on the same schedule; summary.json gives each
//! mode's hit rate (the controller's hits over its lookups) and mean FCT.

use crate::experiment::{Experiment, FleetWorkload, Tables};
use crate::metrics::{mean, median, t_min_s};
use crate::testbed::Testbed;
use crate::workloads::{poisson_schedule, progress, testbed_spec, wait_until};
use anyhow::{Context, Result};
use headstart::sys::{self, Interrupt};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One session: when it starts and its connections' sizes, one after the other.
#[derive(Clone, Debug)]
pub struct Session {
    pub start_s: f64,
    pub sizes: Vec<u64>,
}

/// Sessions whose connections, laid end to end, load the link to the utilization:
/// the Poisson schedule of all their connections, each session starting at its first
/// connection's arrival.
pub fn sessions(w: &FleetWorkload, capacity_bps: f64) -> Vec<Session> {
    let mut rng = crate::emulator::model::SplitMix64::new(w.seed ^ 0x5E55);
    let counts: Vec<u32> = (0..w.sessions).map(|_| w.connections.0 + (rng.next_f64() * (w.connections.1 - w.connections.0 + 1) as f64) as u32).map(|k| k.min(w.connections.1)).collect();
    let total: u32 = counts.iter().sum();
    let flows = poisson_schedule(w.mean_size, w.alpha, w.utilization, total, capacity_bps, w.seed);
    let mut out = Vec::new();
    let mut i = 0usize;
    for k in counts {
        let part = &flows[i..i + k as usize];
        out.push(Session { start_s: part[0].0, sizes: part.iter().map(|f| f.1).collect() });
        i += k as usize;
    }
    out
}

#[derive(Clone, Debug, Serialize)]
struct Row {
    tables: Tables,
    session: usize,
    connection: usize,
    peer: String,
    size: u64,
    start_s: f64,
    fct_ms: Option<f64>,
    discards_after_hole: Option<u64>,
    discards_unread: Option<u64>,
    retrans: Option<u64>,
    error: Option<String>,
}

/// What each mode's run gives, as summary.json has it.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ModeSummary {
    pub hit_rate: f64,
    pub mean_fct_ms: f64,
    pub median_fct_ms: f64,
    /// Connections after a session's first (the ones a table can help).
    pub mean_fct_ms_repeat: f64,
    /// The ceiling: every flow at its time on the empty path (two round trips and its
    /// bytes at the link's rate: metrics::t_min_s); and this mode's first connections as
    /// measured with every later one at that time, the most any table can give.
    pub ideal_mean_fct_ms: f64,
    pub bound_mean_fct_ms: f64,
    pub flows: usize,
    pub failed: usize,
    pub hits: u64,
    /// Misses that started from their prefix's entries instead (prefix fallback).
    pub prefix_hits: u64,
    pub misses: u64,
    pub jumps: u64,
    pub validated: u64,
    pub retreats: u64,
    /// Harm: packets the bottleneck dropped, segments the clients discarded beyond
    /// their window (TcpExt BeyondWindow), the emulator's mean queueing delay; and its
    /// p99 lateness (a run above 1 ms is flagged: the machine, not the path).
    pub bottleneck_drops: u64,
    pub client_beyond_window: u64,
    /// The same discards traced to the run's flows, by the kernel's reason: a segment
    /// that began past the window's edge (behind a hole), or one that ended past it while
    /// the receive queue held unread data (a reader slower than the override let in);
    /// and the flows' retransmitted segments.
    pub discards_after_hole: u64,
    pub discards_unread: u64,
    pub retrans: u64,
    pub queue_delay_mean_ms: f64,
    pub emulator_late_p99_ms: f64,
    /// Packets lost outside the emulated link (its TUN queue, the backlog, write errors).
    pub drops_outside_model: u64,
    /// The fleet agents' totals (fleet mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agents: Option<serde_json::Value>,
    /// With a Redis outage: when it began and how long (s), the connections that started
    /// during it (their mean FCT and failures), and how long after Redis came back the
    /// agent was connected again with nothing left waiting (s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outage: Option<OutageSummary>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct OutageSummary {
    pub at_s: f64,
    pub length_s: f64,
    pub flows_during: usize,
    pub failed_during: usize,
    pub mean_fct_ms_during: f64,
    pub caught_up_after_s: Option<f64>,
}

/// The lab's Redis on loopback, on free ports, without persistence: one server, or a
/// Redis Cluster of several masters (each its own slots, no replicas).
struct Redis {
    children: Vec<Child>,
    ports: Vec<u16>,
}

fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

impl Redis {
    /// `ports`: again on the ports of an earlier start (a Cluster's nodes find each
    /// other from their nodes.conf in `dir`).
    fn start(nodes: usize, ports: Option<Vec<u16>>, dir: &Path) -> Result<Redis> {
        let fresh = ports.is_none();
        let ports = match ports {
            Some(p) => p,
            None => (0..nodes).map(|_| free_port()).collect::<Result<_>>()?,
        };
        let mut redis = Redis { children: Vec::new(), ports: ports.clone() };
        for &port in &ports {
            let mut cmd = Command::new("redis-server");
            cmd.args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]);
            if nodes > 1 {
                let conf = dir.join(format!("redis-nodes-{port}.conf"));
                cmd.args(["--cluster-enabled", "yes", "--cluster-node-timeout", "2000", "--cluster-config-file"]).arg(conf);
            }
            redis.children.push(cmd.current_dir(dir).stdout(Stdio::null()).stderr(Stdio::null()).spawn().context("starting redis-server (apt-get install redis-server)")?);
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        for &port in &ports {
            while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
                anyhow::ensure!(Instant::now() < deadline, "redis-server did not come up on port {port}");
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        if nodes > 1 {
            if fresh {
                let mut args = vec!["--cluster".to_string(), "create".to_string()];
                args.extend(ports.iter().map(|p| format!("127.0.0.1:{p}")));
                args.extend(["--cluster-replicas", "0", "--cluster-yes"].map(String::from));
                let out = Command::new("redis-cli").args(&args).output().context("redis-cli --cluster create")?;
                anyhow::ensure!(out.status.success(), "creating the Redis Cluster: {}", String::from_utf8_lossy(&out.stdout).lines().last().unwrap_or(""));
            }
            for &port in &ports {
                loop {
                    let out = Command::new("redis-cli").args(["-p", &port.to_string(), "cluster", "info"]).output()?;
                    if String::from_utf8_lossy(&out.stdout).contains("cluster_state:ok") {
                        break;
                    }
                    anyhow::ensure!(Instant::now() < deadline + Duration::from_secs(10), "the Redis Cluster is not ok on port {port}");
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        }
        Ok(redis)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A running fleet agent (the real `headstart fleet run`) and its status file.
struct Agent {
    child: Child,
    status: PathBuf,
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn headstart_binary() -> PathBuf {
    std::env::current_exe().ok().map(|p| p.with_file_name("headstart")).filter(|p| p.exists()).unwrap_or_else(|| PathBuf::from("headstart"))
}

/// The fleet agent (the real `headstart fleet run`) on the lab's Redis at `port`, serving
/// the network namespaces named (none: the host's), its status and log in `dir` named
/// after `name`; returned once it is connected (subscribed, every key read).
fn spawn_agent(port: u16, host_id: &str, netns: &[&str], dir: &Path, name: &str) -> Result<Agent> {
    let status = dir.join(format!("{name}.json"));
    let log_path = dir.join(format!("{name}.log"));
    let mut cmd = Command::new(headstart_binary());
    cmd.args(["fleet", "run", "--redis", &format!("redis://127.0.0.1:{port}/"), "--host-id", host_id, "--key-prefix", &format!("hslab-{}:", std::process::id())]);
    for n in netns {
        cmd.args(["--netns", n]);
    }
    let child = cmd.arg("--status-file").arg(&status).stdout(Stdio::null()).stderr(std::fs::File::create(&log_path)?).spawn().context("starting the fleet agent (headstart fleet run)")?;
    let mut agent = Agent { child, status };
    let deadline = Instant::now() + Duration::from_secs(10);
    while !std::fs::read_to_string(&agent.status).is_ok_and(|t| t.contains("\"connected\": true")) {
        if let Some(st) = agent.child.try_wait()? {
            anyhow::bail!("the fleet agent exited ({st}): see {}", log_path.display());
        }
        anyhow::ensure!(Instant::now() < deadline, "the fleet agent did not connect in 10 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(agent)
}

/// One agent for the kernel, serving every server namespace as a server of its own (the
/// store ring has one reader).
fn start_agent(lab: &Testbed, port: u16, dir: &Path) -> Result<Agent> {
    let netns: Vec<&str> = lab.topo.backends.iter().map(|b| b.netns.as_str()).collect();
    spawn_agent(port, "lab", &netns, dir, "agent")
}

fn counter(values: &Option<Vec<u64>>, abi: &headstart::bpf::abi::ControllerAbi, name: &str) -> u64 {
    let i = abi.counters.iter().position(|c| c.name == name);
    i.and_then(|i| values.as_ref().map(|v| v[i])).unwrap_or(0)
}

/// Runs every table mode of the workload and writes rows.csv, summary.json.
pub fn run(exp: &Experiment, w: &FleetWorkload, dir: &Path, interrupt: Interrupt, quiet: bool) -> Result<Vec<(Tables, ModeSummary)>> {
    let plan = sessions(w, exp.link.capacity_bps);
    let cc = &w.cc[0];
    let abi = headstart::bpf::abi::CONTROLLER_ABI.iter().find(|a| a.name == cc.kernel);
    let mut rows = Vec::new();
    let mut out = Vec::new();
    let total_flows: usize = plan.iter().map(|s| s.sizes.len()).sum();
    for &mode in &w.tables {
        let mut spec = testbed_spec(exp);
        spec.backends = if mode == Tables::Single { 1 } else { w.servers };
        spec.affinity = w.affinity;
        let lab = Testbed::up(spec, interrupt.clone())?;
        let fleet = matches!(mode, Tables::Fleet | Tables::FleetPrefix);
        let mut knobs = headstart::bpf::read_knobs()?;
        knobs.set(if mode == Tables::FleetPrefix { "prefix_fallback=on" } else { "prefix_fallback=off" })?;
        headstart::bpf::write_knobs(&knobs)?;
        let mut redis = if fleet { Some(Redis::start(w.redis_nodes, None, dir)?) } else { None };
        let agent = match &redis {
            Some(r) => Some(start_agent(&lab, r.ports[0], dir)?),
            None => None,
        };
        let pb = progress(total_flows as u64, quiet);
        pb.set_message(format!("{} {:?}", cc.label, mode));
        let before = abi.and_then(|a| headstart::bpf::counters(a).ok());
        let t0 = Instant::now();
        let outage = match (fleet, w.redis_outage_ns) {
            (true, Some(ns)) => Some((plan.last().map(|s| s.start_s).unwrap_or(0.0) / 2.0, Duration::from_nanos(ns))),
            _ => None,
        };
        type Done = Vec<(usize, usize, std::net::IpAddr, u64, f64, Result<f64, String>, Option<crate::kernel::FlowTrace>)>;
        let (results, caught_up): (Done, Option<f64>) = std::thread::scope(|s| -> Result<_> {
            let lab = &lab;
            let outage_thread = outage.map(|(at, len)| {
                let redis = &mut redis;
                s.spawn(move || -> Result<Option<f64>> {
                    wait_until(t0 + Duration::from_secs_f64(at), &lab.interrupt)?;
                    let ports = redis.as_ref().map(|r| r.ports.clone());
                    *redis = None; // killed: a Redis that stopped
                    eprintln!("lab: Redis stopped at {at:.1} s for {:.0} s", len.as_secs_f64());
                    wait_until(Instant::now() + len, &lab.interrupt)?;
                    *redis = Some(Redis::start(w.redis_nodes, ports, dir)?);
                    let back = Instant::now();
                    let back_ms = headstart::sys::unix_ms();
                    eprintln!("lab: Redis back");
                    // Caught up: the agent connected again (subscribed, every key read)
                    // and nothing of its own left to write, in a status written since.
                    let status = dir.join("agent.json");
                    while back.elapsed() < Duration::from_secs(60) {
                        if let Ok(st) = headstart::fleet::FleetStatus::read(&status) {
                            if st.connected && st.pending == 0 && st.updated_unix_ms > back_ms {
                                return Ok(Some(back.elapsed().as_secs_f64()));
                            }
                        }
                        std::thread::sleep(Duration::from_millis(100));
                    }
                    Ok(None)
                })
            });
            let mut handles = Vec::new();
            for (i, sess) in plan.iter().enumerate() {
                wait_until(t0 + Duration::from_secs_f64(sess.start_s), &lab.interrupt)?;
                let pb = &pb;
                handles.push(s.spawn(move || {
                    let (client, peer) = (i % w.clients, i / w.clients);
                    let addr = lab.topo.peer_addr(client, peer, false);
                    let mut done = Vec::new();
                    for (j, &size) in sess.sizes.iter().enumerate() {
                        if j > 0 {
                            std::thread::sleep(Duration::from_nanos(w.think_ns));
                        }
                        let start = t0.elapsed().as_secs_f64();
                        let outcome = lab.flow(client, peer, cc, size, false).map_err(|e| format!("{e:#}"));
                        let trace = outcome.as_ref().ok().and_then(|o| o.trace);
                        let r = outcome.and_then(|o| o.client_flow.map(|f| f.fct.as_secs_f64() * 1e3));
                        pb.inc(1);
                        done.push((i, j, addr, size, start, r, trace));
                    }
                    done
                }));
            }
            let mut all = Vec::new();
            for h in handles {
                all.extend(h.join().map_err(|_| anyhow::anyhow!("session thread panicked"))?);
            }
            let caught_up = match outage_thread {
                Some(t) => t.join().map_err(|_| anyhow::anyhow!("outage thread panicked"))??,
                None => None,
            };
            Ok((all, caught_up))
        })?;
        pb.finish_and_clear();
        std::thread::sleep(Duration::from_millis(500)); // the last flows' stores
        let after = abi.and_then(|a| headstart::bpf::counters(a).ok());
        let agent_counts = agent.as_ref().map(|a| agent_counts(&a.status));
        drop(agent);
        drop(redis);
        let report = lab.down()?;
        let accuracy = report.summary();
        if !quiet {
            eprintln!("lab: {mode:?}: {}", accuracy.one_line());
        }
        let (discards_after_hole, discards_unread, retrans) =
            results.iter().filter_map(|r| r.6).fold((0, 0, 0), |(h, u, t), f| (h + f.discards.beyond_edge, u + f.discards.unread, t + f.retrans));
        let mut summary = ModeSummary {
            bottleneck_drops: report.flows.values().map(|f| f.down_dropped_buffer).sum(),
            client_beyond_window: report.client_tcpext.get("BeyondWindow").copied().unwrap_or(0),
            discards_after_hole,
            discards_unread,
            retrans,
            queue_delay_mean_ms: report.down_queue_delay_us.mean() / 1000.0,
            emulator_late_p99_ms: accuracy.lateness_p99_ms,
            drops_outside_model: accuracy.lost_outside_model(),
            ..Default::default()
        };
        if let Some(a) = abi {
            let d = |n: &str| counter(&after, a, n).saturating_sub(counter(&before, a, n));
            summary.hits = d("hits");
            summary.prefix_hits = d("prefix_hits");
            summary.misses = d("misses");
            summary.jumps = d("jumps");
            summary.validated = d("validated");
            summary.retreats = d("retreat_loss") + d("retreat_rto") + d("retreat_rate") + d("retreat_ecn");
        }
        // Of every start: a prefix start is no hit.
        summary.hit_rate = summary.hits as f64 / (summary.hits + summary.misses + summary.prefix_hits).max(1) as f64;
        let mut fcts: Vec<f64> = results.iter().filter_map(|r| r.5.as_ref().ok().copied()).collect();
        let repeat: Vec<f64> = results.iter().filter(|r| r.1 > 0).filter_map(|r| r.5.as_ref().ok().copied()).collect();
        summary.flows = results.len();
        summary.failed = results.iter().filter(|r| r.5.is_err()).count();
        summary.mean_fct_ms = mean(&fcts);
        summary.median_fct_ms = median(&mut fcts);
        summary.mean_fct_ms_repeat = mean(&repeat);
        let ideal_ms = |size: u64| t_min_s(size, 1448 /* IPv4 peers */, exp.link.rtt_ns as f64 / 1e9, exp.link.capacity_bps) * 1e3;
        let done: Vec<_> = results.iter().filter_map(|r| r.5.as_ref().ok().map(|&f| (r.1, r.3, f))).collect();
        summary.ideal_mean_fct_ms = mean(&done.iter().map(|&(_, size, _)| ideal_ms(size)).collect::<Vec<_>>());
        summary.bound_mean_fct_ms = mean(&done.iter().map(|&(conn, size, f)| if conn == 0 { f } else { ideal_ms(size) }).collect::<Vec<_>>());
        summary.agents = agent_counts;
        if let Some((at, len)) = outage {
            let during: Vec<_> = results.iter().filter(|r| r.4 >= at && r.4 < at + len.as_secs_f64()).collect();
            summary.outage = Some(OutageSummary {
                at_s: at,
                length_s: len.as_secs_f64(),
                flows_during: during.len(),
                failed_during: during.iter().filter(|r| r.5.is_err()).count(),
                mean_fct_ms_during: mean(&during.iter().filter_map(|r| r.5.as_ref().ok().copied()).collect::<Vec<_>>()),
                caught_up_after_s: caught_up,
            });
        }
        for (session, connection, addr, size, start_s, r, trace) in results {
            let (discards_after_hole, discards_unread, retrans) = trace.map_or((None, None, None), |t| (Some(t.discards.beyond_edge), Some(t.discards.unread), Some(t.retrans)));
            rows.push(Row { tables: mode, session, connection, peer: addr.to_string(), size, start_s, fct_ms: r.as_ref().ok().copied(), discards_after_hole, discards_unread, retrans, error: r.err() });
        }
        out.push((mode, summary));
    }
    let mut csv = String::from("tables,session,connection,peer,size,start_s,fct_ms,discards_after_hole,discards_unread,retrans,error\n");
    for r in &rows {
        csv.push_str(&format!(
            "{},{},{},{},{},{:.4},{},{},{},{},{}\n",
            serde_json::to_value(r.tables)?.as_str().unwrap_or("?"),
            r.session,
            r.connection,
            r.peer,
            r.size,
            r.start_s,
            r.fct_ms.map(|f| format!("{f:.3}")).unwrap_or_default(),
            r.discards_after_hole.map(|n| n.to_string()).unwrap_or_default(),
            r.discards_unread.map(|n| n.to_string()).unwrap_or_default(),
            r.retrans.map(|n| n.to_string()).unwrap_or_default(),
            r.error.as_deref().unwrap_or("").replace([',', '\n'], ";")
        ));
    }
    std::fs::write(dir.join("rows.csv"), csv)?;
    let summary: serde_json::Map<String, serde_json::Value> = out.iter().map(|(m, s)| Ok((serde_json::to_value(m)?.as_str().unwrap_or("?").to_string(), serde_json::to_value(s)?))).collect::<Result<_>>()?;
    std::fs::write(dir.join("summary.json"), serde_json::to_string_pretty(&summary)?)?;
    Ok(out)
}

/// The agent's counts, as its status file has them.
fn agent_counts(status: &Path) -> serde_json::Value {
    let Ok(serde_json::Value::Object(mut m)) = headstart::fleet::FleetStatus::read(status).and_then(|s| Ok(serde_json::to_value(s)?)) else {
        return serde_json::Value::Object(Default::default());
    };
    m.retain(|_, v| v.is_u64());
    serde_json::Value::Object(m)
}

/// The terminal table.
pub fn table(out: &[(Tables, ModeSummary)]) -> String {
    let mut t = comfy_table::Table::new();
    t.set_header(["tables", "flows", "failed", "hit rate", "prefix starts", "mean FCT ms", "median FCT ms", "repeat conns mean FCT ms", "bound ms", "jumps", "validated", "retreats", "drops", "discards", "queue ms", "agents applied"]);
    for (m, s) in out {
        t.add_row(vec![
            serde_json::to_value(m).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default(),
            s.flows.to_string(),
            s.failed.to_string(),
            format!("{:.3}", s.hit_rate),
            s.prefix_hits.to_string(),
            format!("{:.1}", s.mean_fct_ms),
            format!("{:.1}", s.median_fct_ms),
            format!("{:.1}", s.mean_fct_ms_repeat),
            format!("{:.1}", s.bound_mean_fct_ms),
            s.jumps.to_string(),
            s.validated.to_string(),
            s.retreats.to_string(),
            s.bottleneck_drops.to_string(),
            s.client_beyond_window.to_string(),
            format!("{:.1}", s.queue_delay_mean_ms),
            s.agents.as_ref().and_then(|a| a.get("applied")).map(|v| v.to_string()).unwrap_or_default(),
        ]);
    }
    t.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_take_the_schedules_connections_in_order() {
        let w = FleetWorkload {
            cc: vec![],
            servers: 4,
            affinity: false,
            tables: vec![Tables::PerHost],
            sessions: 500,
            connections: (1, 10),
            mean_size: 256 * 1024,
            alpha: 2.5,
            utilization: 0.3,
            think_ns: 0,
            clients: 4,
            seed: 7,
            redis_outage_ns: None,
            redis_nodes: 1,
        };
        let s = sessions(&w, 100e6);
        assert_eq!(s.len(), 500);
        assert!(s.iter().all(|x| (1..=10).contains(&x.sizes.len())));
        let mean_k = s.iter().map(|x| x.sizes.len()).sum::<usize>() as f64 / 500.0;
        assert!((mean_k - 5.5).abs() < 0.5, "uniform 1-10: mean {mean_k}");
        assert!(s.windows(2).all(|p| p[0].start_s <= p[1].start_s));
        assert!(s.iter().any(|x| x.sizes.len() == 1) && s.iter().any(|x| x.sizes.len() == 10), "both ends of the range");
    }
}

/// One rate of the agent benchmark.
#[derive(Clone, Debug, Serialize)]
pub struct AgentBenchRow {
    pub events_per_s: u32,
    pub peers: u32,
    pub seconds: f64,
    /// Written into the ring, and refused by it (full: the agent behind).
    pub events_written: u64,
    pub ring_refused: u64,
    /// What the agent read, and wrote to Redis, per second of the run.
    pub agent_events: u64,
    pub redis_writes_per_s: f64,
    pub published: u64,
    pub suppressed: u64,
    pub dropped: u64,
    /// The agent's CPU (user + system) over the run, in % of one core.
    pub agent_cpu_pct: f64,
}

/// The agent process's CPU time so far, s (utime + stime of /proc/PID/stat).
fn cpu_s(pid: u32) -> Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    let rest = stat.rsplit_once(')').context("stat")?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f[11].parse::<f64>()? + f[12].parse::<f64>()?;
    // SAFETY: sysconf has no preconditions.
    Ok(ticks / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64)
}

/// `headstart lab agent-bench`: for each rate, synthetic store events into the ring for
/// `seconds`, the real agent (host namespace) publishing to a Redis of the lab's.
pub fn agent_bench(rates: &[u32], peers: u32, seconds: f64, out: &crate::run::Output) -> Result<PathBuf> {
    anyhow::ensure!(rates.iter().all(|r| (100..=1_000_000).contains(r)), "events per second must be 100 to 1000000");
    anyhow::ensure!((1..=65536).contains(&peers), "peers must be 1 to 65536");
    anyhow::ensure!((1.0..=600.0).contains(&seconds), "seconds must be 1 to 600");
    sys::require_root()?;
    crate::run::load_headstart_ccs(["s_cubic"])?;
    let dir = out.prepare("agent-bench")?;
    let interrupt = Interrupt::install()?;
    let mut source = crate::kernel::StoreEventSource::load()?;
    let mut rows = Vec::new();
    for &rate in rates {
        let redis = Redis::start(1, None, &dir)?;
        let agent = spawn_agent(redis.ports[0], "bench", &[], &dir, &format!("agent-{rate}"))?;
        let status = agent.status.clone();
        let pid = agent.child.id();
        let before = headstart::fleet::FleetStatus::read(&status)?;
        let cpu0 = cpu_s(pid)?;
        let t0 = Instant::now();
        // Every 10 ms the events due by then.
        let (mut sent, mut written) = (0u64, 0u64);
        while t0.elapsed().as_secs_f64() < seconds {
            interrupt.check()?;
            let due = (t0.elapsed().as_secs_f64() * rate as f64) as u64;
            while sent < due {
                let n = (due - sent).min(8192) as u32;
                written += source.write(n, peers, sent as u32)? as u64;
                sent += n as u64;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let elapsed = t0.elapsed().as_secs_f64();
        std::thread::sleep(Duration::from_millis(1500)); // the agent's last drain and status
        let cpu = cpu_s(pid)? - cpu0;
        let after = headstart::fleet::FleetStatus::read(&status)?;
        drop(agent);
        drop(redis);
        let row = AgentBenchRow {
            events_per_s: rate,
            peers,
            seconds: elapsed,
            events_written: written,
            ring_refused: sent - written,
            agent_events: after.events - before.events,
            // The agent writes on through the settle after the load: over both.
            redis_writes_per_s: (after.writes - before.writes) as f64 / (elapsed + 1.5),
            published: after.published - before.published,
            suppressed: after.suppressed - before.suppressed,
            dropped: after.dropped - before.dropped,
            agent_cpu_pct: cpu / elapsed * 100.0,
        };
        eprintln!("lab: {rate} events/s: agent {:.1} % of a core, {:.0} Redis writes/s", row.agent_cpu_pct, row.redis_writes_per_s);
        rows.push(row);
    }
    std::fs::write(dir.join("agent-bench.jsonl"), crate::report::jsonl(&rows)?)?;
    let mut t = comfy_table::Table::new();
    t.set_header(["events/s", "peers", "written", "ring refused", "agent read", "agent CPU % of a core", "Redis writes/s", "published", "unchanged", "dropped"]);
    for r in &rows {
        t.add_row(vec![r.events_per_s.to_string(), r.peers.to_string(), r.events_written.to_string(), r.ring_refused.to_string(), r.agent_events.to_string(), format!("{:.2}", r.agent_cpu_pct), format!("{:.0}", r.redis_writes_per_s), r.published.to_string(), r.suppressed.to_string(), r.dropped.to_string()]);
    }
    println!("{t}");
    Ok(dir)
}
