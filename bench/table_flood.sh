#!/usr/bin/env bash
# The threat model's eviction attacks, measured: a 1,024-entry table holding 200 entries
# of "the server's own peers" (set by hand, 10.99.0.0/24 — not lab addresses), then a
# flood of short s_cubic flows from 2,000 lab peers (2 clients x 1,000 addresses),
# sent by a server whose listening sockets belong to uid 65534 (a local user who
# selected s_cubic for its own sockets):
#   untrusted  trusted_uid_max at its default (999): the flood's flows are the kernel's
#   trusted    trusted_uid_max=65534: the flood writes the table, as before the knob
# Prints, per case, the flows counted untrusted, the stores, and how many of the 200
# entries survived. Usage: bench/table_flood.sh OUT [FLOWS]
set -euo pipefail
cd "$(dirname "$0")/.."
HS=${HS:-target/release/headstart}
OUT=$1; FLOWS=${2:-2000}
mkdir -p "$OUT"
cat > "$OUT/flood.toml" <<TOML
name = "flood"
server_uid = 65534
[link]
rate = "100mbit"
rtt = "10ms"
[workload]
kind = "poisson"
cc = ["s_cubic"]
mean_size = "64k"
utilization = 0.3
flows = $FLOWS
clients = 2
peers_per_client = $((FLOWS / 2))
seed = 7
TOML
survivors() { $HS table list --json | grep -c '"peer":"10\.99\.0\.' || true; }
counter() { $HS status --json | python3 -c "import json,sys; s=json.load(sys.stdin); print(next(c for c in s['controllers'] if c['name']=='s_cubic')['counters']['$1'])"; }
for case in untrusted trusted; do
  $HS unload --purge >/dev/null 2>&1 || true
  $HS load --table-size 1024 >/dev/null
  [[ $case == trusted ]] && $HS config trusted_uid_max=65534 >/dev/null
  for i in $(seq 1 200); do $HS table set 10.99.0.$i --bw 50mbit --rtt 30ms >/dev/null; done
  $HS lab run "$OUT/flood.toml" --quiet --no-plot --out "$OUT/$case" > "$OUT/$case.txt"
  echo "$case: flows $(counter flows), untrusted $(counter untrusted), stores $(counter stores), entries $($HS table list --json | wc -l), the server's 200 entries left: $(survivors)"
done | tee "$OUT/summary.txt"
$HS unload --purge >/dev/null
