"""``mptsearch family two-sunflowers --k K``: where the seconds go (orbit DP, building the
instance, trie costs of the free layout and of the optimal order), medians of a few runs.

    python benchmarks/bench_family.py [--ks 150,500,1000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from mptsearch.families import family_summary


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ks", default="150,500,1000")
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cpus (shared machine)")
    print(f"{'k':>5} {'requests x size':>16} {'total s':>8} {'build':>7} {'orbit DP':>9} {'free layout':>12} {'order recheck':>14}")
    for k in (int(v) for v in a.ks.split(",")):
        runs = []
        for _ in range(a.repeats):
            t = time.perf_counter()
            res = family_summary("two-sunflowers", k)
            runs.append((time.perf_counter() - t, res["seconds"]))
        med = {key: statistics.median(r[1][key] for r in runs) for key in runs[0][1]}
        total = statistics.median(r[0] for r in runs)
        print(f"{k:>5} {f'{2 * k} x {k}':>16} {total:>8.2f} {med['build']:>7.2f} {med['opt_glob']:>9.2f} "
              f"{med['free_layout']:>12.2f} {med['recheck']:>14.2f}")


if __name__ == "__main__":
    main()
