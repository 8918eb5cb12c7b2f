"""The annealer's objective on one family, value only: OPT_glob / OPT_free (``ratio``) or
optimal / agglomerative savings (``shortfall``), from the kernels of :mod:`mptsearch._kernels`.

The certificates (hierarchy, layout, order) are recomputed afterwards with the public solvers
(:mod:`mptsearch.search.certificate`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .._kernels.agglomerative import agglomerative_savings
from .._kernels.free import free_savings, free_savings_fastest
from .._kernels.glob import glob_table
from .._kernels.masks import chunk_sets, mask_weight
from .._kernels.workspace import workspace

__all__ = ["Evaluation", "evaluate", "RATIO", "SHORTFALL"]

RATIO, SHORTFALL = 0, 1  # objective codes of the compiled loop (OBJECTIVES order)


@njit(cache=True, inline="always")
def family_total(req, m, weights):
    """sum_i w(R_i) of the family req[:m]."""
    total = np.int64(0)
    for i in range(m):
        total += mask_weight(req[i], weights)
    return total


@njit(cache=True, inline="always")
def glob_value(req, m, n, weights, ws):
    """OPT_glob of the family req[:m] on n chunks (fills ws.S and ws.G)."""
    chunk_sets(req, m, n, ws.S)
    return glob_table(ws.S, weights, n, m, ws.G, ws.classes, ws.ncls, ws.singles)


@njit(cache=True, inline="always")
def objective(req, m, n, weights, objective_code, check, ws):
    """(num, den, violation) of the family req[:m]: ``ratio`` OPT_glob / OPT_free,
    ``shortfall`` optimal / agglomerative savings (1/1 when both are 0); ``violation`` is 1
    when ``check`` and the agglomerative savings fall below half the optimum (Theorem 6
    says never). O(3^m + 2^n (n + m)) for ratio, O(3^m + m^3) for shortfall."""
    sav = free_savings_fastest(req, m, weights, ws)
    viol = 0
    agg = np.int64(-1)
    if objective_code == SHORTFALL or check:
        agg = agglomerative_savings(req, m, weights, ws.sig, ws.act)
        if 2 * agg < sav:
            viol = 1
    if objective_code == RATIO:
        return glob_value(req, m, n, weights, ws), family_total(req, m, weights) - sav, viol
    if agg == 0 and sav == 0:
        return np.int64(1), np.int64(1), viol
    return sav, agg, viol


class Evaluation(NamedTuple):
    """The kernels' values on one instance."""

    opt_free: int
    opt_glob: int
    free_savings: int
    agg_savings: int


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
    ws = workspace(n, m, dp_dtype(total))
    req = np.array(inst.request_masks(), dtype=np.uint64)
    w = inst.weights.astype(np.int64)
    sav = int(free_savings(req, m, w, ws))
    glob = int(glob_value(req, m, n, w, ws))
    agg = int(agglomerative_savings(req, m, w, ws.sig, ws.act))
    return Evaluation(total - sav, glob, sav, agg)
