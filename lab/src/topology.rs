//! The dumbbell: one server namespace and N client namespaces, each with one TUN
//! device whose other end is the emulator. Namespaces are named
//! `hslab-<pid>-<role>` so that a later run can tell leftovers of a dead run from the
//! namespaces of a live one, and sweep the former.

use headstart::sys;
use anyhow::{Context, Result};
use std::fs::File;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

pub use headstart::sys::NETNS_DIR;
pub const NS_PREFIX: &str = "hslab-";
/// The TUN device in every namespace.
pub const TUN_NAME: &str = "hs0";
/// The TUN queue towards the emulator: deep enough that a 1 Gbit/s burst is not
/// dropped before the emulator reads it (the default is 500 packets).
const TUN_TXQUEUELEN: u32 = 10_000;

#[derive(Debug)]
pub struct Host {
    pub netns: String,
    pub ns: File,
    pub v4: Ipv4Addr,
    pub v6: Ipv6Addr,
}

impl Host {
    pub fn addr(&self, ipv6: bool) -> IpAddr {
        if ipv6 { IpAddr::V6(self.v6) } else { IpAddr::V4(self.v4) }
    }
}

pub fn server_v4() -> Ipv4Addr {
    Ipv4Addr::new(10, 77, 0, 1)
}
pub fn server_v6() -> Ipv6Addr {
    "fd77::1".parse().unwrap()
}
pub fn client_v4(i: usize) -> Ipv4Addr {
    Ipv4Addr::new(10, 77, 1 + (i / 250) as u8, 1 + (i % 250) as u8)
}
/// Each client, and each alias below, has a /64 of its own (fd77:0:1:i::1): the path
/// table keys IPv6 peers by their /64 (knob ipv6_prefix_len), as distinct clients on
/// the Internet would be. All of fd77::/32 is on the TUN link.
pub fn client_v6(i: usize) -> Ipv6Addr {
    Ipv6Addr::new(0xfd77, 0, 1, i as u16, 0, 0, 0, 1)
}

/// Extra addresses of client `client` (alias 1..=per_client), so that one client
/// namespace can stand for many peers: 10.77.128.0/17 and fd77:0:2:N::1, a /64 each.
pub fn alias_addr(client: usize, alias: usize, per_client: usize, ipv6: bool) -> IpAddr {
    let idx = client * per_client + (alias - 1);
    if ipv6 {
        IpAddr::V6(Ipv6Addr::new(0xfd77, 0, 2, idx as u16, 0, 0, 0, 1))
    } else {
        IpAddr::V4(Ipv4Addr::new(10, 77, 128 + (idx / 254) as u8, 1 + (idx % 254) as u8))
    }
}

/// Most aliases the address plan holds (127 x 254 IPv4 addresses).
pub const MAX_ALIASES: usize = 127 * 254;

pub struct Topology {
    pub server: Host,
    pub clients: Vec<Host>,
    /// A farm behind the server namespace (add_backends): the server namespace is then
    /// the load balancer, and these serve.
    pub backends: Vec<Host>,
    /// Peers per client: the client's own address plus per_client - 1 aliases.
    pub peers_per_client: usize,
}

/// Namespaces created so far; deleted on drop, so that a failure halfway through
/// `Topology::create` leaves nothing behind either.
struct Created(Vec<String>);

impl Drop for Created {
    fn drop(&mut self) {
        for name in self.0.drain(..).rev() {
            let _ = delete_netns(&name);
        }
    }
}

/// Deletes a lab namespace, its TCP sockets aborted first (SOCK_DESTROY: a run stopped
/// early may leave connections open; the testbed's own teardown drains them first).
fn delete_netns(name: &str) -> Result<String> {
    let _ = sys::run("ip", &["netns", "exec", name, "ss", "-K", "-t", "-a"]);
    sys::run("ip", &["netns", "delete", name])
}

impl Topology {
    pub fn create(n_clients: usize) -> Result<Topology> {
        anyhow::ensure!((1..=1000).contains(&n_clients), "clients must be between 1 and 1000");
        sweep_leftovers()?;
        let pid = std::process::id();
        let mut created = Created(Vec::new());
        let mut make = |role: String, v4, v6| -> Result<Host> {
            let name = format!("{NS_PREFIX}{pid}-{role}");
            sys::run("ip", &["netns", "add", &name])
                .context("creating a network namespace (is iproute2 installed and are you root?)")?;
            created.0.push(name.clone());
            sys::run("ip", &["-n", &name, "link", "set", "lo", "up"])?;
            let ns = File::open(format!("{NETNS_DIR}/{name}"))?;
            Ok(Host { netns: name, ns, v4, v6 })
        };
        let server = make("srv".into(), server_v4(), server_v6())?;
        let mut clients = Vec::new();
        for i in 0..n_clients {
            clients.push(make(format!("c{i}"), client_v4(i), client_v6(i))?);
        }
        std::mem::forget(created); // ownership passes to the Topology's own Drop
        Ok(Topology { server, clients, backends: Vec::new(), peers_per_client: 1 })
    }

    pub fn hosts(&self) -> impl Iterator<Item = &Host> {
        std::iter::once(&self.server).chain(self.clients.iter())
    }

    /// Puts `n` servers behind the server namespace, each in a namespace of its own
    /// (`hslab-<pid>-b<k>`, 10.78.k.2 on a veth from the balancer's 10.78.k.1), and makes
    /// the server namespace a load balancer: nftables DNAT of TCP to the server's
    /// address across them (IPv4), per connection (`numgen inc`, as kube-proxy's
    /// nftables mode) or by the client's address (`jhash ip saddr`: client affinity).
    /// Replies are un-NATed by conntrack and leave through the TUN as the server's.
    pub fn add_backends(&mut self, n: usize, affinity: bool) -> Result<()> {
        anyhow::ensure!((1..=64).contains(&n), "servers must be between 1 and 64");
        let pid = std::process::id();
        let lb = self.server.netns.clone();
        for k in 0..n {
            let name = format!("{NS_PREFIX}{pid}-b{k}");
            sys::run("ip", &["netns", "add", &name])?;
            let ns = File::open(format!("{NETNS_DIR}/{name}"))?;
            let v4 = backend_v4(k);
            self.backends.push(Host { netns: name.clone(), ns, v4, v6: Ipv6Addr::new(0xfd78, 0, k as u16, 0, 0, 0, 0, 2) });
            let outer = format!("hsb{k}");
            sys::run("ip", &["-n", &name, "link", "set", "lo", "up"])?;
            sys::run("ip", &["-n", &lb, "link", "add", &outer, "type", "veth", "peer", "name", BACKEND_DEV, "netns", &name])?;
            sys::run("ip", &["-n", &lb, "addr", "add", &format!("10.78.{k}.1/24"), "dev", &outer])?;
            sys::run("ip", &["-n", &lb, "link", "set", &outer, "up"])?;
            sys::run("ip", &["-n", &name, "addr", "add", &format!("{v4}/24"), "dev", BACKEND_DEV])?;
            sys::run("ip", &["-n", &name, "link", "set", BACKEND_DEV, "up"])?;
            sys::run("ip", &["-n", &name, "route", "add", "default", "via", &format!("10.78.{k}.1")])?;
            sys::run("ip", &["netns", "exec", &name, "sysctl", "-qw", "net.ipv4.tcp_no_metrics_save=1"])?;
        }
        sys::run("ip", &["netns", "exec", &lb, "sysctl", "-qw", "net.ipv4.ip_forward=1"])?;
        let pick = if affinity { "jhash ip saddr mod" } else { "numgen inc mod" };
        let map: Vec<String> = (0..n).map(|k| format!("{k} : {}", backend_v4(k))).collect();
        let rules = format!(
            "table ip hslab_lb {{\n chain pre {{\n  type nat hook prerouting priority dstnat; policy accept;\n  ip daddr {} meta l4proto tcp dnat to {pick} {n} map {{ {} }}\n }}\n}}\n",
            self.server.v4,
            map.join(", ")
        );
        let mut child = std::process::Command::new("ip")
            .args(["netns", "exec", &lb, "nft", "-f", "-"])
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .context("running nft (apt-get install nftables)")?;
        use std::io::Write;
        child.stdin.take().context("nft stdin")?.write_all(rules.as_bytes())?;
        let out = child.wait_with_output()?;
        anyhow::ensure!(out.status.success(), "the load balancer's nftables rules: {}", String::from_utf8_lossy(&out.stderr).trim());
        // Conntrack checks each segment against the window the client advertised; the
        // window override lets a jump send past it, and those segments (INVALID) would
        // leave un-NATed, from the backend's address, and be lost: a balancer in front
        // of the override has to be liberal, as kube-proxy makes conntrack for its own
        // reasons (net.netfilter.nf_conntrack_tcp_be_liberal).
        sys::run("ip", &["netns", "exec", &lb, "sysctl", "-qw", "net.netfilter.nf_conntrack_tcp_be_liberal=1"])?;
        Ok(())
    }

    /// Gives the TUN device of `host` its addresses and routes, and steers its receive
    /// processing to `rps_cpu` (away from the emulator's core).
    pub fn configure_tun(&self, host: &Host, rps_cpu: Option<usize>) -> Result<()> {
        let n = host.netns.as_str();
        let q = TUN_TXQUEUELEN.to_string();
        sys::run("ip", &["-n", n, "link", "set", TUN_NAME, "mtu", "1500", "txqueuelen", &q, "up"])?;
        sys::run("ip", &["-n", n, "addr", "add", &format!("{}/16", host.v4), "dev", TUN_NAME])?;
        sys::run("ip", &["-n", n, "-6", "addr", "add", &format!("{}/32", host.v6), "dev", TUN_NAME, "nodad"])?;
        if let Some(cpu) = rps_cpu {
            // /sys shows a namespace's devices only when mounted from inside it, which
            // `ip netns exec` does for its child.
            let mask = format!("{:x}", 1u64 << cpu);
            let path = format!("/sys/class/net/{TUN_NAME}/queues/rx-0/rps_cpus");
            sys::run("ip", &["netns", "exec", n, "sh", "-c", &format!("echo {mask} > {path}")])?;
        }
        Ok(())
    }

    /// Sets the clients' initial receive window (`ip route ... initrwnd N`, in MSS):
    /// 179 mimics a Windows 10 receiver (Stateful-TCP, Table 1). The receive buffer's
    /// default is raised to match (tcp_rmem in the client namespaces), or Linux would
    /// still clamp the window to half of its 128 KB default buffer.
    pub fn set_client_initrwnd(&self, segments: u32) -> Result<()> {
        let w = segments.to_string();
        let rmem = format!("net.ipv4.tcp_rmem=4096 {} 33554432", (segments as u64 * 1448 * 2).max(131072));
        for c in &self.clients {
            sys::run("ip", &["netns", "exec", &c.netns, "sysctl", "-qw", &rmem])?;
            for (family, prefix) in [("-4", "10.77.0.0/16"), ("-6", "fd77::/32")] {
                sys::run("ip", &["-n", &c.netns, family, "route", "replace", prefix, "dev", TUN_NAME, "initrwnd", &w])?;
            }
        }
        Ok(())
    }

    /// The address of peer `peer` (0 = the client's own) of client `client`.
    pub fn peer_addr(&self, client: usize, peer: usize, ipv6: bool) -> IpAddr {
        if peer == 0 { self.clients[client].addr(ipv6) } else { alias_addr(client, peer, self.peers_per_client - 1, ipv6) }
    }

    /// Gives every client `per_client - 1` alias addresses (one `ip -batch` per client).
    pub fn add_aliases(&mut self, per_client: usize) -> Result<()> {
        anyhow::ensure!(per_client >= 1 && (per_client - 1) * self.clients.len() <= MAX_ALIASES, "too many peers per client (at most {MAX_ALIASES} aliases in all)");
        self.peers_per_client = per_client;
        for (c, host) in self.clients.iter().enumerate() {
            let mut batch = String::new();
            for a in 1..per_client {
                let v4 = alias_addr(c, a, per_client - 1, false);
                let v6 = alias_addr(c, a, per_client - 1, true);
                batch.push_str(&format!("addr add {v4}/32 dev {TUN_NAME}\naddr add {v6}/128 dev {TUN_NAME} nodad\n"));
            }
            if batch.is_empty() {
                continue;
            }
            let mut child = std::process::Command::new("ip")
                .args(["-n", &host.netns, "-batch", "-"])
                .stdin(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()?;
            use std::io::Write;
            child.stdin.take().context("ip stdin")?.write_all(batch.as_bytes())?;
            let out = child.wait_with_output()?;
            anyhow::ensure!(out.status.success(), "adding peer addresses: {}", String::from_utf8_lossy(&out.stderr).trim());
        }
        Ok(())
    }

    /// Sets the server's route towards the clients: a static initial congestion window
    /// (`initcwnd N`, the way CDNs raise it) and a per-route congestion control
    /// (`congctl X`, which also applies to accepted connections). None removes each.
    pub fn set_server_route(&self, initcwnd: Option<u32>, congctl: Option<&str>) -> Result<()> {
        self.route_from_server(&[("-4", "10.77.0.0/16".into()), ("-6", "fd77::/32".into())], initcwnd, congctl)
    }

    /// The server's route to one client's addresses (its own and its aliases): more
    /// specific than the clients' prefix, so a mixed run's clients keep their own
    /// controllers whatever the prefix's route says.
    pub fn set_client_route(&self, client: usize, initcwnd: Option<u32>, congctl: Option<&str>) -> Result<()> {
        let mut prefixes = Vec::new();
        for peer in 0..self.peers_per_client {
            prefixes.push(("-4", format!("{}/32", self.peer_addr(client, peer, false))));
            prefixes.push(("-6", format!("{}/128", self.peer_addr(client, peer, true))));
        }
        self.route_from_server(&prefixes, initcwnd, congctl)
    }

    fn route_from_server(&self, prefixes: &[(&str, String)], initcwnd: Option<u32>, congctl: Option<&str>) -> Result<()> {
        let n = self.server.netns.as_str();
        let iw = initcwnd.map(|w| w.to_string());
        for (family, prefix) in prefixes {
            let mut args = vec!["-n", n, family, "route", "replace", prefix.as_str(), "dev", TUN_NAME];
            if let Some(w) = &iw {
                args.extend(["initcwnd", w.as_str()]);
            }
            if let Some(cc) = congctl {
                args.extend(["congctl", cc]);
            }
            sys::run("ip", &args)?;
        }
        Ok(())
    }
}

/// The veth of every backend, towards the balancer.
pub const BACKEND_DEV: &str = "hsb0";

pub fn backend_v4(k: usize) -> Ipv4Addr {
    Ipv4Addr::new(10, 78, k as u8, 2)
}

impl Drop for Topology {
    fn drop(&mut self) {
        let names: Vec<String> = self.hosts().chain(self.backends.iter()).map(|h| h.netns.clone()).collect();
        drop(Created(names));
    }
}

/// Deletes lab namespaces left by runs that are no longer alive. Returns their names.
pub fn sweep_leftovers() -> Result<Vec<String>> {
    let mut swept = Vec::new();
    let entries = match std::fs::read_dir(NETNS_DIR) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(swept),
        Err(e) => return Err(e).context(NETNS_DIR),
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(NS_PREFIX) else { continue };
        let owner: Option<u32> = rest.split('-').next().and_then(|p| p.parse().ok());
        let alive = owner.is_some_and(process_alive);
        if !alive {
            delete_netns(&name)?;
            swept.push(name);
        }
    }
    Ok(swept)
}

fn process_alive(pid: u32) -> bool {
    pid == std::process::id() || std::path::Path::new(&format!("/proc/{pid}")).exists()
}
