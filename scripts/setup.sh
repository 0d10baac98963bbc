#!/usr/bin/env bash
# Installs what headstart needs on a fresh Debian machine (run as root).
# Idempotent: does nothing when everything is already there.
set -euo pipefail

APT_PACKAGES=(
  iproute2            # ip netns, ip link: the lab's namespaces and TUN devices
  util-linux          # setpriv: the not-root test
  curl nginx-light    # the lab's HTTP mode: a real server and client
  fonts-dejavu-core   # labels in the PNG figures
  clang llvm          # BPF C -> BPF object
  libelf-dev zlib1g-dev pkg-config make  # libbpf (vendored by libbpf-sys) builds against these
  bpftool             # vmlinux.h from the running kernel's BTF
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# nginx is started per run inside the lab's namespace, never as a system service.
if systemctl is-active --quiet nginx 2>/dev/null; then systemctl stop nginx || true; fi

if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "setup: no Rust toolchain found; installing Debian's cargo"
    apt-get install -y -qq cargo >/dev/null
  fi
fi
cargo --version >/dev/null
