"""Approximation algorithms for the cost, with the factors proved in docs/approximation.md.

The paper's second open problem (its closing list) asks how well the *cost* OPT_free can be
approximated. Three polynomial algorithms with proved factors (docs/approximation.md, Part B):

- :func:`heaviest_first`: every request sorts its chunks by non-increasing weight (one global
  order, ties by chunk id). Cost <= k OPT_free for requests of at most k chunks, any weights
  (docs/theta_k.md, Lemma 3); the factor k is approached (:func:`heaviest_first_tight`).
- :func:`best_of`: the cheaper of heaviest-first and agglomerative. Agglomerative alone costs at
  most (sum_i w(R_i) + OPT_free)/2 (the paper's Theorem 6, Section 6), which is at most
  (k+1)/2 OPT_free for unit weights and distinct requests; so best-of is within
  min(k, (1 + sum_i w(R_i)/OPT_free)/2).
- :func:`interval_dp`: the cheapest hierarchy whose leaves, read left to right, are the
  requests in the given line order (O(m^3) interval DP). When every S_x is contiguous on that
  line (consecutive ones), it costs at most the paper's C1P bound, hence at most
  2 ceil(log2 m) OPT_free, for any weights and any k.

Each ``NAME(inst)`` in :data:`HEURISTICS` returns ``(layout in the instance's labels, cost)``,
the cost being the trie cost of that layout (:func:`mptsearch.trie.trie_cost`): the registry
meant for ``mptsearch anneal --objective cost-ratio --heuristic NAME``.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .hierarchy import Hierarchy
from .instance import Instance, from_lists
from .trie import order_layout, trie_cost

__all__ = ["heaviest_first_order", "heaviest_first", "best_of", "interval_dp", "interval_hierarchy",
           "heaviest_first_tight", "HEURISTICS"]


def heaviest_first_order(inst: Instance) -> list[int]:
    """Chunk ids by non-increasing weight, ties by id (the order of docs/theta_k.md, Lemma 3)."""
    return sorted(range(inst.n), key=lambda x: (-int(inst.weights[x]), x))


def heaviest_first(inst: Instance) -> tuple[list[list], int]:
    """Layout of the heaviest-first global order and its trie cost.

    Guarantee: cost <= k OPT_free when every request has at most k chunks (docs/approximation.md,
    Theorem B1). O(sum_i |R_i| log k + n log n) time.

    Examples
    --------
    >>> from mptsearch.instance import parse_instance
    >>> heaviest_first(parse_instance("01 02"))
    ([[0, 1], [0, 2]], 3)
    """
    layout = order_layout(inst, heaviest_first_order(inst))
    return inst.label_orders(layout), trie_cost(inst, layout)


def best_of(inst: Instance) -> tuple[list[list], int]:
    """The cheaper of :func:`heaviest_first` and agglomerative (ties: heaviest-first).

    Guarantee: cost <= min(k, (1 + sum_i w(R_i)/OPT_free)/2) OPT_free; with unit weights and
    distinct requests <= (k+1)/2 OPT_free (docs/approximation.md, Theorem B2).
    Time: that of agglomerative, O(m^2 log m + m sum_i |R_i|).
    """
    from .heuristics.agglomerative import agglomerative

    hf = heaviest_first(inst)
    agg = agglomerative(inst)
    if agg.cost < hf[1]:
        return inst.label_orders(agg.layout), agg.cost
    return hf


def interval_hierarchy(inst: Instance, line=None) -> tuple[Hierarchy, int]:
    """The hierarchy of maximum savings among those whose leaves, left to right, follow ``line``.

    Parameters
    ----------
    line : sequence of int, optional
        An order of the request indices (default: the requests as given, 0..m-1).

    Returns
    -------
    (Hierarchy, int)
        The hierarchy and its COST = sum_i w(R_i) - savings (the paper's Theorem 1, Section 3).

    Notes
    -----
    M[a, b] = w(I(line[a..b])) + max_{a <= s < b} M[a, s] + M[s+1, b] over the intervals of
    the line (the paper's subset DP restricted to intervals): O(m^3) time after the O(m^2)
    interval intersections (Python-int bitsets), O(m^2) memory.
    """
    m = inst.m
    line = list(range(m)) if line is None else [int(r) for r in line]
    if sorted(line) != list(range(m)):
        from .instance import InstanceError
        raise InstanceError(f"a line order must list each of the {m} requests once")
    masks = inst.request_masks()
    w = [int(v) for v in inst.weights]

    def weight(mask: int) -> int:
        total, x = 0, 0
        while mask:
            if mask & 1:
                total += w[x]
            mask >>= 1
            x += 1
        return total

    best = [[0] * m for _ in range(m)]
    split = [[-1] * m for _ in range(m)]
    for a in range(m):
        inter = masks[line[a]]
        for b in range(a + 1, m):
            inter &= masks[line[b]]
            best[a][b] = weight(inter)  # w(I) of the interval; the splits are added below
    for length in range(2, m + 1):
        for a in range(m - length + 1):
            b = a + length - 1
            top, arg = -1, -1
            for s in range(a, b):
                val = best[a][s] + best[s + 1][b]
                if val > top:
                    top, arg = val, s
            best[a][b] += top
            split[a][b] = arg

    def nested(a: int, b: int):
        if a == b:
            return line[a]
        s = split[a][b]
        return (nested(a, s), nested(s + 1, b))

    if m == 1:
        h = Hierarchy(1, np.zeros((0, 2), dtype=np.int64), 0)
        return h, inst.total_weight()
    h = Hierarchy.from_nested(nested(0, m - 1))
    return h, inst.total_weight() - best[0][m - 1]


def interval_dp(inst: Instance, line=None) -> tuple[list[list], int]:
    """Layout of :func:`interval_hierarchy` (requests on the line as given) and its trie cost.

    Guarantee: when every chunk's requests are contiguous on ``line``, cost <= the paper's C1P
    bound sum_x w(x) min(|S_x|, 2 ceil(log2 m)) <= 2 ceil(log2 m) OPT_free
    (docs/approximation.md, Theorem B3). O(m^3 + m^2 n / 64) time.
    """
    h, _ = interval_hierarchy(inst, line)
    layout = h.layout(inst)
    return inst.label_orders(layout), trie_cost(inst, layout)


def heaviest_first_tight(k: int, petals: int, weight: int) -> Instance:
    """The family on which heaviest-first approaches its factor k (docs/approximation.md).

    A core of k-1 chunks of weight ``weight - 1`` and ``petals`` private chunks of weight
    ``weight``; request j is the core plus petal j. Heaviest-first puts the petals first and
    pays petals * (weight + (k-1)(weight-1)); the core first pays (k-1)(weight-1) + petals*weight.
    """
    if k < 2 or petals < 1 or weight < 2:
        from .instance import InstanceError
        raise InstanceError("heaviest_first_tight needs k >= 2, petals >= 1, weight >= 2")
    core = [f"c{i}" for i in range(k - 1)]
    reqs = [core + [f"p{j}"] for j in range(petals)]
    weights = {c: weight - 1 for c in core}
    weights.update({f"p{j}": weight for j in range(petals)})
    return from_lists(reqs, weights)


#: NAME -> function(inst) returning (layout in labels, trie cost), for ``anneal --heuristic NAME``.
HEURISTICS: dict[str, Callable[[Instance], tuple[list[list], int]]] = {
    "heaviest-first": heaviest_first,
    "best-of": best_of,
    "interval-dp": interval_dp,
}
