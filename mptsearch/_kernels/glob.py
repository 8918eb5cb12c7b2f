"""OPT_glob (the paper, Section 4: layouts induced by one global chunk priority) by the chunk-subset DP, the kernel behind
:func:`mptsearch.exact.glob.opt_glob`, the annealer and the enumerator.

A chunk c placed after the chunk set P creates one trie node per distinct value of R_i ∩ P
among the requests containing c, so with G(P) the least cost of the chunks of P placed first,

    G(P) = min over c in P of G(P - c) + w(c) * #distinct{R_i ∩ P : i in S_c}.

The requests are partitioned by R_i ∩ P; the partition of P is its parent's (P minus its
lowest chunk) refined by one chunk, and visiting the subsets in increasing order visits them
in a depth-first order of exactly that parent relation, so one partition per depth is kept
on a stack. With one representative request per class, the count for c is
popcount(rep(P) & S_c): the classes either lie inside S_c or miss it, since c is in P.
"""

import numpy as np
from .._jit import njit

from .._bits import ctz, popcount

__all__ = ["glob_table"]


@njit(cache=True)
def glob_table(S, weights, n, m, G, classes, ncls, singles):
    """Fill G[P] for the subsets P of the chunks in use (S_x != 0) and return OPT_glob.

    ``S[x]`` is S_x over the m <= 64 requests; ``G`` (int64) has 2^n entries, of which only
    the subsets of the used chunks are written (unused chunks cost nothing);
    ``classes`` (uint64, (n+1) x m), ``ncls`` and ``singles`` (n+1) are scratch: the classes
    of two or more requests at each depth, their count, and the requests alone.
    O(2^u (m + u)) time for u used chunks."""
    used = np.int64(0)
    for x in range(n):
        if S[x]:
            used |= np.int64(1) << np.int64(x)
    full_req = ~np.uint64(0) if m == 64 else (np.uint64(1) << np.uint64(m)) - np.uint64(1)
    ncls[0] = 0
    singles[0] = 0
    if m == 1:
        singles[0] = full_req
    else:
        classes[0, 0] = full_req
        ncls[0] = 1
    G[0] = 0
    P = np.int64(0)
    while True:
        P = (P - used) & used  # the next subset of `used` in increasing order
        if P == 0:
            break
        d = popcount(P)
        s0 = S[ctz(P)]
        k = 0
        single = singles[d - 1]
        rep = np.uint64(0)
        for j in range(ncls[d - 1]):
            K = classes[d - 1, j]
            for side in range(2):  # split K by chunk c0: a class of two or more requests
                part = K & s0 if side == 0 else K & ~s0  # keeps its lowest as representative;
                if part:                                  # a request alone never splits again
                    if part & (part - np.uint64(1)):
                        classes[d, k] = part
                        k += 1
                        rep |= part & (~part + np.uint64(1))
                    else:
                        single |= part
        ncls[d] = k
        singles[d] = single
        rep |= single
        best = np.int64(1) << np.int64(62)
        rest = P
        while rest:
            c = ctz(rest)
            rest &= rest - 1
            v = G[P ^ (np.int64(1) << c)] + weights[c] * np.int64(popcount(rep & S[c]))
            if v < best:
                best = v
        G[P] = best
    return G[used]
