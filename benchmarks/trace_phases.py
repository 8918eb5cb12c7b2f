"""Where opt_free_dcut spends a trace's time limit: each phase's start and end on the CPU clock
(the root loop with its rounds and which LP method solved each, the LP-guided search, the
reduced-cost fixing, each SCIP call), then the bracket. The result is pickled for a later look.

    python benchmarks/trace_phases.py TRACE.jsonl 600 [OVERRIDES_JSON] [OUT.pkl]

OVERRIDES_JSON sets module constants of mptsearch.exact.dcut_bnc first, e.g.
'{"ROOT_IPM_ROWS": null}' for the dual simplex alone.
"""
import json
import pickle
import sys
import time

import mptsearch.exact.dcut as dcut
import mptsearch.exact.dcut_bnc as bnc
from mptsearch.serving.sparse import read_sparse

path, limit = sys.argv[1], float(sys.argv[2])
for k, v in (json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}).items():
    setattr(bnc, k, v)
now = time.process_time
T0 = now()


def log(*a):
    print(f"[{now() - T0:7.1f}]", *a, flush=True)


real_cut_lp = dcut.cut_lp


def cut_lp(g, **kw):
    left = None if kw.get("deadline") is None else round(kw["deadline"] - now(), 1)
    log("root loop starts", len(g.tails), "arcs; its deadline in", left)
    r = real_cut_lp(g, **kw)
    for h, s in zip(r.history, r.solvers):
        log("   round", h[0], round(h[1], 2), "active", h[2], "clock", h[4], s)
    log("root loop ends", r.value, "converged", r.converged)
    return r


dcut.cut_lp = cut_lp
for fn in ("_lp_guided_search", "branch_and_cut", "reduced_cost_fixing"):
    real = getattr(bnc, fn)

    def wrap(*a, _real=real, _fn=fn, **kw):
        log(_fn, "starts", {k: (round(v, 1) if isinstance(v, float) else v) for k, v in kw.items()
                            if k in ("time_limit", "cutoff")})
        out = _real(*a, **kw)
        log(_fn, "ends", (int(out[0].sum()), int(out[1].sum())) if _fn == "reduced_cost_fixing" else out[:2])
        return out

    setattr(bnc, fn, wrap)
inst = read_sparse(path).to_instance()
r = bnc.opt_free_dcut(inst, time_limit=limit, clock="cpu", keep_duals=True)
log("done", r.lower, r.upper, r.status, "lp", r.lp_bound, "gap %.4f%%" % (100 * (r.upper - r.lower) / r.upper))
if len(sys.argv) > 4:
    with open(sys.argv[4], "wb") as fh:
        pickle.dump(r, fh)
