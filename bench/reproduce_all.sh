#!/usr/bin/env bash
# Every reproduction of `headstart lab reproduce`, one after the other, with the time
# each took: REPRODUCTION.md's numbers. Usage: bench/reproduce_all.sh [--quick] [OUT]
# (IDS="id id …" runs those only, in that order). An ID whose runs are another's
# (SHARES below) is compared from that one's runs when they are in OUT, not run again.
# (root; quick: about an hour on the 2-vCPU VM).
set -uo pipefail
cd "$(dirname "$0")/.."
HS=${HS:-target/release/headstart}
QUICK=
if [ "${1:-}" = --quick ]; then QUICK=--quick; shift; fi
OUT=${1:-results/reproduce-all$QUICK-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
ids=${IDS:-$($HS lab reproduce --list | awk -F'|' '/^\| [a-z]/ && $2 !~ /ID/ {gsub(/ /, "", $2); print $2}')}
# ID=SOURCE[:LABEL_PREFIX],…: the experiments of ID are SOURCE's (their labels prefixed).
SHARES="s-cubic-fig11=s-cubic-fig10 s-cubic-table5=s-cubic-fig16 s-bbr-table4=s-bbr-table2
  s-bbr-table5=s-bbr-table3 s-bbr-fig4=s-bbr-table2:loss0.1-,s-bbr-table3:loss1-"
# Links the runs of ID's sources into OUT/ID; fails if a source has not run.
share_runs() {
  local id=$1 entry src prefix run srcs
  for entry in $SHARES; do
    [ "${entry%%=*}" = "$id" ] || continue
    IFS=, read -ra srcs <<< "${entry#*=}"
    for src in "${srcs[@]}"; do
      grep -q "^${src%%:*} ok" "$OUT/times.txt" 2>/dev/null || return 1
    done
    mkdir -p "$OUT/$id"
    for src in "${srcs[@]}"; do
      prefix=${src#*:}; [ "$prefix" = "$src" ] && prefix=
      src=${src%%:*}
      for run in "$OUT/$src"/*/; do
        ln -sfn "../$src/$(basename "$run")" "$OUT/$id/$prefix$(basename "$run")"
      done
    done
    return 0
  done
  return 1
}
for id in $ids; do
  start=$(date +%s)
  if share_runs "$id"; then
    if $HS lab reproduce "$id" $QUICK --from "$OUT/$id" > "$OUT/$id.txt" 2>&1; then rc=ok; else rc=FAILED; fi
  elif $HS lab reproduce "$id" $QUICK --quiet --out "$OUT/$id" > "$OUT/$id.txt" 2>&1; then rc=ok; else rc=FAILED; fi
  echo "$id $rc $(( $(date +%s) - start ))s" | tee -a "$OUT/times.txt"
done
cat "$OUT"/*/comparison.md > "$OUT/comparison.md" 2>/dev/null
$HS unload --purge >/dev/null 2>&1 || true
