//! A running testbed: the namespaces, the emulator between them and the traffic
//! server, built from a `TestbedSpec` (what to build, not which workload will use it).
//! Built by `Testbed::up`, torn down by `Testbed::down` (or by Drop on any error path:
//! emulator stopped, namespaces deleted, nothing left behind).

use crate::emulator::runner::{open_tun_in, ClientPort, Emulator, EmulatorSpec};
use crate::emulator::stats::{Connections, EmulatorReport, ExternalDrops, FlowKey};
use crate::emulator::model::DirectionConfig;
use crate::experiment::CcSpec;
use crate::topology::{Topology, TUN_NAME};
use crate::traffic::{self, ClientFlow, HttpServer, Server, ServerFlowInfo, HTTP_PORT, SERVER_PORT};
use headstart::sys::{self, Interrupt};
use anyhow::{Context, Result};
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Core layout on the 2-core machines: the emulator alone on one core, everything else
/// (traffic threads, TUN receive processing via RPS) on the other.
pub struct Cores {
    pub emulator: Option<usize>,
    pub rest: Option<usize>,
}

impl Cores {
    pub fn detect() -> Cores {
        if sys::online_cpus() >= 2 { Cores { emulator: Some(0), rest: Some(1) } } else { Cores { emulator: None, rest: None } }
    }
}

/// A server route as set: (initcwnd, congctl, tcp_slow_start_after_idle = 0).
type RouteSetting = (Option<u32>, Option<String>, bool);

/// One finished flow: the client's view and the server's.
#[derive(Clone, Debug)]
pub struct FlowOutcome {
    pub client: usize,
    pub key: FlowKey,
    /// Its connections as the emulator saw them (their drops and queueing).
    pub connections: Connections,
    pub cc: CcSpec,
    pub size: u64,
    pub client_flow: Result<ClientFlow, String>,
    pub server: Option<ServerFlowInfo>,
    /// The path table's entry for the client after the flow, if the flow (a headstart
    /// controller) stored one: (bytes/s, min RTT us).
    pub table_after: Option<(u64, u32)>,
    /// How the start went (Careful Resume's outcome), for headstart's controllers.
    pub resume: Option<headstart::bpf::abi::FlowOutcome>,
    /// Segments the server retransmitted and the client discarded beyond its window
    /// (None: no tracer attached).
    pub trace: Option<crate::kernel::FlowTrace>,
    /// A page load's connections and their counts (the page mode).
    pub page: Option<PageStats>,
}

/// What a page load's connections did, from the namespaces' counters around it (one
/// load at a time) and the controller's.
#[derive(Clone, Debug, Default)]
pub struct PageStats {
    /// Connections the server accepted (TCP PassiveOpens).
    pub connections: u64,
    /// Segments the server retransmitted (TCP RetransSegs).
    pub retrans: u64,
    /// How the starts went: the controller's non-zero outcome counts, e.g.
    /// "validated 3, no_jump_needed 2" (headstart's controllers).
    pub starts: Option<String>,
}

/// What a testbed is made of.
#[derive(Clone, Debug)]
pub struct TestbedSpec {
    pub clients: usize,
    /// Extra addresses per client (0: just its own), learned by the emulator.
    pub peers_per_client: usize,
    /// The clients' initial receive window in MSS (route initrwnd).
    pub client_initrwnd: Option<u32>,
    /// The client stops reading this long once a flow's first data arrives (zero: never).
    pub reader_stall: Duration,
    /// ... in every Nth flow of the testbed (1: every flow).
    pub reader_stall_every: u32,
    /// The server's listening sockets belong to this uid (None: root's).
    pub server_uid: Option<u32>,
    pub down: DirectionConfig,
    pub up: DirectionConfig,
    /// Per-flow throughput bins, when the workload plots throughput over time.
    pub series_bin_ns: Option<u64>,
    /// Which copy of the link each client sits behind (empty: all share one).
    pub client_link: Vec<usize>,
    /// Per client, a delay outside the bottleneck (empty: none).
    pub client_extra_delay_ns: Vec<u64>,
    /// Record every data packet's time in the bottleneck.
    pub packet_series: bool,
    /// The clients ask for ECN.
    pub ecn: bool,
    /// Congestion controls served, one server port each (SERVER_PORT + i).
    pub server_ccs: Vec<String>,
    /// Sample cwnd and pacing of every flow at this interval.
    pub sample: Option<Duration>,
    /// Serve HTTP with nginx too (curl clients).
    pub http: bool,
    /// ... over TLS 1.3.
    pub tls: bool,
    /// ... to a browser loading pages.
    pub page: Option<traffic::PageProtocol>,
    /// Connections per flow in the HTTP mode.
    pub connections: u32,
    /// The keep-alive app's connection.
    pub keep_alive: Option<crate::experiment::KeepAlive>,
    /// Attach headstart's receive-window override to the server.
    pub rwnd_override: bool,
    /// A flow that takes longer has hung.
    pub flow_timeout: Duration,
    /// Servers behind a load balancer (Topology::add_backends; 0: the server namespace
    /// serves), and whether the balancer keeps a client on one server.
    pub backends: usize,
    pub affinity: bool,
}

pub struct Testbed {
    // Field order is drop order: server and emulator go before the namespaces.
    server: Option<Server>,
    backend_servers: Vec<Server>,
    http: Option<HttpServer>,
    emulator: Option<Emulator>,
    pub topo: Topology,
    pub interrupt: Interrupt,
    next_port: AtomicU16,
    /// The server route's (initcwnd, congctl) and tcp_slow_start_after_idle = 0, as last set.
    current_route: std::sync::Mutex<Option<RouteSetting>>,
    rest_cpu: Option<usize>,
    external_before: ExternalDrops,
    pub flow_timeout: Duration,
    keep_alive: Option<crate::experiment::KeepAlive>,
    reader_stall: Duration,
    reader_stall_every: u32,
    /// Flows begun so far: every reader_stall_every-th stalls.
    flows_begun: AtomicU64,
    /// The emulator's time 0: flow start times and throughput bins count from here.
    pub origin: Instant,
    /// Congestion control of each server port (SERVER_PORT + i).
    server_ccs: Vec<String>,
    /// Per-flow retransmissions and receivers' discards (None if the kernel refused the tracer).
    tracer: Option<crate::kernel::FlowTracer>,
}

const FIRST_CLIENT_PORT: u16 = 10_000;
/// How long a row waits for its flow's socket to be released (see `resume_outcome`):
/// a round trip and its queue, on every link the lab emulates.
const RELEASE_WAIT: Duration = Duration::from_secs(2);

impl Testbed {
    pub fn up(spec: TestbedSpec, interrupt: Interrupt) -> Result<Testbed> {
        sys::require_root()?;
        let cores = Cores::detect();
        let mut topo = Topology::create(spec.clients)?;
        let server_fd = open_tun_in(&topo.server.ns, TUN_NAME).context("creating the server's TUN device")?;
        let mut clients = Vec::new();
        for c in &topo.clients {
            clients.push(ClientPort { fd: open_tun_in(&c.ns, TUN_NAME)?, v4: c.v4, v6: c.v6 });
        }
        for h in topo.hosts() {
            topo.configure_tun(h, cores.rest)?;
        }
        if spec.peers_per_client > 0 {
            topo.add_aliases(spec.peers_per_client)?;
        }
        if let Some(w) = spec.client_initrwnd {
            topo.set_client_initrwnd(w)?;
        }
        // Linux caches ssthresh and RTT per destination (tcp_metrics) and would carry
        // them from one measured flow to the next; the lab measures each flow on its own.
        sys::run("ip", &["netns", "exec", &topo.server.netns, "sysctl", "-qw", "net.ipv4.tcp_no_metrics_save=1"])?;
        if spec.ecn {
            for c in &topo.clients {
                sys::run("ip", &["netns", "exec", &c.netns, "sysctl", "-qw", "net.ipv4.tcp_ecn=1"])?;
            }
        }
        // Each flow's row reads its start outcome by addresses and ports, which every
        // run numbers alike: none may be left from an earlier run.
        headstart::bpf::forget_outcomes_to(&[topo.server.addr(false), topo.server.addr(true)]).context("forgetting earlier runs' flow outcomes")?;
        let external_before = read_external(&topo)?;
        let origin = Instant::now();
        let emulator = Emulator::start(
            EmulatorSpec {
                down: spec.down,
                up: spec.up,
                series_bin_ns: spec.series_bin_ns,
                cpu: cores.emulator,
                origin_ns: sys::mono_ns(),
                client_link: spec.client_link,
                client_extra_delay_ns: spec.client_extra_delay_ns,
                packet_series: spec.packet_series,
            },
            server_fd,
            (topo.server.v4, topo.server.v6),
            clients,
        )?;
        let (server, backend_servers) = if spec.backends > 0 {
            topo.add_backends(spec.backends, spec.affinity)?;
            let servers = topo.backends.iter().map(|b| Server::start(&b.ns, &spec.server_ccs, spec.sample, cores.rest, spec.server_uid)).collect::<Result<Vec<_>>>()?;
            (None, servers)
        } else {
            (Some(Server::start(&topo.server.ns, &spec.server_ccs, spec.sample, cores.rest, spec.server_uid)?), Vec::new())
        };
        let http = if spec.http { Some(HttpServer::start(&topo.server.netns, &topo.server.ns, spec.tls, spec.page, spec.keep_alive.is_some(), spec.connections, cores.rest)?) } else { None };
        if spec.rwnd_override && topo.backends.is_empty() {
            headstart::bpf::attach_rwnd(TUN_NAME, Some(&topo.server.netns)).context("attaching the receive-window override in the lab")?;
        }
        if spec.rwnd_override {
            for b in &topo.backends {
                headstart::bpf::attach_rwnd(crate::topology::BACKEND_DEV, Some(&b.netns)).context("attaching the receive-window override to a backend")?;
            }
        }
        Ok(Testbed {
            server,
            backend_servers,
            http,
            emulator: Some(emulator),
            topo,
            interrupt,
            next_port: AtomicU16::new(FIRST_CLIENT_PORT),
            current_route: std::sync::Mutex::new(None),
            rest_cpu: cores.rest,
            external_before,
            flow_timeout: spec.flow_timeout,
            keep_alive: spec.keep_alive,
            reader_stall: spec.reader_stall,
            reader_stall_every: spec.reader_stall_every.max(1),
            flows_begun: AtomicU64::new(0),
            origin,
            server_ccs: spec.server_ccs,
            // An instrument: a run goes on without it, its rows' column empty.
            tracer: crate::kernel::FlowTracer::attach()
                .map_err(|e| eprintln!("lab: retransmissions and receivers' discards are not traced per flow: {e:#}"))
                .ok(),
        })
    }

    fn set_route(&self, cc: &CcSpec) -> Result<()> {
        // The HTTP server cannot set TCP_CONGESTION per request: the route does it.
        let want = (cc.initcwnd, self.http.as_ref().map(|_| cc.kernel.clone()), cc.keep_cwnd_after_idle);
        let mut cur = self.current_route.lock().unwrap();
        if cur.as_ref() != Some(&want) {
            self.topo.set_server_route(want.0, want.1.as_deref())?;
            let ssai = if want.2 { "net.ipv4.tcp_slow_start_after_idle=0" } else { "net.ipv4.tcp_slow_start_after_idle=1" };
            sys::run("ip", &["netns", "exec", &self.topo.server.netns, "sysctl", "-qw", ssai])?;
            *cur = Some(want);
        }
        Ok(())
    }

    /// Gives client `client` a route of its own from the server with `cc`'s controller
    /// (in the HTTP mode) and initial window: in a mixed run its flows then keep them
    /// while another client's flows set the clients' prefix route to theirs.
    pub fn route_client(&self, client: usize, cc: &CcSpec) -> Result<()> {
        self.topo.set_client_route(client, cc.initcwnd, self.http.as_ref().map(|_| cc.kernel.as_str()))
    }

    /// Runs one flow from peer `peer` (0 = the client's own address, else an alias) of
    /// client `client`, on the calling thread's behalf (a helper thread enters the
    /// client namespace), and waits for both ends' records.
    pub fn flow(&self, client: usize, peer: usize, cc: &CcSpec, size: u64, ipv6: bool) -> Result<FlowOutcome> {
        self.interrupt.check()?;
        self.set_route(cc)?;
        let host = &self.topo.clients[client];
        if let Some(http) = self.http.as_ref().filter(|h| h.page_protocol().is_some()) {
            return self.page_flow(http, client, cc, size, ipv6);
        }
        if let (Some(http), Some(keep_alive)) = (self.http.as_ref(), self.keep_alive) {
            return self.keep_alive_flow(http, keep_alive, client, peer, cc, size, ipv6);
        }
        let conns = self.http.as_ref().map_or(1, |h| h.connections);
        let local = self.client_end(client, peer, ipv6, conns)?;
        let port = local.port();
        // A failed flow is a row with an error, not the end of the run.
        let (server, client_flow) = match &self.http {
            Some(http) => {
                let server = SocketAddr::new(self.topo.server.addr(ipv6), HTTP_PORT);
                let path = http.file_for(size / u64::from(conns))?;
                (server, traffic::curl_flow(&host.netns, http, server, local, &path, size, self.flow_timeout, self.rest_cpu))
            }
            None => {
                let cc_port = self.server_ccs.iter().position(|c| *c == cc.kernel).context("congestion control not served")?;
                let server = SocketAddr::new(self.topo.server.addr(ipv6), SERVER_PORT + cc_port as u16);
                let nth = self.flows_begun.fetch_add(1, Ordering::Relaxed) + 1;
                let stall = if nth.is_multiple_of(u64::from(self.reader_stall_every)) { self.reader_stall } else { Duration::ZERO };
                let (kernel_cc, timeout, interrupt) = (cc.kernel.clone(), self.flow_timeout + self.reader_stall, self.interrupt.clone());
                (server, sys::run_in_netns(&host.ns, self.rest_cpu, move || Ok(traffic::client_flow(server, local, size, &kernel_cc, timeout, stall, &interrupt)))?)
            }
        };
        self.interrupt.check()?;
        let key = FlowKey::new(local.ip(), port);
        // nginx keeps no record of ours; the traffic server's comes once it closed.
        let server_info = match self.http {
            Some(_) => None,
            None => self.server.as_ref().and_then(|s| s.take_result(key, Duration::from_secs(5))),
        };
        let resume = self.resume_outcome(server, local, cc);
        let table_after = self.table_entry_after(local.ip(), cc);
        let trace = self.tracer.as_ref().map(|t| t.take(port..port + conns as u16, server.port()));
        let connections = Connections::Ports { key, count: conns as u16 };
        Ok(FlowOutcome { client, key, connections, cc: cc.clone(), size, client_flow: client_flow.map_err(|e| format!("{e:#}")), server: server_info, table_after, resume, trace, page: None })
    }

    /// A flow the other way: client `client` sends `size` bytes to the lab's server
    /// (its first port), with the client namespace's default controller.
    pub fn upload(&self, client: usize, size: u64) -> Result<FlowOutcome> {
        self.interrupt.check()?;
        anyhow::ensure!(self.http.is_none(), "reverse flows need the lab's own server");
        let host = &self.topo.clients[client];
        let local = self.client_end(client, 0, false, 1)?;
        let server = SocketAddr::new(self.topo.server.addr(false), SERVER_PORT);
        let cc = CcSpec::parse(&self.server_ccs[0])?;
        let (kernel_cc, timeout, interrupt) = (cc.kernel.clone(), self.flow_timeout, self.interrupt.clone());
        let client_flow = sys::run_in_netns(&host.ns, self.rest_cpu, move || Ok(traffic::client_upload(server, local, size, &kernel_cc, timeout, &interrupt)))?;
        let key = FlowKey::new(local.ip(), local.port());
        let server_info = self.server.as_ref().and_then(|s| s.take_result(key, Duration::from_secs(5)));
        Ok(FlowOutcome { client, key, connections: Connections::Ports { key, count: 1 }, cc, size, client_flow: client_flow.map_err(|e| format!("{e:#}")), server: server_info, table_after: None, resume: None, trace: None, page: None })
    }

    /// The client end of a flow from peer `peer` of client `client`: its address and the
    /// first of `ports` local ports (a flow's connections take consecutive ones).
    fn client_end(&self, client: usize, peer: usize, ipv6: bool, ports: u32) -> Result<SocketAddr> {
        let port = self.next_port.fetch_add(ports as u16, Ordering::Relaxed);
        anyhow::ensure!(port >= FIRST_CLIENT_PORT, "ran out of client ports (more than 55,000 flows in one run)");
        Ok(SocketAddr::new(self.topo.peer_addr(client, peer, ipv6), port))
    }

    /// One persistent connection: a first response (of `size` bytes unless the app
    /// names another), an idle (the downlink's rate changed for it, if asked), then the
    /// measured response of `size` bytes, its retransmissions from the server
    /// namespace's counters around it.
    #[allow(clippy::too_many_arguments)]
    fn keep_alive_flow(&self, http: &HttpServer, keep_alive: crate::experiment::KeepAlive, client: usize, peer: usize, cc: &CcSpec, size: u64, ipv6: bool) -> Result<FlowOutcome> {
        let (idle, rate) = (Duration::from_nanos(keep_alive.idle_ns), keep_alive.rate);
        let first_size = keep_alive.first_size.unwrap_or(size);
        let host = &self.topo.clients[client];
        let local = self.client_end(client, peer, ipv6, 1)?;
        let port = local.port();
        let server = SocketAddr::new(self.topo.server.addr(ipv6), HTTP_PORT);
        let path = http.file_for(size)?;
        let first_path = http.file_for(first_size)?;
        let (timeout, interrupt) = (self.flow_timeout, self.interrupt.clone());
        let tls = http.tls();
        let opened = sys::run_in_netns(&host.ns, self.rest_cpu, move || traffic::KeepAlive::open(server, local, tls, &first_path, first_size, timeout, &interrupt));
        let emulator = self.emulator.as_ref().context("no emulator")?;
        let measured = opened.and_then(|(mut conn, _first)| {
            emulator.set_down_rate(rate);
            self.interrupt.sleep(idle)?;
            let before = read_snmp_tcp(&self.topo.server.netns)?;
            let flow = conn.get(&path, size, timeout, &self.interrupt);
            let after = read_snmp_tcp(&self.topo.server.netns)?;
            Ok(flow.map(|f| (f, counter_delta(&before, &after, "RetransSegs"))))
        });
        emulator.set_down_rate(1.0);
        self.interrupt.check()?;
        let (client_flow, counted) = match measured.and_then(|m| m) {
            Ok((f, retrans)) => (Ok(f), Some(PageStats { connections: 1, retrans, starts: None })),
            Err(e) => (Err(format!("{e:#}")), None),
        };
        let resume = self.resume_outcome(server, local, cc);
        let table_after = self.table_entry_after(local.ip(), cc);
        let trace = self.tracer.as_ref().map(|t| t.take(port..port + 1, server.port()));
        let key = FlowKey::new(local.ip(), port);
        Ok(FlowOutcome { client, key, connections: Connections::Ports { key, count: 1 }, cc: cc.clone(), size, client_flow, server: None, table_after, resume, trace, page: counted })
    }

    /// One page load by a fresh browser in client `client`'s namespace: the page of
    /// `size` bytes, its connections counted from the namespaces' counters around it.
    fn page_flow(&self, http: &HttpServer, client: usize, cc: &CcSpec, size: u64, ipv6: bool) -> Result<FlowOutcome> {
        let host = &self.topo.clients[client];
        let server = SocketAddr::new(self.topo.server.addr(ipv6), HTTP_PORT);
        let path = http.page_for(size)?;
        let load_id = self.flows_begun.fetch_add(1, Ordering::Relaxed) + 1;
        let controller = headstart::bpf::is_ours(&cc.kernel).then(|| headstart::bpf::abi::CONTROLLER_ABI.iter().find(|a| a.name == cc.kernel)).flatten();
        let counters = || controller.and_then(|a| headstart::bpf::counters(a).ok());
        if let Some(t) = &self.tracer {
            t.take_sent_from(HTTP_PORT); // none left from an earlier load
        }
        let (tcp_before, starts_before) = (read_snmp_tcp(&self.topo.server.netns)?, counters());
        let emulator = self.emulator.as_ref().context("no emulator")?;
        emulator.label_new_flows(load_id);
        let load = traffic::page_load(&host.netns, http, server, &path, load_id, self.flow_timeout, self.rest_cpu);
        emulator.label_new_flows(0);
        self.interrupt.check()?;
        // The last connections close when the browser goes; their records come a round trip later.
        std::thread::sleep(RELEASE_WAIT.min(Duration::from_millis(500)));
        let tcp_after = read_snmp_tcp(&self.topo.server.netns)?;
        let delta = |k: &str| counter_delta(&tcp_before, &tcp_after, k);
        let starts = match (controller, starts_before, counters()) {
            (Some(a), Some(b), Some(n)) => Some(
                a.counters
                    .iter()
                    .zip(b.iter().zip(&n))
                    .filter(|(c, (x, y))| y > x && PAGE_START_COUNTERS.contains(&c.name))
                    .map(|(c, (x, y))| format!("{} {}", c.name, y - x))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            _ => None,
        };
        let trace = self.tracer.as_ref().map(|t| t.take_sent_from(HTTP_PORT));
        let local = SocketAddr::new(self.topo.peer_addr(client, 0, ipv6), 0);
        let key = FlowKey::new(local.ip(), 0);
        let want_protocol = match http.page_protocol() {
            Some(traffic::PageProtocol::Http2) => "h2",
            _ => "http/1.1",
        };
        let want_objects = traffic::PageLayout::of_size(size).objects() as u32;
        let load = load.and_then(|l| {
            anyhow::ensure!(l.protocol == want_protocol, "the browser spoke {} to the server, not {want_protocol}", l.protocol);
            anyhow::ensure!(l.objects == want_objects, "the page loaded {} of its {want_objects} objects", l.objects);
            anyhow::ensure!(l.bytes == size, "the browser received {} of the page's {size} bytes", l.bytes);
            Ok(l)
        });
        let (client_flow, page) = match load {
            Ok(l) => (
                Ok(ClientFlow { local, start: l.start, fct: l.load_time, handshake: l.connect, bytes: size }),
                Some(PageStats { connections: delta("PassiveOpens"), retrans: delta("RetransSegs"), starts }),
            ),
            Err(e) => (Err(format!("{e:#}")), None),
        };
        let table_after = self.table_entry_after(local.ip(), cc);
        Ok(FlowOutcome { client, key, connections: Connections::Labelled(load_id), cc: cc.clone(), size, client_flow, server: None, table_after, resume: None, trace, page })
    }

    /// What the path table holds for the client after a flow of a headstart
    /// controller (its socket is released when the server closes it).
    fn table_entry_after(&self, addr: IpAddr, cc: &CcSpec) -> Option<(u64, u32)> {
        if !headstart::bpf::is_ours(&cc.kernel) {
            return None;
        }
        // The lab's runs keep one table (one_table, run.rs): its server stands for this host.
        let peer = headstart::bpf::table_peer(addr, None).ok()?;
        headstart::bpf::table_get(peer).ok().flatten().map(|e| (e.bw_bytes_per_s, e.min_rtt_us))
    }

    /// A headstart controller's flow outcome, once its socket is released. The server
    /// closes its socket before it publishes the flow, and `release` runs in close();
    /// but when the two ends' FINs cross, the kernel releases the socket only when the
    /// last ACK comes, a round trip later, and with it come the outcome's last write
    /// and the entry the flow stores (an untrusted flow's row once had no outcome at
    /// all). A flow with no outcome by now has none coming: its controller logs one
    /// when it starts.
    fn resume_outcome(&self, server: SocketAddr, client: SocketAddr, cc: &CcSpec) -> Option<headstart::bpf::abi::FlowOutcome> {
        if !headstart::bpf::is_ours(&cc.kernel) {
            return None;
        }
        let netns_ino = headstart::sys::netns_ino(Some(&self.topo.server.netns)).ok()?;
        let deadline = Instant::now() + RELEASE_WAIT;
        loop {
            let o = headstart::bpf::flow_outcome(server, client, netns_ino)?;
            if o.released != 0 || Instant::now() >= deadline {
                return Some(o);
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Names the next flow's ordinal for the emulator's paired loss (see
    /// `Emulator::name_next_flow`).
    pub fn name_next_flow(&self, ordinal: u64) {
        if let Some(e) = &self.emulator {
            e.name_next_flow(ordinal);
        }
    }

    /// Removes the path table entries of every peer of `client`, so that its next
    /// flows start cold. A no-op when no path table is pinned (headstart not loaded);
    /// a table that is there but cannot be written fails the run: a "cold" flow that
    /// met an entry would measure a jump.
    pub fn forget_peers(&self, client: usize) -> Result<()> {
        if !headstart::bpf::pin_path("hs_paths").exists() {
            return Ok(());
        }
        let addrs = (0..self.topo.peers_per_client).flat_map(|peer| [false, true].map(|ipv6| self.topo.peer_addr(client, peer, ipv6)));
        headstart::bpf::table_forget_all(addrs).context("forgetting the lab's peers before a cold start")?;
        // And what the lab's prefixes taught prefix fallback (10.77.0.0/16, fd77::/32):
        // an earlier run's aggregate, on another link, would start this run's first contacts.
        headstart::bpf::prefixes_forget(|a| (a[..12] == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff] && a[12..14] == [10, 77]) || a[..4] == [0xfd, 0x77, 0, 0])
            .map(|_| ())
            .context("forgetting the lab's prefixes before a cold start")
    }

    /// Stops traffic and the emulator and returns the emulator's report, with the
    /// drops outside the model measured over the run. The namespaces go on Drop.
    pub fn down(mut self) -> Result<EmulatorReport> {
        drop(self.server.take());
        self.backend_servers.clear();
        drop(self.http.take());
        self.drain_server_connections(Duration::from_secs(5));
        let server_tcpext = read_tcpext(&self.topo.server.netns).unwrap_or_default();
        let mut client_tcpext = std::collections::BTreeMap::new();
        for c in &self.topo.clients {
            for (k, v) in read_tcpext(&c.netns).unwrap_or_default() {
                *client_tcpext.entry(k).or_insert(0) += v;
            }
        }
        let after = read_external(&self.topo)?;
        let mut report = self.emulator.take().expect("running").stop()?;
        report.external = ExternalDrops {
            tun_tx_dropped: after.tun_tx_dropped.saturating_sub(self.external_before.tun_tx_dropped),
            tun_rx_dropped: after.tun_rx_dropped.saturating_sub(self.external_before.tun_rx_dropped),
            softnet_dropped: after.softnet_dropped.saturating_sub(self.external_before.softnet_dropped),
        };
        report.server_tcpext = server_tcpext;
        report.client_tcpext = client_tcpext;
        Ok(report)
    }

    /// Waits, the emulator still running, until the server namespace has no connection
    /// left but in TIME-WAIT (at most `limit`). The servers are gone by then: a socket
    /// they left closing (its FIN or its last data unacknowledged, the client's FIN not
    /// yet in) finishes now. Stopped under it, it lived on as an orphan in the deleted
    /// namespace, retransmitting for minutes (an orphan cannot be aborted), counted
    /// among its peer's open flows; the next run, whose client has the same address,
    /// found a sibling in it (s_bbr then jumped without the window override: Ω 0.65
    /// instead of 0.97).
    fn drain_server_connections(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        for host in std::iter::once(&self.topo.server).chain(self.topo.backends.iter()) {
            while Instant::now() < deadline {
                let Ok(text) = sys::run("ip", &["netns", "exec", &host.netns, "ss", "-H", "-tn", "state", "connected"]) else { break };
                if text.lines().all(|l| l.starts_with("TIME-WAIT")) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

/// The start outcomes a page row counts (of headstart's controllers' counters).
const PAGE_START_COUNTERS: &[&str] = &["hits", "misses", "jumps", "validated", "rate_limited", "retreat_loss", "retreat_rto", "retreat_rate", "reject_rtt_shorter", "reject_rtt_longer", "reject_siblings", "reject_small", "no_jump_needed", "restarts", "follow_ups"];

/// How much counter `k` grew between two readings.
fn counter_delta(before: &std::collections::BTreeMap<String, u64>, after: &std::collections::BTreeMap<String, u64>, k: &str) -> u64 {
    after.get(k).unwrap_or(&0).saturating_sub(*before.get(k).unwrap_or(&0))
}

/// A namespace's TCP counters (/proc/net/snmp "Tcp": PassiveOpens, RetransSegs ...).
fn read_snmp_tcp(netns: &str) -> Result<std::collections::BTreeMap<String, u64>> {
    read_counters(netns, "/proc/net/snmp", "Tcp:")
}

/// The server namespace's TCP counters (/proc/net/netstat "TcpExt"), non-zero ones:
/// listen overflows, SYN cookies, timeouts, recoveries ... of the whole run.
fn read_tcpext(netns: &str) -> Result<std::collections::BTreeMap<String, u64>> {
    let mut all = read_counters(netns, "/proc/net/netstat", "TcpExt:")?;
    all.retain(|_, v| *v > 0);
    Ok(all)
}

/// One counter line pair of a /proc/net table (a line of names, then one of values,
/// both starting with `prefix`), as the namespace `netns` sees it.
fn read_counters(netns: &str, file: &str, prefix: &str) -> Result<std::collections::BTreeMap<String, u64>> {
    let text = sys::run("ip", &["netns", "exec", netns, "cat", file])?;
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with(prefix)).collect();
    let mut out = std::collections::BTreeMap::new();
    if let [names, values] = lines.as_slice() {
        for (n, v) in names.split_whitespace().zip(values.split_whitespace()).skip(1) {
            if let Ok(v) = v.parse::<u64>() {
                out.insert(n.to_string(), v);
            }
        }
    }
    Ok(out)
}

/// TUN queue drops in every namespace plus the kernel's backlog drops (all CPUs).
fn read_external(topo: &Topology) -> Result<ExternalDrops> {
    let mut d = ExternalDrops::default();
    for h in topo.hosts() {
        let json = sys::run("ip", &["-n", &h.netns, "-s", "-j", "link", "show", "dev", TUN_NAME])?;
        let v: serde_json::Value = serde_json::from_str(&json).context("parsing ip -j output")?;
        let stats = &v[0]["stats64"];
        d.tun_tx_dropped += stats["tx"]["dropped"].as_u64().unwrap_or(0);
        d.tun_rx_dropped += stats["rx"]["dropped"].as_u64().unwrap_or(0);
    }
    let softnet = std::fs::read_to_string("/proc/net/softnet_stat").context("/proc/net/softnet_stat")?;
    for line in softnet.lines() {
        if let Some(col) = line.split_whitespace().nth(1) {
            d.softnet_dropped += u64::from_str_radix(col, 16).unwrap_or(0);
        }
    }
    Ok(d)
}
