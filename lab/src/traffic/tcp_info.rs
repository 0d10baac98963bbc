//! What the lab reads of a TCP socket: TCP_INFO (libc's struct tcp_info), the
//! congestion control in use and BBR's estimate (TCP_CC_INFO).

use anyhow::{bail, Result};

#[derive(Clone, Copy, Debug, Default)]
pub struct CwndSample {
    /// Milliseconds since the server accepted the connection.
    pub t_ms: f64,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub pacing_bps: u64,
}

/// The cwnd at which slow start ended: the first finite ssthresh of the series
/// (HyStart and loss both set ssthresh from cwnd when they end slow start).
pub fn slow_start_exit(series: &[CwndSample]) -> Option<u32> {
    series.iter().map(|s| s.ssthresh).find(|&s| s < i32::MAX as u32)
}

/// TCP_INFO of a socket: libc's `struct tcp_info` (uapi/linux/tcp.h). A kernel that
/// fills less of it (an older one) leaves the rest zero.
pub struct TcpInfo(libc::tcp_info);

impl TcpInfo {
    pub fn get(fd: i32) -> Result<TcpInfo> {
        // SAFETY: tcp_info is plain integers; all-zero is a valid value.
        let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
        let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
        // SAFETY: getsockopt writes at most `len` bytes into info.
        let rc = unsafe { libc::getsockopt(fd, libc::IPPROTO_TCP, libc::TCP_INFO, &mut info as *mut _ as *mut _, &mut len) };
        if rc != 0 {
            bail!("TCP_INFO: {}", std::io::Error::last_os_error());
        }
        Ok(TcpInfo(info))
    }
    pub fn snd_mss(&self) -> u32 { self.0.tcpi_snd_mss }
    pub fn rtt_us(&self) -> u32 { self.0.tcpi_rtt }
    pub fn snd_ssthresh(&self) -> u32 { self.0.tcpi_snd_ssthresh }
    pub fn snd_cwnd(&self) -> u32 { self.0.tcpi_snd_cwnd }
    pub fn total_retrans(&self) -> u32 { self.0.tcpi_total_retrans }
    pub fn pacing_rate_bytes(&self) -> u64 { self.0.tcpi_pacing_rate }
    pub fn min_rtt_us(&self) -> u32 { self.0.tcpi_min_rtt }
    pub fn delivery_rate_bytes(&self) -> u64 { self.0.tcpi_delivery_rate }
    pub fn bytes_sent(&self) -> u64 { self.0.tcpi_bytes_sent }
    pub fn bytes_retrans(&self) -> u64 { self.0.tcpi_bytes_retrans }
    pub fn rwnd_limited_us(&self) -> u64 { self.0.tcpi_rwnd_limited }
    pub fn sndbuf_limited_us(&self) -> u64 { self.0.tcpi_sndbuf_limited }
}

pub(super) fn current_congestion(fd: i32) -> Option<String> {
    let mut name = [0u8; 16];
    let mut len = name.len() as libc::socklen_t;
    // SAFETY: getsockopt writes at most len bytes.
    let rc = unsafe { libc::getsockopt(fd, libc::IPPROTO_TCP, libc::TCP_CONGESTION, name.as_mut_ptr() as *mut _, &mut len) };
    (rc == 0).then(|| String::from_utf8_lossy(&name[..len as usize]).trim_end_matches('\0').to_string())
}

/// BBR's bandwidth estimate from TCP_CC_INFO (struct tcp_bbr_info: bw_lo, bw_hi in
/// bytes/s), for BBR and the controllers built on it; None for others.
pub(super) fn bbr_bandwidth(fd: i32) -> Option<u64> {
    if !current_congestion(fd)?.contains("bbr") {
        return None;
    }
    let mut info = [0u32; 5];
    let mut len = std::mem::size_of_val(&info) as libc::socklen_t;
    const TCP_CC_INFO: i32 = 26;
    // SAFETY: getsockopt writes at most len bytes into info.
    let rc = unsafe { libc::getsockopt(fd, libc::IPPROTO_TCP, TCP_CC_INFO, info.as_mut_ptr() as *mut _, &mut len) };
    if rc != 0 || (len as usize) < 8 {
        return None;
    }
    Some(((info[1] as u64) << 32 | info[0] as u64) * 8)
}

pub fn set_congestion(fd: i32, cc: &str) -> Result<()> {
    // SAFETY: setsockopt reads cc.len() bytes from the string.
    let rc = unsafe { libc::setsockopt(fd, libc::IPPROTO_TCP, libc::TCP_CONGESTION, cc.as_ptr() as *const _, cc.len() as _) };
    if rc != 0 {
        bail!("TCP_CONGESTION {cc}: {}", std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The byte offsets uapi/linux/tcp.h gives the fields the lab reads: libc's
    /// struct must agree with the kernel's.
    #[test]
    fn libc_tcp_info_has_the_kernel_layout() {
        use std::mem::offset_of;
        type T = libc::tcp_info;
        for (name, got, want) in [
            ("snd_mss", offset_of!(T, tcpi_snd_mss), 16),
            ("rtt", offset_of!(T, tcpi_rtt), 68),
            ("snd_ssthresh", offset_of!(T, tcpi_snd_ssthresh), 76),
            ("snd_cwnd", offset_of!(T, tcpi_snd_cwnd), 80),
            ("total_retrans", offset_of!(T, tcpi_total_retrans), 100),
            ("pacing_rate", offset_of!(T, tcpi_pacing_rate), 104),
            ("min_rtt", offset_of!(T, tcpi_min_rtt), 148),
            ("delivery_rate", offset_of!(T, tcpi_delivery_rate), 160),
            ("rwnd_limited", offset_of!(T, tcpi_rwnd_limited), 176),
            ("sndbuf_limited", offset_of!(T, tcpi_sndbuf_limited), 184),
            ("bytes_sent", offset_of!(T, tcpi_bytes_sent), 200),
            ("bytes_retrans", offset_of!(T, tcpi_bytes_retrans), 208),
        ] {
            assert_eq!(got, want, "tcpi_{name}");
        }
    }
}
