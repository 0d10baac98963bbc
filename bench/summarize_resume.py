#!/usr/bin/env python3
"""Issue 11's numbers from bench/ results folders (flows.jsonl + run.json): per run,
each headstart controller against the kernel's own in the same run (s_cubic vs cubic,
s_bbr vs bbr): mean FCT and its ratio, retransmissions per flow, mean queueing delay,
the Careful Resume outcome of every measured flow, and the receivers' BeyondWindow
discards as a share of the segments sent. Usage: summarize_resume.py DIR [DIR ...]
(each DIR a run folder or a folder of run folders); --markdown for table rows."""
import json, os, statistics, sys
from collections import Counter

PAIRS = {"s_cubic": "cubic", "s_bbr": "bbr"}

def runs(paths):
    for p in paths:
        if os.path.isfile(os.path.join(p, "flows.jsonl")):
            yield p
        elif os.path.isdir(p):
            for n in sorted(os.listdir(p)):
                d = os.path.join(p, n)
                if os.path.isfile(os.path.join(d, "flows.jsonl")):
                    yield d

def load(d):
    with open(os.path.join(d, "flows.jsonl")) as f:
        rows = [json.loads(l) for l in f if l.strip()]
    with open(os.path.join(d, "run.json")) as f:
        meta = json.load(f)
    return rows, meta

def stats(rows, cc):
    m = [r for r in rows if r["role"] == "measured" and r["cc"] == cc and r["fct_s"] is not None]
    if not m:
        return None
    q = [r["queue_delay_mean_ms"] for r in m if r["queue_delay_mean_ms"] is not None]
    return {
        "n": len(m),
        "fct": statistics.mean(r["fct_s"] for r in m),
        # None where a flow's count is missing (an older run of nginx's flows): unknown, not 0
        "retrans": None if any(r["retrans"] is None for r in m) else sum(r["retrans"] for r in m) / len(m),
        "qdelay": statistics.mean(q) if q else float("nan"),
        "outcomes": Counter(r.get("resume") or "-" for r in m),
    }

def per_flow(x):
    return "n/a" if x is None else f"{x:.1f}"

def main():
    md = "--markdown" in sys.argv
    paths = [a for a in sys.argv[1:] if a != "--markdown"]
    for d in runs(paths):
        rows, meta = load(d)
        segs = sum(-(-r["size"] // max(r["mss"], 1)) for r in rows)
        beyond = meta.get("client_tcpext", {}).get("BeyondWindow", 0)
        flag = " !!" if meta.get("emulator_accuracy", {}).get("lateness_p99_ms", 0) > 1.5 else ""
        name = os.path.basename(d.rstrip("/")) + flag
        knobs = meta.get("knobs") or {}
        for hs, kernel in PAIRS.items():
            a, b = stats(rows, hs), stats(rows, kernel)
            if not a or not b:
                continue
            ratio = a["fct"] / b["fct"]
            outc = ", ".join(f"{k} {v}" for k, v in a["outcomes"].most_common())
            if md:
                print(f"| {name} | {hs} | {a['fct']*1e3:.0f} / {b['fct']*1e3:.0f} | {ratio:.3f} | "
                      f"{per_flow(a['retrans'])} / {per_flow(b['retrans'])} | {a['qdelay']:.2f} / {b['qdelay']:.2f} | {outc} | {beyond} ({100*beyond/max(segs,1):.3f} %) |")
            else:
                print(f"{name:<28} {hs:<8} FCT {a['fct']*1e3:8.1f} ms vs {kernel} {b['fct']*1e3:8.1f} ms  ratio {ratio:.3f}  "
                      f"retrans/flow {per_flow(a['retrans'])} vs {per_flow(b['retrans'])}  qdelay {a['qdelay']:.2f} vs {b['qdelay']:.2f} ms  "
                      f"BeyondWindow {beyond} ({100*beyond/max(segs,1):.3f} % of {segs} segs)  [{outc}]"
                      + (f"  after_jump={knobs.get('after_jump')}" if knobs else ""))

main()
