"""The compiled node table and mode rules of the blend model against their slow twins.

:func:`mptsearch.blend.heuristic.node_table` and :func:`~mptsearch.blend.heuristic.price_greedy`
(numba, :mod:`mptsearch.blend.kernels`) must give the numbers of the frozenset versions in
tests/naive.py exactly (same arrays, same floating-point sums), on random layouts and on laid-out
synthetic retrieval traces, for both rules and every parameter set below.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mptsearch.blend.heuristic import frontier, node_table, price_first, price_greedy
from mptsearch.blend.model import BlendParams
from mptsearch.blend.trace import price_rows

from .naive import naive_blend_first, naive_blend_greedy, naive_blend_node_table

PARAMS = [BlendParams(0.15, 0.05, 1.0), BlendParams(0.0, 0.0), BlendParams(0.3, 0.2, 0.0),
          BlendParams(0.05, 0.01, 2.5), BlendParams(0.15, 0.01, 1.0, True), BlendParams(1, 0),
          BlendParams(0.1, 0.003, 0.7, True), BlendParams(0.15, 2, 1)]


def _same(weights, rows, caps=(32, 1, 2)):
    tab = node_table(weights, rows)
    twin = naive_blend_node_table(weights, rows)
    for key in ("w", "d_first", "through"):
        assert np.array_equal(getattr(tab, key), twin[key]), key
    assert (tab.tokens, tab.distinct) == (twin["tokens"], twin["distinct"])
    assert list(tab.chunk) == [x for x, _, _ in twin["nodes"]]
    for p in PARAMS:
        args = (p.r, p.price, p.beta, p.per_answer)
        assert price_first(tab, p) == naive_blend_first(twin, *args)
        for cap in caps:
            assert price_greedy(tab, p, cap) == naive_blend_greedy(twin, *args, cap=cap)
    return tab


@st.composite
def layouts(draw):
    n = draw(st.integers(1, 9))
    weights = np.array(draw(st.lists(st.integers(1, 50), min_size=n, max_size=n)), dtype=np.int64)
    line = st.lists(st.integers(0, n - 1), min_size=0, max_size=n, unique=True)
    rows = draw(st.lists(line, min_size=0, max_size=14))
    # repeat some lines and prefixes so that nodes are shared and chunks get many copies
    rows += [r[:draw(st.integers(0, len(r)))] for r in draw(st.lists(st.sampled_from(rows), max_size=6))] if rows else []
    return weights, rows


@settings(max_examples=60, deadline=None)
@given(layouts())
def test_node_table_and_rules_equal_the_twins_on_random_layouts(case):
    weights, rows = case
    _same(weights, rows)


@pytest.mark.parametrize("method", ["production", "agglomerative", "popularity"])
@pytest.mark.parametrize("seed", [0, 3])
def test_node_table_and_rules_equal_the_twins_on_retrieval_traces(method, seed):
    from mptsearch.serving.layout import as_sparse, method_orders
    from mptsearch.serving.synthetic import retrieval_trace
    from mptsearch.serving.trace import trace_from_lists

    chunks, tokens = retrieval_trace(400, seed)
    sp = as_sparse(trace_from_lists([str(j) for j in range(len(chunks))], chunks, tokens))
    lay, _ = method_orders(sp, method)
    tab = _same(sp.weights, lay.rows(), caps=(32, 3))
    from_csr = node_table(sp.weights, lay)  # the Layout read in place gives the same table
    assert all(np.array_equal(getattr(tab, k), getattr(from_csr, k)) for k in ("w", "d_first", "through", "parent"))
    for p in PARAMS[:3]:
        assert price_rows(sp.weights, lay, p, "greedy") == price_rows(sp.weights, lay.rows(), p, "greedy")
    assert frontier(tab, 0.15, 1.0)[-1].loss > 0  # the trace has blendable nodes: the test is not vacuous


def test_greedy_beats_first_on_a_second_copy():
    # chunk 0 is first met after {1}; then after {1, 2, 3} (d = 2: 0.1 + 0.35 * 3 > 1, so full,
    # a second copy); then again after {1, 2, 3}: greedy blends it from the second copy (d = 0),
    # the one-copy rule still sees d = 2 and computes it full
    weights = np.array([10, 1, 1, 1], dtype=np.int64)
    rows = [[1, 0], [2, 1, 3, 0], [3, 2, 1, 0]]
    tab = _same(weights, rows)
    assert list(tab.d_first) == [-1, -1, -1, 1, -1, 2, 2, 1, 2, 2]
    p = BlendParams(0.1, 0.35, 1.0)
    (gc, gl), (fc, fl) = price_greedy(tab, p), price_first(tab, p)
    assert gc == pytest.approx(fc - 9) and gl == pytest.approx(fl + 10)


def test_bad_input_refused():
    with pytest.raises(ValueError):
        node_table(np.array([1, 2]), [[0, 2]])
    with pytest.raises(ValueError):
        price_greedy(node_table(np.array([1]), [[0]]), BlendParams(0.1, 0.1), cap=0)
