"""Level-wise greedy hitting set on the sparse model: the layout of
:func:`mptsearch.heuristics.greedy.greedy` (paper, Section 6), at trace scale.

At a trie node take the chunk held by the most requests there (ties: the heavier chunk, then
the smaller chunk id), split those requests off into a child, recurse into it; the rest of the
node continues the same way. The dense version recounts the node's chunks after every split
(quadratic in the node's size); here counts are kept per node and only decreased as requests
leave it, with a lazy heap for the argmax (:func:`._greedy_kernels.greedy_orders`), so the
same orders come out in O(sum_i |R_i|^2 log n) time and O(n + sum_i |R_i|) memory.
"""

from __future__ import annotations

import numpy as np

from .sparse import SparseTrace

__all__ = ["sparse_greedy", "greedy_layout"]


def sparse_greedy(tr: SparseTrace) -> np.ndarray:
    """Greedy chunk order of every distinct request of ``tr`` (CSR like ``tr.req_indptr``)."""
    from ._greedy_kernels import greedy_orders

    by_rank = np.lexsort((np.arange(tr.n), -tr.weights)).astype(np.int64)
    rank = np.empty(tr.n, dtype=np.int64)
    rank[by_rank] = np.arange(tr.n, dtype=np.int64)
    return greedy_orders(tr.req_indptr, tr.req_chunks, rank, by_rank)


def greedy_layout(tr: SparseTrace) -> list[tuple[int, ...]]:
    """The greedy chunk order of every line, as tuples of chunk ids (for ``as_sparse(inst)``,
    the layout :func:`mptsearch.heuristics.greedy.greedy` returns for ``inst``)."""
    seq = sparse_greedy(tr).tolist()
    cuts = tr.req_indptr.tolist()
    rows = [tuple(seq[cuts[i]:cuts[i + 1]]) for i in range(tr.m)]
    return [rows[r] for r in tr.line_request.tolist()]
