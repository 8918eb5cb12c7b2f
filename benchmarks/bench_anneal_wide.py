"""Time of one annealer evaluation against m on 8, 9 and 10 chunks (unit weights), the data
behind the default request range of ``mptsearch anneal`` there.

On 8-10 chunks with unit weights and requests of at most 5 chunks, OPT_free comes from the
prefix-set search past m = 16 (mptsearch/exact/prefix_sets.py), whose time on dense families
grows steeply with m. For each (n, k, m) the script draws random families of m distinct
requests the way a restart starts (``init_family``), and times the annealer's own objective
kernel (``objective``: OPT_free, plus OPT_glob for ``ratio``) on each, one evaluation at a
time, each stopped at ``--cap`` seconds by the kernel's halt (counted as "capped"). It
reports the median, the 90th percentile and the maximum (a capped evaluation counts as the
cap), and stops a series once half the families of an m are capped.

    python benchmarks/bench_anneal_wide.py [--families 9] [--cap 10] [--out benchmarks/results/anneal_wide.json]
    python benchmarks/bench_anneal_wide.py --summary benchmarks/results/anneal_wide.json

The summary applies the rule behind ``DEFAULT_M_WIDE`` (mptsearch/search/anneal.py): per n, the
largest m of the grid such that at it and at every m below, for every k measured, the median
CPU time of an evaluation is at most MEDIAN_MS and the slowest family's at most MAX_MS.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

from mptsearch.provenance import environment
from mptsearch.search.anneal import AnnealConfig, make_workspace
from mptsearch.search.objective import OBJECTIVES, objective
from mptsearch.search.steps import init_family
from mptsearch.search.anneal import restart_seed

MEDIAN_MS, MAX_MS = 10.0, 500.0  # the rule of the summary (module docstring)
MS = (8, 10, 12, 14, 16, 17, 18, 20, 22, 24, 28, 32, 40, 48, 56, 64)
CASES = [(8, (4, 4)), (9, (4, 4)), (10, (4, 4)), (8, (2, 4)), (9, (2, 4)), (10, (2, 4))]


def time_cell(n, k, m, families, cap, objective_name="ratio"):
    """(wall, CPU) seconds of one evaluation on each of ``families`` random families; a capped
    evaluation counts as the cap in both."""
    cfg = AnnealConfig(n=n, k=k, m=(m, m), objective=objective_name)
    cap_m = cfg.capacity()
    if m > cap_m:
        return None
    ws = make_workspace(cfg)
    code = OBJECTIVES.index(objective_name)
    out = []
    for f in range(families):
        p = cfg.params(1)
        req = np.zeros(cfg.m_max, dtype=np.uint64)
        wts = np.zeros(n, dtype=np.int64)
        rng = np.array([restart_seed(1000 + f, m)], dtype=np.uint64)
        init_family(p, req, wts, rng)
        ws.halt[:] = (time.time() + cap, np.inf, 0.0, 0.0)
        t, c = time.perf_counter(), time.thread_time()
        objective(req, m, n, wts, code, False, ws, 0, 1)
        dt, dc = time.perf_counter() - t, time.thread_time() - c
        out.append((cap, cap) if ws.halt[3] else (dt, dc))
    return out


def summary(rows) -> dict:
    """n -> the largest m meeting the rule at it and every m below, for every k measured."""
    out = {}
    for n in sorted({r["n"] for r in rows}):
        ok = {}
        for r in rows:
            if r["n"] == n:
                good = r["cpu_median_s"] * 1e3 <= MEDIAN_MS and r["cpu_max_s"] * 1e3 <= MAX_MS and not r["capped"]
                ok.setdefault(r["m"], []).append(good)
        best = None
        for m in sorted(ok):
            if not all(ok[m]):
                break
            best = m
        out[n] = best
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--summary", default=None, metavar="JSON", help="only print the rule's choice from a results file")
    ap.add_argument("--families", type=int, default=9)
    ap.add_argument("--cap", type=float, default=5.0)
    ap.add_argument("--cases", default=None, help="e.g. 8:4-4,9:2-4 (default: all)")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    if a.summary:
        with open(a.summary) as fh:
            rows = json.load(fh)["rows"]
        for n, m in summary(rows).items():
            print(f"n={n}: largest m with median <= {MEDIAN_MS:g} ms and max <= {MAX_MS:g} ms CPU (every k, every m "
                  f"below too): {m}")
        return
    cases = CASES
    if a.cases:
        cases = [(int(c.split(":")[0]), tuple(int(x) for x in c.split(":")[1].split("-"))) for c in a.cases.split(",")]
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cpus (a shared machine: wall times are noisy)")
    time_cell(8, (4, 4), 20, 1, a.cap)  # compile / load the kernels
    rows = []
    t0 = time.perf_counter()
    for n, k in cases:
        for m in MS:
            cell = time_cell(n, k, m, a.families, a.cap)
            if cell is None:
                break
            ts = [w for w, _ in cell]
            cs = sorted(c for _, c in cell)
            capped = sum(t >= a.cap for t in ts)
            q = sorted(ts)
            p90 = min(len(q) - 1, int(0.9 * len(q)))
            row = {"n": n, "k": list(k), "m": m, "families": len(ts), "median_s": statistics.median(ts),
                   "p90_s": q[p90], "max_s": q[-1], "cpu_median_s": statistics.median(cs), "cpu_p90_s": cs[p90],
                   "cpu_max_s": cs[-1], "capped": capped, "cap_s": a.cap, "load": round(os.getloadavg()[0], 2)}
            rows.append(row)
            print(f"n={n} k={k[0]}-{k[1]} m={m:3d}: CPU median {row['cpu_median_s'] * 1e3:9.2f} ms  p90 "
                  f"{row['cpu_p90_s'] * 1e3:9.2f} ms  max {row['cpu_max_s'] * 1e3:9.2f} ms  (wall median "
                  f"{row['median_s'] * 1e3:.2f} ms)  capped {capped}/{len(ts)}  load {row['load']}", flush=True)
            if 2 * capped >= len(ts):
                break
    if a.out:
        with open(a.out, "w") as fh:
            json.dump({"environment": environment(), "config": {"families": a.families, "cap_s": a.cap,
                                                                 "ms": MS, "cases": cases, "objective": "ratio"},
                       "seconds": round(time.perf_counter() - t0, 1), "rule": {"median_ms": MEDIAN_MS, "max_ms": MAX_MS},
                       "choice": {str(n): m for n, m in summary(rows).items()}, "rows": rows}, fh, indent=1)
            fh.write("\n")


if __name__ == "__main__":
    main()
