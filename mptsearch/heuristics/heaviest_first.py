"""Heaviest-first: one global order by decreasing chunk weight (docs/theta_k.md, Lemma 3).

Every request sorts its chunks by the global order of decreasing weight, ties to the smaller
chunk id. Lemma 3 proves its cost is at most k x OPT_free for requests of at most k chunks
(the per-node bound of docs/theta_k.md with the heaviest chunk of each path first); with unit
weights the order is just chunk-id order, so an adversary relabelling the chunks can make it
any global order.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..instance import Instance
from ..trie import order_cost

__all__ = ["HeaviestFirstResult", "heaviest_first"]


@dataclass(frozen=True)
class HeaviestFirstResult:
    """The global order, the layout it induces and that layout's trie cost (``value``;
    ``cost`` is the same number)."""

    order: list
    layout: list
    value: int

    @property
    def cost(self) -> int:
        return self.value


def heaviest_first(inst: Instance) -> HeaviestFirstResult:
    """The layout of the global order by decreasing weight, ties to the smaller chunk id.

    Notes
    -----
    O(n log n + sum_i |R_i| log k) time. Lemma 3 (docs/theta_k.md): cost <= k OPT_free.

    Examples
    --------
    >>> from mptsearch.instance import parse_instance
    >>> heaviest_first(parse_instance("01 02")).value
    3
    """
    from ..trie import order_layout

    order = sorted(range(inst.n), key=lambda x: (-int(inst.weights[x]), x))
    layout = order_layout(inst, order)
    return HeaviestFirstResult(order, layout, order_cost(inst, order))
