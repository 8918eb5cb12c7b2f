"""Prompt layout for a retrieval trace: every method, and the summary against production order.

Methods (per-line chunk orders; the cost of a layout is the total tokens of the prefix trie of
all lines, the prefill under an unbounded prefix cache), all on the sparse model
(:mod:`.sparse`):

- ``production``: relevance order, what is served today;
- ``popularity``: one global order, chunks by decreasing number of requests holding them
  (ties: more tokens first, then label order);
- ``global``: the best global order found: the exact OPT_glob subset DP on every connected
  component of the request-chunk graph small enough for it (components are independent: a trie
  node is shared only by requests sharing a chunk), popularity order on the others;
- ``greedy``: level-wise greedy hitting set (:mod:`mptsearch.heuristics.greedy`'s orders,
  computed on the sparse model by :mod:`.sparse_greedy`);
- ``agglomerative``: agglomerative common intersection (:mod:`.sparse_agglomerative`);
- ``peer``: average-linkage clustering baseline (:mod:`.peer`, quadratic: refused past the
  memory its m x m matrices need, with the size that fits);
- ``online``: batches of W arrivals against the trie of what was served (:mod:`.online`); it
  needs W: without one, :func:`layout_summary` skips it with a note and :func:`method_orders`
  refuses.

Any method but ``online`` can run under pinning (:mod:`.pinning`); ``online`` pins by itself.
The lower bound is the sparse MST bound (:func:`.sparse.mst_bound`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..instance import InstanceError
from . import memory
from .sparse import DEFAULT_EDGE_BUDGET, Layout, MSTBound, SparseTrace, _assemble, lex_rank, mst_bound, orders_cost

__all__ = ["METHODS", "Layout", "read_layout", "serving_rank", "popularity_order", "global_order", "method_orders",
           "LayoutRow", "LayoutSummary", "layout_summary", "GLOB_EXACT_N", "ONLINE_NEEDS_WINDOW", "as_sparse", "compile_kernels"]

METHODS = ("production", "popularity", "global", "greedy", "agglomerative", "peer", "online")
#: why ``online`` is not run without a window (the whole trace at once is the offline problem)
ONLINE_NEEDS_WINDOW = ("the online method needs a window W (--window W, window=W): the number of arrivals it may "
                       "hold back and reorder at a time; with the whole trace at once use an offline method "
                       "(agglomerative)")
GLOB_EXACT_N = 20  # components with at most this many chunks (and <= 64 requests) get the exact DP


def as_sparse(trace) -> SparseTrace:
    """A :class:`SparseTrace` from a SparseTrace, a small :class:`.trace.Trace` or an
    :class:`~mptsearch.instance.Instance` (one line per request, chunk ids kept)."""
    if isinstance(trace, SparseTrace):
        return trace
    if hasattr(trace, "instance"):
        inst, lines, ids = trace.instance, trace.lines, list(trace.ids)
    else:
        inst, lines, ids = trace, trace.orders, list(range(trace.m))
    lens = np.array([len(s) for s in lines], dtype=np.int64)
    indptr = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    seq = np.fromiter((x for s in lines for x in s), dtype=np.int32, count=int(indptr[-1]))
    return _assemble(ids, inst.labels, inst.weights, indptr, seq)


def _expand(tr: SparseTrace, req_indptr: np.ndarray, req_seq: np.ndarray) -> Layout:
    """Per-line orders from per-distinct-request orders."""
    from ._sparse_kernels import take_ranges

    lens = np.diff(req_indptr)[tr.line_request]
    indptr = np.zeros(tr.size + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    return Layout(indptr, take_ranges(req_seq, req_indptr[tr.line_request], lens))


def _by_rank(tr: SparseTrace, rank: np.ndarray) -> Layout:
    """Every line's chunks sorted by ``rank`` (a global order; ties kept in line order): one
    compiled sort per line of the keys rank * L + position (L the longest line), all distinct."""
    from ._sparse_kernels import sort_rows

    lens = np.diff(tr.indptr)
    if not len(tr.chunks):
        return Layout(tr.indptr, tr.chunks.copy())
    L = int(lens.max())
    start = np.repeat(tr.indptr[:-1], lens)
    key = np.asarray(rank, dtype=np.int64)[tr.chunks] * L + (np.arange(len(tr.chunks), dtype=np.int64) - start)
    return Layout(tr.indptr, tr.chunks[start + sort_rows(tr.indptr, key) % L])


def popularity_order(tr: SparseTrace) -> np.ndarray:
    """Chunk ids by decreasing request count, then decreasing weight, then id."""
    count = np.bincount(tr.req_chunks, minlength=tr.n)
    return np.lexsort((np.arange(tr.n), -tr.weights, -count))


def _components(tr: SparseTrace) -> tuple[int, np.ndarray]:
    """(number of components, component of every distinct request) of the request-chunk graph."""
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

    rows = np.repeat(np.arange(tr.m), np.diff(tr.req_indptr))
    A = sparse.csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, tr.req_chunks + tr.m)),
                          shape=(tr.m + tr.n, tr.m + tr.n))
    k, lab = connected_components(A, directed=False)
    return k, lab[:tr.m]


def global_order(tr: SparseTrace, exact_n: int = GLOB_EXACT_N) -> tuple[list[int], int, int]:
    """(a global chunk order, components solved exactly, components in all).

    Exact OPT_glob on each component with at most ``exact_n`` chunks and 64 requests, the
    popularity order on the rest; so the order is optimal among global orders when every
    component was solved exactly."""
    from ..exact.glob import opt_glob
    from ..instance import from_lists

    tr = as_sparse(tr)
    pop = popularity_order(tr)
    pop_rank = np.empty(tr.n, dtype=np.int64)
    pop_rank[pop] = np.arange(tr.n)
    _, comp = _components(tr)
    reqs_of = np.argsort(comp, kind="stable")
    cuts = np.flatnonzero(np.diff(comp[reqs_of])) + 1
    order: list[int] = []
    exact = 0
    groups = np.split(reqs_of, cuts) if tr.m else []
    for reqs in groups:
        rows = [tr.req_chunks[tr.req_indptr[i]:tr.req_indptr[i + 1]].tolist() for i in reqs.tolist()]
        chunks = sorted({x for r in rows for x in r})
        if len(chunks) <= exact_n and len(reqs) <= 64:
            sub = from_lists(rows, {x: int(tr.weights[x]) for x in chunks})
            order.extend(sub.labels[x] for x in opt_glob(sub).order)
            exact += 1
        else:
            order.extend(sorted(chunks, key=pop_rank.__getitem__))
    return order, exact, len(groups)


def _peer_layout(tr: SparseTrace) -> tuple[Layout, str]:
    memory.check("peer", tr.m, tr.nnz)
    from .peer import peer_layout

    lay = peer_layout(tr.to_instance())[0]
    lens = np.array([len(s) for s in lay], dtype=np.int64)
    ip = np.zeros(len(lay) + 1, dtype=np.int64)
    np.cumsum(lens, out=ip[1:])
    seq = np.fromiter((x for s in lay for x in s), dtype=np.int32, count=int(ip[-1]))
    return _expand(tr, ip, seq), ""


def _free_orders(tr: SparseTrace, method: str) -> tuple[Layout, str]:
    """Orders of ``method`` (not online), unpinned."""
    if method == "production":
        return Layout(tr.indptr, tr.chunks), ""
    if method == "popularity":
        rank = np.empty(tr.n, dtype=np.int64)
        rank[popularity_order(tr)] = np.arange(tr.n)
        return _by_rank(tr, rank), ""
    if method == "global":
        order, exact, ncomp = global_order(tr)
        # the order names the chunks of the requests; under pinning the free trace keeps the
        # parent's chunk ids, some of which are only ever pinned (in no free part): last, unused
        rank = np.full(tr.n, tr.n, dtype=np.int64)
        rank[np.asarray(order, dtype=np.int64)] = np.arange(len(order))
        return _by_rank(tr, rank), f"exact OPT_glob on {exact} of {ncomp} components"
    if method == "agglomerative":
        from .sparse_agglomerative import sparse_agglomerative

        memory.check(method, tr.m, tr.nnz)
        r = sparse_agglomerative(tr)
        note = "" if r.exact else f"{r.truncated} nearest-neighbour searches cut at the holder cap"
        return _expand(tr, r.indptr, r.order), note
    if method == "greedy":
        from .sparse_greedy import sparse_greedy

        memory.check(method, tr.m, tr.nnz)
        return _expand(tr, tr.req_indptr, sparse_greedy(tr)), ""
    if method == "peer":
        return _peer_layout(tr)
    raise InstanceError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")


def method_orders(trace, method: str, *, window: int | None = None, pin: int = 0) -> tuple[Layout, str]:
    """(per-line chunk orders, note) of ``method`` on ``trace`` (sparse or small)."""
    tr = as_sparse(trace)
    if pin < 0:
        raise InstanceError(f"--pin must be >= 0, got {pin}")
    if method == "online":
        from .online import online_orders

        if window is None:
            raise InstanceError(ONLINE_NEEDS_WINDOW)
        W = window
        seq = online_orders(tr.indptr, tr.chunks, tr.weights, W, pin).astype(np.int32)
        note = f"W={W}" + (f"; top-{pin} pinned last" if pin else "")
        return Layout(tr.indptr, seq), note
    if method not in METHODS:
        raise InstanceError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    if pin == 0:
        return _free_orders(tr, method)
    from .pinning import pinned_orders

    lay, note = pinned_orders(tr, pin, lambda free: _free_orders(free, method))
    return lay, "; ".join(n for n in (note, f"top-{pin} pinned last") if n)


@dataclass(frozen=True)
class LayoutRow:
    method: str
    cost: int
    saved: int
    saved_pct: float
    seconds: float
    note: str = ""


@dataclass
class LayoutSummary:
    """Prefill tokens under an unbounded prefix cache for each method, against production."""

    lines: int
    requests: int
    chunks: int
    no_cache: int
    production: int
    lower_bound: int
    bound_exact: bool = True
    bound_seconds: float = 0.0
    bound: MSTBound | None = None
    edge_budget: int = DEFAULT_EDGE_BUDGET
    rows: list = field(default_factory=list)
    orders: dict = field(default_factory=dict)
    weights: np.ndarray | None = None

    def row(self, method: str, orders: Layout, seconds: float, note: str = "") -> LayoutRow:
        cost = orders_cost(self.weights, orders.indptr, orders.seq)
        saved = self.production - cost
        if saved < 0:  # a layout method that loses what relevance order shares: say so in its row
            note = "; ".join(n for n in (f"WORSE than production order (+{100.0 * -saved / self.production:.2f}% "
                                         "prefill)", note) if n)
        r = LayoutRow(method, cost, saved, 100.0 * saved / self.production, seconds, note)
        self.rows.append(r)
        self.orders[method] = orders
        return r

    def table(self) -> str:
        out = [f"{self.lines} requests ({self.requests} distinct), {self.chunks} distinct chunks, "
               f"{self.no_cache} tokens without a cache",
               f"{'method':<22}{'prefill':>12}{'saved':>12}{'saved %':>9}{'seconds':>9}  note"]
        for r in self.rows:
            if r.cost < 0:
                out.append(f"{r.method:<22}{'-':>12}{'-':>12}{'-':>9}{'':>9}  {r.note}")
                continue
            out.append(f"{r.method:<22}{r.cost:>12}{r.saved:>12}{r.saved_pct:>8.2f}%{r.seconds:>9.2f}  {r.note}")
        if self.bound_seconds < 0:
            return "\n".join(line.rstrip() for line in out)
        lb = self.production - self.lower_bound
        out.append(f"{'MST lower bound':<22}{self.lower_bound:>12}{lb:>12}{100.0 * lb / self.production:>8.2f}%"
                   f"{'':>9}  {self.bound_note()}")
        out.extend(self.bound_advice())
        return "\n".join(line.rstrip() for line in out)

    def bound_note(self) -> str:
        """The bound row's note: what it proves, and whether it was relaxed or says nothing."""
        b = self.bound
        if b is not None and b.vacuous:
            return "vacuous: no better than computing each distinct chunk once"
        if self.bound_exact:
            return "no layout can save more"
        return f"no layout can save more (relaxed at {b.hot_chunks} hot chunks: may be loose)"

    def bound_advice(self) -> list[str]:
        """Lines after the table when the bound was relaxed: how to get the exact one."""
        b = self.bound
        if b is None or b.exact:
            return []
        need, _ = memory.estimate("mst", self.requests, 0, edges=b.all_pairs)
        have = memory.available()
        head = (f"  the bound is relaxed: {b.hot_chunks} popular chunks have too many request pairs for the "
                f"{self.edge_budget:,}-edge budget")
        if need <= have:
            return [head + f"; --bound-edges {b.all_pairs} computes it exactly (about {memory.fmt(need)})"]
        return [head + f"; the exact bound needs {b.all_pairs:,} edges (about {memory.fmt(need)}, more than the "
                       f"{memory.fmt(have)} available): a larger --bound-edges tightens it partly"]

    def to_json(self) -> dict:
        return {"requests": self.lines, "distinct_requests": self.requests, "chunks": self.chunks,
                "tokens_without_cache": self.no_cache, "production": self.production,
                "lower_bound": self.lower_bound if self.bound_seconds >= 0 else None,
                "lower_bound_exact": self.bound_exact if self.bound_seconds >= 0 else None,
                "lower_bound_vacuous": self.bound.vacuous if self.bound is not None else None,
                "trivial_bound": self.bound.trivial if self.bound is not None else None,
                "hot_chunks": self.bound.hot_chunks if self.bound is not None else None,
                "exact_bound_edges": self.bound.all_pairs if self.bound is not None else None,
                "edge_budget": self.edge_budget if self.bound is not None else None,
                "bound_seconds": round(self.bound_seconds, 3) if self.bound_seconds >= 0 else None,
                "methods": [{"method": r.method, "prefill": r.cost if r.cost >= 0 else None,
                             "saved": r.saved if r.cost >= 0 else None,
                             "saved_pct": round(r.saved_pct, 4) if r.cost >= 0 else None,
                             "seconds": round(r.seconds, 3), "note": r.note} for r in self.rows]}


def layout_summary(trace, methods=METHODS, *, window: int | None = None, pin: int = 0,
                   refuse_ok: bool = False, bound: bool = True, progress=None,
                   edge_budget: int = DEFAULT_EDGE_BUDGET) -> LayoutSummary:
    """Run each method on the trace and summarise; see the module docstring.

    With ``refuse_ok`` a method refused for memory (:class:`.memory.MemoryRefusal`) becomes a
    row saying so instead of stopping the run. ``online`` without a ``window`` is a row saying
    it was skipped. ``progress``, if given, is called with the name of each step (``"bound"``,
    then each method) as it starts. ``edge_budget``: the MST bound's (:func:`.sparse.mst_bound`)."""
    tr = as_sparse(trace)
    step = progress or (lambda name: None)
    t0 = time.perf_counter()
    if bound:
        step("bound")
        deg = np.bincount(tr.req_chunks, minlength=tr.n)
        memory.check("mst", tr.m, tr.nnz, edges=min(edge_budget, int((deg * (deg - 1) // 2).sum())) + tr.nnz)
    b = mst_bound(tr, edge_budget=edge_budget) if bound else None
    s = LayoutSummary(tr.size, tr.m, tr.n, tr.tokens(), tr.production_cost(),
                      b.value if b else 0, b.exact if b else False,
                      time.perf_counter() - t0 if bound else -1.0, bound=b, edge_budget=edge_budget,
                      weights=tr.weights)
    for method in methods:
        step(method)
        if method == "online" and window is None:
            s.rows.append(LayoutRow("online", -1, 0, 0.0, 0.0, "skipped: needs --window W (arrivals reordered "
                                                                "at a time)"))
            continue
        t0 = time.perf_counter()
        try:
            orders, note = method_orders(tr, method, window=window, pin=pin)
        except memory.MemoryRefusal as exc:
            if not refuse_ok:
                raise
            s.rows.append(LayoutRow(method, -1, 0, 0.0, 0.0, f"refused: {exc}"))
            continue
        name = method if method != "online" else f"online ({note})"
        s.row(name, orders, time.perf_counter() - t0, note if method != "online" else "")
    return s


def compile_kernels() -> None:
    """Compile (or load from numba's on-disk cache) the kernels of every method, pinned and not,
    of both MST bound paths, of the trace reader and of the ``-o`` writer, on a four-line trace (milliseconds of work
    once compiled), so that a command compiles before its clock starts, as ``enumerate`` does
    (:func:`mptsearch.enumerate.run.compile_kernels`)."""
    from .sparse import sparse_from_lists

    import io

    from .fastread import compile_kernels as compile_reader
    from .fastwrite import write_layout

    compile_reader()
    tr = sparse_from_lists([["a", "b", "c"], ["b", "a", "d"], ["c", "b"], ["a", "b", "c"]])
    for pin in (0, 1):
        s = layout_summary(tr, METHODS, window=2, pin=pin, refuse_ok=True)
    mst_bound(tr, edge_budget=0)  # every chunk hot: the partner upper bound
    write_layout(io.BytesIO(), tr, s.orders["production"], serving_rank(s.orders["production"]))  # what -o runs


def serving_rank(orders: Layout) -> np.ndarray:
    """Rank of every line in the DFS order of the layout's trie (Theorem 7's schedule)."""
    order = lex_rank(orders.indptr, orders.seq)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank


def read_layout(tr: SparseTrace, path: str) -> Layout:
    """Per-line orders written by ``mptsearch layout --out`` for ``tr``: line j must hold
    exactly the chunks of the trace's line j (extra fields such as ``serve`` are ignored)."""
    from .sparse import read_sparse

    lay = read_sparse(path)
    if lay.size != tr.size:
        raise InstanceError(f"layout {path} has {lay.size} requests, the trace has {tr.size}")
    index = {lab: x for x, lab in enumerate(tr.labels)}
    to_trace = np.array([index.get(lab, -1) for lab in lay.labels], dtype=np.int64)
    seq = to_trace[lay.chunks]
    if not np.array_equal(lay.indptr, tr.indptr):
        j = int(np.flatnonzero(np.diff(lay.indptr) != np.diff(tr.indptr))[0])
        raise InstanceError(f"{path} line {j + 1}: its chunks are not those of trace line {j + 1}")
    rows = np.repeat(np.arange(tr.size), np.diff(tr.indptr))
    a = seq[np.lexsort((seq, rows))]
    b = tr.chunks[np.lexsort((tr.chunks, rows))]
    bad = np.flatnonzero(a != b)
    if len(bad):
        j = int(rows[bad[0]])
        raise InstanceError(f"{path} line {j + 1}: its chunks are not those of trace line {j + 1}")
    return Layout(tr.indptr, seq.astype(np.int32))
