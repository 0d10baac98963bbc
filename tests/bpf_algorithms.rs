//! Runs the host unit tests of the algorithm headers that the BPF programs include
//! (bpf/lib/*.h): tests/c/test_algorithms.c, compiled here with the system C compiler.

use std::process::Command;

#[test]
fn algorithm_headers_pass_their_c_tests() {
    let out_dir = std::env::temp_dir().join(format!("headstart-ctest-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let bin = out_dir.join("test_algorithms");
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/c/test_algorithms.c");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc).args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", "-o"]).arg(&bin).arg(src).status().expect("run the C compiler");
    assert!(status.success(), "the algorithm headers do not compile for the host");
    let out = Command::new(&bin).output().expect("run the C tests");
    let text = String::from_utf8_lossy(&out.stdout);
    print!("{text}");
    let _ = std::fs::remove_dir_all(&out_dir);
    assert!(out.status.success(), "C tests failed:\n{text}");
    assert!(text.contains(" passed, 0 failed"), "unexpected output: {text}");
}
