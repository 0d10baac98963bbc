//! Privileged end-to-end tests of headstart as a service: up/down across a scripted
//! reboot, the systemd units, the operator's controls (off/on/shadow), metrics, flows
//! and check. Root, one at a time (`--test-threads=1`); each test starts from and
//! leaves `headstart unload --purge`, the default congestion control as it was.

mod common;

use common::{fails, hs, run_ok as ok, BIN};
use std::path::{Path, PathBuf};

const DEFAULT_CC: &str = "/proc/sys/net/ipv4/tcp_congestion_control";
const ALLOWED_CC: &str = "/proc/sys/net/ipv4/tcp_allowed_congestion_control";

/// Owns headstart's state and a scratch folder for one test.
struct Fresh {
    default_cc: String,
    allowed_cc: String,
    dir: PathBuf,
}

impl Fresh {
    fn new(name: &str) -> Fresh {
        let default_cc = std::fs::read_to_string(DEFAULT_CC).unwrap().trim().to_string();
        let allowed_cc = std::fs::read_to_string(ALLOWED_CC).unwrap().trim().to_string();
        let _ = hs(&["unload", "--purge"]);
        let dir = std::env::temp_dir().join(format!("headstart-service-e2e-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Fresh { default_cc, allowed_cc, dir }
    }
    fn path(&self, f: &str) -> PathBuf {
        self.dir.join(f)
    }
    /// A config file in the scratch folder with its own state directory.
    fn config(&self, body: &str) -> PathBuf {
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

fn json(args: &[&str]) -> serde_json::Value {
    let out = ok(args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?} is not JSON ({e}): {out}"))
}

fn default_cc() -> String {
    std::fs::read_to_string(DEFAULT_CC).unwrap().trim().to_string()
}

fn table(cfg_dir: &Path) -> Vec<serde_json::Value> {
    let _ = cfg_dir;
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
    assert_eq!(up["knobs_from_state"], false, "{up}");
    // A knob changed at run time must survive too (it is not in the config file).
    ok(&["config", "bw_scale_pct=90"]);
    warm_flows(&f);
    let entries = table(&f.dir);
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
    assert_eq!(up["knobs_from_state"], true, "{up}");
    assert_eq!(up["restored_entries"].as_u64(), Some(entries.len() as u64), "{up}");
    let knobs = json(&["config", "--json"]);
    assert_eq!((knobs["bw_scale_pct"].as_str(), knobs["max_age_s"].as_str()), (Some("90"), Some("900")), "{knobs}");
    let after = table(&f.dir);
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

#[test]
fn the_systemd_units_verify() {
    let f = Fresh::new("units");
    // systemd-analyze wants the ExecStart binary to exist: point the units at this build.
    for unit in ["headstart.service", "headstart-save.service", "headstart-save.timer"] {
        let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("packaging").join(unit)).unwrap();
        std::fs::write(f.path(unit), text.replace("/usr/bin/headstart", BIN)).unwrap();
    }
    let out = std::process::Command::new("systemd-analyze")
        .args(["verify", "--man=no"])
        .arg(f.path("headstart.service"))
        .arg(f.path("headstart-save.service"))
        .arg(f.path("headstart-save.timer"))
        .output()
        .expect("systemd-analyze (Debian package systemd)");
    let err = String::from_utf8_lossy(&out.stderr);
    // Only complaints about our units count (the host's own units may have some).
    let ours: Vec<&str> = err.lines().filter(|l| l.contains("headstart")).collect();
    assert!(out.status.success() && ours.is_empty(), "systemd-analyze verify: {err}");
}
