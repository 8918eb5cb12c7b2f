"""The level program of :mod:`mptsearch.exact.prefix_sets` solved to optimality by a MIP solver
(HiGHS) and by CP-SAT, on the 9-chunk families of ``bench_dense9.py``, CPU seconds.

The level program (module docstring of ``mptsearch/exact/prefix_sets.py``): a 0/1 y_S for
every chunk set S of fewer than k chunks lying inside some request (a set inside no request
can be dropped from any accessible family: its parents lie inside no request either, so what
is left stays accessible), the requests fixed at 1, minimise sum y; for every S of at least 2
chunks and every i < |S|, y_S <= the sum of y over the i-subsets of S. Its optimum is
OPT_free. Optional valid rows (``--rows``):

- ``levels``: for each level j < k, sum of y over the j-sets >= a lower bound on cover_j(F)
  (``cover_lower_bound``: exact cover when its search finishes, else the averaging bound):
  the level bound's terms, each valid since |P_j| >= cover_j(F).
- ``sub``: for each chunk set V of 6, 7 or 8 chunks holding a request, the sum of y over the
  non-request sets inside V >= OPT_free(F[V]) - |F[V]|, F[V] the requests inside V: the
  members of an accessible family P inside V form an accessible family (a member's parent
  lies inside it) containing F[V], so they number at least OPT_free(F[V]) + 1 with the empty
  set. OPT_free(F[V]) by the prefix-set search, skipped when it does not finish in
  ``--sub-limit`` wall seconds (default 5).

Each (family, method, rows) runs in the calling process with a CPU-second limit (``--limit``,
``time.process_time``, which counts every thread): ``cpsatW`` is CP-SAT with W workers, ``cpsat1core`` one
worker with core-guided search (``optimize_with_core``). CP-SAT is stopped by a thread polling the
clock, HiGHS by its MIP-interrupt callback. The time to compute the rows counts in ``cpu``
(``rows_cpu`` says how much). A proved optimum is checked: the family read off the solution
is accessible, holds every request, and its size - 1 is the value.

Usage: nice -n 10 python benchmarks/bench_level_program.py [--k 5] [--m 63 126] [--samples 3]
    [--methods highs cpsat1 cpsat2 cpsat1core] [--rows base levels+sub] [--limit 60]
    [--out benchmarks/results/level_program9.json]
"""

import argparse
import json
import os
import sys
import threading
import time
from itertools import combinations
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_dense9 import families  # noqa: E402


def bits(x, n):
    return [c for c in range(n) if x >> c & 1]


def program(reqs, n):
    """(sets, rq, rows): the non-request variables, the requests, and the rows as
    (x, [T ...]) meaning y_x <= sum y_T (y_x = 1 for a request)."""
    k = max(bin(x).count("1") for x in reqs)
    rq = sorted(set(reqs))
    sets = sorted({sum(1 << c for c in T) for R in rq for j in range(1, k)
                   for T in combinations(bits(R, n), j)} - set(rq))
    rows = []
    for x in sets + rq:
        cs = bits(x, n)
        for i in range(1, len(cs)):
            rows.append((x, [sum(1 << c for c in T) for T in combinations(cs, i)]))
    return sets, rq, rows


def extra_rows(sets_list, reqs, n, which, sub_limit):
    """[(coefficient sets, rhs)]: sum y over the sets >= rhs (module docstring)."""
    from mptsearch.exact.prefix_sets import _wide_tables, cover_lower_bound, opt_free_prefix_sets
    from mptsearch._kernels.prefix_wide import wide_forced
    from mptsearch.instance import from_lists

    out = []
    k = max(bin(x).count("1") for x in reqs)
    if "levels" in which:
        inst = from_lists([bits(R, n) for R in reqs])
        setmask, subs, _, _, rank = _wide_tables(inst.n)
        forced, kk, _ = wide_forced(np.array(inst.request_masks(), dtype=np.uint64), inst.m, rank)
        for i in range(1, k):
            lb = cover_lower_bound(forced[kk], i, kk, setmask, subs, 200_000, time.time() + 20)
            out.append(([x for x in sets_list if bin(x).count("1") == i], lb))
    if "sub" in which:
        for size in (6, 7, 8):
            for V in combinations(range(n), size):
                vm = sum(1 << c for c in V)
                inside = [R for R in reqs if R & ~vm == 0]
                if not inside:
                    continue
                try:
                    v = opt_free_prefix_sets(from_lists([bits(R, n) for R in inside]), time_limit=sub_limit).value
                except Exception:  # unfinished: no row
                    continue
                out.append(([x for x in sets_list if x & ~vm == 0], v - len(inside)))
    return out


def check(chosen, rq, n):
    from mptsearch.exact.prefix_sets import is_accessible

    return is_accessible(set(chosen) | set(rq), n)


def solve_cpsat(sets, rq, rows, extra, n, workers, limit_cpu, c0, core=False):
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    y = {x: m.NewBoolVar(f"y{x}") for x in sets}
    req = set(rq)
    for x, ts in rows:
        lits = [y[t] for t in ts if t not in req]
        if any(t in req for t in ts):
            continue
        m.AddBoolOr(lits if x in req else lits + [y[x].Not()])
    for xs, rhs in extra:
        m.Add(sum(y[x] for x in xs) >= rhs)
    m.Minimize(sum(y.values()))
    s = cp_model.CpSolver()
    s.parameters.num_workers = workers
    if core:  # core-guided lower bounds (MaxSAT style) in place of the LP search
        s.parameters.optimize_with_core = True
    s.parameters.max_time_in_seconds = 10 * limit_cpu
    stop = threading.Event()

    def watch():
        while not stop.wait(0.05):
            if time.process_time() - c0 >= limit_cpu:
                s.StopSearch()
                return

    t = threading.Thread(target=watch, daemon=True)
    t.start()
    st = s.Solve(m)
    stop.set()
    name = s.StatusName(st)
    res = {"status": name}
    if name in ("OPTIMAL", "FEASIBLE"):
        chosen = [x for x in sets if s.Value(y[x])]
        res["upper"] = len(chosen) + len(rq)
        res["family_ok"] = check(chosen, rq, n)
    res["lower"] = int(round(s.BestObjectiveBound())) + len(rq)
    return res


def solve_highs(sets, rq, rows, extra, n, limit_cpu, c0):
    import highspy

    from mptsearch.exact.closure_program import _new_highs

    col = {x: i for i, x in enumerate(sets)}
    req = set(rq)
    h = _new_highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    N = len(sets)
    h.addVars(N, np.zeros(N), np.ones(N))
    h.changeColsCost(N, np.arange(N, dtype=np.int32), np.ones(N))
    h.changeColsIntegrality(N, np.arange(N, dtype=np.int32), np.array([highspy.HighsVarType.kInteger] * N))
    for x, ts in rows:
        if any(t in req for t in ts):
            continue
        ids = [col[t] for t in ts]
        if x in req:
            h.addRow(1.0, highspy.kHighsInf, len(ids), np.array(ids, dtype=np.int32), np.ones(len(ids)))
        else:
            h.addRow(0.0, highspy.kHighsInf, len(ids) + 1, np.array(ids + [col[x]], dtype=np.int32),
                     np.array([1.0] * len(ids) + [-1.0]))
    for xs, rhs in extra:
        h.addRow(float(rhs), highspy.kHighsInf, len(xs), np.array([col[x] for x in xs], dtype=np.int32),
                 np.ones(len(xs)))

    def interrupt(ctype, msg, data_out, data_in, user):
        if time.process_time() - c0 >= limit_cpu:
            data_in.user_interrupt = True

    h.setCallback(interrupt, None)
    h.startCallback(highspy.cb.HighsCallbackType.kCallbackMipInterrupt)
    h.startCallback(highspy.cb.HighsCallbackType.kCallbackSimplexInterrupt)
    h.run()
    info = h.getInfo()
    res = {"status": h.modelStatusToString(h.getModelStatus())}
    if info.primal_solution_status == 2:
        y = h.getSolution().col_value
        chosen = [x for x, v in zip(sets, y) if v > 0.5]
        res["upper"] = len(chosen) + len(rq)
        res["family_ok"] = check(chosen, rq, n)
    b = info.mip_dual_bound  # infinite when stopped before the root bound
    res["lower"] = int(np.ceil(b - 1e-6)) + len(rq) if np.isfinite(b) else None
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=3)
    ap.add_argument("--k", type=int, nargs="*", default=[5])
    ap.add_argument("--m", type=int, nargs="*", default=[63, 126])
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--methods", nargs="*", default=["highs", "cpsat1", "cpsat2"])
    ap.add_argument("--rows", nargs="*", default=["base", "levels+sub"])
    ap.add_argument("--limit", type=float, default=60.0)
    ap.add_argument("--sub-limit", type=float, default=5.0)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    n = 9
    # compile the prefix-set kernels before any clock starts
    from mptsearch.exact.prefix_sets import opt_free_prefix_sets
    from mptsearch.instance import from_lists
    opt_free_prefix_sets(from_lists([[0, 1, 2, 3, 4], [0, 1, 2, 3, 5], [4, 5, 6, 7, 8]]))
    rows_out = []
    for name, fam in families(a.k, a.m, a.samples, a.seed):
        reqs = [sum(1 << c for c in R) for R in fam]
        sets, rq, rows = program(reqs, n)
        for which in a.rows:
            for meth in a.methods:
                c0 = time.process_time()
                t0 = time.perf_counter()
                extra = [] if which == "base" else extra_rows(sets, reqs, n, which, a.sub_limit)
                rows_cpu = time.process_time() - c0
                if meth == "highs":
                    res = solve_highs(sets, rq, rows, extra, n, a.limit, c0)
                else:
                    res = solve_cpsat(sets, rq, rows, extra, n, int(meth[len("cpsat")]), a.limit, c0, meth.endswith("core"))
                res.update(instance=name, method=meth, rows=which, cpu=round(time.process_time() - c0, 2),
                           rows_cpu=round(rows_cpu, 2), wall=round(time.perf_counter() - t0, 2),
                           load=round(os.getloadavg()[0], 2))
                assert res.get("family_ok", True), res
                rows_out.append(res)
                print(json.dumps(res), flush=True)
    if a.out:
        data = {"config": vars(a), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "niceness": os.nice(0),
                "what": "the level program solved by HiGHS (one thread) and CP-SAT (1 or 2 workers) with a CPU-s "
                        "limit counting the rows' computation; lower = the solver's bound, upper = its family "
                        "(checked accessible); status OPTIMAL / Optimal only when the solver proved it",
                "rows": rows_out}
        out = Path(a.out)
        out.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
