#!/usr/bin/env python3
"""Where a stateful controller wins or loses against the kernel's, by how each flow's
start went. For runs whose controllers ran side by side (`parallel = true`: the same
flows, sizes and gaps, each controller on its own copy of the link), flows are paired
by rank and size (pairs.py) and summed per Careful Resume outcome of the stateful one.
Usage: summarize_outcomes.py RUN_DIR [RUN_DIR ...] [--pair KERNEL,STATEFUL]
(default pair cubic,s_cubic). Prints, per outcome: flows, summed FCT (stateful /
kernel, s), mean size, mean queueing delay (ms), retransmissions; then the paired
mean-throughput ratio and the client's TcpExt BeyondWindow."""
import json, os, statistics, sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pairs import paired  # noqa: E402

args = [a for a in sys.argv[1:] if not a.startswith("--")]
kernel, stateful = "cubic", "s_cubic"
if "--pair" in sys.argv:
    kernel, stateful = sys.argv[sys.argv.index("--pair") + 1].split(",")
    args = [a for a in args if a != f"{kernel},{stateful}"]

for run in args:
    both = paired(run, kernel, stateful)
    print(f"== {run}: {len(both)} paired flows")
    if not both:
        print("   (no pairs: the controllers did not run side by side)")
        continue
    groups = defaultdict(list)
    for s_row, k_row in both:
        groups[s_row["resume"]].append((s_row, k_row))
    for outcome, pairs in sorted(groups.items(), key=lambda g: -len(g[1])):
        s_fct = sum(s["fct_s"] for s, _ in pairs)
        k_fct = sum(k["fct_s"] for _, k in pairs)
        q = lambda r: r["queue_delay_mean_ms"] or 0.0
        print(f"   {str(outcome):18s} n={len(pairs):3d}  FCT {s_fct:7.1f} / {k_fct:7.1f} s"
              f"  size {statistics.mean(s['size'] for s, _ in pairs):9.0f}"
              f"  qdelay {statistics.mean(q(s) for s, _ in pairs):6.1f} / {statistics.mean(q(k) for _, k in pairs):6.1f}"
              f"  retrans {sum(s['retrans'] or 0 for s, _ in pairs)} / {sum(k['retrans'] or 0 for _, k in pairs)}")
    ts = statistics.mean(s_row["throughput_mbps"] for s_row, _ in both)
    tk = statistics.mean(k_row["throughput_mbps"] for _, k_row in both)
    beyond = json.load(open(os.path.join(run, "run.json"))).get("client_tcpext", {}).get("BeyondWindow")
    print(f"   mean throughput {ts:.2f} / {tk:.2f} Mbit/s = {ts / tk:.3f}x; client BeyondWindow {beyond}")
