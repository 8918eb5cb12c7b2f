"""Speed of the exact OPT_glob DP (target: n=22 chunks, m=64 requests in at most 1 s).

    python benchmarks/bench_opt_glob.py [--sizes 18,20,22] [--m 64] [--repeat 5]

Prints the median wall time per size (warm: the kernel is compiled or loaded from the cache
before timing) and writes benchmarks/results/opt_glob.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

from mptsearch.exact.glob import opt_glob
from mptsearch.families import random_instance


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="18,20,22")
    p.add_argument("--m", type=int, default=64)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    opt_glob(random_instance(n=8, m=10, k=3, seed=0))  # warm-up
    rows = []
    for n in [int(s) for s in args.sizes.split(",")]:
        inst = random_instance(n=n, m=args.m, k=(3, 8), weights=(1, 50), seed=n)
        ts = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            value = opt_glob(inst).value
            ts.append(time.perf_counter() - t)
        med = float(np.median(ts))
        rows.append({"n": n, "m": inst.m, "median_s": med, "min_s": min(ts), "value": value,
                     "ns_per_subset": 1e9 * med / 2 ** n})
        print(f"n={n:2d} m={inst.m}: median {med:.3f} s  (min {min(ts):.3f} s, {rows[-1]['ns_per_subset']:.0f} ns per subset)")
    out = Path(__file__).parent / "results" / "opt_glob.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"machine": platform.processor() or platform.machine(),
                               "command": "python benchmarks/bench_opt_glob.py --sizes " + args.sizes,
                               "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
