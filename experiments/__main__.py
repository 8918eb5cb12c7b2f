"""Run every experiment at its default size, then rebuild results/README.md.

    python -m experiments            # default sizes (about 3 minutes on a quiet 2-core machine)
    python -m experiments --full     # the paper's sizes
    python -m experiments --only leave_one_out dp_speed
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time

# Default run (about 3 minutes on a quiet 2-core machine). The searches that feed C1 and C9 (annealing
# table, exhaustive enumeration), the serving side (C10-C12), open problem 1 and the certificates
# are longer and run on their own: python -m experiments.anneal_table,
# python experiments/enumerate_classes.py run, python -m experiments.serving, python -m experiments.theta_k,
# python -m experiments.certificates, python -m experiments.anneal_k4 (4-uniform on 8 and 9 chunks); C5 at
# m = 100..1000 (python -m experiments.rag_scale, about 25 minutes wall on a shared machine) and the
# cost-ratio searches past m = 16 (python -m experiments.hard_instances_large).
EXPERIMENTS = ["minimal_gaps", "leave_one_out", "half_approx", "rag_shaped", "mst_slack", "c1p_bound",
               "dp_speed", "verify_campaigns", "ratios"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--full", action="store_true")
    p.add_argument("--only", nargs="*", default=None, choices=EXPERIMENTS)
    args = p.parse_args()
    for name in args.only or EXPERIMENTS:
        t = time.perf_counter()
        mod = importlib.import_module(f"experiments.{name}")
        flags = ["--full"] if args.full else []
        sys.argv = [f"experiments/{name}.py"] + flags  # recorded as the experiment's own command
        mod.main(flags)
        print(f"{name}: {time.perf_counter() - t:.1f} s", flush=True)
    from . import report
    report.main()
    print("wrote results/README.md")


if __name__ == "__main__":
    main()
