//! The link emulator: a clock-free bottleneck model (`model`) driven by a TUN event
//! loop (`tun_loop`).
pub mod model;
