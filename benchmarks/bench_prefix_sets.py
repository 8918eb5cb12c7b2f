"""Time of the prefix-set search (unit-weight OPT_free, mptsearch.exact.prefix_sets) on
random k-uniform families on 7 chunks, per m, against the subset DP of Theorem 1 where the DP
is still affordable (issue 18, point 1).

For each k in (3, 4) and each m, ``--samples`` families (m distinct k-sets of 7 chunks drawn
with ``random.Random(seed)``) are solved one at a time; the figure is the median CPU time of
one call of the public function (layout and certificate included), with min and max. The DP
column times :func:`mptsearch.exact.free.opt_free` on the same families (``--dp-upto``).

Usage: python benchmarks/bench_prefix_sets.py [--samples 15] [--m 10 15 20 25 30 35] [--dp-upto 16]
Writes benchmarks/results/prefix_sets.json.
"""

import argparse
import itertools
import json
import os
import random
import statistics
import time
from pathlib import Path

from mptsearch.exact.free import opt_free
from mptsearch.exact.prefix_sets import opt_free_prefix_sets
from mptsearch.families import k4_3
from mptsearch.instance import from_lists
from mptsearch.provenance import git_commit


def _cpu(fn, inst):
    c = time.process_time()
    v = fn(inst).value
    return time.process_time() - c, v


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--samples", type=int, default=15)
    p.add_argument("--m", type=int, nargs="*", default=[10, 15, 20, 25, 30, 35])
    p.add_argument("--dp-upto", type=int, default=16)
    p.add_argument("--seed", type=int, default=18)
    a = p.parse_args()
    opt_free_prefix_sets(k4_3())  # compile outside the timings
    opt_free(k4_3())
    rows = []
    for k in (3, 4):
        sets = list(itertools.combinations(range(7), k))
        for m in a.m:
            rng = random.Random(a.seed * 1000 + 10 * k + m)
            ps, dp = [], []
            for _ in range(a.samples if m < len(sets) else 1):  # one family has all 35
                inst = from_lists([list(c) for c in rng.sample(sets, m)])
                t, v = _cpu(opt_free_prefix_sets, inst)
                ps.append(t)
                if m <= a.dp_upto:
                    t2, v2 = _cpu(opt_free, inst)
                    assert v2 == v, (inst, v, v2)
                    dp.append(t2)
            row = {"k": k, "m": m, "samples": len(ps), "prefix_sets_median_s": statistics.median(ps),
                   "prefix_sets_min_s": min(ps), "prefix_sets_max_s": max(ps),
                   "dp_median_s": statistics.median(dp) if dp else None}
            rows.append(row)
            print(row, flush=True)
    out = Path(__file__).resolve().parent / "results" / "prefix_sets.json"
    data = {"config": vars(a), "git_commit": git_commit(), "load_average": os.getloadavg(),
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "what": "CPU seconds per call (median over the samples) of opt_free_prefix_sets and, "
                    "up to --dp-upto, of the subset DP opt_free, on random k-uniform families on "
                    "7 chunks; the machine is shared (load average recorded)", "rows": rows}
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
