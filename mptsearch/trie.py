"""The prefix trie of a layout: the ground truth every faster method is tested against.

A *layout* gives each request an order of its chunks (a sequence of chunk ids). Its *cost* is
the total weight of the nodes of the prefix trie built from the m sequences: the prefill work
under an unbounded prefix (KV) cache (the paper's problem statement, before Theorem 1 of
Section 3).
"""

from __future__ import annotations

from typing import Sequence

from .instance import Instance, InstanceError

__all__ = ["trie_cost", "check_layout", "order_layout", "order_cost", "production_cost", "build_trie"]


def check_layout(inst: Instance, layout: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    """Validate that ``layout[i]`` is a permutation of request i's chunk ids; return tuples."""
    if len(layout) != inst.m:
        raise InstanceError(f"layout has {len(layout)} sequences for {inst.m} requests")
    out = []
    for i, (seq, order) in enumerate(zip(layout, inst.orders)):
        seq = tuple(int(x) for x in seq)
        if len(seq) != len(order) or set(seq) != set(order):
            raise InstanceError(f"layout sequence {i} is not a permutation of request {i}")
        out.append(seq)
    return out


def build_trie(layout: Sequence[Sequence[int]]) -> dict:
    """The prefix trie of the sequences as nested dicts ``{chunk: subtrie}``."""
    root: dict = {}
    for seq in layout:
        node = root
        for x in seq:
            node = node.setdefault(x, {})
    return root


def trie_cost(inst: Instance, layout: Sequence[Sequence[int]]) -> int:
    """Total weight of the nodes of the prefix trie of ``layout`` (validated first).

    Runs in O(sum_i |R_i|) time.

    Examples
    --------
    >>> from mptsearch.instance import parse_instance
    >>> inst = parse_instance("01 02")
    >>> trie_cost(inst, [(0, 1), (0, 2)]), trie_cost(inst, [(1, 0), (0, 2)])
    (3, 4)
    """
    layout = check_layout(inst, layout)
    w = inst.weights
    total = 0
    stack = [build_trie(layout)]
    while stack:
        node = stack.pop()
        for x, child in node.items():
            total += int(w[x])
            stack.append(child)
    return total


def order_layout(inst: Instance, order: Sequence[int]) -> list[tuple[int, ...]]:
    """The layout induced by one global chunk priority: every request sorts its chunks by
    their position in ``order`` (a permutation of the chunk ids)."""
    if sorted(int(x) for x in order) != list(range(inst.n)):
        raise InstanceError(f"a global order must list each of the {inst.n} chunk ids once")
    rank = {int(x): r for r, x in enumerate(order)}
    return [tuple(sorted(o, key=rank.__getitem__)) for o in inst.orders]


def order_cost(inst: Instance, order: Sequence[int]) -> int:
    """Trie cost of the layout induced by the global chunk order ``order``."""
    return trie_cost(inst, order_layout(inst, order))


def production_cost(inst: Instance) -> int:
    """Trie cost when each request keeps the order it came with (retrieval relevance order)."""
    return trie_cost(inst, inst.orders)
