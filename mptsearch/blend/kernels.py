"""Compiled kernels of the blend model at trace scale (docs/beyond_prefix.md, section 1.2).

A layout's lines (CSR: ``seq[indptr[j]:indptr[j+1]]``, served in order) are inserted into a
prefix trie whose nodes are numbered in creation order; a node's context (the chunks before it
in the line creating it) is the set of chunk labels on its path from the root, so a context
difference |P_u symmetric-difference P_v| is read off the two root paths with two stamp arrays
over the chunks instead of materialised sets. The public entry points are
:func:`mptsearch.blend.heuristic.node_table` and :func:`mptsearch.blend.heuristic.price_greedy`;
their slow twins are in tests/naive.py.
"""

from __future__ import annotations

import numpy as np

from .._jit import njit

__all__ = ["trie_nodes", "first_differences", "greedy_prices", "blend_choice", "first_prices_ext", "greedy_prices_ext"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def trie_nodes(indptr, seq, n_chunks):
    """(parent, chunk, through) of the trie of the lines, nodes in creation order.

    ``parent[v]`` is -1 for a child of the root; ``through[v]`` counts the lines through v.
    An open-addressing table keyed on (parent, chunk) finds a child: O(total positions)
    expected time, O(total positions) memory.
    """
    total = seq.shape[0]
    bits = 1
    while (1 << bits) < 2 * total + 2:
        bits += 1
    size = 1 << bits
    shift = np.uint64(64 - bits)
    mask = size - 1
    keys = np.full(size, -1, dtype=np.int64)
    vals = np.empty(size, dtype=np.int32)
    parent = np.empty(total, dtype=np.int32)
    chunk = np.empty(total, dtype=np.int32)
    through = np.zeros(total, dtype=np.int64)
    made = 0
    for j in range(indptr.shape[0] - 1):
        node = -1
        for p in range(indptr[j], indptr[j + 1]):
            x = seq[p]
            key = np.int64(node + 1) * n_chunks + x
            h = np.int64((np.uint64(key) * _GOLDEN) >> shift)
            while True:
                k = keys[h]
                if k == key:
                    node = vals[h]
                    break
                if k == -1:
                    keys[h] = key
                    vals[h] = made
                    parent[made] = node
                    chunk[made] = x
                    node = made
                    made += 1
                    break
                h = (h + 1) & mask
            through[node] += 1
    return parent[:made].copy(), chunk[:made].copy(), through[:made].copy()


@njit(cache=True)
def _walk(v, parent, chunk, mark, tag, other, other_tag):
    """Stamp the context of node v (its ancestors' chunks) with ``tag`` in ``mark``; return
    (its size, how many of its chunks ``other`` holds stamped ``other_tag``)."""
    size = 0
    common = 0
    a = parent[v]
    while a >= 0:
        c = chunk[a]
        if mark[c] != tag:
            mark[c] = tag
            size += 1
            if other[c] == other_tag:
                common += 1
        a = parent[a]
    return size, common


@njit(cache=True)
def _mark(v, parent, chunk, mark, tag):
    """Stamp the context of node v with ``tag`` (tags are positive); its size."""
    return _walk(v, parent, chunk, mark, tag, mark, -1)[0]


@njit(cache=True)
def _difference(u, size_v, tag_v, parent, chunk, mark_v, mark_u, tag_u):
    """|P_u symmetric-difference P_v| for a node v whose context (of ``size_v`` chunks) is
    stamped ``tag_v`` in ``mark_v``."""
    size_u, common = _walk(u, parent, chunk, mark_u, tag_u, mark_v, tag_v)
    return size_u + size_v - 2 * common


@njit(cache=True)
def first_differences(parent, chunk, n_chunks):
    """(d_first, first): each node's context difference to the first node of its chunk (-1 for
    that first node), and the first node of every chunk (-1: the chunk has none).

    O(N depth) time for N nodes.
    """
    N = parent.shape[0]
    first = np.full(n_chunks, -1, dtype=np.int64)
    d = np.empty(N, dtype=np.int64)
    mark_v = np.zeros(n_chunks, dtype=np.int64)
    mark_u = np.zeros(n_chunks, dtype=np.int64)
    for v in range(N):
        x = chunk[v]
        u = first[x]
        if u < 0:
            first[x] = v
            d[v] = -1
            continue
        tag = v + 1
        size_v = _mark(v, parent, chunk, mark_v, tag)
        d[v] = _difference(u, size_v, tag, parent, chunk, mark_v, mark_u, tag)
    return d, first


@njit(cache=True)
def greedy_prices(parent, chunk, w, through, n_chunks, r, price, beta, per_answer, cap):
    """(cost, loss) of the greedy rule: a node's candidates are its chunk's first full copy and
    the ``cap`` most recent ones; it blends from the nearest iff r + price (1 + beta d) (times
    the lines through it, per answer) < 1, else it is full and becomes a copy.

    The sums run node by node in creation order, the order of the Python rule they replace.
    O(N cap depth) time.
    """
    N = parent.shape[0]
    first = np.full(n_chunks, -1, dtype=np.int64)
    last = np.full(n_chunks, -1, dtype=np.int64)
    prev_copy = np.full(N, -1, dtype=np.int64)
    mark_v = np.zeros(n_chunks, dtype=np.int64)
    mark_u = np.zeros(n_chunks, dtype=np.int64)
    tag_u = 0
    cost = 0.0
    loss = 0.0
    for v in range(N):
        x = chunk[v]
        wv = float(w[v])
        if first[x] < 0:
            first[x] = v
            last[x] = v
            cost += wv
            continue
        size_v = _mark(v, parent, chunk, mark_v, v + 1)
        tag_u += 1
        d = _difference(first[x], size_v, v + 1, parent, chunk, mark_v, mark_u, tag_u)
        u = last[x]
        for _ in range(cap):
            if u < 0:
                break
            tag_u += 1
            e = _difference(u, size_v, v + 1, parent, chunk, mark_v, mark_u, tag_u)
            if e < d:
                d = e
            u = prev_copy[u]
        unit = 1.0 + beta * d
        if per_answer:
            unit = unit * through[v]
        if r + price * unit < 1.0:
            cost += r * wv
            loss += wv * unit
        else:
            cost += wv
            prev_copy[v] = last[x]
            last[x] = v
    return cost, loss


# The extended model (docs/beyond_prefix.md, section 9): a mismatch weighted per chunk (1 for a
# chunk count, the chunk's tokens for token mismatch), a loss table chosen from per blend, and an
# isolated copy of every chunk (context {}) as a candidate source.


@njit(cache=True)
def _walk_w(v, parent, chunk, mark, tag, other, other_tag, dw):
    """:func:`_walk` with each chunk counted ``dw[chunk]``: (weighted size of P_v, weighted size
    of its part stamped ``other_tag`` in ``other``)."""
    size = 0.0
    common = 0.0
    a = parent[v]
    while a >= 0:
        c = chunk[a]
        if mark[c] != tag:
            mark[c] = tag
            size += dw[c]
            if other[c] == other_tag:
                common += dw[c]
        a = parent[a]
    return size, common


@njit(cache=True)
def _table_loss(j, d, gptr, gd, gg):
    """g_j(d) of ratio j of the table (points gd/gg[gptr[j]:gptr[j+1]], sorted by mismatch):
    linear between points, the last segment continued beyond them."""
    lo = gptr[j]
    hi = gptr[j + 1]
    if hi - lo == 1:
        return gg[lo]
    i = lo
    while i + 2 < hi and d > gd[i + 1]:
        i += 1
    return gg[i] + (gg[i + 1] - gg[i]) * (d - gd[i]) / (gd[i + 1] - gd[i])


@njit(cache=True)
def blend_choice(d, times, r, beta, price, ratios, gptr, gd, gg):
    """(recompute ratio, loss per token) of a blend at mismatch d passed by ``times`` charged
    requests: the table's ratio minimising r_j + price g_j(d) times (ties to the smaller ratio,
    within 1e-12), or (r, (1 + beta d) times) without a table (``ratios`` empty)."""
    if ratios.shape[0] == 0:
        return r, (1.0 + beta * d) * times
    best_r = ratios[0]
    best_g = _table_loss(0, d, gptr, gd, gg) * times
    for j in range(1, ratios.shape[0]):
        g = _table_loss(j, d, gptr, gd, gg) * times
        if ratios[j] + price * g < best_r + price * best_g - 1e-12:
            best_r = ratios[j]
            best_g = g
    return best_r, best_g


@njit(cache=True)
def first_prices_ext(parent, chunk, w, through, n_chunks, dw, isolated, per_answer, r, beta, price,
                     ratios, gptr, gd, gg):
    """(cost, loss) of the one-copy rule in the extended model: the copy of a chunk is its
    isolated copy (``isolated``; mismatch w(P_v) or |P_v|) or else its first node (full); a node
    blends from it iff its best ratio's r + price g < 1. O(N depth) time."""
    N = parent.shape[0]
    first = np.full(n_chunks, -1, dtype=np.int64)
    mark_v = np.zeros(n_chunks, dtype=np.int64)
    mark_u = np.zeros(n_chunks, dtype=np.int64)
    cost = 0.0
    loss = 0.0
    for v in range(N):
        x = chunk[v]
        wv = float(w[v])
        size_v, _ = _walk_w(v, parent, chunk, mark_v, v + 1, mark_v, -1, dw)
        if isolated:
            d = size_v
        elif first[x] < 0:
            first[x] = v
            cost += wv
            continue
        else:
            size_u, common = _walk_w(first[x], parent, chunk, mark_u, v + 1, mark_v, v + 1, dw)
            d = size_u + size_v - 2.0 * common
        rb, g = blend_choice(d, float(through[v]) if per_answer else 1.0, r, beta, price, ratios, gptr, gd, gg)
        if rb + price * g < 1.0:
            cost += rb * wv
            loss += wv * g
        else:
            cost += wv
    return cost, loss


@njit(cache=True)
def greedy_prices_ext(parent, chunk, w, through, n_chunks, dw, isolated, per_answer, cap, r, beta, price,
                      ratios, gptr, gd, gg):
    """(cost, loss) of the greedy rule in the extended model: a node's candidate sources are
    its chunk's isolated copy (``isolated``), its first full node and the ``cap`` most recent
    full ones; it blends from the one at the least mismatch (every g_j is nondecreasing in d)
    iff its best ratio's r + price g < 1, else it is full and becomes a copy. O(N cap depth)."""
    N = parent.shape[0]
    first = np.full(n_chunks, -1, dtype=np.int64)
    last = np.full(n_chunks, -1, dtype=np.int64)
    prev_copy = np.full(N, -1, dtype=np.int64)
    mark_v = np.zeros(n_chunks, dtype=np.int64)
    mark_u = np.zeros(n_chunks, dtype=np.int64)
    tag_u = 0
    cost = 0.0
    loss = 0.0
    for v in range(N):
        x = chunk[v]
        wv = float(w[v])
        if first[x] < 0 and not isolated:
            first[x] = v
            last[x] = v
            cost += wv
            continue
        size_v, _ = _walk_w(v, parent, chunk, mark_v, v + 1, mark_v, -1, dw)
        d = size_v if isolated else np.inf
        u = first[x]
        if u >= 0:
            tag_u += 1
            size_u, common = _walk_w(u, parent, chunk, mark_u, tag_u, mark_v, v + 1, dw)
            d = min(d, size_u + size_v - 2.0 * common)
            u = last[x]
            for _ in range(cap):
                if u < 0:
                    break
                tag_u += 1
                size_u, common = _walk_w(u, parent, chunk, mark_u, tag_u, mark_v, v + 1, dw)
                d = min(d, size_u + size_v - 2.0 * common)
                u = prev_copy[u]
        rb, g = blend_choice(d, float(through[v]) if per_answer else 1.0, r, beta, price, ratios, gptr, gd, gg)
        if rb + price * g < 1.0:
            cost += rb * wv
            loss += wv * g
        else:
            cost += wv
            if first[x] < 0:
                first[x] = v
            else:
                prev_copy[v] = last[x]
            last[x] = v
    return cost, loss
