"""Compiled level-wise greedy hitting set on the sparse model (see :mod:`.sparse_greedy`).

One kernel, :func:`level_orders`, serves the plain greedy (every chunk scores its count,
:func:`greedy_orders`) and GGR's rule (a chunk scores ``(count - 1) * length^2``;
:func:`mptsearch.tables.layout.ggr_layout`), with a deadline read from the inside.

Arrays and scalars only. Requests in CSR form (``indptr``/``idx``), chunk ``rank`` the position
of each chunk in the tie order (heavier first, then smaller id), ``by_rank`` its inverse.
"""

from __future__ import annotations

import numpy as np

from .._jit import njit
from .._kernels.halt import clock

#: units of work (a count raised or lowered) between two clock readings of :func:`level_orders`
WORK_PER_CLOCK = 1 << 16


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


@njit(cache=True, inline="always")
def _less2(ka, ra, kb, rb):
    return ka < kb or (ka == kb and ra < rb)


@njit(cache=True, inline="always")
def _push2(hk, hr, size, k, r):
    """Push the key (k, r) on the lexicographic min-heap ``(hk, hr)[:size]``; the new size."""
    i = size
    while i > 0:
        p = (i - 1) >> 1
        if not _less2(k, r, hk[p], hr[p]):
            break
        hk[i] = hk[p]
        hr[i] = hr[p]
        i = p
    hk[i] = k
    hr[i] = r
    return size + 1


@njit(cache=True, inline="always")
def _pop2(hk, hr, size):
    """Remove the smallest key of ``(hk, hr)[:size]``; the new size."""
    size -= 1
    k = hk[size]
    r = hr[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and _less2(hk[c + 1], hr[c + 1], hk[c], hr[c]):
            c += 1
        if not _less2(hk[c], hr[c], k, r):
            break
        hk[i] = hk[c]
        hr[i] = hr[c]
        i = c
    if size > 0:
        hk[i] = k
        hr[i] = r
    return size


@njit(cache=True)
def level_orders(indptr, idx, score_w, rank, by_rank, fallback_rank, deadline):
    """Per-request chunk orders of the level-wise rule with chunk scores, in CSR form like
    ``indptr``; returns (orders, requests finished by the fallback).

    At a node holding requests Q, the chunk x of the largest ``(|Q_x| - 1) * score_w[x]``
    (``Q_x`` the requests of Q holding x; ties: the lowest ``rank``) is emitted next by the
    requests of Q_x, who form a child node; the rest of Q continues. With ``score_w`` all 1 this
    is the plain greedy (the most-held chunk first). A lazy min-heap of keys
    ``(-(count - 1) * score_w, rank)``, one per chunk of the node: a count only falls while a
    node is split, so every key is at least as good as its chunk's key of now, and a popped key
    that is not its chunk's of now goes back with the current count (a popped key that is
    current is then the best of the node, ties included). A node of one request emits what it
    has left in ``rank`` order at once (each of its chunks counts 1, so every key is 0).

    ``deadline``: a ``time.time()`` value (inf: none), read every :data:`WORK_PER_CLOCK` units
    of work between two splits; once it has passed, the rule stops and every request's chunks
    not yet emitted follow in ``fallback_rank`` order (any order is a valid layout), and the
    second value counts those requests (0: the rule finished).

    O(sum_i |R_i|^2) counting work plus O(log n) per heap pop, O(n + sum_i |R_i|) memory.
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
    hk = np.empty(n + 1, dtype=np.float64)
    hr = np.empty(n + 1, dtype=np.int64)
    alive = np.zeros(m, dtype=np.bool_)
    buf = np.arange(m, dtype=np.int64)  # members of pending groups, each group contiguous
    tmp = np.empty(m, dtype=np.int64)
    st_start = np.empty(m + 1, dtype=np.int64)
    st_len = np.empty(m + 1, dtype=np.int64)
    keys = np.empty(n, dtype=np.int64)
    timed = deadline < np.inf
    work = 0
    next_clock = WORK_PER_CLOCK
    stopped = False
    top = 0
    if m > 0:
        st_start[0] = 0
        st_len[0] = m
        top = 1
    while top > 0 and not stopped:
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
        if L == 1:  # a request alone: every chunk it has left counts 1 and scores 0, so rank order
            i = buf[s]
            nk = 0
            for p in range(indptr[i], indptr[i + 1]):
                if not done[p]:
                    keys[nk] = rank[idx[p]]
                    nk += 1
                    done[p] = True
            work += nk
            rest = np.sort(keys[:nk])
            for t in range(nk):
                out[indptr[i] + nemit[i]] = by_rank[rest[t]]
                nemit[i] += 1
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
                    work += 1
        pos = 0
        hsize = 0
        for t in range(nt):
            x = touched[t]
            hstart[x] = pos
            hfill[x] = 0
            pos += cnt[x]
            hsize = _push2(hk, hr, hsize, -(cnt[x] - 1) * score_w[x], rank[x])
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
            if timed and work >= next_clock:
                next_clock = work + WORK_PER_CLOCK
                if clock() >= deadline:
                    stopped = True
                    break
            key = hk[0]
            x = by_rank[hr[0]]
            hsize = _pop2(hk, hr, hsize)
            if cnt[x] == 0:
                continue  # taken, or every holder split off
            now = -(cnt[x] - 1) * score_w[x]
            if key != now:  # stale: put the chunk back with its count of now
                hsize = _push2(hk, hr, hsize, now, rank[x])
                continue
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
                        work += 1
                tmp[ntmp] = i
                ntmp += 1
            st_start[top] = s + first
            st_len[top] = ntmp - first
            top += 1
        for q in range(ntmp):
            buf[s + q] = tmp[q]
    cut = 0
    if stopped:
        for i in range(m):
            nk = 0
            for p in range(indptr[i], indptr[i + 1]):
                if not done[p]:
                    keys[nk] = fallback_rank[idx[p]] * n + idx[p]
                    nk += 1
            if nk == 0:
                continue
            cut += 1
            rest = np.sort(keys[:nk])
            for t in range(nk):
                out[indptr[i] + nemit[i]] = rest[t] % n
                nemit[i] += 1
    return out, cut


@njit(cache=True)
def greedy_orders(indptr, idx, rank, by_rank):
    """Per-request chunk orders of the level-wise greedy, in CSR form like ``indptr``: at a node
    holding requests Q, the chunk held by the most requests of Q (ties: lowest ``rank``) is
    emitted next by those that hold it, who form a child node; the rest of Q continues
    (:func:`level_orders` with every score 1, no deadline). Every request is counted and
    decremented once per level of its path: O(sum_i |R_i|^2 log) time, O(sum_i |R_i|) memory.
    """
    return level_orders(indptr, idx, np.ones(len(rank), dtype=np.float64), rank, by_rank, rank, np.inf)[0]
