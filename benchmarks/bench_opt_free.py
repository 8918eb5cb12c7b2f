"""Plain vs blocked OPT_free DP on the same random instances.

Usage::

    python benchmarks/bench_opt_free.py [--sizes 16,18,20,22] [--repeat 5]
        [--weights unit,int32,int64] [--kernels plain,blocked,parallel] [--out PATH]

For every size m and weight class an instance ``random_instance(n=3m, m, k=(3, 8))`` is
drawn (unit weights give int16 tables, weights 500..900 int32, 10^8..3*10^8 int64), its
table ``wI`` computed once, and only the DP is timed, from a zeroed ``M``, after a JIT
warm-up. Every kernel's table is checked against the first kernel's. Reported: median wall
and CPU seconds (the host is shared: CPU time is the steadier figure for one thread), ns
per unordered (B, B1) pair (3^m / 2 of them), the ratio to plain, the tables' bytes and the
process's peak RSS so far. "blocked" is pinned to one thread, "parallel" uses every numba
thread. The plain loop is repeated only while it fits ``--plain-budget`` seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import time

import numba
import numpy as np

from mptsearch._kernels import blocked as _blocked
from mptsearch._kernels import subset_dp as K
from mptsearch._kernels.masks import intersection_weights
from mptsearch.exact.free import dp_dtype
from mptsearch.families import random_instance

WEIGHTS = {"unit": (1, 1), "int32": (500, 900), "int64": (10**8, 3 * 10**8)}
PLAIN_NS = 2.5  # rough plain cost per pair, to size its repeats


def _kernel(name):
    if name == "plain":
        return lambda wI, M, m: K.dp_plain(wI, M)
    if name == "blocked":
        return lambda wI, M, m: _blocked.dp_blocked(wI, M, m, parallel=False)
    if name == "parallel":
        return lambda wI, M, m: _blocked.dp_blocked(wI, M, m, parallel=True)
    raise SystemExit(f"unknown kernel {name}")


def _warm_up(kernels):
    for dt in (np.int16, np.int32, np.int64):
        wI = np.arange(1 << 10, dtype=dt) % 7
        for k in kernels:
            _kernel(k)(wI, np.zeros_like(wI), 10)


def _intersection_table(inst):
    """wI alone, as :func:`~mptsearch.exact.free.savings_table` builds it (without its DP)."""
    dtype = dp_dtype(inst.total_weight())
    wI = np.zeros(1 << inst.m, dtype=dtype)
    intersection_weights(inst.chunk_sets(), inst.weights.astype(dtype), inst.m, wI)
    return wI


def _peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def _time(fn, wI, m, repeat):
    walls, cpus, M = [], [], None
    for _ in range(repeat):
        M = np.zeros_like(wI)
        t, c = time.perf_counter(), time.process_time()
        fn(wI, M, m)
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus), M


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="16,18,20,22")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--weights", default="unit,int32,int64")
    ap.add_argument("--kernels", default="plain,blocked")
    ap.add_argument("--plain-budget", type=float, default=30.0,
                    help="seconds of plain loop per table; repeats are cut to fit (min 1)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                  "opt_free.json"))
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    kernels = args.kernels.split(",")
    t0 = time.perf_counter()
    _warm_up(kernels)
    print(f"warm-up (JIT or cache load) {time.perf_counter() - t0:.1f}s; "
          f"numba threads {numba.get_num_threads()}, CPUs {os.cpu_count()}")
    print(f"{'m':>3} {'dtype':>6} {'kernel':>8} {'reps':>4} {'wall_s':>9} {'cpu_s':>9} "
          f"{'ns/pair':>8} {'cpu ns':>7} {'x plain':>8} {'tables MB':>9} {'peak MB':>8}")
    rows = []
    for m in sizes:
        pairs = 3**m / 2
        for wname in args.weights.split(","):
            inst = random_instance(3 * m, m, (3, 8), weights=WEIGHTS[wname],
                                   seed=args.seed + m)
            wI = _intersection_table(inst)
            ref, plain_wall = None, None
            for k in kernels:
                reps = args.repeat
                if k == "plain":
                    reps = max(1, min(reps, int(args.plain_budget / (pairs * PLAIN_NS * 1e-9))))
                wall, cpu, M = _time(_kernel(k), wI, m, reps)
                if ref is None:
                    ref = M
                elif not np.array_equal(M[1:], ref[1:]):
                    raise SystemExit(f"kernel {k} differs from {kernels[0]} at m={m} {wname}")
                if k == "plain":
                    plain_wall = wall
                ratio = wall / plain_wall if plain_wall else float("nan")
                row = dict(m=m, weights=wname, dtype=wI.dtype.name, kernel=k, repeat=reps,
                           wall_s=wall, cpu_s=cpu, ns_per_pair=wall / pairs * 1e9,
                           cpu_ns_per_pair=cpu / pairs * 1e9, ratio_to_plain=ratio,
                           table_bytes=2 * wI.nbytes, peak_rss_mb=_peak_rss_mb(),
                           threads=numba.get_num_threads() if k == "parallel" else 1,
                           savings=int(M[-1]))
                rows.append(row)
                print(f"{m:>3} {row['dtype']:>6} {k:>8} {reps:>4} {wall:>9.4f} {cpu:>9.4f} "
                      f"{row['ns_per_pair']:>8.3f} {row['cpu_ns_per_pair']:>7.3f} "
                      f"{ratio:>8.4f} {row['table_bytes'] / 2**20:>9.1f} "
                      f"{row['peak_rss_mb']:>8.1f}", flush=True)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    meta = dict(machine=platform.machine(), processor=platform.processor(),
                cpus=os.cpu_count(), numba=numba.__version__, numpy=np.__version__,
                load_avg=os.getloadavg(), argv=vars(args), created=time.strftime("%F %T"))
    with open(args.out, "w") as f:
        json.dump(dict(meta=meta, rows=rows), f, indent=1)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
