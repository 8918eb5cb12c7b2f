"""Compiled kernels of the sparse serving model (arrays and scalars only; see :mod:`.sparse`).

Requests are in compressed sparse row form: request i's chunk ids are
``idx[indptr[i]:indptr[i+1]]``. Kernels that need sets take each row sorted by chunk id.
Nothing here allocates anything of size m x m.
"""

from __future__ import annotations

import numpy as np
from .._bits import prefetch
from .._jit import njit
from .._kernels.arrays import copy_into, diffs

# ---------------------------------------------------------------------------------------------
# lexicographic order of sequences (a prefix before its extensions): the DFS order of a trie


@njit(cache=True, inline="always")
def _row_key(indptr, seq, r, off, bits, per):
    """Ids off..off+per-1 of row r, each plus one (0 past the row's end), packed ``bits`` bits
    each, the first most significant: rows compare as their keys do, a prefix first."""
    s = indptr[r]
    n = indptr[r + 1] - s
    k = np.uint64(0)
    for t in range(off, off + per):
        k = k << np.uint64(bits)
        if t < n:
            k |= np.uint64(seq[s + t] + 1)
    return k


@njit(cache=True)
def row_keys(indptr, seq, bits, per):
    """Every row's :func:`_row_key` at offset 0."""
    m = len(indptr) - 1
    key = np.empty(m, dtype=np.uint64)
    for r in range(m):
        key[r] = _row_key(indptr, seq, r, 0, bits, per)
    return key


@njit(cache=True, inline="always")
def _less_from(indptr, seq, a, b, start):
    """Whether row a sorts before row b (a prefix first), their first ``start`` ids equal."""
    la = indptr[a + 1] - indptr[a]
    lb = indptr[b + 1] - indptr[b]
    pa = indptr[a]
    pb = indptr[b]
    k = la if la < lb else lb
    for t in range(start, k):
        x = seq[pa + t]
        y = seq[pb + t]
        if x != y:
            return x < y
    return la < lb


@njit(cache=True)
def settle_row_runs(indptr, seq, ks, a, bits, per):
    """Finish :func:`lex_order` in place: ``a`` holds the rows sorted by their first key
    (``ks[u]`` the key of row ``a[u]``), in any order among equal keys. Each run of equal keys
    is settled: rows that ended inside the key (equal rows) by row number; a run of at most
    16 by row number, then a stable insertion sort on the ids past the key; a longer one is
    sorted by the next ``per`` ids (:func:`_row_key`), and so on."""
    m = len(a)
    low = (np.uint64(1) << np.uint64(bits)) - np.uint64(1)
    stack = [(0, m, 0)]
    while stack:
        lo, hi, off = stack.pop()
        if off:  # a run equal in its first off ids: sort it by the next per
            sub = np.empty(hi - lo, dtype=np.uint64)
            for u in range(lo, hi):
                sub[u - lo] = _row_key(indptr, seq, a[u], off, bits, per)
            srt = np.argsort(sub)  # ties are settled below (by row number at the latest)
            copy_into(a, lo, a[lo:hi][srt], 0, hi - lo)
            copy_into(ks, lo, sub[srt], 0, hi - lo)
        i = lo
        while i < hi:
            j = i + 1
            while j < hi and ks[j] == ks[i]:
                j += 1
            if j - i > 1:
                ended = (ks[i] & low) == 0  # the key's last id is past the rows' end: equal rows
                if ended or j - i <= 16:
                    copy_into(a, i, np.sort(a[i:j]), 0, j - i)
                    if not ended:
                        for u in range(i + 1, j):  # insertion sort: stable, and quick on short runs
                            x = a[u]
                            v = u
                            while v > i and _less_from(indptr, seq, x, a[v - 1], off + per):
                                a[v] = a[v - 1]
                                v -= 1
                            a[v] = x
                else:
                    stack.append((i, j, off + per))
            i = j


def lex_order(indptr: np.ndarray, seq: np.ndarray) -> np.ndarray:
    """Stable sort of the rows by their sequences (a prefix before its extensions, ties in
    row order): the DFS order of their trie.

    Most significant ids first: as many ids as fit in 64 bits (three below 2^21 chunks) packed
    into one key per row and sorted by numpy's sort (several times faster than a compiled
    one), then each run of equal keys settled by :func:`settle_row_runs`. O(L + m log m) for
    rows of total length L that differ early; rows sharing long prefixes cost a key and a sort
    per ``per`` ids of the prefix."""
    indptr = np.asarray(indptr, dtype=np.int64)
    seq = np.asarray(seq, dtype=np.int32)
    n = int(seq.max()) + 1 if len(seq) else 1
    bits = max(1, n.bit_length())  # an id plus one, at most n
    per = max(1, 64 // bits)
    key = row_keys(indptr, seq, bits, per)
    a = np.argsort(key)  # not stable: every run of equal keys is settled, ties by row number
    settle_row_runs(indptr, seq, key[a], a, bits, per)
    return a


@njit(cache=True, inline="always")
def put(out, p, src, s, e):
    """Copy ``src[s:e]`` into ``out`` from position p; the position after it."""
    for q in range(s, e):
        out[p] = src[q]
        p += 1
    return p


@njit(cache=True)
def take_ranges(src, starts, lens):
    """``src[s:s+l]`` for every (s, l) of ``starts``/``lens``, concatenated (what
    ``src[_ranges(starts, lens)]`` gives, without its index arrays)."""
    total = 0
    for i in range(len(lens)):
        total += lens[i]
    out = np.empty(total, dtype=src.dtype)
    p = 0
    for i in range(len(starts)):
        p = put(out, p, src, starts[i], starts[i] + lens[i])
    return out


@njit(cache=True, inline="always")
def common_prefix(indptr, seq, prev, r):
    """Length of the longest common prefix of rows ``prev`` (-1: none) and ``r``."""
    t = 0
    if prev >= 0:
        ps = indptr[prev]
        pl = indptr[prev + 1] - ps
        s = indptr[r]
        e = indptr[r + 1]
        while t < pl and s + t < e and seq[ps + t] == seq[s + t]:
            t += 1
    return t


@njit(cache=True)
def trie_cost_sorted(indptr, seq, w, order):
    """Total weight of the trie of the rows, given their lexicographic ``order``: each row adds
    the weight past its longest common prefix with the row before it."""
    total = 0
    prev = -1
    for r in order:
        s = indptr[r]
        e = indptr[r + 1]
        t = common_prefix(indptr, seq, prev, r)
        for p in range(s + t, e):
            total += w[seq[p]]
        prev = r
    return total


# ---------------------------------------------------------------------------------------------
# sparse maximum spanning tree bound


@njit(cache=True)
def _common(pool, i, ie, j, je, w, cold, track):
    """Merge two sorted runs pool[i:ie], pool[j:je]: (with ``track``, the smallest common chunk
    x with cold[x], else -1; the weight of all common chunks)."""
    first = -1
    tot = 0
    while i < ie and j < je:
        x = pool[i]
        y = pool[j]
        if x == y:
            tot += w[x]
            if track and first < 0 and cold[x]:
                first = x
            i += 1
            j += 1
        elif x < y:
            i += 1
        else:
            j += 1
    return first, tot


@njit(cache=True)
def _first_common_cold(idx, indptr, i, j, cold, w):
    """(smallest common chunk that is cold, weight of the whole intersection); rows sorted."""
    return _common(idx, indptr[i], indptr[i + 1], indptr[j], indptr[j + 1], w, cold, True)


@njit(cache=True)
def overlap_edges(indptr, idx, cptr, cidx, w, cold, rw, count_only):
    """Edges of the overlap graph for the maximum spanning tree bound.

    Every pair of requests sharing a *cold* chunk gets one edge of its exact weight
    w(R_i ∩ R_j), emitted by the smallest cold chunk they share. Every *hot* chunk gets a star
    from its heaviest holder to each other holder, weighted w(R_j): on the clique of S_x with
    weights min(w(R_i), w(R_j)) >= w(R_i ∩ R_j) the star is a maximum spanning tree, so the
    pairs only hot chunks connect are over-estimated and the bound stays valid.
    Returns (number of edges, a, b, weight) (empty arrays with ``count_only``).
    """
    n = len(cptr) - 1
    cnt = 0
    for x in range(n):
        s, e = cptr[x], cptr[x + 1]
        d = e - s
        if cold[x]:
            cnt += d * (d - 1) // 2
        elif d > 1:
            cnt += d - 1
    if count_only:
        z = np.zeros(0, dtype=np.int64)
        return cnt, z.astype(np.int32), z.astype(np.int32), z
    ea = np.empty(cnt, dtype=np.int32)
    eb = np.empty(cnt, dtype=np.int32)
    ew = np.empty(cnt, dtype=np.int64)
    k = 0
    for x in range(n):
        s, e = cptr[x], cptr[x + 1]
        if cold[x]:
            for p in range(s, e):
                i = cidx[p]
                for q in range(p + 1, e):
                    j = cidx[q]
                    first, tot = _first_common_cold(idx, indptr, i, j, cold, w)
                    if first == x:
                        ea[k] = i
                        eb[k] = j
                        ew[k] = tot
                        k += 1
        elif e - s > 1:
            top = cidx[s]
            for p in range(s, e):
                if rw[cidx[p]] > rw[top]:
                    top = cidx[p]
            for p in range(s, e):
                j = cidx[p]
                if j != top:
                    ea[k] = top
                    eb[k] = j
                    ew[k] = rw[j]
                    k += 1
    return k, ea[:k], eb[:k], ew[:k]


@njit(cache=True)
def _find(parent, x):
    r = x
    while parent[r] != r:
        r = parent[r]
    while parent[x] != r:
        nx = parent[x]
        parent[x] = r
        x = nx
    return r


@njit(cache=True)
def kruskal_max(m, ea, eb, ew, order):
    """Weight of a maximum spanning forest, edges visited in ``order`` (weight descending)."""
    parent = np.arange(m, dtype=np.int64)
    tot = 0
    joined = 0
    for t in order:
        ra = _find(parent, ea[t])
        rb = _find(parent, eb[t])
        if ra != rb:
            parent[ra] = rb
            tot += ew[t]
            joined += 1
            if joined == m - 1:
                break
    return tot


_NO_COLD = np.zeros(1, dtype=np.bool_)


@njit(cache=True)
def _inter_weight(pool, start, length, a, b, w):
    """w(sig(a) ∩ sig(b)) for signatures stored as sorted runs of ``pool``."""
    return _common(pool, start[a], start[a] + length[a], start[b], start[b] + length[b], w,
                   _NO_COLD, False)[1]


@njit(cache=True)
def _coldest_first(seq, s, k, count, order):
    """order[:k] = the positions s..s+k-1 of ``seq`` by increasing ``count`` of their chunk
    (insertion sort: k is a request's size)."""
    for t in range(k):
        order[t] = s + t
    for t in range(1, k):
        v = order[t]
        u = t
        while u > 0 and count[seq[order[u - 1]]] > count[seq[v]]:
            order[u] = order[u - 1]
            u -= 1
        order[u] = v


@njit(cache=True, inline="always")
def empty_slots(n):
    """An open-addressing table for n keys: a power of two of at least 2n slots, all -1."""
    cap = 2
    while cap < 2 * n:
        cap *= 2
    return np.full(cap, -1, dtype=np.int64)


@njit(cache=True)
def duplicate_groups(indptr, seq):
    """Group number of every row, rows with equal sequences sharing one, numbered in order of
    first occurrence: an open-addressing hash table of the rows seen (each a representative).
    O(L) expected time for rows of total length L."""
    m = len(indptr) - 1
    table = empty_slots(m)
    mask = len(table) - 1
    g = np.empty(m, dtype=np.int64)
    slot = np.empty(m, dtype=np.int64)  # every row's first slot, hashed ahead so it can be prefetched
    for r in range(m):
        s = indptr[r]
        n = indptr[r + 1] - s
        h = np.uint64(n) * np.uint64(0x9E3779B97F4A7C15)
        for p in range(s, s + n):
            h = (h ^ np.uint64(seq[p] + 1)) * np.uint64(0xFF51AFD7ED558CCD)
            h ^= h >> np.uint64(32)
        slot[r] = np.int64(h >> np.uint64(1)) & mask
    ng = 0
    for r in range(m):
        if r + 16 < m:
            prefetch(table, slot[r + 16])
        s = indptr[r]
        n = indptr[r + 1] - s
        i = slot[r]
        while True:
            q = table[i]
            if q < 0:
                table[i] = r
                g[r] = ng
                ng += 1
                break
            if indptr[q + 1] - indptr[q] == n:
                t = indptr[q]
                same = True
                for u in range(n):
                    if seq[t + u] != seq[s + u]:
                        same = False
                        break
                if same:
                    g[r] = g[q]
                    break
            i = (i + 1) & mask
    return g


@njit(cache=True)
def partner_upper(indptr, idx, w, cptr, cidx, cap):
    """For every request i, an upper bound on max_{j != i} w(R_i ∩ R_j) (exact when no holder
    list had to be cut at ``cap``): holders scanned coldest chunk first, and a request not met
    shares with i only chunks whose holders were not all scanned."""
    m = len(indptr) - 1
    out = np.zeros(m, dtype=np.int64)
    mark = np.zeros(m, dtype=np.int64)
    deg = diffs(cptr)
    rstart = indptr[:-1].copy()
    rlen = diffs(indptr)
    kmax = 0
    for i in range(m):
        kmax = max(kmax, rlen[i])
    order = np.empty(kmax, dtype=np.int64)
    for i in range(m):
        s, e = indptr[i], indptr[i + 1]
        k = e - s
        rem = 0
        for t in range(s, e):
            rem += w[idx[t]]
        _coldest_first(idx, s, k, deg, order)
        mark[i] = i + 1
        bw = 0
        for t in range(k):
            if bw >= rem:
                break
            x = idx[order[t]]
            cs, ce = cptr[x], cptr[x + 1]
            full = ce - cs <= cap + 1
            stop = ce if full else cs + cap
            for p in range(cs, stop):
                j = cidx[p]
                if mark[j] != i + 1:
                    mark[j] = i + 1
                    tot = _inter_weight(idx, rstart, rlen, i, j, w)
                    if tot > bw:
                        bw = tot
            if full:
                rem -= w[x]
        out[i] = bw if bw >= rem else rem
    return out


#: the row length from which :func:`sort_rows` sorts with gaps (below it, plain insertion sort
#: is faster: rows of 4-20 took 40 ms per 200,000 with gaps against 27 without)
SHELL_FROM = 64


@njit(cache=True)
def sort_rows(indptr, seq):
    """A copy of ``seq`` with every row sorted: insertion sort on rows of up to SHELL_FROM - 1
    (retrieval requests: a few dozen chunks at most), Shell's sort with Knuth's gaps
    (..., 40, 13, 4, 1) on longer ones, about L^1.5 comparisons on a row of L instead of
    insertion sort's L^2 / 4 (a 70,000-chunk row: milliseconds, not a second). Not stable; the
    callers sort distinct keys."""
    out = seq.copy()
    for r in range(len(indptr) - 1):
        a, b = indptr[r], indptr[r + 1]
        h = 1
        if b - a >= SHELL_FROM:
            while h < (b - a) // 3:
                h = 3 * h + 1
        while h >= 1:
            for p in range(a + h, b):
                x = out[p]
                q = p - h
                while q >= a and out[q] > x:
                    out[q + h] = out[q]
                    q -= h
                out[q + h] = x
            h //= 3
    return out
