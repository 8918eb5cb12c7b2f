"""Enumeration speed against nauty's genbg, side by side in one run (issue 12, point 2).

Class: 4-uniform families on 7 chunks with 12 requests (172,933 members). Measured, each
the median of ``--repeats`` runs, as CPU time (the machine is shared, so CPU time is the
fairer figure; wall time is printed next to it):

- ``own``: the compiled orderly generator alone (count_class);
- ``genbg``: ``nauty-genbg -u`` alone (child CPU time);
- ``whole``: the whole enumeration in one process (generate, evaluate, store) into a fresh
  store (run_enumeration, jobs=1), with the fraction of members decided without the DP.

Ratios: own / genbg (target <= 1.0) and whole / genbg (target <= 2.5).

Usage: python benchmarks/bench_enumerate.py [--repeats 3] [--m 12] [--dask-m 0]
Writes results/enumerate/bench.json. genbg is only for this benchmark: apt-get install nauty.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from mptsearch.enumerate.generate import EnumClass, count_class
from mptsearch.enumerate.genbg import genbg_path


def own(cls):
    w, c = time.perf_counter(), time.process_time()
    n = int(count_class(cls).sum())
    return n, time.perf_counter() - w, time.process_time() - c


def genbg(cls, m):
    exe = genbg_path()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w = time.perf_counter()
    out = subprocess.run([exe, "-u", "-z", f"-d0:{cls.klo}", f"-D{m}:{cls.khi}", str(cls.n), str(m)],
                         capture_output=True, text=True)
    wall = time.perf_counter() - w
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    n = int(out.stderr.split(">Z")[1].split()[0])
    return n, wall, cpu


def whole(cls):
    from mptsearch.enumerate.run import run_enumeration
    with tempfile.TemporaryDirectory() as d:
        w, c = time.perf_counter(), time.process_time()
        res = run_enumeration(cls, Path(d) / "s.sqlite", prop="none", jobs=1)
        wall, cpu = time.perf_counter() - w, time.process_time() - c
    t = res.by_m[cls.mhi]
    return t["count"], wall, cpu, t["pruned"] / t["count"], str(t["max"]), t["attain"]


def dask_run(m, workers):
    from distributed import LocalCluster
    from mptsearch.enumerate.run import run_enumeration
    with LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None) as cl, \
            tempfile.TemporaryDirectory() as d:
        # warm the workers' JIT caches on a tiny class first
        run_enumeration(EnumClass(7, 4, 4, 3, 3), Path(d) / "warm.sqlite", scheduler=cl.scheduler_address)
        t = time.perf_counter()
        res = run_enumeration(EnumClass(7, 4, 4, m, m), Path(d) / "s.sqlite", scheduler=cl.scheduler_address)
        return time.perf_counter() - t, res.by_m[m]["count"], str(res.by_m[m]["max"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--m", type=int, default=12)
    ap.add_argument("--dask-m", type=int, default=0)
    ap.add_argument("--out", default="results/enumerate/bench.json")
    a = ap.parse_args()
    cls = EnumClass(7, 4, 4, a.m, a.m)
    own(EnumClass(7, 4, 4, 4, 4))  # compile / load the kernels
    whole(EnumClass(7, 4, 4, 5, 5))
    rows = {"own": [], "genbg": [], "whole": []}
    for _ in range(a.repeats):  # interleaved, so that load changes hit all three alike
        rows["own"].append(own(cls))
        if genbg_path():
            rows["genbg"].append(genbg(cls, a.m))
        rows["whole"].append(whole(cls))
    out = {"class": f"4-uniform families on 7 chunks, {a.m} requests",
           "command": f"python benchmarks/bench_enumerate.py --repeats {a.repeats} --m {a.m}",
           "load_avg_at_end": None, "cpu_count": os.cpu_count()}
    for k, v in rows.items():
        if v:
            out[k] = {"count": v[0][0], "wall_median": statistics.median(r[1] for r in v),
                      "cpu_median": statistics.median(r[2] for r in v), "runs": v}
            print(f"{k:6s} count {v[0][0]}  cpu median {out[k]['cpu_median']:.2f} s  "
                  f"wall median {out[k]['wall_median']:.2f} s")
    out["whole"]["decided_without_dp"] = rows["whole"][0][3]
    out["whole"]["max_ratio"], out["whole"]["attained"] = rows["whole"][0][4], rows["whole"][0][5]
    print(f"whole: decided without the DP {rows['whole'][0][3]:.1%}, max ratio {rows['whole'][0][4]}")
    if rows["genbg"]:
        g = out["genbg"]["cpu_median"]
        out["ratio_generation_cpu"] = out["own"]["cpu_median"] / g
        out["ratio_whole_cpu"] = out["whole"]["cpu_median"] / g
        print(f"generation own / genbg: {out['ratio_generation_cpu']:.2f}x (target <= 1.0); "
              f"whole enumeration / genbg generation: {out['ratio_whole_cpu']:.2f}x (target <= 2.5)")
    if a.dask_m:
        for wk in (1, 2):
            t, n, mx = dask_run(a.dask_m, wk)
            out[f"dask_{wk}_workers"] = {"m": a.dask_m, "wall": t, "members": n, "max_ratio": mx}
            print(f"dask {wk} worker(s): k=4 n=7 m={a.dask_m}: {n} members, max ratio {mx}, {t:.1f} s")
    out["load_avg_at_end"] = os.getloadavg()
    print(f"load average at the end: {out['load_avg_at_end']} on {os.cpu_count()} cores (shared machine)")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
