"""Kernels of the Steiner-set local search (:mod:`mptsearch.exact.closure_search`).

Sets of the closure are rows of a uint64 word matrix sorted by size; containment lists are
CSR arrays (``ptr``, ``idx``). ``used`` marks the chosen sets (the root 0 and the requests are
always used); ``best[v]`` is the weight of the heaviest used proper subset of v (0 for none:
the root ∅).
"""

import numpy as np

from .._jit import njit
from .arrays import copy_into

__all__ = ["containment", "steiner_anneal"]


@njit(cache=True)
def containment(words, sizes):
    """Proper-subset pairs (u, v), u strictly inside v, over the rows of ``words`` sorted by
    ``sizes``: arrays (us, vs). O(|C|^2 words) in the worst case; the pair (u, v) is tested
    only when |u| < |v|."""
    nsets, nw = words.shape
    cap = 1 << 16
    us = np.empty(cap, np.int64)
    vs = np.empty(cap, np.int64)
    cnt = 0
    for v in range(nsets):
        for u in range(v):
            if sizes[u] >= sizes[v]:
                break
            inside = True
            for w in range(nw):
                if words[u, w] & ~words[v, w]:
                    inside = False
                    break
            if inside:
                if cnt == cap:
                    cap *= 2
                    us2 = np.empty(cap, np.int64)
                    vs2 = np.empty(cap, np.int64)
                    copy_into(us2, 0, us, 0, cnt)
                    copy_into(vs2, 0, vs, 0, cnt)
                    us, vs = us2, vs2
                us[cnt] = u
                vs[cnt] = v
                cnt += 1
    return us[:cnt], vs[:cnt]


@njit(cache=True)
def _best_of(v, used, wt, sub_ptr, sub_idx, skip):
    b = 0
    for j in range(sub_ptr[v], sub_ptr[v + 1]):
        u = sub_idx[j]
        if used[u] and u != skip and wt[u] > b:
            b = wt[u]
    return b


@njit(cache=True)
def steiner_anneal(used0, fixed, wt, sub_ptr, sub_idx, sup_ptr, sup_idx, steps, t0, t1, seed):
    """Metropolis over the used Steiner sets: a step toggles one free set (add or drop), the
    cost sum_{v used} (wt[v] - best[v]) changing by the exact delta computed from the
    containment lists; temperature geometric from t0 to t1. Returns (best used, its cost).

    O(steps * (|sup(s)| + |sub(s)|)) on average, a drop costing |sub(v)| per superset v whose
    heaviest subset it was."""
    np.random.seed(seed)
    nsets = len(wt)
    used = used0.copy()
    best = np.zeros(nsets, np.int64)
    cost = np.int64(0)
    for v in range(nsets):
        if used[v]:
            best[v] = _best_of(v, used, wt, sub_ptr, sub_idx, -1)
            cost += wt[v] - best[v]
    free = np.flatnonzero(~fixed)
    best_used = used.copy()
    best_cost = cost
    if len(free) == 0:
        return best_used, best_cost
    ratio = (t1 / t0) ** (1.0 / max(1, steps)) if t0 > 0 else 1.0
    temp = t0
    for _ in range(steps):
        s = free[np.random.randint(len(free))]
        if not used[s]:
            bs = _best_of(s, used, wt, sub_ptr, sub_idx, -1)
            delta = wt[s] - bs
            for j in range(sup_ptr[s], sup_ptr[s + 1]):
                v = sup_idx[j]
                if used[v] and wt[s] > best[v]:
                    delta -= wt[s] - best[v]
        else:
            delta = -(wt[s] - best[s])
            for j in range(sup_ptr[s], sup_ptr[s + 1]):
                v = sup_idx[j]
                if used[v] and best[v] == wt[s]:
                    delta += wt[s] - _best_of(v, used, wt, sub_ptr, sub_idx, s)
        if delta <= 0 or (temp > 0 and np.random.random() < np.exp(-delta / temp)):
            if not used[s]:
                used[s] = True
                best[s] = _best_of(s, used, wt, sub_ptr, sub_idx, -1)
                for j in range(sup_ptr[s], sup_ptr[s + 1]):
                    v = sup_idx[j]
                    if used[v] and wt[s] > best[v]:
                        best[v] = wt[s]
            else:
                used[s] = False
                for j in range(sup_ptr[s], sup_ptr[s + 1]):
                    v = sup_idx[j]
                    if used[v] and best[v] == wt[s]:
                        best[v] = _best_of(v, used, wt, sub_ptr, sub_idx, -1)
            cost += delta
            if cost < best_cost:
                best_cost = cost
                copy_into(best_used, 0, used, 0, len(used))
        temp *= ratio
    return best_used, best_cost
