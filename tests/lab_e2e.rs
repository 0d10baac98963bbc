//! Privileged end-to-end tests of the lab: real kernel TCP through the TUN emulator in
//! network namespaces. They need root (CI runs as root) and run one at a time
//! (`--test-threads=1`): the emulator wants a core of its own.
//!
//! Each test runs the real `headstart` binary, as a user would, and checks what it
//! wrote; every test also checks that no lab namespace is left behind.

mod common;

use common::{assert_no_lab_namespaces, fails, lab_namespaces, measured, run_ok, BIN};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        TempDir(headstart::sys::private_temp_dir(&format!("headstart-e2e-{name}")).unwrap())
    }
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs headstart, asserts success and that no lab namespace is left.
fn ok(args: &[&str]) -> String {
    let out = run_ok(args);
    assert_no_lab_namespaces();
    out
}

/// Writes `toml` to `<name>.toml` in `t`, runs it with `lab run` (plus `extra`) and
/// returns its output folder.
fn run_experiment(t: &TempDir, name: &str, toml: &str, extra: &[&str]) -> PathBuf {
    let file = t.path().join(format!("{name}.toml"));
    std::fs::write(&file, toml).unwrap();
    let out = t.path().join(name);
    let mut args = vec!["lab", "run", file.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    ok(&args);
    out
}

#[test]
fn bulk_flow_gets_the_configured_rate_and_rtt() {
    let t = TempDir::new("rate");
    let out = t.path().to_str().unwrap();
    ok(&["lab", "calibrate", "--rates", "20mbit", "--rtt", "40ms", "--seconds", "4", "--quiet", "--out", out]);
    let csv = std::fs::read_to_string(t.path().join("calibration.csv")).unwrap();
    let cols: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    let ratio: f64 = cols[2].parse().unwrap();
    assert!((0.98..=1.01).contains(&ratio), "delivered {} of 20 Mbit/s", cols[1]);
    let row = &measured(&t.path().join("20mbit"))[0];
    let min_rtt = row.min_rtt_ms.unwrap();
    // 40 ms of propagation plus at most a few transmission times of 1500 B (0.6 ms).
    assert!((40.0..42.0).contains(&min_rtt), "min RTT {min_rtt} ms on a 40 ms path");
    assert!(row.error.is_none());
}

#[test]
fn trace_link_delivers_the_trace_average() {
    let t = TempDir::new("trace");
    // A bursty 400 ms trace: 3, 0, 1, 2 packets per ms in turn, silent in the last 100 ms.
    let mut lines = Vec::new();
    for ms in 1..=400u32 {
        let n = if ms > 300 { 0 } else { [3, 0, 1, 2][ms as usize % 4] };
        lines.extend(std::iter::repeat_n(ms.to_string(), n));
    }
    lines.push("400".into());
    let trace = t.path().join("bursty.trace");
    std::fs::write(&trace, lines.join("\n")).unwrap();
    let out = t.path().join("out");
    ok(&["lab", "calibrate", "--trace", trace.to_str().unwrap(), "--buffer", "1mb", "--seconds", "5", "--quiet", "--out", out.to_str().unwrap()]);
    let csv = std::fs::read_to_string(out.join("calibration.csv")).unwrap();
    let ratio: f64 = csv.lines().nth(1).unwrap().split(',').nth(2).unwrap().parse().unwrap();
    assert!((0.98..=1.02).contains(&ratio), "delivered {ratio} of the trace's average");
}

#[test]
fn small_flows_finish_near_the_ideal_and_large_ones_pay_for_slow_start() {
    let t = TempDir::new("sweep");
    let out = t.path().to_str().unwrap();
    let stdout = ok(&["lab", "sweep", "--cc", "cubic", "--rate", "100mbit", "--rtt", "20ms", "--sizes", "8k,1m", "--reps", "3", "--quiet", "--no-plot", "--out", out]);
    assert!(stdout.contains("mean Ω"), "summary table printed: {stdout}");
    let rows = measured(t.path());
    assert_eq!(rows.len(), 6);
    // The median of three: on this 2-vCPU VM one flow in a few dozen loses ~10–20 ms to
    // scheduling (seen in CI: one 8 KB flow at Ω 0.65–0.81 while the others were 0.98).
    let mut small: Vec<f64> = rows.iter().filter(|r| r.size == 8192).map(|r| r.omega.unwrap()).collect();
    small.sort_by(f64::total_cmp);
    assert!(small[1] > 0.85, "8 KB flows' median Ω {} (all: {small:?})", small[1]);
    for r in &rows {
        let fct = r.fct_s.unwrap();
        assert!(fct >= r.t_min_s * 0.99, "{} B finished in {fct} s, faster than the ideal {} s", r.size, r.t_min_s);
        let omega = r.omega.unwrap();
        if r.size == 8192 {
            assert_eq!(r.retrans, Some(0), "6 packets in the initial window cannot overflow a 250 KB buffer");
        } else {
            // 1 MB needs ~7 rounds of slow start on a 250 KB BDP: well below ideal.
            assert!(omega < 0.75, "1 MB flow Ω {omega}");
        }
        assert!(r.queue_delay_mean_ms.is_some(), "emulator per-flow stats joined");
        // The handshake is one round trip, 20 ms (a lost SYN-ACK would add a second).
        let hs = r.handshake_ms.unwrap();
        assert!((19.0..1500.0).contains(&hs), "handshake {hs} ms");
    }
    for f in ["flows.jsonl", "flows.csv", "run.json", "summary.txt"] {
        assert!(t.path().join(f).exists(), "{f} written");
    }
    let run = common::run_json(t.path());
    // A flow's latest delivery is one of the run's.
    let run_late = run["emulator_accuracy"]["lateness_max_ms"].as_f64().unwrap();
    for r in &rows {
        let late = r.emulator_late_max_ms.unwrap();
        assert!(late <= run_late + 0.001, "a flow {late} ms late, the run at most {run_late}");
    }
    assert!(run["emulator_accuracy"]["lateness_p99_ms"].is_number());
    // Redraw the figures from the folder alone.
    let listed = ok(&["lab", "plot", out]);
    for png in ["omega_vs_size.png", "fct_cdf.png"] {
        assert!(listed.contains(png));
        let bytes = std::fs::read(t.path().join(png)).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    }
}

#[test]
fn small_buffer_drops_at_the_bottleneck_and_tcp_retransmits() {
    let t = TempDir::new("buffer");
    let out = t.path().to_str().unwrap();
    // 10 packets of buffer on a 2.5 MB BDP: slow start overflows it.
    ok(&["lab", "sweep", "--cc", "cubic", "--rate", "100mbit", "--rtt", "200ms", "--buffer", "15000", "--sizes", "8m", "--reps", "1", "--quiet", "--no-plot", "--out", out]);
    let r = &measured(t.path())[0];
    assert!(r.drops_buffer.unwrap() > 0, "no buffer drops: {r:?}");
    assert!(r.retrans.unwrap() > 0);
    assert_eq!(r.drops_loss, Some(0));
    assert!(r.error.is_none());
}

#[test]
fn random_loss_is_applied() {
    let t = TempDir::new("loss");
    let out = t.path().to_str().unwrap();
    ok(&["lab", "sweep", "--cc", "cubic", "--rate", "50mbit", "--rtt", "10ms", "--loss", "2%", "--sizes", "2m", "--reps", "1", "--quiet", "--no-plot", "--out", out]);
    let r = &measured(t.path())[0];
    let lost = r.drops_loss.unwrap();
    // ~1450 data packets at 2 %: about 29 expected.
    assert!((8..=80).contains(&lost), "{lost} random losses");
    assert!(r.retrans.unwrap() >= 1);
    assert!(r.error.is_none());
}

#[test]
fn a_sweeps_controllers_lose_the_same_transmissions_at_each_point() {
    // A sweep runs its controllers one after another on one copy of the link; each
    // point's flows are named alike for the loss key, so random loss takes the same
    // transmissions from each. cubic:iw10 is cubic (10 is the kernel's IW): twins.
    // Unpaired, two flows of ~181 packets at 2 % lose as many packets about one time
    // in five (P(>= 7 of 10) ~ 0.001); paired, twins part only when timing makes one
    // stack retransmit other segments (>= 90 % of side-by-side twins stay equal).
    let t = TempDir::new("sweep-pairs");
    let out = t.path().to_str().unwrap();
    ok(&["lab", "sweep", "--cc", "cubic,cubic:iw10", "--rate", "20mbit", "--rtt", "20ms", "--loss", "2%", "--sizes", "256k", "--reps", "10", "--quiet", "--no-plot", "--out", out]);
    let rows = measured(t.path());
    let lost = |cc: &str, rep: u32| rows.iter().find(|r| r.cc == cc && r.rep == rep).and_then(|r| r.drops_loss).unwrap();
    let (mut same, mut total) = (0, 0);
    for rep in 0..10 {
        let (a, b) = (lost("cubic", rep), lost("cubic:iw10", rep));
        total += a;
        same += usize::from(a == b);
    }
    assert!(total >= 15, "2 % of ~1,800 packets: {total} lost");
    assert!(same >= 7, "twins lost as many packets at {same} of 10 points");
}

#[test]
fn ipv6_flows_run_end_to_end() {
    let t = TempDir::new("ipv6");
    let out = t.path().to_str().unwrap();
    ok(&["lab", "sweep", "--ipv6", "--cc", "cubic,bbr", "--rate", "50mbit", "--rtt", "10ms", "--sizes", "256k", "--reps", "1", "--quiet", "--no-plot", "--out", out]);
    let rows = measured(t.path());
    assert_eq!(rows.len(), 2);
    for r in rows {
        assert!(r.ipv6 && r.error.is_none());
        assert_eq!(r.mss, 1428, "IPv6 MSS on a 1500-byte MTU");
        assert!(r.queue_delay_mean_ms.is_some(), "IPv6 flows are tracked by the emulator");
    }
}

#[test]
fn http_mode_fetches_from_nginx_with_curl() {
    let t = TempDir::new("http");
    let out = t.path().to_str().unwrap();
    ok(&["lab", "sweep", "--http", "--cc", "cubic,bbr", "--rate", "50mbit", "--rtt", "20ms", "--loss", "2%", "--seed", "5", "--sizes", "64k,512k", "--reps", "1", "--quiet", "--no-plot", "--out", out]);
    let rows = measured(t.path());
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert!(r.error.is_none(), "{:?}", r.error);
        assert!(r.fct_s.unwrap() >= r.t_min_s * 0.99);
        assert!(r.queue_delay_mean_ms.is_some(), "curl's bound port lets the emulator name the flow");
        // nginx's TCP_INFO is out of reach: the lab traces its retransmissions per flow.
        // Every segment the link lost on the way down was sent again.
        let (retrans, lost) = (r.retrans.expect("retransmissions traced"), r.drops_loss.unwrap());
        assert!(u64::from(retrans) >= lost, "{retrans} retransmitted, {lost} lost: {r:?}");
    }
    assert!(rows.iter().map(|r| r.drops_loss.unwrap()).sum::<u64>() > 0, "2 % of ~800 packets lost none");
    let left: Vec<_> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("headstart-http-"))
        .collect();
    assert!(left.is_empty(), "nginx's folder left behind: {left:?}");
    assert!(!Command::new("pgrep").args(["-f", "headstart-http-"]).status().unwrap().success(), "nginx still running");
}

#[test]
fn page_mode_loads_pages_in_a_real_browser_over_h1_and_h2() {
    for app in ["page-h2", "page"] {
        let t = TempDir::new(app);
        let out = t.path().to_str().unwrap();
        ok(&["lab", "sweep", "--app", app, "--cc", "cubic", "--rate", "100mbit", "--rtt", "20ms", "--sizes", "500k", "--reps", "2", "--quiet", "--no-plot", "--out", out]);
        let rows = measured(t.path());
        assert_eq!(rows.len(), 2, "{app}");
        for r in &rows {
            // The page reported its own load, with every object, over the protocol asked.
            assert!(r.error.is_none(), "{app}: {:?}", r.error);
            assert!(r.fct_s.unwrap() >= r.t_min_s * 0.99, "{app}: the load time includes four round trips and the bytes");
            let conns = r.connections.unwrap();
            if app == "page-h2" {
                assert!((1..=2).contains(&conns), "h2: one connection (and at most a spare): {conns}");
            } else {
                assert!(conns >= 2, "h1: the browser opened parallel connections for the objects: {conns}");
            }
        }
    }
    assert!(!Command::new("pgrep").args(["-f", "headstart-http-.*/browser-"]).status().unwrap().success(), "a browser still running");
}

#[test]
fn static_initial_window_baseline_sends_more_in_the_first_round() {
    let t = TempDir::new("iw");
    let out = t.path().to_str().unwrap();
    ok(&["lab", "sweep", "--cc", "cubic,cubic:iw100", "--rate", "100mbit", "--rtt", "50ms", "--sizes", "128k", "--reps", "1", "--quiet", "--no-plot", "--out", out]);
    let rows = measured(t.path());
    let fct = |label: &str| rows.iter().find(|r| r.cc == label).unwrap().fct_s.unwrap();
    // 128 KB = 91 segments: one round with initcwnd 100, four rounds from 10.
    assert!(fct("cubic:iw100") < fct("cubic") - 0.08, "iw100 {} s vs iw10 {} s", fct("cubic:iw100"), fct("cubic"));
}

#[test]
fn poisson_and_competing_workloads() {
    let t = TempDir::new("workloads");
    let pout = run_experiment(
        &t,
        "poisson",
        r#"
        [link]
        rate = "20mbit"
        rtt = "20ms"
        [workload]
        kind = "poisson"
        cc = ["cubic", "bbr"]
        mean_size = "32k"
        utilization = 0.3
        flows = 30
        clients = 3
        "#,
        &["--no-plot"],
    );
    let rows = measured(&pout);
    assert_eq!(rows.len(), 60);
    assert!(rows.iter().all(|r| r.error.is_none()));
    assert_eq!(rows.iter().map(|r| r.client).max(), Some(2), "flows spread over 3 clients");

    // Side by side: each controller has a copy of the link to itself, so two 3+ MB
    // flows that start together both run near the link rate (sharing one link, each
    // would get half).
    let par = run_experiment(
        &t,
        "parallel",
        r#"
        [link]
        rate = "20mbit"
        rtt = "20ms"
        [workload]
        kind = "poisson"
        cc = ["cubic", "bbr"]
        mean_size = "5m"
        utilization = 0.5
        flows = 1
        clients = 1
        parallel = true
        "#,
        &["--no-plot"],
    );
    let rows = measured(&par);
    assert_eq!(rows.len(), 2);
    assert_eq!((rows[0].cc.as_str(), rows[0].client, rows[1].cc.as_str(), rows[1].client), ("cubic", 0, "bbr", 1));
    assert!((rows[0].start_s - rows[1].start_s).abs() < 0.2, "started together: {} vs {} s", rows[0].start_s, rows[1].start_s);
    for r in &rows {
        assert!(r.size >= 3_000_000, "Pareto(2.5) with mean 5 MB starts at 3 MB");
        let omega = r.omega.unwrap();
        assert!(omega > 0.65, "{} on its own link: Ω {omega}", r.cc);
    }

    let cout = run_experiment(
        &t,
        "competing",
        r#"
        [link]
        rate = "20mbit"
        rtt = "20ms"
        [workload]
        kind = "competing"
        cc = ["cubic"]
        bin = "100ms"
        [[workload.flows]]
        start = "0s"
        size = "12m"
        [[workload.flows]]
        start = "1s"
        size = "4m"
        "#,
        &[],
    );
    let csv = std::fs::read_to_string(cout.join("throughput.csv")).unwrap();
    // While both run, the link is shared: their sum stays at the link rate.
    let mut sum_by_t = std::collections::BTreeMap::<String, f64>::new();
    for l in csv.lines().skip(1) {
        let c: Vec<&str> = l.split(',').collect();
        *sum_by_t.entry(c[0].to_string()).or_default() += c[3].parse::<f64>().unwrap();
    }
    let peak = sum_by_t.values().cloned().fold(0.0, f64::max);
    assert!(peak <= 20.0 * 1.05, "bins sum to {peak} Mbit/s on a 20 Mbit/s link");
    assert!(cout.join("throughput_over_time.png").exists());
}

/// Each bad input: exit code 1, one line on stderr naming the problem, nothing left.
#[test]
fn bad_input_fails_with_one_clear_line_and_leaves_nothing() {
    let t = TempDir::new("bad");
    let malformed_toml = t.path().join("bad.toml");
    std::fs::write(&malformed_toml, "[link\nrate = ").unwrap();
    let bad_trace = t.path().join("bad.trace");
    std::fs::write(&bad_trace, "1\n2\nfoo\n").unwrap();
    let out = t.path().join("out");
    let o = out.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["lab", "sweep", "--cc", "nosuchcc", "--out", o], "unknown congestion control"),
        (vec!["lab", "sweep", "--cc", "cubic:iw0", "--out", o], "initial window"),
        (vec!["lab", "run", malformed_toml.to_str().unwrap(), "--out", o], "bad.toml"),
        (vec!["lab", "run", "/nonexistent/x.toml", "--out", o], "cannot read"),
        (vec!["lab", "sweep", "--trace", "/nonexistent/trace", "--out", o], "cannot read trace"),
        (vec!["lab", "sweep", "--trace", bad_trace.to_str().unwrap(), "--out", o], "malformed trace"),
        (vec!["lab", "sweep", "--rate", "0mbit", "--out", o], "too low"),
        (vec!["lab", "sweep", "--buffer", "1000", "--out", o], "smaller than one"),
        (vec!["lab", "sweep", "--sizes", "8q", "--out", o], "unknown size unit"),
        (vec!["lab", "sweep", "--loss", "150%", "--out", o], "probability"),
        (vec!["lab", "sweep", "--reader-stall", "20s", "--out", o], "--reader-stall"),
        (vec!["lab", "sweep", "--reader-stall", "30ms", "--http", "--out", o], "curl"),
        (vec!["lab", "plot", "/nonexistent/dir"], "cannot read"),
        // Every rate is checked before the first is calibrated or a folder made.
        (vec!["lab", "calibrate", "--rates", "bogus", "--out", o], "bogus"),
        (vec!["lab", "calibrate", "--rates", "10mbit,bogus", "--out", o], "bogus"),
        (vec!["lab", "overhead", "--cc", "s_cubic", "--bytes", "bogus", "--out", o], "bogus"),
        (vec!["lab", "overhead", "--cc", "s_cubic", "--bytes", "10k", "--out", o], "at least 1 MiB"),
        // Argument errors take the same one-line form as every other refusal.
        (vec!["lab", "sweep", "--no-such-flag"], "--no-such-flag"),
        (vec!["lab", "sweep", "--reps", "many"], "many"),
        (vec!["table", "set", "10.0.0.1"], "--bw"),
        (vec!["nosuchcommand"], "nosuchcommand"),
    ];
    let s_cubic_before = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control").unwrap().contains("s_cubic");
    for (args, needle) in cases {
        fails(&args, needle);
        assert_no_lab_namespaces();
    }
    assert!(!out.exists(), "no results folder for a refused run");
    let s_cubic_after = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control").unwrap().contains("s_cubic");
    assert_eq!(s_cubic_before, s_cubic_after, "a refused `lab overhead` registers nothing");

    // Not root: refused before anything is created.
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN, "lab", "sweep", "--sizes", "8k", "--out", "/tmp"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "not root: {err}");
    assert!(err.contains("needs root"), "{err}");
    assert_no_lab_namespaces();

    // The server tool alone (as the .deb installs it): `lab` says where the lab is.
    let t = TempDir::new("server-only");
    let alone = t.path().join("headstart");
    std::fs::copy(BIN, &alone).unwrap();
    let out = Command::new(&alone).env("PATH", "/usr/bin:/bin").args(["lab", "sweep"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.lines().count() == 1 && err.starts_with("headstart: error: the lab is a program of its own, headstart-lab"), "{err}");
}

fn wait_for_namespaces(pid: u32, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if lab_namespaces().iter().any(|n| n.starts_with(&format!("hslab-{pid}-"))) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

fn long_sweep(out: &Path) -> std::process::Child {
    Command::new(BIN)
        .args(["lab", "sweep", "--cc", "cubic", "--sizes", "1m", "--reps", "100", "--quiet", "--out", out.to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn interrupted_run_cleans_up_and_killed_run_is_swept() {
    let t = TempDir::new("kill");
    for sig in [libc::SIGTERM, libc::SIGINT] {
        let mut child = long_sweep(t.path());
        assert!(wait_for_namespaces(child.id(), Duration::from_secs(20)), "run did not start");
        std::thread::sleep(Duration::from_millis(1500)); // mid-transfer
        // SAFETY: signalling our own child.
        unsafe { libc::kill(child.id() as i32, sig) };
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            assert!(Instant::now() < deadline, "run did not stop after signal {sig}");
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(!status.success(), "an interrupted run must not report success");
        assert_no_lab_namespaces();
    }
    // SIGKILL leaves the namespaces; the next run (or `lab clean`) sweeps them.
    let mut child = long_sweep(t.path());
    let pid = child.id();
    assert!(wait_for_namespaces(pid, Duration::from_secs(20)));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!lab_namespaces().is_empty(), "SIGKILL cannot clean up; expected leftovers to sweep");
    let said = ok(&["lab", "clean"]);
    assert!(said.contains(&format!("hslab-{pid}-srv")), "{said}");
}

/// The fleet experiment end to end: servers behind the nftables balancer, each with its
/// own table, the real fleet agent and a 3-node Redis Cluster the lab starts;
/// summary.json per mode; nothing left running (namespaces, agents, Redis).
#[test]
fn fleet_runs_servers_behind_a_balancer_with_their_agents() {
    let t = TempDir::new("fleet");
    let out = run_experiment(
        &t,
        "fleet",
        r#"
        [link]
        rate = "50mbit"
        rtt = "20ms"
        [workload]
        kind = "fleet"
        cc = ["s_cubic"]
        servers = 2
        tables = ["per_host", "fleet"]
        sessions = 6
        connections = "2-4"
        mean_size = "256k"
        utilization = 0.2
        think = "300ms"
        clients = 2
        seed = 3
        redis_nodes = 3
        "#,
        &[],
    );
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let rows = std::fs::read_to_string(out.join("rows.csv")).unwrap();
    for mode in ["per_host", "fleet"] {
        let m = &summary[mode];
        let flows = m["flows"].as_u64().unwrap();
        assert!((12..=24).contains(&flows), "{mode}: 6 sessions of 2-4 connections: {m}");
        assert_eq!(m["failed"].as_u64(), Some(0), "{mode}: {m}");
        assert_eq!(m["hits"].as_u64().unwrap() + m["misses"].as_u64().unwrap(), flows, "{mode}: every connection looked its peer up once: {m}");
        assert!(m["hit_rate"].as_f64().is_some() && m["mean_fct_ms"].as_f64().unwrap() > 0.0, "{m}");
        let (ideal, bound, mean) = (m["ideal_mean_fct_ms"].as_f64().unwrap(), m["bound_mean_fct_ms"].as_f64().unwrap(), m["mean_fct_ms"].as_f64().unwrap());
        assert!(0.0 < ideal && ideal <= bound && bound <= mean, "{mode}: no flow beats its empty path's time: {m}");
        assert_eq!(rows.lines().filter(|l| l.starts_with(&format!("{mode},"))).count() as u64, flows);
    }
    let agents = &summary["fleet"]["agents"];
    assert!(agents["published"].as_u64().unwrap() >= 1 && agents["applied"].as_u64().unwrap() >= 1, "the agents shared the servers' stores: {agents}");
    assert_eq!(agents["errors"].as_u64(), Some(0), "{agents}");
    assert!(summary["per_host"].get("agents").is_none(), "no agents without the fleet");
    // The cluster's nodes, by the config files the lab gave them: all stopped.
    let ports: Vec<String> = std::fs::read_dir(&out).unwrap().flatten().filter_map(|e| e.file_name().to_string_lossy().strip_prefix("redis-nodes-").and_then(|r| r.strip_suffix(".conf")).map(String::from)).collect();
    assert_eq!(ports.len(), 3, "a 3-node cluster ran");
    let mut patterns = vec!["fleet run --redis redis://127.0.0.1".to_string()];
    patterns.extend(ports.iter().map(|p| format!("redis-server 127.0.0.1:{p}")));
    for process in patterns {
        let left = Command::new("pgrep").args(["-f", &process]).output().unwrap();
        assert!(left.stdout.is_empty(), "left running: {}", String::from_utf8_lossy(&left.stdout));
    }
}

/// The lab's queue disciplines on the real kernel: CoDel marking ECN-capable packets
/// keeps a 400 ms buffer's queue short with nothing dropped (the clients ask for ECN and
/// the server's Cubic answers the echoes); each client has its own RTT across the one
/// bottleneck; every data packet's queueing and every retransmission are recorded.
#[test]
fn codel_marks_ecn_and_clients_keep_their_own_rtts() {
    let t = TempDir::new("aqm");
    let out = run_experiment(
        &t,
        "codel",
        r#"
        packet_series = true
        [link]
        rate = "20mbit"
        rtt = "20ms"
        buffer = "1mb"
        aqm = "codel"
        ecn = true
        client_rtts = ["20ms", "120ms"]
        [workload]
        kind = "competing"
        cc = ["cubic"]
        flows = [{ start = "0s", size = "12m" }, { start = "1s", size = "8m" }]
        "#,
        &[],
    );
    let rows = measured(&out);
    assert_eq!(rows.len(), 2);
    let rtt: Vec<f64> = rows.iter().map(|r| r.min_rtt_ms.unwrap()).collect();
    assert!((19.0..26.0).contains(&rtt[0]) && (119.0..130.0).contains(&rtt[1]), "per-client RTTs: {rtt:?}");
    for r in &rows {
        assert!(r.marked_ce.unwrap() > 0, "CoDel marked: {r:?}");
        // Marks, not drops: only a packet that cannot carry the mark (a bare FIN, not
        // ECN-capable) may be dropped, and only it retransmitted.
        assert!(r.drops_aqm.unwrap() <= 1 && r.drops_buffer == Some(0), "marks, not drops: {r:?}");
        assert!(r.retrans.unwrap() as u64 <= r.drops_aqm.unwrap(), "nothing else to retransmit: {r:?}");
        // A drop-tail 1 MB buffer at 20 Mbit/s holds 400 ms; CoDel aims at 5 ms.
        assert!(r.queue_delay_mean_ms.unwrap() < 40.0, "CoDel kept the queue short: {r:?}");
    }
    let packets = std::fs::read_to_string(out.join("packets.csv")).unwrap();
    let per_flow = |i: &str| packets.lines().filter(|l| l.split(',').next() == Some(i)).count();
    assert!(per_flow("0") > 8000 && per_flow("1") > 5000, "every data packet recorded");
    assert!(out.join("queue_per_packet.png").exists() && out.join("retransmissions.csv").exists());
}

/// `lab reproduce`: the list, a clear error for an unknown figure, and one quick
/// reproduction end to end (S-Cubic Fig. 4: Cache+'s unpaced jump of a cached window
/// overflows the bottleneck, which the paper shows and the lab must show too).
#[test]
fn reproduce_sets_the_papers_numbers_beside_the_labs() {
    let _state = common::Fresh::new("reproduce");
    let list = ok(&["lab", "reproduce", "--list"]);
    let ids = list.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| ID")).count();
    assert!(ids >= 20, "{ids} reproductions:\n{list}");
    assert!(list.contains("Not reproducible in the lab"));
    fails(&["lab", "reproduce", "s-cubic-fig99"], "no reproduction 's-cubic-fig99'");
    let t = TempDir::new("reproduce");
    let out = t.path().join("fig4");
    ok(&["lab", "reproduce", "s-cubic-fig4", "--quick", "--quiet", "--out", out.to_str().unwrap()]);
    let csv = std::fs::read_to_string(out.join("comparison.csv")).unwrap();
    let drops = csv.lines().find(|l| l.contains("\"cache_plus\",\"bottleneck drops")).unwrap_or_else(|| panic!("{csv}"));
    assert!(drops.ends_with(",agrees"), "Cache+ overflowed the bottleneck: {drops}");
    for f in ["comparison.md", "comparison.png", "comparison.jsonl", "8m/flows.jsonl", "8m/cwnd.png"] {
        assert!(out.join(f).exists(), "{f}");
    }
    // The comparison controllers went with the run.
    let avail = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_available_congestion_control").unwrap();
    assert!(!avail.contains("cache_plus") && !avail.contains("jump_start"), "{avail}");
}

/// Traffic both ways: a reverse flow (the client sending to the server) shares the
/// 5 Mbit/s uplink with the forward flow's ACKs, and takes as long as that rate says.
#[test]
fn reverse_flows_send_through_the_uplink_beside_the_acks() {
    let t = TempDir::new("reverse");
    let out = run_experiment(
        &t,
        "reverse",
        r#"
        [link]
        rate = "20mbit"
        rtt = "40ms"
        uplink_delay = "30ms"
        uplink_rate = "5mbit"
        [workload]
        kind = "competing"
        cc = ["cubic"]
        flows = [{ start = "0s", size = "4m" }, { start = "0s", size = "2m", reverse = true }]
        "#,
        &["--no-plot"],
    );
    let rows = headstart_lab::report::read_rows(&out).unwrap();
    assert_eq!(rows.iter().map(|r| r.role.as_str()).collect::<Vec<_>>(), ["measured", "reverse"]);
    assert!(rows.iter().all(|r| r.error.is_none()), "{rows:?}");
    let (fwd, rev) = (&rows[0], &rows[1]);
    // 2 MB at 5 Mbit/s is 3.4 s on the wire (plus headers and a slow start).
    let rev_s = rev.fct_s.unwrap();
    assert!((3.4..8.0).contains(&rev_s), "the reverse flow went at the uplink's rate: {rev_s} s");
    // The RTT is the two delays together, whatever their split.
    assert!((39.0..60.0).contains(&fwd.min_rtt_ms.unwrap()), "{fwd:?}");
}
