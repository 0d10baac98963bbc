#!/usr/bin/env python3
"""Per run folder: mean throughput (bytes / FCT including setup) per controller, the
stateful/kernel ratios, mean queueing delay and retransmissions (S-BBR Table II/IV).
Usage: summarize_tput.py DIR [DIR ...] [--markdown]  (--markdown: one table row per run;
a run marked "side by side" ran its controllers in parallel, each on its own link copy)"""
import json, os, statistics, sys

bases = [a for a in sys.argv[1:] if not a.startswith("--")]
markdown = "--markdown" in sys.argv[1:]
if markdown:
    print("| run | bbr | s_bbr | ratio | cubic | s_cubic | ratio | queueing bbr / s_bbr / cubic / s_cubic (ms) | retrans bbr / s_bbr / cubic / s_cubic |")
    print("|---|---|---|---|---|---|---|---|---|")
runs = [(base, name) for base in bases for name in sorted(os.listdir(base))]
for base, name in runs:
    path = os.path.join(base, name, "flows.jsonl")
    if not os.path.isfile(path):
        continue
    rows = [json.loads(l) for l in open(path) if l.strip()]
    # The emulator flags a run whose timing it cannot vouch for (p99 lateness > 1.5 ms).
    try:
        run = json.load(open(os.path.join(base, name, "run.json")))
        if run.get("experiment", {}).get("workload", {}).get("parallel"):
            name += " (side by side)"
        acc = run["emulator_accuracy"]
        if not acc.get("trustworthy", True):
            name += f" (emulator flagged: p99 lateness {acc['lateness_p99_ms']} ms)"
    except (OSError, KeyError, ValueError, AttributeError):
        pass
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
    ratio = {s: tput[s] / tput[k] for s, k in (("s_bbr", "bbr"), ("s_cubic", "cubic"))
             if s in tput and k in tput and tput[k] > 0}
    if markdown:
        def col(d, cc, fmt):
            return format(d[cc], fmt) if cc in d else "–"
        def ratio_col(cc):
            if cc not in ratio:
                return "–"
            # Bold: at or above Issue 5's goal of 1.5x.
            return f"**{ratio[cc]:.2f}×**" if ratio[cc] >= 1.5 else f"{ratio[cc]:.2f}×"
        cols = [col(tput, "bbr", ".1f"), col(tput, "s_bbr", ".1f"), ratio_col("s_bbr"),
                col(tput, "cubic", ".1f"), col(tput, "s_cubic", ".1f"), ratio_col("s_cubic"),
                " / ".join(col(qd, c, ".1f") for c in ("bbr", "s_bbr", "cubic", "s_cubic")),
                " / ".join(col(rt, c, "d") for c in ("bbr", "s_bbr", "cubic", "s_cubic"))]
        print(f"| {name} | {' | '.join(cols)} |")
        continue
    ratios = "  ".join(f"{s}/{k} {ratio[s]:.2f}x" for s, k in (("s_bbr", "bbr"), ("s_cubic", "cubic")) if s in ratio)
    print(f"{name:<28} {cells}\n{'':<28} {ratios}")
