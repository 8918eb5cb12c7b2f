"""A stronger 0/1 program for the closure arborescence: every containment arc, siblings
disjoint beyond their parent, and every Steiner set branching.

The program of :mod:`mptsearch.exact.arborescence` uses the cover arcs of C ∪ {∅} only; a
Steiner set there may be a mere pass-through (one child), which its LP exploits. This module
allows an arc u -> v for *every* proper containment u ⊊ v (u in C ∪ {∅}, v in C), cost
w(v - u), and asks more of the solution. Variables z_a in {0, 1}, in(v) the sum of z over the
arcs into v:

- (a) ``in(R) = 1`` for every request R, ``in(v) <= 1`` for every other set;
- (b) *chunk rows*: for every set u and chunk c outside u, the arcs from u whose head holds c
  sum to at most in(u) (at most 1 at the root ∅);
- (c) *branch rows*: for every set v of C that is not a request, the arcs out of v sum to at
  least 2 in(v).

**Theorem (proved).** For positive integer weights, the least cost of a 0/1 point of (a)-(c)
is OPT_free.

*Proof.* (Every 0/1 point costs >= OPT_free.) If in(v) = 1 let u be v's one parent
(z_{uv} = 1); row (b) at u for a chunk c of v - u gives in(u) >= 1 (or u = ∅). Following
parents strictly shrinks the set and ends at ∅, so the used arcs form an arborescence over
C ∪ {∅} reaching every request (row (a)), which costs >= OPT_free by the first half of the
proof in :mod:`mptsearch.exact.closure` (it holds for arborescences over any sets).

(Some 0/1 point costs OPT_free.) For a node set U (∅ and the requests in it) let cost(U) =
sum_{v in U - {∅}} (w(v) - max{w(u) : u in U ∪ {∅}, u ⊊ v}); OPT_free = min_U cost(U)
(:mod:`mptsearch.exact.closure_search`, proved there). Take U with cost(U) = OPT_free and, among
those, |U| least; give each v its parent p(v), a heaviest used proper subset. The arcs v <- p(v)
are a 0/1 point of cost cost(U) satisfying (a). Weights are positive, so u ⊊ v implies
w(u) < w(v).

(b) holds: let v1 != v2 be children of u, both holding a chunk c outside u, and s = v1 ∩ v2, a
nonempty intersection (it holds c) of members of C, so s is in C, and u ⊊ s. If s = v1 then
v1 ⊊ v2, and v1 is a used proper subset of v2 heavier than u = p(v2): impossible; likewise
s != v2. So s ⊊ v1 and s ⊊ v2. If s is in U, it is a used proper subset of v1 heavier than
u = p(v1): impossible. If s is not in U, adding it changes cost by at most (w(s) - w(u)) (its
own term, u ⊊ s being used) - (w(s) - w(u)) (v1's term: its best parent now weighs >= w(s))
- (w(s) - w(u)) (v2's term), and no other term rises (adding a set never lowers a maximum):
cost(U ∪ {s}) < cost(U) = OPT_free, impossible. At the root u = ∅ the same argument bounds
the sum by 1.

(c) holds: let v be a non-request set of U with at most one child. Drop it: v's own term
w(v) - w(p(v)) disappears; a set t with p(t) = v (at most one) keeps p(v) ⊊ v ⊊ t among its
used subsets, so its term rises by at most w(v) - w(p(v)); a set whose maximum v attained but
whose parent is another set of the same weight keeps that maximum. So cost(U - {v}) <=
cost(U) with fewer sets, contradicting the choice of U. Hence every non-request v in U has
>= 2 children: out(v) >= 2 = 2 in(v); for v not in U both sides are 0. QED.

So the program's optimum is OPT_free and its LP relaxation a lower bound. Rows (b) and (c) hold
for *some* optimal arborescence, not for every arborescence: the LP-dual certificate of
:mod:`mptsearch.verify.lpdual` does not accept them, and :func:`opt_free_closure` takes its
certificate rows from the cover program only. Rows (b) over all containments are those of
:func:`~mptsearch.exact.arborescence.component_model` applied to the containment graph (with
the same dropping of implied rows); (c) is added here.

Computed (benchmarks/results/closure_zipf*.json, docs/exact.md): on RAG-shaped instances the LP
of this program is 0.5-1.6% above the cover program's (m = 200, k = 10: 238,574 against
234,752), but HiGHS's branch and bound did not close more of the gap on it, and its size is
the number of containment pairs (47k at m = 200, 523k at m = 1,000), so
:func:`~mptsearch.exact.arborescence.opt_free_closure` uses it only on request.
"""

from __future__ import annotations

import numpy as np

from .closure_program import Model, component_model
from .closure import ClosureGraph
from .closure_search import Poset

__all__ = ["containment_graph", "pairs_model"]


def containment_graph(g: ClosureGraph, poset: Poset) -> ClosureGraph:
    """The graph of every proper containment u ⊊ v among ``g``'s sets (∅ included as a tail),
    arc cost w(v - u). O(number of pairs)."""
    tails = poset.sub_idx.copy()
    heads = np.repeat(np.arange(len(g.sets), dtype=np.int64), np.diff(poset.sub_ptr))
    costs = poset.wt[heads] - poset.wt[tails]
    return ClosureGraph(g.sets, tails, heads, costs, g.requests)


def pairs_model(g: ClosureGraph, poset: Poset) -> Model:
    """Rows (a)-(c) of the module docstring over the containment graph of ``g``. Row kinds are
    :func:`~mptsearch.exact.arborescence.component_model`'s plus ("branch", v).
    O(sum over arcs of |v - u|)."""
    gp = containment_graph(g, poset)
    model = component_model(gp)
    is_request = set(gp.requests)
    into: list[list[int]] = [[] for _ in gp.sets]
    out: list[list[int]] = [[] for _ in gp.sets]
    for a, (t, h) in enumerate(zip(gp.tails.tolist(), gp.heads.tolist())):
        into[h].append(a)
        out[t].append(a)
    for v in range(1, len(gp.sets)):
        if v in is_request:
            continue
        model.rows.append([(a, 1.0) for a in out[v]] + [(a, -2.0) for a in into[v]])
        model.lo.append(0.0)
        model.hi.append(np.inf)
        model.kinds.append(("branch", v))
    return model
