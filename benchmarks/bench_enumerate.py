"""Generator speed against nauty's genbg, side by side, and a run on 1 vs 2 Dask workers.

Usage: python benchmarks/bench_enumerate.py [--repeats 3] [--dask-m 10]
Writes results/enumerate/bench.json. Times are medians; CPU time (process time of the
generating process, children included for genbg) is reported next to wall time because the
machine is shared and wall time depends on the load.
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
    ap.add_argument("--dask-m", type=int, default=10)
    a = ap.parse_args()
    cls = EnumClass(7, 4, 4, 12, 12)
    own(EnumClass(7, 4, 4, 4, 4))  # compile
    rows = {"own": [], "genbg": []}
    for _ in range(a.repeats):
        rows["own"].append(own(cls))
        if genbg_path():
            rows["genbg"].append(genbg(cls, 12))
    out = {"class": "4-uniform families on 7 chunks, 12 requests", "load_avg": os.getloadavg()}
    for k, v in rows.items():
        if v:
            out[k] = {"count": v[0][0], "wall_median": statistics.median(r[1] for r in v),
                      "cpu_median": statistics.median(r[2] for r in v), "runs": v}
            print(f"{k:6s} count {v[0][0]}  wall median {out[k]['wall_median']:.2f} s  "
                  f"cpu median {out[k]['cpu_median']:.2f} s")
    if rows["genbg"]:
        out["ratio_cpu"] = out["own"]["cpu_median"] / out["genbg"]["cpu_median"]
        out["ratio_wall"] = out["own"]["wall_median"] / out["genbg"]["wall_median"]
        print(f"own / genbg: cpu {out['ratio_cpu']:.2f}x, wall {out['ratio_wall']:.2f}x")
    if a.dask_m:
        for wk in (1, 2):
            t, n, mx = dask_run(a.dask_m, wk)
            out[f"dask_{wk}_workers"] = {"m": a.dask_m, "wall": t, "members": n, "max_ratio": mx}
            print(f"dask {wk} worker(s): k=4 n=7 m={a.dask_m}: {n} members, max ratio {mx}, {t:.1f} s")
    Path("results/enumerate").mkdir(parents=True, exist_ok=True)
    Path("results/enumerate/bench.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
