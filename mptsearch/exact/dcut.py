"""Directed cuts over the closure's cover graph: a stronger LP bound on OPT_free.

Notation as in :mod:`mptsearch.exact.closure`: C is the intersection closure of the requests,
the nodes are C ∪ {∅} with the root ∅, the arcs are the cover pairs X -> Y (X ⊊ Y, no member
of C strictly between) of cost c(X -> Y) = w(Y - X) >= 1 (weights are positive integers and
X ⊊ Y), and OPT_free is the least cost of an arborescence rooted at ∅ that reaches every
request (the closure form of Theorem 1, proved there after the paper, Section 3). For a 0/1 or
fractional vector x over the arcs, in(v) is the sum of x over the arcs into v.

**Why the cover program's LP is weak.** The program of
:mod:`mptsearch.exact.closure_program` has the rows in(R) = 1 (requests), in(v) <= 1, and for
every node X and chunk c outside X the *chunk row* sum{x(X -> Y) : c in Y} <= in(X) (<= 1 at
the root).

*Lemma (siblings; proved).* If X -> Y1 and X -> Y2 are two distinct cover arcs, then
Y1 ∩ Y2 = X. Proof: let Z = Y1 ∩ Y2. Y1 and Y2 are intersections of requests, so Z is one too:
Z is in C if it is nonempty and Z = ∅ otherwise, so Z is a node. From X ⊆ Y1 and X ⊆ Y2,
X ⊆ Z ⊆ Y1. If Z = Y1 then Y1 ⊆ Y2, and Y1 ≠ Y2 (the arcs are distinct and have the same
tail), so X ⊊ Y1 ⊊ Y2 with Y1 in C, and Y2 does not cover X: a contradiction. So Z ⊊ Y1; if
X ⊊ Z, Z is a member of C (it is not ∅, being above X) strictly between X and Y1, against Y1
covering X. Hence Z = X. QED.

*Consequence (proved).* A chunk c outside X lies in the head of at most one arc out of X (two
such heads would share c outside X), so every chunk row holds a single arc and says only
x(X -> Y) <= in(X) (at the root, x <= 1: the variable's bound). The cover LP is therefore
in(R) = 1, in(v) <= 1, x(X -> Y) <= in(X), 0 <= x <= 1. Its weakness: a node v with
in(v) = 1/2 may pass 1/2 to every one of its children, so a request can be reached "twice by
halves" through two branches below one half-used ancestor, paying each arc of the shared part
once per half. K4^(3) (``012 013 023 123``) shows it: the cover LP is 20/3, the LP with the
directed cuts below 22/3, OPT_free 8 (computed; ``tests/test_dcut.py``).

**Directed cuts (valid, proved).** For a request R and a set S of nodes with R ∈ S and ∅ ∉ S,
let δ⁻(S) be the arcs X -> Y with Y ∈ S and X ∉ S. Every arborescence T rooted at ∅ that
reaches R holds the path from ∅ to R; it starts outside S and ends inside, so one of its arcs
enters S: x_T(δ⁻(S)) >= 1. These rows (*cut rows*) hold for every arborescence, as do the
cover program's rows, so the LP over all of them (the *cut LP*) is a lower bound on OPT_free,
and at least the cover program's LP (it has all the cover rows; with S = {R} the cut is
in(R) >= 1, already a cover row).

**Exactness (proved).** Let x be a 0/1 point of the cover rows (in(v) <= 1 for every node
v ≠ ∅, in(R) = 1 for every request, x(X -> Y) <= in(X) for every arc with X ≠ ∅). Every node
with a used arc into it has exactly one (in(v) <= 1): call its tail the parent. If v has a
parent X ≠ ∅, then in(X) >= x(X -> v) = 1, so X has a parent too; X ⊊ v, so the walk
v, parent, grandparent, ... strictly shrinks the set and ends, and it can end only at ∅. So the
used arcs form an arborescence rooted at ∅, and it reaches every request (in(R) = 1); its cost
is sum_a c_a x_a. Conversely, an arborescence T over the cover arcs rooted at ∅ that reaches
every request satisfies every cover row (one parent per node; an arc leaves only a node of T,
which is ∅ or has its parent) and every cut row (above). The 0/1 points of the program are
therefore exactly these arborescences (with the same cost), and by the closure form of
Theorem 1 (cover arcs suffice) the least costs OPT_free. An arborescence is laid out at no more
than its cost (the first half of that proof: request R gets the chunk segments of its root path
in order; the trie has at most one node per (arc, position)), which is how the solver's layouts
are made; their cost is then recomputed on the trie. The cut rows cut off no 0/1 point of the
cover rows; they remove fractional points only.

**Separation (exact for a given x).** Every root-R path uses only subsets of R (arcs grow the
sets), and the nodes below R in the cover graph are exactly C's subsets of R with ∅ (a maximal
chain from Z ⊊ R up to R is a path of cover arcs). Let D_R be that sub-DAG with capacities x.
If W ∌ ∅, W ∋ R is a set of D_R's nodes, an arc X -> Y of the whole graph entering W has
X ⊊ Y ⊆ R, so X is a node of D_R and the arc is one of D_R's (D_R holds every arc into its
nodes): δ⁻(W) is the same in D_R and in the whole graph. And for any S of the whole graph with
R ∈ S, ∅ ∉ S, W = S ∩ D_R has x(δ⁻(W)) <= x(δ⁻(S)) (an arc X -> Y entering W has X in D_R
but not in W, hence not in S: it enters S too). So the least x(δ⁻(S)) over the cut rows of
request R is the minimum ∅-R cut of D_R, the maximum ∅-R flow (max-flow min-cut), and a
violated cut row exists for R iff that flow is below 1. From a maximum flow two minimum cuts
are read: the *sink side* (the nodes from which R is reachable in the residual graph, the "back
cut", closest to R) and the complement of the source side (the nodes not reachable from ∅),
both with ∅ outside and R inside. The flows run in one
compiled call over all requests (:mod:`mptsearch._kernels.dicut`, shortest augmenting paths
in floating point), each stopped as soon as it reaches ``1 - tol`` (the request is then not
violated); a cut's value is recomputed from x and only a cut below ``1 - tol`` is added, so
rounding can miss a barely violated cut but never adds an invalid one (every row added is a
valid cut row, whatever x: any node set holding R and not ∅ gives one). *Nested cuts* (Koch
and Martin): after the minimum cuts of a request, the arcs of the last one get capacity 1 and
the flow is augmented on; a new minimum cut below ``1 - tol`` is another violated row, further
from R (valid for the same reason, though not a minimum cut of x).

**Steiner node cuts (valid, proved).** For any node v ≠ ∅ and any node set S with v ∈ S,
∅ ∉ S, x(δ⁻(S)) >= in(v) holds for the incidence vector x of every arborescence T rooted at
∅: if v is not in T,
in(v) = 0 <= x(δ⁻(S)); if it is, T's path from ∅ to v starts outside S and ends inside, so an
arc of it enters S, and in(v) = 1 (one parent). For a request this is a cut row (in(R) = 1). The
separation argument above holds word for word with D_v (the nodes below v) and the goal in(v)
instead of 1: a violated row exists for v iff the maximum ∅-v flow of D_v under x is below
in(v) (``separate``'s ``goal``). Measured (``python benchmarks/bench_cut_loop.py steiner 200
1``): at the converged cut LP of the unit Zipf instance m = 200, seed 1 (1,236.1018), 26
Steiner node cuts are violated (and 60 cut rows the loop had dropped to its pool); with all of
them added the LP value does not move and nothing of either kind is violated. The tree can
separate them (:func:`mptsearch.exact.dcut_bnc.branch_and_cut`'s
``steiner_cuts``, opt-in, separated for the nodes that are not requests, whose rows the cut
loop already has; in 120 CPU s of the tree on that instance they raised SCIP's bound a
little, 1,236.95 against 1,236.84, far from the 1,238 a proof needs: docs/exact.md).

**Which rows are kept.** The cover rows stay in their single-arc form (in(v) <= 1, in(R) = 1,
x(X -> Y) <= in(X)): without the last ones the cut loop needs many more cuts and rounds
(measured once on a unit Zipf instance with m = 200, k = 10: 1,225.5 after 12 rounds against
1,231.5 at convergence after 10 rounds with them; exploratory, ``benchmarks`` has no script
for it). Every violated request gets both minimum cuts (the source-side cut alone: 1,230.1
after 12 rounds on the same instance).

**The cut loop.** Solve the LP (HiGHS, dual simplex, warm re-solves after adding rows), find
the violated cuts for every request (both minimum cuts and :data:`NESTED` nested ones), add
them (at most ``max_cuts`` in the first round, ``cut_growth`` times more each round after, the
most violated of each request first; the others are found again if still violated), drop the
cut rows that have been slack (x above 1 + tol and dual 0) for two rounds into a pool that is
rechecked first in each round; stop when no cut is violated, after ``max_rounds``, at the deadline, when the bound rounded up reaches a ``target`` (an upper
bound: nothing is left to prove), or on tailing off (``tail_rounds`` rounds raising the bound
by less than a relative ``tail_tol``). The value of every solved LP in the loop is a lower
bound (its rows are valid); the last one is kept. The solver starts the loop from the cuts of the
dual ascent (:mod:`mptsearch.exact.dual_ascent`, a feasible dual of them: the first LP is then at
least the ascent's bound). A certificate (the row duals, each cut as its
node set) is written and rechecked in exact arithmetic by :mod:`mptsearch.verify.lpdual`.
Measured on one unit Zipf instance (m = 200, k = 10, 6,820 arcs; ``python
benchmarks/bench_cut_loop.py loop 200 1 '{}' '{"nested": 2}' ...``), CPU seconds on a loaded
machine: the warm re-solves are 95-98% of the loop (1,000-2,400 dual simplex iterations each
after a round of cuts, at about 0.6 ms an iteration); nested cuts took 13 rounds and 8.4 s to
converge against 15 and 10.2 s without (on seed 0, 12 rounds and 8.5 s against 13 and 7.6 s); capping a round at the 100 most violated cuts, 19
rounds and 9.7 s; dropping slack cuts after one round, 20 rounds and 10.5 s; adding the
x(X -> Y) <= in(X) rows only when violated, 30 rounds and 17 s; HiGHS's dual edge weights
(Devex, Dantzig, steepest edge) within 10% of each other.

*Nested cuts and HiGHS's options (computed).* Measured with ``python
benchmarks/bench_closure.py --dcut-loop M:SEED --cpu-limit S '{"nested": 0}' '{}'`` (CPU
seconds, load 2-6; the simplex iteration counts repeat exactly from run to run): without nested
cuts the loop reaches the same value in fewer iterations on m = 200 seeds 0 and 1 (12,288
against 13,789; 15,879 against 16,655) and about as many on seed 2 (12,307 against 12,107),
4.2-6.9 CPU s against 4.3-7.9; on m = 500 seed 0 (24,533 arcs) it is at 2,920.0 after 30 CPU s
and 2,931.2 after 60, against 2,912.1 and 2,925.6 with them, and reaches 2,934.5 at 113 CPU s
against 117 (80,569 iterations against 84,984). The whole solver with them off did no better on
the m = 200 targets (60 CPU s each, one run: #0 exact in 12.1 CPU s against 6.1, #1
1,237..1,240 against 1,237..1,239, #2 exact in 16.0 against 23.5; the local search starts from
the LP's point, which changes with the cuts), so :data:`NESTED` is 2. HiGHS options tried on
m = 200 seed 1 and not taken: Dantzig pricing (not converged in 60 CPU s), Devex (34,503
iterations against 16,655, 8.9 CPU s against 7.9), the primal simplex (not converged in 60 CPU
s), no cost perturbation (fewer iterations there, but on m = 500 2,933.1 after 120 CPU s against
2,934.5); the scaling strategies, the pricing strategy and the DSE check give the same 16,655
iterations (the matrix is all ±1; scaling changes nothing) and CPU times within the noise.
Presolve is off for every solve.

*The interior point for the large rounds.* The dual simplex re-solve after a round of many
thousand cuts is slow at trace sizes (pivots in the order of the rows added, each over a basis
of the component's nodes and arcs); HiGHS's interior-point solver (IPX) does not warm start but
its iteration count hardly depends on how many rows were added. With ``ipm_rows`` a solve that
follows at least that many new rows is done by IPX, then crossover (when the solve ends
optimal, an optimal basis: the solution is a vertex, its row duals those of a basis, and the
next re-solves are warm dual simplex ones again; a solve that does not end optimal stops the
loop at the previous LP, still a bound); the others as before. The rows, and so the value at convergence, do not
change. Figures in docs/exact.md ("The root loop").
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from .closure import ClosureGraph

__all__ = ["CutModel", "SubDag", "SubDagList", "PackedSubDags", "pack_subdags", "request_subdags", "separate", "CutLP",
           "cut_lp", "stop_at"]

TOL = 1e-6
NESTED = 2  # nested cuts per violated request and round (module docstring: none is no better end to end)
TAIL_TOL = 1e-5


def stop_at(h, deadline: float, clock) -> list:
    """Make HiGHS's simplex and interior-point solver stop once ``clock()`` reaches
    ``deadline``, whatever the clock (HiGHS's own time limit counts wall seconds only): an
    interrupt callback, which HiGHS calls once per iteration of either, reads ``clock`` and asks
    for the interrupt. The solve then ends with the status "Interrupted by user" and its point
    is not used. Returns a one-item list holding the deadline the callback reads: setting it
    moves the deadline."""
    import highspy

    box = [deadline]

    def interrupt(ctype, msg, data_out, data_in, user):
        if clock() >= box[0]:
            data_in.user_interrupt = True

    h.setCallback(interrupt, None)
    h.startCallback(highspy.cb.HighsCallbackType.kCallbackSimplexInterrupt)
    h.startCallback(highspy.cb.HighsCallbackType.kCallbackIpmInterrupt)
    return box


@dataclass
class SubDag:
    """D_R of the module docstring: ``nodes`` (global node ids; local 0 is ∅, local
    ``len(nodes) - 1`` is R), ``arcs`` (global arc ids) and their local tails and heads."""

    nodes: np.ndarray
    arcs: np.ndarray
    ltail: np.ndarray
    lhead: np.ndarray


def _into_lists(g: ClosureGraph) -> list:
    into = [[] for _ in range(len(g.sets))]
    for a, h in enumerate(g.heads.tolist()):
        into[h].append(a)
    return into


def request_subdags(g: ClosureGraph, *, deadline: float | None = None, clock=time.perf_counter,
                    targets: list | None = None) -> list:
    """D_R for every request R of ``g`` (module docstring): the nodes with a path to R (C's
    subsets of R and ∅) and the arcs among them. O(sum over R of D_R's arcs). With
    ``deadline`` (a ``clock()`` value) the clock is read before each request, and
    :class:`~mptsearch.exact.closure.BuildTimeout` raised once past it. ``targets`` (node ids)
    replaces the requests: the same sub-DAG of each of these nodes."""
    from .closure import BuildTimeout

    into = _into_lists(g)
    tails = g.tails.tolist()
    out = SubDagList()
    for r in (g.requests if targets is None else targets):
        if deadline is not None and clock() >= deadline:
            raise BuildTimeout("out of time building the per-request sub-DAGs")
        seen = {r}
        stack = [r]
        while stack:
            v = stack.pop()
            for a in into[v]:
                t = tails[a]
                if t not in seen:
                    seen.add(t)
                    stack.append(t)
        others = sorted(seen - {0, r})
        nodes = np.array([0] + others + [r], dtype=np.int64)
        local = {int(v): i for i, v in enumerate(nodes)}
        arcs = np.array([a for v in nodes[1:] for a in into[int(v)]], dtype=np.int64)
        lt = np.array([local[tails[a]] for a in arcs], dtype=np.int32)
        lh = np.array([local[int(g.heads[a])] for a in arcs], dtype=np.int32)
        out.append(SubDag(nodes, arcs, lt, lh))
    return out


def _reach(k: int, src: int, nbr_t: np.ndarray, nbr_h: np.ndarray, open_fwd: np.ndarray,
           open_bwd: np.ndarray) -> np.ndarray:
    """Nodes reachable from ``src`` along arcs t -> h where ``open_fwd`` and h -> t where
    ``open_bwd``."""
    adj: list[list[int]] = [[] for _ in range(k)]
    for t, h, f, b in zip(nbr_t.tolist(), nbr_h.tolist(), open_fwd.tolist(), open_bwd.tolist()):
        if f:
            adj[t].append(h)
        if b:
            adj[h].append(t)
    seen = np.zeros(k, dtype=bool)
    seen[src] = True
    stack = [src]
    while stack:
        v = stack.pop()
        for u in adj[v]:
            if not seen[u]:
                seen[u] = True
                stack.append(u)
    return seen


@dataclass
class PackedSubDags:
    """The D_R of :func:`request_subdags` in the flat arrays of :mod:`mptsearch._kernels.dicut`."""

    node_ptr: np.ndarray
    nodes: np.ndarray
    arc_ptr: np.ndarray
    ltail: np.ndarray
    lhead: np.ndarray
    garc: np.ndarray
    adj_ptr: np.ndarray
    adj_arc: np.ndarray
    maxk: int
    maxa: int


def pack_subdags(subdags: list) -> PackedSubDags:
    """Flat arrays of ``subdags`` for the separation kernel. O(sum of D_R's arcs)."""
    node_ptr = np.zeros(len(subdags) + 1, dtype=np.int64)
    arc_ptr = np.zeros(len(subdags) + 1, dtype=np.int64)
    for r, d in enumerate(subdags):
        node_ptr[r + 1] = node_ptr[r] + len(d.nodes)
        arc_ptr[r + 1] = arc_ptr[r] + len(d.arcs)
    cat = (lambda arrs, dt: np.concatenate(arrs).astype(dt) if arrs else np.zeros(0, dt))
    nodes = cat([d.nodes for d in subdags], np.int64)
    ltail = cat([d.ltail for d in subdags], np.int64)
    lhead = cat([d.lhead for d in subdags], np.int64)
    garc = cat([d.arcs for d in subdags], np.int64)
    # per packed node its packed arcs, in and out
    owner = np.repeat(np.arange(len(subdags)), np.diff(arc_ptr))
    ends = np.concatenate([ltail + node_ptr[owner], lhead + node_ptr[owner]])
    which = np.concatenate([np.arange(len(garc)), np.arange(len(garc))])
    order = np.argsort(ends, kind="stable")
    adj_arc = which[order].astype(np.int64)
    adj_ptr = np.zeros(len(nodes) + 1, dtype=np.int64)
    np.add.at(adj_ptr, ends + 1, 1)
    adj_ptr = np.cumsum(adj_ptr)
    return PackedSubDags(node_ptr, nodes, arc_ptr, ltail, lhead, garc, adj_ptr, adj_arc,
                         int(np.diff(node_ptr).max(initial=0)), int(np.diff(arc_ptr).max(initial=0)))


def _packed(subdags) -> PackedSubDags:
    got = getattr(subdags, "packed", None)
    if got is None:
        got = pack_subdags(list(subdags))
        try:
            subdags.packed = got
        except AttributeError:
            pass
    return got


class SubDagList(list):
    """The list of :func:`request_subdags`, with its packed arrays (``packed``) made once."""

    packed = None


def separate(x: np.ndarray, subdags: list, *, tol: float = TOL, back: bool = True, nested: int = 0,
             todo: np.ndarray | None = None, goal: np.ndarray | None = None) -> list:
    """The violated cut rows for ``x`` (module docstring): a list of (request position, global
    node ids of S as a tuple, global arc ids of δ⁻(S)), the source-side and (with ``back``) the
    sink-side minimum cut of every request whose maximum flow is below ``1 - tol`` (only those
    with ``todo``, when given), and with ``nested`` up to that many nested cuts after them
    (:func:`mptsearch._kernels.dicut.separate_all`; these are valid cuts but not minimum ones).
    ``goal`` (per sub-DAG, default 1) is the flow its target must receive: a sub-DAG of a
    Steiner node v is separated with goal in(v) (the Steiner node cuts of the module docstring).
    O(one max-flow on D_R per request), the flow stopped as soon as it reaches ``1 - tol``."""
    from .._kernels.dicut import separate_all

    p = _packed(subdags)
    nreq = len(p.node_ptr) - 1
    todo = np.ones(nreq, dtype=np.bool_) if todo is None else np.asarray(todo, dtype=np.bool_)
    cap = 2 * (1 + nested) * int(todo.sum())  # two cuts (source and sink side) per round
    out_req = np.empty(cap, np.int64)
    out_val = np.empty(cap, np.float64)
    out_nptr = np.zeros(cap + 1, np.int64)
    out_aptr = np.zeros(cap + 1, np.int64)
    out_nodes = np.empty(max(1, cap * p.maxk), np.int64)
    out_arcs = np.empty(max(1, cap * p.maxa), np.int64)
    nc = separate_all(np.ascontiguousarray(x, dtype=np.float64), todo, p.node_ptr, p.nodes, p.arc_ptr, p.ltail,
                      p.lhead, p.garc, p.adj_ptr, p.adj_arc, float(tol), bool(back), int(nested), out_req, out_val,
                      out_nptr, out_nodes, out_aptr, out_arcs,
                      np.ones(nreq) if goal is None else np.ascontiguousarray(goal, dtype=np.float64))
    return [(int(out_req[c]), tuple(out_nodes[out_nptr[c]:out_nptr[c + 1]].tolist()),
             out_arcs[out_aptr[c]:out_aptr[c + 1]].copy()) for c in range(nc)]


@dataclass
class CutModel:
    """The cut LP's rows for one component in the form :mod:`mptsearch.verify.lpdual` reads:
    ``kinds[r]`` is ("in", v) (in(v) = 1 for a request, <= 1 otherwise), ("chunk", X, c)
    (x(X -> Y) <= in(X), c a chunk of Y - X) or ("cut", position of the request, node ids of S);
    ``lo[r]`` the row's lower bound (-inf for <= rows)."""

    graph: ClosureGraph
    kinds: list
    lo: list


@dataclass
class CutLP:
    """The cut loop's outcome for one component: ``value`` (a lower bound on the component's
    OPT_free, the last solved LP), ``cover_value`` (the first LP, the cover program's),
    ``x`` the LP solution, ``reduced`` the reduced costs, ``duals`` the row duals of ``model``,
    ``rounds``, ``cuts`` (active cut rows at the end, their arcs in ``cut_arcs``), ``converged`` (no violated cut left),
    ``seconds``, ``lp_seconds`` (HiGHS's share), ``history`` per solved LP (round, value, active
    cut rows, wall s, clock s, simplex iterations of that solve), ``solvers`` per solved LP the
    method ("simplex", or "ipx" for the interior point with crossover), ``readded`` the rows taken
    back from the pool."""

    value: float
    cover_value: float
    x: np.ndarray
    reduced: np.ndarray
    duals: np.ndarray
    model: CutModel
    rounds: int
    cuts: int
    cut_arcs: list
    converged: bool
    seconds: float
    lp_seconds: float
    history: list = field(default_factory=list)
    readded: int = 0
    solvers: list = field(default_factory=list)


def _base_rows(g: ClosureGraph):
    """The cover program's rows in their single-arc form (module docstring): (rows, lo, hi,
    kinds), rows as (arc ids, coefficients)."""
    into = _into_lists(g)
    is_request = set(g.requests)
    rows, lo, hi, kinds = [], [], [], []
    for v in range(1, len(g.sets)):
        rows.append((np.array(into[v], dtype=np.int32), np.ones(len(into[v]))))
        lo.append(1.0 if v in is_request else -np.inf)
        hi.append(1.0)
        kinds.append(("in", v))
    for a, (t, h) in enumerate(zip(g.tails.tolist(), g.heads.tolist())):
        if t == 0:
            continue
        extra = g.sets[h] & ~g.sets[t]
        c = (extra & -extra).bit_length() - 1
        idx = np.array([a] + into[t], dtype=np.int32)
        rows.append((idx, np.array([1.0] + [-1.0] * len(into[t]))))
        lo.append(-np.inf)
        hi.append(0.0)
        kinds.append(("chunk", t, c))
    return rows, lo, hi, kinds


def _add_rows(h, rows, lo, hi):
    if not rows:
        return
    starts, index, value = [], [], []
    for idx, val in rows:
        starts.append(len(index))
        index.extend(idx.tolist())
        value.extend(val.tolist())
    h.addRows(len(rows), np.array(lo, dtype=np.float64), np.array(hi, dtype=np.float64), len(index),
              np.array(starts, dtype=np.int32), np.array(index, dtype=np.int32), np.array(value, dtype=np.float64))


def _select(cands: list, x: np.ndarray, max_cuts: int | None, per_request: int | None) -> list:
    """The rows a round adds (:func:`cut_lp`'s ``max_cuts``, ``per_request``): ``cands`` as
    (kind, arcs) with kind ("cut", request, nodes), ranked within their request by x(δ⁻(S))
    ascending; those of rank >= ``per_request`` dropped; then ordered by (rank, x(δ⁻(S))) and
    the first ``max_cuts`` kept. O(c log c) for c candidates."""
    vals = [float(x[arcs].sum()) for _, arcs in cands]
    order = sorted(range(len(cands)), key=lambda i: (cands[i][0][1], vals[i]))
    rank, last, r = [0] * len(cands), None, 0
    for i in order:
        req = cands[i][0][1]
        r = r + 1 if req == last else 0
        rank[i], last = r, req
    keep = [i for i in range(len(cands)) if per_request is None or rank[i] < per_request]
    keep.sort(key=lambda i: (rank[i], vals[i]))
    if max_cuts is not None:
        keep = keep[:max_cuts]
    return [cands[i] for i in keep]


def cut_lp(g: ClosureGraph, *, deadline: float | None = None, max_rounds: int = 50, tol: float = TOL,
           back: bool = True, fixed_zero: np.ndarray | None = None, subdags: list | None = None,
           nested: int = NESTED, target: float | None = None, tail_rounds: int | None = None,
           tail_tol: float = TAIL_TOL, cuts: list = (), clock=time.perf_counter, max_cuts: int | None = None,
           per_request: int | None = None, drop_after: int = 2, highs_options: dict | None = None,
           cut_growth: float = 1.0, first_deadline: float | None = None,
           ipm_rows: int | None = None, ascent_cuts: list = ()) -> CutLP:
    """The cut LP of one component by the cut loop (module docstring).

    Parameters
    ----------
    g : ClosureGraph
    deadline : float, optional
        ``clock()`` value after which no new round starts (the last solved LP is kept: it is a
        bound whatever the round).
    first_deadline : float, optional
        A later ``clock()`` value for the first solve alone (the cover LP, from scratch: the
        slow one on large closures); when it ends past ``deadline`` the loop stops there, with
        the cover LP's value. Default: ``deadline``.
    max_rounds : int
        Separation rounds at most.
    back : bool
        Also add the sink-side (back) minimum cut of each violated request.
    fixed_zero : bool array, optional
        Arcs held at 0 (a branch of :mod:`mptsearch.exact.dcut_bnc`); the value is then a bound
        for the arborescences avoiding them only.
    nested : int
        Nested cuts per violated request after its minimum cuts (:func:`separate`).
    target : float, optional
        Stop as soon as the bound rounded up reaches it (an integer upper bound: the bound then
        proves it, more rounds cannot help).
    tail_rounds : int, optional
        Tailing off: stop when the last ``tail_rounds`` rounds raised the bound by less than
        ``tail_tol`` times its value in all (the branch-and-cut separates on in the tree).
    clock : callable
        ``time.perf_counter`` (wall seconds, the default) or ``time.process_time`` (CPU seconds
        of this process: fair on a shared machine). A solve in progress reads the same clock
        every simplex iteration and stops at ``deadline`` (:func:`stop_at`).
    cuts : list of (kind, arc ids)
        Cut rows to start from (a checkpoint's; each a valid row, whatever x), ``kind`` as in
        :class:`CutModel`.
    ascent_cuts : list of (kind, arc ids)
        More cut rows to start from, the dual ascent's (:mod:`mptsearch.exact.dual_ascent`):
        the first LP is then at least the ascent's bound. Unlike ``cuts`` they do not count
        towards ``ipm_rows``: the first solve stays a dual simplex one.
    max_cuts : int, optional
        New rows per round at most: the most violated cut of every violated request first,
        then the others by violation (x(δ⁻(S)) ascending); the rest are dropped (the next
        round separates again). The loop converges only on a round with no violated cut.
    per_request : int, optional
        New rows per request and round at most, the most violated first.
    cut_growth : float
        The cap ``max_cuts`` is multiplied by this after every round (round r adds at most
        ``max_cuts * cut_growth ** (r - 1)`` rows).
    drop_after : int
        Rounds a cut row must stay slack (x above 1 + tol, dual 0) before it goes to the pool.
    highs_options : dict, optional
        HiGHS options set after the loop's own (e.g. ``simplex_dual_edge_weight_strategy``).
    ipm_rows : int, optional
        A solve that follows the addition of at least this many rows (cuts of the round, rows
        back from the pool, or the starting ``cuts``) is done by HiGHS's interior-point solver
        (IPX) followed by crossover, which leaves an optimal basis for the warm dual simplex
        re-solves after it when the solve ends optimal (one that does not stops the loop at the
        previous LP); the others by the dual simplex. None: the dual simplex always.
        With a ``deadline``, an interior-point solve is not started when the last one took
        longer than the time left (it would be stopped unfinished; its time goes to what
        follows the loop).

    Notes
    -----
    Each round: one LP re-solve (warm) and one max-flow per request on D_R; rows are the
    component's nodes plus its non-root arcs plus the active cuts.
    """
    from .closure_program import _new_highs

    t0, c0 = time.perf_counter(), clock()
    subdags = request_subdags(g) if subdags is None else subdags
    h = _new_highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("presolve", "off")
    h.setOptionValue("solver", "simplex")
    for k, v in (highs_options or {}).items():
        h.setOptionValue(k, v)
    box = None
    if deadline is not None:
        box = stop_at(h, deadline if first_deadline is None else max(deadline, first_deadline), clock)
    na = len(g.tails)
    ub = np.ones(na)
    if fixed_zero is not None:
        ub[fixed_zero] = 0.0
    h.addVars(na, np.zeros(na), ub)
    h.changeColsCost(na, np.arange(na, dtype=np.int32), g.costs.astype(np.float64))
    rows, lo, hi, kinds = _base_rows(g)
    _add_rows(h, rows, lo, hi)
    nbase = len(rows)
    active: list = []  # (kind, arcs, slack rounds)
    pool: dict = {}  # row key -> (kind, arcs): dropped cuts, rechecked first
    keys: set = set()
    for i, start in enumerate((cuts, ascent_cuts)):
        first = []
        for kind, arcs in start:
            key = tuple(sorted(np.asarray(arcs).tolist()))
            if key not in keys:
                keys.add(key)
                first.append((kind, np.asarray(arcs, dtype=np.int64)))
        _add_rows(h, [(a.astype(np.int32), np.ones(len(a))) for _, a in first], [1.0] * len(first),
                  [np.inf] * len(first))
        active.extend((kind, arcs, 0) for kind, arcs in first)
        if i == 0:
            ncuts = len(active)
    lp_seconds = 0.0
    history, solvers = [], []
    cover = snap = None
    rounds, converged, readded = 0, False, 0
    pending = ncuts  # rows added since the last solve (the ascent's not counted)
    ipm_clock = None  # clock seconds of the last interior-point solve
    while True:
        ipm = ipm_rows is not None and pending >= ipm_rows
        if ipm and snap is not None and deadline is not None and ipm_clock is not None and \
                clock() + ipm_clock > deadline:
            break  # the last one would not finish in time: the time is left to what follows
        c1 = clock()
        if ipm_rows is not None:
            h.setOptionValue("solver", "ipx" if ipm else "simplex")
            h.setOptionValue("run_crossover", "on")
        s = time.perf_counter()
        h.run()
        lp_seconds += time.perf_counter() - s
        pending = 0
        if ipm:
            ipm_clock = clock() - c1
        if h.modelStatusToString(h.getModelStatus()) != "Optimal":
            break
        sol = h.getSolution()
        x = np.array(sol.col_value)
        duals = np.array(sol.row_dual)
        reduced = np.array(sol.col_dual)
        value = h.getInfo().objective_function_value
        if cover is None:
            cover = value
            if box is not None:
                box[0] = deadline
        snap = (value, x, reduced, duals, [kind for kind, _, _ in active], [arcs for _, arcs, _ in active])
        history.append((rounds, value, len(active), time.perf_counter() - t0, round(clock() - c0, 1),
                        h.getInfo().simplex_iteration_count))
        solvers.append("ipx" if ipm else "simplex")
        if rounds >= max_rounds or (deadline is not None and clock() >= deadline):
            break
        if target is not None and math.ceil(value - 1e-6) >= target:
            break
        if tail_rounds and len(history) > tail_rounds and \
                value - history[-1 - tail_rounds][1] < tail_tol * max(1.0, abs(value)):
            break
        # pool management: drop the cuts slack (and of dual 0) for two rounds in a row
        cut_duals = duals[nbase:]
        keep, drop = [], []
        for j, (kind, arcs, slack) in enumerate(active):
            loose = x[arcs].sum() > 1 + tol and abs(cut_duals[j]) < 1e-12
            slack = slack + 1 if loose else 0
            (drop if slack >= drop_after else keep).append((j, (kind, arcs, slack)))
        if drop:
            h.deleteRows(len(drop), np.array([nbase + j for j, _ in drop], dtype=np.int32))
            for _, (kind, arcs, _) in drop:
                key = tuple(sorted(arcs.tolist()))
                pool[key] = (kind, arcs)
                keys.discard(key)
            # the dropped rows have dual 0: the snapshot stays an optimal dual of what is left
            kept = np.array([j for j, _ in keep], dtype=np.int64)
            snap = (value, x, reduced, np.concatenate([duals[:nbase], cut_duals[kept]]),
                    [c[0] for _, c in keep], [c[1] for _, c in keep])
        active = [c for _, c in keep]
        new = []
        for key, (kind, arcs) in list(pool.items()):
            if x[arcs].sum() < 1 - tol:
                new.append((kind, arcs))
                del pool[key]
                readded += 1
        for r, nodes, arcs in separate(x, subdags, tol=tol, back=back, nested=nested):
            key = tuple(sorted(arcs.tolist()))
            if key in keys:
                continue
            pool.pop(key, None)
            new.append((("cut", r, nodes), arcs))
        rounds += 1
        if not new:
            converged = True
            break
        fresh, seen = [], set()
        for kind, arcs in new:
            key = tuple(sorted(arcs.tolist()))
            if key in keys or key in seen:
                continue
            seen.add(key)
            fresh.append((kind, arcs))
        if max_cuts is not None or per_request is not None:
            cap = None if max_cuts is None else int(max_cuts * cut_growth ** (rounds - 1))
            fresh = _select(fresh, x, cap, per_request)
        for _, arcs in fresh:
            keys.add(tuple(sorted(arcs.tolist())))
        _add_rows(h, [(a.astype(np.int32), np.ones(len(a))) for _, a in fresh], [1.0] * len(fresh),
                  [np.inf] * len(fresh))
        active.extend((kind, arcs, 0) for kind, arcs in fresh)
        pending = len(fresh)
    if snap is None:
        raise TimeoutError("the cut LP's first solve did not finish")
    value, x, reduced, duals, cutkinds, cutarcs = snap
    return CutLP(value=value, cover_value=cover, x=x, reduced=reduced, duals=duals,
                 model=CutModel(g, kinds + cutkinds, lo + [1.0] * len(cutkinds)), rounds=rounds,
                 cuts=len(cutkinds), cut_arcs=cutarcs, converged=converged,
                 seconds=time.perf_counter() - t0, lp_seconds=lp_seconds, history=history,
                 readded=readded, solvers=solvers)
