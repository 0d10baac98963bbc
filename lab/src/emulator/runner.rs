//! The emulator's I/O: one thread, pinned to its own core, moving IP packets between
//! the server's TUN device and the clients' TUN devices through the bottleneck model.
//! Downlink (server → clients) and uplink (clients → server) are one `Direction` each,
//! shared by all clients, so the clients compete for one bottleneck as in a dumbbell —
//! unless `client_link` gives clients copies of the link of their own (the same model
//! and trace, started at the same instant), so that several experiments run side by
//! side without touching each other.
//!
//! The loop asks the model when the next packet is due, sleeps in ppoll() until then
//! (or until a packet arrives), and spins for the last few microseconds so that timer
//! slack does not become delay error. Every delivery records its lateness against the
//! model's schedule, so a run always says how faithful its link was.

use super::model::{DelayLine, Direction, DirectionConfig, DirectionCounters, Verdict};
use super::stats::{EmulatorReport, FlowKey, FlowStats};
use headstart::sys;
use anyhow::{bail, Context, Result};
use std::collections::HashMap;
use std::fs::File;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

const SLOT_BYTES: usize = 2048;

/// Time the hypervisor took core `cpu` away from this VM so far (steal, /proc/stat), in
/// ms: invisible to the scheduler, so not among the preemptions.
fn steal_ms(cpu: Option<usize>) -> u64 {
    let Some(cpu) = cpu else { return 0 };
    let name = format!("cpu{cpu} ");
    std::fs::read_to_string("/proc/stat")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with(&name)).and_then(|l| l.split_whitespace().nth(8)).and_then(|v| v.parse::<u64>().ok()))
        .map(|ticks| ticks * 1000 / clock_ticks())
        .unwrap_or(0)
}

fn clock_ticks() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 { t as u64 } else { 100 }
}

/// The calling thread's nonvoluntary context switches so far (0 if unreadable).
fn nonvoluntary_switches() -> u64 {
    std::fs::read_to_string("/proc/thread-self/status")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("nonvoluntary_ctxt_switches:").and_then(|v| v.trim().parse().ok())))
        .unwrap_or(0)
}
/// Below this distance to the next deadline the loop spins instead of sleeping.
const SPIN_NS: u64 = 40_000;
/// Longest sleep, so that a stop request is seen promptly.
const MAX_SLEEP_NS: u64 = 2_000_000;
/// Packets read from one device per turn of the loop, so no device starves the others.
const READ_BATCH: usize = 32;

#[derive(Clone, Debug)]
pub struct EmulatorSpec {
    pub down: DirectionConfig,
    pub up: DirectionConfig,
    /// Record per-flow delivered bytes in bins of this width (throughput over time).
    pub series_bin_ns: Option<u64>,
    /// Core to pin the emulator to.
    pub cpu: Option<usize>,
    /// The model's time 0 on the CLOCK_MONOTONIC scale (where traces start).
    pub origin_ns: u64,
    /// The copy of the link each client sits behind (empty: all share copy 0).
    pub client_link: Vec<usize>,
    /// Per client, a delay outside the bottleneck on its downlink (empty: none): flows
    /// of different round-trip times on one bottleneck.
    pub client_extra_delay_ns: Vec<u64>,
    /// Record every data packet's time in the bottleneck (`FlowStats::packets`).
    pub packet_series: bool,
}

impl EmulatorSpec {
    /// How many independent copies of the link the emulator runs.
    pub fn links(&self) -> usize {
        self.client_link.iter().max().map_or(1, |m| m + 1)
    }
}

/// Opens a TUN device named `name` inside the namespace `ns`. The device lives in that
/// namespace; the returned descriptor works from anywhere.
pub fn open_tun_in(ns: &File, name: &str) -> Result<OwnedFd> {
    let name = name.to_string();
    sys::run_in_netns(ns, None, move || open_tun(&name))
}

fn open_tun(name: &str) -> Result<OwnedFd> {
    let path = c"/dev/net/tun";
    // SAFETY: plain open(2); the fd is owned right below.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC) };
    if fd < 0 {
        bail!("cannot open /dev/net/tun: {} (is the tun driver available?)", std::io::Error::last_os_error());
    }
    // SAFETY: fd is a fresh descriptor we own.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    #[repr(C)]
    struct IfReq {
        name: [u8; libc::IFNAMSIZ],
        flags: libc::c_short,
        _pad: [u8; 22],
    }
    let mut req = IfReq { name: [0; libc::IFNAMSIZ], flags: (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short, _pad: [0; 22] };
    anyhow::ensure!(name.len() < libc::IFNAMSIZ, "interface name too long");
    req.name[..name.len()].copy_from_slice(name.as_bytes());
    // SAFETY: TUNSETIFF reads an ifreq-shaped struct we own.
    let rc = unsafe { libc::ioctl(fd, libc::TUNSETIFF as _, &mut req) };
    if rc < 0 {
        bail!("TUNSETIFF {name}: {}", std::io::Error::last_os_error());
    }
    Ok(owned)
}

pub struct ClientPort {
    pub fd: OwnedFd,
    pub v4: Ipv4Addr,
    pub v6: Ipv6Addr,
}

pub struct Emulator {
    stop: Arc<AtomicBool>,
    next_ordinal: Arc<AtomicU64>,
    down_rate_permille: Arc<AtomicU32>,
    label: Arc<AtomicU64>,
    handle: Option<JoinHandle<Result<EmulatorReport>>>,
}

/// No ordinal named for the next flow: it takes its copy's count of flows.
const UNNAMED: u64 = u64::MAX;

impl Emulator {
    pub fn start(spec: EmulatorSpec, server: OwnedFd, server_addrs: (Ipv4Addr, Ipv6Addr), clients: Vec<ClientPort>) -> Result<Emulator> {
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let next_ordinal = Arc::new(AtomicU64::new(UNNAMED));
        let next_ordinal2 = next_ordinal.clone();
        let down_rate_permille = Arc::new(AtomicU32::new(1000));
        let down_rate_permille2 = down_rate_permille.clone();
        let label = Arc::new(AtomicU64::new(0));
        let label2 = label.clone();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let handle = std::thread::Builder::new()
            .name("emulator".into())
            .spawn(move || {
                let mut lp = match Loop::new(spec, server, server_addrs, clients, next_ordinal2, down_rate_permille2, label2) {
                    Ok(lp) => {
                        let _ = ready_tx.send(Ok(()));
                        lp
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(format!("{e:#}")));
                        return Err(e);
                    }
                };
                lp.run(&stop2)
            })?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(Emulator { stop, next_ordinal, down_rate_permille, label, handle: Some(handle) }),
            Ok(Err(e)) => {
                let _ = handle.join();
                bail!("emulator failed to start: {e}")
            }
            Err(_) => bail!("emulator thread died while starting"),
        }
    }

    /// Names the ordinal of the next flow to send a SYN, instead of its copy's count of
    /// flows: the loss key of its data (`LossKeys`). A sweep runs its controllers one
    /// after another on one copy; naming each point's flows alike makes them lose the
    /// same transmissions, as side-by-side copies do.
    pub fn name_next_flow(&self, ordinal: u64) {
        self.next_ordinal.store(ordinal, Ordering::SeqCst);
    }

    /// The downlink's rate from now on, as a fraction of its configured one (a
    /// constant-rate link; a trace keeps its schedule): a path that changed while a
    /// connection idled.
    pub fn set_down_rate(&self, fraction: f64) {
        self.down_rate_permille.store(((fraction * 1000.0).round() as u32).clamp(1, 1000), Ordering::SeqCst);
    }

    /// Labels the flows whose first SYN comes from now on (`FlowStats::label`; 0: none):
    /// the connections of a page load, whose ports the browser picks.
    pub fn label_new_flows(&self, label: u64) {
        self.label.store(label, Ordering::SeqCst);
    }

    pub fn stop(mut self) -> Result<EmulatorReport> {
        self.stop.store(true, Ordering::Relaxed);
        self.handle
            .take()
            .expect("stopped once")
            .join()
            .map_err(|_| anyhow::anyhow!("emulator thread panicked"))?
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Where a buffered packet goes when it is due.
#[derive(Clone, Copy)]
struct Slot {
    index: u32,
    out_fd: i32,
    flow: Option<(FlowKey, bool)>,
    /// The client a downlink packet goes to (its access delay line, if it has one).
    client: Option<usize>,
}

struct Loop {
    spec: EmulatorSpec,
    server: OwnedFd,
    server_v4: [u8; 4],
    server_v6: [u8; 16],
    clients: Vec<ClientPort>,
    client_by_addr: HashMap<[u8; 16], usize>,
    /// One per copy of the link (see `EmulatorSpec::client_link`).
    down: Vec<Direction<Slot>>,
    up: Vec<Direction<Slot>>,
    /// Per client with an extra delay: its downlink packets after the bottleneck.
    access: Vec<Option<DelayLine<(Slot, u32)>>>,
    pool: Vec<u8>,
    free: Vec<u32>,
    report: EmulatorReport,
    flows: HashMap<FlowKey, FlowStats>,
    /// Per flow, what names its downlink packets for the loss decision (`loss_key`).
    loss_keys: HashMap<FlowKey, LossKeys>,
    /// Per copy of the link: flows seen so far (their SYNs), the next flow's ordinal.
    flows_per_link: Vec<u64>,
    /// An ordinal named for the next flow (`Emulator::name_next_flow`), or UNNAMED.
    next_ordinal: Arc<AtomicU64>,
    /// `Emulator::set_down_rate`, in thousandths.
    down_rate_permille: Arc<AtomicU32>,
    /// `Emulator::label_new_flows`.
    label: Arc<AtomicU64>,
    start_ns: u64,
}

/// What makes a downlink packet's loss the same on every copy of the link: the flow's
/// ordinal on its copy (copies run the same schedule), the packet's sequence number
/// relative to the server's initial one, and which transmission of it this is.
#[derive(Default)]
struct LossKeys {
    ordinal: u64,
    server_isn: Option<u32>,
    /// The client's, from its SYN: names the server's pure ACKs by what they acknowledge.
    client_isn: Option<u32>,
    /// The last pure ACK's acknowledgment number, and how many times it came before.
    last_ack: Option<(u32, u32)>,
    /// The highest relative sequence number sent (end of data): below it, a retransmission.
    sent_end: u32,
    retransmissions: HashMap<u32, u32>,
    /// The packet `key` last named was data sent before.
    last_was_retransmission: bool,
}

impl LossKeys {
    /// The key of a downlink packet of this flow: its bytes and their transmission, or
    /// for a pure ACK what it acknowledges and its repeat (twins' ACKs are lost alike:
    /// left to the random stream, whose position depends on timing, a lost ACK made 3 of
    /// 10 twin points differ in one make test run). None before the handshake is seen.
    fn key(&mut self, tcp: &TcpHeader) -> Option<u64> {
        if tcp.syn && self.server_isn.is_none() {
            self.server_isn = Some(tcp.seq);
        }
        self.last_was_retransmission = false;
        let isn = self.server_isn?;
        let len = tcp.payload_len + u32::from(tcp.syn) + u32::from(tcp.fin);
        if len == 0 {
            let rel = tcp.ack.wrapping_sub(self.client_isn?);
            let n = match self.last_ack {
                Some((a, n)) if a == rel => n + 1,
                _ => 0,
            };
            self.last_ack = Some((rel, n));
            return Some(super::model::mix64(self.ordinal) ^ (1 << 63) ^ (u64::from(rel) << 20) ^ u64::from(n));
        }
        let rel = tcp.seq.wrapping_sub(isn);
        let end = rel.wrapping_add(len);
        // (Past 4 GB the relative sequence wraps and new data counts as a retransmission:
        // other keys than a first transmission's, still alike on every copy.)
        let transmission = if end <= self.sent_end {
            let n = self.retransmissions.entry(rel).or_insert(0);
            *n += 1;
            self.last_was_retransmission = tcp.payload_len > 0;
            *n
        } else {
            self.sent_end = end;
            0
        };
        Some(super::model::mix64(self.ordinal) ^ (u64::from(rel) << 20) ^ u64::from(transmission))
    }
}

impl Loop {
    fn new(
        spec: EmulatorSpec,
        server: OwnedFd,
        server_addrs: (Ipv4Addr, Ipv6Addr),
        clients: Vec<ClientPort>,
        next_ordinal: Arc<AtomicU64>,
        down_rate_permille: Arc<AtomicU32>,
        label: Arc<AtomicU64>,
    ) -> Result<Loop> {
        if let Some(cpu) = spec.cpu {
            sys::pin_to_cpu(cpu)?;
        }
        // SAFETY: prctl with integer arguments; 1 ns slack makes ppoll wake on time.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1, 0, 0, 0) };
        let slots = pool_slots(&spec);
        let mut pool = vec![0u8; slots * SLOT_BYTES];
        // Pre-fault and lock so that a page fault never lands in the middle of a burst.
        for page in pool.chunks_mut(4096) {
            page[0] = 1;
        }
        // SAFETY: mlock on memory we own; failure only costs accuracy, and is reported.
        let locked = unsafe { libc::mlock(pool.as_ptr() as *const _, pool.len()) } == 0;
        let mut client_by_addr = HashMap::new();
        for (i, c) in clients.iter().enumerate() {
            client_by_addr.insert(key16(IpAddr::V4(c.v4)), i);
            client_by_addr.insert(key16(IpAddr::V6(c.v6)), i);
        }
        anyhow::ensure!(spec.client_link.is_empty() || spec.client_link.len() == clients.len(), "one link per client");
        let mut report = EmulatorReport::new(&spec);
        report.pool_slots = slots as u64;
        report.pool_locked = locked;
        let links = spec.links();
        Ok(Loop {
            start_ns: spec.origin_ns,
            down: (0..links).map(|_| Direction::new(spec.down.clone())).collect(),
            up: (0..links).map(|_| Direction::new(spec.up.clone())).collect(),
            access: (0..clients.len()).map(|c| spec.client_extra_delay_ns.get(c).filter(|&&d| d > 0).map(|&d| DelayLine::new(d))).collect(),
            spec,
            server,
            server_v4: server_addrs.0.octets(),
            server_v6: server_addrs.1.octets(),
            clients,
            client_by_addr,
            pool,
            free: (0..slots as u32).rev().collect(),
            report,
            flows: HashMap::new(),
            loss_keys: HashMap::new(),
            flows_per_link: vec![0; links],
            next_ordinal,
            down_rate_permille,
            label,
        })
    }

    fn run(&mut self, stop: &AtomicBool) -> Result<EmulatorReport> {
        let preempted_before = nonvoluntary_switches();
        let steal_before = steal_ms(self.spec.cpu);
        let mut pollfds: Vec<libc::pollfd> = std::iter::once(self.server.as_raw_fd())
            .chain(self.clients.iter().map(|c| c.fd.as_raw_fd()))
            .map(|fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 })
            .collect();
        while !stop.load(Ordering::Relaxed) {
            let now = self.now();
            self.deliver_due(now);
            let next = self
                .down
                .iter()
                .chain(&self.up)
                .filter_map(|d| d.next_delivery_ns())
                .chain(self.access.iter().flatten().filter_map(|l| l.next_due_ns()))
                .min();
            let wait = next.map_or(MAX_SLEEP_NS, |t| t.saturating_sub(now)).min(MAX_SLEEP_NS);
            if wait > SPIN_NS {
                let ts = libc::timespec { tv_sec: 0, tv_nsec: (wait - SPIN_NS / 2) as i64 };
                // SAFETY: pollfds is a valid array for the duration of the call.
                let n = unsafe { libc::ppoll(pollfds.as_mut_ptr(), pollfds.len() as _, &ts, std::ptr::null()) };
                if n < 0 {
                    let err = std::io::Error::last_os_error();
                    if err.kind() != std::io::ErrorKind::Interrupted {
                        return Err(err).context("ppoll");
                    }
                }
                if n <= 0 {
                    continue;
                }
            }
            for i in 0..pollfds.len() {
                self.read_device(i);
            }
        }
        self.report.elapsed_ns = self.now();
        self.report.preemptions = nonvoluntary_switches().saturating_sub(preempted_before);
        self.report.steal_ms = steal_ms(self.spec.cpu).saturating_sub(steal_before);
        self.report.down = self.down.iter().map(|d| d.counters).fold(Default::default(), DirectionCounters::plus);
        self.report.up = self.up.iter().map(|d| d.counters).fold(Default::default(), DirectionCounters::plus);
        self.report.flows = std::mem::take(&mut self.flows);
        Ok(std::mem::replace(&mut self.report, EmulatorReport::new(&self.spec)))
    }

    fn now(&self) -> u64 {
        sys::mono_ns() - self.start_ns
    }

    /// Reads up to READ_BATCH packets from device `i` (0 = server) into the model.
    fn read_device(&mut self, i: usize) {
        let fd = if i == 0 { self.server.as_raw_fd() } else { self.clients[i - 1].fd.as_raw_fd() };
        for _ in 0..READ_BATCH {
            let Some(slot) = self.take_slot() else {
                // Nothing to read into: the packet waits in the TUN queue (and is counted
                // there if it overflows).
                self.report.pool_exhausted += 1;
                return;
            };
            let buf = &mut self.pool[slot as usize * SLOT_BYTES..(slot as usize + 1) * SLOT_BYTES];
            // SAFETY: reading into a slot of our pool.
            let n = unsafe { libc::read(fd, buf.as_mut_ptr() as *mut _, SLOT_BYTES) };
            if n <= 0 {
                self.free.push(slot);
                return;
            }
            let now = self.now();
            self.accept(i, slot, n as usize, now);
        }
    }

    fn accept(&mut self, from: usize, slot: u32, len: usize, now: u64) {
        let pkt = &self.pool[slot as usize * SLOT_BYTES..slot as usize * SLOT_BYTES + len];
        let Some(hdr) = parse_ip(pkt) else {
            self.report.unroutable += 1;
            self.free.push(slot);
            return;
        };
        let downlink = from == 0;
        let mut link = if downlink { 0 } else { self.link_of(from - 1) };
        let mut client = None;
        let out_fd = if downlink {
            match self.client_by_addr.get(&hdr.dst) {
                Some(&c) => {
                    link = self.link_of(c);
                    client = Some(c);
                    self.clients[c].fd.as_raw_fd()
                }
                None => {
                    self.report.unroutable += 1;
                    self.free.push(slot);
                    return;
                }
            }
        } else {
            // Learn which client owns a source address (a client may stand for many
            // peers), so that replies find their way back.
            self.client_by_addr.entry(hdr.src).or_insert(from - 1);
            let to_server = hdr.dst == self.server_v6 || hdr.dst[12..] == self.server_v4 && hdr.dst[..12] == V4_MAPPED;
            if !to_server {
                self.report.unroutable += 1;
                self.free.push(slot);
                return;
            }
            self.server.as_raw_fd()
        };
        // Flows are named by their client end: (address, port).
        let flow = hdr.ports.map(|(sport, dport)| {
            if downlink { (FlowKey { addr: hdr.dst, port: dport }, hdr.syn) } else { (FlowKey { addr: hdr.src, port: sport }, hdr.syn) }
        });
        let mut loss_key = None;
        let mut retransmission = false;
        if let (Some((key, _)), Some(tcp)) = (flow, &hdr.tcp) {
            if !downlink && tcp.syn && !self.loss_keys.contains_key(&key) {
                let named = self.next_ordinal.swap(UNNAMED, Ordering::SeqCst);
                let ordinal = if named != UNNAMED { named } else { self.flows_per_link[link] };
                self.flows_per_link[link] += 1;
                self.loss_keys.insert(key, LossKeys { ordinal, client_isn: Some(tcp.seq), ..Default::default() });
            }
            // The keys also tell retransmissions apart (the packet series records them).
            if downlink && (self.spec.down.loss > 0.0 || self.spec.packet_series) {
                if let Some(k) = self.loss_keys.get_mut(&key) {
                    loss_key = k.key(tcp).filter(|_| self.spec.down.loss > 0.0);
                    retransmission = k.last_was_retransmission && self.spec.packet_series;
                }
            }
        }
        if downlink {
            self.down[link].set_rate_permille(self.down_rate_permille.load(Ordering::Relaxed));
        }
        let dir = if downlink { &mut self.down[link] } else { &mut self.up[link] };
        let verdict = dir.offer_keyed(now, len as u32, Slot { index: slot, out_fd, flow, client }, loss_key, hdr.ect);
        if let Verdict::Accepted { ce: true, .. } = verdict {
            let off = slot as usize * SLOT_BYTES;
            set_ce(&mut self.pool[off..off + len]);
        }
        if let Some((key, syn)) = flow {
            let st = self.flows.entry(key).or_default();
            if syn && !downlink && st.first_ns.is_none() {
                st.first_ns = Some(now);
                st.label = self.label.load(Ordering::Relaxed);
            }
            if retransmission {
                st.retransmissions_ns.push(now);
            }
            match verdict {
                Verdict::Accepted { ce, .. } => st.down_marked_ce += u64::from(ce && downlink),
                Verdict::DroppedBuffer if downlink => st.down_dropped_buffer += 1,
                Verdict::DroppedLoss if downlink => {
                    st.down_dropped_loss += 1;
                    st.down_dropped_loss_acks += u64::from(hdr.tcp.as_ref().is_some_and(|t| t.payload_len == 0 && !t.syn && !t.fin));
                }
                Verdict::DroppedAqm if downlink => st.down_dropped_aqm += 1,
                _ => st.up_dropped += 1,
            }
        }
        if !matches!(verdict, Verdict::Accepted { .. }) {
            self.free.push(slot);
        }
    }

    fn link_of(&self, client: usize) -> usize {
        self.spec.client_link.get(client).copied().unwrap_or(0)
    }

    fn deliver_due(&mut self, now: u64) {
        for (downlink, link) in (0..self.down.len()).map(|l| (true, l)).chain((0..self.up.len()).map(|l| (false, l))) {
            loop {
                let dir = if downlink { &mut self.down[link] } else { &mut self.up[link] };
                let Some(d) = dir.pop_due(now) else { break };
                let slot = d.payload;
                match slot.client.and_then(|c| self.access[c].as_mut()) {
                    Some(line) => line.push(d.deliver_ns, (slot, d.len)),
                    None => self.write_out(slot, d.len),
                }
                self.account(downlink, &d, now);
            }
        }
        for c in 0..self.access.len() {
            while let Some((due, (slot, len))) = self.access[c].as_mut().and_then(|l| l.pop_due(now)) {
                self.report.lateness_us.record(now.saturating_sub(due) / 1000);
                self.write_out(slot, len);
            }
        }
    }

    /// Writes a packet to its TUN device and frees its slot.
    fn write_out(&mut self, slot: Slot, len: u32) {
        let off = slot.index as usize * SLOT_BYTES;
        // SAFETY: writing a slot of our pool to a TUN fd we own.
        let n = unsafe { libc::write(slot.out_fd, self.pool[off..].as_ptr() as *const _, len as usize) };
        if n != len as isize {
            self.report.write_errors += 1;
        }
        self.free.push(slot.index);
    }

    /// The statistics of a packet the bottleneck delivered at `now`.
    fn account(&mut self, downlink: bool, d: &super::model::Delivery<Slot>, now: u64) {
        let lateness = now.saturating_sub(d.deliver_ns);
        self.report.lateness_us.record(lateness / 1000);
        if !downlink {
            self.report.up_lateness_us.record(lateness / 1000);
        }
        let sojourn = d.depart_ns - d.arrive_ns;
        if downlink {
            self.report.down_queue_delay_us.record(sojourn / 1000);
        }
        let Some((key, _)) = d.payload.flow else { return };
        let bin = self.spec.series_bin_ns;
        let packet_series = self.spec.packet_series;
        let st = self.flows.entry(key).or_default();
        st.last_ns = now;
        st.late_max_ns = st.late_max_ns.max(lateness);
        if downlink {
            st.down_packets += 1;
            st.down_bytes += d.len as u64;
            st.queue_delay_sum_ns += sojourn;
            st.queue_delay_max_ns = st.queue_delay_max_ns.max(sojourn);
            if packet_series && d.len > 100 {
                st.packets.push((d.deliver_ns, (sojourn / 1000) as u32));
            }
            if let Some(bin_ns) = bin {
                let b = (d.deliver_ns / bin_ns) as usize;
                if st.series.len() <= b {
                    st.series.resize(b + 1, 0);
                }
                st.series[b] += d.len as u64;
            }
        } else {
            st.up_packets += 1;
        }
    }

    fn take_slot(&mut self) -> Option<u32> {
        if let Some(s) = self.free.pop() {
            return Some(s);
        }
        // Grow rather than drop: the growth is reported (it is not pre-faulted memory).
        if self.pool.len() / SLOT_BYTES >= MAX_POOL_SLOTS {
            return None;
        }
        let old = self.pool.len() / SLOT_BYTES;
        let grow = old.max(1024);
        self.pool.resize((old + grow) * SLOT_BYTES, 0);
        self.free.extend((old as u32..(old + grow) as u32).rev());
        self.report.pool_grown += 1;
        self.free.pop()
    }
}

const MAX_POOL_SLOTS: usize = 1 << 20;
const V4_MAPPED: [u8; 12] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/// Enough slots for everything the model can hold at once: the downlink buffer and
/// the data on the wire, in full-size packets, and as many ACKs the other way.
fn pool_slots(spec: &EmulatorSpec) -> usize {
    let in_flight = |d: &DirectionConfig| -> u64 {
        let bps = match &d.rate {
            super::model::LinkRate::Constant { bits_per_sec } => *bits_per_sec as f64,
            super::model::LinkRate::Trace(t) => t.average_bits_per_sec() * 4.0,
        };
        d.buffer_bytes.min(1 << 30) + (bps / 8.0 * d.delay_ns as f64 / 1e9) as u64
    };
    let packets = (in_flight(&spec.down) + in_flight(&spec.up).min(in_flight(&spec.down))) / 1400;
    (2 * packets as usize * spec.links() + 4096).min(MAX_POOL_SLOTS)
}

pub fn key16(addr: IpAddr) -> [u8; 16] {
    match addr {
        IpAddr::V4(a) => a.to_ipv6_mapped().octets(),
        IpAddr::V6(a) => a.octets(),
    }
}

struct IpHeader {
    src: [u8; 16],
    dst: [u8; 16],
    ports: Option<(u16, u16)>,
    syn: bool,
    tcp: Option<TcpHeader>,
    /// ECN-capable transport (ECT(0), ECT(1); or already CE).
    ect: bool,
}

struct TcpHeader {
    seq: u32,
    ack: u32,
    payload_len: u32,
    syn: bool,
    fin: bool,
}

/// The addresses (IPv4 mapped into IPv6) and, for TCP, the ports and SYN flag.
fn parse_ip(p: &[u8]) -> Option<IpHeader> {
    let version = p.first()? >> 4;
    let ecn = match version {
        4 => p.get(1)? & 0x03,
        _ => (p.get(1)? >> 4) & 0x03,
    };
    let (src, dst, proto, l4) = match version {
        4 if p.len() >= 20 => {
            let ihl = (p[0] & 0x0f) as usize * 4;
            let mut src = [0u8; 16];
            let mut dst = [0u8; 16];
            src[..12].copy_from_slice(&V4_MAPPED);
            dst[..12].copy_from_slice(&V4_MAPPED);
            src[12..].copy_from_slice(&p[12..16]);
            dst[12..].copy_from_slice(&p[16..20]);
            (src, dst, p[9], ihl)
        }
        6 if p.len() >= 40 => {
            let src: [u8; 16] = p[8..24].try_into().ok()?;
            let dst: [u8; 16] = p[24..40].try_into().ok()?;
            (src, dst, p[6], 40)
        }
        _ => return None,
    };
    let ports = if proto == libc::IPPROTO_TCP as u8 && p.len() >= l4 + 14 {
        Some((u16::from_be_bytes([p[l4], p[l4 + 1]]), u16::from_be_bytes([p[l4 + 2], p[l4 + 3]])))
    } else {
        None
    };
    let syn = ports.is_some() && p[l4 + 13] & 0x02 != 0;
    // The sequence number and payload length, when the whole TCP header is there.
    let tcp = ports.and_then(|_| {
        let doff = (p[l4 + 12] >> 4) as usize * 4;
        (doff >= 20 && p.len() >= l4 + doff).then(|| TcpHeader {
            seq: u32::from_be_bytes([p[l4 + 4], p[l4 + 5], p[l4 + 6], p[l4 + 7]]),
            ack: u32::from_be_bytes([p[l4 + 8], p[l4 + 9], p[l4 + 10], p[l4 + 11]]),
            payload_len: (p.len() - l4 - doff) as u32,
            syn,
            fin: p[l4 + 13] & 0x01 != 0,
        })
    });
    Some(IpHeader { src, dst, ports, syn, tcp, ect: ecn != 0 })
}

/// Sets Congestion Experienced in an ECN-capable IP packet (IPv4: with the header
/// checksum updated as RFC 1624 says).
fn set_ce(p: &mut [u8]) {
    match p[0] >> 4 {
        4 => {
            let old = u16::from_be_bytes([p[0], p[1]]);
            p[1] |= 0x03;
            let new = u16::from_be_bytes([p[0], p[1]]);
            // HC' = ~(~HC + ~m + m')
            let hc = u16::from_be_bytes([p[10], p[11]]);
            let mut sum = u32::from(!hc) + u32::from(!old) + u32::from(new);
            while sum > 0xffff {
                sum = (sum & 0xffff) + (sum >> 16);
            }
            p[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
        }
        _ => p[1] |= 0x30,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An IPv4 TCP packet from the server: 20-byte IP header, 32-byte TCP header.
    fn packet(seq: u32, flags: u8, payload: usize) -> Vec<u8> {
        packet_acking(seq, 0, flags, payload)
    }

    fn packet_acking(seq: u32, ack: u32, flags: u8, payload: usize) -> Vec<u8> {
        let mut p = vec![0u8; 52 + payload];
        p[0] = 0x45;
        p[9] = libc::IPPROTO_TCP as u8;
        p[12..16].copy_from_slice(&[10, 77, 0, 1]);
        p[16..20].copy_from_slice(&[10, 77, 1, 1]);
        p[20..22].copy_from_slice(&5001u16.to_be_bytes());
        p[22..24].copy_from_slice(&40000u16.to_be_bytes());
        p[24..28].copy_from_slice(&seq.to_be_bytes());
        p[28..32].copy_from_slice(&ack.to_be_bytes());
        p[32] = 8 << 4;
        p[33] = flags;
        p
    }

    fn key(k: &mut LossKeys, seq: u32, flags: u8, payload: usize) -> Option<u64> {
        k.key(&parse_ip(&packet(seq, flags, payload)).unwrap().tcp.unwrap())
    }

    fn ipv4_checksum(h: &[u8]) -> u16 {
        let mut sum: u32 = h.chunks(2).map(|c| u32::from(u16::from_be_bytes([c[0], c[1]]))).sum();
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        !(sum as u16)
    }

    #[test]
    fn ce_is_set_with_a_valid_ipv4_checksum_and_in_ipv6_traffic_class() {
        let mut p = packet(1, 0x10, 100);
        p[1] = 0x02; // ECT(0)
        let total = p.len() as u16;
        p[2..4].copy_from_slice(&total.to_be_bytes());
        let c = ipv4_checksum(&p[..20]);
        p[10..12].copy_from_slice(&c.to_be_bytes());
        assert!(parse_ip(&p).unwrap().ect);
        set_ce(&mut p);
        assert_eq!(p[1] & 0x03, 0x03);
        assert_eq!(ipv4_checksum(&p[..20]), 0, "the header still sums to all ones");
        assert!(!parse_ip(&packet(1, 0x10, 100)).unwrap().ect);
        let mut v6 = vec![0u8; 60];
        v6[0] = 0x60;
        v6[1] = 0x20; // traffic class low bits = ECT(0)
        assert!(parse_ip(&v6).unwrap().ect);
        set_ce(&mut v6);
        assert_eq!((v6[0], v6[1]), (0x60, 0x30));
    }

    #[test]
    fn a_retransmitted_segment_is_named_as_one() {
        let mut k = LossKeys::default();
        key(&mut k, 100, 0x12, 0);
        key(&mut k, 101, 0x10, 1448);
        assert!(!k.last_was_retransmission);
        key(&mut k, 101, 0x10, 1448);
        assert!(k.last_was_retransmission);
        key(&mut k, 101, 0x10, 0);
        assert!(!k.last_was_retransmission, "a pure ACK is not");
    }

    #[test]
    fn loss_keys_name_a_flows_bytes_and_their_transmission_not_its_isn() {
        const SYN_ACK: u8 = 0x12;
        const ACK: u8 = 0x10;
        // Two copies of one flow: other initial sequence numbers, the same keys.
        let (mut a, mut b) = (LossKeys::default(), LossKeys::default());
        let keys = |k: &mut LossKeys, isn: u32| {
            vec![
                key(k, isn, SYN_ACK, 0),
                key(k, isn, SYN_ACK, 0), // the SYN-ACK again: its own key, or a lost one stays lost
                key(k, isn + 1, ACK, 0), // a pure ACK: no key
                key(k, isn + 1, ACK, 1448),
                key(k, isn + 1449, ACK, 1448),
                key(k, isn + 1, ACK, 1448), // the first segment again: a retransmission
                key(k, isn + 1, ACK, 1448), // and again
                key(k, isn + 2897, ACK | 0x01, 100),
            ]
        };
        let ka = keys(&mut a, 1_000_000);
        let kb = keys(&mut b, u32::MAX - 2000); // wraps around
        assert_eq!(ka, kb);
        assert_eq!(ka[2], None);
        let distinct: std::collections::HashSet<_> = ka.iter().flatten().collect();
        assert_eq!(distinct.len(), 7, "each transmission its own key: {ka:?}");
        // Another flow (ordinal) on the same copy: other keys for the same bytes.
        let mut c = LossKeys { ordinal: 1, ..Default::default() };
        let kc = keys(&mut c, 1_000_000);
        assert!(kc.iter().zip(&ka).all(|(x, y)| x.is_none() || x != y));
        // Before the handshake was seen: no key.
        assert_eq!(key(&mut LossKeys::default(), 5, ACK, 1448), None);
    }

    #[test]
    fn the_servers_pure_acks_are_named_by_what_they_acknowledge() {
        const ACK: u8 = 0x10;
        let ack_key = |k: &mut LossKeys, isn: u32, client_isn: u32, acked: u32| {
            k.key(&parse_ip(&packet_acking(isn + 1, client_isn.wrapping_add(acked), ACK, 0)).unwrap().tcp.unwrap())
        };
        let keys = |client_isn: u32| {
            let mut k = LossKeys { client_isn: Some(client_isn), ..Default::default() };
            key(&mut k, 7, 0x12, 0);
            let data = key(&mut k, 8, ACK, 1448);
            vec![data, ack_key(&mut k, 7, client_isn, 101), ack_key(&mut k, 7, client_isn, 101), ack_key(&mut k, 7, client_isn, 202)]
        };
        let (ka, kb) = (keys(5), keys(u32::MAX - 50));
        assert_eq!(ka, kb, "two copies' ACKs of the same request bytes: the same keys");
        let distinct: std::collections::HashSet<_> = ka.iter().flatten().collect();
        assert_eq!(distinct.len(), 4, "a repeated ACK and the data have keys of their own: {ka:?}");
        let mut unknown = LossKeys::default();
        key(&mut unknown, 7, 0x12, 0);
        assert_eq!(ack_key(&mut unknown, 7, 5, 101), None, "no client ISN seen: the random stream");
    }
}
