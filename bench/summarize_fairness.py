#!/usr/bin/env python3
"""The shared-bottleneck test (Stateful-TCP §V-D, Fig. 12) from bench/careful_resume.sh
fairness runs: for each family (cubic, bbr), mean and load, the mean FCT of the client
that runs the kernel's controller (client 0) beside a headstart client, against the
same client when both run the kernel's — the harm — and the headstart client's own
gain against the kernel's second client. Runs named ...-sN (bench/careful_resume.sh's
SEEDS) pair by seed, one row per seed and a median row per cell; ...-TAG marks a
variant (KNOBS) measured against the same baselines, one row each.

Repetitions: runs of one name found in several DIRs, or named ...-rK (REPS), are one
row: the median of the client's mean FCT over the runs the emulator did not flag
(p99 lateness > 1.5 ms), with the range over those runs and their count; a baseline is
the median of its own runs. The receivers' discards: the runs whose client counted
any BeyondWindow, and the largest share of segments.
Usage: summarize_fairness.py DIR [DIR ...] [--markdown]"""
import json, os, re, statistics, sys

def load(d):
    """One run: each client's mean FCT (s), flows per client, flagged, the share of
    segments the client discarded beyond its window."""
    with open(os.path.join(d, "flows.jsonl")) as f:
        rows = [json.loads(l) for l in f if l.strip()]
    with open(os.path.join(d, "run.json")) as f:
        meta = json.load(f)
    fct = {}
    for c in (0, 1):
        v = [r["fct_s"] for r in rows if r["role"] == "measured" and r["client"] == c and r["fct_s"] is not None]
        fct[c] = (statistics.mean(v) if v else float("nan"), len(v))
    segs = sum(-(-r["size"] // max(r["mss"], 1)) for r in rows)
    beyond = meta.get("client_tcpext", {}).get("BeyondWindow", 0)
    return {"fct": fct, "flagged": meta["emulator_accuracy"].get("lateness_p99_ms", 0) > 1.5,
            "discarded_pct": 100 * beyond / max(segs, 1)}

args = [a for a in sys.argv[1:] if not a.startswith("--")]
md = "--markdown" in sys.argv
if not args:
    sys.exit(__doc__)
for base in args:
    if not os.path.isdir(base):
        sys.exit(f"summarize_fairness.py: error: {base} is not a directory of fairness runs")
pat = re.compile(r"fair-(\w+)\+(\w+)-(\w+)-load([\d.]+)(?:-s(\d+))?(?:-(?!r\d+$)([a-z]\w*?))?(?:-r\d+)?$")
runs = {}  # (fam, other, mean, load, seed, tag) -> [run]
for base in args:
    for n in sorted(os.listdir(base)):
        m = pat.match(n)
        if m and os.path.isfile(os.path.join(base, n, "flows.jsonl")):
            fam, other, mean, load_, seed, tag = m.groups()
            runs.setdefault((fam, other, mean, load_, seed or "", tag or ""), []).append(load(os.path.join(base, n)))

def median_fct(rs, client):
    return statistics.median(r["fct"][client][0] for r in rs)

for fam, hs in (("cubic", "s_cubic"), ("bbr", "s_bbr")):
    cells = {}
    for key in sorted(runs, key=lambda k: (k[3], k[2], k[5], int(k[4] or 0))):
        k, other, mean, load_, seed, tag = key
        base_key = (fam, fam, mean, load_, seed, "")
        if k != fam or other != hs or base_key not in runs:
            continue
        mixed = [r for r in runs[key] if not r["flagged"]]
        base = [r for r in runs[base_key] if not r["flagged"]]
        flagged = len(runs[key]) + len(runs[base_key]) - len(mixed) - len(base)
        if not mixed or not base:
            print(f"{fam} beside {hs} mean {mean} seed {seed} {tag}: every run flagged, none counted")
            continue
        base0, base1 = median_fct(base, 0), median_fct(base, 1)
        rises = [100 * (r["fct"][0][0] / base0 - 1) for r in mixed]
        rise = 100 * (median_fct(mixed, 0) / base0 - 1)
        gain = 100 * (1 - median_fct(mixed, 1) / base1)
        cells.setdefault((mean, load_, tag), []).append(rise)
        discards = [r["discarded_pct"] for r in mixed if r["discarded_pct"] > 0]
        s = f", seed {seed}" if seed else ""
        t = f" [{tag}]" if tag else ""
        reps = f"{len(mixed)} runs, range {min(rises):+.1f} .. {max(rises):+.1f} %, " if len(mixed) > 1 else ""
        nbase = f" (median of {len(base)})" if len(base) > 1 else ""
        disc = f"discards in {len(discards)} of {len(mixed)} (max {max(discards):.3f} %)" if discards else "no discards"
        note = f"; {flagged} flagged runs left out" if flagged else ""
        if md:
            print(f"| {fam} + {hs}{t} | {mean}{s} | {float(load_)*100:.0f} % | {base0*1e3:.0f}{nbase} → {median_fct(mixed, 0)*1e3:.0f} ms | "
                  f"**{rise:+.1f} %**{' (' + reps.rstrip(', ') + ')' if reps else ''} | "
                  f"{base1*1e3:.0f} → {median_fct(mixed, 1)*1e3:.0f} ms ({gain:+.1f} %) | {disc}{note} |")
        else:
            print(f"{fam:>5} beside {hs:<8}{t} mean {mean:>5}{s} load {float(load_)*100:3.0f} %: {fam} client FCT {base0*1e3:7.1f}{nbase} -> "
                  f"{median_fct(mixed, 0)*1e3:7.1f} ms ({rise:+5.1f} %; {reps}{hs} client {gain:+5.1f} % faster), {disc}{note}  "
                  f"[{mixed[0]['fct'][0][1]} flows/client]")
    for (mean, load_, tag), rises in cells.items():
        if len(rises) > 1:
            t = f" [{tag}]" if tag else ""
            print(f"{fam:>5} beside {hs:<8}{t} mean {mean:>5} load {float(load_)*100:3.0f} %: rise median {statistics.median(rises):+.1f} %, "
                  f"range {min(rises):+.1f} .. {max(rises):+.1f} % over {len(rises)} seeds")
