#!/usr/bin/env bash
# Installs what headstart needs on a fresh Debian machine (run as root).
# Idempotent: does nothing when everything is already there.
set -euo pipefail

APT_PACKAGES=(
  iproute2            # ip netns, ip link: the lab's namespaces and TUN devices
  util-linux          # setpriv: the not-root test
  curl nginx-light    # the lab's HTTP mode: a real server and client
  chromium            # the lab's page mode: a real browser (headless)
  fonts-dejavu-core   # labels in the PNG figures
  clang llvm          # BPF C -> BPF object
  libelf-dev zlib1g-dev pkg-config make  # libbpf (vendored by libbpf-sys) builds against these
  bpftool             # vmlinux.h from the running kernel's BTF
  prometheus          # promtool: `headstart metrics` is checked with it (the server is never started)
  systemd             # systemd-analyze: the unit files are verified with it
  debhelper           # the .deb (scripts/build-deb.sh), built and installed by a test
  redis-server        # the fleet table's Redis (the lab starts its own on loopback; never the service)
  nftables            # the lab's load balancer in front of several servers (nft, numgen DNAT)
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # nginx runs per lab run inside the lab's namespace with its own config and pid
  # file: the packages we install start no service (policy-rc.d says no while we
  # install), and a service the machine already runs is never touched.
  policy=/usr/sbin/policy-rc.d
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy"
    trap 'rm -f "$policy"' EXIT
  fi
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  if [ -n "$(trap -p EXIT)" ]; then rm -f "$policy"; trap - EXIT; fi
fi

if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "setup: no Rust toolchain found; installing Debian's cargo"
    apt-get install -y -qq cargo >/dev/null
  fi
fi
cargo --version >/dev/null
