"""The exact solvers against their slow twins, brute force and the paper's known values."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mptsearch.exact.brute import brute_free, brute_glob, layout_count
from mptsearch.exact.free import dp_dtype, opt_free
from mptsearch.exact.glob import opt_glob
from mptsearch.families import (k4_3, leave_one_out, min_external_path_length, random_instance,
                                ratio_record)
from mptsearch.instance import from_lists
from mptsearch.trie import order_cost, trie_cost

from .naive import naive_opt_free, naive_opt_glob, naive_trie_cost
from .strategies import examples, instances


def _w(inst):
    return {x: int(inst.weights[x]) for x in range(inst.n)}


def test_theorem1_against_brute_force_over_layouts():
    """Theorem 1 on random weighted instances (100; 300 in the opt-in tier): the DP equals the
    best of all layouts."""
    rng = np.random.default_rng(20261129)
    checked = 0
    while checked < examples(300):
        m = int(rng.integers(2, 6))
        inst = random_instance(n=int(rng.integers(4, 7)), m=m, k=(1, 4), weights=(1, 6), seed=rng)
        if layout_count(inst) > 3000:
            continue
        value, layout = brute_free(inst)
        r = opt_free(inst)
        assert r.value == value, inst
        assert trie_cost(inst, r.layout) == r.value
        checked += 1


@settings(max_examples=examples(1000, 150))
@given(instances(max_n=7, max_m=7))
def test_opt_free_matches_plain_python_twin(inst):
    r = opt_free(inst)
    assert r.value == naive_opt_free(inst.orders, _w(inst))
    assert trie_cost(inst, r.layout) == r.value == r.hierarchy.cost(inst)
    assert naive_trie_cost(r.layout, _w(inst)) == r.value


@settings(max_examples=examples(1000, 150))
@given(instances(max_n=7, max_m=9))
def test_opt_glob_matches_plain_python_twin(inst):
    r = opt_glob(inst)
    assert r.value == naive_opt_glob(inst.orders, _w(inst))
    assert order_cost(inst, r.order) == r.value


@settings(max_examples=examples(150, 60))
@given(instances(max_n=6, max_m=6))
def test_opt_glob_against_all_orders(inst):
    value, order = brute_glob(inst)
    assert opt_glob(inst).value == value


@pytest.mark.parametrize("kernel", ["plain", "auto"])
def test_known_values(kernel):
    assert opt_free(k4_3(), kernel=kernel).value == 8
    assert opt_glob(k4_3()).value == 9
    assert opt_free(ratio_record(), kernel=kernel).value == 14
    assert opt_glob(ratio_record()).value == 21


@pytest.mark.parametrize("n", range(2, 17))
def test_leave_one_out_is_min_external_path_length(n):
    inst = leave_one_out(n)
    r = opt_free(inst)
    assert r.value == min_external_path_length(n)
    assert trie_cost(inst, r.layout) == r.value
    if n <= 12:
        assert opt_glob(inst).value == (n - 1) + n * (n - 1) // 2


def test_min_external_path_length_sequence():
    # 0,2,5,8,12,16,20,24,29 for n=1..9 (OEIS A001855 shifted by n-1), 64,...,896 for powers of 2
    assert [min_external_path_length(n) for n in range(1, 10)] == [0, 2, 5, 8, 12, 16, 20, 24, 29]
    assert [min_external_path_length(n) for n in (16, 32, 64, 128)] == [64, 160, 384, 896]


@pytest.mark.parametrize("scale, dtype", [(1, "int16"), (5000, "int32"), (2**33, "int64")])
def test_wider_types_stay_exact(scale, dtype):
    """Weights that overflow int16 / int32 switch the DP to a wider type, never overflow."""
    rng = np.random.default_rng(7)
    for _ in range(20):
        inst = random_instance(n=8, m=6, k=(2, 5), weights=(1, 9), seed=rng)
        big = from_lists([list(o) for o in inst.orders], {x: int(w) * scale for x, w in enumerate(inst.weights)})
        r = opt_free(big)
        assert r.dtype == dtype
        assert r.value == naive_opt_free(big.orders, _w(big))
        assert r.value == opt_free(inst).value * scale


def test_dp_dtype_boundaries():
    assert dp_dtype(32767) == np.int16 and dp_dtype(32768) == np.int32
    assert dp_dtype(2**31 - 1) == np.int32 and dp_dtype(2**31) == np.int64


def test_invariance_under_relabelling_and_request_order():
    rng = np.random.default_rng(3)
    for _ in range(30):
        inst = random_instance(n=9, m=7, k=(2, 5), weights=(1, 5), seed=rng)
        perm = rng.permutation(inst.n)
        relab = inst.relabel([int(p) for p in perm])
        order = rng.permutation(inst.m)
        w = {int(perm[x]): int(inst.weights[x]) for x in range(inst.n)}
        shuffled = from_lists([[int(perm[x]) for x in inst.orders[i]] for i in order], w)
        for other in (relab, shuffled):
            assert opt_free(other).value == opt_free(inst).value
            assert opt_glob(other).value == opt_glob(inst).value


def test_too_many_requests_is_a_clear_error():
    from mptsearch.instance import InstanceError
    inst = random_instance(n=40, m=33, k=3, seed=1)
    with pytest.raises(InstanceError, match="m=33"):
        opt_free(inst)
    with pytest.raises(InstanceError, match="GiB"):
        opt_free(random_instance(n=40, m=20, k=3, seed=1), max_memory=1 << 20)
