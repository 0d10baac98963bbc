// Included by both build scripts (build.rs, lab/build.rs): one BPF C file compiled with
// the flags and include directories given.

/// Compiles `src` into `obj` with clang; panics with the reason on failure.
fn compile_bpf<'a>(src: &str, obj: &std::path::Path, cflags: impl IntoIterator<Item = &'a str>, includes: impl IntoIterator<Item = String>) {
    let status = std::process::Command::new("clang")
        .args(cflags)
        .args(includes.into_iter().map(|dir| format!("-I{dir}")))
        .args(["-c", src, "-o"])
        .arg(obj)
        .status()
        .unwrap_or_else(|e| panic!("cannot run clang ({e}): run scripts/setup.sh (apt-get install clang)"));
    assert!(status.success(), "clang failed on {src}");
}
