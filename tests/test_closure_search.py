"""The Steiner-set view of the closure (OPT_free = min over node sets U of cost(U)), its local
search, and the pairs program (containment arcs, chunk and branch rows) against the Theorem 1
DP and the naive twins, on random unit and weighted instances (requests inside others
included: the strategy draws arbitrary subsets)."""

import numpy as np
from hypothesis import given, settings

from mptsearch.exact.arborescence import PAIRS_CAP, opt_free_closure
from mptsearch.exact.closure import closure_graph, reduce_instance
from mptsearch.exact.closure_program import highs_model, solve_mip
from mptsearch.exact.closure_search import closure_poset, search_component, steiner_search, used_cost
from mptsearch.exact.free import opt_free
from mptsearch.exact.pairs_program import containment_graph, pairs_model
from mptsearch.families import k4_3, random_instance
from mptsearch.instance import from_lists
from mptsearch.trie import trie_cost

from .naive import naive_min_node_set_cost
from .strategies import examples, instances


def _components(inst):
    red = reduce_instance(inst)
    for idx, masks in red.components:
        if len(idx) > 1:
            yield red, masks, closure_graph(masks, red.weights)


@settings(max_examples=60, deadline=None)
@given(instances(max_n=5, max_m=6, max_weight=5))
def test_min_over_node_sets_is_opt_free(inst):
    weights = {x: int(inst.weights[x]) for x in range(inst.n)}
    assert naive_min_node_set_cost(inst.requests, weights) == opt_free(inst).value


@settings(max_examples=40, deadline=None)
@given(instances(max_n=7, max_m=8, max_weight=6))
def test_search_cost_is_its_definition_and_an_upper_bound(inst):
    opt = opt_free(inst).value
    for red, masks, g in _components(inst):
        poset = closure_poset(g, red.weights)
        cost, used = search_component(g, poset, red.weights, steps=300, restarts=1)
        assert set(masks) <= set(used)
        assert cost == used_cost(red.weights, used)
    r = steiner_search(inst, steps=2000)
    assert r.cost == trie_cost(inst, r.layout)
    assert opt <= r.cost <= r.bound


@settings(max_examples=40, deadline=None)
@given(instances(max_n=7, max_m=8, max_weight=6))
def test_containment_graph_is_every_proper_containment(inst):
    for red, masks, g in _components(inst):
        gp = containment_graph(g, closure_poset(g, red.weights))
        arcs = {(int(t), int(h)) for t, h in zip(gp.tails, gp.heads)}
        want = {(u, v) for v in range(1, len(g.sets)) for u in range(len(g.sets))
                if u != v and g.sets[u] & g.sets[v] == g.sets[u]}
        assert arcs == want
        for t, h, c in zip(gp.tails, gp.heads, gp.costs):
            extra = g.sets[h] & ~g.sets[t]
            assert c == sum(red.weights[x] for x in range(extra.bit_length()) if extra >> x & 1)


def _pairs_value_and_lp(inst):
    value, lp = 0, 0.0
    red = reduce_instance(inst)
    for idx, masks in red.components:
        if len(idx) == 1:
            w = sum(red.weights[c] for c in range(masks[0].bit_length()) if masks[0] >> c & 1)
            value, lp = value + w, lp + w
            continue
        g = closure_graph(masks, red.weights)
        model = pairs_model(g, closure_poset(g, red.weights))
        st, bound, x = solve_mip(model, None, presolves=("off",))
        assert st == "Optimal" and int(model.graph.costs[x].sum()) == bound
        value += bound
        h = highs_model(model, integer=False, time_limit=None)
        h.run()
        lp += h.getInfo().objective_function_value
    return value, lp


@settings(max_examples=examples(80, 40), deadline=None)
@given(instances(max_n=7, max_m=8, max_weight=6))
def test_pairs_program_value_equals_the_dp_weighted(inst):
    value, lp = _pairs_value_and_lp(inst)
    opt = opt_free(inst).value
    assert value == opt
    assert lp <= opt + 1e-6


@settings(max_examples=examples(40, 20), deadline=None)
@given(instances(max_n=6, max_m=7, max_weight=1))
def test_pairs_program_value_equals_the_dp_unit(inst):
    assert _pairs_value_and_lp(inst)[0] == opt_free(inst).value


def test_requests_inside_others_pairs_program():
    inst = from_lists([[0, 1, 2], [0], [0, 1], [3, 4], [3], [2, 1, 0, 5], [5, 3]], {x: x + 1 for x in range(6)})
    assert _pairs_value_and_lp(inst)[0] == opt_free(inst).value


def test_k4_3_pairs_lp_is_below_the_optimum():
    value, lp = _pairs_value_and_lp(k4_3())
    assert value == 8 and lp < 8


def test_cover_program_alone_and_the_default_agree_with_the_dp():
    # three seeds (six in the opt-in tier)
    for seed in range(examples(6, 3)):
        inst = random_instance(n=9, m=12, k=(2, 6), weights=(1, 9), seed=seed)
        opt = opt_free(inst).value
        old = opt_free_closure(inst, search=False, pairs_cap=0)
        new = opt_free_closure(inst, large=0, pairs_cap=PAIRS_CAP)
        assert old.value == new.value == opt == opt_free_closure(inst).value
        assert old.formulation == "cover" and new.formulation == "pairs"
        assert new.search_upper >= opt


def test_out_of_time_bracket_holds_the_optimum():
    inst = random_instance(n=10, m=16, k=(3, 7), weights=(1, 9), seed=5)
    opt = opt_free(inst).value
    r = opt_free_closure(inst, time_limit=0.05, large=0, pairs_cap=PAIRS_CAP)
    assert r.lower <= opt <= r.upper == trie_cost(inst, r.layout)
    assert r.optimal == (r.lower == r.upper)


def test_search_values_are_deterministic():
    inst = random_instance(n=12, m=14, k=(2, 6), weights=(1, 9), seed=1)
    a, b = steiner_search(inst, seed=4), steiner_search(inst, seed=4)
    assert a.layout == b.layout and a.cost == b.cost
    assert np.isclose(a.bound, b.bound)
