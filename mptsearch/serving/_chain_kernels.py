"""Compiled kernels of the large-scale agglomerative heuristic (:mod:`.sparse_agglomerative`):
the nearest-neighbour chain over an inverted index of chunks, the top-down layout of the
hierarchy it builds, and the balanced completion of a forest (arrays and scalars only)."""

from __future__ import annotations

import numpy as np
from .._jit import njit

from .._kernels.arrays import copy_into
from ._sparse_kernels import _coldest_first, _inter_weight


@njit(cache=True, inline="always")
def _hold(pool, lo, hi, cluster, ent, head, live, ne):
    """Link ``cluster`` at the head of the holder list of each chunk of pool[lo:hi] (newest
    first) and count it live there; returns the next free entry of ``ent``."""
    for p in range(lo, hi):
        x = pool[p]
        ent[ne, 0] = cluster
        ent[ne, 1] = head[x]
        head[x] = ne
        ne += 1
        live[x] += 1
    return ne


@njit(cache=True)
def nn_chain(indptr, idx, w, n, cap, max_cut=1 << 30):
    """Agglomerative common intersection over sorted rows, by the nearest-neighbour chain.

    Returns (merge_a, merge_b, merge_w, sig_start, sig_len, pool, truncated): merge j creates
    cluster m + j from clusters merge_a[j], merge_b[j] with common weight merge_w[j] > 0;
    cluster c's signature (intersection of its requests) is pool[sig_start[c]:+sig_len[c]].
    Fewer than m - 1 merges when some clusters share nothing; ``truncated`` counts the nearest
    neighbour searches that stopped at ``cap`` holders of a chunk (0: the greedy is exact).
    """
    m = len(indptr) - 1
    nnz = indptr[m]
    C = 2 * m
    pool = np.empty(2 * nnz + 1, dtype=np.int32)
    start = np.zeros(C, dtype=np.int64)
    length = np.zeros(C, dtype=np.int64)
    copy_into(pool, 0, idx, 0, nnz)
    for i in range(m):
        start[i] = indptr[i]
        length[i] = indptr[i + 1] - indptr[i]
    top = nnz
    # holders: singly linked lists per chunk, newest first; dead entries unlinked when met
    E = 2 * nnz + 1
    ent = np.empty((E, 2), dtype=np.int64)  # (cluster, next entry): one cache line per step
    head = -np.ones(n, dtype=np.int64)
    live = np.zeros(n, dtype=np.int64)
    ne = 0
    for i in range(m - 1, -1, -1):  # pool[start[i]:...] is request i's row of idx
        ne = _hold(pool, start[i], start[i] + length[i], i, ent, head, live, ne)
    # live[c]: alive and not done (has partners left); alive/done kept for the bookkeeping
    alive = np.zeros(C, dtype=np.bool_)
    alive[:m] = True
    open_ = np.zeros(C, dtype=np.bool_)
    open_[:m] = True
    done = np.zeros(C, dtype=np.bool_)
    in_chain = np.zeros(C, dtype=np.bool_)
    mark = np.zeros(C, dtype=np.int64)
    stamp = 0
    acc = np.zeros(C, dtype=np.int64)
    TOP = 8
    topv = np.zeros(TOP, dtype=np.int64)
    topj = np.zeros(TOP, dtype=np.int64)
    chain = np.empty(C, dtype=np.int64)
    clen = 0
    ma = np.empty(max(m - 1, 0), dtype=np.int64)
    mb = np.empty(max(m - 1, 0), dtype=np.int64)
    mw = np.empty(max(m - 1, 0), dtype=np.int64)
    nm = 0
    ncl = m
    ptr = 0
    truncated = 0
    kmax = 0
    for i in range(m):
        if length[i] > kmax:
            kmax = length[i]
    order = np.empty(kmax, dtype=np.int64)
    tl = np.empty(kmax * cap + 1 if cap < m else C, dtype=np.int64)
    while True:
        if clen == 0:
            while ptr < ncl and (not alive[ptr] or done[ptr]):
                ptr += 1
            if ptr >= ncl:
                break
            chain[0] = ptr
            in_chain[ptr] = True
            clen = 1
        c = chain[clen - 1]
        prev = chain[clen - 2] if clen >= 2 else -1
        # ---- nearest neighbour of c: the largest common weight; ties keep prev, then small id
        k = length[c]
        sc = start[c]
        rem = 0
        for t in range(sc, sc + k):
            rem += w[pool[t]]
        # coldest chunks first, so that the remaining bound falls fastest
        _coldest_first(pool, sc, k, live, order)
        stamp += 1
        mark[c] = stamp
        best = -1
        bw = 0
        if prev >= 0:
            best = prev
            bw = _inter_weight(pool, start, length, c, prev, w)
            mark[prev] = stamp
        # rem bounds the common weight of any cluster not met yet: it shares with c only
        # chunks whose holders were not all scanned. Holders met before the first cut list
        # are scored exactly; after it, by the weight of the cut lists they were met in, and
        # only the TOP best of those are scored exactly (one pass per holder, not one per chunk)
        cutting = False
        ncut = 0
        ntl = 0
        for t in range(k):
            if best >= 0 and bw >= rem:
                break
            x = pool[order[t]]
            e = head[x]
            pe = -1
            scanned = 0
            trunc = False
            while e != -1:
                j = ent[e, 0]
                nxt = ent[e, 1]
                if not open_[j]:
                    if pe == -1:
                        head[x] = nxt
                    else:
                        ent[pe, 1] = nxt
                    e = nxt
                    continue
                if scanned >= cap:
                    trunc = True
                    break
                scanned += 1
                if mark[j] != stamp:
                    if cutting:
                        if acc[j] == 0:
                            tl[ntl] = j
                            ntl += 1
                        acc[j] += w[x]
                    else:
                        mark[j] = stamp
                        v = _inter_weight(pool, start, length, c, j, w)
                        if v > bw or (v == bw and v > 0 and best != prev and j < best):
                            best = j
                            bw = v
                pe = e
                e = nxt
            if trunc:
                cutting = True
                ncut += 1
                if ncut >= max_cut:
                    break  # the hottest chunks are left: their heads are what was wanted
            else:
                rem -= w[x]
        # the TOP largest accumulated weights, in one pass
        ntop = 0
        for u in range(ntl):
            j = tl[u]
            v = acc[j]
            if ntop == TOP and v <= topv[TOP - 1]:
                continue
            q = ntop if ntop < TOP else TOP - 1
            while q > 0 and topv[q - 1] < v:
                topv[q] = topv[q - 1]
                topj[q] = topj[q - 1]
                q -= 1
            topv[q] = v
            topj[q] = j
            if ntop < TOP:
                ntop += 1
        for q in range(ntop):
            j = topj[q]
            v = _inter_weight(pool, start, length, c, j, w)
            if v > bw or (v == bw and v > 0 and best != prev and j < best):
                best = j
                bw = v
        for u in range(ntl):
            acc[tl[u]] = 0
        if bw < rem:
            truncated += 1  # a holder not scanned might have beaten the best found
        if best < 0 or bw == 0:
            done[c] = True
            open_[c] = False
            in_chain[c] = False
            clen -= 1
            for p in range(sc, sc + k):
                live[pool[p]] -= 1
            continue
        if not in_chain[best]:
            chain[clen] = best
            in_chain[best] = True
            clen += 1
            continue
        # merge c and best; the chain keeps what lies below best
        while clen > 0:
            tp = chain[clen - 1]
            in_chain[tp] = False
            clen -= 1
            if tp == best:
                break
        a, b = c, best
        nc = ncl
        ncl += 1
        i, ie = start[a], start[a] + length[a]
        j, je = start[b], start[b] + length[b]
        start[nc] = top
        while i < ie and j < je:
            x = pool[i]
            y = pool[j]
            if x == y:
                pool[top] = x
                top += 1
                i += 1
                j += 1
            elif x < y:
                i += 1
            else:
                j += 1
        length[nc] = top - start[nc]
        for p in range(start[a], start[a] + length[a]):
            live[pool[p]] -= 1
        for p in range(start[b], start[b] + length[b]):
            live[pool[p]] -= 1
        alive[a] = False
        alive[b] = False
        alive[nc] = True
        open_[a] = False
        open_[b] = False
        open_[nc] = True
        ne = _hold(pool, start[nc], start[nc] + length[nc], nc, ent, head, live, ne)
        if a > b:
            a, b = b, a
        ma[nm] = a
        mb[nm] = b
        mw[nm] = bw
        nm += 1
    return ma[:nm], mb[:nm], mw[:nm], start[:ncl], length[:ncl], pool[:top], truncated


@njit(cache=True)
def hierarchy_layout(children, root, m, sig_start, sig_len, pool, indptr, idx, out):
    """Read the layout off a hierarchy top-down (Theorem 1): node v emits I(v) \\ I(parent) in
    chunk-id order, leaf i the rest of its request. ``out`` is filled row by row like ``idx``.
    Nodes past ``len(sig_len)`` have an empty signature."""
    nsig = len(sig_len)
    kmax = 0
    for i in range(m):
        if indptr[i + 1] - indptr[i] > kmax:
            kmax = indptr[i + 1] - indptr[i]
    pre = np.empty(kmax + 1, dtype=np.int32)
    N = 2 * m - 1
    plen = np.zeros(N, dtype=np.int64)
    par = -np.ones(N, dtype=np.int64)
    stack = np.empty(N, dtype=np.int64)
    sp = 0
    stack[0] = root
    sp = 1
    while sp > 0:
        sp -= 1
        v = stack[sp]
        p = par[v]
        base = plen[p] if p >= 0 else 0
        # the parent's signature (empty for the root or unsigned nodes)
        ps, pl = 0, 0
        if p >= 0 and p < nsig:
            ps, pl = sig_start[p], sig_len[p]
        if v < m:
            s, e = indptr[v], indptr[v + 1]
            q = base
            for t in range(s, e):
                x = idx[t]
                # is x in the parent's signature? (sorted, short)
                inside = False
                for u in range(ps, ps + pl):
                    if pool[u] == x:
                        inside = True
                        break
                if not inside:
                    pre[q] = x
                    q += 1
            o = indptr[v]
            for t in range(q):
                out[o + t] = pre[t]
        else:
            q = base
            if v < nsig:
                u = ps
                ue = ps + pl
                for t in range(sig_start[v], sig_start[v] + sig_len[v]):
                    x = pool[t]
                    while u < ue and pool[u] < x:
                        u += 1
                    if u < ue and pool[u] == x:
                        continue
                    pre[q] = x
                    q += 1
            plen[v] = q
            a = children[v - m, 0]
            b = children[v - m, 1]
            par[a] = v
            par[b] = v
            stack[sp] = b
            sp += 1
            stack[sp] = a
            sp += 1
    return out


@njit(cache=True)
def balanced_children(ma, mb, m):
    """Children of a full binary tree: the given merges, then the clusters they left apart
    joined pairwise level by level (they share nothing)."""
    nm = len(ma)
    children = np.zeros((max(m - 1, 0), 2), dtype=np.int64)
    merged = np.zeros(m + nm, dtype=np.bool_)
    for j in range(nm):
        children[j, 0] = ma[j]
        children[j, 1] = mb[j]
        merged[ma[j]] = True
        merged[mb[j]] = True
    rest = np.empty(m + nm, dtype=np.int64)
    nr = 0
    for v in range(m + nm):
        if not merged[v]:
            rest[nr] = v
            nr += 1
    nxt = m + nm
    k = nm
    while nr > 1:
        level = 0
        for t in range(0, nr - 1, 2):
            children[k, 0] = rest[t]
            children[k, 1] = rest[t + 1]
            k += 1
            rest[level] = nxt
            nxt += 1
            level += 1
        if nr % 2 == 1:
            rest[level] = rest[nr - 1]
            level += 1
        nr = level
    return children
