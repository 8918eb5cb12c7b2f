"""Savings of agglomerative common-intersection clustering with deterministic ("first")
tie-breaking (the paper's Section 6 heuristic), value only: the compiled twin of
``agglomerative(inst, tie_break="first").savings``.
"""

import numpy as np
from numba import njit

from .masks import mask_weight

__all__ = ["agglomerative_savings"]


@njit(cache=True)
def agglomerative_savings(req, m, weights, unit, sig, act):
    """Repeatedly merge, among the pairs of clusters of largest positive common weight, the
    pair (a, b), a < b, with the smallest a then b (clusters numbered 0..m-1, merge j creating
    m+j, larger than every live cluster, so ``act`` stays sorted by appending); return the
    total common weight merged. ``sig`` (uint64) and ``act`` (int64) hold 2m entries.
    O(m^3) pair evaluations."""
    for i in range(m):
        sig[i] = req[i]
        act[i] = i
    nact = m
    total = np.int64(0)
    while nact > 1:
        bw = np.int64(0)
        bp = -1
        bq = -1
        for p in range(nact):
            sp = sig[act[p]]
            for q in range(p + 1, nact):
                v = mask_weight(sp & sig[act[q]], weights, unit)
                if v > bw:
                    bw = v
                    bp = p
                    bq = q
        if bp < 0:
            break  # no two clusters share a chunk: the remaining merges save nothing
        total += bw
        new = sig[act[bp]] & sig[act[bq]]
        # drop positions bq then bp (bq > bp), append the new cluster at the end
        w = 0
        for p in range(nact):
            if p != bp and p != bq:
                act[w] = act[p]
                w += 1
        newid = m + (m - nact)
        sig[newid] = new
        act[w] = newid
        nact = w + 1
    return total
