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
- :func:`class_orders`: the cheapest of at most 2(n+1) explicit global orders, the support of
  a derandomised random-class order (docs/theta_k.md, Lemma 3): cost <= (k+1)/2 OPT_free for
  requests of at most k chunks, any weights (docs/approximation.md, Theorem B5); with unit
  weights it is the cheaper of the heaviest-first order (chunk ids) and its reverse.
- :func:`interval_dp`: the cheapest hierarchy whose leaves, read left to right, are the
  requests in the given line order (O(m^3) interval DP). When every S_x is contiguous on that
  line (consecutive ones), it costs at most the paper's C1P bound, hence at most
  2 ceil(log2 m) OPT_free, for any weights and any k.

Each ``NAME(inst)`` in :data:`HEURISTICS` returns ``(layout in the instance's labels, cost)``,
the cost being the trie cost of that layout (:func:`mptsearch.trie.trie_cost`): the registry
meant for ``mptsearch anneal --objective cost-ratio --heuristic NAME``.
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from typing import Callable

import numpy as np

from ..hierarchy import Hierarchy
from ..instance import Instance, from_lists
from ..trie import order_layout, trie_cost

__all__ = ["heaviest_first_order", "heaviest_first", "class_order_candidates", "class_orders", "best_of",
           "interval_dp", "interval_hierarchy", "heaviest_first_tight", "class_orders_tight", "HEURISTICS"]


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


def _log_parts(weights) -> dict[int, tuple[int, Decimal]]:
    """weight -> (floor(ln w), frac(ln w)) for each distinct weight, in 50-digit decimals.

    Two distinct integer weights never have equal fractional parts (ln a - ln b = j != 0 would
    make a/b = e^j rational), so the sort below only needs enough digits to separate them."""
    with localcontext() as ctx:
        ctx.prec = 50
        parts = {}
        for w in sorted({int(v) for v in weights}):
            a = Decimal(w).ln()
            fl = int(a.to_integral_value(rounding="ROUND_FLOOR"))
            parts[w] = (fl, a - fl)
    return parts


def class_order_candidates(inst: Instance) -> list[tuple[list[int], float]]:
    """The support of the derandomised random-class order, with the probability of each order.

    Draw U uniformly from [0, 1) and put chunk x in class floor(ln w(x) - U); list the classes
    from the highest down, each class heaviest first (ties to the smaller id) or, with
    probability 1/2 and one coin for all classes, in the reverse of that. The classes only
    change where U crosses a fractional part of some ln w(x): with thresholds
    0 = t_0 < t_1 < ... < t_r (the distinct fractional parts, r <= n), U in (t_j, t_{j+1})
    gives class floor(ln w(x)) - [frac(ln w(x)) <= t_j] to chunk x. So the distribution has at
    most 2(r+1) <= 2(n+1) orders, the order of interval j with probability (t_{j+1} - t_j)/2
    each way (t_{r+1} = 1; the thresholds themselves have probability 0). Within a class the pair (x, y) is in each relative order with
    probability exactly 1/2, which is all the proof of docs/approximation.md, Theorem B5 uses.

    Returns
    -------
    list of (order, probability)
        Global orders (chunk ids) and their probabilities (floats summing to 1), interval j's
        forward order before its reverse. O(n^2) time after the n logarithms.
    """
    parts = _log_parts(inst.weights)
    hf = heaviest_first_order(inst)
    ts = sorted({Decimal(0)} | {f for _, f in parts.values()})
    out = []
    for j, t in enumerate(ts):
        length = float((ts[j + 1] if j + 1 < len(ts) else Decimal(1)) - t)
        cls = {x: parts[int(inst.weights[x])][0] - (parts[int(inst.weights[x])][1] <= t) for x in range(inst.n)}
        levels = sorted(set(cls.values()), reverse=True)
        forward = [x for c in levels for x in hf if cls[x] == c]
        backward = [x for c in levels for x in reversed(hf) if cls[x] == c]
        out += [(forward, length / 2), (backward, length / 2)]
    return out


def class_orders(inst: Instance) -> tuple[list[list], int]:
    """Layout of the cheapest of :func:`class_order_candidates` and its trie cost (ties: the
    first candidate).

    Guarantee: cost <= (k+1)/2 OPT_free when every request has at most k chunks, any weights
    (docs/approximation.md, Theorem B5: the candidates' average already is); with unit weights
    the candidates are the chunk-id order and its reverse, and cost(order) + cost(reverse)
    <= (k+1) OPT_free for every order. O(n (n^2 + sum_i |R_i| log k)) time.

    Examples
    --------
    >>> from mptsearch.instance import parse_instance
    >>> class_orders(parse_instance("03 13 23"))   # the reverse of the id order puts the core first
    ([[3, 0], [3, 1], [3, 2]], 4)
    """
    best = None
    for order, _ in class_order_candidates(inst):
        layout = order_layout(inst, order)
        cost = trie_cost(inst, layout)
        if best is None or cost < best[1]:
            best = (layout, cost)
    return inst.label_orders(best[0]), best[1]


def best_of(inst: Instance) -> tuple[list[list], int]:
    """The cheaper of :func:`heaviest_first` and agglomerative (ties: heaviest-first).

    Guarantee: cost <= min(k, (1 + sum_i w(R_i)/OPT_free)/2) OPT_free; with unit weights and
    distinct requests <= (k+1)/2 OPT_free (docs/approximation.md, Theorem B2).
    Time: that of agglomerative, O(m^2 log m + m sum_i |R_i|).
    """
    from .agglomerative import agglomerative

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
        from ..instance import InstanceError
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
        from ..instance import InstanceError
        raise InstanceError("heaviest_first_tight needs k >= 2, petals >= 1, weight >= 2")
    core = [f"c{i}" for i in range(k - 1)]
    reqs = [core + [f"p{j}"] for j in range(petals)]
    weights = {c: weight - 1 for c in core}
    weights.update({f"p{j}": weight for j in range(petals)})
    return from_lists(reqs, weights)


def class_orders_tight(k: int, petals: int) -> Instance:
    """Two sunflowers on which :func:`class_orders` approaches its factor (k+1)/2 (unit weights).

    Chunk ids in order: the core A (k-1 chunks), the petals of A, the petals of B (``petals``
    each), the core B. Request: a core plus one of its petals. The id order puts core A first
    and core B last, its reverse the other way round, so both cost (k-1+P) + P k, against
    OPT_free = 2(k-1+P) = the number of chunks (docs/approximation.md, Theorem B5).
    """
    if k < 2 or petals < 1:
        from ..instance import InstanceError
        raise InstanceError("class_orders_tight needs k >= 2 and petals >= 1")
    s, p = k - 1, petals
    core_a, core_b = list(range(s)), list(range(s + 2 * p, 2 * s + 2 * p))
    reqs = [core_a + [s + j] for j in range(p)] + [core_b + [s + p + j] for j in range(p)]
    return from_lists(reqs)


#: NAME -> function(inst) returning (layout in labels, trie cost), for ``anneal --heuristic NAME``.
HEURISTICS: dict[str, Callable[[Instance], tuple[list[list], int]]] = {
    "heaviest-first": heaviest_first,
    "class-orders": class_orders,
    "best-of": best_of,
    "interval-dp": interval_dp,
}
