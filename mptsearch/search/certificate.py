"""Certificates for annealing finds, recomputed with the public solvers, and their JSON record.

The annealer's values come from value-only kernels; a find is only reported after the public
:func:`~mptsearch.exact.free.opt_free`, :func:`~mptsearch.exact.glob.opt_glob` (or
:func:`~mptsearch.heuristics.agglomerative.agglomerative`) have recomputed it and the
certificate has been checked against the ground truth :func:`~mptsearch.trie.trie_cost` /
:func:`~mptsearch.trie.order_cost`. Ratio finds are stored in canonical form
(:func:`mptsearch.canonical.canonical_form`), so equal finds from different runs
compare equal; shortfall finds keep the request order they were evaluated in, because the
deterministic "first" tie-breaking of agglomerative clustering depends on it.

Rechecking a layout's cost proves only the upper side. The optimal side goes through the same
two-method verification as ``mptsearch verify`` (:func:`verification`): each quantity the
objective rests on (OPT_free and OPT_glob for a ratio, OPT_free for a shortfall) is computed
by methods that share no code (the exact DPs, SAT with a checked UNSAT proof, the trie search
where it reaches), and the record says ``"certified": true`` only when every one of them is
proved by at least two.

A certificate can be given a time limit for the whole of it (``time_limit``; the CLI's
``--certify-limit``): the exact recomputation gets the time left, each verification method an
even share of what is left after it, and a method is skipped once the limit has passed. A
certificate that reaches its limit says so (``"limit_reached": true``) and is not certified;
when even OPT_free could not be recomputed in time the record keeps the annealer's value only
(``"unfinished"`` says why).
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

from ..instance import compact
from ..provenance import environment
from ..verify.twomethod import VERIFY_METHODS, CertificateError, time_left, verification

__all__ = ["CertificateError", "certify", "run_record", "verification", "VERIFY_METHODS", "time_left"]


def certify(inst, objective: str, num: int, den: int, *, heuristic: str = "greedy", window: int = 1,
            methods: dict | None = None, limits: dict | None = None, time_limit: float | None = None,
            blend=None) -> dict:
    """Recompute a find with the public solvers, check its certificate, return it as a dict.

    Parameters
    ----------
    inst : Instance
        The find, in the kernel's request order.
    objective : {"ratio", "shortfall", "cost-ratio", "online", "blend"}
        cost-ratio and online go to :mod:`.ordered_certificate`, blend to
        :mod:`mptsearch.blend.certificate`.
    num, den : int
        The kernel's objective as a fraction (OPT_glob/OPT_free, optimal/agglomerative
        savings, heuristic cost/OPT_free or online cost/OPT_free).
    heuristic, window : str, int
        The cost-ratio heuristic and the online window.
    blend : BlendParams, optional
        blend: also price the find in this blend model (:func:`mptsearch.blend.certificate.model_gain`).
    methods, limits : dict, optional
        ratio and shortfall: the verification's methods per quantity and size-limit
        overrides (:func:`~mptsearch.verify.twomethod.verification`); default its own.
    time_limit : float, optional
        Wall seconds for the whole certificate (module docstring); None: every method runs
        to its own limits.

    Returns
    -------
    dict
        The certificate, with ``certify_seconds``, ``time_limit`` and ``limit_reached``;
        ``certified`` is True only when every value is proved by two independent methods.

    Raises
    ------
    CertificateError
        When a recomputed value differs from the kernel's, or a layout/order does not cost
        what it should on the prefix trie.
    """
    from ..exact.auto import OptFreeUndecided

    start = time.time()
    deadline = None if time_limit is None else start + float(time_limit)
    try:
        out = _certify(inst, objective, num, den, heuristic, window, methods, limits, deadline, blend)
        reached = deadline is not None and not out["certified"] and \
            time.time() >= deadline - max(0.05, 0.01 * float(time_limit))
    except OptFreeUndecided as exc:
        out = _unfinished(inst, objective, num, den, f"{exc} (certificate time limit {time_limit:g} s)")
        reached = True
    out.update(certify_seconds=round(time.time() - start, 3), time_limit=time_limit, limit_reached=reached)
    return out


def _unfinished(inst, objective: str, num: int, den: int, why: str) -> dict:
    """The record of a find whose OPT_free could not be recomputed in time: the annealer's
    value, not certified."""
    from ..canonical import canonical_form

    inst_text = compact(inst)
    return {"objective": objective, "instance": inst_text, "canonical": compact(canonical_form(inst)),
            "n": inst.n, "m": inst.m, "value": num / den if den else math.inf, "fraction": f"{num}/{den}",
            "certified": False, "unfinished": why, "verification": None,
            "note": f"the annealer's value, not recomputed; mptsearch verify \"{inst_text}\" proves its optima"}


def _certify(inst, objective, num, den, heuristic, window, methods, limits, deadline, blend=None) -> dict:
    from ..canonical import canonical_form
    from ..exact.auto import opt_free_auto as opt_free  # prefix sets, the DP, or the closure program
    from ..exact.glob import opt_glob
    from ..trie import order_cost, trie_cost

    if objective == "blend":
        from ..blend.certificate import certify_blend

        return certify_blend(inst, num, den, deadline=deadline, params=blend)
    if objective in ("cost-ratio", "online"):
        from .ordered_certificate import certify_cost_ratio, certify_online

        if objective == "cost-ratio":
            return certify_cost_ratio(inst, heuristic, num, den, deadline=deadline)
        return certify_online(inst, window, num, den, deadline=deadline)
    canon = canonical_form(inst)
    out = {"objective": objective, "canonical": compact(canon), "n": canon.n, "m": canon.m,
           "weights": [int(v) for v in canon.weights]}
    if objective == "ratio":
        free, glob = opt_free(canon, time_limit=time_left(deadline)), opt_glob(canon)
        if trie_cost(canon, free.layout) != free.value:
            raise CertificateError("the optimal free layout does not cost OPT_free on the trie")
        if order_cost(canon, glob.order) != glob.value:
            raise CertificateError("the optimal global order does not cost OPT_glob on the trie")
        if glob.value * den != free.value * num:
            raise CertificateError(f"kernel ratio {num}/{den} but public solvers give {glob.value}/{free.value}")
        out.update(instance=compact(canon), value=glob.value / free.value,
                   fraction=str(Fraction(glob.value, free.value)), opt_free=free.value,
                   opt_glob=glob.value, free_layout=canon.label_orders(free.layout),
                   free_hierarchy=free.hierarchy.nested(), glob_order=[canon.labels[x] for x in glob.order])
        out["verification"] = v = verification(canon, {"free": free.value, "glob": glob.value},
                                                   methods=methods, limits=limits, deadline=deadline)
        if v["verdict"] == "failed":
            raise CertificateError("independent methods contradict the DPs: " + "; ".join(v["problems"]))
        out["certified"] = v["certified"]
        return out
    from ..heuristics.agglomerative import agglomerative

    free = opt_free(inst, time_limit=time_left(deadline))
    agg = agglomerative(inst, tie_break="first")
    if trie_cost(inst, free.layout) != free.value:
        raise CertificateError("the optimal free layout does not cost OPT_free on the trie")
    if free.savings * den != agg.savings * num:
        raise CertificateError(f"kernel shortfall {num}/{den} but public solvers give {free.savings}/{agg.savings}")
    value = free.savings / agg.savings if agg.savings else (1.0 if free.savings == 0 else float("inf"))
    canon_agg = agglomerative(canon, tie_break="first").savings
    out.update(instance=compact(inst), instance_weights={str(lab): int(w) for lab, w in zip(inst.labels, inst.weights)},
               value=value, fraction=f"{free.savings}/{agg.savings}", optimal_savings=free.savings,
               agglomerative_savings=agg.savings, opt_free=free.value, agglomerative_cost=agg.cost,
               free_layout=inst.label_orders(free.layout), free_hierarchy=free.hierarchy.nested(),
               agglomerative_hierarchy=agg.hierarchy.nested(),
               canonical_agglomerative_savings=canon_agg)
    out["verification"] = v = verification(inst, {"free": free.value}, methods=methods, limits=limits,
                                           deadline=deadline)
    if v["verdict"] == "failed":
        raise CertificateError("independent methods contradict the DP: " + "; ".join(v["problems"]))
    out["certified"] = v["certified"]
    return out


def run_record(run, certificate: dict, settings: dict) -> dict:
    """The JSON record of an annealing run: environment and settings first, then the find."""
    rec = {"environment": environment(), "settings": settings, "seed": run.seed,
           "evaluations": run.evaluations, "steps": run.steps, "seconds": round(run.seconds, 3),
           "evaluations_per_second": round(run.evaluations / max(run.seconds, 1e-9)),
           "restarts_started": run.restarts_started, "restarts_finished": run.restarts_finished,
           "best_restart": run.restart, "stopped": run.stopped,
           "half_bound_violations": run.violations,
           "violation_instances": [compact(v) for v in run.violation_instances],
           "history": [[round(t, 3), v] for t, v in run.history], "best": certificate}
    return rec
