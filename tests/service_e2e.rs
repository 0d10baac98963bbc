//! Privileged end-to-end tests of headstart as a service: up/down across a scripted
//! reboot, the systemd units, the operator's controls (off/on/shadow), metrics, flows
//! and check. Root, one at a time (`--test-threads=1`); each test starts from and
//! leaves `headstart unload --purge`, the default congestion control as it was.

mod common;

use common::{counter, fails, hs, run_ok as ok, status, Fresh, BIN, DEFAULT_CC};
use std::path::Path;

fn json(args: &[&str]) -> serde_json::Value {
    let out = ok(args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?} is not JSON ({e}): {out}"))
}

fn default_cc() -> String {
    std::fs::read_to_string(DEFAULT_CC).unwrap().trim().to_string()
}

fn table() -> Vec<serde_json::Value> {
    ok(&["table", "list", "--json"]).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Warm flows through the lab: real s_cubic flows that store real entries.
fn warm_flows(f: &Fresh) {
    let out = f.path("sweep");
    ok(&["lab", "sweep", "--cc", "s_cubic", "--sizes", "256k", "--reps", "1", "--warm", "--rate", "100mbit", "--rtt", "20ms", "--quiet", "--no-plot", "--out", out.to_str().unwrap()]);
}

#[test]
fn a_scripted_reboot_keeps_the_table_aged_the_knobs_and_the_default() {
    let f = Fresh::new("reboot");
    let before = default_cc();
    assert!(!before.starts_with("s_"), "the machine's default is not ours: {before}");
    let cfg = f.config("default_cc = \"s_cubic\"\n[knobs]\nmax_age_s = 900\n");
    let c = cfg.to_str().unwrap();

    let up = json(&["up", "--config", c, "--json"]);
    assert_eq!(up["default_cc"], "s_cubic", "{up}");
    assert_eq!(up["knobs_from"], "defaults", "{up}");
    // A knob changed at run time must survive too (it is not in the config file).
    ok(&["config", "max_start_cwnd=900"]);
    warm_flows(&f);
    let entries = table();
    assert!(!entries.is_empty(), "warm flows stored entries");

    let down = json(&["down", "--config", c, "--json"]);
    assert_eq!(down["default_cc"].as_str(), Some(before.as_str()), "down puts back the default found before up: {down}");
    assert_eq!(down["saved_entries"].as_u64(), Some(entries.len() as u64), "{down}");
    assert!(!std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control").unwrap().contains("s_cubic"));
    use std::os::unix::fs::PermissionsExt;
    for (file, mode) in [("state", 0o700), ("state/table.json", 0o600), ("state/state.json", 0o600)] {
        let m = std::fs::metadata(f.path(file)).unwrap().permissions().mode() & 0o777;
        assert_eq!(m, mode, "{file}");
    }

    // The reboot: everything in bpffs gone.
    ok(&["unload", "--purge"]);
    assert!(!Path::new("/sys/fs/bpf/headstart").exists());
    std::thread::sleep(std::time::Duration::from_secs(2));

    let up = json(&["up", "--config", c, "--json"]);
    assert_eq!(up["default_cc"], "s_cubic", "{up}");
    assert_eq!(up["knobs_from"], "kept", "{up}");
    assert_eq!(up["restored_entries"].as_u64(), Some(entries.len() as u64), "{up}");
    let knobs = json(&["config", "--json"]);
    assert_eq!((knobs["max_start_cwnd"].as_str(), knobs["max_age_s"].as_str()), (Some("900"), Some("900")), "{knobs}");
    let after = table();
    for e in &entries {
        let peer = &e["peer"];
        let a = after.iter().find(|x| x["peer"] == *peer).unwrap_or_else(|| panic!("{peer} lost across the reboot"));
        assert_eq!(a["bw_bytes_per_s"], e["bw_bytes_per_s"]);
        let (age0, age1) = (e["age_s"].as_f64().unwrap(), a["age_s"].as_f64().unwrap());
        assert!(age1 >= age0 + 2.0, "the entry aged across the reboot: {age0} -> {age1}");
    }
    ok(&["down", "--config", c]);
    assert_eq!(default_cc(), before);
}

#[test]
fn a_bad_config_or_state_changes_nothing() {
    let f = Fresh::new("badcfg");
    let before = default_cc();
    let cfg = f.config("default_cc = \"s_cubic\"\n[knobs]\nbw_scale_pct = 0\n");
    fails(&["up", "--config", cfg.to_str().unwrap()], "bw_scale_pct");
    assert!(!Path::new("/sys/fs/bpf/headstart").exists(), "nothing registered");
    assert_eq!(default_cc(), before);
    fails(&["up", "--config", f.path("missing.toml").to_str().unwrap()], "cannot read");
    // A corrupt kept table: refused before anything changes.
    let cfg = f.config("");
    std::fs::create_dir_all(f.path("state")).unwrap();
    std::fs::write(f.path("state/table.json"), "{ not json").unwrap();
    fails(&["up", "--config", cfg.to_str().unwrap()], "table.json refused");
    assert!(!Path::new("/sys/fs/bpf/headstart").exists(), "nothing registered");
}

/// A veth pair of this test's own in the host namespace (`up` attaches here), with an
/// operator's u32 filter at headstart's priority 1 for IPv4 only: the kernel then
/// refuses headstart's filter (protocol mismatch), a failure after every check passed.
struct ClashingDevice;
const CLASH_DEV: &str = "hs-upclash0";
impl ClashingDevice {
    fn new() -> ClashingDevice {
        let run = |p: &str, args: &[&str]| assert!(std::process::Command::new(p).args(args).status().unwrap().success(), "{p} {args:?}");
        let _ = std::process::Command::new("ip").args(["link", "del", CLASH_DEV]).output();
        run("ip", &["link", "add", CLASH_DEV, "type", "veth", "peer", "name", "hs-upclash1"]);
        let dev = ClashingDevice;
        run("tc", &["qdisc", "add", "dev", CLASH_DEV, "clsact"]);
        run("tc", &["filter", "add", "dev", CLASH_DEV, "ingress", "prio", "1", "protocol", "ip", "u32"]);
        dev
    }
}
impl Drop for ClashingDevice {
    fn drop(&mut self) {
        let _ = std::process::Command::new("ip").args(["link", "del", CLASH_DEV]).output();
    }
}

fn allowed_cc() -> String {
    std::fs::read_to_string(common::ALLOWED_CC).unwrap().trim().to_string()
}

#[test]
fn up_is_all_or_nothing() {
    let f = Fresh::new("atomic");
    let (cc, allowed) = (default_cc(), allowed_cc());
    let nothing_changed = |why: &str| {
        assert!(!Path::new("/sys/fs/bpf/headstart").exists(), "{why}: nothing left in bpffs");
        assert_eq!((default_cc(), allowed_cc()), (cc.clone(), allowed.clone()), "{why}: sysctls as they were");
    };
    // A missing interface is found before anything changes.
    let missing = f.config("default_cc = \"s_cubic\"\ninterfaces = [\"nosuch0\"]\n");
    fails(&["up", "--config", missing.to_str().unwrap()], "nosuch0");
    nothing_changed("missing interface");

    // A step that fails after every check passed: what changed is put back.
    let dev = ClashingDevice::new();
    let clash = f.config(&format!("default_cc = \"s_cubic\"\ninterfaces = [\"{CLASH_DEV}\"]\n"));
    fails(&["up", "--config", clash.to_str().unwrap()], "put back");
    nothing_changed("attach refused");
    assert!(!tc_filters(CLASH_DEV).contains("hs_rwnd"), "no override left: {}", tc_filters(CLASH_DEV));

    // headstart up already: a failed second `up` leaves it as it was, knobs included.
    let plain = f.config("default_cc = \"s_cubic\"\n");
    ok(&["up", "--config", plain.to_str().unwrap()]);
    ok(&["config", "max_start_cwnd=900"]);
    let clash = f.config(&format!("default_cc = \"s_cubic\"\ninterfaces = [\"{CLASH_DEV}\"]\n[knobs]\nmax_start_cwnd = 500\n"));
    fails(&["up", "--config", clash.to_str().unwrap()], "put back");
    assert_eq!(json(&["config", "--json"])["max_start_cwnd"].as_str(), Some("900"), "the live knobs put back");
    assert_eq!(default_cc(), "s_cubic");
    assert!(bpf_registered("s_cubic"), "the controllers up before stay up");
    ok(&["down", "--config", plain.to_str().unwrap()]);
    assert_eq!(default_cc(), cc);
    drop(dev);
}

fn bpf_registered(cc: &str) -> bool {
    std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control").unwrap().split_whitespace().any(|c| c == cc)
}

/// Runs headstart with a deadline: a read that blocks or never ends fails the test
/// instead of hanging it.
fn fails_within(args: &[&str], needle: &str) {
    let mut child = std::process::Command::new(BIN).args(args).stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("headstart {args:?} still running after 10 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?} should fail: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{args:?}: one line, got {err}");
    assert!(err.contains(needle), "{args:?}: expected '{needle}' in {err}");
}

#[test]
fn files_that_never_end_or_block_are_refused_at_once() {
    let f = Fresh::new("unbounded");
    ok(&["load"]);
    let fifo = f.path("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path of our scratch folder.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let fifo = fifo.to_str().unwrap();
    for file in ["/dev/zero", fifo, "/tmp"] {
        fails_within(&["table", "restore", file], "not a regular file");
        fails_within(&["up", "--config", file], "not a regular file");
    }
    let big = f.path("big.toml");
    std::fs::write(&big, vec![b'#'; 2 << 20]).unwrap();
    fails_within(&["up", "--config", big.to_str().unwrap()], "larger than");
}

#[test]
fn a_bad_kept_record_is_left_out_and_the_rest_restored() {
    let f = Fresh::new("badrecord");
    let cfg = f.config("");
    std::fs::create_dir_all(f.path("state")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(f.path("state"), std::fs::Permissions::from_mode(0o700)).unwrap();
    // A peer that held its ACKs back left an 11 s min RTT beside a good record.
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    std::fs::write(
        f.path("state/table.json"),
        format!(
            r#"{{"format":"headstart-path-table","version":1,"saved_unix_s":{now},"entries":[
            {{"peer":"10.9.0.1","bw_bytes_per_s":12500000,"min_rtt_us":11000000,"flows":1,"age_s":1,"source":"s_cubic"}},
            {{"peer":"10.9.0.2","bw_bytes_per_s":12500000,"min_rtt_us":50000,"flows":1,"age_s":1,"source":"s_cubic"}}]}}"#
        ),
    )
    .unwrap();
    let out = hs(&["up", "--config", cfg.to_str().unwrap(), "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "up starts with the good records: {err}");
    assert!(err.contains("warning") && err.contains("10.9.0.1") && err.contains("min RTT"), "the bad one is named: {err}");
    let up: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(up["restored_entries"].as_u64(), Some(1), "{up}");
    assert_eq!(up["dropped_entries"].as_array().map(|a| a.len()), Some(1), "{up}");
    let peers: Vec<String> = table().iter().map(|e| e["peer"].as_str().unwrap().to_string()).collect();
    assert_eq!(peers, ["10.9.0.2"]);
    // The operator's own restore of that file is refused whole, as before.
    fails(&["table", "restore", f.path("state/table.json").to_str().unwrap()], "min RTT");
    ok(&["down", "--config", cfg.to_str().unwrap()]);
}

#[test]
fn down_with_a_bad_config_still_unregisters() {
    let f = Fresh::new("baddown");
    let before = default_cc();
    let cfg = f.config("default_cc = \"s_cubic\"\n");
    ok(&["up", "--config", cfg.to_str().unwrap()]);
    assert_eq!(default_cc(), "s_cubic");
    // The config broke while headstart was up (an edit, a bad package upgrade).
    std::fs::write(&cfg, "state_dir = 7\n").unwrap();
    fails(&["down", "--config", cfg.to_str().unwrap()], "did every other step");
    assert!(!bpf_registered("s_cubic"), "the controllers are unregistered");
    // Where the config kept the default found before `up` is unknown now: the kernel's cubic.
    assert_eq!(default_cc(), "cubic", "the default congestion control is the kernel's again");
    std::fs::write(DEFAULT_CC, &before).unwrap();
    // A broken state file: the same.
    let cfg = f.config("default_cc = \"s_cubic\"\n");
    ok(&["up", "--config", cfg.to_str().unwrap()]);
    std::fs::write(f.path("state/state.json"), "{").unwrap();
    fails(&["down", "--config", cfg.to_str().unwrap()], "not saved");
    assert!(!bpf_registered("s_cubic"));
    assert_ne!(default_cc(), "s_cubic");
}

#[test]
fn state_changing_commands_wait_for_each_other() {
    let _f = Fresh::new("lock");
    ok(&["load"]);
    use std::os::fd::AsRawFd;
    let held = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(headstart::sys::COMMAND_LOCK).unwrap();
    // SAFETY: flock on a file we opened; released when it closes.
    assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);
    let mut set = std::process::Command::new(BIN).args(["config", "max_start_cwnd=700"]).stdout(std::process::Stdio::null()).spawn().unwrap();
    std::thread::sleep(std::time::Duration::from_secs(1));
    assert!(set.try_wait().unwrap().is_none(), "a knob write waits while another command holds the lock");
    ok(&["status"]); // reading does not wait
    drop(held);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let status = loop {
        if let Some(s) = set.try_wait().unwrap() {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "the waiting command did not go on");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(status.success());
    assert_eq!(json(&["config", "--json"])["max_start_cwnd"].as_str(), Some("700"));
}

/// A symlink planted where headstart pins its maps, removed when the test ends.
struct PlantedPinDir;
impl Drop for PlantedPinDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_file("/sys/fs/bpf/headstart");
    }
}

#[test]
fn unload_refuses_a_planted_pin_directory() {
    let f = Fresh::new("planted");
    let victim = f.path("victim");
    std::fs::create_dir(&victim).unwrap();
    std::fs::write(victim.join("precious"), "an operator's file").unwrap();
    std::os::unix::fs::symlink(&victim, "/sys/fs/bpf/headstart").unwrap();
    let _planted = PlantedPinDir;
    fails(&["unload", "--purge"], "not a directory");
    assert!(victim.join("precious").exists(), "nothing removed through the link");
}

#[test]
fn the_systemd_units_verify() {
    let f = Fresh::new("units");
    // systemd-analyze wants the ExecStart binary to exist: point the units at this build.
    for unit in ["headstart.service", "headstart-save.service", "headstart-save.timer", "headstart-fleet.service"] {
        let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging").join(unit)).unwrap();
        std::fs::write(f.path(unit), text.replace("/usr/bin/headstart", BIN)).unwrap();
    }
    let out = std::process::Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .arg(f.path("headstart.service"))
        .arg(f.path("headstart-save.service"))
        .arg(f.path("headstart-save.timer"))
        .arg(f.path("headstart-fleet.service"))
        .output()
        .expect("systemd-analyze (Debian package systemd)");
    let err = String::from_utf8_lossy(&out.stderr);
    // Only complaints about our units count (the host's own units may have some).
    let ours: Vec<&str> = err.lines().filter(|l| l.contains("headstart")).collect();
    assert!(out.status.success() && ours.is_empty(), "systemd-analyze verify: {err}");
}

/// Warm 1 MB s_cubic flows at 100 Mbit/s, 20 ms (each measured flow after one to the
/// same peer), and the measured rows.
fn warm_sweep(f: &Fresh, name: &str) -> Vec<headstart_lab::metrics::FlowRow> {
    let out = f.path(name);
    ok(&["lab", "sweep", "--cc", "s_cubic", "--sizes", "1m", "--reps", "2", "--warm", "--rate", "100mbit", "--rtt", "20ms", "--quiet", "--no-plot", "--out", out.to_str().unwrap()]);
    common::measured(&out)
}

fn tc_filters(dev: &str) -> String {
    let out = std::process::Command::new("tc").args(["filter", "show", "dev", dev, "ingress"]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Two namespaces of this test's own joined by a veth pair: a server side (where the
/// operator's filter and headstart's override sit) and a client side.
struct VethPair(#[allow(dead_code)] [common::TestNetns; 2]);
const TC_SRV: &str = "hs-e2e-tcsrv";
const TC_CLI: &str = "hs-e2e-tccli";
impl VethPair {
    fn new() -> VethPair {
        let ip = |args: &[&str]| assert!(std::process::Command::new("ip").args(args).status().unwrap().success(), "ip {args:?}");
        let pair = VethPair([common::TestNetns::new(TC_SRV), common::TestNetns::new(TC_CLI)]);
        ip(&["-n", TC_SRV, "link", "add", "hs-tcs", "type", "veth", "peer", "name", "hs-tcc", "netns", TC_CLI]);
        ip(&["-n", TC_SRV, "addr", "add", "10.253.7.1/30", "dev", "hs-tcs"]);
        ip(&["-n", TC_CLI, "addr", "add", "10.253.7.2/30", "dev", "hs-tcc"]);
        for (ns, dev) in [(TC_SRV, "hs-tcs"), (TC_CLI, "hs-tcc")] {
            ip(&["-n", ns, "link", "set", dev, "up"]);
        }
        pair
    }
}

/// An operator's own rule: a cls_bpf program that drops TCP to port 7000, compiled
/// here and attached at priority 10 (after headstart's priority 1).
fn operators_drop_filter(f: &Fresh) {
    let src = f.path("drop7000.bpf.c");
    std::fs::write(
        &src,
        r#"#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#define SEC(n) __attribute__((section(n), used))
SEC("tc") int drop7000(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	struct tcphdr *tcp = (void *)(ip + 1);
	if ((void *)(tcp + 1) > end || eth->h_proto != __builtin_bswap16(ETH_P_IP) || ip->protocol != IPPROTO_TCP || ip->ihl != 5)
		return TC_ACT_UNSPEC;
	return tcp->dest == __builtin_bswap16(7000) ? TC_ACT_SHOT : TC_ACT_UNSPEC;
}
char _license[] SEC("license") = "GPL";
"#,
    )
    .unwrap();
    let obj = f.path("drop7000.bpf.o");
    let arch_include = format!("/usr/include/{}-linux-gnu", std::env::consts::ARCH);
    let cc = std::process::Command::new("clang")
        .args(["-O2", "-g", "-target", "bpf", "-I", &arch_include, "-c"])
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .output()
        .unwrap();
    assert!(cc.status.success(), "clang: {}", String::from_utf8_lossy(&cc.stderr));
    let tc = |args: &[&str]| {
        let out = std::process::Command::new("ip").args(["netns", "exec", TC_SRV, "tc"]).args(args).output().unwrap();
        assert!(out.status.success(), "tc {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    tc(&["qdisc", "add", "dev", "hs-tcs", "clsact"]);
    tc(&["filter", "add", "dev", "hs-tcs", "ingress", "prio", "10", "bpf", "da", "obj", obj.to_str().unwrap(), "sec", "tc"]);
}

/// Whether a client in TC_CLI completes a handshake with the server side's `port`
/// within a second (a dropped SYN is retried after 1 s, so one try decides).
fn connects(port: u16) -> bool {
    headstart::sys::in_netns(Some(TC_CLI), move || {
        let addr = std::net::SocketAddr::from(([10, 253, 7, 1], port));
        Ok(std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_millis(900)).is_ok())
    })
    .unwrap()
}

#[test]
fn attach_leaves_an_operators_own_tc_rules_in_force() {
    let f = Fresh::new("tc-rules");
    let _pair = VethPair::new();
    let listeners: Vec<std::net::TcpListener> = [7000u16, 7001]
        .into_iter()
        .map(|port| headstart::sys::in_netns(Some(TC_SRV), move || Ok(std::net::TcpListener::bind(("10.253.7.1", port))?)).unwrap())
        .collect();
    operators_drop_filter(&f);
    assert!(!connects(7000) && connects(7001), "the operator's filter drops port 7000 only");

    ok(&["load"]);
    ok(&["attach", "--dev", "hs-tcs", "--netns", TC_SRV]);
    let filters = std::process::Command::new("ip").args(["netns", "exec", TC_SRV, "tc", "filter", "show", "dev", "hs-tcs", "ingress"]).output().unwrap();
    let filters = String::from_utf8_lossy(&filters.stdout).into_owned();
    assert!(filters.contains("hs_rwnd") && filters.contains("drop7000"), "both filters: {filters}");
    assert!(!connects(7000), "headstart's filter ends classification: the operator's drop no longer runs\n{filters}");
    assert!(connects(7001), "other traffic still passes");
    ok(&["detach", "--dev", "hs-tcs", "--netns", TC_SRV]);
    assert!(!connects(7000) && connects(7001), "after detach, as before");
    drop(listeners);
}

#[test]
fn off_makes_every_flow_the_kernels_and_on_brings_the_jumps_back() {
    let f = Fresh::new("off");
    ok(&["load"]);
    // An interface of our own in this namespace, to see `off` detach the override.
    let dev = "hs-e2e-off0";
    let _ = std::process::Command::new("ip").args(["link", "del", dev]).output();
    assert!(std::process::Command::new("ip").args(["link", "add", dev, "type", "veth", "peer", "name", "hs-e2e-off1"]).status().unwrap().success());
    struct Link(&'static str);
    impl Drop for Link {
        fn drop(&mut self) {
            let _ = std::process::Command::new("ip").args(["link", "del", self.0]).output();
        }
    }
    let _link = Link(dev);
    ok(&["attach", "--dev", dev]);
    assert!(tc_filters(dev).contains("hs_rwnd"), "attached: {}", tc_filters(dev));

    assert!(ok(&["off"]).contains(dev), "off names what it detached");
    assert!(!tc_filters(dev).contains("hs_rwnd"), "off detaches the override everywhere");
    assert_eq!(json(&["config", "--json"])["mode"], "off");
    let rows = warm_sweep(&f, "off");
    let st = status();
    assert_eq!(counter(&st, "s_cubic", "jumps"), 0, "no jump while off");
    // Once (2026-11-23, in a full `make test`, not reproduced in four reruns) this
    // count came short; what it was and what the sweep measured are printed for next time.
    assert!(counter(&st, "s_cubic", "off") >= 4, "every flow counted as started off: {} rows; {st}", rows.len());
    assert!(counter(&status(), "s_cubic", "stores") >= 1, "entries are still stored while off");
    for r in &rows {
        assert_eq!(r.resume.as_deref(), Some("off"), "{r:?}");
        assert!(r.jump_cwnd.unwrap_or(0) == 0, "{r:?}");
    }
    let suss_accel = counter(&status(), "suss", "accelerated_rounds");
    let out = f.path("suss-off");
    ok(&["lab", "sweep", "--cc", "suss", "--sizes", "1m", "--reps", "1", "--rate", "100mbit", "--rtt", "50ms", "--quiet", "--no-plot", "--out", out.to_str().unwrap()]);
    assert_eq!(counter(&status(), "suss", "accelerated_rounds"), suss_accel, "no SUSS acceleration while off");

    ok(&["on"]);
    assert_eq!(json(&["config", "--json"])["mode"], "on");
    let rows = warm_sweep(&f, "on");
    assert!(counter(&status(), "s_cubic", "jumps") >= 1, "jumps again once on");
    assert!(rows.iter().any(|r| r.jump_cwnd.unwrap_or(0) > 10), "{rows:?}");
}

#[test]
fn shadow_mode_starts_as_the_kernel_and_scores_the_table_and_metrics_show_it() {
    let f = Fresh::new("shadow");
    ok(&["load"]);
    let check = |text: &str| {
        let mut child = std::process::Command::new("promtool")
            .args(["check", "metrics"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("promtool (Debian package prometheus)");
        use std::io::Write;
        child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "promtool check metrics: {}{}\n{text}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    };
    let sample = |text: &str, name: &str| -> f64 {
        text.lines().find(|l| l.starts_with(name)).and_then(|l| l.rsplit(' ').next()).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("no {name} in\n{text}"))
    };
    let before = ok(&["metrics"]);
    check(&before);
    assert_eq!(sample(&before, "headstart_flows_total{cc=\"s_cubic\"}"), 0.0);

    ok(&["shadow"]);
    let rows = warm_sweep(&f, "shadow");
    assert_eq!(counter(&status(), "s_cubic", "jumps"), 0, "shadow starts as the kernel");
    assert!(counter(&status(), "s_cubic", "shadow_would_jump") >= 1, "what a start would have done is counted");
    assert!(counter(&status(), "s_cubic", "shadow_scored") >= 1, "and scored at release");
    assert!(rows.iter().any(|r| r.resume.as_deref() == Some("shadow_would_jump")), "{rows:?}");
    assert!(rows.iter().all(|r| r.jump_cwnd.unwrap_or(0) == 0), "{rows:?}");
    assert!(ok(&["status"]).contains("shadow: cached/measured"), "status shows the histogram");

    let after = ok(&["metrics"]);
    check(&after);
    assert!(sample(&after, "headstart_flows_total{cc=\"s_cubic\"}") >= 4.0, "counters move with traffic:\n{after}");
    assert!(sample(&after, "headstart_shadow_would_jump_total{cc=\"s_cubic\"}") >= 1.0);
    assert!(sample(&after, "headstart_shadow_estimate_ratio_count{cc=\"s_cubic\"}") >= 1.0);
    assert!(sample(&after, "headstart_table_entries") >= 1.0);
    assert_eq!(sample(&after, "headstart_mode{mode=\"shadow\"}"), 1.0);
}

#[test]
fn flows_shows_a_live_headstart_flow() {
    let f = Fresh::new("flows");
    ok(&["load"]);
    // A 4 MB flow through 10 Mbit/s takes over 3 s: long enough to be seen live.
    let out = f.path("live");
    let mut child = std::process::Command::new(BIN)
        .args(["lab", "sweep", "--cc", "s_cubic", "--sizes", "4m", "--reps", "1", "--rate", "10mbit", "--rtt", "50ms", "--quiet", "--no-plot", "--out", out.to_str().unwrap()])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let ns = format!("hslab-{}-srv", child.id());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let mut seen = None;
    while std::time::Instant::now() < deadline && seen.is_none() {
        if Path::new("/var/run/netns").join(&ns).exists() {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&String::from_utf8_lossy(&hs(&["flows", "--netns", &ns, "--json"]).stdout)) {
                seen = v.as_array().and_then(|a| a.iter().find(|x| x["bytes_acked"].as_u64().unwrap_or(0) > 100_000).cloned());
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let status = child.wait().unwrap();
    assert!(status.success());
    let flow = seen.expect("a live s_cubic flow listed by `headstart flows`");
    assert_eq!(flow["cc"], "s_cubic", "{flow}");
    assert_eq!(flow["start"], "misses", "a cold flow: a miss, from hs_outcomes: {flow}");
    assert_eq!(flow["phase"], "none", "{flow}");
    assert_eq!(flow["receiver_overrun"], false, "no jump, no override, no overrun: {flow}");
    assert!(flow["cwnd"].as_u64().unwrap() > 0 && flow["srtt_us"].as_u64().unwrap() >= 50_000, "{flow}");
    assert!(flow["delivery_rate_bytes_per_s"].as_u64().unwrap() > 0, "{flow}");
    assert!(flow["peer"].as_str().unwrap().starts_with("10."), "{flow}");
    fails(&["flows", "--netns", "no/such"], "not a namespace name");
}

#[test]
fn check_reports_every_requirement() {
    let _f = Fresh::new("check");
    let v = json(&["check", "--json"]);
    let names: Vec<&str> = v.as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    for n in ["root", "kernel", "btf", "struct_ops", "cubic kfuncs", "bbr kfuncs", "bpffs", "tc cls_bpf"] {
        assert!(names.contains(&n), "{n} checked: {v}");
    }
    // This machine runs headstart (the other tests prove it): everything met.
    assert!(v.as_array().unwrap().iter().all(|r| r["state"] != "missing"), "{v}");
    // Not root: that requirement is missing, exit 1.
    let out = std::process::Command::new("setpriv").args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN, "check"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("MISSING root"), "{text}");
}

fn run(program: &str, args: &[&str]) -> (bool, String) {
    let out = std::process::Command::new(program).args(args).output().unwrap_or_else(|e| panic!("{program}: {e}"));
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

/// The .deb on this machine: built, installed, checked, brought up and down, purged.
/// It installs into the real system, so it runs only where headstart is not installed
/// as a package and has no state of an operator's (a fresh machine: CI); elsewhere it
/// says why it did not run.
#[test]
fn the_deb_installs_and_runs() {
    let _f = Fresh::new("deb");
    let (installed, _) = run("dpkg", &["-s", "headstart"]);
    let operator = ["/etc/headstart", "/var/lib/headstart", "/usr/bin/headstart"].iter().find(|p| Path::new(p).exists());
    if installed || operator.is_some() {
        eprintln!("the_deb_installs_and_runs: not run: headstart is installed here ({operator:?}); it runs on a fresh machine");
        return;
    }
    let root = env!("CARGO_MANIFEST_DIR");
    let (ok_build, out) = run(&format!("{root}/scripts/build-deb.sh"), &[]);
    assert!(ok_build, "build-deb.sh: {out}");
    let deb = format!("{root}/{}", out.lines().last().unwrap().trim());
    struct Purge;
    impl Drop for Purge {
        fn drop(&mut self) {
            let _ = std::process::Command::new("dpkg").args(["--purge", "headstart"]).output();
        }
    }
    let _purge = Purge;
    let (ok_install, out) = run("dpkg", &["-i", &deb]);
    assert!(ok_install, "dpkg -i: {out}");
    let (_, files) = run("dpkg", &["-L", "headstart"]);
    for f in [
        "/usr/bin/headstart",
        "/lib/systemd/system/headstart.service",
        "/lib/systemd/system/headstart-save.timer",
        "/lib/systemd/system/headstart-fleet.service",
        "/etc/headstart/headstart.toml",
        "/usr/share/doc/headstart/copyright",
        "/usr/share/doc/headstart/LICENSE",
        "/usr/share/doc/headstart/LICENSES/GPL-2.0.gz",
        "/usr/share/doc/headstart/changelog.gz",
        "/usr/share/man/man8/headstart.8.gz",
    ] {
        assert!(files.lines().any(|l| l == f), "dpkg -L lacks {f}:\n{files}");
    }
    let (ok_check, out) = run("/usr/bin/headstart", &["check"]);
    assert!(ok_check && out.contains("headstart can run here"), "{out}");
    let (ok_verify, out) = run("systemd-analyze", &["verify", "--man=no", "/lib/systemd/system/headstart.service", "/lib/systemd/system/headstart-save.service", "/lib/systemd/system/headstart-save.timer", "/lib/systemd/system/headstart-fleet.service"]);
    assert!(ok_verify && !out.contains("headstart"), "{out}");
    // The packaged config and the packaged binary: up, a save, down.
    let (ok_up, out) = run("/usr/bin/headstart", &["up"]);
    assert!(ok_up, "headstart up with the packaged config: {out}");
    assert!(std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control").unwrap().contains("s_cubic"));
    let (ok_down, out) = run("/usr/bin/headstart", &["down"]);
    assert!(ok_down, "{out}");
    assert!(Path::new("/var/lib/headstart/state.json").exists());
    let (ok_purge, out) = run("dpkg", &["--purge", "headstart"]);
    assert!(ok_purge, "{out}");
    assert!(!Path::new("/usr/bin/headstart").exists() && !Path::new("/var/lib/headstart").exists() && !Path::new("/etc/headstart").exists());
}
