"""The compiled twins the cost-ratio and online searches run equal the public functions:
each heuristic's trie cost (tie-breaking included) and the online layouter's, on random
instances; and the value the annealer sees is heuristic cost / OPT_free."""

import random

import numpy as np
from hypothesis import given, settings, strategies as st

from mptsearch._kernels.layouts import rows_cost
from mptsearch.exact.free import dp_dtype, opt_free
from mptsearch.heuristics.greedy import greedy
from mptsearch.heuristics.approximation import heaviest_first, heaviest_first_order
from mptsearch.heuristics.registry import HEURISTICS, heuristic, layout_and_cost, searchable
from mptsearch.instance import from_compact, from_lists
from mptsearch.search.objective import objective_value
from mptsearch.serving.online import OnlineLayouter, online_layout
from mptsearch.trie import trie_cost

from .strategies import examples, instances


@settings(max_examples=examples(150, 60), deadline=None)
@given(instances(max_n=8, max_m=8, max_weight=6))
def test_cost_ratio_objective_is_public_heuristic_cost_over_opt_free(inst):
    f = opt_free(inst).value
    for name in searchable():
        layout, cost = layout_and_cost(inst, HEURISTICS[name].function(inst))
        assert trie_cost(inst, layout) == cost
        assert objective_value(inst, "cost-ratio", heuristic=name) == (cost, f)


@settings(max_examples=examples(100, 40), deadline=None)
@given(instances(max_n=8, max_m=9, max_weight=6), st.integers(1, 6))
def test_online_objective_is_the_online_layouters_cost(inst, window):
    layout = online_layout(inst.orders, inst.weights, window)
    assert objective_value(inst, "online", window=window) == (trie_cost(inst, layout), opt_free(inst).value)


def test_online_twin_is_the_layouter_fed_one_request_at_a_time():
    """The layouter as a server uses it (labels and token counts per call, default memory)
    commits the layout the objective measures. The chunks first appear in id order, so the
    layouter's own ids (first appearance) are the instance's and ties break alike."""
    reqs = ["012", "13", "234", "0134", "24", "03", "1234", "14"]
    w = [3, 1, 2, 5, 1]
    inst = from_lists([[int(c) for c in r] for r in reqs], w)
    for window in (1, 2, 3, 4, 8):
        lay = OnlineLayouter(window=window)
        got = {}
        for j, r in enumerate(inst.orders):
            got.update(lay.add([f"c{x}" for x in r], tokens=[w[x] for x in r], id=j))
        got.update(lay.flush())
        layout = [[int(c[1:]) for c in got[j]] for j in range(inst.m)]
        assert objective_value(inst, "online", window=window)[0] == trie_cost(inst, layout)


def test_greedy_trap_is_evaluated_exactly():
    """Greedy takes the light chunk a (in three requests) before the heavy H (in two), so H is
    paid twice: 2W + 4 against OPT_free W + 5 (W = 9: 22/14)."""
    inst = from_lists([["a", "H"], ["H", "b"], ["a", "c"], ["a", "d"]], {"a": 1, "b": 1, "c": 1, "d": 1, "H": 9})
    assert greedy(inst).value == 22 and opt_free(inst).value == 14
    assert objective_value(inst, "cost-ratio", heuristic="greedy") == (22, 14)
    assert objective_value(inst, "cost-ratio", heuristic="heaviest-first") == (14, 14)


def test_heaviest_first_breaks_weight_ties_by_id():
    inst = from_lists([[0, 1], [0, 2], [1, 2]], [1, 2, 2])
    assert heaviest_first_order(inst) == [1, 2, 0]
    # unit weights: chunk-id order, so a sunflower whose core has the largest id pays k per request
    sun = from_compact("03 13 23")
    assert heaviest_first(sun)[1] == 6 and opt_free(sun).value == 4
    assert objective_value(sun, "cost-ratio", heuristic="heaviest-first") == (6, 4)


def test_rows_cost_is_the_trie_cost():
    """Rows 012, 013, 2 and 0 (a prefix of the first two): trie nodes 0, 01, 012, 013 and 2."""
    rows = np.array([[0, 1, 2], [2, 0, 0], [0, 1, 3], [0, 0, 0]], dtype=np.int64)
    lens = np.array([3, 1, 3, 1], dtype=np.int64)
    w = np.array([1, 2, 4, 8], dtype=np.int64)
    assert rows_cost(rows, lens, 4, w) == 1 + 2 + 4 + 8 + 4
    assert rows_cost(rows, lens, 4, w) == trie_cost(from_lists([[0, 1, 2], [2], [0, 1, 3], [0]], [1, 2, 4, 8]),
                                                      [[0, 1, 2], [2], [0, 1, 3], [0]])


def test_unknown_and_unsearchable_heuristics_are_refused():
    import pytest

    from mptsearch.heuristics.registry import register
    from mptsearch.instance import InstanceError

    with pytest.raises(InstanceError):
        heuristic("no-such")
    register("_test-only", greedy)  # one line registers a heuristic; without a twin it is not searchable
    try:
        assert "_test-only" not in searchable()
        with pytest.raises(InstanceError):
            objective_value(from_compact("01 12"), "cost-ratio", heuristic="_test-only")
    finally:
        HEURISTICS.pop("_test-only")


@settings(max_examples=60, deadline=None)
@given(instances(max_n=7, max_m=7, max_weight=6))
def test_best_of_kernel_is_the_cheaper_of_the_two_and_pairs_are_read(inst):
    """The BEST_OF code (the twin of mptsearch.heuristics.approximation.best_of) is the minimum of the
    heaviest-first and agglomerative twins and equals best_of's cost; a heuristic returning the
    pair (layout in labels, cost) is read like one returning a result object."""
    import numpy as np

    from mptsearch._kernels.layouts import BEST_OF, heuristic_cost
    from mptsearch._kernels.workspace import workspace
    from mptsearch.exact.free import dp_dtype

    _, hf_cost = heaviest_first(inst)
    agg = HEURISTICS["agglomerative"].function(inst)
    ws = workspace(inst.n, inst.m, dp_dtype(inst.total_weight()))
    req = np.array(inst.request_masks(), dtype=np.uint64)
    twin = heuristic_cost(BEST_OF, req, inst.m, inst.n, inst.weights.astype(np.int64), ws)
    assert twin == min(hf_cost, agg.value) == HEURISTICS["best-of"].function(inst)[1]
    pair = ([[inst.labels[x] for x in s] for s in agg.layout], agg.value)
    assert layout_and_cost(inst, pair) == layout_and_cost(inst, agg)


def test_greedy_ratio_depends_on_its_tie_rule():
    """docs/approximation.md: greedy's ties go to the heavier chunk, then the smaller id; on
    `125 346 015 046` (OPT_free 8) that costs 11, and 8 with the labels reversed."""
    inst = from_compact("125 346 015 046")
    assert opt_free(inst).value == 8
    assert greedy(inst).value == 11 == objective_value(inst, "cost-ratio", heuristic="greedy")[0]
    flipped = inst.relabel(list(range(inst.n))[::-1])
    assert greedy(flipped).value == 8


def _twin(inst, name):
    """The compiled twin's value of heuristic ``name`` on ``inst`` (the kernel the search runs)."""
    from mptsearch._kernels.layouts import heuristic_cost
    from mptsearch._kernels.workspace import workspace

    ws = workspace(inst.n, inst.m, dp_dtype(inst.total_weight()), table_m=4)  # as the annealer sizes it
    req = np.array(inst.request_masks(), dtype=np.uint64)
    return int(heuristic_cost(heuristic(name).kernel, req, inst.m, inst.n, inst.weights.astype(np.int64), ws))


def test_twins_past_64_requests():
    """On 7 chunks with unit weights the annealer searches past m = 64 (prefix-set OPT_free):
    every twin equals its public heuristic there, greedy's included (a node's requests are a
    multi-word bitset), and the annealer accepts greedy at any m."""
    from mptsearch.families import random_instance
    from mptsearch.search.anneal import AnnealConfig

    for m in (63, 64, 65, 100, 127):
        inst = random_instance(7, m, (1, 7), seed=m)
        for name in searchable():
            assert _twin(inst, name) == layout_and_cost(inst, heuristic(name).function(inst))[1], (m, name)
    AnnealConfig(n=7, k=(1, 7), m=(100, 100), objective="cost-ratio", heuristic="greedy").validate()


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 10), st.integers(1, 220), st.sampled_from([1, 2, 3, 20]), st.integers(0, 2 ** 32 - 1))
def test_greedy_twin_is_the_python_greedy_at_any_m(n, m, wmax, seed):
    """The compiled greedy equals the trie cost of the Python greedy's layout on random
    families of up to 220 requests (one to four 64-bit words per node); small weight ranges
    make ties in count and weight common, so the tie rule is exercised. The family is drawn
    from a seed (a family of 220 requests drawn value by value from Hypothesis's own stream
    can exceed its entropy budget and fail the data_too_large health check)."""
    rnd = random.Random(seed)
    masks = set()
    while len(masks) < min(m, 2 ** n - 1):
        masks.add(rnd.randrange(1, 2 ** n))
    reqs = [[x for x in range(n) if r >> x & 1] for r in masks]
    used = sorted({x for r in reqs for x in r})
    inst = from_lists(reqs, {x: rnd.randint(1, wmax) for x in used})
    assert _twin(inst, "greedy") == trie_cost(inst, greedy(inst).layout)
