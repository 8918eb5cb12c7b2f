"""Full annealing evaluations per second per core at k=4, n=7, m=8..12 (issue 3).

A *full evaluation* is one annealing step that reaches the objective: a move, exact OPT_free,
exact OPT_glob and the Metropolis test, all inside the compiled kernel. Rates are per CPU
second of this process (time.process_time), which is what "per core" means on a shared
machine; wall-clock rates are printed beside them. The parts table times each evaluator alone
on one fixed instance, and the blocked against the plain OPT_free DP loop.

    python benchmarks/bench_anneal.py [--steps 200000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np
from numba import njit

from mptsearch import __version__
from mptsearch._kernels.agglomerative import agglomerative_savings
from mptsearch._kernels.blocked import dp_rows
from mptsearch._kernels.free import free_savings
from mptsearch._kernels.glob import glob_table
from mptsearch._kernels.masks import chunk_sets, intersection_table
from mptsearch._kernels.subset_dp import dp_plain
from mptsearch._kernels.workspace import workspace
from mptsearch.families import random_instance, ratio_record
from mptsearch.search.anneal import I_EVALS, AnnealConfig, new_restart, run_restart


@njit
def _loop_free(req, m, w, ws, reps):
    s = 0
    for _ in range(reps):
        s += free_savings(req, m, w, False, ws)
    return s


@njit
def _loop_glob(S, w, n, m, ws, reps):
    s = 0
    for _ in range(reps):
        s += glob_table(S, w, n, m, ws.G, ws.classes, ws.ncls, ws.singles)
    return s


@njit
def _loop_agg(req, m, w, sig, act, reps):
    s = 0
    for _ in range(reps):
        s += agglomerative_savings(req, m, w, False, sig, act)
    return s


@njit
def _loop_plain(wI, M, m, reps):
    for _ in range(reps):
        dp_plain(wI[: 1 << m], M[: 1 << m])


@njit
def _loop_rows(wI, M, m, reps):
    for _ in range(reps):
        dp_rows(wI, M, m)


def _timed(fn, *args):
    c, t = time.process_time(), time.perf_counter()
    fn(*args)
    return time.process_time() - c, time.perf_counter() - t


def full_rate(m: int, steps: int, seed: int):
    cfg = AnnealConfig(n=7, k=(4, 4), m=(m, m), restart_steps=steps).validate()
    st = new_restart(cfg, seed, 0)
    cpu, wall = _timed(run_restart, cfg, st, steps)
    ev = int(st.ints[I_EVALS])
    return ev / cpu, ev / wall, ev


def parts(m: int, reps: int):
    inst = ratio_record() if m == 8 else random_instance(7, m, 4, seed=m)
    ws = workspace(7, m, np.int16)
    req = np.array(inst.request_masks(), dtype=np.uint64)
    w = inst.weights.astype(np.int64)
    chunk_sets(req, m, 7, ws.S)
    intersection_table(req, m, w, False, ws.inter, ws.wI)
    out = {}
    for name, fn, args in [
        ("opt_free", _loop_free, (req, m, w, ws)),
        ("opt_glob", _loop_glob, (ws.S, w, 7, m, ws)),
        ("agglomerative", _loop_agg, (req, m, w, ws.sig, ws.act)),
        ("dp_plain", _loop_plain, (ws.wI, ws.M, m)),
        ("dp_blocked", _loop_rows, (ws.wI, ws.M, m)),
    ]:
        fn(*args, 3)
        cpu, _ = _timed(fn, *args, reps)
        out[name] = cpu / reps * 1e6
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ms", default="8,9,10,11,12")
    a = ap.parse_args()
    print(f"mptsearch {__version__}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cpus, load average {os.getloadavg()[0]:.2f} (shared machine)")
    full_rate(8, 1000, 0)  # compile / load the cache
    print(f"{'m':>3} {'evals/s/core (median)':>22} {'wall evals/s':>13}   "
          f"{'free us':>8} {'glob us':>8} {'agg us':>7} {'plain DP us':>11} {'blocked DP us':>13}")
    for m in [int(v) for v in a.ms.split(",")]:
        steps = a.steps if m <= 9 else a.steps // (3 ** (m - 9))
        runs = [full_rate(m, steps, seed) for seed in range(a.repeats)]
        cpu = statistics.median(r[0] for r in runs)
        wall = statistics.median(r[1] for r in runs)
        p = parts(m, max(200, 40000 // 3 ** max(0, m - 8)))
        print(f"{m:>3} {cpu:>22,.0f} {wall:>13,.0f}   {p['opt_free']:>8.2f} {p['opt_glob']:>8.2f} "
              f"{p['agglomerative']:>7.2f} {p['dp_plain']:>11.2f} {p['dp_blocked']:>13.2f}")


if __name__ == "__main__":
    main()
