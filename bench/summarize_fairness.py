#!/usr/bin/env python3
"""The shared-bottleneck test (Stateful-TCP §V-D, Fig. 12) from bench/careful_resume.sh
fairness runs: for each family (cubic, bbr), mean and load, the mean FCT of the client
that runs the kernel's controller (client 0) beside a headstart client, against the
same client when both run the kernel's — the harm — and the headstart client's own
gain against the kernel's second client. Runs named ...-sN (bench/careful_resume.sh's
SEEDS) pair by seed, one row per seed and a median row per cell.
Usage: summarize_fairness.py DIR [--markdown]"""
import json, os, re, statistics, sys

def fct(d, client):
    with open(os.path.join(d, "flows.jsonl")) as f:
        rows = [json.loads(l) for l in f if l.strip()]
    v = [r["fct_s"] for r in rows if r["role"] == "measured" and r["client"] == client and r["fct_s"] is not None]
    return statistics.mean(v) if v else float("nan"), len(v)

def flagged(d):
    with open(os.path.join(d, "run.json")) as f:
        return json.load(f)["emulator_accuracy"].get("lateness_p99_ms", 0) > 1.5

base = sys.argv[1]
md = "--markdown" in sys.argv
pat = re.compile(r"fair-(\w+)\+(\w+)-(\w+)-load([\d.]+)(?:-s(\d+))?$")
runs = {}
for n in os.listdir(base):
    m = pat.match(n)
    if m and os.path.isfile(os.path.join(base, n, "flows.jsonl")):
        runs[m.groups()] = os.path.join(base, n)
for fam, hs in (("cubic", "s_cubic"), ("bbr", "s_bbr")):
    cells = {}
    for (k, other, mean, load, seed), d in sorted(runs.items(), key=lambda x: (x[0][3], x[0][2], int(x[0][4] or 0))):
        if k != fam or other != hs or (fam, fam, mean, load, seed) not in runs:
            continue
        b = runs[(fam, fam, mean, load, seed)]
        (mixed0, n0), (base0, _), (hs1, _), (base1, _) = fct(d, 0), fct(b, 0), fct(d, 1), fct(b, 1)
        rise = 100 * (mixed0 / base0 - 1)
        gain = 100 * (1 - hs1 / base1)
        cells.setdefault((mean, load), []).append(rise)
        flag = " !!" if flagged(d) or flagged(b) else ""
        s = f", seed {seed}" if seed else ""
        if md:
            print(f"| {fam} + {hs} | {mean}{s} | {float(load)*100:.0f} % | {base0*1e3:.0f} → {mixed0*1e3:.0f} ms | **{rise:+.1f} %** | {base1*1e3:.0f} → {hs1*1e3:.0f} ms ({gain:+.1f} %){flag} |")
        else:
            print(f"{fam:>5} beside {hs:<8} mean {mean:>5}{s} load {float(load)*100:3.0f} %: {fam} client FCT {base0*1e3:7.1f} -> {mixed0*1e3:7.1f} ms ({rise:+5.1f} %), "
                  f"{hs} client {base1*1e3:7.1f} -> {hs1*1e3:7.1f} ms ({gain:+5.1f} % faster){flag}  [{n0} flows/client]")
    for (mean, load), rises in cells.items():
        if len(rises) > 1:
            print(f"{fam:>5} beside {hs:<8} mean {mean:>5} load {float(load)*100:3.0f} %: rise median {statistics.median(rises):+.1f} %, "
                  f"range {min(rises):+.1f} .. {max(rises):+.1f} % over {len(rises)} seeds")
