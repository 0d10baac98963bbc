#!/usr/bin/env bash
# Builds target/debian/headstart_<version>_<arch>.deb from the release binary (the BPF
# objects are embedded in it), the systemd units, the default config, the man page and
# the licenses. Run by `make deb` after `cargo build --release`.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
arch=$(dpkg --print-architecture)
root=$(mktemp -d target/deb-root.XXXXXX)
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"
install -D -m 755 target/release/headstart "$root/usr/bin/headstart"
strip --strip-debug "$root/usr/bin/headstart"
for unit in headstart.service headstart-save.service headstart-save.timer; do
  install -D -m 644 "packaging/$unit" "$root/lib/systemd/system/$unit"
done
install -D -m 644 packaging/headstart.toml "$root/etc/headstart/headstart.toml"
install -d -m 755 "$root/usr/share/man/man8"
gzip -9n <packaging/headstart.8 >"$root/usr/share/man/man8/headstart.8.gz"
doc="$root/usr/share/doc/headstart"
install -D -m 644 LICENSE "$doc/LICENSE"
install -D -m 644 LICENSES/GPL-2.0 "$doc/LICENSES/GPL-2.0"
install -D -m 644 README.md "$doc/README.md"
cat >"$doc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: headstart

Files: *
Copyright: 2026 the headstart authors
License: MIT
 See /usr/share/doc/headstart/LICENSE.

Files: bpf/*
Copyright: 2026 the headstart authors
License: GPL-2.0-only
 The BPF programs embedded in /usr/bin/headstart.
 See /usr/share/common-licenses/GPL-2.
COPYRIGHT
chmod 644 "$doc/copyright"

install -d -m 755 "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<CONTROL
Package: headstart
Version: $version
Architecture: $arch
Maintainer: headstart authors <headstart@localhost>
Installed-Size: $size
Depends: libc6, libelf1, zlib1g, iproute2
Recommends: systemd
Section: net
Priority: optional
Description: start every TCP flow at the path's rate (BPF congestion controls)
 Stateful-start congestion controls for a running Linux kernel, as BPF struct_ops:
 s_cubic and s_bbr remember each peer's bandwidth and minimum RTT and start the next
 flow at that rate inside Careful Resume's envelope (RFC 9959), then hand over to the
 kernel's Cubic or BBR; suss accelerates slow start. headstart.service registers them
 at boot and keeps the path table across reboots; \`headstart check\` tells whether
 the kernel has what they need.
CONTROL
echo /etc/headstart/headstart.toml >"$root/DEBIAN/conffiles"
cat >"$root/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
set -e
# Not enabled or started on install: a congestion control is an operator's decision.
if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi
if [ "$1" = configure ] && [ -z "$2" ]; then
  echo "headstart: run 'headstart check', then 'systemctl enable --now headstart headstart-save.timer'"
fi
# An upgrade: prerm took the old version down (its table and knobs kept); bring the new
# one up if the operator had enabled it.
if [ "$1" = configure ] && [ -n "$2" ] && [ -d /run/systemd/system ] && systemctl is-enabled --quiet headstart 2>/dev/null; then
  systemctl restart headstart || true
fi
POSTINST
cat >"$root/DEBIAN/prerm" <<'PRERM'
#!/bin/sh
set -e
# Removing or upgrading the package takes the controllers down (the table and knobs are
# kept in /var/lib/headstart): a new version's records may differ from the pinned ones.
if { [ "$1" = remove ] || [ "$1" = upgrade ]; } && [ -x /usr/bin/headstart ]; then
  if [ -d /run/systemd/system ]; then
    systemctl stop headstart-save.timer headstart.service 2>/dev/null || true
  fi
  if [ -e /sys/fs/bpf/headstart ]; then /usr/bin/headstart down >/dev/null 2>&1 || true; fi
fi
PRERM
cat >"$root/DEBIAN/postrm" <<'POSTRM'
#!/bin/sh
set -e
if [ "$1" = purge ]; then rm -rf /var/lib/headstart; fi
if [ -d /run/systemd/system ]; then systemctl daemon-reload || true; fi
POSTRM
chmod 755 "$root/DEBIAN/postinst" "$root/DEBIAN/prerm" "$root/DEBIAN/postrm"
mkdir -p target/debian
out="target/debian/headstart_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
echo "$out"
