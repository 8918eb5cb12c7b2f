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

import numpy as np

from ..instance import InstanceError
from .sparse import Layout, SparseTrace, _assemble, _ranges

__all__ = ["pinned_orders"]


def pinned_orders(tr: SparseTrace, t: int, free_layout: Callable):
    """(per-line orders with the top-``t`` chunks pinned last in relevance order, note).

    Parameters
    ----------
    tr : SparseTrace
    t : int >= 0
    free_layout : callable(SparseTrace) -> (Layout, note)
        The method that lays out the free parts, e.g. agglomerative. The free trace keeps the
        parent's chunk ids.

    Notes
    -----
    O(total length) besides the free method.
    """
    if t < 0:
        raise InstanceError(f"--pin must be >= 0, got {t}")
    lens = np.diff(tr.indptr)
    rows = np.flatnonzero(lens > t)
    if len(rows) == 0:
        return Layout(tr.indptr, tr.chunks), ""
    flen = lens[rows] - t
    fptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(flen, out=fptr[1:])
    free = _assemble([tr.ids[j] for j in rows.tolist()], tr.labels, tr.weights, fptr,
                     tr.chunks[_ranges(tr.indptr[rows] + t, flen)])
    lay, note = free_layout(free)
    seq = tr.chunks.copy()  # fully pinned lines stay as they are
    starts = tr.indptr[rows]
    seq[_ranges(starts, flen)] = lay.seq
    pin_len = np.full(len(rows), t, dtype=np.int64)
    seq[_ranges(starts + flen, pin_len)] = tr.chunks[_ranges(starts, pin_len)]
    return Layout(tr.indptr, seq), note
