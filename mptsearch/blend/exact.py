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
from . import model as _model
from .model import BlendParams, BlendResult, price_layout

__all__ = ["BlendOptimum", "opt_blend", "opt_blend_exhaustive", "layouts_count", "recheck", "blend_summary", "MAX_LAYOUTS"]

MAX_LAYOUTS = 200_000  # exhaustion refuses more layouts than this (about a minute of Python)
MAX_DP_M = 25  # the O(3^m) DP of the constant model refuses more requests (solve's --max-free-m default)


@dataclass
class BlendOptimum:
    """OPT_blend with a layout attaining it, the prefix-only optimum and how it was found.

    ``exact`` is False when some layout had a chunk of more than
    :data:`.model.EXACT_MODES_T` nodes (beta > 0) priced by greedy modes: ``value`` is then an
    upper bound on OPT_blend (the minimum over layouts of upper bounds on their best prices).
    """

    best: BlendResult
    opt_free: int
    distinct_weight: int
    method: str
    exact: bool = True

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
    exact = True
    for layout in itertools.product(*(itertools.permutations(o) for o in inst.orders)):
        res = price_layout(inst, layout, params)
        exact &= res.modes_exact
        if best is None or res.objective < best.objective - 1e-9:
            best = res
    method = "exhaustive" if exact else (f"exhaustive layouts, greedy modes past {_model.EXACT_MODES_T} nodes of a chunk "
                                             "(upper bound)")
    return BlendOptimum(best, int(opt_free(inst).value), _distinct_weight(inst), method, exact)


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
    agree with it (checked here). beta > 0 or per-answer accounting (where P2 fails):
    :func:`opt_blend_exhaustive`.
    """
    if params.beta > 0 or params.per_answer or params.extended:
        return opt_blend_exhaustive(inst, params, max_layouts=max_layouts)
    if inst.m > MAX_DP_M:
        raise InstanceError(f"OPT_blend (beta = 0) runs Theorem 1's O(3^m) DP: m={inst.m} requests is above {MAX_DP_M}")
    from ..exact.free import opt_free

    free = opt_free(inst)
    wU = _distinct_weight(inst)
    res = price_layout(inst, free.layout, params)
    closed = (1 - params.c) * wU + params.c * free.value
    if abs(res.objective - closed) > 1e-6 * max(1.0, closed):
        raise AssertionError(f"Proposition 2 fails: priced {res.objective}, closed form {closed}")
    return BlendOptimum(res, int(free.value), wU, "theorem1-dp")


def recheck(inst: Instance, layout, modes, params: BlendParams) -> tuple[float, float]:
    """(cost, loss) of ``layout`` with the given ``modes``, replayed from the definition.

    Independent of :func:`.model.price_layout`: the serving is replayed with prefix tuples (no
    trie), ``modes`` lists, for every non-hit position in serving order, -1 (full) or the index
    (in the same list) of the node it blends from; the source must be an earlier full node of
    the same chunk. Raises InstanceError on a mode that the model forbids.
    """
    from ..trie import check_layout

    layout = check_layout(inst, layout)
    seen, new = set(), []
    for seq in layout:
        for p in range(len(seq)):
            if seq[:p + 1] not in seen:
                seen.add(seq[:p + 1])
                new.append((seq[p], frozenset(seq[:p]), seq[:p + 1]))
    through = {pre: sum(1 for seq in layout if seq[:len(pre)] == pre) for _, _, pre in new}
    if len(modes) != len(new):
        raise InstanceError(f"{len(modes)} modes for {len(new)} nodes")
    cost = loss = 0.0
    for j, ((x, ctx, pre), s) in enumerate(zip(new, modes)):
        w = int(inst.weights[x])
        if s == -1:
            cost += w
            continue
        if s == -2 and params.isolated:  # the chunk's isolated copy (context {}), section 9
            src = frozenset()
        elif not (0 <= s < j) or new[s][0] != x or modes[s] != -1:
            raise InstanceError(f"node {j} blends from {s}, which is not an earlier full node of its chunk")
        else:
            src = new[s][1]
        diff = ctx ^ src
        d = sum(int(inst.weights[y]) for y in diff) if params.mismatch == "tokens" else len(diff)
        cost += params.blend_cost(w, d, through[pre])
        loss += params.blend_loss(w, d, through[pre])
    return cost, loss


def blend_summary(inst: Instance, params: BlendParams, *, max_layouts: int = MAX_LAYOUTS) -> dict:
    """OPT_blend with its layout and modes, the prefix-only optimum, and a recheck of the
    witness by :func:`recheck`: the JSON object of ``mptsearch blend``.

    Keys: instance, parameters (r, lambda, beta, c), opt_free, w_U, opt_blend (objective),
    cost, loss, prefix_cost (the witness layout's trie cost), lower_bound (P5:
    (1 - c) w(U) + c OPT_free), ratio (OPT_free / OPT_blend), method, layout, modes,
    rechecked (cost and loss replayed, and whether they match), exact (False: opt_blend is an
    upper bound, see :class:`BlendOptimum`).
    """
    from ..instance import compact

    res = opt_blend(inst, params, max_layouts=max_layouts)
    b = res.best
    rc, rl = recheck(inst, b.layout, b.modes, params)
    ok = math.isclose(rc, b.cost, rel_tol=1e-9, abs_tol=1e-9) and math.isclose(rl, b.loss, rel_tol=1e-9, abs_tol=1e-9)
    # P5; with isolated copies no node need be full, and every node costs at least c w (section 9)
    low = params.c * res.opt_free if params.isolated else (1 - params.c) * res.distinct_weight + params.c * res.opt_free
    par = {"r": params.r, "lambda": params.price, "beta": params.beta, "c": params.c, "per_answer": params.per_answer}
    if params.extended:
        par.update({"mismatch": params.mismatch, "isolated_copies": params.isolated,
                    "calibration": None if params.calibration is None else
                    [[r, [list(p) for p in pts]] for r, pts in params.calibration.curves]})
    return {"instance": compact(inst), "parameters": par,
            "opt_free": res.opt_free, "w_U": res.distinct_weight, "opt_blend": round(res.value, 9),
            "cost": round(b.cost, 9), "loss": round(b.loss, 9), "prefix_cost": b.prefix_cost,
            "lower_bound": round(low, 9), "ratio": round(res.opt_free / res.value, 9) if res.value > 0 else None,
            "method": res.method, "exact": res.exact, "layout": [[inst.labels[x] for x in seq] for seq in b.layout], "modes": list(b.modes),
            "blended": b.blended,
            "rechecked": {"cost": round(rc, 9), "loss": round(rl, 9), "match": bool(ok and low <= res.value + 1e-9)}}
