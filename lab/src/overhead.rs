//! The cost of a congestion control on a fast path with no emulator: two namespaces
//! joined by a veth pair, one bulk transfer per controller and repetition, measuring
//! throughput, whole-machine CPU time per gigabyte (/proc/stat: user, system, irq and
//! softirq of every CPU, so the kernel's TCP work counts), and, for BPF controllers,
//! the run time of their programs per call (kernel.bpf_stats_enabled, switched on
//! for the run and restored after).

use crate::run::Output;
use crate::traffic::{self, Server, SERVER_PORT};
use headstart::sys::{self, Interrupt};
use anyhow::{Context, Result};
use serde::Serialize;
use std::fs::File;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

const SERVER: Ipv4Addr = Ipv4Addr::new(10, 78, 0, 1);
const CLIENT: Ipv4Addr = Ipv4Addr::new(10, 78, 0, 2);

/// Two namespaces and a veth pair between them, deleted on drop. Named like the
/// lab's namespaces so that `lab clean` sweeps them after a crash.
struct VethPair {
    server: String,
    client: String,
}

impl VethPair {
    fn create() -> Result<VethPair> {
        crate::topology::sweep_leftovers()?;
        let pid = std::process::id();
        let pair = VethPair {
            server: format!("{}{pid}-vs", crate::topology::NS_PREFIX),
            client: format!("{}{pid}-vc", crate::topology::NS_PREFIX),
        };
        for ns in [&pair.server, &pair.client] {
            sys::run("ip", &["netns", "add", ns])?;
            sys::run("ip", &["-n", ns, "link", "set", "lo", "up"])?;
        }
        sys::run("ip", &["-n", &pair.server, "link", "add", "hsv0", "type", "veth", "peer", "name", "hsv1", "netns", &pair.client])?;
        for (ns, dev, addr) in [(&pair.server, "hsv0", SERVER), (&pair.client, "hsv1", CLIENT)] {
            sys::run("ip", &["-n", ns, "addr", "add", &format!("{addr}/24"), "dev", dev])?;
            sys::run("ip", &["-n", ns, "link", "set", dev, "mtu", "1500", "up"])?;
        }
        Ok(pair)
    }
}

impl Drop for VethPair {
    fn drop(&mut self) {
        for ns in [&self.server, &self.client] {
            let _ = sys::run("ip", &["netns", "delete", ns]);
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct OverheadRow {
    pub cc: String,
    pub rep: u32,
    pub bytes: u64,
    pub seconds: f64,
    pub throughput_gbps: f64,
    /// Busy CPU time of the whole machine per GB transferred.
    pub cpu_s_per_gb: f64,
    /// BPF programs of this controller: calls and mean run time per call.
    pub bpf_calls: Option<u64>,
    pub bpf_ns_per_call: Option<f64>,
    /// Calls of the per-ACK hook (pkts_acked or cong_control) and its mean run time.
    pub bpf_ack_calls: Option<u64>,
    pub bpf_ns_per_ack: Option<f64>,
}

/// Busy jiffies of all CPUs (user nice system irq softirq steal excluded idle/iowait).
fn busy_ticks() -> Result<u64> {
    let stat = std::fs::read_to_string("/proc/stat")?;
    let cpu = stat.lines().next().context("/proc/stat is empty")?;
    let v: Vec<u64> = cpu.split_whitespace().skip(1).filter_map(|x| x.parse().ok()).collect();
    // user nice system idle iowait irq softirq steal
    Ok(v[0] + v[1] + v[2] + v.get(5).unwrap_or(&0) + v.get(6).unwrap_or(&0))
}

const BPF_STATS: &str = "/proc/sys/kernel/bpf_stats_enabled";

/// Restores kernel.bpf_stats_enabled on drop.
struct StatsEnabled(String);

impl StatsEnabled {
    fn on() -> Result<StatsEnabled> {
        let before = std::fs::read_to_string(BPF_STATS).context(BPF_STATS)?;
        std::fs::write(BPF_STATS, "1").context("enabling kernel.bpf_stats_enabled")?;
        Ok(StatsEnabled(before.trim().to_string()))
    }
}

impl Drop for StatsEnabled {
    fn drop(&mut self) {
        let _ = std::fs::write(BPF_STATS, &self.0);
    }
}

pub fn run(ccs: &[String], bytes: u64, reps: u32, interrupt: Interrupt) -> Result<Vec<OverheadRow>> {
    sys::require_root()?;
    anyhow::ensure!(bytes >= 1 << 20, "transfer at least 1 MiB");
    anyhow::ensure!((1..=100).contains(&reps), "reps must be 1..100");
    for cc in ccs {
        crate::experiment::CcSpec::parse(cc)?.check_available()?;
    }
    let pair = VethPair::create()?;
    let server_ns = File::open(format!("{}/{}", crate::topology::NETNS_DIR, pair.server))?;
    let client_ns = File::open(format!("{}/{}", crate::topology::NETNS_DIR, pair.client))?;
    let server = Server::start(&server_ns, ccs, None, None, None)?;
    let _stats = StatsEnabled::on()?;
    let mut rows = Vec::new();
    let mut port = 20_000u16;
    for rep in 0..reps {
        // The controllers take turns, so that drifts of the machine hit all alike.
        for (i, cc) in ccs.iter().enumerate() {
            interrupt.check()?;
            let before_bpf = headstart::bpf::prog_stats(cc);
            let t0 = busy_ticks()?;
            let (cc2, intr) = (cc.clone(), interrupt.clone());
            let local = SocketAddr::new(IpAddr::V4(CLIENT), port);
            let remote = SocketAddr::new(IpAddr::V4(SERVER), SERVER_PORT + i as u16);
            port += 1;
            let flow = sys::run_in_netns(&client_ns, None, move || traffic::client_flow(remote, local, bytes, &cc2, Duration::from_secs(600), Duration::ZERO, &intr))?;
            let ticks = busy_ticks()? - t0;
            let _ = server.take_result(crate::emulator::stats::FlowKey::new(local.ip(), local.port()), Duration::from_secs(5));
            let after_bpf = headstart::bpf::prog_stats(cc);
            // SAFETY: sysconf has no preconditions.
            let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
            let gb = flow.bytes as f64 / 1e9;
            let delta = |f: fn(&headstart::bpf::ProgStats) -> (u64, u64)| -> Option<(u64, f64)> {
                let (b, a) = (before_bpf.as_ref()?, after_bpf.as_ref()?);
                let (bc, bt) = f(b);
                let (ac, at) = f(a);
                let calls = ac.saturating_sub(bc);
                (calls > 0).then(|| (calls, at.saturating_sub(bt) as f64 / calls as f64))
            };
            let all = delta(|s| (s.calls, s.run_ns));
            let ack = delta(|s| (s.ack_calls, s.ack_run_ns));
            rows.push(OverheadRow {
                cc: cc.clone(),
                rep,
                bytes: flow.bytes,
                seconds: flow.fct.as_secs_f64(),
                throughput_gbps: flow.bytes as f64 * 8.0 / flow.fct.as_secs_f64() / 1e9,
                cpu_s_per_gb: ticks as f64 / hz / gb.max(1e-9),
                bpf_calls: all.map(|a| a.0),
                bpf_ns_per_call: all.map(|a| a.1),
                bpf_ack_calls: ack.map(|a| a.0),
                bpf_ns_per_ack: ack.map(|a| a.1),
            });
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    drop(server);
    drop(pair);
    Ok(rows)
}

/// `headstart lab overhead`: validates everything, registers the headstart controllers
/// named, runs, and writes overhead.jsonl and the summary table. Returns the folder.
pub fn run_and_report(cc: &[String], bytes: &str, reps: u32, out: &Output) -> Result<std::path::PathBuf> {
    for c in cc {
        crate::experiment::CcSpec::parse(c)?.check_available()?;
    }
    let bytes = headstart::units::parse_size(bytes)?;
    anyhow::ensure!(bytes >= 1 << 20, "transfer at least 1 MiB");
    anyhow::ensure!((1..=1000).contains(&reps), "--reps must be 1..1000");
    sys::require_root()?;
    crate::run::load_headstart_ccs(cc.iter().map(String::as_str))?;
    let dir = out.prepare("overhead")?;
    let rows = run(cc, bytes, reps, Interrupt::install()?)?;
    std::fs::write(dir.join("overhead.jsonl"), crate::report::jsonl(&rows)?)?;
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    t.set_header(vec!["cc", "runs", "throughput Gbit/s (median, min–max)", "CPU s/GB (median, min–max)", "CPU vs first", "BPF ns/call", "BPF ns/ACK"]);
    let med = |v: &mut Vec<f64>| crate::metrics::median(v);
    let mut base_cpu = None;
    for c in cc {
        let rs: Vec<_> = rows.iter().filter(|r| &r.cc == c).collect();
        let mut tp: Vec<f64> = rs.iter().map(|r| r.throughput_gbps).collect();
        let mut cpu: Vec<f64> = rs.iter().map(|r| r.cpu_s_per_gb).collect();
        let mut ns: Vec<f64> = rs.iter().filter_map(|r| r.bpf_ns_per_call).collect();
        let mut nsa: Vec<f64> = rs.iter().filter_map(|r| r.bpf_ns_per_ack).collect();
        let (tmin, tmax) = tp.iter().fold((f64::MAX, f64::MIN), |a, &x| (a.0.min(x), a.1.max(x)));
        let (cmin, cmax) = cpu.iter().fold((f64::MAX, f64::MIN), |a, &x| (a.0.min(x), a.1.max(x)));
        let cm = med(&mut cpu);
        let base = *base_cpu.get_or_insert(cm);
        t.add_row(vec![
            c.clone(),
            rs.len().to_string(),
            format!("{:.2} ({tmin:.2}–{tmax:.2})", med(&mut tp)),
            format!("{cm:.3} ({cmin:.3}–{cmax:.3})"),
            format!("{:.2}x", cm / base),
            if ns.is_empty() { "–".into() } else { format!("{:.0}", med(&mut ns)) },
            if nsa.is_empty() { "–".into() } else { format!("{:.0}", med(&mut nsa)) },
        ]);
    }
    println!("{t}");
    std::fs::write(dir.join("summary.txt"), format!("{t}\n"))?;
    Ok(dir)
}
