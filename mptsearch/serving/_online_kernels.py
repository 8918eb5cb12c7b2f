"""Compiled kernels of the streaming layouter (:mod:`.online`): an array trie with an
open-addressing child table, the deepest-usable-prefix search and one batch's layout."""

from __future__ import annotations

import numpy as np
from .._jit import njit

from ._chain_kernels import balanced_children, hierarchy_layout, nn_chain

_EMPTY = -1


@njit(cache=True, inline="always")
def _slot(key, mask):
    h = (key * 0x9E3779B97F4A7C15) & 0x7FFFFFFFFFFFFFFF
    return (h >> 17) & mask


@njit(cache=True)
def child_of(hkeys, hvals, node, x):
    """The child of ``node`` by chunk ``x`` in the trie, or -1."""
    mask = len(hkeys) - 1
    key = (node << 31) | x
    s = _slot(key, mask)
    while hkeys[s] != _EMPTY:
        if hkeys[s] == key:
            return hvals[s]
        s = (s + 1) & mask
    return -1


@njit(cache=True)
def _add_child(hkeys, hvals, node, x, child):
    mask = len(hkeys) - 1
    key = (node << 31) | x
    s = _slot(key, mask)
    while hkeys[s] != _EMPTY:
        s = (s + 1) & mask
    hkeys[s] = key
    hvals[s] = child


@njit(cache=True)
def insert_rows(indptr, seq, w, hkeys, hvals, tw, nnodes):
    """Add every row's path to the trie; returns the new number of nodes."""
    for r in range(len(indptr) - 1):
        v = 0
        for p in range(indptr[r], indptr[r + 1]):
            x = seq[p]
            c = child_of(hkeys, hvals, v, x)
            if c < 0:
                c = nnodes
                nnodes += 1
                tw[c] = tw[v] + w[x]
                _add_child(hkeys, hvals, v, x, c)
            v = c
    return nnodes


@njit(cache=True)
def online_batch(fptr, fidx, pptr, pidx, w, hkeys, hvals, tw, nnodes, mark, outptr, out):
    """Lay out one batch (see :mod:`.online`) and add it to the trie.

    ``fidx`` rows: each request's free chunks sorted by id; ``pidx`` rows: its pinned chunks in
    relevance order. ``mark`` is scratch of the chunk universe's size, all -1 on entry and exit.
    Writes each request's sequence (free part laid out, then the pinned part) into
    ``out[outptr[b]:outptr[b+1]]``; returns the new number of trie nodes."""
    B = len(fptr) - 1
    kmax = 1
    for b in range(B):
        if fptr[b + 1] - fptr[b] > kmax:
            kmax = fptr[b + 1] - fptr[b]
    pre_node = np.zeros(B, dtype=np.int64)
    pre_len = np.zeros(B, dtype=np.int64)
    used = np.zeros(kmax, dtype=np.bool_)
    it = np.zeros(kmax + 1, dtype=np.int64)
    nodes = np.zeros(kmax + 1, dtype=np.int64)
    loc = np.zeros(kmax + 1, dtype=np.int64)
    best = np.zeros(kmax + 1, dtype=np.int64)
    # ---- deepest usable prefix of every request: heaviest root path inside its free set
    for b in range(B):
        s = fptr[b]
        k = fptr[b + 1] - s
        bw = 0
        bl = 0
        bnode = 0
        d = 0
        nodes[0] = 0
        it[0] = 0
        while d >= 0:
            if it[d] < k:
                i = it[d]
                it[d] += 1
                if not used[i]:
                    c = child_of(hkeys, hvals, nodes[d], fidx[s + i])
                    if c >= 0:
                        used[i] = True
                        loc[d] = i
                        d += 1
                        nodes[d] = c
                        it[d] = 0
                        if tw[c] > bw:
                            bw = tw[c]
                            bl = d
                            bnode = c
                            for t in range(d):
                                best[t] = loc[t]
            else:
                d -= 1
                if d >= 0:
                    used[loc[d]] = False
        o = outptr[b]
        for t in range(bl):
            out[o + t] = fidx[s + best[t]]
        pre_len[b] = bl
        pre_node[b] = bnode
    # ---- the requests stopping at one node are laid out together
    order = np.argsort(pre_node, kind="mergesort")
    g0 = 0
    while g0 < B:
        g1 = g0
        while g1 < B and pre_node[order[g1]] == pre_node[order[g0]]:
            g1 += 1
        first = order[g0]
        L = pre_len[first]
        for t in range(L):
            mark[out[outptr[first] + t]] = -2
        # residual sizes
        nres = 0
        tot = 0
        for q in range(g0, g1):
            b = order[q]
            cnt = 0
            for p in range(fptr[b], fptr[b + 1]):
                if mark[fidx[p]] != -2:
                    cnt += 1
            if cnt > 0:
                nres += 1
            tot += cnt
        if nres <= 1:
            for q in range(g0, g1):
                b = order[q]
                o = outptr[b] + pre_len[b]
                for p in range(fptr[b], fptr[b + 1]):
                    if mark[fidx[p]] != -2:
                        out[o] = fidx[p]
                        o += 1
        else:
            # local chunk ids in global id order, rows of the nonempty residuals
            glob = np.empty(tot, dtype=np.int64)
            ng = 0
            for q in range(g0, g1):
                b = order[q]
                for p in range(fptr[b], fptr[b + 1]):
                    x = fidx[p]
                    if mark[x] == -1:
                        mark[x] = 0
                        glob[ng] = x
                        ng += 1
            glob = np.sort(glob[:ng])
            wl = np.empty(ng, dtype=np.int64)
            for u in range(ng):
                mark[glob[u]] = u
                wl[u] = w[glob[u]]
            rows = np.empty(nres, dtype=np.int64)
            ip = np.zeros(nres + 1, dtype=np.int64)
            ix = np.empty(tot, dtype=np.int32)
            r = 0
            for q in range(g0, g1):
                b = order[q]
                st = ip[r]
                n_b = 0
                for p in range(fptr[b], fptr[b + 1]):
                    x = fidx[p]
                    if mark[x] >= 0:
                        ix[st + n_b] = mark[x]
                        n_b += 1
                if n_b > 0:
                    rows[r] = b
                    ip[r + 1] = st + n_b
                    r += 1
            ma, mb, mw, ss, sl, pool, _ = nn_chain(ip, ix, wl, ng, 128, 3)  # as sparse_agglomerative
            children = balanced_children(ma, mb, nres)
            lay = np.empty_like(ix)
            hierarchy_layout(children, 2 * nres - 2, nres, ss, sl, pool, ip, ix, lay)
            for r in range(nres):
                b = rows[r]
                o = outptr[b] + pre_len[b]
                for p in range(ip[r], ip[r + 1]):
                    out[o] = glob[lay[p]]
                    o += 1
            for u in range(ng):
                mark[glob[u]] = -1
        for t in range(L):
            mark[out[outptr[first] + t]] = -1
        g0 = g1
    # ---- pinned parts last, then the whole batch joins the trie
    for b in range(B):
        o = outptr[b] + fptr[b + 1] - fptr[b]
        for p in range(pptr[b], pptr[b + 1]):
            out[o] = pidx[p]
            o += 1
    return insert_rows(outptr, out, w, hkeys, hvals, tw, nnodes)
