"""OPT_free as a CP-SAT model over each request's chunk order (OR-tools), exact by
construction: the trie definition itself, with no Theorem 1 and no prefix-set lemma.

Each request R picks one of its |R|! orders (``order[r, o]``, exactly one per request). A
trie node is a distinct sequence that is a prefix of some chosen order; ``node[p]`` (one
boolean per sequence p that prefixes some order of some request) must be on when a chosen
order starts with p. The objective sum_p w(last chunk of p) node[p] only pushes nodes down,
so at an optimum node[p] = 1 exactly for the prefixes of the chosen orders and the objective
is the trie's cost: its minimum is OPT_free.

Redundant cuts make the lower bound easy to prove: the nodes of depth j, read as chunk sets,
include a j-subset of every request with at least j chunks, so their number is at least
cover_j, the least number of j-sets such that every such request contains one. Each cover_j
is its own small CP-SAT set-cover model (:func:`cover_number_cpsat`, solved to optimality
first). Building the model (:func:`build_orders_model`) is separate from solving it
(:func:`solve_orders_cpsat`). Size: sum_i |R_i|! order booleans and as many implications per
prefix length, so meant for small requests (k <= 5) on small universes.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from ..instance import Instance, InstanceError
from ._cpsat import cpsat_solve, cpsat_solver

__all__ = ["OrdersModel", "OrdersCpsatResult", "build_orders_model", "solve_orders_cpsat",
           "cover_number_cpsat", "MAX_ORDERS"]

MAX_ORDERS = 20_000  # order booleans beyond which the model is refused


@dataclass
class OrdersModel:
    """The CP-SAT model and its handles: ``order[r]`` = list of (chunk tuple, boolean)."""

    model: object
    order: list
    node: dict


@dataclass(frozen=True)
class OrdersCpsatResult:
    """``value`` = best layout cost found, ``bound`` = proven lower bound, ``optimal`` when
    they meet; ``layout`` one chunk order per request."""

    value: int
    bound: int
    optimal: bool
    layout: list
    covers: dict


def cover_number_cpsat(requests, j: int, *, time_limit: float = 60.0, workers: int = 1,
                       seed: int = 0) -> int:
    """The least number of j-chunk sets such that every request with >= j chunks contains
    one (CP-SAT set cover, proved optimal; raises InstanceError if not proved in time)."""
    from ortools.sat.python import cp_model

    big = [frozenset(r) for r in requests if len(r) >= j]
    if not big:
        return 0
    cands = sorted({frozenset(c) for r in big for c in itertools.combinations(sorted(r), j)}, key=sorted)
    model = cp_model.CpModel()
    pick = {c: model.NewBoolVar(f"c{i}") for i, c in enumerate(cands)}
    for r in big:
        model.AddBoolOr([pick[frozenset(c)] for c in itertools.combinations(sorted(r), j)])
    model.Minimize(sum(pick.values()))
    s = cpsat_solver(time_limit, workers, seed)
    if cpsat_solve(s, model) != cp_model.OPTIMAL:
        raise InstanceError(f"set cover at level {j} not proved optimal in {time_limit} s")
    return int(round(s.ObjectiveValue()))


def build_orders_model(inst: Instance, covers: dict | None = None) -> OrdersModel:
    """The order-choice model of ``inst``; ``covers`` {j: cover_j} adds the level cuts."""
    from ortools.sat.python import cp_model

    n_orders = sum(__import__("math").factorial(len(o)) for o in inst.orders)
    if n_orders > MAX_ORDERS:
        raise InstanceError(f"{n_orders} request orders > {MAX_ORDERS}: the order model is too large")
    model = cp_model.CpModel()
    node: dict = {}
    order = []
    for r, req in enumerate(inst.requests):
        opts = []
        for perm in itertools.permutations(sorted(req)):
            x = model.NewBoolVar(f"o{r}_{''.join(map(str, perm))}")
            for d in range(1, len(perm) + 1):
                p = perm[:d]
                if p not in node:
                    node[p] = model.NewBoolVar(f"n{len(node)}")
                model.AddImplication(x, node[p])
            opts.append((perm, x))
        model.AddExactlyOne([x for _, x in opts])
        order.append(opts)
    for j, c in (covers or {}).items():
        model.Add(sum(v for p, v in node.items() if len(p) == j) >= c)
    w = [int(x) for x in inst.weights]
    model.Minimize(sum(w[p[-1]] * v for p, v in node.items()))
    return OrdersModel(model, order, node)


def solve_orders_cpsat(inst: Instance, *, time_limit: float = 60.0, workers: int = 1,
                       seed: int = 0) -> OrdersCpsatResult:
    """OPT_free by the order-choice model with the level cuts.

    Returns
    -------
    OrdersCpsatResult
        ``optimal`` when CP-SAT proved the value within ``time_limit`` seconds (per model).

    Notes
    -----
    sum_i |R_i|! booleans plus one per distinct prefix; CP-SAT's time is not bounded by a
    formula (NP-hard), in practice seconds for 4-uniform families on 7 chunks.
    """
    from ortools.sat.python import cp_model

    k = max(len(o) for o in inst.orders)
    reqs = [sorted(r) for r in inst.requests]
    covers = {j: cover_number_cpsat(reqs, j, time_limit=time_limit, workers=workers, seed=seed)
              for j in range(1, k + 1)}
    om = build_orders_model(inst, covers)
    s = cpsat_solver(time_limit, workers, seed)
    st = cpsat_solve(s, om.model)
    if st not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise InstanceError(f"the order model found no layout in {time_limit} s")
    layout = [next(perm for perm, x in opts if s.Value(x)) for opts in om.order]
    return OrdersCpsatResult(int(round(s.ObjectiveValue())), int(round(s.BestObjectiveBound())),
                             st == cp_model.OPTIMAL, layout, covers)
