//! Builds the lab's own BPF programs (lab/bpf/: the papers' comparison starts, the
//! receivers' discard tracer, synthetic store events) against the headers the server
//! crate's build script prepared (DEP_HEADSTART_BPF_INCLUDE: vmlinux.h, libbpf, bpf/),
//! with its compiler flags (DEP_HEADSTART_BPF_CFLAGS).
//! They are embedded in headstart-lab only: the server binary and its .deb carry none.

use std::env;
use std::path::PathBuf;

const PROGRAMS: &[&str] = &["lab_starts", "lab_discards", "lab_store_events"];

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=bpf");
    println!("cargo:rerun-if-changed=../bpf/compile.rs");
    let include = env::var("DEP_HEADSTART_BPF_INCLUDE").expect("the headstart crate passes its BPF include directories (links = headstart_bpf)");
    let cflags = env::var("DEP_HEADSTART_BPF_CFLAGS").expect("the headstart crate passes its BPF compiler flags");
    for prog in PROGRAMS {
        compile_bpf(&format!("bpf/{prog}.bpf.c"), &out.join(format!("{prog}.bpf.o")), cflags.split_whitespace(), include.split(':').map(String::from));
    }
}

include!("../bpf/compile.rs");
