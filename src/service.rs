//! headstart as a service: `up` applies /etc/headstart/headstart.toml (validated whole
//! before anything changes) and what the last `down` or `save` kept in the state
//! directory; `down` keeps the table and knobs there, puts back the default congestion
//! control found before `up`, detaches the window override and unregisters.
//!
//! Everything headstart sets up lives in bpffs and is gone after a reboot: the state
//! directory is what survives it.

use crate::bpf::{self, abi::Knobs, table::SavedTable};
use crate::sys;
use anyhow::{ensure, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const DEFAULT_CONFIG: &str = "/etc/headstart/headstart.toml";
pub const DEFAULT_STATE_DIR: &str = "/var/lib/headstart";
const STATE_FILE: &str = "state.json";
const TABLE_FILE: &str = "table.json";

/// /etc/headstart/headstart.toml. Every field is optional; absent, the built-in default.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigText {
    /// Controllers to register (default: all of headstart's).
    pub controllers: Option<Vec<String>>,
    /// The kernel's default congestion control while up (default: left as it is).
    pub default_cc: Option<String>,
    /// Path table capacity in entries, when the table is created.
    pub table_size: Option<u32>,
    /// Interfaces whose ingress gets the receive-window override.
    pub interfaces: Option<Vec<String>>,
    /// Where the table and knobs are kept across `down`/`up` and reboots.
    pub state_dir: Option<PathBuf>,
    /// Knobs as `headstart config` takes them: a knob named here is set at every `up`;
    /// the others keep the value they had at the last `down`/`save`.
    #[serde(default)]
    pub knobs: BTreeMap<String, toml::Value>,
}

/// A validated configuration.
#[derive(Clone, Debug)]
pub struct Config {
    pub controllers: Vec<String>,
    pub default_cc: Option<String>,
    pub table_size: u32,
    pub interfaces: Vec<String>,
    pub state_dir: PathBuf,
    /// `KEY=VALUE`, each checked.
    pub knobs: Vec<String>,
}

impl Config {
    /// The configuration at `path`; with no path, the default file if it exists, else
    /// the built-in defaults.
    pub fn load(path: Option<&Path>) -> Result<Config> {
        let text = match path {
            Some(p) => Some(std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?),
            None => match std::fs::read_to_string(DEFAULT_CONFIG) {
                Ok(t) => Some(t),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(anyhow::Error::new(e).context(format!("cannot read {DEFAULT_CONFIG}"))),
            },
        };
        let name = path.map(|p| p.display().to_string()).unwrap_or_else(|| DEFAULT_CONFIG.to_string());
        let parsed: ConfigText = match text {
            Some(t) => toml::from_str(&t).map_err(|e| anyhow::anyhow!("{name}: {}", e.to_string().replace('\n', " ")))?,
            None => ConfigText::default(),
        };
        parsed.validate().with_context(|| format!("{name} refused, nothing changed"))
    }
}

impl ConfigText {
    pub fn validate(self) -> Result<Config> {
        let controllers = self.controllers.unwrap_or_else(|| bpf::names().iter().map(|s| s.to_string()).collect());
        ensure!(!controllers.is_empty(), "controllers: name at least one (absent: all)");
        for c in &controllers {
            bpf::controller(c)?;
        }
        let mut seen = std::collections::HashSet::new();
        ensure!(controllers.iter().all(|c| seen.insert(c)), "controllers: a controller is named twice");
        if let Some(cc) = &self.default_cc {
            let ok = controllers.contains(cc) || bpf::available_ccs().map(|a| a.contains(cc)).unwrap_or(false) || kernel_module_exists(cc);
            ensure!(ok, "default_cc '{cc}' is neither a controller loaded by this configuration nor one the kernel has");
        }
        let table_size = self.table_size.unwrap_or(bpf::DEFAULT_TABLE_ENTRIES);
        ensure!((1024..=1 << 26).contains(&table_size), "table_size must be between 1024 and 67108864 entries");
        let interfaces = self.interfaces.unwrap_or_default();
        for i in &interfaces {
            ensure!(!i.is_empty() && i.len() < libc::IFNAMSIZ && !i.contains('/'), "interfaces: '{i}' is not an interface name");
        }
        let state_dir = self.state_dir.unwrap_or_else(|| PathBuf::from(DEFAULT_STATE_DIR));
        ensure!(state_dir.is_absolute(), "state_dir must be an absolute path");
        let mut knobs = Vec::new();
        let mut check = Knobs::default();
        for (k, v) in &self.knobs {
            let value = match v {
                toml::Value::String(s) => s.clone(),
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Boolean(b) => (if *b { "on" } else { "off" }).to_string(),
                other => anyhow::bail!("knobs.{k}: {other} is not a knob value"),
            };
            let a = format!("{k}={value}");
            check.set(&a).with_context(|| format!("knobs.{k}"))?;
            knobs.push(a);
        }
        Ok(Config { controllers, default_cc: self.default_cc, table_size, interfaces, state_dir, knobs })
    }
}

/// A congestion control the kernel can load on demand (tcp_<name>.ko).
fn kernel_module_exists(cc: &str) -> bool {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let dir = Path::new("/lib/modules").join(release.trim()).join("kernel/net/ipv4");
    ["ko", "ko.xz", "ko.zst"].iter().any(|ext| dir.join(format!("tcp_{cc}.{ext}")).exists())
}

/// state.json: what `up` must put back.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    pub format: String,
    pub version: u32,
    pub saved_unix_s: u64,
    /// The kernel's default congestion control before the first `up`: `down` puts it back.
    pub previous_default_cc: Option<String>,
    /// Every knob at the last `down`/`save`, as `headstart config` prints it.
    pub knobs: BTreeMap<String, String>,
}

const STATE_FORMAT: &str = "headstart-state";

impl State {
    fn path(dir: &Path) -> PathBuf {
        dir.join(STATE_FILE)
    }

    /// The state kept in `dir`, validated (None if there is none).
    pub fn read(dir: &Path) -> Result<Option<State>> {
        let p = Self::path(dir);
        let text = match std::fs::read_to_string(&p) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(anyhow::Error::new(e).context(format!("cannot read {}", p.display()))),
        };
        let s: State = serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}: not a headstart state file: {e}", p.display()))?;
        ensure!(s.format == STATE_FORMAT && s.version == 1, "{}: format {} version {} is not supported", p.display(), s.format, s.version);
        s.knobs_checked().with_context(|| format!("{} refused (remove it to start from the defaults)", p.display()))?;
        Ok(Some(s))
    }

    fn knobs_checked(&self) -> Result<Knobs> {
        let mut k = Knobs::default();
        for (name, v) in &self.knobs {
            // A knob this version no longer has is skipped; a bad value is not.
            if crate::bpf::abi::KNOBS.iter().any(|kn| kn.name == name) {
                k.set(&format!("{name}={v}"))?;
            }
        }
        Ok(k)
    }

    fn write(&self, dir: &Path) -> Result<()> {
        sys::write_private_atomically(&Self::path(dir), serde_json::to_string_pretty(self)?.as_bytes())
    }
}

/// The state directory, made root-only if it is not there; refused if others could
/// write into it (they could plant a table).
fn state_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    if !dir.exists() {
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let md = std::fs::symlink_metadata(dir).with_context(|| format!("cannot read {}", dir.display()))?;
    ensure!(md.is_dir(), "{} is not a directory", dir.display());
    ensure!(md.uid() == 0 && md.permissions().mode() & 0o022 == 0, "{} must be root's and not writable by others", dir.display());
    Ok(())
}

/// What `up` did, for the terminal and --json.
#[derive(Debug, Default, Serialize)]
pub struct UpReport {
    pub loaded: Vec<String>,
    pub default_cc: String,
    pub restored_entries: usize,
    pub expired_entries: usize,
    pub attached: Vec<String>,
    /// Where the knobs came from before the config file's: "live" (headstart was up),
    /// "kept" (the last down/save), "defaults".
    pub knobs_from: &'static str,
}

/// Applies the configuration and the kept state. Everything is read and validated
/// first: a bad config, state or table file changes nothing.
pub fn up(cfg: &Config) -> Result<UpReport> {
    sys::require_root()?;
    state_dir(&cfg.state_dir)?;
    let state = State::read(&cfg.state_dir)?;
    let table_file = cfg.state_dir.join(TABLE_FILE);
    if table_file.exists() {
        let text = std::fs::read_to_string(&table_file).with_context(|| format!("cannot read {}", table_file.display()))?;
        SavedTable::parse(&text).with_context(|| format!("{} refused (remove it to start with an empty table), nothing changed", table_file.display()))?;
    }
    // The knobs in force if headstart is up already (a second `up`), else the kept ones.
    let live = bpf::read_knobs().ok().filter(|_| bpf::trusted_pin_dir().is_ok() && bpf::names().iter().any(|n| bpf::is_loaded(n)));
    let (mut knobs, knobs_from) = match (live, &state) {
        (Some(k), _) => (k, "live"),
        (None, Some(s)) => (s.knobs_checked()?, "kept"),
        (None, None) => (Knobs::default(), "defaults"),
    };
    for a in &cfg.knobs {
        knobs.set(a)?;
    }
    let current = bpf::default_cc();
    // What `down` puts back: the default found now, unless it is ours (an earlier
    // `up` set it), then the one recorded then.
    let previous = if bpf::is_ours(&current) { state.as_ref().and_then(|s| s.previous_default_cc.clone()) } else { Some(current) };

    let mut report = UpReport { knobs_from, ..Default::default() };
    report.loaded = bpf::load(&cfg.controllers, cfg.table_size)?;
    bpf::write_knobs(&knobs)?;
    if table_file.exists() {
        let r = bpf::table_restore(&table_file, true)?;
        report.restored_entries = r.restored;
        report.expired_entries = r.expired;
    }
    if let Some(cc) = &cfg.default_cc {
        std::fs::write("/proc/sys/net/ipv4/tcp_congestion_control", cc).with_context(|| format!("setting the default congestion control to {cc}"))?;
    }
    for dev in &cfg.interfaces {
        bpf::attach_rwnd(dev, None)?;
        report.attached.push(dev.clone());
    }
    State { format: STATE_FORMAT.into(), version: 1, saved_unix_s: sys::unix_s(), previous_default_cc: previous, knobs: knob_map(&knobs) }.write(&cfg.state_dir)?;
    report.default_cc = bpf::default_cc();
    Ok(report)
}

fn knob_map(k: &Knobs) -> BTreeMap<String, String> {
    k.iter().map(|(knob, v)| (knob.name.to_string(), knob.format(v))).collect()
}

/// Keeps the table and the knobs in the state directory (the periodic save).
pub fn save(cfg: &Config) -> Result<usize> {
    sys::require_root()?;
    state_dir(&cfg.state_dir)?;
    let previous = State::read(&cfg.state_dir)?.and_then(|s| s.previous_default_cc);
    let knobs = bpf::read_knobs()?;
    let n = bpf::table_save(&cfg.state_dir.join(TABLE_FILE))?;
    State { format: STATE_FORMAT.into(), version: 1, saved_unix_s: sys::unix_s(), previous_default_cc: previous, knobs: knob_map(&knobs) }.write(&cfg.state_dir)?;
    Ok(n)
}

#[derive(Debug, Default, Serialize)]
pub struct DownReport {
    pub saved_entries: usize,
    pub default_cc: String,
    pub detached: Vec<String>,
    pub unloaded: Vec<String>,
}

/// Saves, puts back the default congestion control found before `up`, detaches the
/// window override from the configured interfaces, unregisters. The pinned maps stay (a later
/// `up` without a reboot finds them; `unload --purge` removes them).
pub fn down(cfg: &Config) -> Result<DownReport> {
    sys::require_root()?;
    let mut report = DownReport::default();
    if bpf::trusted_pin_dir().is_ok() && bpf::pinned_map("hs_paths").is_ok() {
        report.saved_entries = save(cfg)?;
    }
    let previous = State::read(&cfg.state_dir)?.and_then(|s| s.previous_default_cc);
    if let Some(p) = previous.filter(|p| !bpf::is_ours(p)) {
        if bpf::default_cc() != p {
            std::fs::write("/proc/sys/net/ipv4/tcp_congestion_control", &p).with_context(|| format!("putting back the default congestion control {p}"))?;
        }
    }
    for dev in &cfg.interfaces {
        if bpf::detach_rwnd(dev, None)? {
            report.detached.push(dev.clone());
        }
    }
    report.unloaded = bpf::unload(false, &remembered_default_cc(&cfg.state_dir))?;
    report.default_cc = bpf::default_cc();
    Ok(report)
}

/// The default congestion control to fall back on when ours go: the one found before
/// `up`, else the kernel's cubic.
pub fn remembered_default_cc(dir: &Path) -> String {
    State::read(dir).ok().flatten().and_then(|s| s.previous_default_cc).filter(|p| !bpf::is_ours(p)).unwrap_or_else(|| "cubic".to_string())
}

/// The window override off every interface of this network namespace.
pub fn detach_everywhere() -> Result<Vec<String>> {
    let mut detached = Vec::new();
    for e in std::fs::read_dir("/sys/class/net").context("listing interfaces")?.flatten() {
        let dev = e.file_name().to_string_lossy().into_owned();
        if bpf::detach_rwnd(&dev, None).unwrap_or(false) {
            detached.push(dev);
        }
    }
    Ok(detached)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(t: &str) -> Result<Config> {
        toml::from_str::<ConfigText>(t).map_err(anyhow::Error::new)?.validate()
    }

    #[test]
    fn an_empty_config_is_the_built_in_defaults() {
        let c = parse("").unwrap();
        assert_eq!(c.controllers, ["s_cubic", "s_bbr", "suss"]);
        assert_eq!((c.default_cc, c.table_size), (None, bpf::DEFAULT_TABLE_ENTRIES));
        assert_eq!(c.state_dir, PathBuf::from(DEFAULT_STATE_DIR));
        assert!(c.knobs.is_empty() && c.interfaces.is_empty());
    }

    #[test]
    fn configs_are_validated_whole() {
        let c = parse("controllers = [\"s_cubic\"]\ndefault_cc = \"s_cubic\"\ntable_size = 4096\ninterfaces = [\"eth0\"]\n[knobs]\nmode = \"shadow\"\nmax_age_s = 600\nrwnd_override = true\n").unwrap();
        assert_eq!(c.knobs, ["max_age_s=600", "mode=shadow", "rwnd_override=on"]);
        for (bad, why) in [
            ("controllers = [\"nope\"]", "unknown headstart controller"),
            ("controllers = [\"s_cubic\", \"s_cubic\"]", "twice"),
            ("controllers = []", "at least one"),
            ("default_cc = \"nosuchcc\"", "default_cc"),
            ("table_size = 10", "table_size"),
            ("interfaces = [\"a/b\"]", "interface"),
            ("state_dir = \"relative\"", "absolute"),
            ("[knobs]\nbogus = 1", "unknown knob"),
            ("[knobs]\nmax_start_cwnd = 0", "max_start_cwnd"),
            ("[knobs]\nbw_scale_pct = 50", "unknown knob"),
            ("[knobs]\nmax_age_s = 1.5", "not a knob value"),
        ] {
            let err = format!("{:#}", parse(bad).unwrap_err());
            assert!(err.contains(why), "{bad}: expected '{why}' in '{err}'");
        }
        assert!(toml::from_str::<ConfigText>("contollers = []").is_err(), "unknown keys are refused");
    }

    #[test]
    fn the_example_config_in_the_repository_is_valid() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/packaging/headstart.toml")).unwrap();
        let c = toml::from_str::<ConfigText>(&text).unwrap().validate().unwrap();
        assert_eq!(c.state_dir, PathBuf::from(DEFAULT_STATE_DIR));
    }
}
