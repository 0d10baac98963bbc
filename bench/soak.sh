#!/usr/bin/env bash
# The soak of issue 45: a 1,000,000-entry path table, CONNS (default 10,000) clients on
# persistent loopback connections in a private namespace, every one through s_cubic
# (the namespace's local route names it), for DURATION seconds (default 600), while the
# controllers are unloaded and loaded, and the service brought down and up, every
# CYCLE seconds (default 30); `headstart metrics` timed at each step. Then: new kernel
# warnings (dmesg), no window past 2^20 packets (sampled each cycle), the peers' open-flow counts back at 0 (hs_open), no window grant
# left (hs_rwnd), no client stuck mid-response, and every step's exit status.
# Usage: scripts/keep-operator-state.sh bench/soak.sh OUT   (root; CONNS, DURATION, CYCLE)
set -euo pipefail
cd "$(dirname "$0")/.."
HS=${HS:-target/release/headstart}
OUT=${1:?usage: bench/soak.sh OUT}
CONNS=${CONNS:-10000}; SECONDS_RUN=${DURATION:-600}; CYCLE=${CYCLE:-30}
mkdir -p "$OUT"
NS="hs-soak-$$"
cleanup() {
  [[ -n ${traffic:-} ]] && kill "$traffic" 2>/dev/null || true
  [[ -n ${server:-} ]] && kill "$server" 2>/dev/null || true
  ip netns delete "$NS" 2>/dev/null || true
  "$HS" down --config "$OUT/soak.toml" >/dev/null 2>&1 || true
  "$HS" unload --purge >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM

echo "soak: a table of 1,000,000 entries"
# The clients' own addresses among them, at 160 Gbit/s and 4 us (about a loopback
# path's: a 55-packet BDP), so that their flows jump, validate, restart after idle and
# store (the knobs below let a start go that fast); the rest are other peers.
python3 - "$OUT/table.json" "$CONNS" <<'PY'
import sys, time
sys.path.insert(0, "bench")
from soak_traffic import client_addr
conns = int(sys.argv[2])
clients = sorted({client_addr(i) for i in range(conns)})
entry = '{"peer":"%s","bw_bytes_per_s":%d,"min_rtt_us":%d,"flows":1,"age_s":1.0,"source":"s_cubic","lossy":false,"clean_segs":0,"agreed":1,"handshakes":1,"busy_pct":0.0,"overruns":0,"overrun_age_s":0.0}'
with open(sys.argv[1], "w") as f:
    f.write('{"format":"headstart-path-table","version":1,"saved_unix_s":%d,"entries":[\n' % int(time.time()))
    f.write(",\n".join(entry % (a, 20000000000, 4) for a in clients))
    for i in range(1000000 - len(clients)):
        f.write(",\n" + entry % (f"10.{16 + (i >> 16)}.{(i >> 8) & 255}.{i & 255}", 1000000 + i, 20000 + i % 1000))
    f.write("\n]}\n")
PY
cat > "$OUT/soak.toml" <<TOML
controllers = ["s_cubic", "s_bbr"]
table_size = 1048576
state_dir = "$(realpath "$OUT")/state"
[knobs]
one_table = "on"  # the clients' namespace uses the entries restored into the host's
max_start_rate_mbps = 1000000
store_cap_mbps = 100000
TOML
"$HS" unload --purge >/dev/null 2>&1 || true
"$HS" up --config "$OUT/soak.toml" >/dev/null
"$HS" table restore "$OUT/table.json"
dmesg_before=$(dmesg | wc -l)

ip netns add "$NS"
ip -n "$NS" link set lo mtu 1500 up  # an Ethernet MSS: window sizes in the packets of a real path
ip -n "$NS" route replace local 127.0.0.0/8 dev lo table local congctl s_cubic
echo "soak: $CONNS connections for $SECONDS_RUN s, a cycle every $CYCLE s"
ip netns exec "$NS" python3 bench/soak_traffic.py server 2> "$OUT/server.log" &
server=$!
sleep 1
ip netns exec "$NS" python3 bench/soak_traffic.py clients "$CONNS" "$SECONDS_RUN" > "$OUT/traffic.json" 2> "$OUT/traffic.log" &
traffic=$!

steps=0; failed=0; : > "$OUT/steps.txt"
step() {  # a step's command, its exit status and time, one line each
  local t0 t1 rc=0
  t0=$(date +%s.%N); "$@" >> "$OUT/steps.log" 2>&1 || rc=$?; t1=$(date +%s.%N)
  echo "$(date +%T) rc=$rc $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s: $*" | tee -a "$OUT/steps.txt"
  steps=$((steps + 1)); [[ $rc == 0 ]] || failed=$((failed + 1))
}
start=$(date +%s); n=0
while kill -0 "$traffic" 2>/dev/null && (( $(date +%s) - start < SECONDS_RUN )); do
  sleep "$CYCLE"
  /usr/bin/time -f "%e s %M KB" -a -o "$OUT/metrics-time.txt" "$HS" metrics > /dev/null
  # The largest window among the flows now: the kernel WARNs only once per boot when a
  # window passes 2^31, so a recurrence would be silent after the first.
  ip netns exec "$NS" ss -tin state established | grep -o 'cwnd:[0-9]*' | cut -d: -f2 | sort -n | tail -1 >> "$OUT/cwnd-max.txt" || true
  if (( n % 2 == 0 )); then
    step "$HS" unload
    step "$HS" load
  else
    step "$HS" down --config "$OUT/soak.toml"
    step "$HS" up --config "$OUT/soak.toml"
  fi
  n=$((n + 1))
done
wait "$traffic" || true
traffic=
kill "$server" 2>/dev/null || true
wait "$server" 2>/dev/null || true
server=

sleep 5  # the last connections' orphans close
python3 - "$OUT" "$dmesg_before" "$steps" "$failed" <<'PY' | tee "$OUT/summary.txt"
import json, os, subprocess, sys
out, before, steps, failed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
t = json.load(open(f"{out}/traffic.json"))
new = subprocess.run(["dmesg"], capture_output=True, text=True).stdout.splitlines()[before:]
bad = [l for l in new if any(w in l for w in ("WARNING", "BUG", "Oops", "refcount", "stall", "leak"))]
def dump(m):  # bpftool's entries, their values by field name (BTF)
    r = subprocess.run(["bpftool", "-j", "map", "dump", "pinned", f"/sys/fs/bpf/headstart/{m}"], capture_output=True, text=True)
    return [e.get("formatted", e)["value"] for e in json.loads(r.stdout)] if r.returncode == 0 else None
opened = dump("hs_open")
open_left = [v for v in opened or [] if v["open"] or v["armed"] or v["starting"]]
grants = len(dump("hs_rwnd") or [])
if opened is None:
    print("soak: hs_open could not be read")
cwnds = [int(l) for l in open(f"{out}/cwnd-max.txt") if l.strip().isdigit()] if os.path.exists(f"{out}/cwnd-max.txt") else []
times = [float(l.split()[0]) for l in open(f"{out}/metrics-time.txt") if l.strip() and l.split()[0][0].isdigit()]
rss = [int(l.split()[2]) for l in open(f"{out}/metrics-time.txt") if l.strip() and l.split()[0][0].isdigit()]
s = t["stats"]
errors = {k: v for k, v in s.items() if k not in ("responses", "bytes")}
print(f"traffic: {t['conns']} connections, {s.get('responses', 0)} responses, {s.get('bytes', 0) / 1e9:.1f} GB, errors {errors or 'none'}, stuck {t['stuck']}")
st = json.loads(subprocess.run([os.environ.get("HS", "target/release/headstart"), "status", "--json"], capture_output=True, text=True).stdout or "{}")
c = next((c["counters"] for c in st.get("controllers", []) if c["name"] == "s_cubic"), {})
print("s_cubic counters at the end: " + ", ".join(f"{k} {v}" for k, v in c.items() if v))
print(f"cycles: {steps} steps, {failed} failed")
print(f"metrics at 1M entries: max {max(times, default=0):.2f} s, {max(rss, default=0) / 1024:.1f} MB")
print(f"kernel: {len(bad)} new warnings" + "".join(f"\n  {l}" for l in bad[:10]))
print(f"left behind: {len(open_left)} peers counted open, {grants} window grants")
print(f"largest window seen (every cycle): {max(cwnds, default=0)} packets")
ok = max(cwnds, default=0) < 1 << 20 and c.get("flows", 0) > 0 and opened is not None and not bad and not open_left and grants == 0 and t["stuck"] == 0 and failed == 0 and not errors and max(times, default=0) < 1 and max(rss, default=0) < 50 * 1024
print("soak:", "PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
