"""HiGHS options and the pairs program on one RAG-shaped instance: the bound and incumbent after
a wall-time limit (issue 25's question "do presolve, heuristics or another program help?").

Usage: python benchmarks/probe_closure_options.py M K SECONDS [--pairs] [option=value ...]
       python benchmarks/probe_closure_options.py M K SECONDS --driver [--sample S]

Builds bench_closure.py's Zipf instance (m, k) (seed 25 + m + k), its largest component's cover
program (or with ``--pairs`` the pairs program of mptsearch/exact/pairs_program.py), sets the
HiGHS options given (for example ``presolve=off mip_heuristic_run_rins=false``; one thread,
zero gap as in the package) and prints HiGHS's status, incumbent, dual bound, wall and CPU
seconds. With ``--cpsat`` it runs instead the plain CP-SAT model of bench_closure.py with the
local search's sets as a hint. With ``--driver`` it runs ``opt_free_closure`` twice, with the
cover program and with the pairs program (``pairs_cap=PAIRS_CAP``), on the zipfmid instance
#S (seed 25 + 1000 S + m + k; S = 0 is the zipf suite's instance). One run, nothing written:
exploratory figures only.
"""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from experiments.rag_shaped import rag_instance  # noqa: E402
from mptsearch.exact.closure import closure_graph, reduce_instance  # noqa: E402
from mptsearch.exact.closure_program import component_model, highs_model  # noqa: E402
from mptsearch.exact.closure_search import closure_poset  # noqa: E402
from mptsearch.exact.pairs_program import pairs_model  # noqa: E402


def _value(text):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text, text)


def main():
    m, k, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    flags = [a for a in sys.argv[4:] if a.startswith("--")]
    options = dict(a.split("=", 1) for a in sys.argv[4:] if "=" in a)
    sample = int(sys.argv[sys.argv.index("--sample") + 1]) if "--sample" in sys.argv else 0
    inst = rag_instance(m, np.random.default_rng(25 + 1000 * sample + m + k), k=(k, k), pool=50)
    if "--driver" in flags:
        from mptsearch.exact.arborescence import PAIRS_CAP, opt_free_closure

        for name, cap in (("cover", 0), ("pairs", PAIRS_CAP)):
            c0, t0 = time.process_time(), time.perf_counter()
            r = opt_free_closure(inst, time_limit=seconds, pairs_cap=cap)
            print(f"{name}: {r.formulation}, optimal {r.optimal}, bracket {r.lower}..{r.upper}, "
                  f"wall {time.perf_counter() - t0:.1f} cpu {time.process_time() - c0:.1f}")
        return
    if "--cpsat" in flags:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_closure import plain_cpsat

        c0 = time.process_time()
        value, low, secs = plain_cpsat(inst, seconds, 10**9, hint=True)
        print(f"cpsat+hint: value {value} lower {low} wall {secs:.1f} cpu {time.process_time() - c0:.1f}")
        return
    red = reduce_instance(inst)
    idx, masks = max(red.components, key=lambda c: len(c[0]))
    g = closure_graph(masks, red.weights)
    model = pairs_model(g, closure_poset(g, red.weights)) if "--pairs" in flags else component_model(g)
    h = highs_model(model, integer=True, time_limit=seconds)
    for key, text in options.items():
        h.setOptionValue(key, _value(text))
    c0, t0 = time.process_time(), time.perf_counter()
    h.run()
    info = h.getInfo()
    print(f"{'pairs' if '--pairs' in flags else 'cover'} {options}: {h.modelStatusToString(h.getModelStatus())}, "
          f"incumbent {info.objective_function_value:.0f}, bound {info.mip_dual_bound:.0f}, "
          f"wall {time.perf_counter() - t0:.1f} cpu {time.process_time() - c0:.1f}")


if __name__ == "__main__":
    main()
