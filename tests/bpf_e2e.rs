//! Privileged end-to-end tests of the kernel side: registering headstart's congestion
//! controls in the running kernel, the pinned path table and its CLI, and s_cubic's
//! stateful start measured through the lab. Root, one at a time (`--test-threads=1`).
//!
//! These tests own headstart's global BPF state while they run: each holds a
//! `common::Fresh`, which purges it before and after and restores the sysctls.

mod common;

use common::{counter, fails, hs, measured, run_ok as ok, status, unflagged, unflagged_unless, Fresh, TestNetns, BIN, DEFAULT_CC};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn sysctl(name: &str) -> String {
    std::fs::read_to_string(format!("/proc/sys/net/ipv4/{name}")).unwrap()
}

#[test]
fn load_status_unload_and_the_default_reset() {
    let _f = Fresh::new("load");
    assert!(!sysctl("tcp_available_congestion_control").contains("s_cubic"));
    assert!(ok(&["load"]).contains("s_cubic"));
    assert!(sysctl("tcp_available_congestion_control").contains("s_cubic"));
    assert!(sysctl("tcp_allowed_congestion_control").contains("s_cubic"));
    assert!(ok(&["load"]).contains("already loaded"), "load is idempotent");
    let st = status();
    let loaded: Vec<&str> = st["controllers"].as_array().unwrap().iter().filter(|c| c["loaded"] == true).map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(loaded, ["s_cubic", "s_bbr", "suss"], "{st}");
    assert_eq!(st["table"]["capacity"], 1048576, "default table size: {st}");
    // `load` writes the knobs' defaults: the controllers never run on an unwritten record.
    assert_eq!(st["knobs"]["mode"], "on", "{st}");
    assert_eq!(st["knobs"]["rwnd_override"], "on", "{st}");
    assert!(ok(&["status"]).contains("path table: 0 of 1048576 entries"), "the text form too");

    // A default that names s_cubic is reset before it goes.
    std::fs::write(DEFAULT_CC, "s_cubic").unwrap();
    ok(&["unload"]);
    assert_eq!(sysctl("tcp_congestion_control").trim(), "cubic");
    assert!(!sysctl("tcp_available_congestion_control").contains("s_cubic"));
    assert!(!sysctl("tcp_allowed_congestion_control").contains("s_cubic"));
    fails(&["load", "nosuchcc"], "unknown headstart controller");
    fails(&["load", "--table-size", "10"], "table size");
}

#[test]
fn path_table_cli_round_trip_and_refusals() {
    let f = Fresh::new("table");
    ok(&["load", "--table-size", "2048"]);
    ok(&["table", "set", "10.1.2.3", "--bw", "100mbit", "--rtt", "50ms"]);
    ok(&["table", "set", "2001:db8::7", "--bw", "1gbit", "--rtt", "20ms"]);
    let got = ok(&["table", "get", "10.1.2.3"]);
    assert!(got.contains("12500000 B/s") && got.contains("50.000 ms"), "{got}");
    let got: serde_json::Value = serde_json::from_str(&ok(&["table", "get", "10.1.2.3", "--json"])).unwrap();
    assert_eq!((got["bw_bytes_per_s"].as_u64(), got["min_rtt_us"].as_u64(), got["source"].as_str()), (Some(12_500_000), Some(50_000), Some("user")));
    assert!(ok(&["table", "get", "2001:db8::7"]).contains("20.000 ms"), "full IPv6 keys");
    fails(&["table", "get", "10.9.9.9"], "not in the path table");
    fails(&["table", "get", "not-an-address"], "not an IPv4 or IPv6 address");
    fails(&["table", "set", "10.1.2.4", "--bw", "0", "--rtt", "5ms"], "too low");

    let saved = f.path("table.json");
    assert!(ok(&["table", "save", saved.to_str().unwrap()]).contains("saved 2 entries"));
    // State survives unload and load.
    ok(&["unload"]);
    ok(&["load"]);
    assert!(ok(&["table", "list"]).contains("2 entries"));

    // A corrupted file is refused whole: the table is unchanged (ages aside).
    let table_now = || -> Vec<String> {
        ok(&["table", "list", "--json"])
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                format!("{} {} {}", v["peer"], v["bw_bytes_per_s"], v["min_rtt_us"])
            })
            .collect()
    };
    let before = table_now();
    let text = std::fs::read_to_string(&saved).unwrap();
    let corrupt = f.path("corrupt.json");
    for bad in [
        text.replacen("10.1.2.3", "10.1.2.300", 1),
        text.replacen("\"min_rtt_us\": 50000", "\"min_rtt_us\": 0", 1),
        text[..text.len() / 2].to_string(),
        "garbage".to_string(),
    ] {
        std::fs::write(&corrupt, bad).unwrap();
        fails(&["table", "restore", corrupt.to_str().unwrap()], "table unchanged");
        assert_eq!(table_now(), before, "a refused restore changed the table");
    }
    fails(&["table", "restore", "/nonexistent/file.json"], "cannot read");

    // Flush, then restore brings both back.
    assert!(ok(&["table", "flush"]).contains("removed 2"));
    assert!(ok(&["table", "restore", saved.to_str().unwrap()]).contains("restored 2 entries"));
    assert!(ok(&["table", "get", "2001:db8::7"]).contains("1.000gbit"));
    ok(&["table", "forget", "10.1.2.3"]);
    fails(&["table", "forget", "10.1.2.3"], "not in the path table");

    // Knobs: the operator's, and the lab's apart from them.
    assert!(ok(&["config", "max_age_s=600", "rwnd_override=off"]).contains("max_age_s = 600"));
    assert!(ok(&["config"]).contains("rwnd_override = off"));
    fails(&["config", "bogus=1"], "unknown knob");
    fails(&["config", "max_start_cwnd=5"], "max_start_cwnd");
    fails(&["config", "bw_scale_pct=50"], "unknown knob");
    // One bad assignment among good ones writes none of them.
    fails(&["config", "rwnd_override=on", "ipv6_prefix_len=129"], "ipv6_prefix_len");
    let knobs: serde_json::Value = serde_json::from_str(&ok(&["config", "--json"])).unwrap();
    assert_eq!((knobs["rwnd_override"].as_str(), knobs["max_age_s"].as_str()), (Some("off"), Some("600")), "{knobs}");
    assert!(knobs.as_object().unwrap().len() <= 12, "an operator's knobs: {knobs}");
    assert!(ok(&["lab", "knobs", "bw_scale_pct=50", "freeze=on"]).contains("bw_scale_pct=50"));
    fails(&["lab", "knobs", "freeze=off", "suss_k_max=9"], "suss_k_max");
    let lab: serde_json::Value = serde_json::from_str(&ok(&["lab", "knobs", "--json"])).unwrap();
    assert_eq!((lab["freeze"].as_str(), lab["bw_scale_pct"].as_str()), (Some("on"), Some("50")), "{lab}");
    assert!(ok(&["lab", "knobs", "--reset"]).contains("freeze=off"));
}

/// The pin directory, the save file and restore: what a local user or an interrupted
/// restore could do to root's state (issue 13's security cases).
#[test]
fn untrusted_pin_directory_is_refused() {
    let _f = Fresh::new("pindir");
    let dir = "/sys/fs/bpf/headstart";
    // A local user made it first (the bpffs root is world-writable with the sticky bit).
    std::fs::create_dir(dir).unwrap();
    let cleanup = || {
        let _ = std::fs::remove_dir(dir);
    };
    std::os::unix::fs::chown(dir, Some(65534), Some(65534)).unwrap();
    let refused = |needle: &str| {
        let out = hs(&["load"]);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        (out.status.code() == Some(1) && err.contains(needle) && err.trim().lines().count() == 1, err)
    };
    let (ok1, err1) = refused("not root");
    std::os::unix::fs::chown(dir, Some(0), Some(0)).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let (ok2, err2) = refused("writable by group or others");
    let registered = sysctl("tcp_available_congestion_control").contains("s_cubic");
    cleanup();
    assert!(ok1, "a directory owned by another user: {err1}");
    assert!(ok2, "a world-writable directory: {err2}");
    assert!(!registered, "nothing registered from an untrusted directory");
    // Made by headstart itself: root's, 0700.
    ok(&["load", "s_cubic"]);
    let md = std::fs::metadata(dir).unwrap();
    assert_eq!(md.permissions().mode() & 0o777, 0o700);
}

#[test]
fn table_save_is_private_and_never_follows_a_planted_name() {
    let f = Fresh::new("save");
    ok(&["load", "s_cubic"]);
    ok(&["table", "set", "10.1.2.3", "--bw", "100mbit", "--rtt", "50ms"]);
    let victim = f.path("victim");
    std::fs::write(&victim, "precious").unwrap();
    let saved = f.path("table.json");
    // The temporary name the old code wrote through.
    std::os::unix::fs::symlink(&victim, f.path("table.tmp-headstart")).unwrap();
    ok(&["table", "save", saved.to_str().unwrap()]);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious", "the save wrote through a planted symlink");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&saved).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the save file lists client addresses: owner-only");
    let leftovers: Vec<_> = std::fs::read_dir(&f.dir).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".tmp")).collect();
    assert!(leftovers.is_empty(), "no temporary file left: {leftovers:?}");
}

fn saved_table(saved_unix_s: u64, entries: &[(&str, u64, f64)]) -> String {
    let e: Vec<String> = entries
        .iter()
        .map(|(peer, bw, age)| format!(r#"{{"peer":"{peer}","bw_bytes_per_s":{bw},"min_rtt_us":50000,"flows":1,"age_s":{age},"source":"s_cubic"}}"#))
        .collect();
    table_file(saved_unix_s, &e)
}

/// A `table save` file holding `entries` (each one entry's JSON).
fn table_file(saved_unix_s: u64, entries: &[String]) -> String {
    format!(r#"{{"format":"headstart-path-table","version":1,"saved_unix_s":{saved_unix_s},"entries":[{}]}}"#, entries.join(","))
}

/// `table get --json` of the lab's peer (10.77.1.1).
fn lab_peer_entry() -> serde_json::Value {
    serde_json::from_str(&ok(&["table", "get", "10.77.1.1", "--json"])).unwrap()
}

fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
}

fn table_peers() -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = ok(&["table", "list", "--json"])
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (v["peer"].as_str().unwrap().to_string(), v["bw_bytes_per_s"].as_u64().unwrap())
        })
        .collect();
    v.sort();
    v
}

#[test]
fn table_restore_is_all_or_nothing_replaces_or_merges_and_ages_by_the_wall_clock() {
    let f = Fresh::new("restore");
    ok(&["load", "s_cubic", "--table-size", "1024"]);
    ok(&["table", "set", "10.0.0.1", "--bw", "8mbit", "--rtt", "50ms"]);
    ok(&["table", "set", "10.0.0.2", "--bw", "8mbit", "--rtt", "50ms"]);
    let file = f.path("t.json");
    let now = unix_now();

    // One peer written twice (mapped and plain IPv4): refused whole.
    std::fs::write(&file, saved_table(now, &[("10.0.0.9", 5000, 1.0), ("::ffff:10.0.0.9", 6000, 1.0)])).unwrap();
    fails(&["table", "restore", file.to_str().unwrap()], "duplicate peer");

    // More than fits once merged (the LRU would evict): refused, table unchanged.
    let many: Vec<String> = (0..1023).map(|i| format!("10.9.{}.{}", i / 250, i % 250 + 1)).collect();
    let rows: Vec<(&str, u64, f64)> = many.iter().map(|p| (p.as_str(), 1000, 1.0)).collect();
    std::fs::write(&file, saved_table(now, &rows)).unwrap();
    let before = table_peers();
    fails(&["table", "restore", "--merge", file.to_str().unwrap()], "do not fit");
    assert_eq!(table_peers(), before);

    // Merge: the live newer entry wins, other live entries stay, an entry saved two
    // hours ago (older than max_age_s, 3600 s) by the wall clock is dropped.
    std::fs::write(&file, saved_table(now - 7200, &[("10.0.0.1", 1000, 60.0), ("10.0.0.3", 2000, 60.0)])).unwrap();
    let r: serde_json::Value = serde_json::from_str(&ok(&["table", "restore", "--merge", "--json", file.to_str().unwrap()])).unwrap();
    assert_eq!((r["restored"].as_u64(), r["expired"].as_u64()), (Some(0), Some(2)), "{r}");
    std::fs::write(&file, saved_table(now - 60, &[("10.0.0.1", 1000, 60.0), ("10.0.0.3", 2000, 10.0)])).unwrap();
    let r: serde_json::Value = serde_json::from_str(&ok(&["table", "restore", "--merge", "--json", file.to_str().unwrap()])).unwrap();
    assert_eq!((r["restored"].as_u64(), r["newer_live"].as_u64()), (Some(1), Some(1)), "{r}");
    assert_eq!(table_peers(), vec![("10.0.0.1".into(), 1_000_000), ("10.0.0.2".into(), 1_000_000), ("10.0.0.3".into(), 2000)]);
    let age = serde_json::from_str::<serde_json::Value>(&ok(&["table", "get", "10.0.0.3", "--json"])).unwrap()["age_s"].as_f64().unwrap();
    assert!((65.0..=80.0).contains(&age), "aged by the time on disk too: {age}");

    // Replace (the default): the file becomes the table.
    std::fs::write(&file, saved_table(now, &[("10.0.0.7", 3000, 1.0)])).unwrap();
    let r: serde_json::Value = serde_json::from_str(&ok(&["table", "restore", "--json", file.to_str().unwrap()])).unwrap();
    assert_eq!((r["restored"].as_u64(), r["removed"].as_u64()), (Some(1), Some(3)), "{r}");
    assert_eq!(table_peers(), vec![("10.0.0.7".into(), 3000)]);
}

/// The default lab path (100 Mbit/s, 50 ms) unless `extra` names its own RTT.
fn sweep_args<'a>(out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["lab", "sweep", "--rate", "100mbit", "--quiet", "--no-plot", "--out", out];
    if !extra.contains(&"--rtt") {
        args.extend(["--rtt", "50ms"]);
    }
    if !extra.contains(&"--reps") {
        args.extend(["--reps", "1"]);
    }
    args.extend_from_slice(extra);
    args
}

fn sweep(out: &Path, extra: &[&str]) {
    ok(&sweep_args(out.to_str().unwrap(), extra));
}

/// A sweep whose checks are rates or times: after `setup`, repeated from a purged state
/// when the emulator flags it (common::unflagged).
fn rate_sweep(f: &Fresh, name: &str, setup: &[&[&str]], extra: &[&str]) -> PathBuf {
    unflagged(f, name, setup, &sweep_args("{out}", extra))
}

#[test]
fn s_cubic_starts_warm_flows_at_the_path_rate() {
    let f = Fresh::new("warm");
    let out = rate_sweep(&f, "warm", &[&["load"]], &["--cc", "cubic,s_cubic", "--warm", "--sizes", "1m,4m", "--reps", "3"]);
    let rows = measured(&out);
    // Three warm flows per size, judged by their medians (Ω, what they stored) and by two
    // of three validated: one flow in about 20 misses one of these alone. A flow whose ACKs stalled
    // ~5 ms on their way, then came back 1 us apart, stores 6-19 % over the link (eq. 7
    // takes the stall out with the one ACK that ends it, and the compressed ACKs behind
    // it bring the bytes that crossed in it); a jump on such an entry can retreat by
    // the rate test; a jump can end rate limited. With one flow per size this test
    // failed twice in make test runs on 2026-11-26 (BENCHMARKS.md at 3c45a21, Issue 12).
    let every = || {
        let all = headstart_lab::report::read_rows(&out).unwrap();
        let flows: Vec<_> = all.iter().filter(|r| r.cc == "s_cubic").map(|r| (r.role.as_str(), r.size, r.resume.as_deref(), r.jump_cwnd, r.table_bw_mbps, r.omega)).collect();
        format!("s_cubic flows (role, size, resume, jump, stored, Ω): {flows:?}; {}", common::run_context(&out))
    };
    let median = |mut v: Vec<f64>| headstart_lab::metrics::median(&mut v);
    for size in [1u64 << 20, 4 << 20] {
        let warm: Vec<_> = rows.iter().filter(|r| r.cc == "s_cubic" && r.size == size).collect();
        assert_eq!(warm.len(), 3, "{}", every());
        let omega = median(warm.iter().map(|r| r.omega.unwrap()).collect());
        assert!(omega > 0.9, "warm s_cubic {size} B: median Ω {omega}; {}", every());
        // Careful Resume: the jump was validated (no congestion before the last of its packets was acked).
        let validated: Vec<_> = warm.iter().filter(|r| r.resume.as_deref() == Some("validated")).collect();
        assert!(validated.len() >= 2, "warm s_cubic {size} B: {} of 3 validated; {}", validated.len(), every());
        // The window override kept the receiver's first window out of the way while it
        // lasted (until validation). After it, the receiver's own window governs, and
        // autotuning can hold a flow back for tens of ms, kernel cubic's too (44 and
        // 56 ms in 2 of 12 cubic flows of this sweep): not this check's business. A jump
        // may go without it (None): on 2026-11-27 one 4 MB flow's handshake read 58.4 ms
        // (8 ms of emulator lateness) and the busy-bottleneck rule refused it; it still
        // validated. Relaxed from "every validated flow had it" with that cause.
        let with_override: Vec<_> = validated.iter().filter(|r| r.override_rwnd_limited_ms.is_some()).collect();
        assert!(!with_override.is_empty(), "warm s_cubic {size} B: no validated jump had the override; {}", every());
        for r in &with_override {
            assert_eq!(r.override_rwnd_limited_ms, Some(0.0), "{r:?}");
        }
        // GCBE stored the bottleneck rate: 100 Mbit/s of packets is 96.5 of payload.
        let bw = median(warm.iter().map(|r| r.table_bw_mbps.unwrap()).collect());
        assert!((87.0..=106.0).contains(&bw), "warm s_cubic {size} B: median stored {bw} Mbit/s; {}", every());
    }
    for r in rows.iter().filter(|r| r.cc == "cubic") {
        assert!(r.omega.unwrap() < 0.7, "kernel cubic pays for slow start: {r:?}");
        assert!(r.table_bw_mbps.is_none(), "kernel cubic stores nothing");
    }
    let st = status();
    // The sweep's primer (cold) and three warm-up/measured pairs per size.
    assert_eq!(counter(&st, "s_cubic", "flows"), 13);
    assert!(counter(&st, "s_cubic", "hits") >= 12, "{st}");
    assert!(counter(&st, "s_cubic", "stores") >= 12, "{st}");
    assert_eq!(ok(&["table", "list", "--json"]).lines().count(), 1, "one peer, one entry");
}

#[test]
fn s_cubic_cold_flows_start_as_suss_and_without_it_as_kernel_cubic() {
    let f = Fresh::new("cold");
    // A first contact grows as SUSS does, the receiver's window opened for its rounds
    // above 2x. What that buys against cubic is a benchmark's (RESULTS.md, "SUSS on a
    // miss"); here, that it runs in the kernel, past the receiver's opening window (the
    // tc program raised it), and that the receiver discarded nothing.
    let out = rate_sweep(&f, "suss", &[&["load"]], &["--cc", "s_cubic", "--sizes", "1m", "--reps", "3", "--rtt", "100ms"]);
    let rows = measured(&out);
    assert_eq!(rows.len(), 3, "{rows:?}");
    for r in &rows {
        assert_eq!(r.resume.as_deref(), Some("misses"), "{r:?}");
        assert_eq!(r.beyond_window, Some(0), "the receiver discarded nothing: {r:?}");
    }
    let st = status();
    assert_eq!(counter(&st, "s_cubic", "suss_starts"), 3, "SUSS started every first contact: {st}");
    assert!(counter(&st, "suss", "accelerated_rounds") >= 6, "two rounds above 2x a flow, the second past the receiver's 64 KB: {st}");
    assert!(st["rwnd_rewrites"].as_u64().is_some_and(|n| n > 0), "the receiver's window was raised for them: {st}");
    assert_eq!(counter(&st, "s_cubic", "hits"), 0, "every measured flow started cold: {st}");

    // `suss` off: the kernel's Cubic. Medians of 4: a cold 1 MB flow's FCT moves with
    // where HyStart ends its slow start, which a few ms of emulator delay shifts, and
    // the mean of 2 read s_cubic 6.1 % over cubic once (make test, 2026-11-26; 0.442
    // against 0.416 s), with the same code path.
    let out = rate_sweep(&f, "off", &[&["load"], &["lab", "knobs", "suss=off"]], &["--cc", "cubic,s_cubic", "--sizes", "64k,1m", "--reps", "4"]);
    let rows = measured(&out);
    for size in [65536u64, 1 << 20] {
        let fct = |cc: &str| {
            let mut v: Vec<f64> = rows.iter().filter(|r| r.cc == cc && r.size == size).map(|r| r.fct_s.unwrap()).collect();
            assert_eq!(v.len(), 4, "{cc} {size} B: {v:?}");
            headstart_lab::metrics::median(&mut v)
        };
        let (c, s) = (fct("cubic"), fct("s_cubic"));
        assert!((s / c - 1.0).abs() < 0.05, "{size} B cold, suss off: cubic {c} s, s_cubic {s} s");
    }
    let st = status();
    assert_eq!(counter(&st, "s_cubic", "suss_starts"), 0, "no SUSS with its knob off: {st}");
    assert_eq!(counter(&st, "s_cubic", "misses"), 8);
}

/// What a run's cold 1 MB flows stored, sorted, leaving out the flows whose slow start
/// ended with nothing lost (ssthresh set, no retransmission): the kernel's HyStart
/// stopped them on a delay signal, and behind aggregated ACKs a delay of a few ms in
/// the sender can shift a round's ACKs to the next release and fire it (one flow of
/// five in a run at 8 ms, 2026-11-23: ssthresh 28, 1.14 s, stored 17 Mbit/s; none in
/// 80 flows of cubic and s_cubic right after). Such a flow never ran at the link's
/// rate, so no estimator can read the link from it. At least three must remain. The
/// second value is the run's counters and rows, for a failure message.
fn stored_after_full_slow_starts(out: &Path) -> (Vec<f64>, String) {
    let rows = measured(out);
    let ctx = format!(
        "{}; flows (stored Mbit/s, ssthresh, retrans): {:?}",
        common::run_context(out),
        rows.iter().map(|r| (r.table_bw_mbps, r.final_ssthresh, r.retrans)).collect::<Vec<_>>()
    );
    let stopped_early = |r: &headstart_lab::metrics::FlowRow| r.final_ssthresh.is_some_and(|s| s < i32::MAX as u32) && r.retrans == Some(0);
    let mut v: Vec<f64> = rows
        .iter()
        .filter(|r| !stopped_early(r))
        // What status counted (a discard? a skip?) goes in the message.
        .map(|r| r.table_bw_mbps.unwrap_or_else(|| panic!("no entry after {r:?}; status {}; {ctx}", status())))
        .collect();
    v.sort_by(|a, b| a.total_cmp(b));
    assert!(v.len() >= 3, "HyStart stopped {} of {} flows early: {ctx}", rows.len() - v.len(), rows.len());
    (v, ctx)
}

#[test]
fn s_cubic_reads_the_link_through_aggregated_acks() {
    // ACKs released every 16 ms (Wi-Fi, LTE uplinks): a cold 1 MB flow's first rounds come
    // back as one burst each. Read ACK by ACK, GCBE stored 73-75 Mbit/s of the 96.5 of
    // payload; the burst view's busy aggregation intervals read the link (RESULTS.md,
    // aggregation: the control, the ACKs alone, read below 85 in every run).
    // The kernel's slow start, SUSS off: GCBE's subject. A first contact's SUSS rounds
    // behind 16 ms of aggregation stored 37 Mbit/s (RESULTS.md, SUSS on a miss).
    let f = Fresh::new("agg");
    let lab = ["--cc", "s_cubic", "--sizes", "1m", "--reps", "5", "--ack-aggregation", "16ms"];
    // Twice in make test runs on 2026-11-23 (20:02, 20:09 UTC) this failed with 3 flows:
    // once a flow left no entry, once the median read 74.6 ([56.3, 74.6, 96.9]). Flows
    // HyStart stopped early are now left out (stored_after_full_slow_starts).
    let (on, ctx) = stored_after_full_slow_starts(&rate_sweep(&f, "agg-on", &[&["load"], &["lab", "knobs", "suss=off"]], &lab));
    let median = |v: &[f64]| v[(v.len() - 1) / 2];
    assert!((87.0..=106.0).contains(&median(&on)), "16 ms ACK aggregation: stored {on:?} Mbit/s; {ctx}");
    let st = status();
    assert_eq!(counter(&st, "s_cubic", "misses"), 5, "every flow started cold: {st}");
}

#[test]
fn s_bbr_reads_the_link_through_aggregated_acks() {
    // BBR's STARTUP paces a smooth ramp; behind 4 ms of ACK aggregation a cold 1 MB flow
    // runs at the link's rate only in its last releases: BBR's estimate reads the ramp
    // (71-79 Mbit/s of 96.5), GCBE's cycles do in two flows of three. The fastest release on the grid, bounded
    // by its send rate, reads the link (gcbe.h's grid peak; BENCHMARKS.md at 3c45a21, Issue 12).
    // 4 ms, not 8: at 8 ms 1 flow in 15 read below -20 % (73.6) and 2 more within
    // 1.5 Mbit/s of it, so a median of 3 would miss in a few runs in a hundred; at
    // 4 ms the lowest of 14 read 83.7.
    let f = Fresh::new("aggbbr");
    let lab = ["--cc", "s_bbr", "--sizes", "1m", "--reps", "3", "--ack-aggregation", "4ms"];
    // BBR has no HyStart: every flow counts.
    let (on, ctx) = stored_after_full_slow_starts(&rate_sweep(&f, "on", &[&["load"]], &lab));
    assert!(on.len() == 3 && (77.2..=115.8).contains(&on[1]), "4 ms ACK aggregation: s_bbr stored {on:?} Mbit/s (the link: 96.5); {ctx}");
    // BBR's estimate alone read 71.3-79.3 in 24 of 24 flows (2026-11-26, RESULTS.md,
    // aggregation), while every run with GCBE's burst view had a flow at 95 or more.
    assert!(on[2] >= 85.0, "with the burst view a flow reads the link: {on:?} Mbit/s; {ctx}");
    let st = status();
    assert_eq!(counter(&st, "s_bbr", "misses"), 3, "every flow started cold: {st}");
}

#[test]
fn without_the_window_override_the_first_rtt_is_capped_by_the_receiver() {
    let f = Fresh::new("norwnd");
    ok(&["load"]);
    let out = f.path("norwnd");
    sweep(&out, &["--cc", "s_cubic", "--warm", "--sizes", "512k", "--no-rwnd"]);
    let r = &measured(&out)[0];
    // The kernel says the receiver's window held the sender back (TCP_INFO), while the
    // jump's window was larger than the ~64 KB a Linux receiver opens with.
    assert!(r.jump_cwnd.is_some_and(|j| j > 45), "it jumped: {r:?}");
    assert!(r.rwnd_limited_ms.is_some_and(|ms| ms > 0.0), "a ~64 KB first window limits a 512 KB start: {r:?}");
    // The controller still asked for the override (no tc program acted on it).
    assert!(r.override_rwnd_limited_ms.is_some_and(|ms| ms > 0.0), "{r:?}");
}

/// An IPv6 peer's entry is its /64's (knob ipv6_prefix_len): every address of the
/// client's /64 finds it, the next /64 does not; at 128 the key is the whole address.
/// A saved table whose peers share a prefix restores as one entry, the newest.
#[test]
fn ipv6_peers_are_keyed_by_their_prefix() {
    let f = Fresh::new("ipv6");
    let peers = || -> Vec<String> {
        ok(&["table", "list", "--json"]).lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["peer"].as_str().unwrap().to_string()).collect()
    };
    // A 1 MB warm-up gives GCBE several cycles: the subject here is the IPv6 key, not
    // how well one short flow estimates (a 256 KB warm-up once stored 57 Mbit/s).
    let lab = ["--cc", "s_cubic", "--warm", "--warm-size", "1m", "--ipv6", "--sizes", "256k"];
    let out = rate_sweep(&f, "v6", &[&["load"]], &lab);
    let r = &measured(&out)[0];
    assert!(r.jump_cwnd.is_some_and(|j| j > 0) && r.resume.as_deref() == Some("validated"), "the warm flow jumped from the /64's entry: {r:?}");
    assert!(r.table_bw_mbps.is_some(), "the lab finds the client's entry: {r:?}");
    assert_eq!(peers(), vec!["fd77:0:1::"], "the client fd77:0:1:0::1 is keyed by its /64");
    let got = ok(&["table", "get", "fd77:0:1:0:abcd::7"]);
    assert!(got.contains("from s_cubic") && got.contains("fd77:0:1::"), "another address of the /64: {got}");
    fails(&["table", "get", "fd77:0:1:1::1"], "not in the path table");
    fails(&["table", "get", "10.77.1.1"], "not in the path table");

    let out = rate_sweep(&f, "v6-whole", &[&["load"], &["config", "ipv6_prefix_len=128"]], &lab);
    assert!(measured(&out)[0].table_bw_mbps.is_some());
    assert_eq!(peers(), vec!["fd77:0:1::1"], "whole addresses at 128");
    fails(&["table", "get", "fd77:0:1::2"], "not in the path table");

    ok(&["config", "ipv6_prefix_len=64"]);
    let e = |peer: &str, bw: u64, age: f64| format!(r#"{{"peer":"{peer}","bw_bytes_per_s":{bw},"min_rtt_us":50000,"flows":1,"age_s":{age},"source":"user"}}"#);
    let file = f.path("same-prefix.json");
    std::fs::write(&file, table_file(unix_now(), &[e("2001:db8:5:5::1", 1_000_000, 30.0), e("2001:db8:5:5::2", 2_000_000, 3.0), e("2001:db8:5:6::1", 3_000_000, 3.0)])).unwrap();
    let r: serde_json::Value = serde_json::from_str(&ok(&["table", "restore", "--json", file.to_str().unwrap()])).unwrap();
    assert_eq!((r["restored"].as_u64(), r["folded"].as_u64()), (Some(2), Some(1)), "{r}");
    let got: serde_json::Value = serde_json::from_str(&ok(&["table", "get", "2001:db8:5:5::1", "--json"])).unwrap();
    assert_eq!((got["peer"].as_str(), got["bw_bytes_per_s"].as_u64()), (Some("2001:db8:5:5::"), Some(2_000_000)), "the newest of the /64: {got}");
}

#[test]
fn ten_thousand_peers_through_a_small_table() {
    let f = Fresh::new("peers");
    ok(&["load", "--table-size", "1024"]);
    // This test is about the table, not the estimator: no noise floor, so that the
    // short flows below all store.
    ok(&["lab", "knobs", "gcbe_min_span_us=0"]);
    let toml = f.path("peers.toml");
    std::fs::write(
        &toml,
        r#"
        [link]
        rate = "200mbit"
        rtt = "10ms"
        [workload]
        kind = "poisson"
        cc = ["s_cubic"]
        mean_size = "16k"
        utilization = 0.3
        flows = 10000
        clients = 2
        peers_per_client = 5000
        "#,
    )
    .unwrap();
    let out = f.path("out");
    ok(&["lab", "run", toml.to_str().unwrap(), "--quiet", "--no-plot", "--out", out.to_str().unwrap()]);
    let rows = measured(&out);
    assert_eq!(rows.len(), 10000);
    assert!(rows.iter().all(|r| r.error.is_none()), "every flow completed");
    let peers: std::collections::HashSet<&str> = rows.iter().map(|r| r.peer.as_str()).collect();
    assert_eq!(peers.len(), 10000, "10,000 distinct peers");
    let st = status();
    // Measured: 20-35 of 10,000 sockets reach `release` without the kernel ever
    // calling `init` (no SYN cookies, no listen overflows); they run as plain Cubic.
    let flows = counter(&st, "s_cubic", "flows");
    assert!((9950..=10000).contains(&flows), "{flows} of 10000 flows ran s_cubic's init: {st}");
    assert!(counter(&st, "s_cubic", "stores") > 9000, "{st}");
    let entries = ok(&["table", "list", "--json"]).lines().count();
    assert!((500..=1024).contains(&entries), "LRU keeps the table within its 1024 entries: {entries}");
    // The count `status` and `metrics` give is the kernel's (no walk), evictions included.
    assert_eq!(status()["table"]["entries"].as_u64(), Some(entries as u64), "the kernel's count after ~9,000 evictions");
    assert!(ok(&["metrics"]).contains(&format!("headstart_table_entries {entries}\n")));
}

#[test]
fn unload_and_load_while_flows_are_running() {
    let f = Fresh::new("reload");
    ok(&["load"]);
    let toml = f.path("long.toml");
    std::fs::write(
        &toml,
        r#"
        [link]
        rate = "50mbit"
        rtt = "20ms"
        [workload]
        kind = "competing"
        cc = ["s_cubic", "cubic"]
        [[workload.flows]]
        start = "0s"
        size = "30m"
        [[workload.flows]]
        start = "0s"
        size = "30m"
        cc = 1
        "#,
    )
    .unwrap();
    let out = f.path("out");
    let child = Command::new(BIN)
        .args(["lab", "run", toml.to_str().unwrap(), "--quiet", "--no-plot", "--out", out.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    ok(&["unload"]);
    assert!(!sysctl("tcp_available_congestion_control").contains("s_cubic"));
    std::thread::sleep(Duration::from_millis(500));
    ok(&["load"]);
    let res = child.wait_with_output().unwrap();
    assert!(res.status.success(), "the run survived: {}", String::from_utf8_lossy(&res.stderr));
    let rows = measured(&out);
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r.error.is_none() && r.fct_s.is_some()), "{rows:?}");
}

/// Ids of the loaded BPF programs with this name (bpftool, installed by setup).
fn prog_ids(name: &str) -> Vec<u64> {
    let out = Command::new("bpftool").args(["-j", "prog", "show", "name", name]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // Every `"id":` key (not "btf_id", "map_ids"), however bpftool lays the JSON out.
    text.match_indices("\"id\":").map(|(i, _)| text[i + 5..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap()).collect()
}

#[test]
fn a_lab_run_replaces_controllers_registered_by_another_build() {
    let f = Fresh::new("rebuild");
    ok(&["load", "s_cubic"]);
    let before = prog_ids("s_cubic_init");
    assert!(!before.is_empty(), "s_cubic_init is loaded");
    // As if an older binary had registered s_cubic: the lab must not measure its programs.
    std::fs::write("/run/headstart/s_cubic.build", "another build").unwrap();
    let st = status();
    let s_cubic = st["controllers"].as_array().unwrap().iter().find(|c| c["name"] == "s_cubic").unwrap();
    assert_eq!(s_cubic["other_build"], true, "status says so: {st}");
    let out = f.path("out");
    let run = hs(&["lab", "sweep", "--cc", "s_cubic", "--sizes", "64k", "--reps", "1", "--rate", "100mbit", "--rtt", "20ms", "--quiet", "--no-plot", "--out", out.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert!(err.contains("s_cubic was registered by another headstart build"), "{err}");
    let after = prog_ids("s_cubic_init");
    assert!(after.iter().any(|id| !before.contains(id)), "new programs: before {before:?}, after {after:?}");
    assert!(sysctl("tcp_available_congestion_control").contains("s_cubic"), "registered throughout");
    let rows = measured(&out);
    assert!(!rows.is_empty() && rows.iter().all(|r| r.cc == "s_cubic" && r.error.is_none() && r.fct_s.is_some()), "the flows ran: {rows:?}");
    assert!(ok(&["load", "s_cubic"]).contains("already loaded"), "this build's programs are current now");
    ok(&["unload"]);
    assert!(!Path::new("/run/headstart/s_cubic.build").exists(), "unload removes the stamp");
}

fn bpftool(args: &[&str]) {
    let out = Command::new("bpftool").args(args).output().unwrap();
    assert!(out.status.success(), "bpftool {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn hex(bytes: &[u8]) -> Vec<String> {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn an_older_table_and_knobs_are_carried_over_on_upgrade() {
    use headstart::bpf::abi::KNOB_HISTORY;
    let _f = Fresh::new("upgrade");
    // What an older headstart pinned: 16-byte keys (no namespace), 40-byte entries
    // (before `agreed`) and a 44-knob ("HSC1") record one knob short, as libbpf would
    // have made them.
    std::fs::create_dir_all("/sys/fs/bpf/headstart").unwrap();
    bpftool(&["map", "create", "/sys/fs/bpf/headstart/hs_paths", "type", "lru_hash", "key", "16", "value", "40", "entries", "4096", "name", "hs_paths"]);
    let mut key = vec![0u8; 10];
    key.extend([0xff, 0xff, 10, 9, 8, 7]);
    let mut value = Vec::new();
    value.extend(12_500_000u64.to_ne_bytes()); // bw
    value.extend(0u64.to_ne_bytes()); // stored_ns
    value.extend(0u64.to_ne_bytes()); // busy_until_ns
    value.extend(50_000u32.to_ne_bytes()); // min RTT
    value.extend(3u32.to_ne_bytes()); // flows
    value.extend(0u16.to_ne_bytes()); // source s_cubic
    value.extend(1u16.to_ne_bytes()); // flags: lossy
    value.extend(0u32.to_ne_bytes()); // overshoots (was resumers)
    let mut args = vec!["map", "update", "pinned", "/sys/fs/bpf/headstart/hs_paths", "key", "hex"];
    let (k, v) = (hex(&key), hex(&value));
    args.extend(k.iter().map(String::as_str));
    args.extend(["value", "hex"]);
    args.extend(v.iter().map(String::as_str));
    bpftool(&args);
    let (version, names) = KNOB_HISTORY.iter().find(|(v, _)| *v == 0x4853_4331).copied().unwrap(); // "HSC1"
    let mut record = version.to_ne_bytes().to_vec();
    for name in &names[..names.len() - 1] {
        let v: u32 = match *name {
            "max_age_s" => 900,
            "rwnd_override" => 2, // "resume" then, "on" now
            "ipv6_prefix_len" => 56,
            "bw_scale_pct" | "rtt_scale_pct" | "jump_pct" | "rtt_match" => 100,
            "trusted_uid_max" => 999,
            "max_start_cwnd" | "max_start_rate_mbps" => 1000,
            "store_cap_mbps" => 10_000,
            _ => 0,
        };
        record.extend(v.to_ne_bytes());
    }
    let older = &record[..];
    let size = older.len().to_string();
    bpftool(&["map", "create", "/sys/fs/bpf/headstart/hs_config", "type", "array", "key", "4", "value", &size, "entries", "1", "name", "hs_config"]);
    let mut args = vec!["map", "update", "pinned", "/sys/fs/bpf/headstart/hs_config", "key", "hex", "00", "00", "00", "00", "value", "hex"];
    let v = hex(older);
    args.extend(v.iter().map(String::as_str));
    bpftool(&args);
    // Before the upgrade, this build says what to do instead of misreading the records.
    for cmd in [&["table", "list"][..], &["status"]] {
        let out = hs(cmd);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains("40-byte records") && err.contains("`headstart load` carries it over"), "{cmd:?}: {err}");
    }

    let out = hs(&["load"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("hs_paths, hs_config written by an older headstart carried over"), "{err}");
    assert!(err.contains("knobs this release no longer has, not carried over") && err.contains("after_jump"), "{err}");
    let e: serde_json::Value = serde_json::from_str(&ok(&["table", "get", "10.9.8.7", "--json"])).unwrap();
    assert_eq!((e["bw_bytes_per_s"].as_u64(), e["min_rtt_us"].as_u64(), e["flows"].as_u64()), (Some(12_500_000), Some(50_000), Some(3)), "{e}");
    assert_eq!((e["lossy"].as_bool(), e["agreed"].as_u64()), (Some(true), Some(0)), "old fields kept, the new one zero: {e}");
    let st = status();
    assert_eq!((st["knobs"]["max_age_s"].as_str(), st["knobs"]["ipv6_prefix_len"].as_str()), (Some("900"), Some("56")), "kept by name: {st}");
    assert_eq!(st["knobs"]["rwnd_override"], "on", "resume is on now: {st}");
    assert_eq!(st["knobs"].as_object().unwrap().len(), headstart::bpf::abi::KNOBS.len(), "the dropped knobs are gone: {st}");
    assert!(!Path::new("/run/headstart/table-before-upgrade.json").exists(), "the backup goes once the table is back");
}

/// The first cwnd sample of each flow in a results folder's cwnd.csv, by row index.
/// Each flow's first sampled cwnd other than IW: the sampler starts before the server
/// writes, and a flow armed for a jump holds IW until its data comes (without a jump,
/// slow start's first step shows here instead).
fn first_cwnd(dir: &Path) -> std::collections::HashMap<usize, u32> {
    let csv = std::fs::read_to_string(dir.join("cwnd.csv")).expect("cwnd.csv (run with --sample)");
    let mut first = std::collections::HashMap::new();
    for line in csv.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let cwnd: u32 = cells[4].parse().unwrap();
        if cwnd != 10 {
            first.entry(cells[0].parse().unwrap()).or_insert(cwnd);
        }
    }
    first
}

#[test]
fn s_bbr_stores_bbrs_estimate_and_the_next_flow_starts_at_it() {
    let f = Fresh::new("sbbr");
    // Jumps yield to a busy bottleneck (no longer a knob): each handshake the emulator's
    // lateness reads as busy (2 of 72 idle ones on 2026-11-25) cuts the next jump by an
    // eighth, and one `make test` that day saw a jump of 316 against a cached BDP of 419
    // after two. Relaxed from 0.8 to 0.65 of the cached BDP when the switch went (two
    // such handshakes' cut), with that cause.
    let setup: &[&[&str]] = &[&["load"]];
    let out = rate_sweep(&f, "sbbr", setup, &["--cc", "bbr,s_bbr", "--warm", "--sizes", "1m", "--reps", "2", "--sample", "1ms"]);
    let rows = headstart_lab::report::read_rows(&out).unwrap();
    let starts = first_cwnd(&out);
    for (i, r) in rows.iter().enumerate().filter(|(_, r)| r.role == "measured") {
        let omega = r.omega.unwrap();
        if r.cc == "bbr" {
            assert!(omega < 0.7, "kernel bbr pays for STARTUP: {r:?}");
            assert!(r.table_bw_mbps.is_none(), "kernel bbr stores nothing");
            continue;
        }
        assert!(omega > 0.85, "warm s_bbr 1 MB: Ω {omega}");
        // BBR's own estimate of 100 Mbit/s (96.5 of payload), stored by the warm-up.
        let bw = r.table_bw_mbps.unwrap();
        assert!((80.0..=106.0).contains(&bw), "stored {bw} Mbit/s");
        // The flow started at the cached BDP (~416 packets), not at IW 10.
        let cached_bdp = bw * 1e6 / 8.0 * r.table_min_rtt_ms.unwrap() / 1e3 / r.mss as f64;
        let start = starts[&i] as f64;
        assert!(start >= 0.65 * cached_bdp, "first cwnd {start}, cached BDP {cached_bdp:.0}");
    }
    let st = status();
    // The primer (the sweep's first flow, cold) and two warm-up/measured pairs.
    assert_eq!(counter(&st, "s_bbr", "flows"), 5, "{st}");
    assert_eq!(counter(&st, "s_bbr", "hits"), 4, "every flow after the primer found the peer: {st}");
    assert!(counter(&st, "s_bbr", "stores") >= 1, "{st}");
    let entry: serde_json::Value = serde_json::from_str(&ok(&["table", "get", "10.77.1.1", "--json"])).unwrap();
    assert_eq!(entry["source"], "s_bbr");
}

#[test]
fn side_by_side_copies_lose_the_same_transmissions_of_twin_flows() {
    // Random loss in the lab is paired: a flow and its twin on another copy of the link
    // lose the same transmissions of the same bytes. With mode=off s_cubic is the
    // kernel's Cubic (through its kfuncs): cubic's twin. Compared here: the losses of
    // packets that carry sequence space (data, SYN, FIN). Whether a server sends a pure
    // ACK at all (or piggybacks it on data) depends on timing, so a lost one is in one
    // twin's count and not the other's: with them counted, 30-39 of 40 pairs lost as many
    // (one make test run under 32 at bae9861); without, 39-40 of 40 in 6 runs, the pair
    // left where timing made one stack retransmit other segments than the other (a RACK
    // timer against duplicate ACKs). Drawn from one seeded stream per copy instead (the
    // copies' streams start alike and drift apart): 11 and 29 of 40, 51 and 20 of 181
    // (28 and 11 %), and throughput up to 2.3x apart (BENCHMARKS.md at 3c45a21, Issue 12).
    let f = Fresh::new("pairs");
    let out = run_toml(
        &f,
        "pairs",
        r#"
        [link]
        rate = "20mbit"
        rtt = "20ms"
        loss = "2%"
        [workload]
        kind = "poisson"
        cc = ["cubic", "s_cubic"]
        mean_size = "256k"
        utilization = 0.3
        flows = 40
        clients = 1
        parallel = true
        [knobs]
        mode = "off"
        "#,
    );
    let rows = measured(&out);
    let schedule = |cc: &str| {
        let mut v: Vec<_> = rows.iter().filter(|r| r.cc == cc).collect();
        v.sort_by(|a, b| a.start_s.total_cmp(&b.start_s));
        v
    };
    let (kernel, twin) = (schedule("cubic"), schedule("s_cubic"));
    assert_eq!((kernel.len(), twin.len()), (40, 40));
    // Twins are found by size (Pareto draws: no two alike), not by the order of their
    // measured starts: two arrivals a few ms apart swapped places between the copies
    // once on a noisy afternoon (2026-11-26), the starts being taken as the client
    // connects. The copies run one schedule: every flow has a twin that started with it.
    let (mut same, mut lost, mut apart) = (0, 0, 0);
    for k in &kernel {
        let t = twin.iter().find(|t| t.size == k.size).unwrap_or_else(|| panic!("the copies run one schedule: no twin of {k:?}"));
        let (ks, ts) = (k.start_s, t.start_s);
        assert!((ks - ts).abs() < 0.05, "twins start together: {ks} s and {ts} s");
        let data_lost = |r: &headstart_lab::metrics::FlowRow| r.drops_loss.unwrap() - r.drops_loss_acks.unwrap();
        let (a, b) = (data_lost(k), data_lost(t));
        lost += a;
        apart += a.abs_diff(b);
        same += usize::from(a == b);
    }
    assert!(lost >= 40, "2 % of ~7,000 packets: {lost} lost");
    assert!(same >= 36, "twins lost as many packets in {same} of 40 pairs");
    assert!(apart * 100 <= lost * 8, "twins' losses differ by {apart} of {lost}");
}

/// An experiment file run from a purged state, loaded; repeated when the emulator flags
/// it (common::unflagged).
fn run_toml(f: &Fresh, name: &str, body: &str) -> PathBuf {
    let toml = f.path(&format!("{name}.toml"));
    std::fs::write(&toml, body).unwrap();
    unflagged(f, name, &[&["load"]], &["lab", "run", toml.to_str().unwrap(), "--quiet", "--no-plot", "--out", "{out}"])
}

/// A suss experiment on a 100 ms path (SUSS gains most there), with knobs of its own.
fn suss_experiment(f: &Fresh, name: &str, knobs: &str) -> PathBuf {
    run_toml(
        f,
        name,
        &format!(
            r#"
            [link]
            rate = "100mbit"
            rtt = "100ms"
            [workload]
            kind = "sweep"
            cc = ["suss"]
            sizes = ["1m"]
            reps = 3
            {knobs}
            "#
        ),
    )
}

#[test]
fn suss_accelerates_cold_flows_and_with_its_knob_off_is_cubic() {
    let f = Fresh::new("suss");
    let out = suss_experiment(&f, "on", "");
    let rows = measured(&out);
    // The server asks each socket its controller at the end (a flow that ran another
    // is a row error); in one make test (2026-11-26) suss counted 2 flows of 3, and
    // the rows were not printed: now they are. suss counts a flow when it starts it, so
    // that was most likely a flow whose init the kernel skipped, which is now started,
    // and counted, at its first send (bpf/late_init.h).
    // What SUSS's rounds buy against cubic is a benchmark's (RESULTS.md, "SUSS"); here,
    // that they run in the kernel, per flow, and stop with the knob.
    assert!(rows.iter().all(|r| r.error.is_none()), "every flow ran its controller: {rows:?}");
    let st = status();
    assert_eq!(counter(&st, "suss", "flows"), 3, "{st}; rows {rows:?}");
    assert!(counter(&st, "suss", "accelerated_rounds") >= 3, "at least one accelerated round per flow: {st}");
    assert_eq!(counter(&st, "suss", "loss_stops"), 0, "no loss on this path: {st}");
    assert_eq!(counter(&st, "s_cubic", "flows"), 0, "counters are per controller");

    // `[knobs] suss = false`: the kernel's Cubic; the knob comes back after the run.
    let out = suss_experiment(&f, "off", "[knobs]\nsuss = false");
    let st2 = status();
    let rows = measured(&out);
    assert!(rows.len() == 3 && rows.iter().all(|r| r.error.is_none()), "every flow ran its controller: {rows:?}");
    assert_eq!(counter(&st2, "suss", "accelerated_rounds"), 0, "no acceleration with suss=off: {st2}");
    assert_eq!(counter(&st2, "suss", "flows"), 3, "{st2}");
    let knobs: serde_json::Value = serde_json::from_str(&ok(&["lab", "knobs", "--json"])).unwrap();
    assert_eq!(knobs["suss"], "on", "the run's knob was put back: {knobs}");
    let run = common::run_json(&out);
    assert_eq!(run["lab_knobs"]["suss"], "off", "run.json records the knobs in force");
    assert!(run["git_commit"].as_str().is_some_and(|c| c.len() >= 7), "run.json records the commit: {}", run["git_commit"]);
}

#[test]
fn experiment_knobs_are_validated_first_and_restored_after_a_failure() {
    let f = Fresh::new("knobs");
    ok(&["load"]);
    let toml = f.path("bad.toml");
    let base = "[link]\nrate = \"100mbit\"\nrtt = \"20ms\"\n[workload]\nkind = \"sweep\"\nsizes = [\"64k\"]\nreps = 1\n";
    for (cc, knobs, why) in [
        ("[\"s_cubic\"]", "[knobs]\nbw_scale_pct = 0", "bw_scale_pct"),
        ("[\"s_cubic\"]", "[knobs]\nnosuch = 1", "unknown knob"),
        ("[\"cubic\"]", "[knobs]\nfreeze = true", "no headstart controller"),
    ] {
        std::fs::write(&toml, format!("{base}cc = {cc}\n{knobs}\n")).unwrap();
        fails(&["lab", "run", toml.to_str().unwrap(), "--quiet", "--out", f.path("never").to_str().unwrap()], why);
        assert!(!f.path("never").exists(), "nothing created before validation");
    }
    // A run interrupted by SIGTERM puts the knobs back on its way out.
    std::fs::write(
        &toml,
        format!("{}cc = [\"s_cubic\"]\n[knobs]\nfreeze = true\n", base.replace("sizes = [\"64k\"]\nreps = 1", "sizes = [\"64m\"]\nreps = 3")),
    )
    .unwrap();
    let child = Command::new(BIN)
        .args(["lab", "run", toml.to_str().unwrap(), "--quiet", "--no-plot", "--out", f.path("killed").to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while serde_json::from_str::<serde_json::Value>(&ok(&["lab", "knobs", "--json"])).unwrap()["freeze"] != "on" {
        assert!(std::time::Instant::now() < deadline, "the run never applied its knob");
        std::thread::sleep(Duration::from_millis(100));
    }
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let res = child.wait_with_output().unwrap();
    assert!(!res.status.success(), "interrupted");
    let knobs: serde_json::Value = serde_json::from_str(&ok(&["lab", "knobs", "--json"])).unwrap();
    assert_eq!(knobs["freeze"], "off", "knobs restored after SIGTERM: {knobs}");
    common::assert_no_lab_namespaces();
}

#[test]
fn careful_resume_retreats_from_a_10x_entry_and_the_next_flow_starts_right() {
    let f = Fresh::new("cr10x");
    let toml = f.path("10x.toml");
    // Every flow's cached rate is 10x the path's (a client that moved from fibre to LTE).
    std::fs::write(&toml, "[link]\nrate = \"100mbit\"\nrtt = \"50ms\"\n[workload]\nkind = \"sweep\"\ncc = [\"cubic\", \"s_cubic\"]\nsizes = [\"4m\"]\nreps = 1\nwarm = true\n[knobs]\nbw_scale_pct = 1000\n").unwrap();
    let out = unflagged(&f, "10x", &[&["load"]], &["lab", "run", toml.to_str().unwrap(), "--quiet", "--no-plot", "--out", "{out}"]);
    let rows = measured(&out);
    let cubic = rows.iter().find(|r| r.cc == "cubic").unwrap();
    let s = rows.iter().find(|r| r.cc == "s_cubic").unwrap();
    assert!(s.resume.as_deref().is_some_and(|o| o.starts_with("retreat_")), "the jump retreated: {s:?}");
    // Before Careful Resume: 2,664 retransmissions per 4 MB flow, most of them
    // segments the receiver discarded beyond its real window.
    // Once in 56 runs of this sweep (in a make test, 2026-11-23) the measured flow
    // retreated on a loss at PipeSize 64 and retransmitted 545 segments with no drop at
    // the emulated bottleneck (its queue at most 22 ms) in a run the emulator did not
    // flag. Not explained: the run's counters are in the message for the next time.
    assert!(s.retrans.unwrap() <= 400, "retransmissions bounded: {s:?}; {}", common::run_context(&out));
    assert!(
        s.fct_s.unwrap() <= cubic.fct_s.unwrap(),
        "never slower than the kernel's cubic: {} vs {}; {}",
        s.fct_s.unwrap(),
        cubic.fct_s.unwrap(),
        common::run_context(&out)
    );
    let st = status();
    assert!(counter(&st, "s_cubic", "retreat_rate") + counter(&st, "s_cubic", "retreat_loss") >= 1, "{st}");
    // The retreat deleted the entry; the flow stored what it measured: the path's rate.
    let entry: serde_json::Value = serde_json::from_str(&ok(&["table", "get", "10.77.1.1", "--json"])).unwrap();
    let bw_mbps = entry["bw_bytes_per_s"].as_f64().unwrap() * 8.0 / 1e6;
    assert!((70.0..=106.0).contains(&bw_mbps), "the next flow starts from the path's rate: {bw_mbps} Mbit/s");
}

/// A keep-alive connection (nginx, HTTP/1.1; and over TLS 1.3) idles 1 s between two
/// 1 MB responses: the second is a careful restart at the connection's own rate,
/// validated; with the path slowed to a fifth during the idle the restart retreats on
/// the rate test and loses nothing. What only the kernel shows: the restart fires on the real idle test
/// (lsndtime, the RTO) after the real sysctl's restart, and s_bbr's with BBR's own
/// model (its kernel bbr_main) running on.
#[test]
fn a_keep_alive_connection_restarts_at_its_own_rate_after_idle() {
    let f = Fresh::new("restart");
    for (name, app, idle_rate, want) in [("same", "keepalive", "1.0", "validated"), ("slower", "keepalive", "0.2", "retreat_rate"), ("tls", "keepalive-https", "1.0", "validated")] {
        let out = run_toml(
            &f,
            name,
            &format!(
                "app = \"{app}\"\nidle = \"1s\"\nidle_rate = {idle_rate}\n[link]\nrate = \"100mbit\"\nrtt = \"50ms\"\n[workload]\nkind = \"sweep\"\ncc = [\"s_cubic\", \"s_bbr\"]\nsizes = [\"1m\"]\nreps = 2\n"
            ),
        );
        for r in measured(&out) {
            assert!(r.error.is_none(), "{name}: {:?}", r.error);
            assert_eq!(r.resume.as_deref(), Some(want), "{name}: {r:?}; {}", common::run_context(&out));
            // The restart's window is sized from the connection's own rate, not IW (its
            // size, the BDP within a few %, is the host harness's check: test_start.c).
            assert!(r.jump_cwnd.is_some_and(|c| c > 100), "{name}: {r:?}");
            assert_eq!(r.retrans, Some(0), "{name}: {r:?}; {}", common::run_context(&out));
        }
    }
    let st = status();
    // The counters are the last run's (each run starts from a purged state): two each.
    assert!(counter(&st, "s_cubic", "restarts") == 2 && counter(&st, "s_bbr", "restarts") == 2, "{st}");
}

/// A lab run of overlapping flows to one client: Poisson arrivals of 1 MB mean at 80 %
/// load on 100 Mbit/s, 20 ms (seed 7), with the controllers `ccs` (TOML list items),
/// any further `[link]` lines and the `[knobs]` lines given.
fn overlapping_flows(f: &Fresh, name: &str, ccs: &str, link: &str, knobs: &str) -> PathBuf {
    let toml = f.path(&format!("{name}.toml"));
    std::fs::write(
        &toml,
        format!("[link]\nrate = \"100mbit\"\nrtt = \"20ms\"\n{link}[workload]\nkind = \"poisson\"\ncc = [{ccs}]\nmean_size = \"1m\"\nutilization = 0.8\nflows = 40\nclients = 1\nwarm = true\nseed = 7\n[knobs]\n{knobs}"),
    )
    .unwrap();
    let out = f.path(name);
    ok(&["lab", "run", toml.to_str().unwrap(), "--quiet", "--no-plot", "--out", out.to_str().unwrap()]);
    out
}

/// Concurrent flows to one peer share its budget: each jumps into what the others'
/// packets in flight leave of the saved BDP, and one that finds less than 40 packets
/// left starts as the kernel (reject_siblings); `hs_open` counts every flow and packet
/// back out at release. (The one-resumer lease this replaced, and its `split`
/// alternative: RESULTS.md.)
#[test]
fn concurrent_flows_share_the_peers_budget() {
    let f = Fresh::new("room");
    ok(&["load"]);
    let out = overlapping_flows(&f, "room", r#""s_cubic""#, "", "");
    let st = status();
    let (jumps, siblings) = (counter(&st, "s_cubic", "jumps"), counter(&st, "s_cubic", "reject_siblings"));
    assert!(siblings >= 1 && jumps >= 1, "flows beside others' full flight start as the kernel, others jump (siblings {siblings}, jumps {jumps})");
    let rows = headstart_lab::report::read_rows(&out).unwrap();
    assert!(rows.iter().any(|r| r.resume.as_deref() == Some("reject_siblings")), "the rows name the reason");
    // Every flow was released: the peer's flows and their packets in flight are back at 0.
    for (open, pkts_out, armed, starting) in hs_open_values() {
        assert!(open == 0 && pkts_out == 0 && armed == 0 && starting == 0, "hs_open back at 0: open {open}, pkts_out {pkts_out}, armed {armed}, starting {starting}");
    }
}

/// hs_open's values, (open, pkts_out, armed, starting) per peer, read with bpftool.
fn hs_open_values() -> Vec<(u32, u32, u32, u32)> {
    let out = Command::new("bpftool").args(["-j", "map", "dump", "pinned", "/sys/fs/bpf/headstart/hs_open"]).output().unwrap();
    assert!(out.status.success(), "bpftool: {}", String::from_utf8_lossy(&out.stderr));
    let dump: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let byte = |b: &serde_json::Value| u8::from_str_radix(b.as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
    dump.as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let v: Vec<u8> = e["value"].as_array().unwrap().iter().map(byte).collect();
            assert_eq!(v.len(), 32, "hs_open values are struct hs_open_flows: {e}");
            let word = |at: usize| u32::from_ne_bytes(v[at..at + 4].try_into().unwrap());
            (word(0), word(4), word(16), word(20))
        })
        .collect()
}

#[test]
fn careful_resume_does_not_jump_on_an_rtt_mismatch_or_a_small_entry() {
    let f = Fresh::new("crrtt");
    ok(&["load"]);
    // The warm-ups must not replace the entries under test.
    ok(&["lab", "knobs", "store=off"]);
    // The reasons name this path's RTT against the saved one; an entry that matches the
    // path but saves less than min_jump_pkts (40) is refused as too small to be worth a
    // jump (5 Mbit/s x 50 ms: 21 packets).
    for (bw, rtt, reason) in [("100mbit", "600ms", "reject_rtt_shorter"), ("100mbit", "20ms", "reject_rtt_longer"), ("5mbit", "50ms", "reject_small")] {
        ok(&["table", "set", "10.77.1.1", "--bw", bw, "--rtt", rtt]);
        let out = f.path(reason);
        sweep(&out, &["--cc", "s_cubic", "--warm", "--keep-table", "--sizes", "1m"]);
        let r = &measured(&out)[0];
        assert_eq!(r.resume.as_deref(), Some(reason), "an entry of {bw} with a {rtt} RTT on a 100 Mbit/s, 50 ms path: {r:?}");
        assert_eq!(r.jump_cwnd.unwrap_or(0), 0, "no jump: a kernel slow start: {r:?}");
    }
    let st = status();
    assert_eq!(counter(&st, "s_cubic", "jumps"), 0, "{st}");
    assert_eq!(counter(&st, "s_cubic", "reject_rtt_longer"), 2, "{st}");
    assert_eq!(counter(&st, "s_cubic", "reject_rtt_shorter"), 2, "{st}");
    assert_eq!(counter(&st, "s_cubic", "reject_small"), 2, "{st}");
    // min_jump_pkts=0: the small entry is jumped to.
    ok(&["lab", "knobs", "min_jump_pkts=0"]);
    let out = f.path("small-jumps");
    sweep(&out, &["--cc", "s_cubic", "--warm", "--keep-table", "--sizes", "1m"]);
    let r = &measured(&out)[0];
    assert!(r.jump_cwnd.is_some_and(|j| (15..=25).contains(&j)), "a 21-packet jump: {r:?}");
}

/// A saved table holding one entry for the lab's peer, marked lossy: `bw` bytes/s, 50 ms.
fn lossy_entry_file(f: &Fresh, bw: u64) -> PathBuf {
    let path = f.path("lossy-entry.json");
    let entry = format!(r#"{{"peer":"10.77.1.1","bw_bytes_per_s":{bw},"min_rtt_us":50000,"flows":3,"age_s":1.0,"source":"s_cubic","lossy":true}}"#);
    std::fs::write(&path, table_file(unix_now(), &[entry])).unwrap();
    path
}

/// The lossy mark clears only after 10,000 segments sent without a retransmission in a
/// row (lib/store.h), counted across flows in the entry: one clean 2 MB flow (about
/// 1,450 segments; the old rule cleared on 1,000) leaves it, and the one that brings
/// the count past 10,000 clears it. The default path is clean, so no flow retransmits.
#[test]
fn a_lossy_mark_clears_after_ten_thousand_clean_segments_not_one_clean_flow() {
    let f = Fresh::new("lossyclear");
    let entry = |clean: u32| {
        let path = f.path(&format!("lossy-{clean}.json"));
        let e = format!(r#"{{"peer":"10.77.1.1","bw_bytes_per_s":12000000,"min_rtt_us":50000,"flows":3,"age_s":1.0,"source":"s_cubic","lossy":true,"clean_segs":{clean}}}"#);
        std::fs::write(&path, table_file(unix_now(), &[e])).unwrap();
        path
    };
    for (clean, name) in [(0u32, "fromzero"), (9000, "nearly")] {
        let table = entry(clean);
        let out = rate_sweep(&f, name, &[&["load"], &["table", "restore", table.to_str().unwrap()]], &["--cc", "s_cubic", "--sizes", "2m", "--keep-table"]);
        let rows = headstart_lab::report::read_rows(&out).unwrap();
        assert_eq!(rows.len(), 1, "one flow: {rows:?}");
        assert_eq!(rows[0].retrans, Some(0), "a clean flow: {:?}", rows[0]);
        let e = lab_peer_entry();
        if clean == 0 {
            let n = e["clean_segs"].as_u64().unwrap();
            assert_eq!(e["lossy"].as_bool(), Some(true), "one clean 2 MB flow keeps the mark: {e}");
            assert!((1400..=1700).contains(&n), "and counts its segments: {e}");
        } else {
            assert_eq!((e["lossy"].as_bool(), e["clean_segs"].as_u64()), (Some(false), Some(0)), "past 10,000: cleared: {e}");
        }
    }
}

#[test]
fn an_entry_poisoned_100x_is_right_again_after_one_honest_flow() {
    let f = Fresh::new("poison");
    // A lying peer left 10 Gbit/s for a 100 Mbit/s path (or a table restored from a
    // faster network).
    let setup: &[&[&str]] = &[&["load"], &["table", "set", "10.77.1.1", "--bw", "10gbit", "--rtt", "50ms"]];
    let out = rate_sweep(&f, "poison", setup, &["--cc", "s_cubic", "--sizes", "4m", "--warm", "--keep-table"]);
    let rows = headstart_lab::report::read_rows(&out).unwrap();
    let first = &rows[0];
    assert_eq!(first.role, "warmup");
    // It retreats, or, when its handshake read the bottleneck busy and the window
    // override was refused, the receiver's window held the jump under half and it ended
    // rate-limited: no overshoot either way. Seen once in 60+ runs (make test,
    // 2026-11-26: rate_limited, PipeSize 1, rwnd-limited 100 ms, no override; the
    // handshake's RTT is read against the entry's exact 50 ms, so a few ms of emulator
    // delay on it reads as a queue). What this test is about, the entry, comes next.
    let no_override = first.override_rwnd_limited_ms.is_none() && first.resume.as_deref() == Some("rate_limited");
    assert!(first.resume.as_deref().is_some_and(|o| o.starts_with("retreat_")) || no_override, "the first flow retreats: {first:?}");
    // The retreat deleted the poisoned entry; the flow's own estimate replaced it.
    let bw = first.table_bw_mbps.unwrap();
    assert!((50.0..=200.0).contains(&bw), "within 2x of the truth after one flow: {bw} Mbit/s");
    let next = &rows[1];
    // Once (make test, 2026-11-25 16:20 UTC; 0 of 18 runs alone since) the next flow
    // jumped without the override and ended rate_limited: the counters and the entry's
    // flags say which rule refused it (a lossy mark from the retreat, or a busy handshake).
    assert_eq!(
        next.resume.as_deref(),
        Some("validated"),
        "the next flow starts right: {next:?}; entry {}; {}",
        ok(&["table", "get", "10.77.1.1", "--json"]).trim(),
        status()
    );
}

/// The lab's peer has the same address in every run, so a sweep forgets it first and a
/// warm sweep primes the table itself: an entry left by an earlier run (here a lossy
/// mark, which takes the window override away) does not decide this run. With
/// --keep-table the sweep starts from the table as it is.
#[test]
fn a_warm_sweep_starts_from_its_own_primer_unless_told_to_keep_the_table() {
    let f = Fresh::new("primer");
    let table = lossy_entry_file(&f, 12_500_000);
    let table = table.to_str().unwrap();
    let out = rate_sweep(&f, "fresh", &[&["load"], &["table", "restore", table]], &["--cc", "cubic,s_cubic", "--warm", "--sizes", "1m"]);
    let rows = headstart_lab::report::read_rows(&out).unwrap();
    assert_eq!((rows[0].role.as_str(), rows[0].cc.as_str()), ("primer", "s_cubic"), "{rows:?}");
    assert_eq!(rows[0].resume.as_deref(), Some("misses"), "the primer starts cold: {:?}", rows[0]);
    assert!(rows[0].size >= 1 << 20);
    assert_eq!(counter(&status(), "s_cubic", "lossy_no_rwnd"), 0, "no flow met the lossy mark");
    let r = measured(&out).into_iter().find(|r| r.cc == "s_cubic").unwrap();
    assert!(r.resume.as_deref() == Some("validated") && r.override_rwnd_limited_ms.is_some(), "warm from the primer's entry, with the override: {r:?}");
    let kept = rate_sweep(&f, "kept", &[&["load"], &["table", "restore", table]], &["--cc", "s_cubic", "--warm", "--keep-table", "--sizes", "1m"]);
    let rows = headstart_lab::report::read_rows(&kept).unwrap();
    assert_eq!(rows[0].role, "warmup", "no primer: {rows:?}");
    assert!(counter(&status(), "s_cubic", "lossy_no_rwnd") >= 1, "the first warm-up jumped to the entry as restored");
}

/// The table is the server's: the flows of a socket whose owner uid is above
/// trusted_uid_max (a local user who selected the controllers for its own sockets) run
/// as the kernel's controllers and leave the entry alone. The entry is 10x the path's
/// rate, so a flow that did jump from it would retreat and delete it, and one that
/// stored would change it. Raising the knob to that uid gives the flows the table back.
#[test]
fn a_local_users_flows_neither_read_nor_write_the_table() {
    let f = Fresh::new("uid");
    ok(&["load"]);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&ok(&["config", "--json"])).unwrap()["trusted_uid_max"], "999", "root and system accounts by default");
    ok(&["table", "set", "10.77.1.1", "--bw", "1gbit", "--rtt", "50ms"]);
    let before = lab_peer_entry();
    let out = f.path("nobody");
    sweep(&out, &["--cc", "s_cubic,s_bbr", "--warm", "--keep-table", "--sizes", "1m", "--server-uid", "65534"]);
    let rows = headstart_lab::report::read_rows(&out).unwrap();
    assert_eq!(rows.len(), 4, "a warm-up and a measured flow per controller: {rows:?}");
    for r in &rows {
        assert_eq!((r.resume.as_deref(), r.jump_cwnd), (Some("untrusted"), Some(0)), "no jump: {r:?}");
    }
    let after = lab_peer_entry();
    for field in ["bw_bytes_per_s", "min_rtt_us", "flows", "lossy", "agreed", "source"] {
        assert_eq!(after[field], before[field], "{field}: the entry as it was set: {before} -> {after}");
    }
    let st = status();
    for cc in ["s_cubic", "s_bbr"] {
        assert_eq!(counter(&st, cc, "untrusted"), 2, "{st}");
        assert_eq!(counter(&st, cc, "flows"), 2, "{st}");
        for none in ["hits", "misses", "jumps", "stores", "skipped", "discards"] {
            assert_eq!(counter(&st, cc, none), 0, "{cc} {none}: {st}");
        }
    }
    // The same uid, trusted: the first flow jumps from the 10x entry, retreats and
    // deletes it, and stores its own estimate.
    ok(&["config", "trusted_uid_max=65534"]);
    let out = f.path("trusted");
    sweep(&out, &["--cc", "s_cubic", "--warm", "--keep-table", "--sizes", "1m", "--server-uid", "65534"]);
    let rows = headstart_lab::report::read_rows(&out).unwrap();
    assert!(rows[0].resume.as_deref().is_some_and(|o| o.starts_with("retreat_")), "{:?}", rows[0]);
    let after = lab_peer_entry();
    assert!(after["source"] == "s_cubic" && after["bw_bytes_per_s"].as_u64() < before["bw_bytes_per_s"].as_u64(), "the flows' own estimate replaced the 10x entry: {before} -> {after}");
}

/// A jump whose handshake RTT shows a queue over the saved min RTT (a busy bottleneck)
/// goes without the window override, so a hole in it cannot make the receiver discard
/// what lies past its real window. The queue is made by
/// the entry: its min RTT read as 80 % of this path's (rtt_scale_pct), 10 ms of
/// "queue" on a 50 ms path, well within rtt_match.
#[test]
fn a_jump_into_a_busy_bottleneck_stays_within_the_receivers_window() {
    let f = Fresh::new("busy");
    let run = |name: &str, rwnd_busy: &str| {
        assert_eq!(rwnd_busy, "off", "rwnd_busy=on was measured and deleted");
        let knobs = ["lab", "knobs", "store=off", "rtt_scale_pct=80"];
        let setup: &[&[&str]] = &[&["load"], &knobs, &["table", "set", "10.77.1.1", "--bw", "96mbit", "--rtt", "50ms"]];
        let out = rate_sweep(&f, name, setup, &["--cc", "s_cubic", "--warm", "--keep-table", "--sizes", "1m"]);
        (headstart_lab::report::read_rows(&out).unwrap(), status())
    };
    let (rows, st) = run("busy", "off");
    assert_eq!(counter(&st, "s_cubic", "busy_no_rwnd"), 2, "both jumps saw the queue: {st}");
    for r in &rows {
        assert!(r.jump_cwnd.is_some_and(|j| j > 200), "it still jumps: {r:?}");
        assert_eq!(r.override_rwnd_limited_ms, None, "without the override: {r:?}");
        assert!(r.rwnd_limited_ms.is_some_and(|ms| ms > 0.0), "the receiver's own window held it back: {r:?}");
    }

    // An entry whose handshakes found a queue in 40 % of them, read with its min RTT as
    // 96 % of this path's: on a 100 ms path each handshake is 4 ms over it, busy (3 ms)
    // but not rising (6 ms). The first leaves the share at 47.5 % (the override), the
    // second at 54.1 % (none). On the 50 ms path the same entry sat 2 ms over, 1 ms under
    // the rising rule, and once (2026-11-25) a handshake the emulator delivered 1.05 ms
    // late crossed it; at 100 ms the margin is 2 ms. With clean handshakes the override
    // stays whatever the share: a small queue alone, or a busy share alone, is not
    // enough. "Clean" is an entry whose min RTT is 3 ms over this path's: at the path's
    // own 50 ms, a handshake now and then read busy (1.56 ms over) from the emulator's
    // lateness alone (2 of 72 idle handshakes in a loop on 2026-11-25, in runs whose max
    // lateness was 1.5-4.6 ms), and this check failed in a `make test` that day.
    // Emulator lateness only lengthens a handshake, so a run any of whose packets was
    // later than the check's margin (2 ms up to "rising" for the busy entry, 4.5 ms up to
    // "busy" for the clean one) is repeated as a flagged one is: in a make test
    // (2026-11-26) a run with p99 lateness under 1.5 ms read one of the clean entry's
    // handshakes busy (share 79.8 %, the first handshake's sample).
    let busy_entry = |name: &str, busy_pct: u32, path_rtt_ms: u32, min_rtt_us: u32, rtt_scale_pct: u32, margin_ms: f64| {
        let file = f.path(&format!("{name}.json"));
        // The path's BDP whatever the entry's min RTT (12 MB/s x the path's RTT): an
        // entry 3 ms long at 12 MB/s jumped 6 % past the path and met losses (2 of 5 idle runs).
        let bw = 12_000_000u64 * path_rtt_ms as u64 * 1000 / min_rtt_us as u64;
        let entry = format!(r#"{{"peer":"10.77.1.1","bw_bytes_per_s":{bw},"min_rtt_us":{min_rtt_us},"flows":1,"age_s":0,"source":"s_cubic","handshakes":20,"busy_pct":{busy_pct}}}"#);
        std::fs::write(&file, table_file(unix_now(), &[entry])).unwrap();
        let scale = format!("rtt_scale_pct={rtt_scale_pct}");
        let rtt = format!("{path_rtt_ms}ms");
        let setup: &[&[&str]] = &[&["load"], &["lab", "knobs", "store=off", &scale], &["table", "restore", file.to_str().unwrap()]];
        let late = |out: &Path| {
            let max = common::lateness_max_ms(out);
            (max > margin_ms).then(|| format!("a packet {max:.2} ms late, over this check's {margin_ms} ms margin"))
        };
        let args = sweep_args("{out}", &["--rtt", &rtt, "--cc", "s_cubic", "--warm", "--keep-table", "--sizes", "1m"]);
        let out = unflagged_unless(&f, name, setup, &args, late);
        let mut rows = headstart_lab::report::read_rows(&out).unwrap();
        rows.sort_by(|a, b| a.start_s.total_cmp(&b.start_s));
        let busy = lab_peer_entry()["busy_pct"].as_f64().unwrap();
        (rows, status(), busy)
    };
    let (rows, st, busy) = busy_entry("busy-entry", 40, 100, 100_000, 96, 2.0);
    assert!((busy - 54.1).abs() < 0.5, "two busy handshakes: 40 -> 54.1 %, got {busy}");
    assert_eq!(counter(&st, "s_cubic", "busy_no_rwnd"), 1, "the second jump only: {st}");
    assert!(rows[0].override_rwnd_limited_ms.is_some(), "share 47.5 %: with the override: {:?}", rows[0]);
    assert_eq!(rows[1].override_rwnd_limited_ms, None, "share 54.1 %: without it: {:?}", rows[1]);
    let (rows, st, busy) = busy_entry("clean-handshakes", 90, 50, 53_000, 100, 4.5);
    assert!(busy < 90.0 * 0.875 * 0.875 + 0.5, "two idle handshakes lower the share: {busy}");
    assert_eq!(counter(&st, "s_cubic", "busy_no_rwnd"), 0, "{st}");
    assert!(rows.iter().all(|r| r.override_rwnd_limited_ms.is_some()), "clean handshakes keep the override: {rows:?}");
}

#[test]
fn one_flow_cannot_raise_an_entry_beyond_the_bounded_factor() {
    let f = Fresh::new("raise");
    // An entry far below the path's rate (20 Mbit/s of 100): one honest flow may lift it
    // 2x, not to the 100 it measures; a flow that does not retreat keeps the rule.
    let setup: &[&[&str]] = &[&["load"], &["lab", "knobs", "startup=off"], &["table", "set", "10.77.1.1", "--bw", "20mbit", "--rtt", "50ms"]];
    let out = rate_sweep(&f, "raise", setup, &["--cc", "s_cubic", "--sizes", "4m", "--warm", "--keep-table", "--reps", "1"]);
    let rows = headstart_lab::report::read_rows(&out).unwrap();
    let after: Vec<f64> = rows.iter().map(|r| r.table_bw_mbps.unwrap()).collect();
    // The flow reads ~96 Mbit/s: the bound, exactly, is what it may store.
    assert!((after[0] - 40.0).abs() < 0.01, "first flow: 20 -> 40 Mbit/s (2x), got {after:?}");
    assert!(after[1] <= 80.0 + 0.01 && after[1] > after[0], "second: at most 80, got {after:?}");
}

/// ECN (RFC 9959: a CE mark while resuming ends it as a loss does): an
/// entry 1.2x the path's rate jumps into a RED queue that marks ECN-capable packets.
/// The first echo ends the jump in a Safe Retreat for ECN, before the rate test
/// (delivered at 83 % of the pacing rate, above its 75 %) and with nothing lost.
#[test]
fn an_ecn_mark_while_resuming_retreats_without_a_loss() {
    let f = Fresh::new("ecn");
    let toml = f.path("ecn.toml");
    std::fs::write(&toml, "[link]\nrate = \"100mbit\"\nrtt = \"100ms\"\naqm = \"red:5:30\"\necn = true\n[workload]\nkind = \"sweep\"\ncc = [\"s_cubic\"]\nsizes = [\"4m\"]\nreps = 1\nkeep_table = true\n").unwrap();
    let setup: &[&[&str]] = &[&["load"], &["table", "set", "10.77.1.1", "--bw", "120mbit", "--rtt", "100ms"]];
    let out = unflagged(&f, "ecn", setup, &["lab", "run", toml.to_str().unwrap(), "--quiet", "--no-plot", "--out", "{out}"]);
    let rows = measured(&out);
    let s = &rows[0];
    assert!(s.marked_ce.unwrap() > 0, "the queue marked the jump: {s:?}");
    assert_eq!(s.resume.as_deref(), Some("retreat_ecn"), "{s:?}; {}", common::run_context(&out));
    assert_eq!((s.retrans, s.drops_aqm, s.drops_buffer), (Some(0), Some(0), Some(0)), "nothing lost: {s:?}");
    assert!(counter(&status(), "s_cubic", "retreat_ecn") == 1, "{}", status());
}

#[test]
fn random_loss_retreats_by_the_rfc() {
    let f = Fresh::new("randloss");
    ok(&["load"]);
    // The subject is what a jump does when random loss meets it, so every entry is
    // jumped to: a 4 MB flow at 1 % loss is loss-limited and often stores less than
    // min_jump_pkts (40 packets), which would refuse the next jump (reject_small).
    ok(&["lab", "knobs", "min_jump_pkts=0"]);
    // 1 % random loss: a ~430-packet jump nearly always loses a packet with no queue
    // (1 - 0.99^430 = 98.7 %). The entry is set at the path's rate: what a flow at 1 %
    // stores is loss-limited (jumps of 16-41 packets), and in 4 of 6 sweeps with fresh
    // loss seeds none of the three jumps met a loss (the old fixed stream's first draws
    // happened to put one there).
    ok(&["table", "set", "10.77.1.1", "--bw", "100mbit", "--rtt", "50ms"]);
    let out = f.path("any");
    sweep(&out, &["--cc", "s_cubic", "--sizes", "4m", "--warm", "--keep-table", "--reps", "2", "--loss", "1%"]);
    let st = status();
    assert!(counter(&st, "s_cubic", "retreat_loss") >= 1, "the RFC's rule: any loss while resuming retreats: {st}");
    // Losses with no queue mark the path lossy; the jumps after that keep to the
    // receiver's own window (no override: a hole would make it discard the rest).
    assert!(counter(&st, "s_cubic", "lossy_no_rwnd") >= 1, "jumps to a lossy path without the override: {st}");
    // The entry left carries the mark. There may be none: a last flow that retreats
    // deletes the entry (RFC 9959), and its own loss-limited estimate can
    // be below IW's worth (2.3 Mbit/s at 50 ms), which is not stored (a discard). That
    // made this check fail once in four runs.
    let get = Command::new(BIN).args(["table", "get", "10.77.1.1", "--json"]).output().unwrap();
    if get.status.success() {
        let entry: serde_json::Value = serde_json::from_slice(&get.stdout).unwrap();
        assert_eq!(entry["lossy"], true, "{entry}");
    } else {
        let rows = headstart_lab::report::read_rows(&out).unwrap();
        let last = rows.last().unwrap();
        assert!(last.resume.as_deref().is_some_and(|o| o.starts_with("retreat_")) && last.table_bw_mbps.is_none(), "no entry left: {last:?}");
        assert!(counter(&st, "s_cubic", "discards") >= 1, "{st}");
    }
}

/// The lab traces its clients' discards beyond their window to the flows they came
/// from (flows.csv `beyond_window`). A jump with the window override into 2 % random
/// loss (an entry not marked lossy: store=off) leaves holes, and the client discards
/// what was sent past its real window beyond them; so may a first contact (the entry
/// deleted by the retreat), whose SUSS rounds the override let past that window. A retreat deletes the entry (RFC
/// 9959; the test halved it with retreat_entry=decay until that knob went), so each
/// run makes one jump, and the override's case gathers six runs: in one run on
/// 2026-11-27 the single jump retreated with nothing discarded. The same flows
/// without the override discard nothing. The traced total matched the client's TcpExt BeyondWindow in 28 of
/// 29 runs on 2026-11-25; one run differed, not explained, so that is not asserted.
#[test]
fn receivers_discards_are_traced_to_their_flows() {
    let f = Fresh::new("discards");
    let run = |name: &str, rwnd_override: &str| {
        let knobs = format!("rwnd_override={rwnd_override}");
        let setup: &[&[&str]] =
            &[&["load"], &["config", &knobs], &["lab", "knobs", "store=off"], &["table", "set", "10.77.1.1", "--bw", "96mbit", "--rtt", "50ms"]];
        let (mut rows, mut client) = (Vec::new(), 0);
        for i in 0..6 {
            let out = rate_sweep(&f, &format!("{name}-{i}"), setup, &["--loss", "2%", "--cc", "s_cubic", "--warm", "--keep-table", "--sizes", "1m", "--reps", "1"]);
            rows.extend(headstart_lab::report::read_rows(&out).unwrap());
            client += common::run_json(&out)["client_tcpext"]["BeyondWindow"].as_u64().unwrap_or(0);
        }
        let seen: Vec<_> =
            rows.iter().map(|r| (r.role.as_str(), r.resume.as_deref(), r.jump_cwnd, r.override_rwnd_limited_ms.is_some(), r.beyond_window)).collect();
        let traced: u64 = rows.iter().map(|r| r.beyond_window.expect("every row counted")).sum();
        assert!(rows.iter().all(|r| r.beyond_window_unread.is_some_and(|u| u <= r.beyond_window.unwrap())), "each row's discards by reason: {rows:?}");
        let seen = format!("client BeyondWindow {client}: {seen:?}");
        (rows, client, traced, seen)
    };
    let (rows, _, traced, seen) = run("override", "on");
    assert!(traced > 0, "jumps past the receiver's window into 2 % loss: some discarded: {seen}");
    assert!(rows.iter().filter(|r| r.beyond_window.unwrap() > 0).all(|r| r.override_rwnd_limited_ms.is_some()), "only flows the override raised: {seen}");
    let (_, client, traced, seen) = run("no-override", "off");
    assert_eq!((traced, client), (0, 0), "within the receiver's window nothing is discarded: {seen}");
}

/// A receiver whose application stops reading for 30 ms as the first data arrives: the
/// jump, sent in full before any ACK, overflows its buffer and the rest is discarded
/// beyond its window, with no SACK to tell the sender: an RTO finds it. The RTO ends
/// the resume (RFC 9959), so the tail goes out in slow start. Before, the retreat held
/// cwnd at one packet until the jump's last packet was acknowledged: 19 s for this 1 MB
/// flow against cubic's 0.42 (46x); now 1.2 s (2.9x: the RTO's wait, then slow start).
/// And the window override stops raising a window the receiver shrinks. The discards
/// come back as duplicate ACKs without SACK, which the tc program tells from a path's
/// loss: the overrun is counted and noted in the entry, which is neither deleted by
/// the retreat nor marked lossy, and the peer's next jumps go without the override.
#[test]
fn a_receiver_that_stops_reading_costs_a_jump_an_rto_not_the_tail_at_one_packet_per_rtt() {
    let f = Fresh::new("stall");
    let lab = ["--cc", "cubic,s_cubic", "--warm", "--sizes", "1m", "--reader-stall", "30ms"];
    let out = rate_sweep(&f, "stall", &[&["load"]], &lab);
    let rows = headstart_lab::report::read_rows(&out).unwrap();
    let cubic = rows.iter().find(|r| r.cc == "cubic" && r.role == "measured").unwrap();
    // The first jump (the warm-up after the sweep's cold primer) meets the stalled reader.
    let jump = rows.iter().find(|r| r.cc == "s_cubic" && r.role == "warmup").unwrap();
    assert_eq!(jump.resume.as_deref(), Some("retreat_rto"), "{jump:?}");
    assert_eq!(jump.rwnd_overrun, Some(true), "the flow's outcome names the receiver's overrun: {jump:?}");
    let (s, c) = (jump.fct_s.unwrap(), cubic.fct_s.unwrap());
    assert!(s < 5.0 * c, "after the RTO the tail goes out in slow start: {s} s against cubic's {c} s");
    let st = status();
    assert!(counter(&st, "s_cubic", "rwnd_receiver_behind") >= 1, "the receiver's shrinking window ended the override: {st}");
    assert_eq!(counter(&st, "s_cubic", "rwnd_receiver_overrun"), 1, "the jump's discards were seen as the receiver's: {st}");
    let measured = rows.iter().find(|r| r.cc == "s_cubic" && r.role == "measured").unwrap();
    assert!(measured.jump_cwnd.is_some_and(|j| j > 0) && measured.beyond_window == Some(0), "the next jump, within the receiver's window: {measured:?}");
    assert_eq!(measured.rwnd_overrun, Some(false), "{measured:?}");
    assert!(counter(&st, "s_cubic", "overrun_no_rwnd") >= 1, "{st}");
    assert_eq!(counter(&st, "s_cubic", "lossy_no_rwnd"), 0, "the path lost nothing: not marked lossy: {st}");
    let entry: serde_json::Value = serde_json::from_str(&ok(&["table", "get", "10.77.1.1", "--json"])).unwrap();
    assert_eq!((entry["overruns"].as_u64(), entry["lossy"].as_bool()), (Some(1), Some(false)), "{entry}");
}

/// A lab run numbers its client ports from the same first port, so each row reads its
/// flow's start outcome by addresses and ports that earlier runs used too. The testbed
/// forgets those of its server's addresses before a run: a flow whose controller wrote
/// no outcome of its own would otherwise carry an earlier flow's (seen once: a
/// `reject_siblings` row in a run with `jump_room=off`, 2026-11-26). An outcome of
/// another local address (an operator's own flows) is kept.
#[test]
fn a_lab_run_forgets_earlier_runs_flow_outcomes_and_only_those() {
    use headstart::bpf::{abi::FlowKey, abi::Record, table::addr_to_key};
    use std::net::{IpAddr, Ipv4Addr};
    let f = Fresh::new("outcomes");
    ok(&["load"]);
    let m = headstart::bpf::pinned_map("hs_outcomes").unwrap();
    let key = |local: IpAddr| FlowKey {
        peer: addr_to_key(IpAddr::V4(headstart_lab::topology::client_v4(0))),
        local: addr_to_key(local),
        peer_port: 40000,
        local_port: 10000,
        netns_ino: 0,
    };
    let (lab, operator) = (key(IpAddr::V4(headstart_lab::topology::server_v4())), key(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1))));
    let stale = vec![0u8; m.value_size() as usize];
    for k in [&lab, &operator] {
        m.update(k.as_bytes(), &stale).unwrap();
    }
    sweep(&f.path("run"), &["--cc", "cubic", "--sizes", "64k"]);
    assert!(m.lookup(lab.as_bytes()).unwrap().is_none(), "the lab server's earlier outcome is forgotten");
    assert!(m.lookup(operator.as_bytes()).unwrap().is_some(), "another address's outcome is kept");
}

/// The socket storage map of `cc`'s flow state: the one whose absence tells its
/// cwnd_event that the kernel skipped its init (bpf/late_init.h).
fn flow_state_map(cc: &str) -> libbpf_rs::MapHandle {
    let name = if cc == "suss" { "suss_guards".to_string() } else { format!("{cc}_flows") };
    // The newest one: a map of an earlier load lives on while a socket still holds it.
    let info = libbpf_rs::query::MapInfoIter::default()
        .filter(|m| m.name.to_str() == Some(name.as_str()))
        .max_by_key(|m| m.id)
        .unwrap_or_else(|| panic!("{name} is loaded"));
    libbpf_rs::MapHandle::from_map_id(info.id).unwrap()
}

/// One loopback connection to `listener`: the server socket is handed to `before_send`
/// (which may drop the flow's state, as the kernel does when it skips init) before it
/// sends 256 KB, and to `after_send` once that is written; the client reads it all.
fn loopback_flow<T>(listener: &std::net::TcpListener, before_send: impl FnOnce(&std::net::TcpStream) -> T, after_send: impl FnOnce(&std::net::TcpStream)) -> T {
    use std::io::{Read, Write};
    let addr = listener.local_addr().unwrap();
    let client = std::thread::spawn(move || {
        let mut c = std::net::TcpStream::connect(addr).unwrap();
        let mut got = Vec::new();
        c.read_to_end(&mut got).unwrap();
        got.len()
    });
    let (mut server, _) = listener.accept().unwrap();
    let seen = before_send(&server);
    server.write_all(&vec![7u8; 256 * 1024]).unwrap();
    after_send(&server);
    drop(server);
    assert_eq!(client.join().unwrap(), 256 * 1024);
    seen
}

/// On this kernel a controller's init program is sometimes skipped for a new flow (1 to
/// 27 in 10,000 lab flows; BENCHMARKS.md at 3c45a21, Issue 11) while the kernel calls the controller
/// initialized. Such a flow must start at its first transmission, not run with none of
/// its controller's state. The kernel's skip cannot be caused on purpose; deleting a
/// connection's flow state from user space before it sends (socket storage is keyed by
/// the socket's fd) leaves the same socket: initialized for the kernel, no state of ours.
/// (Should the kernel itself skip a flow's init here, the counts below allow for it.)
#[test]
fn a_flow_whose_init_the_kernel_skipped_starts_at_its_first_transmission() {
    use libbpf_rs::MapCore;
    use std::os::fd::AsRawFd;
    let _f = Fresh::new("late-init");
    ok(&["load"]);
    for cc in ["s_cubic", "s_bbr", "suss"] {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        headstart_lab::traffic::set_congestion(listener.as_raw_fd(), cc).unwrap();
        let state = flow_state_map(cc);
        let key = |s: &std::net::TcpStream| s.as_raw_fd().to_ne_bytes();
        let has_state = |s: &std::net::TcpStream| state.lookup(&key(s), libbpf_rs::MapFlags::ANY).unwrap().is_some();
        let started_after_send = |s: &std::net::TcpStream| assert!(has_state(s), "{cc}: the flow has its state once it sent");

        // A flow whose init ran keeps its state; nothing starts it again.
        let init_ran = loopback_flow(&listener, |s| has_state(s), started_after_send);
        let st = status();
        let late = counter(&st, cc, "inits_late");
        assert_eq!(late, u64::from(!init_ran), "{cc}: a late start only for a flow with no state at its first send");
        assert_eq!(counter(&st, cc, "flows"), 1, "{cc}: one flow, one start");

        // A flow with no state of ours at its first transmission starts there.
        let init_ran = loopback_flow(
            &listener,
            |s| {
                let had = has_state(s);
                if had {
                    state.delete(&key(s)).unwrap();
                }
                assert!(!has_state(s), "{cc}: the flow's state is gone");
                had
            },
            started_after_send,
        );
        let st = status();
        assert_eq!(counter(&st, cc, "inits_late"), late + 1, "{cc}: the flow without state was started at its first send");
        assert_eq!(counter(&st, cc, "flows"), 2 + u64::from(init_ran), "{cc}: and counted as a start (after its init, if that ran)");
    }
}

/// One connection over the namespace's loopback to a listener running `cc` with TCP
/// Fast Open: the client's first bytes ride in its SYN when `fast_open`, so the
/// server's child socket (and its controller's init) exists before any handshake.
/// The server answers with 200 KB.
fn loopback_exchange(ns: &TestNetns, cc: &str, port: u16, fast_open: bool) {
    let cc = cc.to_string();
    headstart::sys::run_in_netns(&ns.file(), None, move || {
        use std::io::{Read, Write};
        use std::os::fd::FromRawFd;
        // SAFETY: plain socket calls on descriptors this closure owns; the listener and
        // the client are handed to std types that close them.
        unsafe {
            let l = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
            let one: libc::c_int = 1;
            libc::setsockopt(l, libc::SOL_SOCKET, libc::SO_REUSEADDR, &one as *const _ as *const _, 4);
            anyhow::ensure!(libc::setsockopt(l, libc::IPPROTO_TCP, libc::TCP_CONGESTION, cc.as_ptr() as *const _, cc.len() as u32) == 0, "TCP_CONGESTION {cc}");
            let qlen: libc::c_int = 16;
            anyhow::ensure!(libc::setsockopt(l, libc::IPPROTO_TCP, libc::TCP_FASTOPEN, &qlen as *const _ as *const _, 4) == 0, "TCP_FASTOPEN");
            let addr = libc::sockaddr_in { sin_family: libc::AF_INET as _, sin_port: port.to_be(), sin_addr: libc::in_addr { s_addr: u32::from_ne_bytes([127, 0, 0, 1]) }, sin_zero: [0; 8] };
            let sa = &addr as *const _ as *const libc::sockaddr;
            let len = std::mem::size_of::<libc::sockaddr_in>() as u32;
            anyhow::ensure!(libc::bind(l, sa, len) == 0 && libc::listen(l, 16) == 0, "bind/listen");
            let listener = std::net::TcpListener::from_raw_fd(l);
            let c = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
            let hello = b"GET";
            if fast_open {
                anyhow::ensure!(libc::sendto(c, hello.as_ptr() as *const _, hello.len(), libc::MSG_FASTOPEN, sa, len) == hello.len() as isize, "sendto MSG_FASTOPEN: {}", std::io::Error::last_os_error());
            } else {
                anyhow::ensure!(libc::connect(c, sa, len) == 0, "connect");
            }
            let mut client = std::net::TcpStream::from_raw_fd(c);
            if !fast_open {
                client.write_all(hello)?;
            }
            let (mut server, _) = listener.accept()?;
            let mut req = [0u8; 3];
            server.read_exact(&mut req)?;
            server.write_all(&vec![7u8; 200 * 1024])?;
            drop(server);
            let mut got = Vec::new();
            client.read_to_end(&mut got)?;
            anyhow::ensure!(got.len() == 200 * 1024, "{} bytes", got.len());
        }
        Ok(())
    })
    .unwrap();
}

/// TCP Fast Open runs the controller's init at the SYN, before the handshake proves the
/// source (with cookie-less TFO a spoofed SYN creates the child): such a flow is the
/// kernel's and leaves the table alone; the same peer's ordinary connection finds its
/// entry. What only the kernel shows: a TFO child's init sees fastopen_rsk set.
#[test]
fn a_fast_open_flow_is_the_kernels_and_touches_nothing() {
    let _f = Fresh::new("tfo");
    ok(&["load"]);
    let ns = TestNetns::new("hs-e2e-tfo");
    // Client and server TFO, no cookie needed: the SYN's data is accepted at once.
    assert!(Command::new("ip").args(["netns", "exec", &ns.0, "sysctl", "-qw", "net.ipv4.tcp_fastopen=0x203"]).status().unwrap().success());
    ok(&["table", "set", "127.0.0.1", "--netns", &ns.0, "--bw", "1gbit", "--rtt", "1ms"]);
    let before: serde_json::Value = serde_json::from_str(&ok(&["table", "get", "127.0.0.1", "--netns", &ns.0, "--json"])).unwrap();
    loopback_exchange(&ns, "s_cubic", 7301, true);
    std::thread::sleep(Duration::from_millis(200));
    let st = status();
    assert_eq!((counter(&st, "s_cubic", "flows"), counter(&st, "s_cubic", "fast_open")), (1, 1), "{st}");
    for none in ["hits", "misses", "jumps", "stores", "armed"] {
        assert_eq!(counter(&st, "s_cubic", none), 0, "{none}: {st}");
    }
    let after: serde_json::Value = serde_json::from_str(&ok(&["table", "get", "127.0.0.1", "--netns", &ns.0, "--json"])).unwrap();
    for field in ["bw_bytes_per_s", "min_rtt_us", "flows", "handshakes", "busy_pct"] {
        assert_eq!(after[field], before[field], "{field}: {before} -> {after}");
    }
    // The control: an ordinary handshake to the same listener reads the entry.
    loopback_exchange(&ns, "s_cubic", 7302, false);
    std::thread::sleep(Duration::from_millis(200));
    let st = status();
    assert_eq!((counter(&st, "s_cubic", "flows"), counter(&st, "s_cubic", "fast_open"), counter(&st, "s_cubic", "hits")), (2, 1, 1), "{st}");
}

/// A container's flows (another network namespace) neither read nor write the host's
/// entry for the same address, but find their own: `--netns` reaches it, a save keeps
/// it by the namespace's name and a restore puts it back under the namespace; with
/// one_table they use the host's. What only the kernel shows: the controllers'
/// namespace key (the net's cookie) is the one the tool gets from SO_NETNS_COOKIE.
/// (Loopback flows are not stored: their BDP is below IW. A lookup leaves its mark,
/// the entry's handshakes.)
#[test]
fn a_namespaces_flows_keep_their_own_entries() {
    let f = Fresh::new("netns");
    ok(&["load"]);
    let ns = TestNetns::new("hs-e2e-netns");
    let get = |netns: Option<&str>| {
        let mut args = vec!["table", "get", "127.0.0.1", "--json"];
        args.extend(netns.map(|n| ["--netns", n]).into_iter().flatten());
        let mut e = serde_json::from_str::<serde_json::Value>(&ok(&args)).unwrap();
        e.as_object_mut().unwrap().remove("age_s");  // the clock's, not the entry's
        e
    };
    let hits = || counter(&status(), "s_cubic", "hits");
    ok(&["table", "set", "127.0.0.1", "--bw", "1gbit", "--rtt", "1ms"]);
    let host_before = get(None);
    loopback_exchange(&ns, "s_cubic", 7311, false);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!((hits(), counter(&status(), "s_cubic", "misses")), (0, 1), "the host's entry is not the container's");
    assert_eq!(get(None), host_before, "the host's entry as it was");
    ok(&["table", "set", "127.0.0.1", "--netns", &ns.0, "--bw", "2gbit", "--rtt", "1ms"]);
    loopback_exchange(&ns, "s_cubic", 7312, false);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(hits(), 1, "the container's own entry");
    let own = get(Some(&ns.0));
    assert_eq!((own["netns"].as_str(), own["handshakes"].as_u64()), (Some(ns.0.as_str()), Some(1)), "{own}");
    assert_eq!(get(None), host_before, "the host's entry still as it was");
    assert!(ok(&["table", "list"]).contains(&format!("127.0.0.1 ({})", ns.0)));
    // Saved by name, restored under the namespace's key.
    let saved = f.path("table.json");
    assert!(ok(&["table", "save", saved.to_str().unwrap()]).contains("saved 2 entries"));
    assert!(std::fs::read_to_string(&saved).unwrap().contains(&format!("\"netns\": \"{}\"", ns.0)));
    ok(&["table", "flush"]);
    ok(&["table", "restore", saved.to_str().unwrap()]);
    loopback_exchange(&ns, "s_cubic", 7313, false);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!((hits(), get(Some(&ns.0))["handshakes"].as_u64()), (2, Some(2)), "restored under the namespace");
    // One table: the container's flows use the host's entry.
    ok(&["table", "forget", "127.0.0.1", "--netns", &ns.0]);
    ok(&["config", "one_table=on"]);
    loopback_exchange(&ns, "s_cubic", 7314, false);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!((hits(), get(None)["handshakes"].as_u64()), (3, Some(1)), "one_table: the host's entry");
}

/// A child process killed when the test ends, pass or fail.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A Redis on loopback; with `tls` (private_ca's folder), TLS only, its certificate
/// the one private_ca signed.
fn redis_server(tls: Option<&Path>) -> (Killed, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut cmd = Command::new("redis-server");
    match tls {
        None => cmd.args(["--port", &port.to_string()]),
        Some(d) => cmd.args(["--port", "0", "--tls-port", &port.to_string(), "--tls-auth-clients", "no"]).arg("--tls-cert-file").arg(d.join("server.pem")).arg("--tls-key-file").arg(d.join("server.key")).arg("--tls-ca-cert-file").arg(d.join("ca.pem")),
    };
    let child = cmd
        .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        // An ACL user as an operator's Redis has: the default user cannot log in.
        .args(["--user", "default", "off", "--user", "hs", "on", ">hs-secret", "~*", "&*", "+@all"])
        .stdout(Stdio::null())
        .spawn()
        .expect("redis-server (scripts/setup.sh installs it)");
    let guard = Killed(child);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(std::time::Instant::now() < deadline, "redis-server did not come up");
        std::thread::sleep(Duration::from_millis(20));
    }
    (guard, port)
}

/// A private CA, as an operator's internal Redis has, and a certificate for 127.0.0.1
/// signed by it, in `dir`: ca.pem, server.pem, server.key.
fn private_ca(dir: &Path) {
    let openssl = |args: &[&str]| {
        let out = Command::new("openssl").args(args).current_dir(dir).output().expect("openssl");
        assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
    openssl(&[&["req", "-x509"][..], &ec, &["-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=hs-e2e private CA"]].concat());
    openssl(&[&["req"][..], &ec, &["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"]].concat());
    std::fs::write(dir.join("san.ext"), "subjectAltName=IP:127.0.0.1\n").unwrap();
    openssl(&["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "san.ext"]);
}

fn fleet_agent(f: &Fresh, port: u16, host: &str, ns: &TestNetns) -> (Killed, PathBuf) {
    let (child, status) = spawn_agent(f, &format!("redis://hs:hs-secret@127.0.0.1:{port}/"), host, ns, None);
    agent_connects(&status, host);
    (child, status)
}

/// Waits until the agent's status says it is connected (subscribed, and what Redis
/// held read).
fn agent_connects(status: &Path, host: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !std::fs::read_to_string(status).is_ok_and(|t| t.contains("\"connected\": true")) {
        assert!(std::time::Instant::now() < deadline, "agent {host} never connected: {:?}", std::fs::read_to_string(status));
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `headstart fleet run` for `ns`'s table; `ca_file`: the trust it is started with
/// (SSL_CERT_FILE, as a unit's Environment= would set it), else the system's.
fn spawn_agent(f: &Fresh, url: &str, host: &str, ns: &TestNetns, ca_file: Option<&Path>) -> (Killed, PathBuf) {
    let status = f.path(&format!("{host}.json"));
    let mut cmd = Command::new(BIN);
    if let Some(ca) = ca_file {
        cmd.env("SSL_CERT_FILE", ca);
    }
    let child = cmd
        .args(["fleet", "run", "--redis", url, "--key-prefix", "hs-e2e:", "--host-id", host, "--netns", &ns.0, "--status-file"])
        .arg(&status)
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    (Killed(child), status)
}

/// Waits until the agent's status says `key` reached `n`.
fn agent_reaches(status: &Path, key: &str, n: u64) -> serde_json::Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(status).unwrap_or_default()).unwrap_or_default();
        if v[key].as_u64().unwrap_or(0) >= n {
            return v;
        }
        assert!(std::time::Instant::now() < deadline, "{key} never reached {n}: {v}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Issue 46's acceptance: an entry planted in Redis is data from the network. A 100x
/// estimate raises an existing entry 2x at most (a lying peer's flow could do as much)
/// and makes a new one no higher than the cap; entries out of bounds, expired or older
/// than the host's are refused; an agent that starts reads what is already in Redis.
#[test]
fn a_poisoned_fleet_entry_is_bounded_as_a_lying_peers() {
    let f = Fresh::new("fleet");
    ok(&["load"]);
    ok(&["config", "store_cap_mbps=1000"]);
    let (a, b) = (TestNetns::new("hs-e2e-fleet-a"), TestNetns::new("hs-e2e-fleet-b"));
    let (_redis, port) = redis_server(None);
    ok(&["table", "set", "10.9.9.1", "--netns", &b.0, "--bw", "100mbit", "--rtt", "50ms"]);
    let (_agent_a, status_a) = fleet_agent(&f, port, "a", &a);
    let (_agent_b, status_b) = fleet_agent(&f, port, "b", &b);
    let client = redis::Client::open(format!("redis://hs:hs-secret@127.0.0.1:{port}/")).unwrap();
    let mut con = client.get_connection().unwrap();
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    let publish = |con: &mut redis::Connection, msg: String| redis::cmd("PUBLISH").arg("hs-e2e:stores").arg(msg).query::<i64>(con).unwrap();
    let bw = |ns: &TestNetns, addr: &str| -> Option<(u64, String)> {
        let out = hs(&["table", "get", addr, "--netns", &ns.0, "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
        Some((v["bw_bytes_per_s"].as_u64().unwrap(), v["source"].as_str().unwrap().to_string()))
    };
    // 100x the 100 Mbit/s entry (1.25 GB/s), stored just now by "evil".
    assert_eq!(publish(&mut con, format!("10.9.9.1 v1 evil 1250000000 50000 0 {now_ms}")), 2, "both agents listen");
    agent_reaches(&status_b, "applied", 1);
    agent_reaches(&status_a, "applied", 1);
    assert_eq!(bw(&b, "10.9.9.1"), Some((25_000_000, "fleet".into())), "an existing entry raised 2x, no more");
    assert_eq!(bw(&a, "10.9.9.1"), Some((125_000_000, "fleet".into())), "a new entry at the cap (1000 Mbit/s), no more");
    // Out of bounds, expired, older than the host's: refused, the entries as they were.
    publish(&mut con, format!("10.9.9.1 v1 evil 12500000 20000000 0 {}", now_ms + 500)); // newer, with a min RTT of 20 s
    publish(&mut con, format!("10.9.9.3 v1 evil 12500000 50000 0 {}", now_ms - 7_200_000)); // 2 h old
    agent_reaches(&status_b, "refused", 2);
    publish(&mut con, format!("10.9.9.1 v1 evil 2500000 50000 0 {}", now_ms - 60_000)); // a minute older
    agent_reaches(&status_b, "older", 1);
    assert_eq!(bw(&b, "10.9.9.1").map(|e| e.0), Some(25_000_000), "unchanged");
    assert_eq!(bw(&b, "10.9.9.3"), None, "an expired entry is not taken");
    // A delete newer than the entry deletes it (another server's retreat found it wrong).
    publish(&mut con, format!("10.9.9.1 v1 other 0 0 0 {}", now_ms + 2000));
    agent_reaches(&status_b, "deleted", 1);
    assert_eq!(bw(&b, "10.9.9.1"), None, "deleted");
    // What is in Redis before an agent starts is read at its start, bounded alike.
    redis::cmd("SET").arg("hs-e2e:path:10.9.9.4").arg(format!("v1 evil 125000000000 50000 0 {now_ms}")).query::<()>(&mut con).unwrap();
    let ns_c = TestNetns::new("hs-e2e-fleet-c");
    let (_agent_c, status_c) = fleet_agent(&f, port, "c", &ns_c);
    agent_reaches(&status_c, "applied", 1);
    assert_eq!(bw(&ns_c, "10.9.9.4").map(|e| e.0), Some(125_000_000), "read at start, capped");
    let st = ok(&["fleet", "status", "--status-file", status_c.to_str().unwrap()]);
    assert!(st.contains("fleet agent c in hs-e2e-fleet-c") && st.contains("(connected)"), "{st}");
    assert!(st.contains("redis://***@127.0.0.1") && !std::fs::read_to_string(&status_c).unwrap().contains("hs-secret"), "the password is never shown: {st}");
    // The applied entries taught their /24 (prefix fallback's aggregates); a flush forgets that too.
    let listed = || -> Vec<serde_json::Value> { ok(&["table", "prefixes", "--json"]).lines().map(|l| serde_json::from_str(l).unwrap()).collect() };
    let prefixes = || listed().len();
    let p = listed();
    assert!(p.iter().any(|v| v["prefix"] == "10.9.9.0/24" && v["netns"].is_string() && v["entries"].as_u64() >= Some(1)), "the fleet's entries reach the prefixes: {p:?}");
    assert!(ok(&["table", "prefixes"]).contains("10.9.9.0/24 (hs-e2e-fleet-"), "listed as text");
    let saved = f.path("fleet-table.json");
    ok(&["table", "save", saved.to_str().unwrap()]);
    ok(&["table", "flush"]);
    assert_eq!(prefixes(), 0, "a flush forgets them");
    // A restore (as after a reboot) teaches them again from the entries it writes.
    let out = ok(&["table", "restore", saved.to_str().unwrap()]);
    let restored = out.split_whitespace().nth(1).unwrap_or("?");
    assert!(out.starts_with("restored ") && out.contains(&format!("prefix fallback relearned from {restored}")), "every restored entry teaches: {out}");
    assert!(prefixes() >= 1, "relearned from the restored entries");
    fails(&["fleet", "status", "--status-file", f.path("none.json").to_str().unwrap()], "no fleet agent status");
    fails(&["fleet", "run", "--redis", "http://x/"], "fleet.redis");
}

/// A Redis that floods the channel (30,000 entries at once, as a compromised one could):
/// the agent applies them at its budget (MAX_APPLIES_PER_S, 10 k/s: so not in less than
/// 3 s), stays alive and takes all of them in the end; the newest entry of a peer sent
/// many times is the one applied.
#[test]
fn a_flood_from_redis_is_applied_at_the_agents_budget() {
    let f = Fresh::new("fleet-flood");
    ok(&["load"]);
    let ns = TestNetns::new("hs-e2e-flood");
    let (_redis, port) = redis_server(None);
    let (_agent, status) = fleet_agent(&f, port, "a", &ns);
    let client = redis::Client::open(format!("redis://hs:hs-secret@127.0.0.1:{port}/")).unwrap();
    let mut con = client.get_connection().unwrap();
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    let mut flood = redis::pipe();
    for i in 0..30_000u32 {
        flood.cmd("PUBLISH").arg("hs-e2e:stores").arg(format!("10.{}.{}.{} v1 evil 1250000 50000 0 {now_ms}", 64 + i / 65536, (i / 256) % 256, i % 256)).ignore();
    }
    for bw in [2_500_000u64, 5_000_000, 3_750_000] {
        flood.cmd("PUBLISH").arg("hs-e2e:stores").arg(format!("10.63.0.1 v1 evil {bw} 50000 0 {}", now_ms + bw / 1000)).ignore();
    }
    let started = std::time::Instant::now();
    flood.query::<()>(&mut con).unwrap();
    let deadline = started + Duration::from_secs(20);
    let v = loop {
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&status).unwrap_or_default()).unwrap_or_default();
        if v["applied"].as_u64().unwrap_or(0) >= 30_001 {
            break v;
        }
        assert!(std::time::Instant::now() < deadline, "the flood never went in: {v}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(2900), "30,001 applies in {took:?}: faster than 10 k/s");
    assert_eq!(v["errors"].as_u64(), Some(0), "{v}");
    let e: serde_json::Value = serde_json::from_slice(&hs(&["table", "get", "10.63.0.1", "--netns", &ns.0, "--json"]).stdout).unwrap();
    assert_eq!(e["bw_bytes_per_s"].as_u64(), Some(5_000_000), "the newest of the peer's three entries");
    let st = ok(&["fleet", "status", "--status-file", status.to_str().unwrap()]);
    assert!(st.contains("(connected)"), "alive and connected after the flood: {st}");
}

/// rediss://: an operator's Redis behind TLS with a private CA. The agent trusts what
/// the system trusts (or SSL_CERT_FILE): with the CA it connects and applies another
/// server's entry; without it, it never connects and says why, and the host works alone.
#[test]
fn the_fleet_agent_speaks_tls_to_a_redis_with_a_private_ca() {
    let f = Fresh::new("fleet-tls");
    ok(&["load"]);
    let (dir, other) = (f.path("tls"), f.path("other-ca"));
    for d in [&dir, &other] {
        std::fs::create_dir_all(d).unwrap();
        private_ca(d);
    }
    let (_redis, port) = redis_server(Some(&dir));
    let url = format!("rediss://hs:hs-secret@127.0.0.1:{port}/");
    let (ns, ns_untrusting) = (TestNetns::new("hs-e2e-fleet-tls"), TestNetns::new("hs-e2e-fleet-tls-no"));
    let (_untrusting, status_no) = spawn_agent(&f, &url, "no-ca", &ns_untrusting, Some(&other.join("ca.pem")));
    let (_agent, status) = spawn_agent(&f, &url, "tls", &ns, Some(&dir.join("ca.pem")));
    agent_connects(&status, "tls (given the CA)");
    // Another server's entry, published over TLS, lands in this host's table.
    let mut con = redis::Client::build_with_tls(
        url.as_str(),
        redis::TlsCertificates { client_tls: None, root_cert: Some(std::fs::read(dir.join("ca.pem")).unwrap()) },
    )
    .unwrap()
    .get_connection()
    .unwrap();
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    redis::cmd("PUBLISH").arg("hs-e2e:stores").arg(format!("10.9.8.1 v1 other 12500000 40000 0 {now_ms}")).query::<i64>(&mut con).unwrap();
    agent_reaches(&status, "applied", 1);
    let out = hs(&["table", "get", "10.9.8.1", "--netns", &ns.0, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["bw_bytes_per_s"].as_u64(), v["source"].as_str()), (Some(12_500_000), Some("fleet")), "{v}");
    // The agent that does not trust the CA: not connected, the reason in its status.
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&status_no).unwrap_or_default()).unwrap_or_default();
    assert_eq!(v["connected"].as_bool(), Some(false), "{v}");
    assert!(v["last_error"].as_str().is_some_and(|e| e.to_lowercase().contains("certificate") || e.contains("UnknownIssuer")), "{v}");
}
