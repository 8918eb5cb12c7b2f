"""Exact OPT_glob: the best layout induced by one global chunk priority.

A chunk c placed after the chunk set P creates one trie node per distinct value of R_i ∩ P
among the requests containing c. So with G(P) the least cost of the chunks of P placed first,

    G(P) = min over c in P of G(P - c) + w(c) * #distinct{R_i ∩ P : i in S_c},

a subset DP over chunks: O(2^n (m + n)) time instead of n! orders. The requests are
partitioned by R_i ∩ P (their trie position after P); the partition of P is its parent's
(P minus its lowest chunk) refined by one chunk, and increasing integer order visits the
subsets in a depth-first order of exactly that parent relation, so one partition per depth
is kept on a stack. With one representative request per class, the count for c is
popcount(rep(P) & S_c): the classes either lie inside S_c or miss it, since c is in P.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..instance import Instance, InstanceError
from ..trie import order_cost
from .free import _available_memory

__all__ = ["GlobResult", "opt_glob", "MAX_N"]

MAX_N = 34  # 2^n table entries; far past any machine's memory beyond this


@dataclass(frozen=True)
class GlobResult:
    """OPT_glob with its certificate: an optimal global order of the chunk ids."""

    value: int
    order: list


def _classes_count(masks: list[int], P: int, members: int) -> int:
    """#distinct R_i ∩ P among the requests in bitmask ``members``."""
    return len({masks[i] & P for i in range(len(masks)) if members >> i & 1})


def opt_glob(inst: Instance, *, max_memory: int | None = None) -> GlobResult:
    """Exact OPT_glob and an optimal global chunk order.

    Parameters
    ----------
    inst : Instance
        At most 64 requests; the DP is exponential in the number of chunks n.
    max_memory : int, optional
        Bytes the 2^n table may take (default: 80% of available memory).

    Returns
    -------
    GlobResult
        ``value`` = OPT_glob and ``order``, a permutation of the chunk ids whose induced
        layout costs exactly ``value`` (checked by :func:`~mptsearch.trie.order_cost`).

    Notes
    -----
    O(2^n (m + n)) time with word-parallel request sets, O(2^n) memory (SPEC, "Exact
    OPT_glob"). The order is recovered by walking back from the full set, recomputing the
    counts instead of storing a choice per subset.

    Examples
    --------
    >>> from mptsearch.families import k4_3
    >>> opt_glob(k4_3()).value
    9
    """
    n, m = inst.n, inst.m
    if m > 64:
        raise InstanceError(f"OPT_glob DP supports at most 64 requests, got m={m}")
    if n > MAX_N:
        raise InstanceError(f"OPT_glob DP needs 2^n memory: n={n} chunks exceeds the limit of {MAX_N}")
    need = 8 * (1 << n)
    limit = int(0.8 * _available_memory()) if max_memory is None else max_memory
    if need > limit:
        raise InstanceError(f"OPT_glob DP for n={n} chunks needs {need / 2**30:.1f} GiB, "
                            f"more than the {limit / 2**30:.1f} GiB available")
    from .._kernels.glob import glob_table

    S = inst.chunk_sets()
    G = np.zeros(1 << n, dtype=np.int64)
    value = int(glob_table(S, inst.weights, n, m, G, np.zeros((n + 1, m), dtype=np.uint64),
                           np.zeros(n + 1, dtype=np.int64), np.zeros(n + 1, dtype=np.uint64)))
    # Walk back from the used chunks: at P pick a chunk c that attains G[P] as P's last chunk.
    # Chunks in no request cost nothing and go last.
    masks = inst.request_masks()
    Spy = [int(s) for s in S]
    unused = [c for c in range(n) if not Spy[c]]
    order_rev, P = unused[::-1], sum(1 << c for c in range(n) if Spy[c])
    while P:
        for c in range(n):
            if P >> c & 1:
                prev = P ^ (1 << c)
                if G[prev] + int(inst.weights[c]) * _classes_count(masks, P, Spy[c]) == G[P]:
                    order_rev.append(c)
                    P = prev
                    break
        else:  # pragma: no cover - would mean the table is inconsistent
            raise RuntimeError("OPT_glob walk-back found no consistent chunk")
    order = order_rev[::-1]
    assert order_cost(inst, order) == value
    return GlobResult(value, order)
