"""Field and row order of a table: a portfolio of layout methods on the free trace, the best
kept, scored against the given order, GGR's PHC and a lower bound.

Methods (each a per-row order of the free trace's chunks, :mod:`.model`):

- ``given``: the table's column order;
- ``agglomerative``: agglomerative common intersection (:mod:`mptsearch.serving.sparse_agglomerative`;
  its savings are at least half the optimum's, paper Section 6);
- ``greedy``: the level-wise greedy hitting set (Proposition 3), the most-held value first;
- ``ggr``: GGR's rule (:func:`ggr_layout`): the value with the largest hit count
  ``(rows - 1) * tokens^2`` first, the same recursion (one compiled kernel with the greedy,
  :func:`mptsearch.serving._greedy_kernels.level_orders`);
- ``ggr-chars``: the same with GGR's own length, the characters of the value (of the group's
  values for a merged FD group), which is what GGR's code computes (its FD weighting aside);
- ``popularity``: one global column-value order, most-held first;
- ``class-orders``: the cheapest of the class orders (docs/approximation.md), small tables only;
- ``closure``: the closure program's layout (its Steiner-set local search and 0/1 program, the
  improvement step), when :func:`.bound.free_lower_bound` ran it.

``portfolio`` runs all of them and keeps the cheapest (ties: the earlier in this list). Every
cost is the trie's (one evaluator, :func:`mptsearch.serving.sparse.orders_cost`); rows are then
served in the trie's DFS order, where consecutive-row hits equal the unbounded cache
(Theorem 7, Section 8), so GGR's PHC in tokens is ``tokens - prefill``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..instance import InstanceError
from ..serving.layout import _expand, method_orders
from ..serving.sparse import Layout, orders_cost
from .bound import FreeBound, free_lower_bound, layout_arrays
from .model import TableModel

__all__ = ["METHODS", "PORTFOLIO", "RUN_ORDER", "TableLayout", "reorder_model", "phc", "ggr_layout", "level_layout",
           "method_seconds",
           "CLASS_ORDERS_MAX_N"]

PORTFOLIO = ("agglomerative", "greedy", "ggr", "ggr-chars", "popularity", "class-orders", "closure")
METHODS = ("portfolio", "given") + PORTFOLIO
CLASS_ORDERS_MAX_N = 200  # class orders cost O(n^3): distinct free chunks past this are skipped


def phc(seqs: np.ndarray, order: np.ndarray, fweights: np.ndarray, fchars: np.ndarray) -> tuple[int, int]:
    """GGR's prefix hit count of the rows ``seqs[order]`` served one after another: over
    consecutive rows, the fields of their common leading run, summed as (tokens, squared
    characters) (the second is GGR's PHC, ``len(value)^2`` per hit field). O(rows x columns)."""
    S = seqs[order]
    if len(S) < 2:
        return 0, 0
    run = np.logical_and.accumulate(S[1:] == S[:-1], axis=1)
    hit = S[1:][run]
    return int(fweights[hit].sum()), int((fchars[hit] ** 2).sum())


def ggr_layout(tr, length: np.ndarray | None = None, deadline: float | None = None) -> tuple[Layout, str]:
    """(per-line orders, note) of GGR's rule (the module docstring) on the free trace ``tr``, a
    chunk's length its tokens (``length`` None) or ``length[x]`` (GGR's own: the value's
    characters); ties by the larger length, then the smaller chunk id. ``deadline``: a
    ``time.perf_counter()`` value read inside the rule (:func:`level_layout`)."""
    size = tr.weights if length is None else np.asarray(length, dtype=np.int64)
    return level_layout(tr, size.astype(np.float64) ** 2, size, deadline)


def level_layout(tr, score: np.ndarray, size: np.ndarray, deadline: float | None = None) -> tuple[Layout, str]:
    """(per-line orders, note) of the level-wise rule with chunk scores ``score`` (all 1: the
    greedy hitting set of Proposition 3; a squared length: GGR's rule), ties by the larger
    ``size``, then the smaller chunk id (:func:`mptsearch.serving._greedy_kernels.level_orders`).

    ``deadline`` (a ``time.perf_counter()`` value; None: none) is read inside the rule: once it
    has passed, the fields it has not placed yet follow in the popularity order (most-held
    first), which is a valid layout, and the note says in how many distinct rows."""
    from ..serving._greedy_kernels import level_orders
    from ..serving.layout import popularity_order

    by_rank = np.lexsort((np.arange(tr.n), -np.asarray(size))).astype(np.int64)
    rank = np.empty(tr.n, dtype=np.int64)
    rank[by_rank] = np.arange(tr.n, dtype=np.int64)
    fallback = np.empty(tr.n, dtype=np.int64)
    fallback[popularity_order(tr)] = np.arange(tr.n, dtype=np.int64)
    wall = np.inf if deadline is None else time.time() + (deadline - time.perf_counter())
    seq, cut = level_orders(tr.req_indptr, tr.req_chunks, np.ascontiguousarray(score, dtype=np.float64), rank,
                            by_rank, fallback, wall)
    note = "" if not cut else (f"cut short by the time limit: in {cut} of {tr.m} distinct rows the fields it had "
                               "not placed follow in popularity order")
    return _expand(tr, tr.req_indptr, seq), note


def _class_orders(tr) -> Layout | None:
    if tr.n > CLASS_ORDERS_MAX_N:
        return None
    from ..heuristics.approximation import class_orders

    layout, _ = class_orders(tr.to_instance())
    return _expand(tr, *layout_arrays(layout))


@dataclass
class MethodRow:
    method: str
    prefill: int | None
    seconds: float
    note: str = ""


@dataclass
class TableLayout:
    """What :func:`reorder_model` returns.

    ``field_orders[i]``: row i's prompt columns in prompt order (column indices); ``serve``: the
    row indices in serving order; ``prefill``: tokens computed with a prefix cache holding one
    row, rows served in ``serve`` (= the unbounded cache, Theorem 7); ``given_prefill`` the same
    for the table as given (its column and row order); ``no_cache`` all tokens; ``phc`` /
    ``phc_squared`` GGR's prefix hit counts of the written order (tokens / squared characters),
    ``given_phc*`` of the given one; ``lower_bound`` no order of the rows' fields can cost less
    (``bound_how`` says which method proved it; None when not computed)."""

    method: str
    field_orders: np.ndarray
    serve: np.ndarray
    prefill: int
    given_prefill: int
    no_cache: int
    phc: int
    phc_squared: int
    given_phc: int
    given_phc_squared: int
    lower_bound: int | None
    bound_how: str
    optimal: bool
    rows: list = field(default_factory=list)
    seconds: float = 0.0
    bound_note: str = ""

    @property
    def saved(self) -> int:
        return self.given_prefill - self.prefill

    @property
    def gap(self) -> float | None:
        """(prefill - lower bound) / prefill, or None without a bound."""
        if self.lower_bound is None:
            return None
        return (self.prefill - self.lower_bound) / self.prefill if self.prefill else 0.0


#: the order the portfolio runs its methods in under a time budget: GGR's rule first (so the
#: written layout is never worse than it, unless the deadline cut the rule short, which its note
#: says), then by cost
RUN_ORDER = ("ggr", "ggr-chars", "greedy", "popularity", "agglomerative", "class-orders", "closure")


def method_seconds(tr, method: str) -> float:
    """Estimated CPU seconds of ``method`` on the free trace ``tr`` (work x a rate measured on
    this project's 2-core machine, conservative; a method whose estimate does not fit the time
    left is skipped)."""
    k = tr.nnz / max(1, tr.m)
    if method in ("ggr", "ggr-chars", "greedy"):
        return 1e-7 * tr.nnz * k
    if method == "popularity":
        return 4e-7 * tr.nnz
    if method == "agglomerative":
        return 7e-8 * tr.nnz * np.sqrt(tr.m)
    if method == "class-orders":
        return 0.0 if tr.n > CLASS_ORDERS_MAX_N else 1e-6 * tr.n ** 3
    return 0.0


def _free_layout(tr, method: str, model: TableModel | None = None,
                 deadline: float | None = None) -> tuple[Layout | None, str]:
    if method in ("agglomerative", "popularity"):
        return method_orders(tr, method)
    if method == "greedy":
        from ..serving import memory

        memory.check(method, tr.m, tr.nnz)
        return level_layout(tr, np.ones(tr.n), tr.weights, deadline)
    if method == "ggr":
        return ggr_layout(tr, deadline=deadline)
    if method == "ggr-chars":
        lay, note = ggr_layout(tr, model.chunk_chars, deadline)
        return lay, "; ".join(x for x in ("lengths in characters, as GGR's code", note) if x)
    if method == "class-orders":
        lay = _class_orders(tr)
        return lay, "" if lay is not None else f"skipped: more than {CLASS_ORDERS_MAX_N} distinct free chunks"
    raise InstanceError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")


def reorder_model(model: TableModel, method: str = "portfolio", *, bound: bool = True,
                  closure: bool = True, time_limit: float = 10.0, budget: float | None = None,
                  start: float | None = None, progress=None) -> TableLayout:
    """Order the fields of every row and the rows of ``model`` (the module docstring).

    ``bound``: compute the lower bound (:func:`.bound.free_lower_bound`); ``closure``: let it
    try the directed-cut program (with ``time_limit`` seconds at most), whose layout joins the
    portfolio. ``budget``: seconds for the whole job, counted from ``start`` (a
    ``time.perf_counter()`` value; default now): the portfolio runs its methods in
    :data:`RUN_ORDER` and skips one whose estimate (:func:`method_seconds`) does not fit the time
    left (GGR's rule always runs, up to the deadline, which it reads inside), the bound gets what
    is left; None: no budget.
    """
    if method not in METHODS:
        raise InstanceError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    step = progress or (lambda name: None)
    t_start = time.perf_counter()
    deadline = None if budget is None else (t_start if start is None else start) + budget
    left = (lambda: float("inf")) if deadline is None else (lambda: deadline - time.perf_counter())
    tr = model.trace
    given_orders = model.field_orders(None)
    given_seqs = model.sequences(given_orders)
    no_cache = model.tokens()
    g_phc, g_sq = phc(given_seqs, np.arange(model.rows), model.fweights, model.fchars)
    rows: dict = {}
    given_cost = model.cost(given_seqs)
    best = ("given", None, given_cost, -1)  # (method, free layout, table cost, rank in PORTFOLIO)
    rows["given"] = MethodRow("given", given_cost, 0.0, "the table's column order")
    fb: FreeBound | None = None
    fixed_extra = 0
    if tr is not None:
        # first + last tokens, the same for every layout that keeps each FD group together (0
        # without fixed columns: the free trace's chunks are then the table's fields, groups merged)
        if model.first or model.last:
            prod = Layout(tr.indptr, tr.chunks)
            fixed_extra = model.cost(model.sequences(model.field_orders(prod))) - orders_cost(tr.weights, tr.indptr,
                                                                                              tr.chunks)
        wanted = PORTFOLIO if method == "portfolio" else (method,) if method != "given" else ()
        for name in [m for m in RUN_ORDER if m in wanted and m != "closure"]:
            est = method_seconds(tr, name)
            if method == "portfolio" and name != "ggr" and est > left():
                why = "the time limit was reached" if left() <= 0 else f"about {est:.0f} s, more than the time left"
                rows[name] = MethodRow(name, None, 0.0, f"skipped: {why}")
                continue
            step(name)
            t0 = time.perf_counter()
            lay, note = _free_layout(tr, name, model, deadline)
            secs = time.perf_counter() - t0
            if lay is None:
                rows[name] = MethodRow(name, None, secs, note)
                continue
            cost = fixed_extra + orders_cost(tr.weights, lay.indptr, lay.seq)
            rows[name] = MethodRow(name, cost, secs, note)
            rank = PORTFOLIO.index(name)
            if method != "portfolio" or (cost, rank) < (best[2], best[3]):
                best = (name, lay, cost, rank)
        if bound or "closure" in wanted:
            step("bound")
            fb = free_lower_bound(tr, closure=closure or "closure" in wanted, time_limit=time_limit, deadline=deadline)
        if "closure" in wanted:
            if fb is None or fb.layout is None:
                rows["closure"] = MethodRow("closure", None, fb.seconds if fb else 0.0,
                                            fb.note if fb and fb.note else "not run")
            else:
                lay = _expand(tr, *layout_arrays(fb.layout))
                cost = fixed_extra + orders_cost(tr.weights, lay.indptr, lay.seq)
                rows["closure"] = MethodRow("closure", cost, fb.seconds, fb.how)
                if method != "portfolio" or (cost, PORTFOLIO.index("closure")) < (best[2], best[3]):
                    best = ("closure", lay, cost, PORTFOLIO.index("closure"))
    name, lay, cost, _ = best
    fo = given_orders if lay is None else model.field_orders(lay)
    seqs = given_seqs if lay is None else model.sequences(fo)
    if lay is not None and model.cost(seqs) != cost:  # the decomposition of .model, checked
        raise AssertionError(f"{name}: table cost {model.cost(seqs)} != {cost} (free cost + {fixed_extra})")
    serve = model.serve_order(seqs)
    p_tok, p_sq = phc(seqs, serve, model.fweights, model.fchars)
    if p_tok != no_cache - cost:  # Theorem 7: consecutive hits in DFS order = the unbounded cache
        raise AssertionError(f"PHC {p_tok} in DFS order but the trie saves {no_cache - cost}")
    lb, how, optimal = None, "", False
    if fb is not None:
        lb = fixed_extra + fb.value
        how = fb.how
        optimal = cost == lb
    elif tr is None:
        lb, how, optimal = cost, "no free column", True
    shown = [rows[m] for m in ("given",) + PORTFOLIO if m in rows]
    return TableLayout(name, fo, serve, cost, no_cache - g_phc, no_cache, p_tok, p_sq, g_phc, g_sq,
                       lb, how, optimal, shown, time.perf_counter() - t_start, fb.note if fb else "")


def compile_kernels() -> None:
    """Compile (or load from numba's on-disk cache) the kernels the portfolio and its bounds
    call, on a four-row table (milliseconds once compiled), so that a command compiles before
    its clock starts: a first run's compilation is not charged to ``--time-limit``."""
    from .io import Table
    from .model import table_model

    body = [["a", "x", "p"], ["a", "y", "p"], ["b", "x", "q"], ["b", "y", "p"]]
    model = table_model(Table(["c0", "c1", "c2"], body, [list(c) for c in zip(*body)]), last=["c2"])
    reorder_model(model, bound=True, time_limit=1.0)
