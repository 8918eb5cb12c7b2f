"""OPT_free savings M(all) of a small family given as request masks (Theorem 1), value only.

:func:`solve_dp` is the one dispatch between the DP loops for compiled callers: the blocked
SIMD rows (:mod:`.blocked`) when the table has more than one row, the plain loop
(:mod:`.subset_dp`) below; both leave the same table. The block size comes from the table's
integer type (:func:`~mptsearch._kernels.blocked.low_bits`).
"""

import numpy as np
from numba import njit

from .blocked import dp_rows, low_bits
from .masks import intersection_table
from .subset_dp import dp_plain

__all__ = ["solve_dp", "free_savings"]


@njit(cache=True)
def solve_dp(wI, M, m):
    """M[:2^m] := the Theorem 1 table of wI[:2^m] (the arrays may be longer: workspaces)."""
    if m <= low_bits(M):
        dp_plain(wI[: 1 << m], M[: 1 << m])
    else:
        dp_rows(wI, M, m)


@njit(cache=True)
def free_savings(req, m, weights, unit, ws):
    """M(all), the optimal savings of the family req[:m]; OPT_free = sum_i w(R_i) - M(all).

    ``ws`` is a :class:`~mptsearch._kernels.workspace.Workspace` whose tables have at least
    2^m entries in an integer type that holds sum_i w(R_i). O(3^m) time, no allocation."""
    if m <= 1:
        return np.int64(0)
    intersection_table(req, m, weights, unit, ws.inter, ws.wI)
    solve_dp(ws.wI, ws.M, m)
    return np.int64(ws.M[(1 << m) - 1])
