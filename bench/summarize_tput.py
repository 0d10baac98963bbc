#!/usr/bin/env python3
"""Per run folder: mean throughput (bytes / FCT including setup) per controller, the
stateful/kernel ratios, mean queueing delay and retransmissions (S-BBR Table II/IV)."""
import json, os, statistics, sys

base = sys.argv[1]
for name in sorted(os.listdir(base)):
    path = os.path.join(base, name, "flows.jsonl")
    if not os.path.isfile(path):
        continue
    rows = [json.loads(l) for l in open(path) if l.strip()]
    rows = [r for r in rows if r["role"] == "measured" and r["fct_s"] is not None]
    tput, qd, rt, n = {}, {}, {}, {}
    for cc in dict.fromkeys(r["cc"] for r in rows):
        mine = [r for r in rows if r["cc"] == cc]
        n[cc] = len(mine)
        tput[cc] = statistics.mean(r["throughput_mbps"] for r in mine)
        q = [r["queue_delay_mean_ms"] for r in mine if r["queue_delay_mean_ms"] is not None]
        qd[cc] = statistics.mean(q) if q else float("nan")
        rt[cc] = sum(r["retrans"] or 0 for r in mine)
    cells = "  ".join(f"{cc} {tput[cc]:.1f} Mbit/s (n={n[cc]}, qdelay {qd[cc]:.1f} ms, retrans {rt[cc]})" for cc in tput)
    ratios = []
    for s, k in (("s_bbr", "bbr"), ("s_cubic", "cubic")):
        if s in tput and k in tput and tput[k] > 0:
            ratios.append(f"{s}/{k} {tput[s] / tput[k]:.2f}x")
    print(f"{name:<28} {cells}\n{'':<28} {'  '.join(ratios)}")
