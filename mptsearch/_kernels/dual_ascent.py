"""Kernel of the dual ascent (:mod:`mptsearch.exact.dual_ascent`) over the packed sub-DAGs D_R
of :mod:`mptsearch._kernels.dicut` (same arrays: ``node_ptr``, ``nodes``, ``arc_ptr``, local
``ltail``/``lhead``, global ``garc``, per packed node its packed arcs ``adj_ptr``/``adj_arc``).
Reduced costs are integers (``int64``), so every step is exact.
"""

import heapq

import numpy as np

from .._jit import njit

__all__ = ["dual_ascent_all"]


@njit(cache=True)
def _scratch(node_ptr):
    """The work arrays of :func:`_root_side` (seen, queue, pred), as long as the largest sub-DAG."""
    maxk = 1
    for r in range(len(node_ptr) - 1):
        maxk = max(maxk, node_ptr[r + 1] - node_ptr[r])
    return np.zeros(maxk, np.bool_), np.empty(maxk, np.int64), np.empty(maxk, np.int64)


@njit(cache=True)
def _root_side(r, red, node_ptr, arc_ptr, ltail, lhead, garc, adj_ptr, adj_arc, seen, queue, pred):
    """Marks in ``seen`` the local nodes of D_r from which r (local ``k - 1``) is reached along
    arcs of reduced cost 0, a breadth-first search back from r: ``pred[v]`` the packed arc by
    which v was reached (leaving v), so following it from a node gives a path of reduced cost 0
    to r with the fewest arcs. Returns -1 when ∅ (local 0) is among them, else the number of
    arcs entering the marked set."""
    base = node_ptr[r]
    k = node_ptr[r + 1] - base
    for v in range(k):
        seen[v] = False
        pred[v] = -1
    seen[k - 1] = True
    queue[0] = k - 1
    hd, tl = 0, 1
    while hd < tl:
        v = queue[hd]
        hd += 1
        for p in range(adj_ptr[base + v], adj_ptr[base + v + 1]):
            j = adj_arc[p]
            if lhead[j] == v and not seen[ltail[j]] and red[garc[j]] == 0:
                seen[ltail[j]] = True
                pred[ltail[j]] = j
                queue[tl] = ltail[j]
                tl += 1
    if seen[0]:
        return -1
    c = 0
    for j in range(arc_ptr[r], arc_ptr[r + 1]):
        if seen[lhead[j]] and not seen[ltail[j]]:
            c += 1
    return c


@njit(cache=True)
def dual_ascent_all(cost, node_ptr, nodes, arc_ptr, ltail, lhead, garc, adj_ptr, adj_arc, out_req, out_y,
                    out_nptr, out_nodes, out_aptr, out_arcs):
    """Dual ascent over every sub-DAG: returns (bound, number of cuts, reduced costs, overflow).
    The request whose current cut has the fewest arcs goes first (a lazy heap: a popped key is
    recomputed and the request pushed back when it is no longer the least). Cut c is written as
    its request, its dual ``out_y[c]``, its global nodes ``out_nodes[out_nptr[c]:out_nptr[c+1]]``
    and global arcs likewise; when the output arrays are full, ``overflow`` is True and the
    caller retries with larger ones (the ascent itself goes on, so the bound is the same)."""
    red = cost.copy()
    nreq = len(node_ptr) - 1
    seen, queue, pred = _scratch(node_ptr)
    heap = [(np.int64(0), np.int64(0))]
    heap.pop()
    for r in range(nreq):
        c = _root_side(r, red, node_ptr, arc_ptr, ltail, lhead, garc, adj_ptr, adj_arc, seen, queue, pred)
        if c >= 0:
            heap.append((np.int64(c), np.int64(r)))
    heapq.heapify(heap)
    bound = np.int64(0)
    nc = 0
    overflow = False
    out_nptr[0] = 0
    out_aptr[0] = 0
    while len(heap) > 0:
        item = heapq.heappop(heap)
        r = item[1]
        c = _root_side(r, red, node_ptr, arc_ptr, ltail, lhead, garc, adj_ptr, adj_arc, seen, queue, pred)
        if c < 0:
            continue
        if len(heap) > 0 and c > heap[0][0]:
            heapq.heappush(heap, (np.int64(c), r))
            continue
        a0, a1 = arc_ptr[r], arc_ptr[r + 1]
        d = np.int64(1) << 62
        for j in range(a0, a1):
            if seen[lhead[j]] and not seen[ltail[j]] and red[garc[j]] < d:
                d = red[garc[j]]
        base = node_ptr[r]
        k = node_ptr[r + 1] - base
        fits = nc < len(out_req) and out_aptr[nc] + c <= len(out_arcs) and out_nptr[nc] + k <= len(out_nodes)
        if not fits:
            overflow = True
        q = 0
        for j in range(a0, a1):
            if seen[lhead[j]] and not seen[ltail[j]]:
                red[garc[j]] -= d
                if fits:
                    out_arcs[out_aptr[nc] + q] = garc[j]
                    q += 1
        if fits:
            nn = 0
            for v in range(k):
                if seen[v]:
                    out_nodes[out_nptr[nc] + nn] = nodes[base + v]
                    nn += 1
            out_req[nc] = r
            out_y[nc] = d
            out_aptr[nc + 1] = out_aptr[nc] + q
            out_nptr[nc + 1] = out_nptr[nc] + nn
            nc += 1
        bound += d
        c = _root_side(r, red, node_ptr, arc_ptr, ltail, lhead, garc, adj_ptr, adj_arc, seen, queue, pred)
        if c >= 0:
            heapq.heappush(heap, (np.int64(c), r))
    return bound, nc, red, overflow


@njit(cache=True)
def zero_paths_all(red, node_ptr, nodes, arc_ptr, ltail, lhead, garc, adj_ptr, adj_arc, used):
    """Marks in ``used`` (per global arc) one path of reduced cost 0 from ∅ to each request, the
    fewest arcs first (a search back from the request); a request with none marks nothing."""
    nreq = len(node_ptr) - 1
    seen, queue, pred = _scratch(node_ptr)
    for r in range(nreq):
        if _root_side(r, red, node_ptr, arc_ptr, ltail, lhead, garc, adj_ptr, adj_arc, seen, queue, pred) >= 0:
            continue  # ∅ does not reach r along arcs of reduced cost 0
        k = node_ptr[r + 1] - node_ptr[r]
        v = 0
        while v != k - 1:
            j = pred[v]
            used[garc[j]] = True
            v = lhead[j]
