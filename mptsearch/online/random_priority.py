"""Random chunk priorities: a randomised online layout that is (k+1)/2-competitive
(docs/online.md, Section 12, Theorem RP; paper, Section 7.2 and its open problem 3).

Every chunk gets a priority, uniform and independent, the first time it is seen; each request is
committed on arrival with its chunks in increasing priority. This is a window-1 algorithm (so a
window-W one for every W) whose layout is the one induced by a uniformly random global order
(the paper's OPT_glob class, Section 3). Against an oblivious adversary its expected trie cost is
at most OPT_free + (1/2) sum over the nodes u of an optimal trie of (depth(u) - 1), hence at
most (k+1)/2 OPT_free when every request has at most k chunks (unit weights).

- :func:`random_priority_orders`: the algorithm, seeded.
- :func:`expected_random_priority_cost`: its exact expected cost (Fractions) over the uniform
  global order, by linearity over the chunks (Section 12, the count D_x).
- :func:`inversion_bound`: the bound of Theorem RP for a given layout, exact.
- :func:`star_expected_cost`: the closed form on the star C + {x_j} that makes the bound tight.

Unit weights throughout.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from math import factorial
from typing import Sequence

import numpy as np

from ..instance import InstanceError

__all__ = ["random_priority_orders", "expected_random_priority_cost", "inversion_bound",
           "inverted_pairs", "star_expected_cost", "random_priority_ratio_bound"]


def _requests(requests: Sequence[Sequence[int]]) -> list[frozenset]:
    out = [frozenset(int(x) for x in r) for r in requests]
    if not out:
        raise InstanceError("need at least one request")
    if any(not r for r in out):
        raise InstanceError("every request needs at least one chunk")
    if len(set(out)) != len(out):
        raise InstanceError("requests must be distinct (a repeat costs nothing extra)")
    return out


def random_priority_orders(requests: Sequence[Sequence[int]], seed: int) -> list[tuple]:
    """The online algorithm: chunk x gets priority u_x ~ U(0, 1) when it is first seen (a
    generator seeded by ``seed``), each request is ordered by increasing priority as it arrives.
    O(sum |R_i| log k)."""
    reqs = [tuple(int(x) for x in r) for r in requests]
    if any(not r for r in reqs):
        raise InstanceError("every request needs at least one chunk")
    rng = np.random.default_rng(seed)
    prio: dict[int, float] = {}
    out = []
    for r in reqs:
        for x in r:
            if x not in prio:
                prio[x] = float(rng.random())
        out.append(tuple(sorted(set(r), key=prio.__getitem__)))
    return out


def expected_random_priority_cost(requests: Sequence[Sequence[int]]) -> Fraction:
    """E[T] of the layout induced by a uniformly random order of the chunks, exact.

    A chunk x placed after the set P_x of chunks that precede it creates one trie node per
    distinct value of R_i ∩ P_x over the requests R_i containing x. Only the neighbours N(x) (the
    other chunks of those requests) matter; the rank of x among N(x) + {x} is uniform and, given
    that P_x ∩ N(x) has size s, it is a uniform s-subset, so P(P_x ∩ N(x) = Q) =
    |Q|! (|N| - |Q|)! / (|N| + 1)!. Runs in O(sum_x 2^|N(x)| m) time."""
    reqs = _requests(requests)
    chunks = sorted(set().union(*reqs))
    total = Fraction(0)
    for x in chunks:
        holding = [r for r in reqs if x in r]
        nbrs = sorted(set().union(*holding) - {x})
        if len(nbrs) > 20:
            raise InstanceError(f"chunk {x} has {len(nbrs)} neighbours; the exact expectation needs <= 20")
        d = len(nbrs)
        for s in range(d + 1):
            p = Fraction(factorial(s) * factorial(d - s), factorial(d + 1))
            for q in combinations(nbrs, s):
                qs = frozenset(q)
                total += p * len({r & qs for r in holding})
    return total


def inverted_pairs(layout: Sequence[Sequence[int]], priority: dict) -> int:
    """The number of ancestor-descendant pairs (v, u) of the trie of ``layout`` (both nonempty
    prefixes, u strictly below v) whose last chunks are out of order: priority[last(u)] <
    priority[last(v)]."""
    nodes = {tuple(s[:i]) for s in layout for i in range(1, len(s) + 1)}
    return sum(1 for u in nodes for j in range(1, len(u)) if priority[u[-1]] < priority[u[j - 1]])


def inversion_bound(layout: Sequence[Sequence[int]]) -> Fraction:
    """Theorem RP's bound for the trie of ``layout``: |nodes| + (1/2) sum_u (depth(u) - 1), the
    expected number of inverted ancestor-descendant pairs being half of all pairs. With an optimal
    layout it bounds E[T] of random priorities; it is at most (k+1)/2 |nodes|."""
    nodes = {tuple(s[:i]) for s in layout for i in range(1, len(s) + 1)}
    return len(nodes) + Fraction(sum(len(u) - 1 for u in nodes), 2)


def random_priority_ratio_bound(k: int) -> Fraction:
    """(k+1)/2: the competitive ratio of random priorities, requests of at most k chunks
    (Theorem RP); tight, by the star (:func:`star_expected_cost`)."""
    if k < 1:
        raise InstanceError("k must be at least 1")
    return Fraction(k + 1, 2)


def star_expected_cost(k: int, m: int) -> Fraction:
    """E[T] of random priorities on the star R_j = C + {x_j} (|C| = k - 1, j = 1..m):
    (k-1) m/(m+1) + m (k+1)/2, while OPT_free = k - 1 + m (Section 12). Request j's sequence is
    the core chunks before x_j (shared by all), x_j, then the rest of the core; the shared core
    path is as deep as the last private chunk's rank allows."""
    if k < 1 or m < 1:
        raise InstanceError("k and m must be at least 1")
    return Fraction((k - 1) * m, m + 1) + Fraction(m * (k + 1), 2)
