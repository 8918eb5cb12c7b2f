"""Where the directed-cut root loop spends its time on one trace: the closure and sub-DAG builds
(CPU seconds), then cut_lp under cProfile with a CPU-second deadline, its rounds and the
functions by own time.

    python benchmarks/prof_root_loop.py TRACE.jsonl 90
    python benchmarks/prof_root_loop.py zipf:500:0 300   # zipf_unit(500, 10, 0) of bench_closure.py
"""
import cProfile, pstats, time, sys
from mptsearch.serving.sparse import read_sparse
from mptsearch.exact.closure import reduce_instance, closure_graph
from mptsearch.exact.dcut import request_subdags, cut_lp
path, limit = sys.argv[1], float(sys.argv[2])  # the trace, CPU seconds for cut_lp
if path.startswith("zipf:"):
    import os
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_closure import zipf_unit
    _, m, seed = path.split(":")
    inst = zipf_unit(int(m), 10, int(seed))
else:
    inst = read_sparse(path).to_instance()
now = time.process_time
t = now(); red = reduce_instance(inst); print("reduce", round(now() - t, 2), flush=True)
comps = [c for c in red.components if len(c[0]) > 1]
print("components", len(red.components), "multi", len(comps), [len(c[0]) for c in comps][:5], flush=True)
idx, masks = max(comps, key=lambda c: len(c[0]))
t = now(); g = closure_graph(masks, red.weights); print("closure", round(now() - t, 2), len(g.sets), len(g.tails), flush=True)
t = now(); sub = request_subdags(g); print("subdags", round(now() - t, 2), flush=True)
import numpy as np
from mptsearch.exact.dcut import separate
separate(np.zeros(len(g.tails)), sub)  # compile the separation kernel outside the profile
pr = cProfile.Profile()
t = now()
pr.enable()
lp = cut_lp(g, subdags=sub, deadline=now() + limit, clock=now, tail_rounds=3)
pr.disable()
print("cut_lp cpu", round(now() - t, 2), "lp_seconds(wall)", round(lp.lp_seconds, 1), "rounds", lp.rounds,
      "converged", lp.converged, "value", lp.value, "cover", lp.cover_value, "cuts", lp.cuts, flush=True)
for h in lp.history:
    print("  round", h[0], "value", round(h[1], 2), "active", h[2], "wall", round(h[3], 1), "cpu", h[4],
          "iterations", h[5])
pstats.Stats(pr).sort_stats("tottime").print_stats(18)
