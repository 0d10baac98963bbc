#!/usr/bin/env python3
"""How a stateful controller fares against the kernel's by the size of its jump. For
runs whose controllers ran side by side (`parallel = true`), flows are paired by their
rank in the schedule and size (pairs.py); each pair is put in a bin by the stateful flow's jump (packets; none: no
jump) and the bin's summed throughputs compared (the ratio of the pairs' mean
throughputs, as summarize_tput.py reports a cell).
Usage: summarize_jumps.py RUN_DIR [RUN_DIR ...] [--pair KERNEL,STATEFUL] [--split N]
(default pair cubic,s_cubic, split 40). Prints one line per run (no jump / below the
split / at or above it), then all runs together in finer bins."""
import os, sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pairs import paired  # noqa: E402

argv = sys.argv[1:]
kernel, stateful, split = "cubic", "s_cubic", 40
if "--pair" in argv:
    i = argv.index("--pair")
    kernel, stateful = argv[i + 1].split(",")
    del argv[i:i + 2]
if "--split" in argv:
    i = argv.index("--split")
    split = int(argv[i + 1])
    del argv[i:i + 2]
EDGES = [20, 30, 40, 50, 60, 80, 120, 200, None]


def ratio(g):
    return g[1] / g[2] if g[2] else float("nan")


total = defaultdict(lambda: [0, 0.0, 0.0])
for run in argv:
    groups = defaultdict(lambda: [0, 0.0, 0.0])
    for s, k in paired(run, kernel, stateful):
        jump = s.get("jump_cwnd") or 0
        cls = "none" if not jump else ("small" if jump < split else "large")
        edge = "none" if not jump else next(e for e in EDGES if e is None or jump < e)
        for g in (groups[cls], groups["all"], total[edge]):
            g[0] += 1
            g[1] += s["throughput_mbps"]
            g[2] += k["throughput_mbps"]
    cells = "  ".join(f"{c} n={groups[c][0]} {ratio(groups[c]):.3f}" for c in ("all", "none", "small", "large") if groups[c][0])
    print(f"{run}: {stateful}/{kernel}  {cells}   (small: jump < {split})")
print(f"all runs, {stateful}/{kernel} by jump (packets):")
for e in ["none"] + EDGES:
    if e in total:
        label = "no jump" if e == "none" else (f"< {e}" if e is not None else f">= {EDGES[-2]}")
        print(f"  {label:>8}  n={total[e][0]:5d}  {ratio(total[e]):.3f}")
