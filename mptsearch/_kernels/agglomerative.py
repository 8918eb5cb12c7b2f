"""Agglomerative common-intersection clustering with deterministic ("first") tie-breaking
(the paper's Section 6 heuristic), compiled: its savings (the twin of
``agglomerative(inst, tie_break="first").savings``) and its merge tree, from which
:mod:`.layouts` reads the layout whose trie cost is ``agglomerative(...).value``.
"""

import numpy as np
from .._jit import njit

from .masks import mask_weight

__all__ = ["agglomerative_savings", "agglomerative_tree"]


@njit(cache=True, inline="always")
def _agglomerate(req, m, weights, sig, act, parent, record):
    """Repeatedly merge, among the pairs of clusters of largest positive common weight, the
    pair (a, b), a < b, with the smallest a then b (clusters numbered 0..m-1, merge j creating
    m+j, larger than every live cluster, so ``act`` stays sorted by appending); return the
    total common weight merged. With ``record``, ``parent[c]`` is the cluster c was merged
    into (-1 for the clusters left when no two share a chunk). ``sig`` holds each cluster's
    signature (the intersection of its requests) afterwards. O(m^3) pair evaluations."""
    for i in range(m):
        sig[i] = req[i]
        act[i] = i
        if record:
            parent[i] = -1
    nact = m
    total = np.int64(0)
    while nact > 1:
        bw = np.int64(0)
        bp = -1
        bq = -1
        for p in range(nact):
            sp = sig[act[p]]
            for q in range(p + 1, nact):
                v = mask_weight(sp & sig[act[q]], weights)
                if v > bw:
                    bw = v
                    bp = p
                    bq = q
        if bp < 0:
            break  # no two clusters share a chunk: the remaining merges save nothing
        total += bw
        new = sig[act[bp]] & sig[act[bq]]
        newid = m + (m - nact)
        if record:
            parent[act[bp]] = newid
            parent[act[bq]] = newid
            parent[newid] = -1
        # drop positions bq then bp (bq > bp), append the new cluster at the end
        w = 0
        for p in range(nact):
            if p != bp and p != bq:
                act[w] = act[p]
                w += 1
        sig[newid] = new
        act[w] = newid
        nact = w + 1
    return total


@njit(cache=True)
def agglomerative_savings(req, m, weights, sig, act):
    """The savings of "first" agglomerative clustering of req[:m] (see :func:`_agglomerate`).
    ``sig`` (uint64) and ``act`` (int64) hold 2m entries. O(m^3 k)."""
    return _agglomerate(req, m, weights, sig, act, act, False)


@njit(cache=True)
def agglomerative_tree(req, m, weights, sig, act, parent):
    """Like :func:`agglomerative_savings`, also writing the merge tree: ``parent`` (int64, 2m
    entries) maps each cluster to the one it was merged into, -1 at the top. The clusters
    left at the top have pairwise disjoint nonempty signatures, so the shape of the zero-savings
    merges above them changes neither the savings nor the layout's trie cost."""
    return _agglomerate(req, m, weights, sig, act, parent, True)
