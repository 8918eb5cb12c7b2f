"""Agglomerative common-intersection clustering (the paper's Section 6 heuristic).

Each request starts as a singleton cluster with signature R_i. Repeatedly merge the two
clusters whose signatures have the largest common weight; the merged signature is the
intersection. It is the natural greedy for the savings form of Theorem 1, and its savings are
at least half the optimum's (tight under adversarial tie-breaking: ``0123 14 2578 46`` takes 1
against 2).

Tie-breaking among pairs of equal common weight:

- ``"first"``: deterministic, the pair (a, b), a < b, with the smallest a then b, clusters
  numbered like the hierarchy's nodes (requests 0..m-1, merge j creates m+j);
- ``"random"``: seeded random priorities on the clusters instead of their numbers;
- ``"worst"`` / ``"best"``: the least / most savings over *every* tie-breaking path (an
  exhaustive search, for small instances only; C4's tight witness needs it).
"""

from __future__ import annotations

from dataclasses import dataclass
import heapq
from functools import lru_cache

import numpy as np

from ..hierarchy import Hierarchy
from ..instance import Instance, InstanceError
from ..trie import trie_cost

__all__ = ["AggResult", "agglomerative", "TIE_BREAKS"]

TIE_BREAKS = ("first", "random", "worst", "best")
MAX_M_EXHAUSTIVE = 14


@dataclass(frozen=True)
class AggResult:
    """The agglomerative hierarchy, its layout, the layout's trie cost (``value``, like the
    exact solvers' results; ``cost`` is the same number) and its savings."""

    hierarchy: Hierarchy
    layout: list
    value: int
    savings: int

    @property
    def cost(self) -> int:
        return self.value


def agglomerative(inst: Instance, *, tie_break: str = "first", seed=None) -> AggResult:
    """Agglomerative common-intersection hierarchy of the requests.

    Parameters
    ----------
    inst : Instance
    tie_break : {"first", "random", "worst", "best"}
        See the module docstring. ``"worst"``/``"best"`` need m <= 14.
    seed : int, optional
        Seed of the ``"random"`` tie-breaking.

    Returns
    -------
    AggResult
        ``savings`` is the hierarchy's sum of w(I(v)) (the quantity of the 1/2 guarantee);
        ``value`` (alias ``cost``) is the trie cost of its layout, at most
        sum_i w(R_i) - savings.

    Notes
    -----
    Signatures are kept as chunk sets with an inverted index from chunks to the clusters
    holding them, and each cluster caches its best partner, so a merge only touches the
    clusters that share a chunk with the new signature. Once no two clusters share a chunk the
    remaining merges save nothing whatever their shape, and they are made as a balanced tree.
    Worst case O(m^2 log m + m * sum_i |R_i|) time; sparse retrieval traces run near-linear.

    Examples
    --------
    >>> from mptsearch.families import leave_one_out
    >>> agglomerative(leave_one_out(16)).value
    64
    """
    if tie_break not in TIE_BREAKS:
        raise InstanceError(f"unknown tie-break {tie_break!r}; use one of {', '.join(TIE_BREAKS)}")
    if tie_break in ("worst", "best"):
        merges = _exhaustive(inst, tie_break == "best")
    else:
        rng = np.random.default_rng(seed) if tie_break == "random" else None
        merges = _greedy_merges(inst, rng)
    h = Hierarchy.from_merges(inst.m, merges) if inst.m > 1 else Hierarchy(
        1, np.zeros((0, 2), dtype=np.int64), 0)
    layout = h.layout(inst)
    return AggResult(h, layout, trie_cost(inst, layout), h.savings(inst))


def _greedy_merges(inst: Instance, rng) -> list[tuple[int, int]]:
    m, w = inst.m, [int(v) for v in inst.weights]
    sig: dict[int, frozenset] = {i: frozenset(o) for i, o in enumerate(inst.orders)}
    holders: dict[int, set] = {}
    for i, s in sig.items():
        for x in s:
            holders.setdefault(x, set()).add(i)
    # Priority of a cluster for tie-breaking: its number, or a seeded random key.
    prio: dict[int, float] = {}

    def priority(c):
        if c not in prio:
            prio[c] = c if rng is None else float(rng.random())
        return prio[c]

    def sims(c):
        acc: dict[int, int] = {}
        for x in sig[c]:
            for j in holders[x]:
                if j != c:
                    acc[j] = acc.get(j, 0) + w[x]
        return acc

    def best_of(c):
        """(weight, partner) of c's best partner by (weight desc, partner priority asc)."""
        best = (0, None)
        for j, v in sims(c).items():
            if v > best[0] or (v == best[0] and best[1] is not None and priority(j) < priority(best[1])):
                best = (v, j)
        return best

    best: dict[int, tuple] = {}
    pointing: dict[int, set] = {}
    heap: list = []
    version: dict[int, int] = {}

    def set_best(i, b):
        if i in best and best[i][1] is not None:
            pointing[best[i][1]].discard(i)
        best[i] = b
        version[i] = version.get(i, 0) + 1
        if b[1] is not None:
            pointing.setdefault(b[1], set()).add(i)
            heapq.heappush(heap, (-b[0], priority(i), i, version[i]))

    for i in range(m):
        priority(i)
    for i in range(m):
        set_best(i, best_of(i))
    merges: list[tuple[int, int]] = []
    nxt = m
    while heap:
        negv, _, a, ver = heapq.heappop(heap)
        if a not in sig or version[a] != ver:
            continue  # stale entry
        b = best[a][1]
        if priority(b) < priority(a):
            a, b = b, a
        c = nxt
        nxt += 1
        merges.append((a, b))
        sig[c] = sig[a] & sig[b]
        priority(c)
        stale = (pointing.pop(a, set()) | pointing.pop(b, set())) - {a, b}
        for old in (a, b):
            for x in sig[old]:
                holders[x].discard(old)
            del sig[old]
            if best[old][1] is not None and best[old][1] in pointing:
                pointing[best[old][1]].discard(old)
            del best[old]
        for x in sig[c]:
            holders[x].add(c)
        for i in stale:
            best.pop(i)  # its partner is gone; recompute from scratch
            set_best(i, best_of(i))
        set_best(c, best_of(c))
        # c's common weight with any i is at most a's or b's, so only a tie can point i at c
        for i, v in sims(c).items():
            bv, bj = best[i]
            if v == bv and bj is not None and priority(c) < priority(bj):
                set_best(i, (v, c))
    # No two clusters share a chunk: finish with a balanced tree (savings 0 whatever shape).
    rest = sorted(sig, key=priority)
    while len(rest) > 1:
        nxt_level = []
        for k in range(0, len(rest) - 1, 2):
            merges.append((rest[k], rest[k + 1]))
            nxt_level.append(nxt)
            nxt += 1
        if len(rest) % 2:
            nxt_level.append(rest[-1])
        rest = nxt_level
    return merges


def _exhaustive(inst: Instance, maximise: bool) -> list[tuple[int, int]]:
    """Merges of the best or worst agglomerative run over all tie-breaking paths."""
    m = inst.m
    if m > MAX_M_EXHAUSTIVE:
        raise InstanceError(f"worst/best tie-breaking enumerates all paths: m={m} exceeds {MAX_M_EXHAUSTIVE}")
    w = [int(v) for v in inst.weights]
    masks = inst.request_masks()

    def weight(mask):
        return sum(w[x] for x in range(inst.n) if mask >> x & 1)

    # A state is the frozenset of clusters, each (leaf set, signature); value: best savings.
    @lru_cache(maxsize=None)
    def solve(state):
        clusters = sorted(state)
        if len(clusters) == 1:
            return 0, ()
        pairs = [(weight(a[1] & b[1]), ia, ib) for ia, a in enumerate(clusters)
                 for ib, b in enumerate(clusters) if ia < ib]
        top = max(p[0] for p in pairs)
        choice = None
        for v, ia, ib in pairs:
            if v != top:
                continue
            a, b = clusters[ia], clusters[ib]
            merged = (a[0] | b[0], a[1] & b[1])
            sub, path = solve(frozenset(set(state) - {a, b} | {merged}))
            total = v + sub
            if choice is None or (total > choice[0] if maximise else total < choice[0]):
                choice = (total, ((a[0], b[0]),) + path)
        return choice

    _, path = solve(frozenset((1 << i, masks[i]) for i in range(m)))
    # Translate leaf sets into node numbers in merge order.
    node_of = {1 << i: i for i in range(m)}
    merges = []
    for la, lb in path:
        merges.append((node_of[la], node_of[lb]))
        node_of[la | lb] = m + len(merges) - 1
    return merges
