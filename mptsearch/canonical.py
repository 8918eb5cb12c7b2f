"""Canonical form of an instance up to relabelling chunks.

Two instances are *isomorphic* when a bijection of their chunks maps the family of requests of
one onto the other's and preserves weights (request order never matters: a family is a set).
:func:`canonical_form` returns one fixed representative of the isomorphism class, with chunks
labelled 0..n-1 and requests sorted; :func:`canonical_key` is a hashable key equal for two
instances exactly when they are isomorphic. The annealer uses it to store best instances so
that equal finds from different runs are recognisable; the enumerator's tests use it as the
slow, obviously-correct twin of the compiled orderly generator.

Method: individualisation-refinement (McKay). Chunks are coloured by weight, the colouring is
refined by the multiset of the colours of the requests holding each chunk until stable, and
the search individualises one chunk of the first non-singleton cell at a time. Every discrete
colouring gives a labelling; the key is the least ``(weights, sorted request masks)`` over the
leaves. Automorphisms found on the way (two leaves with equal keys) prune the siblings of a
node that lie in one orbit of the automorphisms fixing the node's path.
"""

from __future__ import annotations

from typing import Sequence

from .instance import Instance, from_lists

__all__ = ["canonical_form", "canonical_key", "canonical_perm", "family_key"]


def _refine(colour: list[int], masks: Sequence[int], n: int) -> list[int]:
    """Equitable refinement: colours are ranks of label-invariant signatures, so the result
    does not depend on the numbering of chunks."""
    ncls = len(set(colour))
    while True:
        req_sig = [tuple(sorted(colour[x] for x in range(n) if r >> x & 1)) for r in masks]
        sig = [(colour[x], tuple(sorted(req_sig[i] for i, r in enumerate(masks) if r >> x & 1)))
               for x in range(n)]
        ranks = {s: i for i, s in enumerate(sorted(set(sig)))}
        colour = [ranks[s] for s in sig]
        if len(ranks) == ncls:
            return colour
        ncls = len(ranks)


def _individualise(colour: list[int], v: int) -> list[int]:
    # v gets a colour just below its cell's; the rest keep their relative order
    return [2 * c + (0 if x != v else -1) for x, c in enumerate(colour)]


def _key_of(perm: Sequence[int], masks: Sequence[int], weights: Sequence[int]):
    n = len(perm)
    w = [0] * n
    for x in range(n):
        w[perm[x]] = weights[x]
    img = []
    for r in masks:
        t = 0
        for x in range(n):
            if r >> x & 1:
                t |= 1 << perm[x]
        img.append(t)
    return (tuple(w), tuple(sorted(img)))


def family_key(masks: Sequence[int], n: int, weights: Sequence[int] | None = None):
    """Canonical key and labelling of a family given as chunk bitmasks on chunks 0..n-1.

    Returns ``(key, perm)``: ``key = (weights, sorted masks)`` of the canonical relabelling and
    ``perm[x]`` the new label of chunk x. Chunks in no request are allowed (they get the last
    labels among their weight class). Runs in time proportional to the number of leaves of
    the search tree: O(n m) per refinement for rigid families, up to the size of the
    automorphism group's orbits for symmetric ones.
    """
    masks = list(masks)
    weights = [1] * n if weights is None else [int(v) for v in weights]
    colour = _refine([0] * n if len(set(weights)) == 1 else
                     [sorted(set(weights)).index(v) for v in weights], masks, n)
    best: list = [None, None]
    autos: list[list[int]] = []

    def orbit_rep(v, cell, fixed):
        # smallest element of v's orbit under the automorphisms found so far that fix `fixed`
        gens = [g for g in autos if all(g[f] == f for f in fixed)]
        seen, stack = {v}, [v]
        while stack:
            u = stack.pop()
            for g in gens:
                if g[u] not in seen:
                    seen.add(g[u])
                    stack.append(g[u])
        return min(u for u in seen if u in cell)

    def search(col, fixed):
        ranks = sorted(set(col))
        if len(ranks) == n:
            perm = [ranks.index(c) for c in col]
            key = _key_of(perm, masks, weights)
            if best[0] is None or key < best[0]:
                best[0], best[1] = key, perm
            elif key == best[0]:
                inv = [0] * n
                for x in range(n):
                    inv[best[1][x]] = x
                autos.append([inv[perm[x]] for x in range(n)])
            return
        # first smallest non-singleton cell (a label-invariant choice)
        counts: dict[int, int] = {}
        for c in col:
            counts[c] = counts.get(c, 0) + 1
        target = min(c for c, k in counts.items() if k > 1)
        cell = [x for x in range(n) if col[x] == target]
        tried: list[int] = []
        for v in cell:
            if tried and orbit_rep(v, cell, fixed) in tried:
                continue
            tried.append(v)
            search(_refine(_individualise(col, v), masks, n), fixed + [v])

    search(colour, [])
    return best[0], best[1]


def canonical_perm(inst: Instance) -> list[int]:
    """``perm[x]``: the canonical label of chunk id x (see :func:`canonical_form`)."""
    return family_key(inst.request_masks(), inst.n, inst.weights)[1]


def canonical_key(inst: Instance) -> tuple:
    """A hashable key, equal for two instances exactly when they are isomorphic.

    It is ``(weights, masks)``: the weights of chunks 0..n-1 and the sorted request bitmasks
    of the canonical form.

    Examples
    --------
    >>> from mptsearch.instance import parse_instance
    >>> canonical_key(parse_instance("012 013")) == canonical_key(parse_instance("123 023"))
    True
    """
    return family_key(inst.request_masks(), inst.n, inst.weights)[0]


def canonical_form(inst: Instance) -> Instance:
    """The canonical representative of ``inst``'s isomorphism class.

    Chunks are relabelled 0..n-1 by :func:`canonical_perm`, requests are sorted by bitmask and
    each lists its chunks in increasing order (production order is not kept: it is not part
    of the family). Weights travel with their chunks. Isomorphic inputs give equal outputs.

    Examples
    --------
    >>> from mptsearch.instance import parse_instance, compact
    >>> compact(canonical_form(parse_instance("123 023 013 012")))
    '012 013 023 123'
    """
    (w, masks), _ = family_key(inst.request_masks(), inst.n, inst.weights)
    reqs = [[x for x in range(inst.n) if r >> x & 1] for r in masks]
    return from_lists(reqs, list(w))
