#!/usr/bin/env bash
# Issue 3's acceptance measurements for s_cubic, recorded in BENCHMARKS.md at 3c45a21.
# Usage: bench/s_cubic.sh [OUT]   (root; ~25 min on the 2-core VM)
set -euo pipefail
cd "$(dirname "$0")/.."
HS=${HS:-target/release/headstart}
OUT=${1:-results/bench-s_cubic-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
$HS unload --purge >/dev/null 2>&1 || true
$HS load >/dev/null

# 1. FCT efficiency, warm flows: 100 Mbit/s; RTT 10/50/100 ms; buffer 0.5 and 1 BDP.
for rtt in 10ms 50ms 100ms; do
  for buf in 0.5bdp 1bdp; do
    $HS table flush >/dev/null
    $HS lab sweep --cc cubic,s_cubic --warm --rate 100mbit --rtt $rtt --buffer $buf --reps 3 \
      --quiet --out "$OUT/omega-$rtt-$buf" > "$OUT/omega-$rtt-$buf.txt"
  done
done

# 2. GCBE: what one cold flow of each size stores, beside BBR's own estimate.
$HS lab sweep --cc s_cubic,bbr --sizes 4k,64k,1m,8m --rate 100mbit --rtt 50ms --buffer 1bdp --reps 3 \
  --quiet --no-plot --out "$OUT/gcbe" > "$OUT/gcbe.txt"

# 3. Cold flows: s_cubic with an empty table against kernel cubic.
$HS lab sweep --cc cubic,s_cubic --rate 100mbit --rtt 50ms --buffer 1bdp --reps 3 \
  --quiet --out "$OUT/cold" > "$OUT/cold.txt"

# 4. The receive-window override: on (until the jump is validated or the first sign
#    of loss), off, and off with a Windows-like receiver.
$HS lab sweep --cc s_cubic --warm --rate 100mbit --rtt 50ms --reps 3 --quiet --no-plot --out "$OUT/rwnd-whole" > "$OUT/rwnd-whole.txt"
$HS lab sweep --cc s_cubic --warm --rate 100mbit --rtt 50ms --reps 3 --no-rwnd --quiet --no-plot --out "$OUT/rwnd-off" > "$OUT/rwnd-off.txt"
$HS lab sweep --cc s_cubic --warm --rate 100mbit --rtt 50ms --reps 3 --no-rwnd --client-initrwnd 179 --quiet --no-plot --out "$OUT/rwnd-off-win" > "$OUT/rwnd-off-win.txt"
$HS lab sweep --cc s_cubic --warm --rate 100mbit --rtt 50ms --reps 3 --client-initrwnd 179 --quiet --no-plot --out "$OUT/rwnd-whole-win" > "$OUT/rwnd-whole-win.txt"

python3 bench/summarize.py "$OUT"
