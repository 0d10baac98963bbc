#!/usr/bin/env bash
# Records the ACK trains of a lab sweep as the sender sees them (tcpdump on the server
# namespace's TUN device) and turns them into one file per flow for the GCBE host
# tests (bench/ack_trains.py; tests/c/data/ holds the ones the tests replay).
# Usage: bench/ack_trains.sh OUTPREFIX SWEEP-ARGS...   (needs tcpdump)
# e.g.   bench/ack_trains.sh /tmp/up16 --cc s_cubic --sizes 1m --reps 3 --ack-aggregation 16ms
set -euo pipefail
cd "$(dirname "$0")/.."
HS=${HS:-target/release/headstart}
out=$1; shift
command -v tcpdump >/dev/null || { echo "ack_trains.sh: tcpdump is not installed" >&2; exit 1; }
"$HS" lab sweep "$@" --out "$out.results" > "$out.log" 2>&1 &
sweep=$!
ns=""
for _ in $(seq 400); do  # the run's server namespace, hslab-<pid>-srv, and its TUN device
  ns=$(ip netns list | awk -v p="hslab-$sweep-srv" '$1 == p {print $1}')
  [ -n "$ns" ] && ip -n "$ns" link show hs0 >/dev/null 2>&1 && break
  sleep 0.02
done
[ -n "$ns" ] || { wait $sweep; echo "ack_trains.sh: the sweep made no namespace (see $out.log)" >&2; exit 1; }
ip netns exec "$ns" tcpdump -i hs0 -tt -n -S -s 96 -B 65536 tcp > "$out.txt" 2>/dev/null &
dump=$!
wait $sweep || { kill $dump 2>/dev/null; echo "ack_trains.sh: the sweep failed (see $out.log)" >&2; exit 1; }
kill $dump 2>/dev/null || true
wait $dump 2>/dev/null || true
python3 bench/ack_trains.py "$out.txt" "$out"
