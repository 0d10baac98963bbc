//! The lab: emulated bottleneck links between real Linux TCP endpoints, workloads
//! like the papers', and their metrics, tables and plots.
pub mod calibrate;
pub mod emulator;
pub mod experiment;
pub mod fleet;
pub mod kernel;
pub mod metrics;
pub mod overhead;
pub mod plot;
pub mod report;
pub mod reproduce;
pub mod run;
pub mod testbed;
pub mod topology;
pub mod traffic;
pub mod workloads;
