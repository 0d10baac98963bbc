//! Runs the host unit tests of the algorithm headers that the BPF programs include
//! (bpf/lib/*.h): every tests/c/test_*.c, compiled here with the system C compiler and run
//! from tests/c (recorded ACK trains in tests/c/data). tests/c/host stands in for the kernel
//! and libbpf, so that test_start.c compiles a whole controller for the host.

use std::process::Command;

#[test]
fn algorithm_headers_pass_their_c_tests() {
    let out_dir = headstart::sys::private_temp_dir("headstart-ctest").unwrap();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/c");
    let host_include = format!("-I{dir}/host");
    // The kernel side's headers, for the lab's programs (lab/bpf/) as lab/build.rs builds them.
    let bpf_include = concat!("-I", env!("CARGO_MANIFEST_DIR"), "/bpf");
    let mut sources: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "c") && p.file_name().unwrap().to_string_lossy().starts_with("test_"))
        .collect();
    sources.sort();
    assert!(sources.len() >= 2, "expected the C test files in {dir}");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let mut failures = Vec::new();
    for src in &sources {
        let name = src.file_stem().unwrap().to_string_lossy().into_owned();
        let bin = out_dir.join(&name);
        let status = Command::new(&cc).args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", &host_include, bpf_include, "-o"]).arg(&bin).arg(src).status().expect("run the C compiler");
        assert!(status.success(), "{name}: the algorithm headers do not compile for the host");
        let out = Command::new(&bin).current_dir(dir).output().expect("run the C tests");  // data/ is read from there
        let text = String::from_utf8_lossy(&out.stdout);
        print!("{name}: {text}");
        if !out.status.success() || !text.contains(" passed, 0 failed") {
            failures.push(format!("{name}:\n{text}"));
        }
    }
    let _ = std::fs::remove_dir_all(&out_dir);
    assert!(failures.is_empty(), "C tests failed:\n{}", failures.join("\n"));
}
