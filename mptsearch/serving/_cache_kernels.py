"""Compiled LRU prefix-cache simulation (see :mod:`.cache` for the model and the schedules).

Arrays and scalars only. The layout's lines are first put in their trie (:func:`trie_nodes`);
a request is then its path of trie nodes, and the cache holds ``have[v]`` of node v's
``units[v]`` units: its tokens at token level (all or none), its whole KV blocks at block
level (the blocks whose last token lies in the node's chunk, :func:`block_units`; a prefix of
them). All blocks of one node are used by the same requests, so they share their last use and
the LRU rule (oldest first, deepest first on ties) evicts them deepest first, as
:class:`.blocks.BlockCache` does one block at a time.
"""

from __future__ import annotations

import numpy as np
from .._jit import njit

from .._kernels.arrays import copy_into
from ._greedy_kernels import _pop, _push
from ._sparse_kernels import common_prefix

ARRIVAL, DFS, WINDOW, LPM, DFS_WEIGHT = 0, 1, 2, 3, 4


@njit(cache=True)
def trie_nodes(indptr, seq, order):
    """(node of every position, parent, depth, chunk of every node, number of nodes).

    ``order``: the lines in lexicographic order (:func:`._sparse_kernels.lex_order`); node 0
    is the root. O(total length)."""
    L = indptr[len(indptr) - 1]
    node_of = np.empty(L, dtype=np.int64)
    parent = np.empty(L + 1, dtype=np.int64)
    depth = np.empty(L + 1, dtype=np.int64)
    chunk = np.empty(L + 1, dtype=np.int64)
    parent[0] = -1
    depth[0] = 0
    chunk[0] = -1
    nv = 1
    prev = -1
    for r in order:
        s = indptr[r]
        e = indptr[r + 1]
        t = common_prefix(indptr, seq, prev, r)
        if t:
            copy_into(node_of, s, node_of, indptr[prev], t)  # another row's ids: no overlap
        for p in range(s + t, e):
            parent[nv] = node_of[p - 1] if p > s else 0
            depth[nv] = p - s + 1
            chunk[nv] = seq[p]
            node_of[p] = nv
            nv += 1
        prev = r
    return node_of, parent[:nv], depth[:nv], chunk[:nv], nv


@njit(cache=True)
def block_units(parent, chunk, w, B):
    """Whole blocks of B tokens ending inside each node's chunk (parents come before children)."""
    nv = len(parent)
    end = np.zeros(nv, dtype=np.int64)
    units = np.zeros(nv, dtype=np.int64)
    for v in range(1, nv):
        s = end[parent[v]]
        end[v] = s + w[chunk[v]]
        units[v] = end[v] // B - s // B
    return units


@njit(cache=True, inline="always")
def _hit(indptr, node_of, units, have, j, B, limit):
    """(units of ``j``'s longest cached prefix capped at ``limit``, deepest node fully cached)."""
    hit = 0
    deep = 0
    for p in range(indptr[j], indptr[j + 1]):
        v = node_of[p]
        hit += have[v]
        if have[v] < units[v]:
            break
        deep = v
    if B > 1 and hit > limit:
        hit = limit
    return hit, deep


@njit(cache=True)
def _dfs_weight(block, deep, parent, chunk, mark, out, k0):
    """SGLang's DFS_WEIGHT order of ``block`` (requests hanging at nodes ``deep``) into ``out[k0:]``."""
    nb = len(block)
    nodes = np.empty(nb * 64 + 1, dtype=np.int64)
    ns = 0
    for i in range(nb):
        v = deep[i]
        while v >= 0:
            if mark[v] == 0:
                if ns == len(nodes):
                    bigger = np.empty(2 * ns, dtype=np.int64)
                    copy_into(bigger, 0, nodes, 0, ns)
                    nodes = bigger
                nodes[ns] = v
                ns += 1
            mark[v] += 1
            v = parent[v]
    nodes = nodes[:ns]
    wt = np.empty(ns, dtype=np.int64)
    par = np.empty(ns, dtype=np.int64)
    ch = np.empty(ns, dtype=np.int64)
    for a in range(ns):
        wt[a] = -mark[nodes[a]]
        par[a] = parent[nodes[a]]
        ch[a] = chunk[nodes[a]]
    # children grouped by parent, heavier first, then smaller chunk
    o = np.argsort(ch, kind="mergesort")
    o = o[np.argsort(wt[o], kind="mergesort")]
    o = o[np.argsort(par[o], kind="mergesort")]
    # requests grouped by their node, in block order
    ro = np.argsort(deep, kind="mergesort")
    out_k = k0
    stack_v = np.empty(2 * ns + 2, dtype=np.int64)
    stack_x = np.empty(2 * ns + 2, dtype=np.int64)
    sp = 0
    stack_v[0] = 0
    stack_x[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        v = stack_v[sp]
        if stack_x[sp] == 1:
            lo = np.searchsorted(deep[ro], v)
            while lo < nb and deep[ro[lo]] == v:
                out[out_k] = block[ro[lo]]
                out_k += 1
                lo += 1
            continue
        stack_v[sp] = v
        stack_x[sp] = 1
        sp += 1
        lo = np.searchsorted(par[o], v)
        hi = lo
        while hi < ns and par[o[hi]] == v:
            hi += 1
        for a in range(hi - 1, lo - 1, -1):  # pushed in reverse: the heaviest is visited first
            stack_v[sp] = nodes[o[a]]
            stack_x[sp] = 0
            sp += 1
    for a in range(ns):
        mark[nodes[a]] = 0
    return out_k


@njit(cache=True)
def serve_all(indptr, node_of, parent, depth, chunk, units, line_tokens, cap, B, schedule, window,
              fcfs_above, presorted):
    """Serve every line; return (total prefill, serving order).

    ``cap``: capacity in units (-1: unbounded); ``B``: 1 = token level (a node is cached or
    evicted whole), > 1 = whole blocks (a request reuses at most (L - 1) // B of them);
    ``presorted``: the serving order of the ``arrival``, ``dfs`` and ``window`` schedules;
    ``fcfs_above``: ``lpm`` serves a longer queue in arrival order (-1: never).
    O(L log L) for L the total length, plus O(W L) for ``lpm`` and ``dfs-weight``."""
    M = len(indptr) - 1
    nv = len(parent)
    have = np.zeros(nv, dtype=np.int64)
    last = np.zeros(nv, dtype=np.int64)
    D = 0
    for j in range(M):
        if indptr[j + 1] - indptr[j] > D:
            D = indptr[j + 1] - indptr[j]
    heap = np.empty(indptr[M] + 1 if cap >= 0 else 1, dtype=np.int64)
    hsize = 0
    served = np.empty(M + 1, dtype=np.int64)
    out = np.empty(M, dtype=np.int64)
    mark = np.zeros(nv if schedule == DFS_WEIGHT else 1, dtype=np.int64)
    used = 0
    prefill = 0
    t = 0
    k = 0
    start = 0
    while start < M:
        # the next block of requests, in the order the schedule serves them
        if schedule == ARRIVAL or schedule == DFS or schedule == WINDOW:
            stop = M
            for q in range(start, M):
                out[q] = presorted[q]
        else:
            stop = min(M, start + window)
            nb = stop - start
            block = np.arange(start, stop)
            if schedule == LPM and (fcfs_above < 0 or nb <= fcfs_above):
                hits = np.empty(nb, dtype=np.int64)
                for i in range(nb):
                    j = block[i]
                    hits[i] = -_hit(indptr, node_of, units, have, j, B, (line_tokens[j] - 1) // B)[0]
                o = np.argsort(hits, kind="mergesort")
                for i in range(nb):
                    out[start + i] = block[o[i]]
            elif schedule == DFS_WEIGHT:
                deep = np.empty(nb, dtype=np.int64)
                for i in range(nb):
                    deep[i] = _hit(indptr, node_of, units, have, block[i], B, 0)[1]
                _dfs_weight(block, deep, parent, chunk, mark, out, start)
            else:
                for q in range(start, stop):
                    out[q] = q
        for q in range(start, stop):
            j = out[q]
            t += 1
            served[t] = j
            hit = _hit(indptr, node_of, units, have, j, B, (line_tokens[j] - 1) // B)[0]
            prefill += line_tokens[j] - hit * B if B > 1 else line_tokens[j] - hit
            for p in range(indptr[j], indptr[j + 1]):
                v = node_of[p]
                used += units[v] - have[v]
                have[v] = units[v]
                last[v] = t
                if cap >= 0:
                    hsize = _push(heap, hsize, t * (D + 1) + (D - depth[v]))
            while cap >= 0 and used > cap:
                key = heap[0]
                tv = key // (D + 1)
                v = node_of[indptr[served[tv]] + D - key % (D + 1) - 1]
                if last[v] != tv or have[v] == 0:
                    hsize = _pop(heap, hsize)
                    continue
                take = have[v] if B == 1 else min(have[v], used - cap)
                have[v] -= take
                used -= take
                if have[v] == 0:
                    hsize = _pop(heap, hsize)
        start = stop
    return prefill, out
