"""Compiled level-wise greedy hitting set on the sparse model (see :mod:`.sparse_greedy`).

Arrays and scalars only. Requests in CSR form (``indptr``/``idx``), chunk ``rank`` the position
of each chunk in the tie order (heavier first, then smaller id), ``by_rank`` its inverse.
"""

from __future__ import annotations

import numpy as np
from .._jit import njit


@njit(cache=True, inline="always")
def _push(heap, size, key):
    """Push ``key`` on the binary min-heap ``heap[:size]``; return the new size."""
    i = size
    heap[i] = key
    while i > 0:
        p = (i - 1) >> 1
        if heap[p] <= key:
            break
        heap[i] = heap[p]
        i = p
    heap[i] = key
    return size + 1


@njit(cache=True, inline="always")
def _pop(heap, size):
    """Remove the smallest key of ``heap[:size]`` (it is ``heap[0]``); return the new size."""
    size -= 1
    key = heap[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and heap[c + 1] < heap[c]:
            c += 1
        if heap[c] >= key:
            break
        heap[i] = heap[c]
        i = c
    if size > 0:
        heap[i] = key
    return size


@njit(cache=True)
def greedy_orders(indptr, idx, rank, by_rank):
    """Per-request chunk orders of the level-wise greedy, in CSR form like ``indptr``.

    At a node holding requests Q, the chunk held by the most requests of Q (ties: lowest
    ``rank``) is emitted next by those that hold it, who form a child node; the rest of Q
    continues. Counts only decrease while Q is split, so the argmax is a lazy min-heap of keys
    ``(cmax - count) * n + rank`` (stale keys dropped when popped). Every request is counted
    and decremented once per level of its path: O(sum_i |R_i|^2 log) time, O(sum_i |R_i|) memory.
    """
    m = len(indptr) - 1
    n = len(rank)
    nnz = indptr[m]
    cmax = m + 1
    done = np.zeros(nnz, dtype=np.bool_)
    nemit = np.zeros(m, dtype=np.int64)
    out = np.empty(nnz, dtype=np.int32)
    cnt = np.zeros(n, dtype=np.int64)
    hstart = np.zeros(n, dtype=np.int64)
    hfill = np.zeros(n, dtype=np.int64)
    hold = np.empty(max(nnz, 1), dtype=np.int64)
    touched = np.empty(n, dtype=np.int64)
    heap = np.empty(2 * nnz + 1, dtype=np.int64)
    alive = np.zeros(m, dtype=np.bool_)
    buf = np.arange(m, dtype=np.int64)  # members of pending groups, each group contiguous
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
        for q in range(s, s + st_len[top]):  # requests with chunks left
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
            hsize = _push(heap, hsize, (cmax - cnt[x]) * n + rank[x])
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
            key = heap[0]
            hsize = _pop(heap, hsize)
            x = by_rank[key % n]
            c = cmax - key // n
            if cnt[x] != c or c == 0:
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
                            hsize = _push(heap, hsize, (cmax - cnt[y]) * n + rank[y])
                tmp[ntmp] = i
                ntmp += 1
            st_start[top] = s + first
            st_len[top] = ntmp - first
            top += 1
        for q in range(ntmp):
            buf[s + q] = tmp[q]
    return out
