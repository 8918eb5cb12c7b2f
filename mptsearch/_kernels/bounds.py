"""Bounds on OPT_free without exponential work (the paper's Section 6.4), as kernels: the
maximum spanning tree over the pair weights w(R_i ∩ R_j) and the enumerator's certified
sandwich LB <= OPT_free <= UB.
"""

import numpy as np
from .._jit import njit

from .agglomerative import agglomerative_savings
from .masks import mask_weight

__all__ = ["max_spanning_tree", "pair_weights", "mst_savings", "free_bounds"]


@njit(cache=True)
def max_spanning_tree(pw, m, intree, key):
    """Weight of a maximum spanning tree of the complete graph on m vertices with edge
    weights pw[i, j] >= 0 (Prim, O(m^2)); ``intree`` (bool) and ``key`` (int64) are scratch."""
    for i in range(m):
        intree[i] = False
        key[i] = -1
    key[0] = 0
    tot = np.int64(0)
    for _ in range(m):
        u = -1
        for i in range(m):
            if not intree[i] and (u < 0 or key[i] > key[u]):
                u = i
        intree[u] = True
        tot += key[u]
        for i in range(m):
            if not intree[i] and pw[u, i] > key[i]:
                key[i] = pw[u, i]
    return tot


@njit(cache=True)
def pair_weights(req, m, weights, pw):
    """pw[i, j] = w(R_i ∩ R_j) for i != j (the diagonal is left alone)."""
    for i in range(m):
        for j in range(i + 1, m):
            v = mask_weight(req[i] & req[j], weights)
            pw[i, j] = v
            pw[j, i] = v


@njit(cache=True, inline="always")
def mst_savings(req, m, weights, ws):
    """Savings no hierarchy can beat: every internal node v has w(I(v)) <= w(R_i ∩ R_j) for
    a cross pair (i, j), and these pairs form a spanning tree, so M(all) <= MaxST."""
    pair_weights(req, m, weights, ws.pw)
    return max_spanning_tree(ws.pw, m, ws.intree, ws.key)


@njit(cache=True, inline="always")
def free_bounds(req, m, weights, ws):
    """(total, lb, agg): sum_i w(R_i), a lower bound on OPT_free (the larger of the MST bound
    and the weight of the chunks in use) and the "first" agglomerative savings, whose
    hierarchy gives the upper bound total - agg. O(m^2 k + m^3)."""
    total = np.int64(0)
    union = np.uint64(0)
    for a in range(m):
        total += mask_weight(req[a], weights)
        union |= req[a]
    if m <= 1:
        return total, total, np.int64(0)
    low = total - mst_savings(req, m, weights, ws)
    uw = mask_weight(union, weights)
    agg = agglomerative_savings(req, m, weights, ws.sig, ws.act)
    return total, max(low, uw), agg
