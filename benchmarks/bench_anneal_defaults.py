"""Time for ``mptsearch anneal`` to reach the exhaustive maximum, old against new default m range.

Cases: k=3 on 6 chunks (exhaustive maximum 23/18 at m=12, results/enumerate) and k=4 on 7
chunks (1.5 at m=8). For each seed the run stops as soon as the target is reached (or at the
time limit); the time to target is read from the run's improvement history. Both variants run
side by side in one invocation, so their ratio is meaningful on a loaded machine.

    python benchmarks/bench_anneal_defaults.py [--seeds 5] [--time-limit 120] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from fractions import Fraction

from mptsearch.search.anneal import DEFAULT_M_NARROW, AnnealConfig, default_requests
from mptsearch.search.parallel import anneal

CASES = [("k3n6", 6, (3, 3), Fraction(23, 18)), ("k4n7", 7, (4, 4), Fraction(3, 2))]


class _Reached(KeyboardInterrupt):
    pass


def time_to_target(n, k, m, m_alternate, target, seed, time_limit, jobs):
    cfg = AnnealConfig(n=n, k=k, m=m, m_alternate=m_alternate)

    def stop(run):
        if run.den and Fraction(run.num, run.den) >= target:
            raise _Reached

    run = anneal(cfg, seed=seed, time_limit=time_limit, jobs=jobs, progress=stop)
    hit = [t for t, v in run.history if v >= float(target) - 1e-12]
    return (hit[0] if hit else None), float(Fraction(run.num, run.den)), run.evaluations


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cases", default="k3n6,k4n7")
    ap.add_argument("--out", default=None, help="write the rows as JSON here")
    a = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cpus (shared machine: compare the "
          f"variants, measured side by side, not absolute times)")
    anneal(AnnealConfig(n=6, k=(3, 3), m=(3, 10)), seed=0, steps=200, time_limit=None, jobs=1)  # compile
    rows = []
    for name, n, k, target in CASES:
        if name not in a.cases.split(","):
            continue
        cap = AnnealConfig(n=n, k=k, m=(1, 1)).capacity()
        # the former CLI default, and the CLI's default now (mptsearch/cli/anneal.py)
        variants = {"old 3-10": ((min(3, cap), min(10, cap)), None),
                    "new default": (default_requests(n, k), DEFAULT_M_NARROW)}
        for seed in range(a.seeds):
            for label, (m, m_alternate) in variants.items():
                t0 = time.perf_counter()
                limit = a.time_limit
                if name == "k3n6" and label.startswith("old"):
                    # m <= 10 cannot reach 23/18: the exhaustive maximum there is 1.25
                    # (results/enumerate/k3_n6_all.json); a short run shows it stalls
                    limit = min(limit, 10.0)
                t, best, evals = time_to_target(n, k, m, m_alternate, target, seed, limit, a.jobs)
                rows.append({"case": name, "variant": label, "m": list(m), "seed": seed, "time_to_target": t,
                             "best": best, "evaluations": evals, "wall": round(time.perf_counter() - t0, 1)})
                print(f"{name} {label:>11} m={m[0]}-{m[1]} seed {seed}: "
                      f"{'not reached' if t is None else f'{t:.1f} s'} (best {best:.4f})", flush=True)
    print()
    for name, *_ in CASES:
        for label in ("old 3-10", "new default"):
            rs = [r for r in rows if r["case"] == name and r["variant"] == label]
            if not rs:
                continue
            hits = [r["time_to_target"] for r in rs if r["time_to_target"] is not None]
            med = statistics.median(r["time_to_target"] if r["time_to_target"] is not None else float("inf")
                                    for r in rs)
            print(f"{name} {label:>11}: reached in {len(hits)}/{len(rs)} seeds within {a.time_limit:.0f} s, "
                  f"median time {med:.1f} s")
    if a.out:
        with open(a.out + ".tmp", "w") as fh:
            json.dump({"load_average": os.getloadavg()[0], "time_limit": a.time_limit, "jobs": a.jobs,
                       "rows": rows}, fh, indent=1)
        os.replace(a.out + ".tmp", a.out)


if __name__ == "__main__":
    main()
