# headstart — two entry points for a fresh machine (as root):
#   make demo   installs what is needed, builds, runs the default lab sweep
#   make test   installs what is needed, builds, runs every test
SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)
BIN := target/release/headstart

.PHONY: setup build demo test unit-test e2e-test deb clean
setup:
	bash scripts/setup.sh

build: setup
	cargo build --release --locked

# Warm flows (a previous flow to the same peer first): what a stateful start needs.
demo: build
	$(BIN) lab sweep --warm --reps 2

# Unit tests, and the host tests of the algorithm headers compiled into the BPF programs.
unit-test: setup
	cargo test --release --locked --lib --bins --test bpf_algorithms --test readme --test fuzz

# Privileged end-to-end tests (namespaces, TUN, BPF) share the machine's two cores with
# the emulator, and the BPF tests own headstart's pinned state: one at a time, with an
# operator's headstart state kept before and put back after.
e2e-test: build
	scripts/keep-operator-state.sh cargo test --release --locked --test lab_e2e --test bpf_e2e --test service_e2e -- --test-threads=1

test: unit-test e2e-test

# A .deb (debhelper): the server binary (BPF objects embedded; not the lab), systemd
# units, default config, man page, licenses. DEBFULLNAME/DEBEMAIL name the maintainer.
deb: build
	scripts/build-deb.sh

clean:
	$(BIN) lab clean || true
