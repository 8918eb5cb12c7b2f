"""Kernel of the directed-cut separation (:mod:`mptsearch.exact.dcut`): one max-flow per request.

The sub-DAGs D_R of all requests are packed into flat arrays: request r owns the local nodes
``node_ptr[r]:node_ptr[r+1]`` of ``nodes`` (global node ids; the first is ∅, the last R) and
the local arcs ``arc_ptr[r]:arc_ptr[r+1]`` with tails ``ltail`` and heads ``lhead`` numbered
from 0 within the request, and global ids ``garc``. ``adj_ptr``/``adj_arc`` list, per packed
node, its packed arcs (in and out). Capacities are the floats ``x[garc]``: a residual arc is
open when its residual capacity exceeds ``EPS``. Only the validity of a cut matters for the
LP (any node set holding R and not ∅ gives a valid row); its value is recomputed from x and a
cut is emitted only below ``1 - tol``, so the float flow can at worst miss a barely violated cut.
"""

import numpy as np

from .._jit import njit

__all__ = ["separate_all"]

EPS = 1e-12


@njit(cache=True)
def _bfs(k, base, abase, src, forward, cap, flow, ltail, lhead, adj_ptr, adj_arc, seen, pred, queue):
    """Residual reachability from ``src`` (``forward``) or to it (not ``forward``) within one
    sub-DAG; ``pred`` the packed arc used to reach each node (for augmenting). Returns the
    number of nodes seen."""
    for v in range(k):
        seen[v] = False
        pred[v] = -1
    seen[src] = True
    queue[0] = src
    head, tail = 0, 1
    while head < tail:
        v = queue[head]
        head += 1
        for p in range(adj_ptr[base + v], adj_ptr[base + v + 1]):
            j = adj_arc[p]
            t = ltail[j]
            h = lhead[j]
            if forward:
                # from v: forward along t -> h if residual, backward along h -> t if flow
                if t == v and not seen[h] and cap[j - abase] - flow[j - abase] > EPS:
                    u = h
                elif h == v and not seen[t] and flow[j - abase] > EPS:
                    u = t
                else:
                    continue
            else:
                # reverse residual graph: u reaches v
                if h == v and not seen[t] and cap[j - abase] - flow[j - abase] > EPS:
                    u = t
                elif t == v and not seen[h] and flow[j - abase] > EPS:
                    u = h
                else:
                    continue
            seen[u] = True
            pred[u] = j
            queue[tail] = u
            tail += 1
    return tail


@njit(cache=True)
def _augment_to(k, base, abase, goal, cap, flow, ltail, lhead, adj_ptr, adj_arc, seen, pred, queue):
    """Augmenting paths (shortest first) from local node 0 to ``k - 1`` until none is left or
    the flow reaches ``goal``; returns the flow added."""
    total = 0.0
    while total < goal:
        _bfs(k, base, abase, 0, True, cap, flow, ltail, lhead, adj_ptr, adj_arc, seen, pred, queue)
        if not seen[k - 1]:
            break
        bott = np.inf
        v = k - 1
        while v != 0:
            j = pred[v]
            if lhead[j] == v:
                r = cap[j - abase] - flow[j - abase]
                v = ltail[j]
            else:
                r = flow[j - abase]
                v = lhead[j]
            if r < bott:
                bott = r
        v = k - 1
        while v != 0:
            j = pred[v]
            if lhead[j] == v:
                flow[j - abase] += bott
                v = ltail[j]
            else:
                flow[j - abase] -= bott
                v = lhead[j]
        total += bott
    return total


@njit(cache=True)
def separate_all(x, todo, node_ptr, nodes, arc_ptr, ltail, lhead, garc, adj_ptr, adj_arc, tol, back, nested,
                 out_req, out_val, out_nptr, out_nodes, out_aptr, out_arcs, goal):
    """The violated cuts of every request r with ``todo[r]``: the source-side minimum cut (the
    nodes the residual graph cannot reach from ∅), with ``back`` the sink-side one (the nodes
    reaching R), and with ``nested`` > 0 up to that many *nested* cuts after it: the arcs of the
    last cut get capacity 1 and the flow is augmented again, so the next minimum cut lies
    elsewhere (Koch and Martin's nested cuts). Writes cut c's request, value, global nodes
    ``out_nodes[out_nptr[c]:out_nptr[c+1]]`` and global arcs likewise; returns the number of
    cuts. ``goal[r]`` is the flow sub-DAG r must carry (1 for a request; in(v) for the Steiner
    node cuts of :mod:`mptsearch.exact.dcut`): a cut is violated when its value is below
    ``goal[r] - tol``. The output arrays should hold ``2 * (1 + nested) * todo.sum()`` cuts (two per round)
    of the largest sub-DAG's size; the search stops early rather than write past them."""
    maxk = 0
    maxa = 0
    for r in range(len(node_ptr) - 1):
        maxk = max(maxk, node_ptr[r + 1] - node_ptr[r])
        maxa = max(maxa, arc_ptr[r + 1] - arc_ptr[r])
    seen = np.zeros(maxk, np.bool_)
    pred = np.empty(maxk, np.int64)
    queue = np.empty(maxk, np.int64)
    cap = np.empty(maxa, np.float64)
    flow = np.empty(maxa, np.float64)
    inside = np.zeros(maxk, np.bool_)
    last = np.empty(maxa, np.int64)
    nlast = 0
    nc = 0
    out_nptr[0] = 0
    out_aptr[0] = 0
    for r in range(len(node_ptr) - 1):
        if not todo[r]:
            continue
        base = node_ptr[r]
        k = node_ptr[r + 1] - base
        abase = arc_ptr[r]
        na = arc_ptr[r + 1] - abase
        for j in range(na):
            cap[j] = max(0.0, x[garc[abase + j]])
            flow[j] = 0.0
        need = goal[r] - tol
        got = _augment_to(k, base, abase, need, cap, flow, ltail, lhead, adj_ptr, adj_arc, seen, pred, queue)
        if got >= need:
            continue
        nlast = 0
        rounds = 1 + nested
        for it in range(rounds):
            if it > 0:
                # nested: the last cut's arcs opened to capacity 1, then more flow
                for q in range(nlast):
                    cap[last[q]] = 1.0
                got += _augment_to(k, base, abase, need - got, cap, flow, ltail, lhead, adj_ptr, adj_arc,
                                   seen, pred, queue)
                if got >= need:
                    break
            for side in range(2 if back else 1):
                if side == 0:
                    _bfs(k, base, abase, 0, True, cap, flow, ltail, lhead, adj_ptr, adj_arc, seen, pred, queue)
                    for v in range(k):
                        inside[v] = not seen[v]
                else:
                    _bfs(k, base, abase, k - 1, False, cap, flow, ltail, lhead, adj_ptr, adj_arc, seen, pred, queue)
                    for v in range(k):
                        inside[v] = seen[v]
                if inside[0] or not inside[k - 1] or nc >= len(out_req):
                    continue
                val = 0.0
                a0 = out_aptr[nc]
                na_out = 0
                for j in range(na):
                    if inside[lhead[abase + j]] and not inside[ltail[abase + j]]:
                        val += x[garc[abase + j]]
                        out_arcs[a0 + na_out] = garc[abase + j]
                        na_out += 1
                if val >= need:
                    continue
                # the same arc set as the cut just written (source and sink sides agree)?
                if nc > 0 and out_req[nc - 1] == r and out_aptr[nc] - out_aptr[nc - 1] == na_out:
                    same = True
                    p0 = out_aptr[nc - 1]
                    for q in range(na_out):
                        if out_arcs[p0 + q] != out_arcs[a0 + q]:
                            same = False
                            break
                    if same:
                        continue
                n0 = out_nptr[nc]
                nn = 0
                for v in range(k):
                    if inside[v]:
                        out_nodes[n0 + nn] = nodes[base + v]
                        nn += 1
                out_req[nc] = r
                out_val[nc] = val
                out_nptr[nc + 1] = n0 + nn
                out_aptr[nc + 1] = a0 + na_out
                nlast = 0
                for j in range(na):
                    if inside[lhead[abase + j]] and not inside[ltail[abase + j]]:
                        last[nlast] = j
                        nlast += 1
                nc += 1
    return nc
