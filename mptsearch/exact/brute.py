"""Brute force over layouts and over global orders: the slow, obviously correct twins of the
DPs, for tiny instances and tests. They use nothing but :func:`~mptsearch.trie.trie_cost`.
"""

from __future__ import annotations

import math
from itertools import permutations, product

from ..instance import Instance, InstanceError
from ..trie import order_cost, trie_cost

__all__ = ["brute_free", "brute_glob", "layout_count"]

DEFAULT_LIMIT = 2_000_000


def layout_count(inst: Instance) -> int:
    """Number of layouts: the product of |R_i|!."""
    return math.prod(math.factorial(len(o)) for o in inst.orders)


def brute_free(inst: Instance, *, limit: int = DEFAULT_LIMIT) -> tuple[int, list]:
    """OPT_free by trying every layout (product of |R_i|! of them); returns (value, layout).

    Nothing is pruned, so the result is independent of Theorem 1.
    """
    count = layout_count(inst)
    if count > limit:
        raise InstanceError(f"brute force over layouts would try {count} layouts (limit {limit})")
    return _least((list(layout) for layout in product(*(permutations(o) for o in inst.orders))),
                  lambda layout: trie_cost(inst, layout))


def brute_glob(inst: Instance, *, limit: int = DEFAULT_LIMIT) -> tuple[int, list]:
    """OPT_glob by trying all n! global chunk orders; returns (value, order)."""
    if math.factorial(inst.n) > limit:
        raise InstanceError(f"brute force over global orders would try {inst.n}! orders (limit {limit})")
    return _least((list(order) for order in permutations(range(inst.n))),
                  lambda order: order_cost(inst, order))


def _least(candidates, cost) -> tuple[int, list]:
    """(least cost, first candidate attaining it)."""
    best, arg = None, None
    for cand in candidates:
        c = cost(cand)
        if best is None or c < best:
            best, arg = c, cand
    return best, arg
