"""Bitmask kernels every evaluator shares: the weight of a chunk set, the request sets S_x of
the chunks, and the intersection table w(I(B)) over request subsets B.

Conventions of the whole layer: a request is a ``uint64`` bitmask over chunks (so these
kernels take n <= 64 chunks), a chunk's request set S_x a ``uint64`` bitmask over requests,
weights an ``int64`` array indexed by chunk.
"""

import numpy as np
from .._jit import njit

from .._bits import ctz

__all__ = ["mask_weight", "chunk_sets", "intersection_weights", "intersection_table"]


@njit(cache=True, inline="always")
def mask_weight(mask, weights):
    """w(mask): total weight of the chunks in a uint64 bitmask, O(popcount).

    No population-count shortcut for unit weights: measured, the loop over a few set bits
    filled the intersection table in 0.21 us against 0.61 us with popcount (m=8, k=4)."""
    s = np.int64(0)
    while mask:
        s += weights[ctz(mask)]
        mask &= mask - np.uint64(1)
    return s


@njit(cache=True)
def chunk_sets(req, m, n, out):
    """out[x] = S_x, the bitmask of the requests among req[:m] that contain chunk x."""
    for x in range(n):
        out[x] = 0
    for i in range(m):
        r = req[i]
        bit = np.uint64(1) << np.uint64(i)
        while r:
            out[ctz(r)] |= bit
            r &= r - np.uint64(1)


@njit(cache=True)
def intersection_weights(S, weights, m, out):
    """out[B] = w(I(B)) from the chunks' request sets (superset-sum transform, O(n + m 2^m)).

    Takes any number of chunks (one S_x each); ``out`` must be zeroed and has the DP's
    integer type. :func:`intersection_table` computes the same table from request masks."""
    for x in range(S.shape[0]):
        out[S[x]] += weights[x]
    size = out.shape[0]
    for b in range(m):
        bit = 1 << b
        for s in range(size):
            if not s & bit:
                out[s] += out[s | bit]
    return out


@njit(cache=True)
def intersection_table(req, m, weights, inter, out):
    """out[B] = w(I(B)) for every request subset B (out[0] = 0) from the running intersection
    I(B) = I(B minus its lowest request) & R_lowest, kept in ``inter`` (uint64, 2^m entries):
    O(2^m (1 + k)) for requests of k chunks, against O(m 2^m) for :func:`intersection_weights`."""
    inter[0] = ~np.uint64(0)
    out[0] = 0
    for B in range(1, 1 << m):
        low = B & -B
        t = inter[B ^ low] & req[ctz(np.int64(B))]
        inter[B] = t
        out[B] = mask_weight(t, weights)
