"""Exact OPT_blend: the constant model by Theorem 1's DP, the context model by exhaustion.

- beta = 0 (constant loss): OPT_blend = (1 - c) w(U) + c OPT_free with c = min(1, r + lambda)
  (docs/beyond_prefix.md, Proposition 2), attained by every OPT_free layout; O(3^m) by the
  subset DP of :mod:`mptsearch.exact.free`.
- beta > 0 (context mismatch): every layout (prod_i |R_i|! of them), each priced with the exact
  mode choice of :func:`.model.chunk_modes`. For small instances only; the brute-force twin in
  tests/naive.py shares no code with it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from ..instance import Instance, InstanceError
from .model import BlendParams, BlendResult, price_layout

__all__ = ["BlendOptimum", "opt_blend", "opt_blend_exhaustive", "layouts_count", "MAX_LAYOUTS"]

MAX_LAYOUTS = 200_000  # exhaustion refuses more layouts than this (about a minute of Python)


@dataclass
class BlendOptimum:
    """OPT_blend with a layout attaining it, the prefix-only optimum and how it was found."""

    best: BlendResult
    opt_free: int
    distinct_weight: int
    method: str

    @property
    def value(self) -> float:
        return self.best.objective


def layouts_count(inst: Instance) -> int:
    """prod_i |R_i|!: the number of layouts."""
    return math.prod(math.factorial(len(o)) for o in inst.orders)


def _distinct_weight(inst: Instance) -> int:
    return int(sum(int(inst.weights[x]) for x in set().union(*inst.requests)))


def opt_blend_exhaustive(inst: Instance, params: BlendParams, *, max_layouts: int = MAX_LAYOUTS) -> BlendOptimum:
    """Minimum objective over every layout, modes chosen exactly per chunk.

    Ties keep the first layout in itertools.product order over each request's permutations in
    lexicographic order of positions.

    Notes
    -----
    O(prod_i |R_i|! * sum_x 2^(t_x - 1) t_x^2); refused past ``max_layouts`` layouts.
    """
    from ..exact.free import opt_free

    count = layouts_count(inst)
    if count > max_layouts:
        raise InstanceError(f"exhaustive OPT_blend needs {count} layouts, more than the limit {max_layouts}")
    best = None
    for layout in itertools.product(*(itertools.permutations(o) for o in inst.orders)):
        res = price_layout(inst, layout, params)
        if best is None or res.objective < best.objective - 1e-9:
            best = res
    return BlendOptimum(best, int(opt_free(inst).value), _distinct_weight(inst), "exhaustive")


def opt_blend(inst: Instance, params: BlendParams, *, max_layouts: int = MAX_LAYOUTS) -> BlendOptimum:
    """OPT_blend of ``inst``: Proposition 2 for beta = 0, exhaustion for beta > 0.

    Parameters
    ----------
    inst : Instance
    params : BlendParams
    max_layouts : int
        Largest number of layouts the exhaustion (beta > 0) accepts.

    Notes
    -----
    beta = 0: O(3^m) (Theorem 1's DP) plus pricing one layout; the value is the closed form of
    Proposition 2 and the returned layout is priced by :func:`.model.price_layout`, which must
    agree with it (checked here). beta > 0: :func:`opt_blend_exhaustive`.
    """
    if params.beta > 0:
        return opt_blend_exhaustive(inst, params, max_layouts=max_layouts)
    from ..exact.free import opt_free

    free = opt_free(inst)
    wU = _distinct_weight(inst)
    res = price_layout(inst, free.layout, params)
    closed = (1 - params.c) * wU + params.c * free.value
    if abs(res.objective - closed) > 1e-6 * max(1.0, closed):
        raise AssertionError(f"Proposition 2 fails: priced {res.objective}, closed form {closed}")
    return BlendOptimum(res, int(free.value), wU, "theorem1-dp")
