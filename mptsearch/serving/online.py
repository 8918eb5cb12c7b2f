"""Online layout: arrivals in batches of W against a persistent trie of what has been served.

Each arrival is placed at its *deepest usable prefix*: the heaviest (most tokens) path from the
root of the live trie whose chunks all belong to the request. The requests of one batch that
stop at the same trie node share nothing above it with the rest of the stream, so their
*residuals* (the chunks not yet placed) are laid out together by the agglomerative hierarchy
(Theorem 1's savings form, the paper's Section 6 heuristic); a request alone at its node keeps
its residual in chunk-id order, the same convention the hierarchy layout uses inside a node.
After the batch, every sequence is added to the trie. The trie here stores one chunk per node
(a radix trie with its edges uncompressed; the cost is the same).

W = 1 is pure deepest-match placement; W >= the stream length with an empty trie is the offline
agglomerative layout. Paper, Section 7.2.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..heuristics.agglomerative import agglomerative
from ..instance import InstanceError, from_lists

__all__ = ["online_layout", "deepest_prefix", "layout_sets"]


def deepest_prefix(trie: dict, chunks: set, weights: np.ndarray) -> list[int]:
    """The heaviest root path of ``trie`` (nested dicts) using only chunks of ``chunks``.

    Ties: the first found, exploring chunks in increasing id. Explores only the paths inside
    the request, so it costs O(number of such trie nodes * |chunks|).
    """
    best, best_w = [], 0
    stack = [(trie, [], 0)]
    order = sorted(chunks)
    while stack:
        node, path, wt = stack.pop()
        if wt > best_w:
            best, best_w = path, wt
        used = set(path)
        for x in reversed(order):
            if x not in used:
                child = node.get(x)
                if child is not None:
                    stack.append((child, path + [x], wt + int(weights[x])))
    return best


def layout_sets(sets: Sequence[frozenset], weights: np.ndarray) -> list[tuple[int, ...]]:
    """Agglomerative layout of chunk-id sets (identical sets get identical sequences)."""
    if len(sets) == 1:
        return [tuple(sorted(sets[0]))]
    # int labels keep their order as ids, so chunk-id order inside a node is preserved
    inst = from_lists([sorted(s) for s in sets], {int(x): int(weights[x]) for s in sets for x in s})
    res = agglomerative(inst)
    by_set = {frozenset(inst.labels[x] for x in o): tuple(inst.labels[x] for x in seq)
              for o, seq in zip(inst.orders, res.layout)}
    return [by_set[frozenset(s)] for s in sets]


def online_layout(lines: Sequence[Sequence[int]], weights: np.ndarray, window: int) -> list[tuple[int, ...]]:
    """Per-line chunk orders produced online with batches of ``window`` arrivals.

    Parameters
    ----------
    lines : each arrival's chunk ids (any order; only the set is used), in arrival order
    weights : token count of every chunk id
    window : W >= 1

    Notes
    -----
    O(m / W) agglomerative runs on at most W residuals each, plus the prefix searches.
    """
    if window < 1:
        raise InstanceError(f"window must be >= 1, got {window}")
    trie: dict = {}
    out: list[tuple[int, ...]] = [()] * len(lines)
    for start in range(0, len(lines), window):
        batch = range(start, min(len(lines), start + window))
        groups: dict[tuple, list[tuple[int, frozenset]]] = {}
        for j in batch:
            s = set(lines[j])
            pre = tuple(deepest_prefix(trie, s, weights))
            groups.setdefault(pre, []).append((j, frozenset(s - set(pre))))
        for pre, members in groups.items():
            nonempty = [(j, r) for j, r in members if r]
            for j, r in members:
                if not r:
                    out[j] = pre
            if nonempty:
                seqs = layout_sets([r for _, r in nonempty], weights)
                for (j, _), seq in zip(nonempty, seqs):
                    out[j] = pre + seq
        for j in batch:
            node = trie
            for x in out[j]:
                node = node.setdefault(x, {})
    return out
