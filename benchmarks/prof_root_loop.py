"""Where the directed-cut root loop spends its time on one trace: the closure and sub-DAG builds
(CPU seconds), then cut_lp under cProfile with a CPU-second deadline, its rounds and the
functions by own time.

    python benchmarks/prof_root_loop.py TRACE.jsonl 90
"""
import cProfile, pstats, time, sys
from mptsearch.serving.sparse import read_sparse
from mptsearch.exact.closure import reduce_instance, closure_graph
from mptsearch.exact.dcut import request_subdags, cut_lp
path, limit = sys.argv[1], float(sys.argv[2])  # the trace, CPU seconds for cut_lp
inst = read_sparse(path).to_instance()
now = time.process_time
t = now(); red = reduce_instance(inst); print("reduce", round(now() - t, 2), flush=True)
comps = [c for c in red.components if len(c[0]) > 1]
print("components", len(red.components), "multi", len(comps), [len(c[0]) for c in comps][:5], flush=True)
idx, masks = max(comps, key=lambda c: len(c[0]))
t = now(); g = closure_graph(masks, red.weights); print("closure", round(now() - t, 2), len(g.sets), len(g.tails), flush=True)
t = now(); sub = request_subdags(g); print("subdags", round(now() - t, 2), flush=True)
pr = cProfile.Profile()
t = now()
pr.enable()
lp = cut_lp(g, subdags=sub, deadline=now() + limit, clock=now, tail_rounds=3)
pr.disable()
print("cut_lp cpu", round(now() - t, 2), "lp_seconds(wall)", round(lp.lp_seconds, 1), "rounds", lp.rounds,
      "converged", lp.converged, "value", lp.value, "cover", lp.cover_value, "cuts", lp.cuts, flush=True)
for h in lp.history:
    print("  round", h[0], "value", round(h[1], 2), "active", h[2], "wall", round(h[3], 1))
pstats.Stats(pr).sort_stats("tottime").print_stats(18)
