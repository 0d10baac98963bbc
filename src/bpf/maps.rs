//! Userspace mirrors of the records in bpf/path_table.h, with their validation, and
//! the path table's save file.

use anyhow::{bail, ensure, Context, Result};
use serde::{Deserialize, Serialize};
use std::net::{IpAddr, Ipv6Addr};

/// Counter names in the order of enum hs_counter (bpf/path_table.h).
pub const COUNTER_NAMES: &[&str] = &["flows", "hits", "misses", "collisions", "stores", "discards", "skipped", "expired"];
pub const COUNTERS_PER_CC: usize = 8;

pub const SOURCES: &[&str] = &["s_cubic", "s_bbr", "suss", "user"];
pub const SOURCE_USER: u32 = 3;

/// Bounds a stored estimate must respect: beyond them it is corrupt, not a path.
pub const MAX_BW_BYTES_PER_S: u64 = 1 << 40; // ~8.8 Tbit/s
pub const MAX_RTT_US: u32 = 10_000_000; // 10 s

pub fn addr_to_key(addr: IpAddr) -> [u8; 16] {
    match addr {
        IpAddr::V4(a) => a.to_ipv6_mapped().octets(),
        IpAddr::V6(a) => a.octets(),
    }
}

pub fn key_to_addr(k: &[u8]) -> IpAddr {
    let mut b = [0u8; 16];
    b.copy_from_slice(&k[..16]);
    let v6 = Ipv6Addr::from(b);
    v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(IpAddr::V6(v6))
}

/// struct hs_path
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathEntry {
    pub bw_bytes_per_s: u64,
    pub stored_ns: u64,
    pub min_rtt_us: u32,
    pub flows: u32,
    pub source: u32,
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_ne_bytes(b[off..off + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_ne_bytes(b[off..off + 8].try_into().unwrap())
}

impl PathEntry {
    pub const SIZE: usize = 32;

    pub fn from_bytes(b: &[u8]) -> PathEntry {
        PathEntry { bw_bytes_per_s: u64_at(b, 0), stored_ns: u64_at(b, 8), min_rtt_us: u32_at(b, 16), flows: u32_at(b, 20), source: u32_at(b, 24) }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(Self::SIZE);
        b.extend(self.bw_bytes_per_s.to_ne_bytes());
        b.extend(self.stored_ns.to_ne_bytes());
        b.extend(self.min_rtt_us.to_ne_bytes());
        b.extend(self.flows.to_ne_bytes());
        b.extend(self.source.to_ne_bytes());
        b.extend(0u32.to_ne_bytes());
        b
    }

    pub fn validate(&self) -> Result<()> {
        ensure!(self.bw_bytes_per_s > 0 && self.bw_bytes_per_s <= MAX_BW_BYTES_PER_S, "bandwidth {} B/s is out of range", self.bw_bytes_per_s);
        ensure!(self.min_rtt_us > 0 && self.min_rtt_us <= MAX_RTT_US, "min RTT {} us is out of range (1 us .. 10 s)", self.min_rtt_us);
        ensure!((self.source as usize) < SOURCES.len(), "unknown source {}", self.source);
        Ok(())
    }

    pub fn source_name(&self) -> &'static str {
        SOURCES.get(self.source as usize).copied().unwrap_or("?")
    }
}

/// struct hs_config
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    pub startup: u32,
    pub store: u32,
    pub freeze: u32,
    pub bw_scale_pct: u32,
    pub rwnd_override: u32,
    pub max_age_s: u32,
    pub suss: u32,
    pub suss_k_max: u32,
    pub gcbe_median: u32,
    pub no_ss_after_start: u32,
    /// GCBE's noise floor in microseconds (0 = the paper: none).
    pub gcbe_min_span_us: u32,
    /// s_bbr: BBR's STARTUP ends this many RTTs after a hit unless the flow finds 25 %
    /// more bandwidth than cached (0 = BBR's STARTUP as is, the cache only a floor).
    #[serde(default = "default_bbr_plateau_rtts")]
    pub bbr_plateau_rtts: u32,
}

/// HS_BBR_PLATEAU_RTTS_DEFAULT in bpf/lib/startup.h.
pub const BBR_PLATEAU_RTTS_DEFAULT: u32 = 0;

fn default_bbr_plateau_rtts() -> u32 {
    BBR_PLATEAU_RTTS_DEFAULT
}

/// Microseconds: the default of GCBE_DEFAULT_MIN_SPAN_US in bpf/lib/gcbe.h.
pub const GCBE_DEFAULT_MIN_SPAN_US: u32 = 1000;

impl Default for Config {
    /// The same defaults the BPF side uses while the record was never written.
    fn default() -> Self {
        Config { startup: 1, store: 1, freeze: 0, bw_scale_pct: 100, rwnd_override: 2, max_age_s: 0, suss: 1, suss_k_max: 1, gcbe_median: 1, no_ss_after_start: 1, gcbe_min_span_us: GCBE_DEFAULT_MIN_SPAN_US, bbr_plateau_rtts: BBR_PLATEAU_RTTS_DEFAULT }
    }
}

pub const CONFIG_KEYS: &[&str] = &["startup", "store", "freeze", "bw_scale_pct", "rwnd_override", "max_age_s", "suss", "suss_k_max", "gcbe_median", "no_ss_after_start", "gcbe_min_span_us", "bbr_plateau_rtts"];

impl Config {
    pub fn from_bytes(b: &[u8]) -> Config {
        let c = Config {
            startup: u32_at(b, 0),
            store: u32_at(b, 4),
            freeze: u32_at(b, 8),
            bw_scale_pct: u32_at(b, 12),
            rwnd_override: u32_at(b, 16),
            max_age_s: u32_at(b, 20),
            suss: u32_at(b, 24),
            suss_k_max: u32_at(b, 28).max(1),
            gcbe_median: u32_at(b, 32),
            no_ss_after_start: u32_at(b, 36),
            // Stored as value + 1, so that a record written before the knob existed
            // (0) means the default.
            gcbe_min_span_us: u32_at(b, 40).checked_sub(1).unwrap_or(GCBE_DEFAULT_MIN_SPAN_US),
            bbr_plateau_rtts: u32_at(b, 44).checked_sub(1).unwrap_or(BBR_PLATEAU_RTTS_DEFAULT),
        };
        // An all-zero record was never written: the BPF side then uses the defaults.
        if c.bw_scale_pct == 0 { Config::default() } else { c }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        [self.startup, self.store, self.freeze, self.bw_scale_pct, self.rwnd_override, self.max_age_s, self.suss, self.suss_k_max, self.gcbe_median, self.no_ss_after_start, self.gcbe_min_span_us + 1, self.bbr_plateau_rtts + 1]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect()
    }

    pub fn get(&self, key: &str) -> Option<u32> {
        Some(match key {
            "startup" => self.startup,
            "store" => self.store,
            "freeze" => self.freeze,
            "bw_scale_pct" => self.bw_scale_pct,
            "rwnd_override" => self.rwnd_override,
            "max_age_s" => self.max_age_s,
            "suss" => self.suss,
            "suss_k_max" => self.suss_k_max,
            "gcbe_median" => self.gcbe_median,
            "no_ss_after_start" => self.no_ss_after_start,
            "gcbe_min_span_us" => self.gcbe_min_span_us,
            "bbr_plateau_rtts" => self.bbr_plateau_rtts,
            _ => return None,
        })
    }

    /// Applies `key=value`; booleans take 0/1/on/off/true/false. On error the
    /// configuration is left as it was.
    pub fn set(&mut self, assignment: &str) -> Result<()> {
        let (k, v) = assignment.split_once('=').with_context(|| format!("'{assignment}': expected KEY=VALUE"))?;
        let (k, v) = (k.trim(), v.trim());
        let boolean = || -> Result<u32> {
            match v {
                "1" | "on" | "true" | "yes" => Ok(1),
                "0" | "off" | "false" | "no" => Ok(0),
                _ => bail!("{k} takes on/off, not '{v}'"),
            }
        };
        let number = || -> Result<u32> { v.parse().with_context(|| format!("{k} takes a whole number, not '{v}'")) };
        let mut next = self.clone();
        match k {
            "startup" => next.startup = boolean()?,
            "store" => next.store = boolean()?,
            "freeze" => next.freeze = boolean()?,
            "rwnd_override" => {
                next.rwnd_override = match v {
                    "whole" | "2" => 2,
                    _ => boolean()?,
                }
            }
            "suss" => next.suss = boolean()?,
            "gcbe_median" => next.gcbe_median = boolean()?,
            "no_ss_after_start" => next.no_ss_after_start = boolean()?,
            "gcbe_min_span_us" => next.gcbe_min_span_us = number()?,
            "bbr_plateau_rtts" => next.bbr_plateau_rtts = number()?,
            "bw_scale_pct" => next.bw_scale_pct = number()?,
            "max_age_s" => next.max_age_s = number()?,
            "suss_k_max" => next.suss_k_max = number()?,
            _ => bail!("unknown knob '{k}' (knobs: {})", CONFIG_KEYS.join(", ")),
        }
        next.validate()?;
        *self = next;
        Ok(())
    }

    pub fn validate(&self) -> Result<()> {
        ensure!((1..=1000).contains(&self.bw_scale_pct), "bw_scale_pct must be 1..1000 (100 = the estimate as measured)");
        ensure!((1..=4).contains(&self.suss_k_max), "suss_k_max must be 1..4 (growth up to 4x .. 32x)");
        ensure!(self.rwnd_override <= 2, "rwnd_override must be off, on (until the first data ACK) or whole (the whole flow)");
        ensure!(self.gcbe_min_span_us <= 1_000_000, "gcbe_min_span_us must be at most 1000000 (1 s)");
        ensure!(self.bbr_plateau_rtts <= 2, "bbr_plateau_rtts must be 0 (off), 1 or 2 (BBR counts 3 rounds, the first ACK's is one)");
        for (k, v) in [("startup", self.startup), ("store", self.store), ("freeze", self.freeze), ("suss", self.suss), ("gcbe_median", self.gcbe_median), ("no_ss_after_start", self.no_ss_after_start)] {
            ensure!(v <= 1, "{k} must be 0 or 1");
        }
        Ok(())
    }
}

/// The path table on disk: JSON, every field named with its unit.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedTable {
    pub format: String,
    pub version: u32,
    pub saved_unix_s: u64,
    pub entries: Vec<SavedEntry>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedEntry {
    pub peer: String,
    pub bw_bytes_per_s: u64,
    pub min_rtt_us: u32,
    pub flows: u32,
    /// Age when saved; restore keeps it (an entry does not get younger on disk).
    pub age_s: f64,
    pub source: String,
}

pub const SAVE_FORMAT: &str = "headstart-path-table";
pub const SAVE_VERSION: u32 = 1;

impl SavedTable {
    /// Parses and validates every record; the first bad one fails the whole file.
    pub fn parse(text: &str) -> Result<Vec<(IpAddr, PathEntry, f64)>> {
        let t: SavedTable = serde_json::from_str(text).map_err(|e| anyhow::anyhow!("not a headstart table file: {e}"))?;
        ensure!(t.format == SAVE_FORMAT, "format is '{}', expected '{SAVE_FORMAT}'", t.format);
        ensure!(t.version == SAVE_VERSION, "version {} is not supported (expected {SAVE_VERSION})", t.version);
        let mut out = Vec::with_capacity(t.entries.len());
        let mut seen = std::collections::HashSet::new();
        for (i, e) in t.entries.iter().enumerate() {
            let rec = || format!("record {} ({})", i + 1, e.peer);
            let addr: IpAddr = e.peer.parse().map_err(|_| anyhow::anyhow!("{}: '{}' is not an IP address", rec(), e.peer))?;
            ensure!(seen.insert(addr), "{}: duplicate peer", rec());
            let source = SOURCES.iter().position(|s| *s == e.source).with_context(|| format!("{}: unknown source '{}'", rec(), e.source))? as u32;
            ensure!(e.age_s.is_finite() && e.age_s >= 0.0, "{}: age must be a non-negative number of seconds", rec());
            let entry = PathEntry { bw_bytes_per_s: e.bw_bytes_per_s, stored_ns: 0, min_rtt_us: e.min_rtt_us, flows: e.flows, source };
            entry.validate().with_context(rec)?;
            out.push((addr, entry, e.age_s));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_round_trip_and_layout() {
        let e = PathEntry { bw_bytes_per_s: 12_500_000, stored_ns: 77, min_rtt_us: 50_000, flows: 3, source: 0 };
        let b = e.to_bytes();
        assert_eq!(b.len(), PathEntry::SIZE);
        assert_eq!(PathEntry::from_bytes(&b), e);
        assert!(e.validate().is_ok());
        assert!(PathEntry { bw_bytes_per_s: 0, ..e.clone() }.validate().is_err());
        assert!(PathEntry { min_rtt_us: 0, ..e.clone() }.validate().is_err());
        assert!(PathEntry { min_rtt_us: MAX_RTT_US + 1, ..e.clone() }.validate().is_err());
    }

    #[test]
    fn keys_map_ipv4_into_ipv6() {
        let v4: IpAddr = "10.77.1.1".parse().unwrap();
        let k = addr_to_key(v4);
        assert_eq!(&k[10..12], &[0xff, 0xff]);
        assert_eq!(key_to_addr(&k), v4);
        let v6: IpAddr = "fd77::1:1".parse().unwrap();
        assert_eq!(key_to_addr(&addr_to_key(v6)), v6);
    }

    #[test]
    fn config_knobs() {
        let mut c = Config::default();
        c.set("bw_scale_pct=20").unwrap();
        c.set("freeze=on").unwrap();
        assert_eq!((c.bw_scale_pct, c.freeze), (20, 1));
        assert!(c.set("freeze=maybe").is_err());
        assert!(c.set("bw_scale_pct=0").is_err());
        assert_eq!(c.bw_scale_pct, 20, "a refused value changes nothing");
        assert!(c.set("nosuch=1").is_err());
        assert!(c.set("startup").is_err());
        assert!(c.set("bbr_plateau_rtts=3").is_err(), "BBR has only 3 rounds to credit");
        c.set("bbr_plateau_rtts=2").unwrap();
        assert_eq!(Config::from_bytes(&c.to_bytes()).bbr_plateau_rtts, 2, "the + 1 encoding round-trips");
        // A record written before the knob existed (its slot 0) reads as the default.
        let mut old = c.to_bytes();
        old[44..48].fill(0);
        assert_eq!(Config::from_bytes(&old).bbr_plateau_rtts, BBR_PLATEAU_RTTS_DEFAULT);
        assert_eq!(Config::from_bytes(&c.to_bytes()), c);
        assert_eq!(Config::from_bytes(&[0; 48]), Config::default());
        assert_eq!(c.to_bytes().len(), 48, "the size of struct hs_config");
    }

    #[test]
    fn saved_table_is_validated_record_by_record() {
        let good = r#"{"format":"headstart-path-table","version":1,"saved_unix_s":1,"entries":[
            {"peer":"10.0.0.1","bw_bytes_per_s":12500000,"min_rtt_us":50000,"flows":1,"age_s":3.5,"source":"s_cubic"},
            {"peer":"fd77::1:1","bw_bytes_per_s":1000,"min_rtt_us":10,"flows":0,"age_s":0,"source":"user"}]}"#;
        assert_eq!(SavedTable::parse(good).unwrap().len(), 2);
        for (bad, why) in [
            (good.replace("10.0.0.1", "10.0.0.999"), "not an IP"),
            (good.replace("12500000", "0"), "bandwidth"),
            (good.replace("\"min_rtt_us\":50000", "\"min_rtt_us\":0"), "min RTT"),
            (good.replace("3.5", "-1"), "age"),
            (good.replace("\"user\"", "\"nobody\""), "unknown source"),
            (good.replace("fd77::1:1", "10.0.0.1"), "duplicate"),
            (good.replace("\"version\":1", "\"version\":9"), "version"),
            (good.replace("headstart-path-table", "x"), "format"),
            ("{".to_string(), "not a headstart table"),
            (good.replace("\"flows\":1,", "\"flows\":1,\"extra\":2,"), "not a headstart table"),
        ] {
            let err = format!("{:#}", SavedTable::parse(&bad).unwrap_err());
            assert!(err.contains(why), "expected '{why}' in '{err}'");
        }
    }
}
