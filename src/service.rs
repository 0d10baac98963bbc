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
    /// The fleet table (src/fleet.rs): read by `headstart fleet run`.
    pub fleet: Option<crate::fleet::FleetText>,
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
    pub fleet: Option<crate::fleet::FleetConfig>,
}

impl Config {
    /// The configuration at `path`; with no path, the default file if it exists, else
    /// the built-in defaults.
    pub fn load(path: Option<&Path>) -> Result<Config> {
        let text = match path {
            Some(p) => Some(sys::read_regular_file(p, sys::SMALL_FILE_LIMIT).with_context(|| format!("cannot read {}", p.display()))?),
            None => match sys::read_regular_file(Path::new(DEFAULT_CONFIG), sys::SMALL_FILE_LIMIT) {
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
        let fleet = self.fleet.map(|f| f.validate()).transpose()?;
        Ok(Config { controllers, default_cc: self.default_cc, table_size, interfaces, state_dir, knobs, fleet })
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
        let text = match sys::read_regular_file(&p, sys::SMALL_FILE_LIMIT) {
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
    /// Kept records that failed validation, each with its reason: left out, the rest restored.
    pub dropped_entries: Vec<String>,
    pub attached: Vec<String>,
    /// Where the knobs came from before the config file's: "live" (headstart was up),
    /// "kept" (the last down/save), "defaults".
    pub knobs_from: &'static str,
}

/// What `up` changed, to put back if a later step fails.
#[derive(Default)]
struct Undo {
    /// No pin directory before: everything of headstart's in bpffs goes.
    pins_were_absent: bool,
    registered: Vec<String>,
    knobs: Option<Knobs>,
    table: Option<Vec<(bpf::Peer, bpf::abi::PathEntry)>>,
    default_cc: Option<String>,
    attached: Vec<String>,
}

impl Undo {
    /// Puts back what changed, newest change first; says what it could not.
    fn run(self) {
        let warn = |what: &str, e: anyhow::Error| eprintln!("headstart: warning: could not put back {what}: {e:#}");
        for dev in self.attached.iter().rev() {
            if let Err(e) = bpf::detach_rwnd(dev, None) {
                warn(&format!("the window override on {dev}"), e);
            }
        }
        if let Some(cc) = &self.default_cc {
            if let Err(e) = std::fs::write("/proc/sys/net/ipv4/tcp_congestion_control", cc) {
                warn(&format!("the default congestion control {cc}"), e.into());
            }
        }
        if self.pins_were_absent {
            let fallback = self.default_cc.clone().filter(|c| !bpf::is_ours(c)).unwrap_or_else(|| "cubic".into());
            if let Err(e) = bpf::unload(true, &fallback) {
                warn("the controllers and maps it registered", e);
            }
            return;
        }
        if let Some(t) = &self.table {
            if let Err(e) = bpf::table_put_back(t) {
                warn("the path table", e);
            }
        }
        if let Some(k) = &self.knobs {
            if let Err(e) = bpf::write_knobs(k) {
                warn("the knobs", e);
            }
        }
        if let Err(e) = bpf::unregister(&self.registered) {
            warn("the controllers it registered", e);
        }
    }
}

/// Applies the configuration and the kept state, all or nothing: everything is read
/// and validated first (a bad config, state or table file, or a missing interface,
/// changes nothing), and if a later step fails, what changed is put back.
pub fn up(cfg: &Config) -> Result<UpReport> {
    sys::require_root()?;
    state_dir(&cfg.state_dir)?;
    let state = State::read(&cfg.state_dir)?;
    let table_file = cfg.state_dir.join(TABLE_FILE);
    let mut kept_table = match table_file.exists() {
        true => Some(SavedTable::read(&table_file, sys::TABLE_FILE_LIMIT).with_context(|| format!("{} refused (remove it to start with an empty table), nothing changed", table_file.display()))?),
        false => None,
    };
    for dev in &cfg.interfaces {
        bpf::check_device(dev).with_context(|| format!("interfaces: '{dev}' refused, nothing changed"))?;
    }
    // The knobs in force if headstart is up already (a second `up`), else the kept ones.
    let live = bpf::read_knobs().ok().filter(|_| bpf::trusted_pin_dir().is_ok() && bpf::names().iter().any(|n| bpf::is_loaded(n)));
    let (mut knobs, knobs_from) = match (live.clone(), &state) {
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
    let previous = if bpf::is_ours(&current) { state.as_ref().and_then(|s| s.previous_default_cc.clone()) } else { Some(current.clone()) };

    let mut undo = Undo { pins_were_absent: !bpf::pins_exist(), knobs: live, ..Default::default() };
    let mut report = UpReport { knobs_from, ..Default::default() };
    let applied = (|| -> Result<()> {
        let was_registered: Vec<&str> = bpf::names().into_iter().filter(|n| bpf::is_loaded(n)).collect();
        let loaded = bpf::load(&cfg.controllers, cfg.table_size);
        undo.registered = bpf::names().into_iter().filter(|n| bpf::is_loaded(n) && !was_registered.contains(n)).map(String::from).collect();
        report.loaded = loaded?;
        bpf::write_knobs(&knobs)?;
        if let Some(saved) = kept_table.take() {
            undo.table = Some(bpf::table_entries()?);
            let r = bpf::table_restore_parsed(&table_file, saved, true, bpf::BadRecords::Drop)?;
            for why in &r.dropped {
                eprintln!("headstart: warning: {}: {why}: left out", table_file.display());
            }
            (report.restored_entries, report.expired_entries, report.dropped_entries) = (r.restored, r.expired, r.dropped);
        }
        if let Some(cc) = &cfg.default_cc {
            undo.default_cc = Some(current.clone());
            std::fs::write("/proc/sys/net/ipv4/tcp_congestion_control", cc).with_context(|| format!("setting the default congestion control to {cc}"))?;
        }
        for dev in &cfg.interfaces {
            let was_attached = bpf::rwnd_attached(dev)?;
            bpf::attach_rwnd(dev, None)?;
            if !was_attached {
                undo.attached.push(dev.clone());
            }
            report.attached.push(dev.clone());
        }
        State { format: STATE_FORMAT.into(), version: 1, saved_unix_s: sys::unix_s(), previous_default_cc: previous, knobs: knob_map(&knobs) }.write(&cfg.state_dir)
    })();
    if let Err(e) = applied {
        undo.run();
        return Err(e.context("up failed; what it had changed is put back"));
    }
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
    let n = bpf::table_save(&cfg.state_dir.join(TABLE_FILE))?.saved;
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
/// window override, unregisters. The pinned maps stay (a later `up` without a reboot
/// finds them; `unload --purge` removes them). Every step runs even when an earlier one
/// failed: a bad config or state file must not leave the controllers registered
/// (`systemctl stop` would stop halfway). With no valid config (`cfg` None) nothing is
/// saved and the override comes off every interface. The problems come back beside
/// the report.
pub fn down(cfg: Option<&Config>) -> Result<(DownReport, Vec<anyhow::Error>)> {
    sys::require_root()?;
    let mut report = DownReport::default();
    let mut problems = Vec::new();
    let state_dir = cfg.map(|c| c.state_dir.clone()).unwrap_or_else(|| PathBuf::from(DEFAULT_STATE_DIR));
    if let Some(cfg) = cfg {
        if bpf::trusted_pin_dir().is_ok() && bpf::pinned_map("hs_paths").is_ok() {
            match save(cfg) {
                Ok(n) => report.saved_entries = n,
                Err(e) => problems.push(e.context("the table and knobs were not saved")),
            }
        }
    }
    let fallback = remembered_default_cc(&state_dir);
    let ours_or_kept = bpf::is_ours(&bpf::default_cc()) || State::read(&state_dir).ok().flatten().and_then(|s| s.previous_default_cc).is_some();
    if ours_or_kept && bpf::default_cc() != fallback {
        if let Err(e) = std::fs::write("/proc/sys/net/ipv4/tcp_congestion_control", &fallback) {
            problems.push(anyhow::Error::new(e).context(format!("putting back the default congestion control {fallback}")));
        }
    }
    match cfg {
        Some(cfg) => {
            for dev in &cfg.interfaces {
                match bpf::detach_rwnd(dev, None) {
                    Ok(true) => report.detached.push(dev.clone()),
                    Ok(false) => {}
                    Err(e) => problems.push(e.context(format!("detaching the window override from {dev}"))),
                }
            }
        }
        None => match detach_everywhere() {
            Ok(d) => report.detached = d,
            Err(e) => problems.push(e),
        },
    }
    match bpf::unload(false, &fallback) {
        Ok(u) => report.unloaded = u,
        Err(e) => problems.push(e.context("unregistering")),
    }
    report.default_cc = bpf::default_cc();
    Ok((report, problems))
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
        // Its commented examples too: an operator who uncomments one gets a valid file
        // (one once named a knob that had been removed).
        let uncommented: String = text.lines().map(|l| l.strip_prefix("# ").filter(|r| r.contains(" = ") || r.starts_with('[')).unwrap_or(l)).collect::<Vec<_>>().join("\n");
        let all = toml::from_str::<ConfigText>(&uncommented).unwrap().validate().unwrap();
        assert!(all.knobs.len() >= 5, "every commented knob taken: {:?}", all.knobs);
        assert!(all.fleet.is_some_and(|f| f.host_id == "web-1"), "the commented [fleet] taken");
    }
}
