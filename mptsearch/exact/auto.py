"""Exact OPT_free by whichever exact method is fastest for the instance's size and shape.

Three exact methods, none of which wins everywhere (docs/exact.md has the measured crossover):

- the prefix-set search (:mod:`mptsearch.exact.prefix_sets`): unit weights on <= 7 chunks,
  or on 8-10 chunks with requests of <= 5 chunks from m = 17, past its crossover with the DP
  (:func:`~mptsearch.exact.prefix_sets.prefix_sets_apply`); on dense families on 8-9 chunks it
  is far ahead of the closure program, whose LP is 10-15% weak there, and of the directed-cut
  branch-and-cut (4-uniform on 9 chunks: m = 63 and all 126 4-sets exact in 2-16 CPU s, where
  the directed cuts left gaps of 3-9% at 60 CPU s; docs/exact.md), so it is taken before the
  ``DCUT_M`` rule below;
- the subset DP of Theorem 1 (:mod:`mptsearch.exact.free`): O(3^m), milliseconds up to
  m = 18 on any instance, about 0.3 s at m = 20 and x9 every two requests more;
- the closure arborescence (:mod:`mptsearch.exact.arborescence`): no 3^m, but its time depends
  on the closure and on the LP gap: fast on sparse and structured families (S(c,k), RAG-shaped),
  slow on dense random ones (4-uniform families on 8 chunks, seconds at m = 14).

- the directed-cut branch-and-cut (:mod:`mptsearch.exact.dcut_bnc`): the same closure with a
  stronger LP (directed cuts separated by max-flow) and SCIP's tree; it carries a fixed
  overhead of a fraction of a second per call (SCIP's model), so it wins from about m = 100
  (docs/exact.md: unit Zipf m = 100 solved in 3-5 s wall against 7-10 s, S(6,7) in 4 s against
  7 s, exploratory; on smaller families the cover program is faster).

The rule: the prefix-set search where it applies; the DP up to m = 18; from m = 19 to the
DP's limit, the closure program first with a budget equal to the DP's estimated time, then the
DP if the program has not finished (at most twice the DP's time, often far less); past the
DP's limit, the closure program alone below ``DCUT_M`` requests and the directed-cut
branch-and-cut from there, within ``time_limit`` (then bounds, not a value). The
prefix-set search honours ``time_limit`` too (on 8-10 chunks a dense family can take minutes).
"""

from __future__ import annotations

from .. import instance as _instance
from ..instance import Instance

__all__ = ["opt_free_exact", "opt_free_auto", "OptFreeUndecided", "METHOD_NAMES", "DP_ALONE_M", "DCUT_M"]

METHOD_NAMES = {"dp": "subset DP", "prefix_sets": "prefix-set search", "closure": "closure arborescence",
                "dcut": "directed-cut branch-and-cut"}
DP_ALONE_M = 18
DCUT_M = 100  # past the DP's limit, from this many requests on: the directed-cut branch-and-cut
_DP_SECONDS_PER_3M = 1.5e-10  # measured: m = 20 in about 0.33 s on one core (docs/exact.md)


class OptFreeUndecided(_instance.InstanceError):
    """OPT_free was not decided within the time limit (the message says how far it got)."""


def dp_seconds(m: int) -> float:
    """A rough estimate of the subset DP's time on m requests (the budget split above)."""
    return _DP_SECONDS_PER_3M * 3.0 ** m


def opt_free_exact(inst: Instance, *, max_dp_m: int = 25, time_limit: float | None = None):
    """OPT_free by the fastest applicable exact method (module docstring).

    Returns
    -------
    (result, method)
        ``method`` is a key of :data:`METHOD_NAMES`; ``result`` has ``value``, ``layout`` and
        ``hierarchy``. Only a closure or directed-cut result can be unfinished: then ``result.optimal`` is
        False, ``value`` None, and ``lower``/``upper`` bracket OPT_free.

    Raises
    ------
    PrefixSetsUnfinished
        The prefix-set search did not finish within ``time_limit`` (an InstanceError).
    """
    from .free import opt_free
    from .prefix_sets import opt_free_prefix_sets, prefix_sets_apply

    if prefix_sets_apply(inst):
        return opt_free_prefix_sets(inst, time_limit=time_limit), "prefix_sets"
    if inst.m <= min(DP_ALONE_M, max_dp_m):
        return opt_free(inst), "dp"
    from .arborescence import SolverInconsistent, opt_free_closure
    if inst.m <= max_dp_m:
        budget = dp_seconds(inst.m)
        if time_limit is not None:
            budget = min(budget, time_limit)
        try:
            r = opt_free_closure(inst, time_limit=budget)
            if r.optimal:
                return r, "closure"
        except (_instance.InstanceError, SolverInconsistent):  # past its cap, or HiGHS contradicted itself
            pass
        return opt_free(inst), "dp"
    if inst.m >= DCUT_M:
        from .dcut_bnc import opt_free_dcut

        return opt_free_dcut(inst, time_limit=time_limit), "dcut"
    try:
        return opt_free_closure(inst, time_limit=time_limit), "closure"
    except SolverInconsistent as exc:
        raise _instance.InstanceError(f"OPT_free undecided: {exc}") from None


def opt_free_auto(inst: Instance, *, time_limit: float | None = None):
    """Exact OPT_free by :func:`opt_free_exact`, for callers that need a value: the result
    (``value``, ``savings``, ``layout``, ``hierarchy``), or :class:`OptFreeUndecided` (an
    :class:`~mptsearch.instance.InstanceError`) when the time ran out: with the bracket when
    the closure program stopped, the search's message when the prefix-set search did."""
    from .prefix_sets import PrefixSetsUnfinished

    try:
        r, method = opt_free_exact(inst, max_dp_m=DP_ALONE_M, time_limit=time_limit)
    except PrefixSetsUnfinished as exc:
        raise OptFreeUndecided(f"OPT_free undecided: {exc}") from None
    if not getattr(r, "optimal", True):
        raise OptFreeUndecided(f"OPT_free undecided in {time_limit:g} s: {r.lower} <= OPT_free <= {r.upper}")
    return r
