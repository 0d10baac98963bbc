#!/usr/bin/env bash
# Issue 4's measurements for suss against kernel cubic (flows with no history).
# Usage: bench/suss.sh [OUT]   (root; ~15 min)
#   INITRWND (environment): the clients' initial receive window in MSS (179 is like
#     Windows 10; default Linux's, which grows about 2x per RTT and caps a 4x growth)
#   PARTS (environment): any of fct,large,cwnd,join (default all)
#   JOIN_REPS (environment): repetitions of the fairness run, alternating cubic/suss (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
HS=${HS:-target/release/headstart}
OUT=${1:-results/bench-suss-$(date -u +%Y%m%d-%H%M%S)}
PARTS=${PARTS:-fct,large,cwnd,join}
mkdir -p "$OUT"
rwnd_flag=(); rwnd_toml=""
if [ -n "${INITRWND:-}" ]; then rwnd_flag=(--client-initrwnd "$INITRWND"); rwnd_toml="client_initrwnd = $INITRWND"; fi
want() { [[ ",$PARTS," == *",$1,"* ]]; }
$HS load suss >/dev/null
# 1. FCT of 256 KB - 4 MB flows at 50 and 100 ms, 100 Mbit/s, 1 BDP.
want fct && for rtt in 50ms 100ms; do
  $HS lab sweep --cc cubic,suss --sizes 256k,512k,1m,2m,4m --rtt $rtt --reps 5 "${rwnd_flag[@]}" \
    --quiet --out "$OUT/fct-$rtt" > "$OUT/fct-$rtt.txt"
done
# 2. A 100 MB flow: FCT and the cwnd at slow-start exit (sampled), and the cwnd plot.
want large && $HS lab sweep --cc cubic,suss --sizes 100m --rtt 50ms --reps 3 --sample 1ms "${rwnd_flag[@]}" \
  --quiet --out "$OUT/large" > "$OUT/large.txt"
want cwnd && $HS lab sweep --cc cubic,suss --sizes 1m --rtt 100ms --reps 1 --sample 1ms "${rwnd_flag[@]}" \
  --quiet --out "$OUT/cwnd-1m" > "$OUT/cwnd-1m.txt"
# 3. Fairness: a fifth flow joins four long cubic flows at 10 s (SUSS Fig. 15).
want join && for rep in $(seq 1 "${JOIN_REPS:-5}"); do for newcc in 0 1; do
  name="join-$newcc-$rep"
  cat > "$OUT/$name.toml" <<TOML
name = "$name"
$rwnd_toml
[link]
rate = "100mbit"
rtt = "50ms"
buffer = "1bdp"
[workload]
kind = "competing"
cc = ["cubic", "suss"]
bin = "100ms"
[[workload.flows]]
start = "0s"
size = "90m"
[[workload.flows]]
start = "0.5s"
size = "90m"
[[workload.flows]]
start = "1s"
size = "90m"
[[workload.flows]]
start = "1.5s"
size = "90m"
[[workload.flows]]
start = "10s"
size = "40m"
cc = $newcc
TOML
  $HS lab run "$OUT/$name.toml" --quiet --out "$OUT/$name" > "$OUT/$name.txt"
done; done
python3 bench/summarize_suss.py "$OUT"
