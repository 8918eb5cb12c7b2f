"""The online layouter's cost on an arrival sequence, value only: the compiled twin of
``trie_cost(inst, online_layout(inst.orders, inst.weights, W))`` that the online search runs
(``mptsearch anneal --objective online``).

It is not a second copy of the algorithm: it feeds the batches of W arrivals to the very
kernel :class:`mptsearch.serving.online.OnlineLayouter` runs
(:func:`mptsearch.serving._online_kernels.online_batch`), on an empty trie, each request's
chunks in increasing id (what ``OnlineLayouter.add`` passes with ``pin=0``), and measures
the prefix trie of what it committed with :func:`mptsearch._kernels.layouts.rows_cost`. The child table's size
does not change the layout (the kernel only looks children up), so a fixed one is enough.
"""

import numpy as np
from .._jit import njit

from .._bits import ctz, popcount
from .._kernels.layouts import rows_cost
from ._online_kernels import online_batch

__all__ = ["online_rows", "online_cost"]


@njit(cache=True)
def online_rows(req, m, n, weights, window, rows, lens):
    """The chunk order the online layouter commits for each arrival req[0], ..., req[m-1]
    (batches of ``window``, empty trie first, nothing forgotten) into rows/lens."""
    total = 0
    for i in range(m):
        total += popcount(req[i])
    cap = 1024
    while cap < 4 * (total + 1):
        cap *= 2
    hkeys = np.full(cap, -1, dtype=np.int64)
    hvals = np.zeros(cap, dtype=np.int64)
    tw = np.zeros(total + 2, dtype=np.int64)
    mark = np.full(max(n, 1), -1, dtype=np.int64)
    pptr = np.zeros(window + 1, dtype=np.int64)
    pidx = np.zeros(0, dtype=np.int64)
    nnodes = 1
    for b0 in range(0, m, window):
        B = min(window, m - b0)
        fptr = np.zeros(B + 1, dtype=np.int64)
        for b in range(B):
            fptr[b + 1] = fptr[b] + popcount(req[b0 + b])
        fidx = np.empty(fptr[B], dtype=np.int64)
        for b in range(B):
            r = req[b0 + b]
            p = fptr[b]
            while r:
                fidx[p] = ctz(r)
                p += 1
                r &= r - np.uint64(1)
        out = np.empty(fptr[B], dtype=np.int64)
        nnodes = online_batch(fptr, fidx, pptr[:B + 1], pidx, weights, hkeys, hvals, tw, nnodes,
                              mark, fptr, out)
        for b in range(B):
            lens[b0 + b] = fptr[b + 1] - fptr[b]
            for p in range(fptr[b], fptr[b + 1]):
                rows[b0 + b, p - fptr[b]] = out[p]


@njit(cache=True)
def online_cost(req, m, n, weights, window):
    """Trie cost of the online layouter's layout of the arrivals req[:m] with window W.
    O(m k) trie work plus the agglomerative layout of each batch's residuals."""
    rows = np.empty((m, max(n, 1)), dtype=np.int64)
    lens = np.zeros(m, dtype=np.int64)
    online_rows(req, m, n, weights, window, rows, lens)
    return rows_cost(rows, lens, m, weights)
