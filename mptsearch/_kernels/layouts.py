"""Trie costs of heuristic layouts, value only: the compiled twins the cost-ratio search runs
(``mptsearch anneal --objective cost-ratio``), each equal to the trie cost of the public
heuristic's own layout (:mod:`mptsearch.heuristics.registry`), tie-breaking included.

- :func:`rows_cost`: the prefix-trie cost of a layout held as rows of chunk ids (sorted
  rows: each adds its chunks past the longest common prefix with the row before it);
- :func:`greedy_cost`: level-wise greedy hitting set (``greedy``);
- :func:`agglomerative_cost`: the layout of the "first" agglomerative hierarchy
  (``agglomerative(inst, tie_break="first").value``);
- :func:`heaviest_first_cost`: the global order by decreasing weight, ties to the smaller
  chunk id (``heaviest_first``, Lemma 3 of docs/theta_k.md);
- :func:`class_orders_cost`: the cheapest of the derandomised random-class orders
  (``class_orders``, docs/approximation.md, Theorem B5);
- :func:`heuristic_cost`: dispatch on the codes below (``BEST_OF``: the cheaper of
  heaviest-first and agglomerative, the value of ``best_of`` in the approximation module).

Conventions of :mod:`.masks` (requests as uint64 chunk masks, chunk ids = bit positions, in
the order of the instance's chunk ids). These kernels allocate their few small buffers
(O(m n) entries); the exact OPT_free beside them costs O(3^m).
"""

import numpy as np
from .._jit import njit

from .._bits import ctz, popcount
from .agglomerative import agglomerative_tree
from .masks import chunk_sets

__all__ = ["GREEDY", "AGGLOMERATIVE", "HEAVIEST_FIRST", "BEST_OF", "CLASS_ORDERS", "rows_cost",
           "greedy_cost", "agglomerative_cost", "order_cost", "heaviest_first_cost", "class_orders_cost", "heuristic_cost"]

# Kernel codes of the heuristics (mptsearch.heuristics.registry maps names to them).
GREEDY, AGGLOMERATIVE, HEAVIEST_FIRST, BEST_OF, CLASS_ORDERS = 0, 1, 2, 3, 4


@njit(cache=True, inline="always")
def _row_less(rows, lens, a, b):
    """Row a before row b lexicographically (a proper prefix first)."""
    la, lb = lens[a], lens[b]
    for p in range(min(la, lb)):
        if rows[a, p] != rows[b, p]:
            return rows[a, p] < rows[b, p]
    return la < lb


@njit(cache=True)
def rows_cost(rows, lens, m, weights):
    """Total weight of the nodes of the prefix trie of the sequences rows[i, :lens[i]], i < m.

    In lexicographic order, the trie nodes a row adds to those of the rows before it are its
    chunks past the longest common prefix with its predecessor. O(m^2 k) (insertion sort)."""
    perm = np.empty(m, dtype=np.int64)
    for i in range(m):
        j = i
        while j > 0 and _row_less(rows, lens, i, perm[j - 1]):
            perm[j] = perm[j - 1]
            j -= 1
        perm[j] = i
    cost = np.int64(0)
    for t in range(m):
        r = perm[t]
        lcp = 0
        if t > 0:
            q = perm[t - 1]
            while lcp < lens[r] and lcp < lens[q] and rows[r, lcp] == rows[q, lcp]:
                lcp += 1
        for p in range(lcp, lens[r]):
            cost += weights[rows[r, p]]
    return cost


@njit(cache=True)
def greedy_cost(req, m, n, weights):
    """Trie cost of the level-wise greedy layout of req[:m] on n chunks.

    A trie node is (the requests there, the chunk set P on its path); its next child takes the
    chunk outside P held by the most of its requests, ties to the heavier chunk, then the
    smaller id, and every request holding it. Each pick is a new trie node, so the cost is the
    total weight of the picks. A set of requests is a bitset of ceil(m / 64) uint64 words, so
    every m is exact. O(nodes * n * ceil(m / 64)) time, O(m n ceil(m / 64)) memory."""
    nw = max((m + 63) >> 6, 1)
    one = np.uint64(1)
    Sx = np.zeros((n, nw), dtype=np.uint64)  # Sx[x]: the requests containing chunk x
    for i in range(m):
        r = req[i]
        bit = one << np.uint64(i & 63)
        while r:
            Sx[ctz(r), i >> 6] |= bit
            r &= r - one
    cap = m * n + 2  # a node's children are distinct trie nodes: at most sum_i |R_i| + 1 on the stack
    gst = np.zeros((cap, nw), dtype=np.uint64)
    pst = np.zeros(cap, dtype=np.uint64)
    for i in range(m):
        gst[0, i >> 6] |= one << np.uint64(i & 63)
    top = 1
    cost = np.int64(0)
    g = np.empty(nw, dtype=np.uint64)
    while top > 0:
        top -= 1
        P = pst[top]
        left = 0  # requests of the node with a chunk outside P
        for w in range(nw):
            rest = gst[top, w]
            gw = np.uint64(0)
            while rest:
                i = 64 * w + ctz(rest)
                rest &= rest - one
                if req[i] & ~P:
                    gw |= one << np.uint64(i & 63)
            g[w] = gw
            left += popcount(gw)
        while left > 0:
            bx = -1
            bc = 0
            bw = np.int64(0)
            for x in range(n):
                if P >> np.uint64(x) & one:
                    continue
                c = 0
                for w in range(nw):
                    c += popcount(g[w] & Sx[x, w])
                if c > bc or (c == bc and c > 0 and weights[x] > bw):
                    bx, bc, bw = x, c, weights[x]
            cost += weights[bx]
            for w in range(nw):
                child = g[w] & Sx[bx, w]
                gst[top, w] = child
                g[w] &= ~child
            pst[top] = P | (one << np.uint64(bx))
            top += 1
            left -= bc
    return cost


@njit(cache=True)
def _emit(mask, rows, lens, i):
    """Append the chunks of ``mask`` to row i in increasing id."""
    while mask:
        rows[i, lens[i]] = ctz(mask)
        lens[i] += 1
        mask &= mask - np.uint64(1)


@njit(cache=True)
def agglomerative_rows(req, m, weights, sig, act, rows, lens):
    """The layout of the "first" agglomerative hierarchy of req[:m] into rows/lens: read off
    top-down, each node emitting the chunks of its signature not in its parent's, in increasing
    id (:meth:`mptsearch.hierarchy.Hierarchy.layout`). O(m^3 k)."""
    parent = np.empty(2 * m, dtype=np.int64)
    agglomerative_tree(req, m, weights, sig, act, parent)
    chain = np.empty(2 * m, dtype=np.int64)
    for i in range(m):
        d = 0
        v = i
        while v >= 0:
            chain[d] = v
            d += 1
            v = parent[v]
        lens[i] = 0
        above = np.uint64(0)
        for t in range(d - 1, -1, -1):
            s = sig[chain[t]]
            _emit(s & ~above, rows, lens, i)
            above = s


@njit(cache=True)
def agglomerative_cost(req, m, n, weights, sig, act):
    """Trie cost of the "first" agglomerative layout of req[:m] (n chunks). O(m^3 k)."""
    rows = np.empty((m, max(n, 1)), dtype=np.int64)
    lens = np.zeros(m, dtype=np.int64)
    agglomerative_rows(req, m, weights, sig, act, rows, lens)
    return rows_cost(rows, lens, m, weights)


@njit(cache=True)
def order_cost(req, m, n, weights, order):
    """Trie cost of the layout induced by the global order ``order`` (a permutation of the n
    chunk ids): every request lists its chunks in that order. O(m n + m^2 k)."""
    rows = np.empty((m, max(n, 1)), dtype=np.int64)
    lens = np.zeros(m, dtype=np.int64)
    one = np.uint64(1)
    for t in range(n):
        x = order[t]
        for i in range(m):
            if req[i] >> np.uint64(x) & one:
                rows[i, lens[i]] = x
                lens[i] += 1
    return rows_cost(rows, lens, m, weights)


@njit(cache=True)
def heaviest_first_cost(req, m, n, weights):
    """Trie cost of the layout induced by the global order of decreasing weight (ties to the
    smaller chunk id). O(n^2 + m n + m^2 k)."""
    return order_cost(req, m, n, weights, _heaviest_first(n, weights))


@njit(cache=True)
def _heaviest_first(n, weights):
    """Chunk ids by decreasing weight, ties to the smaller id (stable insertion sort, O(n^2))."""
    order = np.empty(n, dtype=np.int64)
    for x in range(n):
        j = x
        while j > 0 and weights[order[j - 1]] < weights[x]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = x
    return order


@njit(cache=True)
def class_orders_cost(req, m, n, weights):
    """The least trie cost over the class orders of ``approximation.class_order_candidates``:
    for every interval of the offset U between the fractional parts of the ln w(x), the
    classes floor(ln w(x) - U) from the highest down, each class heaviest first (ties to the
    smaller id) or, in the reversed candidate, the reverse of that. Logarithms in float64 (the
    public function compares them in 50-digit decimals; both give the same floors and the same
    order of fractional parts for every weight up to 10^5, tests/test_class_orders.py). O(n (n^2 + m n + m^2 k))."""
    hf = _heaviest_first(n, weights)
    fl = np.empty(n, dtype=np.int64)
    fr = np.empty(n, dtype=np.float64)
    for x in range(n):
        a = np.log(np.float64(weights[x]))
        fl[x] = np.int64(np.floor(a))
        fr[x] = a - np.floor(a)
    cls = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    best = np.int64(-1)
    for j in range(n + 1):  # thresholds: 0 (j = n) and every chunk's fractional part
        t = 0.0 if j == n else fr[j]
        if j < n:
            seen = False  # one candidate per distinct threshold: skip a repeat of an earlier one
            if t == 0.0:
                seen = True
            for i in range(j):
                if fr[i] == t:
                    seen = True
            if seen:
                continue
        lo = np.int64(0)
        hi = np.int64(0)
        for x in range(n):
            cls[x] = fl[x] - (1 if fr[x] <= t else 0)
            if x == 0 or cls[x] < lo:
                lo = cls[x]
            if x == 0 or cls[x] > hi:
                hi = cls[x]
        for rev in range(2):
            pos = 0
            for c in range(hi, lo - 1, -1):
                if rev == 0:
                    for q in range(n):
                        if cls[hf[q]] == c:
                            order[pos] = hf[q]
                            pos += 1
                else:
                    for q in range(n - 1, -1, -1):
                        if cls[hf[q]] == c:
                            order[pos] = hf[q]
                            pos += 1
            cost = order_cost(req, m, n, weights, order)
            if best < 0 or cost < best:
                best = cost
    return best


@njit(cache=True)
def heuristic_cost(code, req, m, n, weights, ws):
    """The trie cost of heuristic ``code``'s layout of req[:m] (uses ws.sig, ws.act)."""
    if code == GREEDY:
        return greedy_cost(req, m, n, weights)
    if code == AGGLOMERATIVE:
        return agglomerative_cost(req, m, n, weights, ws.sig, ws.act)
    if code == CLASS_ORDERS:
        return class_orders_cost(req, m, n, weights)
    if code == BEST_OF:  # a minimum: the value does not depend on which one wins a tie
        return min(heaviest_first_cost(req, m, n, weights), agglomerative_cost(req, m, n, weights, ws.sig, ws.act))
    return heaviest_first_cost(req, m, n, weights)
