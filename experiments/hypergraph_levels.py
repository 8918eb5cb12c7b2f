"""Computed evidence for Propositions A8 and A9 of docs/approximation.md: on random k-uniform
hypergraphs (requests = hyperedges, unit weights), how OPT_free sits between the proved bounds
(k-1) tau + m <= sum_j tau_j <= OPT_free <= tau + (k-1) m, and how OPT_free varies among
hypergraphs with the same numbers of vertices and edges but different cover numbers tau.

OPT_free is the exact subset DP (:func:`mptsearch.exact.free.opt_free`); the j-shadow cover
numbers tau_j (the least number of j-sets such that every edge contains one) are exact, by a
breadth-first search over the sets of covered edges. Everything here is computed, not proved.

Writes results/approximation/hypergraph_levels.json (config, seed, version, commit first; then
one row per hypergraph) and hypergraph_levels.md built from it.

    python -m experiments.hypergraph_levels            # compute, then the .md
    python -m experiments.hypergraph_levels --report   # the .md from the JSON only
"""

from __future__ import annotations

import argparse
import json
import time
from fractions import Fraction
from itertools import combinations

import numpy as np

from .hard_instances import APPROX

PATH = APPROX / "hypergraph_levels.json"
#: (k, n vertices, m edges) cells; SAMPLES distinct random hypergraphs each (edges drawn
#: uniformly without repetition; only vertices on an edge count, as in the page)
CELLS = tuple((3, 7, m) for m in (5, 7, 9, 11)) + tuple((4, 8, m) for m in (5, 7, 9, 11))
SAMPLES = 60
SEED = 2026


def shadow_cover(edges, j: int) -> int:
    """tau_j: the least number of j-sets such that every edge contains one (exact)."""
    m = len(edges)
    cover: dict = {}
    for i, e in enumerate(edges):
        for c in combinations(sorted(e), j):
            cover[c] = cover.get(c, 0) | (1 << i)
    masks = sorted(set(cover.values()), reverse=True)
    full, seen, frontier, steps = (1 << m) - 1, {0}, [0], 0
    while True:
        steps += 1
        nxt = []
        for cur in frontier:
            for s in masks:
                new = cur | s
                if new == full:
                    return steps
                if new not in seen:
                    seen.add(new)
                    nxt.append(new)
        frontier = nxt


def row(k: int, edges) -> dict:
    from mptsearch.exact.free import opt_free
    from mptsearch.instance import from_lists

    inst = from_lists([sorted(e) for e in edges])
    taus = [shadow_cover(edges, j) for j in range(1, k + 1)]
    return {"k": k, "n": inst.n, "m": inst.m, "edges": " ".join("".join(str(x) for x in sorted(e)) for e in edges), "opt": opt_free(inst).value,
            "taus": taus, "linear": all(len(set(a) & set(b)) <= 1 for a, b in combinations(edges, 2))}


def compute() -> dict:
    import mptsearch

    from mptsearch.provenance import git_commit

    rng = np.random.default_rng(SEED)
    data = {"experiment": "hypergraph_levels", "config": {"cells": CELLS, "samples": SAMPLES}, "seed": SEED,
            "version": mptsearch.__version__, "git_commit": git_commit() or "unknown",
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "rows": []}
    t0 = time.process_time()
    for k, n, m in CELLS:
        allk = list(combinations(range(n), k))
        seen = set()
        while len(seen) < SAMPLES:
            pick = tuple(sorted(int(i) for i in rng.choice(len(allk), size=m, replace=False)))
            if pick in seen:
                continue
            seen.add(pick)
            data["rows"].append(row(k, [allk[i] for i in pick]))
    data["cpu_seconds"] = round(time.process_time() - t0, 1)
    return data


def report(data: dict) -> str:
    out = ["# OPT_free of random k-uniform hypergraphs between the level bounds (computed)", "",
           "Written by `python -m experiments.hypergraph_levels` from hypergraph_levels.json "
           f"(seed {data['seed']}, {len(data['rows'])} hypergraphs, {data['cpu_seconds']} CPU s). "
           "Requests = hyperedges, unit weights; OPT_free exact (subset DP), tau_j exact. "
           "Proved (docs/approximation.md, A9): (k-1) tau + m <= sum_j tau_j <= OPT_free <= tau + (k-1) m.", "",
           "| k | n | m | hypergraphs | OPT_free/(m + tau) min..max | OPT_free = sum_j tau_j | max OPT_free/sum_j tau_j |"
           " OPT_free = tau + (k-1) m | OPT_free range | OPT_free range per tau | pairs tau < tau' | of them OPT_free >= OPT_free' |"
           " max OPT_free'/OPT_free over them |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    cells: dict = {}
    for r in data["rows"]:
        cells.setdefault((r["k"], r["n"], r["m"]), []).append(r)
    for (k, n, m), rows in sorted(cells.items()):
        r1 = [Fraction(r["opt"], r["m"] + r["taus"][0]) for r in rows]
        eq = sum(1 for r in rows if r["opt"] == sum(r["taus"]))
        mx = max(Fraction(r["opt"], sum(r["taus"])) for r in rows)
        top = sum(1 for r in rows if r["opt"] == r["taus"][0] + (k - 1) * r["m"])
        per_tau: dict = {}
        for r in rows:
            per_tau.setdefault(r["taus"][0], []).append(r["opt"])
        ranges = ", ".join(f"tau {t}: {min(v)}..{max(v)}" for t, v in sorted(per_tau.items()))
        opts = [r["opt"] for r in rows]
        pairs = [(a, b) for a in rows for b in rows if a["taus"][0] < b["taus"][0]]
        inverted = sum(1 for a, b in pairs if a["opt"] >= b["opt"])
        gap = max((Fraction(b["opt"], a["opt"]) for a, b in pairs), default=None)
        gap_s = f"{gap} = {float(gap):.3f}" if gap is not None else "-"
        out.append(f"| {k} | {n} | {m} | {len(rows)} | {float(min(r1)):.3f}..{float(max(r1)):.3f} | {eq} | "
                   f"{mx} = {float(mx):.3f} | {top} | {min(opts)}..{max(opts)} | {ranges} | {len(pairs)} | "
                   f"{inverted} | {gap_s} |")
    out += ["", "Columns: a pair (H, H') has the same k, n, m and tau(H) < tau(H'); OPT_free' is that of H'. "
            "A bound 1 + n/m on what the first level alone can carry (Proposition A8) is "
            "1 + 7/m (k = 3) and 1 + 8/m (k = 4) here.", "", "n counts the vertices on some edge (an edge set may leave a vertex out, so a few rows have "
            "fewer than the cell's n; they are grouped with the cell)."]
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--report", action="store_true", help="rebuild the .md from the JSON only")
    args = ap.parse_args(argv)
    if args.report:
        data = json.loads(PATH.read_text())
    else:
        data = compute()
        PATH.parent.mkdir(parents=True, exist_ok=True)
        PATH.write_text(json.dumps({key: v for key, v in data.items() if key != "rows"}, indent=1)[:-2]
                        + ',\n "rows": [\n' + ",\n".join(json.dumps(r) for r in data["rows"]) + "\n ]\n}\n")
    (APPROX / "hypergraph_levels.md").write_text(report(data))
    print((APPROX / "hypergraph_levels.md").read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
