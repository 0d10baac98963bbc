#!/usr/bin/env bash
# Builds target/debian/headstart_<version>_<arch>.deb with debhelper, the way Debian
# packages are built: the server binary (cargo build --release first; the BPF objects
# are embedded, the lab is not), its systemd units (dh_installsystemd: neither enabled
# nor started on install), the default config (a conffile), the man page and the
# licenses; debhelper strips the binary and writes the changelog and checksums.
# The maintainer is DEBFULLNAME <DEBEMAIL>, as Debian's tools take it; without them a
# placeholder that lintian rightly refuses (bogus-mail-host).
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
maintainer="${DEBFULLNAME:-headstart authors} <${DEBEMAIL:-headstart@localhost}>"
mkdir -p target
work=$(realpath "$(mktemp -d target/deb-build.XXXXXX)")
trap 'rm -rf "$work"' EXIT
src="$work/headstart-$version"
mkdir -p "$src/LICENSES"
cp -r packaging/debian "$src/debian"
sed -i "s|@MAINTAINER@|$maintainer|" "$src/debian/control"
cp packaging/headstart.service "$src/debian/headstart.service"
cp packaging/headstart-save.service "$src/debian/headstart.headstart-save.service"
cp packaging/headstart-save.timer "$src/debian/headstart.headstart-save.timer"
cp packaging/headstart-fleet.service "$src/debian/headstart.headstart-fleet.service"
cp target/release/headstart packaging/headstart.toml packaging/headstart.8 LICENSE "$src/"
cp LICENSES/GPL-2.0 "$src/LICENSES/"
# The changelog's one entry: this version, dated by the commit built (reproducible).
when=$(git log -1 --format=%cD 2>/dev/null || date -R)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
cat >"$src/debian/changelog" <<CHANGELOG
headstart ($version) unstable; urgency=medium

  * Built from commit $commit.

 -- $maintainer  $when
CHANGELOG
(cd "$src" && dpkg-buildpackage -b -us -uc >"$work/build.log" 2>&1) || { cat "$work/build.log" >&2; exit 1; }
mkdir -p target/debian
deb=$(cd "$work" && ls headstart_"$version"_*.deb)
mv "$work/$deb" "target/debian/$deb"
echo "target/debian/$deb"
