"""A lower bound on OPT_free that trusts no solver: an LP dual over the closure, in fractions.

By the closure form of Theorem 1 (proved in :mod:`mptsearch.exact.closure`), OPT_free is the
least cost of an arborescence rooted at ∅ over the cover arcs a = X -> Y of the intersection
closure, arc cost c_a = w(Y - X), reaching every request. Let x in {0,1}^arcs be such an
arborescence and in(v) the sum of x over the arcs into v. Every x satisfies these rows:

- ``req R``:     in(R) >= 1 for every request R;
- ``indeg v``:   -in(v) >= -1 (one parent at most);
- ``chunk X c``: in(X) - sum_{X -> Y, c in Y} x >= 0 for a set X and a chunk c outside X,
  and -sum_{∅ -> Y, c in Y} x >= -1 at the root (two children of X never share a chunk
  outside X: :mod:`mptsearch.exact.closure`; and an arc leaves only a reached node);
- ``ub X Y``:    -x_a >= -1;
- ``cut i S``:   sum of x over the cover arcs Z -> Y with Y in S and Z not in S >= 1, for a
  request R_i in S and a set S of members of the closure (∅ is not one): the directed cuts of
  :mod:`mptsearch.exact.dcut` (valid: the arborescence's path from ∅ to R_i starts outside S
  and ends inside, so one of its arcs enters S).

So for multipliers u >= 0 with sum_r u_r A_r <= c arc by arc (A_r the row's coefficients),
OPT_free >= c.x >= sum_r u_r b_r: weak LP duality, checked here with exact fractions. A
certificate is the list of (row, u) and the claimed bound; :func:`check_dual` recomputes the
closure, its cover arcs and their costs from the instance with its own short code (plain
Python ints, not :mod:`mptsearch.exact.closure`), checks each row against its definition,
u >= 0, the arc-by-arc inequality and the bound. Together with a layout whose trie cost is V,
``ceil(bound) >= V`` proves OPT_free = V; a smaller ceiling is a partial certificate, the
bracket ceil(bound) <= OPT_free <= V, and is reported as such.

The multipliers come from HiGHS's row duals of the LP relaxation
(:func:`mptsearch.exact.arborescence.opt_free_closure` with ``keep_duals``), rounded to
fractions; any arc where the rounding overshoots its cost gets an ``ub`` row absorbing the
excess, so the written certificate is always feasible and only its bound can suffer.

The file is JSON: ``{"format": "mptsearch-lp-dual-1", "bound": "p/q", "rows": [[kind, args...,
"p/q"], ...]}`` with sets as sorted lists of chunk ids (the instance's numbering): kinds
``["req", i, u]`` (request index), ``["indeg", X, u]``, ``["chunk", X, c, u]``,
``["ub", X, Y, u]``, ``["cut", i, [S_1, S_2, ...], u]`` (the members of S, each a sorted list).
The ``cut`` rows come from the directed-cut LP
(:func:`mptsearch.exact.dcut_bnc.opt_free_dcut` with ``keep_duals``); the checker recomputes
every cut's arcs from its node set, never from the file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..hierarchy import _mask_ids as _ids  # one step per member, not per bit of the mask
from ..instance import Instance

__all__ = ["DualCheck", "dual_certificate", "check_dual", "FORMAT"]

FORMAT = "mptsearch-lp-dual-1"
_DENOMINATORS = (1, 2, 6, 12, 60, 840, 27720, 10**6, 10**9)


def _expand(mask: int, groups: list) -> int:
    out = 0
    for c in _ids(mask):
        for x in groups[c]:
            out |= 1 << x
    return out


def _raw_rows(result) -> list:
    """(kind, args, multiplier as float) over the original instance, from the LP duals."""
    rows = []
    covered = set()
    for idx, g, model, duals, _ in result.duals:
        covered.update(idx)
        groups = result.groups
        for kind, lo, y in zip(model.kinds, model.lo, duals):
            if kind[0] == "in":
                v = kind[1]
                if y > 0 and lo > -np.inf:
                    i = idx[g.requests.index(v)]
                    rows.append(("req", (i,), y))
                elif y < 0:
                    rows.append(("indeg", (_expand(g.sets[v], groups),), -y))
            elif kind[0] == "cut":
                if y > 0:
                    _, r, nodes = kind
                    rows.append(("cut", (idx[r], [_expand(g.sets[v], groups) for v in nodes]), y))
            elif y < 0:
                _, X, c = kind
                rows.append(("chunk", (_expand(g.sets[X], groups), groups[c][0]), -y))
    return rows, covered


@dataclass
class DualCheck:
    """What :func:`check_dual` found: ``ok`` (a well-formed feasible dual whose stated bound
    is what its rows give), ``bound`` (exact), ``lower`` = ceil(bound), the number of rows and
    arcs, and the first problem found (``problem``, empty when ok)."""

    ok: bool
    bound: Fraction
    lower: int
    rows: int
    arcs: int
    problem: str = ""


def _closure_arcs(inst: Instance):
    """Cover arcs of the closure with their costs, by plain Python ints: the closure by rounds
    of intersecting with every request, the covers below Y as the maximal sets among
    {Y & R : R does not contain Y} (the root when there is none)."""
    reqs = inst.request_masks()
    w = [int(v) for v in inst.weights]
    closure = set(reqs)
    frontier = set(reqs)
    while frontier:
        fresh = set()
        for X in frontier:
            for R in reqs:
                Z = X & R
                if Z and Z not in closure:
                    fresh.add(Z)
        closure |= fresh
        frontier = fresh
    arcs = {}
    for Y in closure:
        cand = {Y & R for R in reqs if Y & R != Y}
        tops = [Z for Z in cand if not any(Z != Z2 and Z & Z2 == Z for Z2 in cand)]
        for Z in tops or [0]:
            arcs[(Z, Y)] = sum(w[c] for c in _ids(Y & ~Z))
    return closure, arcs, reqs


class _Arcs:
    """The cover arcs with their costs, indexed by head and by tail."""

    def __init__(self, closure: set, arcs: dict, reqs: list, n: int):
        self.closure, self.cost, self.reqs, self.n = closure, arcs, reqs, n
        self.into: dict = {}
        self.out: dict = {}
        for a in arcs:
            self.out.setdefault(a[0], []).append(a)
            self.into.setdefault(a[1], []).append(a)

    def as_set(self, ids) -> int:
        if not isinstance(ids, list) or any(isinstance(c, bool) or not isinstance(c, int)
                                            or not 0 <= c < self.n for c in ids):
            raise ValueError("not a list of chunk ids")
        return sum(1 << c for c in set(ids))

    def row(self, kind: str, args: list):
        """The row's (arc coefficients, right-hand side) for u = 1, or a string saying why it
        is not one of the valid rows of the module docstring."""
        try:
            if kind == "req":
                (i,) = args
                if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(self.reqs):
                    return "req row names no request"
                return {a: 1 for a in self.into[self.reqs[i]]}, 1
            if kind == "indeg":
                (X,) = args
                X = self.as_set(X)
                if X not in self.closure:
                    return "indeg row names a set outside the closure"
                return {a: -1 for a in self.into[X]}, -1
            if kind == "chunk":
                X, c = args
                X = self.as_set(X)
                if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < self.n or X >> c & 1:
                    return "chunk row's chunk is not a chunk outside its set"
                if X and X not in self.closure:
                    return "chunk row names a set outside the closure"
                coef = {a: -1 for a in self.out.get(X, []) if a[1] >> c & 1}
                if not X:
                    return coef, -1
                for a in self.into[X]:
                    coef[a] = coef.get(a, 0) + 1
                return coef, 0
            if kind == "cut":
                i, members = args
                if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(self.reqs):
                    return "cut row names no request"
                if not isinstance(members, list) or not members:
                    return "malformed cut row"
                S = {self.as_set(X) for X in members}
                if len(S) != len(members):
                    return "cut row repeats a set"
                if any(X not in self.closure for X in S):
                    return "cut row names a set outside the closure"
                if self.reqs[i] not in S:
                    return "cut row's set does not hold its request"
                return {a: 1 for Y in S for a in self.into[Y] if a[0] not in S}, 1
            if kind == "ub":
                X, Y = args
                a = (self.as_set(X), self.as_set(Y))
                if a not in self.cost:
                    return "ub row names no cover arc"
                return {a: -1}, -1
        except (ValueError, TypeError):
            return f"malformed {kind} row"
        return f"unknown row kind {kind!r}"


def check_dual(inst: Instance, cert: dict) -> DualCheck:
    """Recheck a dual certificate (module docstring) in exact arithmetic; no solver involved.

    Notes
    -----
    O(|C| m) set operations for the closure and its covers (plus the maximal-set filter),
    then O(degree) per row.
    """
    arcs = _Arcs(*_closure_arcs(inst), inst.n)
    narcs = len(arcs.cost)
    try:
        if cert.get("format") != FORMAT:
            return DualCheck(False, Fraction(0), 0, 0, narcs, "not an lp-dual certificate")
        stated = Fraction(cert["bound"])
        rows = list(cert["rows"])
    except (AttributeError, KeyError, TypeError, ValueError, ZeroDivisionError, OverflowError):  # Infinity
        return DualCheck(False, Fraction(0), 0, 0, narcs, "malformed certificate")
    load = {a: Fraction(0) for a in arcs.cost}
    bound = Fraction(0)
    for r, row in enumerate(rows):
        try:
            kind, *args, u = row
            u = Fraction(u)
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            return DualCheck(False, Fraction(0), 0, len(rows), narcs, f"row {r} is malformed")
        if u < 0:
            return DualCheck(False, Fraction(0), 0, len(rows), narcs, f"row {r} has a negative multiplier")
        got = arcs.row(kind, args)
        if isinstance(got, str):
            return DualCheck(False, Fraction(0), 0, len(rows), narcs, f"row {r}: {got}")
        coef, rhs = got
        for a, k in coef.items():
            load[a] += k * u
        bound += rhs * u
    for a, cost in arcs.cost.items():
        if load[a] > cost:
            return DualCheck(False, bound, 0, len(rows), narcs,
                             f"arc {_ids(a[0])} -> {_ids(a[1])}: the rows put {load[a]} on it, "
                             f"more than its cost {cost}")
    if bound != stated:
        return DualCheck(False, bound, 0, len(rows), narcs, f"the rows give {bound}, not the stated {stated}")
    return DualCheck(True, bound, math.ceil(bound), len(rows), narcs)


def _exact_rows(rows: list, arcs: _Arcs, den: int):
    """Round multipliers to denominator ``den``, then add ub rows for overshooting arcs.
    ``rows`` are (kind, args, y, coef, rhs), each row's coefficients computed once for all
    denominators."""
    load: dict = {}
    out, bound = [], Fraction(0)
    for kind, args, y, coef, rhs in rows:
        u = Fraction(round(y * den), den)
        if u <= 0:
            continue
        for a, k in coef.items():
            load[a] = load.get(a, 0) + k * u
        bound += rhs * u
        out.append((kind, args, u))
    for a, value in load.items():
        if value > arcs.cost[a]:
            excess = value - arcs.cost[a]
            out.append(("ub", (a[0], a[1]), excess))
            bound -= excess
    return out, bound


def _encode(kind, args):
    if kind == "req":
        return [args[0]]
    if kind == "chunk":
        return [_ids(args[0]), args[1]]
    if kind == "cut":
        return [args[0], [_ids(X) for X in args[1]]]
    return [_ids(a) for a in args]


def dual_certificate(inst: Instance, result) -> dict:
    """The dual certificate of the LP bound behind ``result`` (an
    :func:`~mptsearch.exact.arborescence.opt_free_closure` result with ``keep_duals``).

    Components of one request get their ``req`` row with u = w(R) (the arc ∅ -> R alone).
    Returns the JSON object of the module docstring, plus ``"lower"`` = ceil(bound)."""
    arcs = _Arcs(*_closure_arcs(inst), inst.n)
    reqs = arcs.reqs
    rows, covered = _raw_rows(result)
    w = [int(v) for v in inst.weights]
    for i in range(inst.m):
        if i not in covered:
            rows.append(("req", (i,), float(sum(w[c] for c in _ids(reqs[i])))))
    rows = [(kind, args, y, *arcs.row(kind, _encode(kind, args))) for kind, args, y in rows]
    best = None
    for den in _DENOMINATORS:
        out, bound = _exact_rows(rows, arcs, den)
        if best is None or bound > best[1]:
            best = (out, bound)
    out, bound = best
    return {"format": FORMAT, "bound": str(bound), "lower": math.ceil(bound),
            "rows": [[kind, *_encode(kind, args), str(u)] for kind, args, u in out]}
