#!/usr/bin/env bash
# Cold flows (no history) of suss and s_cubic (SUSS on a miss, with the receiver's
# window opened for its rounds) against kernel cubic, and their harm (issues 4, 46).
# Usage: bench/suss.sh [OUT]   (root; ~25 min)
#   INITRWND (environment): the clients' initial receive window in MSS (179 is like
#     Windows 10; default Linux's, which grows about 2x per RTT and caps a 4x growth)
#   PARTS (environment): any of fct,stall,loss,agg,shallow,large,join (default all)
#   JOIN_REPS (environment): repetitions of the fairness run, each new controller (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
HS=${HS:-target/release/headstart}
OUT=${1:-results/bench-suss-$(date -u +%Y%m%d-%H%M%S)}
PARTS=${PARTS:-fct,stall,loss,agg,shallow,large,join}
mkdir -p "$OUT"
rwnd_flag=(); rwnd_toml=""
if [ -n "${INITRWND:-}" ]; then rwnd_flag=(--client-initrwnd "$INITRWND"); rwnd_toml="client_initrwnd = $INITRWND"; fi
want() { [[ ",$PARTS," == *",$1,"* ]]; }
$HS load s_cubic suss >/dev/null
CC=cubic,suss,s_cubic
sweep() { local name=$1; shift; $HS lab sweep --cc $CC "${rwnd_flag[@]}" --quiet --out "$OUT/$name" "$@" > "$OUT/$name.txt"; }
# 1. FCT of 256 KB - 4 MB flows at 50 and 100 ms, 100 Mbit/s, 1 BDP.
want fct && for rtt in 50ms 100ms; do sweep fct-$rtt --sizes 256k,1m,4m --rtt $rtt --reps 5; done
# 2. Harm: a reader that stops for 150 / 300 ms at the first data; random loss (the
#    receiver discards what the override let past a hole); 16 ms ACK aggregation;
#    shallow buffers at 10 and 100 Mbit/s.
want stall && for st in 150ms 300ms; do sweep stall-$st --sizes 1m,4m --rtt 100ms --reps 3 --reader-stall $st; done
want loss && sweep loss-100ms --sizes 256k,1m,4m --rtt 100ms --loss 0.5% --reps 5
want loss && sweep loss-50ms --sizes 256k,1m,4m --rtt 50ms --loss 1% --reps 5
want agg && sweep agg-16ms --sizes 1m,4m --rtt 50ms --reps 3 --ack-aggregation 16ms
want shallow && sweep shallow-10m --sizes 256k,1m,4m --rate 10mbit --rtt 50ms --buffer 0.5bdp --reps 3
want shallow && sweep shallow-20ms --sizes 256k,1m,4m --rtt 20ms --buffer 0.5bdp --reps 3
# 3. A 100 MB flow: FCT and the cwnd at slow-start exit (sampled).
want large && sweep large --sizes 100m --rtt 50ms --reps 3 --sample 1ms
# 4. Fairness: a fifth flow joins four long cubic flows at 10 s (SUSS Fig. 15).
want join && for rep in $(seq 1 "${JOIN_REPS:-5}"); do for newcc in 0 1 2; do
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
cc = ["cubic", "suss", "s_cubic"]
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
