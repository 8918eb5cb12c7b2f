"""Dual ascent: a lower bound on OPT_free from the directed cuts with no LP solved.

Notation as in :mod:`mptsearch.exact.dcut`: the cover graph of the intersection closure, root ∅,
arc costs c_a = w(Y - X) (positive integers), D_R the sub-DAG of the nodes below request R, and
the *cut rows* x(δ⁻(S)) >= 1 for a request R and a node set S with R ∈ S, ∅ ∉ S, which hold for
every arborescence rooted at ∅ that reaches every request (proved there).

**The bound (proved).** Let S_1..S_q be such sets (each with its request) and y_1..y_q >= 0
with, for every arc a, sum of y_i over the i with a ∈ δ⁻(S_i) at most c_a (the *reduced cost*
d_a = c_a minus that sum is >= 0). For an arborescence T with incidence vector x,
c(T) = sum_a c_a x_a >= sum_a x_a sum_{i: a ∈ δ⁻(S_i)} y_i = sum_i y_i x(δ⁻(S_i)) >= sum_i y_i
(x >= 0 and d >= 0 for the first step, the cut rows and y >= 0 for the last). So
OPT_free >= sum_i y_i: weak duality for the LP min c.x over the cut rows, x >= 0, with y a
feasible dual. It is also a bound on the LP with the cover rows of :mod:`mptsearch.exact.dcut`
added (y extended by zeros stays feasible), so every LP of the cut loop that holds the rows
S_1..S_q is at least sum_i y_i: seeding the loop with them can only raise its first value.
For any arc a, an arborescence that uses it costs at least sum_i y_i + d_a (the same chain
with the term d_a x_a kept): the argument of the reduced-cost fixing of
:mod:`mptsearch.exact.dcut_bnc`, which uses only that the dual is feasible (the solver fixes
arcs by the root LP's reduced costs, not by these).

**The ascent (Wong's, on the closure's DAG).** Start with d = c and y empty. For a request R,
let S be the nodes of D_R from which R is reached along arcs of reduced cost 0 (R itself
included). If ∅ ∈ S, R is *connected*. Otherwise every arc entering S has d_a > 0 (its tail
would be in S), so Δ = min of d over δ⁻(S) is a positive integer; add S with y = Δ and subtract
Δ from d on δ⁻(S): d stays >= 0, so the invariant of the bound holds after every step, and the
bound grows by Δ. Arcs into S have their heads below R, hence their tails too: δ⁻(S) in D_R is
δ⁻(S) in the whole graph (the separation argument of :mod:`mptsearch.exact.dcut`).
*Termination (proved):* reduced costs only fall, so the set S of a request only grows; after a
step the arc that reached d = 0 brings its tail into S, so every step of R grows S by a node,
and R is connected after at most |D_R| - 1 steps. The requests are taken by a rule: the active
one whose cut has the fewest arcs first (recomputed lazily), which gave the highest bounds of
the orders tried on m = 1,000 and 3,000 of the Zipf suite and one below the best fixed order on
m = 200 #1 (benchmarks/HISTORY.md). Everything is in integers, so the
bound is exact, and it is at most OPT_free whatever the order.

Measured (CPU s, the solver's Zipf suite, :func:`benchmarks.bench_closure.zipf_unit`): m = 200
#1, 1,218 in under 0.01 s (cut LP 1,236.10, OPT_free 1,239); m = 1,000 #0, 5,575 in 0.02 s (the
root cut LP after 451 s, 5,647.63); m = 3,000 #0, 15,710 in 0.08 s, where the cover LP takes
about 200 s by the interior point (15,743.23) and more than 450 s by the dual simplex, and the
MST bound is 12,918.

References: R. T. Wong, "A dual ascent approach for Steiner tree problems on a directed graph",
Math. Programming 28 (1984).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .closure import ClosureGraph

__all__ = ["DualAscent", "dual_ascent", "zero_cost_paths"]


@dataclass
class DualAscent:
    """The outcome of :func:`dual_ascent`: ``bound`` (an integer, at most OPT_free of the
    component), ``cuts`` as (request position, node ids of S as a tuple, arc ids of δ⁻(S)) in
    the order made, ``y`` their duals (positive integers summing to ``bound``), ``reduced``
    the reduced costs d >= 0 per arc."""

    bound: int
    cuts: list
    y: np.ndarray
    reduced: np.ndarray


def dual_ascent(g: ClosureGraph, subdags: list | None = None, *, capacity: int | None = None) -> DualAscent:
    """The dual ascent of the module docstring on one component ``g`` (its sub-DAGs
    ``subdags`` from :func:`mptsearch.exact.dcut.request_subdags`, made when not given).
    ``capacity``: cuts the output arrays hold at first (they grow and the ascent is rerun when
    it makes more; the result does not depend on it).

    Notes
    -----
    Each step is a search of D_R along arcs of reduced cost 0, O(|D_R|); a request takes at most
    |D_R| - 1 steps, so O(sum_R |D_R|^2) in all, far less in practice (m = 3,000 of the Zipf
    suite: 5,894 steps, 0.08 CPU s). Wong (1984).

    Examples
    --------
    >>> from mptsearch.exact.closure import closure_graph, reduce_instance
    >>> from mptsearch.families import k4_3
    >>> (idx, masks), = reduce_instance(k4_3()).components
    >>> dual_ascent(closure_graph(masks, [1, 1, 1, 1])).bound  # OPT_free is 8, the cut LP 22/3
    6
    """
    from .._kernels.dual_ascent import dual_ascent_all
    from .dcut import _packed, request_subdags

    subdags = request_subdags(g) if subdags is None else subdags
    p = _packed(subdags)
    cost = np.ascontiguousarray(g.costs, dtype=np.int64)
    if (cost <= 0).any():
        raise ValueError("dual ascent needs positive integer arc costs")
    ncut = max(1, 2 * len(p.nodes) if capacity is None else int(capacity))
    while True:
        out_req = np.empty(ncut, np.int64)
        out_y = np.empty(ncut, np.int64)
        out_nptr = np.zeros(ncut + 1, np.int64)
        out_aptr = np.zeros(ncut + 1, np.int64)
        out_nodes = np.empty(4 * ncut, np.int64)
        out_arcs = np.empty(8 * ncut, np.int64)
        bound, nc, red, overflow = dual_ascent_all(cost, p.node_ptr, p.nodes, p.arc_ptr, p.ltail, p.lhead, p.garc,
                                                   p.adj_ptr, p.adj_arc, out_req, out_y, out_nptr, out_nodes,
                                                   out_aptr, out_arcs)
        if not overflow:
            break
        ncut *= 4
    cuts = [(int(out_req[c]), tuple(out_nodes[out_nptr[c]:out_nptr[c + 1]].tolist()),
             out_arcs[out_aptr[c]:out_aptr[c + 1]].copy()) for c in range(nc)]
    return DualAscent(bound=int(bound), cuts=cuts, y=out_y[:nc].copy(), reduced=red)


def zero_cost_paths(g: ClosureGraph, subdags: list, reduced: np.ndarray) -> np.ndarray:
    """A bool per arc of ``g``: the union of one path of reduced cost 0 from ∅ to every request
    (after :func:`dual_ascent` every request has one), the fewest arcs first. Its nodes are a
    start for the Steiner-set search when no LP point is there (the primal side of the ascent:
    an arborescence over them reaches every request). O(sum_R |D_R|)."""
    from .._kernels.dual_ascent import zero_paths_all
    from .dcut import _packed

    p = _packed(subdags)
    used = np.zeros(len(g.tails), dtype=np.bool_)
    zero_paths_all(np.ascontiguousarray(reduced, dtype=np.int64), p.node_ptr, p.nodes, p.arc_ptr, p.ltail, p.lhead,
                   p.garc, p.adj_ptr, p.adj_arc, used)
    return used
