"""The prefix-set search's first search before the level program's start, side by side: the
same uniform families on 9 and 10 chunks solved with each ``quick_nodes`` budget, CPU seconds.

On uniform families (k >= 3) on 8-10 chunks, :func:`mptsearch.exact.prefix_sets._opt_free_wide`
first searches ``quick_nodes`` nodes alone; if that has not finished, HiGHS solves the level
program for at most 2 s wall and its family becomes the search's starting upper bound. A small
budget makes every family the first search does not end pay those 2 s; a large one makes the
families that need the start pay the first search too. ``plain`` is the search never given the
start (``upper=False``).

Families: for n in ``--n``, k in ``--k``, m in ``--m`` and s < ``--samples``, m distinct k-sets
of n chunks drawn by ``random.Random(1000 s + m + 10 k + n)``. Each family is solved with every
budget in turn, in one process (the kernels compiled first), the budgets' order alternating
from one family to the next; each call is stopped at ``--limit`` wall seconds (the search's own
time limit) and counted unfinished. Every value two budgets prove is compared (assert).

Usage: nice -n 5 python benchmarks/bench_quick_nodes.py [--budgets 20000 24000000 plain]
    [--n 9 10] [--k 4 5] [--m 15 20 30 45 60] [--samples 2] [--limit 10] [--out FILE]
"""

import argparse
import json
import random
import statistics
import sys
import time
from itertools import combinations

from mptsearch.exact.prefix_sets import PrefixSetsUnfinished, _opt_free_wide
from mptsearch.instance import from_lists


def family(n: int, k: int, m: int, s: int):
    rng = random.Random(1000 * s + m + 10 * k + n)
    return from_lists([list(x) for x in rng.sample(list(combinations(range(n), k)), m)])


def solve(inst, budget: str, limit: float):
    kw = dict(upper=False) if budget == "plain" else dict(quick_nodes=int(budget))
    c0 = time.process_time()
    try:
        value = _opt_free_wide(inst, time_limit=limit, **kw).value
    except PrefixSetsUnfinished:
        value = None
    return time.process_time() - c0, value


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--budgets", nargs="+", default=["20000", "24000000", "plain"])
    ap.add_argument("--n", nargs="+", type=int, default=[9, 10])
    ap.add_argument("--k", nargs="+", type=int, default=[4, 5])
    ap.add_argument("--m", nargs="+", type=int, default=[15, 20, 30, 45, 60])
    ap.add_argument("--samples", type=int, default=2)
    ap.add_argument("--limit", type=float, default=10.0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)

    for k in (3, 4, 5):  # compile the kernels before any clock runs
        _opt_free_wide(family(9, k, 12, 0))
    rows = []
    cases = [(n, k, m, s) for n in args.n for k in args.k for m in args.m for s in range(args.samples)
             if m <= len(list(combinations(range(n), k)))]
    for i, (n, k, m, s) in enumerate(cases):
        inst = family(n, k, m, s)
        order = args.budgets if i % 2 == 0 else args.budgets[::-1]
        row = {"n": n, "k": k, "m": m, "sample": s}
        for b in order:
            row[b] = solve(inst, b, args.limit)
        values = {row[b][1] for b in args.budgets} - {None}
        assert len(values) <= 1, row
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)

    base = args.budgets[0]
    lines = [f"| family | " + " | ".join(f"{b}: CPU s" for b in args.budgets) + " | OPT_free |",
             "|---|" + "---|" * len(args.budgets) + "---|"]
    for r in rows:
        value = next((r[b][1] for b in args.budgets if r[b][1] is not None), None)
        cells = [f"{r[b][0]:.2f}" if r[b][1] is not None else f"not in {args.limit:g} s" for b in args.budgets]
        lines.append(f"| n={r['n']} k={r['k']} m={r['m']} #{r['sample']} | " + " | ".join(cells) +
                     f" | {value if value is not None else '-'} |")
    lines.append("")
    for b in args.budgets[1:]:
        both = [r for r in rows if r[base][1] is not None and r[b][1] is not None]
        if not both:
            continue
        ratios = [r[b][0] / r[base][0] for r in both]
        lines.append(f"{b} against {base}, on the {len(both)} families both finish: median ratio "
                     f"{statistics.median(ratios):.3f}, total {sum(r[b][0] for r in both):.1f} against "
                     f"{sum(r[base][0] for r in both):.1f} CPU s; faster by over 0.5 s on "
                     f"{sum(r[base][0] - r[b][0] > 0.5 for r in both)}, slower by over 0.5 s on "
                     f"{sum(r[b][0] - r[base][0] > 0.5 for r in both)}; finished "
                     f"{sum(r[b][1] is not None for r in rows)} against {sum(r[base][1] is not None for r in rows)} "
                     f"of {len(rows)}")
    print("\n".join(lines))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            json.dump({"args": {k: v for k, v in vars(args).items() if k != "out"}, "rows": rows}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
