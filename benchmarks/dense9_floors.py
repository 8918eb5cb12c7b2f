"""The lower side of the prefix-set search on the 5-uniform families of
``benchmarks/bench_dense9.py`` (the same families and seeds): the level bound's cover numbers
(``cover_lower_bound``, exact where its search finishes within ``COVER_NODES``), the window
bound W_3 of the levels under the top (``window_lower_bound`` with the search's own budget: a
lower bound, exact where its ladder finds a chain) and the search's starting floor
m + cover_4 + W_3 (module docstring of ``mptsearch/exact/prefix_sets.py``). What the search has
to close by exhausting top-level covers is OPT_free minus that floor. CPU seconds of each part.

Usage: nice -n 19 python benchmarks/dense9_floors.py [--k 5] [--m 63 126] [--samples 3]
    [--out benchmarks/results/dense9_floors.jsonl]
"""

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_dense9 import families  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, nargs="*", default=[5])
    ap.add_argument("--m", type=int, nargs="*", default=[63, 126])
    ap.add_argument("--samples", type=int, default=3)
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()

    import numpy as np

    from mptsearch._kernels.prefix_wide import wide_forced
    from mptsearch.exact.prefix_sets import _wide_tables, cover_lower_bound, window_lower_bound
    from mptsearch.instance import from_lists

    lines = []
    for name, sets in families(a.k, a.m, a.samples, a.seed):
        inst = from_lists(sets)
        n = inst.n
        setmask, subs, ups, up1, rank = _wide_tables(n)
        forced, k, uniform = wide_forced(np.array(inst.request_masks(), dtype=np.uint64), inst.m, rank)
        assert uniform and k >= 4
        c0 = time.process_time()
        covs = {i: cover_lower_bound(forced[k], i, k, setmask, subs) for i in range(1, k)}
        c1 = time.process_time()
        w = window_lower_bound(forced, k, n, subs, ups, up1, covs)
        c2 = time.process_time()
        row = {"instance": name, "covers": [covs[i] for i in range(1, k)], "level_bound": inst.m + sum(covs.values()),
               "window": w, "floor": inst.m + covs[k - 1] + w, "cpu_covers": round(c1 - c0, 1),
               "cpu_window": round(c2 - c1, 1)}
        lines.append(json.dumps(row))
        print(lines[-1], flush=True)
    if a.out:
        Path(a.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
