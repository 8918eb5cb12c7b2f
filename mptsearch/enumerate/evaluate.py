"""Batch evaluation of class members: OPT_glob, bounds on OPT_free, and OPT_free where needed.

For every member (a family of requests given as chunk bitmasks) the compiled batch kernel
computes, with no Python per member:

- OPT_glob exactly (the O(2^n (m + n)) chunk-subset DP of :mod:`mptsearch.exact.glob`);
- a certified lower bound on OPT_free, the larger of the MST bound (sum_i w(R_i) minus a
  maximum spanning tree over w(R_i ∩ R_j)) and the weight of the chunks in use;
- a certified upper bound on OPT_free, the cost of the agglomerative hierarchy (deterministic
  "first" tie-breaking), whose savings also give the shortfall's denominator;
- OPT_free exactly by the O(3^m) subset DP of Theorem 1 — only when the bounds cannot already
  decide the member. A member is *pruned* when the bounds rule it out, *evaluated* when the
  DP ran.

Properties (``prop``): ``"gap"`` (OPT_glob > OPT_free), ``"ratio"`` (OPT_glob / OPT_free >= r),
``"shortfall"`` (optimal savings / agglomerative savings >= s), ``"none"``. Independently of
the property, the exact maximum of OPT_glob / OPT_free for each m is found: members are taken
by decreasing upper bound OPT_glob / LB, starting from the best certified lower bound
OPT_glob / UB of the batch, and the DP runs only while the upper bound reaches the best exact
ratio so far. Every member whose ratio equals the maximum is evaluated, so the number of
members attaining it is exact. All decisions depend on the batch only, so results do not
depend on the order in which batches are processed or on the number of workers.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numba import njit

from .._bits import popcount
from ..exact._free_kernels import _dp_plain, _intersection_weights
from ..exact.glob import _glob_dp

try:  # the SIMD rows kernel (10x the plain loop at m=12 in int16)
    from ..exact._blocked import _dp_rows
    _BLOCKED = True
except ImportError:  # pragma: no cover - the blocked kernel is optional
    _BLOCKED = False

    @njit(cache=True)
    def _dp_rows(wI, M, m, L):
        _dp_plain(wI, M)

__all__ = ["PROPERTIES", "evaluate_batch", "BatchResult", "EXACT_M_LIMIT"]

PROPERTIES = ("none", "gap", "ratio", "shortfall")
_PROP_CODE = {p: i for i, p in enumerate(PROPERTIES)}
EXACT_M_LIMIT = 22  # 2^m-entry DP tables per worker; beyond it a member stays undecided


@njit(cache=True, inline="always")
def _wt(mask, w, unit):
    if unit:
        return popcount(mask)
    s = 0
    while mask:
        b = mask & -mask
        x = 0
        while (np.int64(1) << x) != b:
            x += 1
        s += w[x]
        mask ^= b
    return s


@njit(cache=True)
def _mst_savings(R, m, w, unit, pw, intree, key):
    """Weight of a maximum spanning tree over the pair weights w(R_i ∩ R_j) (Prim, O(m^2))."""
    for i in range(m):
        for j in range(i + 1, m):
            v = _wt(R[i] & R[j], w, unit)
            pw[i, j] = v
            pw[j, i] = v
    for i in range(m):
        intree[i] = False
        key[i] = -1
    key[0] = 0
    tot = 0
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
def _agglomerative_savings(R, m, w, unit, sig, cid):
    """Savings of the agglomerative common-intersection hierarchy with "first" tie-breaking:
    among pairs of largest common weight, the one with the least (a, b) cluster numbers
    (requests 0..m-1, merge j creates m+j). O(m^3)."""
    k = m
    for i in range(m):
        sig[i] = R[i]
        cid[i] = i
    nxt = m
    sav = 0
    while k > 1:
        best = 0
        ba = -1
        bb = -1
        for a in range(k):
            for b in range(a + 1, k):
                v = _wt(sig[a] & sig[b], w, unit)
                if v > best:
                    best = v
                    ba = a
                    bb = b
        if best <= 0:
            break  # no two clusters share a chunk: the remaining merges save nothing
        sav += best
        new = sig[ba] & sig[bb]
        t = 0
        for a in range(k):
            if a != ba and a != bb:
                sig[t] = sig[a]
                cid[t] = cid[a]
                t += 1
        sig[t] = new
        cid[t] = nxt
        nxt += 1
        k = t + 1
    return sav


@njit(cache=True)
def _opt_free(R, m, n, w, S, wI, M, w16, wI16, M16, small):
    """M(all) of the Theorem 1 DP: int16 SIMD rows when every value fits (``small``) and
    m >= 8, else the plain int64 loop."""
    size = 1 << m
    for x in range(n):
        S[x] = 0
    for i in range(m):
        r = R[i]
        for x in range(n):
            if (r >> x) & 1:
                S[x] |= np.uint64(1) << np.uint64(i)
    if small and m >= 8:
        for b in range(size):
            wI16[b] = 0
        _intersection_weights(S, w16, m, wI16[:size])
        _dp_rows(wI16[:size], M16[:size], m, 4)
        return np.int64(M16[size - 1])
    for b in range(size):
        wI[b] = 0
        M[b] = 0
    _intersection_weights(S, w, m, wI[:size])
    _dp_plain(wI[:size], M[:size])
    return M[size - 1]


@njit(cache=True)
def _evaluate(masks, ms, n, w, unit, small, prop, pn, pd, exact_limit,
              total, glob, lb, ub, aggsav, free):
    B = masks.shape[0]
    W = masks.shape[1]
    mmax = 1
    for i in range(B):
        if ms[i] > mmax:
            mmax = ms[i]
    tab = 1 << min(mmax, exact_limit)
    wI = np.zeros(tab, dtype=np.int64)
    M = np.zeros(tab, dtype=np.int64)
    w16 = w.astype(np.int16)
    wI16 = np.zeros(tab, dtype=np.int16)
    M16 = np.zeros(tab, dtype=np.int16)
    S = np.zeros(max(n, 1), dtype=np.uint64)
    G = np.zeros(1 << n, dtype=np.int64)
    pw = np.zeros((max(W, 1), max(W, 1)), dtype=np.int64)
    intree = np.zeros(max(W, 1), dtype=np.bool_)
    key = np.zeros(max(W, 1), dtype=np.int64)
    sig = np.zeros(max(W, 1), dtype=np.int64)
    cid = np.zeros(max(W, 1), dtype=np.int64)
    # phase 1: OPT_glob and the two bounds for everyone
    for i in range(B):
        m = ms[i]
        R = masks[i]
        tot = 0
        union = 0
        for a in range(m):
            tot += _wt(R[a], w, unit)
            union |= R[a]
        total[i] = tot
        free[i] = -1
        if m <= 1:
            glob[i] = tot
            lb[i] = tot
            ub[i] = tot
            aggsav[i] = 0
            free[i] = tot  # one request (or none): nothing to share, no DP needed
            continue
        for x in range(n):
            S[x] = 0
        for a in range(m):
            r = R[a]
            for x in range(n):
                if (r >> x) & 1:
                    S[x] |= np.uint64(1) << np.uint64(a)
        _glob_dp(S, w, n, m, G)
        glob[i] = G[(1 << n) - 1]
        low = tot - _mst_savings(R, m, w, unit, pw, intree, key)
        uw = _wt(union, w, unit)
        lb[i] = low if low > uw else uw
        aggsav[i] = _agglomerative_savings(R, m, w, unit, sig, cid)
        ub[i] = tot - aggsav[i]
    # phase 2: the DP where the property cannot be decided by the bounds
    for i in range(B):
        m = ms[i]
        if free[i] >= 0:
            continue
        need = False
        if prop == 1:
            need = glob[i] > lb[i]
        elif prop == 2:
            need = glob[i] * pd >= pn * lb[i]
        elif prop == 3:
            need = (total[i] - lb[i]) * pd >= pn * aggsav[i] and total[i] > lb[i]
        if need:
            if m <= exact_limit:
                free[i] = total[i] - _opt_free(masks[i], m, n, w, S, wI, M, w16, wI16, M16, small)
            else:
                free[i] = -2
    # phase 3: the exact maximum ratio for each m
    mcap = W + 1
    bn = np.zeros(mcap, dtype=np.int64)
    bd = np.ones(mcap, dtype=np.int64)
    for i in range(B):
        m = ms[i]
        if m >= 2 and glob[i] * bd[m] > bn[m] * ub[i]:
            bn[m] = glob[i]
            bd[m] = ub[i]
    keyf = np.empty(B, dtype=np.float64)
    for i in range(B):
        keyf[i] = -glob[i] / lb[i] if lb[i] > 0 else 0.0
    order = np.argsort(keyf, kind="mergesort")
    for t in range(B):
        i = order[t]
        m = ms[i]
        if m < 2 or free[i] == -2:
            continue
        if glob[i] * bd[m] >= bn[m] * lb[i]:
            if free[i] < 0:
                if m <= exact_limit:
                    free[i] = total[i] - _opt_free(masks[i], m, n, w, S, wI, M, w16, wI16, M16, small)
                else:
                    free[i] = -2
                    continue
            if glob[i] * bd[m] > bn[m] * free[i]:
                bn[m] = glob[i]
                bd[m] = free[i]


@dataclass
class BatchResult:
    """Per-member arrays of one batch. ``free[i]`` is OPT_free, or -1 where the DP was pruned
    (the bounds decided the member), -2 where it was needed but m exceeds the DP limit."""

    total: np.ndarray
    glob: np.ndarray
    lb: np.ndarray
    ub: np.ndarray
    aggsav: np.ndarray
    free: np.ndarray

    def has_property(self, i: int, prop: str, threshold: Fraction) -> bool:
        """Whether member i has the property (decided exactly; needs free[i] >= 0 unless
        the bounds rule it out)."""
        f = int(self.free[i])
        if prop == "none":
            return False
        if f < 0:
            return False
        g = int(self.glob[i])
        if prop == "gap":
            return g > f
        if prop == "ratio":
            return f > 0 and Fraction(g, f) >= threshold
        opt_sav, agg = int(self.total[i]) - f, int(self.aggsav[i])
        if opt_sav == 0:
            return False
        return agg == 0 or Fraction(opt_sav, agg) >= threshold


def evaluate_batch(masks: np.ndarray, ms: np.ndarray, n: int, *, weights=None, prop: str = "none",
                   threshold: Fraction | float = 1, exact_limit: int = EXACT_M_LIMIT) -> BatchResult:
    """Evaluate a batch of families on n chunks (``masks[i, :ms[i]]`` request bitmasks).

    Parameters
    ----------
    masks : int64 array (B, W)
    ms : int64 array (B,)
    n : int
        Number of chunks (the OPT_glob DP takes O(2^n) memory).
    weights : array of n positive ints, optional (unit weights by default)
    prop : {"none", "gap", "ratio", "shortfall"}
    threshold : the r of ``ratio`` or the s of ``shortfall`` (a Fraction is exact)

    Returns
    -------
    BatchResult

    Notes
    -----
    Per member O(2^n (m + n) + m^3) for OPT_glob and the bounds, plus O(3^m) for each DP that
    the bounds could not avoid.
    """
    if prop not in _PROP_CODE:
        raise ValueError(f"unknown property {prop!r}; use one of {', '.join(PROPERTIES)}")
    thr = Fraction(threshold).limit_denominator(10**6)
    w = np.ones(max(n, 1), dtype=np.int64) if weights is None else np.asarray(weights, dtype=np.int64)
    unit = bool(np.all(w == 1))
    masks = np.ascontiguousarray(masks, dtype=np.int64)
    ms = np.ascontiguousarray(ms, dtype=np.int64)
    B = masks.shape[0]
    arrs = [np.zeros(B, dtype=np.int64) for _ in range(6)]
    if B:
        # every DP value is at most sum_i w(R_i) <= m * w(universe): int16 when that fits
        small = _BLOCKED and int(ms.max()) * int(w.sum()) < 32000
        _evaluate(masks, ms, n, w, unit, small, _PROP_CODE[prop], thr.numerator, thr.denominator,
                  exact_limit, *arrs)
    return BatchResult(*arrs)
