"""CP-SAT and MaxSAT encodings against the DPs, brute force and closed forms."""

import numpy as np
import pytest
from hypothesis import given, settings

from mptsearch.encodings.glob_cpsat import build_glob_model, solve_glob_cpsat
from mptsearch.encodings.vertex_cover import (build_k2_cpsat, build_k2_maxsat, solve_k2_cpsat, solve_k2_maxsat,
                                              vertex_cover_cpsat, vertex_cover_maxsat)
from mptsearch.exact.brute import brute_free, brute_glob
from mptsearch.exact.free import opt_free
from mptsearch.exact.glob import opt_glob
from mptsearch.families import k4_3, leave_one_out, random_instance, ratio_record
from mptsearch.instance import InstanceError, from_lists
from mptsearch.trie import order_cost, trie_cost
from mptsearch.verify.hardness import brute_vertex_cover, graph_instance, random_graph

from .naive import naive_opt_glob
from .strategies import instances

CP = dict(time_limit=20.0, workers=1)


@settings(max_examples=60)
@given(instances(max_n=6, max_m=6))
def test_glob_cpsat_equals_brute_and_dp(inst):
    r = solve_glob_cpsat(inst, **CP)
    assert r.optimal
    assert r.value == r.bound == brute_glob(inst)[0] == opt_glob(inst).value
    assert order_cost(inst, r.order) == r.value


def test_glob_cpsat_named():
    assert solve_glob_cpsat(k4_3(), **CP).value == 9
    assert solve_glob_cpsat(ratio_record(), **CP).value == 21
    n = 6  # a global order pays (n-1) + n(n-1)/2 on L_n
    assert solve_glob_cpsat(leave_one_out(n), **CP).value == (n - 1) + n * (n - 1) // 2


def test_glob_model_size_and_hint():
    inst = ratio_record()
    gm = build_glob_model(inst, hint_order=list(range(inst.n)))
    n = inst.n
    assert len(gm.pair) == n * (n - 1) // 2
    S = [sum(1 for r in inst.requests if c in r) for c in range(n)]
    assert len(gm.diff) == sum(s * (s - 1) // 2 for s in S)
    assert len(gm.lead) == sum(s - 1 for s in S if s > 0)
    assert gm.constant == int(inst.weights.sum())
    with pytest.raises(InstanceError):
        build_glob_model(inst, hint_order=[0, 1])


def test_glob_cpsat_random_n10():
    for seed in range(5):
        inst = random_instance(10, 8, (2, 5), weights=(1, 9), seed=seed)
        r = solve_glob_cpsat(inst, **CP)
        assert r.optimal and r.value == opt_glob(inst).value == naive_opt_glob(inst.requests, inst.weights)


@settings(max_examples=80)
@given(instances(max_n=6, max_m=7, max_k=2))
def test_k2_models_equal_brute_force(inst):
    a, b = solve_k2_cpsat(inst, **CP), solve_k2_maxsat(inst)
    best = brute_free(inst, limit=10**6)[0]
    assert a.optimal and b.optimal
    assert a.value == b.value == best == opt_free(inst).value
    assert trie_cost(inst, a.layout) == best and trie_cost(inst, b.layout) == best


def test_k2_closed_form_unit_weights():
    """Unit weights, no one-chunk requests: OPT_free = tau(G) + m."""
    for seed in range(20):
        edges = random_graph(8, 6 + seed % 10, seed=seed)
        inst = graph_instance(edges)
        tau = brute_vertex_cover(edges)
        assert solve_k2_cpsat(inst, **CP).value == tau + inst.m
        assert solve_k2_maxsat(inst).value == tau + inst.m


def test_k2_singletons_force_a_vertex():
    # path 0-1-2: tau = 1 ({1}) so cost 3; asking for {0} alone forces 0 to the first level
    assert solve_k2_maxsat(from_lists([[0, 1], [1, 2]])).value == 3
    inst = from_lists([[0, 1], [1, 2], [0]])
    assert solve_k2_maxsat(inst).value == solve_k2_cpsat(inst, **CP).value == brute_free(inst)[0] == 4
    # weighted: the heavy centre once at the first level (10 + 1 + 1) beats it twice at the second (1 + 1 + 10 + 10)
    inst = from_lists([[0, 1], [1, 2]], {0: 1, 1: 10, 2: 1})
    assert solve_k2_cpsat(inst, **CP).value == brute_free(inst)[0] == 12


def test_k2_model_sizes_and_rejects_k3():
    inst = from_lists([[0, 1], [1, 2], [2], [0, 2]])
    cp = build_k2_cpsat(inst)
    assert len(cp.x) == 3 and len(cp.y) == 3 and len(cp.singles) == 1
    ms = build_k2_maxsat(inst)
    assert len(ms.model.hard) == 2 * 3 + 1 and len(ms.model.soft) == 3 + 2 * 3
    with pytest.raises(InstanceError):
        build_k2_cpsat(k4_3())


def test_plain_vertex_cover_solvers():
    for seed in range(10):
        edges = random_graph(12, 20, seed=seed)
        tau = brute_vertex_cover(edges)
        a, b = vertex_cover_cpsat(edges, **CP), vertex_cover_maxsat(edges)
        assert a.tau == b.tau == tau
        for cover in (a.cover, b.cover):
            assert all(u in cover or v in cover for u, v in edges)


def test_k2_larger_graph_cpsat_equals_maxsat():
    rng = np.random.default_rng(5)
    edges = random_graph(60, 120, seed=rng)
    w = rng.integers(1, 10, size=60)
    inst = from_lists([list(e) for e in edges], {v: int(w[v]) for v in range(60)})
    a, b = solve_k2_cpsat(inst, **CP), solve_k2_maxsat(inst)
    assert a.optimal and a.value == b.value == trie_cost(inst, a.layout) == trie_cost(inst, b.layout)
