//! headstart: stateful-start TCP congestion controls (BPF) and the lab that measures them.
pub mod bpf;
pub mod check;
pub mod flows;
pub mod lab;
pub mod prometheus;
pub mod service;
pub mod sys;
pub mod units;
