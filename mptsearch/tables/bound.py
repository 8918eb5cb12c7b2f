"""Lower bounds on the free trace's prefill, behind one function (:func:`free_lower_bound`).

Two bounds exist today and the larger is kept:

- the MST bound (:func:`mptsearch.serving.sparse.mst_bound`; paper, Section 6.4), any size;
- the closure program (:func:`mptsearch.exact.arborescence.opt_free_closure`, Theorem 1 in its
  closure form): its LP value / branch-and-bound bound, on tables small enough for the
  intersection closure (``max_sets``) within a time limit. When it proves its layout optimal
  the bound equals that layout's cost, and the layout is returned as well (the Steiner-set local
  search and the 0/1 program are the portfolio's improvement step).

A stronger bound (the directed-cut relaxation) slots in here: everything else calls this one
function and reads a :class:`FreeBound`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..serving.sparse import SparseTrace, mst_bound

__all__ = ["FreeBound", "free_lower_bound", "CLOSURE_MAX_ROWS", "CLOSURE_MAX_SETS"]

CLOSURE_MAX_ROWS = 5_000  #: distinct requests past which the closure program is not tried
CLOSURE_MAX_SETS = 20_000  #: closure sets past which it gives up (ClosureTooLarge)


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


def free_lower_bound(tr: SparseTrace, *, closure: bool = True, time_limit: float = 10.0,
                     max_rows: int = CLOSURE_MAX_ROWS, max_sets: int = CLOSURE_MAX_SETS) -> FreeBound:
    """The best lower bound available on OPT_free of ``tr`` (module docstring)."""
    t0 = time.perf_counter()
    mst = mst_bound(tr)
    best = FreeBound(int(mst.value), "MST" if mst.exact else "MST (hot chunks over-estimated)")
    if closure and 1 < tr.m <= max_rows:
        from ..exact.arborescence import opt_free_closure
        from ..exact.closure import ClosureTooLarge
        from ..serving import memory

        try:
            memory.check("agglomerative", tr.m, tr.nnz)
            inst = tr.to_instance()
            r = opt_free_closure(inst, time_limit=time_limit, max_sets=max_sets)
        except (ClosureTooLarge, memory.MemoryRefusal) as exc:
            best.note = f"closure program not run: {' '.join(str(exc).split())[:120]}"
        else:
            if r.lower >= best.value:
                best = FreeBound(int(r.lower), "closure program" + (" (optimal)" if r.optimal else
                                                                      f" ({r.status}, LP {r.lp_bound:.1f})"))
            best.optimal = bool(r.optimal)
            best.layout = [list(s) for s in r.layout]
            best.upper = int(r.upper)
    best.seconds = time.perf_counter() - t0
    return best


def layout_arrays(layout: list) -> tuple[np.ndarray, np.ndarray]:
    """CSR (indptr, seq) of per-request chunk-id lists."""
    lens = np.fromiter((len(s) for s in layout), dtype=np.int64, count=len(layout))
    indptr = np.zeros(len(layout) + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    seq = np.fromiter((x for s in layout for x in s), dtype=np.int32, count=int(indptr[-1]))
    return indptr, seq
