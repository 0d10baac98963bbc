//! The link emulator: a clock-free bottleneck model (`model`) driven by a TUN event
//! loop (`runner`), reporting its own accuracy (`stats`).
pub mod aqm;
pub mod model;
pub mod runner;
pub mod stats;
