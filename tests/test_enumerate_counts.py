"""The orderly generator against published counts (OEIS) and a Burnside count over all n!
relabellings; each member exactly once (checked with the independent canonical form)."""

from itertools import permutations
from math import factorial

import numpy as np
import pytest

from mptsearch.canonical import family_key
from mptsearch.enumerate.generate import EnumClass, count_class, iter_families, split_pieces, generate_piece


def burnside_counts(n, klo, khi):
    """Orbits of m-request families under S_n for every m: (1/n!) sum over relabellings of the
    number of families each one fixes, i.e. the coefficient of x^m in prod over the cycles c of
    the relabelling on requests of (1 + x^|c|)."""
    edges = [r for r in range(1, 1 << n) if klo <= bin(r).count("1") <= khi]
    pos = {e: i for i, e in enumerate(edges)}
    total = np.zeros(len(edges) + 1, dtype=object)
    for perm in permutations(range(n)):
        img = [pos[sum(1 << perm[x] for x in range(n) if e >> x & 1)] for e in edges]
        seen = [False] * len(edges)
        poly = np.zeros(len(edges) + 1, dtype=object)
        poly[0] = 1
        for i in range(len(edges)):
            if seen[i]:
                continue
            c, j = 0, i
            while not seen[j]:
                seen[j] = True
                j = img[j]
                c += 1
            shifted = np.zeros_like(poly)
            shifted[c:] = poly[:len(poly) - c]
            poly = poly + shifted
        total += poly
    assert all(v % factorial(n) == 0 for v in total)
    return [int(v // factorial(n)) for v in total]


def test_a000612_families_of_subsets():
    # OEIS A000612: families of nonempty subsets of an n-set, up to relabelling, n = 0..4
    got = [int(count_class(EnumClass(n, 1, max(n, 1), 0, 64)).sum()) for n in range(5)]
    assert got == [1, 2, 6, 40, 1992]


def test_3_uniform_rows():
    # OEIS A092337 rows n = 5, 6 (by number of edges); totals are A000665: 34, 2136
    row5 = list(count_class(EnumClass(5, 3, 3, 0, 10)))
    assert row5 == [1, 1, 2, 4, 6, 6, 6, 4, 2, 1, 1]
    row6 = list(count_class(EnumClass(6, 3, 3, 0, 20)))
    assert sum(row6) == 2136
    assert row6 == burnside_counts(6, 3, 3)
    assert row6 == row6[::-1]  # complementation within the 20 triples


@pytest.mark.parametrize("n,klo,khi", [(3, 1, 3), (4, 2, 2), (4, 1, 2), (5, 2, 3), (5, 4, 4),
                                       pytest.param(5, 1, 5, marks=pytest.mark.slow),  # a minute
                                       (6, 2, 2), (6, 4, 5)])
def test_burnside_oracle(n, klo, khi):
    top = sum(1 for r in range(1, 1 << n) if klo <= bin(r).count("1") <= khi)
    assert list(count_class(EnumClass(n, klo, khi, 0, top))) == burnside_counts(n, klo, khi)


def test_each_member_once_n4():
    # every family of nonempty subsets of a 4-set, canonicalised independently, vs the generator
    fams = list(iter_families(EnumClass(4, 1, 4, 0, 15)))
    # each one a family of distinct nonempty subsets of the 4-set
    assert all(len(set(f)) == len(f) and all(1 <= r <= 15 for r in f) for f in fams)
    keys = [family_key(f, 4)[0] for f in fams]
    # pairwise non-isomorphic, and as many as there are orbits of all 2^15 families (Burnside
    # over the 24 relabellings, independent of the generator): so every orbit is there once.
    # (The same as canonicalising all 32,768 families, at a fifteenth of the cost.)
    assert len(set(keys)) == len(keys) == sum(burnside_counts(4, 1, 4)) == 1992


@pytest.mark.parametrize("cls,min_pieces", [(EnumClass(6, 3, 3, 2, 9), 20),
                                             (EnumClass(7, 4, 4, 7, 9), 64),
                                             (EnumClass(5, 1, 5, 0, 6), 30)])
def test_pieces_partition_the_class(cls, min_pieces):
    p, prefixes, split = split_pieces(cls, min_pieces=min_pieces)
    rows, sizes = [], []
    for q in range(len(prefixes) + 1):
        for a in (0, 2):
            out = generate_piece(cls, p, prefixes[q - 1] if q else split, q, ancestors=a)
            masks, ms = out[0], out[1]
            if a:  # ancestors come on top of the same members, with their parents' rows
                members = ms >= cls.mlo
                assert [tuple(r[:m]) for r, m in zip(masks[members], ms[members])] == got
                par = out[2]
                ok = par >= 0
                assert np.all(ms[ok] == ms[par[ok]] + 1) and np.all(par[ok] < np.flatnonzero(ok))
                continue
            got = [tuple(r[:m]) for r, m in zip(masks, ms)]
        rows += got
        sizes.append(len(got))
    assert len(rows) == len(set(rows)) == int(count_class(cls).sum())
    assert sorted(rows) == sorted(iter_families(cls))
    if cls.mhi == 9 and cls.n == 7:  # the heavy first subtrees are split: no piece holds 25%
        assert split and max(sizes) < 0.25 * len(rows)


@pytest.mark.slow
def test_a000665_n7():
    # OEIS A000665: 3-uniform hypergraphs on 7 vertices, 7013320 in total (about a minute)
    assert int(count_class(EnumClass(7, 3, 3, 0, 35)).sum()) == 7013320


@pytest.mark.slow
def test_genbg_cross_check():
    from mptsearch.enumerate.genbg import genbg_families, genbg_path
    if genbg_path() is None:
        pytest.skip("nauty's genbg is not on PATH (opt-in cross-check: apt-get install nauty)")
    # genbg is slow on dense mixed-size classes (-z is checked late), so n=5 stops at m=9
    for cls in (EnumClass(5, 1, 5, 0, 9), EnumClass(6, 3, 3, 0, 20), EnumClass(7, 4, 4, 0, 7)):
        for m in range(cls.mlo, cls.m_top + 1):
            theirs = {family_key(f, cls.n)[0] for f in genbg_families(cls, m)}
            ours = [family_key(f, cls.n)[0] for f in iter_families(EnumClass(cls.n, cls.klo, cls.khi, m, m))]
            assert len(ours) == len(set(ours)) == len(theirs)
            assert set(ours) == theirs
