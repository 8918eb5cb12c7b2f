"""Bounds on OPT_free that need no exponential work (the paper's Section 6.4 and Section 3).

- :func:`mst_lower_bound`: every internal node v has w(I(v)) <= w(R_i ∩ R_j) for any i, j
  from its two subtrees, and one such cross pair per internal node forms a spanning tree on
  the requests, so OPT_free >= sum_i w(R_i) - MaxSpanningTree(w(R_i ∩ R_j)).
- :func:`c1p_bound`: if the requests lie on a line on which every S_x is contiguous, a
  balanced tree over that line gives OPT_free <= sum_x w(x) min(|S_x|, 2 ceil(log2 m)).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from .hierarchy import Hierarchy
from .instance import Instance, InstanceError

__all__ = ["pair_weights", "mst_lower_bound", "c1p_bound", "balanced_hierarchy", "is_c1p_order"]


def pair_weights(inst: Instance) -> np.ndarray:
    """The m x m matrix of w(R_i ∩ R_j) (int64; the diagonal holds w(R_i)).

    A sparse product A W A^T of the request-chunk incidence matrix, O(sum_x |S_x|^2)."""
    from scipy import sparse

    rows = np.fromiter((i for i, o in enumerate(inst.orders) for _ in o), dtype=np.int64)
    cols = np.fromiter((x for o in inst.orders for x in o), dtype=np.int64)
    A = sparse.csr_matrix((np.ones(len(rows), dtype=np.int64), (rows, cols)), shape=(inst.m, inst.n))
    Aw = sparse.csr_matrix((inst.weights[cols], (rows, cols)), shape=(inst.m, inst.n))
    return (A @ Aw.T).toarray().astype(np.int64)


def mst_lower_bound(inst: Instance) -> int:
    """Lower bound on OPT_free: sum_i w(R_i) minus a maximum spanning tree of w(R_i ∩ R_j).

    Notes
    -----
    Prim's algorithm (the compiled kernel the enumerator prunes with) on the dense pair
    matrix: O(m^2) time and memory.

    Examples
    --------
    >>> from mptsearch.families import k4_3
    >>> mst_lower_bound(k4_3())
    6
    """
    from ._kernels.bounds import max_spanning_tree

    W = pair_weights(inst)
    m = inst.m
    tree = max_spanning_tree(W, m, np.zeros(m, dtype=np.bool_), np.zeros(m, dtype=np.int64))
    return int(np.trace(W)) - int(tree)


def is_c1p_order(inst: Instance, line: Sequence[int]) -> bool:
    """Whether every chunk's request set S_x is contiguous on the line ``line``."""
    pos = {int(r): p for p, r in enumerate(line)}
    spans: dict[int, list[int]] = {}
    for i, o in enumerate(inst.orders):
        for x in o:
            spans.setdefault(x, []).append(pos[i])
    return all(max(p) - min(p) + 1 == len(p) for p in spans.values())


def _check_line(inst: Instance, line: Sequence[int]) -> list[int]:
    line = [int(r) for r in line]
    if sorted(line) != list(range(inst.m)):
        raise InstanceError(f"a line order must list each of the {inst.m} requests once")
    if not is_c1p_order(inst, line):
        raise InstanceError("the requests' line order does not make every chunk's requests contiguous")
    return line


def balanced_hierarchy(inst: Instance, line: Sequence[int]) -> Hierarchy:
    """The balanced binary tree over the requests in the order ``line``."""
    line = [int(r) for r in line]
    merges: list[tuple[int, int]] = []

    def build(lo, hi):
        if hi - lo == 1:
            return line[lo]
        mid = (lo + hi + 1) // 2
        a, b = build(lo, mid), build(mid, hi)
        merges.append((a, b))
        return inst.m + len(merges) - 1

    build(0, len(line))
    return Hierarchy.from_merges(inst.m, merges) if inst.m > 1 else Hierarchy(
        1, np.zeros((0, 2), dtype=np.int64), 0)


def c1p_bound(inst: Instance, line: Sequence[int]) -> int:
    """The consecutive-ones upper bound sum_x w(x) min(|S_x|, 2 ceil(log2 m)).

    ``line`` is an order of the requests on which every S_x is contiguous (checked). The
    balanced tree over it, :func:`balanced_hierarchy`, costs at most this much.
    """
    _check_line(inst, line)
    cap = 2 * math.ceil(math.log2(inst.m)) if inst.m > 1 else 1
    size = np.zeros(inst.n, dtype=np.int64)
    for o in inst.orders:
        size[list(o)] += 1
    return int(np.sum(inst.weights * np.minimum(size, cap)))
