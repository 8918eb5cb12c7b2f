"""Upper bounds on OPT_free from the closure: a local search over the Steiner sets.

By the closure form of Theorem 1 (:mod:`mptsearch.exact.closure`) OPT_free is the least cost of
an arborescence over C ∪ {∅} reaching every request, arcs X -> Y (X ⊊ Y) costing w(Y - X). Fix
the set U of nodes the arborescence uses (the requests and ∅ always among them). Any used
proper subset of a node can be its parent (the arcs point from smaller to larger sets, so no
choice makes a cycle), and the parents are chosen independently, so the best arborescence on U
gives each v its heaviest used proper subset:

    cost(U) = sum_{v in U, v != ∅} (w(v) - max{w(u) : u in U ∪ {∅}, u ⊊ v}),

and OPT_free = min_U cost(U) (**proved**: every arborescence on the node set U costs at least
cost(U), node by node, and cost(U) is attained). The search is therefore over subsets of the
closure's non-request sets only: a step adds or drops one set, and the change of cost is exact
from the containment lists (:func:`mptsearch._kernels.steiner.steiner_anneal`, Metropolis,
geometric cooling, best-of several seeds). Each result is laid out (a request's chunks in the
order of its root path's segments) and its cost recomputed on the trie
(:func:`mptsearch.trie.trie_cost`), which the first half of the closure proof bounds by cost(U).
A heuristic: it gives upper bounds only, never a lower bound.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .._kernels.steiner import containment, steiner_anneal
from ..hierarchy import _mask_ids as _bits  # ascending ids, O(popcount) big-int steps
from ..instance import Instance
from .closure import ClosureGraph, closure_graph, reduce_instance, MAX_SETS

__all__ = ["Poset", "closure_poset", "SteinerSearch", "default_steps", "search_component", "steiner_search",
           "steiner_layout", "used_cost", "WORK"]


def _words(sets: list, nchunks: int) -> np.ndarray:
    nw = max(1, (nchunks + 63) // 64)
    out = np.zeros((len(sets), nw), dtype=np.uint64)
    for i, x in enumerate(sets):
        for w in range(nw):
            out[i, w] = (x >> (64 * w)) & 0xFFFFFFFFFFFFFFFF
    return out


def _csr(keys: np.ndarray, vals: np.ndarray, n: int):
    order = np.argsort(keys, kind="stable")
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(ptr, keys + 1, 1)
    return np.cumsum(ptr), vals[order].astype(np.int64)


@dataclass
class Poset:
    """The proper containments of a component's closure C ∪ {∅} (index 0 is ∅, inside every
    set) as CSR lists: ``sub_idx[sub_ptr[v]:sub_ptr[v+1]]`` the sets strictly inside v,
    ``sup_idx[...]`` those strictly containing it; ``wt`` the set weights; ``fixed`` marks ∅
    and the requests (always used)."""

    graph: ClosureGraph
    wt: np.ndarray
    sub_ptr: np.ndarray
    sub_idx: np.ndarray
    sup_ptr: np.ndarray
    sup_idx: np.ndarray
    fixed: np.ndarray


def closure_poset(g: ClosureGraph, weights: list) -> Poset:
    """The containment lists of ``g``'s sets. O(|C|^2 words / 2) (the kernel tests each pair
    of sets of different sizes once)."""
    sizes = np.array([bin(x).count("1") for x in g.sets], dtype=np.int64)
    words = _words(g.sets, len(weights))
    us, vs = containment(words, sizes)
    wv = np.array(weights, dtype=np.int64)
    wt = np.array([int(wv[_bits(x)].sum()) if x else 0 for x in g.sets], dtype=np.int64)
    n = len(g.sets)
    sub_ptr, sub_idx = _csr(vs, us, n)
    sup_ptr, sup_idx = _csr(us, vs, n)
    fixed = np.zeros(n, dtype=np.bool_)
    fixed[0] = True
    fixed[np.array(g.requests, dtype=np.int64)] = True
    return Poset(g, wt, sub_ptr, sub_idx, sup_ptr, sup_idx, fixed)


def used_cost(weights: list, used: list) -> int:
    """cost(U) of the module docstring for the used sets ``used`` (Python-int masks, the
    requests among them), by the definition: O(|U|^2). The slow twin of the kernel's cost."""
    def w(x):
        return sum(weights[c] for c in range(x.bit_length()) if x >> c & 1)

    total = 0
    for v in used:
        total += w(v) - max([w(u) for u in used if u & v == u and u != v] + [0])
    return total


def steiner_layout(used: list, requests: list, weights: list, groups: list) -> list:
    """Each request's chunk order from the arborescence over ``used`` (masks over merged
    chunks, the requests among them) in which every set's parent is its heaviest used proper
    subset (∅ if none; among equally heavy ones the largest mask): the request's chunks in the
    order of its root path's segments, merged chunks expanded through ``groups``. The proper
    subsets come from the compiled containment test over the sets sorted by size
    (O(|U|^2 words) word operations in the worst case, the pairs of equal size skipped), the
    rest is O(pairs + total popcount) Python steps."""
    order = sorted(set(used) | set(requests), key=lambda x: (bin(x).count("1"), x))
    ids = [_bits(x) for x in order]
    wt = [sum(weights[c] for c in b) for b in ids]
    sizes = np.array([len(b) for b in ids], dtype=np.int64)
    us, vs = containment(_words(order, len(weights)), sizes)
    parent = [-1] * len(order)
    for u, v in zip(us.tolist(), vs.tolist()):
        p = parent[v]
        if p < 0 or (wt[u], order[u]) > (wt[p], order[p]):
            parent[v] = u
    seq: dict[int, list] = {0: []}
    for i, v in enumerate(order):
        if v == 0:
            continue
        p = order[parent[i]] if parent[i] >= 0 else 0
        seq[v] = seq[p] + [x for c in _bits(v & ~p) for x in groups[c]]
    return [seq[r] for r in requests]


@dataclass
class SteinerSearch:
    """The best layout the search found: ``cost`` its trie cost (recomputed), ``bound`` the
    cost(U) of its used sets summed over components (>= ``cost``), ``seconds`` wall time."""

    layout: list
    cost: int
    bound: int
    seconds: float


WORK = 300_000_000  # containment-list entries scanned per run at most (about 10 CPU s)


def default_steps(poset: Poset, work: float = WORK) -> int:
    """Steps per run: 400 per closure set (at least 20,000), fewer when a step scans long
    containment lists, so that a run scans about ``work`` list entries at most (a step scans
    about twice the mean list length). Deterministic: the same instance gets the same steps."""
    nsets = len(poset.wt)
    mean = max(1.0, 2.0 * len(poset.sub_idx) / nsets)
    return int(max(20_000, min(400 * nsets, work / mean)))


def search_component(g: ClosureGraph, poset: Poset, weights: list, *, seed: int = 0, restarts: int = 2,
                     steps: int | None = None) -> tuple[int, list]:
    """The local search on one component: (the best cost(U) found, its used sets as masks over
    merged chunks, requests included). ``steps`` per run defaults to :func:`default_steps`;
    runs use seeds ``seed``, ``seed + 1``, ... and start from the requests alone.
    O(steps (|sup| + |sub|)) per run."""
    nsteps = steps if steps is not None else default_steps(poset)
    temp0 = float(np.median(poset.wt[1:])) * 0.05
    best_cost, best_used = None, None
    for r in range(restarts):
        used, c = steiner_anneal(poset.fixed.copy(), poset.fixed, poset.wt, poset.sub_ptr, poset.sub_idx,
                                 poset.sup_ptr, poset.sup_idx, nsteps, temp0, temp0 * 1e-3, seed + r)
        if best_cost is None or c < best_cost:
            best_cost, best_used = int(c), used
    return best_cost, [g.sets[j] for j in np.flatnonzero(best_used) if j]


def steiner_search(inst: Instance, *, seed: int = 0, restarts: int = 2, steps: int | None = None,
                   max_sets: int = MAX_SETS) -> SteinerSearch:
    """An upper bound on OPT_free by simulated annealing over the closure's Steiner sets.

    Parameters
    ----------
    inst : Instance
    seed : int
        Seeds ``seed``, ``seed + 1``, ... of the ``restarts`` runs per component.
    restarts : int
        Independent runs per component, the best kept.
    steps : int, optional
        Steps per run (default :func:`default_steps`).

    Returns
    -------
    SteinerSearch

    Notes
    -----
    A heuristic (OPT_free is NP-hard); O(|C|^2) for the containment lists, then
    O(steps (|sup| + |sub|)) per run. The closure form of Theorem 1 (paper, Section 3).

    Examples
    --------
    >>> from mptsearch.families import k4_3
    >>> steiner_search(k4_3()).cost
    8
    """
    from ..trie import trie_cost

    t0 = time.perf_counter()
    red = reduce_instance(inst)
    layout: list = [None] * inst.m
    bound = 0
    for idx, masks in red.components:
        if len(idx) == 1:
            layout[idx[0]] = [x for c in range(masks[0].bit_length()) if masks[0] >> c & 1 for x in red.groups[c]]
            bound += sum(red.weights[c] for c in range(masks[0].bit_length()) if masks[0] >> c & 1)
            continue
        g = closure_graph(masks, red.weights, max_sets=max_sets)
        c, used = search_component(g, closure_poset(g, red.weights), red.weights, seed=seed, restarts=restarts,
                                   steps=steps)
        bound += c
        for i, s in zip(idx, steiner_layout(used, list(masks), red.weights, red.groups)):
            layout[i] = s
    cost = trie_cost(inst, layout)
    return SteinerSearch(layout=layout, cost=cost, bound=bound, seconds=time.perf_counter() - t0)
