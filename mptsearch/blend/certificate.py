"""The certificate of an ``anneal --objective blend`` find: OPT_free / w(U), rechecked.

By Proposition P2 of docs/beyond_prefix.md, in the constant blend model
OPT_free / OPT_blend = 1 / (c + (1 - c) w(U) / OPT_free) with c = min(1, r + lambda): a
family with a larger OPT_free / w(U) gains more from blending for every r and lambda. The
certificate recomputes OPT_free with the public solver, checks the optimal layout on the trie,
has OPT_free proved by two independent methods (:func:`mptsearch.verify.twomethod.verification`), and
prices the optimal layout in the blend model at c = 0.05, 0.15, 0.3 (lambda = 0), checking
each against P2's closed form.
"""

from __future__ import annotations

from fractions import Fraction

from ..instance import compact

__all__ = ["certify_blend", "REPORT_C"]

REPORT_C = (0.05, 0.15, 0.3)


def certify_blend(inst, num: int, den: int, *, deadline: float | None = None) -> dict:
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
    out["verification"] = v = verification(canon, {"free": free.value}, deadline=deadline)
    if v["verdict"] == "failed":
        raise CertificateError("independent methods contradict the DP: " + "; ".join(v["problems"]))
    out["certified"] = v["certified"]
    return out
