"""Lower bounds on the free trace's prefill, behind one function (:func:`free_lower_bound`).

The bounds, the largest kept:

- the trivial bound (every distinct chunk computed once), any size;
- the MST bound (:func:`mptsearch.serving.sparse.mst_bound`; paper, Section 6.4), when its
  estimated time fits the time left; where the directed-cut program will not run, it gets more
  pair edges (fewer hot chunks over-estimated, a higher bound) from up to half the time left, at
  most ``time_limit`` seconds and :data:`MST_MAX_EDGES` edges;
- the directed-cut program (:func:`mptsearch.exact.dcut_bnc.opt_free_dcut`: the closure form
  of Theorem 1 with the directed cuts of :mod:`mptsearch.exact.dcut`, whose LP is at least the
  cover program's), on tables small enough for the intersection closure (at most ``max_rows``
  distinct rows and ``max_sets`` closure sets per component, fewer when the time left is
  short), within a time limit: its root cut-LP or branch-and-cut bound. Its layout (the
  LP-guided Steiner-set local search and the 0/1 program on the LP's support: the improvement
  step) is returned as well, and when it proves that layout optimal the bound equals its cost.

Everything else calls this one function and reads a :class:`FreeBound`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..serving.sparse import DEFAULT_EDGE_BUDGET, SparseTrace, mst_bound

__all__ = ["FreeBound", "free_lower_bound", "mst_seconds", "CLOSURE_MAX_ROWS", "CLOSURE_MAX_SETS"]

CLOSURE_MAX_ROWS = 5_000  #: distinct requests past which the closure program is not tried
CLOSURE_MAX_SETS = 20_000  #: closure sets per component past which it gives up (ClosureTooLarge)
#: closure-building work per second (request x closure-set meets; CPU, this project's 2-core
#: machine): the closure is tried with at most ``rate * seconds left / rows`` sets
CLOSURE_MEETS_PER_S = 2e6
#: CPU seconds per edge of the MST bound (this project's 2-core machine), and the most edges it is
#: given (about 1.1 GB peak at 4e7 edges, measured on LLM-SQL's contributions.csv)
MST_SECONDS_PER_EDGE = 2.5e-7
MST_MAX_EDGES = 40_000_000


@dataclass
class FreeBound:
    """``value`` <= the free trace's optimum; ``how`` names the method that gave it; ``optimal``
    is True when a layout of cost ``value`` is known (``layout``: per distinct request)."""

    value: int
    how: str
    optimal: bool = False
    layout: list | None = None
    upper: int | None = None
    seconds: float = 0.0
    note: str = ""


def mst_seconds(tr: SparseTrace, edge_budget: int = DEFAULT_EDGE_BUDGET) -> float:
    """Estimated CPU seconds of :func:`mst_bound` on ``tr`` (from the pairs its edges need and,
    when some chunk is hot, the per-holder partner search; rates measured on this project's
    2-core machine, conservative)."""
    deg = np.bincount(tr.req_chunks, minlength=tr.n).astype(np.int64)
    pairs = int((deg * (deg - 1) // 2).sum())
    hot = pairs > edge_budget
    return MST_SECONDS_PER_EDGE * min(pairs, edge_budget) + (2.4e-7 * 64 * tr.nnz if hot else 0.0)


def free_lower_bound(tr: SparseTrace, *, closure: bool = True, time_limit: float = 10.0,
                     max_rows: int = CLOSURE_MAX_ROWS, max_sets: int = CLOSURE_MAX_SETS,
                     deadline: float | None = None) -> FreeBound:
    """The best lower bound available on OPT_free of ``tr`` (module docstring).

    ``time_limit``: seconds for the directed-cut program (or the MST bound's extra edges) at most; ``deadline``: a
    ``time.perf_counter()`` value by which the whole step should end (the MST bound is skipped
    when its estimate does not fit, the program gets what is left, at most ``time_limit``)."""
    t0 = time.perf_counter()
    left = (lambda: float("inf")) if deadline is None else (lambda: deadline - time.perf_counter())
    deg = np.bincount(tr.req_chunks, minlength=tr.n)
    best = FreeBound(int(tr.weights[deg > 0].sum()), "trivial: every distinct field once")
    est = mst_seconds(tr)
    if est <= left():
        budget = DEFAULT_EDGE_BUDGET
        if not (closure and 1 < tr.m <= max_rows):  # no closure program to leave time for: more edges
            spare = min(0.5 * left(), time_limit) - est
            if spare > 0:
                budget = int(min(MST_MAX_EDGES, DEFAULT_EDGE_BUDGET + spare / MST_SECONDS_PER_EDGE))
        mst = mst_bound(tr, edge_budget=budget)
        if mst.value > best.value:
            best = FreeBound(int(mst.value), "MST" if mst.exact else "MST (hot chunks over-estimated)")
    else:
        best.note = f"MST bound skipped: about {est:.0f} s, more than the time left"
    secs = min(time_limit, left())
    sets = min(max_sets, int(CLOSURE_MEETS_PER_S * max(0.0, secs) / max(1, tr.m)))
    if closure and 1 < tr.m <= max_rows and sets >= 2:
        r, why = _dcut(tr, secs, sets)
        if r is None:
            best.note = "; ".join(x for x in (best.note, f"directed-cut program not run: {why}") if x)
        else:
            how = "directed-cut program" + (" (optimal)" if r.optimal else f" ({r.status}, LP {r.lp_bound:.1f})")
            if r.lower >= best.value:
                best = FreeBound(int(r.lower), how, note=best.note)
            best.optimal = bool(r.optimal)
            best.layout = [list(s) for s in r.layout]
            best.upper = int(r.upper)
    elif closure and tr.m > max_rows:
        best.note = "; ".join(x for x in (best.note, f"directed-cut program not run: more than {max_rows} "
                                          "distinct rows") if x)
    elif closure and tr.m > 1:
        best.note = "; ".join(x for x in (best.note, "directed-cut program not run: no time left") if x)
    best.seconds = time.perf_counter() - t0
    return best


def _first_round_too_large(masks: list, nchunks: int, max_sets: int, deadline: float | None) -> str:
    """Why the intersection closure of ``masks`` cannot be built within ``max_sets`` sets and
    ``deadline`` (a ``time.perf_counter()`` value), or "" when its first round fits.

    The distinct nonempty pairwise intersections R_i ∩ R_j (the requests included) are members of
    the closure, so more than ``max_sets`` of them prove it too large. They are counted a block
    of requests at a time, with the clock read between blocks, and the count stops as soon as
    it passes the cap: far cheaper to abandon than the build itself, whose first round computes
    the same intersections in one pass. O(m^2) word operations at most."""
    from ..exact.closure import SPARSE_CHUNKS, _to_words

    if len(set(masks)) > max_sets:
        return f"the intersection closure has more than {max_sets} sets"
    if nchunks < SPARSE_CHUNKS:
        R = _to_words(masks, max(1, (nchunks + 63) // 64))
        rows: set = set()
        block = max(1, 65_536 // max(1, len(masks)))
        for s in range(0, len(R), block):
            if deadline is not None and time.perf_counter() >= deadline:
                return "out of time building the intersection closure"
            P = (R[s:s + block, None, :] & R[None, :, :]).reshape(-1, R.shape[1])
            P = np.unique(P[P.any(axis=1)], axis=0)
            rows.update(row.tobytes() for row in P)
            if len(rows) > max_sets:
                return f"the intersection closure has more than {max_sets} sets"
        return ""
    seen: set = set(masks)
    share: dict = {}
    for i, x in enumerate(masks):
        while x:
            low = x & -x
            share.setdefault(low.bit_length() - 1, []).append(i)
            x ^= low
    for j, x in enumerate(masks):
        if j % 64 == 0 and deadline is not None and time.perf_counter() >= deadline:
            return "out of time building the intersection closure"
        y = x
        while y:
            low = y & -y
            for i in share[low.bit_length() - 1]:
                seen.add(x & masks[i])  # nonempty: they share this chunk
            y ^= low
        if len(seen) > max_sets:
            return f"the intersection closure has more than {max_sets} sets"
    return ""


def _dcut(tr: SparseTrace, seconds: float, max_sets: int):
    """(the directed-cut program's result, "") or (None, why not): the closure's first round is
    counted with the cap ``max_sets`` and the time ``seconds`` (:func:`_first_round_too_large`,
    cheap to abandon), then the closure of every component is built with that cap by the same
    time, then the program runs with what is left."""
    from ..exact.closure import BuildTimeout, ClosureTooLarge, closure_graph, reduce_instance
    from ..exact.dcut_bnc import opt_free_dcut
    from ..serving import memory

    t0 = time.perf_counter()
    end = t0 + seconds
    try:
        memory.check("agglomerative", tr.m, tr.nnz)
        inst = tr.to_instance()
        red = reduce_instance(inst)
        for idx, masks in red.components:
            if len(idx) > 1:
                why = _first_round_too_large(masks, len(red.weights), max_sets, end)
                if why:
                    return None, why
        for idx, masks in red.components:
            if len(idx) > 1:  # the build reads the clock as it goes (BuildTimeout past ``end``)
                closure_graph(masks, red.weights, max_sets=max_sets, deadline=end)
    except (ClosureTooLarge, BuildTimeout, memory.MemoryRefusal) as exc:
        return None, " ".join(str(exc).split())[:120]
    left = end - time.perf_counter()
    if left <= 0.05:
        return None, "no time left after the closure"
    try:
        return opt_free_dcut(inst, time_limit=left), ""
    except TimeoutError as exc:  # a build inside the program passed its deadline: no bound from it
        return None, " ".join(str(exc).split())[:120] or "out of time in the directed-cut program"


def layout_arrays(layout: list) -> tuple[np.ndarray, np.ndarray]:
    """CSR (indptr, seq) of per-request chunk-id lists."""
    lens = np.fromiter((len(s) for s in layout), dtype=np.int64, count=len(layout))
    indptr = np.zeros(len(layout) + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    seq = np.fromiter((x for s in layout for x in s), dtype=np.int32, count=int(indptr[-1]))
    return indptr, seq
