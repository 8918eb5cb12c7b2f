"""OPT_free savings M(all) of a small family given as request masks (Theorem 1), value only.

:func:`solve_dp` is the one dispatch between the DP loops for compiled callers: the blocked
SIMD rows (:mod:`.blocked`) when the table has more than one row, the plain loop
(:mod:`.subset_dp`) below; both leave the same table. The block size comes from the table's
integer type (:func:`~mptsearch._kernels.blocked.low_bits`).
"""

import numpy as np
from .._jit import njit

from .blocked import dp_rows, low_bits
from .masks import intersection_table, mask_weight
from .prefix_sets import prefix_set_free
from .prefix_wide import W, wide_forced, wide_free
from .subset_dp import dp_plain

__all__ = ["solve_dp", "free_savings", "free_savings_fastest"]

# the crossovers of mptsearch.exact.prefix_sets (PS_FROM, PS_FROM_SMALL_K, PS_FROM_WIDE,
# NARROW_N, WIDE_K), repeated here as compile-time constants; tests/test_prefix_sets.py checks that they agree
PS_FROM, PS_FROM_SMALL_K, PS_FROM_WIDE, NARROW_N, WIDE_K = 15, 10, 17, 7, 5


@njit(cache=True)
def solve_dp(wI, M, m):
    """M[:2^m] := the Theorem 1 table of wI[:2^m] (the arrays may be longer: workspaces)."""
    if m <= low_bits(M):
        dp_plain(wI[: 1 << m], M[: 1 << m])
    else:
        dp_rows(wI, M, m)


@njit(cache=True, inline="always")
def free_savings(req, m, weights, ws):
    """M(all), the optimal savings of the family req[:m]; OPT_free = sum_i w(R_i) - M(all).

    ``ws`` is a :class:`~mptsearch._kernels.workspace.Workspace` whose tables have at least
    2^m entries in an integer type that holds sum_i w(R_i). O(3^m) time, no allocation."""
    if m <= 1:
        return np.int64(0)
    intersection_table(req, m, weights, ws.inter, ws.wI)
    solve_dp(ws.wI, ws.M, m)
    return np.int64(ws.M[(1 << m) - 1])


@njit(cache=True)
def free_savings_fastest(req, m, weights, ws):
    """:func:`free_savings` by the faster exact method: the prefix-set search
    (:mod:`mptsearch.exact.prefix_sets`) for unit weights on <= 7 chunks, or on 8-10 chunks
    with requests of <= 5 chunks, from its crossover on (no table, no limit on m), else the
    DP (tables of 2^m entries). On 8-10 chunks the search honours ``ws.halt`` (a deadline
    and node budget, :mod:`.halt`): once it is stopped the value is meaningless and
    ``ws.halt``'s flag says so; the other paths take milliseconds and ignore it."""
    n = ws.S.shape[0]
    if n > NARROW_N and m >= PS_FROM_WIDE and ws.ps_rank.shape[0] == 1 << n:
        unit = True
        for x in range(n):
            if weights[x] != 1:
                unit = False
        total = np.int64(0)
        kmax = np.int64(0)
        for a in range(m):
            c = mask_weight(req[a], weights)
            total += c
            kmax = max(kmax, c)
        if unit and kmax <= WIDE_K:
            forced, k, uniform = wide_forced(req, m, ws.ps_rank)
            ws.ps_mvals[:] = 0
            q = np.zeros(W, dtype=np.int64)
            return total - wide_free(forced, k, uniform, n, ws.ps_wsubs, ws.ps_wups, ws.ps_up1,
                                     ws.ps_mkeys, ws.ps_mvals, q, ws.halt)
    if n <= NARROW_N and m >= PS_FROM_SMALL_K and ws.ps_rank.shape[0] == 1 << n:
        unit = True
        for x in range(n):
            if weights[x] != 1:
                unit = False
        k = 0
        total = np.int64(0)
        for a in range(m):
            c = mask_weight(req[a], weights)
            total += c
            k = max(k, c)
        if unit and (m >= PS_FROM or k <= 3):
            return total - prefix_set_free(req, m, n, ws.ps_subs, ws.ps_ups, ws.ps_up1, ws.ps_rank)
    return free_savings(req, m, weights, ws)
