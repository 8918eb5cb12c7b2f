"""The root cut loop of the directed-cut LP, variant by variant, and how many arcs the fixings
delete (the figures in the docstrings of mptsearch/exact/dcut.py and dcut_bnc.py).

Usage (from the repository root; CPU seconds of this process, the machine may be shared):

    python benchmarks/bench_cut_loop.py loop M SEED '{"nested": 2}' ['{...}' ...]
    python benchmarks/bench_cut_loop.py fixing M SEED UB [UB ...]
    python benchmarks/bench_cut_loop.py tree M SEED SECONDS '{}' ours ['{...}' ...]
    python benchmarks/bench_cut_loop.py prove M SEED UB SECONDS '{}' ['{...}' ...]
    python benchmarks/bench_cut_loop.py steiner M SEED

``loop`` runs a re-implementation of :func:`mptsearch.exact.dcut.cut_lp`'s loop with knobs
(``nested`` cuts per request, ``maxcuts`` per round, ``drop_after`` slack rounds, ``lazy``: the
x(X -> Y) <= in(X) rows added only when violated, ``edge``: HiGHS's dual edge weight strategy)
on the largest component of ``zipf_unit(M, 10, SEED)`` (benchmarks/bench_closure.py) and
prints the converged value, rounds, CPU seconds, HiGHS's share and its simplex iterations.
``fixing`` runs ``cut_lp`` to convergence and counts the arcs held at 0 by reduced-cost fixing
and by :func:`mptsearch.exact.dcut_reduce.reduce_fixing` for each upper bound UB. ``tree``
runs the root loop, the LP-guided search (its layout's cost is UB), the fixings, then SCIP's
tree for SECONDS wall with each set of SCIP parameters in turn over SCIP's own defaults (``{}``:
the defaults; ``ours``: :data:`mptsearch.exact.dcut_bnc.SCIP_PARAMS`) and prints its status,
bound, layout and counts. ``prove`` asks how fast the tree proves that no layout costs less than
UB (a known layout's cost, typically the optimum): the root loop as ``opt_free_dcut`` runs it,
the reductions for UB, then :func:`mptsearch.exact.dcut_bnc.branch_and_cut` with the cutoff UB
for SECONDS CPU seconds, once per configuration (JSON keyword arguments of ``branch_and_cut``:
``params``, SCIP parameters over :data:`~mptsearch.exact.dcut_bnc.SCIP_PARAMS`,
``vertex_branching``, ``steiner_cuts``); rows appended to
benchmarks/results/closure_dcut_tree.json (status, bound, SCIP's dual bound, nodes, LP
iterations, CPU and wall seconds, load average). ``steiner`` runs ``cut_lp`` to convergence, then
a loop over that LP adding the violated cut rows and Steiner node cuts x(δ⁻(S)) >= in(v)
(mptsearch/exact/dcut.py) until neither kind is violated, printing the value each round.
"""

import itertools
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_closure import append_row, zipf_unit  # noqa: E402
from mptsearch.exact.closure import closure_graph, reduce_instance  # noqa: E402
from mptsearch.exact.closure_program import _new_highs  # noqa: E402
from mptsearch.exact.dcut import TOL, _add_rows, _base_rows, cut_lp, request_subdags, separate  # noqa: E402
from mptsearch.exact.dcut_bnc import reduced_cost_fixing  # noqa: E402
from mptsearch.exact.dcut_reduce import reduce_fixing  # noqa: E402


def balance_rows(g):
    """in(v) - out(v) <= 0 for every node v that is not a request (an optimal arborescence has
    no Steiner leaf: arc costs are >= 1), as (rows, lo, hi)."""
    into = [[] for _ in g.sets]
    out = [[] for _ in g.sets]
    for a, (t, h) in enumerate(zip(g.tails.tolist(), g.heads.tolist())):
        into[h].append(a)
        out[t].append(a)
    req = set(g.requests)
    rows = [(np.array(into[v] + out[v], dtype=np.int32), np.array([1.0] * len(into[v]) + [-1.0] * len(out[v])))
            for v in range(1, len(g.sets)) if v not in req]
    return rows, [-np.inf] * len(rows), [0.0] * len(rows)


def level_rows(g, weights, time_limit=20.0):
    """Level rows: for every depth j, sum of x over the arcs X -> Y with w(X) < j <= w(Y) is at
    least cover_j, the least number of chunk sets of weight j such that every request of weight
    >= j contains one (an arborescence's trie has one node at depth j on each such arc, and
    the root path of every such request passes depth j on one of them). Unit weights per
    original chunk: w counts merged chunks by their sizes; here only for components whose
    merged chunks all have weight 1. cover_j by HiGHS's MIP (its dual bound rounded up: a
    solver's word) within ``time_limit`` s each. (rows, lo, hi, covers)."""
    import highspy

    assert all(w == 1 for w in weights), "level rows: unit merged weights only"
    size = [bin(s).count("1") for s in g.sets]
    reqs = [g.sets[r] for r in g.requests]
    n = max(s.bit_length() for s in reqs)
    rows, lo, hi, covers = [], [], [], []
    for j in range(1, max(size[r] for r in g.requests) + 1):
        big = [r for r in reqs if bin(r).count("1") >= j]
        cands = sorted({sum(1 << c for c in sub) for r in big
                        for sub in itertools.combinations([c for c in range(n) if r >> c & 1], j)})
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", 1)
        h.setOptionValue("time_limit", time_limit)
        h.addVars(len(cands), np.zeros(len(cands)), np.ones(len(cands)))
        h.changeColsCost(len(cands), np.arange(len(cands), dtype=np.int32), np.ones(len(cands)))
        h.changeColsIntegrality(len(cands), np.arange(len(cands), dtype=np.int32),
                                np.array([highspy.HighsVarType.kInteger] * len(cands)))
        for r in big:
            idx = np.array([i for i, c in enumerate(cands) if c & r == c], dtype=np.int32)
            h.addRow(1.0, np.inf, len(idx), idx, np.ones(len(idx)))
        h.run()
        cov = int(np.ceil(h.getInfo().mip_dual_bound - 1e-6))
        covers.append(cov)
        arcs = np.array([a for a, (t, hd) in enumerate(zip(g.tails.tolist(), g.heads.tolist()))
                         if size[t] < j <= size[hd]], dtype=np.int32)
        rows.append((arcs, np.ones(len(arcs))))
        lo.append(float(cov))
        hi.append(np.inf)
    return rows, lo, hi, covers


def loop(g, sub, lazy=False, maxcuts=None, nested=0, back=True, drop_after=2, max_rounds=60, edge=None,
         balance=False, level=None):
    t0 = time.process_time()
    h = _new_highs()
    for k, v in {"output_flag": False, "threads": 1, "presolve": "off", "solver": "simplex"}.items():
        h.setOptionValue(k, v)
    if edge is not None:
        h.setOptionValue("simplex_dual_edge_weight_strategy", edge)
    na = len(g.tails)
    h.addVars(na, np.zeros(na), np.ones(na))
    h.changeColsCost(na, np.arange(na, dtype=np.int32), g.costs.astype(np.float64))
    rows, lo, hi, kinds = _base_rows(g)
    nin = sum(1 for k in kinds if k[0] == "in")
    chunk_rows = rows[nin:]
    nbase = nin if lazy else len(rows)
    rows, lo, hi = rows[:nbase], lo[:nbase], hi[:nbase]
    if balance:
        br, bl, bh = balance_rows(g)
        rows, lo, hi = rows + br, lo + bl, hi + bh
        nbase = len(rows)
    if level is not None:
        lr, ll, lh, covers = level
        rows, lo, hi = rows + lr, lo + ll, hi + lh
        nbase = len(rows)
        print(f"  level rows: cover_j = {covers} (sum {sum(covers)})", flush=True)
    _add_rows(h, rows, lo, hi)
    active, keys = [], set()
    lp_cpu, iters, rounds = 0.0, 0, 0
    while True:
        s = time.process_time()
        h.run()
        lp_cpu += time.process_time() - s
        iters += h.getInfo().simplex_iteration_count
        sol = h.getSolution()
        x, duals = np.array(sol.col_value), np.array(sol.row_dual)
        value = h.getInfo().objective_function_value
        if rounds >= max_rounds:
            break
        cd = duals[nbase:]
        keep, drop = [], []
        for j, c in enumerate(active):
            act = float(x[c[0]] @ c[1])
            loose = (act > c[2] + 1e-6 if c[3] == np.inf else act < c[3] - 1e-6) and abs(cd[j]) < 1e-12
            c[4] = c[4] + 1 if loose else 0
            (drop if c[4] >= drop_after else keep).append(j)
        if drop:
            h.deleteRows(len(drop), np.array([nbase + j for j in drop], dtype=np.int32))
            for j in drop:
                keys.discard(active[j][5])
        active = [active[j] for j in keep]
        new = []
        if lazy:
            for i, (idx, val) in enumerate(chunk_rows):
                if float(x[idx] @ val) > 1e-6 and ("c", i) not in keys:
                    new.append([idx, val, -np.inf, 0.0, 0, ("c", i)])
        found = []
        for _, _, arcs in separate(x, sub, tol=TOL, back=back, nested=nested):
            key = tuple(sorted(arcs.tolist()))
            if key not in keys:
                found.append((x[arcs].sum(), [arcs.astype(np.int32), np.ones(len(arcs)), 1.0, np.inf, 0, key]))
        found.sort(key=lambda t: t[0])
        new += [c for _, c in (found[:maxcuts] if maxcuts else found)]
        rounds += 1
        if not new:
            break
        for c in new:
            keys.add(c[5])
        _add_rows(h, [(c[0].astype(np.int32), c[1]) for c in new], [c[2] for c in new], [c[3] for c in new])
        active.extend(new)
    return value, rounds, time.process_time() - t0, lp_cpu, iters


def steiner_rounds(g, sub):
    """The ``steiner`` command (module docstring)."""
    from mptsearch.exact.dcut import _into_lists

    c0 = time.process_time()
    lp = cut_lp(g, subdags=sub, tail_rounds=None, max_rounds=100, clock=time.process_time)
    print(f"cut LP {lp.value:.4f}, {lp.rounds} rounds, converged {lp.converged}, "
          f"{time.process_time() - c0:.1f} CPU s", flush=True)
    into = _into_lists(g)
    steiner = [v for v in range(1, len(g.sets)) if v not in set(g.requests)]
    ssub = request_subdags(g, targets=steiner)
    h = _new_highs()
    for k, v in (("output_flag", False), ("threads", 1), ("presolve", "off")):
        h.setOptionValue(k, v)
    na = len(g.tails)
    h.addVars(na, np.zeros(na), np.ones(na))
    h.changeColsCost(na, np.arange(na, dtype=np.int32), g.costs.astype(np.float64))
    rows, lo, hi, _ = _base_rows(g)
    _add_rows(h, rows, lo, hi)
    _add_rows(h, [(a.astype(np.int32), np.ones(len(a))) for a in lp.cut_arcs], [1.0] * len(lp.cut_arcs),
              [np.inf] * len(lp.cut_arcs))
    for it in range(100):
        h.run()
        x = np.array(h.getSolution().col_value)
        inflow = np.zeros(len(g.sets))
        np.add.at(inflow, g.heads, x)
        new = [(arcs.astype(np.int32), np.ones(len(arcs)), 1.0) for _, _, arcs in separate(x, sub, tol=TOL)]
        nreq = len(new)
        for r, _, arcs in separate(x, ssub, tol=TOL, goal=inflow[steiner]):
            coef = {}
            for a in arcs.tolist():
                coef[a] = coef.get(a, 0.0) + 1.0
            for a in into[steiner[r]]:
                coef[a] = coef.get(a, 0.0) - 1.0
            idx = np.array([a for a, c in coef.items() if c], dtype=np.int32)
            new.append((idx, np.array([coef[a] for a in idx.tolist()]), 0.0))
        print(f"round {it}: LP {h.getInfo().objective_function_value:.4f}, violated cut rows {nreq}, "
              f"Steiner node cuts {len(new) - nreq}, {time.process_time() - c0:.1f} CPU s", flush=True)
        if not new:
            break
        _add_rows(h, [(i, c) for i, c, _ in new], [b for _, _, b in new], [np.inf] * len(new))


def prove(g, sub, m, seed, ub, seconds, configs):
    """The ``prove`` command (module docstring)."""
    import os

    from mptsearch.exact.dcut_bnc import TAIL_ROUNDS, branch_and_cut
    from mptsearch.provenance import git_commit

    out = Path(__file__).resolve().parent / "results" / "closure_dcut_tree.json"
    c0 = time.process_time()
    lp = cut_lp(g, subdags=sub, tail_rounds=TAIL_ROUNDS, clock=time.process_time)
    root_cpu = time.process_time() - c0
    fz, fo = reduced_cost_fixing(lp.value, lp.reduced, ub)
    fix = reduce_fixing(g, fz, fo, lb=lp.value, reduced=lp.reduced, upper=ub)
    print(f"zipf-unit m={m} k=10 #{seed}: root LP {lp.value:.3f} ({root_cpu:.1f} CPU s), UB {ub}, "
          f"{int(fix.zero.sum())} of {len(g.tails)} arcs at 0, {int(fix.one.sum())} at 1", flush=True)
    for cfg in configs:
        kw = json.loads(cfg)
        stats = {}
        row = {"instance": f"zipf-unit m={m} k=10 #{seed}", "ub": ub, "root_lp": lp.value, "config": kw,
               "limit": seconds, "git_commit": git_commit(), "load_average_before": os.getloadavg()}
        c1, w1 = time.process_time(), time.perf_counter()
        st, b, x, nodes = branch_and_cut(g, sub, time_limit=seconds, fixed_zero=fix.zero, fixed_one=fix.one,
                                         cuts=lp.cut_arcs, cutoff=ub, stats=stats, clock="cpu", **kw)
        row.update(status=st, bound=b, layout=None if x is None else int(g.costs[x].sum()),
                   dual_bound=stats.get("dual_bound"), nodes=nodes, lp_iterations=stats.get("lp_iterations"),
                   node_lp_iterations=stats.get("node_lp_iterations"),
                   strong_branching_iterations=stats.get("strong_branching_iterations"),
                   cuts_added=stats.get("separated"), cpu=time.process_time() - c1,
                   seconds=time.perf_counter() - w1, load_average_after=os.getloadavg())
        print(json.dumps(row), flush=True)
        append_row(out, row)


def main():
    what = sys.argv[1]
    if what == "dense":  # dense N:K:M cfg...: the loop on the dense suite's first sample (seed 25)
        from bench_closure import dense_suite

        n, k, m = (int(v) for v in sys.argv[2].split(":"))
        name = f"{k}-uniform n={n} m={m} #0"
        red = reduce_instance(next(i for nm, i in dense_suite(1, 25) if nm == name))
        idx, masks = max(red.components, key=lambda c: len(c[0]))
        g = closure_graph(masks, red.weights)
        sub = request_subdags(g)
        separate(np.zeros(len(g.tails)), sub)
        if sys.argv[3] == "tree":  # dense N:K:M tree SECONDS: SCIP's tree with the level rows, CPU seconds
            from mptsearch.exact.dcut_bnc import _lp_guided_search, branch_and_cut

            c0 = time.process_time()
            lr, ll, _, covers = level_rows(g, red.weights)
            lp = cut_lp(g, subdags=sub, tail_rounds=3)
            best, _ = _lp_guided_search(g, red.weights, lp.x, 0, None, 60)
            fz, fo = reduced_cost_fixing(lp.value, lp.reduced, best)
            fix = reduce_fixing(g, fz, fo, lb=lp.value, reduced=lp.reduced, upper=best)
            left = float(sys.argv[4]) - (time.process_time() - c0)
            stats = {}
            st, b, x, _ = branch_and_cut(g, sub, time_limit=left, fixed_zero=fix.zero, fixed_one=fix.one,
                                         cuts=lp.cut_arcs, cutoff=best, stats=stats, clock="cpu",
                                         rows=[(a, lo) for (a, _), lo in zip(lr, ll)])
            got = best if x is None else min(best, int(g.costs[x].sum()))
            print(f"{name}: covers {covers} (sum {sum(covers)}), cut LP {lp.value:.3f}, search {best}; tree {st}, "
                  f"bound {b}, layout {got}, CPU {time.process_time() - c0:.1f} s, {stats}", flush=True)
            return
        for cfg in sys.argv[3:]:
            kw = json.loads(cfg)
            c0 = time.process_time()
            if kw.get("level"):
                kw["level"] = level_rows(g, red.weights)
                print(f"  covers {time.process_time() - c0:.2f} CPU s", flush=True)
            v, r, cpu, lp_cpu, it = loop(g, sub, **kw)
            print(f"{name} ({len(g.sets)} sets, {len(g.tails)} arcs) {cfg}: value {v:.3f} rounds {r} CPU {cpu:.2f} s, "
                  f"HiGHS {lp_cpu:.2f} s, {it} iterations", flush=True)
        return
    m, seed = int(sys.argv[2]), int(sys.argv[3])
    red = reduce_instance(zipf_unit(m, 10, seed))
    idx, masks = max(red.components, key=lambda c: len(c[0]))
    g = closure_graph(masks, red.weights)
    sub = request_subdags(g)
    separate(np.zeros(len(g.tails)), sub)  # compile outside the timings
    if what == "loop":
        for cfg in sys.argv[4:]:
            v, r, cpu, lp_cpu, it = loop(g, sub, **json.loads(cfg))
            print(f"{cfg}: value {v:.3f} rounds {r} CPU {cpu:.2f} s, HiGHS {lp_cpu:.2f} s, {it} iterations", flush=True)
    elif what == "steiner":
        steiner_rounds(g, sub)
    elif what == "prove":
        prove(g, sub, m, seed, int(sys.argv[4]), float(sys.argv[5]), sys.argv[6:])
    elif what == "tree":
        from mptsearch.exact import dcut_bnc
        from mptsearch.exact.dcut_bnc import _lp_guided_search, branch_and_cut

        ours = dict(dcut_bnc.SCIP_PARAMS)
        dcut_bnc.SCIP_PARAMS = {}  # each configuration below is over SCIP's own defaults
        seconds = float(sys.argv[4])
        lp = cut_lp(g, subdags=sub, tail_rounds=3)
        best, _ = _lp_guided_search(g, red.weights, lp.x, 0, None, 60)
        fz, fo = reduced_cost_fixing(lp.value, lp.reduced, best)
        fix = reduce_fixing(g, fz, fo, lb=lp.value, reduced=lp.reduced, upper=best)
        print(f"root LP {lp.value:.3f}, layout {best}, {int(fix.zero.sum())} arcs at 0", flush=True)
        for cfg in sys.argv[5:]:
            params = ours if cfg == "ours" else json.loads(cfg)
            stats = {}
            c0 = time.process_time()
            st, b, x, _ = branch_and_cut(g, sub, time_limit=seconds, fixed_zero=fix.zero, fixed_one=fix.one,
                                         cuts=lp.cut_arcs, cutoff=best, params=params, stats=stats)
            print(f"{cfg}: {st}, bound {b}, layout {None if x is None else int(g.costs[x].sum())}, "
                  f"CPU {time.process_time() - c0:.1f} s, {stats}", flush=True)
    else:
        lp = cut_lp(g, subdags=sub)
        for ub in (int(u) for u in sys.argv[4:]):
            fz, fo = reduced_cost_fixing(lp.value, lp.reduced, ub)
            fix = reduce_fixing(g, fz, fo, lb=lp.value, reduced=lp.reduced, upper=ub)
            print(f"m={m} seed={seed} LP {lp.value:.3f} UB {ub}: arcs {len(g.tails)}, reduced-cost fixing "
                  f"{int(fz.sum())} at 0, the reductions {int(fix.zero.sum())} at 0 and {int(fix.one.sum())} at 1"
                  f"{'' if fix.feasible else ' (no arborescence below UB)'}", flush=True)


if __name__ == "__main__":
    main()
