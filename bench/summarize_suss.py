#!/usr/bin/env python3
"""Cold flows of suss and s_cubic (SUSS on a miss) against cubic, per size: median FCT
and its ratio to cubic's, retransmissions, receivers' discards, receive-window-limited
time, queueing, what s_cubic stored; and for the join runs the time after the fifth
flow starts until Jain's index over the running flows is back at >= 0.9 for a second."""
import csv, json, os, statistics, sys

base = sys.argv[1]

def rows(d):
    return [json.loads(l) for l in open(os.path.join(base, d, "flows.jsonl")) if l.strip()]

joins = {}
for d in sorted(os.listdir(base)):
    p = os.path.join(base, d)
    if not os.path.isfile(os.path.join(p, "flows.jsonl")):
        continue
    rs = [r for r in rows(d) if r["role"] == "measured" and r["fct_s"] is not None]
    if d.startswith("join"):
        join = max(r["start_s"] for r in rs)
        bins = {}
        for rec in csv.DictReader(open(os.path.join(p, "throughput.csv"))):
            bins[float(rec["t_s"])] = float(rec["jain"])
        times = sorted(t for t in bins if t >= join)
        back = None
        for i, t in enumerate(times):
            window = [bins[u] for u in times[i:i + 10]]
            if len(window) == 10 and all(j >= 0.9 for j in window):
                back = t - join
                break
        newcc = [r["cc"] for r in rs if abs(r["start_s"] - join) < 1e-9][0]
        retrans = sum(r['retrans'] or 0 for r in rs)
        joins.setdefault(newcc, []).append((back, retrans))
        print(f"{d:<10} new flow {newcc:<6} Jain >= 0.9 for 1 s from {back if back is None else round(back, 1)} s after it joined; retrans {retrans}")
        continue
    ccs = [cc for cc in ("cubic", "suss", "s_cubic") if any(r["cc"] == cc for r in rs)]
    for size in sorted({r["size"] for r in rs}):
        of = lambda cc: [r for r in rs if r["cc"] == cc and r["size"] == size]
        base_fct = statistics.median(r["fct_s"] for r in of("cubic"))
        cells = []
        for cc in ccs:
            fct = statistics.median(r["fct_s"] for r in of(cc))
            cells.append(f"{cc} {fct * 1e3:.0f} ms ({fct / base_fct:.3f}x) retrans {sum(r['retrans'] or 0 for r in of(cc))}"
                         f" discards {sum(r.get('beyond_window') or 0 for r in of(cc))}"
                         f" rwnd-limited {statistics.median(r.get('rwnd_limited_ms') or 0 for r in of(cc)):.0f} ms"
                         f" queue {statistics.mean(r.get('queue_delay_mean_ms') or 0 for r in of(cc)):.1f} ms")
            stored = [r["table_bw_mbps"] for r in of(cc) if r.get("table_bw_mbps")]
            if stored:
                cells[-1] += f" stored {statistics.median(stored):.1f} Mbit/s"
        print(f"{d:<14} {size // 1024:>6} KB  " + "; ".join(cells))

# Across repetitions: a run that never got back counts as the longest (the median then
# says so only if most runs never did).
for cc, runs in sorted(joins.items()):
    backs = sorted(b if b is not None else float("inf") for b, _ in runs)
    print(f"join median over {len(runs)} runs: new flow {cc:<6} back at Jain >= 0.9 after "
          f"{statistics.median(backs):.1f} s (runs: {', '.join(f'{b:.1f}' for b in backs)}); "
          f"retrans median {statistics.median(r for _, r in runs):.0f}")
