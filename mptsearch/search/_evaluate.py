"""Value-only compiled evaluators for the search loops: OPT_free savings, OPT_glob and the
savings of agglomerative clustering with deterministic ("first") tie-breaking.

They take the instance as arrays (request bitmasks over chunks, chunk request sets S_x,
weights) plus preallocated workspaces, allocate nothing and return only the value, so that
an annealing step costs two small DPs and no Python. The certificates (hierarchy, layout,
order) are recomputed afterwards with the public solvers.

Which OPT_free DP loop runs is chosen by :data:`_free_dp` below: switching kernels is one
line, and every kernel must leave ``M[:2^m]`` equal to :func:`~mptsearch.exact._free_kernels._dp_plain`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._bits import ctz, popcount
from ..exact._free_kernels import _dp_plain

try:  # the SIMD rows kernel of the OPT_free DP (exact; a colleague's module)
    from ..exact._blocked import LOW_BITS, _dp_rows
except ImportError:  # pragma: no cover - fall back to the plain loop
    LOW_BITS, _dp_rows = {2: 5, 4: 5, 8: 4}, None

__all__ = ["evaluate", "Evaluation", "Workspace"]

BIG = np.int64(1) << np.int64(62)


@njit(cache=True, inline="always")
def _wsum(mask, weights):
    """w(mask): total weight of the chunks in a uint64 bitmask."""
    s = np.int64(0)
    while mask:
        s += weights[ctz(mask)]
        mask &= mask - np.uint64(1)
    return s


@njit(cache=True)
def _chunk_sets(req, m, n, out):
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
def _free_dp_blocked(wI, M, m, L):
    """The colleague's SIMD rows for m > L, the plain loop below (both exact)."""
    if m <= L:
        _dp_plain(wI[: 1 << m], M[: 1 << m])
    else:
        _dp_rows(wI, M, m, L)


@njit(cache=True)
def _free_dp_plain(wI, M, m, L):
    _dp_plain(wI[: 1 << m], M[: 1 << m])


# The OPT_free DP used by every evaluator: one line to switch (benchmarks/bench_anneal.py
# measured the blocked rows 2.7 us against 7.3 us for the plain loop at m=8, 8.8 against 57 at m=10).
_free_dp = _free_dp_blocked if _dp_rows is not None else _free_dp_plain


@njit(cache=True)
def _intersections(req, m, weights, inter, wI):
    """wI[B] = w(I(B)) for every nonempty request subset B, from the running intersection
    I(B) = I(B minus its lowest request) & R_lowest: O(2^m + sum_x 2^|S_x|), against the
    O(m 2^m) superset-sum transform of ``_intersection_weights`` (same table; tested)."""
    inter[0] = ~np.uint64(0)
    wI[0] = 0
    for B in range(1, 1 << m):
        low = B & -B
        t = inter[B ^ low] & req[ctz(np.int64(B))]
        inter[B] = t
        wI[B] = _wsum(t, weights)


@njit(cache=True)
def _opt_free_savings(req, m, weights, inter, wI, M, L):
    """M(all) = the optimal savings of the family req[:m] (chunk bitmasks); OPT_free is the
    total weight minus it. ``inter`` (uint64), ``wI`` and ``M`` (the DP's integer type) have at
    least 2^m entries; ``L`` is the blocked kernel's low-bit count for that type."""
    if m <= 1:
        return np.int64(0)
    _intersections(req, m, weights, inter, wI)
    _free_dp(wI, M, m, L)
    return np.int64(M[(1 << m) - 1])


@njit(cache=True)
def _opt_glob_value(S, weights, n, m, G, classes, ncls):
    """OPT_glob by the chunk-subset DP of :func:`mptsearch.exact.glob._glob_dp`, refining the
    request classes one chunk per depth, with preallocated ``G`` (2^n) and ``classes``
    ((n+1) x m). Chunks in no request (S_x = 0) cost nothing and are skipped outright."""
    used = np.int64(0)
    for x in range(n):
        if S[x]:
            used |= np.int64(1) << np.int64(x)
    full_req = (np.uint64(1) << np.uint64(m)) - np.uint64(1) if m < 64 else ~np.uint64(0)
    classes[0, 0] = full_req
    ncls[0] = 1
    G[0] = 0
    # iterate over the subsets P of `used` only, in increasing order (submask enumeration
    # upwards): P's parent P minus its lowest chunk is visited earlier at depth |P|-1
    P = np.int64(0)
    while True:
        P = (P - used) & used
        if P == 0:
            break
        c0 = ctz(P)
        d = np.int64(popcount(P))
        s0 = S[c0]
        k = 0
        rep = np.uint64(0)
        for j in range(ncls[d - 1]):
            K = classes[d - 1, j]
            a = K & s0
            b = K & ~s0
            if a:
                classes[d, k] = a
                k += 1
                rep |= a & (~a + np.uint64(1))
            if b:
                classes[d, k] = b
                k += 1
                rep |= b & (~b + np.uint64(1))
        ncls[d] = k
        best = BIG
        rest = P
        while rest:
            c = ctz(rest)
            rest &= rest - 1
            v = G[P ^ (np.int64(1) << np.int64(c))] + weights[c] * np.int64(popcount(rep & S[c]))
            if v < best:
                best = v
        G[P] = best
    return G[used]


@njit(cache=True)
def _agglomerative_savings(req, m, weights, sig, act):
    """Savings of agglomerative common-intersection clustering with "first" tie-breaking,
    identical to ``agglomerative(inst, tie_break="first").savings``: repeatedly merge, among
    the pairs of clusters of largest positive common weight, the pair (a, b), a < b, with the
    smallest a then b (clusters numbered 0..m-1, merge j creating m+j, which is larger than
    every live cluster, so ``act`` stays sorted by appending). O(m^3) pair evaluations."""
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
                v = _wsum(sp & sig[act[q]], weights)
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


class Workspace:
    """Preallocated arrays for the evaluators of instances with up to ``m_max`` requests on
    ``n`` chunks; ``dtype`` is the OPT_free DP's integer type (narrowest safe for the largest
    total weight the caller will evaluate)."""

    def __init__(self, n: int, m_max: int, dtype):
        dtype = np.dtype(dtype)
        self.n, self.m_max, self.dtype = n, m_max, dtype
        self.L = LOW_BITS[dtype.itemsize]
        self.S = np.zeros(n, dtype=np.uint64)
        self.inter = np.zeros(1 << m_max, dtype=np.uint64)
        self.wI = np.zeros(1 << m_max, dtype=dtype)
        self.M = np.zeros(1 << m_max, dtype=dtype)
        self.G = np.zeros(1 << n, dtype=np.int64)
        self.classes = np.zeros((n + 1, max(m_max, 1)), dtype=np.uint64)
        self.ncls = np.zeros(n + 1, dtype=np.int64)
        self.sig = np.zeros(2 * m_max, dtype=np.uint64)
        self.act = np.zeros(2 * m_max, dtype=np.int64)


class Evaluation(tuple):
    """``(opt_free, opt_glob, free_savings, agg_savings)`` of one instance."""

    __slots__ = ()

    def __new__(cls, opt_free, opt_glob, free_savings, agg_savings):
        return super().__new__(cls, (opt_free, opt_glob, free_savings, agg_savings))

    opt_free = property(lambda s: s[0])
    opt_glob = property(lambda s: s[1])
    free_savings = property(lambda s: s[2])
    agg_savings = property(lambda s: s[3])


def evaluate(inst) -> Evaluation:
    """OPT_free, OPT_glob, the optimal savings and the "first" agglomerative savings of
    ``inst``, by the compiled value-only kernels the annealer runs (for tests and checks).

    Parameters
    ----------
    inst : Instance
        At most 20 requests and 24 chunks (the kernels are for the small instances of the
        search; use :func:`~mptsearch.exact.free.opt_free` and friends beyond).

    Notes
    -----
    O(3^m + 2^n (n + m) + m^3 k) time, no allocation inside the kernels.
    """
    from ..exact.free import dp_dtype
    from ..instance import InstanceError

    n, m = inst.n, inst.m
    if m > 20 or n > 24:
        raise InstanceError(f"evaluate() is for small instances (m <= 20, n <= 24), got m={m}, n={n}")
    total = inst.total_weight()
    ws = Workspace(n, m, dp_dtype(total))
    req = np.array(inst.request_masks(), dtype=np.uint64)
    w = inst.weights.astype(np.int64)
    _chunk_sets(req, m, n, ws.S)
    sav = int(_opt_free_savings(req, m, w, ws.inter, ws.wI, ws.M, ws.L))
    glob = int(_opt_glob_value(ws.S, w, n, m, ws.G, ws.classes, ws.ncls))
    agg = int(_agglomerative_savings(req, m, w, ws.sig, ws.act))
    return Evaluation(total - sav, glob, sav, agg)
