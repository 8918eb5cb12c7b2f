"""The directed-cut root LP of a trace's largest component by other means than dcut.cut_lp:

- ``flow``: the multicommodity-flow form (per request a unit flow from ∅ to R on D_R, the
  sub-DAG of dcut.request_subdags, each arc's flow at most x_a, with the cover rows): by max-flow
  min-cut on every D_R its value is that of the converged cut LP. Solved once by HiGHS with the
  options given (e.g. '{"solver": "ipx", "run_crossover": "off"}').
- ``loop``: the cut loop re-implemented with every separated cut kept (no pool), each re-solve
  by a schedule of methods: ``"resolve": "ipx"`` (interior point, no crossover), ``"simplex"``
  (warm dual simplex), ``"ipxx,simplex"`` (IPX with crossover once, then the simplex).

    python benchmarks/bench_root_lp_forms.py TRACE.jsonl flow '{"solver": "ipx", "run_crossover": "off"}'
    python benchmarks/bench_root_lp_forms.py TRACE.jsonl loop '{"resolve": "ipx"}' 900

CPU seconds of this process; one thread.
"""
import json
import sys
import time

import numpy as np
import scipy.sparse as sp

from mptsearch.exact.closure import closure_graph, reduce_instance
from mptsearch.exact.closure_program import _new_highs
from mptsearch.exact.dcut import _add_rows, _base_rows, pack_subdags, request_subdags, separate
from mptsearch.serving.sparse import read_sparse


def largest(path):
    red = reduce_instance(read_sparse(path).to_instance())
    idx, masks = max((c for c in red.components if len(c[0]) > 1), key=lambda c: len(c[0]))
    g = closure_graph(masks, red.weights)
    return g, request_subdags(g)


def flow_lp(g, sub):
    """(A, row lo, row hi, cost, col lo, col hi) of the flow form: columns x then one flow per
    (request, arc of D_R); rows the cover rows, in - out >= [v = R] per node v != ∅ of each D_R
    (a preflow: one of value >= 1 to R holds a unit flow), x_a - f >= 0 per flow."""
    p = pack_subdags(sub)
    na, nf, nreq = len(g.tails), len(p.garc), len(p.node_ptr) - 1
    rows, lo, hi, _ = _base_rows(g)
    ri = np.concatenate([np.full(len(i), r) for r, (i, _) in enumerate(rows)])
    B = sp.csr_matrix((np.concatenate([v for _, v in rows]), (ri, np.concatenate([i for i, _ in rows]))),
                      shape=(len(rows), na + nf))
    owner = np.repeat(np.arange(nreq), np.diff(p.arc_ptr))
    ph, pt = p.lhead + p.node_ptr[owner], p.ltail + p.node_ptr[owner]
    fcol = np.arange(nf) + na
    C = sp.csr_matrix((np.r_[np.ones(nf), -np.ones(nf)], (np.r_[ph, pt], np.r_[fcol, fcol])), shape=(len(p.nodes), na + nf))
    keep = np.ones(len(p.nodes), bool)
    keep[p.node_ptr[:-1]] = False  # no row for ∅
    clo = np.zeros(len(p.nodes))
    clo[p.node_ptr[1:] - 1] = 1.0
    L = sp.csr_matrix((np.r_[np.ones(nf), -np.ones(nf)], (np.r_[np.arange(nf), np.arange(nf)], np.r_[p.garc, fcol])),
                      shape=(nf, na + nf))
    A = sp.vstack([B, C[keep], L]).tocsc()
    rlo = np.r_[np.array(lo), clo[keep], np.zeros(nf)]
    rhi = np.r_[np.array(hi), np.full(int(keep.sum()), np.inf), np.full(nf, np.inf)]
    return A, rlo, rhi, np.r_[g.costs.astype(float), np.zeros(nf)], np.zeros(na + nf), np.r_[np.ones(na), np.full(nf, np.inf)]


def run_flow(g, sub, opts):
    import highspy

    A, rlo, rhi, cost, clb, cub = flow_lp(g, sub)
    h = _new_highs()
    h.setOptionValue("threads", 1)
    for k, v in opts.items():
        h.setOptionValue(k, v)
    lp = highspy.HighsLp()
    lp.num_row_, lp.num_col_ = A.shape
    lp.col_cost_, lp.col_lower_, lp.col_upper_, lp.row_lower_, lp.row_upper_ = cost, clb, cub, rlo, rhi
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = A.indptr, A.indices, A.data
    h.passModel(lp)
    t = time.process_time()
    h.run()
    print(f"flow LP: {A.shape[0]} rows, {A.shape[1]} columns, {A.nnz} nonzeros; "
          f"{h.modelStatusToString(h.getModelStatus())} {h.getInfo().objective_function_value:.2f} "
          f"in {time.process_time() - t:.1f} CPU s", flush=True)


def run_loop(g, sub, opts, limit):
    sched = opts.get("resolve", "ipx").split(",")
    c0 = time.process_time()
    h = _new_highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    na = len(g.tails)
    h.addVars(na, np.zeros(na), np.ones(na))
    h.changeColsCost(na, np.arange(na, dtype=np.int32), g.costs.astype(np.float64))
    rows, lo, hi, _ = _base_rows(g)
    _add_rows(h, rows, lo, hi)
    separate(np.zeros(na), sub)  # compiled outside the clock's rounds
    h.setOptionValue("solver", "simplex")
    keys, ncuts = set(), 0
    for rnd in range(1000):
        t = time.process_time()
        h.run()
        info = h.getInfo()
        x = np.array(h.getSolution().col_value)
        print(f"round {rnd}: {h.modelStatusToString(h.getModelStatus())} {info.objective_function_value:.2f}, "
              f"{ncuts} cuts, solve {time.process_time() - t:.1f} CPU s (IPM {info.ipm_iteration_count}, simplex "
              f"{info.simplex_iteration_count}, crossover {info.crossover_iteration_count} iterations), "
              f"total {time.process_time() - c0:.1f}", flush=True)
        if time.process_time() - c0 > limit:
            break
        new = []
        for _, _, arcs in separate(x, sub, nested=2, back=True):
            key = tuple(sorted(arcs.tolist()))
            if key not in keys:
                keys.add(key)
                new.append(arcs)
        print(f"  {len(new)} new cuts, {np.mean([len(a) for a in new]) if new else 0:.1f} arcs each", flush=True)
        if not new:
            print("converged")
            break
        _add_rows(h, [(a.astype(np.int32), np.ones(len(a))) for a in new], [1.0] * len(new), [np.inf] * len(new))
        ncuts += len(new)
        step = sched[min(rnd, len(sched) - 1)]
        h.setOptionValue("solver", "simplex" if step == "simplex" else "ipx")
        h.setOptionValue("run_crossover", "on" if step == "ipxx" else "off")


if __name__ == "__main__":
    path, form = sys.argv[1], sys.argv[2]
    opts = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    g, sub = largest(path)
    print(f"{len(g.sets)} sets, {len(g.tails)} arcs, {sum(len(d.arcs) for d in sub)} arcs over all D_R", flush=True)
    if form == "flow":
        run_flow(g, sub, opts)
    else:
        run_loop(g, sub, opts, float(sys.argv[4]) if len(sys.argv) > 4 else 600.0)
