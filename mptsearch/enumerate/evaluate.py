"""Batch evaluation of class members: OPT_glob, bounds on OPT_free, and OPT_free where needed.

For every member (a family of requests given as chunk bitmasks) the compiled batch kernel
computes, with no Python per member:

- OPT_glob exactly (the O(2^n (m + n)) chunk-subset DP of :mod:`mptsearch.exact.glob`);
- a certified lower bound on OPT_free, the larger of the MST bound (sum_i w(R_i) minus a
  maximum spanning tree over w(R_i ∩ R_j)), the weight of the chunks in use, and any lower
  bound the caller knows (``lower_bounds``: those inherited along the generation tree,
  :mod:`mptsearch.enumerate.prune`);
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
ratio so far (or from a floor the caller knows to be attained elsewhere in the class). Every
member whose ratio equals the maximum is evaluated, so the number of members attaining it is
exact. The maxima, ``attained`` counts and hits do not depend on the order in which batches
are processed or on the number of workers; with floors, how many DPs ran does.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from .._jit import njit

from .._kernels.bounds import free_bounds
from .._kernels.free import free_savings
from .._kernels.glob import glob_table
from .._kernels.masks import chunk_sets
from .._kernels.prefix_sets import prefix_set_bound, prefix_set_free
from .._kernels.workspace import workspace
from ..exact.prefix_sets import PS_FROM, PS_FROM_SMALL_K

__all__ = ["PROPERTIES", "evaluate_batch", "BatchResult", "EXACT_M_LIMIT"]

PROPERTIES = ("none", "gap", "ratio", "shortfall")
_PROP_CODE = {p: i for i, p in enumerate(PROPERTIES)}
EXACT_M_LIMIT = 22  # 2^m-entry DP tables per worker; beyond it a member stays undecided


@njit(cache=True)
def _kmax(R, m):
    k = 0
    for a in range(m):
        x = R[a]
        c = 0
        while x:
            c += 1
            x &= x - np.uint64(1)
        k = max(k, c)
    return k


@njit(cache=True)
def _exact_free(masks, ms, i, w, exact_limit, ws, total, free, pst):
    """free[i] := OPT_free of member i, by the prefix-set search where it applies and is the
    faster (``pst[0]``: unit weights on <= 7 chunks), else by the DP, or -2 when m exceeds
    the DP limit."""
    m = ms[i]
    if pst[0] and (m >= PS_FROM or (m >= PS_FROM_SMALL_K and _kmax(masks[i], m) <= 3)):
        free[i] = prefix_set_free(masks[i], m, pst[1], pst[2], pst[3], pst[4], pst[5])
    elif m <= exact_limit:
        free[i] = total[i] - free_savings(masks[i], m, w, ws)
    else:
        free[i] = -2


@njit(cache=True)
def _tighten(masks, ms, i, lb, pst):
    """Raise lb[i] to the level bound of :mod:`mptsearch.exact.prefix_sets` (uniform
    families, unit weights, <= 7 chunks) once, before an exact evaluation is paid for;
    ``pst[6][i]`` marks it done."""
    if pst[0] and not pst[6][i]:
        pst[6][i] = True
        v = prefix_set_bound(masks[i], ms[i], pst[1], pst[2], pst[3], pst[5])
        if v > lb[i]:
            lb[i] = v


@njit(cache=True)
def _glob_and_bounds(masks, ms, n, w, ws, lbin, total, glob, lb, ub, aggsav, free):
    """Phase 1: OPT_glob and the two bounds of every member (free[i] = -1: not known yet);
    ``lbin[i]`` is a lower bound on OPT_free known beforehand (0 when none)."""
    for i in range(masks.shape[0]):
        m = ms[i]
        R = masks[i]
        tot, low, agg = free_bounds(R, m, w, ws)
        total[i] = tot
        free[i] = -1
        if m <= 1:
            glob[i] = tot
            lb[i] = tot
            ub[i] = tot
            aggsav[i] = 0
            free[i] = tot  # one request (or none): nothing to share, no DP needed
            continue
        chunk_sets(R, m, n, ws.S)
        glob[i] = glob_table(ws.S, w, n, m, ws.G, ws.classes, ws.ncls, ws.singles)
        lb[i] = max(low, lbin[i])
        aggsav[i] = agg
        ub[i] = tot - agg


@njit(cache=True)
def _needs_free(prop, pn, pd, i, total, glob, lb, aggsav):
    if prop == 1:
        return glob[i] > lb[i]
    if prop == 2:
        return glob[i] * pd >= pn * lb[i]
    if prop == 3:
        return (total[i] - lb[i]) * pd >= pn * aggsav[i] and total[i] > lb[i]
    return False


@njit(cache=True)
def _decide_property(masks, ms, w, prop, pn, pd, exact_limit, ws, total, glob, lb,
                     aggsav, free, pst):
    """Phase 2: OPT_free for the members whose property the bounds cannot decide."""
    for i in range(masks.shape[0]):
        if free[i] >= 0:
            continue
        if _needs_free(prop, pn, pd, i, total, glob, lb, aggsav):
            _tighten(masks, ms, i, lb, pst)
            if _needs_free(prop, pn, pd, i, total, glob, lb, aggsav):
                _exact_free(masks, ms, i, w, exact_limit, ws, total, free, pst)


@njit(cache=True)
def _max_ratio(masks, ms, w, exact_limit, ws, fn, fd, total, glob, lb, ub, free, pst):
    """Phase 3: the exact maximum of OPT_glob / OPT_free for each m, members taken by
    decreasing upper bound OPT_glob / LB while it reaches the best exact ratio so far,
    starting from the floor fn[m] / fd[m] (0/1 when none)."""
    B = masks.shape[0]
    mcap = masks.shape[1] + 1
    bn = np.zeros(mcap, dtype=np.int64)
    bd = np.ones(mcap, dtype=np.int64)
    for m in range(min(mcap, fn.shape[0])):
        bn[m] = fn[m]
        bd[m] = fd[m]
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
                _tighten(masks, ms, i, lb, pst)
                if glob[i] * bd[m] < bn[m] * lb[i]:
                    continue
                _exact_free(masks, ms, i, w, exact_limit, ws, total, free, pst)
                if free[i] == -2:
                    continue
            if glob[i] * bd[m] > bn[m] * free[i]:
                bn[m] = glob[i]
                bd[m] = free[i]


@njit(cache=True)
def _evaluate(masks, ms, n, w, prop, pn, pd, exact_limit, ws, lbin, fn, fd, pst,
              total, glob, lb, ub, aggsav, free):
    _glob_and_bounds(masks, ms, n, w, ws, lbin, total, glob, lb, ub, aggsav, free)
    _decide_property(masks, ms, w, prop, pn, pd, exact_limit, ws, total, glob, lb,
                     aggsav, free, pst)
    _max_ratio(masks, ms, w, exact_limit, ws, fn, fd, total, glob, lb, ub, free, pst)


def _prefix_set_args(n, w, B, on):
    """The tuple the kernels take: (applies, n, subs, ups, up1, rank, level-bound done)."""
    from ..exact.prefix_sets import NARROW_N, _tables

    on = bool(on) and 1 <= n <= NARROW_N and bool(np.all(w == 1))
    _, subs, ups, up1, rank = _tables(n if on else 1)
    return (on, np.int64(n), subs, ups, up1, rank, np.zeros(B, dtype=np.bool_))


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
                   threshold: Fraction | float = 1, exact_limit: int = EXACT_M_LIMIT,
                   lower_bounds=None, ratio_floor: dict | None = None,
                   prefix_sets: bool = True) -> BatchResult:
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
    exact_limit : members with more requests than this that the bounds cannot decide are
        left undecided (free -2)
    lower_bounds : int64 array (B,), optional
        Certified lower bounds on each member's OPT_free known to the caller; the DP is
        skipped wherever they (with the batch's own bounds) decide the member. A wrong
        bound makes wrong results: pass only proved ones.
    ratio_floor : {m: Fraction}, optional
        For each m, a ratio OPT_glob / OPT_free that some family with m requests (in this
        batch or elsewhere in the class) attains exactly. Members whose upper bound
        OPT_glob / LB is below it cannot reach the class's maximum and skip the DP; a member
        attaining the class's maximum is still always evaluated. The batch's own maximum is
        then exact only where it reaches the floor.
    prefix_sets : bool
        With unit weights on at most 7 chunks (else ignored): raise the lower bound of a
        member the other bounds cannot decide to the level bound, and compute OPT_free by
        the prefix-set search (:mod:`mptsearch.exact.prefix_sets`) from the m where it beats
        the DP (``PS_FROM``), with no limit on m. False: the DP alone, as before (the
        results are the same; tests compare them).

    Returns
    -------
    BatchResult

    Notes
    -----
    Per member O(2^n (m + n) + m^3) for OPT_glob and the bounds, plus O(3^m) for each DP that
    the bounds could not avoid (milliseconds for a prefix-set search on 7 chunks).
    """
    if prop not in _PROP_CODE:
        raise ValueError(f"unknown property {prop!r}; use one of {', '.join(PROPERTIES)}")
    thr = Fraction(threshold).limit_denominator(10**6)
    w = np.ones(max(n, 1), dtype=np.int64) if weights is None else np.asarray(weights, dtype=np.int64)
    from ..exact.free import dp_dtype

    # the kernels read requests as uint64 chunk masks (a view: n <= 64 keeps the bits)
    masks = np.ascontiguousarray(masks, dtype=np.int64).view(np.uint64)
    ms = np.ascontiguousarray(ms, dtype=np.int64)
    B = masks.shape[0]
    arrs = [np.zeros(B, dtype=np.int64) for _ in range(6)]
    lbin = np.zeros(B, dtype=np.int64) if lower_bounds is None else \
        np.ascontiguousarray(lower_bounds, dtype=np.int64)
    fn = np.zeros(masks.shape[1] + 1, dtype=np.int64)
    fd = np.ones(masks.shape[1] + 1, dtype=np.int64)
    for m, r in (ratio_floor or {}).items():
        if 0 <= int(m) < len(fn):
            r = Fraction(r)
            fn[int(m)], fd[int(m)] = r.numerator, r.denominator
    if B:
        mmax = max(int(ms.max()), 1)
        # every DP value is at most sum_i w(R_i) <= m * w(universe): int16 when that fits
        pst = _prefix_set_args(n, w, B, prefix_sets)
        # the DP never runs from PS_FROM on when the prefix-set search applies
        dp_m = min(mmax, exact_limit, PS_FROM - 1 if pst[0] else mmax)
        ws = workspace(n, max(mmax, masks.shape[1]), dp_dtype(mmax * int(w.sum())), table_m=dp_m)
        _evaluate(masks, ms, n, w, _PROP_CODE[prop], thr.numerator, thr.denominator,
                  exact_limit, ws, lbin, fn, fd, pst, *arrs)
    return BatchResult(*arrs)
