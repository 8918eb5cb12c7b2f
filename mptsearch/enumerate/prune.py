"""Pruned evaluation of a piece: bounds inherited along the generation tree make the O(3^m)
DP the exception.

A piece of the orderly generation is a subtree; every family in it is its parent (the family
without its last request) plus one request. Evaluated level by level, each family gets the
certified lower bound OPT_free(parent) + w(R) - max_i w(R ∩ R_i)
(:func:`mptsearch._kernels.inherited.inherited_lower_bounds`) from its parent's exact value
or lower bound, on top of the batch's own bounds (MST, chunks in use). The batch evaluator
(:func:`mptsearch.enumerate.evaluate.evaluate_batch`) then runs the DP only where the bounds
cannot decide the property or the per-m maximum, so every maximum, ``attained`` count and
hit stays exact: pruning only ever skips members whose upper bound OPT_glob / LB is below
the maximum (or that the bounds rule out of the property).

The members' ancestors with ``mlo - ancestors <= m < mlo`` are generated as well: those
without a parent in the piece get the exact DP (each costs a fraction 3^-(mlo-m) of a
member; with unit weights on <= 7 chunks from m = PS_FROM on, where the prefix-set search
would cost about as much as a member, the level bound instead), the others only the
inherited bound, and they are not members (not counted).
Measured on 4-uniform families on 7 chunks with 12 requests (benchmarks/bench_enumerate.py):
with exact grandparents and the drivers' ratio floors, 96.7% of the members need no DP.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .._kernels.inherited import inherited_lower_bounds
from .._kernels.prefix_sets import level_bounds
from ..exact.prefix_sets import NARROW_N, PS_FROM, _tables
from .evaluate import EXACT_M_LIMIT, BatchResult, evaluate_batch

__all__ = ["evaluate_tree", "DEFAULT_ANCESTORS"]

DEFAULT_ANCESTORS = 2  #: generations above mlo evaluated to feed the inherited bounds


def _level_bound_instead(n, w, m, prefix_sets) -> bool:
    return bool(prefix_sets) and 1 <= n <= NARROW_N and bool(np.all(w == 1)) and m >= PS_FROM


def evaluate_tree(masks: np.ndarray, ms: np.ndarray, parents: np.ndarray, n: int, mlo: int, *,
                  prop: str = "none", threshold: Fraction | float = 1,
                  exact_limit: int = EXACT_M_LIMIT, weights=None,
                  ratio_floor: dict | None = None, prefix_sets: bool = True) -> BatchResult:
    """Evaluate the families of a generation subtree level by level with inherited bounds.

    Parameters
    ----------
    masks, ms : the families (``masks[i, :ms[i]]``), parents before children
    parents : row of each family's parent (its first ms[i]-1 requests), -1 when absent
    n : number of chunks
    mlo : families with fewer requests are ancestors only: evaluated to bound their
        descendants, never reported (their entries in the result are meaningless)
    prop, threshold, exact_limit, weights, ratio_floor, prefix_sets : as in :func:`evaluate_batch`

    Returns
    -------
    BatchResult
        For every row; ``lb`` includes the inherited bound.

    Notes
    -----
    The members cost what :func:`evaluate_batch` costs for them, minus the DPs the inherited
    bounds avoid; ancestors without a parent in the piece cost one DP each (O(3^m)), the
    others O(m k).
    """
    w = np.ones(max(n, 1), dtype=np.int64) if weights is None else np.asarray(weights, dtype=np.int64)
    B = len(ms)
    umasks = np.ascontiguousarray(masks, dtype=np.int64).view(np.uint64)
    ms = np.ascontiguousarray(ms, dtype=np.int64)
    parents = np.ascontiguousarray(parents, dtype=np.int64)
    arrs = [np.zeros(B, dtype=np.int64) for _ in range(6)]
    out = BatchResult(*arrs)
    value = np.zeros(B, dtype=np.int64)  # exact OPT_free, or a certified lower bound
    for d in np.unique(ms):
        rows = np.flatnonzero(ms == d)
        inherited = np.zeros(len(rows), dtype=np.int64)
        inherited_lower_bounds(umasks, ms, rows, parents, value, w, inherited)
        if d < mlo:
            top = parents[rows] < 0
            if top.any() and _level_bound_instead(n, w, d, prefix_sets):
                # past the DP's crossover an exact value per root costs more than the pruning
                # gains: the level bound (a certified lower bound) feeds the inherited bounds
                lvl = np.zeros(int(top.sum()), dtype=np.int64)
                _, subs, ups, _, rank = _tables(n)
                level_bounds(umasks, ms, rows[top], n, subs, ups, rank, lvl)
                value[rows[top]] = lvl
            # roots of the ancestor levels: exact (ratio >= 0 holds for all, so the DP runs)
            elif top.any():
                r = evaluate_batch(masks[rows[top]], ms[rows[top]], n, weights=weights,
                                   prop="ratio", threshold=0, exact_limit=exact_limit,
                                   prefix_sets=prefix_sets)
                value[rows[top]] = np.where(r.free >= 0, r.free, r.lb)
            value[rows[~top]] = inherited[~top]
            continue
        r = evaluate_batch(masks[rows], ms[rows], n, weights=weights, prop=prop,
                           threshold=threshold, exact_limit=exact_limit, lower_bounds=inherited,
                           ratio_floor=ratio_floor, prefix_sets=prefix_sets)
        for name in ("total", "glob", "lb", "ub", "aggsav", "free"):
            getattr(out, name)[rows] = getattr(r, name)
        value[rows] = np.where(r.free >= 0, r.free, r.lb)
    return out
