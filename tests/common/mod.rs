//! Helpers shared by the privileged end-to-end tests: run the real binary, check
//! what it says and what it leaves.
#![allow(dead_code)]

use headstart_lab::metrics::FlowRow;
use headstart_lab::report::read_rows;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_headstart");

pub fn hs(args: &[&str]) -> Output {
    Command::new(BIN).args(args).stdin(Stdio::null()).output().expect("run headstart")
}

/// Runs headstart, asserts success, returns its standard output.
pub fn run_ok(args: &[&str]) -> String {
    let out = hs(args);
    assert!(
        out.status.success(),
        "headstart {} failed:\nstdout: {}\nstderr: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Asserts the refusal contract: exit code 1 and one stderr line naming the problem.
pub fn fails(args: &[&str], needle: &str) {
    let out = hs(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?} should fail: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{args:?}: one line, got {err}");
    assert!(err.contains(needle), "{args:?}: expected '{needle}' in {err}");
}

pub fn measured(dir: &Path) -> Vec<FlowRow> {
    read_rows(dir).unwrap().into_iter().filter(|r| r.role == "measured").collect()
}

/// A lab run's run.json.
pub fn run_json(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).expect("run.json")).expect("run.json is JSON")
}

/// The emulator's warnings for a lab run (p99 lateness above its limit): a run it
/// flags did not emulate the link it was given, and the lab's rule is to repeat it.
pub fn emulator_warnings(dir: &Path) -> Vec<String> {
    let run = run_json(dir);
    emulator_links(&run)
        .iter()
        .flat_map(|a| a["warnings"].as_array().cloned().expect("run.json: emulator_accuracy.warnings is a list"))
        .map(|w| w.as_str().expect("a warning is a string").to_string())
        .collect()
}

/// The latest any packet of a run left the emulator against its schedule, ms (the
/// largest over its links).
pub fn lateness_max_ms(dir: &Path) -> f64 {
    let run = run_json(dir);
    emulator_links(&run).iter().map(|a| a["lateness_max_ms"].as_f64().expect("run.json: emulator_accuracy.lateness_max_ms")).fold(0.0, f64::max)
}

/// run.json's emulator_accuracy, one report per link (a single link's is an object).
fn emulator_links(run: &serde_json::Value) -> Vec<&serde_json::Value> {
    let acc = &run["emulator_accuracy"];
    match acc.as_array() {
        Some(links) => links.iter().collect(),
        None => vec![acc],
    }
}

/// What a run's run.json says beyond its rows, for a failing check's message: the
/// client's TcpExt counters (BeyondWindow: receiver discards) and the emulator's report
/// (drops in and outside its model, lateness, steal).
pub fn run_context(dir: &Path) -> String {
    let run = run_json(dir);
    format!("client TcpExt {}; emulator {}", run["client_tcpext"], run["emulator_accuracy"])
}

/// Runs a measurement from a purged state: `setup` (headstart commands: load, config,
/// table set), then `lab` (headstart's lab arguments, with "{out}" for the output
/// folder). A run the emulator flags is repeated from a purged state, as every lab
/// measurement is, up to three runs; if all three are flagged the last is checked as
/// it is (said on stderr): the checks are the same either way, an unflagged run is only
/// preferred. Returns the output folder of the run to check.
pub fn unflagged(f: &Fresh, name: &str, setup: &[&[&str]], lab: &[&str]) -> PathBuf {
    unflagged_unless(f, name, setup, lab, |_| None)
}

/// As `unflagged`, and a run for which `unusable` (called on its folder, before the next
/// purge) gives a reason is repeated too: a lab event outside the test's subject.
pub fn unflagged_unless(f: &Fresh, name: &str, setup: &[&[&str]], lab: &[&str], unusable: impl Fn(&Path) -> Option<String>) -> PathBuf {
    let mut out = PathBuf::new();
    for attempt in 1..=3 {
        run_ok(&["unload", "--purge"]);
        for cmd in setup {
            run_ok(cmd);
        }
        out = f.path(&format!("{name}-{attempt}"));
        let out_s = out.to_str().unwrap().to_string();
        let args: Vec<&str> = lab.iter().map(|a| if *a == "{out}" { out_s.as_str() } else { a }).collect();
        run_ok(&args);
        let mut warnings = emulator_warnings(&out);
        warnings.extend(unusable(&out));
        if warnings.is_empty() {
            return out;
        }
        let next = if attempt < 3 { "repeating it from a purged state" } else { "checking this one as it is" };
        eprintln!("{name}: the emulator flagged run {attempt} ({}); {next}", warnings.join("; "));
    }
    out
}

pub fn lab_namespaces() -> Vec<String> {
    std::fs::read_dir("/var/run/netns")
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).filter(|n| n.starts_with("hslab-")).collect())
        .unwrap_or_default()
}

pub fn assert_no_lab_namespaces() {
    let left = lab_namespaces();
    assert!(left.is_empty(), "lab namespaces left behind: {left:?}");
}

pub const DEFAULT_CC: &str = "/proc/sys/net/ipv4/tcp_congestion_control";
pub const ALLOWED_CC: &str = "/proc/sys/net/ipv4/tcp_allowed_congestion_control";

/// Owns headstart's global BPF state and a scratch folder for one test: it starts from
/// `headstart unload --purge` and, when it drops (pass or fail), purges again and puts
/// back the default congestion control and the allowed list (setting a default also
/// allows it), so that tests change no sysctl.
pub struct Fresh {
    default_cc: String,
    allowed_cc: String,
    pub dir: PathBuf,
}

impl Fresh {
    pub fn new(name: &str) -> Fresh {
        let default_cc = std::fs::read_to_string(DEFAULT_CC).unwrap().trim().to_string();
        let allowed_cc = std::fs::read_to_string(ALLOWED_CC).unwrap().trim().to_string();
        let _ = hs(&["unload", "--purge"]);
        let dir = headstart::sys::private_temp_dir(&format!("headstart-e2e-{name}")).unwrap();
        Fresh { default_cc, allowed_cc, dir }
    }

    pub fn path(&self, f: &str) -> PathBuf {
        self.dir.join(f)
    }

    /// A headstart config file in the scratch folder, with a state directory of its own.
    pub fn config(&self, body: &str) -> PathBuf {
        let p = self.path("headstart.toml");
        std::fs::write(&p, format!("state_dir = \"{}\"\n{body}", self.path("state").display())).unwrap();
        p
    }
}

impl Drop for Fresh {
    fn drop(&mut self) {
        let _ = hs(&["unload", "--purge"]);
        let _ = std::fs::write(DEFAULT_CC, &self.default_cc);
        let _ = std::fs::write(ALLOWED_CC, &self.allowed_cc);
        let _ = std::fs::remove_dir_all(&self.dir);
        let _ = hs(&["lab", "clean"]);
    }
}

/// `headstart status --json`.
pub fn status() -> serde_json::Value {
    serde_json::from_str(&run_ok(&["status", "--json"])).expect("status --json is JSON")
}

/// One counter of one controller, from `status --json`.
pub fn counter(status: &serde_json::Value, cc: &str, name: &str) -> u64 {
    let c = status["controllers"].as_array().unwrap().iter().find(|c| c["name"] == cc).expect("controller listed");
    c["counters"][name].as_u64().unwrap_or_else(|| panic!("{cc} has no counter {name}: {c}"))
}

/// A network namespace of a test's own, its loopback up: one left by an earlier run
/// under the same name is removed first, and this one when it drops (pass or fail).
pub struct TestNetns(pub String);

impl TestNetns {
    pub fn new(name: &str) -> TestNetns {
        let _ = Command::new("ip").args(["netns", "del", name]).output();
        assert!(Command::new("ip").args(["netns", "add", name]).status().unwrap().success(), "ip netns add {name}");
        let ns = TestNetns(name.to_string());
        assert!(Command::new("ip").args(["-n", name, "link", "set", "lo", "up"]).status().unwrap().success());
        ns
    }

    pub fn file(&self) -> std::fs::File {
        std::fs::File::open(format!("/run/netns/{}", self.0)).unwrap()
    }
}

impl Drop for TestNetns {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["netns", "del", &self.0]).output();
    }
}
