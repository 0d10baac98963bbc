#!/usr/bin/env bash
# Runs a command (the privileged tests) and leaves headstart's state as it found it:
# the tests purge and reload headstart's pinned state, so an operator's registered
# controllers, table, knobs and default congestion control are kept before and put
# back after — with headstart's own `save` and `up`, on success, failure and Ctrl-C.
set -uo pipefail
BIN=${BIN:-target/release/headstart}
keep=$(mktemp -d /tmp/headstart-operator-state.XXXXXX)
chmod 700 "$keep"
default_cc=$(cat /proc/sys/net/ipv4/tcp_congestion_control)
allowed_cc=$(cat /proc/sys/net/ipv4/tcp_allowed_congestion_control)
had_state=0
if [ -e /sys/fs/bpf/headstart/hs_paths ]; then
  # A state this build cannot read (another version's pinned table) cannot be kept:
  # say so once, with status's own error above, rather than run the tests over it.
  if ! status=$("$BIN" status --json); then
    echo "keep-operator-state: headstart's pinned state cannot be read by this build (above): not running the tests over it" >&2
    exit 1
  fi
  loaded=$(python3 -c 'import json,sys; print(" ".join(c["name"] for c in json.load(sys.stdin)["controllers"] if c["loaded"]))' <<<"$status")
  size=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["table"]["capacity"])' <<<"$status")
  # None registered (unloaded, table kept): register all to restore, unregister after.
  controllers=$(printf '"%s",' ${loaded:-s_cubic s_bbr suss})
  # Interfaces of this namespace with the window override: attached again after (the
  # tests' purge leaves their filter on maps nothing marks any more).
  ifaces=""
  for dev in $(ls /sys/class/net); do
    if tc filter show dev "$dev" ingress 2>/dev/null | grep -q hs_rwnd; then ifaces="$ifaces\"$dev\","; fi
  done
  cat >"$keep/headstart.toml" <<TOML
controllers = [${controllers%,}]
table_size = $size
state_dir = "$keep/state"
interfaces = [${ifaces%,}]
TOML
  if "$BIN" save --config "$keep/headstart.toml" >/dev/null; then
    had_state=1
    echo "keep-operator-state: headstart's state kept in $keep (put back after the tests)"
  else
    echo "keep-operator-state: could not keep headstart's state: not running the tests" >&2
    exit 1
  fi
fi

put_back() {
  "$BIN" unload --purge >/dev/null 2>&1
  local keep_files=0
  if [ "$had_state" = 1 ]; then
    if "$BIN" up --config "$keep/headstart.toml" >/dev/null; then
      [ -n "$loaded" ] || "$BIN" unload >/dev/null 2>&1
      echo "keep-operator-state: headstart's state put back"
    else
      echo "keep-operator-state: could not put headstart's state back: it is in $keep" >&2
      keep_files=1
    fi
  fi
  echo "$allowed_cc" >/proc/sys/net/ipv4/tcp_allowed_congestion_control
  echo "$default_cc" >/proc/sys/net/ipv4/tcp_congestion_control
  [ "$keep_files" = 1 ] || rm -rf "$keep"
}
trap put_back EXIT
trap 'exit 130' INT TERM
"$@"
