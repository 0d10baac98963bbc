"""Pairing the flows of side-by-side runs (`parallel = true`): every controller runs the
same schedule (sizes, gaps) on its own copy of the link, the copies started within a
few tens of ms of each other. A flow is paired by its rank in its controller's
schedule and its size (start times differ by the copies' offset)."""
import json, os


def side_by_side(run):
    exp = json.load(open(os.path.join(run, "run.json")))["experiment"]
    return bool(exp.get("workload", {}).get("parallel"))


def paired(run, kernel, stateful):
    """(stateful row, kernel row) for each flow both completed; [] unless side by side."""
    if not side_by_side(run):
        return []
    rows = [json.loads(l) for l in open(os.path.join(run, "flows.jsonl")) if l.strip()]

    def schedule(cc):
        flows = sorted((r for r in rows if r["cc"] == cc and r["role"] == "measured"), key=lambda r: r["start_s"])
        return {(i, r["size"]): r for i, r in enumerate(flows) if r["fct_s"] is not None}

    k, s = schedule(kernel), schedule(stateful)
    return [(s[key], k[key]) for key in sorted(set(k) & set(s))]
