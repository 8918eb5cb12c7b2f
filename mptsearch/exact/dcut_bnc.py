"""Exact OPT_free by branch-and-cut over the directed-cut program (SCIP), with a bracket out of time.

The program is that of :mod:`mptsearch.exact.dcut` (its docstring proves the rows valid for
every arborescence and every 0/1 point of them an arborescence): a binary x_a per cover arc,
the cover rows in their single-arc form as constraints, and the directed cuts separated by
max-flow in *every* node of the tree, not only at the root. Per component:

1. **Root cut loop** in HiGHS (:func:`mptsearch.exact.dcut.cut_lp`): the bound LB_LP, the LP
   point x*, its reduced costs d and the row duals for the certificate of
   :mod:`mptsearch.verify.lpdual`.
2. **Upper bounds, LP-guided** (all laid out and costed on the trie, outside any solver): the
   Steiner-set local search of :mod:`mptsearch.exact.closure_search` started from the requests
   and the nodes with in-flow in(v) >= 1/2 in x*, and the 0/1 program restricted to the support
   of x* (the same branch-and-cut with every arc with x*_a = 0 held at 0, a short time limit).
3. **Reduced-cost fixing (proved).** Write the root LP as min c.x over rows A x >= b (the
   <= rows negated), 0 <= x <= 1, with an optimal dual y >= 0, reduced costs d = c - A^T y and
   value LB_LP = y.b + sum_{d_a < 0} d_a (the bound terms). Every row is valid for every
   arborescence x (:mod:`mptsearch.exact.dcut`), so A x >= b and
   c.x = y.(A x) + d.x >= y.b + d.x = LB_LP + sum_{d_a > 0} d_a x_a + sum_{d_a < 0} |d_a| (1 - x_a).
   So an arborescence using an arc with d_a > 0 costs at least LB_LP + d_a, and one avoiding
   an arc with d_a < 0 at least LB_LP - d_a. (The cuts dropped to the pool had dual 0: y and d
   are those of the last solve.) With an upper bound
   UB (an integer cost, integer arc costs), an arc with LB_LP + d_a > UB - 1 is used by no
   arborescence cheaper than UB and is held at 0; an arc with LB_LP - d_a > UB - 1 is held at
   1. The tree then searches for a layout of cost <= UB - 1 under these fixings (an objective
   limit), and the lower bound is min(UB, the tree's bound): either the optimum costs >= UB,
   or it is in the restricted program. The fixing is then extended by the DAG reductions of
   :mod:`mptsearch.exact.dcut_reduce` (degree tests and bound-based arc elimination along
   reduced-cost paths, proved there to keep every optimum costing <= UB - 1); when they leave
   no arborescence at all, none costs below UB and the layout of cost UB is optimal. Measured
   on the m = 200 Zipf instance of :mod:`mptsearch.exact.dcut` (seed 1, 6,820 arcs, root LP
   1,236.10; ``python benchmarks/bench_cut_loop.py fixing 200 1 1239 1238``): with UB = 1,239
   the per-arc test holds 165 arcs at 0, the reductions 717; with UB = 1,238, 1,604 and
   2,669. The LP's dual is degenerate (most reduced costs are 0), so the per-arc test alone
   deletes few arcs at a gap of 0.2%.
4. **Branch-and-cut** in SCIP (PySCIPOpt, a constraint handler written here): separation of
   the violated cuts on every node's LP solution, enforcement on integral points (a 0/1 point
   not reaching a request violates a cut of value 0, which is added), a check that every
   request is reachable from ∅ in the arcs of a candidate solution. SCIP's dual reductions
   are switched off (they assume every constraint is known in advance).

Out of time the result is the bracket LB <= OPT_free <= UB and its gap, never a guess: LB is
the largest of ceil(LB_LP) (certifiable), the dual ascent's bound (:mod:`mptsearch.exact.dual_ascent`,
an integer feasible dual of the cut rows made before the LP in a fraction of a second; a dual of
the same kind as the LP's, though the certificate writer writes the LP's only) and the tree's
bound (SCIP's word), or UB itself when
the reductions of :mod:`mptsearch.exact.dcut_reduce` prove that no arborescence is cheaper
(floating duals, not certified); UB is the trie cost of the best layout. The time limit is
read by every phase after the closure is built: the root loop (no round after three quarters
of the component's share, :data:`ROOT_SHARE`; its first LP, the cover LP solved from scratch, may run
on to :data:`FIRST_LP_SHARE` of it), the local search (its steps scaled to what is left), the
reductions (no round after the deadline), and the SCIP model's build (the clock read every
:data:`BUILD_CHECK` rows; a model not built in time is not solved). A component whose first LP
does not finish in time is bounded below by the larger of the MST bound (below) and the dual
ascent's bound and laid out by the local search in the rest of its share, started from its
requests and from the nodes of the ascent's paths of reduced cost 0, the better kept (or by
agglomerative, when that costs less). The closure and the
per-request sub-DAGs are built under the same limit (:func:`~mptsearch.exact.closure.closure_graph`
and :func:`~mptsearch.exact.dcut.request_subdags` read the clock as they go): a component whose
model is not built in time gets the MST bound too, and the result says so
(``weaker_bound``, and the status names the phase).

*MST bound of a component (proved).* OPT_free of the component's requests is at least
sum_i w(R_i) minus a maximum spanning tree of the weights w(R_i ∩ R_j) (the paper, Section
6.4; :func:`mptsearch.bounds.mst_lower_bound`, which proves it). Only the pairs sharing a chunk
have a positive weight, so a maximum spanning *forest* over those pairs has the tree's weight
(a spanning tree is the forest plus pairs of weight 0): :func:`component_mst_bound` computes it
on the sparse pair graph, O(sum_x |S_x|^2 + p log p) for p sharing pairs, with no m x m matrix.
It is at least the weight of the component's chunks (every chunk x adds w(x) (|S_x| - e_x)
with e_x <= |S_x| - 1 forest edges inside S_x), the bound used before.

With a checkpoint file (:mod:`mptsearch.exact.dcut_checkpoint`) each component's root cut rows,
best layout, root outcome, fixing and tree bound are saved as they improve, and a later run on
the same instance starts from them (its bounds proved again; a root loop that ended by itself
is not rerun: one LP solve over its rows).

**Why SCIP and not an own branch-and-bound over HiGHS.** SCIP (Apache-2.0; PySCIPOpt MIT,
manylinux wheels with SCIP bundled) takes cut separation as a Python callback, the way
SCIP-Jack plugs its cuts in, and brings what an own tree would have to rebuild: node LP
warm starts, reduced-cost propagation in every node, cut aging, branching and its own primal
heuristics. An own branch-and-bound over HiGHS would make every node a full Python-driven
cut loop with re-solves of the kind that already dominate the root's time (docs/exact.md).
HiGHS keeps the root loop: it is already a dependency, its duals feed the certificate, and
its root bound stays checkable without SCIP.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ..hierarchy import _mask_ids
from .closure import ClosureGraph
from .dcut import TOL, _into_lists, _reach, separate

__all__ = ["branch_and_cut", "reachable_all", "reduced_cost_fixing", "component_mst_bound", "opt_free_dcut",
           "METHOD"]

METHOD = "directed-cut branch-and-cut"
SEARCH_SETS = 30  # closures from this size get the LP-guided local search and the support program
TAIL_ROUNDS = 3  # root tailing off: the tree separates on
#: the first LP (the cover LP, solved from scratch) may run on to this share: past ROOT_SHARE the
#: loop stops after it, and a component whose first LP ends past this share keeps the rest for
#: the local search (its layout, against agglomerative's, and the MST bound)
FIRST_LP_SHARE = 0.8
#: the root loop's cap on cut rows per round (None: every violated cut) and its growth per round
#: (cut_lp's max_cuts, cut_growth). Uncapped: on FanOutQA k = 20 at 600 CPU s a cap of 1,000
#: growing 1.5x ended with a lower root bound than one uncapped round (benchmarks/HISTORY.md)
ROOT_CUTS = None
ROOT_GROWTH = 1.5
#: the root loop's switch to HiGHS's interior point (cut_lp's ipm_rows): a solve after this many
#: new rows is done by IPX and crossover, the others by the warm dual simplex (module docstring)
ROOT_IPM_ROWS = 2000
#: the root loop's part of a component's time (the rest: the local search, the support program,
#: the tree). Three quarters: at trace sizes an interior-point round takes minutes and the tree
#: raises the bound little in what is left (docs/exact.md, the targets)
ROOT_SHARE = 0.75
BUILD_CHECK = 512  # the SCIP model build reads the clock every this many rows or variables
#: SCIP parameters of the tree beyond its defaults: SCIP's own general-purpose separators off (the
#: directed cuts are the ones that pay here) and five root separation rounds (the HiGHS root loop
#: has separated already). Measured once, m = 200 seed 1 of the Zipf suite after its root loop,
#: 60 s wall each on a loaded machine: 37,793 LP iterations, dual bound 1,236.10 -> 1,236.24 and a
#: layout of 1,240 found, against 12,638 iterations, no bound progress and no layout by default.
SCIP_PARAMS: dict = {"separating/maxroundsroot": 5, **{f"separating/{s}/freq": -1 for s in (
    "gomory", "cmir", "aggregation", "zerohalf", "clique", "flowcover")}}


def reachable_all(g: ClosureGraph, used: np.ndarray) -> bool:
    """Whether every request is reachable from ∅ along the arcs marked ``used``. O(arcs)."""
    used = np.asarray(used).astype(bool)
    seen = _reach(len(g.sets), 0, g.tails, g.heads, used, np.zeros_like(used))
    return bool(seen[np.array(g.requests, dtype=np.int64)].all())


def _handler_class():
    from pyscipopt import SCIP_RESULT, Conshdlr, quicksum

    class DirectedCuts(Conshdlr):
        """Separates and enforces the directed cuts of :mod:`mptsearch.exact.dcut`."""

        def __init__(self, g, xs, subdags, steiner=None):
            self.g, self.xs, self.subdags = g, xs, subdags
            self.added = 0
            self.tvars = None
            # the Steiner node cuts: (sub-DAGs of the non-request nodes, their node ids, arcs into each)
            self.steiner = steiner

        def _steiner(self, x, tol):
            sub, ids, into = self.steiner
            inflow = np.zeros(len(self.g.sets))
            np.add.at(inflow, self.g.heads, x)
            goal = inflow[ids]
            todo = goal > 1e-3
            if not todo.any():
                return []
            return [(ids[r], arcs, into[ids[r]]) for r, _, arcs in separate(x, sub, tol=tol, todo=todo, goal=goal)]

        def _add_steiner(self, cuts):
            if self.tvars is None:
                self.tvars = [self.model.getTransformedVar(v) for v in self.xs]
            for _, arcs, into in cuts:
                coef = {}
                for a in arcs.tolist():
                    coef[a] = coef.get(a, 0.0) + 1.0
                for a in into:
                    coef[a] = coef.get(a, 0.0) - 1.0
                self.model.addCons(quicksum(c * self.tvars[a] for a, c in coef.items() if c) >= 0, removable=True,
                                   local=False, initial=True, separate=True, enforce=True, check=False,
                                   propagate=True, modifiable=False, dynamic=False, stickingatnode=False)
                self.added += 1

        def _values(self, sol):
            return np.array([self.model.getSolVal(sol, v) for v in self.xs])

        def _add(self, cuts):
            if self.tvars is None:
                self.tvars = [self.model.getTransformedVar(v) for v in self.xs]
            for _, _, arcs in cuts:
                self.model.addCons(quicksum(self.tvars[a] for a in arcs.tolist()) >= 1, removable=True,
                                   local=False, initial=True, separate=True, enforce=True, check=False,
                                   propagate=True, modifiable=False, dynamic=False, stickingatnode=False)
                self.added += 1

        def conscheck(self, constraints, solution, checkintegrality, checklprows, printreason, completely):
            x = self._values(solution)
            ok = reachable_all(self.g, x > 0.5)
            return {"result": SCIP_RESULT.FEASIBLE if ok else SCIP_RESULT.INFEASIBLE}

        def consenfolp(self, constraints, nusefulconss, solinfeasible):
            cuts = separate(self._values(None), self.subdags, tol=TOL)
            if cuts:
                self._add(cuts)
                return {"result": SCIP_RESULT.CONSADDED}
            return {"result": SCIP_RESULT.FEASIBLE}

        def consenfops(self, constraints, nusefulconss, solinfeasible, objinfeasible):
            x = self._values(None)
            ok = reachable_all(self.g, x > 0.5)
            return {"result": SCIP_RESULT.FEASIBLE if ok else SCIP_RESULT.SOLVELP}

        def conssepalp(self, constraints, nusefulconss):
            x = self._values(None)
            cuts = separate(x, self.subdags, tol=1e-4)
            if cuts:
                self._add(cuts)
            scuts = [] if self.steiner is None else self._steiner(x, 1e-4)
            if scuts:
                self._add_steiner(scuts)
            if cuts or scuts:
                return {"result": SCIP_RESULT.CONSADDED}
            return {"result": SCIP_RESULT.DIDNOTFIND}

        def conslock(self, constraint, locktype, nlockspos, nlocksneg):
            pass  # needscons=False: never called; the cover rows lock every arc downwards

    return DirectedCuts


def branch_and_cut(g: ClosureGraph, subdags: list, *, time_limit: float | None, fixed_zero=None, fixed_one=None,
                   cuts: list = (), cutoff: float | None = None, start: np.ndarray | None = None,
                   params: dict | None = None, stats: dict | None = None, clock: str = "wall", rows: list = (),
                   vertex_branching: bool = False, steiner_cuts: bool = False):
    """The 0/1 directed-cut program of one component by SCIP: (status, lower bound, used arcs
    or None, nodes). ``fixed_zero``/``fixed_one`` (bool arrays) hold arcs at 0/1; ``cuts`` are
    initial cut rows (arc id arrays); ``rows`` further rows (arc ids, lo): x(arcs) >= lo, each
    valid for every arborescence the tree must not lose; ``cutoff`` asks for solutions of cost below it only
    (then an "infeasible" status means none exists, and the lower bound returned is
    ``cutoff``); ``start`` an arborescence given as a first solution (SCIP checks it); ``params`` SCIP
    parameters set after those of :data:`SCIP_PARAMS`; ``stats``, a dict, receives SCIP's
    node and LP iteration counts (all LPs, the node LPs, strong branching), the cuts the handler
    added and SCIP's solving time;
    ``clock`` "wall" or "cpu": which seconds ``time_limit`` counts (SCIP's ``timing/clocktype``).
    ``vertex_branching`` adds a binary y_v = in(v) for every node that is not a request, branched
    on before the arcs (SCIP branching priority 10; SCIP-Jack branches on vertices): the 0/1
    points are the same, since in(v) is 0 or 1 at every 0/1 point of the rows.
    ``steiner_cuts`` has the handler separate the Steiner node cuts x(δ⁻(S)) >= in(v) of
    :mod:`mptsearch.exact.dcut` (valid for every arborescence) on every node's LP as well. Both
    are off by default: on the Zipf instance where the tree is the slow side, vertex branching
    ended 120 CPU s at a lower bound than without it, and the Steiner node cuts a little higher
    but far from the proof's need (docs/exact.md, "Where OPT_free lies on m = 200 #1").

    ``time_limit`` covers the whole call: the model is built in Python (a variable per arc, a
    row per node and arc, the initial cuts), with the clock read every :data:`BUILD_CHECK`
    rows; out of time during the build, or with no time left for SCIP, the call returns
    ("timelimit", None, None, 0) without solving. SCIP then gets what is left.

    The lower bound is SCIP's dual bound rounded up (costs are integers): a solver's word.
    """
    from pyscipopt import Model, quicksum

    tick = time.process_time if clock == "cpu" else time.perf_counter
    end = None if time_limit is None else tick() + float(time_limit)
    late = (lambda: False) if end is None else (lambda: tick() >= end)

    def out_of_time():
        if stats is not None:
            stats.update(nodes=0, lp_iterations=0, separated=0, seconds=0.0, dual_bound=None, built=False)
        return "timelimit", None, None, 0

    if late():
        return out_of_time()
    na = len(g.tails)
    m = Model()
    m.hideOutput()
    m.setParam("parallel/maxnthreads", 1)
    m.setParam("misc/allowstrongdualreds", False)
    m.setParam("misc/allowweakdualreds", False)
    m.setParam("limits/gap", 0.0)
    m.setParam("limits/absgap", 0.0)
    m.setParam("randomization/randomseedshift", 0)
    for k, v in {**SCIP_PARAMS, **(params or {})}.items():
        m.setParam(k, v)
    m.setParam("timing/clocktype", 1 if clock == "cpu" else 2)
    xs = []
    for a in range(na):
        if a % BUILD_CHECK == 0 and late():
            return out_of_time()
        lb = 1.0 if fixed_one is not None and fixed_one[a] else 0.0
        ub = 0.0 if fixed_zero is not None and fixed_zero[a] else 1.0
        xs.append(m.addVar(f"x{a}", vtype="B", obj=float(g.costs[a]), lb=lb, ub=ub))
    into = _into_lists(g)
    is_request = set(g.requests)
    ys = {}
    for v in range(1, len(g.sets)):
        if v % BUILD_CHECK == 0 and late():
            return out_of_time()
        expr = quicksum(xs[a] for a in into[v])
        if vertex_branching and v not in is_request:
            ys[v] = m.addVar(f"y{v}", vtype="B", obj=0.0)
            m.addCons(expr == ys[v])
        else:
            m.addCons(expr == 1 if v in is_request else expr <= 1)
    for a, t in enumerate(g.tails.tolist()):
        if a % BUILD_CHECK == 0 and late():
            return out_of_time()
        if t:
            m.addCons(xs[a] <= quicksum(xs[b] for b in into[t]))
    for j, arcs in enumerate(cuts):
        if j % BUILD_CHECK == 0 and late():
            return out_of_time()
        m.addCons(quicksum(xs[a] for a in arcs.tolist()) >= 1)
    for arcs, lo in rows:
        m.addCons(quicksum(xs[a] for a in np.asarray(arcs).tolist()) >= float(lo))
    m.setObjIntegral()
    for y in ys.values():
        m.chgVarBranchPriority(y, 10)
    if cutoff is not None:
        m.setObjlimit(float(cutoff) - 0.5)
    steiner = None
    if steiner_cuts:
        from .dcut import request_subdags
        ids = np.array([v for v in range(1, len(g.sets)) if v not in is_request], dtype=np.int64)
        steiner = (request_subdags(g, targets=ids.tolist()), ids, into)
    handler = _handler_class()(g, xs, subdags, steiner)
    m.includeConshdlr(handler, "dcut", "directed cuts of the closure's cover graph", sepapriority=100,
                      enfopriority=-100, chckpriority=-100, sepafreq=1, propfreq=-1, eagerfreq=-1,
                      maxprerounds=0, delaysepa=False, delayprop=False, needscons=False)
    if start is not None and (fixed_zero is None or not (start & fixed_zero).any()) and (
            cutoff is None or g.costs[start].sum() < cutoff - 0.5):
        sol = m.createSol()
        for a in range(na):
            m.setSolVal(sol, xs[a], 1.0 if start[a] else 0.0)
        m.addSol(sol)
    if end is not None:
        left = end - tick()
        if left <= 0:
            return out_of_time()
        m.setParam("limits/time", left)
    m.optimize()
    status = m.getStatus()
    nodes = m.getNNodes()
    if stats is not None:
        stats.update(nodes=nodes, lp_iterations=m.getNLPIterations(), separated=handler.added,
                     seconds=m.getSolvingTime(), dual_bound=m.getDualbound(), built=True,
                     node_lp_iterations=m.getNNodeLPIterations(),
                     strong_branching_iterations=m.getNStrongbranchLPIterations())
    x = None
    if m.getNSols() > 0:
        best = m.getBestSol()
        x = np.array([m.getSolVal(best, v) for v in xs]) > 0.5
        if cutoff is not None and g.costs[x].sum() >= cutoff - 0.5:
            x = None
    if status == "infeasible" and cutoff is not None:
        return status, int(math.ceil(cutoff - 1e-9)), x, nodes
    if status == "optimal" and x is not None:
        bound = int(g.costs[x].sum())
    else:
        db = m.getDualbound()
        bound = int(math.ceil(db - 1e-6)) if db < 1e300 else None
        if cutoff is not None and (bound is None or bound > cutoff):
            bound = int(math.ceil(cutoff - 1e-9))
    return status, bound, x, nodes


def component_mst_bound(masks: list, weights: list) -> int:
    """The MST bound (module docstring) of the requests ``masks`` (Python-int masks over chunks
    with integer ``weights``): sum_i w(R_i) minus a maximum spanning forest of the positive
    pair weights w(R_i ∩ R_j). O(sum_x |S_x|^2 + p log p), p the pairs sharing a chunk."""
    from scipy import sparse
    from scipy.sparse.csgraph import minimum_spanning_tree

    m = len(masks)
    rows, cols = [], []
    for i, q in enumerate(masks):
        for c in _mask_ids(q):
            rows.append(i)
            cols.append(c)
    rows = np.array(rows, dtype=np.int64)
    cols = np.array(cols, dtype=np.int64)
    w = np.asarray(weights, dtype=np.int64)
    A = sparse.csr_matrix((np.ones(len(rows), dtype=np.int64), (rows, cols)), shape=(m, len(weights)))
    Aw = sparse.csr_matrix((w[cols], (rows, cols)), shape=(m, len(weights)))
    P = sparse.triu(A @ Aw.T, k=1).tocoo()
    total = int(w[cols].sum())
    if P.nnz == 0:
        return total
    big = int(P.data.max()) + 1  # a least forest of big - w over the sharing pairs is a most one of w
    T = minimum_spanning_tree(sparse.csr_matrix(((big - P.data).astype(np.float64), (P.row, P.col)), shape=(m, m)))
    forest = T.nnz * big - int(round(float(T.sum())))
    return total - forest


def reduced_cost_fixing(lb_lp: float, reduced: np.ndarray, upper: int, *, tol: float = 1e-6):
    """Arcs held at 0 and at 1 by step 3 of the module docstring, for solutions costing at
    most ``upper - 1``: (fixed_zero, fixed_one) bool arrays. O(arcs)."""
    zero = lb_lp + reduced > upper - 1 + tol
    one = lb_lp - reduced > upper - 1 + tol
    return zero, one


def _lp_guided_search(g, weights, x, seed, steps, time_limit=None):
    """Step 2's local search: (cost(U), used sets as masks), started from the requests and the
    nodes with in-flow >= 1/2 in ``x``, and from the requests alone; the better kept."""
    from .._kernels.steiner import steiner_anneal
    from .closure_search import WORK, closure_poset, default_steps

    poset = closure_poset(g, weights)
    inflow = np.zeros(len(g.sets))
    np.add.at(inflow, g.heads, x)
    if steps is None:  # as the present driver: about 1 CPU s of search per 10 s of limit at most
        steps = default_steps(poset) if time_limit is None else default_steps(poset, min(WORK, 3e6 * time_limit))
    nsteps = steps
    temp0 = float(np.median(poset.wt[1:])) * 0.05
    best = None
    for r, start in enumerate((poset.fixed | (inflow >= 0.5), poset.fixed.copy())):
        # from the LP's start the walk is cooler: it refines rather than explores
        t0 = temp0 * (0.2 if r == 0 else 1.0)
        used, c = steiner_anneal(start, poset.fixed, poset.wt, poset.sub_ptr, poset.sub_idx, poset.sup_ptr,
                                 poset.sup_idx, nsteps, t0, t0 * 1e-3, seed + r)
        if best is None or c < best[0]:
            best = (int(c), [g.sets[j] for j in np.flatnonzero(used) if j])
    return best


def opt_free_dcut(inst, *, time_limit: float | None = None, keep_duals: bool = False, seed: int = 0,
                  max_rounds: int = 50, search_steps: int | None = None, checkpoint=None,
                  tail_rounds: int | None = TAIL_ROUNDS, clock: str = "wall"):
    """Exact OPT_free (any positive integer weights) by the directed-cut branch-and-cut of the
    module docstring; out of time, the bracket.

    Parameters
    ----------
    inst : Instance
    time_limit : float, optional
        Seconds for the whole solve, shared among the components by their arcs.
    keep_duals : bool
        Keep each component's root cut-LP duals and rows (for :mod:`mptsearch.verify.lpdual`).
    seed : int
        Seed of the local search.
    max_rounds : int
        Root separation rounds at most.
    search_steps : int, optional
        Steps per run of the local search (default: that of
        :func:`~mptsearch.exact.closure_search.default_steps`, its work scaled down to about 1 CPU s
        per 10 s of the component's time; fixed in advance, so the result does not depend on the
        machine's speed within a stage).
    checkpoint : str or path, optional
        A file (:mod:`mptsearch.exact.dcut_checkpoint`) holding each component's root cut rows
        and best layout, rewritten atomically as they improve; when it exists (written for the
        same instance) the run resumes from it: the root LP starts with its rows, its layout is
        the first upper bound.
    clock : str
        "wall" (the default) or "cpu": whether ``time_limit`` counts wall seconds or this
        process's CPU seconds (fair on a shared machine; SCIP counts CPU seconds too).
    tail_rounds : int, optional
        The root loop stops when this many rounds raised the bound by less than a relative
        1e-5 (:func:`~mptsearch.exact.dcut.cut_lp`); None runs it to ``max_rounds`` or no cut.

    Returns
    -------
    mptsearch.exact.arborescence.ClosureResult
        ``formulation`` "dcut"; ``lp_bound`` the root cut LPs' values summed over the
        components (a component whose LP was not solved in time counts at the weaker bound
        used instead, the dual ascent's or the MST bound, as ``weaker_bound`` says), ``status`` "optimal"
        (and how it was proved: "lp" when the rounded-up root bound met the layout, "dual
        ascent" when the dual ascent's did, "reduction" or "tree" otherwise) or SCIP's status
        (with the phase and the weaker bound used when a component's LP is missing).

    Notes
    -----
    NP-hard in general. Per round of the root loop one warm LP re-solve and one max-flow per
    request on D_R; then SCIP's tree. Theorem 1 of the paper (Section 3) in the closure form of
    :mod:`mptsearch.exact.closure`; the cuts as proved in :mod:`mptsearch.exact.dcut`.

    Examples
    --------
    >>> from mptsearch.families import k4_3
    >>> r = opt_free_dcut(k4_3())
    >>> r.value, r.optimal
    (8, True)
    """
    from ..heuristics.agglomerative import agglomerative
    from ..trie import trie_cost
    from .arborescence import ClosureResult
    from .closure import BuildTimeout, closure_graph, reduce_instance
    from .closure_program import arborescence_layout
    from .closure_search import steiner_layout
    from .dcut import cut_lp, request_subdags
    from .dcut_checkpoint import Checkpoint
    from .dcut_reduce import reduce_fixing
    from .dual_ascent import dual_ascent, zero_cost_paths

    if clock not in ("wall", "cpu"):
        raise ValueError(f"clock must be 'wall' or 'cpu', not {clock!r}")
    now = time.perf_counter if clock == "wall" else time.process_time
    t0 = time.perf_counter()
    deadline = None if time_limit is None else now() + float(time_limit)
    red = reduce_instance(inst)
    ck = None if checkpoint is None else Checkpoint(checkpoint, inst)
    layout: list = [None] * inst.m
    lower = 0
    lp_total = 0.0
    optimal, statuses, nsets, narcs, duals, proved = True, set(), 0, 0, [], set()
    graphs, weaker = [], {}
    phases = []
    start = now()

    def phase(pos, name, low, up):
        phases.append((pos, name, round(now() - start, 2), int(low), None if up is None else int(up)))

    def mst_instead(masks, where, ascent=None):
        # the component's LP is not there: its MST bound, or the dual ascent's when higher (module docstring)
        nonlocal lower, lp_total, optimal
        b = component_mst_bound(masks, red.weights)
        which = "MST bound"
        if ascent is not None and ascent > b:
            b, which = ascent, "dual-ascent bound"
        lower += b
        lp_total += b
        optimal = False
        statuses.add(f"timelimit ({where}: {which})")
        weaker[(where, which)] = weaker.get((where, which), 0) + 1
        return b

    for idx, masks in red.components:
        if len(idx) == 1:
            layout[idx[0]] = [x for c in _mask_ids(masks[0]) for x in red.groups[c]]
            w = sum(red.weights[c] for c in _mask_ids(masks[0]))
            lower += w
            lp_total += w
            continue
        try:
            graphs.append((idx, masks, closure_graph(masks, red.weights, deadline=deadline, clock=now)))
        except BuildTimeout:
            mst_instead(masks, "closure")
    left_arcs = sum(len(g.tails) for _, _, g in graphs)
    for pos, (idx, masks, g) in enumerate(graphs):
        share = None
        if deadline is not None:
            share = max(0.0, deadline - now()) * len(g.tails) / max(1, left_arcs)
        left_arcs -= len(g.tails)
        c_end = None if share is None else now() + share
        nsets += len(g.sets)
        narcs += len(g.tails)
        try:
            subdags = request_subdags(g, deadline=c_end, clock=now)
        except BuildTimeout:
            mst_instead(masks, "sub-DAGs")
            continue
        da = dual_ascent(g, subdags)
        ascent = da.bound
        phase(pos, "dual ascent", ascent, None)
        lp_end = None if c_end is None else now() + ROOT_SHARE * share
        first_end = None if c_end is None else now() + FIRST_LP_SHARE * share
        saved_cuts, saved_best, saved_lay = ([], None, None) if ck is None else ck.component(idx, g, red.groups)
        root_done = ck is not None and ck.root_done(idx)
        try:  # a root whose loop ended (not by the clock) is re-solved once with its saved rows, not redone
            lp = cut_lp(g, deadline=lp_end, max_rounds=0 if root_done else max_rounds, subdags=subdags,
                        cuts=saved_cuts, target=saved_best, tail_rounds=tail_rounds, clock=now,
                        max_cuts=ROOT_CUTS, cut_growth=ROOT_GROWTH, first_deadline=first_end,
                        ipm_rows=ROOT_IPM_ROWS, ascent_cuts=[(("cut", r, nodes), arcs) for r, nodes, arcs in da.cuts])
        except TimeoutError:  # not even the first LP in time: the dual ascent's bound, and the search's layout
            b = mst_instead(masks, "root LP", ascent)
            best = None
            if len(g.sets) >= SEARCH_SETS and (c_end is None or now() < c_end):
                # started from the nodes of the ascent's paths of reduced cost 0, and from the requests
                paths = zero_cost_paths(g, subdags, da.reduced).astype(np.float64)
                best, used = _lp_guided_search(g, red.weights, paths, seed, search_steps,
                                               None if c_end is None else c_end - now())
                for i, s in zip(idx, steiner_layout(used, list(masks), red.weights, red.groups)):
                    layout[i] = s
            phase(pos, "search", b, best)
            continue
        lp_total += lp.value
        if ck is not None:
            ck.save(idx, g, red.groups, cuts=list(zip(lp.model.kinds[len(lp.model.kinds) - lp.cuts:], lp.cut_arcs)),
                    root={"value": float(lp.value), "rounds": int(lp.rounds), "converged": bool(lp.converged),
                          "done": root_done or lp.converged or (
                              lp.rounds < max_rounds and (lp_end is None or now() < lp_end))})
        if keep_duals:
            duals.append((idx, g, lp.model, lp.duals, lp.value))
        lp_lb = int(math.ceil(lp.value - 1e-6))
        lb = max(lp_lb, ascent)
        best, lay, best_x = saved_best, saved_lay, None
        phase(pos, "root", lb, best)
        if len(g.sets) >= SEARCH_SETS and (best is None or lb < best) and (c_end is None or now() < c_end):
            c, used = _lp_guided_search(g, red.weights, lp.x, seed, search_steps,
                                        None if c_end is None else c_end - now())
            if best is None or c < best:
                best, lay = c, steiner_layout(used, list(masks), red.weights, red.groups)
                if ck is not None:
                    ck.save(idx, g, red.groups, layout=lay)
            phase(pos, "search", lb, best)
        left = None if c_end is None else c_end - now()
        bound, status = lb, "optimal"
        if best is not None and lb < best:
            fz, fo = reduced_cost_fixing(lp.value, lp.reduced, best)
            fix = reduce_fixing(g, fz, fo, lb=lp.value, reduced=lp.reduced, upper=best, deadline=c_end, clock=now)
            if not fix.feasible:  # no arborescence below the best: proved without the tree
                bound = best
                proved.add("reduction")
            fz, fo = fix.zero, fix.one
            if ck is not None:
                ck.save(idx, g, red.groups, fixing=(best, fz, fo))
            phase(pos, "fixing", bound, best)
        if best is None or bound < best:
            fz, fo = (None, None) if best is None else (fz, fo)
            if best is not None and len(g.sets) >= SEARCH_SETS:
                support = (lp.x < 1e-6) | fz
                st, b, x, _ = branch_and_cut(g, subdags, time_limit=None if left is None else 0.25 * left,
                                             fixed_zero=support, fixed_one=fo, cuts=lp.cut_arcs, cutoff=best,
                                             clock=clock)
                if x is not None and int(g.costs[x].sum()) < best:
                    best, best_x = int(g.costs[x].sum()), x
                    lay = arborescence_layout(g, x, red.groups)
                    if ck is not None:
                        ck.save(idx, g, red.groups, layout=lay)
                    if best <= lb:  # the support tree's layout meets the root LP's bound
                        bound = best
                    else:
                        fz, fo = reduced_cost_fixing(lp.value, lp.reduced, best)
                        fix = reduce_fixing(g, fz, fo, lb=lp.value, reduced=lp.reduced, upper=best, deadline=c_end,
                                            clock=now)
                        fz, fo = fix.zero, fix.one
                        if not fix.feasible:
                            bound = best
                            proved.add("reduction")
                        if ck is not None:
                            ck.save(idx, g, red.groups, fixing=(best, fz, fo))
                phase(pos, "support", bound, best)
        if best is None or bound < best:
            left = None if c_end is None else c_end - now()
            st, b, x, _ = branch_and_cut(g, subdags, time_limit=left, fixed_zero=fz, fixed_one=fo, cuts=lp.cut_arcs,
                                         cutoff=best, start=best_x, clock=clock)
            if x is not None and (best is None or int(g.costs[x].sum()) < best):
                best = int(g.costs[x].sum())
                lay = arborescence_layout(g, x, red.groups)
                if ck is not None:
                    ck.save(idx, g, red.groups, layout=lay)
            if b is not None:
                bound = max(bound, b if best is None else min(b, best))
            status = st
            if ck is not None:
                ck.save(idx, g, red.groups, tree={"bound": int(bound), "status": st})
            phase(pos, "tree", bound, best)
            if best is not None and bound >= best:
                # the rounded-up root LP (or the dual ascent) alone may meet it
                proved.add(("lp" if lp_lb >= best else "dual ascent") if lb >= best else "tree")
        elif lb >= best:
            proved.add("lp" if lp_lb >= best else "dual ascent")
        if best is not None and bound > best:
            raise RuntimeError(f"directed-cut bound {bound} above a layout of cost {best}")
        lower += bound
        if best is None:
            optimal = False
            statuses.add(status)
        else:
            for i, s in zip(idx, lay):
                layout[i] = s
            if bound < best:
                optimal = False
                statuses.add(status)
    fallback = agglomerative(inst)
    # components share no chunk, so agglomerative's sequences fill the components left without a
    # layout (the cost is recomputed on the trie below)
    layout = [list(fallback.layout[i]) if s is None else s for i, s in enumerate(layout)]
    cost = trie_cost(inst, layout)
    if fallback.cost < cost:
        layout, cost = [list(s) for s in fallback.layout], fallback.cost
    if cost < lower:
        raise RuntimeError(f"directed-cut bound {lower} above the layout's trie cost {cost}")
    if optimal and cost != lower:
        optimal = False
        statuses.add("layout above the bound")
    status = "optimal (" + "+".join(sorted(proved)) + ")" if optimal else ", ".join(sorted(statuses))
    note = "; ".join(f"{which} on {k} component{'s' if k > 1 else ''} ({p} out of time)"
                     for (p, which), k in weaker.items())
    return ClosureResult(value=cost if optimal else None, lower=lower, upper=cost, optimal=optimal,
                         layout=layout, lp_bound=lp_total, sets=nsets, arcs=narcs,
                         components=len(red.components), seconds=time.perf_counter() - t0, status=status,
                         duals=duals, groups=red.groups, total=inst.total_weight(), formulation="dcut",
                         weaker_bound=note, phases=phases)
