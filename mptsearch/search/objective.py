"""The annealer's objective on one family, value only, from the kernels of
:mod:`mptsearch._kernels`: OPT_glob / OPT_free (``ratio``), optimal / agglomerative savings
(``shortfall``), a heuristic's trie cost / OPT_free (``cost-ratio``, :mod:`.._kernels.layouts`)
or the online layouter's cost / OPT_free over the arrival order (``online``,
:mod:`mptsearch.serving._online_cost`), or OPT_free / w(U) (``blend``: by Proposition P2 of
docs/beyond_prefix.md, OPT_free / OPT_blend = 1/(c + (1 - c) w(U)/OPT_free) in the constant blend
model, increasing in OPT_free / w(U) for every r and lambda).

The certificates (hierarchy, layout, order) are recomputed afterwards with the public solvers
(:mod:`mptsearch.search.certificate`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from .._jit import njit

from .._kernels.agglomerative import agglomerative_savings
from .._kernels.free import free_savings, free_savings_fastest
from .._kernels.glob import glob_table
from .._kernels.layouts import heuristic_cost
from ..serving._online_cost import online_cost
from .._kernels.masks import chunk_sets, mask_weight
from .._kernels.workspace import workspace

__all__ = ["Evaluation", "evaluate", "objective_value", "objective_kernel", "objective_ratio", "objective_other",
           "OBJECTIVES", "RATIO", "SHORTFALL", "COST_RATIO", "ONLINE", "BLEND"]

OBJECTIVES = ("ratio", "shortfall", "cost-ratio", "online", "blend")  # the annealer's objectives by name
RATIO, SHORTFALL, COST_RATIO, ONLINE, BLEND = 0, 1, 2, 3, 4  # their codes in the compiled loop (OBJECTIVES order)


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
def _violation(req, m, weights, ws, sav):
    """(agglomerative savings, 1 when they fall below half the optimum ``sav``: Theorem 6 says
    never, else 0)."""
    agg = agglomerative_savings(req, m, weights, ws.sig, ws.act)
    return agg, 1 if 2 * agg < sav else 0


@njit(cache=True)
def objective_ratio(req, m, n, weights, check, ws, heuristic, window):
    """(OPT_glob, OPT_free, violation) of the family req[:m]: the ``ratio`` objective (the
    default, so it compiles alone: only OPT_glob's table beside OPT_free's kernels). The other
    arguments are those of :func:`objective_other`; ``violation`` is as there."""
    sav = free_savings_fastest(req, m, weights, ws)
    viol = 0
    if check:
        _, viol = _violation(req, m, weights, ws, sav)
    return glob_value(req, m, n, weights, ws), family_total(req, m, weights) - sav, viol


@njit(cache=True)
def objective_other(code, req, m, n, weights, check, ws, heuristic, window):
    """(num, den, violation) of the family req[:m] for the objective ``code`` other than
    ``ratio``: ``shortfall`` optimal / agglomerative savings (1/1 when both are 0),
    ``cost-ratio`` the trie cost of heuristic ``heuristic``'s layout / OPT_free, ``online`` the
    online layouter's cost with window ``window`` on the arrivals req[0..m-1] / OPT_free,
    ``blend`` OPT_free / w(U); ``violation`` is 1 when ``check`` and the agglomerative savings
    fall below half the optimum (Theorem 6 says never). O(3^m + m^3 k) (OPT_free by the
    prefix-set search instead of the O(3^m) DP where that is faster: unit weights on <= 7
    chunks, or on 8-10 chunks with requests of <= 5 chunks, past its crossover).

    The four share one compiled function (``code`` an argument), so the first of them a process
    runs compiles the kernels of all four (the heuristics' layouts, the serving layouter's
    online cost), and the test suite compiles the step loop over them once rather than four
    times; ``ratio``, the default, has its own (:func:`objective_ratio`)."""
    sav = free_savings_fastest(req, m, weights, ws)
    viol = 0
    agg = np.int64(-1)
    if code == SHORTFALL or check:
        agg, viol = _violation(req, m, weights, ws, sav)
    if code == COST_RATIO:
        return heuristic_cost(heuristic, req, m, n, weights, ws), family_total(req, m, weights) - sav, viol
    if code == ONLINE:
        return online_cost(req, m, n, weights, window), family_total(req, m, weights) - sav, viol
    if code == BLEND:
        union = np.uint64(0)
        for i in range(m):
            union |= req[i]
        return family_total(req, m, weights) - sav, mask_weight(union, weights), viol
    if agg == 0 and sav == 0:
        return np.int64(1), np.int64(1), viol
    return sav, agg, viol


def objective_kernel(code: int, req, m, n, weights, check, ws, heuristic, window):
    """The compiled objective ``code`` (an index of :data:`OBJECTIVES`) of the family req[:m]:
    (num, den, violation), by :func:`objective_ratio` or :func:`objective_other`."""
    if code == RATIO:
        return objective_ratio(req, m, n, weights, check, ws, heuristic, window)
    return objective_other(code, req, m, n, weights, check, ws, heuristic, window)


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


def objective_value(inst, objective_name: str, *, heuristic: str = "greedy", window: int = 1) -> tuple[int, int]:
    """The annealer's objective on ``inst`` as the fraction (num, den) its compiled loop sees:
    the same compiled kernel (:func:`objective_kernel`), on the requests in ``inst``'s order (the arrival order
    for ``online``) and its chunk ids.

    Parameters
    ----------
    inst : Instance
        At most 20 requests and 24 chunks.
    objective_name : {"ratio", "shortfall", "cost-ratio", "online", "blend"}
    heuristic : str
        A searchable name of :mod:`mptsearch.heuristics.registry` (``cost-ratio``).
    window : int
        The online layouter's window W (``online``).

    Notes
    -----
    O(3^m + 2^n (n + m) + m^3 k) time.
    """
    from ..exact.free import dp_dtype
    from ..heuristics.registry import heuristic as lookup
    from ..instance import InstanceError

    n, m = inst.n, inst.m
    if m > 20 or n > 24:
        raise InstanceError(f"objective_value() is for small instances (m <= 20, n <= 24), got m={m}, n={n}")
    if objective_name not in OBJECTIVES:
        raise InstanceError(f"unknown objective {objective_name!r}; use one of {', '.join(OBJECTIVES)}")
    code = lookup(heuristic).kernel
    if code is None:
        raise InstanceError(f"heuristic {heuristic!r} has no compiled twin to search with")
    if int(window) < 1:
        raise InstanceError(f"window must be >= 1, got {window}")
    ws = workspace(n, m, dp_dtype(inst.total_weight()))
    req = np.array(inst.request_masks(), dtype=np.uint64)
    num, den, _ = objective_kernel(OBJECTIVES.index(objective_name), req, m, n, inst.weights.astype(np.int64),
                                   False, ws, code, int(window))
    return int(num), int(den)
