//! Parsing and printing of rates, durations, sizes and probabilities as users write
//! them (`100mbit`, `50ms`, `64k`, `1bdp`, `0.1%`). Sizes use binary prefixes
//! (8k = 8192 bytes) as the papers' flow sizes do; rates use decimal ones as tc does.

use anyhow::{bail, Result};

fn split_number(text: &str) -> Result<(f64, String)> {
    let t = text.trim().to_ascii_lowercase();
    let cut = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(cut);
    let value: f64 = num
        .parse()
        .map_err(|_| anyhow::anyhow!("'{text}' does not start with a number"))?;
    if !value.is_finite() {
        bail!("'{text}' is not a finite number");
    }
    Ok((value, unit.trim().to_string()))
}

/// A rate in bits per second: `100mbit`, `1gbit`, `500kbit`, `12000000` (bit/s).
pub fn parse_rate(text: &str) -> Result<u64> {
    let (v, unit) = split_number(text)?;
    let scale = match unit.as_str() {
        "" | "bit" | "bps" => 1.0,
        "kbit" => 1e3,
        "mbit" => 1e6,
        "gbit" => 1e9,
        _ => bail!("unknown rate unit in '{text}' (use bit, kbit, mbit or gbit, e.g. 100mbit)"),
    };
    let bps = (v * scale).round();
    if bps < 1000.0 {
        bail!("rate '{text}' is too low: the link needs at least 1kbit");
    }
    if bps > 100e9 {
        bail!("rate '{text}' is above 100gbit, beyond what this emulator can pretend to carry");
    }
    Ok(bps as u64)
}

/// A duration in nanoseconds: `50ms`, `500us`, `1s`, `1.5ms`.
pub fn parse_duration_ns(text: &str) -> Result<u64> {
    let (v, unit) = split_number(text)?;
    let scale = match unit.as_str() {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        _ => bail!("unknown time unit in '{text}' (use us, ms or s, e.g. 50ms)"),
    };
    let ns = v * scale;
    if ns > 3600e9 {
        bail!("duration '{text}' is longer than an hour");
    }
    Ok(ns.round() as u64)
}

/// A byte count with binary prefixes: `8k`, `1m`, `1.5m`, `4096`, `10mb`.
pub fn parse_size(text: &str) -> Result<u64> {
    let (v, unit) = split_number(text)?;
    let scale = match unit.as_str() {
        "" | "b" => 1.0,
        "k" | "kb" | "kib" => 1024.0,
        "m" | "mb" | "mib" => 1024.0 * 1024.0,
        "g" | "gb" | "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => bail!("unknown size unit in '{text}' (use k, m or g, e.g. 64k)"),
    };
    let bytes = (v * scale).round();
    if bytes > 64.0 * 1024.0 * 1024.0 * 1024.0 {
        bail!("size '{text}' is larger than 64 GiB");
    }
    Ok(bytes as u64)
}

/// A buffer, absolute (`10mb`, `625k`) or in bandwidth-delay products (`1bdp`, `0.5bdp`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferSpec {
    Bytes(u64),
    Bdp(f64),
}

impl BufferSpec {
    pub fn parse(text: &str) -> Result<BufferSpec> {
        let t = text.trim().to_ascii_lowercase();
        if let Some(num) = t.strip_suffix("bdp") {
            let v: f64 = num
                .trim()
                .parse()
                .map_err(|_| anyhow::anyhow!("buffer '{text}': expected a number before 'bdp'"))?;
            if !(v > 0.0 && v.is_finite()) {
                bail!("buffer '{text}' must be a positive number of BDPs");
            }
            return Ok(BufferSpec::Bdp(v));
        }
        Ok(BufferSpec::Bytes(parse_size(text)?))
    }

    pub fn bytes(&self, bits_per_sec: f64, rtt_ns: u64) -> u64 {
        match *self {
            BufferSpec::Bytes(b) => b,
            BufferSpec::Bdp(k) => (k * bits_per_sec / 8.0 * rtt_ns as f64 / 1e9).round() as u64,
        }
    }
}

/// A probability: `0.1%` or `0.001`.
pub fn parse_probability(text: &str) -> Result<f64> {
    let t = text.trim();
    let (num, scale) = match t.strip_suffix('%') {
        Some(n) => (n, 0.01),
        None => (t, 1.0),
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| anyhow::anyhow!("'{text}' is not a probability (e.g. 0.1% or 0.001)"))?;
    let p = v * scale;
    if !(0.0..1.0).contains(&p) {
        bail!("probability '{text}' must be at least 0 and below 100%");
    }
    Ok(p)
}

pub fn fmt_size(bytes: u64) -> String {
    const K: u64 = 1024;
    if bytes >= K * K && bytes.is_multiple_of(K * K / 4) {
        let m = bytes as f64 / (K * K) as f64;
        if m.fract() == 0.0 { format!("{}M", m as u64) } else { format!("{m}M") }
    } else if bytes >= K && bytes.is_multiple_of(K) {
        format!("{}K", bytes / K)
    } else {
        format!("{bytes}B")
    }
}

pub fn fmt_rate(bps: f64) -> String {
    if bps >= 1e9 {
        format!("{:.3}gbit", bps / 1e9)
    } else if bps >= 1e6 {
        format!("{:.3}mbit", bps / 1e6)
    } else {
        format!("{:.1}kbit", bps / 1e3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("100mbit").unwrap(), 100_000_000);
        assert_eq!(parse_rate("1gbit").unwrap(), 1_000_000_000);
        assert_eq!(parse_rate("1.5Mbit").unwrap(), 1_500_000);
        assert!(parse_rate("0mbit").is_err());
        assert!(parse_rate("0").is_err());
        assert!(parse_rate("100mbps").is_err());
        assert!(parse_rate("fast").is_err());
        assert!(parse_rate("-5mbit").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("50ms").unwrap(), 50_000_000);
        assert_eq!(parse_duration_ns("500us").unwrap(), 500_000);
        assert_eq!(parse_duration_ns("1.5s").unwrap(), 1_500_000_000);
        assert!(parse_duration_ns("50").is_err());
        assert!(parse_duration_ns("2h").is_err());
    }

    #[test]
    fn sizes_are_binary() {
        assert_eq!(parse_size("8k").unwrap(), 8192);
        assert_eq!(parse_size("1m").unwrap(), 1 << 20);
        assert_eq!(parse_size("10MB").unwrap(), 10 << 20);
        assert_eq!(parse_size("1500").unwrap(), 1500);
        assert!(parse_size("1q").is_err());
        assert_eq!(fmt_size(8192), "8K");
        assert_eq!(fmt_size(1 << 20), "1M");
        assert_eq!(fmt_size(8 << 20), "8M");
        assert_eq!(fmt_size(1000), "1000B");
    }

    #[test]
    fn buffers() {
        let b = BufferSpec::parse("1bdp").unwrap();
        // 100 Mbit/s x 50 ms = 625,000 bytes.
        assert_eq!(b.bytes(100e6, 50_000_000), 625_000);
        assert_eq!(BufferSpec::parse("0.5bdp").unwrap().bytes(100e6, 50_000_000), 312_500);
        assert_eq!(BufferSpec::parse("10mb").unwrap(), BufferSpec::Bytes(10 << 20));
        assert!(BufferSpec::parse("0bdp").is_err());
        assert!(BufferSpec::parse("xbdp").is_err());
    }

    #[test]
    fn probabilities() {
        assert_eq!(parse_probability("0.1%").unwrap(), 0.001);
        assert_eq!(parse_probability("0.01").unwrap(), 0.01);
        assert_eq!(parse_probability("0").unwrap(), 0.0);
        assert!(parse_probability("100%").is_err());
        assert!(parse_probability("-1%").is_err());
        assert!(parse_probability("abc").is_err());
    }
}
