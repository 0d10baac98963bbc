//! An experiment = a link + a workload. Written by hand in TOML (`headstart lab run
//! FILE`) or built from command-line flags (`headstart lab sweep ...`); either way it is
//! validated completely before anything is created.

use crate::emulator::aqm::Aqm;
use crate::emulator::model::{DirectionConfig, LinkRate, Trace};
use headstart::units::{self, BufferSpec};
use anyhow::{bail, ensure, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The link as written by the user.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkText {
    /// Bottleneck rate (constant link), e.g. "100mbit". Ignored for a trace's direction.
    #[serde(default)]
    pub rate: Option<String>,
    /// Round-trip propagation delay, split evenly over the two directions.
    pub rtt: String,
    /// Drop-tail buffer: "1bdp", "0.5bdp", "10mb".
    #[serde(default = "default_buffer")]
    pub buffer: String,
    /// Random loss on the downlink, "0.1%".
    #[serde(default)]
    pub loss: Option<String>,
    /// mahimahi trace for the downlink (data).
    #[serde(default)]
    pub trace: Option<PathBuf>,
    /// mahimahi trace for the uplink (ACKs); default: the downlink's rate or trace.
    #[serde(default)]
    pub uplink_trace: Option<PathBuf>,
    /// Random loss on the uplink (ACKs), "1%".
    #[serde(default)]
    pub uplink_loss: Option<String>,
    /// Uplink deliveries (ACKs) held to the next multiple of this period, "4ms": ACK
    /// aggregation as over Wi-Fi or LTE.
    #[serde(default)]
    pub ack_aggregation: Option<String>,
    /// The same on the downlink (data).
    #[serde(default)]
    pub aggregation: Option<String>,
    /// The bottleneck's queue discipline: "droptail" (default), "red" (Floyd's
    /// thresholds for the buffer), "red:20:80" (thresholds in packets), "codel" (RFC
    /// 8289's 5 ms / 100 ms).
    #[serde(default)]
    pub aqm: Option<String>,
    /// The discipline marks ECN-capable packets instead of dropping them, and the
    /// clients ask for ECN (net.ipv4.tcp_ecn=1).
    #[serde(default)]
    pub ecn: bool,
    /// Each data packet's delay grows by a uniform draw up to this ("10ms"), order kept.
    #[serde(default)]
    pub jitter: Option<String>,
    /// The uplink's one-way delay ("10ms"); the downlink gets the rest of `rtt`
    /// (default: half each).
    #[serde(default)]
    pub uplink_delay: Option<String>,
    /// The uplink's rate (default: the downlink's), e.g. "384kbit" for a cable modem.
    #[serde(default)]
    pub uplink_rate: Option<String>,
    /// Per client (client i takes entry i mod n), its own round-trip time ≥ `rtt`: the
    /// difference is a delay outside the bottleneck, so flows of different RTTs share it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub client_rtts: Vec<String>,
}

fn default_buffer() -> String {
    "1bdp".into()
}

/// The link, validated and resolved.
#[derive(Clone, Debug, Serialize)]
pub struct Link {
    pub text: LinkText,
    /// Capacity used for FCT efficiency: the constant rate, or the trace's average.
    pub capacity_bps: f64,
    pub rtt_ns: u64,
    pub buffer_bytes: u64,
    pub loss: f64,
    pub uplink_loss: f64,
    pub ack_aggregation_ns: u64,
    pub aggregation_ns: u64,
    #[serde(skip)]
    pub aqm: Aqm,
    pub ecn: bool,
    pub jitter_ns: u64,
    pub up_delay_ns: u64,
    /// Per client slot, the delay outside the bottleneck (see `LinkText::client_rtts`).
    pub client_extra_ns: Vec<u64>,
    #[serde(skip)]
    pub down_rate: LinkRate,
    #[serde(skip)]
    pub up_rate: LinkRate,
}

fn read_trace(path: &Path) -> Result<Trace> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read trace {}", path.display()))?;
    Trace::parse(&text).map_err(|e| anyhow::anyhow!("malformed trace {}: {e}", path.display()))
}

impl LinkText {
    pub fn resolve(&self) -> Result<Link> {
        let rtt_ns = units::parse_duration_ns(&self.rtt).context("--rtt")?;
        ensure!(rtt_ns >= 100_000, "rtt {} is below 0.1 ms, shorter than the emulator can hold", self.rtt);
        let down_rate = match (&self.trace, &self.rate) {
            (Some(path), _) => LinkRate::Trace(read_trace(path)?),
            (None, Some(rate)) => LinkRate::Constant { bits_per_sec: units::parse_rate(rate).context("--rate")? },
            (None, None) => bail!("the link needs a rate (e.g. --rate 100mbit) or a trace"),
        };
        let up_rate = match (&self.uplink_trace, &self.uplink_rate) {
            (Some(path), _) => LinkRate::Trace(read_trace(path)?),
            (None, Some(rate)) => LinkRate::Constant { bits_per_sec: units::parse_rate(rate).context("--uplink-rate")? },
            (None, None) => match (&self.rate, &down_rate) {
                (Some(rate), _) => LinkRate::Constant { bits_per_sec: units::parse_rate(rate)? },
                (None, r) => r.clone(),
            },
        };
        let capacity_bps = match &down_rate {
            LinkRate::Constant { bits_per_sec } => *bits_per_sec as f64,
            LinkRate::Trace(t) => t.average_bits_per_sec(),
        };
        let buffer_bytes = BufferSpec::parse(&self.buffer).context("--buffer")?.bytes(capacity_bps, rtt_ns);
        ensure!(
            buffer_bytes >= 1500,
            "buffer {} is {buffer_bytes} bytes, smaller than one 1500-byte packet",
            self.buffer
        );
        let probability = |p: &Option<String>, what: &str| -> Result<f64> { p.as_deref().map(units::parse_probability).transpose().context(what.to_string()).map(|v| v.unwrap_or(0.0)) };
        let loss = probability(&self.loss, "--loss")?;
        let uplink_loss = probability(&self.uplink_loss, "--uplink-loss")?;
        let period = |p: &Option<String>, what: &str| -> Result<u64> {
            let ns = p.as_deref().map(units::parse_duration_ns).transpose().context(what.to_string())?.unwrap_or(0);
            ensure!(ns == 0 || (100_000..=1_000_000_000).contains(&ns), "{what} must be between 0.1 ms and 1 s (or 0)");
            Ok(ns)
        };
        let ack_aggregation_ns = period(&self.ack_aggregation, "--ack-aggregation")?;
        let aggregation_ns = period(&self.aggregation, "--aggregation")?;
        let aqm = match self.aqm.as_deref().unwrap_or("droptail") {
            "droptail" => Aqm::DropTail,
            "red" => Aqm::red_for(buffer_bytes),
            "codel" => Aqm::codel(),
            other => match other.strip_prefix("red:").and_then(|t| t.split_once(':')) {
                // red:MIN:MAX, thresholds in 1500-byte packets (the HyStart paper's 20:80).
                Some((lo, hi)) => {
                    let (lo, hi): (u64, u64) = (lo.parse().context("red min threshold")?, hi.parse().context("red max threshold")?);
                    ensure!(0 < lo && lo < hi, "aqm '{other}': red:MIN:MAX needs 0 < MIN < MAX packets");
                    match Aqm::red_for(buffer_bytes) {
                        Aqm::Red { max_p, weight, .. } => Aqm::Red { min_bytes: lo * 1500, max_bytes: hi * 1500, max_p, weight },
                        a => a,
                    }
                }
                None => bail!("aqm '{other}' is not one of droptail, red, red:MIN:MAX (packets), codel"),
            },
        };
        ensure!(!self.ecn || aqm != Aqm::DropTail, "ecn needs an aqm (red or codel) to mark");
        let duration = |p: &Option<String>, what: &str| -> Result<Option<u64>> { p.as_deref().map(units::parse_duration_ns).transpose().context(what.to_string()) };
        let jitter_ns = duration(&self.jitter, "--jitter")?.unwrap_or(0);
        ensure!(jitter_ns <= 1_000_000_000, "jitter must be at most 1 s");
        let up_delay_ns = match duration(&self.uplink_delay, "--uplink-delay")? {
            Some(d) => {
                ensure!(d < rtt_ns, "uplink_delay {} must be below the rtt {}", self.uplink_delay.as_deref().unwrap_or(""), self.rtt);
                d
            }
            None => rtt_ns - rtt_ns / 2,
        };
        let mut client_extra_ns = Vec::new();
        for r in &self.client_rtts {
            let ns = units::parse_duration_ns(r).with_context(|| format!("client_rtts entry '{r}'"))?;
            ensure!(ns >= rtt_ns, "client_rtts entry {r} is below the bottleneck's rtt {}", self.rtt);
            client_extra_ns.push(ns - rtt_ns);
        }
        Ok(Link {
            text: self.clone(),
            capacity_bps,
            rtt_ns,
            buffer_bytes,
            loss,
            uplink_loss,
            ack_aggregation_ns,
            aggregation_ns,
            aqm,
            ecn: self.ecn,
            jitter_ns,
            up_delay_ns,
            client_extra_ns,
            down_rate,
            up_rate,
        })
    }
}

impl Link {
    pub fn directions(&self, seed: u64) -> (DirectionConfig, DirectionConfig) {
        let down = DirectionConfig {
            rate: self.down_rate.clone(),
            delay_ns: self.rtt_ns - self.up_delay_ns,
            buffer_bytes: self.buffer_bytes,
            loss: self.loss,
            seed,
            aggregation_ns: self.aggregation_ns,
            aqm: self.aqm.clone(),
            ecn: self.ecn,
            jitter_ns: self.jitter_ns,
        };
        let up = DirectionConfig {
            rate: self.up_rate.clone(),
            delay_ns: self.up_delay_ns,
            buffer_bytes: self.buffer_bytes,
            loss: self.uplink_loss,
            seed: seed ^ 0x5eed,
            aggregation_ns: self.ack_aggregation_ns,
            aqm: Aqm::DropTail,
            ecn: false,
            jitter_ns: 0,
        };
        (down, up)
    }

    pub fn describe(&self) -> String {
        let rate = match (&self.text.trace, &self.text.rate) {
            (Some(t), _) => format!(
                "trace {} (avg {})",
                t.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
                units::fmt_rate(self.capacity_bps)
            ),
            (None, Some(r)) => r.clone(),
            _ => String::new(),
        };
        let mut d = format!("{rate}, RTT {}, buffer {} B ({}), loss {}%", self.text.rtt, self.buffer_bytes, self.text.buffer, self.loss * 100.0);
        if self.uplink_loss > 0.0 {
            d.push_str(&format!(", uplink loss {}%", self.uplink_loss * 100.0));
        }
        if self.ack_aggregation_ns > 0 {
            d.push_str(&format!(", ACK aggregation {} ms", self.ack_aggregation_ns as f64 / 1e6));
        }
        if self.aggregation_ns > 0 {
            d.push_str(&format!(", downlink aggregation {} ms", self.aggregation_ns as f64 / 1e6));
        }
        if let Some(aqm) = self.text.aqm.as_deref().filter(|a| *a != "droptail") {
            d.push_str(&format!(", {aqm}{}", if self.ecn { " with ECN" } else { "" }));
        }
        if self.jitter_ns > 0 {
            d.push_str(&format!(", jitter up to {} ms", self.jitter_ns as f64 / 1e6));
        }
        if let Some(u) = &self.text.uplink_delay {
            d.push_str(&format!(", uplink delay {u}"));
        }
        if let Some(u) = &self.text.uplink_rate {
            d.push_str(&format!(", uplink {u}"));
        }
        if !self.text.client_rtts.is_empty() {
            d.push_str(&format!(", client RTTs {}", self.text.client_rtts.join("/")));
        }
        d
    }

    /// Bandwidth-delay product in bytes.
    pub fn bdp_bytes(&self) -> f64 {
        self.capacity_bps / 8.0 * self.rtt_ns as f64 / 1e9
    }
}

/// A congestion control as the lab runs it: a kernel name and an optional static
/// initial window on the server's route (`cubic:iw100`), or the server's
/// tcp_slow_start_after_idle at 0 (`cubic:ssai0`: the old window after an idle, as
/// many CDNs run).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CcSpec {
    pub label: String,
    pub kernel: String,
    pub initcwnd: Option<u32>,
    /// net.ipv4.tcp_slow_start_after_idle = 0 on the server while this runs.
    #[serde(default)]
    pub keep_cwnd_after_idle: bool,
}

impl CcSpec {
    pub fn parse(text: &str) -> Result<CcSpec> {
        let text = text.trim();
        let (name, opt) = match text.split_once(':') {
            Some((n, o)) => (n, Some(o)),
            None => (text, None),
        };
        ensure!(
            !name.is_empty() && name.len() < 16 && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "'{text}' is not a congestion control name"
        );
        let (initcwnd, keep_cwnd_after_idle) = match opt {
            None => (None, false),
            Some("ssai0") => (None, true),
            Some(o) => {
                let n: u32 = o.strip_prefix("iw").and_then(|n| n.parse().ok()).with_context(|| {
                    format!("'{text}': the option after ':' must be iwN (a static initial window, e.g. cubic:iw100) or ssai0 (tcp_slow_start_after_idle=0)")
                })?;
                ensure!((1..=10_000).contains(&n), "'{text}': initial window must be 1..10000 packets");
                (Some(n), false)
            }
        };
        Ok(CcSpec { label: text.to_string(), kernel: name.to_string(), initcwnd, keep_cwnd_after_idle })
    }

    /// Fails unless the running kernel offers this congestion control, or it is one
    /// of headstart's, which the lab loads before it starts (`needs_loading`).
    pub fn check_available(&self) -> Result<()> {
        let avail = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control")
            .context("reading tcp_available_congestion_control")?;
        if !avail.split_whitespace().any(|n| n == self.kernel) && !headstart::bpf::is_ours(&self.kernel) && !crate::kernel::is_lab_controller(&self.kernel) {
            bail!(
                "unknown congestion control '{}': this kernel offers {}, headstart adds {} and the lab {}",
                self.kernel,
                avail.trim(),
                headstart::bpf::names().join(" "),
                crate::kernel::LAB_CONTROLLERS.join(" ")
            );
        }
        Ok(())
    }
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum WorkloadText {
    /// Sequential flows of each size, `reps` times, for each congestion control.
    Sweep {
        cc: Vec<String>,
        sizes: Vec<String>,
        #[serde(default = "default_reps")]
        reps: u32,
        /// A previous flow to the same peer right before each measured flow.
        #[serde(default)]
        warm: bool,
        /// Size of that previous flow (default: the measured flow's size).
        #[serde(default)]
        warm_size: Option<String>,
        /// Start from the path table as it is (entries set by hand, or left by earlier
        /// runs); otherwise the run forgets its peer first and, if warm, primes it.
        #[serde(default)]
        keep_table: bool,
        #[serde(default)]
        ipv6: bool,
    },
    /// Poisson arrivals, Pareto sizes, at a target utilisation of the link.
    Poisson {
        cc: Vec<String>,
        mean_size: String,
        #[serde(default = "default_alpha")]
        alpha: f64,
        utilization: f64,
        flows: u32,
        #[serde(default = "default_clients")]
        clients: usize,
        #[serde(default)]
        seed: u64,
        /// Prime the per-peer state with one flow per client before measuring.
        #[serde(default)]
        warm: bool,
        /// Distinct peer addresses per client (flows cycle through them), to put many
        /// peers through the path table.
        #[serde(default = "default_peers")]
        peers_per_client: usize,
        /// Run the controllers at the same time, each with its own clients behind its
        /// own copy of the link (same model, same trace timeline), instead of one after
        /// the other on one link: the same comparison in a fraction of the time on a
        /// slow link.
        #[serde(default)]
        parallel: bool,
        /// Run the controllers at the same time on one shared link: each has its own
        /// clients, and one Poisson process at the total utilization sends flow i to
        /// controller i mod n (the papers' shared-bottleneck test: what a stateful
        /// start does to the flows beside it).
        #[serde(default)]
        mixed: bool,
    },
    /// A farm: `servers` servers behind a load balancer (nftables in the server
    /// namespace), each with its own path table, and clients in sessions of several
    /// connections, each session from an address of its own (Poisson session starts,
    /// Pareto sizes). Run once per entry of `tables`: "single" (one server: the hit
    /// rate to match), "per_host" (each server its own table), "fleet" (the tables
    /// shared by the fleet agents through a Redis the lab starts).
    Fleet {
        cc: Vec<String>,
        #[serde(default = "default_servers")]
        servers: usize,
        /// The balancer keeps a client on one server (source hash) instead of choosing
        /// per connection.
        #[serde(default)]
        affinity: bool,
        tables: Vec<String>,
        sessions: u32,
        /// Connections per session, uniform in this range ("1-10").
        connections: String,
        mean_size: String,
        #[serde(default = "default_alpha")]
        alpha: f64,
        /// Of the link, over the whole run.
        utilization: f64,
        /// Between a session's connections ("200ms").
        think: String,
        #[serde(default = "default_clients")]
        clients: usize,
        #[serde(default)]
        seed: u64,
        /// Stop Redis for this long in the middle of each fleet run ("30s").
        #[serde(default)]
        redis_outage: Option<String>,
        /// Redis nodes the lab starts: 1, or 3 or more for a Redis Cluster.
        #[serde(default = "default_redis_nodes")]
        redis_nodes: usize,
    },
    /// Long flows from several clients with start offsets; throughput over time.
    Competing {
        cc: Vec<String>,
        flows: Vec<CompetingFlowText>,
        #[serde(default = "default_bin")]
        bin: String,
    },
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CompetingFlowText {
    pub start: String,
    pub size: String,
    /// Index into the workload's `cc` list; default 0.
    #[serde(default)]
    pub cc: usize,
    /// The client it runs from (default: the flow's own, its index in the list): a
    /// flow after another from the same client meets the entry that one left.
    #[serde(default)]
    pub client: Option<usize>,
    /// The client sends `size` bytes to the server instead (traffic the other way,
    /// through the uplink, beside the ACKs), with the kernel's default controller in
    /// the client namespace; its row's role is "reverse", not measured.
    #[serde(default)]
    pub reverse: bool,
}

fn default_reps() -> u32 {
    3
}
fn default_alpha() -> f64 {
    2.5
}
fn default_peers() -> usize {
    1
}
fn default_clients() -> usize {
    4
}
fn default_servers() -> usize {
    4
}
fn default_redis_nodes() -> usize {
    1
}
fn default_bin() -> String {
    "100ms".into()
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentText {
    #[serde(default)]
    pub name: Option<String>,
    pub link: LinkText,
    pub workload: WorkloadText,
    /// Sample cwnd and pacing rate of every flow at this interval (e.g. "1ms").
    #[serde(default)]
    pub sample: Option<String>,
    /// Record every data packet's time in the bottleneck (packets.csv) and every
    /// retransmission reaching it (retransmissions.csv).
    #[serde(default)]
    pub packet_series: bool,
    #[serde(default)]
    pub seed: Option<u64>,
    /// Drive a real HTTP server and client (nginx, curl) instead of the lab's own
    /// (the same as app = "http").
    #[serde(default)]
    pub http: bool,
    /// The application the flows run: the lab's own sender and receiver (default),
    /// plain HTTP (nginx, curl), HTTPS (nginx with TLS 1.3, curl), or a browser's page
    /// loads over HTTPS ("page": HTTP/1.1, "page-h2": HTTP/2; headless Chromium).
    #[serde(default)]
    pub app: Option<App>,
    /// app http/https: each flow over this many connections at once (default 1).
    #[serde(default)]
    pub connections: Option<u32>,
    /// app keepalive: the idle between a connection's two responses ("2s").
    #[serde(default)]
    pub idle: Option<String>,
    /// app keepalive: the downlink's rate during the idle and the response after it,
    /// as a fraction of the link's (0.2: the path slowed to a fifth while idle).
    #[serde(default)]
    pub idle_rate: Option<f64>,
    /// app keepalive: the first response's size (default: the measured one's).
    #[serde(default)]
    pub first_size: Option<String>,
    /// Attach the receive-window override to the server when a headstart controller
    /// runs (default true).
    #[serde(default)]
    pub rwnd_override: Option<bool>,
    /// The clients' initial receive window in MSS (route initrwnd); default: Linux's.
    #[serde(default)]
    pub client_initrwnd: Option<u32>,
    /// The client stops reading for this long once a flow's first data arrives ("30ms"):
    /// an application that falls behind, so that the receiver's buffer fills and its
    /// window shrinks.
    #[serde(default)]
    pub reader_stall: Option<String>,
    /// With reader_stall: only every Nth flow of the run stalls (the Nth, 2Nth …;
    /// default 1: every flow), a receiver that falls behind now and then.
    #[serde(default)]
    pub reader_stall_every: Option<u32>,
    /// The lab's server opens its listening sockets as this uid (default: root's): the
    /// sender of a server that runs as an unprivileged user.
    #[serde(default)]
    pub server_uid: Option<u32>,
    /// headstart knobs for this run (`[knobs]`: an operator's, as `headstart config`
    /// takes them, or the lab's, as `headstart lab knobs` does); the
    /// previous values come back when the run ends, however it ends.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub knobs: BTreeMap<String, KnobValue>,
}

/// A knob's value in TOML: `freeze = true`, `bw_scale_pct = 200`, `rwnd_override = "on"`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum KnobValue {
    Switch(bool),
    Number(i64),
    Text(String),
}

impl KnobValue {
    fn text(&self) -> String {
        match self {
            KnobValue::Switch(b) => (if *b { "on" } else { "off" }).to_string(),
            KnobValue::Number(n) => n.to_string(),
            KnobValue::Text(t) => t.clone(),
        }
    }
}

/// A workload, validated.
#[derive(Clone, Debug)]
pub enum Workload {
    Sweep { cc: Vec<CcSpec>, sizes: Vec<u64>, reps: u32, warm: bool, warm_size: Option<u64>, keep_table: bool, ipv6: bool },
    Poisson { cc: Vec<CcSpec>, mean_size: u64, alpha: f64, utilization: f64, flows: u32, clients: usize, seed: u64, warm: bool, peers_per_client: usize, parallel: bool, mixed: bool },
    Competing { cc: Vec<CcSpec>, flows: Vec<CompetingFlow>, bin_ns: u64 },
    Fleet(FleetWorkload),
}

/// One flow of a competing workload, validated (see `CompetingFlowText`).
#[derive(Clone, Debug)]
pub struct CompetingFlow {
    pub start_ns: u64,
    pub size: u64,
    pub cc: usize,
    pub client: usize,
    pub reverse: bool,
}

/// How the servers of a fleet run keep their path tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tables {
    Single,
    PerHost,
    Fleet,
    /// The fleet, and prefix fallback on (knob prefix_fallback).
    #[serde(rename = "fleet+prefix")]
    FleetPrefix,
}

#[derive(Clone, Debug)]
pub struct FleetWorkload {
    pub cc: Vec<CcSpec>,
    pub servers: usize,
    pub affinity: bool,
    pub tables: Vec<Tables>,
    pub sessions: u32,
    pub connections: (u32, u32),
    pub mean_size: u64,
    pub alpha: f64,
    pub utilization: f64,
    pub think_ns: u64,
    pub clients: usize,
    pub seed: u64,
    pub redis_outage_ns: Option<u64>,
    pub redis_nodes: usize,
}

#[derive(Clone, Debug)]
pub struct Experiment {
    pub name: String,
    pub text: ExperimentText,
    pub link: Link,
    pub workload: Workload,
    pub sample_ns: Option<u64>,
    pub packet_series: bool,
    /// The random loss seed: the experiment's, or a fresh one per run (run.json).
    pub seed: u64,
    pub http: bool,
    /// HTTPS: the HTTP mode over TLS 1.3.
    pub tls: bool,
    /// The HTTP mode: connections per flow.
    pub connections: u32,
    /// The page mode: a browser's page loads, over this protocol.
    pub page: Option<crate::traffic::PageProtocol>,
    pub rwnd_override: bool,
    pub client_initrwnd: Option<u32>,
    /// See `ExperimentText::reader_stall` (0: none).
    pub reader_stall_ns: u64,
    /// See `ExperimentText::reader_stall_every` (1: every flow).
    pub reader_stall_every: u32,
    /// See `ExperimentText::server_uid`.
    pub server_uid: Option<u32>,
    /// The keep-alive app's connection.
    pub keep_alive: Option<KeepAlive>,
    /// `[knobs]` as checked `KEY=VALUE` assignments.
    pub knobs: Vec<String>,
}

/// A loss seed of its own for a run that names none: losses are paired between the copies
/// of one run's link (the same keys), and repeated runs still draw fresh losses.
fn fresh_seed() -> u64 {
    use std::io::Read;
    let mut b = [0u8; 8];
    match std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut b)) {
        Ok(()) => u64::from_le_bytes(b),
        Err(_) => {
            let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
            crate::emulator::model::mix64(t ^ u64::from(std::process::id()))
        }
    }
}

fn parse_ccs(list: &[String]) -> Result<Vec<CcSpec>> {
    ensure!(!list.is_empty(), "no congestion control given");
    let ccs = list.iter().map(|c| CcSpec::parse(c)).collect::<Result<Vec<_>>>()?;
    for c in &ccs {
        c.check_available()?;
    }
    Ok(ccs)
}

/// The keep-alive app's connection: the idle between its two responses (ns), the
/// downlink's rate fraction from the idle on, and the first response's size if not the
/// measured one's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeepAlive {
    pub idle_ns: u64,
    pub rate: f64,
    pub first_size: Option<u64>,
}

/// The application a run's flows are: what sends the response and what fetches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum App {
    /// The lab's own sender (writes the whole flow at connect) and receiver.
    Lab,
    /// nginx and curl, one GET per connection.
    Http,
    /// nginx with TLS 1.3 and curl, one GET per connection.
    Https,
    /// headless Chromium loading a page of many objects from nginx, HTTPS over
    /// HTTP/1.1 (up to six connections); a flow's size is the page's.
    Page,
    /// ... over HTTP/2 (one connection).
    #[serde(rename = "page-h2")]
    PageH2,
    /// nginx and one persistent HTTP/1.1 connection per flow: a response, an idle
    /// (`idle`), then the measured response of the same size.
    #[serde(rename = "keepalive")]
    #[value(name = "keepalive")]
    KeepAlive,
    /// ... over TLS 1.3 (the measured response on the open TLS connection).
    #[serde(rename = "keepalive-https")]
    #[value(name = "keepalive-https")]
    KeepAliveHttps,
}

impl ExperimentText {
    pub fn from_toml_file(path: &Path) -> Result<ExperimentText> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let mut exp: ExperimentText =
            toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.to_string().replace('\n', " ")))?;
        // Trace paths in a file are relative to that file, not to where the tool runs.
        let base = path.parent().unwrap_or(Path::new("."));
        for t in [&mut exp.link.trace, &mut exp.link.uplink_trace].into_iter().flatten() {
            if t.is_relative() {
                *t = base.join(&*t);
            }
        }
        Ok(exp)
    }

    /// The application, from `app` or the older `http = true`.
    fn resolved_app(&self) -> Result<App> {
        Ok(match (self.app, self.http) {
            (Some(App::Lab), true) => bail!("http = true and app = \"lab\" disagree"),
            (Some(a), _) => a,
            (None, true) => App::Http,
            (None, false) => App::Lab,
        })
    }

    pub fn validate(&self) -> Result<Experiment> {
        let link = self.link.resolve()?;
        let app = self.resolved_app()?;
        let uses_http = app != App::Lab;
        let workload = match &self.workload {
            WorkloadText::Sweep { cc, sizes, reps, warm, warm_size, keep_table, ipv6 } => {
                ensure!(!sizes.is_empty(), "no flow sizes given");
                let sizes = sizes.iter().map(|s| units::parse_size(s)).collect::<Result<Vec<_>>>()?;
                ensure!(sizes.iter().all(|&s| s > 0), "flow sizes must be positive");
                ensure!((1..=1000).contains(reps), "reps must be between 1 and 1000");
                let warm_size = warm_size.as_deref().map(units::parse_size).transpose()?;
                Workload::Sweep { cc: parse_ccs(cc)?, sizes, reps: *reps, warm: *warm, warm_size, keep_table: *keep_table, ipv6: *ipv6 }
            }
            WorkloadText::Poisson { cc, mean_size, alpha, utilization, flows, clients, seed, warm, peers_per_client, parallel, mixed } => {
                ensure!(!(*parallel && *mixed), "parallel (a link each) and mixed (one shared link) exclude each other");
                ensure!(*alpha > 1.0, "Pareto alpha must be > 1 for a finite mean");
                ensure!(*utilization > 0.0 && *utilization < 1.0, "utilization must be in (0, 1)");
                ensure!((1..=100_000).contains(flows), "flows must be between 1 and 100000");
                ensure!((1..=64).contains(clients), "clients must be between 1 and 64");
                let mean_size = units::parse_size(mean_size)?;
                ensure!(mean_size >= 100, "mean size must be at least 100 bytes");
                let w = Workload::Poisson {
                    cc: parse_ccs(cc)?,
                    mean_size,
                    alpha: *alpha,
                    utilization: *utilization,
                    flows: *flows,
                    clients: *clients,
                    seed: *seed,
                    warm: *warm,
                    peers_per_client: *peers_per_client,
                    parallel: *parallel,
                    mixed: *mixed,
                };
                if *parallel || *mixed {
                    // Each client has its own route from the server (initcwnd, the HTTP
                    // mode's congctl); the server's sysctls are one for all.
                    let ccs = w.ccs();
                    ensure!(
                        ccs.iter().all(|c| c.keep_cwnd_after_idle == ccs[0].keep_cwnd_after_idle),
                        "parallel and mixed runs need one tcp_slow_start_after_idle for all controllers (the server's sysctl)"
                    );
                    ensure!(w.clients() <= 64, "parallel and mixed: clients x controllers must be at most 64");
                }
                ensure!(
                    *peers_per_client >= 1 && (*peers_per_client - 1).checked_mul(w.clients()).is_some_and(|n| n <= crate::topology::MAX_ALIASES),
                    "peers_per_client must be 1..{} in all",
                    crate::topology::MAX_ALIASES
                );
                w
            }
            WorkloadText::Competing { cc, flows, bin } => {
                let ccs = parse_ccs(cc)?;
                ensure!(!flows.is_empty() && flows.len() <= 64, "a competing workload needs 1 to 64 flows");
                let n = flows.len();
                let flows = flows
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        ensure!(f.cc < ccs.len(), "flow cc index {} is outside the cc list", f.cc);
                        let client = f.client.unwrap_or(i);
                        ensure!(client < n, "flow {i}: client {client} is beyond the {n} clients (one per flow)");
                        Ok(CompetingFlow { start_ns: units::parse_duration_ns(&f.start)?, size: units::parse_size(&f.size)?, cc: f.cc, client, reverse: f.reverse })
                    })
                    .collect::<Result<Vec<_>>>()?;
                let bin_ns = units::parse_duration_ns(bin)?;
                ensure!(bin_ns >= 1_000_000, "bin must be at least 1ms");
                Workload::Competing { cc: ccs, flows, bin_ns }
            }
            WorkloadText::Fleet { cc, servers, affinity, tables, sessions, connections, mean_size, alpha, utilization, think, clients, seed, redis_outage, redis_nodes } => {
                ensure!(*redis_nodes == 1 || (3..=9).contains(redis_nodes), "redis_nodes: 1 (one server) or 3 to 9 (a Redis Cluster)");
                let cc = parse_ccs(cc)?;
                ensure!(cc.len() == 1, "a fleet workload runs one congestion control");
                ensure!((2..=16).contains(servers), "servers must be 2 to 16");
                ensure!(!tables.is_empty(), "tables: name at least one of single, per_host, fleet, fleet+prefix");
                let tables = tables
                    .iter()
                    .map(|t| match t.as_str() {
                        "single" => Ok(Tables::Single),
                        "per_host" => Ok(Tables::PerHost),
                        "fleet" => Ok(Tables::Fleet),
                        "fleet+prefix" => Ok(Tables::FleetPrefix),
                        other => bail!("tables: '{other}' is none of single, per_host, fleet, fleet+prefix"),
                    })
                    .collect::<Result<Vec<_>>>()?;
                ensure!((1..=20_000).contains(sessions), "sessions must be 1 to 20000");
                let (lo, hi) = connections.split_once('-').unwrap_or((connections, connections));
                let (lo, hi): (u32, u32) = (lo.trim().parse().context("connections")?, hi.trim().parse().context("connections")?);
                ensure!(lo >= 1 && lo <= hi && hi <= 100, "connections must be a range within 1-100, e.g. 1-10");
                ensure!(*utilization > 0.0 && *utilization < 1.0, "utilization must be in (0, 1)");
                ensure!(*alpha > 1.0, "alpha must be above 1");
                let think_ns = units::parse_duration_ns(think).context("think")?;
                ensure!(think_ns <= 60_000_000_000, "think must be at most 60 s");
                ensure!((1..=64).contains(clients), "clients must be 1 to 64");
                ensure!((*sessions as usize).div_ceil(*clients) <= crate::topology::MAX_ALIASES / clients, "too many sessions for the address plan");
                let redis_outage_ns = redis_outage.as_deref().map(units::parse_duration_ns).transpose().context("redis_outage")?;
                Workload::Fleet(FleetWorkload {
                    cc,
                    servers: *servers,
                    affinity: *affinity,
                    tables,
                    sessions: *sessions,
                    connections: (lo, hi),
                    mean_size: units::parse_size(mean_size)?,
                    alpha: *alpha,
                    utilization: *utilization,
                    think_ns,
                    clients: *clients,
                    seed: *seed,
                    redis_outage_ns,
                    redis_nodes: *redis_nodes,
                })
            }
        };
        // A page load is read from the namespaces' counters, one at a time.
        ensure!(!matches!(app, App::Page | App::PageH2 | App::KeepAlive | App::KeepAliveHttps) || matches!(workload, Workload::Sweep { .. }), "the page and keepalive apps run sweeps (one flow at a time)");
        let keep_alive = match (app, self.idle.as_deref()) {
            (App::KeepAlive | App::KeepAliveHttps, Some(idle)) => {
                let idle_ns = units::parse_duration_ns(idle).context("idle")?;
                ensure!((10_000_000..=60_000_000_000).contains(&idle_ns), "idle must be between 10 ms and 60 s");
                let rate = self.idle_rate.unwrap_or(1.0);
                ensure!(rate > 0.001 && rate <= 1.0, "idle_rate must be in (0.001, 1]");
                ensure!(rate == 1.0 || link.text.trace.is_none(), "idle_rate needs a constant-rate link, not a trace");
                let first_size = self.first_size.as_deref().map(units::parse_size).transpose().context("first_size")?;
                ensure!(first_size.is_none_or(|s| s > 0), "first_size must be above 0");
                Some(KeepAlive { idle_ns, rate, first_size })
            }
            (App::KeepAlive | App::KeepAliveHttps, None) => bail!("the keepalive apps need idle (the pause between a connection's responses, e.g. 2s)"),
            (_, Some(_)) => bail!("idle needs app keepalive or keepalive-https"),
            (_, None) => {
                ensure!(self.idle_rate.is_none(), "idle_rate needs app keepalive or keepalive-https");
                ensure!(self.first_size.is_none(), "first_size needs app keepalive or keepalive-https");
                None
            }
        };
        if let Some(w) = self.client_initrwnd {
            ensure!((1..=65535).contains(&w), "client initrwnd must be 1..65535 segments");
        }
        let reader_stall_ns = self.reader_stall.as_deref().map(units::parse_duration_ns).transpose().context("--reader-stall")?.unwrap_or(0);
        ensure!(reader_stall_ns == 0 || (100_000..=10_000_000_000).contains(&reader_stall_ns), "--reader-stall must be between 0.1 ms and 10 s (or 0)");
        ensure!(!(uses_http && reader_stall_ns > 0), "--reader-stall needs the lab's own client, not curl (the HTTP mode)");
        if let Some(n) = self.reader_stall_every {
            ensure!(reader_stall_ns > 0, "--reader-stall-every needs --reader-stall");
            ensure!((1..=1_000_000).contains(&n), "--reader-stall-every must be 1..1000000 flows");
        }
        ensure!(!(uses_http && self.server_uid.is_some()), "--server-uid needs the lab's own server, not nginx (the HTTP mode)");
        let sample_ns = self.sample.as_deref().map(units::parse_duration_ns).transpose()?;
        ensure!(!(uses_http && sample_ns.is_some()), "cwnd sampling needs the lab's own server, not the HTTP mode");
        if let Some(s) = sample_ns {
            ensure!(s >= 100_000, "sample interval must be at least 100us");
        }
        let knobs: Vec<String> = self.knobs.iter().map(|(k, v)| format!("{k}={}", v.text())).collect();
        headstart::bpf::abi::split_assignments(&knobs).context("[knobs]")?;
        ensure!(
            knobs.is_empty() || workload.ccs().iter().any(|c| headstart::bpf::is_ours(&c.kernel)),
            "[knobs] set headstart's knobs, but no headstart controller runs in this experiment"
        );
        ensure!(self.connections.is_none_or(|n| (1..=64).contains(&n)), "connections must be 1 to 64");
        ensure!(self.connections.is_none_or(|n| n == 1) || matches!(app, App::Http | App::Https), "connections needs app http or https (curl --parallel; a browser opens its own)");
        Ok(Experiment {
            name: self.name.clone().unwrap_or_else(|| "experiment".into()),
            text: self.clone(),
            link,
            workload,
            sample_ns,
            packet_series: self.packet_series,
            seed: self.seed.unwrap_or_else(fresh_seed),
            http: uses_http,
            tls: matches!(app, App::Https | App::Page | App::PageH2 | App::KeepAliveHttps),
            connections: self.connections.unwrap_or(1),
            page: match app {
                App::Page => Some(crate::traffic::PageProtocol::Http1),
                App::PageH2 => Some(crate::traffic::PageProtocol::Http2),
                _ => None,
            },
            rwnd_override: self.rwnd_override.unwrap_or(true),
            client_initrwnd: self.client_initrwnd,
            reader_stall_ns,
            reader_stall_every: self.reader_stall_every.unwrap_or(1),
            server_uid: self.server_uid,
            keep_alive,
            knobs,
        })
    }
}

impl Workload {
    pub fn clients(&self) -> usize {
        match self {
            Workload::Sweep { .. } => 1,
            Workload::Poisson { clients, parallel: true, cc, .. } | Workload::Poisson { clients, mixed: true, cc, .. } => *clients * cc.len(),
            Workload::Poisson { clients, .. } => *clients,
            Workload::Competing { flows, .. } => flows.len(),
            Workload::Fleet(f) => f.clients,
        }
    }
    pub fn ccs(&self) -> &[CcSpec] {
        match self {
            Workload::Sweep { cc, .. } | Workload::Poisson { cc, .. } | Workload::Competing { cc, .. } => cc,
            Workload::Fleet(f) => &f.cc,
        }
    }
    /// The copy of the link each client sits behind: in a parallel Poisson run the
    /// clients of controller k (k * clients .. (k + 1) * clients) have copy k;
    /// otherwise all share one (empty).
    pub fn client_links(&self) -> Vec<usize> {
        match self {
            Workload::Poisson { parallel: true, clients, .. } => (0..self.clients()).map(|i| i / clients).collect(),
            _ => Vec::new(),
        }
    }
    pub fn kind(&self) -> &'static str {
        match self {
            Workload::Sweep { .. } => "sweep",
            Workload::Poisson { .. } => "poisson",
            Workload::Competing { .. } => "competing",
            Workload::Fleet(_) => "fleet",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cc_specs() {
        assert_eq!(CcSpec::parse("cubic").unwrap().initcwnd, None);
        let s = CcSpec::parse("cubic:iw100").unwrap();
        assert_eq!((s.kernel.as_str(), s.initcwnd), ("cubic", Some(100)));
        let s = CcSpec::parse("cubic:ssai0").unwrap();
        assert_eq!((s.kernel.as_str(), s.initcwnd, s.keep_cwnd_after_idle), ("cubic", None, true));
        assert!(!CcSpec::parse("cubic").unwrap().keep_cwnd_after_idle);
        assert!(CcSpec::parse("cubic:xx").is_err());
        assert!(CcSpec::parse("cubic:iw0").is_err());
        assert!(CcSpec::parse("").is_err());
        assert!(CcSpec::parse("a b").is_err());
        assert!(CcSpec { label: "x".into(), kernel: "nosuchcc".into(), initcwnd: None, keep_cwnd_after_idle: false }.check_available().is_err());
    }

    #[test]
    fn link_validation() {
        let mut l = LinkText { rate: Some("100mbit".into()), rtt: "50ms".into(), buffer: "1bdp".into(), loss: None, trace: None, uplink_trace: None, uplink_loss: None, ack_aggregation: None, aggregation: None, ..Default::default() };
        let r = l.resolve().unwrap();
        assert_eq!(r.buffer_bytes, 625_000);
        l.buffer = "1000".into();
        assert!(l.resolve().unwrap_err().to_string().contains("smaller than one"));
        l.buffer = "1bdp".into();
        l.rate = Some("0mbit".into());
        assert!(l.resolve().is_err());
        l.rate = None;
        assert!(l.resolve().is_err());
        l.trace = Some("/nonexistent/trace".into());
        assert!(format!("{:#}", l.resolve().unwrap_err()).contains("cannot read trace"));
    }

    #[test]
    fn toml_errors_are_reported() {
        assert!(toml::from_str::<ExperimentText>("link = 3").is_err());
        let ok = r#"
            [link]
            rate = "10mbit"
            rtt = "20ms"
            [workload]
            kind = "sweep"
            cc = ["cubic"]
            sizes = ["8k"]
        "#;
        let e: ExperimentText = toml::from_str(ok).unwrap();
        assert!(matches!(e.workload, WorkloadText::Sweep { reps: 3, .. }));
        assert!(toml::from_str::<ExperimentText>(&ok.replace("sizes", "sizez")).is_err());
    }

    #[test]
    fn a_reader_stall_is_validated() {
        let text = |extra: &str| format!("{extra}\n[link]\nrate = \"10mbit\"\nrtt = \"20ms\"\n[workload]\nkind = \"sweep\"\ncc = [\"cubic\"]\nsizes = [\"8k\"]\n");
        let exp = |t: String| toml::from_str::<ExperimentText>(&t).unwrap().validate();
        assert_eq!(exp(text("")).unwrap().reader_stall_ns, 0);
        assert_eq!(exp(text("reader_stall = \"30ms\"")).unwrap().reader_stall_ns, 30_000_000);
        for (bad, needle) in [("\"20s\"", "between"), ("\"50us\"", "between"), ("\"soon\"", "--reader-stall")] {
            let err = exp(text(&format!("reader_stall = {bad}"))).unwrap_err();
            assert!(format!("{err:#}").contains(needle), "{bad}: {err:#}");
        }
        let err = exp(text("reader_stall = \"30ms\"\nhttp = true")).unwrap_err();
        assert!(err.to_string().contains("curl"), "{err}");
        assert_eq!(exp(text("reader_stall = \"30ms\"")).unwrap().reader_stall_every, 1, "every flow by default");
        assert_eq!(exp(text("reader_stall = \"30ms\"\nreader_stall_every = 25")).unwrap().reader_stall_every, 25);
        for (bad, needle) in [("reader_stall_every = 3", "needs --reader-stall"), ("reader_stall = \"30ms\"\nreader_stall_every = 0", "1..1000000")] {
            let err = exp(text(bad)).unwrap_err();
            assert!(format!("{err:#}").contains(needle), "{bad}: {err:#}");
        }
    }

    #[test]
    fn a_server_uid_is_the_lab_servers_own() {
        let text = |extra: &str| format!("{extra}\n[link]\nrate = \"10mbit\"\nrtt = \"20ms\"\n[workload]\nkind = \"sweep\"\ncc = [\"cubic\"]\nsizes = [\"8k\"]\n");
        let parse = |t: String| toml::from_str::<ExperimentText>(&t);
        assert_eq!(parse(text("")).unwrap().validate().unwrap().server_uid, None);
        assert_eq!(parse(text("server_uid = 65534")).unwrap().validate().unwrap().server_uid, Some(65534));
        let err = parse(text("server_uid = 65534\nhttp = true")).unwrap().validate().unwrap_err();
        assert!(err.to_string().contains("nginx"), "{err}");
        assert!(parse(text("server_uid = -1")).is_err(), "a uid is a u32");
    }

    #[test]
    fn parallel_poisson_gives_each_controller_its_clients_and_link() {
        let text = |ccs: &str, extra: &str| {
            format!(
                "[link]\nrate = \"10mbit\"\nrtt = \"20ms\"\n{extra}\n[workload]\nkind = \"poisson\"\ncc = [{ccs}]\nmean_size = \"64k\"\nutilization = 0.3\nflows = 10\nclients = 2\nparallel = true\n"
            )
        };
        let exp = |t: String| toml::from_str::<ExperimentText>(&t).unwrap().validate();
        let e = exp(text(r#""cubic", "bbr", "reno""#, "")).unwrap();
        assert_eq!(e.workload.clients(), 6);
        assert_eq!(e.workload.client_links(), vec![0, 0, 1, 1, 2, 2]);
        // A route per client: controllers side by side may differ in initcwnd, not in
        // the server's sysctls.
        assert_eq!(exp(text(r#""cubic", "cubic:iw100""#, "")).unwrap().workload.clients(), 4);
        let err = exp(text(r#""cubic", "cubic:ssai0""#, "")).unwrap_err();
        assert!(err.to_string().contains("tcp_slow_start_after_idle"), "{err}");
        // Over HTTPS too: one nginx, each client's route naming its controller.
        assert_eq!(exp(text(r#""cubic", "bbr""#, "").replace("[link]", "app = \"https\"\n[link]")).unwrap().workload.clients(), 4);
        let sequential = exp(text(r#""cubic", "bbr""#, "").replace("parallel = true", "")).unwrap();
        assert_eq!(sequential.workload.clients(), 2);
        assert!(sequential.workload.client_links().is_empty());
    }

    #[test]
    fn link_queue_discipline_delays_and_client_rtts_are_checked() {
        let link = |extra: &str| toml::from_str::<LinkText>(&format!("rate = \"10mbit\"\nrtt = \"100ms\"\nbuffer = \"150k\"\n{extra}")).unwrap().resolve();
        assert_eq!(link("").unwrap().aqm, Aqm::DropTail);
        match link("aqm = \"red:20:80\"").unwrap().aqm {
            Aqm::Red { min_bytes, max_bytes, .. } => assert_eq!((min_bytes, max_bytes), (30_000, 120_000)),
            a => panic!("{a:?}"),
        }
        assert_eq!(link("aqm = \"codel\"\necn = true").unwrap().aqm, Aqm::codel());
        for (bad, says) in [
            ("aqm = \"pie\"", "not one of"),
            ("aqm = \"red:80:20\"", "MIN < MAX"),
            ("ecn = true", "ecn needs an aqm"),
            ("uplink_delay = \"100ms\"", "below the rtt"),
            ("client_rtts = [\"50ms\"]", "below the bottleneck"),
            ("jitter = \"2s\"", "at most 1 s"),
        ] {
            let err = link(bad).unwrap_err();
            assert!(format!("{err:#}").contains(says), "{bad}: {err:#}");
        }
        let l = link("uplink_delay = \"90ms\"\nuplink_rate = \"384kbit\"\nclient_rtts = [\"100ms\", \"300ms\"]\njitter = \"5ms\"").unwrap();
        let (down, up) = l.directions(1);
        assert_eq!((down.delay_ns, up.delay_ns), (10_000_000, 90_000_000));
        assert!(matches!(up.rate, LinkRate::Constant { bits_per_sec: 384_000 }));
        assert_eq!((l.client_extra_ns.clone(), down.jitter_ns), (vec![0, 200_000_000], 5_000_000));
    }

    #[test]
    fn mixed_poisson_puts_every_controllers_clients_on_one_link() {
        let text = "[link]\nrate = \"10mbit\"\nrtt = \"20ms\"\n[workload]\nkind = \"poisson\"\ncc = [\"cubic\", \"cubic\"]\nmean_size = \"64k\"\nutilization = 0.3\nflows = 10\nclients = 2\nmixed = true\n";
        let exp = |t: &str| toml::from_str::<ExperimentText>(t).unwrap().validate();
        // The same controller twice is the baseline of the shared-bottleneck test.
        let e = exp(text).unwrap();
        assert_eq!(e.workload.clients(), 4);
        assert!(e.workload.client_links().is_empty(), "one shared link");
        let err = exp(&text.replace("mixed = true", "mixed = true\nparallel = true")).unwrap_err();
        assert!(err.to_string().contains("exclude each other"), "{err}");
        // The kernel's client beside a static initcwnd, and over HTTPS (a route each).
        assert!(exp(&text.replace(r#""cubic", "cubic""#, r#""cubic", "cubic:iw100""#)).is_ok());
        let https = exp(&text.replace("[link]", "app = \"https\"\nconnections = 6\n[link]")).unwrap();
        assert!(https.http && https.tls && https.connections == 6);
        let err = exp(&text.replace(r#""cubic", "cubic""#, r#""cubic", "cubic:ssai0""#)).unwrap_err();
        assert!(err.to_string().contains("tcp_slow_start_after_idle"), "{err}");
    }

    #[test]
    fn the_keepalive_apps_need_an_idle_and_a_sweep() {
        let text = "app = \"keepalive-https\"\nidle = \"2s\"\n[link]\nrate = \"10mbit\"\nrtt = \"20ms\"\n[workload]\nkind = \"sweep\"\ncc = [\"cubic\"]\nsizes = [\"64k\"]\n";
        let exp = |t: &str| toml::from_str::<ExperimentText>(t).unwrap().validate();
        let e = exp(text).unwrap();
        assert!(e.http && e.tls && e.keep_alive == Some(KeepAlive { idle_ns: 2_000_000_000, rate: 1.0, first_size: None }));
        let small_first = exp(&text.replace("idle = \"2s\"", "idle = \"20ms\"\nfirst_size = \"16k\"")).unwrap();
        assert_eq!(small_first.keep_alive.map(|k| k.first_size), Some(Some(16 * 1024)));
        let err = exp(&text.replace("keepalive-https", "https").replace("idle = \"2s\"", "first_size = \"16k\"")).unwrap_err();
        assert!(err.to_string().contains("first_size needs app keepalive"), "{err}");
        let plain = exp(&text.replace("keepalive-https", "keepalive")).unwrap();
        assert!(plain.http && !plain.tls && plain.keep_alive.is_some());
        let err = exp(&text.replace("idle = \"2s\"\n", "")).unwrap_err();
        assert!(err.to_string().contains("need idle"), "{err}");
        let err = exp(&text.replace("keepalive-https", "https")).unwrap_err();
        assert!(err.to_string().contains("idle needs app keepalive"), "{err}");
        let poisson = "app = \"keepalive-https\"\nidle = \"2s\"\n[link]\nrate = \"10mbit\"\nrtt = \"20ms\"\n[workload]\nkind = \"poisson\"\ncc = [\"cubic\"]\nmean_size = \"64k\"\nutilization = 0.3\nflows = 10\n";
        assert!(exp(poisson).unwrap_err().to_string().contains("run sweeps"));
    }

    #[test]
    fn peers_per_client_that_would_overflow_is_refused() {
        let text = "[link]\nrate = \"10mbit\"\nrtt = \"20ms\"\n[workload]\nkind = \"poisson\"\ncc = [\"cubic\"]\nmean_size = \"64k\"\nutilization = 0.3\nflows = 10\nclients = 3\npeers_per_client = 9223372036854775807\n";
        let err = toml::from_str::<ExperimentText>(text).unwrap().validate().unwrap_err();
        assert!(err.to_string().contains("peers_per_client"), "{err}");
    }
}
