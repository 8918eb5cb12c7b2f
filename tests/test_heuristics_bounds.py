"""Heuristics and bounds: invariants against the exact solvers, and the paper's families."""

import numpy as np
import pytest
from hypothesis import given, settings

from mptsearch.bounds import balanced_hierarchy, c1p_bound, is_c1p_order, mst_lower_bound
from mptsearch.exact.free import opt_free
from mptsearch.exact.glob import opt_glob
from mptsearch.families import leave_one_out, min_external_path_length, random_instance
from mptsearch.heuristics.agglomerative import agglomerative
from mptsearch.heuristics.greedy import greedy
from mptsearch.instance import InstanceError, from_compact
from mptsearch.trie import order_cost, production_cost, trie_cost

from .naive import naive_mst_lower_bound
from .strategies import examples, instances


@settings(max_examples=examples(400))
@given(instances(max_n=8, max_m=8))
def test_sandwich(inst):
    """lower bound <= OPT_free <= agglomerative, greedy, production; OPT_free <= OPT_glob <= the
    cost of any global order.

    Not OPT_glob <= production: production keeps each request's own order, which need not be
    induced by one priority and can beat every global order (e.g. ``0 1 12 021 02`` with
    requests in the orders given: production 5, OPT_glob 6; see test_production_can_beat_opt_glob).
    """
    free = opt_free(inst).value
    glob = opt_glob(inst).value
    lb = mst_lower_bound(inst)
    agg = agglomerative(inst)
    gr = greedy(inst)
    assert lb <= free <= agg.cost and free <= gr.cost
    assert free <= production_cost(inst)
    assert free <= glob <= min(order_cost(inst, list(range(inst.n))), order_cost(inst, list(range(inst.n))[::-1]))
    assert trie_cost(inst, agg.layout) == agg.cost
    assert agg.cost <= inst.total_weight() - agg.savings == agg.hierarchy.cost(inst)
    assert lb == naive_mst_lower_bound(inst.orders, {x: int(w) for x, w in enumerate(inst.weights)})


@settings(max_examples=examples(300))
@given(instances(max_n=7, max_m=7))
def test_agglomerative_keeps_half_the_optimal_savings(inst):
    opt_savings = inst.total_weight() - opt_free(inst).value
    for tb in ("first", "random"):
        assert 2 * agglomerative(inst, tie_break=tb, seed=1).savings >= opt_savings


def test_tight_witness_under_adversarial_ties():
    inst = from_compact("0123 14 2578 46")
    assert agglomerative(inst, tie_break="worst").savings == 1
    assert agglomerative(inst, tie_break="best").savings == 2
    assert inst.total_weight() - opt_free(inst).value == 2


@pytest.mark.parametrize("n, expected", [(16, 64), (32, 160), (64, 384)])
def test_agglomerative_is_optimal_on_leave_one_out(n, expected):
    assert agglomerative(leave_one_out(n)).cost == expected == min_external_path_length(n)


@pytest.mark.parametrize("n", [5, 9, 64])
def test_greedy_pays_quadratic_on_leave_one_out(n):
    assert greedy(leave_one_out(n)).cost == (n - 1) + n * (n - 1) // 2


def test_random_tie_breaking_is_reproducible():
    inst = random_instance(n=10, m=12, k=(2, 5), seed=5)
    a = agglomerative(inst, tie_break="random", seed=11)
    b = agglomerative(inst, tie_break="random", seed=11)
    assert a.hierarchy.nested() == b.hierarchy.nested()


def test_worst_best_bracket_every_tie_break():
    rng = np.random.default_rng(2)
    for _ in range(20):
        inst = random_instance(n=6, m=6, k=(1, 3), seed=rng)
        lo = agglomerative(inst, tie_break="worst").savings
        hi = agglomerative(inst, tie_break="best").savings
        for seed in range(5):
            assert lo <= agglomerative(inst, tie_break="random", seed=seed).savings <= hi
        assert lo <= agglomerative(inst).savings <= hi


def test_c1p_bound_on_a_path():
    inst = from_compact("01 12 23 34 45 56 67 78")
    line = list(range(inst.m))
    assert is_c1p_order(inst, line)
    free = opt_free(inst).value
    h = balanced_hierarchy(inst, line)
    assert free <= h.cost(inst) <= c1p_bound(inst, line)
    with pytest.raises(InstanceError, match="contiguous"):
        c1p_bound(inst, [1, 0, 2, 3, 4, 5, 6, 7])


def test_c1p_bound_on_random_interval_instances():
    """Requests = windows on a line of chunks with nondecreasing starts and ends: every
    chunk's requests are then contiguous."""
    rng = np.random.default_rng(9)
    for _ in range(10):
        m = 10
        starts = np.sort(rng.integers(0, 12, size=m))
        ends = np.maximum.accumulate(starts + rng.integers(2, 6, size=m))
        reqs = [list(range(s, e)) for s, e in zip(starts, ends)]
        from mptsearch.instance import from_lists
        inst = from_lists(reqs)
        if inst.m != m:
            continue
        line = list(range(m))
        assert is_c1p_order(inst, line)
        assert opt_free(inst).value <= balanced_hierarchy(inst, line).cost(inst) <= c1p_bound(inst, line)


def test_production_can_beat_opt_glob():
    """A production layout is a free layout, not a global order: it can cost less than OPT_glob."""
    from mptsearch.instance import from_lists
    inst = from_lists([[0], [1], [1, 2], [0, 2, 1], [0, 2]])
    assert production_cost(inst) == 5
    assert opt_glob(inst).value == 6
    assert opt_free(inst).value == 5


def test_heuristics_report_value_like_the_exact_solvers():
    """One name for the objective: ``.value``; ``.cost`` stays as the same number."""
    from mptsearch.families import k4_3

    inst = k4_3()
    for r in (agglomerative(inst), greedy(inst)):
        assert r.value == r.cost == trie_cost(inst, r.layout)
