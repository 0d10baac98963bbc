#!/usr/bin/env bash
# Issue 5's measurements: s_bbr vs bbr and s_cubic vs cubic, Pareto(2.5) flows from one
# peer (so every flow after the first finds the path in the table), Poisson arrivals.
# Usage: bench/s_bbr.sh OUT LINK MEANS LOSSES [FLOWS] [UTIL]
#   LINK: 5g (180 Mbit/s, 20 ms, 10 MB buffer) | tmobile | verizon (traces, 50 ms RTT)
#   MEANS: e.g. 512k,1m   LOSSES: e.g. 0,0.1%,1%
#   CC (environment): the controllers, default bbr,s_bbr,cubic,s_cubic
#   PARALLEL (environment): 1 runs the controllers side by side, each on its own copy of
#     the link (same trace timeline); 0 one after the other on one link. Default: 1 on
#     the traces (5-17 Mbit/s: a 1 MB-mean run takes 6-28 min per controller), 0 on 5g
#     (four 180 Mbit/s links are more than one emulator core keeps on time).
set -euo pipefail
cd "$(dirname "$0")/.."
HS=${HS:-target/release/headstart}
OUT=$1; LINK=$2; MEANS=$3; LOSSES=$4; FLOWS=${5:-200}; UTIL=${6:-0.2}
CC=${CC:-bbr,s_bbr,cubic,s_cubic}
PARALLEL=${PARALLEL:-$([ "$LINK" = 5g ] && echo 0 || echo 1)}
parallel=$([ "$PARALLEL" = 1 ] && echo true || echo false)
ccs=$(printf '"%s", ' ${CC//,/ }); ccs="[${ccs%, }]"
mkdir -p "$OUT"
case $LINK in
  5g) link='rate = "180mbit"
rtt = "20ms"
buffer = "10mb"' ;;
  tmobile|verizon)
    T=$([ "$LINK" = tmobile ] && echo TMobile-LTE-short || echo Verizon-LTE-short)
    link="rtt = \"50ms\"
buffer = \"1280k\"
trace = \"$PWD/../shared/traces/$T.down\"
uplink_trace = \"$PWD/../shared/traces/$T.up\"" ;;
  *) echo "unknown link $LINK" >&2; exit 2 ;;
esac
for mean in ${MEANS//,/ }; do
  for loss in ${LOSSES//,/ }; do
    name="$LINK-$mean-loss$loss"
    cat > "$OUT/$name.toml" <<TOML
name = "$name"
[link]
$link
loss = "$loss"
[workload]
kind = "poisson"
cc = $ccs
mean_size = "$mean"
alpha = 2.5
utilization = $UTIL
flows = $FLOWS
clients = 1
warm = true
parallel = $parallel
TOML
    $HS lab run "$OUT/$name.toml" --quiet --out "$OUT/$name" > "$OUT/$name.txt"
  done
done
python3 bench/summarize_tput.py "$OUT"
