"""Kernels of the prefix-set search on 8-10 chunks: the levels' families as multi-word bitsets
(private; the statement, the proofs and the public function are in
:mod:`mptsearch.exact.prefix_sets`).

The 7-chunk kernels (:mod:`.prefix_sets`) hold a family of j-sets in one int64 (C(7, j) <= 35);
here a family is ``W = 4`` int64 words (C(10, 5) = 252 <= 256 ranks), a row of an array.
The search is the same nested branch and bound, with one change: the values cost_j(U) are
remembered in one table for the whole search (keyed by (j, U); cost_j(U) depends on U and the
requests only, so an answer found under one cover is valid under every other), instead of one
table per call. ``tab`` is built by :func:`wide_tables`:

- ``subs[j, r]``: the (j-1)-sets inside the r-th j-set, as a level-(j-1) rank bitset;
- ``ups[j, s]``: the (j+1)-sets containing the s-th j-set, as a level-(j+1) rank bitset;
- ``up1[C]``: for a chunk mask C, the 2-sets meeting C (C(10, 2) = 45 ranks: one word);
- ``rank[x]``: the rank of chunk mask x among the sets of its size (increasing numeric order).

Every search takes a *halt* (:mod:`.halt`: a deadline and a node budget): a search it stops
returns at once, remembers nothing it had not finished, and leaves the flag set, so its
caller knows the value is unfinished (a dense family on 8-9 chunks can take minutes).
"""

import numpy as np
from .._bits import ctz, popcount
from .._jit import njit
from .halt import halted, unfinished
from .prefix_sets import level_of_chunks, ranks, up_pairs

__all__ = ["wide_tables", "wide_free", "wide_free_from", "wide_solve", "wide_forced", "wide_level_bound",
           "cover_number", "new_memo", "setbit", "W", "MAXN"]

W = 4       # words per level bitset: C(10, j) <= 252 <= 4 * 64
MAXN = 10
BIG = np.int64(1) << 40


def setbit(row, r):
    """Set bit ``r`` of the W-word int64 bitset ``row`` in place (bit 63 of a word is its sign
    bit, which a Python int does not convert to int64)."""
    row[r >> 6] |= np.int64(1 << (r & 63)) if (r & 63) < 63 else np.int64(-(1 << 63))


def wide_tables(n):
    """(setmask, subs, ups, up1, rank) for an n-chunk universe, n <= 10 (numpy, once per n)."""
    R = 252
    setmask, rank = ranks(n, R)
    subs = np.zeros((n + 2, R, W), dtype=np.int64)
    ups = np.zeros((n + 2, R, W), dtype=np.int64)

    for x in range(1, 1 << n):
        j = bin(x).count("1")
        for c in range(n):
            if x >> c & 1:
                y = x & ~(1 << c)
                setbit(subs[j, rank[x]], int(rank[y]))
                setbit(ups[j - 1, rank[y]], int(rank[x]))
    return setmask, subs, ups, up_pairs(n, rank), rank


MEMO_BITS = 18  # 2^18 slots of 10 int64 words: 20 MB


def new_memo(bits: int = MEMO_BITS):
    """An empty table of cost_j(U) for :func:`wide_solve`: (keys, values), 2^bits slots; a
    key row is (j, U's W words, then the W words of an optimal cover Q of U when the value
    is exact). A lossy cache (a full probe run overwrites its first slot): forgetting an
    entry costs time, never exactness."""
    return np.zeros((1 << bits, 2 * W + 1), dtype=np.int64), np.zeros(1 << bits, dtype=np.int64)


PROBE = 8


@njit(cache=True, inline="always")
def _slot(mkeys, j, a):
    h = np.uint64(j) * np.uint64(0x9E3779B97F4A7C15)
    for w in range(W):
        h = (h ^ np.uint64(a[w])) * np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(29)
    return np.int64(h & np.uint64(mkeys.shape[0] - 1))


@njit(cache=True)
def _find(mkeys, mvals, j, a):
    """The slot holding (j, a), or -1."""
    mask = mkeys.shape[0] - 1
    h = _slot(mkeys, j, a)
    for p in range(PROBE):
        i = (h + p) & mask
        if mvals[i] == 0:
            return np.int64(-1)
        if mkeys[i, 0] == j and mkeys[i, 1] == a[0] and mkeys[i, 2] == a[1] and mkeys[i, 3] == a[2] \
                and mkeys[i, 4] == a[3]:
            return i
    return np.int64(-1)


@njit(cache=True)
def _recall(mkeys, mvals, j, a):
    """The stored entry of (j, a) (2 v + 1 exact, 2 v a lower bound), or -1."""
    i = _find(mkeys, mvals, j, a)
    return mvals[i] - 1 if i >= 0 else np.int64(-1)


@njit(cache=True)
def _remember(mkeys, mvals, j, a, e, q):
    """Store entry e of (j, a) (and q, an optimal cover, when e is exact), unless the table
    already knows as much."""
    mask = mkeys.shape[0] - 1
    h = _slot(mkeys, j, a)
    at = h
    for p in range(PROBE):
        i = (h + p) & mask
        if mvals[i] == 0:
            at = i
            break
        if mkeys[i, 0] == j and mkeys[i, 1] == a[0] and mkeys[i, 2] == a[1] and mkeys[i, 3] == a[2] \
                and mkeys[i, 4] == a[3]:
            old = mvals[i] - 1
            if old & 1 or ((old >> 1) >= (e >> 1) and not e & 1):
                return
            at = i
            break
    mkeys[at, 0] = j
    for w in range(W):
        mkeys[at, 1 + w] = a[w]
        mkeys[at, 1 + W + w] = q[w]
    mvals[at] = e + 1


@njit(cache=True, inline="always")
def _popc(a):
    c = 0
    for w in range(W):
        c += popcount(a[w])
    return c


@njit(cache=True, inline="always")
def _empty(a):
    for w in range(W):
        if a[w] != 0:
            return False
    return True


@njit(cache=True)
def _pack(unc, banned, subs_j, used):
    """Members of ``unc`` whose usable (j-1)-subsets are pairwise disjoint: each needs a new
    (j-1)-set of its own, so this many more are needed at least (greedy, a lower bound).
    ``used`` is scratch."""
    for w in range(W):
        used[w] = 0
    cnt = 0
    for w in range(W):
        x = unc[w]
        while x:
            t = 64 * w + ctz(x)
            x &= x - 1
            ok = True
            for v in range(W):
                if subs_j[t, v] & ~banned[v] & used[v] != 0:
                    ok = False
                    break
            if ok:
                for v in range(W):
                    used[v] |= subs_j[t, v] & ~banned[v]
                cnt += 1
    return cnt


@njit(cache=True)
def _frac_bound(unc, banned, subs_j, ups_l, nsets, degs):
    """ceil(sum over the members t of ``unc`` of 1 / d(t)), d(t) the most members of ``unc``
    that one usable (j-1)-set inside t lies in (the *fractional degree bound* of
    :mod:`mptsearch.exact.prefix_sets`): a lower bound on the (j-1)-sets still to add; 2^20
    when some member has no usable subset left. ``degs`` is scratch of length ``nsets``."""
    for r in range(nsets):
        c = 0
        if not (banned[r >> 6] >> (r & 63)) & 1:
            for w in range(W):
                c += popcount(ups_l[r, w] & unc[w])
        degs[r] = c
    frac = 0.0
    for w in range(W):
        y = unc[w]
        while y:
            t = 64 * w + ctz(y)
            y &= y - 1
            mx = 0
            for v in range(W):
                z = subs_j[t, v] & ~banned[v]
                while z:
                    s = 64 * v + ctz(z)
                    z &= z - 1
                    if degs[s] > mx:
                        mx = degs[s]
            if mx == 0:
                return np.int64(1 << 20)
            frac += 1.0 / mx
    # a sum of at most 252 terms is off by far less than 1e-9: rounding it down first keeps
    # the bound sound
    return np.int64(np.ceil(frac - 1e-9))


@njit(cache=True)
def _degree_bound(unc, banned, ups_l, nsets, degs):
    """The least t such that the t usable (j-1)-sets containing the most members of ``unc``
    (the uncovered j-sets) contain them all, counted with multiplicity: a lower bound on the
    (j-1)-sets still to add. ``degs`` is scratch of length ``nsets``."""
    tot = _popc(unc)
    for r in range(nsets):
        if banned[r >> 6] >> (r & 63) & 1:
            degs[r] = 0
            continue
        c = 0
        for w in range(W):
            c += popcount(ups_l[r, w] & unc[w])
        degs[r] = c
    degs[:nsets].sort()
    t = 0
    acc = 0
    r = nsets - 1
    while acc < tot and r >= 0:
        acc += degs[r]
        t += 1
        r -= 1
    return t


@njit(cache=True)
def wide_solve(j, U, forced, n, subs, ups, up1, cutoff, floor, lowrest, covq, mkeys, mvals, want_q, Q, halt):
    """(v, Q): v = min(cutoff, cost_j(U)) (cost of levels j..1 for the j-set bitset U, see
    :func:`mptsearch._kernels.prefix_sets.solve_level`, whose search this is word for word),
    Q a (j-1)-set cover attaining it when v < cutoff and ``want_q``; when ``halt`` stops the
    search (its flag set), v is meaningless and nothing unfinished was remembered.

    ``memo`` maps (j, U) to 2 v + 1 when cost_j(U) = v, 2 v when only cost_j(U) >= v is
    known (a search cut at cutoff v). Without ``want_q`` the table is read first and written
    last; with it the search runs (the caller reads the cover)."""
    if j == 1:
        return min(np.int64(_popc(U)), cutoff)
    if not want_q:
        e = _recall(mkeys, mvals, j, U)
        if e >= 0:
            v = e >> 1
            if e & 1 or v >= cutoff:
                return min(v, cutoff)
    if j == 2:
        v, C = level_of_chunks(U[0], forced[1, 0], n, up1)
        bq = np.zeros(W, dtype=np.int64)
        bq[0] = C
        if want_q:
            Q[0] = C
        _remember(mkeys, mvals, j, U, 2 * v + 1, bq)
        return min(v, cutoff)
    base = np.int64(_popc(U))
    if not want_q and j >= 3:
        # the level bound of this sub-problem: level i of any family below U covers U
        lb = np.int64(0)
        below = np.int64(0)
        top = np.int64(0)
        for i in range(1, j):
            c = _cover_number(U, i, j, subs, BIG, halt)
            if unfinished(halt):
                return cutoff
            lb += c
            if i < j - 1:
                below += c
            else:
                top = c
        if base + lb >= cutoff:
            _remember(mkeys, mvals, j, U, 2 * (base + lb), np.zeros(W, dtype=np.int64))
            return cutoff
        floor = max(floor, base + lb)
        lowrest = max(lowrest, below)
        covq = max(covq, top)
    fj = forced[j - 1]
    subs_j = subs[j]
    ups_l = ups[j - 1]
    cov = np.zeros(W, dtype=np.int64)
    for w in range(W):
        x = fj[w]
        while x:
            s = 64 * w + ctz(x)
            x &= x - 1
            for v in range(W):
                cov[v] |= ups_l[s, v]
    unc0 = np.zeros(W, dtype=np.int64)
    for w in range(W):
        unc0[w] = U[w] & ~cov[w]
    best = cutoff
    if _empty(unc0):
        v = wide_solve(j - 1, fj.copy(), forced, n, subs, ups, up1, cutoff - base, np.int64(0), np.int64(0), np.int64(0),
                       mkeys, mvals, np.int64(0), Q, halt)
        if unfinished(halt):
            return cutoff
        res = min(base + v, cutoff)
        _remember(mkeys, mvals, j, U, 2 * res + 1 if res < cutoff else 2 * res, np.zeros(W, dtype=np.int64))
        if want_q:
            for w in range(W):
                Q[w] = 0
        return res
    D = _popc(unc0) + 1
    sQ = np.zeros((D, W), dtype=np.int64)
    sU = np.zeros((D, W), dtype=np.int64)
    sB = np.zeros((D, W), dtype=np.int64)
    sCand = np.zeros((D, W), dtype=np.int64)
    sDone = np.zeros((D, W), dtype=np.int64)
    sOpen = np.zeros(D, dtype=np.bool_)
    sV = np.zeros(D, dtype=np.int64)  # cost_{j-1}(Q | fj) at each depth (exact once computed)
    sC = np.zeros((D, W), dtype=np.int64)  # an optimal (j-2)-set cover of Q | fj, when sHas
    sHas = np.zeros(D, dtype=np.bool_)
    sAdd = np.zeros(D, dtype=np.int64)  # the (j-1)-set added at this depth
    bestQ = np.zeros(W, dtype=np.int64)
    fl = forced[j - 2]
    subs_l = subs[j - 1]
    cur = np.zeros(W, dtype=np.int64)
    nsets = 0
    for r in range(ups_l.shape[0]):
        if not _empty(ups_l[r]):
            nsets = r + 1
    degs = np.zeros(max(nsets, 1), dtype=np.int64)
    used = np.zeros(W, dtype=np.int64)
    cand = np.zeros(W, dtype=np.int64)
    for w in range(W):
        sU[0, w] = unc0[w]
        sB[0, w] = fj[w]  # forced sets are there already: adding them gains nothing
    stopped = False
    d = 0
    while d >= 0:
        if halted(halt):
            return best
        if not sOpen[d]:
            for w in range(W):
                cur[w] = sQ[d, w] | fj[w]
            # one set more than the parent's family: cost_{j-1} is at least one more, and
            # exactly one more when the set added contains a member of the parent's optimal
            # cover (or a forced (j-2)-set): that cover then covers this family too
            lbv = sV[d - 1] + 1 if d > 0 else np.int64(0)
            if base + lbv >= best:
                d -= 1
                continue
            known = False
            if d > 0 and sHas[d - 1]:
                a = sAdd[d]
                for w in range(W):
                    if subs_l[a, w] & (sC[d - 1, w] | fl[w]) != 0:
                        known = True
                        break
            if known:
                sHas[d] = True
                for w in range(W):
                    sC[d, w] = sC[d - 1, w]
                sV[d] = lbv
            else:
                sHas[d] = False
            if _empty(sU[d]):
                if known:
                    v = lbv
                else:
                    v = wide_solve(j - 1, cur.copy(), forced, n, subs, ups, up1, best - base, lbv,
                                   np.int64(0), np.int64(0), mkeys, mvals, np.int64(0), Q, halt)
                    if unfinished(halt):
                        return best
                if base + v < best:
                    best = base + v
                    for w in range(W):
                        bestQ[w] = sQ[d, w]
                    if best <= floor:
                        stopped = True
                        break
                d -= 1
                continue
            pk = _pack(sU[d], sB[d], subs_j, used)
            pk = max(pk, covq - _popc(cur))
            if want_q:  # the top level (and the levels read back): worth its O(C(n, j-1)) here only
                pk = max(pk, _degree_bound(sU[d], sB[d], ups_l, nsets, degs))
                pk = max(pk, _frac_bound(sU[d], sB[d], subs_j, ups_l, nsets, degs))
            need = best - base - pk
            if need <= 0 or _popc(cur) + lowrest >= need or lbv >= need:
                d -= 1
                continue
            if not known:
                v = wide_solve(j - 1, cur.copy(), forced, n, subs, ups, up1, need, lbv, np.int64(0),
                               np.int64(0), mkeys, mvals, np.int64(0), Q, halt)
                if unfinished(halt):
                    return best
                if v >= need:
                    d -= 1
                    continue
                sV[d] = v
                i = _find(mkeys, mvals, j - 1, cur)
                if i >= 0 and mvals[i] & 1 == 0 and (mvals[i] - 1) >> 1 == v:  # stored exact (entry + 1 even)
                    sHas[d] = True
                    for w in range(W):
                        sC[d, w] = mkeys[i, 1 + W + w]
            # pivot: the uncovered set with the fewest usable subsets
            piv = -1
            pc = 1 << 20
            for w in range(W):
                y = sU[d, w]
                while y:
                    t = 64 * w + ctz(y)
                    y &= y - 1
                    c = 0
                    for v2 in range(W):
                        c += popcount(subs_j[t, v2] & ~sB[d, v2])
                    if c < pc:
                        pc = c
                        piv = t
            if pc == 0:
                d -= 1
                continue
            for w in range(W):
                sCand[d, w] = subs_j[piv, w] & ~sB[d, w]
                sDone[d, w] = 0
            sOpen[d] = True
        for w in range(W):
            cand[w] = sCand[d, w] & ~sDone[d, w]
        if _empty(cand):
            sOpen[d] = False
            d -= 1
            continue
        # the candidate covering the most uncovered sets first (a good first leaf)
        bs = -1
        bc = -1
        for w in range(W):
            y = cand[w]
            while y:
                s = 64 * w + ctz(y)
                y &= y - 1
                c = 0
                for v2 in range(W):
                    c += popcount(ups_l[s, v2] & sU[d, v2])
                if c > bc:
                    bc = c
                    bs = s
        bw = bs >> 6
        bit = np.int64(1) << (bs & 63)
        for w in range(W):
            sQ[d + 1, w] = sQ[d, w]
            sU[d + 1, w] = sU[d, w] & ~ups_l[bs, w]
            sB[d + 1, w] = sB[d, w] | sDone[d, w]
        sQ[d + 1, bw] |= bit
        sAdd[d + 1] = bs
        sOpen[d + 1] = False
        sDone[d, bw] |= bit
        d += 1
    if want_q:
        for w in range(W):
            Q[w] = bestQ[w]
    # a search stopped at the floor is exact too: best <= floor <= cost_j(U)
    _remember(mkeys, mvals, j, U, 2 * best + 1 if best < cutoff or stopped else 2 * best, bestQ)
    return best


@njit(cache=True)
def wide_forced(req, m, rank):
    """(forced, k, uniform): the requests (chunk masks req[:m]) as one rank bitset per size."""
    forced = np.zeros((MAXN + 2, W), dtype=np.int64)
    k = 0
    lo = 99
    for a in range(m):
        j = popcount(np.int64(req[a]))
        r = rank[np.int64(req[a])]
        forced[j, r >> 6] |= np.int64(1) << (r & 63)
        k = max(k, j)
        lo = min(lo, j)
    return forced, k, lo == k


@njit(cache=True)
def _cover_frac(unc, banned, inside, MW, degc):
    """The fractional degree bound of :func:`_frac_bound` for :func:`_cover_number`'s node:
    ``unc`` a member mask (MW words), ``inside[t]`` the i-sets inside member t; ``degc``
    scratch of 64 W zeros, left zeroed."""
    for w in range(MW):
        y = unc[w]
        while y:
            t = 64 * w + ctz(y)
            y &= y - 1
            for v in range(W):
                z = inside[t, v] & ~banned[v]
                while z:
                    degc[64 * v + ctz(z)] += 1
                    z &= z - 1
    frac = 0.0
    for w in range(MW):
        y = unc[w]
        while y:
            t = 64 * w + ctz(y)
            y &= y - 1
            mx = 1
            for v in range(W):
                z = inside[t, v] & ~banned[v]
                while z:
                    s = 64 * v + ctz(z)
                    z &= z - 1
                    if degc[s] > mx:
                        mx = degc[s]
            frac += 1.0 / mx
    for w in range(MW):
        y = unc[w]
        while y:
            t = 64 * w + ctz(y)
            y &= y - 1
            for v in range(W):
                z = inside[t, v] & ~banned[v]
                while z:
                    degc[64 * v + ctz(z)] = 0
                    z &= z - 1
    return np.int64(np.ceil(frac - 1e-9))


@njit(cache=True)
def _cover_number(U, i, j, subs, cutoff, halt):
    """The least number of i-sets such that every j-set of the bitset U (i < j) contains one,
    or ``cutoff`` if it is not below it (set cover by the branching of :func:`wide_solve`);
    meaningless once ``halt`` stops it."""
    cnt = _popc(U)
    if cnt == 0:
        return np.int64(0)
    inside = np.zeros((cnt, W), dtype=np.int64)  # the i-sets inside each member, level-i bitsets
    a = np.zeros(W, dtype=np.int64)
    b = np.zeros(W, dtype=np.int64)
    t = 0
    for w in range(W):
        y = U[w]
        while y:
            r = 64 * w + ctz(y)
            y &= y - 1
            for v in range(W):
                a[v] = 0
            a[r >> 6] = np.int64(1) << (r & 63)
            for lev in range(j, i, -1):
                for v in range(W):
                    b[v] = 0
                for v in range(W):
                    z = a[v]
                    while z:
                        s = 64 * v + ctz(z)
                        z &= z - 1
                        for u in range(W):
                            b[u] |= subs[lev, s, u]
                for v in range(W):
                    a[v] = b[v]
            for v in range(W):
                inside[t, v] = a[v]
            t += 1
    best = cutoff
    D = cnt + 1
    MW = (cnt + 63) >> 6  # words of a member mask (members 0..cnt-1)
    sU = np.zeros((D, W), dtype=np.int64)
    sB = np.zeros((D, W), dtype=np.int64)
    sK = np.zeros(D, dtype=np.int64)
    sCand = np.zeros((D, W), dtype=np.int64)
    sDone = np.zeros((D, W), dtype=np.int64)
    sOpen = np.zeros(D, dtype=np.bool_)
    used = np.zeros(W, dtype=np.int64)
    cand = np.zeros(W, dtype=np.int64)
    degc = np.zeros(64 * W, dtype=np.int64)
    for t in range(cnt):
        sU[0, t >> 6] |= np.int64(1) << (t & 63)
    d = 0
    while d >= 0:
        if halted(halt):
            return cutoff
        if not sOpen[d]:
            if _empty(sU[d]):
                if sK[d] < best:
                    best = sK[d]
                d -= 1
                continue
            for v in range(W):
                used[v] = 0
            pk = 0
            piv = -1
            pc = 1 << 20
            for w in range(MW):
                y = sU[d, w]
                while y:
                    t = 64 * w + ctz(y)
                    y &= y - 1
                    c = 0
                    ok = True
                    for v in range(W):
                        av = inside[t, v] & ~sB[d, v]
                        c += popcount(av)
                        if av & used[v]:
                            ok = False
                    if c < pc:
                        pc = c
                        piv = t
                    if ok:
                        for v in range(W):
                            used[v] |= inside[t, v] & ~sB[d, v]
                        pk += 1
            if sK[d] + pk < best and pc > 0:
                pk = max(pk, _cover_frac(sU[d], sB[d], inside, MW, degc))
            if sK[d] + pk >= best or pc == 0:
                d -= 1
                continue
            for v in range(W):
                sCand[d, v] = inside[piv, v] & ~sB[d, v]
                sDone[d, v] = 0
            sOpen[d] = True
        for v in range(W):
            cand[v] = sCand[d, v] & ~sDone[d, v]
        if _empty(cand):
            sOpen[d] = False
            d -= 1
            continue
        bs = -1
        bc = -1
        for v in range(W):
            y = cand[v]
            while y:
                s = 64 * v + ctz(y)
                y &= y - 1
                c = 0
                for w in range(MW):
                    z = sU[d, w]
                    while z:
                        t = 64 * w + ctz(z)
                        z &= z - 1
                        if inside[t, s >> 6] >> (s & 63) & 1:
                            c += 1
                if c > bc:
                    bc = c
                    bs = s
        for w in range(W):
            sU[d + 1, w] = sU[d, w]
            sB[d + 1, w] = sB[d, w] | sDone[d, w]
        for w in range(MW):
            z = sU[d, w]
            while z:
                t = 64 * w + ctz(z)
                z &= z - 1
                if inside[t, bs >> 6] >> (bs & 63) & 1:
                    sU[d + 1, w] &= ~(np.int64(1) << (t & 63))
        sK[d + 1] = sK[d] + 1
        sOpen[d + 1] = False
        sDone[d, bs >> 6] |= np.int64(1) << (bs & 63)
        d += 1
    return best


@njit(cache=True)
def wide_level_bound(forced, k, subs, halt):
    """(sum_{i<k} cover_i, sum_{i<k-1} cover_i) for the k-uniform family forced[k]: the level
    lower bound minus m, and its part below level k-1 (meaningless once ``halt`` stops it)."""
    tot = np.int64(0)
    below = np.int64(0)
    for i in range(1, k):
        c = _cover_number(forced[k], i, k, subs, BIG, halt)
        tot += c
        if i < k - 1:
            below += c
    return tot, below


@njit(cache=True)
def wide_free(forced, k, uniform, n, subs, ups, up1, mkeys, mvals, Q, halt):
    """(OPT_free, the level-(k-1) cover attaining it) for the family ``forced`` (one rank
    bitset per size, k the largest): the top-level search, started from the level bound when
    the family is uniform. Unfinished (a meaningless value) when ``halt``'s flag is set."""
    floor = np.int64(0)
    lowrest = np.int64(0)
    covq = np.int64(0)
    if uniform and k >= 3:
        tot, below = wide_level_bound(forced, k, subs, halt)
        if unfinished(halt):
            return BIG
        floor = _popc(forced[k]) + tot
        lowrest = below
        covq = tot - below
    return wide_solve(k, forced[k].copy(), forced, n, subs, ups, up1, BIG, floor, lowrest, covq, mkeys, mvals,
                      np.int64(1), Q, halt)


@njit(cache=True)
def cover_number(U, i, j, subs, cutoff, halt):
    """:func:`_cover_number` for callers outside this module (the lower bounds of
    :mod:`mptsearch.exact.prefix_sets`)."""
    return _cover_number(U, i, j, subs, cutoff, halt)


@njit(cache=True)
def wide_free_from(forced, k, n, subs, ups, up1, cutoff, floor, lowrest, covq, mkeys, mvals, Q, halt):
    """The top-level search of :func:`wide_free` with its bounds given: ``cutoff`` an upper
    bound known from elsewhere (the search returns min(cutoff, OPT_free) and a cover attaining
    a value below it), ``floor`` a lower bound on OPT_free (it stops at the first family
    attaining it), ``lowrest`` and ``covq`` lower bounds on the sets below level k-1 and on
    level k-1 (see :mod:`mptsearch.exact.prefix_sets`); 0 for any of the three is always
    sound."""
    return wide_solve(k, forced[k].copy(), forced, n, subs, ups, up1, cutoff, floor, lowrest, covq, mkeys, mvals,
                      np.int64(1), Q, halt)
