//! The fleet table: the path-table stores of this server shared with the other servers
//! of a farm through Redis, and theirs applied here, so that a client's next connection
//! finds its history whichever server the load balancer picks.
//!
//! The agent (`headstart fleet run`, headstart-fleet.service) drains the controllers'
//! store ring (bpf/path_table.h, hs_stores): a flow never waits for it, nor for Redis.
//! It publishes what matters (Publisher: a new peer, a change over HS_AGREE_PCT, the
//! lossy mark, a delete, a refresh before Redis's copy expires), at most one write per
//! peer per PEER_INTERVAL_MS and `max_writes_per_s` in all: each as a key with the entry
//! lifetime as its TTL (what a server that starts or comes back reads) and a message on
//! one channel (what the others apply at once). Other servers' entries go into the
//! table through the kernel's apply program (bpf/fleet.bpf.c), under the rules a flow's
//! own store passes: a Redis that lies can do what a lying peer can, and no faster than
//! MAX_APPLIES_PER_S (the newest entry per peer waits its turn). Redis down: the
//! latest change per peer waits (bounded), the host works alone, and on its return the
//! agent writes what waited and reads every key again.

use crate::bpf::{self, abi, table};
use crate::sys;
use anyhow::{ensure, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

pub const DEFAULT_STATUS_FILE: &str = "/run/headstart/fleet.json";
/// At most one write per peer in this long: 10 k flows/s to a few peers are a few writes.
pub const PEER_INTERVAL_MS: u64 = 1000;
/// A change of rate or min RTT by more than this (HS_AGREE_PCT, lib/store.h: a flow
/// within it agrees with the entry) is worth telling the fleet.
const CHANGE_PCT: u64 = 25;
/// Changes waiting to be written, at most (the latest per peer): beyond, new peers'
/// changes are dropped and counted while Redis is away.
const MAX_PENDING: usize = 200_000;
/// Redis calls never wait longer than this: the agent's loops stay live.
const REDIS_TIMEOUT: Duration = Duration::from_secs(1);
/// The agent drains the ring, writes and applies on this clock: a session's next
/// connection comes a think time (100s of ms) after the last one's store.
const TICK: Duration = Duration::from_millis(10);
/// Other servers' entries applied per second, at most: an apply is one BPF_PROG_RUN, so
/// whatever Redis sends (a flood from a compromised one) costs a bounded share of a
/// core. An honest fleet of 20 servers at their own write budget stays below it.
const MAX_APPLIES_PER_S: usize = 10_000;
/// Entries waiting to be applied, at most (the newest per peer); beyond, the agent reads
/// no more from Redis until some are applied.
const MAX_WAITING_APPLIES: usize = 200_000;

/// `[fleet]` in headstart.toml.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FleetText {
    /// redis://[user:password@]host:port/ (rediss:// for TLS: the server's certificate
    /// checked against the system's CAs, or those of SSL_CERT_FILE).
    pub redis: Option<String>,
    /// Prefix of every key and of the channel (several fleets on one Redis).
    pub key_prefix: Option<String>,
    /// Redis commands per second this server may send, at most.
    pub max_writes_per_s: Option<u32>,
    /// This server's name in the fleet (default: the hostname).
    pub host_id: Option<String>,
}

#[derive(Clone, Debug)]
pub struct FleetConfig {
    pub redis: String,
    pub key_prefix: String,
    pub max_writes_per_s: u32,
    pub host_id: String,
}

impl FleetText {
    pub fn validate(self) -> Result<FleetConfig> {
        let redis = self.redis.context("fleet.redis: the Redis URL is required (redis://host:port/)")?;
        let parsed = redis::Client::open(redis.as_str()).map_err(|e| anyhow::anyhow!("fleet.redis: {e}"))?;
        drop(parsed);
        let key_prefix = self.key_prefix.unwrap_or_else(|| "headstart:".into());
        ensure!(!key_prefix.is_empty() && key_prefix.len() <= 64 && key_prefix.chars().all(|c| c.is_ascii_graphic()), "fleet.key_prefix: 1-64 printable characters, no spaces");
        let max_writes_per_s = self.max_writes_per_s.unwrap_or(1000);
        ensure!((10..=1_000_000).contains(&max_writes_per_s), "fleet.max_writes_per_s must be between 10 and 1000000");
        let host_id = match self.host_id {
            Some(h) => h,
            None => std::fs::read_to_string("/proc/sys/kernel/hostname").map(|h| h.trim().to_string()).unwrap_or_default(),
        };
        ensure!(!host_id.is_empty() && host_id.len() <= 64 && host_id.chars().all(|c| c.is_ascii_graphic()), "fleet.host_id: 1-64 printable characters, no spaces");
        Ok(FleetConfig { redis, key_prefix, max_writes_per_s, host_id })
    }
}

/// One entry as the fleet sees it: the peer's table address, the entry (bw 0: deleted),
/// who stored it and when (Unix ms).
#[derive(Clone, Debug, PartialEq)]
pub struct Shared {
    pub addr: IpAddr,
    pub host: String,
    pub bw_bytes_per_s: u64,
    pub min_rtt_us: u32,
    pub flags: u16,
    pub stored_ms: u64,
}

impl Shared {
    /// The value of its key: `v1 HOST BW RTT FLAGS STORED_MS`.
    pub fn value(&self) -> String {
        format!("v1 {} {} {} {} {}", self.host, self.bw_bytes_per_s, self.min_rtt_us, self.flags, self.stored_ms)
    }

    /// The channel's message: `ADDR VALUE`.
    pub fn message(&self) -> String {
        format!("{} {}", self.addr, self.value())
    }

    pub fn parse_value(addr: IpAddr, v: &str) -> Result<Shared> {
        let f: Vec<&str> = v.split(' ').collect();
        ensure!(f.len() == 6 && f[0] == "v1", "not a fleet entry");
        Ok(Shared {
            addr,
            host: f[1].to_string(),
            bw_bytes_per_s: f[2].parse().context("rate")?,
            min_rtt_us: f[3].parse().context("min RTT")?,
            flags: f[4].parse().context("flags")?,
            stored_ms: f[5].parse().context("time")?,
        })
    }

    pub fn parse_message(m: &str) -> Result<Shared> {
        let (addr, v) = m.split_once(' ').context("not a fleet message")?;
        Shared::parse_value(addr.parse().context("address")?, v)
    }
}

/// What was last written for a peer.
#[derive(Clone, Copy, Debug)]
struct Written {
    bw: u64,
    rtt_us: u32,
    flags: u16,
    at_ms: u64,
}

/// The publish policy, on a clock the caller gives (ms): which changes are written,
/// and when. Pure: unit-tested on a virtual clock.
pub struct Publisher {
    written: HashMap<IpAddr, Written>,
    pending: HashMap<IpAddr, Shared>,
    order: VecDeque<IpAddr>,
    refresh_ms: u64,
    pub offered: u64,
    pub suppressed: u64,
    pub dropped: u64,
}

fn differs(a: u64, b: u64) -> bool {
    a.abs_diff(b) * 100 > b.max(1) * CHANGE_PCT
}

impl Publisher {
    /// refresh_ms: an unchanged entry is written again after this (half its TTL), so
    /// that Redis's copy of a peer still in use does not expire.
    pub fn new(refresh_ms: u64) -> Publisher {
        Publisher { written: HashMap::new(), pending: HashMap::new(), order: VecDeque::new(), refresh_ms, offered: 0, suppressed: 0, dropped: 0 }
    }

    fn matters(&self, c: &Shared) -> bool {
        let Some(w) = self.written.get(&c.addr) else { return true };
        if (c.bw_bytes_per_s == 0) != (w.bw == 0) || (c.flags ^ w.flags) & abi::PATH_LOSSY != 0 {
            return true;
        }
        if c.bw_bytes_per_s == 0 {
            return false;
        }
        differs(c.bw_bytes_per_s, w.bw) || differs(c.min_rtt_us as u64, w.rtt_us as u64) || c.stored_ms >= w.at_ms + self.refresh_ms
    }

    /// A change this host's flows made.
    pub fn offer(&mut self, c: Shared) {
        self.offered += 1;
        if !self.matters(&c) {
            self.suppressed += 1;
            return;
        }
        if let Some(p) = self.pending.get_mut(&c.addr) {
            *p = c; // the latest wins
            return;
        }
        if self.pending.len() >= MAX_PENDING {
            self.dropped += 1;
            return;
        }
        self.order.push_back(c.addr);
        self.pending.insert(c.addr, c);
    }

    /// Up to `budget` changes due now (their peer not written within PEER_INTERVAL_MS),
    /// oldest first; marked written (`requeue` them if the write fails).
    pub fn due(&mut self, now_ms: u64, budget: usize) -> Vec<Shared> {
        let mut out = Vec::new();
        let mut later = Vec::new();
        while out.len() < budget {
            let Some(addr) = self.order.pop_front() else { break };
            if !self.pending.contains_key(&addr) {
                continue;
            }
            // Store after store waits out the interval; a delete (a retreat found the
            // entry wrong) and the store after it go at once.
            let both_stores = self.pending[&addr].bw_bytes_per_s != 0 && self.written.get(&addr).is_some_and(|w| w.bw != 0);
            if both_stores && self.written.get(&addr).is_some_and(|w| now_ms < w.at_ms + PEER_INTERVAL_MS) {
                later.push(addr);
                continue;
            }
            let Some(c) = self.pending.remove(&addr) else { continue };
            self.written.insert(addr, Written { bw: c.bw_bytes_per_s, rtt_us: c.min_rtt_us, flags: c.flags, at_ms: now_ms });
            out.push(c);
        }
        for a in later.into_iter().rev() {
            self.order.push_front(a);
        }
        if self.written.len() > 4 * MAX_PENDING {
            self.written.clear(); // forgetting makes the next change of each a write: bounded memory
        }
        out
    }

    /// Changes whose write failed go back, unless a newer one came meanwhile.
    pub fn requeue(&mut self, failed: Vec<Shared>) {
        for c in failed.into_iter().rev() {
            self.written.remove(&c.addr);
            if !self.pending.contains_key(&c.addr) {
                self.order.push_front(c.addr);
                self.pending.insert(c.addr, c);
            }
        }
    }

    pub fn pending(&self) -> usize {
        self.pending.len()
    }
}

/// Other servers' entries on their way into the table: the newest per peer waits, and
/// at most a budget of them goes in per tick, oldest first. Pure.
#[derive(Default)]
pub struct Applier {
    waiting: HashMap<(usize, IpAddr), Shared>,
    order: VecDeque<(usize, IpAddr)>,
    /// Entries for a peer that already had one waiting (the newer of the two stays).
    pub merged: u64,
}

impl Applier {
    /// An entry from Redis for the table of served namespace `k`.
    pub fn offer(&mut self, k: usize, s: Shared) {
        if let Some(w) = self.waiting.get_mut(&(k, s.addr)) {
            self.merged += 1;
            if s.stored_ms >= w.stored_ms {
                *w = s;
            }
            return;
        }
        self.order.push_back((k, s.addr));
        self.waiting.insert((k, s.addr), s);
    }

    pub fn full(&self) -> bool {
        self.waiting.len() >= MAX_WAITING_APPLIES
    }

    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// Up to `budget` entries to apply now, in the order their peers came.
    pub fn due(&mut self, budget: usize) -> Vec<(usize, Shared)> {
        let mut out = Vec::new();
        while out.len() < budget {
            let Some(key) = self.order.pop_front() else { break };
            if let Some(s) = self.waiting.remove(&key) {
                out.push((key.0, s));
            }
        }
        out
    }
}

/// What `headstart fleet status` shows (the agent writes it every second).
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct FleetStatus {
    pub host_id: String,
    pub redis: String,
    pub netns: Option<String>,
    pub connected: bool,
    pub updated_unix_ms: u64,
    /// Stores and deletes of this host's flows read from the ring.
    pub events: u64,
    /// Of them, not worth a write (no change that matters).
    pub suppressed: u64,
    /// Written to Redis (one key and one message each).
    pub published: u64,
    /// Waiting for their peer's interval, the write budget or Redis.
    pub pending: u64,
    /// Dropped: more peers waited than the agent keeps.
    pub dropped: u64,
    /// Redis commands sent.
    pub writes: u64,
    /// Other servers' entries, by the apply program's verdict.
    pub applied: u64,
    pub deleted: u64,
    pub older: u64,
    pub refused: u64,
    /// Waiting to be applied (the apply budget, MAX_APPLIES_PER_S), and merged with the
    /// entry already waiting for the same peer (the newer kept).
    pub apply_waiting: u64,
    pub apply_merged: u64,
    /// Time from another server's store to its entry here, ms: the last and the largest
    /// since the agent started.
    pub lag_ms_last: u64,
    pub lag_ms_max: u64,
    pub errors: u64,
    pub last_error: Option<String>,
}

impl FleetStatus {
    pub fn read(path: &Path) -> Result<FleetStatus> {
        let text = sys::read_regular_file(path, sys::SMALL_FILE_LIMIT).with_context(|| format!("no fleet agent status at {} (is `headstart fleet run` running?)", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("{}: not a fleet status", path.display()))
    }

    pub fn text(&self) -> String {
        let age_s = (sys::unix_ms().saturating_sub(self.updated_unix_ms)) as f64 / 1000.0;
        let stale = if age_s > 5.0 { format!(" (STALE: written {age_s:.0} s ago; is the agent running?)") } else { String::new() };
        format!(
            "fleet agent {}{} -> {} ({}){stale}\npublished {} of {} store events ({} unchanged, {} waiting, {} dropped), {} Redis writes\napplied {} entries of other servers, deleted {}, kept newer {}, refused {} ({} waiting, {} merged while waiting); lag last {} ms, max {} ms\nerrors {}{}",
            self.host_id,
            self.netns.as_deref().map(|n| format!(" in {n}")).unwrap_or_default(),
            self.redis,
            if self.connected { "connected" } else { "NOT CONNECTED" },
            self.published,
            self.events,
            self.suppressed,
            self.pending,
            self.dropped,
            self.writes,
            self.applied,
            self.deleted,
            self.older,
            self.refused,
            self.apply_waiting,
            self.apply_merged,
            self.lag_ms_last,
            self.lag_ms_max,
            self.errors,
            self.last_error.as_deref().map(|e| format!(" (last: {e})")).unwrap_or_default(),
        )
    }
}

/// The URL without its password, for status and logs.
fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}***{}", &url[..s + 3], &url[at..]),
        _ => url.to_string(),
    }
}

fn connect(client: &redis::Client) -> Result<redis::Connection> {
    let con = client.get_connection_with_timeout(REDIS_TIMEOUT)?;
    con.set_read_timeout(Some(REDIS_TIMEOUT))?;
    con.set_write_timeout(Some(REDIS_TIMEOUT))?;
    Ok(con)
}

fn query<T: redis::FromRedisValue>(cmd: &redis::Cmd, con: &mut redis::Connection) -> Result<T> {
    Ok(cmd.query(con)?)
}

/// Where the agent writes: one Redis server, or a Redis Cluster (the configured server
/// says so: INFO cluster), whose keys go to their slots' nodes and whose channel
/// messages any node passes to all.
enum Store {
    Single(redis::Connection),
    Cluster { keys: Box<redis::cluster::ClusterConnection>, node: redis::Connection },
}

impl Store {
    fn open(client: &redis::Client) -> Result<Store> {
        let mut node = connect(client)?;
        if !is_cluster(&mut node)? {
            return Ok(Store::Single(node));
        }
        let keys = redis::cluster::ClusterClientBuilder::new(vec![client.get_connection_info().clone()])
            .connection_timeout(REDIS_TIMEOUT)
            .response_timeout(REDIS_TIMEOUT)
            .build()
            .and_then(|c| c.get_connection())?;
        Ok(Store::Cluster { keys: Box::new(keys), node })
    }

    fn write(&mut self, due: &[Shared], prefix: &str, ttl_ms: u64) -> Result<()> {
        let set = |c: &Shared| {
            let mut cmd = redis::cmd("SET");
            cmd.arg(format!("{prefix}path:{}", c.addr)).arg(c.value());
            if ttl_ms > 0 {
                cmd.arg("PX").arg(ttl_ms);
            }
            cmd
        };
        let mut publish = redis::pipe();
        for c in due {
            publish.cmd("PUBLISH").arg(format!("{prefix}stores")).arg(c.message()).ignore();
        }
        match self {
            Store::Single(con) => {
                for c in due {
                    publish.add_command(set(c)).ignore();
                }
                Ok(publish.query::<()>(con)?)
            }
            Store::Cluster { keys, node } => {
                let mut pipe = redis::cluster::cluster_pipe();
                for c in due {
                    pipe.add_command(set(c)).ignore();
                }
                pipe.query::<()>(keys)?;
                Ok(publish.query::<()>(node)?)
            }
        }
    }
}

fn is_cluster(con: &mut redis::Connection) -> Result<bool> {
    let info: String = query(redis::cmd("INFO").arg("cluster"), con)?;
    Ok(info.lines().any(|l| l.trim() == "cluster_enabled:1"))
}

/// Every key of the fleet, read node by node (a Cluster's masters: SCAN sees one
/// node's keys), values through pipelined GETs (MGET cannot cross a Cluster's slots).
fn read_all(client: &redis::Client, pattern: &str, mut each: impl FnMut(&str, String)) -> Result<()> {
    let mut seed = connect(client)?;
    let mut nodes = Vec::new();
    if is_cluster(&mut seed)? {
        let text: String = query(redis::cmd("CLUSTER").arg("NODES"), &mut seed)?;
        for line in text.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.len() < 3 || !f[2].split(',').any(|x| x == "master") || f[2].contains("fail") {
                continue;
            }
            let Some((host, port)) = f[1].split('@').next().and_then(|a| a.rsplit_once(':')) else { continue };
            let port: u16 = port.parse().context("CLUSTER NODES port")?;
            let mut info = client.get_connection_info().clone();
            info.addr = match info.addr {
                redis::ConnectionAddr::TcpTls { insecure, tls_params, .. } => redis::ConnectionAddr::TcpTls { host: host.to_string(), port, insecure, tls_params },
                _ => redis::ConnectionAddr::Tcp(host.to_string(), port),
            };
            nodes.push(connect(&redis::Client::open(info)?)?);
        }
    } else {
        nodes.push(seed);
    }
    for con in &mut nodes {
        let mut cursor = 0u64;
        loop {
            let (next, keys): (u64, Vec<String>) = query(redis::cmd("SCAN").arg(cursor).arg("MATCH").arg(pattern).arg("COUNT").arg(1000), con)?;
            if !keys.is_empty() {
                let mut pipe = redis::pipe();
                for k in &keys {
                    pipe.cmd("GET").arg(k);
                }
                let values: Vec<Option<String>> = pipe.query(con)?;
                for (k, v) in keys.iter().zip(values) {
                    if let Some(v) = v {
                        each(k, v);
                    }
                }
            }
            cursor = next;
            if cursor == 0 {
                break;
            }
        }
    }
    Ok(())
}

/// What the agent's threads share: one publisher per namespace it serves, one status.
struct AgentState {
    publishers: Vec<Mutex<Publisher>>,
    status: Mutex<FleetStatus>,
}

fn note_error(s: &AgentState, e: &anyhow::Error) {
    if let Ok(mut st) = s.status.lock() {
        st.errors += 1;
        st.connected = false;
        st.last_error = Some(format!("{e:#}"));
    }
}

/// Writes what is due, within the budget; on a failure the changes go back.
fn publisher_loop(cfg: FleetConfig, client: redis::Client, shared: Arc<AgentState>, k: usize, ttl_ms: u64) {
    let per_tick = ((cfg.max_writes_per_s as u64 * TICK.as_millis() as u64 / 1000) / 2).max(1) as usize; // two commands per change
    let mut store: Option<Store> = None;
    let mut retry_at = Instant::now();
    loop {
        std::thread::sleep(TICK);
        if store.is_none() && Instant::now() < retry_at {
            continue;
        }
        let due = shared.publishers[k].lock().map(|mut p| p.due(sys::unix_ms(), per_tick)).unwrap_or_default();
        if due.is_empty() {
            continue;
        }
        let n = due.len() as u64;
        let written = (|| -> Result<()> {
            if store.is_none() {
                store = Some(Store::open(&client)?);
            }
            store.as_mut().map_or(Ok(()), |s| s.write(&due, &cfg.key_prefix, ttl_ms))
        })();
        match written {
            Ok(()) => {
                if let Ok(mut st) = shared.status.lock() {
                    st.published += n;
                    st.writes += 2 * n;
                }
            }
            Err(e) => {
                store = None;
                note_error(&shared, &e);
                if let Ok(mut p) = shared.publishers[k].lock() {
                    p.requeue(due);
                }
                retry_at = Instant::now() + Duration::from_secs(1);
            }
        }
    }
}

/// Listens on the channel; at every (re)connection first reads every key (what was
/// stored while this agent was away). Entries go to the main loop to be applied.
fn subscriber_loop(cfg: FleetConfig, client: redis::Client, shared: Arc<AgentState>, k: usize, to_apply: mpsc::SyncSender<(usize, Shared)>) {
    let channel = format!("{}stores", cfg.key_prefix);
    let pattern = format!("{}path:*", cfg.key_prefix);
    loop {
        let run = || -> Result<()> {
            let mut sub = connect(&client)?;
            let mut pubsub = sub.as_pubsub();
            pubsub.subscribe(&channel)?;
            pubsub.set_read_timeout(Some(REDIS_TIMEOUT))?;
            // Subscribed first, then the keys: nothing stored in between is missed.
            let key_prefix = &pattern[..pattern.len() - 1];
            read_all(&client, &pattern, |key, v| {
                let Some(addr) = key.strip_prefix(key_prefix).and_then(|a| a.parse().ok()) else { return };
                if let Ok(s) = Shared::parse_value(addr, &v) {
                    if s.host != cfg.host_id {
                        let _ = to_apply.send((k, s));
                    }
                }
            })?;
            if let Ok(mut st) = shared.status.lock() {
                st.connected = true;
            }
            loop {
                match pubsub.get_message() {
                    Ok(msg) => {
                        let payload: String = msg.get_payload().unwrap_or_default();
                        match Shared::parse_message(&payload) {
                            Ok(s) if s.host != cfg.host_id => {
                                let _ = to_apply.send((k, s));
                            }
                            Ok(_) => {}
                            Err(_) => {
                                if let Ok(mut st) = shared.status.lock() {
                                    st.refused += 1;
                                }
                            }
                        }
                    }
                    Err(e) if e.is_timeout() => {}
                    Err(e) => return Err(e.into()),
                }
            }
        };
        if let Err(e) = run() {
            note_error(&shared, &e);
        }
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// Whose tables the agent shares: the host's (no namespace), or those of the network
/// namespaces named, each as a server of its own (host id `<host_id>-<netns>` when
/// several). One agent per kernel: the store ring has one reader.
pub struct AgentOptions {
    pub netns: Vec<String>,
    pub status_file: PathBuf,
}

/// The agent: runs until killed.
pub fn run(cfg: FleetConfig, opts: AgentOptions) -> Result<()> {
    let mut apply = bpf::FleetApply::load()?;
    let ring_map = bpf::store_ring()?;
    let served: Vec<(Option<String>, String)> = match opts.netns.len() {
        0 => vec![(None, cfg.host_id.clone())],
        1 => vec![(Some(opts.netns[0].clone()), cfg.host_id.clone())],
        _ => opts.netns.iter().map(|n| (Some(n.clone()), format!("{}-{n}", cfg.host_id))).collect(),
    };
    let keys: Vec<u64> = served.iter().map(|(n, _)| bpf::table_peer("::1".parse().unwrap(), n.as_deref()).map(|p| p.netns)).collect::<Result<_>>()?;
    let client = redis::Client::open(cfg.redis.as_str()).map_err(|e| anyhow::anyhow!("fleet.redis: {e}"))?;
    let max_age_s = bpf::live_max_age_s() as u64;
    let ttl_ms = max_age_s * 1000;
    let shared = Arc::new(AgentState {
        publishers: served.iter().map(|_| Mutex::new(Publisher::new(if ttl_ms > 0 { ttl_ms / 2 } else { u64::MAX / 4 }))).collect(),
        status: Mutex::new(FleetStatus { host_id: cfg.host_id.clone(), redis: redacted(&cfg.redis), netns: (!opts.netns.is_empty()).then(|| opts.netns.join(",")), ..Default::default() }),
    });
    let (tx, rx) = mpsc::sync_channel::<(usize, Shared)>(100_000);
    for (k, (_, host_id)) in served.iter().enumerate() {
        let cfg = FleetConfig { host_id: host_id.clone(), ..cfg.clone() };
        {
            let (cfg, client, shared) = (cfg.clone(), client.clone(), shared.clone());
            std::thread::spawn(move || publisher_loop(cfg, client, shared, k, ttl_ms));
        }
        let (client, shared, tx) = (client.clone(), shared.clone(), tx.clone());
        std::thread::spawn(move || subscriber_loop(cfg, client, shared, k, tx));
    }
    drop(tx);

    let events: std::rc::Rc<std::cell::RefCell<Vec<abi::StoreEvent>>> = Default::default();
    let mut builder = libbpf_rs::RingBufferBuilder::new();
    {
        let events = events.clone();
        builder
            .add(&ring_map, move |data: &[u8]| {
                if let Ok(ev) = <abi::StoreEvent as abi::Record>::from_bytes(data) {
                    events.borrow_mut().push(ev);
                }
                0
            })
            .map_err(|e| anyhow::anyhow!("the store ring: {e}"))?;
    }
    let ring = builder.build().map_err(|e| anyhow::anyhow!("the store ring: {e}"))?;
    if let Some(dir) = opts.status_file.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let mut last_status = Instant::now() - Duration::from_secs(2);
    let mut applier = Applier::default();
    loop {
        ring.consume().map_err(|e| anyhow::anyhow!("draining the store ring: {e}"))?;
        let drained: Vec<abi::StoreEvent> = std::mem::take(&mut *events.borrow_mut());
        if !drained.is_empty() {
            let (now_ms, now_boot) = (sys::unix_ms(), sys::boot_ns());
            for ev in &drained {
                let Some(k) = keys.iter().position(|&n| n == ev.peer.netns) else { continue };
                let ago_ms = now_boot.saturating_sub(ev.stored_ns) / 1_000_000;
                let mut p = shared.publishers[k].lock().map_err(|_| anyhow::anyhow!("poisoned"))?;
                p.offer(Shared {
                    addr: table::key_to_addr(&ev.peer.bytes),
                    host: served[k].1.clone(),
                    bw_bytes_per_s: ev.bw_bytes_per_s,
                    min_rtt_us: ev.min_rtt_us,
                    flags: ev.flags,
                    stored_ms: now_ms.saturating_sub(ago_ms),
                });
            }
        }
        // What other servers sent, for a tick (less when the queue is full: Redis waits).
        let deadline = Instant::now() + TICK;
        while !applier.full() {
            match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok((k, s)) => applier.offer(k, s),
                Err(_) => break,
            }
        }
        std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
        let now_ms = sys::unix_ms();
        for (k, s) in applier.due(MAX_APPLIES_PER_S * TICK.as_millis() as usize / 1000) {
            let entry = abi::FleetEntry {
                peer: abi::PeerKey { bytes: table::addr_to_key(s.addr), netns: keys[k] },
                bw_bytes_per_s: s.bw_bytes_per_s,
                age_ns: now_ms.saturating_sub(s.stored_ms).saturating_mul(1_000_000),
                min_rtt_us: s.min_rtt_us,
                flags: s.flags,
                verdict: 0,
            };
            // An apply that fails is counted and the agent goes on: the host's own
            // table works without the fleet's entries.
            let verdict = match apply.apply(&entry) {
                Ok(v) => v,
                Err(e) => {
                    if let Ok(mut st) = shared.status.lock() {
                        st.errors += 1;
                        st.last_error = Some(format!("applying an entry: {e:#}"));
                    }
                    continue;
                }
            };
            let mut st = shared.status.lock().map_err(|_| anyhow::anyhow!("poisoned"))?;
            match verdict {
                abi::FLEET_APPLIED => {
                    st.applied += 1;
                    st.lag_ms_last = now_ms.saturating_sub(s.stored_ms);
                    st.lag_ms_max = st.lag_ms_max.max(st.lag_ms_last);
                }
                abi::FLEET_DELETED => st.deleted += 1,
                abi::FLEET_OLDER => st.older += 1,
                _ => st.refused += 1,
            }
        }
        if last_status.elapsed() >= Duration::from_secs(1) {
            last_status = Instant::now();
            let snapshot = {
                let (mut events, mut suppressed, mut dropped, mut pending) = (0, 0, 0, 0);
                for p in &shared.publishers {
                    let p = p.lock().map_err(|_| anyhow::anyhow!("poisoned"))?;
                    (events, suppressed, dropped, pending) = (events + p.offered, suppressed + p.suppressed, dropped + p.dropped, pending + p.pending() as u64);
                }
                let mut st = shared.status.lock().map_err(|_| anyhow::anyhow!("poisoned"))?;
                (st.events, st.suppressed, st.dropped, st.pending) = (events, suppressed, dropped, pending);
                (st.apply_waiting, st.apply_merged) = (applier.waiting() as u64, applier.merged);
                st.updated_unix_ms = sys::unix_ms();
                st.clone()
            };
            sys::write_private_atomically(&opts.status_file, serde_json::to_string_pretty(&snapshot)?.as_bytes())?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(addr: &str, bw: u64, rtt: u32, at: u64) -> Shared {
        Shared { addr: addr.parse().unwrap(), host: "a".into(), bw_bytes_per_s: bw, min_rtt_us: rtt, flags: 0, stored_ms: at }
    }

    #[test]
    fn only_changes_that_matter_are_written() {
        let mut p = Publisher::new(1_800_000);
        p.offer(change("10.0.0.1", 1_000_000, 50_000, 0));
        assert_eq!(p.due(0, 100).len(), 1, "a new peer is written");
        p.offer(change("10.0.0.1", 1_100_000, 52_000, 5000));
        assert_eq!((p.pending(), p.suppressed), (0, 1), "within 25 %: nothing to say");
        p.offer(change("10.0.0.1", 2_000_000, 50_000, 6000));
        assert_eq!(p.due(6000, 100).len(), 1, "a rate 2x: written");
        let mut lossy = change("10.0.0.1", 2_000_000, 50_000, 8000);
        lossy.flags = abi::PATH_LOSSY;
        p.offer(lossy);
        assert_eq!(p.due(8000, 100).len(), 1, "the lossy mark: written");
        p.offer(change("10.0.0.1", 0, 0, 9500));
        assert_eq!(p.due(9500, 100)[0].bw_bytes_per_s, 0, "a delete: written");
        p.offer(change("10.0.0.2", 1_000_000, 50_000, 10_000));
        p.due(10_000, 100);
        p.offer(change("10.0.0.2", 1_000_000, 50_000, 10_000 + 1_800_000));
        assert_eq!(p.due(10_000 + 1_800_000, 100).len(), 1, "unchanged for half the TTL: written again before Redis's copy expires");
    }

    #[test]
    fn a_busy_peer_is_written_once_per_interval_with_its_latest() {
        let mut p = Publisher::new(1_800_000);
        p.offer(change("10.0.0.1", 1_000_000, 50_000, 0));
        assert_eq!(p.due(0, 100).len(), 1);
        for i in 1..=100u64 {
            p.offer(change("10.0.0.1", 1_000_000 * (1 + i % 3), 50_000, i));
        }
        assert!(p.due(500, 100).is_empty(), "within the peer's interval: waits");
        let out = p.due(PEER_INTERVAL_MS, 100);
        assert_eq!(out.len(), 1, "100 changes in a second: one write");
        assert_eq!(out[0].bw_bytes_per_s, 2_000_000, "the latest");
    }

    #[test]
    fn the_budget_holds_and_failed_writes_come_back() {
        let mut p = Publisher::new(1_800_000);
        for i in 0..1000u32 {
            p.offer(change(&format!("10.1.{}.{}", i / 250, i % 250), 1_000_000, 50_000, 0));
        }
        let first = p.due(0, 25);
        assert_eq!(first.len(), 25);
        assert_eq!(p.pending(), 975);
        p.requeue(first);
        assert_eq!(p.pending(), 1000, "a failed write waits again");
        let again = p.due(0, 25);
        assert_eq!(again[0].addr, "10.1.0.0".parse::<IpAddr>().unwrap(), "in the order they came");
    }

    #[test]
    fn applies_keep_the_newest_per_peer_and_the_budget() {
        let mut a = Applier::default();
        for i in 0..300u64 {
            a.offer(0, change(&format!("10.2.{}.{}", i / 250, i % 250), 1_000_000, 50_000, i));
        }
        // A flood for one peer: one entry waits, the newest; an older one late changes nothing.
        for t in [1000, 3000, 2000] {
            a.offer(0, change("10.2.0.0", t * 1000, 50_000, t));
        }
        a.offer(1, change("10.2.0.0", 7, 50_000, 1)); // another namespace's table: its own
        assert_eq!((a.waiting(), a.merged), (301, 3));
        let first = a.due(100);
        assert_eq!(first.len(), 100, "the budget holds");
        assert_eq!((first[0].0, first[0].1.bw_bytes_per_s), (0, 3_000_000), "the newest for the peer, in its place");
        assert_eq!(a.due(1000).len(), 201);
        assert_eq!(a.waiting(), 0);
    }

    #[test]
    fn entries_cross_redis_whole() {
        let s = change("2001:db8::", 12_500_000, 50_000, 1_700_000_000_000);
        assert_eq!(Shared::parse_message(&s.message()).unwrap(), s);
        assert!(Shared::parse_message("10.0.0.1 v2 a 1 2 3 4").is_err());
        assert!(Shared::parse_message("10.0.0.1 v1 a x 2 3 4").is_err());
        assert!(Shared::parse_message("nonsense").is_err());
        assert!(Shared::parse_message("10.0.0.1 v1 a 1 2 3 4 5").is_err());
    }

    #[test]
    fn the_config_is_checked() {
        let ok = FleetText { redis: Some("redis://127.0.0.1:6379/".into()), host_id: Some("a".into()), ..Default::default() }.validate().unwrap();
        assert_eq!((ok.key_prefix.as_str(), ok.max_writes_per_s), ("headstart:", 1000));
        assert!(FleetText::default().validate().is_err(), "no URL");
        assert!(FleetText { redis: Some("http://x".into()), ..Default::default() }.validate().is_err());
        assert!(FleetText { redis: Some("redis://h/".into()), key_prefix: Some("a b".into()), ..Default::default() }.validate().is_err());
        assert!(FleetText { redis: Some("redis://h/".into()), max_writes_per_s: Some(1), ..Default::default() }.validate().is_err());
        assert_eq!(redacted("redis://user:secret@h:6379/"), "redis://***@h:6379/");
    }
}
