//! Fuzzing of what an operator or a file hands the tool (issue 45): the unit parsers
//! (rates, durations, sizes, probabilities), headstart.toml and a kept table.json.
//! Inputs are mutations of valid ones (tokens inserted, ranges deleted or repeated,
//! characters replaced, cut short) from a fixed seed, so a failure replays. Each input
//! must come back as a value or an error, never a panic; an error must say something;
//! none may take long (a hang shows as a slow input). HEADSTART_FUZZ_INPUTS sets the
//! inputs per target (default 50,000; RESULTS.md records a run of 1,000,000). The
//! `headstart: error:` line itself is one line by construction (main.rs joins an
//! error's lines), so what is checked here is what reaches it.

use headstart_lab::emulator::model::SplitMix64;
use std::time::{Duration, Instant};

fn inputs() -> usize {
    std::env::var("HEADSTART_FUZZ_INPUTS").ok().and_then(|v| v.parse().ok()).unwrap_or(50_000)
}

/// One mutation step of `s`, on char boundaries.
fn mutate(rng: &mut SplitMix64, s: &str, tokens: &[&str]) -> String {
    let mut out = s.to_string();
    let steps = 1 + rng.next_u64() % 4;
    for _ in 0..steps {
        let bounds: Vec<usize> = out.char_indices().map(|(i, _)| i).chain(std::iter::once(out.len())).collect();
        let pick = |rng: &mut SplitMix64| bounds[(rng.next_u64() % bounds.len() as u64) as usize];
        let (a, b) = {
            let (x, y) = (pick(rng), pick(rng));
            (x.min(y), x.max(y))
        };
        match rng.next_u64() % 6 {
            0 | 1 => out.insert_str(a, tokens[(rng.next_u64() % tokens.len() as u64) as usize]),
            2 => out.replace_range(a..b, ""),
            3 => {
                let piece = out[a..b].to_string();
                out.insert_str(b, &piece.repeat(1 + (rng.next_u64() % 3) as usize));
            }
            4 => out.replace_range(a..b, tokens[(rng.next_u64() % tokens.len() as u64) as usize]),
            _ => out.truncate(a),
        }
        if out.len() > 64 * 1024 {
            out.truncate(64 * 1024);
            while !out.is_char_boundary(out.len()) {
                out.pop();
            }
        }
    }
    out
}

/// Runs `f` on `n` mutations of the seeds; asserts no panic, a non-empty message on
/// every error and no input slower than `limit`. Returns (accepted, refused, slowest).
fn fuzz(name: &str, seeds: &[&str], tokens: &[&str], limit: Duration, f: impl Fn(&str) -> Result<(), String>) -> (usize, usize, Duration) {
    let mut rng = SplitMix64::new(0x4853_4655_5a5a ^ name.len() as u64);
    let (mut ok, mut refused, mut slowest) = (0, 0, Duration::ZERO);
    for i in 0..inputs() {
        let seed = seeds[i % seeds.len()];
        let input = if i < seeds.len() { seed.to_string() } else { mutate(&mut rng, seed, tokens) };
        let t = Instant::now();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&input)));
        let took = t.elapsed();
        let r = r.unwrap_or_else(|_| panic!("{name}: input {i} panicked: {input:?}"));
        assert!(took < limit, "{name}: input {i} took {took:?}: {input:?}");
        slowest = slowest.max(took);
        match r {
            Ok(()) => ok += 1,
            Err(e) => {
                assert!(!e.trim().is_empty(), "{name}: input {i} refused without a word: {input:?}");
                refused += 1;
            }
        }
    }
    eprintln!("{name}: {} inputs, {ok} accepted, {refused} refused, slowest {slowest:?}", inputs());
    (ok, refused, slowest)
}

const NUMBER_TOKENS: &[&str] = &[
    "0", "1", "9", ".", "..", "e", "E", "-", "+", "_", " ", "\t", "\n", "\0", "k", "m", "g", "t", "bit", "bps", "b", "B", "ms", "us", "µs", "ns", "s",
    "h", "bdp", "%", "kbit", "mbit", "gbit", "99999999999999999999", "1e308", "1e309", "inf", "nan", "NaN", "0x10", "½", "ß", "٣", "🙂",
];

fn error_text(r: anyhow::Result<impl Sized>) -> Result<(), String> {
    r.map(|_| ()).map_err(|e| format!("{e:#}"))
}

#[test]
fn unit_parsers_never_panic_nor_hang() {
    use headstart::units::{parse_duration_ns, parse_probability, parse_rate, parse_size};
    let limit = Duration::from_millis(50);
    let (ok, refused, _) = fuzz("rates", &["100mbit", "1.5gbit", "500kbit", "12000000", "10mbps"], NUMBER_TOKENS, limit, |s| error_text(parse_rate(s)));
    assert!(ok > 0 && refused > 0, "the mutations reach both outcomes");
    fuzz("durations", &["50ms", "2s", "10us", "0.5s", "100ns"], NUMBER_TOKENS, limit, |s| error_text(parse_duration_ns(s)));
    fuzz("sizes", &["64k", "8m", "1bdp", "0.5bdp", "625000", "10mb"], NUMBER_TOKENS, limit, |s| error_text(parse_size(s)));
    fuzz("probabilities", &["0.1%", "1%", "0", "0.001"], NUMBER_TOKENS, limit, |s| error_text(parse_probability(s)));
}

const TOML_TOKENS: &[&str] = &[
    "[knobs]", "[[knobs]]", "[", "]", "{", "}", "=", "\"", "'", "'''", "\"\"\"", ",", "\n", "#", "\\", "\\u0000", "\0", "controllers = [\"s_cubic\"]",
    "default_cc = \"s_cubic\"", "table_size = 99999999999", "table_size = -1", "table_size = 1024", "interfaces = [\"eth0\", \"../x\"]",
    "state_dir = \"relative\"", "state_dir = \"/var/lib/x\"", "mode = \"on\"", "mode = \"shadow\"", "max_age_s = 0", "max_start_cwnd = 1e9",
    "store_cap_mbps = true", "trusted_uid_max = -5", "ipv6_prefix_len = 129", "x = 1979-05-27T07:32:00Z", "inf", "nan", "1e309", "0x7fffffff",
    "unknown = 1", "🙂", "a.b.c = 1", "[knobs.deep]",
];

#[test]
fn headstart_toml_never_panics_nor_hangs() {
    let shipped = include_str!("../packaging/headstart.toml");
    let seeds = [
        shipped,
        "controllers = [\"s_cubic\", \"s_bbr\"]\ntable_size = 4096\n[knobs]\nmode = \"shadow\"\nmax_age_s = 600\n",
        "state_dir = \"/var/lib/headstart\"\ninterfaces = [\"lo\"]\n",
    ];
    let (ok, refused, _) = fuzz("headstart.toml", &seeds, TOML_TOKENS, Duration::from_millis(200), |s| {
        let parsed: headstart::service::ConfigText = toml::from_str(s).map_err(|e| e.to_string())?;
        error_text(parsed.validate())
    });
    assert!(ok > 0 && refused > 0, "the mutations reach both outcomes");
}

const JSON_TOKENS: &[&str] = &[
    "{", "}", "[", "]", ":", ",", "\"", "null", "true", "false", "-1", "0", "1e400", "-0.0", "NaN", "18446744073709551616", "4294967296",
    "\"peer\": \"::ffff:10.0.0.1\"", "\"peer\": \"10.0.0.1\"", "\"peer\": \"fe80::1%eth0\"", "\"source\": \"user\"", "\"source\": \"nope\"",
    "\"age_s\": -5", "\"busy_pct\": 101", "\"min_rtt_us\": 11000000", "\"bw_bytes_per_s\": 1099511627777", "\"version\": 2",
    "\"format\": \"x\"", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "\\u0000", "\\ud800", "🙂", " ", "\n",
];

#[test]
fn a_kept_table_json_never_panics_nor_hangs() {
    let entry = |peer: &str| {
        format!(
            "{{\"peer\": \"{peer}\", \"bw_bytes_per_s\": 12500000, \"min_rtt_us\": 50000, \"flows\": 3, \"age_s\": 12.5, \"source\": \"s_cubic\", \
             \"lossy\": false, \"clean_segs\": 0, \"agreed\": 1, \"handshakes\": 4, \"busy_pct\": 25.0, \"overruns\": 0, \"overrun_age_s\": 0.0}}"
        )
    };
    let one = format!("{{\"format\": \"headstart-path-table\", \"version\": 1, \"saved_unix_s\": 1790000000, \"entries\": [{}]}}", entry("10.77.1.1"));
    let two = format!(
        "{{\"format\": \"headstart-path-table\", \"version\": 1, \"saved_unix_s\": 1790000000, \"entries\": [{}, {}]}}",
        entry("fd77::1"),
        entry("192.0.2.7")
    );
    assert!(headstart::bpf::table::SavedTable::parse(&one).is_ok_and(|t| t.records.len() == 1 && t.dropped.is_empty()), "the seed is a valid file");
    let (ok, refused, _) = fuzz("table.json", &[&one, &two], JSON_TOKENS, Duration::from_millis(200), |s| {
        let t = headstart::bpf::table::SavedTable::parse(s).map_err(|e| format!("{e:#}"))?;
        // A dropped record is named with its reason, as `up` warns.
        assert!(t.dropped.iter().all(|d| d.starts_with("record ") && !d.contains('\n')), "{:?}", t.dropped);
        Ok(())
    });
    assert!(ok > 0 && refused > 0, "the mutations reach both outcomes");
}
