"""The closure program: rows of the 0/1 program over the cover arcs and the HiGHS plumbing.

By the closure form of Theorem 1 (:mod:`mptsearch.exact.closure`, with its proof) OPT_free is
the least cost of an arborescence rooted at ∅ in the cover graph of the intersection closure
that reaches every request. The 0/1 program:

- a variable x_a in {0, 1} per cover arc a = X -> Y, cost w(Y - X); in(v) is the sum of x over
  the arcs into v (the number of parents v gets, 0 or 1);
- ``in(R) = 1`` for every request R, ``in(v) <= 1`` for every other set;
- *chunk rows*: for every node X and chunk c outside X, the arcs from X whose head holds c
  sum to at most in(X) (at most 1 at the root). They say "an arc leaves only a reached node"
  (an arc a from X alone is ``x_a <= in(X)``) and, more strongly, "no two children of X
  share a chunk outside X", which every cover arborescence satisfies (module docstring of
  :mod:`mptsearch.exact.closure`); a row whose arcs are among another row's of the same X is
  dropped (implied).

In a DAG every 0/1 point of these rows is an arborescence (each reached node has one parent,
following parents ends at the root), so the program is exact. Its LP relaxation gives the
lower bound the certificate of :mod:`mptsearch.verify.lpdual` rechecks in rational arithmetic.
:mod:`mptsearch.exact.pairs_program` builds a stronger program with the same row kinds (plus
branch rows) over every containment arc; both are solved by :func:`solve_mip`.

HiGHS (MIT, wheels for every platform, maintained) was chosen over CP-SAT for this model: the
bound here comes from the LP, which CP-SAT only uses as one of its workers, and HiGHS reports
the dual bound and the row duals the certificate needs. No starting solution is given (see
:func:`solve_mip`). Weights are positive integers (the costs w(Y - X) are integers).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .closure import ClosureGraph

__all__ = ["Model", "component_model", "SolverInconsistent", "solve_mip", "arborescence_layout", "highs_model"]

@dataclass
class Model:
    """The rows of the program for one component, in a solver-independent form.

    Row r is ``lo[r] <= sum_j coef x_j <= hi[r]`` over ``rows[r]`` (pairs arc, coefficient);
    ``kinds[r]`` is ("in", v) for in(v) <= 1 (= 1 for a request) or ("chunk", X, c)."""

    graph: ClosureGraph
    rows: list
    lo: list
    hi: list
    kinds: list


def component_model(g: ClosureGraph) -> Model:
    """The rows of the module docstring for one component's cover graph. O(sum_a |Y - X|)."""
    nsets = len(g.sets)
    into: list[list[int]] = [[] for _ in range(nsets)]
    out: list[list[int]] = [[] for _ in range(nsets)]
    for a, (t, h) in enumerate(zip(g.tails.tolist(), g.heads.tolist())):
        into[h].append(a)
        out[t].append(a)
    is_request = set(g.requests)
    rows, lo, hi, kinds = [], [], [], []
    for v in range(1, nsets):
        rows.append([(a, 1.0) for a in into[v]])
        lo.append(1.0 if v in is_request else -np.inf)
        hi.append(1.0)
        kinds.append(("in", v))
    for X in range(nsets):
        if not out[X]:
            continue
        by_chunk: dict[int, list[int]] = {}
        sx = g.sets[X]
        for a in out[X]:
            extra = g.sets[g.heads[a]] & ~sx
            while extra:
                low = extra & -extra
                by_chunk.setdefault(low.bit_length() - 1, []).append(a)
                extra ^= low
        groups: dict[frozenset, int] = {}
        for c, arcs in by_chunk.items():
            groups.setdefault(frozenset(arcs), c)
        keys = sorted(groups, key=len, reverse=True)
        kept: list[frozenset] = []
        for s in keys:
            if not any(s <= k for k in kept):
                kept.append(s)
        for s in kept:
            row = [(a, 1.0) for a in sorted(s)]
            if X == 0:
                rows.append(row)
                lo.append(-np.inf)
                hi.append(1.0)
            else:
                rows.append(row + [(a, -1.0) for a in into[X]])
                lo.append(-np.inf)
                hi.append(0.0)
            kinds.append(("chunk", X, groups[s]))
    return Model(g, rows, lo, hi, kinds)


def _new_highs():
    """A HiGHS instance, its banner (written to the C stdout on the first one) kept off our
    output: the commands print their own lines only."""
    import os
    import sys

    import highspy

    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            h = highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    return h


def highs_model(model: Model, *, integer: bool, time_limit: float | None, threads: int = 1, presolve: str = "choose"):
    import highspy

    g = model.graph
    h = _new_highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", threads)
    h.setOptionValue("presolve", presolve)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 0.0)
    if time_limit is not None:
        h.setOptionValue("time_limit", max(0.01, float(time_limit)))
    na = len(g.tails)
    inf = highspy.kHighsInf
    h.addVars(na, np.zeros(na), np.ones(na))
    h.changeColsCost(na, np.arange(na, dtype=np.int32), g.costs.astype(np.float64))
    starts, index, value = [], [], []
    for row in model.rows:
        starts.append(len(index))
        index.extend(a for a, _ in row)
        value.extend(c for _, c in row)
    lo = np.array([(-inf if v == -np.inf else v) for v in model.lo], dtype=np.float64)
    hi = np.array(model.hi, dtype=np.float64)
    h.addRows(len(model.rows), lo, hi, len(index), np.array(starts, dtype=np.int32),
              np.array(index, dtype=np.int32), np.array(value, dtype=np.float64))
    if integer:
        h.changeColsIntegrality(na, np.arange(na, dtype=np.int32),
                                np.array([highspy.HighsVarType.kInteger] * na))
    return h


def arborescence_layout(g: ClosureGraph, used: np.ndarray, groups: list) -> list:
    """Each request's chunk order read off the used arcs (module docstring of
    :mod:`mptsearch.exact.closure`, first half of the proof), merged chunks expanded."""
    parent = {}
    for a in np.flatnonzero(used):
        h = int(g.heads[a])
        if h in parent:
            raise RuntimeError("the solver returned a node with two parents")
        parent[h] = int(g.tails[a])
    seqs: dict[int, list] = {0: []}

    def seq(v):
        chain = []
        while v not in seqs:
            chain.append(v)
            v = parent[v]
        for u in reversed(chain):
            extra = g.sets[u] & ~g.sets[parent[u]]
            seqs[u] = seqs[parent[u]] + [x for c in range(extra.bit_length()) if extra >> c & 1
                                         for x in groups[c]]
        return seqs[chain[0]] if chain else seqs[v]

    return [seq(r) for r in g.requests]


class SolverInconsistent(RuntimeError):
    """HiGHS answered "Optimal" with an incumbent whose cost is not the objective it reported
    (or a bound above a feasible cost): its answer is not used."""


def solve_mip(model: Model, deadline: float | None, presolves: tuple = ("choose", "off")):
    """One component's 0/1 program: (HiGHS's status, its dual bound rounded up, the used arcs or
    None), the incumbent's cost rechecked against the reported objective.

    No start solution is given: with a start (the agglomerative layout) and presolve on,
    HiGHS 1.16 reported "Optimal" with a wrong objective and bound on about 1 in 30 small
    random instances (the independent referee's find, docs/exact.md; the 6-request family
    ``0123 1234 0134 0124 0234 12`` is one). An "Optimal" answer whose incumbent does not cost
    the reported objective, or costs less than the reported bound, is solved once more with
    presolve off, then refused (:class:`SolverInconsistent`); ``presolves`` lists the presolve
    settings tried in turn (the pairs program is solved with presolve off only). A bound from an unfinished solve
    is HiGHS's own (only the LP-dual certificate of :mod:`mptsearch.verify.lpdual` trusts no
    solver)."""
    g = model.graph
    for presolve in presolves:
        left = None if deadline is None else deadline - time.perf_counter()
        h = highs_model(model, integer=True, time_limit=left, presolve=presolve)
        h.run()
        info = h.getInfo()
        st = h.modelStatusToString(h.getModelStatus())
        bound = int(np.ceil(info.mip_dual_bound - 1e-6)) if info.mip_dual_bound > -1e300 else 0
        x = None
        if info.primal_solution_status == 2:
            x = np.array(h.getSolution().col_value) > 0.5
        cost = None if x is None else int(g.costs[x].sum())
        consistent = cost is None or (cost >= bound and (st != "Optimal" or (
            abs(cost - info.objective_function_value) < 0.5 and cost == bound)))
        if consistent:
            return st, bound, x
    raise SolverInconsistent(f"closure solver: HiGHS reported {st} with objective "
                             f"{info.objective_function_value:g} and bound {bound}, but its incumbent costs {cost}")
