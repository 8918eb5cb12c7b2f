"""Minimal hits: the hits of which no other hit is a proper subfamily up to relabelling.

This is the ``mlo <= 2`` branch of :func:`mptsearch.enumerate.run.minimal_hits` (the class then
holds every smaller family, so the hits are all the families with the property): hit A is
minimal iff no hit B with fewer requests *embeds* into A, i.e. some permutation of the n chunks
maps every request of B onto a request of A.

Two facts make it fast without changing that definition:

1. Embedding is transitive (compose the permutations), and every non-minimal hit contains a
   minimal one (follow strictly smaller contained hits down). So A is minimal iff no *minimal*
   hit with fewer requests embeds into A: taking the hits by increasing size, each is compared
   with the minimal hits found so far, not with all hits (15,237 hits: a few hundred
   comparisons each instead of 15,236).
2. Each comparison is a backtracking search over the chunk map instead of all n!
   permutations: cheap necessary conditions first (request sizes, chunk degrees, pairwise
   intersection sizes are sub-multisets of A's), then chunks of B in decreasing degree,
   each mapped to an unused chunk of A of at least that degree, and a request of B whose
   chunks are mapped only part way must already lie inside a request of A of its size.

``tests/naive.py`` keeps the definition as written (all hit pairs, all n! permutations) and the
tests compare the two on whole classes.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Sequence

__all__ = ["minimal_among_hits", "embeds"]


class _Family:
    """A family of requests (bitmasks over n chunks) with the invariants the search uses."""

    __slots__ = ("masks", "set", "sizes", "degrees", "meets", "inside", "by_chunk")

    def __init__(self, masks: Sequence[int], n: int):
        self.masks = tuple(masks)
        self.set = frozenset(self.masks)
        self.sizes = Counter(r.bit_count() for r in self.masks)
        deg = [sum(r >> x & 1 for r in self.masks) for x in range(n)]
        self.degrees = deg
        self.meets = Counter((a & b).bit_count() for i, a in enumerate(self.masks) for b in self.masks[i + 1:])
        # every subset of a request of size s, for the partial-image test
        self.inside: dict[int, set[int]] = {}
        for r in self.masks:
            subs = self.inside.setdefault(r.bit_count(), set())
            sub = r
            while True:
                subs.add(sub)
                if sub == 0:
                    break
                sub = (sub - 1) & r
        self.by_chunk = [[r for r in self.masks if r >> x & 1] for x in range(n)]


def _submultiset(small: Counter, big: Counter) -> bool:
    return all(big[key] >= count for key, count in small.items())


def _dominated(small: list[int], big: list[int]) -> bool:
    """The sorted chunk degrees of the small family are at most the big one's, place by place."""
    return all(s <= b for s, b in zip(sorted(small, reverse=True), sorted(big, reverse=True)))


def _embeds(small: _Family, big: _Family, n: int) -> bool:
    if len(small.masks) > len(big.masks) or not _submultiset(small.sizes, big.sizes) \
            or not _dominated(small.degrees, big.degrees) or not _submultiset(small.meets, big.meets):
        return False
    chunks = sorted((x for x in range(n) if small.degrees[x]), key=lambda x: -small.degrees[x])
    image = [0] * n  # image[x]: the chunk of big that chunk x of small maps to, as a bit
    used = 0

    def mapped(r: int) -> tuple[int, bool]:
        """(image of the mapped chunks of request r, whether all of r is mapped)."""
        img, whole = 0, True
        for x in range(n):
            if r >> x & 1:
                if image[x]:
                    img |= image[x]
                else:
                    whole = False
        return img, whole

    def place(i: int) -> bool:
        nonlocal used
        if i == len(chunks):
            return True
        x = chunks[i]
        for y in range(n):
            bit = 1 << y
            if used & bit or big.degrees[y] < small.degrees[x]:
                continue
            image[x] = bit
            ok = True
            for r in small.by_chunk[x]:
                img, whole = mapped(r)
                if whole:
                    ok = img in big.set
                else:
                    ok = img in big.inside.get(r.bit_count(), ())
                if not ok:
                    break
            if ok:
                used |= bit
                if place(i + 1):
                    return True
                used &= ~bit
            image[x] = 0
        return False

    return place(0)


def embeds(small: Sequence[int], big: Sequence[int], n: int) -> bool:
    """Whether some relabelling of the n chunks maps every request of ``small`` (bitmasks) onto
    a request of ``big``. Exponential in n in the worst case, usually decided by the invariants
    or a short search."""
    return _embeds(_Family(small, n), _Family(big, n), n)


def minimal_among_hits(families: Sequence[Sequence[int]], n: int,
                       progress: Callable[[int], None] | None = None) -> list[bool]:
    """For each family (requests as bitmasks over ``n`` chunks), whether no other family with
    fewer requests embeds into it (see the module docstring; same answer as comparing all
    pairs over all n! relabellings).

    ``progress(k)`` is called as families are decided (k of them since the last call).

    Complexity: O(H * M * search) for H families of which M are minimal; a search is
    exponential in n in the worst case and is usually cut short by the invariants.
    """
    fams = [_Family(f, n) for f in families]
    order = sorted(range(len(fams)), key=lambda a: len(fams[a].masks))
    out = [False] * len(fams)
    minimal: list[_Family] = []
    done = 0
    for a in order:
        fa = fams[a]
        out[a] = not any(len(fb.masks) < len(fa.masks) and _embeds(fb, fa, n) for fb in minimal)
        if out[a]:
            minimal.append(fa)
        done += 1
        if progress is not None and (done % 64 == 0 or done == len(fams)):
            progress(64 if done % 64 == 0 else done % 64)
    return out
