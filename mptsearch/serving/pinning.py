"""Pinning: the top-t most relevant chunks stay last, in relevance order; the rest is permuted.

Request i becomes F_i-in-some-order followed by its pinned suffix P_i = (r_1, ..., r_t), its t
most relevant chunks in relevance order (nearest the question when the question follows the
context). Only the order of the free set F_i is chosen.

How to choose it. The trie of the sequences splits at the boundary: above it, the free parts
form the trie of a layout of the instance {F_i} (requests with equal free sets merged, since
giving them the same order is never worse); below each free-part leaf hang the pinned suffixes
of the requests that ended there, which are fixed. So, apart from one side effect, the cost is

    trie cost of the free layout  +  sum over distinct F of trie cost of {P_i : F_i = F},

and the second term does not depend on the free layout: laying out the free part well is an
MPT instance on the free sets, solved by any method (agglomerative by default). The side
effect: one request's pinned chunk may sit where another request has the same chunk free, so
that their paths continue together; it can only lower the cost, it is counted by the trie when
it happens, and it is not sought. Requests with k <= t chunks are entirely pinned.
"""

from __future__ import annotations

from typing import Callable

from ..instance import InstanceError
from .trace import Trace, trace_from_lists

__all__ = ["pinned_orders"]


def pinned_orders(trace: Trace, t: int, free_layout: Callable) -> list[tuple[int, ...]]:
    """Per-line orders with the top-``t`` chunks pinned last (relevance order).

    Parameters
    ----------
    trace : Trace
    t : int >= 0
    free_layout : callable(Trace) -> per-line orders (chunk ids of that trace's instance)
        The method that lays out the free parts, e.g. agglomerative.
    """
    if t < 0:
        raise InstanceError(f"--pin must be >= 0, got {t}")
    inst = trace.instance
    rows = [j for j, s in enumerate(trace.lines) if len(s) > t]
    out: list[tuple[int, ...]] = [tuple(s) for s in trace.lines]  # fully pinned lines
    if not rows:
        return out
    # the free trace uses the parent's chunk ids as integer labels (order preserved)
    free = trace_from_lists([trace.ids[j] for j in rows], [list(trace.lines[j][t:]) for j in rows],
                            {x: int(inst.weights[x]) for j in rows for x in trace.lines[j][t:]})
    orders = free_layout(free)
    for j, seq in zip(rows, orders):
        out[j] = tuple(free.instance.labels[x] for x in seq) + tuple(trace.lines[j][:t])
    return out
