//! Builds the lab's own BPF programs (lab/bpf/: the papers' comparison starts, the
//! receivers' discard tracer, synthetic store events) against the headers the server
//! crate's build script prepared (DEP_HEADSTART_BPF_INCLUDE: vmlinux.h, libbpf, bpf/),
//! with its compiler flags (DEP_HEADSTART_BPF_CFLAGS).
//! They are embedded in headstart-lab only: the server binary and its .deb carry none.

use std::env;
use std::path::PathBuf;
use std::process::Command;

const PROGRAMS: &[&str] = &["lab_starts", "lab_discards", "lab_store_events"];

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=bpf");
    let include = env::var("DEP_HEADSTART_BPF_INCLUDE").expect("the headstart crate passes its BPF include directories (links = headstart_bpf)");
    let cflags = env::var("DEP_HEADSTART_BPF_CFLAGS").expect("the headstart crate passes its BPF compiler flags");
    for prog in PROGRAMS {
        let src = format!("bpf/{prog}.bpf.c");
        let obj = out.join(format!("{prog}.bpf.o"));
        let status = Command::new("clang")
            .args(cflags.split_whitespace())
            .args(include.split(':').map(|dir| format!("-I{dir}")))
            .args(["-c", &src, "-o"])
            .arg(&obj)
            .status()
            .unwrap_or_else(|e| panic!("cannot run clang ({e}): run scripts/setup.sh (apt-get install clang)"));
        assert!(status.success(), "clang failed on {src}");
    }
}
