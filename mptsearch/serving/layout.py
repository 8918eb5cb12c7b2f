"""Prompt layout for a retrieval trace: every method, and the summary against production order.

Methods (per-line chunk orders; the cost of a layout is the total tokens of the prefix trie of
all lines, the prefill under an unbounded prefix cache):

- ``production``: relevance order, what is served today;
- ``popularity``: one global order, chunks by decreasing number of requests holding them
  (ties: more tokens first, then label order);
- ``global``: the best global order found: the exact OPT_glob subset DP on every connected
  component of the request-chunk graph small enough for it (components are independent: a trie
  node is shared only by requests sharing a chunk), popularity order on the others;
- ``greedy``: level-wise greedy hitting set (:mod:`mptsearch.heuristics.greedy`);
- ``agglomerative``: agglomerative common intersection (:mod:`mptsearch.heuristics.agglomerative`);
- ``peer``: average-linkage clustering baseline (:mod:`.peer`);
- ``online``: batches of W arrivals against a persistent trie (:mod:`.online`).

Any method but ``online`` can run under pinning (:mod:`.pinning`). The lower bound is the MST
bound of :func:`mptsearch.bounds.mst_lower_bound` on the distinct requests.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ..instance import Instance, InstanceError, from_lists
from ..trie import order_layout
from .trace import Trace, line_orders, sequences_cost

__all__ = ["METHODS", "popularity_order", "global_order", "instance_layout", "method_orders",
           "LayoutRow", "LayoutSummary", "layout_summary", "GLOB_EXACT_N"]

METHODS = ("production", "popularity", "global", "greedy", "agglomerative", "peer", "online")
GLOB_EXACT_N = 20  # components with at most this many chunks (and <= 64 requests) get the exact DP


def popularity_order(inst: Instance) -> list[int]:
    """Chunk ids by decreasing request count, then decreasing weight, then id."""
    count = np.zeros(inst.n, dtype=np.int64)
    for o in inst.orders:
        count[list(o)] += 1
    return sorted(range(inst.n), key=lambda x: (-int(count[x]), -int(inst.weights[x]), x))


def _components(inst: Instance) -> list[list[int]]:
    parent = list(range(inst.n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for o in inst.orders:
        r = find(o[0])
        for x in o[1:]:
            parent[find(x)] = r
    comps: dict[int, list[int]] = {}
    for i, o in enumerate(inst.orders):
        comps.setdefault(find(o[0]), []).append(i)
    return list(comps.values())


def global_order(inst: Instance, exact_n: int = GLOB_EXACT_N) -> tuple[list[int], int, int]:
    """(a global chunk order, components solved exactly, components in all).

    Exact OPT_glob on each component with at most ``exact_n`` chunks and 64 requests, the
    popularity order on the rest; so the order is optimal among global orders when every
    component was solved exactly."""
    from ..exact.glob import opt_glob

    pop_rank = {x: r for r, x in enumerate(popularity_order(inst))}
    order: list[int] = []
    exact = 0
    comps = _components(inst)
    for reqs in comps:
        chunks = sorted({x for i in reqs for x in inst.orders[i]})
        if len(chunks) <= exact_n and len(reqs) <= 64:
            sub = from_lists([list(inst.orders[i]) for i in reqs], {x: int(inst.weights[x]) for x in chunks})
            order.extend(sub.labels[x] for x in opt_glob(sub).order)
            exact += 1
        else:
            order.extend(sorted(chunks, key=pop_rank.__getitem__))
    return order, exact, len(comps)


def instance_layout(inst: Instance, method: str) -> tuple[list, str]:
    """(layout of the distinct requests, a note) for every method but ``online``."""
    if method == "production":
        return list(inst.orders), ""
    if method == "popularity":
        return order_layout(inst, popularity_order(inst)), ""
    if method == "global":
        order, exact, ncomp = global_order(inst)
        return order_layout(inst, order), f"exact OPT_glob on {exact} of {ncomp} components"
    if method == "greedy":
        from ..heuristics.greedy import greedy
        return greedy(inst).layout, ""
    if method == "agglomerative":
        from ..heuristics.agglomerative import agglomerative
        return agglomerative(inst).layout, ""
    if method == "peer":
        from .peer import peer_layout
        return peer_layout(inst)[0], ""
    raise InstanceError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")


def method_orders(trace: Trace, method: str, *, window: int | None = None, pin: int = 0) -> tuple[list, str]:
    """(per-line chunk orders, note) of ``method`` on ``trace``."""
    if method == "online":
        if pin:
            raise InstanceError("--pin applies to the offline methods, not online")
        from .online import online_layout
        W = trace.size if window is None else window
        return online_layout(trace.lines, trace.instance.weights, W), f"W={W}"
    if method not in METHODS:
        raise InstanceError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    if method == "production" and pin == 0:
        return [tuple(s) for s in trace.lines], ""
    notes = []

    def free_layout(tr: Trace):
        lay, note = instance_layout(tr.instance, method)
        notes.append(note)
        return line_orders(tr, lay)

    if pin:
        from .pinning import pinned_orders
        orders = pinned_orders(trace, pin, free_layout)
        notes.append(f"top-{pin} pinned last")
    else:
        orders = free_layout(trace)
    return orders, "; ".join(n for n in notes if n)


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
    rows: list = field(default_factory=list)
    orders: dict = field(default_factory=dict)

    def row(self, method: str, orders, seconds: float, note: str = "") -> LayoutRow:
        cost = sequences_cost(self._w, orders)
        saved = self.production - cost
        r = LayoutRow(method, cost, saved, 100.0 * saved / self.production, seconds, note)
        self.rows.append(r)
        self.orders[method] = orders
        return r

    def table(self) -> str:
        out = [f"{self.lines} requests ({self.requests} distinct), {self.chunks} distinct chunks, "
               f"{self.no_cache} tokens without a cache",
               f"{'method':<22}{'prefill':>12}{'saved':>12}{'saved %':>9}{'seconds':>9}  note"]
        for r in self.rows:
            out.append(f"{r.method:<22}{r.cost:>12}{r.saved:>12}{r.saved_pct:>8.2f}%{r.seconds:>9.2f}  {r.note}")
        lb = self.production - self.lower_bound
        out.append(f"{'MST lower bound':<22}{self.lower_bound:>12}{lb:>12}{100.0 * lb / self.production:>8.2f}%"
                   f"{'':>9}  no layout can save more")
        return "\n".join(out)


def layout_summary(trace: Trace, methods=METHODS, *, window: int | None = None, pin: int = 0) -> LayoutSummary:
    """Run each method on the trace and summarise; see the module docstring."""
    from ..bounds import mst_lower_bound

    inst = trace.instance
    s = LayoutSummary(trace.size, inst.m, inst.n, trace.tokens(),
                      sequences_cost(inst.weights, trace.lines), mst_lower_bound(inst))
    s._w = inst.weights
    for method in methods:
        t0 = time.perf_counter()
        orders, note = method_orders(trace, method, window=window, pin=pin)
        name = method if method != "online" else f"online ({note})"
        s.row(name, orders, time.perf_counter() - t0, note if method != "online" else "")
    return s
