"""Kernels of the prefix-set search for unit-weight OPT_free on small universes (private;
the public function, the statement and the proof are in :mod:`mptsearch.exact.prefix_sets`).

Families of j-chunk sets are bitmasks over the ranks of the C(n, j) sets of that size
(n <= 7, so at most 35 ranks: one int64). ``tab`` is built by :func:`level_tables`:

- ``setmask[j, r]``: the chunk mask of the r-th j-set (increasing numeric order);
- ``subs[j, r]``: the (j-1)-sets inside it, as a level-(j-1) rank mask;
- ``ups[j, s]``: the (j+1)-sets containing the s-th j-set, as a level-(j+1) rank mask;
- ``up1[C]``: for a chunk mask C, the 2-sets meeting C (level-2 rank mask).
"""

import numpy as np
from numba import types
from .._jit import njit
from numba.typed import Dict

from .._bits import ctz, popcount

__all__ = ["level_tables", "solve_level", "level_of_chunks", "cover_number"]

MAXN = 7
BIG = np.int64(1) << 40
ZERO = np.int64(0)


def ranks(n, width):
    """(setmask, rank): ``setmask[j, r]`` the r-th j-chunk set (increasing numeric order) of
    an n-chunk universe, ``rank[x]`` the rank of chunk mask x among the sets of its size."""
    setmask = np.zeros((n + 2, width), dtype=np.int64)
    rank = np.zeros(1 << n, dtype=np.int64)
    count = [0] * (n + 2)
    for x in range(1 << n):
        j = bin(x).count("1")
        rank[x] = count[j]
        setmask[j, count[j]] = x
        count[j] += 1
    return setmask, rank


def up_pairs(n, rank):
    """``up1[C]``: the 2-sets meeting chunk mask C, as a level-2 rank mask (one word)."""
    up1 = np.zeros(1 << n, dtype=np.int64)
    for C in range(1 << n):
        for x in range(1 << n):
            if bin(x).count("1") == 2 and x & C:
                up1[C] |= 1 << int(rank[x])
    return up1


def level_tables(n):
    """(setmask, subs, ups, up1, rank) for an n-chunk universe (numpy, built once per n)."""
    W = 36
    setmask, rank = ranks(n, W)
    subs = np.zeros((n + 2, W), dtype=np.int64)
    ups = np.zeros((n + 2, W), dtype=np.int64)
    for x in range(1, 1 << n):
        j = bin(x).count("1")
        for c in range(n):
            if x >> c & 1:
                y = x & ~(1 << c)
                subs[j, rank[x]] |= 1 << int(rank[y])
                ups[j - 1, rank[y]] |= 1 << int(rank[x])
    return setmask, subs, ups, up_pairs(n, rank), rank


@njit(cache=True)
def level_of_chunks(U2, forced1, n, up1):
    """Cost of levels 2 and 1 for the 2-sets U2 (forced1: the 1-chunk requests): |U2| plus
    the least |C| over chunk sets C containing forced1 that meet every 2-set of U2, and C.
    O(2^n)."""
    best = BIG
    arg = np.int64(0)
    for C in range(1 << n):
        if C & forced1 != forced1:
            continue
        if U2 & ~up1[C] == 0:
            c = popcount(np.int64(C))
            if c < best:
                best = c
                arg = C
    return popcount(U2) + best, arg


@njit(cache=True)
def _pack(unc, banned, subs_j):
    """Members of ``unc`` whose usable (j-1)-subsets are pairwise disjoint: each needs a new
    (j-1)-set of its own, so this many more are needed at least (greedy, a lower bound)."""
    used = np.int64(0)
    cnt = 0
    x = unc
    while x:
        t = ctz(x)
        x &= x - 1
        a = subs_j[t] & ~banned
        if a & used == 0:
            used |= a
            cnt += 1
    return cnt


@njit(cache=True)
def _recall(memo, key, cutoff):
    """min(v, cutoff) from the memo, or -1 when the memo cannot tell."""
    if key in memo:
        e = memo[key]
        v = e >> 1
        if e & 1 or v >= cutoff:
            return min(v, cutoff)
    return -1


@njit(cache=True)
def _remember(memo, key, v, cutoff):
    e = 2 * v + 1 if v < cutoff else 2 * v
    if key in memo:
        old = memo[key]
        if old & 1 or (old >> 1) >= v and not e & 1:
            return
    memo[key] = e


@njit(cache=True)
def solve_level(j, U, forced, n, subs, ups, up1, cutoff, floor, lowrest):
    """(v, Q): v = min(cutoff, cost of levels j..1), where the cost is |U| plus the least
    cost of the (j-1)-set family Q ∪ forced[j-1] over covers Q of U (every member of U
    contains a member of Q ∪ forced[j-1]); Q attains v when v < cutoff.

    Depth-first branch and bound over covers: pick the uncovered set with the fewest usable
    (j-1)-subsets, branch over them (branch i takes subset i and bans subsets 1..i-1). This
    reaches only some covers, but every cover contains a reached one (follow the first branch
    whose subset belongs to it), and cost_{j-1}(U') >= cost_{j-1}(U) + |U' minus U| for U within
    U', so the least cost is among the reached covers. A node is cut when |U| + cost(Q ∪ forced) + (a packing of the
    uncovered sets) >= the best so far, which is sound because the cost of levels < j grows
    by at least one per set added (it is |Q| plus a monotone term). ``lowrest`` is a lower
    bound, known to the caller, on cost_{j-1}(Q') - |Q'| for every cover Q' of U (the level
    bound of the levels below j-1; 0 when unknown); the search stops as soon as the best is
    <= ``floor`` (a lower bound on the answer known to the caller: 0 when unknown)."""
    if j == 1:
        v = popcount(U)
        return min(v, cutoff), np.int64(0)
    if j == 2:
        v, C = level_of_chunks(U, forced[1], n, up1)
        return min(v, cutoff), C
    base = popcount(U)
    fj = forced[j - 1]
    # what forced (j-1)-sets already cover
    cov = np.int64(0)
    x = fj
    while x:
        s = ctz(x)
        x &= x - 1
        cov |= ups[j - 1, s]
    unc0 = U & ~cov
    best = cutoff
    bestQ = np.int64(-1)
    if unc0 == 0:
        v, _ = solve_level(j - 1, fj, forced, n, subs, ups, up1, cutoff - base, ZERO, ZERO)
        if base + v < best:
            return base + v, np.int64(0)
        return best, bestQ
    # level j-1 answers by cover: 2 * v + 1 when v is exact, 2 * v when only "v or more"
    memo = Dict.empty(key_type=types.int64, value_type=types.int64)
    D = popcount(unc0) + 1
    sQ = np.zeros(D, dtype=np.int64)
    sU = np.zeros(D, dtype=np.int64)
    sB = np.zeros(D, dtype=np.int64)
    sCand = np.zeros(D, dtype=np.int64)
    sDone = np.zeros(D, dtype=np.int64)
    d = 0
    sQ[0] = 0
    sU[0] = unc0
    sB[0] = fj  # forced sets are there already: adding them gains nothing
    sCand[0] = -1
    while d >= 0:
        if sCand[d] == -1:
            Q = sQ[d]
            unc = sU[d]
            ban = sB[d]
            if unc == 0:
                v = _recall(memo, Q | fj, best - base)
                if v < 0:
                    v, _ = solve_level(j - 1, Q | fj, forced, n, subs, ups, up1, best - base, ZERO, ZERO)
                    _remember(memo, Q | fj, v, best - base)
                if base + v < best:
                    best = base + v
                    bestQ = Q
                    if best <= floor:
                        return best, bestQ
                d -= 1
                continue
            pk = _pack(unc, ban, subs[j])
            need = best - base - pk
            if need <= 0 or popcount(Q | fj) + lowrest >= need:
                d -= 1
                continue
            v = _recall(memo, Q | fj, need)
            if v < 0:
                v, _ = solve_level(j - 1, Q | fj, forced, n, subs, ups, up1, need, ZERO, ZERO)
                _remember(memo, Q | fj, v, need)
            if v >= need:
                d -= 1
                continue
            # pivot: the uncovered set with the fewest usable subsets
            piv = -1
            pc = 99
            y = unc
            while y:
                t = ctz(y)
                y &= y - 1
                c = popcount(subs[j, t] & ~ban)
                if c < pc:
                    pc = c
                    piv = t
            if pc == 0:
                d -= 1
                continue
            sCand[d] = subs[j, piv] & ~ban
            sDone[d] = 0
        cand = sCand[d] & ~sDone[d]
        if cand == 0:
            sCand[d] = -1
            d -= 1
            continue
        # the candidate covering the most uncovered sets first (a good first leaf)
        bs = -1
        bc = -1
        y = cand
        while y:
            s = ctz(y)
            y &= y - 1
            c = popcount(ups[j - 1, s] & sU[d])
            if c > bc:
                bc = c
                bs = s
        bit = np.int64(1) << bs
        sQ[d + 1] = sQ[d] | bit
        sU[d + 1] = sU[d] & ~ups[j - 1, bs]
        sB[d + 1] = sB[d] | sDone[d]
        sCand[d + 1] = -1
        sDone[d] |= bit
        d += 1
    return best, bestQ


@njit(cache=True)
def cover_number(U, i, j, subs, ups, cutoff):
    """The least number of i-sets such that every j-set of U (i < j) contains one
    (a set cover, by the same branching as :func:`solve_level`), or ``cutoff`` if it is not
    below it. Used for the level lower bound sum_i cover_i(F)."""
    # the i-sets inside each member of U, as masks over level-i ranks
    W = 36
    inside = np.zeros(W, dtype=np.int64)
    idx = np.zeros(W, dtype=np.int64)
    cnt = 0
    y = U
    while y:
        t = ctz(y)
        y &= y - 1
        a = np.int64(1) << t
        for lev in range(j, i, -1):
            b = np.int64(0)
            z = a
            while z:
                s = ctz(z)
                z &= z - 1
                b |= subs[lev, s]
            a = b
        inside[cnt] = a
        idx[cnt] = t
        cnt += 1
    if cnt == 0:
        return 0
    best = cutoff
    D = cnt + 1
    sU = np.zeros(D, dtype=np.int64)  # uncovered members, as a mask over 0..cnt-1
    sB = np.zeros(D, dtype=np.int64)
    sK = np.zeros(D, dtype=np.int64)  # chosen so far
    sCand = np.zeros(D, dtype=np.int64)
    sDone = np.zeros(D, dtype=np.int64)
    full = (np.int64(1) << cnt) - 1
    d = 0
    sU[0] = full
    sCand[0] = -1
    while d >= 0:
        if sCand[d] == -1:
            unc = sU[d]
            if unc == 0:
                if sK[d] < best:
                    best = sK[d]
                d -= 1
                continue
            # packing of the uncovered members by disjoint usable i-sets
            used = np.int64(0)
            pk = 0
            piv = -1
            pc = 99
            y = unc
            while y:
                t = ctz(y)
                y &= y - 1
                a = inside[t] & ~sB[d]
                c = popcount(a)
                if c < pc:
                    pc = c
                    piv = t
                if a & used == 0:
                    used |= a
                    pk += 1
            if sK[d] + pk >= best or pc == 0:
                d -= 1
                continue
            sCand[d] = inside[piv] & ~sB[d]
            sDone[d] = 0
        cand = sCand[d] & ~sDone[d]
        if cand == 0:
            sCand[d] = -1
            d -= 1
            continue
        bs = -1
        bc = -1
        y = cand
        while y:
            s = ctz(y)
            y &= y - 1
            c = 0
            z = sU[d]
            while z:
                t = ctz(z)
                z &= z - 1
                if inside[t] >> s & 1:
                    c += 1
            if c > bc:
                bc = c
                bs = s
        bit = np.int64(1) << bs
        nu = sU[d]
        z = sU[d]
        while z:
            t = ctz(z)
            z &= z - 1
            if inside[t] >> bs & 1:
                nu &= ~(np.int64(1) << t)
        sU[d + 1] = nu
        sK[d + 1] = sK[d] + 1
        sB[d + 1] = sB[d] | sDone[d]
        sCand[d + 1] = -1
        sDone[d] |= bit
        d += 1
    return best


@njit(cache=True)
def _levels_of(req, m, rank):
    """(forced, k, uniform): the requests (chunk masks req[:m]) as one rank mask per size."""
    forced = np.zeros(MAXN + 2, dtype=np.int64)
    k = 0
    lo = 99
    for a in range(m):
        j = np.int64(popcount(req[a]))
        forced[j] |= np.int64(1) << rank[np.int64(req[a])]
        k = max(k, j)
        lo = min(lo, j)
    return forced, k, lo == k


@njit(cache=True)
def level_bound_of(forced, k, subs, ups):
    """(sum_{i<k} cover_i, sum_{i<k-1} cover_i) for the k-uniform family forced[k]: the
    level lower bound minus m, and the part below level k-1."""
    tot = ZERO
    below = ZERO
    for i in range(1, k):
        c = cover_number(forced[k], i, k, subs, ups, BIG)
        tot += c
        if i < k - 1:
            below += c
    return tot, below


@njit(cache=True)
def free_value(forced, k, uniform, n, subs, ups, up1):
    """(OPT_free, the level-(k-1) cover attaining it) for the family ``forced`` (one rank
    mask per size, k the largest): the top-level search, started from the level bound when
    the family is uniform."""
    floor = ZERO
    lowrest = ZERO
    if uniform and k >= 3:
        tot, below = level_bound_of(forced, k, subs, ups)
        floor = popcount(forced[k]) + tot
        lowrest = below
    return solve_level(k, forced[k], forced, n, subs, ups, up1, BIG, floor, lowrest)


@njit(cache=True)
def prefix_set_free(req, m, n, subs, ups, up1, rank):
    """OPT_free (unit weights, n <= 7) of the family req[:m] of chunk masks."""
    forced, k, uniform = _levels_of(req, m, rank)
    v, _ = free_value(forced, k, uniform, n, subs, ups, up1)
    return v


@njit(cache=True)
def prefix_set_bound(req, m, n, subs, ups, rank):
    """The level lower bound of a uniform family req[:m] (0 when it is not uniform)."""
    forced, k, uniform = _levels_of(req, m, rank)
    if not uniform:
        return 0
    tot, _ = level_bound_of(forced, k, subs, ups)
    return m + tot


@njit(cache=True)
def level_bounds(masks, ms, rows, n, subs, ups, rank, out):
    """out[t] := the level bound of family rows[t] (masks[row, :ms[row]], uniform or 0)."""
    for t in range(rows.shape[0]):
        i = rows[t]
        out[t] = prefix_set_bound(masks[i], ms[i], n, subs, ups, rank)
