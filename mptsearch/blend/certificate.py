"""The certificate of an ``anneal --objective blend`` find: OPT_free / w(U), rechecked.

By Proposition P2 of docs/beyond_prefix.md, in the constant blend model
OPT_free / OPT_blend = 1 / (c + (1 - c) w(U) / OPT_free) with c = min(1, r + lambda): a
family with a larger OPT_free / w(U) gains more from blending for every r and lambda. The
certificate recomputes OPT_free with the public solver, checks the optimal layout on the trie,
has OPT_free proved by two independent methods (:func:`mptsearch.verify.twomethod.verification`), and
prices the optimal layout in the blend model at c = 0.05, 0.15, 0.3 (lambda = 0), checking
each against P2's closed form. Given a blend model (``params``: ``anneal --objective blend``
with --r/--calibration and the other model options) it also prices the find in that model
(:func:`model_gain`).
"""

from __future__ import annotations

from fractions import Fraction

from ..instance import compact

__all__ = ["certify_blend", "model_gain", "REPORT_C", "MODEL_LAYOUTS"]

REPORT_C = (0.05, 0.15, 0.3)
MODEL_LAYOUTS = 20_000  # the exhaustive OPT_blend of a find is tried up to this many layouts (seconds)


def _constant_losses(params) -> bool:
    """Whether every blend's loss per token is independent of the mismatch (P2 holds, P13(a))."""
    if params.calibration is None:
        return params.beta == 0
    return all(len({g for _, g in pts}) == 1 for _, pts in params.calibration.curves)


def model_gain(canon, free, w_u: int, params, *, max_layouts: int = MODEL_LAYOUTS) -> dict:
    """OPT_free / OPT_blend of ``canon`` in the blend model ``params``, and P5's bound on it.

    ``free`` is the OPT_free result (value and layout). Without isolated copies P5 (P13(a))
    gives OPT_blend >= (1 - c) w(U) + c OPT_free, so the gain is at most
    1 / (c + (1 - c) w(U) / OPT_free), increasing in the annealer's OPT_free / w(U); with
    constant losses, once per blend, it is attained (P2): the optimal free layout is priced and
    must equal the closed form. Otherwise OPT_blend comes from every layout
    (:func:`.exact.opt_blend`) when there are at most ``max_layouts``, else it is not computed.
    Isolated copies: the bound is c OPT_free (P13(c)).

    Raises
    ------
    CertificateError
        When the priced optimal free layout differs from P2's closed form where P2 holds.
    """
    from ..verify.twomethod import CertificateError
    from .exact import layouts_count, opt_blend
    from .model import price_layout
    from .spec import describe

    c = params.c
    low = c * free.value if params.isolated else (1 - c) * w_u + c * free.value
    out = {"parameters": {**describe(params), "c": c}, "lower_bound": round(low, 9),
           "gain_at_most": round(free.value / low, 9) if low > 0 else None}
    if _constant_losses(params) and not params.isolated and not params.per_answer:
        priced = price_layout(canon, free.layout, params).objective
        if abs(priced - low) > 1e-9 * max(1.0, low):
            raise CertificateError(f"blend pricing {priced} differs from P2's closed form {low} (c = {c})")
        value, method = low, "P2 closed form, the optimal free layout priced"
    elif layouts_count(canon) <= max_layouts:
        res = opt_blend(canon, params, max_layouts=max_layouts)
        value, method = (res.value, res.method) if res.exact else (None, res.method + "; not exact")
    else:
        value, method = None, f"not computed: {layouts_count(canon)} layouts, more than {max_layouts}"
    out.update(opt_blend=None if value is None else round(value, 9), method=method,
               gain=round(free.value / value, 9) if value else None)
    return out


def certify_blend(inst, num: int, den: int, *, deadline: float | None = None, params=None) -> dict:
    """Recompute the kernel's OPT_free / w(U) = num/den of ``inst`` and certify it (within
    ``deadline``, a ``time.time()`` value, when given).

    Raises
    ------
    CertificateError
        When the public solver, the trie or the blend pricing disagrees with the kernel or P2.

    Notes
    -----
    O(3^m) (the exact DP) plus the verification's methods.
    """
    from ..canonical import canonical_form
    from ..exact.auto import opt_free_auto as opt_free
    from ..verify.twomethod import CertificateError, time_left, verification
    from ..trie import trie_cost
    from .model import BlendParams, price_layout

    canon = canonical_form(inst)
    free = opt_free(canon, time_limit=time_left(deadline))
    wU = int(sum(int(canon.weights[x]) for x in set().union(*canon.requests)))
    if trie_cost(canon, free.layout) != free.value:
        raise CertificateError("the optimal free layout does not cost OPT_free on the trie")
    if free.value * den != wU * num:
        raise CertificateError(f"kernel OPT_free / w(U) {num}/{den} but public solvers give {free.value}/{wU}")
    ratios = {}
    for c in REPORT_C:
        priced = price_layout(canon, free.layout, BlendParams(c, 0.0)).objective
        closed = (1 - c) * wU + c * free.value
        if abs(priced - closed) > 1e-9 * max(1.0, closed):
            raise CertificateError(f"blend pricing {priced} differs from P2's closed form {closed} at c = {c}")
        ratios[str(c)] = round(free.value / closed, 6)
    out = {"objective": "blend", "canonical": compact(canon), "instance": compact(canon), "n": canon.n,
           "m": canon.m, "weights": [int(v) for v in canon.weights], "value": free.value / wU,
           "fraction": str(Fraction(free.value, wU)), "opt_free": free.value, "w_U": wU,
           "free_layout": canon.label_orders(free.layout), "blend_ratio_at_c": ratios}
    if params is not None:
        out["model"] = model_gain(canon, free, wU, params)
    out["verification"] = v = verification(canon, {"free": free.value}, deadline=deadline)
    if v["verdict"] == "failed":
        raise CertificateError("independent methods contradict the DP: " + "; ".join(v["problems"]))
    out["certified"] = v["certified"]
    return out
