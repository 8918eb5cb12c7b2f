"""Requests of at most two chunks: MPT as a vertex cover, in CP-SAT and in MaxSAT (RC2).

When every request has one or two chunks, the instance is a graph on the chunks: the
two-chunk requests are its edges E and the one-chunk requests a set T of marked vertices.
Any layout's trie has depth at most two. Its first level is a set C of chunks: the first chunk
of every request, so C contains T and at least one end of every edge, i.e. C is a vertex
cover containing T. Each edge {u, v} laid out as (u, v) adds one second-level node of weight
w(v) (requests are distinct, so no two edges share a second-level node), and the edge can
start with u only if u is in C. Hence

    OPT_free = min over vertex covers C ⊇ T of  w(C) + sum over edges {u, v} of
               ( w(v) if C ∩ {u, v} = {u};  w(u) if C ∩ {u, v} = {v};  min(w(u), w(v)) if both ),

every layout being of this form. With unit weights and no one-chunk requests the sum is
|C| + |E|, so OPT_free = tau(G) + m (the paper, Section 4: at k = 2 the problem is minimum vertex cover). Both models below use a boolean x_v
("v is a first-level chunk") and, for each edge {u, v} with u < v, an orientation boolean y_e
("u comes first"), with the hard clauses y_e -> x_u, not y_e -> x_v, x_t for t in T, and the
objective sum_v w(v) x_v + sum_e (w(v) y_e + w(u) (1 - y_e)).

Plain minimum vertex cover models of a graph (for the NP-hardness check, sharing nothing with
the MPT models) are here too: :func:`vertex_cover_cpsat` and :func:`vertex_cover_maxsat`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..instance import Instance, InstanceError
from ._cpsat import cpsat_solve, cpsat_solver

__all__ = ["K2Model", "K2Result", "check_k2", "build_k2_cpsat", "build_k2_maxsat", "solve_k2_cpsat",
           "solve_k2_maxsat", "k2_layout", "vertex_cover_cpsat", "vertex_cover_maxsat", "VertexCover"]


@dataclass
class K2Model:
    """An encoding of a k <= 2 instance with its variable handles.

    ``model`` is a ``CpModel`` (CP-SAT) or a ``WCNF`` (MaxSAT); ``x[v]`` and ``y[e]`` are the
    CP-SAT variables or the SAT variable ids; ``edges[e] = (request index, u, v)`` with u < v.
    """

    model: object
    x: dict
    y: dict
    edges: list
    singles: list
    pool: object = None


@dataclass(frozen=True)
class K2Result:
    """``value`` = OPT_free (when ``optimal``), its ``layout``, the solver status and time."""

    value: int | None
    layout: list | None
    optimal: bool
    status: str
    seconds: float
    bound: int = 0


def check_k2(inst: Instance) -> tuple[list, list]:
    """Edges ``(i, u, v)`` (u < v) and single-chunk requests ``(i, c)``; InstanceError if k > 2."""
    edges, singles = [], []
    for i, order in enumerate(inst.orders):
        if len(order) > 2:
            raise InstanceError(f"the vertex-cover model needs requests of at most 2 chunks; request {i} has {len(order)}")
        if len(order) == 2:
            u, v = sorted(order)
            edges.append((i, u, v))
        else:
            singles.append((i, order[0]))
    return edges, singles


def k2_layout(inst: Instance, edges, singles, first_is_low) -> list[tuple[int, ...]]:
    """The layout of an orientation: edge e starts with its lower chunk iff ``first_is_low[e]``."""
    layout: list = [None] * inst.m
    for e, (i, u, v) in enumerate(edges):
        layout[i] = (u, v) if first_is_low[e] else (v, u)
    for i, c in singles:
        layout[i] = (c,)
    return layout


def build_k2_cpsat(inst: Instance) -> K2Model:
    """CP-SAT model of a k <= 2 instance (see the module docstring). O(n + m) variables."""
    from ortools.sat.python import cp_model

    edges, singles = check_k2(inst)
    w = [int(v) for v in inst.weights]
    model = cp_model.CpModel()
    x = {v: model.NewBoolVar(f"x{v}") for v in range(inst.n)}
    y = {}
    obj = [w[v] * x[v] for v in range(inst.n)]
    const = 0
    for e, (_, u, v) in enumerate(edges):
        y[e] = model.NewBoolVar(f"y{e}")
        model.AddImplication(y[e], x[u])
        model.AddImplication(y[e].Not(), x[v])
        obj.append((w[v] - w[u]) * y[e])
        const += w[u]
    for _, c in singles:
        model.Add(x[c] == 1)
    model.Minimize(sum(obj) + const)
    return K2Model(model, x, y, edges, singles)


def build_k2_maxsat(inst: Instance) -> K2Model:
    """Weighted partial MaxSAT (WCNF) of a k <= 2 instance; the cost of a model is the layout
    cost. Variable ids come from an ``IDPool``."""
    from pysat.formula import IDPool, WCNF

    edges, singles = check_k2(inst)
    w = [int(v) for v in inst.weights]
    pool = IDPool()
    wcnf = WCNF()
    x = {v: pool.id(("x", v)) for v in range(inst.n)}
    y = {e: pool.id(("y", e)) for e in range(len(edges))}
    for v in range(inst.n):
        wcnf.append([-x[v]], weight=w[v])
    for e, (_, u, v) in enumerate(edges):
        wcnf.append([-y[e], x[u]])
        wcnf.append([y[e], x[v]])
        wcnf.append([-y[e]], weight=w[v])   # u first: pay w(v) at the second level
        wcnf.append([y[e]], weight=w[u])    # v first: pay w(u)
    for _, c in singles:
        wcnf.append([x[c]])
    return K2Model(wcnf, x, y, edges, singles, pool)


def solve_k2_cpsat(inst: Instance, *, time_limit: float = 30.0, workers: int = 1, seed: int = 0,
                   model: K2Model | None = None, **params) -> K2Result:
    """Solve the k <= 2 CP-SAT model; ``**params`` go to ``CpSolver.parameters``.

    ``optimize_with_core`` is on by default (pass ``optimize_with_core=False`` to override):
    with one worker the default search does not prove optimality on unit-weight graphs of
    150-200 vertices within a minute, the core-based search does in under a second.
    """
    from ortools.sat.python import cp_model

    km = model if model is not None else build_k2_cpsat(inst)
    # Core-based search proves the vertex-cover lower bound in well under a second at 200
    # vertices where the default single-worker search cannot within minutes (unit weights).
    solver = cpsat_solver(time_limit, workers, seed, **{"optimize_with_core": True, **params})
    t0 = time.perf_counter()
    status = cpsat_solve(solver, km.model)
    secs = time.perf_counter() - t0
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return K2Result(None, None, False, solver.StatusName(status), secs)
    layout = k2_layout(inst, km.edges, km.singles, [solver.BooleanValue(km.y[e]) for e in range(len(km.edges))])
    return K2Result(int(round(solver.ObjectiveValue())), layout, status == cp_model.OPTIMAL,
                    solver.StatusName(status), secs, int(round(solver.BestObjectiveBound())))


def solve_k2_maxsat(inst: Instance, *, model: K2Model | None = None, solver: str = "g3",
                    stratified: bool = True) -> K2Result:
    """Solve the k <= 2 MaxSAT model with RC2 (always to optimality; no time limit).

    ``stratified`` uses RC2Stratified, which is usually faster with many distinct weights.
    """
    from pysat.examples.rc2 import RC2, RC2Stratified

    km = model if model is not None else build_k2_maxsat(inst)
    cls = RC2Stratified if stratified else RC2
    t0 = time.perf_counter()
    with cls(km.model, solver=solver) as rc2:
        sol = rc2.compute()
        cost = rc2.cost
    secs = time.perf_counter() - t0
    if sol is None:  # pragma: no cover - the hard clauses are always satisfiable
        return K2Result(None, None, False, "UNSAT", secs)
    true = {lit for lit in sol if lit > 0}
    layout = k2_layout(inst, km.edges, km.singles, [km.y[e] in true for e in range(len(km.edges))])
    return K2Result(int(cost), layout, True, "OPTIMAL", secs, int(cost))


# ---- plain minimum vertex cover of a graph ------------------------------------------------------

@dataclass(frozen=True)
class VertexCover:
    """A minimum vertex cover: its size ``tau``, the cover, whether proven optimal, time."""

    tau: int | None
    cover: list | None
    optimal: bool
    seconds: float


def _check_edges(edges) -> list[tuple[int, int]]:
    out = []
    for e in edges:
        u, v = (int(a) for a in e)
        if u == v:
            raise InstanceError(f"self-loop at vertex {u}")
        out.append((u, v))
    return out


def vertex_cover_cpsat(edges, *, time_limit: float = 30.0, workers: int = 1, seed: int = 0) -> VertexCover:
    """Minimum vertex cover of the graph with the given edges, by CP-SAT (x_u + x_v >= 1)."""
    from ortools.sat.python import cp_model

    edges = _check_edges(edges)
    verts = sorted({a for e in edges for a in e})
    model = cp_model.CpModel()
    x = {v: model.NewBoolVar(f"x{v}") for v in verts}
    for u, v in edges:
        model.AddBoolOr([x[u], x[v]])
    model.Minimize(sum(x.values()))
    solver = cpsat_solver(time_limit, workers, seed, optimize_with_core=True)  # see solve_k2_cpsat
    t0 = time.perf_counter()
    status = cpsat_solve(solver, model)
    secs = time.perf_counter() - t0
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return VertexCover(None, None, False, secs)
    cover = [v for v in verts if solver.BooleanValue(x[v])]
    return VertexCover(len(cover), cover, status == cp_model.OPTIMAL, secs)


def vertex_cover_maxsat(edges, *, solver: str = "g3") -> VertexCover:
    """Minimum vertex cover by RC2: hard clauses (x_u or x_v), unit soft clauses (not x_v)."""
    from pysat.examples.rc2 import RC2
    from pysat.formula import IDPool, WCNF

    edges = _check_edges(edges)
    verts = sorted({a for e in edges for a in e})
    pool = IDPool()
    wcnf = WCNF()
    for u, v in edges:
        wcnf.append([pool.id(u), pool.id(v)])
    for v in verts:
        wcnf.append([-pool.id(v)], weight=1)
    t0 = time.perf_counter()
    with RC2(wcnf, solver=solver) as rc2:
        sol = rc2.compute()
    secs = time.perf_counter() - t0
    true = {lit for lit in sol if lit > 0}
    cover = [v for v in verts if pool.id(v) in true]
    return VertexCover(len(cover), cover, True, secs)
