//! The path table from userspace: peer keys, entry validation, the save file.

use anyhow::{ensure, Context, Result};
use serde::{Deserialize, Serialize};
use super::abi::{self, PathEntry, SOURCES};
use std::net::{IpAddr, Ipv6Addr};

/// Bounds a stored estimate must respect: beyond them it is corrupt, not a path.
pub const MAX_BW_BYTES_PER_S: u64 = 1 << 40; // ~8.8 Tbit/s
pub const MAX_RTT_US: u32 = 10_000_000; // 10 s

pub fn addr_to_key(addr: IpAddr) -> [u8; 16] {
    match addr {
        IpAddr::V4(a) => a.to_ipv6_mapped().octets(),
        IpAddr::V6(a) => a.octets(),
    }
}

/// The path table's key of a peer, as bpf/lib/path_key.h's hs_path_key computes it (a
/// unit test runs both on the same addresses): an IPv6 address cut to its first
/// `prefix_len` bits (32..=127; otherwise whole), IPv4 (mapped) and NAT64
/// (64:ff9b::/96) addresses whole.
pub fn path_key(addr: IpAddr, prefix_len: u32) -> [u8; 16] {
    let mut b = addr_to_key(addr);
    if !(32..128).contains(&prefix_len) {
        return b;
    }
    let v4_mapped = b[..10].iter().all(|&x| x == 0) && b[10..12] == [0xff, 0xff];
    let nat64 = b[..4] == [0, 0x64, 0xff, 0x9b] && b[4..12].iter().all(|&x| x == 0);
    if v4_mapped || nat64 {
        return b;
    }
    for (i, byte) in b.iter_mut().enumerate() {
        let first_bit = i as u32 * 8;
        if first_bit >= prefix_len {
            *byte = 0;
        } else if first_bit + 8 > prefix_len {
            *byte &= 0xffu8 << (8 - (prefix_len - first_bit));
        }
    }
    b
}

/// An entry's key as userspace holds it: the peer's (cut) address and the network
/// namespace whose flows use it (0: the host's; bpf/records.h, struct hs_peer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Peer {
    pub addr: IpAddr,
    pub netns: u64,
}

impl Peer {
    pub fn host(addr: IpAddr) -> Peer {
        Peer { addr, netns: 0 }
    }

    /// From a map key: this release's 24 bytes, or an older release's bare address (16: the host's).
    pub fn from_key(k: &[u8]) -> Peer {
        let netns = k.get(16..24).map(|b| u64::from_ne_bytes(b.try_into().unwrap())).unwrap_or(0);
        Peer { addr: key_to_addr(k), netns }
    }

    pub fn key(&self) -> abi::PeerKey {
        abi::PeerKey { bytes: addr_to_key(self.addr), netns: self.netns }
    }

    /// The namespace for people: None for the host's, its `ip netns` name, or its
    /// cookie (`#N`) for a namespace with no name.
    pub fn netns_name(&self, names: &std::collections::HashMap<u64, String>) -> Option<String> {
        (self.netns != 0).then(|| names.get(&self.netns).cloned().unwrap_or_else(|| format!("#{}", self.netns)))
    }
}

pub fn key_to_addr(k: &[u8]) -> IpAddr {
    let mut b = [0u8; 16];
    b.copy_from_slice(&k[..16]);
    let v6 = Ipv6Addr::from(b);
    v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(IpAddr::V6(v6))
}

/// Checks an entry before it goes into the table (set, restore).
pub fn validate_entry(e: &PathEntry) -> Result<()> {
    ensure!(e.bw_bytes_per_s > 0 && e.bw_bytes_per_s <= MAX_BW_BYTES_PER_S, "bandwidth {} B/s is out of range", e.bw_bytes_per_s);
    ensure!(e.min_rtt_us > 0 && e.min_rtt_us <= MAX_RTT_US, "min RTT {} us is out of range (1 us .. 10 s)", e.min_rtt_us);
    ensure!((e.source as usize) < SOURCES.len(), "unknown source {}", e.source);
    Ok(())
}

/// hs_path.busy_share (HS_BUSY_SHARE_ONE = every handshake) as a percentage, and back.
pub fn busy_pct(busy_share: u32) -> f64 {
    busy_share.min(abi::BUSY_SHARE_ONE) as f64 * 100.0 / abi::BUSY_SHARE_ONE as f64
}

pub fn busy_share_of(pct: f64) -> u32 {
    (pct.clamp(0.0, 100.0) / 100.0 * abi::BUSY_SHARE_ONE as f64).round() as u32
}

/// Seconds since the entry's last receiver overrun (0 if it had none).
pub fn overrun_age_s(e: &PathEntry, now_boot_ns: u64) -> f64 {
    if e.overruns == 0 {
        return 0.0;
    }
    (now_boot_ns / 1_000_000_000).saturating_sub(e.overrun_s as u64) as f64
}

pub fn source_name(e: &PathEntry) -> &'static str {
    SOURCES.get(e.source as usize).copied().unwrap_or("?")
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

/// A SavedTable as written: the entries made one by one as the writer takes them.
#[derive(Serialize)]
pub struct SavedTableOut<'a> {
    pub format: &'static str,
    pub version: u32,
    pub saved_unix_s: u64,
    pub entries: EntriesOut<'a>,
}

/// The entries of a SavedTableOut: a source of them, serialized as a JSON array.
pub struct EntriesOut<'a>(pub Box<dyn Fn() -> Box<dyn Iterator<Item = SavedEntry> + 'a> + 'a>);

impl Serialize for EntriesOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((self.0)())
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedEntry {
    pub peer: String,
    /// The network namespace (its `ip netns` name) whose flows use the entry; absent:
    /// the host's. A namespace without a name is not saved (its cookie dies with it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub netns: Option<String>,
    pub bw_bytes_per_s: u64,
    pub min_rtt_us: u32,
    pub flows: u32,
    /// Age when saved; restore keeps it (an entry does not get younger on disk).
    pub age_s: f64,
    pub source: String,
    /// HS_PATH_LOSSY (absent in files written before it: not lossy).
    #[serde(default)]
    pub lossy: bool,
    /// Lossy: segments sent clean since the mark (absent in older files: 0).
    #[serde(default)]
    pub clean_segs: u32,
    /// Flows in a row that agreed with it (absent in older files: 0).
    #[serde(default)]
    pub agreed: u32,
    /// Handshakes that looked it up (absent in older files: 0).
    #[serde(default)]
    pub handshakes: u32,
    /// The share of recent ones that found the bottleneck busy, % (absent: 0).
    #[serde(default)]
    pub busy_pct: f64,
    /// Jumps whose receiver discarded data past its window (absent in older files: 0).
    #[serde(default)]
    pub overruns: u32,
    /// Seconds since the last of them when saved (with overruns > 0).
    #[serde(default)]
    pub overrun_age_s: f64,
}

pub const SAVE_FORMAT: &str = "headstart-path-table";
pub const SAVE_VERSION: u32 = 1;

impl SavedTable {
    /// Parses a save file's text and validates every record (parse_reader).
    pub fn parse(text: &str) -> Result<ParsedTable> {
        Self::parse_reader(text.as_bytes())
    }

    /// Reads a save file (a regular file of at most `limit` bytes) entry by entry.
    pub fn read(path: &std::path::Path, limit: u64) -> Result<ParsedTable> {
        use std::io::Read;
        let f = crate::sys::open_regular_file(path, limit).with_context(|| format!("cannot read {}", path.display()))?;
        Self::parse_reader(std::io::BufReader::with_capacity(1 << 20, f.take(limit)))
    }

    /// Parses a save file and validates every record as it comes: a million entries are
    /// held as their checked records, not as text and a tree of JSON. A file that is
    /// not a table (JSON, format, version) is an error; a bad record is set aside in
    /// `dropped` with its reason, and the caller decides (`up` restores the rest,
    /// `table restore` refuses). `::ffff:a.b.c.d` and `a.b.c.d` are one peer (one key):
    /// the second is a duplicate.
    pub fn parse_reader(r: impl std::io::Read) -> Result<ParsedTable> {
        let t: SavedTableIn = serde_json::from_reader(r).map_err(|e| anyhow::anyhow!("not a headstart table file: {e}"))?;
        ensure!(t.format == SAVE_FORMAT, "format is '{}', expected '{SAVE_FORMAT}'", t.format);
        ensure!(t.version == SAVE_VERSION, "version {} is not supported (expected {SAVE_VERSION})", t.version);
        Ok(ParsedTable { saved_unix_s: t.saved_unix_s, records: t.entries.records, dropped: t.entries.dropped })
    }

    fn record(e: &SavedEntry, seen: &mut std::collections::HashSet<(Option<String>, [u8; 16])>) -> Result<SavedRecord> {
        let addr: IpAddr = e.peer.parse().map_err(|_| anyhow::anyhow!("'{}' is not an IP address", e.peer))?;
        if let Some(n) = &e.netns {
            crate::sys::check_netns_name(n)?;
        }
        let source = SOURCES.iter().position(|s| *s == e.source).with_context(|| format!("unknown source '{}'", e.source))? as u16;
        ensure!(e.age_s.is_finite() && e.age_s >= 0.0, "age must be a non-negative number of seconds");
        ensure!(e.busy_pct.is_finite() && (0.0..=100.0).contains(&e.busy_pct), "busy_pct must be 0..100");
        ensure!(e.overrun_age_s.is_finite() && e.overrun_age_s >= 0.0, "overrun_age_s must be a non-negative number of seconds");
        let entry = PathEntry { bw_bytes_per_s: e.bw_bytes_per_s, stored_ns: 0, min_rtt_us: e.min_rtt_us, flows: e.flows, source, flags: if e.lossy { super::abi::PATH_LOSSY } else { 0 }, clean_segs: if e.lossy { e.clean_segs } else { 0 }, agreed: e.agreed, handshakes: e.handshakes, busy_share: busy_share_of(e.busy_pct), overruns: e.overruns, ..Default::default() };
        validate_entry(&entry)?;
        // Last: a bad record does not take its peer's key from a good one after it.
        ensure!(seen.insert((e.netns.clone(), addr_to_key(addr))), "duplicate peer (the same key as an earlier record)");
        Ok(SavedRecord { peer: key_to_addr(&addr_to_key(addr)), netns: e.netns.clone(), entry, age_s: e.age_s, overrun_age_s: e.overrun_age_s })
    }
}

/// A save file as it is read: its entries checked one by one as the parser meets them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedTableIn {
    format: String,
    version: u32,
    saved_unix_s: u64,
    entries: RecordsIn,
}

#[derive(Default)]
struct RecordsIn {
    records: Vec<SavedRecord>,
    dropped: Vec<String>,
}

impl<'de> Deserialize<'de> for RecordsIn {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = RecordsIn;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of entries")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<RecordsIn, A::Error> {
                let mut out = RecordsIn::default();
                let mut seen = std::collections::HashSet::new();
                let mut i = 0;
                while let Some(e) = seq.next_element::<SavedEntry>()? {
                    i += 1;
                    match SavedTable::record(&e, &mut seen) {
                        Ok(r) => out.records.push(r),
                        Err(why) => out.dropped.push(format!("record {i} ({}): {why:#}", e.peer)),
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_seq(Visitor)
    }
}

/// One validated record of a save file: its entry's clocks (stored_ns, overrun_s)
/// are set at restore, from the ages.
#[derive(Debug)]
pub struct SavedRecord {
    pub peer: IpAddr,
    /// Its namespace's name; None: the host's.
    pub netns: Option<String>,
    pub entry: PathEntry,
    /// Age when saved, s.
    pub age_s: f64,
    /// Since the entry's last receiver overrun when saved, s (entry.overruns > 0).
    pub overrun_age_s: f64,
}

/// A validated save file, and when it was saved.
#[derive(Debug)]
pub struct ParsedTable {
    pub saved_unix_s: u64,
    pub records: Vec<SavedRecord>,
    /// Records set aside, each with its number, peer and reason.
    pub dropped: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_validated() {
        let e = PathEntry { bw_bytes_per_s: 12_500_000, stored_ns: 77, min_rtt_us: 50_000, flows: 3, ..Default::default() };
        assert!(validate_entry(&e).is_ok());
        assert!(validate_entry(&PathEntry { bw_bytes_per_s: 0, ..e }).is_err());
        assert!(validate_entry(&PathEntry { min_rtt_us: 0, ..e }).is_err());
        assert!(validate_entry(&PathEntry { min_rtt_us: MAX_RTT_US + 1, ..e }).is_err());
        assert!(validate_entry(&PathEntry { source: 9, ..e }).is_err());
    }

    /// A table written entry by entry reads back as the same file a whole one makes.
    #[test]
    fn a_streamed_table_is_the_same_json() {
        let entry = |i: u64| SavedEntry {
            peer: format!("10.0.0.{i}"),
            netns: (i == 3).then(|| "tenant".into()),
            bw_bytes_per_s: 1_000_000 * i,
            min_rtt_us: 20_000,
            flows: 1,
            age_s: 1.5,
            source: "s_cubic".into(),
            lossy: i == 2,
            clean_segs: 0,
            agreed: 1,
            handshakes: 2,
            busy_pct: 0.0,
            overruns: 0,
            overrun_age_s: 0.0,
        };
        let whole = SavedTable { format: SAVE_FORMAT.into(), version: SAVE_VERSION, saved_unix_s: 7, entries: (1..4).map(entry).collect() };
        let streamed = SavedTableOut { format: SAVE_FORMAT, version: SAVE_VERSION, saved_unix_s: 7, entries: EntriesOut(Box::new(move || Box::new((1..4).map(entry)))) };
        assert_eq!(serde_json::to_string_pretty(&streamed).unwrap(), serde_json::to_string_pretty(&whole).unwrap());
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
    fn saved_table_is_validated_record_by_record() {
        let good = r#"{"format":"headstart-path-table","version":1,"saved_unix_s":1,"entries":[
            {"peer":"10.0.0.1","bw_bytes_per_s":12500000,"min_rtt_us":50000,"flows":1,"age_s":3.5,"source":"s_cubic"},
            {"peer":"fd77::1:1","bw_bytes_per_s":1000,"min_rtt_us":10,"flows":0,"age_s":0,"source":"user"}]}"#;
        let parsed = SavedTable::parse(good).unwrap();
        assert_eq!((parsed.records.len(), parsed.dropped.len()), (2, 0));
        for (bad, why) in [
            (good.replace("10.0.0.1", "10.0.0.999"), "not an IP"),
            (good.replace("12500000", "0"), "bandwidth"),
            (good.replace("\"min_rtt_us\":50000", "\"min_rtt_us\":0"), "min RTT"),
            (good.replace("3.5", "-1"), "age"),
            (good.replace("\"user\"", "\"nobody\""), "unknown source"),
            (good.replace("fd77::1:1", "10.0.0.1"), "duplicate"),
            (good.replace("fd77::1:1", "::ffff:10.0.0.1"), "duplicate"),
            (good.replace("\"version\":1", "\"version\":9"), "version"),
            (good.replace("headstart-path-table", "x"), "format"),
            ("{".to_string(), "not a headstart table"),
            (good.replace("\"flows\":1,", "\"flows\":1,\"extra\":2,"), "not a headstart table"),
            (good.replace("\"flows\":1,", "\"flows\":1,\"busy_pct\":101,"), "busy_pct"),
            (good.replace("\"flows\":1,", "\"flows\":1,\"busy_pct\":-1,"), "busy_pct"),
            (good.replace("\"flows\":1,", "\"flows\":1,\"overruns\":1,\"overrun_age_s\":-3,"), "overrun_age_s"),
            (good.replace("\"flows\":1,", "\"flows\":1,\"netns\":\"../x\","), "not a network namespace name"),
            (good.replace("\"flows\":1,", "\"flows\":1,\"netns\":\"\","), "not a network namespace name"),
        ] {
            let err = match SavedTable::parse(&bad) {
                Err(e) => format!("{e:#}"),
                Ok(p) => {
                    assert_eq!((p.records.len(), p.dropped.len()), (1, 1), "one record set aside for '{why}'");
                    p.dropped[0].clone()
                }
            };
            assert!(err.contains(why), "expected '{why}' in '{err}'");
        }
    }

    /// One address in the host's namespace and in a named one is two entries, not a
    /// duplicate; twice in the same namespace is.
    #[test]
    fn a_namespace_makes_its_own_key() {
        let rec = |netns: &str| format!(r#"{{"peer":"10.0.0.1",{netns}"bw_bytes_per_s":12500000,"min_rtt_us":50000,"flows":1,"age_s":1,"source":"s_cubic"}}"#);
        let file = |recs: &[String]| format!(r#"{{"format":"headstart-path-table","version":1,"saved_unix_s":1,"entries":[{}]}}"#, recs.join(","));
        let p = SavedTable::parse(&file(&[rec(""), rec(r#""netns":"tenant","#)])).unwrap();
        assert_eq!((p.records.len(), p.dropped.len()), (2, 0));
        assert_eq!((p.records[0].netns.as_deref(), p.records[1].netns.as_deref()), (None, Some("tenant")));
        let p = SavedTable::parse(&file(&[rec(r#""netns":"tenant","#), rec(r#""netns":"tenant","#)])).unwrap();
        assert!(p.dropped.len() == 1 && p.dropped[0].contains("duplicate"), "{:?}", p.dropped);
        // A map key of this release (24 bytes) and of an older one (16: the host's).
        let k = Peer { addr: "10.0.0.1".parse().unwrap(), netns: 42 }.key();
        let mut bytes = k.bytes.to_vec();
        bytes.extend(k.netns.to_ne_bytes());
        assert_eq!(Peer::from_key(&bytes), Peer { addr: "10.0.0.1".parse().unwrap(), netns: 42 });
        assert_eq!(Peer::from_key(&bytes[..16]), Peer::host("10.0.0.1".parse().unwrap()));
    }

    #[test]
    fn a_bad_record_is_set_aside_and_the_rest_kept() {
        // An ACK-holding peer left an 11 s min RTT: the others still come back.
        let file = r#"{"format":"headstart-path-table","version":1,"saved_unix_s":1,"entries":[
            {"peer":"10.0.0.1","bw_bytes_per_s":12500000,"min_rtt_us":11000000,"flows":1,"age_s":1,"source":"s_cubic"},
            {"peer":"10.0.0.2","bw_bytes_per_s":12500000,"min_rtt_us":50000,"flows":1,"age_s":1,"source":"s_cubic"},
            {"peer":"10.0.0.1","bw_bytes_per_s":12500000,"min_rtt_us":40000,"flows":1,"age_s":1,"source":"s_bbr"}]}"#;
        let p = SavedTable::parse(file).unwrap();
        let peers: Vec<String> = p.records.iter().map(|r| r.peer.to_string()).collect();
        assert_eq!(peers, ["10.0.0.2", "10.0.0.1"], "the bad record does not make its peer's good one a duplicate");
        assert_eq!(p.dropped.len(), 1);
        assert!(p.dropped[0].starts_with("record 1 (10.0.0.1): min RTT 11000000 us"), "{}", p.dropped[0]);
    }
    #[test]
    fn a_busy_share_comes_back_as_saved() {
        let file = |busy: &str| {
            format!(
                r#"{{"format":"headstart-path-table","version":1,"saved_unix_s":1,"entries":[
                {{"peer":"10.0.0.1","bw_bytes_per_s":12500000,"min_rtt_us":50000,"flows":1,"age_s":1,"source":"s_cubic"{busy}}}]}}"#
            )
        };
        let e = &SavedTable::parse(&file(r#","handshakes":12,"busy_pct":25"#)).unwrap().records[0].entry;
        assert_eq!((e.handshakes, e.busy_share), (12, abi::BUSY_SHARE_ONE / 4));
        assert_eq!(busy_pct(e.busy_share), 25.0);
        let e = &SavedTable::parse(&file("")).unwrap().records[0].entry;
        assert_eq!((e.handshakes, e.busy_share), (0, 0), "older files: no share");
        assert_eq!(busy_pct(u32::MAX), 100.0, "a corrupt share reads as every handshake");
    }
    #[test]
    fn a_receivers_overruns_come_back_with_their_age() {
        let file = |more: &str| {
            format!(
                r#"{{"format":"headstart-path-table","version":1,"saved_unix_s":1,"entries":[
                {{"peer":"10.0.0.1","bw_bytes_per_s":12500000,"min_rtt_us":50000,"flows":1,"age_s":1,"source":"s_cubic"{more}}}]}}"#
            )
        };
        let r = &SavedTable::parse(&file(r#","overruns":3,"overrun_age_s":42.5"#)).unwrap().records[0];
        assert_eq!((r.entry.overruns, r.overrun_age_s), (3, 42.5));
        let r = &SavedTable::parse(&file("")).unwrap().records[0];
        assert_eq!((r.entry.overruns, r.overrun_age_s), (0, 0.0), "older files: none");
        let e = PathEntry { overruns: 2, overrun_s: 1000, ..Default::default() };
        assert_eq!(overrun_age_s(&e, 1_030_500_000_000), 30.0);
        assert_eq!(overrun_age_s(&PathEntry { overrun_s: 1000, ..Default::default() }, 1_030_500_000_000), 0.0, "no overrun: no age");
    }
    #[test]
    fn a_lossy_mark_comes_back_with_its_clean_count() {
        let file = |lossy: bool| {
            format!(
                r#"{{"format":"headstart-path-table","version":1,"saved_unix_s":1,"entries":[
                {{"peer":"10.0.0.1","bw_bytes_per_s":12500000,"min_rtt_us":50000,"flows":1,"age_s":1,"source":"s_cubic","lossy":{lossy},"clean_segs":4200}}]}}"#
            )
        };
        let e = &SavedTable::parse(&file(true)).unwrap().records[0].entry;
        assert_eq!((e.flags, e.clean_segs), (super::super::abi::PATH_LOSSY, 4200));
        // A count without the mark means nothing: not carried.
        let e = &SavedTable::parse(&file(false)).unwrap().records[0].entry;
        assert_eq!((e.flags, e.clean_segs), (0, 0));
    }
}
