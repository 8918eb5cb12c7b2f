"""Best OPT_glob/OPT_free ratios found by annealing for k = 2..6 (paper's open problem 1).

Writes results/anneal/: table.json (environment, config, seed and timings first, then one row
per (k, n) with the certified best find), table.md (built from table.json only) and
best/ratio-k<K>-n<N>.json (each find's full record with its certificate).

    python experiments/anneal_table.py [--seconds 100] [--jobs 1] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import time

from experiments.certificates import anneal_md as table_md  # one builder of table.md
from mptsearch.search.anneal import AnnealConfig
from mptsearch.provenance import environment
from mptsearch.search.certificate import certify, run_record, write_json
from mptsearch.search.parallel import anneal

ROWS = [(2, 6), (3, 6), (3, 7), (4, 7), (4, 8), (4, 9), (5, 8), (5, 9), (6, 9), (6, 10)]
OUT = os.path.join(os.path.dirname(__file__), "..", "results", "anneal")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=100.0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--requests", default="3-10")
    ap.add_argument("--rows", default=None, help="subset like 4:7,4:8")
    a = ap.parse_args()
    rows = ROWS if a.rows is None else [tuple(int(v) for v in r.split(":")) for r in a.rows.split(",")]
    mlo, mhi = (int(v) for v in a.requests.split("-"))
    data = {"environment": environment(),
            "config": {"seed": a.seed, "seconds": a.seconds, "jobs": a.jobs, "requests": a.requests,
                       "rows": rows, "restart_steps": AnnealConfig(2, (1, 1), (1, 1)).restart_steps},
            "started": time.strftime("%Y-%m-%d %H:%M:%S"), "rows": []}
    os.makedirs(os.path.join(OUT, "best"), exist_ok=True)
    for k, n in rows:
        cfg = AnnealConfig(n=n, k=(k, k), m=(mlo, mhi)).validate()
        cfg = AnnealConfig(n=n, k=(k, k), m=(min(mlo, cfg.capacity()), min(mhi, cfg.capacity())))
        run = anneal(cfg, seed=a.seed, time_limit=a.seconds, jobs=a.jobs)
        cert = certify(run.instance, "ratio", run.num, run.den)
        settings = {"objective": "ratio", "k": [k, k], "chunks": n, "requests": list(cfg.m), "weights": [1, 1],
                    "seed": a.seed, "time_limit": a.seconds, "jobs": a.jobs}
        write_json(os.path.join(OUT, "best", f"ratio-k{k}-n{n}.json"), run_record(run, cert, settings))
        row = {"k": k, "n": n, "evaluations": run.evaluations, "seconds": round(run.seconds, 1),
               "restarts": run.restarts_started, "best": cert}
        data["rows"].append(row)
        print(f"k={k} n={n}: {cert['value']:.4f} ({cert['opt_glob']}/{cert['opt_free']}) {cert['canonical']} "
              f"[{run.evaluations:,} evals, {run.seconds:.0f} s]", flush=True)
        write_json(os.path.join(OUT, "table.json"), data)
        with open(os.path.join(OUT, "table.md"), "w") as fh:
            fh.write(table_md(data))


if __name__ == "__main__":
    main()
