"""Canonical form up to relabelling chunks: invariant under relabelling, and it separates
non-isomorphic instances exactly like a brute-force minimum over all n! relabellings."""

from itertools import permutations
from math import comb

import numpy as np
from hypothesis import given, settings, strategies as st

from mptsearch.canonical import canonical_form, canonical_key, family_key
from mptsearch.families import random_instance
from mptsearch.instance import compact, parse_instance


def brute_key(masks, n, weights):
    """Least (weights, sorted masks) over all n! relabellings: the slow twin."""
    best = None
    for p in permutations(range(n)):
        w = [0] * n
        for x in range(n):
            w[p[x]] = weights[x]
        img = tuple(sorted(sum(1 << p[x] for x in range(n) if r >> x & 1) for r in masks))
        key = (tuple(w), img)
        if best is None or key < best:
            best = key
    return best


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 5), st.integers(1, 5), st.integers(0, 10**6), st.booleans())
def test_keys_separate_like_brute_force(n, m, seed, weighted):
    # small universes so that random pairs are often isomorphic
    rng = np.random.default_rng(seed)
    fams = []
    for _ in range(2):
        masks = sorted({int(rng.integers(1, 1 << n)) for _ in range(m)})
        weights = [int(v) for v in rng.integers(1, 3, n)] if weighted else [1] * n
        fams.append((masks, weights))
    (a, wa), (b, wb) = fams
    same = family_key(a, n, wa)[0] == family_key(b, n, wb)[0]
    assert same == (brute_key(a, n, wa) == brute_key(b, n, wb))
    # the key is itself the family relabelled by the returned permutation
    key, perm = family_key(a, n, wa)
    img = tuple(sorted(sum(1 << perm[x] for x in range(n) if r >> x & 1) for r in a))
    assert key[1] == img


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 9), st.integers(2, 12), st.integers(0, 10**6))
def test_invariant_under_relabelling(n, m, seed):
    k = min(3, n)
    inst = random_instance(n, min(m, comb(n, k)), k, weights=(1, 3), seed=seed)
    perm = np.random.default_rng(seed + 1).permutation(inst.n)
    other = inst.relabel([int(v) for v in perm])
    assert canonical_key(other) == canonical_key(inst)
    assert compact(canonical_form(other)) == compact(canonical_form(inst))
    assert list(canonical_form(other).weights) == list(canonical_form(inst).weights)


def test_named_instances():
    assert compact(canonical_form(parse_instance("123 023 013 012"))) == "012 013 023 123"
    a = parse_instance("0145 0236 1236 1245 1345 1456 2346 2356")
    # checked against brute_key: the first is a relabelling of the record, the second is not
    assert canonical_key(a) == canonical_key(parse_instance("0123 0124 0125 0126 0345 1345 2345 3456"))
    assert canonical_key(a) != canonical_key(parse_instance("0123 0124 0125 0126 0345 1345 2345 2456"))
