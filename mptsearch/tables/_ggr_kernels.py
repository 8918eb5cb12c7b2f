"""Compiled GGR rule (Greedy Group Recursion, MLSys 2025) on the sparse model: the level-wise
greedy hitting set of :mod:`mptsearch.serving._greedy_kernels` with GGR's score.

At a trie node holding the requests Q, GGR takes the value (chunk) whose hit count
``(|Q_x| - 1) * len(x)^2`` is the largest (``Q_x`` the requests of Q holding x), splits those
requests off into a child that emits x, and lets the rest of Q continue the same way. Arrays
and scalars only: requests in CSR form (``indptr``/``idx``), ``score_w`` the squared length of
every chunk (float64), ``rank`` every chunk's position in the tie order.
"""

from __future__ import annotations

import numpy as np

from .._jit import njit


@njit(cache=True, inline="always")
def _less(ka, ra, kb, rb):
    return ka < kb or (ka == kb and ra < rb)


@njit(cache=True, inline="always")
def _push(hk, hr, size, k, r):
    i = size
    while i > 0:
        p = (i - 1) >> 1
        if not _less(k, r, hk[p], hr[p]):
            break
        hk[i] = hk[p]
        hr[i] = hr[p]
        i = p
    hk[i] = k
    hr[i] = r
    return size + 1


@njit(cache=True, inline="always")
def _pop(hk, hr, size):
    size -= 1
    k = hk[size]
    r = hr[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and _less(hk[c + 1], hr[c + 1], hk[c], hr[c]):
            c += 1
        if not _less(hk[c], hr[c], k, r):
            break
        hk[i] = hk[c]
        hr[i] = hr[c]
        i = c
    if size > 0:
        hk[i] = k
        hr[i] = r
    return size


@njit(cache=True)
def ggr_orders(indptr, idx, score_w, rank, by_rank):
    """Per-request chunk orders of the GGR rule, in CSR form like ``indptr``.

    A lazy min-heap of keys ``(-(count - 1) * score_w, rank)``; a hit count only falls while a
    node is split, so a popped key that no longer matches its chunk's count is stale and
    dropped. O(sum_i |R_i|^2 log) time, O(sum_i |R_i|) memory, as the plain greedy.
    """
    m = len(indptr) - 1
    n = len(rank)
    nnz = indptr[m]
    done = np.zeros(nnz, dtype=np.bool_)
    nemit = np.zeros(m, dtype=np.int64)
    out = np.empty(nnz, dtype=np.int32)
    cnt = np.zeros(n, dtype=np.int64)
    hstart = np.zeros(n, dtype=np.int64)
    hfill = np.zeros(n, dtype=np.int64)
    hold = np.empty(max(nnz, 1), dtype=np.int64)
    touched = np.empty(n, dtype=np.int64)
    hk = np.empty(2 * nnz + 1, dtype=np.float64)
    hr = np.empty(2 * nnz + 1, dtype=np.int64)
    alive = np.zeros(m, dtype=np.bool_)
    buf = np.arange(m, dtype=np.int64)
    tmp = np.empty(m, dtype=np.int64)
    st_start = np.empty(m + 1, dtype=np.int64)
    st_len = np.empty(m + 1, dtype=np.int64)
    top = 0
    if m > 0:
        st_start[0] = 0
        st_len[0] = m
        top = 1
    while top > 0:
        top -= 1
        s = st_start[top]
        L = 0
        for q in range(s, s + st_len[top]):
            i = buf[q]
            if nemit[i] < indptr[i + 1] - indptr[i]:
                buf[s + L] = i
                L += 1
        if L == 0:
            continue
        nt = 0
        for q in range(s, s + L):
            i = buf[q]
            alive[i] = True
            for p in range(indptr[i], indptr[i + 1]):
                if not done[p]:
                    x = idx[p]
                    if cnt[x] == 0:
                        touched[nt] = x
                        nt += 1
                    cnt[x] += 1
        pos = 0
        hsize = 0
        for t in range(nt):
            x = touched[t]
            hstart[x] = pos
            hfill[x] = 0
            pos += cnt[x]
            hsize = _push(hk, hr, hsize, -(cnt[x] - 1) * score_w[x], rank[x])
        for q in range(s, s + L):
            i = buf[q]
            for p in range(indptr[i], indptr[i + 1]):
                if not done[p]:
                    x = idx[p]
                    hold[hstart[x] + hfill[x]] = i
                    hfill[x] += 1
        left = L
        ntmp = 0
        while left > 0:
            key = hk[0]
            x = by_rank[hr[0]]
            hsize = _pop(hk, hr, hsize)
            if cnt[x] == 0 or key != -(cnt[x] - 1) * score_w[x]:
                continue  # stale
            first = ntmp
            for h in range(hstart[x], hstart[x] + hfill[x]):
                i = hold[h]
                if not alive[i]:
                    continue
                alive[i] = False
                left -= 1
                out[indptr[i] + nemit[i]] = x
                nemit[i] += 1
                for p in range(indptr[i], indptr[i + 1]):
                    if not done[p]:
                        y = idx[p]
                        if y == x:
                            done[p] = True
                        cnt[y] -= 1
                        if cnt[y] > 0:
                            hsize = _push(hk, hr, hsize, -(cnt[y] - 1) * score_w[y], rank[y])
                tmp[ntmp] = i
                ntmp += 1
            st_start[top] = s + first
            st_len[top] = ntmp - first
            top += 1
        for q in range(ntmp):
            buf[s + q] = tmp[q]
    return out
