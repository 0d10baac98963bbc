//! headstart: stateful-start TCP congestion controls (BPF) and the tool that runs them
//! on a server. The lab that measures them is its own crate (lab/, headstart-lab).
pub mod bpf;
pub mod check;
pub mod cli;
pub mod fleet;
pub mod flows;
pub mod prometheus;
pub mod service;
pub mod sys;
pub mod units;

/// The commit this build came from ("+dirty" with uncommitted changes): run.json
/// records it with every measurement.
pub const GIT_COMMIT: &str = env!("HEADSTART_GIT_COMMIT");
