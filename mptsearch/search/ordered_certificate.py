"""Certificates of the two ordered objectives of the annealer, recomputed with the public
functions: a heuristic's cost / OPT_free (``cost-ratio``) and the online layouter's cost /
OPT_free over an arrival order (``online``).

The find stays in the kernel's request order (the arrival order; the order also decides
agglomerative's "first" ties) and chunk labels. The numerator is the trie cost
(:func:`~mptsearch.trie.trie_cost`, the ground truth) of the layout the public algorithm
returns: the registered heuristic (:mod:`mptsearch.heuristics.registry`) or
:func:`~mptsearch.serving.online.online_layout`, i.e. :class:`~mptsearch.serving.online.OnlineLayouter`
with window W, checked once more with the layouter's default memory (``history`` = 64 W).
The denominator OPT_free goes through the two-method verification of
:func:`mptsearch.verify.twomethod.verification`; ``"certified": true`` means OPT_free is
proved by two independent methods and every recomputed value equals the kernel's.
"""

from __future__ import annotations

from fractions import Fraction

from ..instance import compact

__all__ = ["certify_cost_ratio", "certify_online"]


def _common(inst, num: int, den: int, what: str, cost: int, layout, deadline: float | None) -> dict:
    """The shared part: OPT_free recomputed and verified, the numerator's layout rechecked
    (within ``deadline``, a ``time.time()`` value, when given)."""
    from ..canonical import canonical_form
    from ..exact.auto import opt_free_auto as opt_free  # prefix sets, the DP, or the closure program
    from ..trie import trie_cost
    from ..verify.twomethod import CertificateError, time_left, verification

    free = opt_free(inst, time_limit=time_left(deadline))
    if trie_cost(inst, free.layout) != free.value:
        raise CertificateError("the optimal free layout does not cost OPT_free on the trie")
    if trie_cost(inst, layout) != cost:
        raise CertificateError(f"the {what} layout costs {trie_cost(inst, layout)} on the trie, not {cost}")
    if (cost, free.value) != (num, den):
        raise CertificateError(f"kernel {what} ratio {num}/{den} but public functions give {cost}/{free.value}")
    frac = Fraction(cost, free.value)
    out = {"instance": compact(inst), "canonical": compact(canonical_form(inst)), "n": inst.n, "m": inst.m,
           "requests": inst.label_orders(inst.orders),
           "weights": {str(lab): int(w) for lab, w in zip(inst.labels, inst.weights)},
           "opt_free": free.value, "free_layout": inst.label_orders(free.layout),
           "free_hierarchy": free.hierarchy.nested(), "value": cost / free.value,
           "fraction": f"{frac.numerator}/{frac.denominator}"}
    out["verification"] = v = verification(inst, {"free": free.value}, deadline=deadline)
    if v["verdict"] == "failed":
        raise CertificateError("independent methods contradict the DP: " + "; ".join(v["problems"]))
    out["certified"] = v["certified"]
    return out


def certify_cost_ratio(inst, heuristic: str, num: int, den: int, *, deadline: float | None = None) -> dict:
    """Certificate of a cost-ratio find: ``heuristic``'s layout by its public function, its trie
    cost (``heuristic_cost``, must equal ``num``), OPT_free (must equal ``den``), verified
    (within ``deadline``, a ``time.time()`` value, when given).

    Raises :class:`~mptsearch.search.certificate.CertificateError` on any disagreement.
    O(3^m) plus the verification methods.
    """
    from ..heuristics.registry import heuristic as lookup, layout_and_cost

    layout, cost = layout_and_cost(inst, lookup(heuristic).function(inst))
    out = {"objective": "cost-ratio", "heuristic": heuristic}
    out.update(_common(inst, num, den, heuristic, cost, layout, deadline))
    out.update(heuristic_cost=cost, heuristic_layout=inst.label_orders(layout))
    return out


def certify_online(inst, window: int, num: int, den: int, *, deadline: float | None = None) -> dict:
    """Certificate of an online find: the layout :class:`OnlineLayouter` with window ``window``
    commits for the requests in arrival order (``inst``'s order), its trie cost
    (``online_cost``, must equal ``num``), OPT_free (must equal ``den``), verified (within
    ``deadline``, a ``time.time()`` value, when given).

    Raises :class:`~mptsearch.search.certificate.CertificateError` on any disagreement.
    """
    from ..serving.online import online_layout
    from ..trie import trie_cost
    from ..verify.twomethod import CertificateError

    layout = online_layout(inst.orders, inst.weights, window)
    default = online_layout(inst.orders, inst.weights, window, history=64 * window)
    if default != layout:
        raise CertificateError("the online layouter's default memory changes its layout on this instance")
    cost = trie_cost(inst, layout)
    out = {"objective": "online", "window": int(window)}
    out.update(_common(inst, num, den, "online", cost, layout, deadline))
    out.update(online_cost=cost, online_layout=inst.label_orders(layout))
    return out
