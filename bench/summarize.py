#!/usr/bin/env python3
"""Summarises a bench/ results folder: per run folder, per controller, the mean Ω
(mean over sizes of the per-size median), FCT, retransmissions, queueing delay, and
for GCBE runs the stored bandwidth per size. Reads only flows.jsonl files."""
import json, os, statistics, sys

def rows(d):
    with open(os.path.join(d, "flows.jsonl")) as f:
        return [json.loads(l) for l in f if l.strip()]

def summarize(d):
    rs = [r for r in rows(d) if r["role"] == "measured" and r["fct_s"] is not None]
    out = []
    for cc in dict.fromkeys(r["cc"] for r in rs):
        mine = [r for r in rs if r["cc"] == cc]
        sizes = sorted({r["size"] for r in mine})
        med = [statistics.median(r["omega"] for r in mine if r["size"] == s) for s in sizes]
        lo = [min(r["omega"] for r in mine if r["size"] == s) for s in sizes]
        hi = [max(r["omega"] for r in mine if r["size"] == s) for s in sizes]
        qd = [r["queue_delay_mean_ms"] for r in mine if r["queue_delay_mean_ms"] is not None]
        rt = "n/a" if any(r["retrans"] is None for r in mine) else sum(r["retrans"] for r in mine)
        line = (f"{os.path.basename(d):<24} {cc:<12} mean Ω {statistics.mean(med):.3f} "
                f"(per-size medians {min(med):.3f}–{max(med):.3f}, runs {min(lo):.3f}–{max(hi):.3f}) "
                f"flows {len(mine)} retrans {rt} mean qdelay {statistics.mean(qd) if qd else float('nan'):.2f} ms")
        tb = [r for r in mine if r.get("table_bw_mbps") is not None or r.get("cc_bw_mbps") is not None]
        if tb and len(sizes) <= 6:
            per = []
            for s in sizes:
                t = [r["table_bw_mbps"] for r in mine if r["size"] == s and r.get("table_bw_mbps") is not None]
                b = [r["cc_bw_mbps"] for r in mine if r["size"] == s and r.get("cc_bw_mbps") is not None]
                v = t or b
                if v:
                    per.append(f"{s // 1024}K: {statistics.median(v):.1f}")
            line += "\n" + " " * 38 + "bandwidth estimate (Mbit/s, median): " + ", ".join(per)
        out.append(line)
    return out

base = sys.argv[1]
for name in sorted(os.listdir(base)):
    d = os.path.join(base, name)
    if os.path.isfile(os.path.join(d, "flows.jsonl")):
        print("\n".join(summarize(d)))
