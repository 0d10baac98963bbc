#!/usr/bin/env bash
# Every reproduction of `headstart lab reproduce`, one after the other, with the time
# each took: REPRODUCTION.md's numbers. Usage: bench/reproduce_all.sh [--quick] [OUT]
# (IDS="id id …" runs those only, in that order)
# (root; quick: about an hour on the 2-vCPU VM).
set -uo pipefail
cd "$(dirname "$0")/.."
HS=${HS:-target/release/headstart}
QUICK=
if [ "${1:-}" = --quick ]; then QUICK=--quick; shift; fi
OUT=${1:-results/reproduce-all$QUICK-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
ids=${IDS:-$($HS lab reproduce --list | awk -F'|' '/^\| [a-z]/ && $2 !~ /ID/ {gsub(/ /, "", $2); print $2}')}
for id in $ids; do
  start=$(date +%s)
  if $HS lab reproduce "$id" $QUICK --quiet --out "$OUT/$id" > "$OUT/$id.txt" 2>&1; then rc=ok; else rc=FAILED; fi
  echo "$id $rc $(( $(date +%s) - start ))s" | tee -a "$OUT/times.txt"
done
cat "$OUT"/*/comparison.md > "$OUT/comparison.md" 2>/dev/null
$HS unload --purge >/dev/null 2>&1 || true
