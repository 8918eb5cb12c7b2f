"""The two-method verification every annealing certificate goes through, and its error.

:func:`verification` runs the independent methods of ``mptsearch verify`` on a find's claimed
optima; :mod:`mptsearch.search.certificate` (ratio, shortfall) and
:mod:`mptsearch.search.ordered_certificate` (cost-ratio, online) both use it.
"""

from __future__ import annotations

import time

__all__ = ["VERIFY_METHODS", "verification", "time_left", "CertificateError"]

# The independent methods run on a find, each only where it applies at the find's size (its
# default limit in mptsearch.verify.verify.DEFAULT_LIMITS): a method forced past it runs for
# minutes (trie-search on 50 requests of 7 chunks did not finish in 120 s), while the closure
# MIP proves OPT_free of such a find in under a second. The SAT methods stop at 30 s of solving
# or a proof too long to check here; the others then carry the verdict. Past the DP's reach
# (m >= 19) dcut-dual, a family of its own (the directed-cut LP's dual rechecked in fractions),
# is the second method beside closure-mip: with it a find of m >= 100 can be certified.
VERIFY_METHODS = {"free": ("dp-free", "trie-search", "sat-free", "prefix-sets", "cpsat-orders", "closure-mip",
                           "dcut-dual"),
                  "glob": ("dp-glob", "cpsat-glob", "sat-glob")}


def verification(inst, claims: dict, *, time_limit: float = 30.0, methods: dict | None = None,
                 limits: dict | None = None, deadline: float | None = None) -> dict:
    """Two-method verification of the claimed values (``{"free": V, "glob": W}``) by the
    methods of :data:`VERIFY_METHODS` that apply at the instance's size.

    ``methods`` replaces :data:`VERIFY_METHODS` per quantity (``{"glob": ("dp-glob",
    "brute-orders")}``) and ``limits`` overrides the size limits of
    :data:`mptsearch.verify.verify.DEFAULT_LIMITS` per method (``{"brute-orders": {"max_n": 9}}``:
    every global order of 9 chunks, where the CP-SAT and SAT methods stop short on dense
    families); the two-method rule is the same. ``deadline`` (a ``time.time()`` value)
    bounds the whole verification: each method gets at most an even share of the time left
    (:func:`mptsearch.verify.verify.verify`), and the methods past it are skipped.

    Returns ``{"certified": bool, "verdict": ..., "quantities": {q: {"value", "proved",
    "methods": {name: value or why it did not run}, "families"}}}``; ``certified`` is True only
    when every claimed quantity is proved by two independent methods and equals the claim.
    """
    from .verify import METHODS, merged_limits, verify

    chosen = {**VERIFY_METHODS, **(methods or {})}
    lim = merged_limits(limits)
    # the default methods run only where they apply at this size (forcing trie-search past its
    # limit did not finish in 10 minutes); methods the caller names run and say why they stop
    names = [m for q in claims for m in chosen[q] if q in (methods or {}) or not METHODS[m][2](inst, lim[m])]
    rep = verify(inst, claims, methods=names, limits=limits, time_limit=time_limit, keep_witnesses=False,
                 deadline=deadline)
    out = {}
    for q in claims:
        qt = rep.quantities[q]
        rows = {r.method: (r.value if r.status == "optimal" else f"{r.status}: {r.note}".strip(": "))
                for r in rep.rows if r.quantity == q}
        out[q] = {"value": qt.value, "proved": qt.proved, "methods": rows, "families": qt.families,
                  "seconds": round(sum(r.seconds for r in rep.rows if r.quantity == q), 3)}
    return {"certified": rep.verdict == "proved", "verdict": rep.verdict, "problems": rep.problems,
            "quantities": out}


def time_left(deadline: float | None) -> float | None:
    """Seconds to ``deadline`` (a ``time.time()`` value; None: no limit), at least a millisecond."""
    return None if deadline is None else max(1e-3, deadline - time.time())


class CertificateError(RuntimeError):
    """The public solvers disagree with the kernel's value or a certificate fails its check."""


