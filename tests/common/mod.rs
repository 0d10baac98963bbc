//! Helpers shared by the privileged end-to-end tests: run the real binary, check
//! what it says and what it leaves.
#![allow(dead_code)]

use headstart::lab::metrics::FlowRow;
use headstart::lab::report::read_rows;
use std::path::Path;
use std::process::{Command, Output, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_headstart");

pub fn hs(args: &[&str]) -> Output {
    Command::new(BIN).args(args).stdin(Stdio::null()).output().expect("run headstart")
}

/// Runs headstart, asserts success, returns its standard output.
pub fn run_ok(args: &[&str]) -> String {
    let out = hs(args);
    assert!(
        out.status.success(),
        "headstart {} failed:\nstdout: {}\nstderr: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Asserts the refusal contract: exit code 1 and one stderr line naming the problem.
pub fn fails(args: &[&str], needle: &str) {
    let out = hs(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?} should fail: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{args:?}: one line, got {err}");
    assert!(err.contains(needle), "{args:?}: expected '{needle}' in {err}");
}

pub fn measured(dir: &Path) -> Vec<FlowRow> {
    read_rows(dir).unwrap().into_iter().filter(|r| r.role == "measured").collect()
}

pub fn lab_namespaces() -> Vec<String> {
    std::fs::read_dir("/var/run/netns")
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).filter(|n| n.starts_with("hslab-")).collect())
        .unwrap_or_default()
}

pub fn assert_no_lab_namespaces() {
    let left = lab_namespaces();
    assert!(left.is_empty(), "lab namespaces left behind: {left:?}");
}
