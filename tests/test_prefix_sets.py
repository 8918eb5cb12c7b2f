"""The prefix-set search (unit-weight OPT_free on <= 7 chunks) against the Theorem 1 DP, the
trie search and the naive twins; its lemma read literally on tiny universes; the level bound
against exact values."""

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mptsearch.exact.free import dp_dtype, opt_free
from mptsearch.exact.prefix_sets import level_bound, opt_free_prefix_sets
from mptsearch.families import k4_3, leave_one_out, min_external_path_length, ratio_record
from mptsearch.instance import InstanceError, from_lists
from mptsearch.trie import trie_cost
from mptsearch.verify.triesearch import trie_search

from .naive import naive_min_accessible_family, naive_opt_free, naive_trie_cost


@st.composite
def unit_families(draw, max_n=7, max_m=7, k=None):
    n = draw(st.integers(1, max_n))
    if k is not None:
        n = max(n, k)
        req = st.sets(st.integers(0, n - 1), min_size=k, max_size=k).map(frozenset)
    else:
        req = st.frozensets(st.integers(0, n - 1), min_size=1, max_size=n)
    reqs = draw(st.lists(req, min_size=1, max_size=max_m, unique=True))
    return from_lists([sorted(r) for r in reqs])


def _check(inst, expected):
    check_result(opt_free_prefix_sets(inst), inst, expected)


def check_result(r, inst, expected):
    """r (a PrefixSetResult of inst) has value ``expected``, a layout of that cost and an
    accessible family of that size holding every request."""
    assert r.value == expected
    assert trie_cost(inst, r.layout) == r.value
    assert naive_trie_cost(r.layout, [1] * inst.n) == r.value
    # the certificate is an accessible family of the right size containing every request
    fam = {frozenset(s) for sets in r.levels.values() for s in sets}
    assert all(frozenset(q) in fam for q in inst.requests)
    assert all(len(s) == 1 or any(s - {x} in fam for x in s) for s in fam)
    assert len(fam) == r.value


@settings(max_examples=200)
@given(unit_families(max_n=6, max_m=7))
def test_equals_naive_theorem1_any_sizes(inst):
    _check(inst, naive_opt_free([sorted(q) for q in inst.requests], {x: 1 for x in range(inst.n)}))


@settings(max_examples=60)
@given(unit_families(max_n=4, max_m=5))
def test_lemma_read_literally_equals_theorem1(inst):
    """The lemma itself, without the search: the least accessible family, by trying them all."""
    reqs = [sorted(q) for q in inst.requests]
    assert naive_min_accessible_family(reqs) == naive_opt_free(reqs, {x: 1 for x in range(inst.n)})


@settings(max_examples=60)
@given(st.sampled_from([3, 4]).flatmap(lambda k: unit_families(max_n=7, max_m=12, k=k)))
def test_uniform_equals_dp_and_trie_search(inst):
    v = opt_free(inst).value
    _check(inst, v)
    if inst.m <= 9:
        assert trie_search(inst).value == v
    assert level_bound(inst) <= v


def _random_uniform(k, m, seed):
    rng = random.Random(seed)
    return from_lists([list(c) for c in rng.sample(list(itertools.combinations(range(7), k)), m)])


@pytest.mark.parametrize("k", [3, 4])
def test_dense_uniform_m14_against_dp(k):
    for seed in range(3):
        inst = _random_uniform(k, 14, seed)
        _check(inst, opt_free(inst).value)


@pytest.mark.slow
@pytest.mark.parametrize("k,m", [(k, m) for k in (3, 4) for m in (16, 18, 20)])
def test_dense_uniform_up_to_m20_against_dp_and_trie_search(k, m):
    for seed in range(2):
        inst = _random_uniform(k, m, seed)
        v = opt_free(inst).value
        _check(inst, v)
        assert trie_search(inst, max_states=None).value == v


def test_named_families_and_the_whole_universe():
    _check(k4_3(), 8)
    _check(ratio_record(), 14)
    for n in range(2, 8):
        _check(leave_one_out(n), min_external_path_length(n))
    # all 35 requests: the search stops at the level bound, 35 + 12 + 5 + 4 for k = 4 (the
    # Turan numbers T(7,4,3) = 12 and T(7,4,2) = 5, four chunks meet every 4-set) and
    # 35 + 9 + 5 for k = 3
    for k, value in ((4, 56), (3, 49)):
        inst = from_lists([list(c) for c in itertools.combinations(range(7), k)])
        assert level_bound(inst) == value
        _check(inst, value)


def test_level_bound_is_sound_tight_and_not_always_tight():
    assert level_bound(k4_3()) == 8 == opt_free(k4_3()).value
    gaps = []
    for seed in range(40):
        inst = _random_uniform(4, 10, seed)
        v = opt_free(inst).value
        lb = level_bound(inst)
        assert lb <= v
        gaps.append(v - lb)
    assert 0 in gaps and max(gaps) > 0  # exact on some, strictly below on others


def test_refuses_weights_and_large_universes():
    with pytest.raises(InstanceError, match="unit weights"):
        opt_free_prefix_sets(from_lists([[0, 1], [1, 2]], {0: 2, 1: 1, 2: 1}))
    with pytest.raises(InstanceError, match="at most 10 chunks"):
        opt_free_prefix_sets(from_lists([list(range(11))]))
    with pytest.raises(InstanceError, match="uniform"):
        level_bound(from_lists([[0, 1], [1, 2, 3]]))


def test_the_kernels_crossover_constants_agree():
    from mptsearch._kernels import free as kernel_free
    from mptsearch.exact import prefix_sets

    assert (kernel_free.PS_FROM, kernel_free.PS_FROM_SMALL_K) == (prefix_sets.PS_FROM, prefix_sets.PS_FROM_SMALL_K)
    assert (kernel_free.PS_FROM_WIDE, kernel_free.NARROW_N, kernel_free.WIDE_K) == (
        prefix_sets.PS_FROM_WIDE, prefix_sets.NARROW_N, prefix_sets.WIDE_K)


def test_fastest_savings_kernel_takes_both_paths():
    """free_savings_fastest: the DP below the crossover and for weights, the prefix-set
    search above it (a workspace with 2^14-entry tables could not run the DP at m = 20)."""
    import numpy as np

    from mptsearch._kernels.free import free_savings_fastest
    from mptsearch._kernels.workspace import workspace

    for m, weights in ((8, None), (12, [1, 2, 1, 1, 3, 1, 1]), (20, None), (35, None)):
        inst = _random_uniform(4, m, 1)
        if weights:
            inst = from_lists([sorted(q) for q in inst.requests], dict(enumerate(weights)))
        ws = workspace(7, m, dp_dtype(inst.total_weight()), table_m=min(m, 14))  # as the annealer sizes it
        req = np.array(inst.request_masks(), dtype=np.uint64)
        sav = free_savings_fastest(req, m, inst.weights.astype(np.int64), ws)
        expected = opt_free_prefix_sets(inst).value if m > 14 else opt_free(inst).value
        assert inst.total_weight() - sav == expected
