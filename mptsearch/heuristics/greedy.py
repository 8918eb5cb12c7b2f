"""Level-wise greedy hitting set (the paper's Section 6, "the algorithm anyone would write").

At each trie node take the chunk that covers the most of the requests there, split those
requests off into a child, recurse into it; the rest of the node continues the same way.
On L_n it peels one request at a time and pays (n-1) + n(n-1)/2, like a global order.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..instance import Instance
from ..trie import trie_cost

__all__ = ["GreedyResult", "greedy"]


@dataclass(frozen=True)
class GreedyResult:
    """The greedy layout and its trie cost (``value``; ``cost`` is the same number)."""

    layout: list
    value: int

    @property
    def cost(self) -> int:
        return self.value


def greedy(inst: Instance) -> GreedyResult:
    """Level-wise greedy hitting-set layout.

    At a trie node holding requests Q (each with the chunks it has not emitted yet), the chunk
    contained in the most of them is emitted next by all of them; ties go to the heavier
    chunk, then the smaller chunk id. Requests that do not contain it stay at the node.

    Notes
    -----
    O(L * sum_i |R_i|) time for L the number of trie nodes' levels; fine for thousands of
    requests.

    Examples
    --------
    >>> from mptsearch.families import leave_one_out
    >>> greedy(leave_one_out(64)).value
    2079
    """
    w = inst.weights
    seqs: list[list[int]] = [[] for _ in range(inst.m)]
    # Work items: (requests at the node, their remaining chunk sets)
    stack = [list(range(inst.m))]
    remaining = [set(o) for o in inst.orders]
    while stack:
        group = [i for i in stack.pop() if remaining[i]]
        while group:
            count: dict[int, int] = {}
            for i in group:
                for x in remaining[i]:
                    count[x] = count.get(x, 0) + 1
            c = min(count, key=lambda x: (-count[x], -int(w[x]), x))
            child = [i for i in group if c in remaining[i]]
            for i in child:
                seqs[i].append(c)
                remaining[i].discard(c)
            stack.append(child)
            taken = set(child)
            group = [i for i in group if i not in taken]
    layout = [tuple(s) for s in seqs]
    return GreedyResult(layout, trie_cost(inst, layout))
