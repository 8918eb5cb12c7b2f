"""Reduction tests for the directed-cut program on the closure DAG: which arcs the tree may drop.

The program (:mod:`mptsearch.exact.dcut`) looks for a least-cost arborescence rooted at ∅ over
the cover arcs of the closure that reaches every request; arcs go from a set to a strictly
larger one, so the graph is a DAG and a node's depth order is its size. A *fixing* holds some
arcs at 0 (``zero``) and some at 1 (``one``); the arcs in neither are *open*. Every arc cost is
a positive integer (w(Y - X) >= 1). An arborescence of the fixing uses no arc of ``zero`` and
every arc of ``one``.

Let F be the fixing a reduction starts from, U an integer (U = +inf without a bound) and O
the arborescences of F that are optimal for F and cost at most U - 1. Each test below, given a
fixing whose arborescences include all of O, returns one whose arborescences still include all
of O; so do their compositions. Hence the least cost under the final fixing equals the least
cost under F whenever that is below U (and is at least U, or there is no arborescence, when it
is not): the branch-and-cut of :mod:`mptsearch.exact.dcut_bnc` takes min(U, the tree's bound)
as its lower bound, which stays valid. A test is *exact* when it removes no arborescence at all.

*Leaves (lemma, proved).* A leaf v of T in O is a request or the head of an arc F holds at 1:
otherwise removing v and its in-arc leaves an arborescence of F (nothing hangs below v, and
no arc F holds at 1 is removed) that reaches every request and costs c_a >= 1 less. Hence every
node of T has a path in T down to such a node (follow any child: the walk grows the set, so it
ends, at a leaf).

The tests (each proved in its line; *required* nodes are the requests and both ends of the arcs
held at 1, ∅ excepted; T is any member of O, and by induction T uses no arc held at 0 and every
arc held at 1 so far):

1. **Unreachable nodes (exact).** A node with no path of arcs not held at 0 from ∅ is in no
   arborescence, so an arc out of it is used by none: held at 0. A required node unreachable:
   the fixing has no arborescence at all.
2. **Steiner leaves.** A node v that is not required and has no arc out that is not held at 0
   would be a leaf of T, and it is neither a request nor the head of an arc held at 1: by the
   lemma T does not use v, and v's in-arcs are held at 0.
3. **Required in-degree one (exact).** A required node v has exactly one parent in every
   arborescence; if just one arc into v is not held at 0, every arborescence uses it: held at 1
   (its tail becomes required).
4. **One parent (exact).** If an arc into v is held at 1, every other arc into v is held at 0
   (in(v) <= 1).
5. **Bound-based arc elimination (after Polzin and Vahdati Daneshmand's reduced-cost tests, as
   SCIP-Jack applies them).** Let LB be a dual bound of the cut LP with reduced costs d
   (:mod:`mptsearch.exact.dcut_bnc`, step 3): for every arborescence x,
   c.x >= LB + sum_a d+_a x_a with d+ = max(d, 0) (LB includes the sum of the negative d_a, so
   an arc with d_a < 0 adds |d_a| (1 - x_a) >= 0, which is dropped). Let up(X) be the least d+-length of a path of usable arcs (not held at 0) from
   ∅ to X, and down(Y) the least d+-length of a path of usable arcs from Y to a required node (0
   at one). If T uses the arc a = X -> Y, it holds a path from ∅ to X, the arc a and, by the
   lemma, a path from Y down to a required node; these arcs are distinct (their heads are
   subsets of X, Y itself, and strict supersets of Y), all usable, so
   c(T) >= LB + up(X) + d+_a + down(Y). When that exceeds U - 1, T is not in O: a is held at 0.
   (Reduced-cost fixing is the case up = down = 0. It also holds an arc with LB - d_a > U - 1
   at 1: every arborescence of cost <= U - 1 uses it, T among them.)

Tests 1-5 run to a fixpoint (each round recomputes up and down over the arcs still usable).
The required nodes are computed once per round, so test 5 may use fewer than the fixing holds
by then (test 3 can add arcs held at 1 in the same round): that is still sound, since the lemma
needs only the requests and the heads of arcs held at 1, and a smaller set only lengthens
down(Y).

The bounds here are floating point: LB and d are HiGHS's objective and column duals, compared
with a tolerance of 1e-6, not an exactly dual-feasible y. A value proved by these tests alone
(status ``optimal (reduction)``) is therefore not covered by the exact LP-dual certificate of
:mod:`mptsearch.verify.lpdual`, which rechecks ceil(LB_LP) only.
"""

from __future__ import annotations

import time

import numpy as np

from .closure import ClosureGraph
from .dcut import _into_lists

__all__ = ["Fixing", "reduce_fixing", "depth_order"]


class Fixing:
    """Arcs held at 0 (``zero``) and at 1 (``one``), bool arrays over the arcs; ``feasible``
    False when a test found that no arborescence (of cost <= U - 1 with a bound) exists."""

    def __init__(self, zero: np.ndarray, one: np.ndarray, feasible: bool = True):
        self.zero, self.one, self.feasible = zero, one, feasible


def depth_order(g: ClosureGraph) -> np.ndarray:
    """The nodes by set size (every arc goes from a smaller set to a larger one)."""
    size = np.array([bin(int(s)).count("1") for s in g.sets], dtype=np.int64)
    return np.argsort(size, kind="stable")


def _paths(g, order, usable, dplus, into, outs, required):
    ns = len(g.sets)
    tails, heads = g.tails, g.heads
    up = np.full(ns, np.inf)
    up[0] = 0.0
    for v in order.tolist():
        for a in into[v]:
            if usable[a]:
                c = up[tails[a]] + dplus[a]
                if c < up[v]:
                    up[v] = c
    down = np.full(ns, np.inf)
    for v in order[::-1].tolist():
        if required[v]:
            down[v] = 0.0
            continue
        for a in outs[v]:
            if usable[a]:
                c = dplus[a] + down[heads[a]]
                if c < down[v]:
                    down[v] = c
    return up, down


def reduce_fixing(g: ClosureGraph, zero: np.ndarray | None = None, one: np.ndarray | None = None, *,
                  lb: float | None = None, reduced: np.ndarray | None = None, upper: int | None = None,
                  tol: float = 1e-6, deadline: float | None = None, clock=time.perf_counter) -> Fixing:
    """Tests 1-5 of the module docstring to a fixpoint, from the fixing (``zero``, ``one``);
    test 5 only with ``lb``, ``reduced`` and ``upper`` (U). O(rounds * arcs). With a
    ``deadline`` (a ``clock()`` value) no new round starts after it: the fixing so far is
    returned (every test keeps what it must, so a fixing cut short is as sound, only smaller).

    Returns
    -------
    Fixing
        Larger (or equal) zero and one sets; ``feasible`` False when a required node lost every
        parent (no arborescence of the fixing, of cost <= U - 1 when test 5 ran) or an arc
        would be held at both 0 and 1.
    """
    na, ns = len(g.tails), len(g.sets)
    zero = np.zeros(na, dtype=bool) if zero is None else np.array(zero, dtype=bool)
    one = np.zeros(na, dtype=bool) if one is None else np.array(one, dtype=bool)
    into = _into_lists(g)
    outs: list = [[] for _ in range(ns)]
    for a, t in enumerate(g.tails.tolist()):
        outs[t].append(a)
    is_request = np.zeros(ns, dtype=bool)
    is_request[np.array(g.requests, dtype=np.int64)] = True
    order = depth_order(g)
    bound = lb is not None and reduced is not None and upper is not None
    dplus = np.maximum(np.asarray(reduced, dtype=np.float64), 0.0) if bound else None
    tails = g.tails.tolist()
    first = True
    while True:
        if not first and deadline is not None and clock() >= deadline:
            return Fixing(zero, one, not (zero & one).any())
        first = False
        if (zero & one).any():
            return Fixing(zero, one, False)
        before = (int(zero.sum()), int(one.sum()))
        required = is_request.copy()
        required[g.tails[one]] = True
        required[g.heads[one]] = True
        required[0] = False
        # 1: reachability from ∅ over the usable arcs
        usable = ~zero
        reach = np.zeros(ns, dtype=bool)
        reach[0] = True
        for v in order.tolist():
            if reach[v]:
                continue
            for a in into[v]:
                if usable[a] and reach[tails[a]]:
                    reach[v] = True
                    break
        if (required & ~reach).any():
            return Fixing(zero, one, False)
        zero |= ~reach[g.tails]
        # 2: Steiner leaves, deepest first so that a chain of them goes in one pass
        for v in order[::-1].tolist():
            if v == 0 or required[v]:
                continue
            if not any(not zero[a] for a in outs[v]):
                for a in into[v]:
                    zero[a] = True
        # 4 then 3: one parent
        for v in range(1, ns):
            fixed = [a for a in into[v] if one[a]]
            if fixed:
                for a in into[v]:
                    if a != fixed[0]:
                        if one[a]:
                            return Fixing(zero, one, False)
                        zero[a] = True
            elif required[v]:
                left = [a for a in into[v] if not zero[a]]
                if not left:
                    return Fixing(zero, one, False)
                if len(left) == 1:
                    one[left[0]] = True
        # 5: bound-based elimination over the usable arcs
        if bound:
            up, down = _paths(g, order, ~zero, dplus, into, outs, required)
            test = lb + up[g.tails] + dplus + down[g.heads]
            zero |= test > upper - 1 + tol
            one |= (lb - np.asarray(reduced) > upper - 1 + tol) & ~zero
        if (int(zero.sum()), int(one.sum())) == before:
            return Fixing(zero, one, True)
