//! Builds the kernel side: BPF C under bpf/ -> BPF objects embedded in the binary.
//! vmlinux.h is generated from the running kernel's BTF (bpftool), the libbpf
//! headers come from the vendored libbpf of libbpf-sys (DEP_BPF_INCLUDE). The lab's
//! own programs (lab/bpf/) build in the lab's build script against the same headers,
//! which this one passes on (`links`: DEP_HEADSTART_BPF_INCLUDE).

use std::env;
use std::path::PathBuf;
use std::process::Command;

const PROGRAMS: &[&str] = &["s_cubic", "s_bbr", "suss", "rwnd", "map_count", "fleet"];
/// How every BPF object is compiled, the lab's too (passed on as DEP_HEADSTART_BPF_CFLAGS).
const CFLAGS: &[&str] = &["-g", "-O2", "-Wall", "-Werror", "-target", "bpf", "-mcpu=v3", "-D__TARGET_ARCH_x86"];

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=bpf");
    println!("cargo:rerun-if-changed=/sys/kernel/btf/vmlinux");
    git_commit();

    let vmlinux = out.join("vmlinux.h");
    let dump = Command::new("bpftool")
        .args(["btf", "dump", "file", "/sys/kernel/btf/vmlinux", "format", "c"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run bpftool ({e}): run scripts/setup.sh (apt-get install bpftool)"));
    assert!(dump.status.success(), "bpftool btf dump failed: {}", String::from_utf8_lossy(&dump.stderr));
    std::fs::write(&vmlinux, &dump.stdout).expect("write vmlinux.h");

    let libbpf_include = env::var("DEP_BPF_INCLUDE").expect("libbpf-sys exports its headers as DEP_BPF_INCLUDE");
    let bpf_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR")).join("bpf");
    // For the lab's build script: where vmlinux.h, libbpf's headers and ours are.
    println!("cargo:include={}:{libbpf_include}:{}", out.display(), bpf_dir.display());
    println!("cargo:cflags={}", CFLAGS.join(" "));
    for prog in PROGRAMS {
        let includes = [out.display().to_string(), libbpf_include.clone(), bpf_dir.display().to_string()];
        compile_bpf(&format!("bpf/{prog}.bpf.c"), &out.join(format!("{prog}.bpf.o")), CFLAGS.iter().copied(), includes);
    }
}

include!("bpf/compile.rs");

/// HEADSTART_GIT_COMMIT: the commit built, "+dirty" with uncommitted changes, for
/// run.json (what a measurement ran with). "unknown" outside a git checkout.
fn git_commit() {
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/index");
    let git = |args: &[&str]| Command::new("git").args(args).output().ok().filter(|o| o.status.success()).map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let commit = match git(&["rev-parse", "HEAD"]) {
        Some(head) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
            format!("{head}{}", if dirty { "+dirty" } else { "" })
        }
        None => "unknown".to_string(),
    };
    println!("cargo:rustc-env=HEADSTART_GIT_COMMIT={commit}");
}
