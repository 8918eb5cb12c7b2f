"""Exact OPT_free at scale: a minimum Steiner arborescence over the intersection closure.

By the closure form of Theorem 1 (:mod:`mptsearch.exact.closure`, with its proof) OPT_free is
the least cost of an arborescence rooted at ∅ over the intersection closure that reaches every
request. Per component (:func:`~mptsearch.exact.closure.reduce_instance`) this driver

1. solves the cover program's LP (:mod:`mptsearch.exact.closure_program`); on closures of at
   least ``LARGE`` sets its value is kept as a lower bound, in case the search below leaves the
   branch and bound no time (smaller components behave as before the search existed);
2. on closures of at least ``LARGE`` sets, runs the Steiner-set local search
   (:mod:`mptsearch.exact.closure_search`) for an upper bound: a layout whose cost is
   recomputed on the trie, kept *outside* the solver;
3. solves a 0/1 program in HiGHS, one thread, no starting solution: the cover program or, on
   request (``pairs_cap``), on closures of at least ``LARGE`` sets and at most ``pairs_cap``
   containment pairs, the stronger program of :mod:`mptsearch.exact.pairs_program` (branch
   rows; presolve off, since HiGHS's probing took the whole time limit on it);
4. takes the lower bound from the program (HiGHS's dual bound, or the LP's value, rounded up: a
   solver's word) and the upper bound from the better of the program's incumbent, the local
   search and the agglomerative layout. A component is solved when the bound reaches the
   upper bound.

Out of time the result carries the bracket and its gap, never a guess. Only the LP-dual
certificate of :mod:`mptsearch.verify.lpdual` trusts no solver; its rows come from the cover
program's LP (``keep_duals``), never from the pairs program (whose extra rows hold only for some
optimal arborescence). Weights are positive integers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..instance import Instance
from .closure import closure_graph, reduce_instance, MAX_SETS
from .closure_program import (SolverInconsistent, arborescence_layout, component_model, highs_model,
                              solve_mip)

_solve_mip = solve_mip  # the driver calls it by this module's name (tests stop it here)
from .closure_search import WORK, closure_poset, default_steps, search_component, steiner_layout
from .pairs_program import pairs_model

PAIRS_CAP = 100_000  # containment pairs: the pairs program's LP took 2 s at 47k pairs, 376 s at 523k
LARGE = 500  # closure sets: smaller components get the cover program alone, as before this module had a search

__all__ = ["SolverInconsistent", "ClosureResult", "opt_free_closure", "component_model"]


@dataclass
class ClosureResult:
    """OPT_free by the closure arborescence, or bounds on it when the time ran out.

    ``value`` is OPT_free when ``optimal``, else None; ``lower`` <= OPT_free <= ``upper``
    always, ``upper`` is the trie cost of ``layout`` (recomputed on the trie), ``gap`` is
    (upper - lower) / upper. ``lp_bound`` is the LP relaxation's value (float);
    ``formulation`` says which program(s) ran, ``search_upper`` what the local search found
    (cost(U) summed over components, single-request ones included; None when it ran on
    none); ``sets``/``arcs`` are the cover model's sizes summed over components (single-request
    components
    need no model); ``duals`` holds, per component, what :mod:`mptsearch.verify.lpdual`
    needs to write a certificate: (request indices, graph, model, row duals, LP value)."""

    value: int | None
    lower: int
    upper: int
    optimal: bool
    layout: list
    lp_bound: float
    sets: int
    arcs: int
    components: int
    seconds: float
    status: str
    duals: list = field(default_factory=list, repr=False)
    groups: list = field(default_factory=list, repr=False)

    total: int = 0  # sum_i w(R_i)
    formulation: str = ""  # "cover", "pairs" or "cover+pairs" (per component), "none"
    search_upper: int | None = None  # the local search's cost(U), summed over components
    weaker_bound: str = ""  # which components got a weaker bound than the program's, and why ('' when none)
    #: the directed-cut solver's phases as they ended: (component position, phase, seconds of the
    #: solve's clock since its start, the component's lower bound, its best layout's cost or None)
    phases: list = field(default_factory=list, repr=False)

    @property
    def savings(self) -> int | None:
        """sum_i w(R_i) - OPT_free (None when not proved)."""
        return self.total - self.value if self.value is not None else None

    @property
    def gap(self) -> float:
        return (self.upper - self.lower) / self.upper if self.upper else 0.0

    @property
    def hierarchy(self):
        from .prefix_sets import _hierarchy

        return _hierarchy(self.layout)



def opt_free_closure(inst: Instance, *, time_limit: float | None = None, max_sets: int = MAX_SETS,
                     threads: int = 1, keep_duals: bool = False, search: bool = True,
                     pairs_cap: int = 0, large: int = LARGE, seed: int = 0) -> ClosureResult:
    """Exact OPT_free (any positive integer weights, any n) by the closure arborescence program.

    Parameters
    ----------
    inst : Instance
    time_limit : float, optional
        Wall seconds for the whole solve; when it runs out the result has ``optimal`` False
        and the bounds proved so far. The local search is not interrupted: its steps are fixed
        in advance (two runs of :func:`~mptsearch.exact.closure_search.default_steps`, its work
        scaled down to about 1 CPU s per 10 s of limit), so the result depends on the limit
        but not on the machine's speed.
    max_sets : int
        Cap on the closure's size per component (:class:`~mptsearch.exact.closure.ClosureTooLarge`).
    keep_duals : bool
        Also keep each component's cover-program LP row duals (for a certificate).
    search : bool
        Run the Steiner-set local search for the upper bound (module docstring) on components
        whose closure has at least ``large`` sets.
    pairs_cap : int
        Solve the pairs program of :mod:`mptsearch.exact.pairs_program` on components whose
        closure has at least ``large`` sets and at most ``pairs_cap`` containment pairs, the
        cover program on the others. Default 0 (never): its LP is higher, but HiGHS's branch
        and bound did not close more of the gap on it (docs/exact.md); ``PAIRS_CAP`` is the
        cap used where it is tried.
    large : int
        Components with a smaller closure get the cover program alone (no search, no pairs
        program): it solves them fast, and the many small calls of ``anneal`` and ``verify``
        stay as fast as before.
    seed : int
        Seed of the local search.

    Returns
    -------
    ClosureResult

    Notes
    -----
    NP-hard in general (it solves MPT); the closure costs O(|C| m) word operations, the
    containment lists O(|C|^2), the cover program has one variable per cover arc, the pairs
    program one per containment pair. Theorem 1 of the paper, Section 3, in the closure form
    proved in :mod:`mptsearch.exact.closure`.

    Examples
    --------
    >>> from mptsearch.families import k4_3
    >>> r = opt_free_closure(k4_3())
    >>> r.value, r.optimal
    (8, True)
    """
    from ..heuristics.agglomerative import agglomerative
    from ..trie import trie_cost

    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + float(time_limit)
    red = reduce_instance(inst)
    layout: list = [None] * inst.m
    lower = upper = searched = 0
    ran_search = False
    lp_total = 0.0
    optimal, status, nsets, narcs, duals, forms = True, "optimal", 0, 0, [], set()
    for idx, masks in red.components:
        if len(idx) == 1:
            layout[idx[0]] = [x for c in range(masks[0].bit_length()) if masks[0] >> c & 1
                              for x in red.groups[c]]
            w = sum(red.weights[c] for c in range(masks[0].bit_length()) if masks[0] >> c & 1)
            lower += w
            if upper is not None:  # None: an earlier component has no incumbent
                upper += w
            searched += w
            lp_total += w
            continue
        g = closure_graph(masks, red.weights, max_sets=max_sets)
        model = component_model(g)
        nsets += len(g.sets)
        narcs += len(g.tails)
        left = None if deadline is None else deadline - time.perf_counter()
        lp = highs_model(model, integer=False, time_limit=left)
        lp.run()
        lp_value = lp.getInfo().objective_function_value
        lp_solved = lp.modelStatusToString(lp.getModelStatus()) == "Optimal"
        lp_total += lp_value
        if keep_duals:
            duals.append((idx, g, model, np.array(lp.getSolution().row_dual), lp_value))
        big = len(g.sets) >= large
        poset = closure_poset(g, red.weights) if big and (search or pairs_cap > 0) else None
        best, lay = None, None
        if search and big:
            steps = None if time_limit is None else default_steps(poset, min(WORK, 3e7 * float(time_limit)))
            best, used = search_component(g, poset, red.weights, seed=seed, steps=steps)
            lay = steiner_layout(used, list(masks), red.weights, red.groups)
            searched += best
            ran_search = True
        if poset is not None and len(poset.sub_idx) <= pairs_cap:
            forms.add("pairs")
            program = pairs_model(g, poset)
            st, bound, x = _solve_mip(program, deadline, presolves=("off",))
        else:
            forms.add("cover")
            program = model
            st, bound, x = _solve_mip(program, deadline)
        if x is not None:
            cost_x = int(program.graph.costs[x].sum())
            if st == "Optimal" and best is not None and best < cost_x:
                raise SolverInconsistent(f"closure solver: HiGHS reported optimum {cost_x}, but the local "
                                         f"search found an arborescence of cost {best}")
            if best is None or cost_x <= best:
                best, lay = cost_x, arborescence_layout(program.graph, x, red.groups)
        if lp_solved and big:  # where the search ran first, the cover LP bounds below too
            bound = max(bound, int(np.ceil(lp_value - 1e-6)))
        if best is not None and bound > best:
            raise SolverInconsistent(f"closure solver: HiGHS's bound {bound} is above an arborescence of cost {best}")
        lower += max(bound, 0)
        if best is None:
            upper = None
            optimal = False
            status = st if st != "Optimal" else "no incumbent"
        else:
            if upper is not None:
                upper += best
            for i, s in zip(idx, lay):
                layout[i] = s
            if st != "Optimal" and bound < best:
                optimal = False
                status = st
    fallback = agglomerative(inst)
    if upper is None or any(s is None for s in layout):
        layout = [list(s) for s in fallback.layout]
    cost = trie_cost(inst, layout)
    if fallback.cost < cost:
        layout, cost = [list(s) for s in fallback.layout], fallback.cost
    if optimal and cost != lower:
        raise SolverInconsistent(f"closure solver: layout costs {cost} but the solver's bound is {lower}")
    return ClosureResult(value=cost if optimal else None, lower=min(lower, cost), upper=cost, optimal=optimal,
                         layout=layout, lp_bound=lp_total, sets=nsets, arcs=narcs,
                         components=len(red.components), seconds=time.perf_counter() - t0,
                         status=status, duals=duals, groups=red.groups, total=inst.total_weight(),
                         formulation="+".join(sorted(forms)) or "none", search_upper=searched if ran_search else None)
