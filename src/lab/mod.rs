//! The lab: emulated bottleneck links between real Linux TCP endpoints.
pub mod emulator;
