"""The trie search (no Theorem 1) against brute force over layouts and the Theorem 1 DP."""

import pytest
from hypothesis import given, settings

from mptsearch.exact.brute import brute_free
from mptsearch.exact.free import opt_free
from mptsearch.families import k4_3, leave_one_out, min_external_path_length, random_instance, ratio_record
from mptsearch.trie import trie_cost
from mptsearch.verify.triesearch import SearchBudgetExceeded, trie_search

from .naive import naive_trie_cost
from .strategies import instances


@settings(max_examples=150)
@given(instances(max_n=5, max_m=5, max_k=3))
def test_equals_brute_force_over_layouts(inst):
    r = trie_search(inst)
    assert r.value == brute_free(inst, limit=10**6)[0]
    assert trie_cost(inst, r.layout) == r.value
    assert naive_trie_cost(r.layout, [int(w) for w in inst.weights]) == r.value


@settings(max_examples=100)
@given(instances(max_n=8, max_m=8))
def test_equals_theorem1_dp(inst):
    r = trie_search(inst)
    assert r.value == opt_free(inst).value
    assert trie_cost(inst, r.layout) == r.value


def test_named_families():
    assert trie_search(k4_3()).value == 8
    assert trie_search(ratio_record()).value == 14
    for n in range(2, 8):
        assert trie_search(leave_one_out(n)).value == min_external_path_length(n)


def test_m10_random_weighted():
    for seed in range(3):
        inst = random_instance(10, 10, (2, 6), weights=(1, 20), seed=seed)
        assert trie_search(inst).value == opt_free(inst).value


def test_budget():
    with pytest.raises(SearchBudgetExceeded):
        trie_search(leave_one_out(7), max_states=10)
