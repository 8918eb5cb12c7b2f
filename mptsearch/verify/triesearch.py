"""Exact OPT_free by search over trie nodes, without Theorem 1.

This is the independent check of Theorem 1: it never mentions hierarchies or intersections.
A node of the prefix trie is reached by a set G of requests that share the chunk set E
emitted on the path to it. The requests of G that still have chunks left (the *live* ones)
leave the node through its children; a child is labelled by one chunk c, and the live
requests that continue through it are a group whose next chunk is c. So

    f(G, E) = min over partitions of the live requests of G into groups, each group with a
              chunk c in all of its members' remaining chunks, of
              sum over groups of w(c) + f(group, E + c),

and OPT_free = f(all requests, {}). Two groups may pick the same chunk in this recursion;
the trie would merge them into one node, which never costs more, so allowing it does not
change the minimum. The partitions are enumerated by always placing the lowest live request
first: it picks its next chunk c and the subset of the other live requests containing c that
joins it; the rest is partitioned recursively. Both recursions are memoised on bitmasks.

The number of states is exponential in m (roughly 2^m request sets times the chunk sets that
can precede them), so this is meant for m up to about 10.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from ..instance import Instance, InstanceError

__all__ = ["TrieSearchResult", "trie_search", "SearchBudgetExceeded"]


class SearchBudgetExceeded(RuntimeError):
    """The search visited more states than it was allowed to."""


@dataclass(frozen=True)
class TrieSearchResult:
    """OPT_free found by the trie search, with an optimal layout and the number of states."""

    value: int
    layout: list
    states: int


def trie_search(inst: Instance, *, max_states: int | None = 2_000_000) -> TrieSearchResult:
    """Exact OPT_free by memoised search over the nodes of the prefix trie.

    Parameters
    ----------
    inst : Instance
    max_states : int or None
        Raise :class:`SearchBudgetExceeded` after this many memoised states (None: no limit).

    Returns
    -------
    TrieSearchResult
        ``value`` = OPT_free and a ``layout`` (one chunk sequence per request) reading the
        optimal trie; ``trie_cost(inst, layout) == value``.

    Notes
    -----
    Exponential: each state (live requests L, emitted chunks E) tries every chunk c of the
    lowest request of L and every subset of the requests of L containing c, so the work is
    O(sum over states of k 2^|L|). It does not use Theorem 1 (the paper, Section 3), which is
    why it is a check of it.

    Examples
    --------
    >>> from mptsearch.families import k4_3
    >>> trie_search(k4_3()).value
    8
    """
    m = inst.m
    masks = inst.request_masks()
    w = [int(v) for v in inst.weights]
    # S[c]: the requests containing chunk c, as a bitmask
    S = [0] * inst.n
    for i, r in enumerate(masks):
        x = r
        while x:
            c = (x & -x).bit_length() - 1
            S[c] |= 1 << i
            x &= x - 1

    memo: dict[tuple[int, int], tuple[int, int, int]] = {}  # (L, E) -> (cost, chunk, group)

    def node(G: int, E: int) -> int:
        """Cost strictly below a trie node reached by the requests G after the chunks E."""
        L = 0
        g = G
        while g:
            low = g & -g
            if masks[low.bit_length() - 1] != E:  # the request ending here stays behind
                L |= low
            g ^= low
        return partition(L, E)

    def partition(L: int, E: int) -> int:
        if L == 0:
            return 0
        key = (L, E)
        hit = memo.get(key)
        if hit is not None:
            return hit[0]
        if max_states is not None and len(memo) >= max_states:
            raise SearchBudgetExceeded(f"trie search exceeded {max_states} states")
        low = L & -L
        i = low.bit_length() - 1
        best, best_c, best_grp = None, -1, 0
        remaining = masks[i] & ~E
        while remaining:
            c = (remaining & -remaining).bit_length() - 1
            remaining &= remaining - 1
            others = L & S[c] & ~low
            sub = others
            while True:  # every subset of `others`, joined by request i
                grp = sub | low
                v = w[c] + node(grp, E | (1 << c)) + partition(L & ~grp, E)
                if best is None or v < best:
                    best, best_c, best_grp = v, c, grp
                if sub == 0:
                    break
                sub = (sub - 1) & others
        memo[key] = (best, best_c, best_grp)
        return best

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 10_000))
    try:
        full = (1 << m) - 1
        value = node(full, 0)
    finally:
        sys.setrecursionlimit(old)

    # Read the layout back from the recorded choices.
    seqs: list[list[int]] = [[] for _ in range(m)]

    def emit_node(G: int, E: int, prefix: list[int]) -> None:
        L = 0
        g = G
        while g:
            low = g & -g
            j = low.bit_length() - 1
            if masks[j] == E:
                seqs[j] = prefix
            else:
                L |= low
            g ^= low
        emit_partition(L, E, prefix)

    def emit_partition(L: int, E: int, prefix: list[int]) -> None:
        while L:
            _, c, grp = memo[(L, E)]
            emit_node(grp, E | (1 << c), prefix + [c])
            L &= ~grp

    emit_node((1 << m) - 1, 0, [])
    if any(len(s) != len(o) for s, o in zip(seqs, inst.orders)):  # pragma: no cover
        raise InstanceError("trie search produced an incomplete layout")
    return TrieSearchResult(int(value), [tuple(s) for s in seqs], len(memo))
