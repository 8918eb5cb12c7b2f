"""Named families and random instance generators (the paper, Sections 4 and 5).

- :func:`k4_3`: the complete 3-uniform hypergraph on four chunks, OPT_free 8 vs OPT_glob 9.
- :func:`leave_one_out`: L_n, request i = all n chunks but i; OPT_free is the minimum external
  path length of a binary tree with n leaves.
- :func:`ratio_record`: the paper's k=4 record, OPT_free 14 vs OPT_glob 21.
- :func:`random_instance`: m distinct requests of size k (or a size range) on n chunks.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from .instance import Instance, InstanceError, from_compact, from_lists

__all__ = ["k4_3", "leave_one_out", "ratio_record", "random_instance", "min_external_path_length"]


def k4_3() -> Instance:
    """K4^(3) = ``012 013 023 123``: OPT_free 8, OPT_glob 9 (the paper's minimal gap)."""
    return from_compact("012 013 023 123")


def ratio_record() -> Instance:
    """The paper's annealed k=4 record on 7 chunks: OPT_free 14, OPT_glob 21 (ratio 1.5)."""
    return from_compact("0145 0236 1236 1245 1345 1456 2346 2356")


def leave_one_out(n: int) -> Instance:
    """L_n: n requests on n chunks, request i holds every chunk but i.

    OPT_free(L_n) = minimum external path length of a binary tree with n leaves; a global
    order and level-wise greedy both pay (n-1) + n(n-1)/2. (L_1 would be one empty request,
    of cost 0, which is not an instance: n >= 2.)
    """
    if n < 2:
        raise InstanceError("leave_one_out needs n >= 2 (L_1 is a single empty request)")
    return from_lists([[x for x in range(n) if x != i] for i in range(n)])


def min_external_path_length(n: int) -> int:
    """Minimum external path length of a binary tree with n leaves (balanced tree):
    with q = floor(log2 n), it is n*q + 2*(n - 2^q). OEIS A003314; A001855 shifted by n-1."""
    if n < 1:
        raise ValueError("n >= 1")
    q = n.bit_length() - 1
    return n * q + 2 * (n - (1 << q))


def random_instance(n: int, m: int, k: int | tuple[int, int], *, weights: tuple[int, int] = (1, 1),
                    seed: int | np.random.Generator | None = None) -> Instance:
    """m distinct random requests on n chunks.

    Parameters
    ----------
    n : int
        Chunks in the universe (labels 0..n-1; chunks no request uses are dropped).
    m : int
        Number of distinct requests.
    k : int or (lo, hi)
        Request size, or an inclusive range drawn uniformly per request.
    weights : (lo, hi)
        Inclusive range of the integer chunk weights, uniform (``(1, 1)``: unit weights).
    seed : int or numpy Generator
    """
    from .classes import FamilyClass

    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    family = FamilyClass.of(n, k, m, weights)
    problems = family.problems()
    if problems:
        raise InstanceError(problems[0])
    (lo, hi), capacity = family.k, family.capacity
    seen, reqs = set(), []
    if capacity <= 4 * m:
        pool = [c for s in range(lo, hi + 1) for c in combinations(range(n), s)]
        pick = rng.choice(len(pool), size=m, replace=False)
        reqs = [list(pool[p]) for p in pick]
    else:
        while len(reqs) < m:
            size = int(rng.integers(lo, hi + 1))
            req = tuple(sorted(int(x) for x in rng.choice(n, size=size, replace=False)))
            if req not in seen:
                seen.add(req)
                reqs.append(list(req))
    w = rng.integers(weights[0], weights[1] + 1, size=n)
    return from_lists(reqs, {x: int(w[x]) for x in range(n)})
