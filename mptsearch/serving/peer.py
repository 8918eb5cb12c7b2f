"""Peer baseline: average-linkage clustering of requests, then layout by path in the tree.

A published RAG-serving system orders retrieved documents by clustering the requests with
average linkage over the distance

    d(A, B) = 1 - |A ∩ B| / max(|A|, |B|)  +  alpha * mean over x in A ∩ B of |pos_A(x) - pos_B(x)| / max(|A|, |B|)

(the second term a small penalty for shared documents at different relevance ranks), then
grouping requests by their path in that tree. Here the tree is SciPy's average-linkage
dendrogram, read as a :class:`~mptsearch.hierarchy.Hierarchy`, and the layout is read off it
top-down exactly like the agglomerative layout (each node emits the chunks its requests have
in common). The two methods differ only in the tree: set overlap counted in documents with
average linkage, against common-intersection weight in tokens with the intersection as the
merged signature.
"""

from __future__ import annotations

import numpy as np

from ..hierarchy import Hierarchy
from ..instance import Instance
from ..trie import trie_cost

__all__ = ["peer_distances", "peer_hierarchy", "peer_layout", "ALPHA"]

ALPHA = 0.05


def peer_distances(inst: Instance, alpha: float = ALPHA) -> np.ndarray:
    """The dense m x m distance matrix of the module docstring (production-order positions).

    O(m^2 + sum_x |S_x|^2) time, O(m^2) memory."""
    from scipy import sparse

    m = inst.m
    rows = np.fromiter((i for i, o in enumerate(inst.orders) for _ in o), dtype=np.int64)
    cols = np.fromiter((x for o in inst.orders for x in o), dtype=np.int64)
    pos = np.fromiter((p for o in inst.orders for p in range(len(o))), dtype=np.float64)
    A = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(m, inst.n))
    common = (A @ A.T).toarray()
    size = np.array([len(o) for o in inst.orders], dtype=np.float64)
    big = np.maximum(size[:, None], size[None, :])
    shift = np.zeros((m, m))
    by_chunk = sparse.csc_matrix((pos + 1.0, (rows, cols)), shape=(m, inst.n))
    for x in range(inst.n):
        lo, hi = by_chunk.indptr[x], by_chunk.indptr[x + 1]
        if hi - lo < 2:
            continue
        r = by_chunk.indices[lo:hi]
        p = by_chunk.data[lo:hi]
        shift[np.ix_(r, r)] += np.abs(p[:, None] - p[None, :])
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_shift = np.where(common > 0, shift / np.maximum(common, 1), 0.0)
    d = 1.0 - common / big + alpha * mean_shift / big
    np.fill_diagonal(d, 0.0)
    return d


def peer_hierarchy(inst: Instance, alpha: float = ALPHA) -> Hierarchy:
    """SciPy average-linkage dendrogram over :func:`peer_distances` as a Hierarchy."""
    from scipy.cluster.hierarchy import linkage
    from scipy.spatial.distance import squareform

    if inst.m == 1:
        return Hierarchy(1, np.zeros((0, 2), dtype=np.int64), 0)
    z = linkage(squareform(peer_distances(inst, alpha), checks=False), method="average")
    return Hierarchy.from_merges(inst.m, [(int(a), int(b)) for a, b in z[:, :2]])


def peer_layout(inst: Instance, alpha: float = ALPHA) -> tuple[list, int]:
    """(layout, trie cost) of the peer baseline."""
    layout = peer_hierarchy(inst, alpha).layout(inst)
    return layout, trie_cost(inst, layout)
