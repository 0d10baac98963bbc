#!/usr/bin/env bash
# Issue 11's measurements (Careful Resume), recorded in BENCHMARKS.md at 3c45a21.
# Usage: bench/careful_resume.sh OUT [PARTS]   (root)
#   PARTS (comma-separated, default all): clean, error, fairness
#     clean     Issue 3's six paths (100 Mbit/s; 10/50/100 ms; 0.5 and 1 BDP), warm
#               flows 8 KB-8 MB, s_cubic vs cubic (~20 min)
#     error     the default path with the cached rate x 20/50/200/1000 % and the cached
#               RTT x 40/1200 %, s_cubic vs cubic and s_bbr vs bbr (~15 min)
#     fairness  two clients behind one 100 Mbit/s, 50 ms bottleneck, Poisson flows
#               (Pareto 2.5, means 64K-1M) at 12/27/63 % total load: one client kernel
#               cubic (bbr), the other s_cubic (s_bbr), against both on the kernel's
#               (FLOWS per run, default 200; ~30 min)
#   KNOBS (environment): extra `headstart config` assignments for every run
#   APP (environment): the application (lab, http, https; default the lab's own
#     sender), and CONNECTIONS: each flow over this many connections at once (http,
#     https: curl --parallel, 1/N of the bytes each), in every part
#   PAIRS (environment): the fairness part's pairs (default "cubic,s_cubic cubic,cubic
#     bbr,s_bbr bbr,bbr")
#   SEEDS, LOADS, MEANS (environment): the fairness part's Poisson seeds (default 21),
#     loads (default "0.12 0.27 0.63") and means (default "64k 128k 512k 1m"). One seed
#     gives both runs of a pair the same flows, so they compare flow by flow.
#   REPS (environment): run each fairness run this many times (default 1; names end
#     -rK), and TAG: a name for the KNOBS variant, added to the names of the runs that
#     mix a headstart client in (not to the kernel-only baselines), so that
#     bench/summarize_fairness.py reads variants, repetitions and baselines of several
#     OUT folders together
set -euo pipefail
cd "$(dirname "$0")/.."
HS=${HS:-target/release/headstart}
OUT=$1; PARTS=${2:-clean,error,fairness}; FLOWS=${FLOWS:-200}
[[ ${REPS:-1} =~ ^[1-9][0-9]*$ ]] || { echo "careful_resume.sh: error: REPS must be a whole number >= 1" >&2; exit 1; }
# bench/summarize_fairness.py reads a lowercase word after the seed as the variant, -rK as a repetition.
[[ -z ${TAG:-} || ( ${TAG} =~ ^[a-z][a-z0-9_]*$ && ! ${TAG} =~ ^r[0-9]+$ ) ]] \
  || { echo "careful_resume.sh: error: TAG must be a lowercase word (letters, digits, _), not r<digits>" >&2; exit 1; }
mkdir -p "$OUT"
$HS unload --purge >/dev/null 2>&1 || true
$HS load >/dev/null
fresh() { $HS table flush >/dev/null; $HS lab knobs bw_scale_pct=100 rtt_scale_pct=100 ${KNOBS:-} >/dev/null; }
has() { [[ ",$PARTS," == *",$1,"* ]]; }

if has clean; then
  for rtt in 10ms 50ms 100ms; do
    for buf in 0.5bdp 1bdp; do
      fresh
      $HS lab sweep --cc cubic,s_cubic --warm --rate 100mbit --rtt $rtt --buffer $buf --reps 2 ${APP:+--app $APP} ${CONNECTIONS:+--connections $CONNECTIONS} \
        --quiet --no-plot --out "$OUT/clean-$rtt-$buf" > "$OUT/clean-$rtt-$buf.txt"
    done
  done
fi

if has error; then
  for knob in bw_scale_pct=20 bw_scale_pct=50 bw_scale_pct=200 bw_scale_pct=1000 rtt_scale_pct=40 rtt_scale_pct=1200; do
    fresh
    $HS lab knobs $knob >/dev/null
    $HS lab sweep --cc cubic,s_cubic,bbr,s_bbr --warm --sizes 64k,256k,1m,4m,8m --reps 2 ${APP:+--app $APP} ${CONNECTIONS:+--connections $CONNECTIONS} \
      --quiet --no-plot --out "$OUT/error-${knob/=/-}" > "$OUT/error-${knob/=/-}.txt"
  done
  fresh
fi

if has fairness; then
  for pair in ${PAIRS:-cubic,s_cubic cubic,cubic bbr,s_bbr bbr,bbr}; do
    for load in ${LOADS:-0.12 0.27 0.63}; do
      for mean in ${MEANS:-64k 128k 512k 1m}; do
       for seed in ${SEEDS:-21}; do
        for rep in $(seq 1 "${REPS:-1}"); do
        fresh
        name="fair-${pair/,/+}-$mean-load$load-s$seed"
        [[ -n ${TAG:-} && ${pair%,*} != "${pair#*,}" ]] && name+="-$TAG"
        [[ ${REPS:-1} -gt 1 ]] && name+="-r$rep"
        cat > "$OUT/$name.toml" <<TOML
name = "$name"
${APP:+app = \"$APP\"}
${CONNECTIONS:+connections = $CONNECTIONS}
[link]
rate = "100mbit"
rtt = "50ms"
buffer = "1bdp"
[workload]
kind = "poisson"
cc = ["${pair/,/\", \"}"]
mean_size = "$mean"
alpha = 2.5
utilization = $load
flows = $FLOWS
clients = 1
warm = true
mixed = true
seed = $seed
TOML
        $HS lab run "$OUT/$name.toml" --quiet --no-plot --out "$OUT/$name" > "$OUT/$name.txt"
        done
       done
      done
    done
  done
fi
python3 bench/summarize_resume.py "$OUT"
