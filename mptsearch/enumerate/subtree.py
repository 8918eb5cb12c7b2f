"""Whole subtrees of the generation tree decided by one bound.

Lemma S (uniform classes, unit weights). Let P be a family of d distinct k-chunk requests and
Q a family of q = d + e distinct k-chunk requests containing P (in particular every
descendant of P in the orderly generation tree, :mod:`mptsearch.enumerate.generate`). Then

    OPT_glob(Q) <= OPT_glob(P) + e k      and      OPT_free(Q) >= OPT_free(P) + e,

so OPT_glob(Q) / OPT_free(Q) <= (OPT_glob(P) + e k) / (OPT_free(P) + e), and the same holds
with any upper bound on OPT_glob(P) and any lower bound on OPT_free(P) in their places.

Proof. Glob: take a global order optimal for P. Under the same order the trie of Q contains
the trie of P, and each request of Q outside P adds at most its own k nodes, so Q has a
global order of cost at most OPT_glob(P) + e k. Free: by induction on e it is enough to take
e = 1, Q = P + R. In an optimal trie of Q the path of R ends at a node v at depth k. No other
request ends at v (it would have the k chunks of R's path: R itself), and no other path goes
through v (its request would have more than k chunks), so v is a leaf that only R uses.
Deleting R's request and the node v (and any other node of R's path no other request uses)
leaves a trie in which every request of P still has its path: a free layout of P of cost at
most OPT_free(Q) - 1. Hence OPT_free(P) <= OPT_free(Q) - 1.
(It is the inherited bound of :mod:`mptsearch._kernels.inherited` with
w(R) - max_i w(R ∩ R_i) >= 1, iterated.) Both steps are tight: the tests give instances
where OPT_free rises by exactly one and OPT_glob by exactly k, so a free step of +2 or a
glob step of k - 1 would be unsound; the independent referee found the combined bound met
with equality by ancestors of the m = 9 witness on 9 chunks, so the cut must be strict.
With requests of mixed sizes a short request can end inside a longer path and the free step
fails ({012} + 01 keeps OPT_free at 3), so mixed classes never cut subtrees.

Use. A node P at depth d is *cut* (its children are not generated) when for every member
level q in [max(d + 1, mlo), m_top] (reachable from P or not: testing more levels only cuts
less), a floor r_q is strictly above the bound
(soundness needs only r_q <= the class's maximum at q; here r_q is always a ratio that a
member with q requests attains exactly, from an evaluated piece or a checked witness, and a
member attaining r_q is never cut): G + (q - d) k < r_q (V + q - d), with G = OPT_glob(P)
and V a lower bound on OPT_free(P): where the lower bound does not cut but the agglomerative
upper bound would, V is the exact OPT_free; the test is monotone in V and lb <= OPT_free <= ub,
so the decision is the one the exact value gives. Every member in a cut subtree then has a ratio below
r_q, so the maximum for each m, and the number of members attaining it, stay exact; the
members in cut subtrees are never generated, so their number comes from the exact orbit
count (:mod:`mptsearch.enumerate.orbit_count`) instead of the generator.
"""

from __future__ import annotations

from dataclasses import fields
from fractions import Fraction

import numpy as np

from .._kernels.inherited import inherited_lower_bounds
from .evaluate import BatchResult, evaluate_batch
from .generate import EnumClass, allowed_requests, children_of

__all__ = ["applies", "cut_floors", "cut_mask", "decide_cuts", "evaluate_subtree"]

_FIELDS = tuple(f.name for f in fields(BatchResult))


def applies(cls: EnumClass, weights=None) -> bool:
    """Whether Lemma S holds for the class: one request size, unit weights."""
    return cls.klo == cls.khi and (weights is None or bool(np.all(np.asarray(weights) == 1)))


def cut_mask(glob, low, d: int, k: int, mlo: int, mhi: int, floors: dict) -> np.ndarray:
    """Which nodes at depth d (arrays: an upper bound ``glob`` on OPT_glob and a lower bound
    ``low`` on OPT_free) have no descendant at any member level q in [max(d+1, mlo), mhi]
    that reaches the floor r_q: exact integer tests b (G + e k) < a (V + e), r_q = a / b,
    e = q - d. A level without a floor cuts nothing."""
    glob = np.asarray(glob, dtype=np.int64)
    low = np.asarray(low, dtype=np.int64)
    cut = np.ones(len(glob), dtype=bool)
    levels = range(max(d + 1, mlo), mhi + 1)
    if not len(levels):
        return np.zeros(len(glob), dtype=bool)
    for q in levels:
        r = floors.get(q)
        if r is None:
            return np.zeros(len(glob), dtype=bool)
        r = Fraction(r)
        e = q - d
        cut &= r.denominator * (glob + e * k) < r.numerator * (low + e)
    return cut


def cut_floors(floors: dict, prop: str, threshold) -> dict:
    """The floors a cut must stay below so that every hit is generated as well: the ratio
    floors themselves for ``none``, min(floor, threshold) for ``ratio``; ``gap`` and
    ``shortfall`` hits can have any ratio, so nothing may be cut for them."""
    if prop == "none":
        return dict(floors)
    if prop == "ratio":
        # the threshold as evaluate_batch reads it (a float such as 1.1 is 11/10 there)
        t = Fraction(threshold).limit_denominator(10**6)
        return {q: min(Fraction(r), t) for q, r in floors.items()}
    raise ValueError(f"subtree bounds keep every hit only for the properties none and ratio, "
                     f"not {prop}")


def decide_cuts(masks, ms, n: int, r: BatchResult, k: int, mlo: int, mhi: int, cuts: dict, *,
                exact_limit: int, prefix_sets: bool = True):
    """``(value, gone)`` for evaluated nodes (``r`` from :func:`evaluate_batch` on
    ``masks``/``ms``, any depths): ``value`` a lower bound on each node's OPT_free (exact where
    known) and ``gone`` which nodes Lemma S cuts against ``cuts``. Where the lower bound does
    not cut but the agglomerative upper bound would, the exact OPT_free is computed first
    (it lies between them, so only there can it change the decision)."""
    value = np.where(r.free >= 0, r.free, r.lb)
    gone = np.zeros(len(ms), dtype=bool)
    room = np.zeros(len(ms), dtype=bool)
    for d in np.unique(ms):
        at = ms == d
        gone[at] = cut_mask(r.glob[at], value[at], int(d), k, mlo, mhi, cuts)
        room[at] = ~gone[at] & cut_mask(r.glob[at], r.ub[at], int(d), k, mlo, mhi, cuts) & (r.free[at] == -1)
    if room.any():
        rows = np.flatnonzero(room)
        x = evaluate_batch(masks[rows], ms[rows], n, prop="ratio", threshold=0,
                           exact_limit=exact_limit, prefix_sets=prefix_sets)
        ok = x.free >= 0
        value[rows[ok]] = x.free[ok]
        for d in np.unique(ms[rows]):
            at = rows[ms[rows] == d]
            gone[at] = cut_mask(r.glob[at], value[at], int(d), k, mlo, mhi, cuts)
    return value, gone


def _concat(parts: list[BatchResult]) -> BatchResult:
    return BatchResult(*[np.concatenate([getattr(p, f) for p in parts]) if parts
                         else np.zeros(0, dtype=np.int64) for f in _FIELDS])


CUT_LEVELS = 3  #: levels above the least member level where nodes are evaluated and cut


def evaluate_subtree(cls: EnumClass, root, floors: dict, *, prop: str = "none",
                     threshold: Fraction | float = 1, exact_limit: int | None = None,
                     prefix_sets: bool = True, levels: int = CUT_LEVELS):
    """Generate and evaluate the subtree below the canonical family ``root`` (request
    numbers, the root included), level by level, cutting the subtrees Lemma S decides.

    Nodes with fewer than mlo - ``levels`` requests are generated and not evaluated (far
    from the members the bound (G + e k)/(V + e) tends to k and cuts little, while every
    evaluation costs an OPT_glob): on 5-uniform families on 9 chunks with 10 requests the
    cuts fall at 7 and 8 requests. Past the middle of a universe (4-uniform on 7 chunks with
    21 requests) the levels above the members outnumber them and an uncut run is faster.

    Returns ``(masks, ms, result, cut)``: the members generated (``masks[i, :ms[i]]``
    request bitmasks, width mhi) with their :class:`BatchResult`, and ``cut[q]`` for each
    member level q: how many cut nodes had fewer than q requests (their subtrees hold the
    members at level q that were not generated; some cannot reach q at all). ``floors`` ({m: Fraction}) must be ratios
    attained by members of the class (see the module docstring); members are evaluated as
    :func:`~mptsearch.enumerate.evaluate.evaluate_batch` does, with these floors and the
    bounds inherited from their parents where the parent was evaluated (not at the first
    evaluated level).
    """
    if not applies(cls):
        raise ValueError("subtree bounds need one request size (Lemma S)")
    from .evaluate import EXACT_M_LIMIT

    exact_limit = EXACT_M_LIMIT if exact_limit is None else exact_limit
    cuts = cut_floors(floors, prop, threshold)
    E = allowed_requests(cls)
    # m_top: no member (so no floor) above the number of allowed requests (mhi may be 64)
    k, n, mlo, mhi = cls.khi, cls.n, cls.mlo, cls.m_top
    w = np.ones(max(n, 1), dtype=np.int64)
    level = np.asarray(root, dtype=np.int64).reshape(1, -1)
    d = level.shape[1]
    parent_value = None  # exact OPT_free or a lower bound, per row of the previous level
    parent = None
    out_masks, out_ms, out_res = [], [], []
    cut = {q: 0 for q in range(mlo, mhi + 1)}
    # no member can score above k: a floor above it keeps the batch's max search off (ancestors)
    no_dp = {m: Fraction(k + 1) for m in range(mhi + 1)}
    while len(level) and d < mlo - levels:
        level, _ = children_of(cls, level)
        d += 1
    while len(level) and d <= mhi:
        masks = np.zeros((len(level), max(mhi, 1)), dtype=np.int64)
        masks[:, :d] = E[level]
        ms = np.full(len(level), d, dtype=np.int64)
        inherited = np.zeros(len(level), dtype=np.int64)
        if parent is not None:
            inherited_lower_bounds(masks.view(np.uint64), ms, np.arange(len(level)), parent,
                                   parent_value, w, inherited)
        member = d >= mlo
        r = evaluate_batch(masks, ms, n, prop=prop if member else "none", threshold=threshold,
                           exact_limit=exact_limit, lower_bounds=inherited,
                           ratio_floor=floors if member else no_dp, prefix_sets=prefix_sets)
        if member:
            out_masks.append(masks)
            out_ms.append(ms)
            out_res.append(r)
        if d == mhi:
            break
        value, gone = decide_cuts(masks, ms, n, r, k, mlo, mhi, cuts, exact_limit=exact_limit,
                                  prefix_sets=prefix_sets)
        for q in range(max(d + 1, mlo), mhi + 1):
            cut[q] += int(gone.sum())
        keep = np.flatnonzero(~gone)
        level, parent = children_of(cls, level[keep])
        parent_value = value[keep]
        d += 1
    if out_masks:
        return np.concatenate(out_masks), np.concatenate(out_ms), _concat(out_res), cut
    return (np.zeros((0, max(mhi, 1)), dtype=np.int64), np.zeros(0, dtype=np.int64),
            _concat([]), cut)
