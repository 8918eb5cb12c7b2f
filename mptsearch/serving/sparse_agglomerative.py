"""Agglomerative common intersection for large sparse traces, by the nearest-neighbour chain.

The heuristic is the paper's Section 6 one (:mod:`mptsearch.heuristics.agglomerative`): merge
the two clusters whose signatures share the most weight, the merged signature being their
intersection. Its similarity is *reducible*: the merged cluster's common weight with any
third cluster, w(A ∩ B ∩ C), is at most min(w(A ∩ C), w(B ∩ C)). For a reducible similarity
the nearest-neighbour chain (follow nearest neighbours until two clusters are each other's,
merge them, continue from the rest of the chain) makes the same merges as the global greedy
(Murtagh, "Multidimensional clustering algorithms", 1985), without a global priority queue:

- a nearest-neighbour search for cluster c scans the holders of c's chunks (an inverted index
  over chunks, dead clusters unlinked when met), coldest chunks first, and stops as soon as the
  best common weight found is at least the weight of the chunks not yet scanned;
- a chunk held by more than ``cap`` live clusters is scanned only ``cap`` holders deep (newest
  first), and after ``max_cut`` such cut chunks the search stops; holders met in cut lists are
  ranked by the weight of the cut lists they were met in and the best 8 scored exactly. When
  no search was cut (``truncated == 0``) the merges are the greedy's, so, ties between
  different sets of equal weight aside, the savings equal the small heuristic's; tests check
  this. With cuts it is a heuristic approximation of the greedy, and says so. (On a 100,000
  request synthetic trace, cap 128 with ``max_cut`` 3 against no limit on cut lists: 30%
  less time, 0.4% less savings; cap 512: twice the time, 3.5% more savings.)

Then the layout is read off top-down as in Theorem 1 and the leaves' DFS order is available.
Memory: O(n + sum_i |R_i|); time near-linear on retrieval traces (each search touches the
holders of a few chunks).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .sparse import SparseTrace

__all__ = ["SparseAggResult", "sparse_agglomerative", "DEFAULT_CAP"]

DEFAULT_CAP = 128
DEFAULT_MAX_CUT = 3


@dataclass(frozen=True)
class SparseAggResult:
    """Per distinct request, its chunk order (CSR like ``req_indptr``); the hierarchy's savings
    (sum of w(I(v)), Theorem 1); searches cut at ``cap``; merges made with positive weight."""

    indptr: np.ndarray
    order: np.ndarray
    savings: int
    truncated: int
    merges: int

    @property
    def exact(self) -> bool:
        """True when no nearest-neighbour search was cut: the greedy's own merges."""
        return self.truncated == 0


def sparse_agglomerative(tr: SparseTrace, cap: int = DEFAULT_CAP, max_cut: int = DEFAULT_MAX_CUT) -> SparseAggResult:
    """Agglomerative common-intersection layout of the distinct requests of ``tr``.

    Parameters
    ----------
    tr : SparseTrace
    cap : int
        Holders scanned per chunk in one nearest-neighbour search (see the module docstring).
    max_cut : int
        Chunks scanned past ``cap`` in one search before it stops.
    """
    from ._chain_kernels import balanced_children, hierarchy_layout, nn_chain

    m = tr.m
    indptr, idx = tr.req_indptr, tr.req_chunks
    ma, mb, mw, sstart, slen, pool, truncated = nn_chain(indptr, idx, tr.weights, tr.n, int(cap), int(max_cut))
    nm = len(ma)
    children = balanced_children(ma, mb, m)
    root = 2 * m - 2 if m > 1 else 0
    out = np.empty_like(idx)
    hierarchy_layout(children, root, m, sstart, slen, pool, indptr, idx, out)
    return SparseAggResult(indptr, out, int(mw.sum()), int(truncated), nm)
